/* push.c - the start pushed out of the body's half-planes with the
 * cloth lying over it, so that no layer of cloth is pushed through
 * another.
 *
 * Projecting each vertex onto its own half-plane moves the vertices
 * that start behind it and leaves the rest where they are.  Where the
 * cloth lies on the body in layers (a pleat, a hem, a collar), the inner
 * layer can start a fraction of the push-out from the body and the outer
 * one just above it, both behind their planes: the projection puts both
 * on the plane, at the same height, or the inner one above the outer
 * one.  On the shared dress at 1024 cells that made 405 pairs of
 * crossing triangles before the first iteration, from a start with 0,
 * and the repulsion then holds the crossed layers crossed.
 *
 * Instead each vertex moves out by the largest push of the vertices
 * around it: its own, or that of any vertex within rho (in 3-D) whose
 * plane faces the same way (normals within 45 degrees; across a crease
 * of the body, as under an arm, the cloth on the two sides is not
 * stacked).  It moves along the normal of the vertex whose push it
 * takes, so that the layers over that vertex move as one, and then onto
 * its own half-plane, which that can leave it a little behind.  rho is
 * the largest push of all, so every layer that a pushed layer could
 * overtake (one less than its push above it) is carried out by at least
 * as much: layers keep their order and their gaps.  Cloth beside the
 * pushed cloth is carried out too, by at most the push; the solve
 * relaxes it.  rho is capped at PUSH_REACH_OFFSETS push-outs of the body
 * (8 cells at the default collision scale), so that a vertex that starts
 * deep inside a body (a pose the cloth was not made for) does not lift a
 * whole panel.
 *
 * The neighbours come from a hash of the pushed vertices on cells of
 * rho; a vertex's push is a maximum over a set, ties going to the lowest
 * index, so the result does not depend on the order of the visit or the
 * thread count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "solve.h"
#include "util.h"

#define PUSH_REACH_OFFSETS 10.0
#define PUSH_SAME_SIDE 0.7071f   /* cos 45 degrees */

struct pushed {
	uint64_t key;   /* the hash cell */
	uint32_t v;
};

static int pushed_cmp(const void *pa, const void *pb)
{
	const struct pushed *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->v > b->v) - (a->v < b->v);
}

/* The cell (i, j, k) of the hash as one key, 21 bits an axis: cells
 * 2^21 apart share a key, which costs a distance test, not a wrong
 * answer. */
static uint64_t cell_key(int64_t i, int64_t j, int64_t k)
{
	const uint64_t m = (1u << 21) - 1;
	return ((uint64_t)i & m) << 42 | ((uint64_t)j & m) << 21 |
	       ((uint64_t)k & m);
}

static int64_t cell_of(float x, double rho)
{
	return (int64_t)floor((double)x / rho);
}

static int has_plane(const struct problem *p, size_t v)
{
	const float *pl = p->plane + 4 * v;
	return p->mov[v] && (pl[0] != 0 || pl[1] != 0 || pl[2] != 0);
}

/* The first entry of the sorted hash with this key (nh when none). */
static size_t first_of(const struct pushed *h, size_t nh, uint64_t key)
{
	size_t lo = 0, hi = nh;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The largest push of a pushed vertex within rho of vertex v whose
 * plane faces v's way, or v's own when larger; *from: whose it is (of
 * equal pushes, the lowest index's, whatever the order of the visit). */
static float carried(const struct problem *p, const float *push,
		     const struct pushed *h, size_t nh, double rho, size_t v,
		     uint32_t *from)
{
	const float *x = p->x + 3 * v, *n = p->plane + 4 * v;
	int64_t c[3] = {cell_of(x[0], rho), cell_of(x[1], rho),
			cell_of(x[2], rho)};
	float best = push[v];
	*from = (uint32_t)v;
	for (int a = -1; a <= 1; a++)
		for (int b = -1; b <= 1; b++)
			for (int d = -1; d <= 1; d++) {
				uint64_t key = cell_key(c[0] + a, c[1] + b, c[2] + d);
				for (size_t e = first_of(h, nh, key);
				     e < nh && h[e].key == key; e++) {
					uint32_t u = h[e].v;
					const float *y = p->x + 3 * u;
					const float *m = p->plane + 4 * u;
					if (push[u] < best ||
					    (push[u] == best && u >= *from) ||
					    n[0] * m[0] + n[1] * m[1] + n[2] * m[2] <
					    PUSH_SAME_SIDE)
						continue;
					double dx = (double)y[0] - x[0];
					double dy = (double)y[1] - x[1];
					double dz = (double)y[2] - x[2];
					if (dx * dx + dy * dy + dz * dz <= rho * rho) {
						best = push[u];
						*from = u;
					}
				}
			}
	return best;
}

void problem_push_out(struct problem *p, double offset)
{
	if (!p->plane)
		return;
	float *push = xcalloc(p->n, sizeof *push);
	size_t nh = 0;
	double deepest = 0;
	for (size_t v = 0; v < p->n; v++)
		if (has_plane(p, v)) {
			push[v] = collide_halfplane_violation(v3_load(p->x + 3 * v),
							      p->plane + 4 * v);
			if (push[v] > 0) {
				nh++;
				deepest = fmax(deepest, push[v]);
			}
		}
	if (!nh) {
		free(push);
		return;
	}
	/* at least a micrometre, so that the cells fit the keys' range */
	double rho = fmax(fmin(deepest, PUSH_REACH_OFFSETS * offset), 1e-6);
	struct pushed *h = xmalloc_array(nh, sizeof *h);
	size_t m = 0;
	for (size_t v = 0; v < p->n; v++)
		if (push[v] > 0) {
			const float *x = p->x + 3 * v;
			h[m].key = cell_key(cell_of(x[0], rho), cell_of(x[1], rho),
					    cell_of(x[2], rho));
			h[m++].v = (uint32_t)v;
		}
	qsort(h, nh, sizeof *h, pushed_cmp);
	float *by = xcalloc(p->n, sizeof *by);
	uint32_t *from = xcalloc(p->n, sizeof *from);
	#pragma omp parallel for schedule(dynamic, 1024)
	for (long v = 0; v < (long)p->n; v++)
		if (has_plane(p, (size_t)v))
			by[v] = carried(p, push, h, nh, rho, (size_t)v, from + v);
	for (size_t v = 0; v < p->n; v++)
		if (by[v] > 0) {
			float *x = p->x + 3 * v;
			const float *n = p->plane + 4 * (size_t)from[v];
			for (int k = 0; k < 3; k++)
				x[k] += by[v] * n[k];
			/* a carried vertex moved along another normal */
			project_vertex(p, v, x);
		}
	free(by);
	free(from);
	free(h);
	free(push);
}

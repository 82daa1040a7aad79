/* seam_flip.c - the rungs of a seam's strip flipped where its triangles
 * cross the cloth (seam_strip.h: seam_strip_flip).
 *
 * A strip or hole triangle that still crosses something joins seam
 * vertices at the grid's resolution: no split can move it.  But the
 * strip's triangulation is a choice (seam_strip.c makes it greedily, looking
 * only at the triangles around each corner), so a rung between two
 * strip triangles can be flipped to the quadrilateral's other diagonal.
 * Flips are kept when the triangles they change cross fewer triangles
 * of the mesh than before: one flip, or where none does, two in a row
 * (the second on an edge of the first's new triangles: a fan folded
 * over a seam's end needs its rungs turned one after the other).  A
 * quadrilateral's boundary is unchanged and its new edge is not an edge
 * yet, so the mesh stays an oriented manifold; and each corner that had
 * a triangle across the seam (with a corner of another panel) keeps
 * one. */
#include <stdlib.h>
#include <string.h>

#include "boxhash.h"
#include "proximity.h"
#include "seam_strip.h"

/* The mesh the flips change: its triangles, the strip's and holes' from
 * f->first on. */
struct flip_target {
	int (*tris)[3];
	int ntris;
	const float (*pos)[3];
	const uint32_t *vgrid;
};

struct flip_mesh {
	struct flip_target *m;
	const uint16_t *panel;  /* per grid vertex */
	int first;              /* the first strip or hole triangle */
	/* the panels' triangles, which flips leave alone: their boxes in a
	 * hash, their edges (low vertex << 32 | high) sorted */
	struct tribox *box;
	struct boxhash hash;
	uint64_t *edges;
	size_t nedges;
};

static void tri_box(const struct flip_target *m, const int *t,
		    struct tribox *b)
{
	for (int k = 0; k < 3; k++) {
		b->lo[k] = b->hi[k] = m->pos[t[0]][k];
		for (int c = 1; c < 3; c++) {
			float v = m->pos[t[c]][k];
			b->lo[k] = v < b->lo[k] ? v : b->lo[k];
			b->hi[k] = v > b->hi[k] ? v : b->hi[k];
		}
	}
}

/* Whether triangles c and t (corner indices) intersect, as the count
 * says; the boxes first. */
static int cross(const struct flip_target *m, const int *c, const int *t)
{
	struct tribox bc, bt;
	tri_box(m, c, &bc);
	tri_box(m, t, &bt);
	uint32_t cu[3] = {(uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2]};
	uint32_t tu[3] = {(uint32_t)t[0], (uint32_t)t[1], (uint32_t)t[2]};
	return tribox_overlap(&bc, &bt) &&
	       triangles_cross((const float *)m->pos, cu, tu);
}

static int in_set(int t, const int *set, int n)
{
	for (int k = 0; k < n; k++)
		if (set[k] == t)
			return 1;
	return 0;
}

struct crossing_query {
	const struct flip_target *m;
	const int *c;
};

static size_t crosses_panel(uint32_t u, void *arg)
{
	const struct crossing_query *q = arg;
	return (size_t)cross(q->m, q->c, q->m->tris[u]);
}

/* The panels' triangles that cross triangle c (a strip's). */
static int panel_crossings(const struct flip_mesh *f, const int *c)
{
	struct crossing_query q = {f->m, c};
	struct tribox b;
	tri_box(f->m, c, &b);
	return (int)boxhash_visit(&f->hash, f->box, &b, 0, crosses_panel, &q);
}

/* The intersecting pairs that involve a triangle of set[0..n) (strip
 * triangles). */
static int set_crossings(const struct flip_mesh *f, const int *set, int n)
{
	const struct flip_target *m = f->m;
	int c = 0;
	for (int k = 0; k < n; k++) {
		c += panel_crossings(f, m->tris[set[k]]);
		for (int t = f->first; t < m->ntris; t++)
			c += !in_set(t, set, n) && cross(m, m->tris[set[k]],
							 m->tris[t]);
		for (int l = k + 1; l < n; l++)
			c += cross(m, m->tris[set[k]], m->tris[set[l]]);
	}
	return c;
}

static uint64_t edge_key(int a, int b)
{
	uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
	return (uint64_t)lo << 32 | hi;
}

static int key_order(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

static int has_edge(const struct flip_mesh *f, int a, int b)
{
	const struct flip_target *m = f->m;
	uint64_t k = edge_key(a, b);
	if (bsearch(&k, f->edges, f->nedges, sizeof k, key_order))
		return 1;
	for (int t = f->first; t < m->ntris; t++)
		for (int c = 0; c < 3; c++)
			if (edge_key(m->tris[t][c], m->tris[t][(c + 1) % 3]) == k)
				return 1;
	return 0;
}

/* The panels' triangles' boxes in a hash and their edges sorted. */
static void flip_mesh_init(struct flip_mesh *f, struct flip_target *m,
			   const uint16_t *panel, int first)
{
	memset(f, 0, sizeof *f);
	f->m = m;
	f->panel = panel;
	f->first = first;
	f->box = xmalloc_array((size_t)first + 1, sizeof *f->box);
	for (int t = 0; t < first; t++)
		tri_box(m, m->tris[t], &f->box[t]);
	boxhash_build(&f->hash, f->box, (size_t)first);
	f->edges = xmalloc_array(3 * (size_t)first + 1, sizeof *f->edges);
	for (int t = 0; t < first; t++)
		for (int c = 0; c < 3; c++)
			f->edges[f->nedges++] = edge_key(m->tris[t][c],
							 m->tris[t][(c + 1) % 3]);
	qsort(f->edges, f->nedges, sizeof *f->edges, key_order);
}

static void flip_mesh_free(struct flip_mesh *f)
{
	boxhash_free(&f->hash);
	free(f->box);
	free(f->edges);
}

/* Whether vertex v has a strip triangle with a corner of another panel. */
static int joined(const struct flip_mesh *f, int v)
{
	const struct flip_target *m = f->m;
	uint16_t own = f->panel[m->vgrid[v]];
	for (int t = f->first; t < m->ntris; t++)
		if (m->tris[t][0] == v || m->tris[t][1] == v || m->tris[t][2] == v)
			for (int c = 0; c < 3; c++)
				if (f->panel[m->vgrid[m->tris[t][c]]] != own)
					return 1;
	return 0;
}

/* The strip triangle across edge c (from corner c to c + 1) of strip
 * triangle t, and its corner opposite that edge; -1 when none. */
static int strip_across(const struct flip_mesh *f, int t, int c, int *opp)
{
	const struct flip_target *m = f->m;
	int b = m->tris[t][c], e = m->tris[t][(c + 1) % 3];
	for (int u = f->first; u < m->ntris; u++)
		for (int k = 0; k < 3; k++)
			if (u != t && m->tris[u][k] == e &&
			    m->tris[u][(k + 1) % 3] == b) {
				*opp = m->tris[u][(k + 2) % 3];
				return u;
			}
	return -1;
}

/* A flip and what it replaced, to undo it. */
struct flip {
	int t, u;
	int old_t[3], old_u[3];
};

/* Flips edge c of strip triangle t when the other diagonal makes two
 * triangles with area and is not an edge yet; returns 0 when it can't. */
static int flip_do(struct flip_mesh *f, int t, int c, struct flip *fl)
{
	struct flip_target *m = f->m;
	int d, u = strip_across(f, t, c, &d);
	if (u < 0)
		return 0;
	/* t = (b, e, a) from corner c: a b d e is the quadrilateral,
	 * counter-clockwise; its other diagonal is a d */
	int b = m->tris[t][c], e = m->tris[t][(c + 1) % 3],
	    a = m->tris[t][(c + 2) % 3];
	int n1[3] = {a, b, d}, n2[3] = {a, d, e};
	/* a flip must not make a triangle without area */
	if (a == d || corners_collinear(m->pos, a, b, d) ||
	    corners_collinear(m->pos, a, d, e) || has_edge(f, a, d))
		return 0;
	fl->t = t;
	fl->u = u;
	memcpy(fl->old_t, m->tris[t], sizeof fl->old_t);
	memcpy(fl->old_u, m->tris[u], sizeof fl->old_u);
	memcpy(m->tris[t], n1, sizeof n1);
	memcpy(m->tris[u], n2, sizeof n2);
	return 1;
}

static void flip_undo(struct flip_mesh *f, const struct flip *fl)
{
	memcpy(f->m->tris[fl->t], fl->old_t, sizeof fl->old_t);
	memcpy(f->m->tris[fl->u], fl->old_u, sizeof fl->old_u);
}

/* The corners of the triangles of set[0..n) that are joined across
 * their seam, a bit each (at most 9 corners). */
static unsigned joined_corners(const struct flip_mesh *f, const int *set,
			       int n, int corner[9])
{
	unsigned bits = 0;
	int nc = 0;
	for (int k = 0; k < n; k++)
		for (int c = 0; c < 3; c++)
			corner[nc++] = f->m->tris[set[k]][c];
	for (int k = 0; k < nc; k++)
		bits |= (unsigned)joined(f, corner[k]) << k;
	return bits;
}

/* Whether every corner in corner[0..9) joined before (bits) still is. */
static int still_joined(const struct flip_mesh *f, const int corner[9],
			unsigned bits, int n)
{
	for (int k = 0; k < 3 * n; k++)
		if ((bits >> k & 1) && !joined(f, corner[k]))
			return 0;
	return 1;
}

/* The flips of one edge of t, or of one edge of t and then one of the
 * new triangles' edges (depth 2), that lower the crossings of the
 * triangles they change and keep every corner joined; the first found
 * is kept.  Returns how many flips it made. */
static int mend(struct flip_mesh *f, int t, int depth)
{
	for (int c = 0; c < 3; c++) {
		struct flip f1;
		int set[3], corner[9];
		if (!flip_do(f, t, c, &f1))
			continue;
		set[0] = f1.t;
		set[1] = f1.u;
		/* the crossings before, on the old triangles */
		flip_undo(f, &f1);
		int before = set_crossings(f, set, 2);
		unsigned bits = joined_corners(f, set, 2, corner);
		flip_do(f, t, c, &f1);
		if (set_crossings(f, set, 2) < before &&
		    still_joined(f, corner, bits, 2))
			return 1;
		for (int k = 0; depth > 1 && k < 6; k++) {
			struct flip f2;
			int t2 = k < 3 ? f1.t : f1.u;
			if (!flip_do(f, t2, k % 3, &f2))
				continue;
			if (f2.u == f1.t || f2.u == f1.u) {
				flip_undo(f, &f2);
				continue;
			}
			set[2] = f2.u;
			flip_undo(f, &f2);
			flip_undo(f, &f1);
			int before3 = set_crossings(f, set, 3);
			unsigned bits3 = joined_corners(f, set, 3, corner);
			flip_do(f, t, c, &f1);
			flip_do(f, t2, k % 3, &f2);
			if (set_crossings(f, set, 3) < before3 &&
			    still_joined(f, corner, bits3, 3))
				return 2;
			flip_undo(f, &f2);
		}
		flip_undo(f, &f1);
	}
	return 0;
}

size_t seam_strip_flip(int (*tris)[3], int ntris, int first,
		       const float (*pos)[3], const uint32_t *vgrid,
		       const uint16_t *panel, uint32_t *pairs, size_t n,
		       int *flips)
{
	struct flip_target m = {tris, ntris, pos, vgrid};
	struct flip_mesh f;
	*flips = 0;
	if (!panel || n == 0) {
		free(pairs);
		return n;
	}
	flip_mesh_init(&f, &m, panel, first);
	for (int round = 0;; round++) {
		int flipped = 0;
		for (int depth = 1; depth <= 2 && !flipped; depth++)
			for (size_t k = 0; k < 2 * n; k++)
				if ((int)pairs[k] >= first)
					flipped += mend(&f, (int)pairs[k], depth);
		free(pairs);
		*flips += flipped;
		if (!flipped)
			break;
		n = count_all_intersections((const float *)pos,
					    (const uint32_t *)tris,
					    (size_t)ntris, &pairs);
		if (n == 0 || round == 7) {
			free(pairs);
			break;
		}
	}
	flip_mesh_free(&f);
	return n;
}

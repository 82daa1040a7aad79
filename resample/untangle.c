/* untangle.c - the rest surface freed of the intersections that sampling
 * a sharp fold makes.
 *
 * The grid samples the coarse surface at its vertices and joins them with
 * its own triangles, which cut across the coarse edges.  Where the coarse
 * cloth folds back on itself (a knife pleat of a draped garment: coarse
 * triangles at 170 to 180 degrees to their neighbours, several folds
 * meeting at one vertex), the grid triangles that straddle the folds cut
 * the corners of the pleat at different depths and pass through each
 * other, though the coarse mesh has no intersection: at --size 1024, nine
 * pairs at three pleats of the Berkeley draped dress, six at one of its
 * isotropic T-shirt.  The grid cannot follow a fold sharper than its
 * cell, so the fold is rounded to the cell: the corners of every
 * intersecting pair move to the mean of their neighbours along the grid
 * (those of their panel), all at once, and the pairs are counted again,
 * until none is left or REST_ROUNDS rounds have passed (over the whole
 * mesh the first time, then only the pairs with a triangle that has a
 * moved corner: the others cannot have changed).  Only the vertices of
 * intersecting pairs move, by about a cell at most.  Where
 * rounding cannot remove them all (a coarse mesh that intersects itself,
 * folded or zero-area triangles), the rest is left as sampled: the
 * rounding would move many vertices and fix nothing the input lacks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proximity.h"
#include "resample.h"

#define REST_ROUNDS 32

/* Marks the corners of the pairs' triangles (and only those). */
static void mark_pairs(const uint32_t *tri, const uint32_t *pairs, size_t n,
		       uint8_t *marked, size_t nv)
{
	memset(marked, 0, nv);
	for (size_t q = 0; q < 2 * n; q++)
		for (int c = 0; c < 3; c++)
			marked[tri[3 * (size_t)pairs[q] + c]] = 1;
}

/* The mean of vertex v's neighbours along the grid that are cloth of its
 * panel, into out; 0 when it has fewer than two. */
static int neighbour_mean(const struct grid *g, const uint8_t *mask,
			  const uint16_t *panel, const float *x, size_t v,
			  float out[3])
{
	static const int d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
	long i = (long)(v % (size_t)g->width), j = (long)(v / (size_t)g->width);
	double sum[3] = {0, 0, 0};
	int n = 0;
	for (int k = 0; k < 4; k++) {
		long a = i + d[k][0], b = j + d[k][1];
		if (a < 0 || b < 0 || a >= g->width || b >= g->height)
			continue;
		size_t u = (size_t)b * (size_t)g->width + (size_t)a;
		if ((mask[u] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE ||
		    panel[u] != panel[v])
			continue;
		for (int c = 0; c < 3; c++)
			sum[c] += x[3 * u + c];
		n++;
	}
	if (n < 2)
		return 0;
	for (int c = 0; c < 3; c++)
		out[c] = (float)(sum[c] / n);
	return 1;
}

void rest_untangle(struct grid *g, struct untangle_stats *st)
{
	const uint8_t *mask = grid_find(g, "mask")->data;
	const uint16_t *panel = grid_find(g, "panel")->data;
	float *x = grid_find(g, "rest")->data;
	size_t n = grid_vertices(g);
	uint32_t *tri;
	size_t ntri = grid_triangles(g->width, g->height, mask, panel, &tri);
	uint8_t *marked = xcalloc(n, 1);
	float (*to)[3] = xmalloc_array(n, sizeof *to);
	float *orig = NULL;
	uint32_t *pair = NULL;
	size_t pairs = 0;
	memset(st, 0, sizeof *st);
	for (int round = 0; round <= REST_ROUNDS; round++) {
		/* after the first count, marked holds the vertices that moved */
		pairs = round == 0 ? count_all_intersections(x, tri, ntri, &pair) :
			update_intersections(x, tri, ntri, marked, &pair, pairs);
		mark_pairs(tri, pair, pairs, marked, n);
		if (round == 0)
			st->before = pairs;
		st->after = pairs;
		if (pairs == 0 || round == REST_ROUNDS)
			break;
		st->rounds = round + 1;
		if (!orig) {
			orig = xmalloc_array(n, 3 * sizeof(float));
			memcpy(orig, x, n * 3 * sizeof(float));
		}
		for (size_t v = 0; v < n; v++)
			if (marked[v] && !neighbour_mean(g, mask, panel, x, v, to[v]))
				marked[v] = 0;
		for (size_t v = 0; v < n; v++)
			if (marked[v])
				memcpy(x + 3 * v, to[v], sizeof to[v]);
	}
	if (orig && st->after) {
		memcpy(x, orig, n * 3 * sizeof(float));
		st->after = st->before;
	}
	for (size_t v = 0; orig && v < n; v++) {
		double d2 = 0;
		for (int c = 0; c < 3; c++)
			d2 += ((double)x[3 * v + c] - orig[3 * v + c]) *
			      ((double)x[3 * v + c] - orig[3 * v + c]);
		if (d2 > 0) {
			st->moved++;
			st->max_move = fmax(st->max_move, sqrt(d2));
		}
	}
	free(orig);
	free(pair);
	free(to);
	free(marked);
	free(tri);
}

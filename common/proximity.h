/* proximity.h - self-collision geometry of a grid's cloth: the proximity
 * search that feeds the repulsion (the paper's section 5.2), and the
 * count of intersecting triangle pairs that pleat-collide reports.
 *
 * PROXIMITY SEARCH.  Finds every pair of cloth vertices (MASK_INSIDE,
 * not MASK_GHOST) closer than the search radius s that are not grid
 * neighbours (collide.h says which those are), and gives each vertex a
 * list of at most K of them, the closest (collide.h: bounded lists).
 *   1. Collision blocks: the grid is cut into 4 x 4 tiles; a tile's cloth
 *      vertices of one panel make a block (a tile across two panels
 *      makes two, so that no block spans the gap between panels, whose
 *      3D positions are unrelated).  Each block gets a bounding sphere
 *      (centre of its box, radius to its farthest vertex).
 *   2. Short-range block pairs, implicit: a block with itself and the
 *      other blocks of its tile, and with the blocks of four of its eight
 *      neighbouring tiles, (1,0) (-1,1) (0,1) (1,1): the other four see
 *      it from their side, so each adjacent pair is visited once.
 *   3. Long-range block pairs, an explicit list: blocks of tiles that are
 *      not adjacent whose spheres, grown by s, overlap, found with a
 *      spatial hash of the sphere centres.  Its cell is the diameter of
 *      the largest sphere plus s (of the largest but capped at four times
 *      the mean radius, so that one stretched block cannot make every
 *      block fall into one cell), and each block looks for the partners
 *      no larger than itself in the cells its own sphere can reach: every
 *      pair is found once, by its larger block, whatever the sizes.
 *   4. Vertex pairs: for each block pair, every vertex of one against
 *      every vertex of the other that lies within the other's sphere
 *      grown by s; a pair closer than s that is not excluded is offered
 *      to both vertices' lists.  A list is locked (a byte per vertex)
 *      while it is offered to; the lists keep the K smallest keys, so the
 *      result is the same for any thread count or order.
 * The spheres are grown by a relative 1e-6 (far above float rounding), so
 * no pair closer than s is culled: the pairs are exactly those a brute
 * force search over all pairs finds, distances computed the same way.
 * The arithmetic of all four steps is proximity_hd.h's, which the CUDA
 * search (proximity_cuda.h) runs too: the lists come out the same.
 *
 * The lists are indexed by grid vertex: vertex v's neighbours are
 * list[v * K .. v * K + proximity_kept(pr, v)), closest first, grid
 * indices.  A refresh rebuilds them from the current positions; the
 * solver refreshes them on its schedule (often at first, rarely later)
 * and evaluates the repulsion of each vertex over its list with the
 * current positions (collide_vertex_repel), pairs further than R
 * contributing nothing.
 *
 * INTERSECTIONS.  The cloth's triangle mesh on the grid: cell (i, j) is
 * cut along its diagonal from (i+1, j) to (i, j+1), as the elastic
 * stencil's (1,-1) offsets are, into (i,j) (i+1,j) (i,j+1) and (i+1,j)
 * (i+1,j+1) (i,j+1); a triangle exists when its three corners are cloth
 * vertices of one panel.  A pair of triangles that share no vertex
 * intersects when an edge of one crosses the other: its two ends strictly
 * on the two sides of the other's plane and the crossing point inside the
 * other triangle or on its border.  The orientation tests are exact: a
 * double evaluation with Shewchuk's error bound, and when that cannot
 * decide, the exact sign of the determinant computed with error-free
 * products and sums (expansion arithmetic): from the differences of the
 * coordinates when those are exact in double (nearly always), else from
 * the float coordinates themselves.
 * Coplanar triangles never count (the crossing of an edge lying in the
 * other's plane is not counted).  Candidate pairs come from a spatial hash
 * of the triangles' boxes.
 */
#ifndef PLEAT_PROXIMITY_H
#define PLEAT_PROXIMITY_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "grid.h"
#include "proximity_hd.h"
#include "util.h"

struct proximity {
	int w, h;
	size_t n;                 /* w * h */
	int k;                    /* list length K */
	uint32_t *list;           /* n * K neighbours */
	uint16_t *found;          /* n: pairs found for each vertex */
	struct collide_site *site;   /* n: what the exclusion rule reads */
	/* blocks, by tile: tile t's blocks are block[tile_first[t] ..
	 * tile_first[t + 1]) */
	int tw, th;               /* tiles across and down */
	int nblocks;
	struct proximity_block *block;
	int *tile_first;
	uint8_t *lock;            /* n: a list being offered to */
	struct proximity_stats stats;   /* of the last refresh */
};

/* Sets up the search for grid g: needs its mask (u8); panel (u16) and
 * seam (f32 x 3, the partner's pattern point) are used when present.
 * k: list length, 1 .. COLLIDE_MAX_NEIGHBOURS. */
int proximity_init(struct proximity *pr, const struct grid *g, int k,
		   struct error *e);
void proximity_free(struct proximity *pr);
/* The half-width of the square of same-panel neighbours (collide.h),
 * COLLIDE_RING after proximity_init. */
void proximity_set_ring(struct proximity *pr, int ring);

/* Rebuilds every list from positions x (f32 x 3 a grid vertex) with search
 * radius s (metres).  OpenMP inside. */
void proximity_refresh(struct proximity *pr, const float *x, double s);

/* The counts of struct proximity_stats that the lists alone tell:
 * blocks, overflow and most; the rest zero. */
void proximity_count(const struct proximity *pr, struct proximity_stats *st);

/* How many neighbours vertex v's list holds. */
static inline int proximity_kept(const struct proximity *pr, size_t v)
{
	return proximity_kept_of(pr->found[v], pr->k);
}

/* ---- intersections -------------------------------------------------------- */

/* The sign of the orientation determinant det[b - a; c - a; d - a]
 * (+1, 0, -1), exact for float coordinates. */
int orient3d_sign(const float *a, const float *b, const float *c,
		  const float *d);

/* Whether segment pq crosses triangle abc (see above). */
int segment_crosses_triangle(const float *p, const float *q, const float *a,
			     const float *b, const float *c);

/* Whether two triangles (3 corners each, 3 floats a corner) intersect:
 * an edge of either crosses the other. */
int triangles_intersect(const float *const t[3], const float *const u[3]);

/* The triangles of a grid's cloth mesh (see above): corner grid indices,
 * 3 a triangle, in grid order; returns how many (tri allocated, free()). */
size_t grid_triangles(int w, int h, const uint8_t *mask,
		      const uint16_t *panel, uint32_t **tri);

/* Counts the pairs of triangles that share exactly one corner and cross
 * beyond it (the edge opposite the shared corner of one crosses the
 * other), with pairs as count_intersections below.  Two triangles that
 * share an edge cannot cross; lying flat on each other, like touching,
 * is not counted.  OpenMP inside. */
size_t count_adjacent_intersections(const float *x, const uint32_t *tri,
				    size_t ntri, uint32_t **pairs);

/* Whether triangles t and u (corner indices into x) intersect as the two
 * counts say: sharing no corner, as count_intersections; one, as
 * count_adjacent_intersections; an edge, never. */
int triangles_cross(const float *x, const uint32_t *t, const uint32_t *u);

/* Whether corners a, b, c of positions x are on one line in 3D: the
 * cross product of two edges, in double from floats, is exact enough to
 * be zero only then (but for products below double's range). */
int corners_collinear(const float (*x)[3], int a, int b, int c);

/* The channels the exclusion rule and the cloth's triangles read: mask
 * (u8 x 1, required), panel (u16 x 1) and seam (f32 x 3), NULL when
 * absent; -1 with e set when one has the wrong type. */
int collide_channels(const struct grid *g, const uint8_t **mask,
		     const uint16_t **panel, const float **seam,
		     struct error *e);

/* Every vertex's exclusion site (collide.h): grid position, panel, seam
 * partner in grid units.  panel and seam may be NULL. */
void collide_sites(const struct grid *g, const uint8_t *mask,
		   const uint16_t *panel, const float *seam,
		   struct collide_site *site);

/* Counts the intersecting pairs of triangles (sharing no vertex) of a
 * mesh: ntri triangles of corner indices into x (f32 x 3).  pairs (may
 * be NULL): set to a malloc'd array of the pairs, as many as the count
 * returned, 2 triangle indices each, first < second, sorted.  OpenMP
 * inside. */
size_t count_intersections(const float *x, const uint32_t *tri, size_t ntri,
			   uint32_t **pairs);

/* Both counts above: the pairs that share a corner, then those that
 * share none, into *pairs (2 triangle indices each, first < second;
 * malloc'd).  Returns how many. */
size_t count_all_intersections(const float *x, const uint32_t *tri,
			       size_t ntri, uint32_t **pairs);

/* The pairs of count_all_intersections that have a triangle t with
 * touch[t] set (a byte a triangle), into *pairs (malloc'd; the order is
 * not count_all_intersections').  Returns how many.  OpenMP inside. */
size_t count_touching_intersections(const float *x, const uint32_t *tri,
				    size_t ntri, const uint8_t *touch,
				    uint32_t **pairs);

/* Brings the pairs of count_all_intersections, pairs[0..n) (in any
 * order), up to date after the vertices flagged in moved (a byte a
 * vertex) moved: a pair can change only where a corner of its triangles
 * moved, so the pairs of triangles with no moved corner stay and those
 * with a triangle that has one are counted again (every triangle swept
 * over the boxes of those).  Returns the count; *pairs reallocated to
 * hold the pairs, those kept first.  OpenMP inside. */
size_t update_intersections(const float *x, const uint32_t *tri, size_t ntri,
			    const uint8_t *moved, uint32_t **pairs, size_t n);

#endif

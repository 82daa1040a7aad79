/* collide.h - the collision arithmetic, written once for the CPU and the
 * GPU (PL_HD, see hostdev.h): the body half-plane projection, the
 * self-collision repulsion of a vertex, which pairs of vertices never
 * repel, and the bounded per-vertex proximity lists.
 *
 * Lengths (the paper's values at full resolution, scaled at coarser
 * levels, see collide_params_init; R at least 1.2 cells by default, see
 * collide_params_for_cell):
 *   COLLIDE_OFFSET  0.4 mm  how far the body surface is pushed out
 *   COLLIDE_RADIUS  0.4 mm  R: vertices closer than R repel
 *   COLLIDE_SEARCH  0.55 mm the proximity search radius: pairs closer
 *                           than this are listed, so that a pair that
 *                           closes in to R between two refreshes of the
 *                           lists is already there
 *   COLLIDE_NEIGHBOURS 16   at most this many neighbours a vertex
 *   COLLIDE_REACH   1 cm    vertices farther from the body get no
 *                           half-plane (a solve moves the cloth by
 *                           millimetres, not centimetres)
 *
 * A solver uses it all like this (body.h, proximity.h):
 *   struct collide_params cp;  collide_params_init(&cp, scale, k);
 *   body_load(&body, path, &e);                  once per body (a frame)
 *   body_halfplanes(&body, x0, mask, n, cp.offset, cp.reach, plane, &st);
 *                                                from the starting x0
 *   proximity_init(&pr, grid, cp.neighbours, &e);    once per grid
 *   proximity_refresh(&pr, x, cp.search);        on the refresh schedule
 *   per vertex v, in the gradient:
 *     collide_vertex_repel(x, v, pr.list + v * pr.k, proximity_kept(&pr, v),
 *                          cp.radius, cp.stiffness, &g, &d);
 *   per vertex v, after every inner iteration:
 *     xv = collide_project_halfplane(xv, plane + 4 * v);
 *   in the energy check: collide_vertex_energy(...) per vertex.
 *
 * Body (the paper's Eq. 10).  Each cloth vertex has a half-plane
 * (n, d): n . x >= d (body.h makes them).  After every inner iteration
 * the vertex is projected onto it when it lies behind; the zero plane of
 * a vertex far from the body never projects.
 *
 * Self collision (Eq. 11).  A pair (a, b) of cloth vertices closer than
 * R that are not grid neighbours has the energy 0.5 k (R - |xa - xb|)².
 * Grid neighbours are the pairs the cloth's own energies already hold
 * apart or together, and the pairs a seam sews together:
 *   - a and b on the same panel, |ia - ib| <= r and |ja - jb| <= r: with
 *     r = 1 the 3 x 3 square, the elastic six-neighbour ring and its
 *     diagonal; with r = COLLIDE_RING = 2 the 5 x 5 square, which also
 *     holds the bending stencils (they reach 2 along the axes).  The
 *     solver takes r = 1 where vertices two cells apart are far enough
 *     apart at rest that they come within R only when the cloth folds
 *     between them or is compressed by a third (collide_ring_for), so
 *     that the repulsion keeps a tight fold between nearby triangles
 *     from crossing; pleat-collide's classes use the 5 x 5 square; and
 *   - b within 2.5 cells, along each grid axis, of a's seam partner (the
 *     pattern point across the seam that a is sewn to, in grid units),
 *     or a within 2.5 cells of b's seam partner, whatever the panels.
 *     Without this rule the repulsion would push apart the two sides of
 *     every seam, which the seam energy pulls together.
 * Vertices of different panels are otherwise never neighbours, even
 * where the panels are adjacent in the grid: in the pattern, panels are
 * apart (outside vertices between them) or meet at a seam, which the
 * second rule covers.  At the default lengths R is below a cell at full
 * resolution, so a pair of the same panel further than 2 cells apart in
 * the grid only comes within R where the cloth folds onto itself.
 *
 * Proximity lists.  Vertex v's list holds up to K neighbours, closest
 * first, ordered by the key (squared distance, index of the neighbour);
 * when more than K pairs are found, the K smallest keys are kept, which
 * is the same set whatever order the pairs are found in (so the lists
 * do not depend on the thread count or the GPU's scheduling).  A pair is
 * offered to both of its vertices, so lists are symmetric as long as no
 * vertex overflows.
 */
#ifndef PLEAT_COLLIDE_H
#define PLEAT_COLLIDE_H

#include <stdint.h>

#include "hostdev.h"
#include "vec.h"

#define COLLIDE_OFFSET 0.4e-3
#define COLLIDE_RADIUS 0.4e-3
#define COLLIDE_SEARCH 0.55e-3
#define COLLIDE_NEIGHBOURS 16
#define COLLIDE_REACH 0.01
#define COLLIDE_MAX_NEIGHBOURS 64   /* the largest list length allowed */
#define COLLIDE_RING 2              /* grid neighbours: 5 x 5 square */
#define COLLIDE_SEAM_RING 2.5f      /* around a seam partner, cells */
#define COLLIDE_BLOCK 4             /* collision blocks: 4 x 4 vertices */

/* The collision constants of one level.  scale is the level's cell over
 * the finest level's cell (1 at full resolution, 2, 4 ... at coarser
 * levels): the lengths grow with it, so that R keeps its ratio to the
 * cell and a coarse level's cloth stays as far from itself and the body,
 * in cells, as the finest does.  k is the repulsion stiffness, N/m; the
 * caller picks it (a good start: the material's stretch stiffness, so
 * that a pair at distance 0 pushes as hard as a cell stretched by R). */
struct collide_params {
	double offset;        /* body push-out, metres */
	double radius;        /* R, metres */
	double search;        /* proximity search radius, metres */
	double reach;         /* half-planes only within this of the body */
	int neighbours;       /* list length K */
	double stiffness;     /* k, N/m */
};

/* The paper's lengths hold at this cell size or finer. */
#define COLLIDE_FINE_CELL 0.5e-3

/* The scale of a level of cell size `cell` (metres) when the user gives
 * none: the cell over COLLIDE_FINE_CELL, at least 1. */
PL_HD double collide_scale_for_cell(double cell)
{
	return cell > COLLIDE_FINE_CELL ? cell / COLLIDE_FINE_CELL : 1.0;
}

PL_HD void collide_params_init(struct collide_params *p, double scale,
			       double stiffness)
{
	p->offset = COLLIDE_OFFSET * scale;
	p->radius = COLLIDE_RADIUS * scale;
	p->search = COLLIDE_SEARCH * scale;
	p->reach = COLLIDE_REACH * scale;
	p->neighbours = COLLIDE_NEIGHBOURS;
	p->stiffness = stiffness;
}

/* R is at least this many cells at the default scale.  Two of the
 * grid's triangles that cross have corners within sqrt(2) cells of each
 * other (an edge that pierces a triangle is at most a diagonal long, and
 * where it pierces it is at most half a diagonal from that triangle's
 * nearest corner), so the repulsion between vertices can see a crossing
 * only when R is a good part of that.  At the paper's 0.8 cell, two
 * layers could pass through each other with every pair of their vertices
 * farther apart than R: on the shared dress at 1024 cells on its body,
 * 82 of the 131 pairs left crossing after 64 iterations were such
 * layers.  At 1.2 cells none were, and the 3 x 3 square of grid
 * neighbours is still enough (collide_ring_for). */
#define COLLIDE_RADIUS_CELLS 1.2

/* The constants of a grid whose cell is `cell` metres when the user
 * gives no scale: collide_scale_for_cell's, with R and the search radius
 * raised to COLLIDE_RADIUS_CELLS cells where R is below it. */
PL_HD void collide_params_for_cell(struct collide_params *p, double cell,
				   double stiffness)
{
	collide_params_init(p, collide_scale_for_cell(cell), stiffness);
	double least = COLLIDE_RADIUS_CELLS * cell;
	if (p->radius < least) {
		p->search *= least / p->radius;
		p->radius = least;
	}
}

/* ---- body ---------------------------------------------------------------- */

/* x projected onto the half-plane n . x >= d when behind it. */
PL_HD vec3 collide_project_plane(vec3 x, vec3 n, float d)
{
	float s = v3_dot(n, x) - d;
	return s < 0.0f ? v3_madd(x, n, -s) : x;
}

/* x projected onto its half-plane (n, d) = plane[0..3] when behind it. */
PL_HD vec3 collide_project_halfplane(vec3 x, const float *plane)
{
	return collide_project_plane(x, v3(plane[0], plane[1], plane[2]),
				     plane[3]);
}

/* How far x is behind its half-plane (0 when in front), metres. */
PL_HD float collide_halfplane_violation(vec3 x, const float *plane)
{
	float s = plane[0] * x.x + plane[1] * x.y + plane[2] * x.z - plane[3];
	return s < 0.0f ? -s : 0.0f;
}

/* ---- repulsion ----------------------------------------------------------- */

/* |xa - xb|², computed the same way whichever vertex asks, so that both
 * ends of a pair see the same key. */
PL_HD float collide_dist2(const float *xa, const float *xb)
{
	float dx = xa[0] - xb[0], dy = xa[1] - xb[1], dz = xa[2] - xb[2];
#ifdef __CUDA_ARCH__
	/* each product and sum rounded on its own, as on the CPU (nvcc would
	 * fuse them): the GPU's proximity lists are the CPU's, bit for bit */
	return __fadd_rn(__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)),
			 __fmul_rn(dz, dz));
#else
	return dx * dx + dy * dy + dz * dz;
#endif
}

/* The repulsion of b on a: adds the gradient of 0.5 k (R - d)² with
 * respect to xa to *g and its preconditioner k (the largest eigenvalue
 * of the pair's Hessian block, k u u^T - k (R - d)/d (I - u u^T), is k)
 * to *diag; nothing when d >= R.  At d = 0 the direction is undefined:
 * no force, only the preconditioner. */
PL_HD void collide_repel(const float *xa, const float *xb, float radius,
			 float k, vec3 *g, float *diag)
{
	vec3 r = v3(xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]);
	float d2 = v3_dot(r, r);
	if (!(d2 < radius * radius))
		return;
	float d = sqrtf(d2);
	if (d > 0.0f)
		*g = v3_madd(*g, r, -k * (radius - d) / d);
	*diag += k;
}

/* The energy of one pair, J (double, for the solver's checks). */
PL_HD double collide_pair_energy(const float *xa, const float *xb,
				 double radius, double k)
{
	double dx = (double)xa[0] - xb[0], dy = (double)xa[1] - xb[1];
	double dz = (double)xa[2] - xb[2];
	double d = sqrt(dx * dx + dy * dy + dz * dz);
	return d < radius ? 0.5 * k * (radius - d) * (radius - d) : 0.0;
}

/* The repulsion on a vertex at xv from its list (count entries of
 * `list`, vertex indices into x0, 3 floats a vertex): adds gradient and
 * preconditioner.  xv may be a copy of the vertex (a block's tile) and x0
 * another iterate than the one xv belongs to (the start of the outer
 * iteration, for the block method). */
PL_HD void collide_repel_list(const float *xv, const float *x0,
			      const uint32_t *list, int count, float radius,
			      float k, vec3 *g, float *diag)
{
	for (int s = 0; s < count; s++)
		collide_repel(xv, x0 + 3 * (size_t)list[s], radius, k, g, diag);
}

/* Vertex v's repulsion from its list, everything at x. */
PL_HD void collide_vertex_repel(const float *x, uint32_t v,
				const uint32_t *list, int count, float radius,
				float k, vec3 *g, float *diag)
{
	collide_repel_list(x + 3 * (size_t)v, x, list, count, radius, k, g, diag);
}

/* Vertex v's share of the repulsion energy: half of each listed pair's
 * (the other half is its neighbour's, the lists being symmetric). */
PL_HD double collide_vertex_energy(const float *x, uint32_t v,
				   const uint32_t *list, int count,
				   double radius, double k)
{
	double sum = 0.0;
	for (int s = 0; s < count; s++)
		sum += 0.5 * collide_pair_energy(x + 3 * (size_t)v,
						 x + 3 * (size_t)list[s],
						 radius, k);
	return sum;
}

/* ---- which pairs never repel ------------------------------------------- */

/* What the exclusion rule needs of a vertex: its grid position, panel,
 * seam partner in grid units (NaN, NaN when it has none) and the
 * half-width r of the square of same-panel neighbours (the same for
 * every vertex of a grid). */
struct collide_site {
	int i, j;
	int panel;
	float partner_i, partner_j;
	int ring;
};

/* The half-width of the square of same-panel neighbours for cells of
 * `cell` metres and repulsion radius `radius`: 1 when two cells are at
 * least 1.5 R (so that a pair two cells apart repels only once folded
 * towards each other or compressed by a third), else COLLIDE_RING. */
PL_HD int collide_ring_for(double cell, double radius)
{
	return 2.0 * cell >= 1.5 * radius ? 1 : COLLIDE_RING;
}

PL_HD int collide_near_partner(const struct collide_site *a,
			       const struct collide_site *b)
{
	/* NaN compares false: no partner, no exclusion */
	return fabsf((float)b->i - a->partner_i) <= COLLIDE_SEAM_RING &&
	       fabsf((float)b->j - a->partner_j) <= COLLIDE_SEAM_RING;
}

/* Whether a and b are grid neighbours (see the top of this file). */
PL_HD int collide_excluded(const struct collide_site *a,
			   const struct collide_site *b)
{
	int di = a->i - b->i, dj = a->j - b->j, r = a->ring;
	if (a->panel == b->panel && di <= r && di >= -r && dj <= r && dj >= -r)
		return 1;
	return collide_near_partner(a, b) || collide_near_partner(b, a);
}

/* ---- bounded lists ------------------------------------------------------- */

/* Whether the lists are rebuilt before outer iteration `it` (from 1):
 * every iteration for the first 16, while the cloth moves most, then
 * every 8th.  Both backends follow it. */
PL_HD int collide_refresh_due(int it)
{
	return it <= 16 || it % 8 == 0;
}

/* Whether key (d2a, a) comes before (d2b, b). */
PL_HD int collide_key_less(float d2a, uint32_t a, float d2b, uint32_t b)
{
	return d2a < d2b || (d2a == d2b && a < b);
}

/* Offers neighbour b, at squared distance d2, to the list of vertex v:
 * list holds *kept entries (at most k_max) sorted by key, the keys of
 * the entries recomputed from x (positions, 3 floats a vertex), so that
 * a list needs no storage for distances.  Keeps the k_max smallest keys.
 * Not thread safe: the caller owns v's list while offering. */
PL_HD void collide_list_offer(const float *x, uint32_t v, uint32_t *list,
			      int *kept, int k_max, uint32_t b, float d2)
{
	const float *xv = x + 3 * (size_t)v;
	int s = *kept;
	if (s == k_max) {
		uint32_t last = list[s - 1];
		if (!collide_key_less(d2, b, collide_dist2(xv, x + 3 * (size_t)last),
				      last))
			return;
		s--;              /* the last entry falls off the end */
	} else {
		(*kept)++;
	}
	/* shift larger keys up one slot, then insert */
	while (s > 0) {
		uint32_t prev = list[s - 1];
		if (!collide_key_less(d2, b, collide_dist2(xv, x + 3 * (size_t)prev),
				      prev))
			break;
		list[s] = prev;
		s--;
	}
	list[s] = b;
}

#endif

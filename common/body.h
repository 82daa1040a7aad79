/* body.h - the body the garment is worn on: a triangle mesh with a
 * bounding volume hierarchy, exact closest-point queries, a robust
 * inside/outside test, and the per-vertex half-planes of pleat-solve.
 *
 * Closest point.  Our own BVH over the triangles (median split along the
 * longest axis of the centroids, at most BODY_LEAF triangles a leaf, boxes
 * in double), traversed nearest box first and pruned on the box distance,
 * so the result is exact: the triangle with the smallest distance, in
 * double, the same as a brute-force loop gives (ties go to the triangle
 * earlier in the tree's order, so the answer does not depend on the
 * traversal).  We chose a BVH of our own over Embree's rtcPointQuery
 * (Debian's libembree-dev 3.13) because Embree leaves the point-triangle
 * distance and the pruning radius to a callback anyway, so it would save
 * us only the tree build, and the same tree carries the winding-number
 * moments below; one more package for CI and for every user was not worth
 * it.  Queries from neighbouring cloth vertices are coherent: the caller
 * may pass the previous answer as a hint, which starts the search with a
 * tight radius (the result is the same with or without a hint).
 *
 * Inside/outside.  The generalized winding number (Jacobson et al. 2013):
 * the sum of the solid angles of the triangles seen from the point, over
 * 4 pi.  It is 1 inside and 0 outside a closed, outward-oriented surface
 * and degrades gracefully on real body meshes: holes, duplicated
 * vertices, and shells that overlap (the posed ARCSim body is sixteen
 * closed segments that interpenetrate at the joints; a point in two of
 * them has winding number 2, where a ray parity test would say outside).
 * It is evaluated hierarchically (Barill et al. 2018): exactly for the
 * triangles of the leaves near the point, and for a node farther than
 * BODY_WINDING_BETA times its radius by the first-order expansion of its
 * far field (area vector and its first moment).  A point is inside when its
 * winding number, times the body's orientation (the sign of its enclosed
 * volume, so that an inward-oriented mesh works too), is at least 1/2.
 * The half-planes and the checker test a grid's vertices in order, and
 * carry the winding number from one vertex to the next by counting the
 * triangles the segment between them crosses (body_winding_step), which
 * is exact and a few times cheaper than the hierarchical sum; the sum is
 * evaluated where a walk starts and where a crossing is too close to call.
 *
 * Buried triangles.  Where shells overlap, a part of one shell lies inside
 * another and is no surface of the body: a point inside the torso near
 * the buried end of an arm segment is not near the body's surface.  A
 * triangle is buried when its centroid and three points near its corners
 * (a tenth of the way to the centroid), each moved off the triangle by
 * 1e-4 of its longest edge along its outward normal, are all inside the
 * body.  Closest-point queries skip buried triangles (the winding number
 * keeps them: they close their shells).  For a point outside the body
 * this changes nothing (its closest point is on the body's outer surface
 * anyway); for a point inside, the closest point is on the outer surface,
 * as a depth and a push-out direction need (to within the triangles that
 * are partly buried).  Of the posed ARCSim body's 26842 triangles, 9643
 * are buried.
 *
 * Half-planes (the paper's Eq. 10).  Each cloth vertex gets, from its
 * starting position p, the closest body point c and the outward normal
 * there, n = (p - c) / |p - c| when p is outside and (c - p) / |c - p|
 * when inside (the face normal when p is on the surface); the constraint
 * is n . x >= n . c + offset, the surface pushed out by `offset`, and is
 * enforced by projection (collide_project_halfplane in collide.h) after
 * every inner iteration.  A vertex farther than `reach` from the body
 * gets no half-plane (the zero plane, which projection leaves alone).
 */
#ifndef PLEAT_BODY_H
#define PLEAT_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define BODY_LEAF 4                /* triangles per leaf, at most */
#define BODY_WINDING_BETA 2.0      /* far-field acceptance, Barill's beta */

struct body_node {
	double lo[3], hi[3];   /* bounding box of the node's triangles */
	int first, count;      /* leaf: triangles [first, first + count);
				  inner: count 0, children first, first + 1 */
	int surface;           /* triangles below that are not buried */
	/* winding number far field, about the box centre: the area vector
	 * (sum of normal * area), its first moment (moment[k][i] = sum of
	 * area_k (centroid_i - centre_i)) and the radius of the box */
	double centre[3], area[3], moment[3][3], radius;
};

struct body {
	int ntri;              /* triangles, in the tree's leaf order */
	double (*tri)[9];      /* corners a, b, c of each triangle */
	int *face;             /* f record (0-based) each triangle came from */
	uint8_t *buried;       /* 1 for a buried triangle (see above) */
	int nburied;
	int nnodes;
	struct body_node *node;  /* node 0 is the root */
	int orientation;       /* +1 outward normals, -1 inward */
	double volume;         /* enclosed volume, m³ (by the divergence
				  theorem; meaningful for closed shells) */
	int closed;            /* 1 when every edge is run as often one way
				  as the other (vertices at the same
				  position taken as one): closed shells,
				  overlapping or not */
	size_t open_edges;     /* the edges that are not: 0 when closed */
};

/* Builds a body from a triangle soup: nv positions, ntri triangles of
 * 0-based indices.  name is used in messages.  Fails when there is no
 * triangle, an index is out of range or a used position is not finite. */
int body_build(struct body *b, const double (*v)[3], int nv,
	       const int (*tri)[3], int ntri, const int *face,
	       const char *name, struct error *e);

/* Reads an OBJ file (obj.h: n-gons are fan-triangulated, every other
 * record is skipped) and builds its body.  Errors name the file:
 * "cannot open PATH: reason", "PATH: line N: ...", "PATH: the body mesh
 * has no triangles". */
int body_load(struct body *b, const char *path, struct error *e);

void body_free(struct body *b);

/* For the programs that read a body: a warning on standard error, naming
 * the file and its open edges, when the body is not closed. */
void body_warn_open(const struct body *b, const char *path);

/* The closest point of the body's surface to p. */
struct body_hit {
	double point[3];
	double dist;           /* |p - point| */
	int tri;               /* triangle, in leaf order (b->face[tri] is
				  the f record) */
};

/* Finds the closest surface point within max_dist of p (INFINITY: no
 * limit).  Returns 1 and fills hit, or 0 when the surface is farther.
 * *hint (may be NULL) is a triangle to try first, -1 for none; it is set
 * to the answer's triangle when there is one. */
int body_closest(const struct body *b, const double p[3], double max_dist,
		 int *hint, struct body_hit *hit);

/* The generalized winding number at p, hierarchical (see above), and
 * the exact sum over all triangles (for tests; O(triangles)). */
double body_winding(const struct body *b, const double p[3]);
double body_winding_exact(const struct body *b, const double p[3]);

/* How the winding number changes from p to q: the signed count of the
 * triangles segment pq crosses, +1 for each it goes through from the
 * front (the side its counter-clockwise normal points to) to the back, -1
 * the other way.  The exact winding number jumps by exactly that much
 * across a triangle; on a closed body it is constant elsewhere, so
 * w(q) = w(p) + *jump (with holes it also varies continuously).
 * Returns 0, or -1 (and leaves *jump alone) when pq passes too close to
 * a triangle's edge or corner, or an end too close to a triangle's plane,
 * for a double evaluation to tell whether it crosses (Shewchuk's error
 * bound decides: an answer given is exact). */
int body_winding_step(const struct body *b, const double p[3],
		      const double q[3], int *jump);

/* Whether p is inside the body (winding number test above). */
int body_inside(const struct body *b, const double p[3]);

/* How deep p is inside the body: its distance to the surface when it is
 * inside, 0 when it is outside. */
double body_depth(const struct body *b, const double p[3]);

/* The outward unit normal of triangle t (leaf order), by the body's
 * orientation; zero for a degenerate triangle. */
void body_face_normal(const struct body *b, int t, double n[3]);

/* Half-planes for a grid's vertices (see above).  x: n positions (f32 x
 * 3), mask: the grid's mask (only cloth vertices, MASK_INSIDE and not
 * MASK_GHOST, get a plane).  plane: 4 floats a vertex, (n, d) with the
 * constraint n . x >= d; zero where there is none.  OpenMP across
 * vertices; the result does not depend on the thread count. */
struct body_plane_stats {
	size_t cloth;          /* cloth vertices */
	size_t near;           /* of those, within reach: given a plane */
	size_t inside;         /* of those, starting inside the body */
	double deepest;        /* largest starting depth inside, metres */
};
void body_halfplanes(const struct body *b, const float *x,
		     const uint8_t *mask, size_t n, double offset,
		     double reach, float *plane, struct body_plane_stats *st);

/* Counting vertices inside the body deeper than tol (the checker).
 * depth (may be NULL): n floats, each cloth vertex's depth (0 outside).
 * Returns the count; *deepest the largest depth. */
size_t body_count_inside(const struct body *b, const float *x,
			 const uint8_t *mask, size_t n, double tol,
			 float *depth, double *deepest);

#endif

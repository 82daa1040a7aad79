/* rest_surface.h - the rest surface over a coarse mesh: its flat
 * triangles, or Phong tessellation of them with a shape factor per
 * vertex (pleat-resample --smooth).  pleat-resample samples it into the rest
 * channel; pleat-normalmap checks the rest channel against it. */
#ifndef PLEAT_REST_SURFACE_H
#define PLEAT_REST_SURFACE_H

#include "obj.h"
#include "vec.h"

/* The grid header key that names the rest surface: "rest-surface
 * phong2" for the smooth one; without the key the rest is the flat
 * triangles.  "phong" named an earlier surface (one shape factor of 3/4
 * everywhere), which nothing evaluates any more. */
#define REST_SURFACE_KEY "rest-surface"
#define REST_SURFACE_SMOOTH "phong2"
#define REST_SURFACE_OLD_PHONG "phong"

struct rest_surface {
	const struct obj_mesh *m;
	dvec3 *normal;       /* per vertex of m; NULL: flat */
	double *alpha;       /* shape factor per vertex of m */
};
void rest_surface_init(struct rest_surface *rs, const struct obj_mesh *m,
		       int smooth);
void rest_surface_free(struct rest_surface *rs);
/* The point of triangle t at barycentric coordinates b (of corners 1
 * and 2). */
dvec3 rest_surface_at(const struct rest_surface *rs, int t, const float *b);
/* The derivative of that point as weight moves from corner `from` of t
 * to corner `to`: a tangent of the surface; on the flat triangle
 * exactly the difference of the two corners' positions. */
dvec3 rest_surface_towards(const struct rest_surface *rs, int t,
			   const float *b, int from, int to);

#endif

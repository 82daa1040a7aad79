/* rest_surface.h - the rest surface over a coarse mesh: its flat
 * triangles, or Phong tessellation of them with angle-weighted vertex
 * normals (pleat-resample --smooth).  pleat-resample samples it into the
 * rest channel; pleat-normalmap checks the rest channel against it. */
#ifndef PLEAT_REST_SURFACE_H
#define PLEAT_REST_SURFACE_H

#include "obj.h"
#include "vec.h"

/* The grid header key that names a smooth rest surface: "rest-surface
 * phong"; without it the rest is the flat triangles. */
#define REST_SURFACE_KEY "rest-surface"
#define REST_SURFACE_PHONG "phong"

struct rest_surface {
	const struct obj_mesh *m;
	dvec3 *normal;       /* per vertex of m; NULL: flat */
};
void rest_surface_init(struct rest_surface *rs, const struct obj_mesh *m,
		       int smooth);
void rest_surface_free(struct rest_surface *rs);
/* The point of triangle t at barycentric coordinates b (of corners 1
 * and 2). */
dvec3 rest_surface_at(const struct rest_surface *rs, int t, const float *b);

#endif

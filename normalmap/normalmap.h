/* normalmap.h - baking a solved grid into texture maps of the coarse mesh.
 *
 * Two spaces meet here.  The grid lies over the sewing pattern: vertex
 * (i, j) sits at pattern position origin + cell * (i, j), in metres, and
 * the pattern is the mesh's texture coordinates times a scale (the
 * resampler's --uv-scale), recovered from the grid's tri and bary
 * channels.  The maps lie over the texture coordinates: a texel's centre
 * is a point (u, v) of the coarse mesh's UV layout, inside at most one
 * coarse triangle.  So each texel finds its coarse triangle (for the
 * tangent frame) and its pattern position (for the wrinkled surface).
 */
#ifndef PLEAT_NORMALMAP_H
#define PLEAT_NORMALMAP_H

#include <stdint.h>

#include "grid.h"
#include "obj.h"
#include "rest_surface.h"
#include "vec.h"

/* ---- the wrinkled surface (surface.c) --------------------------------- */

struct surface {
	const struct grid *g;
	int w, h;
	const uint8_t *mask;
	const uint16_t *panel;
	const int32_t *tri;
	const float *bary;
	const float *x, *rest;   /* f32 x3: wrinkled and coarse positions */
	float *normal;           /* unit normal of x per vertex, NAN where none */
	double uv_scale;         /* pattern metres per texture unit */
	struct rest_surface coarse;  /* what the rest channel samples */
};

/* What the surface holds at a pattern point. */
struct sample {
	dvec3 normal;            /* unit normal of the wrinkled surface */
	dvec3 offset;            /* wrinkled minus coarse position, metres */
};

/* Checks the grid's channels and its agreement with mesh m (gname and
 * mname name them in messages), recovers the texture scale and computes
 * the normals.  Returns 0 or -1 with e set. */
int surface_init(struct surface *s, const struct grid *g, const char *gname,
		 const struct obj_mesh *m, const char *mname, struct error *e);
void surface_free(struct surface *s);

/* The unit normal of positions pos (f32 x3 per vertex) at vertex (i, j)
 * from the triangles of the grid's six-neighbour triangulation around
 * it whose corners are cloth of the vertex's panel; oriented as
 * d pos/di x d pos/dj.  Returns 0, or -1 when no such triangle exists. */
int surface_ring_normal(const struct surface *s, const float *pos, int i,
			int j, dvec3 *out);

/* The surface at pattern point (px, py) metres, interpolated bilinearly
 * from the cloth vertices of panel `panel` around it (or taken from the
 * nearest one within two cells).  Returns 0, or -1 when there is none. */
int surface_sample(const struct surface *s, double px, double py, int panel,
		   struct sample *out);

/* ---- the coarse mesh's frames (bake.c) -------------------------------- */

struct coarse {
	const struct obj_mesh *m;
	int *tri_panel;          /* panel of each triangle */
	float (*normal)[3];      /* smooth normal of each corner */
	float (*tangent)[4];     /* MikkTSpace tangent and sign of each corner */
};

/* ---- the maps (bake.c) ------------------------------------------------ */

enum { MAP_TANGENT, MAP_OBJECT, MAP_DISPLACEMENT, NMAPS };

struct bake_options {
	int width, height;       /* texels */
	double region[4];        /* u0, v0, u1, v1 covered by the map */
	int directx;             /* tangent map green = -bitangent (Unreal) */
	int dilate;              /* texels of dilation past the islands */
	int want[NMAPS];         /* which maps to make */
};

/* A map: texel (c, r), row 0 at the top (highest v), comps floats per
 * texel: RGB in [0, 1] for the normal maps, metres for displacement. */
struct map {
	int width, height, comps;
	float *px;
};

struct bake_stats {
	size_t island;           /* texels inside a UV triangle */
	size_t fallback;         /* island texels with no cloth around */
	size_t dilated;          /* texels filled by dilation */
	int clipped;             /* triangles not wholly inside the region */
};

int coarse_init(struct coarse *c, const struct obj_mesh *m, const char *name,
		struct error *e);
void coarse_free(struct coarse *c);

/* Bakes the maps asked for into maps[] (allocated here, free with
 * map_free).  Returns 0 or -1 with e set. */
int bake(const struct surface *s, const struct coarse *c,
	 const struct bake_options *o, struct map maps[NMAPS],
	 struct bake_stats *st, struct error *e);
void map_free(struct map *m);

/* ---- dilation (dilate.c) ---------------------------------------------- */

/* For a w x h image whose covered texels are those with src[t] == t and
 * the others -1, sets src[t] of every uncovered texel with a covered one
 * within `rings` texels along both axes to its nearest covered texel
 * (Euclidean distance; exact).  Returns the number of texels filled. */
size_t dilate(int32_t *src, int w, int h, int rings);

/* ---- the preview (preview.c) ------------------------------------------ */

/* A grey picture of the wrinkles over the pattern: Lambert shading of
 * the wrinkled normal in the frame of the coarse surface, light from the
 * upper left; at most `size` pixels along the longer side (0: one pixel
 * per grid vertex), a grid smaller than that shown with each vertex a
 * block of pixels, as many as fit, the shades blended between vertices.  Row 0 is the top (highest pattern y). */
int preview(const struct surface *s, int size, struct map *out,
	    struct error *e);

/* ---- image files (image.c) -------------------------------------------- */

struct outfile;

/* Writes map m to the open output o as a PNG of `bits` (8 or 16) per
 * channel, grey or RGB by m->comps, values in [0, 1] rounded to the
 * nearest code, with a tEXt chunk key = text unless key is NULL; then
 * closes o (renaming it into place).  Returns 0 or -1 with e set and o
 * given up. */
int png_write_map(struct outfile *o, const struct map *m, int bits,
		  const char *key, const char *text, struct error *e);

/* The same for a one-channel map as a PFM (portable float map): raw
 * little-endian floats, rows bottom to top as the format stores them. */
int pfm_write_map(struct outfile *o, const struct map *m, struct error *e);

#endif

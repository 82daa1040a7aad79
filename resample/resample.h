/* resample.h - laying a regular grid over a garment's sewing pattern.
 *
 * The layout (which grid vertex lies in which coarse triangle, panels,
 * boundaries, seams, ghost band) depends on the pattern only, so it is
 * computed once and reused for every frame of a sequence; only the 3D
 * positions (the rest channel) are recomputed per frame.
 */
#ifndef PLEAT_RESAMPLE_H
#define PLEAT_RESAMPLE_H

#include "grid.h"
#include "obj.h"
#include "pattern.h"
#include "rest_surface.h"
#include "vec.h"

struct resample_options {
	int size;            /* cells across the longer pattern side, or 0 */
	double cell;         /* metres, when size is 0 */
	double uv_scale;     /* metres per texture-coordinate unit */
	int ghost_band;      /* cells of ghost vertices, 0 for none */
	double ghost_angle;  /* radians, towards the front (+normal) side */
	int ghost_all;       /* ghost band on open edges too, not only seams */
	int smooth;          /* Phong tessellation of the coarse triangles */
};


/* Per-vertex correspondence with the coarse mesh, kept beside the grid. */
struct layout {
	struct grid grid;    /* geometry and the pattern-only channels */
	int nghost;
	int *ghost_vertex;   /* grid index of each ghost vertex */
	int *ghost_edge;     /* boundary edge it extends */
	float *ghost_dist;   /* pattern distance from that edge, metres */
	int overlaps;        /* grid vertices strictly inside two panels */
};

/* Builds the layout of pattern p of mesh m (texture coordinates scaled by
 * o->uv_scale).  Channels made: mask, panel, tri, bary, seam. */
int layout_build(struct layout *l, const struct obj_mesh *m,
		 const struct pattern *p, const struct resample_options *o,
		 struct error *e);
void layout_free(struct layout *l);

/* Marks boundary vertices, finds seam partners and lays the ghost band;
 * called by layout_build once the panels are rasterised. */
void layout_boundaries(struct layout *l, const struct obj_mesh *m,
		       const struct pattern *p, const struct resample_options *o);

/* Fills the rest channel (added if needed) from the positions of frame m,
 * which must have the same pattern as the mesh the layout was built on. */
int layout_positions(struct layout *l, const struct obj_mesh *m,
		     const struct pattern *p, const struct resample_options *o,
		     struct error *e);

/* The rest surface freed of the intersections of grid triangles that
 * sampling a sharp fold makes (untangle.c). */
struct untangle_stats {
	size_t before, after;   /* intersecting pairs */
	int rounds;
	size_t moved;           /* vertices moved */
	double max_move;        /* metres */
};
void rest_untangle(struct grid *g, struct untangle_stats *st);

/* --weld (weld.c): the map from vertex index to the index of its group,
 * boundary vertices of different panels of p closer than tol (metres)
 * in 3D grouped, at most one vertex of a panel in a group; *merged says
 * how many vertices joined another.  weld_apply renumbers m's triangles
 * by it and moves each group to the mean of its positions. */
int *weld_map(const struct obj_mesh *m, const struct pattern *p, double tol,
	      int *merged);
void weld_apply(struct obj_mesh *m, const int *map);

/* Median of |3D edge| / |pattern edge| over the triangle edges of m: near
 * 1 when the texture coordinates are in metres.  0 when undefined. */
double pattern_scale_ratio(const struct obj_mesh *m, double uv_scale);

#endif

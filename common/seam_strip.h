/* seam_strip.h - the triangles that close a garment's seams: a strip
 * between the two panels' boundary polylines along every seam, and the
 * small holes where three panels meet (seam_strip.c says how).
 *
 * pleat-simplify adds them to its mesh, so that the output is a manifold
 * whose seams' two sides share triangles; pleat-solve --safe adds the
 * strip made over the full-resolution grid to the cloth it keeps free of
 * intersections (safe.h), so that what simplify makes of a seam of a
 * --safe solve does not fold through the panels beside it either. */
#ifndef PLEAT_SEAM_STRIP_H
#define PLEAT_SEAM_STRIP_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"

/* A triangle mesh over some of a grid's vertices: the panels' triangles,
 * counter-clockwise in the pattern, the two vertices of a seam of no
 * length already one (seam_link.h: seam_twin). */
struct strip_mesh {
	int nverts, ntris;
	const uint32_t *vgrid;      /* grid vertex of each mesh vertex */
	const int (*tris)[3];
	const float (*pos)[3];      /* positions, which break the pattern's
				       ties (seam_strip.c, step 3) */
};

/* The grid the mesh lies on, and its channels (collide_channels). */
struct seam_grid {
	const struct grid *grid;
	const uint8_t *mask;
	const uint16_t *panel;      /* NULL: one panel */
	const float *seam;          /* NULL: no seams */
};

struct seam_strip {
	int (*tris)[3];             /* the strip's triangles, then the holes' */
	int nstrip, nholes;
	int chains;                 /* boundary runs along a seam, one a side */
	long open_edges;            /* seam edges of the panels that the strip
				       and the holes leave on the boundary */
};

/* The strip and holes that close the seams of mesh m on grid s; the
 * triangles are m's vertex indices, oriented as m's are. */
void seam_strip_build(struct seam_strip *out, const struct strip_mesh *m,
		      const struct seam_grid *s);
void seam_strip_free(struct seam_strip *st);

/* The strip's rungs flipped where its triangles cross the mesh
 * (seam_flip.c): tris[0..ntris) at positions pos, the panels' triangles
 * first and the strip's and holes' from `first` on; vgrid and panel say
 * each vertex's panel (no flips when panel is NULL).  pairs[0..2n) are
 * the mesh's intersecting triangle pairs (count_all_intersections),
 * taken over and freed.  *flips counts the flips kept; returns the
 * pairs left. */
size_t seam_strip_flip(int (*tris)[3], int ntris, int first,
		       const float (*pos)[3], const uint32_t *vgrid,
		       const uint16_t *panel, uint32_t *pairs, size_t n,
		       int *flips);

#endif

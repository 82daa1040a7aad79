/* pattern.h - the sewing pattern of a coarse garment: panels and seams.
 *
 * A pattern vertex is a pair (position index, texture coordinate value).
 * Values, not indices, are compared, because real files (the Berkeley
 * Garment Library) write a fresh vt line for every face corner.  Two
 * triangles belong to the same panel when they share a pattern edge: both
 * end points have the same position index and the same texture
 * coordinates, bit for bit.  A pattern edge used by one triangle only is a
 * boundary edge of its panel; it is a seam edge when another triangle uses
 * the same two positions with different texture coordinates (that
 * triangle's edge is the partner), else an open edge (a hem, a neckline).
 */
#ifndef PLEAT_PATTERN_H
#define PLEAT_PATTERN_H

#include "obj.h"

/* A boundary edge of a panel, a segment in pattern space. */
struct pattern_edge {
	int tri;           /* triangle it belongs to */
	int panel;
	int v[2];          /* position indices of its end points */
	double a[2], b[2]; /* pattern coordinates of v[0] and v[1] */
	int partner;       /* index of the partner edge (seam), or -1 (open) */
};

struct pattern {
	int npanels;
	int *tri_panel;           /* panel of every triangle, 0..npanels-1 */
	int nedges;               /* boundary edges of all panels */
	struct pattern_edge *edges;
	int nseam_edges;          /* boundary edges with a partner */
};

/* Builds panels and boundary edges of m.  Fails (with a message naming
 * name) when m has no texture coordinates or a triangle lacks them: pleat
 * needs the sewing pattern as texture coordinates.  Panel ids are
 * numbered in order of each panel's first triangle. */
int pattern_build(struct pattern *p, const struct obj_mesh *m,
		  const char *name, struct error *e);

void pattern_free(struct pattern *p);

#endif

/* initialize.h - pleat-initialize's pieces: the starting guess x(0) of a
 * solve, from a solved coarser level (upsample.c) or from the previous
 * frame's result (transfer.c), and the measure of how much the wrinkles
 * change from one frame to the next (flicker.c).
 *
 * Every piece writes x on every vertex: cloth vertices get the carried
 * wrinkles, x = rest + d; ghost vertices and vertices outside the cloth
 * get x = rest, which is what pleat-solve starts from and holds there. */
#ifndef PLEAT_INITIALIZE_H
#define PLEAT_INITIALIZE_H

#include <stddef.h>

#include "frame.h"
#include "grid.h"

/* grids.c */

/* Replaces g's x channel (if any) by a new one equal to rest everywhere;
 * returns its data, or NULL with e set when g has no rest channel. */
float *x_at_rest(struct grid *g, struct error *e);

/* The x channel (f32 x 3) of a solved grid read from `name`, or NULL with
 * e saying that the grid is not a result. */
const float *solved_x(const struct grid *g, const char *name,
		      struct error *e);

/* frame_field_init for a grid read from `name`, the message naming it. */
int named_field(struct frame_field *f, const struct grid *g,
		const char *name, struct error *e);

/* Whether grid `other`, read from `name`, has the layout of g: the same
 * size, cell and origin, and the same panel and cloth and ghost flags at
 * every vertex (frames of one pattern resampled alike).  Returns 0, or -1
 * with e naming what differs and where. */
int same_layout(const struct grid *g, const struct grid *other,
		const char *name, struct error *e);

/* upsample.c */

struct upsample_counts {
	size_t bilinear;   /* all coarse corners of the panel: bilinear */
	size_t fitted;     /* near a boundary: affine least-squares fit */
	size_t averaged;   /* a one-cell strip: mean of the neighbours */
	size_t none;       /* no coarse cloth vertex of the panel near */
	size_t seamed;     /* of the fitted and averaged: with seam partners */
};

/* Whether `coarse`, read from `name`, is the level under `fine`: twice
 * the cell, the same origin, 2w - 1 by 2h - 1 fine vertices for w by h
 * coarse ones, and at every coarse vertex the cloth flag and panel of the
 * fine vertex at the same place. */
int upsample_nests(const struct grid *fine, const struct grid *coarse,
		   const char *name, struct error *e);

/* Sets fine's x: the coarse wrinkles x - rest, interpolated from coarse
 * cloth vertices of the same panel, added to the fine rest.  coarse must
 * nest (upsample_nests) and be solved (solved_x). */
int upsample(struct grid *fine, const struct grid *coarse,
	     const float *coarse_x, struct upsample_counts *n,
	     struct error *e);

/* approach.c */

struct approach_stats {
	int rounds;           /* bounds measured */
	double start, left;   /* summed distance to the targets, metres:
				 from rest, and at the end */
	size_t away;          /* vertices short of their target at the end */
	size_t tangles;       /* intersecting triangle pairs at rest (twins
				 one point), which the start keeps */
	int no_seams;         /* the seams scope on a grid without seams
				 (no triangle in the band): nothing
				 bounded */
};

/* Replaces x, the targets (an upsampled start), by positions reached
 * from g's rest towards them under the step bounds of pleat-solve
 * --safe (safe.h) with scope SAFE_ALL or SAFE_SEAMS: as free of
 * intersections as the rest. */
int approach(struct grid *g, float *x, int scope, struct approach_stats *st,
	     struct error *e);

/* transfer.c */

/* Sets cur's x: the previous frame's wrinkles, expressed in its local
 * frames and turned into the current frames, added to the current rest.
 * prev must have cur's layout (same_layout) and be solved (solved_x).
 * *plain counts the vertices without a frame, where the plain
 * difference x - rest is carried. */
int transfer(struct grid *cur, const struct grid *prev,
	     const float *prev_x, size_t *plain, struct error *e);

/* The default count of untangling iterations after a transfer. */
#define UNTANGLE_ITERATIONS 16

/* untangle.c */

/* Replaces x, the transferred wrinkles x_est on g's layout, by the result
 * of `iterations` steps of min |x - x_est|^2 + F_self from g's rest (the
 * paper's Eq. 12): the wrinkles without the self-intersections the
 * transfer made.  scale: the collision lengths over the paper's, 0 for
 * pleat-solve's default from the cell.  0 iterations leaves x alone. */
int untangle(struct grid *g, float *x, int iterations, double scale,
	     struct error *e);

/* flicker.c */

struct flicker {
	size_t vertices;         /* cloth vertices compared */
	double mean, max;        /* |w_b - w_a|, metres */
	int max_i, max_j;        /* where the largest change is */
	size_t plain;            /* compared as plain differences: no frame */
};

/* The change of the wrinkles w = F (x - rest) from result a to result b
 * (consecutive frames, same layout, both solved), over the cloth
 * vertices.  The sums are taken row by row and then in row order, so the
 * figures do not depend on the thread count. */
int flicker_measure(const struct grid *a, const float *xa,
		    const struct grid *b, const float *xb, struct flicker *r,
		    struct error *e);

#endif

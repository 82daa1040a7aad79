/* frame.h - local frames of the coarse surface, as a grid samples it.
 *
 * The wrinkles of a result are its displacement from the coarse surface,
 * d = x - rest.  Expressed in a frame that turns with the surface,
 * w = F (x - rest) (F's rows the frame's axes), they no longer depend on
 * where the coarse mesh has moved: a rigid motion of the coarse mesh moves
 * rest rigidly and turns every frame with it, so w is unchanged.  Frames
 * carry wrinkles from one frame of an animation to the next and take the
 * coarse motion out of a comparison of two results.
 *
 * The frame at a cloth vertex is built from the rest channel alone:
 * the tangents d rest / du and d rest / dv are fitted by least squares to
 * the cloth vertices of the same panel among its eight neighbours (one
 * sided at a boundary; within two cells where those do not span the
 * plane), then made orthonormal, u first (Gram-Schmidt), and the third
 * axis is their cross product, the surface normal.  Vertices of other
 * panels and ghost vertices never enter: a seam or a panel boundary is a
 * crease of the coarse surface, not a place to average across.
 */
#ifndef PLEAT_FRAME_H
#define PLEAT_FRAME_H

#include <stdint.h>

#include "grid.h"

/* The channels a frame is computed from, borrowed from a grid. */
struct frame_field {
	int w, h;
	const uint8_t *mask;      /* u8: MASK_INSIDE marks cloth */
	const uint16_t *panel;    /* u16 */
	const float *rest;        /* f32 x 3 */
};

/* Borrows the mask, panel and rest channels of g; fails, naming the
 * channel, when one is missing or of another type. */
int frame_field_init(struct frame_field *f, const struct grid *g,
		     struct error *e);

/* Whether vertex (i, j) is a cloth vertex (mask inside) of panel p;
 * false outside the grid. */
int frame_cloth_of(const struct frame_field *f, int i, int j, uint16_t p);

/* The frame at cloth vertex (i, j): axes[0] and axes[1] the unit
 * tangents along u and v (made orthogonal), axes[2] the unit normal.
 * Returns 1, or 0 where the neighbourhood does not determine a frame (no
 * two independent directions of the same panel, or a coarse surface
 * collapsed there); the axes are then the identity. */
int frame_at(const struct frame_field *f, int i, int j, double axes[3][3]);

/* The rest surface's derivatives along i and along j at cloth vertex
 * (i, j), metres per cell, from the same least-squares fit as frame_at's
 * axes (not made orthonormal, and without frame_at's test for a surface
 * collapsed there).  Returns 0 where the offsets are collinear or (i, j)
 * is not cloth. */
int frame_lattice_tangents(const struct frame_field *f, int i, int j,
			   double tu[3], double tv[3]);

/* Components of a world vector in the frame, and back. */
void frame_to_local(const double axes[3][3], const double d[3], double w[3]);
void frame_to_world(const double axes[3][3], const double w[3], double d[3]);

/* The frames of two grids of one layout (consecutive frames of an
 * animation) at vertex (i, j), for carrying or comparing wrinkles.
 * Returns 1 when both frames are determined; otherwise 0 and both are the
 * identity, so that the wrinkles are carried or compared as plain
 * differences rather than through one real frame and one identity. */
int frame_pair(const struct frame_field *a, const struct frame_field *b,
	       int i, int j, double fa[3][3], double fb[3][3]);

/* x - rest at vertex index v, x a solution laid out like rest. */
void frame_displacement(const struct frame_field *f, const float *x,
			size_t v, double d[3]);

#endif

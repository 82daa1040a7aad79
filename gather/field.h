/* field.h - pleat-gather's pieces: 2x2 symmetric tensors, the procedural
 * patterns, sketched strokes and the coarse input's stretch, each an
 * operation that multiplies a new tensor into the field at a vertex. */
#ifndef PLEAT_GATHER_FIELD_H
#define PLEAT_GATHER_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "util.h"

/* [[xx, xy], [xy, yy]] */
struct sym2 { double xx, xy, yy; };

struct sym2 sym2_identity(void);
/* s_along along the direction at `angle` radians from the u axis, s_across
 * across it. */
struct sym2 sym2_axes(double angle, double s_along, double s_across);
/* S^a (eigenvalues to the power a, same axes); S positive definite. */
struct sym2 sym2_pow(struct sym2 s, double a);
/* S with every eigenvalue below lo raised to lo (same axes). */
struct sym2 sym2_at_least(struct sym2 s, double lo);
/* A^(1/2) S A^(1/2): A applied to S, symmetric and positive definite when
 * both are; A S when they commute (same axes). */
struct sym2 sym2_apply(struct sym2 a, struct sym2 s);

/* A sketched stroke: a segment in pattern space (metres) with the scale
 * factors along and across it and its radius of influence. */
struct stroke {
	double u0, v0, u1, v1, along, across, radius;
};

/* Reads a stroke file (one stroke a line: u0 v0 u1 v1 s_along s_across
 * radius; '#' starts a comment).  Returns 0, or -1 with e naming
 * path:line and what is wrong. */
int strokes_read(const char *path, struct stroke **out, size_t *n,
		 struct error *e);

/* The operations, in the order they appear on the command line. */
enum gather_op_kind { OP_SET, OP_SHIRR, OP_QUILT, OP_STROKES, OP_PERTURB,
		      OP_STRETCH };

struct gather_op {
	enum gather_op_kind kind;
	struct sym2 set;                        /* OP_SET */
	double angle, offset, width, factor, edge;  /* OP_SHIRR (radians) */
	double period, line;                    /* OP_QUILT: and factor, angle */
	double amount, size;                    /* OP_PERTURB */
	uint64_t seed;
	int tension;          /* OP_STRETCH: the stretched directions only */
	const struct stroke *strokes;           /* OP_STROKES */
	size_t nstrokes;
};

/* The tensor that op multiplies in at pattern point (u, v) (not for
 * OP_SET, OP_PERTURB or OP_STRETCH, which act on the field as it is). */
struct sym2 gather_pattern(const struct gather_op *op, double u, double v);
/* Smooth noise in [-1, 1] with features of `size` metres: value noise on
 * a lattice of that spacing, the same at every grid resolution. */
double gather_noise(double u, double v, double size, uint64_t seed);

/* Applies op to every vertex of the field (3 floats a vertex, g's
 * layout).  OP_STRETCH needs the rest and mask channels: -1 with e set
 * when they are missing. */
int gather_apply(const struct grid *g, const struct gather_op *op,
		 float *field, struct error *e);

#endif

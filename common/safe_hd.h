/* safe_hd.h - the arithmetic of --safe's step bounds that the CPU and
 * the GPU share (safe.h says what the bounds are). */
#ifndef PLEAT_SAFE_HD_H
#define PLEAT_SAFE_HD_H

#include <math.h>

#include "hostdev.h"

#define SAFE_GAMMA 0.45   /* a vertex's move over the nearest distance */
#define SAFE_REACH 0.5    /* pairs closer than this many cells are
			     measured; the bound is at most gamma times it */

/* How far short of its bound a pulled-back vertex is aimed, over its
 * largest coordinate: 4 units in the last place of a float (2^-21). */
#define SAFE_SLACK 4.76837158203125e-7

/* What safe_clamp_vertex did. */
enum { SAFE_WITHIN = 0, SAFE_OVER_HALF = 1, SAFE_CLAMPED = 2 };

/* Vertex position x (3 floats) pulled back along its move from x0 to
 * within `bound` of it: to a few units in the last place of x0's largest
 * coordinate short of the bound, so that the rounding of the pulled-back
 * point (by any contraction of its arithmetic, too) cannot carry it
 * beyond; to x0 itself when the bound is not larger than that.  Returns
 * SAFE_CLAMPED when it pulled, SAFE_OVER_HALF when x is beyond half the
 * bound (the bounds are due to be measured again), else SAFE_WITHIN.
 * The lengths are compared in double: the same bytes on the CPU and the
 * GPU. */
PL_HD int safe_clamp_vertex(float *x, const float *x0, float bound)
{
	double dx = (double)x[0] - x0[0], dy = (double)x[1] - x0[1];
	double dz = (double)x[2] - x0[2];
	double l2 = dx * dx + dy * dy + dz * dz, b2 = (double)bound * bound;
	if (l2 <= b2)
		return l2 > 0.25 * b2 ? SAFE_OVER_HALF : SAFE_WITHIN;
	float big = fmaxf(fabsf(x0[0]), fmaxf(fabsf(x0[1]), fabsf(x0[2])));
	double target = (double)bound - SAFE_SLACK * (double)big;
	float s = target > 0 ? (float)(target / sqrt(l2)) : 0.0f, c[3];
	for (int k = 0; k < 3; k++)
		c[k] = x0[k] + (x[k] - x0[k]) * s;
	dx = (double)c[0] - x0[0];
	dy = (double)c[1] - x0[1];
	dz = (double)c[2] - x0[2];
	int ok = dx * dx + dy * dy + dz * dz <= b2;
	for (int k = 0; k < 3; k++)
		x[k] = ok ? c[k] : x0[k];
	return SAFE_CLAMPED;
}

#endif

/* approach.c - a start as free of intersections as the rest it moves
 * from (pleat-initialize --upsample --safe).
 *
 * Upsampling carries each panel's wrinkles from its own coarse vertices,
 * so the two sides of a seam, and layers that the coarse level folded
 * close together, can arrive lying through each other: the boundary
 * cells of both sides, extrapolated past the seam line, shingle.  The
 * shared dress solved at 512 on its body, free of intersections, gives
 * a start at 1024 with 103 intersecting triangle pairs, all across a
 * seam, and pleat-solve --self --safe=seams ends 64 iterations with 16
 * pairs across a seam: --safe holds what it finds tangled, it does not
 * part it.
 *
 * So with --safe the cloth is moved from its rest towards the upsampled
 * positions under the step bounds of pleat-solve --safe (safe.h): each
 * round measures the bounds at the current positions, every vertex takes
 * its whole way to its target and is pulled back within its bound.  A
 * vertex that cannot get there (a side of a seam that would pass the
 * other) stops short, next to what held it, and the solve goes on from
 * there under the same bounds.  Twins, which the bounds take as one
 * point, move by the same share of their way.  With the seams scope, only
 * the band around the seams is held; the rest of the cloth reaches its
 * target in the first round.  The rounds end when every vertex has
 * arrived, when a round closes less than APPROACH_GAIN of the distance
 * left, or after APPROACH_ROUNDS. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "initialize.h"
#include "safe.h"

/* Rounds at most: a held vertex moves at most gamma times the reach (0.225
 * cell) a round, so 1024 rounds carry one 230 cells: a backstop, as the
 * rounds end long before on APPROACH_GAIN. */
#define APPROACH_ROUNDS 1024
/* A round that closes less than this share of the distance left ends the
 * approach: the vertices left are held, and the solve that follows moves
 * them on under the same bounds, measuring them with everything else it
 * measures.  The rounds that crawl on cost more than that: the dress's
 * 2048 level of pleat-frame --safe on its body went from 1024's result
 * in 122 rounds and 25.6 s with a thousandth, the last 90 of them
 * closing 0.4 m of 354; with 3 hundredths in 15.2 s, and the solve's 256
 * iterations after it ended at the same energy (2.826 J against 2.831 J)
 * with no intersection either way.  At 1024 (dress, tshirt-iso) the
 * solves after it ended 1% lower. */
#define APPROACH_GAIN 0.03

/* The sum of the distances from x to target over the moving vertices,
 * row by row then in row order (the same at any thread count). */
static double distance_left(const struct grid *g, const uint8_t *mov,
			    const float *x, const float *target,
			    size_t *away)
{
	size_t w = (size_t)g->width, h = (size_t)g->height, n = 0;
	double *row = xmalloc_array(h ? h : 1, sizeof *row), sum = 0;
	#pragma omp parallel for schedule(static) reduction(+ : n)
	for (long j = 0; j < (long)h; j++) {
		double s = 0;
		for (size_t i = 0; i < w; i++) {
			size_t v = (size_t)j * w + i;
			if (!mov[v])
				continue;
			double d2 = 0;
			for (int k = 0; k < 3; k++) {
				double d = (double)target[3 * v + (size_t)k] -
					   x[3 * v + (size_t)k];
				d2 += d * d;
			}
			s += sqrt(d2);
			n += d2 > 0;
		}
		row[j] = s;
	}
	for (size_t j = 0; j < h; j++)
		sum += row[j];
	free(row);
	*away = n;
	return sum;
}

/* Each two twins (safe.h: one point of the cloth, never measured against
 * each other) back to the smaller of the shares of their way to their
 * common target that their bounds let them go: they start apart (each
 * panel's rest), and pulled back each by its own bound they could part
 * further, and pass through each other unmeasured. */
static void keep_twins_together(const struct safe *s, const uint8_t *mov,
				float *x, const float *target)
{
	if (!s->tri_one)        /* no twins (safe.h) */
		return;
	for (size_t v = 0; v < s->n; v++) {
		size_t t = s->twin[v];
		if (t <= v || !mov[v] || !mov[t])
			continue;
		double share[2];
		size_t w[2] = {v, t};
		for (int q = 0; q < 2; q++) {
			double moved = 0, way = 0;
			for (int k = 0; k < 3; k++) {
				size_t c = 3 * w[q] + (size_t)k;
				double a = (double)x[c] - s->x0[c];
				double b = (double)target[c] - s->x0[c];
				moved += a * a;
				way += b * b;
			}
			share[q] = way > 0 ? sqrt(moved / way) : 1;
		}
		/* the one with the larger share goes back to the other's */
		int q = share[0] > share[1] ? 0 : 1;
		if (share[q] == share[1 - q])
			continue;
		for (int k = 0; k < 3; k++) {
			size_t c = 3 * w[q] + (size_t)k;
			x[c] = (float)(s->x0[c] + share[1 - q] *
				       ((double)target[c] - s->x0[c]));
		}
	}
}

int approach(struct grid *g, float *x, int scope, struct approach_stats *st,
	     struct error *e)
{
	const struct grid_channel *rest = grid_find_typed(g, "rest", GRID_F32, 3);
	struct safe s;
	memset(st, 0, sizeof *st);
	if (!rest)
		return error_set(e, "needs a 'rest' channel of type f32 x 3 (as "
				 "pleat-resample writes it)");
	if (safe_init(&s, g, scope == SAFE_SEAMS ? SAFE_SEAM_BAND : 0, e))
		return -1;
	st->no_seams = scope == SAFE_SEAMS && s.ntri == 0;
	size_t n = s.n;
	const uint8_t *mask = s.seams.mask;
	float *target = xmalloc_array(n, 3 * sizeof(float));
	uint8_t *mov = xmalloc_array(n ? n : 1, 1);
	memcpy(target, x, n * 3 * sizeof(float));
	memcpy(x, rest->data, n * 3 * sizeof(float));
	for (size_t v = 0; v < n; v++)
		mov[v] = (mask[v] & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE;
	double left = distance_left(g, mov, x, target, &st->away);
	st->start = left;
	while (st->away > 0 && st->rounds < APPROACH_ROUNDS) {
		safe_update(&s, x);
		for (size_t v = 0; v < n; v++)
			if (mov[v])
				memcpy(x + 3 * v, target + 3 * v, 3 * sizeof(float));
		safe_clamp(&s, mov, x);
		keep_twins_together(&s, mov, x, target);
		st->rounds++;
		double now = distance_left(g, mov, x, target, &st->away);
		int stalled = left - now < APPROACH_GAIN * left;
		left = now;
		if (stalled)
			break;
	}
	st->left = left;
	st->tangles = s.stats.tangles_start;
	safe_free(&s);
	free(target);
	free(mov);
	return 0;
}

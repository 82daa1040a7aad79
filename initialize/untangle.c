/* untangle.c - the transferred wrinkles cleaned of self-intersections
 * (the paper's Eq. 12).
 *
 * Wrinkles carried from the previous frame can cut through a layer of
 * cloth that has come closer since (a sleeve pressed to the body, a fold
 * that tightened).  So the start is not x_est itself but the minimiser,
 * in a fixed number of iterations, of
 *      E(x) = sum_v 0.5 |x_v - x_est_v|^2 + kappa sum_pairs 0.5 (R - d)^2
 * from the current rest, which has no self-intersection: the cloth moves
 * towards the transferred wrinkles while the repulsion of collide.h keeps
 * the layers apart.
 *
 * Each iteration refreshes the proximity lists (proximity.h) and makes
 * one Jacobi step preconditioned by the diagonal, 1 + 2 kappa per pair in
 * contact: a Newton step for the first term alone, and for a pair in
 * contact, both of whose vertices move at once, half the Newton step of
 * each, so that together they land on the pair's equilibrium instead of
 * overshooting it (with kappa alone they leave the range of the
 * repulsion, fall back in the next iteration, and cycle).  No vertex
 * moves more than R/2 in one iteration, so no two vertices close in by
 * more than R: two vertices further apart than the search radius (above
 * R) cannot pass each other before the next refresh lists them.  That
 * bounds the distance a vertex can travel from rest to N R / 2.
 *
 * Lengths are the paper's (R 0.4 mm, search radius 0.55 mm) times a
 * scale when one is given, and by default pleat-solve's: cell / 0.5 mm,
 * at least 1, with R at least 1.2 cells (collide_params_for_cell), so
 * that the layers the solve will hold R apart start that far apart. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide.h"
#include "initialize.h"
#include "proximity.h"

/* kappa: the repulsion against the pull towards x_est, per vertex.  At
 * 100, a vertex pulled 1 cm into another layer stops 0.1 mm inside R. */
#define UNTANGLE_STIFFNESS 100.0

/* One vertex's step from x towards est under the repulsion of its list,
 * at most `cap` long, into next. */
static void step_vertex(const struct proximity *pr, const float *x,
			const float *est, size_t v, float radius, float cap,
			float *next)
{
	vec3 g = v3(0, 0, 0);
	float diag = 0;
	collide_vertex_repel(x, (uint32_t)v, pr->list + v * (size_t)pr->k,
			     proximity_kept(pr, v), radius,
			     (float)UNTANGLE_STIFFNESS, &g, &diag);
	double pre = 1.0 + 2.0 * diag;
	double s[3] = {
		-((double)x[3 * v] - est[3 * v] + g.x) / pre,
		-((double)x[3 * v + 1] - est[3 * v + 1] + g.y) / pre,
		-((double)x[3 * v + 2] - est[3 * v + 2] + g.z) / pre,
	};
	double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
	double scale = len > cap ? cap / len : 1;
	for (int k = 0; k < 3; k++)
		next[3 * v + k] = (float)(x[3 * v + k] + scale * s[k]);
}

int untangle(struct grid *g, float *x, int iterations, double scale,
	     struct error *e)
{
	struct proximity pr;
	struct collide_params cp;
	struct frame_field f;
	if (iterations <= 0)
		return 0;
	if (frame_field_init(&f, g, e))
		return -1;
	if (scale > 0)
		collide_params_init(&cp, scale, UNTANGLE_STIFFNESS);
	else
		collide_params_for_cell(&cp, g->cell, UNTANGLE_STIFFNESS);
	if (proximity_init(&pr, g, cp.neighbours, e))
		return -1;
	size_t n = grid_vertices(g), bytes = n * 3 * sizeof(float);
	float *est = big_alloc(bytes), *next = big_alloc(bytes);
	if (!est || !next) {
		free(est);
		free(next);
		proximity_free(&pr);
		return error_set(e, "out of memory for %zu vertices", n);
	}
	memcpy(est, x, bytes);
	memcpy(x, f.rest, bytes);
	memcpy(next, f.rest, bytes);
	float radius = (float)cp.radius, cap = 0.5f * radius;
	for (int it = 0; it < iterations; it++) {
		proximity_refresh(&pr, x, cp.search);
		#pragma omp parallel for schedule(static)
		for (long v = 0; v < (long)n; v++)
			if (f.mask[v] & MASK_INSIDE)
				step_vertex(&pr, x, est, (size_t)v, radius, cap, next);
		memcpy(x, next, bytes);
	}
	free(est);
	free(next);
	proximity_free(&pr);
	return 0;
}

/* converge.c - the stopping test: how far the energy still has to fall.
 *
 * The residual |grad F| cannot stop a solve: its float arithmetic and the
 * float storage of the positions give it a floor (one ulp of a position
 * at 1 m is a force of k * 6e-8 N, several times a vertex's weight for a
 * stiff cloth), and the long waves that stay unconverged longest have
 * gradients below it.  The energy, summed in double, keeps falling as
 * long as the iterate improves, so the test reads the energy: with the
 * decreases d_k between consecutive accepted checks shrinking by a
 * factor q per check (the linear convergence of every method here), the
 * energy still to gain is about d_k q / (1 - q).  The test compares that
 * with the decrease so far, E_0 - E_k: a relative error of the energy
 * gain that means the same at every resolution and for every material.
 * It holds only when two consecutive checks say so, since Chebyshev's
 * acceleration makes single decreases uneven. */
#include <math.h>
#include <string.h>

#include "solve.h"

void converge_init(struct converge *c, double tolerance, double energy,
		   double residual)
{
	memset(c, 0, sizeof *c);
	c->tolerance = tolerance;
	c->e0 = c->e = energy;
	c->r0 = c->r = residual;
	c->gap = c->rel = INFINITY;
	c->d = NAN;
}

/* The remaining energy from the last two decreases, INFINITY when they
 * do not shrink (or one is not a decrease beyond rounding). */
static double gap_estimate(double d, double dprev, double noise)
{
	if (!(d > noise) || !(dprev > noise))
		return d <= noise && dprev <= noise ? 0 : INFINITY;
	double q = d / dprev;
	return q < 1 ? d * q / (1 - q) : INFINITY;
}

int converge_update(struct converge *c, const struct check *k)
{
	double dprev = c->d;
	c->d = c->e - k->energy;
	c->e = k->energy;
	c->r = k->residual;
	c->checks++;
	if (isnan(dprev)) {
		c->gap = c->rel = INFINITY;
		return 0;
	}
	c->gap = gap_estimate(c->d, dprev, k->noise);
	double gained = c->e0 - c->e;
	c->rel = gained > 0 ? c->gap / gained : c->gap == 0 ? 0 : INFINITY;
	int met = c->tolerance > 0 && c->rel <= c->tolerance;
	c->met = met ? c->met + 1 : 0;
	return c->met >= 2;
}

double converge_relative_residual(const struct converge *c)
{
	return c->r0 > 0 ? c->r / c->r0 : 0;
}

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
 * acceleration makes single decreases uneven.
 *
 * The estimate assumes q holds from now on.  Where q is still rising,
 * the fast modes gone and the slow ones taking over (multigrid's first
 * cycles on the hanging square: q 0.004, 0.22, 0.30, 0.68, 0.83 ...
 * 0.93), it promises far too little: --tolerance 1e-3 stopped there
 * after 3 cycles with 2.5 times that still to gain.  So the estimate
 * waits until q has settled: it has not risen, since the last check, by
 * more than a tenth of 1 - q. */
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
	c->d = c->q = NAN;
}

/* How much of what is left of 1 the ratio of decreases may rise by
 * between checks and still count as settled. */
#define Q_SETTLED 0.1

/* The remaining energy from the last two decreases, INFINITY when they
 * do not shrink (or one is not a decrease beyond rounding), or shrink
 * by a ratio q that is still rising from qprev (NAN: unknown). */
static double gap_estimate(double d, double dprev, double noise,
			   double *q, double qprev)
{
	*q = NAN;
	if (!(d > noise) || !(dprev > noise))
		return d <= noise && dprev <= noise ? 0 : INFINITY;
	*q = d / dprev;
	if (!(*q < 1) || !(*q - qprev <= Q_SETTLED * (1 - *q)))
		return INFINITY;
	return d * *q / (1 - *q);
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
	double qprev = c->q;
	c->gap = gap_estimate(c->d, dprev, k->noise, &c->q, qprev);
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

/* ---- --rho auto: Chebyshev's radius from the observed convergence ---
 *
 * The outer Chebyshev acceleration needs the spectral radius rho of the
 * plain iteration; the best value grows with the resolution (0.992 is
 * right for a few thousand vertices, 0.9995 for a 64 x 64 sheet hanging
 * from flat).  Read from the energy: with the error shrinking by sigma
 * per iteration, the decrease between checks shrinks by sigma^(2 n), n
 * iterations a check.  The first estimate is the plain iterations' rate
 * over the last two checks of the delay (rho = sigma, an estimate from
 * below: the slowest modes have not yet taken over).  Then, in the
 * adaptive procedure of Hageman and Young (Applied Iterative Methods,
 * 1981, ch. 5-6), whenever the accelerated iterations converge more
 * slowly than the estimate predicts (sqrt(omega_inf - 1) per iteration,
 * with a margin, F = 0.75), the estimate is raised to the eigenvalue mu
 * that would explain the observed rate, sigma = z(mu / rho) / z(1 / rho)
 * with z(t) = t + sqrt(t^2 - 1), and the sequence restarts, to at most
 * RHO_MAX.  Decreases that rounding can explain, or that grow rather
 * than shrink (a buckling sheet leaving its saddle), say nothing of the
 * rate and are passed over: read as slow convergence they would drive
 * the estimate to its ceiling on every converged or buckling solve.
 *
 * Hageman and Young's estimate only grows because a linear iteration's
 * spectrum is fixed.  This one is not: a nonlinear phase (contact
 * changing, a fold forming) can raise the estimate higher than the
 * momentum the later, gentler iterations can bear, and the energy then
 * rises at a check.  Where the fixed radius halves the step, the
 * estimate instead falls, 1 - rho doubling (RHO_FALL), and becomes the
 * ceiling for the next RHO_HOLD accepted checks; the sequence restarts
 * from the last accepted iterate at the same step, with one plain step
 * (the restored iterate is also the previous one).  Only when it would
 * fall below RHO_MIN (from under 0.75), or before the first estimate,
 * does the step halve.  Measured on the inflated
 * patch (tests/inflate.bats, --air 0.5 to 64 Pa, 256 iterations): one
 * fall from 0.991 to 0.982 where the estimate that only grew climbed to
 * 0.9999 and halved the step one to three times. */
#define RHO_MIN 0.5
#define RHO_MAX 0.9999
#define RHO_MARGIN 0.75
#define RHO_FALL 2.0
#define RHO_HOLD 8

void rho_init(struct rho_estimate *r, double rho)
{
	r->rho = rho;
	r->ceiling = RHO_MAX;
	r->hold = 0;
	r->dprev = NAN;
	r->estimated = 0;
}

/* The eigenvalue that would make Chebyshev with radius rho converge at
 * sigma per iteration, or rho when sigma is within its prediction. */
static double rho_explaining(double rho, double sigma)
{
	double s = sqrt(1 - rho * rho);
	double predicted = sqrt((1 - s) / (1 + s));
	if (!(sigma > pow(predicted, RHO_MARGIN)))
		return rho;
	double y = sigma * (1 + s) / rho;
	return y > 1 ? rho * 0.5 * (y + 1 / y) : rho;
}

/* The estimate after an accepted check (rho_update), under the ceiling;
 * r->rho when the check says nothing new. */
static double rho_estimate(struct rho_estimate *r, double d, double noise,
			   int kc, int delay, int every)
{
	double dprev = r->dprev;
	/* a decrease that rounding can explain says nothing of the rate:
	 * taken as one, a converged solve's would raise the estimate to
	 * its ceiling */
	r->dprev = d > noise ? d : NAN;
	if (!(d > noise) || !(dprev > noise))
		return r->rho;
	double sigma = pow(d / dprev, 1.0 / (2.0 * every));
	/* decreases that grow are no contraction: the iterate is leaving
	 * a saddle (a sheet starting to buckle), or the nonlinearity
	 * dominates, and no radius explains them */
	if (!(sigma < 1))
		return r->rho;
	double rho;
	if (kc == delay && !r->estimated)   /* two plain intervals ended */
		rho = fmax(sigma, RHO_MIN);
	else if (kc == delay)    /* again, after a step halving */
		rho = fmax(sigma, r->rho);
	else if (kc >= delay + 2 * every)    /* two accelerated ones */
		rho = rho_explaining(r->rho, sigma);
	else
		return r->rho;
	r->estimated = 1;
	return fmin(rho, r->ceiling);
}

int rho_update(struct rho_estimate *r, double d, double noise, int kc,
	       int delay, int every)
{
	double rho = rho_estimate(r, d, noise, kc, delay, every);
	/* this check was one of the RHO_HOLD the lowered ceiling holds */
	if (r->hold > 0 && --r->hold == 0)
		r->ceiling = RHO_MAX;
	if (rho == r->rho)
		return 0;
	r->rho = rho;
	return 1;
}

int rho_rose(struct rho_estimate *r)
{
	double rho = 1 - RHO_FALL * (1 - r->rho);
	if (!r->estimated || rho < RHO_MIN)
		return 0;
	r->rho = r->ceiling = rho;
	r->hold = RHO_HOLD;
	r->dprev = NAN;
	return 1;
}

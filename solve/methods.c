/* methods.c - the plain descent step, the outer Chebyshev acceleration
 * and the outer loop with its step control.
 *
 * Every step reads the iterate x and writes a new one (Jacobi: no vertex
 * sees another's update within a step), so the result does not depend on
 * the thread count.  Step control: every check_every iterations, and
 * after the last, F is computed; when it rose by more than float rounding
 * of the positions can explain (struct check's noise), or is not finite,
 * the loop goes back to the last accepted iterate, halves the step and
 * restarts the Chebyshev sequence (delay included), as from a new start;
 * with --rho auto, Chebyshev's radius falls instead of the step while it
 * can (converge.c, rho_rose).
 * What it returns is always an accepted iterate, so never NaN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "solve.h"
#include "util.h"

/* Vertex v's plain step from x into out, its grid energies' gradient g
 * and preconditioner d already computed (when it moves). */
static void gd_vertex(const struct problem *p, const float *x, size_t v,
		      vec3 g, float d, void *arg)
{
	float *out = arg;
	const float *xv = x + 3 * v;
	vec3 s = v3(0.0f, 0.0f, 0.0f);
	if (p->mov[v]) {
		extra_vertex(p, v, xv, p->w, x, &g, &d);
		s = solve_vertex_step(g, d, p->c.step);
	}
	out[3 * v] = xv[0] + s.x;
	out[3 * v + 1] = xv[1] + s.y;
	out[3 * v + 2] = xv[2] + s.z;
	if (p->mov[v])
		project_vertex(p, v, out + 3 * v);
}

void gd_step(const struct problem *p, const float *x, float *out)
{
	problem_rows(p, x, gd_vertex, out);
}

/* out = omega (out - prev) + prev on the moving vertices. */
static void cheb_apply(const struct problem *p, float *out,
		       const float *prev, float omega)
{
	#pragma omp parallel for schedule(static)
	for (long v = 0; v < (long)p->n; v++)
		if (p->mov[v]) {
			for (int k = 0; k < 3; k++)
				out[3 * v + k] = cheb_mix(out[3 * v + k],
							  prev[3 * v + k], omega);
			project_vertex(p, (size_t)v, out + 3 * v);
		}
}

/* Nonlinear PCG with the block step as its preconditioner (Wang 2021,
 * section 4): z = B(x) - x, the block method's move from x, stands for
 * -M^-1 grad F.  The direction is d = z + beta d_prev with Polak and
 * Ribiere's beta = r.(z - z_prev) / (r_prev.z_prev), r = -grad F,
 * clamped at 0, and beta = 0 every pcg_restart iterations (14, as in the
 * paper's reference code), after a rejected check and where the moves
 * are far from conjugate (pcg_beta).  x moves by the
 * whole of d: the block step already carries its step length. */
struct pcg {
	float *z, *zprev, *d, *g;
	double gz;               /* g_prev . z_prev = -r_prev . z_prev */
};

static void pcg_init(struct pcg *s, size_t n)
{
	size_t bytes = n * 3 * sizeof(float);
	s->z = big_alloc(bytes);
	s->zprev = big_alloc(bytes);
	s->d = big_alloc(bytes);
	s->g = big_alloc(bytes);
	if (!s->z || !s->zprev || !s->d || !s->g)
		die("out of memory for the pcg method (%zu vertices)", n);
	memset(s->d, 0, bytes);
	s->gz = 0;
}

static void pcg_free(struct pcg *s)
{
	free(s->z);
	free(s->zprev);
	free(s->d);
	free(s->g);
}

/* One iteration; restart: take the preconditioned step itself. */
static void pcg_step(struct problem *p, const struct solve_params *sp,
		     struct pcg *s, int restart)
{
	block_step(p, p->x, p->next, sp->inner, (float)sp->inner_rho);
	#pragma omp parallel for schedule(static)
	for (long k = 0; k < 3 * (long)p->n; k++)
		s->z[k] = p->next[k] - p->x[k];
	problem_gradient(p, p->x, s->g);
	double gz = problem_dot(p, s->g, s->z), gzp = 0;
	restart = restart || !(s->gz < 0);
	if (!restart)
		gzp = problem_dot(p, s->g, s->zprev);
	float b = (float)pcg_beta(gz, gzp, s->gz, restart);
	#pragma omp parallel for schedule(static)
	for (long v = 0; v < (long)p->n; v++)
		for (int k = 0; k < 3; k++) {
			size_t q = 3 * (size_t)v + (size_t)k;
			s->d[q] = p->mov[v] ? pcg_direction(s->z[q], b, s->d[q]) : 0.0f;
			p->next[q] = p->x[q] + s->d[q];
		}
	problem_project(p, p->next);
	float *t = s->zprev;
	s->zprev = s->z;
	s->z = t;
	s->gz = gz;
}

static void one_step(struct problem *p, const struct solve_params *sp,
		     struct pcg *s, int k, int it)
{
	problem_refresh_self(p, p->x, it);
	seams_update(&p->seams, p->x);
	if (sp->method == METHOD_PCG)
		pcg_step(p, sp, s, k % sp->pcg_restart == 0);
	else if (sp->method == METHOD_BLOCK)
		block_step(p, p->x, p->next, sp->inner, (float)sp->inner_rho);
	else
		gd_step(p, p->x, p->next);
}

/* prev <- x <- next, the old prev becoming the next scratch buffer. */
static void rotate(struct problem *p)
{
	float *t = p->prev;
	p->prev = p->x;
	p->x = p->next;
	p->next = t;
}

static void emit(solve_listener listen, void *arg, int it, int budget,
		 const struct check *k, double step, double t0, int accepted,
		 const struct converge *conv)
{
	struct solve_event ev = {it, budget, *k, step, now_seconds() - t0,
				 accepted, conv, 0};
	if (listen)
		listen(&ev, arg);
}

/* The iterations' backend: the CPU (dev NULL) or a device, which holds
 * the iterate, the previous one and the last accepted one itself. */
static int backend_check(struct problem *p, const struct solve_device *dev,
			 struct check *k, char *why, size_t n)
{
	double out[3];
	/* only --safe (all) starts behind the half-planes
	 * (problem_set_body); on a device, the iterate is fetched into the
	 * idle host buffer */
	int behind = p->plane && p->unpushed;
	k->violation = 0;
	if (!dev) {
		problem_check(p, p->x, k);
	} else {
		if (dev->check(dev->s, &p->c, out, why, n) ||
		    (behind && dev->get(dev->s, p->next, why, n)))
			return -1;
		k->energy = out[0];
		k->residual = sqrt(out[1]);
		k->noise = out[2];
	}
	if (behind) {
		k->violation = problem_violation(p, dev ? p->next : p->x);
		if (p->safe)
			p->safe->pressed = k->violation > 0;
	}
	return 0;
}

/* --safe on a device: the bounds measured on the host at the device's
 * iterate (fetched into the idle host buffer), and sent back. */
static int device_safe_update(struct problem *p, const struct solve_device *dev,
			      char *why, size_t n)
{
	struct safe *s = p->safe;
	if (dev->get(dev->s, p->next, why, n))
		return -1;
	safe_update(s, p->next);
	return dev->safe_set(dev->s, s->x0, s->bound, why, n);
}

static int device_safe_poll(struct problem *p, const struct solve_device *dev,
			    char *why, size_t n)
{
	size_t count[2];
	if (dev->safe_poll(dev->s, count, why, n))
		return -1;
	safe_step_done(p->safe, count[0], count[1]);
	return 0;
}

static int backend_step(struct problem *p, const struct solve_params *sp,
			const struct solve_device *dev, struct pcg *pcg,
			int kc, int it, float omega, char *why, size_t n)
{
	if (!dev) {
		if (p->safe && p->safe->due)
			safe_update(p->safe, p->x);
		one_step(p, sp, pcg, kc, it);
		if (omega != 1.0f)
			cheb_apply(p, p->next, p->prev, omega);
		if (p->safe)
			safe_clamp(p->safe, p->mov, p->next);
		rotate(p);
		return 0;
	}
	if (p->safe && p->safe->due && device_safe_update(p, dev, why, n))
		return -1;
	struct cuda_step st = {
		sp->method == METHOD_PCG ? CUDA_PCG :
		sp->method == METHOD_BLOCK ? CUDA_BLOCK : CUDA_GD,
		&p->c, sp->inner, (float)sp->inner_rho, omega,
		sp->method == METHOD_PCG && kc % sp->pcg_restart == 0};
	double tr = now_seconds();
	int bad = dev->refresh(dev->s, it, why, n);
	p->self_refresh_seconds += now_seconds() - tr;
	if (bad || dev->step(dev->s, &st, why, n))
		return -1;
	return p->safe ? device_safe_poll(p, dev, why, n) : 0;
}

/* The last accepted iterate <- x. */
static int backend_keep(struct problem *p, const struct solve_device *dev,
			char *why, size_t n)
{
	if (dev)
		return dev->keep(dev->s, why, n);
	memcpy(p->good, p->x, p->n * 3 * sizeof(float));
	return 0;
}

/* x and the previous iterate <- the last accepted one. */
static int backend_restore(struct problem *p, const struct solve_device *dev,
			   char *why, size_t n)
{
	/* the bounds were measured at a later iterate */
	if (p->safe)
		safe_restored(p->safe);
	if (dev)
		return dev->restore(dev->s, why, n);
	memcpy(p->x, p->good, p->n * 3 * sizeof(float));
	memcpy(p->prev, p->good, p->n * 3 * sizeof(float));
	return 0;
}

static void finish(struct solve_result *res, int it, const struct check *good,
		   double step, double t0, struct pcg *pcg)
{
	res->iterations = it;
	res->k = *good;
	res->conv.e = good->energy;
	res->conv.r = good->residual;
	res->step = step;
	res->seconds = now_seconds() - t0;
	pcg_free(pcg);
}

int solve_run(struct problem *p, const struct solve_params *sp,
	      const struct solve_device *dev, solve_listener listen, void *arg,
	      struct solve_result *res, struct error *e)
{
	char why[256];
	size_t bytes = p->n * 3 * sizeof(float);
	struct check good = {0, 0, 0, 0}, k;
	double step = sp->step, t0 = now_seconds();
	int kc = 0, it;
	float omega = 1.0f;
	struct pcg pcg = {0};
	struct rho_estimate rho;
	int chebyshev_auto = sp->rho_auto && method_has_radius(sp->method);

	memset(res, 0, sizeof *res);
	rho_init(&rho, sp->rho);
	res->rho = sp->rho;
	if (sp->method == METHOD_PCG && !dev)
		pcg_init(&pcg, p->n);
	if ((sp->method == METHOD_BLOCK || sp->method == METHOD_PCG) && !dev)
		block_plan(p);
	p->c.step = (float)step;
	memcpy(p->prev, p->x, bytes);
	memcpy(p->good, p->x, bytes);
	if ((dev && dev->put(dev->s, p->x, why, sizeof why)) ||
	    backend_check(p, dev, &good, why, sizeof why))
		goto failed;
	converge_init(&res->conv, sp->tolerance, good.energy, good.residual);
	emit(listen, arg, 0, sp->iterations, &good, step, t0, 1, &res->conv);
	if (!isfinite(good.energy)) {
		finish(res, 0, &good, step, t0, &pcg);
		return error_set(e, "the energy at the starting point is not "
				 "finite");
	}
	for (it = 1; it <= sp->iterations; it++) {
		if (method_has_radius(sp->method))
			omega = cheb_omega(kc, sp->cheb_delay, (float)rho.rho,
					   omega);
		if (backend_step(p, sp, dev, &pcg, kc, it, omega, why, sizeof why))
			goto failed;
		kc++;
		if (it % sp->check_every && it < sp->iterations)
			continue;
		if (backend_check(p, dev, &k, why, sizeof why))
			goto failed;
		/* a filter: an iterate is accepted when its energy is no
		 * higher or, while --safe is still taking the cloth out of
		 * the body, when it is less far behind the half-planes */
		int ok = isfinite(k.energy) &&
			 (k.energy <= good.energy + good.noise + k.noise ||
			  k.violation < good.violation);
		/* no stop while the cloth is still coming out of the body
		 * (the violation falling by more than a thousandth a check);
		 * once the bounds hold it where it is, the energy decides */
		int falling = k.violation < good.violation * (1 - 1e-3);
		int met = ok && converge_update(&res->conv, &k) && !falling;
		emit(listen, arg, it, sp->iterations, &k, step, t0, ok,
		     &res->conv);
		if (ok) {
			if (backend_keep(p, dev, why, sizeof why))
				goto failed;
			good = k;
			if (met)
				break;
			/* --rho auto: a new estimate restarts the sequence */
			if (chebyshev_auto && rho_update(&rho, res->conv.d,
					k.noise, kc, sp->cheb_delay,
					sp->check_every)) {
				kc = sp->cheb_delay;
				omega = 1.0f;
				res->rho = rho.rho;
			}
			continue;
		}
		if (backend_restore(p, dev, why, sizeof why))
			goto failed;
		/* --rho auto: the radius falls instead of the step, where
		 * there is a radius (the restored iterate is also the
		 * previous one, so the sequence restarts with a plain step) */
		if (chebyshev_auto && rho_rose(&rho)) {
			kc = sp->cheb_delay > 0 ? sp->cheb_delay - 1 : 0;
			omega = 1.0f;
			res->rho = rho.rho;
			res->rho_falls++;
			continue;
		}
		step *= 0.5;
		p->c.step = (float)step;
		kc = 0;
		omega = 1.0f;
		res->halvings++;
		if (step < sp->step_floor) {
			if (dev && dev->get(dev->s, p->x, why, sizeof why))
				goto failed;
			finish(res, it, &good, step, t0, &pcg);
			return error_set(e, "the energy keeps rising: the step "
					 "fell below %g at iteration %d", sp->step_floor,
					 it);
		}
	}
	if (dev && dev->get(dev->s, p->x, why, sizeof why))
		goto failed;
	if (it <= sp->iterations)
		res->stop = STOP_TOLERANCE;
	finish(res, it <= sp->iterations ? it : sp->iterations, &good, step,
	       t0, &pcg);
	return 0;
failed:
	finish(res, 0, &good, step, t0, &pcg);
	return error_set(e, "%s", why);
}

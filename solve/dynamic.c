/* dynamic.c - pleat-solve's dynamic mode (--dynamic, Wang 2021 Eq. 19)
 * and gravity (--gravity), and pinning (--pin).
 *
 * A dynamic run is one implicit Euler step: the grid brings x_t (its x
 * channel, or rest on a first frame) and x_{t-dt} (its xprev channel, or
 * x_t: at rest), the solver minimises the objective of common/dynamic.h
 * from xhat = 2 x_t - x_{t-dt}, and the grid leaves with x = x_{t+dt} and
 * xprev = x_t, ready for the next step.  The per-vertex arithmetic is in
 * common/dynamic.h; this file owns the state, the grid's channels, the
 * energy account of a step and the option values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve.h"
#include "util.h"

int dynamic_wanted(const struct solve_params *sp)
{
	return sp->dynamic || sp->gravity[0] != 0 || sp->gravity[1] != 0 ||
	       sp->gravity[2] != 0;
}

/* The grid's xprev channel: f32 x 3 and finite, or NULL with e set. */
static const float *xprev_channel(const struct grid *g, struct error *e)
{
	const struct grid_channel *c = grid_find(g, "xprev");
	if (c->type != GRID_F32 || c->comps != 3) {
		error_set(e, "its 'xprev' channel is %s x %d, not f32 x 3",
			  grid_type_name(c->type), c->comps);
		return NULL;
	}
	if (!grid_find(g, "x")) {
		error_set(e, "has an 'xprev' channel but no 'x': a step needs "
			  "the positions at both earlier times");
		return NULL;
	}
	const float *v = c->data;
	for (size_t k = 0; k < 3 * grid_vertices(g); k++)
		if (!isfinite(v[k])) {
			size_t at = k / 3;
			error_set(e, "'xprev' is not finite (%g) at vertex (%zu, "
				  "%zu)", (double)v[k], at % (size_t)g->width,
				  at / (size_t)g->width);
			return NULL;
		}
	return v;
}

/* The moving vertices of out at xhat + a dt² g, the others at x_t. */
static void coast(const struct problem *p, const double gravity[3], double a,
		  float *out)
{
	const struct dynamic *dyn = p->dyn;
	double fall = a * dyn->dt * dyn->dt;
	for (size_t v = 0; v < p->n; v++)
		for (int k = 0; k < 3; k++)
			out[3 * v + k] = p->mov[v] ?
				(float)(dyn->xhat[3 * v + k] + fall * gravity[k]) :
				dyn->xt[3 * v + k];
}

/* Where the descent starts: xhat + a dt² g, a in {0, 1/4, ..., 1} the
 * lowest objective.  The diagonal preconditioner is the stiffness,
 * thousands of times m/dt², so the descent takes many iterations to find
 * a motion of the whole cloth: from a = 1 (a step of free fall) it only
 * has to find what the cloth's forces change of a falling cloth, from
 * a = 0 (coasting) what they change of a hanging one; in between for a
 * cloth partly held. */
static void choose_start(struct problem *p, const double gravity[3])
{
	struct check k;
	double best = INFINITY;
	for (int s = 0; s <= 4; s++) {
		coast(p, gravity, s / 4.0, p->next);
		problem_check(p, p->next, &k);
		if (k.energy < best) {
			best = k.energy;
			memcpy(p->x, p->next, p->n * 3 * sizeof(float));
		}
	}
}

/* x_t and xhat from p->x and the grid, and the start of the descent. */
static int start_step(struct problem *p, const struct grid *g,
		      const double gravity[3], struct error *e)
{
	struct dynamic *dyn = p->dyn;
	size_t bytes = p->n * 3 * sizeof(float);
	const float *xprev = p->x;
	if (grid_find(g, "xprev") && !(xprev = xprev_channel(g, e)))
		return -1;
	dyn->xt = big_alloc(bytes);
	dyn->xhat = big_alloc(bytes);
	if (!dyn->xt || !dyn->xhat)
		return error_set(e, "out of memory for %zu vertices", p->n);
	memcpy(dyn->xt, p->x, bytes);
	for (size_t k = 0; k < 3 * p->n; k++)
		dyn->xhat[k] = (float)(2.0 * dyn->xt[k] - (double)xprev[k]);
	problem_terms(p);
	choose_start(p, gravity);
	return 0;
}

int dynamic_init(struct problem *p, const struct grid *g,
		 const struct solve_params *sp, double mass, struct error *e)
{
	p->dyn = NULL;
	if (!dynamic_wanted(sp))
		return 0;
	struct dynamic *dyn = xmalloc(sizeof *dyn);
	memset(dyn, 0, sizeof *dyn);
	p->dyn = dyn;
	dyn->mass = mass;
	dyn->dt = sp->dynamic ? sp->dt : 0;
	dyn->cd.inertia = sp->dynamic ? mass / (sp->dt * sp->dt) : 0;
	for (int k = 0; k < 3; k++)
		dyn->cd.weight[k] = mass * sp->gravity[k];
	dyn->c.inertia = (float)dyn->cd.inertia;
	dyn->c.weight = v3((float)dyn->cd.weight[0], (float)dyn->cd.weight[1],
			   (float)dyn->cd.weight[2]);
	return sp->dynamic ? start_step(p, g, sp->gravity, e) : 0;
}

void dynamic_free(struct dynamic *dyn)
{
	if (!dyn)
		return;
	free(dyn->xt);
	free(dyn->xhat);
	free(dyn);
}

int dynamic_store(const struct problem *p, struct grid *g, struct error *e)
{
	if (!p->dyn || !p->dyn->xt)
		return 0;
	struct grid_channel *c = grid_add(g, "xprev", GRID_F32, 3, e);
	if (!c)
		return -1;
	memcpy(c->data, p->dyn->xt, p->n * 3 * sizeof(float));
	return 0;
}

void dynamic_energy(const struct problem *p, const struct check *k,
		    struct dynamic_energy *en)
{
	const struct dynamic *dyn = p->dyn;
	double kinetic = 0, gravity = 0, inertia = 0;
	for (size_t v = 0; v < p->n; v++) {
		if (!p->mov[v])
			continue;
		const float *x = p->x + 3 * v;
		gravity += dynamic_gravity_energy(&dyn->cd, x);
		if (!dyn->xt)
			continue;
		inertia += dynamic_inertia_energy(&dyn->cd, x, dyn->xhat + 3 * v);
		for (int c = 0; c < 3; c++) {
			double vel = ((double)x[c] - dyn->xt[3 * v + c]) / dyn->dt;
			kinetic += 0.5 * dyn->mass * vel * vel;
		}
	}
	en->kinetic = kinetic;
	en->gravity = gravity;
	en->internal = k->energy - inertia - gravity;
	en->total = kinetic + gravity + en->internal;
}

void dynamic_report(const struct problem *p, const struct check *k,
		    FILE *stats, const char *name, int grid, int quiet)
{
	struct dynamic_energy en;
	dynamic_energy(p, k, &en);
	if (stats)
		fprintf(stats, "{\"grid\": %d, \"dt\": %.9g, \"kinetic\": %.17g, "
			"\"gravity\": %.17g, \"internal\": %.17g, \"total\": "
			"%.17g}\n", grid, p->dyn->dt, en.kinetic, en.gravity,
			en.internal, en.total);
	if (!quiet)
		fprintf(stderr, "%s: %s: grid %d: step of %g s: kinetic %.9g J, "
			"gravity %.9g J, internal %.9g J, total %.9g J\n",
			progname, name, grid, p->dyn->dt, en.kinetic, en.gravity,
			en.internal, en.total);
}

/* A vertex that can be pinned: cloth, not ghost. */
static int is_cloth(uint8_t m)
{
	return (m & MASK_INSIDE) && !(m & MASK_GHOST);
}

/* The pattern-space distance from vertex v to the pin's point. */
static double pin_distance(const struct grid *g, size_t v,
			   const struct pin *pin)
{
	double du = g->origin[0] + g->cell * (double)(v % (size_t)g->width) - pin->u;
	double dv = g->origin[1] + g->cell * (double)(v / (size_t)g->width) - pin->v;
	return sqrt(du * du + dv * dv);
}

/* Pins the cloth vertices within r of the pin's point; how many. */
static size_t pin_within(const struct grid *g, uint8_t *mask,
			 const struct pin *pin, double r)
{
	size_t count = 0;
	for (size_t v = 0; v < grid_vertices(g); v++)
		if (is_cloth(mask[v]) && pin_distance(g, v, pin) <= r) {
			mask[v] |= MASK_FIXED;
			count++;
		}
	return count;
}

/* The distance from the pin's point to the nearest cloth vertex. */
static double nearest_cloth(const struct grid *g, const uint8_t *mask,
			    const struct pin *pin)
{
	double best = INFINITY;
	for (size_t v = 0; v < grid_vertices(g); v++)
		if (is_cloth(mask[v]))
			best = fmin(best, pin_distance(g, v, pin));
	return best;
}

int pins_apply(struct grid *g, const struct pin *pins, int npins,
	       struct error *e)
{
	struct grid_channel *c = grid_find_typed(g, "mask", GRID_U8, 1);
	if (!c)
		return 0;
	for (int k = 0; k < npins; k++) {
		const struct pin *pin = &pins[k];
		double r = pin->radius;
		if (r == 0) {
			/* the nearest vertex, and any as near (a tie) */
			r = nearest_cloth(g, c->data, pin);
			if (!(r <= 2 * g->cell))
				return error_set(e, "--pin %g,%g: no cloth vertex "
						 "within two cells (%g m) of it",
						 pin->u, pin->v, 2 * g->cell);
			r *= 1 + 1e-9;
		}
		if (pin_within(g, c->data, pin, r) == 0)
			return error_set(e, "--pin %g,%g,%g: no cloth vertex "
					 "within %g m of it", pin->u, pin->v,
					 pin->radius, pin->radius);
	}
	return 0;
}

/* Up to max comma-separated finite numbers; how many, or -1. */
static int parse_list(const char *s, double *out, int max)
{
	int n = 0;
	for (;;) {
		char *end;
		if (n == max)
			return -1;
		out[n] = strtod(s, &end);
		if (end == s || !isfinite(out[n]))
			return -1;
		n++;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

void parse_gravity(const char *s, double g[3])
{
	if (parse_list(s, g, 3) != 3)
		usage_fail("--gravity: '%s' is not three numbers gx,gy,gz "
			   "(m/s2)", s);
}

void parse_pin(const char *s, struct pin *pin)
{
	double v[3] = {0, 0, 0};
	int n = parse_list(s, v, 3);
	if (n < 2 || v[2] < 0)
		usage_fail("--pin: '%s' is not u,v or u,v,radius (metres, "
			   "radius >= 0)", s);
	pin->u = v[0];
	pin->v = v[1];
	pin->radius = v[2];
}

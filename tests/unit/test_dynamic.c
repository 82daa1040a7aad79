/* test_dynamic - checks and measurements for tests/dynamic.bats.
 *
 *   test_dynamic fd   the momentum and gravity terms of common/dynamic.h:
 *        their gradient against central differences of their energy, in
 *        double from float positions, at random points and constants;
 *        and the Hessian's diagonal against differences of the gradient:
 *        "worst R" (the larger relative error)
 *   test_dynamic centre FILE   for each grid of FILE, a line with the z of
 *        x at the cloth's centre vertex (the middle of the bounding box of
 *        the cloth vertices)
 *   test_dynamic drop FILE   for the first grid of FILE, over its cloth
 *        vertices, the range of each component of x - rest:
 *        "dx LO HI dy LO HI dz LO HI"
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic.h"
#include "grid.h"
#include "util.h"
#include "rng.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static double urand(void)  /* uniform in [-1, 1) */
{
	return urand_xorshift(&rng_state);
}

static double energy(const struct dynamic_coef_d *cd, const float *x,
		     const float *xhat)
{
	return dynamic_inertia_energy(cd, x, xhat) +
	       dynamic_gravity_energy(cd, x);
}

static double component(vec3 v, int k)
{
	return k == 0 ? v.x : k == 1 ? v.y : v.z;
}

/* One random point: the worst relative error of the gradient (against
 * central differences of the energy) and of the diagonal (against
 * differences of the gradient). */
static double fd_point(void)
{
	struct dynamic_coef c;
	struct dynamic_coef_d cd;
	float x[3], xhat[3];
	/* a vertex of 1e-5 to 1e-3 kg, dt from 1e-3 to 0.1 s */
	double mass = pow(10, -4 + urand()), dt = pow(10, -2 + urand());
	cd.inertia = mass / (dt * dt);
	for (int k = 0; k < 3; k++) {
		cd.weight[k] = mass * 10 * urand();
		x[k] = (float)urand();
		xhat[k] = (float)(x[k] + 0.01 * urand());
	}
	c.inertia = (float)cd.inertia;
	c.weight = v3((float)cd.weight[0], (float)cd.weight[1],
		      (float)cd.weight[2]);
	vec3 g = v3(0, 0, 0);
	float d = 0;
	dynamic_vertex_grad(&c, x, xhat, &g, &d);
	double worst = fabs(d - cd.inertia) / cd.inertia;
	for (int k = 0; k < 3; k++) {
		/* float positions: a step of 1e-3 is resolved to ~1e-7 */
		float h = 1e-3f, keep = x[k];
		x[k] = keep + h;
		double ep = energy(&cd, x, xhat);
		vec3 gp = v3(0, 0, 0);
		float dp = 0;
		dynamic_vertex_grad(&c, x, xhat, &gp, &dp);
		x[k] = keep - h;
		double em = energy(&cd, x, xhat);
		vec3 gm = v3(0, 0, 0);
		float dm = 0;
		dynamic_vertex_grad(&c, x, xhat, &gm, &dm);
		double step = (double)(keep + h) - (double)(keep - h);
		x[k] = keep;
		double fd = (ep - em) / step;
		double scale = fabs(cd.inertia) * 0.01 + fabs(cd.weight[k]);
		worst = fmax(worst, fabs(component(g, k) - fd) / scale);
		double hess = (component(gp, k) - component(gm, k)) / step;
		worst = fmax(worst, fabs(hess - d) / d);
	}
	return worst;
}

static int fd(void)
{
	double worst = 0;
	for (int t = 0; t < 1000; t++)
		worst = fmax(worst, fd_point());
	printf("worst %.3g\n", worst);
	return 0;
}

static const void *channel(const struct grid *g, const char *name,
			   enum grid_type t, int comps)
{
	const struct grid_channel *c = grid_find_typed(g, name, t, comps);
	if (!c)
		die("no %s channel (%s x %d)", name, grid_type_name(t), comps);
	return c->data;
}

/* The cloth vertex nearest the middle of the cloth's bounding box. */
static size_t centre_vertex(const struct grid *g, const uint8_t *mask)
{
	int ilo = g->width, ihi = -1, jlo = g->height, jhi = -1;
	for (size_t v = 0; v < grid_vertices(g); v++)
		if (mask[v] & MASK_INSIDE) {
			int i = (int)(v % (size_t)g->width);
			int j = (int)(v / (size_t)g->width);
			ilo = i < ilo ? i : ilo;
			ihi = i > ihi ? i : ihi;
			jlo = j < jlo ? j : jlo;
			jhi = j > jhi ? j : jhi;
		}
	if (ihi < 0)
		die("no cloth vertex");
	return (size_t)((jlo + jhi) / 2) * (size_t)g->width +
	       (size_t)((ilo + ihi) / 2);
}

static int centre(const char *path)
{
	struct grid g;
	struct error e;
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot open %s", path);
	struct grid_reader r = {.f = f, .name = path};
	int res;
	while ((res = grid_read(&r, &g, &e)) == 1) {
		const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
		const float *x = channel(&g, "x", GRID_F32, 3);
		printf("%.9g\n", x[3 * centre_vertex(&g, mask) + 2]);
		grid_free(&g);
	}
	fclose(f);
	if (res < 0)
		die("%s", e.msg);
	return 0;
}

static int drop(const char *path)
{
	struct grid g;
	struct error e;
	if (grid_load(path, &g, &e))
		die("%s", e.msg);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const float *x = channel(&g, "x", GRID_F32, 3);
	const float *rest = channel(&g, "rest", GRID_F32, 3);
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t v = 0; v < grid_vertices(&g); v++)
		for (int k = 0; (mask[v] & MASK_INSIDE) && k < 3; k++) {
			double d = (double)x[3 * v + k] - rest[3 * v + k];
			lo[k] = fmin(lo[k], d);
			hi[k] = fmax(hi[k], d);
		}
	printf("dx %.9g %.9g dy %.9g %.9g dz %.9g %.9g\n", lo[0], hi[0], lo[1],
	       hi[1], lo[2], hi[2]);
	grid_free(&g);
	return 0;
}

int main(int argc, char **argv)
{
	progname = "test_dynamic";
	if (argc == 2 && strcmp(argv[1], "fd") == 0)
		return fd();
	if (argc == 3 && strcmp(argv[1], "centre") == 0)
		return centre(argv[2]);
	if (argc == 3 && strcmp(argv[1], "drop") == 0)
		return drop(argv[2]);
	fprintf(stderr, "usage: test_dynamic fd | centre FILE | drop FILE\n");
	return 2;
}

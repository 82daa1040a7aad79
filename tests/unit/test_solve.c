/* test_solve - independent inputs and measurements for tests/solve.bats.
 *
 *   test_solve compress IN OUT S PERTURB   the first grid of IN with rest
 *        and x scaled by S along the first axis about the cloth's centre,
 *        x lifted by a deterministic random PERTURB (metres, uniform in
 *        [-PERTURB, PERTURB]) along the third, and the cloth vertices of
 *        the first and last cloth columns pinned (MASK_FIXED)
 *   test_solve measure FILE   for each grid: the largest |x - rest| and
 *        |z| over the cloth, and the sign changes of z along the cloth's
 *        middle row: "disp D maxz Z signs N length L wave W" (L the
 *        row's span in x, W the mean distance between every other zero
 *        crossing of z, metres)
 *   test_solve set FILE CHANNEL VALUE   the first grid of FILE with the
 *        first component of CHANNEL (f32) set to VALUE (nan, inf or a
 *        number) at its middle vertex, or, with CHANNEL mask, every mask
 *        value set to VALUE; written to standard output
 *   test_solve seamgap FILE CHANNEL   for the first grid of FILE, over
 *        its seam vertices: the distance from the vertex to the nearest
 *        cloth vertex of another panel, by brute force, in CHANNEL (x or
 *        rest): "max D mean M count N"
 *   test_solve shift FILE PANEL DZ   the first grid of FILE with x = rest,
 *        the vertices of panel PANEL moved by DZ metres along the third
 *        axis; written to standard output
 *   test_solve xdiff A B   over the cloth vertices of the first grids of
 *        A and B: the largest |x_A - x_B| and the largest |x_A - rest|
 *        (the scale of the solve's motion): "diff D motion M"; exit
 *        status 1 when a position of either is not finite
 *   test_solve ulps A B   the largest difference of the x of A and B over
 *        the cloth vertices, in units of the last place at each vertex's
 *        largest coordinate in A: "ulps U"; exit status 1 when a position
 *        is not finite
 *   test_solve wrinkles FILE   the wrinkles of the first grid of FILE
 *        against its coarse surface: over the cloth vertices with all four
 *        grid neighbours in their panel, d = (x - rest) . n, n the unit
 *        normal of rest there by central differences; prints the root
 *        mean square of d and of d less its mean over the vertex's 8 x 8
 *        block of the grid, the mean of d, and the count: "rms R local L
 *        mean M count N" (metres)
 *   test_solve drift FILE   the low frequencies of the solve: for each
 *        panel of the first grid of FILE the mean of x - rest over its
 *        cloth vertices, and the same over each 8 x 8 vertex block of a
 *        panel (the coarse shape's scale); prints the largest norms:
 *        "drift D local L"
 *   test_solve seamfd FILE K BEND   the seam energy's gradient (springs
 *        of stiffness K, bending of weight BEND) against central
 *        differences at the x of the first grid of FILE, in every
 *        coordinate of 40 touched vertices: "worst R bends N" (relative
 *        error, bending terms)
 *   test_solve blockref FILE [spring]   one outer iteration of the
 *        block method (solve/block.c, default parameters; FEM or the
 *        spring model) from the x of the first grid of FILE, against a
 *        plain per-vertex reference written here: "differ D of N
 *        vector-rows R ulps U motion M" (D coordinates not bit-identical,
 *        R interior rows that block.c runs as vector loops, U the worst
 *        difference in units of the last place, M the largest move)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "util.h"
#include "../../solve/solve.h"
#include "unit.h"
#include "rng.h"

/* A fresh x channel (any old one removed), uninitialised. */
static float *new_x(struct grid *g)
{
	struct error e;
	grid_remove(g, "x");
	struct grid_channel *xc = grid_add(g, "x", GRID_F32, 3, &e);
	if (!xc) {
		fprintf(stderr, "%s\n", e.msg);
		exit(1);
	}
	return xc->data;
}

static void save(const struct grid *g, const char *path)
{
	struct error e;
	FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	if (!f || grid_write(g, f, path, &e) || (f != stdout && fclose(f))) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void)  /* uniform in [-1, 1) */
{
	return urand_xorshift(&rng_state);
}

static int compress(const char *in, const char *out, double s, double pert)
{
	struct grid g;
	load(in, &g);
	uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	float *rest = channel(&g, "rest", GRID_F32, 3);
	float *x = new_x(&g);
	size_t n = grid_vertices(&g);
	int lo = g.width, hi = -1;
	double xmin = INFINITY, xmax = -INFINITY;
	for (size_t v = 0; v < n; v++)
		if (mask[v] & MASK_INSIDE) {
			int i = (int)(v % (size_t)g.width);
			lo = i < lo ? i : lo;
			hi = i > hi ? i : hi;
			xmin = fmin(xmin, rest[3 * v]);
			xmax = fmax(xmax, rest[3 * v]);
		}
	double mid = 0.5 * (xmin + xmax);
	for (size_t v = 0; v < n; v++) {
		int i = (int)(v % (size_t)g.width);
		rest[3 * v] = (float)(mid + s * (rest[3 * v] - mid));
		x[3 * v] = rest[3 * v];
		x[3 * v + 1] = rest[3 * v + 1];
		x[3 * v + 2] = rest[3 * v + 2];
		if (!(mask[v] & MASK_INSIDE))
			continue;
		x[3 * v + 2] += (float)(pert * urand());
		if (i == lo || i == hi)
			mask[v] |= MASK_FIXED;
	}
	save(&g, out);
	grid_free(&g);
	return 0;
}

static void measure_grid(const struct grid *g)
{
	const uint8_t *mask = channel(g, "mask", GRID_U8, 1);
	const float *rest = channel(g, "rest", GRID_F32, 3);
	const float *x = channel(g, "x", GRID_F32, 3);
	size_t n = grid_vertices(g);
	double disp = 0, maxz = 0;
	int jlo = g->height, jhi = -1;
	for (size_t v = 0; v < n; v++) {
		if (!(mask[v] & MASK_INSIDE))
			continue;
		double d2 = 0;
		for (int k = 0; k < 3; k++)
			d2 += pow((double)x[3 * v + k] - rest[3 * v + k], 2);
		disp = fmax(disp, sqrt(d2));
		maxz = fmax(maxz, fabs(x[3 * v + 2]));
		int j = (int)(v / (size_t)g->width);
		jlo = j < jlo ? j : jlo;
		jhi = j > jhi ? j : jhi;
	}
	/* the middle row: sign changes of z, ignoring exact zeros, and where
	 * z crosses 0 (linear interpolation between the two vertices) */
	int j = (jlo + jhi) / 2, signs = 0, last = 0;
	double x0 = INFINITY, x1 = -INFINITY, first = NAN, cross = NAN;
	const float *prev = NULL;
	for (int i = 0; i < g->width; i++) {
		size_t v = (size_t)j * (size_t)g->width + (size_t)i;
		if (!(mask[v] & MASK_INSIDE))
			continue;
		const float *p = x + 3 * v;
		x0 = fmin(x0, p[0]);
		x1 = fmax(x1, p[0]);
		int s = p[2] > 0 ? 1 : p[2] < 0 ? -1 : 0;
		if (s && last && s != last) {
			signs++;
			double t = prev[2] / ((double)prev[2] - p[2]);
			cross = prev[0] + t * ((double)p[0] - prev[0]);
			if (signs == 1)
				first = cross;
		}
		if (s) {
			last = s;
			prev = p;
		}
	}
	/* the wavelength: two half waves per pair of crossings */
	double wave = signs > 1 ? 2 * (cross - first) / (signs - 1) : NAN;
	printf("disp %.9g maxz %.9g signs %d length %.9g wave %.9g\n", disp,
	       maxz, signs, x1 - x0, wave);
}

static int measure(const char *path)
{
	struct grid g;
	struct error e;
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	struct grid_reader r = {.f = f, .name = path};
	int res;
	while ((res = grid_read(&r, &g, &e)) == 1) {
		measure_grid(&g);
		grid_free(&g);
	}
	fclose(f);
	if (res < 0)
		fprintf(stderr, "%s\n", e.msg);
	return res < 0;
}

static int set(const char *path, const char *name, const char *value)
{
	struct grid g;
	load(path, &g);
	double val = strtod(value, NULL);
	size_t n = grid_vertices(&g);
	if (strcmp(name, "mask") == 0) {
		memset(channel(&g, "mask", GRID_U8, 1), (int)val, n);
	} else {
		struct grid_channel *c = grid_find(&g, name);
		if (!c || c->type != GRID_F32) {
			fprintf(stderr, "no f32 channel %s\n", name);
			return 1;
		}
		size_t mid = (size_t)(g.height / 2) * (size_t)g.width +
			     (size_t)(g.width / 2);
		((float *)c->data)[mid * (size_t)c->comps] = (float)val;
	}
	save(&g, "-");
	grid_free(&g);
	return 0;
}

static int seamgap(const char *path, const char *name)
{
	struct grid g;
	load(path, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const uint16_t *panel = channel(&g, "panel", GRID_U16, 1);
	const float *x = channel(&g, name, GRID_F32, 3);
	size_t n = grid_vertices(&g), count = 0;
	double max = 0, sum = 0;
	for (size_t v = 0; v < n; v++) {
		if (!(mask[v] & MASK_SEAM))
			continue;
		double best = INFINITY;
		for (size_t u = 0; u < n; u++) {
			if ((mask[u] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE ||
			    panel[u] == panel[v])
				continue;
			double d = 0;
			for (int k = 0; k < 3; k++)
				d += (x[3 * u + k] - x[3 * v + k]) *
				     (double)(x[3 * u + k] - x[3 * v + k]);
			best = fmin(best, sqrt(d));
		}
		max = fmax(max, best);
		sum += best;
		count++;
	}
	printf("max %.9g mean %.9g count %zu\n", max,
	       count ? sum / (double)count : 0.0, count);
	grid_free(&g);
	return 0;
}

static int shift(const char *path, int which, double dz)
{
	struct grid g;
	load(path, &g);
	const uint16_t *panel = channel(&g, "panel", GRID_U16, 1);
	const float *rest = channel(&g, "rest", GRID_F32, 3);
	float *x = new_x(&g);
	size_t n = grid_vertices(&g);
	for (size_t v = 0; v < n; v++) {
		memcpy(x + 3 * v, rest + 3 * v, 3 * sizeof(float));
		if (panel[v] == which)
			x[3 * v + 2] += (float)dz;
	}
	save(&g, "-");
	grid_free(&g);
	return 0;
}

/* The first grids of A and B, which must be of one size. */
static int load_pair(const char *pa, const char *pb, struct grid *a,
		     struct grid *b)
{
	load(pa, a);
	load(pb, b);
	if (a->width == b->width && a->height == b->height)
		return 0;
	fprintf(stderr, "the grids differ in size\n");
	return 1;
}

static int xdiff(const char *pa, const char *pb)
{
	struct grid a, b;
	if (load_pair(pa, pb, &a, &b))
		return 1;
	const uint8_t *mask = channel(&a, "mask", GRID_U8, 1);
	const float *rest = channel(&a, "rest", GRID_F32, 3);
	const float *xa = channel(&a, "x", GRID_F32, 3);
	const float *xb = channel(&b, "x", GRID_F32, 3);
	double diff = 0, motion = 0;
	size_t nonfinite = 0;
	for (size_t v = 0; v < grid_vertices(&a); v++) {
		if (!(mask[v] & MASK_INSIDE))
			continue;
		double d2 = 0, m2 = 0;
		for (int k = 0; k < 3; k++) {
			double d = (double)xa[3 * v + k] - xb[3 * v + k];
			double m = (double)xa[3 * v + k] - rest[3 * v + k];
			d2 += d * d;
			m2 += m * m;
		}
		/* fmax drops a NaN: count them instead */
		if (!isfinite(d2) || !isfinite(m2))
			nonfinite++;
		else {
			diff = fmax(diff, sqrt(d2));
			motion = fmax(motion, sqrt(m2));
		}
	}
	grid_free(&a);
	grid_free(&b);
	if (nonfinite) {
		printf("diff nan motion nan\n");
		fprintf(stderr, "%zu cloth vertices are not finite\n", nonfinite);
		return 1;
	}
	printf("diff %.9g motion %.9g\n", diff, motion);
	return 0;
}

/* The largest difference between the x of the first grids of A and B
 * over the cloth vertices, in units of the last place: a vertex's
 * difference over the spacing of floats at its largest coordinate in A
 * (2^-23 times it: a float of that size is within a factor of 2 of its
 * spacing). */
static int ulps(const char *pa, const char *pb)
{
	struct grid a, b;
	if (load_pair(pa, pb, &a, &b))
		return 1;
	const uint8_t *mask = channel(&a, "mask", GRID_U8, 1);
	const float *xa = channel(&a, "x", GRID_F32, 3);
	const float *xb = channel(&b, "x", GRID_F32, 3);
	double worst = 0;
	size_t bad = 0;
	for (size_t v = 0; v < grid_vertices(&a); v++) {
		if (!(mask[v] & MASK_INSIDE))
			continue;
		double scale = 0, d = 0;
		for (int k = 0; k < 3; k++) {
			scale = fmax(scale, fabs(xa[3 * v + k]));
			d = fmax(d, fabs((double)xa[3 * v + k] - xb[3 * v + k]));
			bad += !isfinite(xa[3 * v + k]) || !isfinite(xb[3 * v + k]);
		}
		if (scale > 0)
			worst = fmax(worst, d / (scale * 0x1p-23));
	}
	grid_free(&a);
	grid_free(&b);
	if (bad) {
		printf("ulps nan\n");
		fprintf(stderr, "%zu coordinates are not finite\n", bad);
		return 1;
	}
	printf("ulps %.3f\n", worst);
	return 0;
}

/* A solved grid and the channels the measurements read. */
struct solved {
	struct grid g;
	const uint8_t *mask;
	const uint16_t *panel;
	const float *rest, *x;
};

static void load_solved(const char *path, struct solved *s)
{
	load(path, &s->g);
	s->mask = channel(&s->g, "mask", GRID_U8, 1);
	s->panel = channel(&s->g, "panel", GRID_U16, 1);
	s->rest = channel(&s->g, "rest", GRID_F32, 3);
	s->x = channel(&s->g, "x", GRID_F32, 3);
}

static int drift(const char *path)
{
	struct solved sg;
	load_solved(path, &sg);
	double sum[64][3] = {{0}}, count[64] = {0}, worst = 0;
	for (size_t v = 0; v < grid_vertices(&sg.g); v++) {
		if ((sg.mask[v] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE ||
		    sg.panel[v] >= 64)
			continue;
		for (int k = 0; k < 3; k++)
			sum[sg.panel[v]][k] += (double)sg.x[3 * v + k] - sg.rest[3 * v + k];
		count[sg.panel[v]]++;
	}
	for (int p = 0; p < 64; p++)
		if (count[p] > 0)
			worst = fmax(worst, sqrt(pow(sum[p][0], 2) + pow(sum[p][1], 2) +
						 pow(sum[p][2], 2)) / count[p]);
	double local = 0;
	for (int bj = 0; bj < sg.g.height; bj += 8)
		for (int bi = 0; bi < sg.g.width; bi += 8)
			for (int p = 0; p < 64; p++) {
				double s[3] = {0, 0, 0}, c = 0;
				for (int j = bj; j < bj + 8 && j < sg.g.height; j++)
					for (int i = bi; i < bi + 8 && i < sg.g.width; i++) {
						size_t v = (size_t)j * (size_t)sg.g.width + (size_t)i;
						if ((sg.mask[v] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE ||
						    sg.panel[v] != p)
							continue;
						for (int k = 0; k < 3; k++)
							s[k] += (double)sg.x[3 * v + k] - sg.rest[3 * v + k];
						c++;
					}
				if (c > 0)
					local = fmax(local, sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) / c);
			}
	printf("drift %.9g local %.9g\n", worst, local);
	grid_free(&sg.g);
	return 0;
}

/* The unit normal of the coarse surface (rest) at cloth vertex (i, j) by
 * central differences along the grid; 0 when a neighbour is missing. */
static int rest_normal(const struct solved *s, int i, int j, double n[3])
{
	const uint8_t *mask = s->mask;
	const float *rest = s->rest;
	size_t w = (size_t)s->g.width, v = (size_t)j * w + (size_t)i;
	if (i < 1 || j < 1 || i + 1 >= s->g.width || j + 1 >= s->g.height)
		return 0;
	size_t nb[4] = {v - 1, v + 1, v - w, v + w};
	for (int k = 0; k < 4; k++)
		if ((mask[nb[k]] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE ||
		    s->panel[nb[k]] != s->panel[v])
			return 0;
	double du[3], dv[3];
	for (int k = 0; k < 3; k++) {
		du[k] = (double)rest[3 * nb[1] + k] - rest[3 * nb[0] + k];
		dv[k] = (double)rest[3 * nb[3] + k] - rest[3 * nb[2] + k];
	}
	n[0] = du[1] * dv[2] - du[2] * dv[1];
	n[1] = du[2] * dv[0] - du[0] * dv[2];
	n[2] = du[0] * dv[1] - du[1] * dv[0];
	double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	if (!(len > 0))
		return 0;
	for (int k = 0; k < 3; k++)
		n[k] /= len;
	return 1;
}

static int wrinkles(const char *path)
{
	struct solved sg;
	load_solved(path, &sg);
	size_t nv = grid_vertices(&sg.g);
	double *d = malloc(nv * sizeof *d);
	char *has = calloc(nv, 1);
	if (!d || !has) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	double sum = 0, sum2 = 0;
	long count = 0;
	for (int j = 0; j < sg.g.height; j++)
		for (int i = 0; i < sg.g.width; i++) {
			size_t v = (size_t)j * (size_t)sg.g.width + (size_t)i;
			double n[3];
			if ((sg.mask[v] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE ||
			    !rest_normal(&sg, i, j, n))
				continue;
			d[v] = 0;
			for (int k = 0; k < 3; k++)
				d[v] += ((double)sg.x[3 * v + k] - sg.rest[3 * v + k]) * n[k];
			has[v] = 1;
			sum += d[v];
			sum2 += d[v] * d[v];
			count++;
		}
	/* less each 8 x 8 block's mean: what is left is the wrinkles, not a
	 * panel standing off its coarse surface */
	double local2 = 0;
	for (int bj = 0; bj < sg.g.height; bj += 8)
		for (int bi = 0; bi < sg.g.width; bi += 8) {
			double s = 0, s2 = 0;
			long c = 0;
			for (int j = bj; j < bj + 8 && j < sg.g.height; j++)
				for (int i = bi; i < bi + 8 && i < sg.g.width; i++) {
					size_t v = (size_t)j * (size_t)sg.g.width + (size_t)i;
					if (has[v]) {
						s += d[v];
						s2 += d[v] * d[v];
						c++;
					}
				}
			if (c > 0)
				local2 += s2 - s * s / c;
		}
	if (count > 0)
		printf("rms %.9g local %.9g mean %.9g count %ld\n",
		       sqrt(sum2 / count), sqrt(local2 / count), sum / count, count);
	else
		printf("rms nan local nan mean nan count 0\n");
	free(d);
	free(has);
	grid_free(&sg.g);
	return 0;
}

static int seamfd(const char *path, double stiffness, double bend)
{
	struct grid g;
	struct seams s;
	struct error e;
	load(path, &g);
	float *x = channel(&g, "x", GRID_F32, 3);
	if (seams_init(&s, &g, stiffness, bend, &e) || !s.nlinks) {
		fprintf(stderr, "no seams\n");
		return 1;
	}
	seams_update(&s, x);
	float *grad = xmalloc_array(s.ntouched, 3 * sizeof(float));
	memcpy(grad, s.grad, s.ntouched * 3 * sizeof(float));
	double worst = 0, gmax = 0;
	for (size_t t = 0; t < s.ntouched; t++)
		for (int k = 0; k < 3; k++)
			gmax = fmax(gmax, fabs(grad[3 * t + k]));
	for (size_t q = 0; q < 40; q++) {
		size_t t = q * s.ntouched / 40;
		float *xv = x + 3 * (size_t)s.touched[t];
		for (int k = 0; k < 3; k++) {
			float keep = xv[k], step = 1e-4f;
			xv[k] = keep + step;
			double ep = seams_update(&s, x);
			xv[k] = keep - step;
			double em = seams_update(&s, x);
			xv[k] = keep;
			double fd = (ep - em) / ((double)(keep + step) - (keep - step));
			/* relative to the largest gradient: a coordinate whose
			 * gradient is near zero has no relative digits */
			worst = fmax(worst, fabs(fd - grad[3 * t + k]) / gmax);
		}
	}
	printf("worst %.3g bends %zu\n", worst, s.nbends);
	free(grad);
	seams_free(&s);
	grid_free(&g);
	return 0;
}

/* The block method as first written, one vertex at a time: the
 * reference for block.c's vector rows.  Block (bx, by) of x into out.
 * With Eq. 9 the far bending neighbours come from x itself, the start of
 * the block, where block.c reads its own copy. */
static void block_reference(const struct problem *p, const float *x,
			    int bx, int by, int inner, float inner_rho,
			    float *out)
{
	float tile[BLOCK_T * BLOCK_T * 3], old[BLOCK_W * BLOCK_W * 3];
	float step[BLOCK_W * BLOCK_W * 3];
	for (int b = 0; b < BLOCK_T; b++)
		for (int a = 0; a < BLOCK_T; a++) {
			int i = bx * BLOCK_W - BLOCK_HALO + a;
			int j = by * BLOCK_W - BLOCK_HALO + b;
			int in = i >= 0 && i < p->w && j >= 0 && j < p->h;
			for (int k = 0; k < 3; k++)
				tile[3 * (b * BLOCK_T + a) + k] = in ?
					x[3 * ((size_t)j * p->w + i) + k] : 0;
		}
	float omega = 1.0f;
	for (int l = 0; l < inner; l++) {
		omega = cheb_omega(l, 1, inner_rho, omega);
		for (int pass = 0; pass < 2; pass++)
			for (int q = 0; q < BLOCK_W * BLOCK_W; q++) {
				int a = q % BLOCK_W, b = q / BLOCK_W;
				int i = bx * BLOCK_W + a, j = by * BLOCK_W + b;
				size_t v = (size_t)j * p->w + i;
				if (i >= p->w || j >= p->h || !p->mov[v])
					continue;
				float *xv = tile + 3 * ((b + BLOCK_HALO) *
					BLOCK_T + a + BLOCK_HALO);
				if (pass == 0) {
					vec3 g;
					float d;
					int far = p->c.far_start;
					solve_vertex_grad_far(xv, BLOCK_T,
						far ? x + 3 * v : xv,
						far ? p->w : BLOCK_T,
						p->rest + 3 * v,
						gather_at(p, v), p->nbr[v],
						(i + j) & 1, &p->c, &g, &d);
					extra_vertex(p, v, xv, BLOCK_T, x, &g, &d);
					v3_store(step + 3 * q, solve_vertex_step(
						g, d, p->c.step));
					continue;
				}
				for (int k = 0; k < 3; k++) {
					float now = xv[k];
					xv[k] = cheb_mix(now + step[3 * q + k],
							 old[3 * q + k], omega);
					old[3 * q + k] = now;
				}
				project_vertex(p, v, xv);
			}
	}
	for (int q = 0; q < BLOCK_W * BLOCK_W; q++) {
		int a = q % BLOCK_W, b = q / BLOCK_W;
		int i = bx * BLOCK_W + a, j = by * BLOCK_W + b;
		if (i < p->w && j < p->h)
			memcpy(out + 3 * ((size_t)j * p->w + i), tile + 3 *
			       ((b + BLOCK_HALO) * BLOCK_T + a + BLOCK_HALO),
			       3 * sizeof(float));
	}
}

/* pleat-solve's defaults for the block method (cotton, FEM). */
static struct solve_params block_params(int iterations, int check_every)
{
	struct solve_params sp = {
		.method = METHOD_BLOCK, .terms = TERM_FEM | TERM_BEND,
		.mat = *material_find("cotton"), .shape = 100,
		.iterations = iterations, .step = 0.4, .step_floor = 1e-4,
		.check_every = check_every, .inner = 4, .rho = 0.992,
		.inner_rho = 0.75, .seam = 1, .pcg_restart = 14, .cheb_delay = 32,
	};
	return sp;
}

static int blockref(const char *path, const char *model, int far_start)
{
	struct grid g;
	struct problem p;
	struct error e;
	struct solve_params sp = block_params(1, 8);
	if (model && strcmp(model, "spring") == 0)
		sp.terms = TERM_SPRING | TERM_BEND;
	sp.far_start = far_start;
	load(path, &g);
	if (problem_init(&p, &g, &sp, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	memcpy(p.x, channel(&g, "x", GRID_F32, 3), p.n * 3 * sizeof(float));
	seams_update(&p.seams, p.x);
	float *fast = xmalloc_array(p.n, 3 * sizeof(float));
	float *ref = xmalloc_array(p.n, 3 * sizeof(float));
	block_step(&p, p.x, fast, sp.inner, (float)sp.inner_rho);
	long rows = 0;
	for (int by = 0; by * BLOCK_W < p.h; by++)
		for (int bx = 0; bx * BLOCK_W < p.w; bx++) {
			block_reference(&p, p.x, bx, by, sp.inner,
					(float)sp.inner_rho, ref);
			for (int b = 0; b < BLOCK_W; b++) {
				int complete = 1;
				for (int a = 0; a < BLOCK_W; a++) {
					int i = bx * BLOCK_W + a;
					int j = by * BLOCK_W + b;
					size_t v = (size_t)j * p.w + i;
					complete &= i < p.w && j < p.h &&
						p.mov[v] && nbr_complete(
						p.nbr[v], (i + j) & 1);
				}
				rows += complete;
			}
		}
	/* the worst difference in units of the last place of the vertex's
	 * largest coordinate (the resolution float has for its position),
	 * and the largest move, to set it against */
	size_t differ = 0;
	double ulps = 0, motion = 0;
	for (size_t v = 0; v < p.n; v++) {
		const float *r = ref + 3 * v, *f = fast + 3 * v;
		float big = fmaxf(fabsf(r[0]), fmaxf(fabsf(r[1]), fabsf(r[2])));
		float ulp = nextafterf(big, INFINITY) - big;
		for (int k = 0; k < 3; k++) {
			differ += memcmp(f + k, r + k, sizeof(float)) != 0;
			ulps = fmax(ulps, fabs((double)f[k] - r[k]) / ulp);
			motion = fmax(motion, fabs((double)r[k] -
						   p.x[3 * v + k]));
		}
	}
	printf("differ %zu of %zu vector-rows %ld ulps %.3g motion %.3g\n",
	       differ, 3 * p.n, rows, ulps, motion);
	free(fast);
	free(ref);
	problem_free(&p);
	grid_free(&g);
	return 0;
}

/* ---- trace: the intersections of every iterate ------------------------- */

struct trace {
	const struct problem *p;
	uint32_t *tri;
	size_t ntri, worst;
	struct collide_site *site;
	int iterations;
};

/* Whether a corner of triangle a is sewn to a corner of b (collide.h's
 * seam rule): pleat-collide's class "across a seam", counted apart. */
static int sewn_triangles(const struct collide_site *site, const uint32_t *a,
			  const uint32_t *b)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (collide_near_partner(&site[a[i]], &site[b[j]]) ||
			    collide_near_partner(&site[b[j]], &site[a[i]]))
				return 1;
	return 0;
}

static size_t count_sewn(const struct trace *t, const uint32_t *pairs,
			 size_t n)
{
	size_t sewn = 0;
	for (size_t q = 0; q < n; q++)
		sewn += sewn_triangles(t->site, t->tri + 3 * (size_t)pairs[2 * q],
				       t->tri + 3 * (size_t)pairs[2 * q + 1]);
	return sewn;
}

/* At every energy check (every iteration: check_every 1), the
 * intersecting triangle pairs of the iterate just made, accepted or not,
 * and how many of them are sewn together across a seam. */
static void trace_check(const struct solve_event *ev, void *arg)
{
	struct trace *t = arg;
	uint32_t *pairs[2];
	size_t n[2];
	n[0] = count_intersections(t->p->x, t->tri, t->ntri, &pairs[0]);
	n[1] = count_adjacent_intersections(t->p->x, t->tri, t->ntri, &pairs[1]);
	size_t sewn = count_sewn(t, pairs[0], n[0]) + count_sewn(t, pairs[1], n[1]);
	size_t unsewn = n[0] + n[1] - sewn;
	printf("iteration %d pairs %zu sewn %zu\n", ev->iteration, unsewn, sewn);
	t->worst = unsewn > t->worst ? unsewn : t->worst;
	t->iterations += ev->iteration > 0;
	free(pairs[0]);
	free(pairs[1]);
}

/* test_solve trace GRID N SAFE SELF [BODY|- [METHOD]]: N iterations of
 * METHOD (block, chebyshev, pcg or gd; default block) from the grid's x
 * (else rest) with --safe (SAFE 1), --self (SELF 1)
 * and the body (none for -) as pleat-solve sets them up (scale from the
 * cell), an energy check after each; prints every iterate's
 * intersecting pairs not sewn together and those sewn, then "worst W
 * iterations K" (W of the pairs not sewn). */
static int trace(const char *path, int n, int safe, int self, const char *body,
		 const char *method)
{
	struct grid g;
	struct problem p;
	struct error e;
	struct solve_params sp = block_params(n, 1);
	sp.self = self;
	sp.safe = safe;
	if (body && strcmp(body, "-") == 0)
		body = NULL;
	if (method && strcmp(method, "block")) {
		if (strcmp(method, "chebyshev") == 0)
			sp.method = METHOD_CHEBYSHEV;
		else if (strcmp(method, "pcg") == 0)
			sp.method = METHOD_PCG;
		else if (strcmp(method, "gd") == 0)
			sp.method = METHOD_GD;
		else {
			fprintf(stderr, "trace: no method %s\n", method);
			return 2;
		}
	}
	load(path, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	struct collide_params cp;
	collide_params_for_cell(&cp, g.cell, sp.mat.stretch);
	struct body b;
	int bad = problem_init(&p, &g, &sp, &e);
	if (!bad && body) {
		bad = body_load(&b, body, &e);
		if (!bad)
			problem_set_body(&p, &b, mask, cp.offset, cp.reach, !safe);
	}
	bad = bad || (self && problem_set_self(&p, &g, &cp, &e)) ||
	      (safe && problem_set_safe(&p, &g, 0, &e));
	if (bad) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	const uint16_t *panel;
	const float *seam;
	if (collide_channels(&g, &mask, &panel, &seam, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	struct trace t = {&p, NULL, 0, 0, NULL, 0};
	t.ntri = grid_triangles(g.width, g.height, mask, panel, &t.tri);
	t.site = xmalloc_array(p.n, sizeof *t.site);
	collide_sites(&g, mask, panel, seam, t.site);
	struct solve_result r;
	if (solve_run(&p, &sp, NULL, trace_check, &t, &r, &e))
		fprintf(stderr, "%s\n", e.msg);
	printf("worst %zu iterations %d\n", t.worst, t.iterations);
	free(t.tri);
	free(t.site);
	problem_free(&p);
	if (body)
		body_free(&b);
	grid_free(&g);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && argc <= 8 && strcmp(argv[1], "trace") == 0)
		return trace(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]),
			     argc >= 7 ? argv[6] : NULL, argc == 8 ? argv[7] : NULL);
	if (argc >= 3 && argc <= 5 && strcmp(argv[1], "blockref") == 0)
		return blockref(argv[2], argc >= 4 ? argv[3] : NULL,
				argc == 5 && strcmp(argv[4], "start") == 0);
	if (argc == 4 && strcmp(argv[1], "xdiff") == 0)
		return xdiff(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "ulps") == 0)
		return ulps(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "drift") == 0)
		return drift(argv[2]);
	if (argc == 3 && strcmp(argv[1], "wrinkles") == 0)
		return wrinkles(argv[2]);
	if (argc == 5 && strcmp(argv[1], "seamfd") == 0)
		return seamfd(argv[2], atof(argv[3]), atof(argv[4]));
	if (argc == 5 && strcmp(argv[1], "shift") == 0)
		return shift(argv[2], atoi(argv[3]), atof(argv[4]));
	if (argc == 4 && strcmp(argv[1], "seamgap") == 0)
		return seamgap(argv[2], argv[3]);
	if (argc == 6 && strcmp(argv[1], "compress") == 0)
		return compress(argv[2], argv[3], atof(argv[4]), atof(argv[5]));
	if (argc == 3 && strcmp(argv[1], "measure") == 0)
		return measure(argv[2]);
	if (argc == 5 && strcmp(argv[1], "set") == 0)
		return set(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: test_solve compress IN OUT S PERTURB | "
		"blockref FILE [spring] | measure FILE | set FILE CHANNEL VALUE | seamgap FILE CHANNEL | shift FILE PANEL DZ | seamfd FILE K BEND | xdiff A B | ulps A B | drift FILE | wrinkles FILE | trace GRID N SAFE SELF [BODY|- [METHOD]]\n");
	return 2;
}

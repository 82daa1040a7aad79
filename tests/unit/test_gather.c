/* test_gather - independent inputs and measurements for tests/gather.bats.
 *
 *   test_gather lift IN OUT PERTURB   the first grid of IN with x = rest
 *        lifted by a deterministic random PERTURB (metres, uniform in
 *        [-PERTURB, PERTURB]) along the third axis, on standard output
 *   test_gather profile FILE   per row of cloth of the first grid: j, v
 *        (pattern), its span in x over its span in rest, the rms of z
 *        about the row's mean, and the sums of squared z differences
 *        along the row (i) and across it (j)
 *   test_gather band FILE V0 WIDTH   the wrinkles of a band of rows
 *        |v - V0| < WIDTH/2: "core A C far F span S", A and C the rms of
 *        the z difference between neighbours along the rows (i) and
 *        across them (j) over the band's middle half |v - V0| < WIDTH/4,
 *        F the rms along the rows farther than WIDTH from V0, S the
 *        middle row's span in x over its span in rest; then "arc L
 *        bend B G", L the middle row's length in 3D (its polyline) over
 *        its span in rest, B and G the rms of z's second differences
 *        along the rows of the middle half and of the far rows
 *        (curvature: wrinkles, where A and F also count the slope of a
 *        sheet that cups as a whole)
 *   test_gather metric FILE   the least-squares affine map A from pattern
 *        to x over the cloth: the square roots of the eigenvalues of
 *        A^T A (the principal stretches), the first one's direction and
 *        the largest |z - mean z|: "stretch S1 S2 angle DEG z Z"
 *   test_gather fd   the gathered FEM and spring gradients against central
 *        differences of the gathered energy, on a jittered sheet with a
 *        random positive definite tensor field (double)
 *   test_gather identity   energies, gradients and preconditioners with a
 *        field of identity tensors against those without a field, bit
 *        for bit (float, the solver's path)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"
#include "grid.h"
#include "material.h"
#include "util.h"
#include "unit.h"
#include "rng.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static double urand(void)  /* uniform in [-1, 1) */
{
	return urand_splitmix(&rng_state);
}

static int cmd_lift(const char *in, const char *out, double pert)
{
	struct grid g;
	struct error e;
	load(in, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const float *rest = channel(&g, "rest", GRID_F32, 3);
	struct grid_channel *xc = grid_add(&g, "x", GRID_F32, 3, &e);
	float *x = xc->data;
	size_t n = grid_vertices(&g);
	memcpy(x, rest, n * 3 * sizeof *x);
	for (size_t v = 0; v < n; v++)
		if (mask[v] & MASK_INSIDE)
			x[3 * v + 2] += (float)(pert * urand());
	FILE *f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
	if (!f || grid_write(&g, f, out, &e) || (f != stdout && fclose(f))) {
		fprintf(stderr, "cannot write %s\n", out);
		return 1;
	}
	grid_free(&g);
	return 0;
}

/* One row's measurements. */
struct row {
	double span, rest_span, zrms, along, across;
	double arc;              /* the length of the row's polyline in x */
	double bend;             /* sum of squared second differences of z
				    along the row */
	int count;
};

static void measure_row(const struct grid *g, int j, struct row *r)
{
	const uint8_t *mask = channel(g, "mask", GRID_U8, 1);
	const float *rest = channel(g, "rest", GRID_F32, 3);
	const float *x = channel(g, "x", GRID_F32, 3);
	size_t w = (size_t)g->width;
	double xmin = INFINITY, xmax = -INFINITY, rmin = INFINITY;
	double rmax = -INFINITY, zs = 0, zz = 0;
	memset(r, 0, sizeof *r);
	for (int i = 0; i < g->width; i++) {
		size_t v = (size_t)j * w + (size_t)i;
		if (!(mask[v] & MASK_INSIDE))
			continue;
		xmin = fmin(xmin, x[3 * v]);
		xmax = fmax(xmax, x[3 * v]);
		rmin = fmin(rmin, rest[3 * v]);
		rmax = fmax(rmax, rest[3 * v]);
		zs += x[3 * v + 2];
		zz += (double)x[3 * v + 2] * x[3 * v + 2];
		r->count++;
		if (i + 1 < g->width && (mask[v + 1] & MASK_INSIDE)) {
			double d = (double)x[3 * (v + 1) + 2] - x[3 * v + 2];
			r->along += d * d;
			double dx = (double)x[3 * (v + 1)] - x[3 * v];
			double dy = (double)x[3 * (v + 1) + 1] - x[3 * v + 1];
			r->arc += sqrt(dx * dx + dy * dy + d * d);
		}
		if (i > 0 && i + 1 < g->width && (mask[v - 1] & MASK_INSIDE) &&
		    (mask[v + 1] & MASK_INSIDE)) {
			double c = (double)x[3 * (v + 1) + 2] - 2.0 * x[3 * v + 2] +
				   x[3 * (v - 1) + 2];
			r->bend += c * c;
		}
		if (j + 1 < g->height && (mask[v + w] & MASK_INSIDE)) {
			double d = (double)x[3 * (v + w) + 2] - x[3 * v + 2];
			r->across += d * d;
		}
	}
	if (!r->count)
		return;
	double mean = zs / r->count;
	r->zrms = sqrt(fmax(0, zz / r->count - mean * mean));
	r->span = xmax - xmin;
	r->rest_span = rmax - rmin;
}

static int cmd_profile(const char *path)
{
	struct grid g;
	load(path, &g);
	for (int j = 0; j < g.height; j++) {
		struct row r;
		measure_row(&g, j, &r);
		if (r.count)
			printf("%d %.6f %.6f %.3e %.3e %.3e\n", j,
			       g.origin[1] + g.cell * j, r.span / r.rest_span,
			       r.zrms, r.along, r.across);
	}
	grid_free(&g);
	return 0;
}

static int cmd_band(const char *path, double v0, double width)
{
	struct grid g;
	load(path, &g);
	double along = 0, across = 0, far = 0, span = 0, arc = 0, bend = 0;
	double far_bend = 0;
	int ncore = 0, nfar = 0;
	int mid = (int)lround((v0 - g.origin[1]) / g.cell);
	for (int j = 0; j < g.height; j++) {
		struct row r;
		measure_row(&g, j, &r);
		double d = fabs(g.origin[1] + g.cell * j - v0);
		if (!r.count)
			continue;
		if (d < width / 4) {
			along += r.along;
			across += r.across;
			bend += r.bend;
			ncore += r.count;
		} else if (d > width) {
			far += r.along;
			far_bend += r.bend;
			nfar += r.count;
		}
		if (j == mid) {
			span = r.span / r.rest_span;
			arc = r.arc / r.rest_span;
		}
	}
	printf("core %.4e %.4e far %.4e span %.5f arc %.5f bend %.4e %.4e\n",
	       sqrt(along / (ncore ? ncore : 1)),
	       sqrt(across / (ncore ? ncore : 1)),
	       sqrt(far / (nfar ? nfar : 1)), span, arc,
	       sqrt(bend / (ncore ? ncore : 1)),
	       sqrt(far_bend / (nfar ? nfar : 1)));
	grid_free(&g);
	return 0;
}

static int cmd_metric(const char *path)
{
	struct grid g;
	load(path, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const float *x = channel(&g, "x", GRID_F32, 3);
	size_t w = (size_t)g.width, n = grid_vertices(&g), count = 0;
	double pm[2] = {0, 0}, xm[3] = {0, 0, 0};
	for (size_t v = 0; v < n; v++)
		if (mask[v] & MASK_INSIDE) {
			pm[0] += (double)(v % w) * g.cell;
			pm[1] += (double)(v / w) * g.cell;
			for (int k = 0; k < 3; k++)
				xm[k] += x[3 * v + k];
			count++;
		}
	for (int k = 0; k < 3; k++)
		xm[k] /= (double)count;
	pm[0] /= (double)count;
	pm[1] /= (double)count;
	/* A = X P^T (P P^T)^-1, X and P the centred positions */
	double pp[3] = {0, 0, 0}, xp[3][2] = {{0, 0}, {0, 0}, {0, 0}};
	double zmax = 0;
	for (size_t v = 0; v < n; v++) {
		if (!(mask[v] & MASK_INSIDE))
			continue;
		double p0 = (double)(v % w) * g.cell - pm[0];
		double p1 = (double)(v / w) * g.cell - pm[1];
		pp[0] += p0 * p0;
		pp[1] += p0 * p1;
		pp[2] += p1 * p1;
		for (int k = 0; k < 3; k++) {
			xp[k][0] += (x[3 * v + k] - xm[k]) * p0;
			xp[k][1] += (x[3 * v + k] - xm[k]) * p1;
		}
		zmax = fmax(zmax, fabs(x[3 * v + 2] - xm[2]));
	}
	double det = pp[0] * pp[2] - pp[1] * pp[1];
	double inv[3] = {pp[2] / det, -pp[1] / det, pp[0] / det};
	double a[3][2];
	for (int k = 0; k < 3; k++) {
		a[k][0] = xp[k][0] * inv[0] + xp[k][1] * inv[1];
		a[k][1] = xp[k][0] * inv[1] + xp[k][1] * inv[2];
	}
	double m00 = 0, m01 = 0, m11 = 0;
	for (int k = 0; k < 3; k++) {
		m00 += a[k][0] * a[k][0];
		m01 += a[k][0] * a[k][1];
		m11 += a[k][1] * a[k][1];
	}
	double mean = 0.5 * (m00 + m11), r = hypot(0.5 * (m00 - m11), m01);
	double angle = 0.5 * atan2(2 * m01, m00 - m11) * 180 / 3.14159265358979;
	printf("stretch %.5f %.5f angle %.2f z %.4e\n", sqrt(mean + r),
	       sqrt(mean - r), angle, zmax);
	grid_free(&g);
	return 0;
}

/* ---- the gathered energies ------------------------------------------ */

/* A jittered sheet with a hole and a random positive definite field. */
struct sheet {
	int w, h;
	double cell;
	uint8_t *mask;
	uint32_t *nbr;
	double *x;
	float *xf, *S;
};

static void sheet_make(struct sheet *s, int random_field)
{
	s->w = 12;
	s->h = 10;
	s->cell = 1e-3;
	size_t n = (size_t)s->w * (size_t)s->h;
	s->mask = calloc(n, 1);
	s->nbr = calloc(n, sizeof *s->nbr);
	s->x = calloc(3 * n, sizeof *s->x);
	s->xf = calloc(3 * n, sizeof *s->xf);
	s->S = calloc(3 * n, sizeof *s->S);
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			size_t v = (size_t)j * (size_t)s->w + (size_t)i;
			int hole = i >= 5 && i <= 6 && j >= 4 && j <= 5;
			s->mask[v] = hole || (i <= 1 && j <= 1) ? 0 : MASK_INSIDE;
			s->x[3 * v] = i * s->cell * (1 + 0.2 * urand());
			s->x[3 * v + 1] = j * s->cell * (1 + 0.2 * urand());
			s->x[3 * v + 2] = 0.3 * s->cell * urand();
			/* eigenvalues in [0.4, 1.6], any axes */
			double a = 1 + 0.6 * urand(), b = 1 + 0.6 * urand();
			double t = 3.14159265358979 * urand();
			double c = cos(t), si = sin(t);
			s->S[3 * v] = random_field ? (float)(a * c * c + b * si * si) : 1;
			s->S[3 * v + 1] = random_field ? (float)((a - b) * c * si) : 0;
			s->S[3 * v + 2] = random_field ? (float)(a * si * si + b * c * c) : 1;
		}
	for (size_t k = 0; k < 3 * n; k++)
		s->xf[k] = (float)s->x[k];
	energy_neighbours_raw(s->w, s->h, s->mask, NULL, s->nbr);
}

static void sheet_free(struct sheet *s)
{
	free(s->mask);
	free(s->nbr);
	free(s->x);
	free(s->xf);
	free(s->S);
}

static double total_d(const struct sheet *s, const struct energy_coef_d *c,
		      unsigned terms)
{
	double sum = 0;
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			size_t v = (size_t)j * (size_t)s->w + (size_t)i;
			if (s->nbr[v])
				sum += energy_vertex_gather_d(s->x + 3 * v, s->w,
					s->nbr[v], (i + j) & 1, c, terms,
					s->S + 3 * v, s->w);
		}
	return sum;
}

/* max over components of |gradient - central difference| / max |fd|. */
static double fd_error(struct sheet *s, const struct energy_coef_d *c,
		       unsigned terms)
{
	double num = 0, den = 0, step = 1e-4 * s->cell;
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			size_t v = (size_t)j * (size_t)s->w + (size_t)i;
			if (!s->nbr[v])
				continue;
			dvec3 g = {0, 0, 0};
			double d = 0;
			energy_grad_gather_d(s->x + 3 * v, s->w, s->nbr[v],
					     (i + j) & 1, c, terms, s->S + 3 * v,
					     s->w, &g, &d);
			double ga[3] = {g.x, g.y, g.z};
			for (int k = 0; k < 3; k++) {
				double keep = s->x[3 * v + k];
				s->x[3 * v + k] = keep + step;
				double ep = total_d(s, c, terms);
				s->x[3 * v + k] = keep - step;
				double em = total_d(s, c, terms);
				s->x[3 * v + k] = keep;
				double fd = (ep - em) / (2 * step);
				num = fmax(num, fabs(ga[k] - fd));
				den = fmax(den, fabs(fd));
			}
		}
	return num / den;
}

static void coef(double cell, struct energy_coef_d *cd,
		 struct energy_coef_f *cf)
{
	struct level_constants lc;
	level_constants_init(&lc, material_find("cotton"), cell);
	energy_coef_init_d(cd, &lc, BEND_HINGES);
	energy_coef_init_f(cf, &lc, BEND_HINGES);
}

static int cmd_fd(void)
{
	struct sheet s;
	struct energy_coef_d c;
	struct energy_coef_f cf;
	int fail = 0;
	sheet_make(&s, 1);
	coef(s.cell, &c, &cf);
	const char *name[2] = {"fem", "spring"};
	unsigned terms[2] = {TERM_FEM, TERM_SPRING};
	for (int t = 0; t < 2; t++) {
		double err = fd_error(&s, &c, terms[t]);
		printf("%-7s gathered gradient: max rel error %.3e\n", name[t],
		       err);
		fail |= !(err < 1e-5);
	}
	sheet_free(&s);
	return fail;
}

static int cmd_identity(void)
{
	struct sheet s;
	struct energy_coef_d cd;
	struct energy_coef_f c;
	size_t same = 0, total = 0;
	sheet_make(&s, 0);
	coef(s.cell, &cd, &c);
	unsigned terms[3] = {TERM_FEM | TERM_BEND, TERM_SPRING | TERM_BEND,
			     TERM_FEM | TERM_SPRING};
	for (int t = 0; t < 3; t++)
		for (int j = 0; j < s.h; j++)
			for (int i = 0; i < s.w; i++) {
				size_t v = (size_t)j * (size_t)s.w + (size_t)i;
				if (!s.nbr[v])
					continue;
				vec3 g0 = {0, 0, 0}, g1 = {0, 0, 0};
				float d0 = 0, d1 = 0;
				const float *xv = s.xf + 3 * v, *S = s.S + 3 * v;
				int par = (i + j) & 1;
				energy_grad_f(xv, s.w, s.nbr[v], par, &c,
					      terms[t], &g0, &d0);
				energy_grad_gather_f(xv, s.w, s.nbr[v], par, &c,
						     terms[t], S, s.w, &g1, &d1);
				float e0 = energy_vertex_f(xv, s.w, s.nbr[v],
							   par, &c, terms[t]);
				float e1 = energy_vertex_gather_f(xv, s.w,
					s.nbr[v], par, &c, terms[t], S, s.w);
				total++;
				same += !memcmp(&g0, &g1, sizeof g0) &&
					!memcmp(&d0, &d1, sizeof d0) &&
					!memcmp(&e0, &e1, sizeof e0);
			}
	printf("identity field: %zu of %zu vertex evaluations identical\n",
	       same, total);
	sheet_free(&s);
	return same == total ? 0 : 1;
}

int main(int argc, char **argv)
{
	progname = "test_gather";
	if (argc == 5 && strcmp(argv[1], "lift") == 0)
		return cmd_lift(argv[2], argv[3], atof(argv[4]));
	if (argc == 3 && strcmp(argv[1], "profile") == 0)
		return cmd_profile(argv[2]);
	if (argc == 5 && strcmp(argv[1], "band") == 0)
		return cmd_band(argv[2], atof(argv[3]), atof(argv[4]));
	if (argc == 3 && strcmp(argv[1], "metric") == 0)
		return cmd_metric(argv[2]);
	if (argc == 2 && strcmp(argv[1], "fd") == 0)
		return cmd_fd();
	if (argc == 2 && strcmp(argv[1], "identity") == 0)
		return cmd_identity();
	fprintf(stderr, "usage: test_gather lift IN OUT PERTURB | profile FILE "
		"| band FILE V0 WIDTH | metric FILE | fd | identity\n");
	return 2;
}

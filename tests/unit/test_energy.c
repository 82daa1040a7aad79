/* test_energy - checks of the grid energies (tests/energy.bats).
 *
 *   test_energy fd          gradients against central differences
 *   test_energy mesh        stencil bending against a per-edge assembly
 *   test_energy springfem   springs against FEM on small affine strains
 *   test_energy rest        zero gradient of the flat sheet at rest
 *   test_energy resolution  same energy at two cell sizes, cylinder vs
 *                           the analytic plate energy
 *   test_energy psd         smallest eigenvalue of the bending matrix
 *   test_energy float       float path against the double path
 *   test_energy cells       the FEM by cells and the regular energies
 *                           against the per-vertex forms
 *
 * Each prints its numbers and exits 0 when they are within the tolerance
 * it states, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"
#include "grid.h"
#include "material.h"
#include "rng.h"

#define PI 3.14159265358979323846

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static double urand(void)  /* uniform in [-1, 1) */
{
	return urand_splitmix(&rng_state);
}

/* ---- test grids ----------------------------------------------------- */

struct sheet {
	int w, h;
	double cell;
	uint8_t *mask;
	uint16_t *panel;
	uint32_t *nbr;
	double *x;     /* positions, w * h * 3 */
};

static void sheet_init(struct sheet *s, int w, int h, double cell)
{
	size_t n = (size_t)w * (size_t)h;
	s->w = w;
	s->h = h;
	s->cell = cell;
	s->mask = calloc(n, 1);
	s->panel = calloc(n, sizeof *s->panel);
	s->nbr = calloc(n, sizeof *s->nbr);
	s->x = calloc(3 * n, sizeof *s->x);
	for (size_t v = 0; v < n; v++)
		s->mask[v] = MASK_INSIDE;
}

static void sheet_free(struct sheet *s)
{
	free(s->mask);
	free(s->panel);
	free(s->nbr);
	free(s->x);
}

static void sheet_flat(struct sheet *s)
{
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			double *p = s->x + 3 * ((size_t)j * s->w + i);
			p[0] = i * s->cell;
			p[1] = j * s->cell;
			p[2] = 0;
		}
}

/* 12 x 10 with everything a boundary can be: a hole, a notched corner,
 * a second panel, ghost vertices and a lone vertex. */
static void sheet_irregular(struct sheet *s, double cell)
{
	sheet_init(s, 12, 10, cell);
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			size_t v = (size_t)j * s->w + i;
			if ((i >= 5 && i <= 6 && j >= 4 && j <= 5) ||
			    (i <= 1 && j <= 1) || (i == 8 && j == 2))
				s->mask[v] = 0;  /* hole, notch, pinhole */
			if (i >= 9 && j >= 6)
				s->panel[v] = 1;  /* another panel */
			if (j == 9 && i >= 2 && i <= 5)
				s->mask[v] = MASK_GHOST;
			if (s->mask[v] == 0)
				s->panel[v] = PANEL_NONE;
		}
	energy_neighbours_raw(s->w, s->h, s->mask, s->panel, s->nbr);
	sheet_flat(s);
}

static void sheet_jitter(struct sheet *s, double amount)
{
	size_t n = 3 * (size_t)s->w * s->h;
	for (size_t k = 0; k < n; k++)
		s->x[k] += amount * s->cell * urand();
}

static void coefs(const struct material *m, double cell, int rule,
		  struct energy_coef_d *c)
{
	struct level_constants lc;
	level_constants_init(&lc, m, cell);
	energy_coef_init_d(c, &lc, rule);
}

/* ---- finite differences --------------------------------------------- */

/* max |a - b| / max |b| over the components of vertices that exist */
static double rel_error(const struct sheet *s, const double *a,
			const double *b)
{
	double num = 0, den = 0;
	for (size_t v = 0; v < (size_t)s->w * s->h; v++) {
		if (!s->nbr[v])
			continue;
		for (int k = 0; k < 3; k++) {
			num = fmax(num, fabs(a[3 * v + k] - b[3 * v + k]));
			den = fmax(den, fabs(b[3 * v + k]));
		}
	}
	return den > 0 ? num / den : num;
}

static void fd_gradient(struct sheet *s, const struct energy_coef_d *c,
			unsigned terms, double step, double *out)
{
	size_t n = 3 * (size_t)s->w * s->h;
	for (size_t k = 0; k < n; k++) {
		double keep = s->x[k];
		s->x[k] = keep + step;
		double ep = energy_total_d(s->w, s->h, s->x, s->nbr, c, terms);
		s->x[k] = keep - step;
		double em = energy_total_d(s->w, s->h, s->x, s->nbr, c, terms);
		s->x[k] = keep;
		out[k] = (ep - em) / (2 * step);
	}
}

static int check_fd(const char *name, unsigned terms, int rule)
{
	struct sheet s;
	struct energy_coef_d c;
	sheet_irregular(&s, 1e-3);
	sheet_jitter(&s, 0.2);
	coefs(material_find("cotton"), s.cell, rule, &c);
	size_t n = 3 * (size_t)s.w * s.h;
	double *g = calloc(n, sizeof *g), *fd = calloc(n, sizeof *fd);
	double *diag = calloc(n / 3, sizeof *diag);
	energy_gradient_d(s.w, s.h, s.x, s.nbr, &c, terms, g, diag);
	/* step 1e-4 h: truncation (h²-scaled third derivatives) and
	 * rounding (1e-16 E / step) both far below 1e-8 */
	fd_gradient(&s, &c, terms, 1e-4 * s.cell, fd);
	double err = rel_error(&s, g, fd);

	/* the same comparison must reject a gradient that is 0.1% off at
	 * one vertex, or it proves nothing */
	size_t worst = 0;
	for (size_t k = 0; k < n; k++)
		if (fabs(g[k]) > fabs(g[worst]))
			worst = k;
	g[worst] *= 1.001;
	double bad = rel_error(&s, g, fd);

	int diag_ok = 1;
	for (size_t v = 0; v < n / 3; v++)
		if (s.nbr[v] && !(diag[v] >= 0))
			diag_ok = 0;
	printf("%-16s max rel error %.3e  perturbed %.3e  diag %s\n", name,
	       err, bad, diag_ok ? "positive" : "NEGATIVE");
	free(g);
	free(fd);
	free(diag);
	sheet_free(&s);
	return err < 1e-4 && bad > 1e-4 && diag_ok ? 0 : 1;
}

static int cmd_fd(void)
{
	int fail = 0;
	fail |= check_fd("spring", TERM_SPRING, BEND_HINGES);
	fail |= check_fd("fem", TERM_FEM, BEND_HINGES);
	fail |= check_fd("bend", TERM_BEND, BEND_HINGES);
	fail |= check_fd("bend-collapse", TERM_BEND, BEND_COLLAPSE);
	fail |= check_fd("all", TERM_SPRING | TERM_FEM | TERM_BEND,
			 BEND_HINGES);
	return fail;
}

/* ---- bending by explicit per-edge assembly -------------------------- */

/* Does vertex (i, j) exist for bending, relative to vertex (pi, pj)? */
static int bend_present(const struct sheet *s, int i, int j, int pi, int pj)
{
	if (i < 0 || j < 0 || i >= s->w || j >= s->h)
		return 0;
	size_t v = (size_t)j * s->w + i, p = (size_t)pj * s->w + pi;
	return (s->mask[v] & (MASK_INSIDE | MASK_GHOST)) &&
	       (s->mask[p] & (MASK_INSIDE | MASK_GHOST)) &&
	       s->panel[v] == s->panel[p];
}

struct tri { int v[3]; };

/* The checkerboard triangles of a w x h lattice of points. */
static int lattice_triangles(int w, int h, struct tri *t)
{
	int n = 0;
	for (int b = 0; b + 1 < h; b++)
		for (int a = 0; a + 1 < w; a++) {
			int v00 = b * w + a, v10 = v00 + 1, v01 = v00 + w;
			int v11 = v01 + 1;
			if ((a + b) % 2 == 0) {  /* diagonal v00-v11 */
				t[n++] = (struct tri){{v00, v10, v11}};
				t[n++] = (struct tri){{v00, v11, v01}};
			} else {                 /* diagonal v10-v01 */
				t[n++] = (struct tri){{v00, v10, v01}};
				t[n++] = (struct tri){{v10, v11, v01}};
			}
		}
	return n;
}

static double cot2(const double *p, const double *a, const double *b)
{
	/* cotangent of the angle at p in triangle (p, a, b), 2D points */
	double ux = a[0] - p[0], uy = a[1] - p[1];
	double vx = b[0] - p[0], vy = b[1] - p[1];
	return (ux * vx + uy * vy) / fabs(ux * vy - uy * vx);
}

/* Adds k_b * K^T K / (A1 + A2) for every hinge of the triangles given,
 * Bergou's 3 / (A1 + A2) with our one-third calibration (energy.h),
 * into the dense n x n matrix Q.  pos: 2D rest points. */
static void assemble_hinges(const struct tri *t, int nt, const double *pos,
			    int n, double kb, double *Q)
{
	for (int a = 0; a < nt; a++)
		for (int ea = 0; ea < 3; ea++) {
			int x0 = t[a].v[ea], x1 = t[a].v[(ea + 1) % 3];
			int x2 = t[a].v[(ea + 2) % 3];
			if (x0 > x1)
				continue;  /* each edge once, from one side */
			for (int b = 0; b < nt; b++) {
				if (b == a)
					continue;
				int x3 = -1;
				for (int eb = 0; eb < 3; eb++)
					if (t[b].v[eb] == x1 &&
					    t[b].v[(eb + 1) % 3] == x0)
						x3 = t[b].v[(eb + 2) % 3];
				if (x3 < 0)
					continue;
				const double *p0 = pos + 2 * x0, *p1 = pos + 2 * x1;
				const double *p2 = pos + 2 * x2, *p3 = pos + 2 * x3;
				/* c01 c02: angles at x0; c03 c04: at x1 */
				double c01 = cot2(p0, p1, p2), c02 = cot2(p0, p1, p3);
				double c03 = cot2(p1, p0, p2), c04 = cot2(p1, p0, p3);
				double K[4] = {c03 + c04, c01 + c02, -c01 - c03,
					       -c02 - c04};
				int id[4] = {x0, x1, x2, x3};
				double area =
					0.5 * fabs((p1[0] - p0[0]) * (p2[1] - p0[1]) -
						   (p1[1] - p0[1]) * (p2[0] - p0[0])) +
					0.5 * fabs((p1[0] - p0[0]) * (p3[1] - p0[1]) -
						   (p1[1] - p0[1]) * (p3[0] - p0[0]));
				double wgt = kb * (3.0 / area) / 3.0;
				for (int r = 0; r < 4; r++)
					for (int q = 0; q < 4; q++)
						Q[(size_t)id[r] * n + id[q]] +=
							wgt * K[r] * K[q];
			}
		}
}

/* Q of the hinge rule: the mesh of the triangles whose vertices exist. */
static double *mesh_q_hinges(const struct sheet *s, double kb)
{
	int n = s->w * s->h;
	struct tri *t = malloc(sizeof *t * 2 * (size_t)n);
	double *pos = malloc(sizeof *pos * 2 * (size_t)n);
	double *Q = calloc((size_t)n * n, sizeof *Q);
	int nt = lattice_triangles(s->w, s->h, t), keep = 0;
	for (int v = 0; v < n; v++) {
		pos[2 * v] = (v % s->w) * s->cell;
		pos[2 * v + 1] = (v / s->w) * s->cell;
	}
	for (int a = 0; a < nt; a++) {
		int p = t[a].v[0], ok = 1;
		for (int k = 0; k < 3; k++)
			ok &= bend_present(s, t[a].v[k] % s->w, t[a].v[k] / s->w,
					   p % s->w, p / s->w);
		if (ok)
			t[keep++] = t[a];
	}
	assemble_hinges(t, keep, pos, n, kb, Q);
	free(t);
	free(pos);
	return Q;
}

/* Q of the collapse rule: the full-lattice Q (a lattice padded by two,
 * so every stencil is whole), each missing neighbour's weight moved to
 * the centre of the row. */
static double *mesh_q_collapse(const struct sheet *s, double kb)
{
	int P = 2, W = s->w + 2 * P, H = s->h + 2 * P, N = W * H;
	int n = s->w * s->h;
	struct tri *t = malloc(sizeof *t * 2 * (size_t)N);
	double *pos = malloc(sizeof *pos * 2 * (size_t)N);
	double *Qf = calloc((size_t)N * N, sizeof *Qf);
	double *Q = calloc((size_t)n * n, sizeof *Q);
	/* pad by an even count so that parities stay those of the grid */
	for (int v = 0; v < N; v++) {
		pos[2 * v] = (v % W - P) * s->cell;
		pos[2 * v + 1] = (v / W - P) * s->cell;
	}
	assemble_hinges(t, lattice_triangles(W, H, t), pos, N, kb, Qf);
	for (int v = 0; v < n; v++) {
		int vi = v % s->w, vj = v / s->w;
		if (!bend_present(s, vi, vj, vi, vj))
			continue;
		size_t fv = (size_t)(vj + P) * W + (vi + P);
		for (int u = 0; u < N; u++) {
			double q = Qf[fv * N + u];
			int ui = u % W - P, uj = u / W - P;
			if (q == 0 || (size_t)u == fv)
				continue;
			if (bend_present(s, ui, uj, vi, vj)) {
				Q[(size_t)v * n + uj * s->w + ui] += q;
				Q[(size_t)v * n + v] -= q;
			}
			/* missing: x_u = x_v, q x_v + (q's share of the
			 * centre, -q x_v) = 0: nothing to add */
		}
	}
	free(t);
	free(pos);
	free(Qf);
	return Q;
}

static int compare_mesh(const char *name, int rule)
{
	struct sheet s;
	struct energy_coef_d c;
	const struct material *m = material_find("cotton");
	sheet_irregular(&s, 2e-3);
	sheet_jitter(&s, 0.5);
	coefs(m, s.cell, rule, &c);
	int n = s.w * s.h;
	double *Q = rule == BEND_HINGES ? mesh_q_hinges(&s, m->bend) :
					  mesh_q_collapse(&s, m->bend);
	double *g = calloc(3 * (size_t)n, sizeof *g);
	double *gm = calloc(3 * (size_t)n, sizeof *gm);
	double em = 0;
	for (int v = 0; v < n; v++)
		for (int u = 0; u < n; u++)
			for (int k = 0; k < 3; k++) {
				double t = Q[(size_t)v * n + u] * s.x[3 * u + k];
				gm[3 * v + k] += t;
				em += 0.5 * s.x[3 * v + k] * t;
			}
	double e = energy_total_d(s.w, s.h, s.x, s.nbr, &c, TERM_BEND);
	energy_gradient_d(s.w, s.h, s.x, s.nbr, &c, TERM_BEND, g, NULL);
	double de = fabs(e - em) / fabs(em), dg = rel_error(&s, g, gm);
	printf("%-16s energy %.9e mesh %.9e rel %.2e  gradient rel %.2e\n",
	       name, e, em, de, dg);
	free(Q);
	free(g);
	free(gm);
	sheet_free(&s);
	return de < 1e-10 && dg < 1e-10 ? 0 : 1;
}

static int cmd_mesh(void)
{
	return compare_mesh("bend-hinges", BEND_HINGES) |
	       compare_mesh("bend-collapse", BEND_COLLAPSE);
}

/* ---- springs against FEM -------------------------------------------- */

/* x = A X with A = [[a00 a01] [a10 a11]] in the plane. */
static void sheet_affine(struct sheet *s, double a00, double a01, double a10,
			 double a11)
{
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			double *p = s->x + 3 * ((size_t)j * s->w + i);
			double X = i * s->cell, Y = j * s->cell;
			p[0] = a00 * X + a01 * Y;
			p[1] = a10 * X + a11 * Y;
			p[2] = 0;
		}
}

static int spring_vs_fem(struct sheet *s, const struct energy_coef_d *c,
			 const char *name, const double A[4], double expect,
			 double tol)
{
	sheet_affine(s, A[0], A[1], A[2], A[3]);
	double es = energy_total_d(s->w, s->h, s->x, s->nbr, c, TERM_SPRING);
	double ef = energy_total_d(s->w, s->h, s->x, s->nbr, c, TERM_FEM);
	double ratio = es / ef;
	int ok = fabs(ratio - expect) < tol * expect;
	printf("%-22s spring %.6e J  fem %.6e J  ratio %.6f  expected %.6f%s\n",
	       name, es, ef, ratio, expect, ok ? "" : "  FAIL");
	return ok ? 0 : 1;
}

static int cmd_springfem(void)
{
	struct sheet s;
	struct energy_coef_d c;
	struct level_constants lc;
	const struct material *m = material_find("cotton");
	/* the irregular sheet: springs are per triangle, so the match holds
	 * up to any boundary */
	sheet_irregular(&s, 1e-3);
	level_constants_init(&lc, m, s.cell);
	energy_coef_init_d(&c, &lc, BEND_HINGES);
	double mu = lc.mu, la = lc.lambda, e = 1e-4;
	/* Matched modes: both discretisations are exact for affine fields
	 * in linear elasticity, so the ratio is 1 up to the geometric
	 * nonlinearity, of the order of the strain (1e-4): 1e-3 is ten
	 * times that. */
	const double ux[4] = {1 + e, 0, 0, 1}, uy[4] = {1, 0, 0, 1 + e};
	const double sh[4] = {1, e, 0, 1}, sh2[4] = {1, 0, e, 1};
	/* The modes the lattice cannot match (energy.h), against their
	 * continuum ratios. */
	const double bi[4] = {1 + e, 0, 0, 1 + e};
	const double d1[4] = {1 + e / 2, e / 2, e / 2, 1 + e / 2};
	const double d2[4] = {1 + e / 2, -e / 2, -e / 2, 1 + e / 2};
	int fail = 0;
	fail |= spring_vs_fem(&s, &c, "uniaxial x 1e-4", ux, 1, 1e-3);
	fail |= spring_vs_fem(&s, &c, "uniaxial y 1e-4", uy, 1, 1e-3);
	fail |= spring_vs_fem(&s, &c, "shear xy 1e-4", sh, 1, 1e-3);
	fail |= spring_vs_fem(&s, &c, "shear yx 1e-4", sh2, 1, 1e-3);
	fail |= spring_vs_fem(&s, &c, "equibiaxial 1e-4", bi,
			      (3 * mu + la) / (2 * mu + 2 * la), 1e-3);
	fail |= spring_vs_fem(&s, &c, "uniaxial (1,1) 1e-4", d1,
			      (mu + la) / (4 * mu + 2 * la), 1e-3);
	fail |= spring_vs_fem(&s, &c, "uniaxial (1,-1) 1e-4", d2,
			      (9 * mu + la) / (4 * mu + 2 * la), 1e-3);
	sheet_free(&s);
	return fail;
}

/* ---- rest ------------------------------------------------------------ */

static double max_abs(const struct sheet *s, const double *g)
{
	double m = 0;
	for (size_t k = 0; k < 3 * (size_t)s->w * s->h; k++)
		m = fmax(m, fabs(g[k]));
	return m;
}

static int cmd_rest(void)
{
	struct sheet s;
	struct energy_coef_d c;
	const struct material *m = material_find("denim");
	int fail = 0;
	sheet_irregular(&s, 1e-3);
	/* far from the origin, as a garment is: rest is exact all the same */
	for (size_t k = 0; k < 3 * (size_t)s.w * s.h; k++)
		s.x[k] += k % 3 == 2 ? -0.3 : 0.7;
	double *g = calloc(3 * (size_t)s.w * s.h, sizeof *g);
	const unsigned terms[3] = {TERM_SPRING, TERM_FEM, TERM_BEND};
	const char *names[3] = {"spring", "fem", "bend"};
	coefs(m, s.cell, BEND_HINGES, &c);
	for (int t = 0; t < 3; t++) {
		energy_gradient_d(s.w, s.h, s.x, s.nbr, &c, terms[t], g, NULL);
		double e = energy_total_d(s.w, s.h, s.x, s.nbr, &c, terms[t]);
		double gmax = max_abs(&s, g);
		printf("%-16s rest max |gradient| %.3e N  energy %.3e J\n",
		       names[t], gmax, e);
		fail |= !(gmax < 1e-12);
	}
	/* the paper's rule, for the record only: not zero at the parity-1
	 * vertices of a boundary */
	coefs(m, s.cell, BEND_COLLAPSE, &c);
	energy_gradient_d(s.w, s.h, s.x, s.nbr, &c, TERM_BEND, g, NULL);
	printf("%-16s rest max |gradient| %.3e N  (4 k_b / h = %.3e N on a "
	       "straight edge, more at corners)\n",
	       "bend-collapse", max_abs(&s, g), 4 * m->bend / s.cell);
	free(g);
	sheet_free(&s);
	return fail;
}

/* ---- resolution independence ---------------------------------------- */

/* An L x L sheet at cell L / cells. */
static void sheet_square(struct sheet *s, double L, int cells)
{
	sheet_init(s, cells + 1, cells + 1, L / cells);
	energy_neighbours_raw(s->w, s->h, s->mask, NULL, s->nbr);
}

/* Rolls the flat sheet onto a cylinder of radius R whose axis lies in
 * the plane at angle theta to the x axis: isometric. */
static void sheet_cylinder(struct sheet *s, double R, double theta)
{
	double ax = cos(theta), ay = sin(theta);   /* along the axis */
	double L = (s->w - 1) * s->cell;
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			double *p = s->x + 3 * ((size_t)j * s->w + i);
			double X = i * s->cell - L / 2, Y = j * s->cell - L / 2;
			double a = X * ax + Y * ay, b = -X * ay + Y * ax;
			double u = R * sin(b / R), z = R * (1 - cos(b / R));
			p[0] = a * ax - u * ay;
			p[1] = a * ay + u * ax;
			p[2] = z;
		}
}

static double sheet_energy(struct sheet *s, const struct material *m,
			   unsigned terms)
{
	struct energy_coef_d c;
	coefs(m, s->cell, BEND_HINGES, &c);
	return energy_total_d(s->w, s->h, s->x, s->nbr, &c, terms);
}

static int cmd_resolution(void)
{
	const struct material *m = material_find("cotton");
	const double L = 0.1, s1 = 1e-3, s2 = -4e-4, R = 0.05;
	const int cells[2] = {100, 200};
	double es[2], ef[2], eb[2], eb90[2], eb45[2];
	struct level_constants lc;
	int fail = 0;
	level_constants_init(&lc, m, 1.0);
	/* co-rotational FEM of x = diag(1 + s1, 1 + s2) X, exactly */
	double fem_exact = L * L * (lc.mu * (s1 * s1 + s2 * s2) +
				    0.5 * lc.lambda * (s1 + s2) * (s1 + s2));
	double bend_exact = 0.5 * m->bend * L * L / (R * R);

	for (int r = 0; r < 2; r++) {
		struct sheet s;
		sheet_square(&s, L, cells[r]);
		sheet_affine(&s, 1 + s1, 0, 0, 1 + s2);
		es[r] = sheet_energy(&s, m, TERM_SPRING);
		ef[r] = sheet_energy(&s, m, TERM_FEM);
		sheet_cylinder(&s, R, PI / 2);
		eb[r] = sheet_energy(&s, m, TERM_BEND);
		sheet_cylinder(&s, R, 0);
		eb90[r] = sheet_energy(&s, m, TERM_BEND);
		sheet_cylinder(&s, R, PI / 4);
		eb45[r] = sheet_energy(&s, m, TERM_BEND);
		printf("h = %.1e m: stretch spring %.6e J  fem %.6e J  "
		       "(exact %.6e)\n", s.cell, es[r], ef[r], fem_exact);
		printf("h = %.1e m: cylinder R %.2f axis y %.6e J  axis x "
		       "%.6e J  (plate %.6e)  axis 45deg %.6e J (x%.3f)\n",
		       s.cell, R, eb[r], eb90[r], bend_exact, eb45[r],
		       eb45[r] / eb[r]);
		sheet_free(&s);
	}
	double d_el = fmax(fabs(es[1] / es[0] - 1), fabs(ef[1] / ef[0] - 1));
	double d_b = fabs(eb[1] / eb[0] - 1);
	double e_b = fmax(fabs(eb[0] / bend_exact - 1),
			  fabs(eb[1] / bend_exact - 1));
	double sym = fmax(fabs(eb90[0] / eb[0] - 1), fabs(eb90[1] / eb[1] - 1));
	printf("elastic: two cell sizes differ by %.2e (< 1e-2), fem vs exact "
	       "%.2e\n", d_el, fabs(ef[1] / fem_exact - 1));
	printf("bending: two cell sizes differ by %.2e (< 1e-2), vs plate "
	       "%.2e (< 3e-2), x vs y axis %.2e, 45deg/axis %.3f (1.5 "
	       "documented)\n", d_b, e_b, sym, eb45[1] / eb[1]);
	fail |= !(d_el < 1e-2) || !(fabs(ef[1] / fem_exact - 1) < 1e-3);
	fail |= !(d_b < 1e-2) || !(e_b < 3e-2) || !(sym < 1e-9);
	fail |= !(fabs(eb45[1] / eb[1] - 1.5) < 0.05);
	return fail;
}

/* ---- positive semidefiniteness of the bending matrix ----------------- */

/* Eigenvalues of the symmetric n x n A (destroyed) by cyclic Jacobi;
 * returns the smallest. */
static double jacobi_min_eig(double *A, int n)
{
	for (int sweep = 0; sweep < 100; sweep++) {
		double off = 0;
		for (int p = 0; p < n; p++)
			for (int q = p + 1; q < n; q++)
				off += A[p * n + q] * A[p * n + q];
		if (off < 1e-26)
			break;
		for (int p = 0; p < n; p++)
			for (int q = p + 1; q < n; q++) {
				double apq = A[p * n + q];
				if (fabs(apq) < 1e-300)
					continue;
				double th = (A[q * n + q] - A[p * n + p]) / (2 * apq);
				double t = (th >= 0 ? 1 : -1) /
					   (fabs(th) + sqrt(th * th + 1));
				double cs = 1 / sqrt(t * t + 1), sn = t * cs;
				for (int k = 0; k < n; k++) {
					double akp = A[k * n + p], akq = A[k * n + q];
					A[k * n + p] = cs * akp - sn * akq;
					A[k * n + q] = sn * akp + cs * akq;
				}
				for (int k = 0; k < n; k++) {
					double apk = A[p * n + k], aqk = A[q * n + k];
					A[p * n + k] = cs * apk - sn * aqk;
					A[q * n + k] = sn * apk + cs * aqk;
				}
			}
	}
	double mn = A[0];
	for (int k = 1; k < n; k++)
		mn = fmin(mn, A[k * n + k]);
	return mn;
}

/* Smallest eigenvalue of Q (one component) over the existing vertices,
 * in units of k_b / h², Q's columns read off the gradient of x = e_u. */
static double bend_min_eig(struct sheet *s, int rule)
{
	struct energy_coef_d c;
	struct level_constants lc;
	struct material m = *material_find("cotton");
	m.bend = 1;
	level_constants_init(&lc, &m, 1.0);
	energy_coef_init_d(&c, &lc, rule);
	int n = s->w * s->h, *id = malloc(sizeof *id * n), k = 0;
	for (int v = 0; v < n; v++)
		id[v] = s->nbr[v] & NB_BEND_EVEN ? k++ : -1;
	double *A = calloc((size_t)k * k, sizeof *A);
	double *g = calloc(3 * (size_t)n, sizeof *g);
	memset(s->x, 0, sizeof *s->x * 3 * n);
	for (int u = 0; u < n; u++) {
		if (id[u] < 0)
			continue;
		s->x[3 * u + 2] = 1;
		energy_gradient_d(s->w, s->h, s->x, s->nbr, &c, TERM_BEND, g,
				  NULL);
		s->x[3 * u + 2] = 0;
		for (int v = 0; v < n; v++)
			if (id[v] >= 0)
				A[(size_t)id[v] * k + id[u]] = g[3 * v + 2];
	}
	double mn = jacobi_min_eig(A, k);
	free(id);
	free(A);
	free(g);
	return mn;
}

static int cmd_psd(void)
{
	struct sheet s;
	sheet_irregular(&s, 1.0);
	double h = bend_min_eig(&s, BEND_HINGES);
	double c = bend_min_eig(&s, BEND_COLLAPSE);
	printf("smallest eigenvalue of Q (k_b/h^2): hinges %.3e  collapse "
	       "%.3e\n", h, c);
	sheet_free(&s);
	return h > -1e-9 ? 0 : 1;
}

/* ---- the FEM by cells and the regular energies ------------------------ */

/* The FEM gradient and preconditioner of vertex (i, j) summed from the
 * four cells around it (fem_cell_grad, or fem_cell_grad_rest with the
 * tensors S, 3 a vertex, when S is not NULL) into g and *d. */
static void cells_at(const struct sheet *s, const double *x, const float *S,
		     int i, int j, const struct energy_coef_d *c, double g[3],
		     double *d)
{
	g[0] = g[1] = g[2] = *d = 0;
	for (int cj = j - 1; cj <= j; cj++)
		for (int ci = i - 1; ci <= i; ci++) {
			size_t v = (size_t)cj * s->w + ci, w = (size_t)s->w;
			const double *p = x + 3 * v;
			dvec3 p00 = d3(p[0], p[1], p[2]), p10 = d3(p[3], p[4], p[5]);
			dvec3 p01 = d3(p[3 * w], p[3 * w + 1], p[3 * w + 2]);
			dvec3 p11 = d3(p[3 * w + 3], p[3 * w + 4], p[3 * w + 5]);
			int own = ci == i ? (cj == j ? 0 : 2) : (cj == j ? 1 : 3);
			dvec3 q[4];
			double dq[4] = {0, 0, 0, 0};
			if (S) {
				const float *t = S + 3 * v;
				size_t k10 = 3, k01 = 3 * w, k11 = 3 * w + 3;
				dvec3 sl, su;
				sl = d3(((0.0 + t[0]) + t[k10]) + t[k01],
					((0.0 + t[1]) + t[k10 + 1]) + t[k01 + 1],
					((0.0 + t[2]) + t[k10 + 2]) + t[k01 + 2]);
				su = d3(((0.0 + t[k10]) + t[k11]) + t[k01],
					((0.0 + t[k10 + 1]) + t[k11 + 1]) + t[k01 + 1],
					((0.0 + t[k10 + 2]) + t[k11 + 2]) + t[k01 + 2]);
				struct fem_cell_rest_d r = fem_cell_grad_rest_d(
					p00, p10, p01, p11, sl, su, c);
				q[0] = r.g00, q[1] = r.g10, q[2] = r.g01, q[3] = r.g11;
				dq[0] = r.d00, dq[1] = r.d10, dq[2] = r.d01;
				dq[3] = r.d11;
			} else {
				struct fem_cell_d r = fem_cell_grad_d(p00, p10, p01,
								      p11, c);
				q[0] = r.g00, q[1] = r.g10, q[2] = r.g01, q[3] = r.g11;
			}
			g[0] += q[own].x;
			g[1] += q[own].y;
			g[2] += q[own].z;
			*d += dq[own];
		}
}

/* The vector paths' forms of the energies (energy_tmpl.h) against the
 * per-vertex ones, on a jittered sheet with every vertex inside: the FEM
 * gradient summed from the four cells around a vertex (fem_cell_grad;
 * fem_cell_grad_rest with a random gathering field, with the
 * preconditioner) equals fem_grad's up to rounding, and
 * energy_vertex_regular equals energy_vertex exactly at every vertex
 * with a complete neighbour word.  The flat comparison has one cell
 * collapsed to a point, which makes the triangles beside it rank 1:
 * there the bounded 1/d turns the rounding of det C, which a gathered
 * rest shape gives each corner's frame differently, into differences
 * of 1e-5, so the gathered comparison is on the sheet before the
 * collapse. */
static int cmd_cells(void)
{
	struct sheet s;
	struct energy_coef_d c;
	sheet_init(&s, 12, 10, 1e-3);
	energy_neighbours_raw(s.w, s.h, s.mask, s.panel, s.nbr);
	sheet_flat(&s);
	sheet_jitter(&s, 0.2);
	size_t n = (size_t)s.w * s.h;
	double *xg = malloc(3 * n * sizeof *xg);
	memcpy(xg, s.x, 3 * n * sizeof *xg);
	/* cell (4, 4) collapsed: its four corners at one point */
	for (int k = 0; k < 3; k++) {
		double *p0 = s.x + 3 * (4 * s.w + 4);
		p0[3 + k] = p0[3 * s.w + k] = p0[3 * s.w + 3 + k] = p0[k];
	}
	float *S = malloc(3 * n * sizeof *S);
	for (size_t v = 0; v < n; v++) {  /* positive definite, 0.5 to 2 */
		S[3 * v] = (float)(1.25 + 0.5 * urand());
		S[3 * v + 1] = (float)(0.3 * urand());
		S[3 * v + 2] = (float)(1.25 + 0.5 * urand());
	}
	coefs(material_find("cotton"), s.cell, BEND_HINGES, &c);
	double worst[2] = {0, 0}, scale[2] = {0, 0}, dworst = 0;
	int compared = 0, exact = 0, complete = 0;
	for (int j = 1; j < s.h - 1; j++)
		for (int i = 1; i < s.w - 1; i++) {
			size_t v = (size_t)j * s.w + i;
			const double *xv = s.x + 3 * v;
			for (int gathered = 0; gathered < 2; gathered++) {
				const float *Sv = gathered ? S + 3 * v : NULL;
				const double *x = gathered ? xg : s.x;
				dvec3 g = {0, 0, 0};
				double d = 0, sum[3], dsum;
				energy_grad_gather_d(x + 3 * v, s.w, s.nbr[v],
						     (i + j) & 1, &c, TERM_FEM, Sv,
						     s.w, &g, &d);
				cells_at(&s, x, gathered ? S : NULL, i, j, &c, sum,
					 &dsum);
				worst[gathered] = fmax(worst[gathered],
					fmax(fabs(sum[0] - g.x), fmax(fabs(sum[1] - g.y),
					     fabs(sum[2] - g.z))));
				scale[gathered] = fmax(scale[gathered],
					fmax(fabs(g.x), fmax(fabs(g.y), fabs(g.z))));
				if (gathered)
					dworst = fmax(dworst, fabs(dsum - d) / d);
			}
			compared++;
			int parity = (i + j) & 1;
			if (!nbr_complete(s.nbr[v], parity))
				continue;
			unsigned all = TERM_SPRING | TERM_FEM | TERM_BEND;
			double e0 = energy_vertex_d(xv, s.w, s.nbr[v], parity, &c, all);
			double e1 = energy_vertex_regular_d(xv, s.w, parity, &c, all);
			exact += memcmp(&e0, &e1, sizeof e0) == 0;
			complete++;
		}
	printf("cells: %d vertices, FEM gradient by cells within %.2e of %.2e "
	       "(rel %.2e), gathered %.2e of %.2e (rel %.2e), preconditioner "
	       "rel %.2e (all < 1e-12); regular energies exact at %d of %d "
	       "complete vertices\n", compared, worst[0], scale[0],
	       worst[0] / scale[0], worst[1], scale[1], worst[1] / scale[1],
	       dworst, exact, complete);
	free(S);
	free(xg);
	sheet_free(&s);
	return worst[0] <= 1e-12 * scale[0] && worst[1] <= 1e-12 * scale[1] &&
	       dworst <= 1e-12 && complete > 0 && exact == complete ? 0 : 1;
}

/* ---- float against double ------------------------------------------- */

static int cmd_float(void)
{
	struct sheet s;
	struct level_constants lc;
	struct energy_coef_d cd;
	struct energy_coef_f cf;
	sheet_irregular(&s, 1e-3);
	sheet_jitter(&s, 0.2);
	level_constants_init(&lc, material_find("cotton"), s.cell);
	energy_coef_init_d(&cd, &lc, BEND_HINGES);
	energy_coef_init_f(&cf, &lc, BEND_HINGES);
	size_t n = 3 * (size_t)s.w * s.h;
	float *xf = malloc(n * sizeof *xf), *gf = malloc(n * sizeof *gf);
	double *gd = malloc(n * sizeof *gd), *gfd = malloc(n * sizeof *gfd);
	unsigned all = TERM_SPRING | TERM_FEM | TERM_BEND;
	/* round the positions first, so only the arithmetic differs */
	for (size_t k = 0; k < n; k++)
		s.x[k] = xf[k] = (float)s.x[k];
	energy_gradient_d(s.w, s.h, s.x, s.nbr, &cd, all, gd, NULL);
	energy_gradient_f(s.w, s.h, xf, s.nbr, &cf, all, gf, NULL);
	for (size_t k = 0; k < n; k++)
		gfd[k] = gf[k];
	double eg = rel_error(&s, gfd, gd);
	double ed = energy_total_d(s.w, s.h, s.x, s.nbr, &cd, all);
	double ef = energy_total_f(s.w, s.h, xf, s.nbr, &cf, all);
	double ee = fabs(ef - ed) / ed;
	/* float's 6e-8 on differences of strains ~0.2: 1e-5 leaves room */
	printf("float vs double: gradient rel %.2e  energy rel %.2e (< 1e-5)\n",
	       eg, ee);
	free(xf);
	free(gf);
	free(gd);
	free(gfd);
	sheet_free(&s);
	return eg < 1e-5 && ee < 1e-5 ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} cmds[] = {
		{"fd", cmd_fd},
		{"mesh", cmd_mesh},
		{"springfem", cmd_springfem},
		{"rest", cmd_rest},
		{"resolution", cmd_resolution},
		{"psd", cmd_psd},
		{"float", cmd_float},
		{"cells", cmd_cells},
	};
	for (size_t k = 0; argc == 2 && k < sizeof cmds / sizeof cmds[0]; k++)
		if (strcmp(argv[1], cmds[k].name) == 0)
			return cmds[k].fn();
	fprintf(stderr, "usage: test_energy fd|mesh|springfem|rest|"
		"resolution|psd|float|cells\n");
	return 2;
}

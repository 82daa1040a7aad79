/* test_inflate - checks of inflation and filling (tests/inflate.bats).
 *
 *   test_inflate fd        every effect's gradient against central
 *                          differences of its energy, on a wavy sheet
 *   test_inflate volume    the air's volume shares against the volume
 *                          under a tent, summed prism by prism
 *   test_inflate layers GRID [D]
 *                          per panel of a solved grid: the offsets of its
 *                          cloth vertices along the rest normals,
 *                          n . (x - rest), their mean, median and largest;
 *                          with D, the share of the vertices off the
 *                          panel's boundary that are at least 0.9 D off
 *
 * fd and volume print their numbers and exit 0 when they are within the
 * tolerance they state, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "inflate.h"

#define PI 3.14159265358979323846

/* A w x h sheet of one panel, every vertex cloth: ring bits for the
 * neighbours inside the sheet, nothing else (inflate.h reads only
 * those). */
struct sheet {
	int w, h;
	float *x, *rest;
	uint32_t *nbr;
};

static void sheet_init(struct sheet *s, int w, int h)
{
	size_t n = (size_t)w * (size_t)h;
	s->w = w;
	s->h = h;
	s->x = calloc(3 * n, sizeof(float));
	s->rest = calloc(3 * n, sizeof(float));
	s->nbr = calloc(n, sizeof(uint32_t));
	if (!s->x || !s->rest || !s->nbr)
		exit(2);
	for (int j = 0; j < h; j++)
		for (int i = 0; i < w; i++)
			for (int r = 0; r < 6; r++) {
				int a = i + ring_di(r), b = j + ring_dj(r);
				if (a >= 0 && a < w && b >= 0 && b < h)
					s->nbr[j * w + i] |= NB_ELASTIC(r);
			}
}

static void sheet_free(struct sheet *s)
{
	free(s->x);
	free(s->rest);
	free(s->nbr);
}

static double energy(const struct sheet *s, const struct inflation *f)
{
	double sum = 0;
	for (int v = 0; v < s->w * s->h; v++)
		sum += inflate_energy(f, (size_t)v, s->x + 3 * v, s->w,
				      s->nbr[v], s->rest + 3 * v);
	return sum;
}

/* The largest difference between the gradient and central differences
 * over all vertices (the sheet's edges and corners included), relative
 * to the largest gradient. */
static double fd_error(struct sheet *s, const struct inflation *f)
{
	double worst = 0, big = 0;
	for (int v = 0; v < s->w * s->h; v++) {
		vec3 g = v3(0.0f, 0.0f, 0.0f);
		float d = 0;
		inflate_grad(f, (size_t)v, s->x + 3 * v, s->w, s->nbr[v],
			     s->rest + 3 * v, &g, &d);
		float gk[3] = {g.x, g.y, g.z};
		for (int k = 0; k < 3; k++) {
			float *c = s->x + 3 * v + k, keep = *c;
			*c = keep + 1e-5f;
			double ep = energy(s, f), xp = *c;
			*c = keep - 1e-5f;
			double em = energy(s, f), xm = *c;
			*c = keep;
			double fd = (ep - em) / (xp - xm);
			worst = fmax(worst, fabs(fd - gk[k]));
			big = fmax(big, fabs(fd));
		}
	}
	return big > 0 ? worst / big : INFINITY;
}

/* A sheet of 2 mm cells, rest a gentle dome, x the rest with noise of
 * half a millimetre: the ring normals and the fill's depths vary. */
static void wavy(struct sheet *s)
{
	uint64_t z = 0x9e3779b97f4a7c15ull;
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			float *r = s->rest + 3 * (j * s->w + i);
			r[0] = 0.002f * (float)i;
			r[1] = 0.002f * (float)j;
			r[2] = 0.001f * (float)sin(0.7 * i) * (float)cos(0.5 * j);
			for (int k = 0; k < 3; k++) {
				z = z * 6364136223846793005ull + 1442695040888963407ull;
				double u = (double)(z >> 11) / 9007199254740992.0;
				s->x[3 * (j * s->w + i) + k] =
					r[k] + (float)(5e-4 * (u - 0.5));
			}
		}
}

static int check(const char *name, double err, double tol)
{
	int ok = err < tol;
	printf("%-8s largest |gradient - central difference| / largest "
	       "gradient %.3g (tolerance %g) %s\n", name, err, tol,
	       ok ? "ok" : "FAILED");
	return !ok;
}

/* The energies are linear (air, inflate) or quadratic (fill) in each
 * coordinate, so central differences are exact but for rounding: the
 * energy in double of float positions, steps of 1e-5 m on positions of
 * 1e-2 m (float's ulp 1e-9, so 1e-4 of the step, cancelled by dividing
 * by the stored step).  1e-5 leaves room for rounding only. */
static int cmd_fd(void)
{
	struct sheet s;
	struct inflation f;
	int fail = 0;
	sheet_init(&s, 9, 8);
	wavy(&s);
	float *normal = calloc(3 * 72, sizeof(float));
	for (int v = 0; v < 72; v++)
		v3_store(normal + 3 * v, inflate_ring_normal(s.rest + 3 * v,
							      s.w, s.nbr[v], NULL));
	memset(&f, 0, sizeof f);
	f.origin[0] = 0.01;
	f.origin[1] = 0.005;
	f.origin[2] = -0.002;
	f.c.air = 250;
	fail |= check("air", fd_error(&s, &f), 1e-5);
	f.c.air = 0;
	f.normal = normal;
	f.c.inflate = 250;
	fail |= check("inflate", fd_error(&s, &f), 1e-5);
	f.c.inflate = 0;
	/* D = 0.2 mm, within the noise of ±0.25 mm: some vertices are
	 * compressed, the others free */
	f.c.fill_depth = 2e-4f;
	f.c.fill_k = 1e5f;
	fail |= check("fill", fd_error(&s, &f), 1e-5);
	f.c.air = 250;
	f.c.inflate = 250;
	fail |= check("all", fd_error(&s, &f), 1e-5);
	free(normal);
	sheet_free(&s);
	return fail;
}

/* A tent z = H sin(pi u) sin(pi v) over the unit square, its edge on
 * z = 0 and the origin in that plane: the volume the shares sum to is
 * the volume between the tent and the plane, which a sum of prisms
 * (projected area times mean height, a different formula) gives exactly
 * for the triangulated tent; the continuous tent's 4 H / pi² is within
 * the discretisation error. */
static int cmd_volume(void)
{
	const int n = 41;
	const double H = 0.1;
	struct sheet s;
	struct inflation f;
	sheet_init(&s, n, n);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++) {
			float *x = s.x + 3 * (j * n + i);
			double u = (double)i / (n - 1), v = (double)j / (n - 1);
			x[0] = (float)u;
			x[1] = (float)v;
			x[2] = (float)(H * sin(PI * u) * sin(PI * v));
		}
	memset(&f, 0, sizeof f);
	f.c.air = 1;
	double shares = -energy(&s, &f);
	/* prisms: each cell's two triangles, cut along its (1,-1) diagonal */
	double prisms = 0, cell = 1.0 / (n - 1);
	for (int j = 0; j + 1 < n; j++)
		for (int i = 0; i + 1 < n; i++) {
			const float *z00 = s.x + 3 * (j * n + i) + 2;
			double a = z00[0], b = z00[3], c = z00[3 * n], d = z00[3 * n + 3];
			prisms += 0.5 * cell * cell * ((a + b + c) + (b + d + c)) / 3;
		}
	double err = fabs(shares - prisms) / prisms;
	double cont = 4 * H / (PI * PI);
	printf("volume: shares %.12g m3, prisms %.12g m3, relative difference "
	       "%.3g (tolerance 1e-6); continuous tent %.6g m3\n", shares,
	       prisms, err, cont);
	sheet_free(&s);
	return !(err < 1e-6 && fabs(shares - cont) < 0.01 * cont);
}

/* ---- a solved grid's layers ----------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static struct grid_channel *need(const struct grid *g, const char *name,
				 enum grid_type t, int comps)
{
	struct grid_channel *c = grid_find_typed(g, name, t, comps);
	if (!c) {
		fprintf(stderr, "test_inflate: no %s channel\n", name);
		exit(1);
	}
	return c;
}

/* Panel k's offsets along the rest normals: mean, median, largest; with
 * a depth D > 0, also the share of the vertices off the panel's boundary
 * (the sewn edges, which stay at 0) that are at least 0.9 D off. */
static void panel_offsets(const struct grid *g, const uint32_t *nbr, int k,
			  double depth)
{
	const float *x = need(g, "x", GRID_F32, 3)->data;
	const float *rest = need(g, "rest", GRID_F32, 3)->data;
	const uint16_t *panel = need(g, "panel", GRID_U16, 1)->data;
	const uint8_t *mask = need(g, "mask", GRID_U8, 1)->data;
	size_t n = grid_vertices(g), m = 0, inner = 0, held = 0;
	double *off = malloc(n * sizeof *off), sum = 0;
	for (size_t v = 0; v < n; v++) {
		if (panel[v] != k || !nbr[v])
			continue;
		vec3 a = v3_normalize(inflate_ring_normal(rest + 3 * v,
							  g->width, nbr[v], NULL));
		off[m] = a.x * (x[3 * v] - rest[3 * v]) +
			 a.y * (x[3 * v + 1] - rest[3 * v + 1]) +
			 a.z * (x[3 * v + 2] - rest[3 * v + 2]);
		if (!(mask[v] & MASK_BOUNDARY)) {
			inner++;
			held += off[m] >= 0.9 * depth;
		}
		sum += off[m++];
	}
	qsort(off, m, sizeof *off, cmp_double);
	if (m)
		printf("panel %d: %zu vertices, offset mean %.9g median %.9g "
		       "max %.9g m", k, m, sum / (double)m, off[m / 2],
		       off[m - 1]);
	if (m && depth > 0)
		printf(", held %.4f of %zu", inner ? (double)held / inner : 0.0,
		       inner);
	if (m)
		printf("\n");
	free(off);
}

static int cmd_layers(const char *path, double depth)
{
	struct grid g;
	struct error e;
	if (grid_load(path, &g, &e)) {
		fprintf(stderr, "test_inflate: %s\n", e.msg);
		return 1;
	}
	uint32_t *nbr = calloc(grid_vertices(&g), sizeof *nbr);
	if (!nbr || energy_neighbours(&g, nbr, &e)) {
		fprintf(stderr, "test_inflate: %s\n", nbr ? e.msg : "no memory");
		return 1;
	}
	const uint16_t *panel = need(&g, "panel", GRID_U16, 1)->data;
	int top = -1;
	for (size_t v = 0; v < grid_vertices(&g); v++)
		if (panel[v] != PANEL_NONE && panel[v] > top)
			top = panel[v];
	for (int k = 0; k <= top; k++)
		panel_offsets(&g, nbr, k, depth);
	free(nbr);
	grid_free(&g);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "fd") == 0)
		return cmd_fd();
	if (argc == 2 && strcmp(argv[1], "volume") == 0)
		return cmd_volume();
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "layers") == 0)
		return cmd_layers(argv[2], argc == 4 ? atof(argv[3]) : 0);
	fprintf(stderr, "usage: test_inflate fd|volume|layers GRID [D]\n");
	return 2;
}

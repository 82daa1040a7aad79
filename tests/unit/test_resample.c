/* test_resample - independent checks of pleat-resample's output
 * (tests/resample.bats).
 *
 *   test_resample square-obj           a 1 m square, two triangles, whose
 *                                      3D positions are a rigid motion of
 *                                      its pattern (vt = xy)
 *   test_resample square-check FILE    every inside vertex at the exact
 *                                      moved position, exactly the
 *                                      vertices of the square inside, area
 *   test_resample seams FILE PERCENT   seam partner symmetry
 *   test_resample panels FILE          panel ids in use
 *   test_resample cylinder N           half a cylinder of radius 0.1 m
 *                                      and length 0.2 m made of N flat
 *                                      strips of two triangles, its
 *                                      pattern the unrolled rectangle
 *   test_resample tube N               a tube of radius 0.1 m and length
 *                                      0.2 m made of N flat strips of two
 *                                      triangles, its pattern the unrolled
 *                                      rectangle, sewn where its ends meet
 *   test_resample facets FILE          the largest angle between the
 *                                      normals of neighbouring grid
 *                                      triangles (of the first grid's
 *                                      positions), over edges whose two
 *                                      triangles lie on one coarse
 *                                      triangle, over the other edges of
 *                                      cloth triangles, and over those
 *                                      between a cloth triangle and one
 *                                      with a ghost corner, in degrees:
 *                                      "inside A across B ghost G"
 *   test_resample watertight OBJ       where two triangles share an edge
 *                                      in 3D, the smooth rest surface's
 *                                      points at a quarter, half and three
 *                                      quarters along it, from either
 *                                      triangle: "edges N seams S gap G",
 *                                      seams the edges whose triangles
 *                                      have different texture coordinates
 *                                      there, G the largest distance in
 *                                      metres
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "obj.h"
#include "rest_surface.h"
#include "unit.h"

/* The rigid motion of the square: a rotation about an oblique axis and a
 * translation, so that interpolation errors cannot hide in zeros. */
static void moved(double u, double v, double out[3])
{
	const double R[3][3] = {{0.36, 0.48, -0.80}, {-0.80, 0.60, 0.00},
				{0.48, 0.64, 0.60}};
	const double t[3] = {0.25, -1.5, 0.75};
	for (int k = 0; k < 3; k++)
		out[k] = R[k][0] * u + R[k][1] * v + t[k];
}

static int square_obj(void)
{
	const double uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
	for (int k = 0; k < 4; k++) {
		double x[3];
		moved(uv[k][0], uv[k][1], x);
		printf("v %.17g %.17g %.17g\n", x[0], x[1], x[2]);
	}
	for (int k = 0; k < 4; k++)
		printf("vt %g %g\n", uv[k][0], uv[k][1]);
	printf("f 1/1 2/2 3/3\nf 1/1 3/3 4/4\n");
	return 0;
}

static int square_check(const char *path)
{
	struct grid g;
	load(path, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const float *rest = channel(&g, "rest", GRID_F32, 3);
	double maxerr = 0;
	long inside = 0, wrong = 0;
	for (int j = 0; j < g.height; j++)
		for (int i = 0; i < g.width; i++) {
			size_t v = (size_t)j * g.width + i;
			double u = g.origin[0] + i * g.cell, w = g.origin[1] + j * g.cell;
			double tol = 1e-9;
			int in = u >= -tol && u <= 1 + tol && w >= -tol && w <= 1 + tol;
			int marked = mask[v] & MASK_INSIDE;
			wrong += in != marked;
			if (!marked)
				continue;
			inside++;
			double x[3];
			moved(u, w, x);
			for (int k = 0; k < 3; k++)
				maxerr = fmax(maxerr, fabs(rest[3 * v + k] - x[k]));
		}
	double area = inside * g.cell * g.cell;
	double slack = 4 * g.cell;   /* one cell row along the perimeter */
	printf("inside %ld, misclassified %ld, max error %.3g m, "
	       "area %.6f m2 (pattern 1, allowed +-%.6f)\n",
	       inside, wrong, maxerr, area, slack);
	int ok = wrong == 0 && maxerr < 1e-6 && fabs(area - 1) <= slack;
	grid_free(&g);
	return !ok;
}

/* The seam vertex nearest to pattern point q (within two cells) whose own
 * partner points back to within three cells of pattern point p: the
 * vertex on the other side of the same seam.  -1 if none. */
static long partner_vertex(const struct grid *g, const uint8_t *mask,
			   const float *seam, const float q[2], double px,
			   double py)
{
	double fi = (q[0] - g->origin[0]) / g->cell, fj = (q[1] - g->origin[1]) / g->cell;
	long best = -1;
	double bd = INFINITY;
	for (int j = (int)floor(fj) - 2; j <= (int)ceil(fj) + 2; j++)
		for (int i = (int)floor(fi) - 2; i <= (int)ceil(fi) + 2; i++) {
			if (i < 0 || j < 0 || i >= g->width || j >= g->height)
				continue;
			size_t v = (size_t)j * g->width + i;
			if (!(mask[v] & MASK_SEAM) ||
			    hypot(seam[3 * v] - px, seam[3 * v + 1] - py) > 3 * g->cell)
				continue;
			double d = hypot(i - fi, j - fj);
			if (d < bd) {
				bd = d;
				best = (long)v;
			}
		}
	return best;
}

/* Symmetry of the seam correspondence: the partner of a seam vertex p is a
 * point q on the other side's seam line; the seam vertex r nearest to q
 * has a partner that must come back to p.  A boundary vertex can lie up to
 * sqrt(2) cells from the seam line and r up to half a diagonal from q, so
 * the mirrored partner comes back within a cell, except where the mirror
 * is not an isometry: at the ends of a seam, and along seams of unequal
 * length on the two sides.  The test states the share it requires. */
static int seams(const char *path, double share)
{
	struct grid g;
	load(path, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const float *seam = channel(&g, "seam", GRID_F32, 3);
	long count = 0, lost = 0, far = 0;
	double worst = 0;
	for (size_t v = 0; v < grid_vertices(&g); v++) {
		if (!(mask[v] & MASK_SEAM))
			continue;
		count++;
		double px = g.origin[0] + (double)(v % g.width) * g.cell;
		double py = g.origin[1] + (double)(v / g.width) * g.cell;
		long r = partner_vertex(&g, mask, seam, &seam[3 * v], px, py);
		if (r < 0) {
			lost++;
			continue;
		}
		double d = hypot(seam[3 * r] - px, seam[3 * r + 1] - py) / g.cell;
		worst = fmax(worst, d);
		far += d > 1;
	}
	double within = count ? 100.0 * (count - lost - far) / count : 0;
	printf("seam vertices %ld, partner's partner within one cell %.1f%% "
	       "(%ld farther, worst %.2f cells, %ld without a way back)\n",
	       count, within, far, worst, lost);
	grid_free(&g);
	return !(count > 0 && within >= share);
}

static int panels(const char *path)
{
	struct grid g;
	load(path, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const uint16_t *panel = channel(&g, "panel", GRID_U16, 1);
	static char seen[65536];
	int n = 0;
	for (size_t v = 0; v < grid_vertices(&g); v++)
		if ((mask[v] & MASK_INSIDE) && !seen[panel[v]]) {
			seen[panel[v]] = 1;
			n++;
		}
	printf("%d\n", n);
	grid_free(&g);
	return 0;
}

static int cylinder(int n)
{
	const double r = 0.1, len = 0.2, pi = 3.14159265358979323846;
	for (int k = 0; k <= n; k++)
		for (int e = 0; e < 2; e++) {
			double a = pi * k / n;
			printf("v %.17g %.17g %.17g\n", r * cos(a), r * sin(a), e * len);
		}
	/* the chord of a strip in the pattern: the unrolled flat triangles */
	double chord = 2 * r * sin(pi / (2 * n));
	for (int k = 0; k <= n; k++)
		for (int e = 0; e < 2; e++)
			printf("vt %.17g %.17g\n", chord * k, e * len);
	for (int k = 0; k < n; k++) {
		int a = 2 * k + 1, b = a + 1, c = a + 2, d = a + 3;
		printf("f %d/%d %d/%d %d/%d\n", a, a, c, c, d, d);
		printf("f %d/%d %d/%d %d/%d\n", a, a, d, d, b, b);
	}
	return 0;
}

static int tube(int n)
{
	const double r = 0.1, len = 0.2, pi = 3.14159265358979323846;
	for (int k = 0; k < n; k++)
		for (int e = 0; e < 2; e++) {
			double a = 2 * pi * k / n;
			printf("v %.17g %.17g %.17g\n", r * cos(a), r * sin(a), e * len);
		}
	double chord = 2 * r * sin(pi / n);
	for (int k = 0; k <= n; k++)
		for (int e = 0; e < 2; e++)
			printf("vt %.17g %.17g\n", chord * k, e * len);
	/* strip k joins positions k and k + 1 (mod n: the seam) and
	 * texture columns k and k + 1 */
	for (int k = 0; k < n; k++) {
		int a = 2 * k + 1, b = a + 1, c = 2 * ((k + 1) % n) + 1, d = c + 1;
		int ta = 2 * k + 1, tb = ta + 1, tc = ta + 2, td = ta + 3;
		printf("f %d/%d %d/%d %d/%d\n", a, ta, c, tc, d, td);
		printf("f %d/%d %d/%d %d/%d\n", a, ta, d, td, b, tb);
	}
	return 0;
}

/* The unit normal of grid triangle a b c. */
static void tri_normal(const float *x, size_t a, size_t b, size_t c,
		       double n[3])
{
	double e1[3], e2[3], len = 0;
	for (int k = 0; k < 3; k++) {
		e1[k] = (double)x[3 * b + k] - x[3 * a + k];
		e2[k] = (double)x[3 * c + k] - x[3 * a + k];
	}
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	for (int k = 0; k < 3; k++)
		len += n[k] * n[k];
	for (int k = 0; k < 3; k++)
		n[k] /= sqrt(len);
}

enum { CLOTH = 1, GHOSTLY = 2 };

/* What triangle a b c is: CLOTH when its corners are cloth vertices,
 * GHOSTLY when they are cloth or ghost vertices of one panel, at least
 * one a ghost, and every ghost in a row of the grid that has cloth
 * vertices (the band past an edge across the rows, not the discs around
 * the edge's ends); else 0.  row_cloth: whether each row has any. */
static int kind(const uint8_t *mask, const uint16_t *panel,
		const uint8_t *row_cloth, size_t w, const size_t *t)
{
	int cloth = 0, ghost = 0;
	for (int c = 0; c < 3; c++) {
		if (panel[t[c]] != panel[t[0]])
			return 0;
		if ((mask[t[c]] & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE)
			cloth++;
		else if ((mask[t[c]] & MASK_GHOST) && row_cloth[t[c] / w])
			ghost++;
	}
	return cloth == 3 ? CLOTH : cloth + ghost == 3 ? GHOSTLY : 0;
}

/* The solver's triangles of cell (i, j), lower and upper; the angle
 * between neighbours across each of the cell's diagonal and its right and
 * top edges. */
static int facets(const char *path)
{
	struct grid g;
	load(path, &g);
	const struct grid_channel *xc = grid_find_typed(&g, "x", GRID_F32, 3);
	if (!xc)
		xc = grid_find_typed(&g, "rest", GRID_F32, 3);
	const uint8_t *mask = grid_find(&g, "mask")->data;
	const uint16_t *panel = grid_find(&g, "panel")->data;
	const int32_t *tri = grid_find(&g, "tri")->data;
	const float *x = xc->data;
	size_t w = (size_t)g.width, h = (size_t)g.height;
	double inside = 0, across = 0, ghost = 0;
	uint8_t *row_cloth = calloc(h, 1);
	for (size_t v = 0; v < w * h; v++)
		if ((mask[v] & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE)
			row_cloth[v / w] = 1;
	/* triangles as (corners): lower (i,j) (i+1,j) (i,j+1), upper (i+1,j)
	 * (i+1,j+1) (i,j+1) */
	for (size_t j = 0; j + 2 < h; j++)
		for (size_t i = 0; i + 2 < w; i++) {
			size_t v = j * w + i;
			/* lower of (i,j) with upper of (i,j): diagonal;
			 * upper of (i,j) with lower of (i+1,j): right edge;
			 * upper of (i,j) with lower of (i,j+1): top edge */
			size_t t[4][3] = {{v, v + 1, v + w}, {v + 1, v + w + 1, v + w},
					  {v + 1, v + 2, v + w + 1},
					  {v + w, v + w + 1, v + 2 * w}};
			int k[4];
			for (int q = 0; q < 4; q++)
				k[q] = kind(mask, panel, row_cloth, w, t[q]);
			static const int pairs[3][2] = {{0, 1}, {1, 2}, {1, 3}};
			for (int p = 0; p < 3; p++) {
				const size_t *a = t[pairs[p][0]], *b = t[pairs[p][1]];
				int ka = k[pairs[p][0]], kb = k[pairs[p][1]];
				if (!ka || !kb || (ka == GHOSTLY && kb == GHOSTLY))
					continue;
				double na[3], nb[3];
				tri_normal(x, a[0], a[1], a[2], na);
				tri_normal(x, b[0], b[1], b[2], nb);
				double d = na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2];
				double ang = acos(d > 1 ? 1 : d < -1 ? -1 : d) * 180 / 3.14159265358979323846;
				int one = 1;
				for (int c = 0; c < 3; c++)
					one &= tri[a[c]] == tri[a[0]] && tri[b[c]] == tri[a[0]];
				double *m = ka != kb ? &ghost : one ? &inside : &across;
				*m = ang > *m ? ang : *m;
			}
		}
	printf("inside %.4f across %.4f ghost %.4f\n", inside, across, ghost);
	free(row_cloth);
	grid_free(&g);
	return 0;
}

/* An edge of a triangle: its end positions (lower index first), the
 * triangle and the corners they are at. */
struct edge {
	int a, b, t, ca, cb;
};

static int cmp_edge(const void *p, const void *q)
{
	const struct edge *x = p, *y = q;
	if (x->a != y->a)
		return (x->a > y->a) - (x->a < y->a);
	return (x->b > y->b) - (x->b < y->b);
}

/* The barycentric weights (of corners 1 and 2) of the point at fraction
 * f from corner ca to corner cb. */
static void edge_weights(int ca, int cb, float f, float b[2])
{
	float w[3] = {0, 0, 0};
	w[ca] = 1 - f;
	w[cb] = f;
	b[0] = w[1];
	b[1] = w[2];
}

static int same_vt(const struct obj_mesh *m, int t, int c, int u, int d)
{
	const double *p = m->vt[m->tri_vt[t][c]], *q = m->vt[m->tri_vt[u][d]];
	return p[0] == q[0] && p[1] == q[1];
}

static int watertight(const char *path)
{
	struct obj_mesh m;
	struct error e;
	if (obj_load(&m, path, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	struct edge *ed = malloc((size_t)m.ntri * 3 * sizeof *ed);
	size_t n = 0;
	for (int t = 0; t < m.ntri; t++)
		for (int c = 0; c < 3; c++) {
			int d = (c + 1) % 3, va = m.tri_v[t][c], vb = m.tri_v[t][d];
			ed[n++] = va < vb ? (struct edge){va, vb, t, c, d}
					  : (struct edge){vb, va, t, d, c};
		}
	qsort(ed, n, sizeof *ed, cmp_edge);
	struct rest_surface rs;
	rest_surface_init(&rs, &m, 1);
	long edges = 0, seams = 0;
	double gap = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		const struct edge *x = &ed[i], *y = &ed[i + 1];
		if (x->a != y->a || x->b != y->b || x->a == x->b)
			continue;
		edges++;
		seams += !same_vt(&m, x->t, x->ca, y->t, y->ca) ||
			 !same_vt(&m, x->t, x->cb, y->t, y->cb);
		for (int q = 1; q <= 3; q++) {
			float bx[2], by[2];
			edge_weights(x->ca, x->cb, q / 4.0f, bx);
			edge_weights(y->ca, y->cb, q / 4.0f, by);
			dvec3 px = rest_surface_at(&rs, x->t, bx);
			dvec3 py = rest_surface_at(&rs, y->t, by);
			gap = fmax(gap, d3_norm(d3_sub(px, py)));
		}
	}
	printf("edges %ld seams %ld gap %.3g\n", edges, seams, gap);
	rest_surface_free(&rs);
	free(ed);
	obj_free(&m);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	if (strcmp(cmd, "square-obj") == 0)
		return square_obj();
	if (argc > 2 && strcmp(cmd, "square-check") == 0)
		return square_check(argv[2]);
	if (argc > 3 && strcmp(cmd, "seams") == 0)
		return seams(argv[2], atof(argv[3]));
	if (argc > 2 && strcmp(cmd, "panels") == 0)
		return panels(argv[2]);
	if (argc > 2 && strcmp(cmd, "cylinder") == 0)
		return cylinder(atoi(argv[2]));
	if (argc > 2 && strcmp(cmd, "tube") == 0)
		return tube(atoi(argv[2]));
	if (argc > 2 && strcmp(cmd, "facets") == 0)
		return facets(argv[2]);
	if (argc > 2 && strcmp(cmd, "watertight") == 0)
		return watertight(argv[2]);
	fprintf(stderr, "usage: test_resample square-obj|square-check|seams|"
		"panels|cylinder|tube|facets|watertight\n");
	return 2;
}

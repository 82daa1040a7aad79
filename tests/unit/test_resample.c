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
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
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
	fprintf(stderr, "usage: test_resample square-obj|square-check|seams|panels\n");
	return 2;
}

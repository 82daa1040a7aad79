/* upsample.c - a solved coarser level as the starting guess of the next
 * finer one (multi-resolution, paper section 6.1).
 *
 * Levels nest: fine vertex (2i, 2j) is coarse vertex (i, j), so a fine
 * vertex sits on a coarse vertex, midway along a coarse edge, or in the
 * middle of a coarse cell.  What is carried is the wrinkle, d = x - rest,
 * not the position: the fine rest is the coarse mesh sampled more finely,
 * and x = rest + d keeps it.  d comes only from coarse cloth vertices of
 * the fine vertex's own panel, so no wrinkle crosses a panel boundary,
 * and from the far ends of its panel's coarse seam links:
 *   - bilinear from the two or four coarse corners when they all are;
 *   - otherwise (near a boundary) the value at the fine vertex of the
 *     affine function fitted by weighted least squares to the ones among
 *     the 3 x 3 or 4 x 4 coarse vertices around it, and to the partner
 *     points of the seam vertices among them;
 *   - their weighted mean when they lie on a line (a strip one cell
 *     wide);
 *   - d = 0 when there is none.
 * Bilinear interpolation and the affine fit are both exact for affine d,
 * so a smooth d comes out with an error of O(h^2), boundaries included.
 * Nothing here depends on the level but the cell, through the grid.
 *
 * Why the partner points: a fine vertex between its panel's last coarse
 * vertex and a seam lies, on the coarse level, on the seam link, the
 * straight spring that stands for the cloth across the seam.  Fitted
 * from its own panel alone it continued that panel's slope past the
 * seam, and where the coarse level creases at the seam, the two sides'
 * continuations crossed: the shared dress solved at 512 on its posed
 * body, free of intersections, started 1024 with 131 intersecting pairs
 * across its seams (27 with the links), and 64 iterations of --self
 * --safe=seams left 17 (1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "initialize.h"
#include "seam_link.h"

/* The coarse level: its layout, wrinkles and seams (NULL: none). */
struct coarse {
	const struct grid *g;
	struct frame_field f;
	const float *x, *seam;
};

static size_t at(const struct frame_field *f, int i, int j)
{
	return (size_t)j * (size_t)f->w + (size_t)i;
}

static void describe(const struct frame_field *f, size_t v, char *buf,
		     size_t n)
{
	if (f->mask[v] & MASK_INSIDE)
		snprintf(buf, n, "cloth of panel %u", (unsigned)f->panel[v]);
	else
		snprintf(buf, n, "not cloth");
}

/* The cloth flag and panel of every coarse vertex and of the fine vertex
 * at the same place. */
static int same_panels(const struct frame_field *fine,
		       const struct frame_field *coarse, const char *name,
		       struct error *e)
{
	char wc[40], wf[40];
	for (int j = 0; j < coarse->h; j++)
		for (int i = 0; i < coarse->w; i++) {
			size_t c = at(coarse, i, j), v = at(fine, 2 * i, 2 * j);
			int in = coarse->mask[c] & MASK_INSIDE;
			if (in == (fine->mask[v] & MASK_INSIDE) &&
			    (!in || coarse->panel[c] == fine->panel[v]))
				continue;
			describe(coarse, c, wc, sizeof wc);
			describe(fine, v, wf, sizeof wf);
			return error_set(e, "%s does not nest with this grid: "
					 "its vertex (%d, %d) is %s, this "
					 "grid's (%d, %d) is %s", name, i, j,
					 wc, 2 * i, 2 * j, wf);
		}
	return 0;
}

int upsample_nests(const struct grid *fine, const struct grid *coarse,
		   const char *name, struct error *e)
{
	struct frame_field ff, cf;
	/* Both cells and origins come from the same pattern extent, halved
	 * or doubled exactly; the tolerance only forgives a hand-written
	 * header. */
	double tol = 1e-9 * coarse->cell;
	if (fabs(coarse->cell - 2 * fine->cell) > tol)
		return error_set(e, "%s is not the next coarser level: its cell "
				 "%.9g m is not twice this grid's %.9g m",
				 name, coarse->cell, fine->cell);
	if (fabs(coarse->origin[0] - fine->origin[0]) > tol ||
	    fabs(coarse->origin[1] - fine->origin[1]) > tol)
		return error_set(e, "%s does not nest with this grid: its "
				 "origin (%.9g, %.9g) is not this grid's "
				 "(%.9g, %.9g)", name, coarse->origin[0],
				 coarse->origin[1], fine->origin[0],
				 fine->origin[1]);
	if (fine->width != 2 * coarse->width - 1 ||
	    fine->height != 2 * coarse->height - 1)
		return error_set(e, "%s does not nest with this grid: %d x %d "
				 "vertices, where the level under %d x %d has "
				 "%d x %d", name, coarse->width, coarse->height,
				 fine->width, fine->height,
				 (fine->width + 1) / 2, (fine->height + 1) / 2);
	if (frame_field_init(&ff, fine, e) || named_field(&cf, coarse, name, e))
		return -1;
	return same_panels(&ff, &cf, name, e);
}

/* Bilinear weights at a fine vertex are all equal: 1, 1/2 or 1/4.
 * Returns 0 when a corner is not cloth of panel p. */
static int bilinear(const struct coarse *c, int fi, int fj, uint16_t p,
		    double d[3])
{
	int i0 = fi / 2, j0 = fj / 2, ni = 1 + (fi & 1), nj = 1 + (fj & 1);
	double wgt = 1.0 / (ni * nj), dk[3];
	d[0] = d[1] = d[2] = 0;
	for (int b = 0; b < nj; b++)
		for (int a = 0; a < ni; a++) {
			if (!frame_cloth_of(&c->f, i0 + a, j0 + b, p))
				return 0;
			frame_displacement(&c->f, c->x, at(&c->f, i0 + a, j0 + b), dk);
			for (int k = 0; k < 3; k++)
				d[k] += wgt * dk[k];
		}
	return 1;
}

/* Sums of the normal equations of the weighted affine fit
 * d ~ c0 + c1 a + c2 b, (a, b) the offset of a coarse vertex from the fine
 * one in coarse cells.  The weight 1 / (1/4 + a^2 + b^2)^2 lets the
 * nearest vertices decide: near a curved boundary it halves the error of
 * an unweighted fit. */
struct fit_sums {
	double m[3][3];     /* sum of w phi phi^T, phi = (1, a, b) */
	double r[3][3];     /* r[q][k]: sum of w phi_q d_k */
};

static void fit_add(struct fit_sums *s, double a, double b, const double d[3])
{
	double phi[3] = {1, a, b}, q2 = 0.25 + a * a + b * b, wt = 1 / (q2 * q2);
	for (int q = 0; q < 3; q++) {
		for (int t = 0; t < 3; t++)
			s->m[q][t] += wt * phi[q] * phi[t];
		for (int k = 0; k < 3; k++)
			s->r[q][k] += wt * phi[q] * d[k];
	}
}

/* The fitted constant c0, the value at the fine vertex: the first row of
 * the inverse of m, by cofactors, applied to r.  By Cauchy-Binet, det m
 * is the sum over triples of points of the product of their weights and
 * the square of twice their triangle's area; the coarse vertices lie on
 * the lattice, so that area is 0 (collinear) or at least 1/2, and no
 * offset in the window exceeds 1.5 cells each way, so no weight is below
 * 1 / 4.75^2: det m is 0 or above 8e-5.  Below 1e-6 the points are
 * collinear and the weighted mean is taken.  Seam partner points lie off
 * the lattice, where no such bound holds: a partner a hair off the line
 * of collinear coarse vertices would decide the whole cross slope alone
 * (0.01 cells off: 50 times the jump across the seam).  So the choice is
 * made on the coarse vertices' own sums, lattice, and the fit then takes
 * every point.  Returns 0 for no point. */
static double fit_det(const double (*m)[3], double c[3])
{
	c[0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
	c[1] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
	c[2] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
	return m[0][0] * c[0] + m[0][1] * c[1] + m[0][2] * c[2];
}

static int fit_solve(const struct fit_sums *s, const struct fit_sums *lattice,
		     double d[3], int *affine)
{
	const double (*m)[3] = s->m;
	double c[3], cl[3];
	double det = fit_det(m, c), c0 = c[0], c1 = c[1], c2 = c[2];
	*affine = fit_det(lattice->m, cl) > 1e-6;
	for (int k = 0; k < 3; k++)
		d[k] = !(m[0][0] > 0) ? 0 : *affine ?
		       (c0 * s->r[0][k] + c1 * s->r[1][k] + c2 * s->r[2][k]) / det :
		       s->r[0][k] / m[0][0];
	return m[0][0] > 0;
}

/* The far end of coarse seam vertex (i, j)'s link as a sample of its own
 * panel's d: the partner point's d, at the place in the vertex's lattice
 * (in coarse cells) where the seam unfolds it, (i, j) plus the offset
 * whose image under the rest surface's derivatives there is closest to
 * the rest path from the vertex to its partner.  Returns 0 for no link:
 * not a seam vertex, a seam of no length (twins, joined after), a
 * partner off the cloth or a surface without tangents there. */
static int partner_sample(const struct coarse *c, int i, int j, double ab[2],
			  double d[3])
{
	size_t v = at(&c->f, i, j);
	const float *q = c->seam + 3 * v;
	struct seam_link l;
	double tu[3], tv[3], r[3] = {0, 0, 0};
	if (!(c->f.mask[v] & MASK_SEAM) || !isfinite(q[0]) || !isfinite(q[1]) ||
	    !(q[2] > SEAM_TWIN_LENGTH * c->g->cell) ||
	    !seam_partner_stencil(c->g, c->f.mask, c->f.panel, v, q[0], q[1], &l) ||
	    !frame_lattice_tangents(&c->f, i, j, tu, tv))
		return 0;
	d[0] = d[1] = d[2] = 0;
	for (int k = 0; k < 4; k++) {
		double dk[3];
		if (l.w[k] == 0.0f)
			continue;
		frame_displacement(&c->f, c->x, l.corner[k], dk);
		for (int m = 0; m < 3; m++) {
			d[m] += l.w[k] * dk[m];
			r[m] += l.w[k] * c->f.rest[3 * (size_t)l.corner[k] + m];
		}
	}
	for (int m = 0; m < 3; m++)
		r[m] -= c->f.rest[3 * v + m];
	double guu = 0, guv = 0, gvv = 0, ru = 0, rv = 0;
	for (int m = 0; m < 3; m++) {
		guu += tu[m] * tu[m];
		guv += tu[m] * tv[m];
		gvv += tv[m] * tv[m];
		ru += tu[m] * r[m];
		rv += tv[m] * r[m];
	}
	double det = guu * gvv - guv * guv;
	if (!(det > 0))
		return 0;
	ab[0] = i + (gvv * ru - guv * rv) / det;
	ab[1] = j + (guu * rv - guv * ru) / det;
	return 1;
}

static int fit(const struct coarse *c, int fi, int fj, uint16_t p,
	       double d[3], int *affine, int *seamed)
{
	struct fit_sums s = {0}, lattice = {0};
	int i0 = fi / 2, j0 = fj / 2;
	double dk[3], ab[2];
	*seamed = 0;
	for (int j = j0 - 1; j <= j0 + 1 + (fj & 1); j++)
		for (int i = i0 - 1; i <= i0 + 1 + (fi & 1); i++) {
			if (!frame_cloth_of(&c->f, i, j, p))
				continue;
			frame_displacement(&c->f, c->x, at(&c->f, i, j), dk);
			fit_add(&s, i - 0.5 * fi, j - 0.5 * fj, dk);
			fit_add(&lattice, i - 0.5 * fi, j - 0.5 * fj, dk);
			if (c->seam && partner_sample(c, i, j, ab, dk)) {
				fit_add(&s, ab[0] - 0.5 * fi, ab[1] - 0.5 * fj, dk);
				*seamed = 1;
			}
		}
	return fit_solve(&s, &lattice, d, affine);
}

/* Twins (seam_link.h: a seam of no length, two vertices that are one
 * point of the cloth) were one point at the coarse level too, but each
 * takes its own panel's wrinkle, and the two sides would start apart and
 * through each other (the quick start's skirt, its level of 192 cells
 * solved as examples/run does, carried to 384: 217 intersecting pairs
 * across its seam, 4 with the twins joined).  So both go to the mean of
 * their two positions, or to a pinned one's. */
static void join_twins(const struct grid *g, const uint8_t *mask, float *x)
{
	size_t n = grid_vertices(g);
	uint8_t *mov = xmalloc_array(n ? n : 1, 1);
	for (size_t v = 0; v < n; v++)
		mov[v] = (mask[v] & (MASK_INSIDE | MASK_GHOST | MASK_FIXED)) ==
			 MASK_INSIDE;
	seam_join_twins(g, mov, x);
	free(mov);
}

int upsample(struct grid *fine, const struct grid *coarse,
	     const float *coarse_x, struct upsample_counts *n,
	     struct error *e)
{
	struct frame_field ff;
	const struct grid_channel *sc = grid_find_typed(coarse, "seam", GRID_F32, 3);
	struct coarse c = {.g = coarse, .x = coarse_x, .seam = sc ? sc->data : NULL};
	float *x;
	if (frame_field_init(&ff, fine, e) || frame_field_init(&c.f, coarse, e) ||
	    !(x = x_at_rest(fine, e)))
		return -1;
	size_t bil = 0, fitted = 0, averaged = 0, none = 0, seamed = 0;
	#pragma omp parallel for schedule(static) reduction(+: bil, fitted, averaged, none, seamed)
	for (int j = 0; j < ff.h; j++)
		for (int i = 0; i < ff.w; i++) {
			size_t v = at(&ff, i, j);
			uint16_t p = ff.panel[v];
			double d[3];
			int affine, across;
			if (!(ff.mask[v] & MASK_INSIDE))
				continue;
			if (bilinear(&c, i, j, p, d))
				bil++;
			else if (!fit(&c, i, j, p, d, &affine, &across))
				none++;
			else {
				fitted += affine;
				averaged += !affine;
				seamed += across;
			}
			for (int k = 0; k < 3; k++)
				x[3 * v + k] = (float)(ff.rest[3 * v + k] + d[k]);
		}
	join_twins(fine, ff.mask, x);
	n->bilinear = bil;
	n->fitted = fitted;
	n->averaged = averaged;
	n->none = none;
	n->seamed = seamed;
	return 0;
}

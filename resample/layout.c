/* layout.c - grid geometry over the pattern and rasterisation of panels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resample.h"

/* A grid vertex within this barycentric tolerance of a triangle counts as
 * inside it, so that vertices exactly on a pattern edge are not lost to
 * rounding (1e-7 of a coarse edge is a few nanometres). */
#define INSIDE_TOL 1e-7

static void uv_of(const struct obj_mesh *m, int t, int k, double s,
		  double out[2])
{
	const double *vt = m->vt[m->tri_vt[t][k]];
	out[0] = vt[0] * s;
	out[1] = vt[1] * s;
}

static void pattern_bounds(const struct obj_mesh *m, double s,
			   double lo[2], double hi[2])
{
	lo[0] = lo[1] = HUGE_VAL;
	hi[0] = hi[1] = -HUGE_VAL;
	for (int t = 0; t < m->ntri; t++)
		for (int k = 0; k < 3; k++) {
			double p[2];
			uv_of(m, t, k, s, p);
			for (int a = 0; a < 2; a++) {
				lo[a] = fmin(lo[a], p[a]);
				hi[a] = fmax(hi[a], p[a]);
			}
		}
}

/* Grid geometry.  With --size N the longer side spans exactly N cells.
 * Levels nest (a level's vertices are every second vertex of the next
 * finer one, same origin) when every count below scales with N: so for N a
 * multiple of 64 the padding and the shorter side are counted in units of
 * N/64 cells, which doubles with N.  The padding is N/64 cells unless the
 * ghost band needs more (band + 3 cells), so levels nest when N/64 is at
 * least band + 3: from N = 192 without a ghost band.  See
 * pleat-resample(1). */
static int lay_grid(struct grid *g, const struct obj_mesh *m,
		    const struct resample_options *o, struct error *e)
{
	double lo[2], hi[2];
	pattern_bounds(m, o->uv_scale, lo, hi);
	double ext[2] = {hi[0] - lo[0], hi[1] - lo[1]};
	int longer = ext[1] > ext[0];
	double cell, span;
	long n[2], pad, unit = 1;
	/* Finite coordinates can still span more than a double holds. */
	if (!isfinite(ext[0]) || !isfinite(ext[1]))
		return error_set(e, "texture coordinates too large: the "
				 "pattern's extent overflows");
	if (o->size > 0) {
		cell = ext[longer] / o->size;
		n[longer] = o->size;
		if (o->size % 64 == 0)
			unit = o->size / 64;
	} else {
		cell = o->cell;
		/* Checked as a double: a huge pattern would overflow a long. */
		span = ceil(ext[longer] / cell - 1e-9);
		if (span > GRID_MAX_SIDE)
			return error_set(e, "grid of %.3g cells across is too "
					 "large (at most %d each way)", span,
					 GRID_MAX_SIDE);
		n[longer] = (long)span;
	}
	if (!(cell > 0))
		return error_set(e, "the pattern has zero extent");
	n[!longer] = (long)ceil(ext[!longer] / cell / unit - 1e-9) * unit;
	pad = (n[longer] + 63) / 64;
	if (pad < o->ghost_band + 3)
		pad = o->ghost_band + 3;
	pad = (pad + unit - 1) / unit * unit;
	long w = n[0] + 2 * pad + 1, h = n[1] + 2 * pad + 1;
	if (w > GRID_MAX_SIDE || h > GRID_MAX_SIDE)
		return error_set(e, "grid of %ld x %ld vertices is too large "
				 "(at most %d each way)", w, h, GRID_MAX_SIDE);
	double origin[2] = {lo[0] - pad * cell, lo[1] - pad * cell};
	return grid_init(g, (int)w, (int)h, cell, origin, e);
}

/* Assigns every grid vertex inside triangle t (in pattern space) to it,
 * unless an earlier triangle has it: the lowest triangle index wins, which
 * keeps the result independent of any parallel schedule. */
static void raster_triangle(struct layout *l, const struct obj_mesh *m,
			    const struct pattern *p, int t, double s,
			    int32_t *tri, float *bary)
{
	struct grid *g = &l->grid;
	double a[2], b[2], c[2];
	uv_of(m, t, 0, s, a);
	uv_of(m, t, 1, s, b);
	uv_of(m, t, 2, s, c);
	double area2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
	if (area2 == 0)
		return;                    /* degenerate in the pattern */
	double x0 = (fmin(a[0], fmin(b[0], c[0])) - g->origin[0]) / g->cell;
	double x1 = (fmax(a[0], fmax(b[0], c[0])) - g->origin[0]) / g->cell;
	double y0 = (fmin(a[1], fmin(b[1], c[1])) - g->origin[1]) / g->cell;
	double y1 = (fmax(a[1], fmax(b[1], c[1])) - g->origin[1]) / g->cell;
	int i0 = (int)fmax(0, ceil(x0 - 1e-6)), i1 = (int)fmin(g->width - 1, floor(x1 + 1e-6));
	int j0 = (int)fmax(0, ceil(y0 - 1e-6)), j1 = (int)fmin(g->height - 1, floor(y1 + 1e-6));
	uint16_t *panel = grid_find(g, "panel")->data;
	for (int j = j0; j <= j1; j++)
		for (int i = i0; i <= i1; i++) {
			double x = g->origin[0] + i * g->cell;
			double y = g->origin[1] + j * g->cell;
			double l1 = ((x - a[0]) * (c[1] - a[1]) - (y - a[1]) * (c[0] - a[0])) / area2;
			double l2 = ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])) / area2;
			double l0 = 1 - l1 - l2;
			if (l0 < -INSIDE_TOL || l1 < -INSIDE_TOL || l2 < -INSIDE_TOL)
				continue;
			size_t v = (size_t)j * g->width + i;
			if (tri[v] >= 0) {
				int strict = l0 > INSIDE_TOL && l1 > INSIDE_TOL && l2 > INSIDE_TOL;
				if (strict && panel[v] != p->tri_panel[t])
					l->overlaps++;
				continue;
			}
			tri[v] = t;
			bary[2 * v] = (float)fmax(0, l1);
			bary[2 * v + 1] = (float)fmax(0, l2);
			panel[v] = (uint16_t)p->tri_panel[t];
		}
}

static int add_channels(struct grid *g, struct error *e)
{
	if (!grid_add(g, "mask", GRID_U8, 1, e) ||
	    !grid_add(g, "panel", GRID_U16, 1, e) ||
	    !grid_add(g, "tri", GRID_I32, 1, e) ||
	    !grid_add(g, "bary", GRID_F32, 2, e) ||
	    !grid_add(g, "seam", GRID_F32, 3, e))
		return -1;
	return 0;
}

int layout_build(struct layout *l, const struct obj_mesh *m,
		 const struct pattern *p, const struct resample_options *o,
		 struct error *e)
{
	memset(l, 0, sizeof *l);
	if (p->npanels >= PANEL_NONE)
		return error_set(e, "%d panels, more than the %d a grid holds",
				 p->npanels, PANEL_NONE - 1);
	if (lay_grid(&l->grid, m, o, e) || add_channels(&l->grid, e)) {
		grid_free(&l->grid);
		return -1;
	}
	struct grid *g = &l->grid;
	size_t n = grid_vertices(g);
	int32_t *tri = grid_find(g, "tri")->data;
	uint16_t *panel = grid_find(g, "panel")->data;
	uint8_t *mask = grid_find(g, "mask")->data;
	float *seam = grid_find(g, "seam")->data;
	for (size_t v = 0; v < n; v++) {
		tri[v] = -1;
		panel[v] = PANEL_NONE;
		seam[3 * v] = seam[3 * v + 1] = seam[3 * v + 2] = NAN;
	}
	float *bary = grid_find(g, "bary")->data;
	for (int t = 0; t < m->ntri; t++)
		raster_triangle(l, m, p, t, o->uv_scale, tri, bary);
	for (size_t v = 0; v < n; v++)
		mask[v] = tri[v] >= 0 ? MASK_INSIDE : 0;
	layout_boundaries(l, m, p, o);
	return 0;
}

void layout_free(struct layout *l)
{
	grid_free(&l->grid);
	free(l->ghost_vertex);
	free(l->ghost_edge);
	free(l->ghost_dist);
	memset(l, 0, sizeof *l);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double pattern_scale_ratio(const struct obj_mesh *m, double uv_scale)
{
	double *r = xmalloc_array((size_t)m->ntri * 3, sizeof *r);
	size_t n = 0;
	for (int t = 0; t < m->ntri; t++)
		for (int k = 0; k < 3; k++) {
			const double *p = m->v[m->tri_v[t][k]];
			const double *q = m->v[m->tri_v[t][(k + 1) % 3]];
			const double *u = m->vt[m->tri_vt[t][k]];
			const double *w = m->vt[m->tri_vt[t][(k + 1) % 3]];
			double d3 = sqrt((p[0] - q[0]) * (p[0] - q[0]) +
					 (p[1] - q[1]) * (p[1] - q[1]) +
					 (p[2] - q[2]) * (p[2] - q[2]));
			double d2 = uv_scale * hypot(u[0] - w[0], u[1] - w[1]);
			if (d2 > 0 && d3 > 0)
				r[n++] = d3 / d2;
		}
	double med = 0;
	if (n) {
		qsort(r, n, sizeof *r, cmp_double);
		med = r[n / 2];
	}
	free(r);
	return med;
}

/* seam_link.c - where a seam vertex's partner point lies on the grid,
 * for pleat-solve's seam springs and pleat-simplify's seam closing. */
#include <math.h>
#include <stdint.h>

#include "grid.h"
#include "seam_link.h"

int seam_partner_stencil(const struct grid *g, const uint8_t *mask,
			 const uint16_t *panel, size_t self, double u, double v,
			 struct seam_link *l)
{
	double gx = (u - g->origin[0]) / g->cell;
	double gy = (v - g->origin[1]) / g->cell;
	if (!(gx > -1 && gy > -1 && gx < g->width && gy < g->height))
		return 0;
	int i0 = (int)floor(gx), j0 = (int)floor(gy);
	double fx = gx - i0, fy = gy - j0;
	size_t at[4];
	double w[4], best = 0;
	uint16_t pick = PANEL_NONE;
	for (int c = 0; c < 4; c++) {
		int i = i0 + (c & 1), j = j0 + (c >> 1);
		w[c] = ((c & 1) ? fx : 1 - fx) * ((c >> 1) ? fy : 1 - fy);
		at[c] = SIZE_MAX;
		if (i < 0 || j < 0 || i >= g->width || j >= g->height)
			continue;
		size_t q = (size_t)j * (size_t)g->width + (size_t)i;
		if ((mask[q] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE ||
		    q == self)
			continue;
		at[c] = q;
	}
	/* the panel with the most weight among the corners */
	for (int c = 0; c < 4; c++) {
		if (at[c] == SIZE_MAX)
			continue;
		uint16_t pc = panel ? panel[at[c]] : 0;
		double sum = 0;
		for (int d = 0; d < 4; d++)
			if (at[d] != SIZE_MAX && (panel ? panel[at[d]] : 0) == pc)
				sum += w[d];
		if (sum > best || (pick == PANEL_NONE && sum >= best)) {
			best = sum;
			pick = pc;
		}
	}
	int used = 0;
	for (int c = 0; c < 4; c++) {
		int ok = at[c] != SIZE_MAX && (panel ? panel[at[c]] : 0) == pick;
		l->corner[c] = ok ? (uint32_t)at[c] : 0;
		l->w[c] = ok && best > 0 ? (float)(w[c] / best) : 0.0f;
		used += ok && best > 0;
	}
	return used;
}

int seam_without_length(const struct grid *g, const float *seam, size_t v)
{
	float len = seam[3 * v + 2];
	return len >= 0 && len <= SEAM_TWIN_LENGTH * g->cell;
}

/* The cloth vertex that seam vertex v's partner point lies on, or
 * SIZE_MAX (see seam_twin). */
static size_t partner_vertex(const struct grid *g, const uint8_t *mask,
			     const float *seam, size_t v)
{
	const float *q = seam + 3 * v;
	if ((mask[v] & (MASK_SEAM | MASK_INSIDE | MASK_GHOST)) !=
	    (MASK_SEAM | MASK_INSIDE) || !seam_without_length(g, seam, v))
		return SIZE_MAX;
	double gx = (q[0] - g->origin[0]) / g->cell;
	double gy = (q[1] - g->origin[1]) / g->cell;
	if (!(gx > -0.5 && gy > -0.5 && gx < g->width - 0.5 &&
	      gy < g->height - 0.5))
		return SIZE_MAX;
	double i = floor(gx + 0.5), j = floor(gy + 0.5);
	if (fabs(gx - i) > SEAM_TWIN_OFFSET || fabs(gy - j) > SEAM_TWIN_OFFSET)
		return SIZE_MAX;
	size_t t = (size_t)j * (size_t)g->width + (size_t)i;
	return t != v ? t : SIZE_MAX;
}

size_t seam_twin(const struct grid *g, const uint8_t *mask,
		 const float *seam, size_t v)
{
	size_t t = partner_vertex(g, mask, seam, v);
	return t != SIZE_MAX && partner_vertex(g, mask, seam, t) == v ? t :
	       SIZE_MAX;
}

void seam_join_twins(const struct grid *g, const uint8_t *mov, float *x)
{
	const struct grid_channel *sc = grid_find_typed(g, "seam", GRID_F32, 3);
	if (!sc)
		return;
	const uint8_t *mask = grid_find(g, "mask")->data;
	size_t n = grid_vertices(g);
	#pragma omp parallel for schedule(static)
	for (size_t v = 0; v < n; v++) {
		size_t t = seam_twin(g, mask, sc->data, v);
		if (t == SIZE_MAX || t < v || !(mov[v] || mov[t]))
			continue;
		float *a = x + 3 * v, *b = x + 3 * t;
		for (int k = 0; k < 3; k++) {
			float m = !mov[v] ? a[k] : !mov[t] ? b[k] :
				  0.5f * (a[k] + b[k]);
			a[k] = b[k] = m;
		}
	}
}

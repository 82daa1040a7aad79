/* surface.c - the full-resolution mesh of a grid.
 *
 * The positions are the grid's, untouched: seams are closed by
 * triangles between the panels (zip.c), not by moving vertices.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simplify.h"
#include "vec.h"

static int cloth(uint8_t m)
{
	return (m & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE;
}

/* The channel name, or NULL (with e set) when it is there but has
 * another type; *c is NULL when it is absent. */
static int find_channel(const struct grid *g, const char *name,
			enum grid_type type, int comps,
			const struct grid_channel **c, struct error *e)
{
	*c = grid_find(g, name);
	if (*c && ((*c)->type != type || (*c)->comps != comps))
		return error_set(e, "its '%s' channel is %s x %d, not %s x %d",
				 name, grid_type_name((*c)->type), (*c)->comps,
				 grid_type_name(type), comps);
	return 0;
}

static int check_finite(const struct grid *g, const uint8_t *mask,
			const struct grid_channel *c, struct error *e)
{
	const float *x = c->data;
	size_t n = grid_vertices(g);
	for (size_t v = 0; v < n; v++)
		if (cloth(mask[v]) && !(isfinite(x[3 * v]) &&
		    isfinite(x[3 * v + 1]) && isfinite(x[3 * v + 2])))
			return error_set(e, "'%s' is not finite at cloth vertex "
					 "(%zu, %zu)", c->name,
					 v % (size_t)g->width,
					 v / (size_t)g->width);
	return 0;
}

/* Which triangles of every cell exist: three cloth vertices of one
 * panel. */
static void find_triangles(struct surface *s, const uint8_t *mask,
			   const uint16_t *panel)
{
	size_t w = (size_t)s->w, cw = w - 1;
	#pragma omp parallel for schedule(static)
	for (int j = 0; j < s->h - 1; j++)
		for (size_t i = 0; i < cw; i++) {
			size_t a = (size_t)j * w + i, b = a + 1, c = a + w,
			       d = c + 1;
			uint16_t pb = panel ? panel[b] : 0;
			int bc = cloth(mask[b]) && cloth(mask[c]) &&
				 (!panel || panel[c] == pb);
			int lower = bc && cloth(mask[a]) && (!panel || panel[a] == pb);
			int upper = bc && cloth(mask[d]) && (!panel || panel[d] == pb);
			s->cells[(size_t)j * cw + i] =
				(uint8_t)(lower * CELL_LOWER + upper * CELL_UPPER);
		}
}

/* The corners of partial cells' triangles are pinned.  Serial: a vertex
 * is shared by up to four cells. */
static void pin_partial(struct surface *s)
{
	size_t w = (size_t)s->w, cw = w - 1;
	memset(s->pinned, 0, w * (size_t)s->h);
	for (size_t j = 0; j + 1 < (size_t)s->h; j++)
		for (size_t i = 0; i < cw; i++) {
			uint8_t bits = s->cells[j * cw + i];
			size_t a = j * w + i;
			if (bits == CELL_LOWER) {
				s->pinned[a] = s->pinned[a + 1] = 1;
				s->pinned[a + w] = 1;
			} else if (bits == CELL_UPPER) {
				s->pinned[a + 1] = s->pinned[a + w] = 1;
				s->pinned[a + w + 1] = 1;
			}
		}
}

void surface_normal(const struct surface *s, size_t v, float out[3])
{
	size_t w = (size_t)s->w;
	long i = (long)(v % w), j = (long)(v / w);
	vec3 sum = v3(0.0f, 0.0f, 0.0f);
	for (int c = 0; c < 4; c++) {
		long ci = i - (c & 1), cj = j - (c >> 1);
		if (ci < 0 || cj < 0 || ci >= s->w - 1 || cj >= s->h - 1)
			continue;
		size_t a = (size_t)cj * w + (size_t)ci;
		size_t corner[2][3] = {{a, a + 1, a + w}, {a + 1, a + w + 1, a + w}};
		uint8_t bits = s->cells[(size_t)cj * (w - 1) + (size_t)ci];
		for (int t = 0; t < 2; t++) {
			const size_t *p = corner[t];
			if (!(bits & (1 << t)) || (p[0] != v && p[1] != v && p[2] != v))
				continue;
			vec3 x0 = v3_load(s->x + 3 * p[0]);
			vec3 e1 = v3_sub(v3_load(s->x + 3 * p[1]), x0);
			vec3 e2 = v3_sub(v3_load(s->x + 3 * p[2]), x0);
			sum = v3_add(sum, v3_cross(e1, e2));
		}
	}
	vec3 n = v3_normalize(sum);
	if (v3_norm2(n) == 0.0f)
		n = v3(0.0f, 0.0f, 1.0f);
	v3_store(out, n);
}

/* ---- seams ---------------------------------------------------------- */

/* Every seam vertex (mask SEAM) must have a partner point. */
static int check_partners(const struct grid *g, const uint8_t *mask,
			  const float *seam, struct error *e)
{
	size_t n = grid_vertices(g);
	for (size_t v = 0; v < n; v++) {
		const float *q = seam + 3 * v;
		if (cloth(mask[v]) && (mask[v] & MASK_SEAM) &&
		    !(isfinite(q[0]) && isfinite(q[1])))
			return error_set(e, "seam vertex (%zu, %zu) has no partner "
					 "in the 'seam' channel (%g, %g)",
					 v % (size_t)g->width, v / (size_t)g->width,
					 (double)q[0], (double)q[1]);
	}
	return 0;
}

/* ---- the surface ---------------------------------------------------- */

/* Seam vertices are pinned too when the seams are to be closed: the
 * strip between two panels (zip.c) is even only when both sides keep
 * their boundary vertices (a straight side simplified into long edges
 * would fan slivers across the other side's staircase). */
static void pin_seams(struct surface *s)
{
	size_t n = (size_t)s->w * (size_t)s->h;
	for (size_t v = 0; v < n; v++)
		if (cloth(s->mask[v]) && (s->mask[v] & MASK_SEAM))
			s->pinned[v] = 1;
}

int surface_init(struct surface *s, const struct grid *g, int seams,
		 struct error *e)
{
	const struct grid_channel *mc, *pc, *xc, *sc;
	memset(s, 0, sizeof *s);
	if (find_channel(g, "mask", GRID_U8, 1, &mc, e) ||
	    find_channel(g, "panel", GRID_U16, 1, &pc, e) ||
	    find_channel(g, "x", GRID_F32, 3, &xc, e) ||
	    find_channel(g, "seam", GRID_F32, 3, &sc, e))
		return -1;
	if (!mc)
		return error_set(e, "it has no 'mask' channel (u8 x 1)");
	if (!xc) {
		if (find_channel(g, "rest", GRID_F32, 3, &xc, e))
			return -1;
		if (!xc)
			return error_set(e, "it has neither an 'x' nor a 'rest' "
					 "channel (f32 x 3)");
		s->used_rest = 1;
	}
	const uint8_t *mask = mc->data;
	const uint16_t *panel = pc ? pc->data : NULL;
	if (check_finite(g, mask, xc, e))
		return -1;
	s->w = g->width;
	s->h = g->height;
	s->cell = g->cell;
	s->origin[0] = g->origin[0];
	s->origin[1] = g->origin[1];
	s->x = xc->data;
	s->grid = g;
	s->mask = mask;
	s->panel = panel;
	s->seam = sc ? sc->data : NULL;
	if (sc && check_partners(g, mask, sc->data, e))
		return -1;
	size_t n = grid_vertices(g);
	for (size_t v = 0; v < n; v++)
		s->ncloth += cloth(mask[v]);
	s->cells = xmalloc_array((size_t)(s->w - 1), (size_t)(s->h - 1));
	s->pinned = xmalloc_array((size_t)s->w, (size_t)s->h);
	find_triangles(s, mask, panel);
	pin_partial(s);
	if (seams && s->seam)
		pin_seams(s);
	return 0;
}

void surface_free(struct surface *s)
{
	free(s->cells);
	free(s->pinned);
	memset(s, 0, sizeof *s);
}

int surface_same_layout(const struct surface *a, const struct surface *b)
{
	if (a->w != b->w || a->h != b->h || a->cell != b->cell ||
	    a->origin[0] != b->origin[0] || a->origin[1] != b->origin[1])
		return 0;
	size_t cells = (size_t)(a->w - 1) * (size_t)(a->h - 1);
	return memcmp(a->cells, b->cells, cells) == 0;
}

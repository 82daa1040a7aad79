/* energy.c - neighbour words and whole-grid sums of the energies. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "energy.h"
#include "grid.h"
#include "util.h"

/* Does (i + di, j + dj) exist for this vertex, given the flags a
 * neighbour needs?  Outside the grid it does not. */
static int has(int width, int height, const uint8_t *mask,
	       const uint16_t *panel, int i, int j, int di, int dj,
	       unsigned flags)
{
	int a = i + di, b = j + dj;
	if (a < 0 || b < 0 || a >= width || b >= height)
		return 0;
	size_t v = (size_t)j * (size_t)width + (size_t)i;
	size_t u = (size_t)b * (size_t)width + (size_t)a;
	if (!(mask[u] & flags))
		return 0;
	return !panel || panel[u] == panel[v];
}

static uint32_t vertex_word(int width, int height, const uint8_t *mask,
			    const uint16_t *panel, int i, int j)
{
	uint8_t m = mask[(size_t)j * (size_t)width + (size_t)i];
	uint32_t w = 0;
	/* bending sees ghosts: they carry the closed-boundary angle */
	if (m & (MASK_INSIDE | MASK_GHOST))
		for (int k = 0; k < 12; k++)
			if (has(width, height, mask, panel, i, j, nb_di(k),
				nb_dj(k), MASK_INSIDE | MASK_GHOST))
				w |= 1u << k;
	/* elasticity only between cloth vertices */
	if (m & MASK_INSIDE)
		for (int r = 0; r < 6; r++)
			if (has(width, height, mask, panel, i, j, ring_di(r),
				ring_dj(r), MASK_INSIDE))
				w |= NB_ELASTIC(r);
	return w;
}

void energy_neighbours_raw(int width, int height, const uint8_t *mask,
			   const uint16_t *panel, uint32_t *nbr)
{
	for (int j = 0; j < height; j++)
		for (int i = 0; i < width; i++)
			nbr[(size_t)j * (size_t)width + (size_t)i] =
				vertex_word(width, height, mask, panel, i, j);
}

int energy_neighbours(const struct grid *g, uint32_t *nbr, struct error *e)
{
	const struct grid_channel *m = grid_find_typed(g, "mask", GRID_U8, 1);
	if (!m)
		return error_set(e, "grid has no mask channel (u8 x 1)");
	const struct grid_channel *p = grid_find(g, "panel");
	if (p && (p->type != GRID_U16 || p->comps != 1))
		return error_set(e, "panel channel is %s x %d, not u16 x 1",
				 grid_type_name(p->type), p->comps);
	energy_neighbours_raw(g->width, g->height, m->data,
			      p ? p->data : NULL, nbr);
	return 0;
}

#define EN_REAL float
#define EN_V vec3
#define EN_SFX(name) name##_f
#include "energy_grid_tmpl.h"
#undef EN_REAL
#undef EN_V
#undef EN_SFX

#define EN_REAL double
#define EN_V dvec3
#define EN_SFX(name) name##_d
#include "energy_grid_tmpl.h"
#undef EN_REAL
#undef EN_V
#undef EN_SFX

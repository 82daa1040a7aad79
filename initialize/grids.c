/* grids.c - what the modes of pleat-initialize share: a fresh x, the
 * check that a grid is a result, the check that two grids share a
 * layout. */
#include <math.h>
#include <string.h>

#include "initialize.h"

float *x_at_rest(struct grid *g, struct error *e)
{
	const struct grid_channel *rest = grid_find_typed(g, "rest", GRID_F32, 3);
	if (!rest) {
		error_set(e, "needs a 'rest' channel of type f32 x 3 (as "
			  "pleat-resample writes it)");
		return NULL;
	}
	grid_remove(g, "x");
	struct grid_channel *x = grid_add(g, "x", GRID_F32, 3, e);
	if (!x)
		return NULL;
	memcpy(x->data, rest->data, grid_channel_bytes(g, x));
	return x->data;
}

const float *solved_x(const struct grid *g, const char *name,
		      struct error *e)
{
	const struct grid_channel *x = grid_find_typed(g, "x", GRID_F32, 3);
	if (!x) {
		error_set(e, "%s has no 'x' channel of type f32 x 3: it is not "
			  "a result of pleat-solve", name);
		return NULL;
	}
	/* a NaN would be carried into every start made from it */
	const float *p = x->data;
	size_t n = 3 * grid_vertices(g);
	for (size_t k = 0; k < n; k++)
		if (!isfinite(p[k])) {
			size_t v = k / 3;
			error_set(e, "%s: its 'x' is not finite (%g) at vertex "
				  "(%zu, %zu)", name, (double)p[k],
				  v % (size_t)g->width, v / (size_t)g->width);
			return NULL;
		}
	return p;
}

int named_field(struct frame_field *f, const struct grid *g,
		const char *name, struct error *e)
{
	struct error why;
	if (frame_field_init(f, g, &why))
		return error_set(e, "%s %s", name, why.msg);
	return 0;
}

static const char *what(uint8_t mask, uint16_t panel, char *buf, size_t n)
{
	if (mask & MASK_INSIDE)
		snprintf(buf, n, "cloth of panel %u", (unsigned)panel);
	else if (mask & MASK_GHOST)
		snprintf(buf, n, "a ghost of panel %u", (unsigned)panel);
	else
		snprintf(buf, n, "outside the cloth");
	return buf;
}

int same_layout(const struct grid *g, const struct grid *other,
		const char *name, struct error *e)
{
	struct frame_field a, b;
	char wa[48], wb[48];
	if (other->width != g->width || other->height != g->height)
		return error_set(e, "%s has another layout: %d x %d vertices, "
				 "not %d x %d", name, other->width,
				 other->height, g->width, g->height);
	if (other->cell != g->cell || other->origin[0] != g->origin[0] ||
	    other->origin[1] != g->origin[1])
		return error_set(e, "%s has another layout: cell %.17g m at "
				 "origin (%.17g, %.17g), not %.17g m at "
				 "(%.17g, %.17g)", name, other->cell,
				 other->origin[0], other->origin[1], g->cell,
				 g->origin[0], g->origin[1]);
	if (frame_field_init(&a, g, e) || named_field(&b, other, name, e))
		return -1;
	const uint8_t flags = MASK_INSIDE | MASK_GHOST;
	size_t n = grid_vertices(g);
	for (size_t v = 0; v < n; v++)
		if (a.panel[v] != b.panel[v] ||
		    (a.mask[v] & flags) != (b.mask[v] & flags))
			return error_set(e, "%s has another pattern: vertex "
					 "(%zu, %zu) is %s there, %s here",
					 name, v % (size_t)g->width,
					 v / (size_t)g->width,
					 what(b.mask[v], b.panel[v], wb, sizeof wb),
					 what(a.mask[v], a.panel[v], wa, sizeof wa));
	return 0;
}

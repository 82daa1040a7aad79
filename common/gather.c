/* gather.c - checks of the gathering tensor field (gather.h). */
#include <math.h>
#include <stdint.h>

#include "gather.h"

const char *gather_tensor_fault(double sxx, double sxy, double syy)
{
	if (!isfinite(sxx) || !isfinite(sxy) || !isfinite(syy))
		return "not finite";
	if (!(sxx > 0 && syy > 0 && sxx * syy - sxy * sxy > 0))
		return "not positive definite";
	return NULL;
}

int gather_channel(const struct grid *g, const float **data, struct error *e)
{
	const struct grid_channel *c = grid_find(g, GATHER_CHANNEL);
	const struct grid_channel *mask = grid_find_typed(g, "mask", GRID_U8, 1);
	*data = NULL;
	if (!c)
		return 0;
	if (c->type != GRID_F32 || c->comps != 3)
		return error_set(e, "its '%s' channel is %s x %d, not f32 x 3",
				 GATHER_CHANNEL, grid_type_name(c->type),
				 c->comps);
	const float *s = c->data;
	const uint8_t *m = mask ? mask->data : NULL;
	size_t n = grid_vertices(g), w = (size_t)g->width;
	for (size_t v = 0; v < n; v++) {
		if (m && !(m[v] & MASK_INSIDE))
			continue;
		const float *t = s + 3 * v;
		const char *why = gather_tensor_fault(t[0], t[1], t[2]);
		if (why)
			return error_set(e, "'%s' at vertex (%zu, %zu) is %s "
					 "(sxx %g, sxy %g, syy %g)",
					 GATHER_CHANNEL, v % w, v / w, why,
					 (double)t[0], (double)t[1],
					 (double)t[2]);
	}
	*data = s;
	return 0;
}

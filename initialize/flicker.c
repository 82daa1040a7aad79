/* flicker.c - how much the wrinkles change between two consecutive
 * results, the coarse motion taken out.
 *
 * The wrinkle of a vertex is w = F (x - rest) in the local frame of the
 * coarse surface (frame.h), so a coarse motion that carries the wrinkles
 * along unchanged measures zero; what remains is the change of the
 * wrinkles themselves, which shows as flicker in a render. */
#include <math.h>
#include <stdlib.h>

#include "initialize.h"

struct row_stats {
	double sum, max;
	int max_i;
	size_t n, plain;
};

static void measure_row(const struct frame_field *fa, const float *xa,
			const struct frame_field *fb, const float *xb, int j,
			struct row_stats *r)
{
	for (int i = 0; i < fa->w; i++) {
		size_t v = (size_t)j * (size_t)fa->w + (size_t)i;
		double aa[3][3], ab[3][3], da[3], db[3], wa[3], wb[3];
		if (!(fa->mask[v] & MASK_INSIDE))
			continue;
		r->plain += !frame_pair(fa, fb, i, j, aa, ab);
		frame_displacement(fa, xa, v, da);
		frame_displacement(fb, xb, v, db);
		frame_to_local(aa, da, wa);
		frame_to_local(ab, db, wb);
		double c = sqrt((wb[0] - wa[0]) * (wb[0] - wa[0]) +
				(wb[1] - wa[1]) * (wb[1] - wa[1]) +
				(wb[2] - wa[2]) * (wb[2] - wa[2]));
		r->sum += c;
		r->n++;
		if (c > r->max || r->max_i < 0) {
			r->max = c;
			r->max_i = i;
		}
	}
}

int flicker_measure(const struct grid *a, const float *xa,
		    const struct grid *b, const float *xb, struct flicker *r,
		    struct error *e)
{
	struct frame_field fa, fb;
	if (frame_field_init(&fa, a, e) || frame_field_init(&fb, b, e))
		return -1;
	struct row_stats *rows = xcalloc((size_t)fa.h, sizeof *rows);
	#pragma omp parallel for schedule(static)
	for (int j = 0; j < fa.h; j++) {
		rows[j].max_i = -1;
		measure_row(&fa, xa, &fb, xb, j, &rows[j]);
	}
	double sum = 0;
	*r = (struct flicker){.max_i = -1, .max_j = -1};
	for (int j = 0; j < fa.h; j++) {
		sum += rows[j].sum;
		r->vertices += rows[j].n;
		r->plain += rows[j].plain;
		if (rows[j].max_i >= 0 && (r->max_i < 0 || rows[j].max > r->max)) {
			r->max = rows[j].max;
			r->max_i = rows[j].max_i;
			r->max_j = j;
		}
	}
	r->mean = r->vertices ? sum / (double)r->vertices : 0;
	free(rows);
	return 0;
}

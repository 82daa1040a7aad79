/* boxhash.c - a spatial hash of boxes (see boxhash.h). */
#include "boxhash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proximity_hd.h"
#include "util.h"

/* The cell of coordinate v on axis k. */
static int32_t cell_of(const struct boxhash *H, float v, int k)
{
	return (int32_t)floor((v - H->origin[k]) / H->cell);
}

void boxhash_range(const struct boxhash *H, const struct tribox *b,
		       int32_t lo[3], int32_t hi[3])
{
	for (int k = 0; k < 3; k++) {
		lo[k] = cell_of(H, b->lo[k], k);
		hi[k] = cell_of(H, b->hi[k], k);
	}
}

size_t boxhash_bucket(const int32_t c[3], size_t mask)
{
	int64_t k[3] = {c[0], c[1], c[2]};
	return proximity_bucket_of(k, mask);
}

/* The cell: twice the mean box size, at least an eighth of the largest
 * (so that no triangle is in more than about 10^3 cells), and large
 * enough that the cloth spans fewer than 2^30 cells each way. */
static double box_cell(const struct tribox *box, size_t ntri,
		       const double lo[3], const double hi[3])
{
	double sum = 0, most = 0, span = 0;
	for (size_t t = 0; t < ntri; t++)
		for (int k = 0; k < 3; k++) {
			double e = (double)box[t].hi[k] - box[t].lo[k];
			sum += e;
			most = fmax(most, e);
		}
	for (int k = 0; k < 3; k++)
		span = fmax(span, hi[k] - lo[k]);
	double cell = fmax(2 * sum / (3.0 * (double)(ntri ? ntri : 1)), most / 8);
	cell = fmax(cell, span / (double)(1 << 30));
	return cell > 0 ? cell : 1;
}

void boxhash_build(struct boxhash *H, const struct tribox *box,
			  size_t ntri)
{
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t t = 0; t < ntri; t++)
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(lo[k], box[t].lo[k]);
			hi[k] = fmax(hi[k], box[t].hi[k]);
		}
	for (int k = 0; k < 3; k++) {
		H->origin[k] = ntri ? lo[k] : 0;
		H->bound.lo[k] = (float)lo[k];
		H->bound.hi[k] = (float)hi[k];
	}
	H->cell = box_cell(box, ntri, lo, hi);
	size_t nent = 0;
	int32_t a[3], b[3], c[3];
	H->low = xmalloc_array(ntri ? ntri : 1, sizeof *H->low);
	for (size_t t = 0; t < ntri; t++) {
		boxhash_range(H, &box[t], a, b);
		memcpy(H->low[t], a, sizeof a);
		nent += (size_t)(b[0] - a[0] + 1) * (size_t)(b[1] - a[1] + 1) *
			(size_t)(b[2] - a[2] + 1);
	}
	size_t m = 1;
	while (m < nent)
		m *= 2;
	H->mask = m - 1;
	H->start = xcalloc(m + 1, sizeof(size_t));
	H->entry = xmalloc_array(nent + 1, sizeof *H->entry);
	for (int pass = 0; pass < 2; pass++) {
		size_t *fill = pass ? xmalloc_array(m, sizeof(size_t)) : NULL;
		if (fill)
			memcpy(fill, H->start, m * sizeof(size_t));
		for (size_t t = 0; t < ntri; t++) {
			boxhash_range(H, &box[t], a, b);
			for (c[2] = a[2]; c[2] <= b[2]; c[2]++)
				for (c[1] = a[1]; c[1] <= b[1]; c[1]++)
					for (c[0] = a[0]; c[0] <= b[0]; c[0]++) {
						size_t q = boxhash_bucket(c, H->mask);
						if (!pass) {
							H->start[q + 1]++;
							continue;
						}
						size_t e = fill[q]++;
						memcpy(H->entry[e].c, c, sizeof c);
						H->entry[e].tri = (uint32_t)t;
					}
		}
		if (!pass)
			for (size_t q = 0; q < m; q++)
				H->start[q + 1] += H->start[q];
		free(fill);
	}
}

int tribox_overlap(const struct tribox *a, const struct tribox *b)
{
	for (int k = 0; k < 3; k++)
		if (a->hi[k] < b->lo[k] || b->hi[k] < a->lo[k])
			return 0;
	return 1;
}

/* Whether cell c is where the pair (t, u) is examined: the cell of the
 * low corner of the two boxes' overlap, so each pair is examined once. */
void boxhash_free(struct boxhash *H)
{
	free(H->start);
	free(H->entry);
	free(H->low);
}

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

/* Box t's extent along each axis, summed, and the largest. */
static void box_extents(const struct tribox *b, double *sum, double *most)
{
	for (int k = 0; k < 3; k++) {
		double e = (double)b->hi[k] - b->lo[k];
		*sum += e;
		*most = fmax(*most, e);
	}
}

/* Sums over the boxes in chunks of this many, the chunks' sums added in
 * order: the same total whatever the thread count. */
#define BOXHASH_CHUNK 4096

/* The cell: twice the mean box size, at least an eighth of the largest
 * (so that no triangle is in more than about 10^3 cells), and large
 * enough that the cloth spans fewer than 2^30 cells each way. */
static double box_cell(const struct tribox *box, size_t ntri,
		       const double lo[3], const double hi[3])
{
	size_t nchunk = (ntri + BOXHASH_CHUNK - 1) / BOXHASH_CHUNK;
	double *part = xmalloc_array(nchunk + 1, sizeof *part);
	double most = 0, span = 0;
	#pragma omp parallel for schedule(static) reduction(max : most)
	for (long q = 0; q < (long)nchunk; q++) {
		size_t end = ((size_t)q + 1) * BOXHASH_CHUNK;
		part[q] = 0;
		for (size_t t = (size_t)q * BOXHASH_CHUNK; t < end && t < ntri; t++)
			box_extents(&box[t], &part[q], &most);
	}
	double sum = 0;
	for (size_t q = 0; q < nchunk; q++)
		sum += part[q];
	free(part);
	for (int k = 0; k < 3; k++)
		span = fmax(span, hi[k] - lo[k]);
	double cell = fmax(2 * sum / (3.0 * (double)(ntri ? ntri : 1)), most / 8);
	cell = fmax(cell, span / (double)(1 << 30));
	return cell > 0 ? cell : 1;
}

/* The box around all the boxes (min and max are exact in any order). */
static void boxes_bound(const struct tribox *box, size_t ntri, double lo[3],
			double hi[3])
{
	double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY;
	double h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
	#pragma omp parallel for schedule(static) \
		reduction(min : l0, l1, l2) reduction(max : h0, h1, h2)
	for (long t = 0; t < (long)ntri; t++) {
		l0 = fmin(l0, box[t].lo[0]);
		l1 = fmin(l1, box[t].lo[1]);
		l2 = fmin(l2, box[t].lo[2]);
		h0 = fmax(h0, box[t].hi[0]);
		h1 = fmax(h1, box[t].hi[1]);
		h2 = fmax(h2, box[t].hi[2]);
	}
	lo[0] = l0; lo[1] = l1; lo[2] = l2;
	hi[0] = h0; hi[1] = h1; hi[2] = h2;
}

/* Whether entry a comes before b in its bucket: by triangle, then in
 * the order boxhash_build's loops meet the cells (z, then y, then x). */
static int entry_before(const struct boxhash_entry *a,
			const struct boxhash_entry *b)
{
	if (a->tri != b->tri)
		return a->tri < b->tri;
	for (int k = 2; k >= 0; k--)
		if (a->c[k] != b->c[k])
			return a->c[k] < b->c[k];
	return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct boxhash_entry *a = pa, *b = pb;
	return entry_before(a, b) ? -1 : entry_before(b, a);
}

/* Sorts bucket entries e[0..n) by entry_before: by insertion where they
 * are a few (nearly always), else with qsort (a crowded cell: stacked
 * layers, degenerate triangles), where the threads' interleaved runs
 * would make insertion quadratic. */
static void sort_bucket(struct boxhash_entry *e, size_t n)
{
	if (n > 16) {
		qsort(e, n, sizeof *e, entry_cmp);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct boxhash_entry v = e[i];
		size_t j = i;
		for (; j > 0 && entry_before(&v, &e[j - 1]); j--)
			e[j] = e[j - 1];
		e[j] = v;
	}
}

/* p, or room for n things of size bytes in its place when it has less
 * (*cap things): an eighth more, so that a hash made again with a few
 * more entries reuses it too. */
static void *reserve(void *p, size_t *cap, size_t n, size_t size)
{
	if (*cap >= n)
		return p;
	free(p);
	*cap = n + n / 8;
	return xmalloc_array(*cap, size);
}

/* Enters box b of triangle t in every cell it overlaps (from its low
 * corner's cell, H->low[t]): adds it to the size of its bucket q, in
 * start[q + 1] (fill 0), or writes its entry at the bucket's next place,
 * start[q] (fill 1). */
static void enter_box(struct boxhash *H, const struct tribox *b, uint32_t t,
		      int fill)
{
	const int32_t *lo = H->low[t];
	int32_t hi[3], c[3];
	for (int k = 0; k < 3; k++)
		hi[k] = cell_of(H, b->hi[k], k);
	for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
		for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
			for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
				size_t q = boxhash_bucket(c, H->mask);
				if (!fill) {
					__atomic_fetch_add(&H->start[q + 1], 1,
							   __ATOMIC_RELAXED);
					continue;
				}
				size_t e = __atomic_fetch_add(&H->start[q], 1,
							      __ATOMIC_RELAXED);
				memcpy(H->entry[e].c, c, sizeof c);
				H->entry[e].tri = t;
			}
}

/* The entries are counted and filled by all threads at once; each
 * bucket is then sorted into the order one thread would have filled it
 * in (by triangle), so the hash is the same for any thread count. */
void boxhash_build(struct boxhash *H, const struct tribox *box,
			  size_t ntri)
{
	double lo[3], hi[3];
	boxes_bound(box, ntri, lo, hi);
	for (int k = 0; k < 3; k++) {
		H->origin[k] = ntri ? lo[k] : 0;
		H->bound.lo[k] = (float)lo[k];
		H->bound.hi[k] = (float)hi[k];
	}
	H->cell = box_cell(box, ntri, lo, hi);
	size_t nent = 0;
	H->low = reserve(H->low, &H->low_cap, ntri + 1, sizeof *H->low);
	#pragma omp parallel for schedule(static) reduction(+ : nent)
	for (long t = 0; t < (long)ntri; t++) {
		int32_t a[3], b[3];
		boxhash_range(H, &box[t], a, b);
		memcpy(H->low[t], a, sizeof a);
		nent += (size_t)(b[0] - a[0] + 1) * (size_t)(b[1] - a[1] + 1) *
			(size_t)(b[2] - a[2] + 1);
	}
	size_t m = 1;
	while (m < nent)
		m *= 2;
	H->mask = m - 1;
	H->start = reserve(H->start, &H->start_cap, m + 1, sizeof(size_t));
	H->entry = reserve(H->entry, &H->entry_cap, nent + 1, sizeof *H->entry);
	memset(H->start, 0, (m + 1) * sizeof(size_t));
	#pragma omp parallel for schedule(static)
	for (long t = 0; t < (long)ntri; t++)
		enter_box(H, &box[t], (uint32_t)t, 0);
	for (size_t q = 0; q < m; q++)
		H->start[q + 1] += H->start[q];
	/* filling moves each start[q] on to the end of its bucket, which is
	 * start[q + 1]: shifted back by one place, the starts are restored */
	#pragma omp parallel for schedule(static)
	for (long t = 0; t < (long)ntri; t++)
		enter_box(H, &box[t], (uint32_t)t, 1);
	memmove(H->start + 1, H->start, m * sizeof(size_t));
	H->start[0] = 0;
	#pragma omp parallel for schedule(static)
	for (long q = 0; q < (long)m; q++)
		if (H->start[q + 1] - H->start[q] > 1)
			sort_bucket(H->entry + H->start[q],
				    H->start[q + 1] - H->start[q]);
}

int tribox_overlap(const struct tribox *a, const struct tribox *b)
{
	for (int k = 0; k < 3; k++)
		if (a->hi[k] < b->lo[k] || b->hi[k] < a->lo[k])
			return 0;
	return 1;
}

void boxhash_free(struct boxhash *H)
{
	free(H->start);
	free(H->entry);
	free(H->low);
	memset(H, 0, sizeof *H);
}

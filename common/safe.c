/* safe.c - measuring the step bounds of --safe (see safe.h).
 *
 * Candidate pairs of triangles come from a spatial hash: each triangle is
 * entered in every cell its box overlaps, cells the mean box plus the
 * reach (but at least a sixteenth of the largest box, so that a few
 * stretched triangles do not fill the table), and a triangle looks for
 * partners in the cells its box grown by the reach overlaps.  A pair is
 * taken in one cell only: the one holding the low corner of the
 * overlap of the two boxes (the first grown).  Each pair of triangles is
 * measured once (by the lower index):
 * the corners of each against the other triangle, and the edges of each
 * against the other's, skipping primitives that share a vertex or are
 * sewn together.  Every distance lowers the nearest distance of all the
 * vertices of its two primitives, an atomic minimum on the float's bits
 * (non-negative floats order as their bits do), so the result does not
 * depend on the order or the thread count. */
#include "safe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "closest.h"
#include "progress.h"
#include "proximity.h"

struct safe_cell {
	int32_t c[3];
	uint32_t tri;
};

struct safe_hash {
	size_t mask;             /* buckets - 1 */
	size_t *start;           /* buckets + 1 */
	size_t *fill;            /* buckets: scratch */
	struct safe_cell *entry; /* by bucket */
	size_t nentries;         /* entry's room */
	float *box;              /* ntri x 6: low and high corners */
	double origin[3], cell;
};

struct edge_key {
	uint32_t lo, hi, tri;
	int k;
};

static int edge_cmp(const void *pa, const void *pb)
{
	const struct edge_key *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->tri < b->tri ? -1 : a->tri > b->tri;
}

/* Every corner and edge measured by one triangle only, the first that
 * has it: a pair of primitives closer than the reach lies in the boxes
 * of their first triangles, which the search then pairs.  Without this
 * an edge pair would be measured from up to four pairs of triangles and
 * a vertex from all six around it. */
static uint8_t *owners(const uint32_t *tri, size_t ntri, size_t n)
{
	uint8_t *own = xcalloc(ntri ? ntri : 1, 1);
	uint8_t *seen = xcalloc(n, 1);
	struct edge_key *key = xmalloc_array(3 * ntri + 1, sizeof *key);
	for (size_t t = 0; t < ntri; t++)
		for (int k = 0; k < 3; k++) {
			uint32_t a = tri[3 * t + (size_t)k];
			uint32_t b = tri[3 * t + (size_t)(k + 1) % 3];
			if (!seen[a]) {
				seen[a] = 1;
				own[t] |= (uint8_t)(1 << k);
			}
			key[3 * t + (size_t)k] = (struct edge_key){a < b ? a : b,
				a < b ? b : a, (uint32_t)t, k};
		}
	qsort(key, 3 * ntri, sizeof *key, edge_cmp);
	for (size_t q = 0; q < 3 * ntri; q++)
		if (q == 0 || key[q].lo != key[q - 1].lo || key[q].hi != key[q - 1].hi)
			own[key[q].tri] |= (uint8_t)(8 << key[q].k);
	free(key);
	free(seen);
	return own;
}

int safe_init(struct safe *s, const struct grid *g, struct error *e)
{
	const uint8_t *mask;
	const uint16_t *panel;
	const float *seam;
	memset(s, 0, sizeof *s);
	if (collide_channels(g, &mask, &panel, &seam, e))
		return -1;
	s->n = grid_vertices(g);
	s->ntri = grid_triangles(g->width, g->height, mask, panel, &s->tri);
	s->site = xmalloc_array(s->n, sizeof *s->site);
	collide_sites(g, mask, panel, seam, s->site);
	s->own = owners(s->tri, s->ntri, s->n);
	s->reach = SAFE_REACH * g->cell;
	s->x0 = xmalloc_array(s->n, 3 * sizeof(float));
	s->bound = xmalloc_array(s->n, sizeof(float));
	s->nearest = xmalloc_array(s->n, sizeof(uint32_t));
	s->hash = xcalloc(1, sizeof *s->hash);
	size_t buckets = 1024;
	while (buckets < 2 * s->ntri)
		buckets *= 2;
	s->hash->mask = buckets - 1;
	s->hash->start = xmalloc_array(buckets + 1, sizeof(size_t));
	s->hash->fill = xmalloc_array(buckets, sizeof(size_t));
	s->hash->box = xmalloc_array(s->ntri ? s->ntri : 1, 6 * sizeof(float));
	s->due = 1;
	return 0;
}

void safe_free(struct safe *s)
{
	if (s->hash) {
		free(s->hash->start);
		free(s->hash->fill);
		free(s->hash->entry);
		free(s->hash->box);
		free(s->hash);
	}
	free(s->tri);
	free(s->own);
	free(s->site);
	free(s->x0);
	free(s->bound);
	free(s->nearest);
	memset(s, 0, sizeof *s);
}

/* ---- the hash -------------------------------------------------------- */

static size_t bucket_of(const struct safe_hash *h, const int32_t c[3])
{
	uint64_t k = (uint64_t)(uint32_t)c[0] * 73856093u ^
		     (uint64_t)(uint32_t)c[1] * 19349663u ^
		     (uint64_t)(uint32_t)c[2] * 83492791u;
	return (size_t)(k & h->mask);
}

static int32_t cell_of(const struct safe_hash *h, double p, int k)
{
	return (int32_t)floor((p - h->origin[k]) / h->cell);
}

/* The cells of box b (low and high corners; grown by `grow`) along axis
 * k. */
static void cell_range(const struct safe_hash *h, const float *b, double grow,
		       int k, int32_t *lo, int32_t *hi)
{
	*lo = cell_of(h, b[k] - grow, k);
	*hi = cell_of(h, b[3 + k] + grow, k);
}

/* Triangle t in every cell its box overlaps: counted into count[bucket
 * + 1] when count is not NULL, else entered at h->fill.  Returns the
 * cells. */
static size_t hash_cells(struct safe_hash *h, size_t t, size_t *count)
{
	int32_t lo[3], hi[3], c[3];
	size_t n = 0;
	for (int k = 0; k < 3; k++)
		cell_range(h, h->box + 6 * t, 0, k, &lo[k], &hi[k]);
	for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
		for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
			for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
				size_t b = bucket_of(h, c);
				if (count)
					count[b + 1]++;
				else
					h->entry[h->fill[b]++] =
						(struct safe_cell){{c[0], c[1], c[2]},
								   (uint32_t)t};
				n++;
			}
	return n;
}

/* Triangle t's box from x. */
static void box_of(struct safe *s, const float *x, size_t t)
{
	float *b = s->hash->box + 6 * t;
	for (int k = 0; k < 3; k++) {
		b[k] = b[3 + k] = x[3 * (size_t)s->tri[3 * t] + (size_t)k];
		for (int c = 1; c < 3; c++) {
			float v = x[3 * (size_t)s->tri[3 * t + (size_t)c] + (size_t)k];
			b[k] = v < b[k] ? v : b[k];
			b[3 + k] = v > b[3 + k] ? v : b[3 + k];
		}
	}
}

/* Boxes, the cell size and the buckets, from x. */
static void hash_build(struct safe *s, const float *x)
{
	struct safe_hash *h = s->hash;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, largest = 0, sum = 0;
	for (size_t t = 0; t < s->ntri; t++) {
		box_of(s, x, t);
		const float *b = h->box + 6 * t;
		double extent = 0;
		for (int k = 0; k < 3; k++) {
			lo[k] = b[k] < lo[k] ? b[k] : lo[k];
			if ((double)b[3 + k] - b[k] > extent)
				extent = (double)b[3 + k] - b[k];
		}
		sum += extent;
		largest = extent > largest ? extent : largest;
	}
	memcpy(h->origin, lo, sizeof lo);
	h->cell = (s->ntri ? sum / (double)s->ntri : 0) + s->reach;
	if (h->cell < largest / 16)
		h->cell = largest / 16;
	/* cell indices far inside int32 whatever the cloth's span */
	double span = 0;
	for (size_t t = 0; t < s->ntri; t++)
		for (int k = 0; k < 3; k++) {
			double d = (double)h->box[6 * t + 3 + (size_t)k] + s->reach - lo[k];
			span = d > span ? d : span;
		}
	if (h->cell < span / (1 << 20))
		h->cell = span / (1 << 20);
	size_t nb = h->mask + 1, entries = 0;
	memset(h->start, 0, (nb + 1) * sizeof(size_t));
	for (size_t t = 0; t < s->ntri; t++)
		entries += hash_cells(h, t, h->start);
	for (size_t q = 0; q < nb; q++)
		h->start[q + 1] += h->start[q];
	if (entries > h->nentries) {
		free(h->entry);
		h->entry = xmalloc_array(entries, sizeof *h->entry);
		h->nentries = entries;
	}
	memcpy(h->fill, h->start, nb * sizeof(size_t));
	for (size_t t = 0; t < s->ntri; t++)
		hash_cells(h, t, NULL);
}

/* ---- distances --------------------------------------------------------- */

/* Lowers vertex v's nearest distance to d (metres, rounded down to a
 * float). */
static void lower(struct safe *s, uint32_t v, double d)
{
	float f = (float)d;
	if ((double)f > d)
		f = nextafterf(f, 0.0f);
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	uint32_t old = __atomic_load_n(&s->nearest[v], __ATOMIC_RELAXED);
	while (bits < old &&
	       !__atomic_compare_exchange_n(&s->nearest[v], &old, bits, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Whether vertices a and b are sewn together (collide.h's seam rule). */
static int sewn(const struct safe *s, uint32_t a, uint32_t b)
{
	return collide_near_partner(&s->site[a], &s->site[b]) ||
	       collide_near_partner(&s->site[b], &s->site[a]);
}

/* Whether vertex v is a corner of triangle u or sewn to one. */
static int touches(const struct safe *s, uint32_t v, const uint32_t *u)
{
	for (int c = 0; c < 3; c++)
		if (v == u[c] || sewn(s, v, u[c]))
			return 1;
	return 0;
}

static void load(const float *x, uint32_t v, double *p)
{
	for (int k = 0; k < 3; k++)
		p[k] = x[3 * (size_t)v + (size_t)k];
}

/* Whether p is within reach of box b (low and high corners): the cheap
 * test before a distance. */
static int point_within(const double *p, const float *b, double reach)
{
	for (int k = 0; k < 3; k++)
		if (p[k] < b[k] - reach || p[k] > b[3 + k] + reach)
			return 0;
	return 1;
}

/* The corners of t against triangle u (its box ub); returns the
 * pairs within reach. */
static size_t corners_to_triangle(struct safe *s, const float *x,
				  const uint32_t *t, unsigned own,
				  const uint32_t *u, const float *ub)
{
	double tri[9], p[3], q[3], r2 = s->reach * s->reach;
	size_t found = 0;
	for (int c = 0; c < 3; c++)
		load(x, u[c], tri + 3 * c);
	for (int c = 0; c < 3; c++) {
		if (!(own & (1u << c)))
			continue;
		load(x, t[c], p);
		if (!point_within(p, ub, s->reach) || touches(s, t[c], u))
			continue;
		double d2 = closest_on_triangle(p, tri, q);
		/* on a nearly degenerate triangle the face's arithmetic can
		 * overestimate; the edges cannot (and bound the face
		 * distance from above, so this is still the distance) */
		for (int k = 0; k < 3; k++) {
			double e2 = closest_on_segment(p, tri + 3 * k,
						       tri + 3 * ((k + 1) % 3), q);
			d2 = e2 < d2 ? e2 : d2;
		}
		if (!(d2 < r2))
			continue;
		double d = sqrt(d2);
		lower(s, t[c], d);
		for (int k = 0; k < 3; k++)
			lower(s, u[k], d);
		found++;
	}
	return found;
}

/* The box of segment pq, low and high corners. */
static void segment_box(const double *p, const double *q, double *b)
{
	for (int k = 0; k < 3; k++) {
		b[k] = p[k] < q[k] ? p[k] : q[k];
		b[3 + k] = p[k] < q[k] ? q[k] : p[k];
	}
}

/* The edges t measures (bits 3-5 of own) against those of u (of ou);
 * returns the pairs within reach. */
static size_t edges_to_edges(struct safe *s, const float *x,
			     const uint32_t *t, unsigned own,
			     const uint32_t *u, unsigned ou)
{
	double r2 = s->reach * s->reach;
	size_t found = 0;
	for (int a = 0; a < 3; a++) {
		if (!(own & (8u << a)))
			continue;
		uint32_t e[2] = {t[a], t[(a + 1) % 3]};
		double p0[3], p1[3], be[6];
		load(x, e[0], p0);
		load(x, e[1], p1);
		segment_box(p0, p1, be);
		for (int b = 0; b < 3; b++) {
			if (!(ou & (8u << b)))
				continue;
			uint32_t f[2] = {u[b], u[(b + 1) % 3]};
			double q0[3], q1[3], bf[6];
			load(x, f[0], q0);
			load(x, f[1], q1);
			segment_box(q0, q1, bf);
			int skip = 0;
			for (int k = 0; k < 3; k++)
				skip |= be[k] - bf[3 + k] >= s->reach ||
					bf[k] - be[3 + k] >= s->reach;
			for (int i = 0; i < 2 && !skip; i++)
				for (int j = 0; j < 2; j++)
					skip |= e[i] == f[j] || sewn(s, e[i], f[j]);
			if (skip)
				continue;
			double d2 = segments_distance2(p0, p1, q0, q1);
			if (!(d2 < r2))
				continue;
			double d = sqrt(d2);
			lower(s, e[0], d);
			lower(s, e[1], d);
			lower(s, f[0], d);
			lower(s, f[1], d);
			found++;
		}
	}
	return found;
}

static int boxes_within(const float *a, const float *b, double reach)
{
	for (int k = 0; k < 3; k++)
		if ((double)a[k] - b[3 + k] > reach || (double)b[k] - a[3 + k] > reach)
			return 0;
	return 1;
}

/* Whether cell c holds the low corner of the overlap of box bt grown by
 * the reach and box bu: the one cell a pair is measured in. */
static int home_cell(const struct safe_hash *h, const float *bt,
		     const float *bu, double reach, const int32_t *c)
{
	for (int k = 0; k < 3; k++) {
		double a = bt[k] - reach, b = bu[k];
		if (cell_of(h, a > b ? a : b, k) != c[k])
			return 0;
	}
	return 1;
}

/* Every triangle u > t whose box comes within the reach of t's, measured
 * against t. */
static size_t measure_triangle(struct safe *s, const float *x, size_t t)
{
	const struct safe_hash *h = s->hash;
	const float *bt = h->box + 6 * t;
	const uint32_t *ct = s->tri + 3 * t;
	unsigned own = s->own[t];
	int32_t lo[3], hi[3];
	for (int k = 0; k < 3; k++)
		cell_range(h, bt, s->reach, k, &lo[k], &hi[k]);
	size_t found = 0;
	int32_t c[3];
	for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
		for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
			for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
				size_t b = bucket_of(h, c);
				for (size_t q = h->start[b]; q < h->start[b + 1]; q++) {
					const struct safe_cell *en = &h->entry[q];
					const float *bu = h->box + 6 * (size_t)en->tri;
					if (en->tri <= t || en->c[0] != c[0] ||
					    en->c[1] != c[1] || en->c[2] != c[2] ||
					    !boxes_within(bt, bu, s->reach) ||
					    !home_cell(h, bt, bu, s->reach, c))
						continue;
					const uint32_t *cu = s->tri + 3 * (size_t)en->tri;
					unsigned ou = s->own[en->tri];
					found += corners_to_triangle(s, x, ct, own, cu, bu) +
						 corners_to_triangle(s, x, cu, ou, ct, bt) +
						 edges_to_edges(s, x, ct, own, cu, ou);
				}
			}
	return found;
}

void safe_update(struct safe *s, const float *x)
{
	double t0 = now_seconds();
	float far = (float)s->reach;
	uint32_t far_bits;
	memcpy(&far_bits, &far, sizeof far_bits);
	for (size_t v = 0; v < s->n; v++)
		s->nearest[v] = far_bits;
	hash_build(s, x);
	size_t pairs = 0;
	#pragma omp parallel for schedule(dynamic, 256) reduction(+ : pairs)
	for (long t = 0; t < (long)s->ntri; t++)
		pairs += measure_triangle(s, x, (size_t)t);
	for (size_t v = 0; v < s->n; v++) {
		float d;
		memcpy(&d, &s->nearest[v], sizeof d);
		s->bound[v] = (float)SAFE_GAMMA * d;
	}
	if (x != s->x0)
		memcpy(s->x0, x, s->n * 3 * sizeof(float));
	s->due = 0;
	s->steps = 0;
	s->stats.updates++;
	s->stats.pairs = pairs;
	s->stats.seconds += now_seconds() - t0;
}

void safe_clamp(struct safe *s, const uint8_t *mov, float *x)
{
	size_t over = 0, clamped = 0;
	#pragma omp parallel for schedule(static) reduction(+ : over, clamped)
	for (long v = 0; v < (long)s->n; v++) {
		if (!mov[v])
			continue;
		int r = safe_clamp_vertex(x + 3 * v, s->x0 + 3 * v, s->bound[v]);
		over += r != SAFE_WITHIN;
		clamped += r == SAFE_CLAMPED;
	}
	safe_step_done(s, over, clamped);
}

void safe_step_done(struct safe *s, size_t over, size_t clamped)
{
	s->stats.clamped += clamped;
	s->steps++;
	if (over > s->nmoving / SAFE_MANY + 1 ||
	    (clamped && s->steps >= SAFE_EVERY))
		s->due = 1;
}

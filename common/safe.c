/* safe.c - measuring the step bounds of --safe (see safe.h).
 *
 * Candidate pairs of triangles come from a hash (boxhash.h) of the
 * triangles' boxes, searched with each triangle's box grown by the reach
 * (rounded outwards): the boxes of a pair closer than the reach overlap
 * it.  Each pair of triangles is measured once (by the lower
 * index): the corners of each against the other triangle, and the
 * edges of each against the other's, skipping primitives that share a
 * vertex (twins, one point of the cloth, count as one) and those whose
 * vertices are all tangled.  Every distance lowers the nearest distance
 * of all the vertices of its two primitives, an atomic minimum on the
 * float's bits (non-negative floats order as their bits do), so the
 * result does not depend on the order or the thread count.
 *
 * The hash is kept between measurements.  A measurement of a set of
 * vertices (safe.h) moves their x0 away from where the hash has them
 * (xh): its search boxes are grown by that drift too, the largest along
 * an axis since the hash was made, and the hash is made again when the
 * drift passes SAFE_DRIFT times the reach.  The set's pairs of
 * triangles are measured from both sides, but for those of two of its
 * own triangles. */
#include "safe.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boxhash.h"
#include "closest.h"
#include "progress.h"
#include "proximity.h"
#include "seam_link.h"

/* The triangles' boxes at x0 (box), and at xh (hashed). */
struct safe_hash {
	struct tribox *box, *hashed;
	struct boxhash H;
	int made;
};

/* How far (along an axis, over the reach) the x0 of a set's vertices
 * may drift from where the hash has them before it is made again: a
 * smaller drift makes it more often, a larger one grows every set's
 * search box.  The dress at 2048 from rest on its body, 64 iterations of
 * --self --safe: 0.25, 0.5, 1, 2 and 4 took 50.3, 29.1, 18.6, 21.9 and
 * 20.7 s. */
#define SAFE_DRIFT 1.0

/* A set's measurement measures all instead when its triangles are more
 * than a SAFE_SET_SHARE-th of the cloth's: a set's triangle costs about
 * four times one of all's (searched with a larger box, from both
 * sides). */
#define SAFE_SET_SHARE 4

/* Vertices a thread takes at a time where a pass over them gathers a
 * list in vertex order. */
#define SAFE_CHUNK 16384

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

/* The triangles with each twin pair made one vertex, the lower index:
 * what the search for tangles counts on. */
static uint32_t *one_point_triangles(const struct safe *s)
{
	uint32_t *t = xmalloc_array(s->ntri ? 3 * s->ntri : 1, sizeof *t);
	for (size_t k = 0; k < 3 * s->ntri; k++) {
		uint32_t v = s->tri[k];
		t[k] = s->twin[v] < v ? s->twin[v] : v;
	}
	return t;
}

/* The grid vertices within `band` cells (along either axis) of a seam
 * vertex, 1 each; none without a seam channel (seams open). */
static uint8_t *seam_band(const struct seam_grid *sg, int band)
{
	const struct grid *g = sg->grid;
	const uint8_t *mask = sg->mask;
	size_t w = (size_t)g->width, h = (size_t)g->height, n = w * h;
	uint8_t *near = xcalloc(n, 1);
	for (size_t v = 0; sg->seam && v < n; v++) {
		if (!(mask[v] & MASK_SEAM))
			continue;
		long i = (long)(v % w), j = (long)(v / w);
		for (long b = j - band; b <= j + band; b++)
			for (long a = i - band; a <= i + band; a++)
				if (a >= 0 && b >= 0 && a < (long)w && b < (long)h)
					near[(size_t)b * w + (size_t)a] = 1;
	}
	return near;
}

/* Whether triangle c has a corner marked in near. */
static int in_band(const uint8_t *near, const uint32_t *c)
{
	return near[c[0]] | near[c[1]] | near[c[2]];
}

/* Only the triangles with a corner within `band` cells of a seam vertex
 * (none on a grid without seams); s->held marks their corners, the only
 * vertices bounded. */
static void keep_seam_band(struct safe *s, int band)
{
	uint8_t *near = seam_band(&s->seams, band);
	size_t kept = 0;
	for (size_t t = 0; t < s->ntri; t++) {
		const uint32_t *c = s->tri + 3 * t;
		if (!in_band(near, c))
			continue;
		memmove(s->tri + 3 * kept, c, 3 * sizeof *c);
		kept++;
	}
	s->ntri = kept;
	memset(near, 0, s->n);
	for (size_t k = 0; k < 3 * kept; k++)
		near[s->tri[k]] = 1;
	s->held = near;
}

int safe_scope(const char *name)
{
	if (!name || strcmp(name, "all") == 0)
		return SAFE_ALL;
	return strcmp(name, "seams") == 0 ? SAFE_SEAMS : 0;
}

int safe_scope_option(const char *name)
{
	int scope = safe_scope(name);
	if (!scope)
		usage_fail("--safe: '%s' is not all or seams", name);
	return scope;
}

/* Each vertex's triangles (vtri_start, vtri), and the arrays over the
 * triangles that a set's measurement uses, for the current triangles. */
static void vertex_triangles(struct safe *s)
{
	free(s->vtri_start);
	free(s->vtri);
	s->vtri_start = xcalloc(s->n + 1, sizeof *s->vtri_start);
	s->vtri = xmalloc_array(3 * s->ntri + 1, sizeof *s->vtri);
	for (size_t k = 0; k < 3 * s->ntri; k++)
		s->vtri_start[s->tri[k] + 1]++;
	for (size_t v = 0; v < s->n; v++)
		s->vtri_start[v + 1] += s->vtri_start[v];
	uint32_t *fill = xmalloc_array(s->n + 1, sizeof *fill);
	memcpy(fill, s->vtri_start, s->n * sizeof *fill);
	for (size_t k = 0; k < 3 * s->ntri; k++)
		s->vtri[fill[s->tri[k]]++] = (uint32_t)(k / 3);
	free(fill);
	free(s->tmark);
	free(s->tset);
	free(s->tround);
	s->tmark = xcalloc(s->ntri + 1, 1);
	s->tset = xmalloc_array(s->ntri + 1, sizeof *s->tset);
	s->tround = xmalloc_array(s->ntri + 1, sizeof *s->tround);
}

int safe_init(struct safe *s, const struct grid *g, int band, struct error *e)
{
	const uint8_t *mask;
	const uint16_t *panel;
	const float *seam;
	memset(s, 0, sizeof *s);
	if (collide_channels(g, &mask, &panel, &seam, e))
		return -1;
	s->n = grid_vertices(g);
	s->ntri = grid_triangles(g->width, g->height, mask, panel, &s->tri);
	s->seams = (struct seam_grid){g, mask, panel, seam};
	s->band = band;
	if (band > 0)
		keep_seam_band(s, band);
	s->twin = xmalloc_array(s->n, sizeof *s->twin);
	size_t twins = 0;
	for (size_t v = 0; v < s->n; v++) {
		size_t t = seam ? seam_twin(g, mask, seam, v) : SIZE_MAX;
		s->twin[v] = (uint32_t)(t == SIZE_MAX ? v : t);
		twins += t != SIZE_MAX;
	}
	s->tri_one = twins ? one_point_triangles(s) : NULL;
	s->own = owners(s->tri, s->ntri, s->n);
	s->tangled = xcalloc(s->n, 1);
	s->reach = SAFE_REACH * g->cell;
	s->x0 = xmalloc_array(s->n, 3 * sizeof(float));
	s->bound = xmalloc_array(s->n, sizeof(float));
	s->nearest = xmalloc_array(s->n, sizeof(uint32_t));
	s->hash = xcalloc(1, sizeof *s->hash);
	s->wait = 1;
	s->hash->box = xmalloc_array(s->ntri ? s->ntri : 1, sizeof(struct tribox));
	s->hash->hashed = xmalloc_array(s->ntri ? s->ntri : 1, sizeof(struct tribox));
	s->xh = xmalloc_array(s->n, 3 * sizeof(float));
	s->in = xcalloc(s->n ? s->n : 1, 1);
	s->want = xcalloc(s->n ? s->n : 1, 1);
	s->set = xmalloc_array(s->n + 1, sizeof *s->set);
	s->wanted = xmalloc_array(s->n + 1, sizeof *s->wanted);
	s->vwait = xcalloc(s->n + 1, 1);
	s->vexp = xcalloc(s->n + 1, 1);
	vertex_triangles(s);
	s->due = 1;
	return 0;
}

void safe_free(struct safe *s)
{
	if (s->hash) {
		if (s->hash->made)
			boxhash_free(&s->hash->H);
		free(s->hash->box);
		free(s->hash->hashed);
		free(s->hash);
	}
	free(s->xh);
	free(s->vtri_start);
	free(s->vtri);
	free(s->in);
	free(s->want);
	free(s->tmark);
	free(s->set);
	free(s->wanted);
	free(s->vwait);
	free(s->vexp);
	free(s->tset);
	free(s->tround);
	free(s->tri);
	free(s->own);
	free(s->twin);
	free(s->tri_one);
	free(s->tangled);
	free(s->held);
	free(s->x0);
	free(s->bound);
	free(s->nearest);
	memset(s, 0, sizeof *s);
}

/* ---- the seams' strip ------------------------------------------------ */

/* The cloth the strip is made over: the grid's triangles (twins one
 * vertex) with a corner within SAFE_SEAM_BAND cells of a seam vertex,
 * which hold every triangle seam_strip.c looks at and those the strip's
 * flips are checked against, renumbered over the grid vertices they use
 * (vgrid, ascending), so that a large grid costs what its seams hold. */
struct strip_cloth {
	int nv, nt;
	uint32_t *vgrid;
	int (*tri)[3];
	float (*pos)[3];
};

static void strip_cloth(struct strip_cloth *c, const struct safe *s,
			const float *x)
{
	const uint32_t *tri = s->tri_one ? s->tri_one : s->tri;
	uint8_t *near = seam_band(&s->seams, SAFE_SEAM_BAND);
	/* each grid vertex's number in c, UINT32_MAX for none */
	uint32_t *index = xmalloc_array(s->n, sizeof *index);
	size_t nt = 0, nv = 0;
	for (size_t v = 0; v < s->n; v++)
		index[v] = UINT32_MAX;
	for (size_t t = 0; t < s->ntri; t++)
		if (in_band(near, tri + 3 * t)) {
			nt++;
			for (int k = 0; k < 3; k++)
				index[tri[3 * t + (size_t)k]] = 0;
		}
	for (size_t v = 0; v < s->n; v++)
		if (index[v] == 0)
			index[v] = (uint32_t)nv++;
	c->vgrid = xmalloc_array(nv + 1, sizeof *c->vgrid);
	for (size_t v = 0; v < s->n; v++)
		if (index[v] != UINT32_MAX)
			c->vgrid[index[v]] = (uint32_t)v;
	c->nv = (int)nv;
	c->nt = (int)nt;
	c->pos = xmalloc_array(nv + 1, sizeof *c->pos);
	for (size_t k = 0; k < nv; k++)
		memcpy(c->pos[k], x + 3 * (size_t)c->vgrid[k], sizeof *c->pos);
	c->tri = xmalloc_array(nt + 1, sizeof *c->tri);
	nt = 0;
	for (size_t t = 0; t < s->ntri; t++) {
		if (!in_band(near, tri + 3 * t))
			continue;
		for (int k = 0; k < 3; k++)
			c->tri[nt][k] = (int)index[tri[3 * t + (size_t)k]];
		nt++;
	}
	free(index);
	free(near);
}

/* Triangles tris[0..add) (of c's vertices) added to the cloth's. */
static void append_triangles(struct safe *s, const struct strip_cloth *c,
			     const int (*tris)[3], size_t add)
{
	size_t nt3 = 3 * (s->ntri + add);
	s->tri = xrealloc_array(s->tri, nt3, sizeof *s->tri);
	if (s->tri_one)
		s->tri_one = xrealloc_array(s->tri_one, nt3, sizeof *s->tri_one);
	for (size_t k = 0; k < add; k++)
		for (int j = 0; j < 3; j++) {
			size_t at = 3 * (s->ntri + k) + (size_t)j;
			s->tri[at] = c->vgrid[tris[k][j]];
			if (s->tri_one)
				s->tri_one[at] = s->tri[at];
		}
	s->ntri += add;
	free(s->own);
	s->own = owners(s->tri, s->ntri, s->n);
	s->hash->box = xrealloc_array(s->hash->box, s->ntri, sizeof(struct tribox));
	s->hash->hashed = xrealloc_array(s->hash->hashed, s->ntri,
					 sizeof(struct tribox));
	vertex_triangles(s);
}

/* The seams' strip, and its holes, over the grid at x, with its rungs
 * flipped where it crosses the cloth beside it, as pleat-simplify makes
 * them (seam_strip.h); the triangles added to the cloth's (safe.h). */
static void add_strip(struct safe *s, const float *x)
{
	s->stripped = 1;
	if (!s->seams.seam)
		return;
	struct strip_cloth c;
	strip_cloth(&c, s, x);
	struct strip_mesh m = {c.nv, c.nt, c.vgrid, (const int (*)[3])c.tri,
			       (const float (*)[3])c.pos};
	struct seam_strip st;
	seam_strip_build(&st, &m, &s->seams);
	size_t add = (size_t)st.nstrip + (size_t)st.nholes;
	if (add) {
		c.tri = xrealloc_array(c.tri, (size_t)c.nt + add, sizeof *c.tri);
		memcpy(c.tri + c.nt, st.tris, add * sizeof *c.tri);
		uint32_t *pairs;
		size_t np = count_all_intersections((const float *)c.pos,
						    (const uint32_t *)c.tri,
						    (size_t)c.nt + add, &pairs);
		int flips;
		seam_strip_flip(c.tri, c.nt + (int)add, c.nt,
				(const float (*)[3])c.pos, c.vgrid,
				s->seams.panel, pairs, np, &flips);
		append_triangles(s, &c, (const int (*)[3])(c.tri + c.nt), add);
	}
	seam_strip_free(&st);
	free(c.vgrid);
	free(c.tri);
	free(c.pos);
	s->stats.strip = add;
}

/* ---- the hash -------------------------------------------------------- */

/* The box of triangle t's corners at x, grown by `grow` metres (rounded
 * outwards). */
static void triangle_box(const struct safe *s, const float *x, size_t t,
			 double grow, struct tribox *b)
{
	for (int k = 0; k < 3; k++) {
		float lo = x[3 * (size_t)s->tri[3 * t] + (size_t)k], hi = lo;
		for (int c = 1; c < 3; c++) {
			float v = x[3 * (size_t)s->tri[3 * t + (size_t)c] + (size_t)k];
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		b->lo[k] = (float)(lo - grow);
		if ((double)b->lo[k] > lo - grow)
			b->lo[k] = nextafterf(b->lo[k], -INFINITY);
		b->hi[k] = (float)(hi + grow);
		if ((double)b->hi[k] < hi + grow)
			b->hi[k] = nextafterf(b->hi[k], INFINITY);
	}
}

/* The hash of the triangles at x0, which becomes xh. */
static void hash_build(struct safe *s)
{
	struct safe_hash *h = s->hash;
	#pragma omp parallel for schedule(static)
	for (long t = 0; t < (long)s->ntri; t++)
		triangle_box(s, s->x0, (size_t)t, 0, &h->box[t]);
	memcpy(h->hashed, h->box, s->ntri * sizeof *h->box);
	boxhash_build(&h->H, h->hashed, s->ntri);
	h->made = 1;
	s->drift = 0;
	memcpy(s->xh, s->x0, s->n * 3 * sizeof(float));
}

/* Vertex v's x0's distance from where the hash took it, along the axis
 * where it is largest, into s->drift. */
static void drifted(struct safe *s, uint32_t v)
{
	for (int k = 0; k < 3; k++) {
		size_t c = 3 * (size_t)v + (size_t)k;
		s->drift = fmax(s->drift, fabs((double)s->x0[c] - s->xh[c]));
	}
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

/* A pair of primitives that share no vertex, corners p[0..np) and
 * q[0..nq), at distance d.  Measuring all: every corner's nearest
 * distance is lowered to d.  Measuring a set (safe.h), a pair with a
 * corner in it: each such corner's to h = d - F, F the largest bound of
 * p's corners outside the set plus that of q's; or, when h is below
 * d / 2, the corners outside are asked in (want) instead, and the next
 * round measures the pair again with them. */
static void found_pair(struct safe *s, const uint32_t *p, int np,
		       const uint32_t *q, int nq, double d)
{
	if (!s->measuring_set) {
		for (int c = 0; c < np; c++)
			lower(s, p[c], d);
		for (int c = 0; c < nq; c++)
			lower(s, q[c], d);
		return;
	}
	double f[2] = {0, 0};
	int any = 0;
	for (int c = 0; c < np + nq; c++) {
		uint32_t v = c < np ? p[c] : q[c - np];
		if (s->in[v])
			any = 1;
		else
			f[c >= np] = fmax(f[c >= np], s->bound[v]);
	}
	/* a pair with no corner in the set keeps the rule as it was */
	if (!any)
		return;
	double h = d - f[0] - f[1];
	int ask = h < 0.5 * d;
	for (int c = 0; c < np + nq; c++) {
		uint32_t v = c < np ? p[c] : q[c - np];
		if (s->in[v]) {
			/* a pair that asks is measured again in the next
			 * round, its corners all in the set */
			if (!ask)
				lower(s, v, h);
		} else if (ask && !__atomic_exchange_n(&s->want[v], 1,
							__ATOMIC_RELAXED)) {
			s->wanted[__atomic_fetch_add(&s->nwanted, 1,
						     __ATOMIC_RELAXED)] = v;
		}
	}
}

/* Whether vertices a and b are one point of the cloth: the same vertex,
 * or twins. */
static int one_point(const struct safe *s, uint32_t a, uint32_t b)
{
	return a == b || s->twin[a] == b;
}

/* Whether vertex v is a corner of triangle u (or a corner's twin), or
 * it and u's corners are all tangled. */
static int touches(const struct safe *s, uint32_t v, const uint32_t *u)
{
	for (int c = 0; c < 3; c++)
		if (one_point(s, v, u[c]))
			return 1;
	return s->tangled[v] && s->tangled[u[0]] && s->tangled[u[1]] &&
	       s->tangled[u[2]];
}

/* Whether edges e and f share an end (or twins), or their ends are all
 * tangled. */
static int edges_touch(const struct safe *s, const uint32_t *e,
		       const uint32_t *f)
{
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (one_point(s, e[i], f[j]))
				return 1;
	return s->tangled[e[0]] && s->tangled[e[1]] && s->tangled[f[0]] &&
	       s->tangled[f[1]];
}

static void load(const float *x, uint32_t v, double *p)
{
	for (int k = 0; k < 3; k++)
		p[k] = x[3 * (size_t)v + (size_t)k];
}

/* Whether p is within reach of box b (low and high corners): the cheap
 * test before a distance. */
static int point_within(const double *p, const struct tribox *b,
			double reach)
{
	for (int k = 0; k < 3; k++)
		if (p[k] < b->lo[k] - reach || p[k] > b->hi[k] + reach)
			return 0;
	return 1;
}

/* The corners of t against triangle u (its box ub); returns the
 * pairs within reach. */
static size_t corners_to_triangle(struct safe *s, const float *x,
				  const uint32_t *t, unsigned own,
				  const uint32_t *u, const struct tribox *ub)
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
		/* (on a nearly flat triangle, the edges' distance: see
		 * closest_on_triangle) */
		double d2 = closest_on_triangle(p, tri, q);
		if (!(d2 < r2))
			continue;
		found_pair(s, t + c, 1, u, 3, sqrt(d2));
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
			if (skip || edges_touch(s, e, f))
				continue;
			double d2 = segments_distance2(p0, p1, q0, q1);
			if (!(d2 < r2))
				continue;
			found_pair(s, e, 2, f, 2, sqrt(d2));
			found++;
		}
	}
	return found;
}

/* What measure_triangle's visits need. */
struct measure {
	struct safe *s;
	size_t t;
};

static size_t measure_pair(uint32_t u, void *arg)
{
	const struct measure *me = arg;
	struct safe *s = me->s;
	/* a set's pair of triangles is measured from the lower one */
	if (s->measuring_set && u <= me->t && s->tmark[u] == 2)
		return 0;
	/* a set's search box is grown by the drift too: the boxes at x0
	 * within the reach of each other (measuring all, the search tested
	 * that) */
	const struct tribox *bt = &s->hash->box[me->t], *bu = &s->hash->box[u];
	for (int k = 0; s->measuring_set && k < 3; k++)
		if ((double)bu->lo[k] - bt->hi[k] >= s->reach ||
		    (double)bt->lo[k] - bu->hi[k] >= s->reach)
			return 0;
	const uint32_t *ct = s->tri + 3 * me->t, *cu = s->tri + 3 * (size_t)u;
	unsigned own = s->own[me->t], ou = s->own[u];
	const float *x = s->x0;
	return corners_to_triangle(s, x, ct, own, cu, &s->hash->box[u]) +
	       corners_to_triangle(s, x, cu, ou, ct, &s->hash->box[me->t]) +
	       edges_to_edges(s, x, ct, own, cu, ou);
}

/* Every triangle whose box at x0 comes within the reach of t's measured
 * against t: measuring all, those after t; measuring a set, all, the
 * search grown by the drift of x0 from where the hash has them. */
static size_t measure_triangle(struct safe *s, size_t t)
{
	struct measure me = {s, t};
	const struct safe_hash *h = s->hash;
	struct tribox b;
	int all = !s->measuring_set;
	triangle_box(s, s->x0, t, s->reach + s->drift, &b);
	return boxhash_visit(&h->H, h->hashed, &b, all ? (uint32_t)t + 1 : 0,
			     measure_pair, &me);
}

/* Every pair of triangles at x that intersect (sharing a corner or none)
 * and has a triangle from `first` on into *pairs; returns how many. */
static size_t intersecting_pairs(const struct safe *s, const float *x,
				 const uint32_t *tri, size_t first,
				 uint32_t **pairs)
{
	if (first == 0)
		return count_all_intersections(x, tri, s->ntri, pairs);
	uint8_t *touch = xmalloc(s->ntri + 1);
	for (size_t t = 0; t < s->ntri; t++)
		touch[t] = t >= first;
	size_t np = count_touching_intersections(x, tri, s->ntri, touch, pairs);
	free(touch);
	return np;
}

/* The tangled vertices at x: the corners of every pair of triangles
 * that intersect (sharing a corner or none), of those with a triangle
 * from `first` on when the others are known to be free of them.  Not
 * looked for once a measurement found none: the bounds keep it so. */
static void find_tangles(struct safe *s, const float *x, size_t first)
{
	if (s->tangle_free)
		return;
	/* twins as one vertex, at the lower index's position: the springs
	 * leave them micrometres apart, and their triangles would cross by
	 * rounding (the output joins them) */
	uint32_t *pairs;
	size_t np;
	if (s->tri_one) {
		float *xc = xmalloc_array(s->n, 3 * sizeof(float));
		for (size_t v = 0; v < s->n; v++) {
			uint32_t one = s->twin[v] < v ? s->twin[v] : (uint32_t)v;
			memcpy(xc + 3 * v, x + 3 * (size_t)one, 3 * sizeof(float));
		}
		np = intersecting_pairs(s, xc, s->tri_one, first, &pairs);
		free(xc);
	} else {
		np = intersecting_pairs(s, x, s->tri, first, &pairs);
	}
	memset(s->tangled, 0, s->n);
	for (size_t q = 0; q < 2 * np; q++)
		for (int c = 0; c < 3; c++) {
			uint32_t v = s->tri[3 * (size_t)pairs[q] + (size_t)c];
			s->tangled[v] = s->tangled[s->twin[v]] = 1;
		}
	free(pairs);
	if (s->stats.updates == 0)
		s->stats.tangles_start = np;
	s->stats.tangles = np;
	s->tangle_free = np == 0;
}

/* The wait before vertices beyond half their bound call for the next
 * measurement (safe.h): doubled, up to SAFE_EVERY, when this one gave
 * fewer than one in SAFE_ROOMIER of the tight vertices twice the room
 * (held by a short seam, a tangle's edge or a fold they keep coming back
 * to, measuring again does not free them), else 1. */
static void back_off(struct safe *s, size_t tight, size_t roomier)
{
	if (s->pressed || tight == 0 || roomier * SAFE_ROOMIER >= tight)
		s->wait = 1;
	else
		s->wait = s->wait * 2 < SAFE_EVERY ? s->wait * 2 : SAFE_EVERY;
}

/* The nearest distances of vertices set[0..n) back to the reach. */
static void reset_nearest(struct safe *s, const uint32_t *set, size_t n)
{
	float far = (float)s->reach;
	uint32_t far_bits;
	memcpy(&far_bits, &far, sizeof far_bits);
	for (size_t q = 0; q < n; q++)
		s->nearest[set ? set[q] : q] = far_bits;
}

/* Vertex v's bound from its nearest distance; counts it among the tight
 * (its old bound below SAFE_TIGHT of the largest) and those of them
 * given twice the room. */
static void set_bound(struct safe *s, size_t v, size_t *tight,
		      size_t *roomier)
{
	float d, old = s->bound[v];
	float small = (float)(SAFE_TIGHT * SAFE_GAMMA * s->reach);
	memcpy(&d, &s->nearest[v], sizeof d);
	s->bound[v] = !s->held || s->held[v] ? (float)SAFE_GAMMA * d : FLT_MAX;
	if (s->stats.updates > 0 && old < small) {
		++*tight;
		*roomier += s->bound[v] >= 2.0f * old;
	}
}

/* Measures the whole cloth at x. */
static void measure_all(struct safe *s, const float *x, size_t *tight,
			size_t *roomier)
{
	if (x != s->x0)
		memcpy(s->x0, x, s->n * 3 * sizeof(float));
	find_tangles(s, s->x0, 0);
	if (!s->stripped && s->tangle_free) {
		/* the cloth is free of tangles: only the strip's triangles
		 * can cross anything */
		size_t cloth = s->ntri;
		add_strip(s, s->x0);
		s->tangle_free = 0;
		find_tangles(s, s->x0, cloth);
	}
	reset_nearest(s, NULL, s->n);
	hash_build(s);
	size_t pairs = 0;
	s->measuring_set = 0;
	#pragma omp parallel for schedule(dynamic, 256) reduction(+ : pairs)
	for (long t = 0; t < (long)s->ntri; t++)
		pairs += measure_triangle(s, (size_t)t);
	for (size_t v = 0; v < s->n; v++)
		set_bound(s, v, tight, roomier);
	/* every vertex measured: none sits the next ones out */
	memset(s->vwait, 0, s->n);
	memset(s->vexp, 0, s->n);
	s->stats.pairs = pairs;
}

/* The bounded vertices beyond half their bound at x, and those whose
 * bound is too small to move them at all (safe_clamp_vertex keeps them
 * at x0), into s->set and s->in; returns how many. */
static size_t beyond_half(struct safe *s, const float *x)
{
	#pragma omp parallel for schedule(static)
	for (long v = 0; v < (long)s->n; v++) {
		float c[3];
		memcpy(c, x + 3 * v, sizeof c);
		const float *o = s->x0 + 3 * v;
		float big = fmaxf(fabsf(o[0]), fmaxf(fabsf(o[1]), fabsf(o[2])));
		int need = s->bound[v] < FLT_MAX &&
			   (safe_clamp_vertex(c, o, s->bound[v]) != SAFE_WITHIN ||
			    s->bound[v] <= 2 * SAFE_SLACK * big);
		if (need && s->vwait[v]) {
			s->vwait[v]--;
			need = 0;
		}
		s->in[v] = (uint8_t)need;
	}
	/* twins, one point of the cloth, are measured together (so that
	 * pleat-initialize's approach moves them by shares of one way): the
	 * set in vertex order, gathered chunk by chunk */
	size_t nchunk = (s->n + SAFE_CHUNK - 1) / SAFE_CHUNK;
	size_t *at = xmalloc_array(nchunk + 1, sizeof *at);
	#pragma omp parallel for schedule(static)
	for (long q = 0; q < (long)nchunk; q++) {
		size_t count = 0, end = ((size_t)q + 1) * SAFE_CHUNK;
		for (size_t v = (size_t)q * SAFE_CHUNK; v < end && v < s->n; v++)
			count += s->in[v] || s->in[s->twin[v]];
		at[q + 1] = count;
	}
	at[0] = 0;
	for (size_t q = 0; q < nchunk; q++)
		at[q + 1] += at[q];
	#pragma omp parallel for schedule(static)
	for (long q = 0; q < (long)nchunk; q++) {
		size_t k = at[q], end = ((size_t)q + 1) * SAFE_CHUNK;
		for (size_t v = (size_t)q * SAFE_CHUNK; v < end && v < s->n; v++)
			if (s->in[v] || s->in[s->twin[v]])
				s->set[k++] = (uint32_t)v;
	}
	size_t ns = at[nchunk];
	free(at);
	#pragma omp parallel for schedule(static)
	for (long q = 0; q < (long)ns; q++)
		s->in[s->set[q]] = 1;
	return ns;
}

/* A tight vertex (its old bound below SAFE_TIGHT of the largest) that
 * measuring again did not give twice the room (a bound of 0 again is no
 * more room) sits out twice as many measurements as last time, up to 7:
 * its own back_off. */
static void vertex_back_off(struct safe *s, uint32_t v, float old)
{
	float small = (float)(SAFE_TIGHT * SAFE_GAMMA * s->reach);
	if (s->stats.updates > 0 && old < small &&
	    (s->bound[v] < 2.0f * old || s->bound[v] == 0)) {
		s->vexp[v] = s->vexp[v] < 3 ? s->vexp[v] + 1 : 3;
		s->vwait[v] = (uint8_t)((1 << s->vexp[v]) - 1);
	} else {
		s->vexp[v] = 0;
	}
}

static int u32_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
}

/* The set's measurement (safe.h): its vertices' x0 moved to x and their
 * pairs measured, the vertices a pair asks for taken in and measured in
 * the next round, until none is.  A round measures the triangles of the
 * vertices it took in (tmark 2; 1 for those of earlier rounds); the
 * nearest distances of earlier rounds stay, as lower than they need be
 * at most.  Returns the vertices measured, or 0 when the set's
 * triangles grew past a SAFE_SET_SHARE-th of the cloth's (then x0 is x
 * on some vertices, the bounds as they were: the caller measures
 * all). */
static size_t measure_set(struct safe *s, const float *x, size_t ns,
			  size_t *tight, size_t *roomier)
{
	size_t done = 0, nts = 0, ok = 1, start = ns;
	s->measuring_set = 1;
	while (done < ns) {
		size_t nr = 0;
		for (size_t q = done; q < ns; q++) {
			uint32_t v = s->set[q];
			memcpy(s->x0 + 3 * (size_t)v, x + 3 * (size_t)v,
			       3 * sizeof(float));
			drifted(s, v);
			for (uint32_t k = s->vtri_start[v]; k < s->vtri_start[v + 1]; k++) {
				uint32_t t = s->vtri[k];
				if (s->tmark[t] == 2)
					continue;
				if (!s->tmark[t])
					s->tset[nts++] = t;
				s->tmark[t] = 2;
				s->tround[nr++] = t;
			}
		}
		if (nts * SAFE_SET_SHARE > s->ntri) {
			ok = 0;
			break;
		}
		if (s->drift > SAFE_DRIFT * s->reach)
			hash_build(s);
		else
			for (size_t k = 0; k < nr; k++)
				triangle_box(s, s->x0, s->tround[k], 0,
					     &s->hash->box[s->tround[k]]);
		reset_nearest(s, s->set + done, ns - done);
		done = ns;
		#pragma omp parallel for schedule(dynamic, 64)
		for (long k = 0; k < (long)nr; k++)
			measure_triangle(s, s->tround[k]);
		for (size_t k = 0; k < nr; k++)
			s->tmark[s->tround[k]] = 1;
		/* in vertex order: the rounds do not depend on the threads' */
		qsort(s->wanted, s->nwanted, sizeof *s->wanted, u32_cmp);
		for (size_t q = 0; q < s->nwanted; q++) {
			uint32_t v = s->wanted[q], pair[2] = {v, s->twin[v]};
			s->want[v] = 0;
			for (int k = 0; k < 2; k++)
				if (!s->in[pair[k]]) {
					s->in[pair[k]] = 1;
					s->set[ns++] = pair[k];
				}
		}
		s->nwanted = 0;
	}
	s->measuring_set = 0;
	for (size_t q = 0; q < ns; q++) {
		uint32_t v = s->set[q];
		float old = s->bound[v];
		if (ok)
			set_bound(s, v, tight, roomier);
		if (ok && q < start)
			vertex_back_off(s, v, old);
		s->in[v] = 0;
	}
	for (size_t k = 0; k < nts; k++)
		s->tmark[s->tset[k]] = 0;
	for (size_t q = 0; q < s->nwanted; q++)
		s->want[s->wanted[q]] = 0;
	s->nwanted = 0;
	return ok ? ns : 0;
}

void safe_update(struct safe *s, const float *x)
{
	double t0 = now_seconds();
	size_t tight = 0, roomier = 0;
	int set = 0;
	/* a set only where no tangle is left free and the strip is held */
	if (!s->band && x != s->x0 && s->hash->made && s->tangle_free &&
	    s->stripped) {
		size_t ns = beyond_half(s, x);
		size_t measured = ns ? measure_set(s, x, ns, &tight, &roomier) : 0;
		set = measured > 0 || ns == 0;
		if (set) {
			s->stats.local++;
			s->stats.remeasured += measured;
		}
	}
	if (!set)
		measure_all(s, x, &tight, &roomier);
	/* the tight vertices of a set have their own back-off, and a set
	 * is cheap: measure again as soon as vertices call for it (the
	 * coarse T-shirt at 1024 on the posed body, 64 iterations: 39
	 * measurements, 20.9 s, 4527 J, against 11, 13.1 s, 6091 J with the
	 * whole cloth's wait, which needed 128 iterations, 25.0 s, for
	 * 5387 J) */
	if (set)
		s->wait = 1;
	else
		back_off(s, tight, roomier);
	s->due = 0;
	s->steps = 0;
	s->stats.updates++;
	s->stats.seconds += now_seconds() - t0;
}

void safe_restored(struct safe *s)
{
	s->due = 1;
	/* the earlier iterate may still have had the tangle that a later
	 * measurement found gone */
	s->tangle_free = 0;
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
	if ((over > s->nmoving / SAFE_MANY + 1 && s->steps >= s->wait) ||
	    (clamped && s->steps >= SAFE_EVERY))
		s->due = 1;
}

/* safe.c - measuring the step bounds of --safe (see safe.h).
 *
 * Candidate pairs of triangles come from the hash of boxes (boxhash.h)
 * of the triangles' boxes grown by half the reach (rounded outwards), so
 * that two grown boxes overlap when the boxes come within the reach of
 * each other.  Each pair of triangles is measured once (by the lower
 * index): the corners of each against the other triangle, and the
 * edges of each against the other's, skipping primitives that share a
 * vertex (twins, one point of the cloth, count as one) and those whose
 * vertices are all tangled.  Every distance lowers the nearest distance
 * of all the vertices of its two primitives, an atomic minimum on the
 * float's bits (non-negative floats order as their bits do), so the
 * result does not depend on the order or the thread count. */
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

/* The triangles' boxes from the current positions, and the same grown by
 * half the reach, hashed. */
struct safe_hash {
	struct tribox *box, *grown;
	struct boxhash H;
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
	s->hash->grown = xmalloc_array(s->ntri ? s->ntri : 1, sizeof(struct tribox));
	s->due = 1;
	return 0;
}

void safe_free(struct safe *s)
{
	if (s->hash) {
		free(s->hash->box);
		free(s->hash->grown);
		free(s->hash);
	}
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
	s->hash->grown = xrealloc_array(s->hash->grown, s->ntri,
					sizeof(struct tribox));
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

/* Triangle t's box from x, and the box grown by half the reach. */
static void box_of(struct safe *s, const float *x, size_t t)
{
	struct tribox *b = &s->hash->box[t], *g = &s->hash->grown[t];
	double half = 0.5 * s->reach;
	for (int k = 0; k < 3; k++) {
		b->lo[k] = b->hi[k] = x[3 * (size_t)s->tri[3 * t] + (size_t)k];
		for (int c = 1; c < 3; c++) {
			float v = x[3 * (size_t)s->tri[3 * t + (size_t)c] + (size_t)k];
			b->lo[k] = v < b->lo[k] ? v : b->lo[k];
			b->hi[k] = v > b->hi[k] ? v : b->hi[k];
		}
		g->lo[k] = (float)(b->lo[k] - half);
		if ((double)g->lo[k] > b->lo[k] - half)
			g->lo[k] = nextafterf(g->lo[k], -INFINITY);
		g->hi[k] = (float)(b->hi[k] + half);
		if ((double)g->hi[k] < b->hi[k] + half)
			g->hi[k] = nextafterf(g->hi[k], INFINITY);
	}
}

static void hash_build(struct safe *s, const float *x)
{
	for (size_t t = 0; t < s->ntri; t++)
		box_of(s, x, t);
	boxhash_build(&s->hash->H, s->hash->grown, s->ntri);
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
			if (skip || edges_touch(s, e, f))
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

/* What measure_triangle's visits need. */
struct measure {
	struct safe *s;
	const float *x;
	size_t t;
};

static size_t measure_pair(uint32_t u, void *arg)
{
	const struct measure *me = arg;
	struct safe *s = me->s;
	const uint32_t *ct = s->tri + 3 * me->t, *cu = s->tri + 3 * (size_t)u;
	unsigned own = s->own[me->t], ou = s->own[u];
	return corners_to_triangle(s, me->x, ct, own, cu, &s->hash->box[u]) +
	       corners_to_triangle(s, me->x, cu, ou, ct, &s->hash->box[me->t]) +
	       edges_to_edges(s, me->x, ct, own, cu, ou);
}

/* Every triangle u > t whose box comes within the reach of t's, measured
 * against t. */
static size_t measure_triangle(struct safe *s, const float *x, size_t t)
{
	struct measure me = {s, x, t};
	return boxhash_visit(&s->hash->H, s->hash->grown, &s->hash->grown[t],
			     (uint32_t)t + 1, measure_pair, &me);
}

/* The tangled vertices at x: the corners of every pair of triangles
 * that intersect (sharing a corner or none).  Not looked for once a
 * measurement found none: the bounds keep it so. */
static void find_tangles(struct safe *s, const float *x)
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
		np = count_all_intersections(xc, s->tri_one, s->ntri, &pairs);
		free(xc);
	} else {
		np = count_all_intersections(x, s->tri, s->ntri, &pairs);
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

void safe_update(struct safe *s, const float *x)
{
	double t0 = now_seconds();
	find_tangles(s, x);
	if (!s->stripped && s->tangle_free) {
		add_strip(s, x);
		s->tangle_free = 0;
		find_tangles(s, x);
	}
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
	boxhash_free(&s->hash->H);
	size_t tight = 0, roomier = 0;
	float small = (float)(SAFE_TIGHT * SAFE_GAMMA) * far;
	for (size_t v = 0; v < s->n; v++) {
		float d, old = s->bound[v];
		memcpy(&d, &s->nearest[v], sizeof d);
		s->bound[v] = !s->held || s->held[v] ? (float)SAFE_GAMMA * d :
			      FLT_MAX;
		if (s->stats.updates > 0 && old < small) {
			tight++;
			roomier += s->bound[v] >= 2.0f * old;
		}
	}
	back_off(s, tight, roomier);
	if (x != s->x0)
		memcpy(s->x0, x, s->n * 3 * sizeof(float));
	s->due = 0;
	s->steps = 0;
	s->stats.updates++;
	s->stats.pairs = pairs;
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

/* test_self - measurements for tests/self.bats.
 *
 *   test_self far GRID   the intersecting triangle pairs of the first
 *        grid's positions (x, or rest when it has no x), those sharing a
 *        corner included (as pleat-collide counts them), and how many of
 *        them are "far": no corner of one triangle is a grid neighbour of
 *        a corner of the other by collide_excluded's rule.  Only far pairs
 *        are the repulsion's to prevent: a pair with a corner in the other
 *        triangle's 5 x 5 square or across a seam from it never repels
 *        (collide.h), so the folds that make those intersections are left
 *        to the cloth's own energies.  Prints "intersecting N far F".
 *
 *   test_self safe GRID   --safe's bounds (safe.c) at the first grid's
 *        positions against a brute-force search over every vertex and
 *        triangle and every pair of edges of its cloth: each vertex's
 *        bound must be SAFE_GAMMA times the smallest distance of the
 *        primitives it belongs to that share no vertex (twins, one point
 *        of the cloth, count as one) and are not all tangled (corners of
 *        triangles that cross, found over every pair of triangles), at
 *        most the reach, to a float's rounding.  Prints "vertices N
 *        tangles T pairs P bounded B wrong W" (T: pairs of triangles
 *        that cross, as safe.c's count must be; B: bounds below gamma
 *        times the reach) and exits 1 when W > 0.
 *
 *   test_self safe GRID BAND   the same for --safe=seams's band
 *        (safe_init with BAND): the triangles must be those of the grid
 *        with a corner within BAND cells (along either axis) of a seam
 *        vertex, found here by scanning each triangle's square, plus
 *        the strip; the brute force runs over them; every vertex that is
 *        no corner of theirs must be unbounded (FLT_MAX).
 *
 *   test_self safe-moves GRID STEPS SHARE SEED   --safe's measurements
 *        of sets of vertices (safe.h): from the bounds at the first
 *        grid's positions (free of intersections), STEPS times a SHARE
 *        of the bounded vertices (drawn from SEED) move to a random
 *        point between half and all of their bound from their x0, and
 *        safe_update measures; after each, the rule of safe.h, every
 *        pair of primitives that share no vertex further apart at the
 *        measured positions x0 than the largest bound of one's corners
 *        plus that of the other's, is checked by brute force over the
 *        pairs within the reach (every bound must be at most gamma times
 *        the reach, for the rest), and every vertex must be within its
 *        bound of its x0.  Prints "steps S local L vertices V pairs P
 *        worst R wrong W" (L: measurements of sets, V: the vertices
 *        they measured, R: the smallest distance over the bounds' sum)
 *        and exits 1 when W > 0.
 *
 *   test_self slivers N    closest_on_triangle on N needle-thin
 *        triangles: never farther than the nearest edge
 *   test_self segments N   segments_distance2 on N random pairs of
 *        segments (parallel, crossing and degenerate ones among them)
 *        against the smallest distance over a 2001 x 2001 sampling of
 *        both and a refinement of it; prints the worst excess of the
 *        function over the sampled distance and of the sampled one over
 *        the function, and exits 1 when the function is above the
 *        samples (it must be the minimum) or far below them.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "closest.h"
#include "collide.h"
#include "grid.h"
#include "proximity.h"
#include "rng.h"
#include "safe.h"
#include "seam_link.h"

static void fail(const char *msg)
{
	fprintf(stderr, "test_self: %s\n", msg);
	exit(1);
}

/* Whether any corner of triangle t and any corner of u never repel. */
static int near_pair(const struct collide_site *site, const uint32_t *t,
		     const uint32_t *u)
{
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			if (collide_excluded(&site[t[a]], &site[u[b]]))
				return 1;
	return 0;
}

/* The grid at path and its positions: x, or rest when it has no x. */
static const struct grid_channel *positions(const char *path, struct grid *g)
{
	struct error e;
	if (grid_load(path, g, &e))
		fail(e.msg);
	const struct grid_channel *x = grid_find_typed(g, "x", GRID_F32, 3);
	if (!x && !(x = grid_find_typed(g, "rest", GRID_F32, 3)))
		fail("the grid has neither x nor rest (f32 x 3)");
	return x;
}

static int far(const char *path)
{
	struct grid g;
	struct proximity pr;
	struct error e;
	const struct grid_channel *x = positions(path, &g);
	const struct grid_channel *panel = grid_find_typed(&g, "panel", GRID_U16, 1);
	/* the proximity set-up gives every vertex its exclusion site */
	if (proximity_init(&pr, &g, 1, &e))
		fail(e.msg);
	uint32_t *tri, *pairs;
	size_t nt = grid_triangles(g.width, g.height,
				   grid_find(&g, "mask")->data,
				   panel ? panel->data : NULL, &tri);
	size_t n = count_intersections(x->data, tri, nt, &pairs), nfar = 0;
	for (size_t q = 0; q < n; q++)
		nfar += !near_pair(pr.site, tri + 3 * (size_t)pairs[2 * q],
				   tri + 3 * (size_t)pairs[2 * q + 1]);
	n += count_adjacent_intersections(x->data, tri, nt, NULL);
	printf("intersecting %zu far %zu\n", n, nfar);
	free(tri);
	free(pairs);
	proximity_free(&pr);
	grid_free(&g);
	return 0;
}

/* ---- safe --------------------------------------------------------------- */

/* Twins (seam_link.h), one point of the cloth, count as one vertex. */
static int one_point(const size_t *twin, uint32_t a, uint32_t b)
{
	return a == b || twin[a] == b || twin[b] == a;
}

/* Whether the vertices are all tangled: pairs of them are not measured. */
static int all_tangled(const uint8_t *tangled, const uint32_t *v, int nv)
{
	for (int k = 0; k < nv; k++)
		if (!tangled[v[k]])
			return 0;
	return 1;
}

/* The corners of every pair of triangles that cross (triangles_cross:
 * sharing one corner or none), and their twins, over all pairs with
 * overlapping boxes, each twin pair made one vertex at the lower index's
 * position.  Returns the pairs.  Independent of safe.c's search (a hash
 * of boxes, count_all_intersections); it shares with it the crossing
 * predicate, the triangles and the definition of twins. */
static size_t brute_tangles(const float *x, const size_t *twin,
			    const uint32_t *tri, size_t nt, size_t n,
			    uint8_t *tangled)
{
	float *xc = malloc(3 * n * sizeof *xc);
	uint32_t *tc = malloc((3 * nt + 1) * sizeof *tc);
	float *box = malloc((6 * nt + 1) * sizeof *box);
	for (size_t v = 0; v < n; v++) {
		size_t one = twin[v] < v ? twin[v] : v;
		for (int k = 0; k < 3; k++)
			xc[3 * v + (size_t)k] = x[3 * one + (size_t)k];
	}
	for (size_t k = 0; k < 3 * nt; k++)
		tc[k] = twin[tri[k]] < tri[k] ? (uint32_t)twin[tri[k]] : tri[k];
	for (size_t t = 0; t < nt; t++)
		for (int k = 0; k < 3; k++) {
			float lo = INFINITY, hi = -INFINITY;
			for (int c = 0; c < 3; c++) {
				float p = xc[3 * (size_t)tc[3 * t + (size_t)c] + (size_t)k];
				lo = p < lo ? p : lo;
				hi = p > hi ? p : hi;
			}
			box[6 * t + (size_t)k] = lo;
			box[6 * t + 3 + (size_t)k] = hi;
		}
	memset(tangled, 0, n);
	size_t pairs = 0;
	for (size_t t = 0; t < nt; t++)
		for (size_t u = t + 1; u < nt; u++) {
			int apart = 0;
			for (int k = 0; k < 3; k++)
				apart |= box[6 * t + (size_t)k] > box[6 * u + 3 + (size_t)k] ||
					 box[6 * u + (size_t)k] > box[6 * t + 3 + (size_t)k];
			if (apart || !triangles_cross(xc, tc + 3 * t, tc + 3 * u))
				continue;
			for (int c = 0; c < 3; c++) {
				uint32_t a = tri[3 * t + (size_t)c], b = tri[3 * u + (size_t)c];
				tangled[a] = tangled[b] = 1;
				if (twin[a] != SIZE_MAX)
					tangled[twin[a]] = 1;
				if (twin[b] != SIZE_MAX)
					tangled[twin[b]] = 1;
			}
			pairs++;
		}
	free(xc);
	free(tc);
	free(box);
	return pairs;
}

static void at(const float *x, uint32_t v, double *p)
{
	for (int k = 0; k < 3; k++)
		p[k] = x[3 * (size_t)v + (size_t)k];
}

/* The rule a measurement of a set keeps (safe.h): a pair of primitives,
 * corners p[0..np) and q, at distance d between their corners' x0, is
 * further apart than the largest bound of p's corners plus that of q's.
 * With bound NULL, nothing is checked. */
struct pair_rule {
	const float *bound;
	size_t broken;
	double worst;      /* the smallest d / (B(p) + B(q)) */
};

static void check_rule(struct pair_rule *r, const uint32_t *v, int np,
		       int nv, double d)
{
	if (!r || !r->bound)
		return;
	double bp = 0, bq = 0;
	for (int k = 0; k < nv; k++) {
		double b = r->bound[v[k]];
		if (k < np)
			bp = b > bp ? b : bp;
		else
			bq = b > bq ? b : bq;
	}
	if (bp + bq == 0)
		return;   /* neither moves (touching, as twins can) */
	double ratio = d / (bp + bq);
	r->worst = ratio < r->worst ? ratio : r->worst;
	if (!(d > bp + bq)) {
		if (r->broken < 5)
			fprintf(stderr, "pair %u.. %u..: distance %.9g, bounds "
				"%.9g + %.9g\n", v[0], v[np], d, bp, bq);
		r->broken++;
	}
}

static void lower_to(double *near, const uint32_t *v, int nv, double d)
{
	for (int k = 0; k < nv; k++)
		if (d < near[v[k]])
			near[v[k]] = d;
}

/* Every corner of a triangle against every triangle it is not a corner
 * of (a vertex of no triangle is in no intersection). */
static size_t brute_vertices(const float *x, const size_t *twin,
			     const uint8_t *tangled,
			     const uint32_t *tri, size_t nt, size_t n,
			     double reach, double *near, struct pair_rule *rule)
{
	size_t pairs = 0;
	char *corner = calloc(n, 1);
	for (size_t k = 0; k < 3 * nt; k++)
		corner[tri[k]] = 1;
	for (size_t v = 0; v < n; v++) {
		double p[3], q[3], t[9];
		if (!corner[v])
			continue;
		at(x, (uint32_t)v, p);
		for (size_t u = 0; u < nt; u++) {
			const uint32_t *c = tri + 3 * u;
			int skip = 0;
			for (int k = 0; k < 3; k++)
				skip |= one_point(twin, (uint32_t)v, c[k]);
			uint32_t all[4] = {(uint32_t)v, c[0], c[1], c[2]};
			if (skip || all_tangled(tangled, all, 4))
				continue;
			for (int k = 0; k < 3; k++)
				at(x, c[k], t + 3 * k);
			/* the face, or an edge where the face's arithmetic
			 * overestimates on a nearly flat triangle */
			double d2 = closest_on_triangle(p, t, q);
			for (int k = 0; k < 3; k++) {
				double e2 = closest_on_segment(p, t + 3 * k,
							       t + 3 * ((k + 1) % 3), q);
				d2 = e2 < d2 ? e2 : d2;
			}
			double d = sqrt(d2);
			if (d >= reach)
				continue;
			check_rule(rule, all, 1, 4, d);
			lower_to(near, all, 4, d);
			pairs++;
		}
	}
	free(corner);
	return pairs;
}

/* The edges of the triangles, each once (lower index first). */
static size_t edges_of(const uint32_t *tri, size_t nt, uint32_t **out)
{
	uint32_t *e = malloc(6 * nt * sizeof *e);
	size_t ne = 0;
	for (size_t t = 0; t < nt; t++)
		for (int k = 0; k < 3; k++) {
			uint32_t a = tri[3 * t + (size_t)k], b = tri[3 * t + (size_t)(k + 1) % 3];
			uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
			size_t q = 0;
			while (q < ne && !(e[2 * q] == lo && e[2 * q + 1] == hi))
				q++;
			if (q == ne) {
				e[2 * ne] = lo;
				e[2 * ne++ + 1] = hi;
			}
		}
	*out = e;
	return ne;
}

static size_t brute_edges(const float *x, const size_t *twin,
			  const uint8_t *tangled,
			  const uint32_t *e, size_t ne, double reach,
			  double *near, struct pair_rule *rule)
{
	size_t pairs = 0;
	for (size_t a = 0; a < ne; a++)
		for (size_t b = a + 1; b < ne; b++) {
			const uint32_t *f = e + 2 * a, *g = e + 2 * b;
			int skip = 0;
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++)
					skip |= one_point(twin, f[i], g[j]);
			uint32_t all[4] = {f[0], f[1], g[0], g[1]};
			if (skip || all_tangled(tangled, all, 4))
				continue;
			double p0[3], p1[3], q0[3], q1[3];
			at(x, f[0], p0);
			at(x, f[1], p1);
			at(x, g[0], q0);
			at(x, g[1], q1);
			double d = sqrt(segments_distance2(p0, p1, q0, q1));
			if (d >= reach)
				continue;
			check_rule(rule, all, 2, 4, d);
			lower_to(near, all, 4, d);
			pairs++;
		}
	return pairs;
}

/* Each vertex's twin, SIZE_MAX for none. */
static size_t *twins_of(const struct grid *g)
{
	size_t n = grid_vertices(g);
	size_t *twin = malloc(n * sizeof *twin);
	const struct grid_channel *m = grid_find(g, "mask"), *s = grid_find(g, "seam");
	for (size_t v = 0; v < n; v++)
		twin[v] = s && (((const uint8_t *)m->data)[v] & MASK_SEAM) ?
			  seam_twin(g, m->data, s->data, v) : SIZE_MAX;
	return twin;
}

/* Whether grid vertex v has a seam vertex within band cells, along
 * either axis: its whole square looked at. */
static int near_seam(const struct grid *g, const uint8_t *mask, size_t v,
		     int band)
{
	long w = g->width, h = g->height, i = (long)v % w, j = (long)v / w;
	for (long b = j - band; b <= j + band; b++)
		for (long a = i - band; a <= i + band; a++)
			if (a >= 0 && b >= 0 && a < w && b < h &&
			    (mask[b * w + a] & MASK_SEAM))
				return 1;
	return 0;
}

/* The grid's triangles in the band, counted independently of safe.c. */
static size_t band_triangles(const struct grid *g, int band)
{
	const struct grid_channel *m = grid_find(g, "mask"), *p = grid_find(g, "panel");
	if (!grid_find(g, "seam"))
		return 0;   /* seams open: no band */
	uint32_t *tri;
	size_t nt = grid_triangles(g->width, g->height, m->data,
				   p ? p->data : NULL, &tri), kept = 0;
	for (size_t t = 0; t < nt; t++) {
		int in = 0;
		for (int c = 0; c < 3; c++)
			in |= near_seam(g, m->data, tri[3 * t + (size_t)c], band);
		kept += in;
	}
	free(tri);
	return kept;
}

static int safe_check(const char *path, int band)
{
	struct grid g;
	struct safe sf;
	struct error e;
	const struct grid_channel *x = positions(path, &g);
	if (safe_init(&sf, &g, band, &e))
		fail(e.msg);
	safe_update(&sf, x->data);
	size_t wrong = 0;
	if (band > 0) {
		size_t want = band_triangles(&g, band);
		if (sf.ntri != want + sf.stats.strip) {
			fprintf(stderr, "triangles %zu, want %zu in the band and "
				"%zu of the strip\n", sf.ntri, want, sf.stats.strip);
			wrong++;
		}
	}
	size_t n = sf.n;
	double *near = malloc(n * sizeof *near);
	for (size_t v = 0; v < n; v++)
		near[v] = sf.reach;
	uint32_t *edges;
	size_t ne = edges_of(sf.tri, sf.ntri, &edges);
	size_t *twin = twins_of(&g);
	uint8_t *tangled = malloc(n);
	size_t tangles = brute_tangles(x->data, twin, sf.tri, sf.ntri, n, tangled);
	size_t pairs = brute_vertices(x->data, twin, tangled, sf.tri, sf.ntri,
				      n, sf.reach, near, NULL) +
		       brute_edges(x->data, twin, tangled, edges, ne, sf.reach,
				   near, NULL);
	size_t bounded = 0;
	char *corner = calloc(n, 1);
	for (size_t k = 0; k < 3 * sf.ntri; k++)
		corner[sf.tri[k]] = 1;
	for (size_t v = 0; v < n; v++) {
		double want = SAFE_GAMMA * near[v], got = sf.bound[v];
		if (band > 0 && !corner[v])
			want = FLT_MAX;
		bounded += near[v] < sf.reach;
		/* a float's rounding of the distance and of the product */
		if (!(got <= want * (1 + 1e-6) && got >= want * (1 - 1e-6))) {
			if (wrong < 5)
				fprintf(stderr, "vertex %zu: bound %.9g, brute force "
					"%.9g\n", v, got, want);
			wrong++;
		}
	}
	if (tangles != sf.stats.tangles) {
		fprintf(stderr, "intersecting pairs %zu, brute force %zu\n",
			sf.stats.tangles, tangles);
		wrong++;
	}
	printf("vertices %zu tangles %zu pairs %zu bounded %zu wrong %zu\n", n,
	       tangles, pairs, bounded, wrong);
	free(corner);
	free(near);
	free(edges);
	free(twin);
	free(tangled);
	safe_free(&sf);
	grid_free(&g);
	return wrong > 0;
}

/* The vertices that safe-approach moves, and which way along z: -1 or
 * +1 within a disc about the middle of the cloth's box in x and y, of a
 * fifth of its smaller side in radius, those above the box's middle height
 * down and those below it up; 0 elsewhere. */
static int8_t *approach_moves(const float *x, const uint8_t *mask, size_t n)
{
	float lo[3] = {INFINITY, INFINITY, INFINITY};
	float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t v = 0; v < n; v++)
		for (int c = 0; mask[v] & MASK_INSIDE && c < 3; c++) {
			lo[c] = fminf(lo[c], x[3 * v + (size_t)c]);
			hi[c] = fmaxf(hi[c], x[3 * v + (size_t)c]);
		}
	double r = 0.2 * fmin(hi[0] - lo[0], hi[1] - lo[1]);
	int8_t *dir = calloc(n, 1);
	for (size_t v = 0; v < n; v++) {
		const float *p = x + 3 * v;
		double dx = p[0] - 0.5 * (lo[0] + hi[0]);
		double dy = p[1] - 0.5 * (lo[1] + hi[1]);
		if (mask[v] & MASK_INSIDE && dx * dx + dy * dy < r * r)
			dir[v] = p[2] > 0.5 * (lo[2] + hi[2]) ? -1 : 1;
	}
	return dir;
}

/* Measurements of sets (safe.h) after moves within the bounds: at each
 * of `steps` steps, a share of the bounded vertices, drawn at random,
 * move to a random point of their ball (between half and all of their
 * bound from x0), the others stay; or, with approach, the vertices of
 * approach_moves go 0.9 of their bound along z, so that two layers of
 * cloth apart by more than the reach come within it through moves the
 * hash has not seen (its boxes are where the first measurement had
 * them).  safe_update measures, and the rule of
 * safe.h is checked by brute force over every pair of primitives within
 * the reach at the measured positions x0 (pairs further apart keep it
 * when every bound is at most gamma times the reach, checked too), and
 * every vertex must be within its bound of its x0. */
static int safe_moves(const char *path, int steps, double share,
		      uint64_t seed, int approach)
{
	struct grid g;
	struct safe sf;
	struct error e;
	const struct grid_channel *xc = positions(path, &g);
	if (safe_init(&sf, &g, 0, &e))
		fail(e.msg);
	size_t n = sf.n;
	float *x = malloc(3 * n * sizeof *x);
	memcpy(x, xc->data, 3 * n * sizeof *x);
	safe_update(&sf, x);
	if (!sf.tangle_free)
		fail("the grid's triangles intersect: sets are not measured");
	uint32_t *edges;
	size_t ne = edges_of(sf.tri, sf.ntri, &edges);
	size_t *twin = twins_of(&g);
	uint8_t *tangled = calloc(n, 1);
	double *near = malloc(n * sizeof *near);
	size_t wrong = 0, pairs = 0;
	double worst = INFINITY;
	uint64_t rs = seed ? seed : 1;
	int8_t *dir = approach ? approach_moves(x, grid_find(&g, "mask")->data, n)
			       : NULL;
	for (int k = 0; k < steps; k++) {
		for (size_t v = 0; v < n; v++) {
			if (sf.bound[v] == FLT_MAX || (dir && !dir[v]) ||
			    (!dir && 0.5 * (urand_xorshift(&rs) + 1) >= share))
				continue;
			double d[3] = {0, 0, dir ? dir[v] : 0}, l = 1, r;
			if (dir) {
				r = 0.9 * sf.bound[v];
			} else {
				l = 0;
				for (int c = 0; c < 3; c++) {
					d[c] = urand_xorshift(&rs);
					l += d[c] * d[c];
				}
				r = (0.75 + 0.25 * urand_xorshift(&rs)) * sf.bound[v];
			}
			for (int c = 0; c < 3; c++)
				x[3 * v + (size_t)c] = sf.x0[3 * v + (size_t)c] +
					(float)(l > 0 ? r * d[c] / sqrt(l) : 0);
			safe_clamp_vertex(x + 3 * v, sf.x0 + 3 * v, sf.bound[v]);
		}
		safe_update(&sf, x);
		struct pair_rule rule = {sf.bound, 0, INFINITY};
		for (size_t v = 0; v < n; v++)
			near[v] = sf.reach;
		pairs = brute_vertices(sf.x0, twin, tangled, sf.tri, sf.ntri, n,
				       sf.reach, near, &rule) +
			brute_edges(sf.x0, twin, tangled, edges, ne, sf.reach,
				    near, &rule);
		wrong += rule.broken;
		worst = rule.worst < worst ? rule.worst : worst;
		for (size_t v = 0; v < n; v++) {
			double l2 = 0;
			for (int c = 0; c < 3; c++) {
				double dd = (double)x[3 * v + (size_t)c] -
					    sf.x0[3 * v + (size_t)c];
				l2 += dd * dd;
			}
			int far_bound = sf.bound[v] != FLT_MAX &&
				sf.bound[v] > SAFE_GAMMA * sf.reach * (1 + 1e-6);
			if (far_bound || l2 > (double)sf.bound[v] * sf.bound[v]) {
				if (wrong < 5)
					fprintf(stderr, "vertex %zu: bound %.9g, %.9g "
						"from x0\n", v, sf.bound[v], sqrt(l2));
				wrong++;
			}
		}
	}
	printf("steps %d local %zu vertices %zu pairs %zu worst %.3f wrong %zu\n",
	       steps, sf.stats.local, sf.stats.remeasured, pairs, worst, wrong);
	free(dir);
	free(x);
	free(edges);
	free(twin);
	free(tangled);
	free(near);
	safe_free(&sf);
	grid_free(&g);
	return wrong > 0;
}

/* ---- segments ------------------------------------------------------------ */

static double sampled(const double *p0, const double *p1, const double *q0,
		      const double *q1)
{
	const int m = 2000;
	double best = INFINITY, bs = 0, bt = 0;
	for (int i = 0; i <= m; i++)
		for (int j = 0; j <= m; j++) {
			double s = (double)i / m, t = (double)j / m, d2 = 0;
			for (int k = 0; k < 3; k++) {
				double a = p0[k] + s * (p1[k] - p0[k]);
				double b = q0[k] + t * (q1[k] - q0[k]);
				d2 += (a - b) * (a - b);
			}
			if (d2 < best) {
				best = d2;
				bs = s;
				bt = t;
			}
		}
	/* refine around the best sample, 1/m wide, on a finer lattice */
	for (int i = -50; i <= 50; i++)
		for (int j = -50; j <= 50; j++) {
			double s = bs + i / (50.0 * m), t = bt + j / (50.0 * m), d2 = 0;
			if (s < 0 || s > 1 || t < 0 || t > 1)
				continue;
			for (int k = 0; k < 3; k++) {
				double a = p0[k] + s * (p1[k] - p0[k]);
				double b = q0[k] + t * (q1[k] - q0[k]);
				d2 += (a - b) * (a - b);
			}
			best = d2 < best ? d2 : best;
		}
	return sqrt(best);
}

static int segments(long count)
{
	uint64_t st = 0x5afe5afe5afeULL;
	double above = 0, below = 0;
	for (long c = 0; c < count; c++) {
		double v[4][3];
		for (int a = 0; a < 4; a++)
			for (int k = 0; k < 3; k++)
				v[a][k] = 2 * urand_xorshift(&st) - 1;
		switch (c % 5) {
		case 1:   /* parallel */
			for (int k = 0; k < 3; k++)
				v[3][k] = v[2][k] + 0.7 * (v[1][k] - v[0][k]);
			break;
		case 2:   /* crossing: q0 q1 through the middle of p0 p1 */
			for (int k = 0; k < 3; k++)
				v[3][k] = 2 * (0.5 * (v[0][k] + v[1][k])) - v[2][k];
			break;
		case 3:   /* q a point */
			memcpy(v[3], v[2], sizeof v[2]);
			break;
		case 4:   /* both points */
			memcpy(v[1], v[0], sizeof v[0]);
			memcpy(v[3], v[2], sizeof v[2]);
			break;
		}
		double f = sqrt(segments_distance2(v[0], v[1], v[2], v[3]));
		double s = sampled(v[0], v[1], v[2], v[3]);
		above = f - s > above ? f - s : above;
		below = s - f > below ? s - f : below;
	}
	printf("above %.3g below %.3g\n", above, below);
	/* the function is the minimum: never above a sample (but for
	 * rounding), and the refined lattice (spacing 1e-5 of lengths
	 * below 3.5) comes within 1e-4 of it */
	return above > 1e-12 || below > 1e-4;
}

/* ---- slivers ------------------------------------------------------------- */

/* closest_on_triangle on needle-thin triangles (the third corner within
 * 1e-2 to 1e-16 of the line through the other two) and points near them:
 * never farther than the nearest edge (a point of the triangle too). */
static int slivers(long count)
{
	uint64_t st = 0x51171e55ULL;
	double worst = 0;
	long above = 0;
	for (long c = 0; c < count; c++) {
		double t[9], p[3], q[3];
		double off = pow(10, -(double)(2 + c % 15));
		for (int k = 0; k < 6; k++)
			t[k] = 2 * urand_xorshift(&st) - 1;
		double along = 0.5 + 0.5 * urand_xorshift(&st);
		for (int k = 0; k < 3; k++) {
			t[6 + k] = t[k] + along * (t[3 + k] - t[k]) +
				   off * (2 * urand_xorshift(&st) - 1);
			p[k] = t[k] + 0.4 * (t[3 + k] - t[k]) +
			       1e-3 * (2 * urand_xorshift(&st) - 1);
		}
		double d = sqrt(closest_on_triangle(p, t, q)), e = INFINITY;
		for (int k = 0; k < 3; k++) {
			double x = closest_on_segment(p, t + 3 * k,
						      t + 3 * ((k + 1) % 3), q);
			e = x < e ? x : e;
		}
		e = sqrt(e);
		if (d - e > worst)
			worst = d - e;
		above += d - e > 1e-9;
	}
	printf("above %ld worst %.3g\n", above, worst);
	return above > 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "far") == 0)
		return far(argv[2]);
	if (argc == 3 && strcmp(argv[1], "safe") == 0)
		return safe_check(argv[2], 0);
	if (argc == 4 && strcmp(argv[1], "safe") == 0)
		return safe_check(argv[2], atoi(argv[3]));
	if (argc == 6 && strcmp(argv[1], "safe-moves") == 0)
		return safe_moves(argv[2], atoi(argv[3]), atof(argv[4]),
				  strtoull(argv[5], NULL, 10), 0);
	if (argc == 4 && strcmp(argv[1], "safe-approach") == 0)
		return safe_moves(argv[2], atoi(argv[3]), 0, 0, 1);
	if (argc == 3 && strcmp(argv[1], "segments") == 0)
		return segments(atol(argv[2]));
	if (argc == 3 && strcmp(argv[1], "slivers") == 0)
		return slivers(atol(argv[2]));
	fprintf(stderr, "usage: test_self far GRID\n"
		"       test_self safe GRID [BAND]\n"
		"       test_self safe-moves GRID STEPS SHARE SEED\n"
		"       test_self safe-approach GRID STEPS\n"
		"       test_self segments N\n"
		"       test_self slivers N\n");
	return 2;
}

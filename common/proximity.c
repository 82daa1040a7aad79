/* proximity.c - proximity search and triangle intersections of a grid's
 * cloth (see proximity.h). */
#include "proximity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#else
/* the library also builds without OpenMP (the fuzzing harnesses) */
static int omp_get_max_threads(void) { return 1; }
static int omp_get_thread_num(void) { return 0; }
#endif

#include "boxhash.h"
#include "orient.h"

static int is_cloth(uint8_t m)
{
	return (m & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE;
}

/* ---- setting up ---------------------------------------------------------- */

void collide_sites(const struct grid *g, const uint8_t *mask,
		   const uint16_t *panel, const float *seam,
		   struct collide_site *site)
{
	size_t n = grid_vertices(g), w = (size_t)g->width;
	for (size_t v = 0; v < n; v++) {
		struct collide_site *s = &site[v];
		s->i = (int)(v % w);
		s->j = (int)(v / w);
		s->panel = panel ? panel[v] : 0;
		s->ring = COLLIDE_RING;
		s->partner_i = s->partner_j = NAN;
		if (seam && (mask[v] & MASK_SEAM) && isfinite(seam[3 * v]) &&
		    isfinite(seam[3 * v + 1])) {
			s->partner_i = (float)((seam[3 * v] - g->origin[0]) / g->cell);
			s->partner_j = (float)((seam[3 * v + 1] - g->origin[1]) / g->cell);
		}
	}
}

/* Tile t's cloth vertices, grouped by panel in order of first appearance
 * (row by row): one block each.  Returns how many blocks; writes them
 * when out is not NULL. */
static int tile_blocks(const struct proximity *pr, const uint8_t *mask,
		       int ti, int tj, struct proximity_block *out)
{
	int panels[COLLIDE_BLOCK * COLLIDE_BLOCK], np = 0;
	struct proximity_block tmp[COLLIDE_BLOCK * COLLIDE_BLOCK];
	for (int dj = 0; dj < COLLIDE_BLOCK; dj++)
		for (int di = 0; di < COLLIDE_BLOCK; di++) {
			int i = ti * COLLIDE_BLOCK + di, j = tj * COLLIDE_BLOCK + dj;
			if (i >= pr->w || j >= pr->h)
				continue;
			size_t v = (size_t)j * (size_t)pr->w + (size_t)i;
			if (!is_cloth(mask[v]))
				continue;
			int b = 0;
			while (b < np && panels[b] != pr->site[v].panel)
				b++;
			if (b == np) {
				panels[np++] = pr->site[v].panel;
				tmp[b] = (struct proximity_block){.ti = ti, .tj = tj};
			}
			tmp[b].v[tmp[b].nv++] = (uint32_t)v;
		}
	if (out)
		memcpy(out, tmp, (size_t)np * sizeof *tmp);
	return np;
}

static void make_blocks(struct proximity *pr, const uint8_t *mask)
{
	pr->tw = (pr->w + COLLIDE_BLOCK - 1) / COLLIDE_BLOCK;
	pr->th = (pr->h + COLLIDE_BLOCK - 1) / COLLIDE_BLOCK;
	size_t ntiles = (size_t)pr->tw * (size_t)pr->th;
	pr->tile_first = xmalloc_array(ntiles + 1, sizeof(int));
	pr->tile_first[0] = 0;
	for (size_t t = 0; t < ntiles; t++)
		pr->tile_first[t + 1] = pr->tile_first[t] +
			tile_blocks(pr, mask, (int)(t % (size_t)pr->tw),
				    (int)(t / (size_t)pr->tw), NULL);
	pr->nblocks = pr->tile_first[ntiles];
	pr->block = xmalloc_array((size_t)pr->nblocks + 1, sizeof *pr->block);
	#pragma omp parallel for schedule(static)
	for (long t = 0; t < (long)ntiles; t++)
		tile_blocks(pr, mask, (int)(t % pr->tw), (int)(t / pr->tw),
			    &pr->block[pr->tile_first[t]]);
}

int collide_channels(const struct grid *g, const uint8_t **mask,
		     const uint16_t **panel, const float **seam,
		     struct error *e)
{
	const struct grid_channel *mc = grid_find_typed(g, "mask", GRID_U8, 1);
	const struct grid_channel *pc = grid_find(g, "panel");
	const struct grid_channel *sc = grid_find(g, "seam");
	if (!mc)
		return error_set(e, "has no 'mask' channel (u8 x 1)");
	if (pc && (pc->type != GRID_U16 || pc->comps != 1))
		return error_set(e, "its 'panel' channel is %s x %d, not u16 x 1",
				 grid_type_name(pc->type), pc->comps);
	if (sc && (sc->type != GRID_F32 || sc->comps != 3))
		return error_set(e, "its 'seam' channel is %s x %d, not f32 x 3",
				 grid_type_name(sc->type), sc->comps);
	*mask = mc->data;
	*panel = pc ? pc->data : NULL;
	*seam = sc ? sc->data : NULL;
	return 0;
}

void proximity_set_ring(struct proximity *pr, int ring)
{
	for (size_t v = 0; v < pr->n; v++)
		pr->site[v].ring = ring;
}

int proximity_init(struct proximity *pr, const struct grid *g, int k,
		   struct error *e)
{
	memset(pr, 0, sizeof *pr);
	const uint8_t *mask;
	const uint16_t *panel;
	const float *seam;
	if (collide_channels(g, &mask, &panel, &seam, e))
		return -1;
	if (k < 1 || k > COLLIDE_MAX_NEIGHBOURS)
		return error_set(e, "list length %d is not in 1..%d", k,
				 COLLIDE_MAX_NEIGHBOURS);
	pr->w = g->width;
	pr->h = g->height;
	pr->n = grid_vertices(g);
	pr->k = k;
	pr->list = xmalloc_array(pr->n, (size_t)k * sizeof(uint32_t));
	pr->found = xcalloc(pr->n, sizeof(uint16_t));
	pr->lock = xcalloc(pr->n, 1);
	pr->site = xmalloc_array(pr->n, sizeof *pr->site);
	collide_sites(g, mask, panel, seam, pr->site);
	make_blocks(pr, mask);
	return 0;
}

void proximity_free(struct proximity *pr)
{
	free(pr->list);
	free(pr->found);
	free(pr->lock);
	free(pr->site);
	free(pr->block);
	free(pr->tile_first);
	memset(pr, 0, sizeof *pr);
}

/* ---- the spatial hash of the block centres ----------------------------- */

/* The hash of proximity_hd.h built by a counting sort of the blocks by
 * bucket: within a bucket, blocks in increasing order. */
struct hash {
	struct proximity_hash view;
	size_t *start;
	int *entry;
	int64_t *key;
};

static void hash_build(struct hash *H, const struct proximity_sphere *sp,
		       int nb, double cell)
{
	size_t m = proximity_buckets(nb);
	H->start = xcalloc(m + 1, sizeof(size_t));
	H->entry = xmalloc_array((size_t)nb + 1, sizeof(int));
	H->key = xmalloc_array((size_t)nb + 1, 3 * sizeof(int64_t));
	H->view = (struct proximity_hash){.cell = cell, .mask = m - 1,
		.start = H->start, .entry = H->entry, .key = H->key};
	for (int b = 0; b < nb; b++) {
		for (int k = 0; k < 3; k++)
			H->key[3 * b + k] = proximity_cell_of(sp[b].c[k], cell);
		H->start[proximity_bucket_of(H->key + 3 * b, m - 1) + 1]++;
	}
	for (size_t q = 0; q < m; q++)
		H->start[q + 1] += H->start[q];
	size_t *fill = xmalloc_array(m, sizeof(size_t));
	memcpy(fill, H->start, m * sizeof(size_t));
	for (int b = 0; b < nb; b++)
		H->entry[fill[proximity_bucket_of(H->key + 3 * b, m - 1)]++] = b;
	free(fill);
}

static void hash_free(struct hash *H)
{
	free(H->start);
	free(H->entry);
	free(H->key);
}

static double hash_cell(const struct proximity_sphere *sp, int nb, double s)
{
	double rmax = 0, rsum = 0;
	for (int b = 0; b < nb; b++) {
		rmax = fmax(rmax, sp[b].r);
		rsum += sp[b].r;
	}
	return proximity_hash_cell(rmax, rsum, nb, s);
}

/* ---- long-range block pairs -------------------------------------------- */

/* A thread's long-range partners, block after block. */
struct partners {
	int *v;
	size_t n, cap;
};

static void partners_add(struct partners *p, const int *v, size_t n)
{
	if (n == 0)
		return;     /* p->v may still be NULL: no memcpy with it */
	if (p->n + n > p->cap) {
		p->cap = 2 * (p->n + n) + 64;
		p->v = xrealloc_array(p->v, p->cap, sizeof(int));
	}
	memcpy(p->v + p->n, v, n * sizeof(int));
	p->n += n;
}

/* The explicit list: partners of block a are pair[first[a] ..
 * first[a+1]). */
static int *long_pairs(const struct proximity *pr,
		       const struct proximity_sphere *sp, double s,
		       size_t **first_out)
{
	struct hash H;
	int nb = pr->nblocks, nt = omp_get_max_threads();
	hash_build(&H, sp, nb, hash_cell(sp, nb, s));
	size_t *first = xmalloc_array((size_t)nb + 1, sizeof(size_t));
	size_t *at = xmalloc_array((size_t)nb, sizeof(size_t));
	int *owner = xmalloc_array((size_t)nb, sizeof(int));
	struct partners *found = xcalloc((size_t)nt, sizeof *found);
	first[0] = 0;
	/* one search a block, into its thread's list (a block has at most
	 * nb partners: the hash holds each block once) */
	#pragma omp parallel
	{
		int t = omp_get_thread_num();
		int *scratch = xmalloc_array((size_t)nb, sizeof(int));
		#pragma omp for schedule(dynamic, 64)
		for (int a = 0; a < nb; a++) {
			size_t n = proximity_find_partners(pr->block, nb, sp,
							   &H.view, a, s, scratch);
			partners_add(&found[t], scratch, n);
			owner[a] = t;
			at[a] = found[t].n - n;
			first[a + 1] = n;
		}
		free(scratch);
	}
	/* then in block order: the same list whatever thread found what */
	for (int a = 0; a < nb; a++)
		first[a + 1] += first[a];
	int *pair = xmalloc_array(first[nb] + 1, sizeof(int));
	for (int a = 0; a < nb; a++)
		if (first[a + 1] > first[a])   /* else v may be NULL */
			memcpy(pair + first[a], found[owner[a]].v + at[a],
			       (first[a + 1] - first[a]) * sizeof(int));
	for (int t = 0; t < nt; t++)
		free(found[t].v);
	free(found);
	free(owner);
	free(at);
	hash_free(&H);
	*first_out = first;
	return pair;
}

/* ---- vertex pairs -------------------------------------------------------- */

static void offer(struct proximity *pr, const float *x, uint32_t v,
		  uint32_t b, float d2)
{
	while (__atomic_test_and_set(&pr->lock[v], __ATOMIC_ACQUIRE))
		;
	int kept = proximity_kept(pr, v);
	if (pr->found[v] < UINT16_MAX)
		pr->found[v]++;
	collide_list_offer(x, v, pr->list + v * (size_t)pr->k, &kept, pr->k,
			   b, d2);
	__atomic_clear(&pr->lock[v], __ATOMIC_RELEASE);
}

/* Every pair of a vertex of block a and one of block b (a == b: each
 * pair of the block once), offered to both lists.  Returns the pairs
 * found. */
static size_t block_pair(struct proximity *pr, const float *x,
			 const struct proximity_sphere *sp, int a, int b,
			 double s, float s2)
{
	uint32_t vb[COLLIDE_BLOCK * COLLIDE_BLOCK];
	float d2[COLLIDE_BLOCK * COLLIDE_BLOCK];
	size_t found = 0;
	for (int p = 0; p < pr->block[a].nv; p++) {
		uint32_t va = pr->block[a].v[p];
		int n = proximity_vertex_pairs(pr->block, pr->site, x, sp, a, b,
					       p, s, s2, vb, d2);
		for (int q = 0; q < n; q++) {
			offer(pr, x, va, vb[q], d2[q]);
			offer(pr, x, vb[q], va, d2[q]);
		}
		found += (size_t)n;
	}
	return found;
}

/* Block a with its implicit short-range partners and its long-range
 * ones, pair[first[a] .. first[a + 1]). */
static size_t block_pairs(struct proximity *pr, const float *x,
			  const struct proximity_sphere *sp, const int *pair,
			  const size_t *first, int a, double s, float s2)
{
	int near[PROXIMITY_SHORT_MAX];
	int n = proximity_short_partners(pr->block, pr->tile_first, pr->tw,
					 pr->th, sp, a, s, near);
	size_t found = 0;
	for (int q = 0; q < n; q++)
		found += block_pair(pr, x, sp, a, near[q], s, s2);
	for (size_t q = first[a]; q < first[a + 1]; q++)
		found += block_pair(pr, x, sp, a, pair[q], s, s2);
	return found;
}

void proximity_refresh(struct proximity *pr, const float *x, double s)
{
	int nb = pr->nblocks;
	float s2 = (float)(s * s);
	struct proximity_sphere *sp = xmalloc_array((size_t)nb + 1, sizeof *sp);
	#pragma omp parallel for schedule(static)
	for (int b = 0; b < nb; b++)
		proximity_block_sphere(&pr->block[b], x, s, &sp[b]);
	memset(pr->found, 0, pr->n * sizeof *pr->found);
	size_t *first, found = 0;
	int *pair = long_pairs(pr, sp, s, &first);
	#pragma omp parallel for schedule(dynamic, 64) reduction(+:found)
	for (int a = 0; a < nb; a++)
		found += block_pairs(pr, x, sp, pair, first, a, s, s2);
	proximity_count(pr, &pr->stats);
	pr->stats.long_pairs = first[nb];
	pr->stats.pairs = found;
	pr->stats.hash_cell = hash_cell(sp, nb, s);
	free(first);
	free(pair);
	free(sp);
}

void proximity_count(const struct proximity *pr, struct proximity_stats *st)
{
	size_t overflow = 0;
	int most = 0;
	#pragma omp parallel for schedule(static) reduction(+:overflow) \
		reduction(max:most)
	for (long v = 0; v < (long)pr->n; v++) {
		overflow += pr->found[v] > pr->k;
		most = pr->found[v] > most ? pr->found[v] : most;
	}
	*st = (struct proximity_stats){.blocks = (size_t)pr->nblocks,
				       .overflow = overflow, .most = most};
}

/* ---- exact orientation ---------------------------------------------------- */

/* a + b = x + y exactly (Knuth's two-sum). */
static void two_sum(double a, double b, double *x, double *y)
{
	double s = a + b, bv = s - a, av = s - bv;
	*x = s;
	*y = (a - av) + (b - bv);
}

/* Adds b to the nonoverlapping expansion e[0..*m) (increasing magnitude,
 * zeros removed): Shewchuk's GROW-EXPANSION with zero elimination. */
static void grow_expansion(double *e, int *m, double b)
{
	double q = b, h;
	int k = 0;
	for (int i = 0; i < *m; i++) {
		two_sum(q, e[i], &q, &h);
		if (h != 0)
			e[k++] = h;
	}
	if (q != 0)
		e[k++] = q;
	*m = k;
}

/* The exact sign of det[a - d; b - d; c - d] for float coordinates: the
 * 4 x 4 determinant with a column of ones, expanded into 24 products of
 * three coordinates.  A product of two floats is exact in a double (48
 * bits); times the third it is split exactly into two doubles with a
 * fused multiply-add; the 48 parts are summed exactly. */
static int orient3d_exact(const float *a, const float *b, const float *c,
			  const float *d)
{
	/* det4 = det3(a,b,c) - det3(a,b,d) + det3(a,c,d) - det3(b,c,d) */
	const float *rows[4][3] = {{a, b, c}, {a, b, d}, {a, c, d}, {b, c, d}};
	static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
				       {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
	double e[64];
	int m = 0;
	for (int r = 0; r < 4; r++)
		for (int p = 0; p < 6; p++) {
			double sign = ((r & 1) ? -1.0 : 1.0) * (p < 3 ? 1.0 : -1.0);
			double xy = (double)rows[r][0][perm[p][0]] *
				    (double)rows[r][1][perm[p][1]];
			double z = sign * (double)rows[r][2][perm[p][2]];
			double hi = xy * z, lo = fma(xy, z, -hi);
			grow_expansion(e, &m, hi);
			grow_expansion(e, &m, lo);
		}
	return m == 0 ? 0 : e[m - 1] > 0 ? 1 : -1;
}

/* a * b = x + y exactly. */
static void two_product(double a, double b, double *x, double *y)
{
	*x = a * b;
	*y = fma(a, b, -*x);
}

/* Whether the differences p - d of the floats p = a, b, c are exact in
 * double: they are unless two coordinates on one axis are more than
 * 2^29 apart in magnitude. */
static int differences_exact(const float *a, const float *b, const float *c,
			     const float *d)
{
	const float *p[3] = {a, b, c};
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++) {
			double x, y;
			two_sum(p[r][k], -(double)d[k], &x, &y);
			if (y != 0)
				return 0;
		}
	return 1;
}

/* The exact sign of det[ad; bd; cd] for exact differences (the second
 * stage of Shewchuk's adaptive test, which decides when the differences
 * were not rounded): det = sum over the rows r of r_z times the 2 x 2
 * minor of the two rows after it, each minor an exact sum of two
 * products (four doubles), each of its parts times r_z split exactly
 * into two doubles, the 24 parts summed exactly.  Half the parts of
 * orient3d_exact, in shorter expansions. */
static int orient3d_exact_differences(const double ad[3], const double bd[3],
				      const double cd[3])
{
	const double *r[3] = {ad, bd, cd};
	double e[24], minor[4], hi, lo;
	int m = 0;
	for (int k = 0; k < 3; k++) {
		const double *p = r[(k + 1) % 3], *q = r[(k + 2) % 3];
		int n = 0;
		two_product(p[0], q[1], &hi, &lo);
		grow_expansion(minor, &n, lo);
		grow_expansion(minor, &n, hi);
		two_product(q[0], p[1], &hi, &lo);
		grow_expansion(minor, &n, -lo);
		grow_expansion(minor, &n, -hi);
		for (int i = 0; i < n; i++) {
			two_product(minor[i], r[k][2], &hi, &lo);
			grow_expansion(e, &m, lo);
			grow_expansion(e, &m, hi);
		}
	}
	return m == 0 ? 0 : e[m - 1] > 0 ? 1 : -1;
}

int orient3d_sign(const float *a, const float *b, const float *c,
		  const float *d)
{
	double ad[3], bd[3], cd[3];
	for (int k = 0; k < 3; k++) {
		ad[k] = (double)a[k] - d[k];
		bd[k] = (double)b[k] - d[k];
		cd[k] = (double)c[k] - d[k];
	}
	int s = orient3d_filter(ad, bd, cd);
	if (s)
		return s;
	return differences_exact(a, b, c, d) ?
	       orient3d_exact_differences(ad, bd, cd) : orient3d_exact(a, b, c, d);
}

/* Whether the line pq meets the closed triangle abc: it turns the same
 * way around all three edges (zero: through an edge or a corner). */
static int line_meets_triangle(const float *p, const float *q, const float *a,
			       const float *b, const float *c)
{
	int o1 = orient3d_sign(p, q, a, b), o2 = orient3d_sign(p, q, b, c);
	int o3 = orient3d_sign(p, q, c, a);
	if (o1 == 0 && o2 == 0 && o3 == 0)
		return 0;     /* a degenerate triangle */
	return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

int segment_crosses_triangle(const float *p, const float *q, const float *a,
			     const float *b, const float *c)
{
	int sp = orient3d_sign(a, b, c, p);
	if (sp == 0)
		return 0;
	int sq = orient3d_sign(a, b, c, q);
	return sq != 0 && sp != sq && line_meets_triangle(p, q, a, b, c);
}

/* The sides of t's corners to u's plane; whether they are all strictly
 * on one side. */
static int plane_sides(const float *const t[3], const float *const u[3],
		       int s[3])
{
	for (int k = 0; k < 3; k++)
		s[k] = orient3d_sign(u[0], u[1], u[2], t[k]);
	return s[0] != 0 && s[0] == s[1] && s[1] == s[2];
}

/* Whether an edge of t crosses u, its corners' sides to u's plane s. */
static int edge_crosses(const float *const t[3], const int s[3],
			const float *const u[3])
{
	for (int k = 0; k < 3; k++) {
		int a = s[k], b = s[(k + 1) % 3];
		if (a != 0 && b != 0 && a != b &&
		    line_meets_triangle(t[k], t[(k + 1) % 3], u[0], u[1], u[2]))
			return 1;
	}
	return 0;
}

/* Each corner's side to the other's plane is found once, not once an
 * edge.  When t lies strictly on one side of u's plane (or u of t's)
 * nothing crosses: u's edges lie in that plane, which t does not meet,
 * and the exact tests of the edges would say so too. */
int triangles_intersect(const float *const t[3], const float *const u[3])
{
	int st[3], su[3];
	if (plane_sides(t, u, st) || plane_sides(u, t, su))
		return 0;
	return edge_crosses(t, st, u) || edge_crosses(u, su, t);
}

/* ---- the cloth's triangles ---------------------------------------------- */

size_t grid_triangles(int w, int h, const uint8_t *mask,
		      const uint16_t *panel, uint32_t **tri)
{
	size_t n = 0, cap = 1024;
	uint32_t *t = xmalloc_array(cap, 3 * sizeof(uint32_t));
	for (int j = 0; j + 1 < h; j++)
		for (int i = 0; i + 1 < w; i++) {
			uint32_t v00 = (uint32_t)((size_t)j * (size_t)w + (size_t)i);
			uint32_t v10 = v00 + 1, v01 = v00 + (uint32_t)w, v11 = v01 + 1;
			uint32_t cand[2][3] = {{v00, v10, v01}, {v10, v11, v01}};
			for (int c = 0; c < 2; c++) {
				int ok = 1;
				for (int k = 0; k < 3; k++)
					ok = ok && is_cloth(mask[cand[c][k]]) &&
					     (!panel || panel[cand[c][k]] == panel[cand[c][0]]);
				if (!ok)
					continue;
				if (n == cap) {
					cap *= 2;
					t = xrealloc_array(t, cap, 3 * sizeof(uint32_t));
				}
				memcpy(t + 3 * n++, cand[c], sizeof cand[c]);
			}
		}
	*tri = t;
	return n;
}

/* ---- intersecting pairs ------------------------------------------------- */

static int share_vertex(const uint32_t *t, const uint32_t *u)
{
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			if (t[i] == u[k])
				return 1;
	return 0;
}

struct pairbuf {
	uint32_t *p;
	size_t n, cap;
};

static void pairbuf_add(struct pairbuf *b, uint32_t t, uint32_t u)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->p = xrealloc_array(b->p, b->cap, 2 * sizeof(uint32_t));
	}
	b->p[2 * b->n] = t;
	b->p[2 * b->n + 1] = u;
	b->n++;
}

/* A sweep of triangles' boxes over a hash of triangles' boxes. */
struct sweep {
	const float *x;
	const uint32_t *tri;
	const struct boxhash *H;
	const struct tribox *box;   /* of the hashed triangles */
	const uint32_t *hashed;     /* hashed triangle i is hashed[i]; NULL: i */
	const uint8_t *touch;       /* NULL: every pair apart once, see below */
};

/* Which pairs of hashed triangle t and swept u the sweep looks at.
 * Without touch, all triangles are hashed and swept: each pair once (t
 * after u).  With it, the touched ones are hashed and all swept: the
 * pairs with a touched triangle, each once (t before u when both are). */
static int sweep_looks(const struct sweep *s, uint32_t t, uint32_t u)
{
	return s->touch ? t != u && (!s->touch[u] || t < u) : t > u;
}

/* Whether the pair crosses: without touch, only the pairs that share no
 * corner count (count_intersections); with it, both kinds. */
static int sweep_crosses(const struct sweep *s, uint32_t t, uint32_t u)
{
	const uint32_t *pt = s->tri + 3 * (size_t)t, *pu = s->tri + 3 * (size_t)u;
	return (s->touch || !share_vertex(pt, pu)) && triangles_cross(s->x, pt, pu);
}

/* Triangle u, box b, against the hashed triangles in the cells of range
 * (b, or the part of it where they are): each pair is looked at in one
 * cell, that of the low corner of the two boxes' overlap. */
static size_t sweep_one(const struct sweep *s, uint32_t u,
			const struct tribox *b, const struct tribox *range,
			struct pairbuf *out)
{
	size_t count = 0;
	int32_t lo[3], hi[3], c[3], blow[3], bhigh[3];
	boxhash_range(s->H, range, lo, hi);
	boxhash_range(s->H, b, blow, bhigh);
	for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
		for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
			for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
				size_t q = boxhash_bucket(c, s->H->mask);
				for (size_t e = s->H->start[q]; e < s->H->start[q + 1]; e++) {
					uint32_t i = s->H->entry[e].tri;
					uint32_t t = s->hashed ? s->hashed[i] : i;
					if (!sweep_looks(s, t, u) ||
					    memcmp(s->H->entry[e].c, c, sizeof c) ||
					    !tribox_overlap(&s->box[i], b) ||
					    !boxhash_home(s->H->low[i], blow, c) ||
					    !sweep_crosses(s, t, u))
						continue;
					count++;
					if (out)
						pairbuf_add(out, t < u ? t : u, t < u ? u : t);
				}
			}
	return count;
}

static int pair_cmp(const void *pa, const void *pb)
{
	const uint32_t *a = pa, *b = pb;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

/* A thread's pairs into the whole (the caller holds the lock); frees
 * the thread's. */
static void pairbuf_merge(struct pairbuf *all, struct pairbuf *mine)
{
	for (size_t q = 0; q < mine->n; q++)
		pairbuf_add(all, mine->p[2 * q], mine->p[2 * q + 1]);
	free(mine->p);
}

/* The pairs sorted into *pairs when asked for, else freed. */
static void pairbuf_finish(struct pairbuf *all, uint32_t **pairs)
{
	if (!pairs) {
		free(all->p);
		return;
	}
	if (all->n > 0)
		qsort(all->p, all->n, 2 * sizeof(uint32_t), pair_cmp);
	*pairs = all->p ? all->p : xmalloc(1);
}

static void tri_box(const float *x, const uint32_t *t, struct tribox *b)
{
	for (int k = 0; k < 3; k++) {
		float c0 = x[3 * (size_t)t[0] + k], c1 = x[3 * (size_t)t[1] + k];
		float c2 = x[3 * (size_t)t[2] + k];
		b->lo[k] = fminf(c0, fminf(c1, c2));
		b->hi[k] = fmaxf(c0, fmaxf(c1, c2));
	}
}

/* Every triangle swept over the hash, each over the part of its box
 * within the hashed ones' bound (all of it when all are hashed); the
 * pairs sorted into *pairs when asked for.  Returns how many. */
static size_t sweep_all(const struct sweep *s, size_t ntri, uint32_t **pairs)
{
	const struct tribox *bound = &s->H->bound;
	size_t count = 0;
	struct pairbuf all = {0};
	#pragma omp parallel reduction(+:count)
	{
		struct pairbuf mine = {0};
		#pragma omp for schedule(dynamic, 256)
		for (long u = 0; u < (long)ntri; u++) {
			struct tribox b, in;
			tri_box(s->x, s->tri + 3 * u, &b);
			if (!tribox_overlap(&b, bound))
				continue;
			for (int k = 0; k < 3; k++) {
				in.lo[k] = b.lo[k] < bound->lo[k] ? bound->lo[k] : b.lo[k];
				in.hi[k] = b.hi[k] > bound->hi[k] ? bound->hi[k] : b.hi[k];
			}
			count += sweep_one(s, (uint32_t)u, &b, &in, pairs ? &mine : NULL);
		}
		#pragma omp critical
		pairbuf_merge(&all, &mine);
	}
	pairbuf_finish(&all, pairs);
	return count;
}

size_t count_intersections(const float *x, const uint32_t *tri, size_t ntri,
			   uint32_t **pairs)
{
	struct tribox *box = xmalloc_array(ntri + 1, sizeof *box);
	for (size_t t = 0; t < ntri; t++)
		tri_box(x, tri + 3 * t, &box[t]);
	struct boxhash H = {0};
	boxhash_build(&H, box, ntri);
	struct sweep s = {.x = x, .tri = tri, .H = &H, .box = box};
	size_t count = sweep_all(&s, ntri, pairs);
	boxhash_free(&H);
	free(box);
	return count;
}

/* ---- pairs that share a corner ---------------------------------------- */

/* The triangles around each vertex: start[v] .. start[v + 1] in at. */
struct incidence {
	size_t *start;
	uint32_t *at;
	size_t n;
};

static void incidence_build(struct incidence *in, const uint32_t *tri,
			    size_t ntri)
{
	in->n = 0;
	for (size_t k = 0; k < 3 * ntri; k++)
		in->n = tri[k] + (size_t)1 > in->n ? tri[k] + (size_t)1 : in->n;
	in->start = xcalloc(in->n + 2, sizeof *in->start);
	in->at = xmalloc_array(3 * ntri + 1, sizeof *in->at);
	for (size_t k = 0; k < 3 * ntri; k++)
		in->start[tri[k] + 2]++;
	for (size_t v = 0; v < in->n; v++)
		in->start[v + 2] += in->start[v + 1];
	for (size_t t = 0; t < ntri; t++)
		for (int c = 0; c < 3; c++)
			in->at[in->start[tri[3 * t + c] + 1]++] = (uint32_t)t;
}

/* Whether triangles t and u, sharing exactly corner v, cross beyond it:
 * the edge opposite v in one crosses the other. */
static int cross_beyond(const float *x, const uint32_t *t, const uint32_t *u,
			uint32_t v)
{
	const float *pt[3], *pu[3], *et[2], *eu[2];
	int nt = 0, nu = 0;
	for (int c = 0; c < 3; c++) {
		pt[c] = x + 3 * (size_t)t[c];
		pu[c] = x + 3 * (size_t)u[c];
		if (t[c] != v)
			et[nt++] = pt[c];
		if (u[c] != v)
			eu[nu++] = pu[c];
	}
	return segment_crosses_triangle(et[0], et[1], pu[0], pu[1], pu[2]) ||
	       segment_crosses_triangle(eu[0], eu[1], pt[0], pt[1], pt[2]);
}

static int shared_corners(const uint32_t *t, const uint32_t *u, uint32_t *v)
{
	int n = 0;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			if (t[a] == u[b]) {
				*v = t[a];
				n++;
			}
	return n;
}

int triangles_cross(const float *x, const uint32_t *t, const uint32_t *u)
{
	uint32_t s;
	int n = shared_corners(t, u, &s);
	if (n == 1)
		return cross_beyond(x, t, u, s);
	if (n > 1)
		return 0;
	const float *pt[3], *pu[3];
	for (int c = 0; c < 3; c++) {
		pt[c] = x + 3 * (size_t)t[c];
		pu[c] = x + 3 * (size_t)u[c];
	}
	return triangles_intersect(pt, pu);
}

size_t count_adjacent_intersections(const float *x, const uint32_t *tri,
				    size_t ntri, uint32_t **pairs)
{
	struct incidence in;
	incidence_build(&in, tri, ntri);
	size_t count = 0;
	struct pairbuf all = {0};
	#pragma omp parallel reduction(+:count)
	{
		struct pairbuf mine = {0};
		#pragma omp for schedule(dynamic, 1024)
		for (long v = 0; v < (long)in.n; v++)
			for (size_t a = in.start[v]; a < in.start[v + 1]; a++)
				for (size_t b = a + 1; b < in.start[v + 1]; b++) {
					uint32_t t = in.at[a], u = in.at[b], s;
					if (shared_corners(tri + 3 * (size_t)t,
							   tri + 3 * (size_t)u, &s) != 1 ||
					    !cross_beyond(x, tri + 3 * (size_t)t,
							  tri + 3 * (size_t)u, s))
						continue;
					count++;
					if (pairs)
						pairbuf_add(&mine, t < u ? t : u,
							    t < u ? u : t);
				}
		#pragma omp critical
		pairbuf_merge(&all, &mine);
	}
	pairbuf_finish(&all, pairs);
	free(in.start);
	free(in.at);
	return count;
}

/* ---- the pairs after a move --------------------------------------------- */

/* The touched triangles' boxes hashed, every triangle swept over them. */
size_t count_touching_intersections(const float *x, const uint32_t *tri,
				    size_t ntri, const uint8_t *touch,
				    uint32_t **pairs)
{
	size_t n = 0;
	for (size_t t = 0; t < ntri; t++)
		n += touch[t] != 0;
	uint32_t *hashed = xmalloc_array(n + 1, sizeof *hashed);
	struct tribox *box = xmalloc_array(n + 1, sizeof *box);
	n = 0;
	for (size_t t = 0; t < ntri; t++)
		if (touch[t]) {
			hashed[n] = (uint32_t)t;
			tri_box(x, tri + 3 * t, &box[n++]);
		}
	struct boxhash H = {0};
	boxhash_build(&H, box, n);
	struct sweep s = {.x = x, .tri = tri, .H = &H, .box = box,
			  .hashed = hashed, .touch = touch};
	size_t count = sweep_all(&s, ntri, pairs);
	boxhash_free(&H);
	free(box);
	free(hashed);
	return count;
}

size_t count_all_intersections(const float *x, const uint32_t *tri,
			       size_t ntri, uint32_t **pairs)
{
	uint32_t *apart;
	size_t n = count_adjacent_intersections(x, tri, ntri, pairs);
	size_t m = count_intersections(x, tri, ntri, &apart);
	*pairs = xrealloc_array(*pairs, n + m + 1, 2 * sizeof(uint32_t));
	if (m > 0)
		memcpy(*pairs + 2 * n, apart, m * 2 * sizeof(uint32_t));
	free(apart);
	return n + m;
}

size_t update_intersections(const float *x, const uint32_t *tri, size_t ntri,
			    const uint8_t *moved, uint32_t **pairs, size_t n)
{
	uint8_t *touch = xmalloc(ntri + 1);
	for (size_t t = 0; t < ntri; t++)
		touch[t] = moved[tri[3 * t]] | moved[tri[3 * t + 1]] |
			   moved[tri[3 * t + 2]];
	uint32_t *p = *pairs, *fresh;
	size_t kept = 0;
	for (size_t q = 0; q < n; q++)
		if (!touch[p[2 * q]] && !touch[p[2 * q + 1]]) {
			p[2 * kept] = p[2 * q];
			p[2 * kept + 1] = p[2 * q + 1];
			kept++;
		}
	size_t m = count_touching_intersections(x, tri, ntri, touch, &fresh);
	p = xrealloc_array(p, kept + m + 1, 2 * sizeof(uint32_t));
	if (m > 0)
		memcpy(p + 2 * kept, fresh, m * 2 * sizeof(uint32_t));
	free(fresh);
	free(touch);
	*pairs = p;
	return kept + m;
}

int corners_collinear(const float (*x)[3], int a, int b, int c)
{
	double e[2][3];
	for (int k = 0; k < 3; k++) {
		e[0][k] = (double)x[b][k] - x[a][k];
		e[1][k] = (double)x[c][k] - x[a][k];
	}
	return e[0][1] * e[1][2] == e[0][2] * e[1][1] &&
	       e[0][2] * e[1][0] == e[0][0] * e[1][2] &&
	       e[0][0] * e[1][1] == e[0][1] * e[1][0];
}

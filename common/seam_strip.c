/* seam_strip.c - seams closed by construction: a strip of triangles
 * between the two panels' boundaries along every seam (see seam_strip.h).
 *
 * The grid stops short of a panel's edge (a seam vertex is a distance d
 * from it, its partner point on the other panel as far on the other
 * side), so the two panels of a seam are a thin gap apart.  Moving the
 * seam vertices onto the seam folds the boundary triangles where a
 * staircase boundary has two rows of seam vertices; instead nothing moves
 * and the gap is filled:
 *
 *  0. Where a seam has no length, its two sides' vertices are one vertex
 *     of the mesh (the caller welds them): no strip is needed there.
 *  1. The mesh's boundary is walked as loops of half-edges (the face on
 *     the left).  A run of boundary edges between seam vertices whose
 *     partner points lie on one other panel, next to each other, is a
 *     chain: one side of one seam.
 *  2. Each chain votes for the chain holding the boundary vertices
 *     nearest its partner points; two chains that vote for each other are
 *     the two sides of a seam.  They run in opposite directions along it
 *     (each panel's loop has the panel on its left).
 *  3. The two sides are merged by their position along the seam: side A's
 *     partner points projected onto side B's boundary, in the pattern,
 *     give each A vertex a fractional place among the B vertices; walking
 *     both in order, each step makes one triangle from the current rung
 *     (an A vertex and a B vertex) and the next vertex of the side that
 *     comes first (where the pattern cannot tell, the one whose triangle
 *     crosses no triangle around its corners, else the shorter rung).
 *     This is a strip: every boundary edge of both sides is used by
 *     exactly one strip triangle, every rung but the two ends by two, and
 *     the strip is oriented as the panels are.
 *  4. Where three panels meet, the strips leave a small hole whose
 *     vertices are all seam vertices: it is closed by ear clipping.
 *
 * Only the triangles with a seam vertex for a corner are looked at; the
 * arrays per vertex are the mesh's, so pleat-solve --safe passes the
 * band around the seams alone (safe.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam_strip.h"

#include "proximity.h"
#include "seam_link.h"

/* ---- half-edges ------------------------------------------------------ */

struct half { uint64_t key; int32_t tri; int8_t corner; };

struct halves {
	struct half *h;
	size_t n;
};

static uint64_t edge_key(int a, int b)
{
	return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

static int half_order(const void *x, const void *y)
{
	const struct half *a = x, *b = y;
	return (a->key > b->key) - (a->key < b->key);
}

static void halves_build(struct halves *hs, const int (*tris)[3], int ntris)
{
	hs->n = 3 * (size_t)ntris;
	hs->h = xmalloc_array(hs->n, sizeof *hs->h);
	for (int t = 0; t < ntris; t++)
		for (int c = 0; c < 3; c++)
			hs->h[3 * (size_t)t + c] = (struct half){
				edge_key(tris[t][c], tris[t][(c + 1) % 3]), t,
				(int8_t)c};
	qsort(hs->h, hs->n, sizeof *hs->h, half_order);
}

/* The half-edge from a to b, or NULL. */
static const struct half *half_find(const struct halves *hs, int a, int b)
{
	struct half k = {edge_key(a, b), 0, 0};
	return bsearch(&k, hs->h, hs->n, sizeof k, half_order);
}

/* The boundary half-edge that follows boundary half-edge (t, c) (from
 * a to b): the first one out of b turning around b through the
 * triangles, so that pinched boundaries are walked as separate loops.
 * Its (t, c) go to *nt, *nc; returns 0 when the mesh around b is not a
 * manifold fan. */
static int boundary_next(const struct halves *hs, const int (*tris)[3],
			 int t, int c, int *nt, int *nc)
{
	for (int guard = 0; guard < 64; guard++) {
		int c1 = (c + 1) % 3;
		int b = tris[t][c1], w = tris[t][(c1 + 1) % 3];
		const struct half *twin = half_find(hs, w, b);
		if (!twin) {
			*nt = t;
			*nc = c1;
			return 1;
		}
		t = twin->tri;
		c = twin->corner;
	}
	return 0;
}

/* ---- seam vertices --------------------------------------------------- */

/* What the zipper knows of a mesh vertex. */
struct seam_vertex {
	int seam;          /* a seam vertex with cloth at its partner point */
	int panel, across; /* its panel, the panel of its partner point */
	double p[2], q[2]; /* its pattern position and its partner's, cells */
	int chain, at;     /* its chain and place there, -1 when none */
};

static void seam_vertices(const struct strip_mesh *m, const struct seam_grid *s,
			  struct seam_vertex *sv)
{
	const struct grid *g = s->grid;
	size_t w = (size_t)g->width;
	for (int k = 0; k < m->nverts; k++) {
		size_t v = m->vgrid[k];
		struct seam_vertex *x = &sv[k];
		memset(x, 0, sizeof *x);
		x->chain = x->at = -1;
		x->panel = s->panel ? s->panel[v] : 0;
		x->p[0] = (double)(v % w);
		x->p[1] = (double)(v / w);
		if (!s->seam || !(s->mask[v] & MASK_SEAM))
			continue;
		const float *q = s->seam + 3 * v;
		struct seam_link l;
		if (!seam_partner_stencil(g, s->mask, s->panel, v, q[0], q[1], &l))
			continue;
		for (int c = 0; c < 4; c++)
			if (l.w[c] != 0.0f)
				x->across = s->panel ? s->panel[l.corner[c]] : 0;
		x->q[0] = (q[0] - g->origin[0]) / g->cell;
		x->q[1] = (q[1] - g->origin[1]) / g->cell;
		x->seam = 1;
	}
}

static double dist2(const double a[2], const double b[2])
{
	return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]);
}

/* Whether boundary edge a -> b runs along one seam: both ends seam
 * vertices of one panel, their partners on one other panel and about as
 * far apart as they are (mirror images across the seam; the slack is for
 * a seam's corners). */
static int seam_edge(const struct seam_vertex *a, const struct seam_vertex *b)
{
	if (!a->seam || !b->seam || a->panel != b->panel || a->across != b->across)
		return 0;
	double d = sqrt(dist2(a->p, b->p)), dq = sqrt(dist2(a->q, b->q));
	return dq <= 2 * d + 3;
}

/* ---- chains ---------------------------------------------------------- */

struct chain {
	int *v, n;          /* vertices in boundary order; a cycle repeats none */
	int cycle;
	int panel, across;
	int mate;           /* the chain of the seam's other side (itself for
			       a dart), or -1 */
	int fold;           /* a dart's tip: where its sides meet */
};

struct chains {
	struct chain *c;
	int n;
};

/* The mesh's boundary half-edges, with each one's successor. */
struct boundary {
	int (*e)[2];        /* from, to (mesh vertices) */
	int *next;          /* index of the next boundary half-edge, -1 */
	int *prev;
	int n;
};

static int bedge_find(const struct boundary *b, const uint64_t *keys, int x,
		      int y)
{
	uint64_t k = edge_key(x, y);
	int lo = 0, hi = b->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (keys[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->n && keys[lo] == k ? lo : -1;
}

static void boundary_build(struct boundary *b, const struct halves *hs,
			   const int (*tris)[3])
{
	memset(b, 0, sizeof *b);
	uint64_t *keys = NULL;
	int cap = 0;
	/* hs is sorted by key, so the boundary comes out sorted too */
	for (size_t k = 0; k < hs->n; k++) {
		int x = (int)(hs->h[k].key >> 32), y = (int)(uint32_t)hs->h[k].key;
		if (half_find(hs, y, x))
			continue;
		if (b->n == cap) {
			cap = cap ? 2 * cap : 1024;
			b->e = xrealloc_array(b->e, (size_t)cap, sizeof *b->e);
			keys = xrealloc_array(keys, (size_t)cap, sizeof *keys);
		}
		b->e[b->n][0] = x;
		b->e[b->n][1] = y;
		keys[b->n++] = hs->h[k].key;
	}
	b->next = xmalloc_array((size_t)b->n + 1, sizeof *b->next);
	b->prev = xmalloc_array((size_t)b->n + 1, sizeof *b->prev);
	for (int k = 0; k < b->n; k++)
		b->prev[k] = -1;
	for (int k = 0; k < b->n; k++) {
		const struct half *h = half_find(hs, b->e[k][0], b->e[k][1]);
		int nt, nc;
		b->next[k] = -1;
		if (boundary_next(hs, tris, h->tri, h->corner, &nt, &nc))
			b->next[k] = bedge_find(b, keys, tris[nt][nc],
						tris[nt][(nc + 1) % 3]);
		if (b->next[k] >= 0)
			b->prev[b->next[k]] = k;
	}
	free(keys);
}

static void boundary_free(struct boundary *b)
{
	free(b->e);
	free(b->next);
	free(b->prev);
}

static int is_seam_edge(const struct boundary *b, const struct seam_vertex *sv,
			int k)
{
	return k >= 0 && seam_edge(&sv[b->e[k][0]], &sv[b->e[k][1]]);
}

static void chain_push(struct chain *c, int v)
{
	c->v = xrealloc_array(c->v, (size_t)c->n + 1, sizeof *c->v);
	c->v[c->n++] = v;
}

/* Follows seam edges from boundary edge k, marking them done. */
static struct chain chain_from(const struct boundary *b,
			       const struct seam_vertex *sv, int k,
			       unsigned char *done)
{
	struct chain c = {NULL, 0, 0, sv[b->e[k][0]].panel,
			  sv[b->e[k][0]].across, -1, -1};
	chain_push(&c, b->e[k][0]);
	while (k >= 0 && is_seam_edge(b, sv, k) && !done[k]) {
		done[k] = 1;
		chain_push(&c, b->e[k][1]);
		k = b->next[k];
	}
	if (c.n > 2 && c.v[c.n - 1] == c.v[0]) {
		c.cycle = 1;
		c.n--;
	}
	return c;
}

static void chains_find(struct chains *cs, const struct boundary *b,
			struct seam_vertex *sv)
{
	unsigned char *done = xcalloc((size_t)b->n + 1, 1);
	memset(cs, 0, sizeof *cs);
	/* open chains first, from edges whose predecessor is no seam edge,
	 * then the cycles that are left */
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < b->n; k++) {
			if (done[k] || !is_seam_edge(b, sv, k))
				continue;
			if (pass == 0 && is_seam_edge(b, sv, b->prev[k]))
				continue;
			cs->c = xrealloc_array(cs->c, (size_t)cs->n + 1, sizeof *cs->c);
			cs->c[cs->n] = chain_from(b, sv, k, done);
			cs->n++;
		}
	for (int i = 0; i < cs->n; i++)
		for (int k = 0; k < cs->c[i].n; k++)
			if (sv[cs->c[i].v[k]].chain < 0) {
				sv[cs->c[i].v[k]].chain = i;
				sv[cs->c[i].v[k]].at = k;
			}
	free(done);
}

static void chains_free(struct chains *cs)
{
	for (int i = 0; i < cs->n; i++)
		free(cs->c[i].v);
	free(cs->c);
}

/* ---- which chain is across ------------------------------------------- */

/* Chain vertices by grid index, to find those near a pattern point. */
struct near_index {
	uint64_t *key;   /* grid index << 32 | mesh vertex */
	int n;
};

static int u64_order(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

static void near_build(struct near_index *ni, const struct strip_mesh *m,
		       const struct seam_vertex *sv)
{
	ni->n = 0;
	ni->key = xmalloc_array((size_t)m->nverts + 1, sizeof *ni->key);
	for (int k = 0; k < m->nverts; k++)
		if (sv[k].chain >= 0)
			ni->key[ni->n++] = (uint64_t)m->vgrid[k] << 32 | (uint32_t)k;
	qsort(ni->key, (size_t)ni->n, sizeof *ni->key, u64_order);
}

/* The chain vertex of panel `panel` nearest pattern point q (cells),
 * within 4 cells, or -1. */
static int near_vertex(const struct near_index *ni, const struct seam_grid *s,
		       const struct seam_vertex *sv, const double q[2], int panel)
{
	const int r = 4;
	long i0 = lround(q[0]), j0 = lround(q[1]);
	double best = HUGE_VAL;
	int found = -1;
	for (long j = j0 - r; j <= j0 + r; j++) {
		if (j < 0 || j >= s->grid->height)
			continue;
		long ia = i0 - r < 0 ? 0 : i0 - r;
		long w = s->grid->width;
		long ib = i0 + r >= w ? w - 1 : i0 + r;
		if (ia > ib)
			continue;
		uint64_t lo = (uint64_t)(j * w + ia) << 32;
		uint64_t hi = (uint64_t)(j * w + ib) << 32 | 0xffffffffu;
		int a = 0, b = ni->n;
		while (a < b) {
			int mid = (a + b) / 2;
			if (ni->key[mid] < lo)
				a = mid + 1;
			else
				b = mid;
		}
		for (; a < ni->n && ni->key[a] <= hi; a++) {
			int k = (int)(uint32_t)ni->key[a];
			double d = dist2(sv[k].p, q);
			if (sv[k].panel == panel && d < best) {
				best = d;
				found = k;
			}
		}
	}
	return found;
}

/* A dart (a chain sewn to itself, its partner points across its tip):
 * the tip is the first vertex whose partner's nearest vertex is not
 * ahead of it; -1 when there is none. */
static int dart_tip(const struct chain *c, const struct near_index *ni,
		    const struct seam_grid *s, const struct seam_vertex *sv, int i)
{
	if (c->cycle)
		return -1;
	for (int k = 1; k + 1 < c->n; k++) {
		int o = near_vertex(ni, s, sv, sv[c->v[k]].q, c->across);
		if (o >= 0 && sv[o].chain == i && sv[o].at <= k)
			return k;
	}
	return -1;
}

/* Each chain's mate: the chain most of its partner points are nearest
 * to, when that chain's vote goes back to it; a chain that votes for
 * itself is a dart. */
static void chains_mate(struct chains *cs, const struct strip_mesh *m,
			const struct seam_grid *s, const struct seam_vertex *sv)
{
	struct near_index ni;
	int *vote = xmalloc_array((size_t)cs->n + 1, sizeof *vote);
	int *want = xmalloc_array((size_t)cs->n + 1, sizeof *want);
	near_build(&ni, m, sv);
	for (int i = 0; i < cs->n; i++) {
		struct chain *c = &cs->c[i];
		for (int k = 0; k < cs->n; k++)
			vote[k] = 0;
		for (int k = 0; k < c->n; k++) {
			int o = near_vertex(&ni, s, sv, sv[c->v[k]].q, c->across);
			if (o >= 0)
				vote[sv[o].chain]++;
		}
		want[i] = -1;
		for (int k = 0; k < cs->n; k++)
			if (vote[k] > 0 && (want[i] < 0 || vote[k] > vote[want[i]]))
				want[i] = k;
	}
	for (int i = 0; i < cs->n; i++) {
		cs->c[i].mate = want[i] >= 0 && want[want[i]] == i ? want[i] : -1;
		if (want[i] == i)
			cs->c[i].fold = dart_tip(&cs->c[i], &ni, s, sv, i);
		if (want[i] == i && cs->c[i].fold < 0)
			cs->c[i].mate = -1;
	}
	free(ni.key);
	free(vote);
	free(want);
}

static double dist3(const float *a, const float *b)
{
	double d = 0;
	for (int k = 0; k < 3; k++)
		d += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
	return d;
}

/* ---- the strip ------------------------------------------------------- */

struct tri_list {
	int (*t)[3];
	int n, cap;
};

static void tri_push(struct tri_list *l, int a, int b, int c)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->t = xrealloc_array(l->t, (size_t)l->cap, sizeof *l->t);
	}
	l->t[l->n][0] = a;
	l->t[l->n][1] = b;
	l->t[l->n][2] = c;
	l->n++;
}

/* The place of pattern point q along polyline b[0 .. n-1] (pattern
 * positions of sv), as a fractional index, searching from index `from`
 * on: the nearest point of the segments, the first on a tie. */
static double place_on(const struct seam_vertex *sv, const int *b, int n,
		       const double q[2], int from)
{
	double best = HUGE_VAL, at = from;
	if (n == 1)
		return 0;
	for (int k = from < 0 ? 0 : from; k + 1 < n; k++) {
		const double *p0 = sv[b[k]].p, *p1 = sv[b[k + 1]].p;
		double dx = p1[0] - p0[0], dy = p1[1] - p0[1];
		double len2 = dx * dx + dy * dy;
		double t = len2 > 0 ? ((q[0] - p0[0]) * dx + (q[1] - p0[1]) * dy) /
				      len2 : 0;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
		double ex = p0[0] + t * dx - q[0], ey = p0[1] + t * dy - q[1];
		double d = ex * ex + ey * ey;
		if (d < best) {
			best = d;
			at = k + t;
		}
	}
	return at;
}

/* What the strip is built from: the seam vertices, the positions and,
 * to keep strip triangles from crossing the mesh, the triangles around
 * each vertex (the panels' and the strip's so far). */
struct zipper {
	const struct seam_vertex *sv;
	const float (*x)[3];
	uint32_t **around;      /* per vertex: triangle indices */
	int *naround;
	const int (*panels)[3];          /* the panels' triangles */
	int npanels;
	struct tri_list *out;            /* the strip's, after them */
};

static const int *zip_tri(const struct zipper *z, uint32_t t)
{
	return (size_t)t < (size_t)z->npanels ? z->panels[t] :
	       z->out->t[t - (uint32_t)z->npanels];
}

/* Whether triangle a b c would cross a triangle around its corners, or
 * has no area. */
static int crossing(const struct zipper *z, int a, int b, int c)
{
	uint32_t t[3] = {(uint32_t)a, (uint32_t)b, (uint32_t)c};
	if (corners_collinear(z->x, a, b, c))
		return 1;
	for (int k = 0; k < 3; k++)
		for (int r = 0; r < z->naround[t[k]]; r++) {
			const int *u = zip_tri(z, z->around[t[k]][r]);
			uint32_t uu[3] = {(uint32_t)u[0], (uint32_t)u[1], (uint32_t)u[2]};
			if (triangles_cross((const float *)z->x, t, uu))
				return 1;
		}
	return 0;
}

static void around_add(struct zipper *z, int v, uint32_t t)
{
	z->around[v] = xrealloc_array(z->around[v], (size_t)z->naround[v] + 1,
				      sizeof **z->around);
	z->around[v][z->naround[v]++] = t;
}

static void strip_push(struct zipper *z, int a, int b, int c)
{
	uint32_t t = (uint32_t)(z->npanels + z->out->n);
	tri_push(z->out, a, b, c);
	around_add(z, a, t);
	around_add(z, b, t);
	around_add(z, c, t);
}

/* Whether the next triangle takes side a's next vertex: when the two
 * next vertices' places along the seam are more than a B edge apart,
 * the first; when they are close, the one whose triangle crosses no
 * triangle around its corners, and when both or neither do, the shorter
 * new rung in 3D (the classic shortest-diagonal rule), which follows the
 * surface where the pattern cannot tell. */
static int take_a(const struct zipper *z, const double *place, const int *a,
		  int i, const int *b, int j)
{
	double ahead = place[i + 1] - (j + 1);
	if (fabs(ahead) > 1)
		return ahead < 0;
	int cross_a = crossing(z, b[j], a[i + 1], a[i]);
	int cross_b = crossing(z, b[j], b[j + 1], a[i]);
	if (cross_a != cross_b)
		return cross_b;
	return dist3(z->x[a[i + 1]], z->x[b[j]]) < dist3(z->x[a[i]], z->x[b[j + 1]]);
}

/* Joins side a (na vertices, in its boundary's direction) with side b
 * (nb vertices, already reversed to run the same way): see step 3. */
static void zip_sides(struct zipper *z, const int *a, int na, const int *b,
		      int nb)
{
	double *place = xmalloc_array((size_t)na, sizeof *place);
	double last = 0;
	for (int i = 0; i < na; i++) {
		double t = place_on(z->sv, b, nb, z->sv[a[i]].q, (int)floor(last) - 1);
		last = place[i] = t > last ? t : last;
	}
	int i = 0, j = 0;
	while (i < na - 1 || j < nb - 1) {
		int along_a = j == nb - 1 ||
			      (i < na - 1 && take_a(z, place, a, i, b, j));
		if (along_a) {
			strip_push(z, b[j], a[i + 1], a[i]);
			i++;
		} else {
			strip_push(z, b[j], b[j + 1], a[i]);
			j++;
		}
	}
	free(place);
}

static int *reversed(const int *v, int n, int start, int closed)
{
	int *r = xmalloc_array((size_t)n + 1, sizeof *r);
	for (int k = 0; k < n; k++)
		r[k] = v[((start - k) % n + n) % n];
	if (closed)
		r[n] = r[0];
	return r;
}

/* Joins a dart's two sides: from its start to the tip, and from its end
 * back to the vertex after the tip (the last rung is the tip's boundary
 * edge). */
static void zip_dart(struct zipper *z, const struct chain *x)
{
	int nb = x->n - 1 - x->fold;
	int *b = reversed(x->v, x->n, x->n - 1, 0);
	zip_sides(z, x->v, x->fold + 1, b, nb);
	free(b);
}

/* Joins chain x with its mate y (x <= y). */
static void zip_pair(struct zipper *z, const struct chain *x,
		     const struct chain *y)
{
	if (x == y) {
		zip_dart(z, x);
		return;
	}
	if (x->cycle != y->cycle)
		return;
	if (!x->cycle) {
		int *b = reversed(y->v, y->n, y->n - 1, 0);
		zip_sides(z, x->v, x->n, b, y->n);
		free(b);
		return;
	}
	/* two cycles: cut x anywhere, y across from there */
	int *yr = reversed(y->v, y->n, y->n - 1, 0);
	double t = place_on(z->sv, yr, y->n, z->sv[x->v[0]].q, 0);
	int start = y->n - 1 - (int)lround(t);
	free(yr);
	int *a = xmalloc_array((size_t)x->n + 1, sizeof *a);
	memcpy(a, x->v, (size_t)x->n * sizeof *a);
	a[x->n] = x->v[0];
	int *b = reversed(y->v, y->n, start, 1);
	zip_sides(z, a, x->n + 1, b, y->n + 1);
	free(a);
	free(b);
}

/* The strips of every seam, into strip. */
static void zip_all(const struct strip_mesh *m, const struct seam_vertex *sv,
		    const struct chains *cs, struct tri_list *strip)
{
	struct zipper z = {sv, m->pos,
			   xcalloc((size_t)m->nverts + 1, sizeof(uint32_t *)),
			   xcalloc((size_t)m->nverts + 1, sizeof(int)),
			   m->tris, m->ntris, strip};
	/* only seam vertices' triangles are ever asked for */
	for (int t = 0; t < m->ntris; t++)
		for (int c = 0; c < 3; c++)
			if (sv[m->tris[t][c]].seam)
				around_add(&z, m->tris[t][c], (uint32_t)t);
	for (int i = 0; i < cs->n; i++)
		if (cs->c[i].mate >= i)
			zip_pair(&z, &cs->c[i], &cs->c[cs->c[i].mate]);
	for (int v = 0; v < m->nverts; v++)
		free(z.around[v]);
	free(z.around);
	free(z.naround);
}

/* ---- the holes where panels meet --------------------------------------- */

/* Closes a boundary loop of a few seam vertices of more than one panel
 * by clipping, each time, the ear with the shortest new edge that is
 * not an edge yet. */
static void fill_hole(const struct strip_mesh *m, const struct halves *hs,
		      int *loop, int n, struct tri_list *out)
{
	while (n >= 3) {
		int best = -1;
		double bd = HUGE_VAL;
		for (int k = 0; k < n; k++) {
			int p = loop[(k + n - 1) % n], q = loop[(k + 1) % n];
			if (n > 3 && (half_find(hs, p, q) || half_find(hs, q, p)))
				continue;
			double d = dist3(m->pos[p], m->pos[q]);
			if (d < bd) {
				bd = d;
				best = k;
			}
		}
		if (best < 0)
			return;
		/* the loop has the mesh on its left: the hole's triangles
		 * run the other way */
		tri_push(out, loop[(best + 1) % n], loop[best],
			 loop[(best + n - 1) % n]);
		memmove(loop + best, loop + best + 1,
			(size_t)(n - best - 1) * sizeof *loop);
		n--;
	}
}

#define HOLE_MAX 16

static void fill_holes(const struct strip_mesh *m,
		       const struct seam_vertex *sv, struct tri_list *out)
{
	struct halves hs;
	struct boundary b;
	halves_build(&hs, m->tris, m->ntris);
	boundary_build(&b, &hs, m->tris);
	unsigned char *seen = xcalloc((size_t)b.n + 1, 1);
	for (int k0 = 0; k0 < b.n; k0++) {
		int loop[HOLE_MAX], n = 0, ok = 1, panels = 0, k = k0;
		if (seen[k0])
			continue;
		do {
			seen[k] = 1;
			int v = b.e[k][0];
			if (n == HOLE_MAX || !sv[v].seam)
				ok = 0;
			else
				loop[n++] = v;
			panels |= n > 1 && sv[v].panel != sv[loop[0]].panel;
			k = b.next[k];
		} while (k >= 0 && k != k0 && !seen[k]);
		if (ok && k == k0 && panels && n >= 3)
			fill_hole(m, &hs, loop, n, out);
	}
	free(seen);
	boundary_free(&b);
	free(hs.h);
}

/* ---- the whole ------------------------------------------------------- */

static void append(struct tri_list *to, const struct tri_list *l)
{
	for (int k = 0; k < l->n; k++)
		tri_push(to, l->t[k][0], l->t[k][1], l->t[k][2]);
}

/* Seam edges of the panels' triangles (the first npanel of m) still on
 * the mesh's boundary: the seam's sides not joined.  (A strip's end rung
 * on an open edge, as at a sleeve's cuff, is no such edge.) */
static long open_seam_edges(const struct strip_mesh *m, int npanel,
			    const struct seam_vertex *sv)
{
	struct halves hs;
	struct boundary b;
	long n = 0;
	halves_build(&hs, m->tris, m->ntris);
	boundary_build(&b, &hs, m->tris);
	for (int k = 0; k < b.n; k++)
		n += seam_edge(&sv[b.e[k][0]], &sv[b.e[k][1]]) &&
		     half_find(&hs, b.e[k][0], b.e[k][1])->tri < npanel;
	boundary_free(&b);
	free(hs.h);
	return n;
}

/* The triangles of m with a seam vertex for a corner: all the strip's
 * construction looks at.  Every boundary edge along a seam, and every
 * triangle around a seam vertex, is among them; an edge they leave
 * without its other triangle has no seam vertex at either end, so it
 * joins no chain and no hole. */
static void seam_triangles(const struct strip_mesh *m,
			   const struct seam_vertex *sv, struct tri_list *l)
{
	for (int t = 0; t < m->ntris; t++) {
		const int *c = m->tris[t];
		if (sv[c[0]].seam || sv[c[1]].seam || sv[c[2]].seam)
			tri_push(l, c[0], c[1], c[2]);
	}
}

void seam_strip_build(struct seam_strip *out, const struct strip_mesh *m,
		      const struct seam_grid *s)
{
	struct seam_vertex *sv = xmalloc_array((size_t)m->nverts + 1, sizeof *sv);
	struct tri_list near = {0}, strip = {0}, holes = {0};
	struct halves hs;
	struct boundary b;
	struct chains cs;
	memset(out, 0, sizeof *out);
	seam_vertices(m, s, sv);
	seam_triangles(m, sv, &near);
	struct strip_mesh f = {m->nverts, near.n, m->vgrid,
			       (const int (*)[3])near.t, m->pos};
	halves_build(&hs, f.tris, f.ntris);
	boundary_build(&b, &hs, f.tris);
	chains_find(&cs, &b, sv);
	chains_mate(&cs, &f, s, sv);
	zip_all(&f, sv, &cs, &strip);
	boundary_free(&b);
	free(hs.h);
	/* the holes and the open edges are found on the panels with the
	 * strip */
	int npanel = near.n;
	append(&near, &strip);
	f.tris = (const int (*)[3])near.t;
	f.ntris = near.n;
	fill_holes(&f, sv, &holes);
	append(&near, &holes);
	f.tris = (const int (*)[3])near.t;
	f.ntris = near.n;
	out->open_edges = open_seam_edges(&f, npanel, sv);
	out->chains = cs.n;
	out->nstrip = strip.n;
	out->nholes = holes.n;
	append(&strip, &holes);
	out->tris = strip.t;
	free(near.t);
	free(holes.t);
	chains_free(&cs);
	free(sv);
}

void seam_strip_free(struct seam_strip *st)
{
	free(st->tris);
	memset(st, 0, sizeof *st);
}

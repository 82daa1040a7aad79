/* quadtree.c - which nodes of the quadtree are leaves.
 *
 * Phase 1 (qtree_refine) marks, bottom up, the nodes that hold detail: a
 * node stays whole (a leaf) only when all its cells are full, it has no
 * pinned vertex but on its corners, and every grid vertex of its closed
 * square is within the tolerance of the two triangles the node becomes.
 * The paper measures against the bilinear interpolation of the corners;
 * we measure against the triangles, because those are what is drawn
 * (on a cell that is not flat they differ by up to a quarter of the
 * corners' twist), and the tolerance is a promise about the output.
 *
 * Phase 2 (balance): a leaf must be split when the triangles across one
 * of its sides come from leaves more than one level finer; when they come
 * from leaves exactly one level finer, the leaf takes that side's
 * midpoint as a vertex.  So no vertex of one leaf lies inside the edge of
 * another: no T-junction, no crack.  Only sides with triangles on the
 * other side count (the 'fine' levels), so a leaf along a straight panel
 * edge is not split for the empty side beyond it.
 *
 * Phase 3: a leaf with midpoints is fanned from its first midpoint into
 * up to six triangles, which are not the two triangles phase 1 checked;
 * it is checked again against them and split when a vertex is off.
 * Phases 2 and 3 repeat until nothing changes; splits only ever add
 * nodes, so this ends.
 *
 * The nodes of one level run in parallel: each iteration writes its own
 * node's entries only, and reads nothing another iteration of the same
 * loop writes, so the result does not depend on the number of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simplify.h"

enum { SIDE_BOTTOM, SIDE_RIGHT, SIDE_TOP, SIDE_LEFT };
static const int side_di[4] = {0, 1, 0, -1};
static const int side_dj[4] = {-1, 0, 1, 0};
/* The two children (ci, cj) of a node along each side. */
static const int side_child[4][2][2] = {
	{{0, 0}, {1, 0}}, {{1, 0}, {1, 1}}, {{0, 1}, {1, 1}}, {{0, 0}, {0, 1}},
};

/* A node's corners and side midpoints in units of half its size,
 * counter-clockwise from the lower left corner: the midpoint of side k
 * is entry 2k + 1. */
const unsigned char leaf_ring[8][2] = {
	{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1},
};

int leaf_triangles(unsigned mids, unsigned char tri[6][3])
{
	static const unsigned char two[2][3] = {{0, 2, 6}, {2, 4, 6}};
	if (!mids) {
		memcpy(tri, two, sizeof two);
		return 2;
	}
	/* The polygon of corners and midpoints, fanned from its first
	 * midpoint: no fan triangle has two vertices on that midpoint's
	 * side, so none is degenerate. */
	unsigned char poly[8];
	int n = 0, m = -1;
	for (int k = 0; k < 8; k++)
		if (k % 2 == 0 || (mids >> (k / 2) & 1)) {
			if (m < 0 && k % 2 == 1)
				m = n;
			poly[n++] = (unsigned char)k;
		}
	for (int r = 1; r + 1 < n; r++) {
		tri[r - 1][0] = poly[m];
		tri[r - 1][1] = poly[(m + r) % n];
		tri[r - 1][2] = poly[(m + r + 1) % n];
	}
	return n - 2;
}

void qtree_init(struct qtree *q, int w, int h, double tol)
{
	memset(q, 0, sizeof *q);
	int cells = (w > h ? w : h) - 1;
	q->top = 1;
	while ((1L << q->top) < cells)
		q->top++;
	q->tol = tol;
	q->tol2 = tol * tol;
	for (int L = 1; L <= q->top; L++) {
		struct qt_level *lv = &q->lv[L];
		long s = 1L << L;
		lv->nx = (int)((w - 1 + s - 1) / s);
		lv->ny = (int)((h - 1 + s - 1) / s);
		size_t n = (size_t)lv->nx * (size_t)lv->ny;
		lv->state = xcalloc(n, 1);
		lv->fine = xcalloc(n, sizeof *lv->fine);
		lv->checked = xcalloc(n, 1);
		lv->err = xcalloc(n, sizeof *lv->err);
	}
}

void qtree_free(struct qtree *q)
{
	for (int L = 1; L <= q->top; L++) {
		free(q->lv[L].state);
		free(q->lv[L].fine);
		free(q->lv[L].checked);
		free(q->lv[L].err);
	}
	memset(q, 0, sizeof *q);
}

static size_t node_index(const struct qt_level *lv, int a, int b)
{
	return (size_t)b * (size_t)lv->nx + (size_t)a;
}

static int in_level(const struct qt_level *lv, int a, int b)
{
	return a >= 0 && b >= 0 && a < lv->nx && b < lv->ny;
}

static uint8_t cell_bits(const struct surface *s, int i, int j)
{
	if (i < 0 || j < 0 || i >= s->w - 1 || j >= s->h - 1)
		return 0;
	return s->cells[(size_t)j * (size_t)(s->w - 1) + (size_t)i];
}

/* State of node (a, b) at level L >= 1; outside the grid it is empty. */
static uint8_t node_state(const struct qtree *q, int L, int a, int b)
{
	const struct qt_level *lv = &q->lv[L];
	return in_level(lv, a, b) ? lv->state[node_index(lv, a, b)] : NODE_EMPTY;
}

/* The fine level of node (a, b) at level L >= 1 along side k. */
static int node_fine(const struct qtree *q, int L, int a, int b, int k)
{
	const struct qt_level *lv = &q->lv[L];
	return in_level(lv, a, b) ? lv->fine[node_index(lv, a, b)][k] :
	       FINE_NONE;
}

/* The same for L >= 0: a cell has level 0 along a side where one of its
 * triangles has an edge. */
static int side_fine(const struct qtree *q, const struct surface *s, int L,
		     int a, int b, int k)
{
	if (L > 0)
		return node_fine(q, L, a, b, k);
	unsigned edge = k == SIDE_BOTTOM || k == SIDE_LEFT ? CELL_LOWER :
			CELL_UPPER;
	return cell_bits(s, a, b) & edge ? 0 : FINE_NONE;
}

/* The finest level along side k of node (a, b) at level L, from its two
 * children there (valid whatever the node's own state). */
static int children_fine(const struct qtree *q, const struct surface *s,
			 int L, int a, int b, int k)
{
	int f0 = side_fine(q, s, L - 1, 2 * a + side_child[k][0][0],
			   2 * b + side_child[k][0][1], k);
	int f1 = side_fine(q, s, L - 1, 2 * a + side_child[k][1][0],
			   2 * b + side_child[k][1][1], k);
	return f0 < f1 ? f0 : f1;
}

/* ---- the tolerance -------------------------------------------------- */

/* One of a leaf's triangles: its corners in grid units from the node's
 * lower left vertex, and the affine map p(di, dj) = o + di gi + dj gj
 * from there to the triangle's points. */
struct flat_tri {
	int64_t x[3], y[3];
	double o[3], gi[3], gj[3];
};

static void flat_tri_init(struct flat_tri *t, const float *p[3])
{
	double det = (double)((t->x[1] - t->x[0]) * (t->y[2] - t->y[0]) -
			      (t->y[1] - t->y[0]) * (t->x[2] - t->x[0]));
	for (int c = 0; c < 3; c++) {
		double d1 = (double)p[1][c] - p[0][c], d2 = (double)p[2][c] - p[0][c];
		t->gi[c] = (d1 * (double)(t->y[2] - t->y[0]) -
			    d2 * (double)(t->y[1] - t->y[0])) / det;
		t->gj[c] = (d2 * (double)(t->x[1] - t->x[0]) -
			    d1 * (double)(t->x[2] - t->x[0])) / det;
		t->o[c] = p[0][c] - (double)t->x[0] * t->gi[c] -
			  (double)t->y[0] * t->gj[c];
	}
}

static int flat_tri_covers(const struct flat_tri *t, int64_t di, int64_t dj)
{
	for (int k = 0; k < 3; k++) {
		int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
		if ((t->x[k2] - t->x[k1]) * (dj - t->y[k1]) -
		    (t->y[k2] - t->y[k1]) * (di - t->x[k1]) < 0)
			return 0;
	}
	return 1;
}

/* The squared distance between vertex position xv at (di, dj) and the
 * point of triangle t at the same pattern position. */
static double dist2(const struct flat_tri *t, int64_t di, int64_t dj,
		    const float *xv)
{
	double d2 = 0;
	for (int c = 0; c < 3; c++) {
		double e = xv[c] - (t->o[c] + (double)di * t->gi[c] +
				    (double)dj * t->gj[c]);
		d2 += e * e;
	}
	return d2;
}

/* The triangle of the leaf that covers (di, dj); the two triangles of a
 * leaf without midpoints meet on di + dj = 2 half. */
static const struct flat_tri *covering(const struct flat_tri *t, int nt,
				       int64_t half, int64_t di, int64_t dj)
{
	if (nt == 2)
		return di + dj <= 2 * half ? &t[0] : &t[1];
	for (int k = 0; k < nt - 1; k++)
		if (flat_tri_covers(&t[k], di, dj))
			return &t[k];
	return &t[nt - 1];
}

/* The leaf's triangles for midpoint set mids. */
static int leaf_flat(const struct surface *s, int L, int a, int b,
		     unsigned mids, struct flat_tri t[6])
{
	unsigned char ti[6][3];
	int nt = leaf_triangles(mids, ti);
	int64_t half = (int64_t)1 << (L - 1), i0 = (int64_t)a << L,
		j0 = (int64_t)b << L;
	for (int k = 0; k < nt; k++) {
		const float *p[3];
		for (int c = 0; c < 3; c++) {
			t[k].x[c] = leaf_ring[ti[k][c]][0] * half;
			t[k].y[c] = leaf_ring[ti[k][c]][1] * half;
			p[c] = s->x + 3 * ((size_t)(j0 + t[k].y[c]) * (size_t)s->w +
					   (size_t)(i0 + t[k].x[c]));
		}
		flat_tri_init(&t[k], p);
	}
	return nt;
}

/* The largest squared distance of a vertex of node (a, b) at level L
 * from the leaf's triangles (for midpoint set mids), checking only the
 * centre and the side midpoints with cross_only; it stops as soon as
 * one exceeds limit2.  The centre and the side midpoints, where a twist
 * or a bump shows first, are tried before the rest. */
static double leaf_dev2(const struct surface *s, int L, int a, int b,
			unsigned mids, int cross_only, double limit2)
{
	struct flat_tri t[6];
	int nt = leaf_flat(s, L, a, b, mids, t);
	int64_t half = (int64_t)1 << (L - 1), i0 = (int64_t)a << L,
		j0 = (int64_t)b << L;
	size_t w = (size_t)s->w;
	double worst = 0;
	static const int first[5][2] = {{1, 1}, {1, 0}, {2, 1}, {1, 2}, {0, 1}};
	for (int k = 0; k < 5 && worst <= limit2; k++) {
		int64_t di = first[k][0] * half, dj = first[k][1] * half;
		const float *xv = s->x + 3 * ((size_t)(j0 + dj) * w + (size_t)(i0 + di));
		double d2 = dist2(covering(t, nt, half, di, dj), di, dj, xv);
		worst = d2 > worst ? d2 : worst;
	}
	for (int64_t dj = 0; dj <= 2 * half && !cross_only && worst <= limit2; dj++) {
		const float *row = s->x + 3 * ((size_t)(j0 + dj) * w + (size_t)i0);
		for (int64_t di = 0; di <= 2 * half; di++) {
			double d2 = dist2(covering(t, nt, half, di, dj), di, dj,
					  row + 3 * di);
			worst = d2 > worst ? d2 : worst;
		}
	}
	return worst;
}

/* Whether node (a, b) at level L, all its cells full and all its
 * children leaves, keeps within the tolerance as one leaf; its
 * deviation (an upper bound of it) goes to *err.  First a bound: a
 * vertex is within its child's deviation of the child's triangles, and
 * those differ from the node's by at most their difference at the
 * children's corners (the two meshes are linear between those points:
 * the node's diagonal runs along two children's diagonals), so most
 * nodes of a smooth surface need no look at their vertices.  Only when
 * the bound is over the tolerance are the vertices measured. */
static int node_fits(const struct qtree *q, const struct surface *s, int L,
		     int a, int b, float *err)
{
	double child = 0;
	if (L > 1) {
		const struct qt_level *lv = &q->lv[L - 1];
		for (int c = 0; c < 4; c++) {
			double e = lv->err[node_index(lv, 2 * a + (c & 1),
						      2 * b + (c >> 1))];
			child = e > child ? e : child;
		}
		double bound = child + sqrt(leaf_dev2(s, L, a, b, 0, 1, HUGE_VAL));
		if (bound <= q->tol) {
			*err = nextafterf((float)bound, INFINITY);
			return 1;
		}
	}
	double d2 = leaf_dev2(s, L, a, b, 0, 0, q->tol2);
	*err = nextafterf((float)sqrt(d2), INFINITY);
	return d2 <= q->tol2;
}

/* ---- phase 1 -------------------------------------------------------- */

/* Whether the centre or a side midpoint of node (a, b) at level L is
 * pinned: those are the vertices a leaf drops that its children (or, at
 * level 1, its cells) keep. */
static int cross_pinned(const struct surface *s, int L, int a, int b)
{
	static const int cross[5][2] = {{1, 1}, {1, 0}, {2, 1}, {1, 2}, {0, 1}};
	long half = 1L << (L - 1);
	for (int k = 0; k < 5; k++) {
		size_t i = ((size_t)a << L) + (size_t)(cross[k][0] * half);
		size_t j = ((size_t)b << L) + (size_t)(cross[k][1] * half);
		if (s->pinned[j * (size_t)s->w + i])
			return 1;
	}
	return 0;
}

static uint8_t classify(const struct qtree *q, const struct surface *s,
			int L, int a, int b, float *err)
{
	int empty = 1, whole = 1;
	for (int c = 0; c < 4; c++) {
		int ca = 2 * a + (c & 1), cb = 2 * b + (c >> 1);
		if (L == 1) {
			uint8_t bits = cell_bits(s, ca, cb);
			empty &= bits == 0;
			whole &= bits == CELL_FULL;
		} else {
			uint8_t st = node_state(q, L - 1, ca, cb);
			empty &= st == NODE_EMPTY;
			whole &= st == NODE_LEAF;
		}
	}
	if (empty)
		return NODE_EMPTY;
	if (!whole || cross_pinned(s, L, a, b) || !node_fits(q, s, L, a, b, err))
		return NODE_SPLIT;
	return NODE_LEAF;
}

void qtree_refine(struct qtree *q, const struct surface *s)
{
	for (int L = 1; L <= q->top; L++) {
		struct qt_level *lv = &q->lv[L];
		#pragma omp parallel for schedule(dynamic, 1)
		for (int b = 0; b < lv->ny; b++)
			for (int a = 0; a < lv->nx; a++) {
				size_t at = node_index(lv, a, b);
				lv->state[at] = classify(q, s, L, a, b, &lv->err[at]);
			}
		memset(lv->checked, 0, (size_t)lv->nx * (size_t)lv->ny);
	}
}

void qtree_merge(struct qtree *dst, const struct qtree *src)
{
	for (int L = 1; L <= dst->top; L++) {
		struct qt_level *d = &dst->lv[L];
		const struct qt_level *r = &src->lv[L];
		size_t n = (size_t)d->nx * (size_t)d->ny;
		for (size_t k = 0; k < n; k++)
			if (r->state[k] > d->state[k])
				d->state[k] = r->state[k];
	}
}

void qtree_forget_checks(struct qtree *q)
{
	for (int L = 1; L <= q->top; L++)
		memset(q->lv[L].checked, 0,
		       (size_t)q->lv[L].nx * (size_t)q->lv[L].ny);
}

/* ---- phase 2 -------------------------------------------------------- */

static int any_child_split(const struct qtree *q, int L, int a, int b)
{
	for (int c = 0; c < 4; c++)
		if (node_state(q, L - 1, 2 * a + (c & 1), 2 * b + (c >> 1)) ==
		    NODE_SPLIT)
			return 1;
	return 0;
}

/* Whether the triangles across a side of leaf (a, b) at level L come
 * from leaves more than one level finer. */
static int unbalanced(const struct qtree *q, const struct surface *s, int L,
		      int a, int b)
{
	for (int k = 0; k < 4; k++) {
		int na = a + side_di[k], nb = b + side_dj[k];
		if (!in_level(&q->lv[L], na, nb))
			continue;
		int f = children_fine(q, s, L, na, nb, (k + 2) & 3);
		if (f != FINE_NONE && f < L - 1)
			return 1;
	}
	return 0;
}

static void set_fine(struct qtree *q, const struct surface *s, int L,
		     int a, int b)
{
	struct qt_level *lv = &q->lv[L];
	size_t at = node_index(lv, a, b);
	for (int k = 0; k < 4; k++)
		lv->fine[at][k] = lv->state[at] == NODE_LEAF ? (uint8_t)L :
				  lv->state[at] == NODE_EMPTY ? FINE_NONE :
				  (uint8_t)children_fine(q, s, L, a, b, k);
}

/* One sweep from the finest level up: a node with a split child is
 * split (phase 3 and the balance split leaves that had leaf parents),
 * then the balance rule, then the fine levels the next level reads. */
static void balance(struct qtree *q, const struct surface *s)
{
	for (int L = 1; L <= q->top; L++) {
		struct qt_level *lv = &q->lv[L];
		#pragma omp parallel for schedule(dynamic, 4)
		for (int b = 0; b < lv->ny; b++)
			for (int a = 0; a < lv->nx; a++) {
				size_t at = node_index(lv, a, b);
				if (lv->state[at] != NODE_LEAF)
					continue;
				if (L > 1 && (any_child_split(q, L, a, b) ||
					      unbalanced(q, s, L, a, b)))
					lv->state[at] = NODE_SPLIT;
			}
		#pragma omp parallel for schedule(dynamic, 4)
		for (int b = 0; b < lv->ny; b++)
			for (int a = 0; a < lv->nx; a++)
				set_fine(q, s, L, a, b);
	}
}

/* ---- phase 3 -------------------------------------------------------- */

/* Whether leaf (a, b) at level L is in the tree: the root, or a child
 * of a split node. */
static int actual(const struct qtree *q, int L, int a, int b)
{
	return L == q->top || node_state(q, L + 1, a >> 1, b >> 1) == NODE_SPLIT;
}

/* The sides of leaf (a, b) at level L whose midpoint is a vertex of the
 * leaves across: the node across is split and its finest leaf with
 * triangles along the shared side is one level finer. */
static unsigned leaf_mids(const struct qtree *q, int L, int a, int b)
{
	unsigned mids = 0;
	for (int k = 0; k < 4; k++) {
		int na = a + side_di[k], nb = b + side_dj[k];
		if (node_state(q, L, na, nb) == NODE_SPLIT &&
		    node_fine(q, L, na, nb, (k + 2) & 3) == L - 1)
			mids |= 1u << k;
	}
	return mids;
}

#define CHECK_FAILED 255

static size_t check_midpoint_leaves(struct qtree *q, const struct surface *s)
{
	size_t failed = 0;
	for (int L = 1; L <= q->top; L++) {
		struct qt_level *lv = &q->lv[L];
		/* marks first, splits after: leaf_mids reads this level */
		#pragma omp parallel for schedule(dynamic, 1) reduction(+:failed)
		for (int b = 0; b < lv->ny; b++)
			for (int a = 0; a < lv->nx; a++) {
				size_t at = node_index(lv, a, b);
				if (lv->state[at] != NODE_LEAF || !actual(q, L, a, b))
					continue;
				unsigned mids = leaf_mids(q, L, a, b);
				if (!mids || lv->checked[at] == 16 + mids)
					continue;
				if (leaf_dev2(s, L, a, b, mids, 0, q->tol2) <= q->tol2) {
					lv->checked[at] = (uint8_t)(16 + mids);
				} else {
					lv->checked[at] = CHECK_FAILED;
					failed++;
				}
			}
		size_t n = (size_t)lv->nx * (size_t)lv->ny;
		for (size_t at = 0; at < n; at++)
			if (lv->checked[at] == CHECK_FAILED) {
				lv->state[at] = NODE_SPLIT;
				lv->checked[at] = 0;
			}
	}
	return failed;
}

size_t qtree_settle(struct qtree *q, const struct surface *s)
{
	balance(q, s);
	return check_midpoint_leaves(q, s);
}

void qtree_finish(struct qtree *q, const struct surface *s)
{
	while (qtree_settle(q, s) > 0)
		;
}

/* ---- visiting the leaves -------------------------------------------- */

size_t qtree_rows(const struct qtree *q)
{
	size_t n = 0;
	for (int L = 1; L <= q->top; L++)
		n += (size_t)q->lv[L].ny;
	return n;
}

void qtree_row_leaves(const struct qtree *q, size_t row,
		      void (*fn)(const struct qt_leaf *, void *), void *arg)
{
	int L = 1;
	while (row >= (size_t)q->lv[L].ny)
		row -= (size_t)q->lv[L++].ny;
	const struct qt_level *lv = &q->lv[L];
	int b = (int)row;
	for (int a = 0; a < lv->nx; a++) {
		uint8_t st = lv->state[node_index(lv, a, b)];
		if (st == NODE_LEAF && actual(q, L, a, b)) {
			struct qt_leaf leaf = {L, a, b, 0};
			leaf.mids = leaf_mids(q, L, a, b);
			fn(&leaf, arg);
		} else if (st == NODE_SPLIT && L == 1) {
			for (int c = 0; c < 4; c++) {
				struct qt_leaf cell = {0, 2 * a + (c & 1),
						       2 * b + (c >> 1), 0};
				fn(&cell, arg);
			}
		}
	}
}

/* ---- splitting where the mesh intersects itself ----------------------- */

/* Whether the closed square of node (a, b) at level L holds grid vertex
 * (i, j): a = i >> L, or a = (i >> L) - 1 when i is on its left side. */
static int holds(int L, int a, int b, long i, long j)
{
	long lo_i = (long)a << L, lo_j = (long)b << L, s = 1L << L;
	return i >= lo_i && i <= lo_i + s && j >= lo_j && j <= lo_j + s;
}

size_t qtree_split_at(struct qtree *q, const uint32_t *verts, size_t n,
		      int w)
{
	size_t split = 0;
	/* Bottom up: a split at level L makes its children actual, but
	 * level L - 1 has been visited, so each call refines one level. */
	for (int L = 1; L <= q->top; L++) {
		struct qt_level *lv = &q->lv[L];
		for (size_t k = 0; k < n; k++) {
			long i = (long)(verts[k] % (uint32_t)w);
			long j = (long)(verts[k] / (uint32_t)w);
			for (int c = 0; c < 4; c++) {
				int a = (int)(i >> L) - (c & 1), b = (int)(j >> L) - (c >> 1);
				if (!in_level(lv, a, b) || !holds(L, a, b, i, j))
					continue;
				size_t at = node_index(lv, a, b);
				if (lv->state[at] == NODE_LEAF && actual(q, L, a, b)) {
					lv->state[at] = NODE_SPLIT;
					split++;
				}
			}
		}
	}
	return split;
}

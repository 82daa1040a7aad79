/* body.c - body mesh, BVH, closest point, winding number, half-planes
 * (see body.h). */
#include "body.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "closest.h"
#include "grid.h"
#include "obj.h"
#include "orient.h"

#define FOUR_PI 12.566370614359172

/* Squared distance from p to a node's box (0 inside it). */
static double box_dist2(const struct body_node *nd, const double *p)
{
	double s = 0;
	for (int k = 0; k < 3; k++) {
		double d = nd->lo[k] - p[k];
		if (d < p[k] - nd->hi[k])
			d = p[k] - nd->hi[k];
		if (d > 0)
			s += d * d;
	}
	return s;
}

/* ---- solid angles ------------------------------------------------------ */

/* Signed solid angle of triangle t seen from p (Van Oosterom and
 * Strackee 1983): positive when p is on the back of the triangle (the
 * side its counter-clockwise normal points away from). */
static double solid_angle(const double *t, const double *p)
{
	double a[3], b[3], c[3], bc[3];
	sub3(t, p, a);
	sub3(t + 3, p, b);
	sub3(t + 6, p, c);
	double la = sqrt(dot3(a, a)), lb = sqrt(dot3(b, b)), lc = sqrt(dot3(c, c));
	cross3(b, c, bc);
	double num = dot3(a, bc);
	double den = la * lb * lc + dot3(a, b) * lc + dot3(b, c) * la +
		     dot3(c, a) * lb;
	return 2 * atan2(num, den);
}

/* ---- building -------------------------------------------------------- */

struct key {
	double at;    /* centroid coordinate along the split axis */
	int tri;      /* index into the input triangles */
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return (a->tri > b->tri) - (a->tri < b->tri);
}

struct builder {
	const double (*cen)[3];   /* centroids of the input triangles */
	int *order;               /* input triangle of each leaf slot */
	struct key *keys;         /* scratch */
	struct body *b;
};

static void fit_box(struct body_node *nd, const int *order,
		    const double (*v)[3], const int (*tri)[3])
{
	for (int k = 0; k < 3; k++) {
		nd->lo[k] = INFINITY;
		nd->hi[k] = -INFINITY;
	}
	for (int s = nd->first; s < nd->first + nd->count; s++)
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < 3; k++) {
				double x = v[tri[order[s]][c]][k];
				nd->lo[k] = fmin(nd->lo[k], x);
				nd->hi[k] = fmax(nd->hi[k], x);
			}
}

/* Splits node `at` (its triangles order[first .. first + count)) at the
 * median centroid along the longest axis of the centroids' box, until a
 * node holds at most BODY_LEAF triangles.  Recursion depth is about
 * log2(ntri / BODY_LEAF). */
static void split(struct builder *B, int at, const double (*v)[3],
		  const int (*tri)[3])
{
	struct body *b = B->b;
	struct body_node *nd = &b->node[at];
	fit_box(nd, B->order, v, tri);
	if (nd->count <= BODY_LEAF)
		return;
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	int first = nd->first, count = nd->count;
	for (int s = first; s < first + count; s++)
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(lo[k], B->cen[B->order[s]][k]);
			hi[k] = fmax(hi[k], B->cen[B->order[s]][k]);
		}
	int axis = 0;
	for (int k = 1; k < 3; k++)
		if (hi[k] - lo[k] > hi[axis] - lo[axis])
			axis = k;
	for (int s = 0; s < count; s++) {
		B->keys[s].tri = B->order[first + s];
		B->keys[s].at = B->cen[B->keys[s].tri][axis];
	}
	qsort(B->keys, (size_t)count, sizeof *B->keys, key_cmp);
	for (int s = 0; s < count; s++)
		B->order[first + s] = B->keys[s].tri;
	int left = b->nnodes;
	b->nnodes += 2;
	int half = count / 2;
	b->node[left] = (struct body_node){.first = first, .count = half};
	b->node[left + 1] = (struct body_node){.first = first + half,
					       .count = count - half};
	nd = &b->node[at];
	nd->first = left;
	nd->count = 0;
	split(B, left, v, tri);
	split(B, left + 1, v, tri);
}

/* The far-field moments of every node, children before parents (children
 * always have larger indices), about the centre of the node's box:
 * the area vector A = sum of a_t n_t and the first moment
 * M = sum of (a_t n_t) (c_t - centre)^T, c_t the triangle's centroid
 * (exact for a flat triangle, the integrand being linear); radius holds
 * the node's box. */
static void leaf_moments(const struct body *b, struct body_node *nd)
{
	for (int t = nd->first; t < nd->first + nd->count; t++) {
		const double *x = b->tri[t];
		double e1[3], e2[3], n[3];
		sub3(x + 3, x, e1);
		sub3(x + 6, x, e2);
		cross3(e1, e2, n);
		for (int i = 0; i < 3; i++) {
			double c = (x[i] + x[3 + i] + x[6 + i]) / 3 - nd->centre[i];
			nd->area[i] += 0.5 * n[i];
			for (int k = 0; k < 3; k++)
				nd->moment[k][i] += 0.5 * n[k] * c;
		}
	}
}

/* A child's moments moved to the parent's centre and added. */
static void add_child_moments(struct body_node *nd, const struct body_node *ch)
{
	for (int i = 0; i < 3; i++) {
		double shift = ch->centre[i] - nd->centre[i];
		nd->area[i] += ch->area[i];
		for (int k = 0; k < 3; k++)
			nd->moment[k][i] += ch->moment[k][i] + ch->area[k] * shift;
	}
}

static void moments(struct body *b)
{
	for (int at = b->nnodes - 1; at >= 0; at--) {
		struct body_node *nd = &b->node[at];
		double half[3];
		for (int k = 0; k < 3; k++) {
			nd->centre[k] = 0.5 * (nd->lo[k] + nd->hi[k]);
			half[k] = 0.5 * (nd->hi[k] - nd->lo[k]);
		}
		nd->radius = sqrt(dot3(half, half));
		memset(nd->area, 0, sizeof nd->area);
		memset(nd->moment, 0, sizeof nd->moment);
		if (nd->count > 0) {
			leaf_moments(b, nd);
		} else {
			add_child_moments(nd, &b->node[nd->first]);
			add_child_moments(nd, &b->node[nd->first + 1]);
		}
	}
}

/* Marks the buried triangles (see body.h). */
static void bury(struct body *b);

/* ---- closed or not --------------------------------------------------------- */

struct position {
	double at[3];
	int vertex;
};

static int position_cmp(const void *pa, const void *pb)
{
	const struct position *a = pa, *b = pb;
	int c = memcmp(a->at, b->at, sizeof a->at);
	return c ? c : (a->vertex > b->vertex) - (a->vertex < b->vertex);
}

struct edge {
	uint64_t key;          /* lower vertex << 32 | higher vertex */
	int sign;              /* +1 from the lower to the higher, -1 back */
};

static int edge_cmp(const void *pa, const void *pb)
{
	uint64_t a = ((const struct edge *)pa)->key, b = ((const struct edge *)pb)->key;
	return (a > b) - (a < b);
}

/* The open edges of the triangles: those not run as often in one
 * direction as in the other, vertices at the same position (bit for bit)
 * taken as one, so that a soup of closed shells has none.  The surface
 * is closed (a cycle) when there is none: its winding number is an
 * integer, constant off the triangles; with a boundary it is not (see
 * walk_inside). */
static size_t open_edges(const double (*v)[3], int nv, const int (*tri)[3],
			 int ntri)
{
	struct position *order = xmalloc_array((size_t)nv, sizeof *order);
	int *id = xmalloc_array((size_t)nv, sizeof *id);
	for (int i = 0; i < nv; i++) {
		memcpy(order[i].at, v[i], sizeof order[i].at);
		order[i].vertex = i;
	}
	qsort(order, (size_t)nv, sizeof *order, position_cmp);
	for (int i = 0; i < nv; i++)
		id[order[i].vertex] = i > 0 && memcmp(order[i].at, order[i - 1].at,
						      sizeof order[i].at) == 0 ?
			id[order[i - 1].vertex] : order[i].vertex;
	struct edge *e = xmalloc_array((size_t)ntri * 3, sizeof *e);
	size_t ne = 0;
	for (int t = 0; t < ntri; t++)
		for (int c = 0; c < 3; c++) {
			uint64_t i = (uint64_t)id[tri[t][c]];
			uint64_t j = (uint64_t)id[tri[t][(c + 1) % 3]];
			if (i == j)
				continue;
			e[ne].key = i < j ? i << 32 | j : j << 32 | i;
			e[ne++].sign = i < j ? 1 : -1;
		}
	qsort(e, ne, sizeof *e, edge_cmp);
	size_t open = 0;
	for (size_t k = 0; k < ne;) {
		int sum = 0;
		size_t at = k;
		for (; k < ne && e[k].key == e[at].key; k++)
			sum += e[k].sign;
		open += sum != 0;
	}
	free(order);
	free(id);
	free(e);
	return open;
}

void body_warn_open(const struct body *b, const char *path)
{
	if (!b->closed)
		warnx("%s: the body is not closed: %zu open edges; near its "
		      "holes inside and outside are uncertain, and cloth there "
		      "may be pushed out the wrong way", path, b->open_edges);
}

int body_build(struct body *b, const double (*v)[3], int nv,
	       const int (*tri)[3], int ntri, const int *face,
	       const char *name, struct error *e)
{
	memset(b, 0, sizeof *b);
	if (ntri <= 0)
		return error_set(e, "%s: the body mesh has no triangles", name);
	for (int t = 0; t < ntri; t++)
		for (int c = 0; c < 3; c++) {
			int i = tri[t][c];
			if (i < 0 || i >= nv)
				return error_set(e, "%s: triangle %d refers to "
						 "vertex %d of %d", name, t + 1,
						 i + 1, nv);
			for (int k = 0; k < 3; k++)
				if (!isfinite(v[i][k]))
					return error_set(e, "%s: vertex %d is "
							 "not finite", name,
							 i + 1);
		}
	double (*cen)[3] = xmalloc_array((size_t)ntri, sizeof *cen);
	struct builder B = {
		.cen = (const double (*)[3])cen,
		.order = xmalloc_array((size_t)ntri, sizeof(int)),
		.keys = xmalloc_array((size_t)ntri, sizeof(struct key)),
		.b = b,
	};
	for (int t = 0; t < ntri; t++) {
		B.order[t] = t;
		for (int k = 0; k < 3; k++)
			cen[t][k] = (v[tri[t][0]][k] + v[tri[t][1]][k] +
				     v[tri[t][2]][k]) / 3;
	}
	/* a binary tree with leaves of at least one triangle has fewer
	 * than 2 ntri nodes */
	b->node = xmalloc_array((size_t)ntri * 2, sizeof *b->node);
	b->node[0] = (struct body_node){.first = 0, .count = ntri};
	b->nnodes = 1;
	split(&B, 0, v, tri);
	b->ntri = ntri;
	b->tri = xmalloc_array((size_t)ntri, sizeof *b->tri);
	b->face = xmalloc_array((size_t)ntri, sizeof *b->face);
	double vol6 = 0;
	for (int s = 0; s < ntri; s++) {
		int t = B.order[s];
		for (int c = 0; c < 3; c++)
			memcpy(&b->tri[s][3 * c], v[tri[t][c]], 3 * sizeof(double));
		b->face[s] = face ? face[t] : t;
		double bc[3];
		cross3(&b->tri[s][3], &b->tri[s][6], bc);
		vol6 += dot3(b->tri[s], bc);
	}
	b->volume = vol6 / 6;
	b->orientation = b->volume < 0 ? -1 : 1;
	b->open_edges = open_edges(v, nv, tri, ntri);
	b->closed = b->open_edges == 0;
	moments(b);
	bury(b);
	free(cen);
	free(B.order);
	free(B.keys);
	return 0;
}

int body_load(struct body *b, const char *path, struct error *e)
{
	struct obj_mesh m;
	memset(b, 0, sizeof *b);
	if (obj_load(&m, path, e))
		return -1;
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	int r = body_build(b, (const double (*)[3])m.v, m.nv,
			   (const int (*)[3])m.tri_v, m.ntri, m.tri_face, name, e);
	obj_free(&m);
	return r;
}

void body_free(struct body *b)
{
	free(b->buried);
	free(b->tri);
	free(b->face);
	free(b->node);
	memset(b, 0, sizeof *b);
}

/* ---- closest point ----------------------------------------------------- */

/* The best answer so far: ordered by (squared distance, triangle), so
 * that the result is the same whatever order the triangles are met in. */
struct best {
	double d2;
	int tri;
	double point[3];
};

static void offer(const struct body *b, const double *p, int t,
		  struct best *best)
{
	double q[3];
	if (b->buried[t])
		return;
	double d2 = closest_on_triangle(p, b->tri[t], q);
	if (d2 < best->d2 || (d2 == best->d2 && t < best->tri)) {
		best->d2 = d2;
		best->tri = t;
		memcpy(best->point, q, sizeof q);
	}
}

/* The box distance is a lower bound of the distance to every triangle in
 * the box; a box is skipped only when it is farther than the best by more
 * than rounding could explain, so no candidate is ever lost to rounding. */
#define PRUNE_SLACK (1 + 1e-12)

int body_closest(const struct body *b, const double p[3], double max_dist,
		 int *hint, struct body_hit *hit)
{
	struct best best = {max_dist * max_dist, b->ntri, {0, 0, 0}};
	struct { int node; double d2; } stack[128];
	int top = 0;
	if (hint && *hint >= 0 && *hint < b->ntri)
		offer(b, p, *hint, &best);
	stack[top].node = 0;
	stack[top++].d2 = box_dist2(&b->node[0], p);
	while (top > 0) {
		top--;
		const struct body_node *nd = &b->node[stack[top].node];
		if (stack[top].d2 > best.d2 * PRUNE_SLACK || nd->surface == 0)
			continue;
		if (nd->count > 0) {
			for (int t = nd->first; t < nd->first + nd->count; t++)
				offer(b, p, t, &best);
			continue;
		}
		int l = nd->first, r = nd->first + 1;
		double dl = box_dist2(&b->node[l], p), dr = box_dist2(&b->node[r], p);
		/* the nearer child on top: it is searched first */
		if (dl < dr) {
			int ti = l; l = r; r = ti;
			double td = dl; dl = dr; dr = td;
		}
		stack[top].node = l;
		stack[top++].d2 = dl;
		stack[top].node = r;
		stack[top++].d2 = dr;
	}
	if (best.tri == b->ntri)
		return 0;
	memcpy(hit->point, best.point, sizeof best.point);
	hit->dist = sqrt(best.d2);
	hit->tri = best.tri;
	if (hint)
		*hint = best.tri;
	return 1;
}

/* ---- winding number ---------------------------------------------------- */

double body_winding_exact(const struct body *b, const double p[3])
{
	double sum = 0;
	for (int t = 0; t < b->ntri; t++)
		sum += solid_angle(b->tri[t], p);
	return sum / FOUR_PI;
}

/* The solid angle of a far node seen from p, d = centre - p, r2 = |d|²:
 * the integral of n . f(y) dA, f(y) = (y - p) / |y - p|³, with f
 * expanded to first order about the centre: A . f(centre) + M : J,
 * J = I / |d|³ - 3 d d^T / |d|^5 the (symmetric) Jacobian of f.  The
 * error is of order (radius / |d|)² of the node's share. */
static double far_field(const struct body_node *nd, const double d[3],
			double r2)
{
	double inv = 1 / sqrt(r2), inv3 = inv * inv * inv, inv5 = inv3 * inv * inv;
	double trace = nd->moment[0][0] + nd->moment[1][1] + nd->moment[2][2];
	double dmd = 0;
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			dmd += d[i] * nd->moment[i][k] * d[k];
	return dot3(nd->area, d) * inv3 + trace * inv3 - 3 * dmd * inv5;
}

double body_winding(const struct body *b, const double p[3])
{
	int stack[128], top = 0;
	double sum = 0;
	stack[top++] = 0;
	while (top > 0) {
		const struct body_node *nd = &b->node[stack[--top]];
		double d[3];
		sub3(nd->centre, p, d);
		double r2 = dot3(d, d);
		if (r2 > BODY_WINDING_BETA * BODY_WINDING_BETA *
			 nd->radius * nd->radius) {
			sum += far_field(nd, d, r2);
		} else if (nd->count > 0) {
			for (int t = nd->first; t < nd->first + nd->count; t++)
				sum += solid_angle(b->tri[t], p);
		} else {
			stack[top++] = nd->first;
			stack[top++] = nd->first + 1;
		}
	}
	return sum / FOUR_PI;
}

/* ---- the winding number along a segment --------------------------------- */

/* The sign of det[a - d; b - d; c - d] (orient.h), 0 when doubles
 * cannot tell. */
static int orient_filtered(const double *a, const double *b, const double *c,
			   const double *d)
{
	double ad[3], bd[3], cd[3];
	sub3(a, d, ad);
	sub3(b, d, bd);
	sub3(c, d, cd);
	return orient3d_filter(ad, bd, cd);
}

/* How the winding number changes from p to q across triangle t: +1 when
 * pq goes through it from its front to its back, -1 the other way, 0
 * when it misses; SEGMENT_UNSURE when it passes too close to the
 * triangle's boundary, or an end too close to its plane, for doubles to
 * tell. */
#define SEGMENT_UNSURE 2

static int crossing(const double *t, const double *p, const double *q)
{
	int sp = orient_filtered(t, t + 3, t + 6, p);
	int sq = orient_filtered(t, t + 3, t + 6, q);
	if (sp != 0 && sp == sq)
		return 0;
	/* the line pq meets the triangle's inside when it turns the same
	 * way around all three edges */
	int o1 = orient_filtered(p, q, t, t + 3);
	int o2 = orient_filtered(p, q, t + 3, t + 6);
	int o3 = orient_filtered(p, q, t + 6, t);
	if ((o1 > 0 || o2 > 0 || o3 > 0) && (o1 < 0 || o2 < 0 || o3 < 0))
		return 0;
	if (o1 == 0 || o2 == 0 || o3 == 0 || sp == 0 || sq == 0)
		return SEGMENT_UNSURE;
	return sq;
}

static int box_meets_segment(const struct body_node *nd, const double *p,
			     const double *q)
{
	for (int k = 0; k < 3; k++)
		if (fmax(p[k], q[k]) < nd->lo[k] || fmin(p[k], q[k]) > nd->hi[k])
			return 0;
	return 1;
}

int body_winding_step(const struct body *b, const double p[3],
		      const double q[3], int *jump)
{
	int stack[128], top = 0, sum = 0;
	stack[top++] = 0;
	while (top > 0) {
		const struct body_node *nd = &b->node[stack[--top]];
		if (!box_meets_segment(nd, p, q))
			continue;
		if (nd->count == 0) {
			stack[top++] = nd->first;
			stack[top++] = nd->first + 1;
			continue;
		}
		for (int t = nd->first; t < nd->first + nd->count; t++) {
			int c = crossing(b->tri[t], p, q);
			if (c == SEGMENT_UNSURE)
				return -1;
			sum += c;
		}
	}
	*jump = sum;
	return 0;
}

static int inside_box(const struct body *b, const double p[3])
{
	const struct body_node *r = &b->node[0];
	for (int k = 0; k < 3; k++)
		if (!(p[k] >= r->lo[k] && p[k] <= r->hi[k]))
			return 0;
	return 1;
}

/* The inside test for a sequence of nearby points (a grid's vertices in
 * order): the first point's winding number is evaluated, the next ones'
 * are carried along the segments between them (body_winding_step), and
 * evaluated afresh only where a segment is too close to call or the
 * sequence is broken (restart).  On a closed surface the exact winding
 * number changes by exactly the signed count of triangles crossed, so a
 * carried number differs from the exact one by the error the evaluation
 * at the start of the walk made, no more than evaluating it there would.
 * On a surface with holes it also changes continuously near the holes,
 * so there every point is evaluated. */
struct inside_walk {
	int on;                /* p and w hold the last point */
	double p[3], w;
};

static int walk_inside(const struct body *b, struct inside_walk *wk,
		       const double p[3])
{
	int jump;
	double w;
	if (wk->on && b->closed && body_winding_step(b, wk->p, p, &jump) == 0) {
		w = wk->w + jump;
	} else if (inside_box(b, p)) {
		w = body_winding(b, p);
	} else {
		/* seen from outside the bounding box, the whole mesh lies in
		 * a half space: its solid angle is below 2 pi (winding number
		 * below 1/2) unless the surface folds over itself in that
		 * view; skip the sum */
		wk->on = 0;
		return 0;
	}
	wk->on = 1;
	memcpy(wk->p, p, sizeof wk->p);
	wk->w = w;
	return b->orientation * w >= 0.5;
}

int body_inside(const struct body *b, const double p[3])
{
	struct inside_walk start = {0};
	return walk_inside(b, &start, p);
}

/* Whether triangle t is buried in the other shells, its test points
 * walked from the last ones of wk. */
static int is_buried(const struct body *b, int t, struct inside_walk *wk)
{
	const double *x = b->tri[t];
	double n[3], c[3], longest = 0;
	body_face_normal(b, t, n);
	for (int k = 0; k < 3; k++) {
		c[k] = (x[k] + x[3 + k] + x[6 + k]) / 3;
		longest = fmax(longest, sqrt(dist2(x + 3 * k, x + 3 * ((k + 1) % 3))));
	}
	if (!(longest > 0) || dot3(n, n) == 0)
		return 0;      /* degenerate: keep it */
	/* the centroid first: most triangles are not buried, and most of
	 * those are told by it alone */
	for (int s = 0; s < 4; s++) {
		double q[3];
		for (int k = 0; k < 3; k++) {
			double at = s == 0 ? c[k] : 0.9 * x[3 * (s - 1) + k] + 0.1 * c[k];
			q[k] = at + 1e-4 * longest * n[k];
		}
		if (!walk_inside(b, wk, q))
			return 0;
	}
	return 1;
}

/* Marks the buried triangles and counts each node's others, children
 * before parents.  The triangles are walked in leaf order (neighbours in
 * space), in chunks whatever the thread count.  When every triangle
 * would be buried (coincident shells), none is: the surface is then
 * ambiguous, and all of it is kept. */
#define BURY_CHUNK 64

static void bury(struct body *b)
{
	int nb = 0;
	int nchunks = (b->ntri + BURY_CHUNK - 1) / BURY_CHUNK;
	b->buried = xcalloc((size_t)b->ntri, 1);
	#pragma omp parallel for schedule(dynamic, 1) reduction(+:nb)
	for (int c = 0; c < nchunks; c++) {
		struct inside_walk wk = {0};
		int end = (c + 1) * BURY_CHUNK < b->ntri ? (c + 1) * BURY_CHUNK : b->ntri;
		for (int t = c * BURY_CHUNK; t < end; t++) {
			b->buried[t] = (uint8_t)is_buried(b, t, &wk);
			nb += b->buried[t];
		}
	}
	if (nb == b->ntri) {
		memset(b->buried, 0, (size_t)b->ntri);
		nb = 0;
	}
	b->nburied = nb;
	for (int at = b->nnodes - 1; at >= 0; at--) {
		struct body_node *nd = &b->node[at];
		nd->surface = 0;
		if (nd->count > 0)
			for (int t = nd->first; t < nd->first + nd->count; t++)
				nd->surface += !b->buried[t];
		else
			nd->surface = b->node[nd->first].surface +
				      b->node[nd->first + 1].surface;
	}
}


double body_depth(const struct body *b, const double p[3])
{
	struct body_hit hit;
	if (!body_inside(b, p))
		return 0;
	return body_closest(b, p, INFINITY, NULL, &hit) ? hit.dist : 0;
}

void body_face_normal(const struct body *b, int t, double n[3])
{
	const double *x = b->tri[t];
	double e1[3], e2[3];
	sub3(x + 3, x, e1);
	sub3(x + 6, x, e2);
	cross3(e1, e2, n);
	double len = sqrt(dot3(n, n));
	for (int k = 0; k < 3; k++)
		n[k] = len > 0 ? b->orientation * n[k] / len : 0;
}

/* ---- the grid's vertices ----------------------------------------------- */

static int is_cloth(uint8_t m)
{
	return (m & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE;
}

/* The half-plane of one vertex at p (see body.h); 0 when the body is
 * farther than reach.  *depth: how deep p starts inside (0 outside). */
static int vertex_plane(const struct body *b, const double p[3],
			double offset, double reach, int *hint,
			struct inside_walk *wk, float out[4], double *depth)
{
	struct body_hit hit;
	*depth = 0;
	if (!body_closest(b, p, reach, hint, &hit))
		return 0;
	double n[3];
	sub3(p, hit.point, n);
	int in = walk_inside(b, wk, p);
	double len = sqrt(dot3(n, n));
	if (len > 0) {
		double s = (in ? -1 : 1) / len;
		for (int k = 0; k < 3; k++)
			n[k] *= s;
	} else {
		body_face_normal(b, hit.tri, n);
	}
	if (in)
		*depth = hit.dist;
	out[0] = (float)n[0];
	out[1] = (float)n[1];
	out[2] = (float)n[2];
	out[3] = (float)(dot3(n, hit.point) + offset);
	return 1;
}

/* Vertices are taken in chunks of consecutive grid indices, so that the
 * hint (the previous vertex's triangle) is usually right next to the
 * answer, and the inside test walks from the previous vertex (a grid
 * neighbour); a walk restarts at every chunk and after every vertex that
 * is skipped.  The answers do not depend on the hint, and the chunks do
 * not depend on the thread count. */
#define CHUNK 256

void body_halfplanes(const struct body *b, const float *x,
		     const uint8_t *mask, size_t n, double offset,
		     double reach, float *plane, struct body_plane_stats *st)
{
	size_t cloth = 0, near = 0, inside = 0;
	double deepest = 0;
	long nchunks = (long)((n + CHUNK - 1) / CHUNK);
	#pragma omp parallel for schedule(dynamic, 16) \
		reduction(+:cloth, near, inside) reduction(max:deepest)
	for (long c = 0; c < nchunks; c++) {
		int hint = -1;
		struct inside_walk wk = {0};
		size_t end = (size_t)(c + 1) * CHUNK < n ? (size_t)(c + 1) * CHUNK : n;
		for (size_t v = (size_t)c * CHUNK; v < end; v++) {
			float *pl = plane + 4 * v;
			pl[0] = pl[1] = pl[2] = pl[3] = 0;
			if (!is_cloth(mask[v])) {
				wk.on = 0;
				continue;
			}
			cloth++;
			double p[3] = {x[3 * v], x[3 * v + 1], x[3 * v + 2]}, depth;
			if (!vertex_plane(b, p, offset, reach, &hint, &wk, pl,
					  &depth)) {
				wk.on = 0;
				continue;
			}
			near++;
			if (depth > 0) {
				inside++;
				deepest = fmax(deepest, depth);
			}
		}
	}
	if (st) {
		st->cloth = cloth;
		st->near = near;
		st->inside = inside;
		st->deepest = deepest;
	}
}

size_t body_count_inside(const struct body *b, const float *x,
			 const uint8_t *mask, size_t n, double tol,
			 float *depth, double *deepest)
{
	size_t count = 0;
	double worst = 0;
	long nchunks = (long)((n + CHUNK - 1) / CHUNK);
	#pragma omp parallel for schedule(dynamic, 16) reduction(+:count) \
		reduction(max:worst)
	for (long c = 0; c < nchunks; c++) {
		int hint = -1;
		struct inside_walk wk = {0};
		size_t end = (size_t)(c + 1) * CHUNK < n ? (size_t)(c + 1) * CHUNK : n;
		for (size_t v = (size_t)c * CHUNK; v < end; v++) {
			double p[3] = {x[3 * v], x[3 * v + 1], x[3 * v + 2]}, d = 0;
			struct body_hit hit;
			if (!is_cloth(mask[v]))
				wk.on = 0;
			else if (walk_inside(b, &wk, p) &&
				 body_closest(b, p, INFINITY, &hint, &hit))
				d = hit.dist;
			if (depth)
				depth[v] = (float)d;
			count += d > tol;
			worst = fmax(worst, d);
		}
	}
	if (deepest)
		*deepest = worst;
	return count;
}

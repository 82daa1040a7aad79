/* boundary.c - boundary flags, seam partners and the ghost band.
 *
 * Every boundary edge of the pattern visits the grid vertices near it and
 * offers itself as their nearest edge.  A boundary vertex takes the
 * nearest boundary edge of its own panel; if that edge is sewn, the vertex
 * is a seam vertex and its partner is the point at the same fraction along
 * the partner edge.  An outside vertex within the ghost band of an
 * eligible edge becomes a ghost vertex that extends that edge's triangle.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resample.h"
#include "vec.h"

struct nearest {
	float *dist;   /* pattern distance to the nearest edge so far */
	float *t;      /* fraction along that edge of the closest point */
	int *edge;     /* that edge, -1 for none */
};

/* Marks inside vertices with a neighbour (of the eight around) that is
 * outside the grid, outside the cloth or on another panel. */
static void mark_boundary(struct grid *g)
{
	uint8_t *mask = grid_find(g, "mask")->data;
	const uint16_t *panel = grid_find(g, "panel")->data;
	int w = g->width, h = g->height;
	#pragma omp parallel for schedule(static)
	for (int j = 0; j < h; j++)
		for (int i = 0; i < w; i++) {
			size_t v = (size_t)j * w + i;
			if (!(mask[v] & MASK_INSIDE))
				continue;
			for (int dj = -1; dj <= 1; dj++)
				for (int di = -1; di <= 1; di++) {
					int a = i + di, b = j + dj;
					if (a < 0 || b < 0 || a >= w || b >= h ||
					    panel[(size_t)b * w + a] != panel[v])
						mask[v] |= MASK_BOUNDARY;
				}
		}
}

static double closest_on_segment(const double a[2], const double b[2],
				 double x, double y, double *t)
{
	double dx = b[0] - a[0], dy = b[1] - a[1];
	double len2 = dx * dx + dy * dy;
	double s = len2 > 0 ? ((x - a[0]) * dx + (y - a[1]) * dy) / len2 : 0;
	s = s < 0 ? 0 : s > 1 ? 1 : s;
	*t = s;
	return hypot(a[0] + s * dx - x, a[1] + s * dy - y);
}

static int ghost_eligible(const struct pattern_edge *pe,
			  const struct resample_options *o)
{
	return o->ghost_band > 0 && (pe->partner >= 0 || o->ghost_all);
}

/* Whether edge k at distance d beats the vertex's nearest edge so far.  On
 * a tie (a vertex on a panel corner) a sewn edge wins over an open one,
 * so that the corners of a seam are sewn. */
static int closer(const struct pattern *p, int k, double d,
		  const struct nearest *nr, size_t v)
{
	if (d != nr->dist[v] || nr->edge[v] < 0)
		return d < nr->dist[v];
	return p->edges[k].partner >= 0 && p->edges[nr->edge[v]].partner < 0;
}

/* Offers edge k to the vertices around it. */
static void visit_edge(const struct grid *g, const struct pattern *p, int k,
		       const struct resample_options *o, struct nearest *nr)
{
	const struct pattern_edge *pe = &p->edges[k];
	const uint8_t *mask = grid_find(g, "mask")->data;
	const uint16_t *panel = grid_find(g, "panel")->data;
	double s = o->uv_scale, a[2] = {pe->a[0] * s, pe->a[1] * s},
	       b[2] = {pe->b[0] * s, pe->b[1] * s};
	int ghost = ghost_eligible(pe, o);
	double reach = (ghost ? o->ghost_band + 0.01 : 0) + 1.5;
	double ghost_max = o->ghost_band * g->cell * (1 + 1e-9);
	int i0 = (int)floor((fmin(a[0], b[0]) - g->origin[0]) / g->cell - reach);
	int i1 = (int)ceil((fmax(a[0], b[0]) - g->origin[0]) / g->cell + reach);
	int j0 = (int)floor((fmin(a[1], b[1]) - g->origin[1]) / g->cell - reach);
	int j1 = (int)ceil((fmax(a[1], b[1]) - g->origin[1]) / g->cell + reach);
	i0 = i0 < 0 ? 0 : i0;
	j0 = j0 < 0 ? 0 : j0;
	i1 = i1 >= g->width ? g->width - 1 : i1;
	j1 = j1 >= g->height ? g->height - 1 : j1;
	for (int j = j0; j <= j1; j++)
		for (int i = i0; i <= i1; i++) {
			size_t v = (size_t)j * g->width + i;
			int inside = mask[v] & MASK_INSIDE;
			if (inside ? !(mask[v] & MASK_BOUNDARY) ||
				     panel[v] != pe->panel : !ghost)
				continue;
			double t, d = closest_on_segment(a, b, g->origin[0] + i * g->cell,
							 g->origin[1] + j * g->cell, &t);
			if ((!inside && d > ghost_max) || !closer(p, k, d, nr, v))
				continue;
			nr->dist[v] = (float)d;
			nr->t[v] = (float)t;
			nr->edge[v] = k;
		}
}

/* The partner of a seam vertex at distance d from edge pe, its closest
 * point at fraction t: the vertex's mirror image on the other panel, the
 * point at the same fraction along the partner edge and the same distance
 * d inside the partner's panel.  Sewn together, the cloth runs from the
 * vertex across the seam to its partner over a length of 2d, the third
 * value.  Being a mirror, the relation is symmetric: the partner's nearest
 * seam vertex has its own partner within a cell of the vertex. */
static void partner_point(const struct obj_mesh *m, const struct pattern *p,
			  const struct pattern_edge *pe, double t, double d,
			  double s, float out[3])
{
	const struct pattern_edge *q = &p->edges[pe->partner];
	int same = q->v[0] == pe->v[0];
	const double *qa = same ? q->a : q->b, *qb = same ? q->b : q->a;
	double x = s * (qa[0] + t * (qb[0] - qa[0]));
	double y = s * (qa[1] + t * (qb[1] - qa[1]));
	double nx = -(qb[1] - qa[1]), ny = qb[0] - qa[0], len = hypot(nx, ny);
	double cx = 0, cy = 0;    /* centroid of the partner's triangle */
	for (int k = 0; k < 3; k++) {
		cx += s * m->vt[m->tri_vt[q->tri][k]][0] / 3;
		cy += s * m->vt[m->tri_vt[q->tri][k]][1] / 3;
	}
	if (len > 0 && nx * (cx - x) + ny * (cy - y) < 0)
		len = -len;
	if (len != 0) {
		x += d * nx / len;
		y += d * ny / len;
	}
	out[0] = (float)x;
	out[1] = (float)y;
	out[2] = (float)(2 * d);
}

/* Barycentric coordinates (of corners 1 and 2) of the point at fraction t
 * along edge pe within its triangle. */
static void edge_bary(const struct obj_mesh *m, const struct pattern_edge *pe,
		      double t, float out[2])
{
	double w[3] = {0, 0, 0};
	for (int k = 0; k < 3; k++) {
		if (m->tri_v[pe->tri][k] == pe->v[0])
			w[k] += 1 - t;
		else if (m->tri_v[pe->tri][k] == pe->v[1])
			w[k] += t;
	}
	out[0] = (float)w[1];
	out[1] = (float)w[2];
}

static void add_ghost(struct layout *l, size_t v, int k, float dist)
{
	int n = l->nghost++;
	l->ghost_vertex = xrealloc_array(l->ghost_vertex, l->nghost, sizeof(int));
	l->ghost_edge = xrealloc_array(l->ghost_edge, l->nghost, sizeof(int));
	l->ghost_dist = xrealloc_array(l->ghost_dist, l->nghost, sizeof(float));
	l->ghost_vertex[n] = (int)v;
	l->ghost_edge[n] = k;
	l->ghost_dist[n] = dist;
}

static void apply_nearest(struct layout *l, const struct obj_mesh *m,
			  const struct pattern *p, const struct nearest *nr,
			  double s)
{
	struct grid *g = &l->grid;
	uint8_t *mask = grid_find(g, "mask")->data;
	uint16_t *panel = grid_find(g, "panel")->data;
	int32_t *tri = grid_find(g, "tri")->data;
	float *bary = grid_find(g, "bary")->data;
	float *seam = grid_find(g, "seam")->data;
	size_t n = grid_vertices(g);
	for (size_t v = 0; v < n; v++) {
		int k = nr->edge[v];
		if (k < 0)
			continue;
		const struct pattern_edge *pe = &p->edges[k];
		if (mask[v] & MASK_INSIDE) {
			if (pe->partner >= 0) {
				mask[v] |= MASK_SEAM;
				partner_point(m, p, pe, nr->t[v], nr->dist[v], s,
					      &seam[3 * v]);
			}
			continue;
		}
		mask[v] = MASK_GHOST;
		panel[v] = (uint16_t)pe->panel;
		tri[v] = pe->tri;
		edge_bary(m, pe, nr->t[v], &bary[2 * v]);
		add_ghost(l, v, k, nr->dist[v]);
	}
}

void layout_boundaries(struct layout *l, const struct obj_mesh *m,
		       const struct pattern *p, const struct resample_options *o)
{
	struct grid *g = &l->grid;
	size_t n = grid_vertices(g);
	struct nearest nr = {
		.dist = xmalloc_array(n, sizeof(float)),
		.t = xmalloc_array(n, sizeof(float)),
		.edge = xmalloc_array(n, sizeof(int)),
	};
	for (size_t v = 0; v < n; v++) {
		nr.dist[v] = INFINITY;
		nr.edge[v] = -1;
	}
	mark_boundary(g);
	for (int k = 0; k < p->nedges; k++)
		visit_edge(g, p, k, o, &nr);
	apply_nearest(l, m, p, &nr, o->uv_scale);
	free(nr.dist);
	free(nr.t);
	free(nr.edge);
}

/* ---- positions -------------------------------------------------------- */

static dvec3 vpos(const struct obj_mesh *m, int i)
{
	return d3(m->v[i][0], m->v[i][1], m->v[i][2]);
}

/* The corner of triangle t at position index v, or -1. */
static int corner_of(const struct obj_mesh *m, int t, int v)
{
	for (int k = 0; k < 3; k++)
		if (m->tri_v[t][k] == v)
			return k;
	return -1;
}

/* A ghost vertex continues its triangle past the edge, turned by the
 * ghost angle about the edge towards the triangle's normal, from the
 * edge's point on the rest surface: along the surface's tangent plane
 * there, the triangle's plane when the surface is flat. */
static dvec3 ghost_position(const struct rest_surface *rs,
			    const struct pattern_edge *pe, const float *b,
			    double dist, double angle)
{
	const struct obj_mesh *m = rs->m;
	int t = pe->tri;
	int c0 = corner_of(m, t, pe->v[0]), c1 = corner_of(m, t, pe->v[1]), co = 0;
	while (co == c0 || co == c1)
		co++;
	int opp = m->tri_v[t][co];
	dvec3 nrm = d3_normalize(d3_cross(rest_surface_towards(rs, t, b, 0, 1),
					  rest_surface_towards(rs, t, b, 0, 2)));
	dvec3 tan = d3_normalize(rest_surface_towards(rs, t, b, c0, c1));
	dvec3 out = d3_normalize(d3_cross(tan, nrm));
	dvec3 foot = rest_surface_at(rs, t, b);
	if (d3_dot(out, d3_sub(foot, vpos(m, opp))) < 0)
		out = d3_scale(out, -1);
	dvec3 dir = d3_add(d3_scale(out, cos(angle)), d3_scale(nrm, sin(angle)));
	return d3_add(foot, d3_scale(dir, dist));
}

int layout_positions(struct layout *l, const struct obj_mesh *m,
		     const struct pattern *p, const struct resample_options *o,
		     struct error *e)
{
	struct grid *g = &l->grid;
	struct grid_channel *rc = grid_add(g, "rest", GRID_F32, 3, e);
	if (!rc)
		return -1;
	float *rest = rc->data;
	const uint8_t *mask = grid_find(g, "mask")->data;
	const int32_t *tri = grid_find(g, "tri")->data;
	const float *bary = grid_find(g, "bary")->data;
	long n = (long)grid_vertices(g);
	struct rest_surface rs;
	rest_surface_init(&rs, m, o->smooth);
	#pragma omp parallel for schedule(static)
	for (long v = 0; v < n; v++) {
		dvec3 x = d3(0, 0, 0);
		if (mask[v] & MASK_INSIDE)
			x = rest_surface_at(&rs, tri[v], &bary[2 * v]);
		rest[3 * v] = (float)x.x;
		rest[3 * v + 1] = (float)x.y;
		rest[3 * v + 2] = (float)x.z;
	}
	for (int k = 0; k < l->nghost; k++) {
		size_t v = (size_t)l->ghost_vertex[k];
		dvec3 x = ghost_position(&rs, &p->edges[l->ghost_edge[k]],
					 &bary[2 * v], l->ghost_dist[k],
					 o->ghost_angle);
		rest[3 * v] = (float)x.x;
		rest[3 * v + 1] = (float)x.y;
		rest[3 * v + 2] = (float)x.z;
	}
	rest_surface_free(&rs);
	return 0;
}

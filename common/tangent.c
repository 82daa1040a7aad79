/* tangent.c - vertex normals and MikkTSpace tangent frames (see tangent.h).
 *
 * MikkTSpace is defined by its reference implementation (mikktspace.c by
 * Morten S. Mikkelsen, 2011).  This is an implementation of the same
 * steps, for triangles:
 *  1. corners with equal position, normal and texture coordinates are one
 *     vertex ("welding");
 *  2. a triangle with two equal corner positions is degenerate: it takes
 *     no part in the steps below and at the end copies, at each corner,
 *     the frame of the first healthy corner of the same vertex;
 *  3. every healthy triangle gets its first-order derivatives dP/ds and
 *     dP/dt from its positions and texture coordinates, as unit vectors
 *     negated where the texture mirrors the triangle; a triangle without
 *     usable derivatives (zero texture area) may join any group;
 *  4. neighbours are triangles sharing an edge, traversed in opposite
 *     directions;
 *  5. a group is the fan of triangles around a vertex reachable through
 *     shared edges with the same texture orientation;
 *  6. a group's tangent is the mean of its triangles' dP/ds, projected
 *     onto the vertex's tangent plane, weighted by each triangle's angle
 *     at the vertex (itself measured in that plane).
 * The arithmetic is in float, as in the reference: equality of welded
 * vertices, degenerate triangles and the signs of texture areas are then
 * decided on the same numbers a renderer sees.
 */
#include "tangent.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"

enum {
	TRI_DEGENERATE = 1,  /* two corners at the same position */
	TRI_ANY = 2,         /* no usable derivatives: joins any group */
	TRI_PRESERVING = 4,  /* positive texture area: not mirrored */
};

/* MikkTSpace's default angular threshold is 180 degrees; its cosine, as
 * the reference rounds it to float, is exactly -1, so only exactly
 * opposite derivatives split a group. */
#define COMPATIBLE_COS (-1.0f)

struct tri {
	int v[3];        /* welded vertex of each corner (a corner number) */
	int nb[3];       /* triangle across edge k (corner k to k + 1), or -1 */
	int group[3];    /* group of corner k, or -1 */
	vec3 os, ot;     /* unit dP/ds and dP/dt (see step 3), or zero */
	unsigned flags;
};

struct group {
	int vertex;      /* the welded vertex it surrounds */
	int preserving;  /* texture orientation of its triangles */
	int n;
	int *tris;       /* its triangles, in order of joining */
};

struct mikk {
	const struct obj_mesh *m;
	const float (*normal)[3];
	struct tri *t;
	int *good;       /* healthy triangles, in mesh order */
	int ngood;
	struct group *g;
	int ng;
	int *members;    /* storage of every group's triangle list */
	int nmembers;
};

/* ---- corner data, in float ------------------------------------------ */

static vec3 corner_pos(const struct obj_mesh *m, int c)
{
	const double *p = m->v[m->tri_v[c / 3][c % 3]];
	return v3((float)p[0], (float)p[1], (float)p[2]);
}

static vec2 corner_uv(const struct obj_mesh *m, int c)
{
	const double *t = m->vt[m->tri_vt[c / 3][c % 3]];
	vec2 r = {(float)t[0], (float)t[1]};
	return r;
}

static int v3_equal(vec3 a, vec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* v minus its component along unit n, normalised (zero stays zero). */
static vec3 project(vec3 v, vec3 n)
{
	return v3_normalize(v3_sub(v, v3_scale(n, v3_dot(n, v))));
}

/* ---- 1. welding ----------------------------------------------------- */

struct corner_key {
	float k[8];      /* position, normal, texture coordinates */
	int corner;
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct corner_key *a = pa, *b = pb;
	for (int i = 0; i < 8; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	return (a->corner > b->corner) - (a->corner < b->corner);
}

static int same_data(const struct corner_key *a, const struct corner_key *b)
{
	for (int i = 0; i < 8; i++)
		if (a->k[i] != b->k[i])
			return 0;
	return 1;
}

/* Names every corner's vertex by the lowest corner with equal data. */
static void weld(struct mikk *M)
{
	const struct obj_mesh *m = M->m;
	size_t n = (size_t)m->ntri * 3;
	struct corner_key *key = xmalloc_array(n ? n : 1, sizeof *key);
	for (size_t c = 0; c < n; c++) {
		vec3 p = corner_pos(m, (int)c);
		vec2 uv = corner_uv(m, (int)c);
		const float *nr = M->normal[c];
		float k[8] = {p.x, p.y, p.z, nr[0], nr[1], nr[2], uv.x, uv.y};
		memcpy(key[c].k, k, sizeof k);
		key[c].corner = (int)c;
	}
	qsort(key, n, sizeof *key, cmp_key);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (!same_data(&key[i], &key[first]))
			first = i;
		int c = key[i].corner;
		M->t[c / 3].v[c % 3] = key[first].corner;
	}
	free(key);
}

/* ---- 2, 3. healthy triangles and their derivatives ------------------ */

static void derivatives(struct mikk *M, int f)
{
	struct tri *t = &M->t[f];
	vec3 p0 = corner_pos(M->m, 3 * f), p1 = corner_pos(M->m, 3 * f + 1),
	     p2 = corner_pos(M->m, 3 * f + 2);
	vec2 t0 = corner_uv(M->m, 3 * f), t1 = corner_uv(M->m, 3 * f + 1),
	     t2 = corner_uv(M->m, 3 * f + 2);
	float t21x = t1.x - t0.x, t21y = t1.y - t0.y;
	float t31x = t2.x - t0.x, t31y = t2.y - t0.y;
	vec3 d1 = v3_sub(p1, p0), d2 = v3_sub(p2, p0);
	float area = t21x * t31y - t21y * t31x;   /* twice the signed area */
	vec3 os = v3_sub(v3_scale(d1, t31y), v3_scale(d2, t21y));
	vec3 ot = v3_add(v3_scale(d1, -t31x), v3_scale(d2, t21x));
	t->os = t->ot = v3(0, 0, 0);
	t->flags |= TRI_ANY | (area > 0 ? TRI_PRESERVING : 0);
	if (!(fabsf(area) > FLT_MIN))
		return;
	float sign = area > 0 ? 1.0f : -1.0f;
	float los = v3_norm(os), lot = v3_norm(ot);
	if (los > FLT_MIN)
		t->os = v3_scale(os, sign / los);
	if (lot > FLT_MIN)
		t->ot = v3_scale(ot, sign / lot);
	/* usable when both derivatives have a length per texture area */
	if (los / fabsf(area) > FLT_MIN && lot / fabsf(area) > FLT_MIN)
		t->flags &= ~(unsigned)TRI_ANY;
}

static void classify(struct mikk *M)
{
	for (int f = 0; f < M->m->ntri; f++) {
		struct tri *t = &M->t[f];
		vec3 p[3];
		for (int k = 0; k < 3; k++) {
			p[k] = corner_pos(M->m, t->v[k]);
			t->nb[k] = t->group[k] = -1;
		}
		t->flags = 0;
		if (v3_equal(p[0], p[1]) || v3_equal(p[0], p[2]) ||
		    v3_equal(p[1], p[2])) {
			t->flags = TRI_DEGENERATE;
			continue;
		}
		M->good[M->ngood++] = f;
		derivatives(M, f);
	}
}

/* ---- 4. neighbours -------------------------------------------------- */

struct edge {
	int lo, hi;      /* welded vertices, lower first */
	int tri, k;      /* triangle and edge number (corner k to k + 1) */
};

static int cmp_edge(const void *pa, const void *pb)
{
	const struct edge *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return (a->tri > b->tri) - (a->tri < b->tri);
}

/* Pairs each edge with the first unpaired edge of a later triangle (in
 * the order above) that runs the other way: on a manifold mesh the one
 * neighbour; on an edge shared by more triangles the reference's choice. */
static void neighbours(struct mikk *M)
{
	size_t n = (size_t)M->ngood * 3;
	struct edge *e = xmalloc_array(n ? n : 1, sizeof *e);
	for (int g = 0; g < M->ngood; g++)
		for (int k = 0; k < 3; k++) {
			const struct tri *t = &M->t[M->good[g]];
			int a = t->v[k], b = t->v[(k + 1) % 3];
			e[3 * g + k] = (struct edge){a < b ? a : b, a < b ? b : a,
						     M->good[g], k};
		}
	qsort(e, n, sizeof *e, cmp_edge);
	for (size_t i = 0; i < n; i++) {
		struct tri *f = &M->t[e[i].tri];
		if (f->nb[e[i].k] >= 0)
			continue;
		int a = f->v[e[i].k], b = f->v[(e[i].k + 1) % 3];
		for (size_t j = i + 1; j < n && e[j].lo == e[i].lo &&
		     e[j].hi == e[i].hi; j++) {
			struct tri *t = &M->t[e[j].tri];
			int k = e[j].k;
			if (t->v[k] == b && t->v[(k + 1) % 3] == a && t->nb[k] < 0) {
				f->nb[e[i].k] = e[j].tri;
				t->nb[k] = e[i].tri;
				break;
			}
		}
	}
	free(e);
}

/* ---- 5. groups ------------------------------------------------------ */

static int corner_of(const struct tri *t, int vertex)
{
	for (int k = 0; k < 3; k++)
		if (t->v[k] == vertex)
			return k;
	return -1;
}

static void join(struct mikk *M, int gi, int f, int k)
{
	struct group *g = &M->g[gi];
	g->tris[g->n++] = f;
	M->nmembers++;
	M->t[f].group[k] = gi;
}

/* Adds triangle f to group gi and spreads through its two edges at the
 * group's vertex.  The depth is bounded by the vertex's valence. */
static void spread(struct mikk *M, int gi, int f)
{
	struct tri *t = &M->t[f];
	struct group *g = &M->g[gi];
	int k = corner_of(t, g->vertex);
	if (k < 0 || t->group[k] >= 0)
		return;
	/* The first group to reach a triangle without derivatives decides
	 * its orientation (the reference's one order dependence). */
	if ((t->flags & TRI_ANY) && t->group[0] < 0 && t->group[1] < 0 &&
	    t->group[2] < 0)
		t->flags = (t->flags & ~(unsigned)TRI_PRESERVING) |
			   (g->preserving ? TRI_PRESERVING : 0);
	if (!(t->flags & TRI_PRESERVING) != !g->preserving)
		return;
	join(M, gi, f, k);
	if (t->nb[k] >= 0)
		spread(M, gi, t->nb[k]);
	if (t->nb[(k + 2) % 3] >= 0)
		spread(M, gi, t->nb[(k + 2) % 3]);
}

static void build_groups(struct mikk *M)
{
	for (int i = 0; i < M->ngood; i++) {
		int f = M->good[i];
		struct tri *t = &M->t[f];
		for (int k = 0; k < 3; k++) {
			if ((t->flags & TRI_ANY) || t->group[k] >= 0)
				continue;
			struct group *g = &M->g[M->ng];
			g->vertex = t->v[k];
			g->preserving = (t->flags & TRI_PRESERVING) != 0;
			g->n = 0;
			g->tris = M->members + M->nmembers;
			join(M, M->ng++, f, k);
			int left = t->nb[k], right = t->nb[(k + 2) % 3];
			if (left >= 0)
				spread(M, M->ng - 1, left);
			if (right >= 0)
				spread(M, M->ng - 1, right);
		}
	}
}

/* ---- 6. tangents ---------------------------------------------------- */

static vec3 corner_normal(const struct mikk *M, int c)
{
	return v3_load(M->normal[c]);
}

/* The angle-weighted mean of the projected dP/ds of triangles tris[]
 * (those with derivatives) at the given vertex. */
static vec3 mean_tangent(const struct mikk *M, const int *tris, int n,
			 int vertex)
{
	vec3 sum = v3(0, 0, 0);
	for (int i = 0; i < n; i++) {
		const struct tri *t = &M->t[tris[i]];
		if (t->flags & TRI_ANY)
			continue;
		int k = corner_of(t, vertex);
		vec3 nr = corner_normal(M, t->v[k]);
		vec3 os = project(t->os, nr);
		vec3 p = corner_pos(M->m, t->v[k]);
		vec3 prev = project(v3_sub(corner_pos(M->m, t->v[(k + 2) % 3]), p), nr);
		vec3 next = project(v3_sub(corner_pos(M->m, t->v[(k + 1) % 3]), p), nr);
		float c = v3_dot(prev, next);
		c = c > 1 ? 1 : c < -1 ? -1 : c;
		sum = v3_add(sum, v3_scale(os, (float)acos(c)));
	}
	return v3_normalize(sum);
}

/* The triangles of group g whose derivatives are compatible with f's at
 * the group's vertex, in increasing order, into out[]; returns their
 * count. */
static int compatible(const struct mikk *M, const struct group *g, int f,
		      int *out)
{
	const struct tri *tf = &M->t[f];
	vec3 nr = corner_normal(M, g->vertex);
	vec3 os = project(tf->os, nr), ot = project(tf->ot, nr);
	int n = 0;
	for (int i = 0; i < g->n; i++) {
		const struct tri *tt = &M->t[g->tris[i]];
		vec3 os2 = project(tt->os, nr), ot2 = project(tt->ot, nr);
		int any = ((tf->flags | tt->flags) & TRI_ANY) != 0;
		if (any || g->tris[i] == f ||
		    (v3_dot(os, os2) > COMPATIBLE_COS &&
		     v3_dot(ot, ot2) > COMPATIBLE_COS))
			out[n++] = g->tris[i];
	}
	for (int i = 1; i < n; i++)        /* insertion sort: fans are small */
		for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
			int s = out[j];
			out[j] = out[j - 1];
			out[j - 1] = s;
		}
	return n;
}

/* Distinct member lists of one group and their tangents. */
struct subgroups {
	int n, cap;
	int *start, *len;
	vec3 *tangent;
	int *buf;
	size_t nbuf, capbuf;
};

static int find_subgroup(const struct subgroups *s, const int *mem, int n)
{
	for (int i = 0; i < s->n; i++)
		if (s->len[i] == n &&
		    memcmp(s->buf + s->start[i], mem, (size_t)n * sizeof *mem) == 0)
			return i;
	return -1;
}

static int add_subgroup(struct subgroups *s, const int *mem, int n, vec3 t)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->start = xrealloc_array(s->start, (size_t)s->cap, sizeof *s->start);
		s->len = xrealloc_array(s->len, (size_t)s->cap, sizeof *s->len);
		s->tangent = xrealloc_array(s->tangent, (size_t)s->cap, sizeof *s->tangent);
	}
	while (s->nbuf + (size_t)n > s->capbuf) {
		s->capbuf = s->capbuf ? 2 * s->capbuf : 64;
		s->buf = xrealloc_array(s->buf, s->capbuf, sizeof *s->buf);
	}
	memcpy(s->buf + s->nbuf, mem, (size_t)n * sizeof *mem);
	s->start[s->n] = (int)s->nbuf;
	s->len[s->n] = n;
	s->tangent[s->n] = t;
	s->nbuf += (size_t)n;
	return s->n++;
}

static void group_tangents(const struct mikk *M, float (*tangent)[4])
{
	int maxn = 1;
	for (int gi = 0; gi < M->ng; gi++)
		if (M->g[gi].n > maxn)
			maxn = M->g[gi].n;
	int *mem = xmalloc_array((size_t)maxn, sizeof *mem);
	struct subgroups s = {0};
	for (int gi = 0; gi < M->ng; gi++) {
		const struct group *g = &M->g[gi];
		s.n = 0;
		s.nbuf = 0;
		for (int i = 0; i < g->n; i++) {
			int f = g->tris[i];
			int n = compatible(M, g, f, mem);
			int si = find_subgroup(&s, mem, n);
			if (si < 0)
				si = add_subgroup(&s, mem, n,
						  mean_tangent(M, mem, n, g->vertex));
			int k = 0;
			while (M->t[f].group[k] != gi)
				k++;
			float *out = tangent[3 * f + k];
			v3_store(out, s.tangent[si]);
			out[3] = g->preserving ? 1.0f : -1.0f;
		}
	}
	free(s.start);
	free(s.len);
	free(s.tangent);
	free(s.buf);
	free(mem);
}

/* Step 2's end: a degenerate triangle's corner copies the frame of the
 * first healthy corner (in mesh order) of the same welded vertex. */
static void degenerate_copies(const struct mikk *M, float (*tangent)[4])
{
	size_t n = (size_t)M->m->ntri * 3;
	int *first = xmalloc_array(n, sizeof *first);
	for (size_t c = 0; c < n; c++)
		first[c] = -1;
	for (int g = 0; g < M->ngood; g++)
		for (int k = 0; k < 3; k++) {
			int f = M->good[g], v = M->t[f].v[k];
			if (first[v] < 0)
				first[v] = 3 * f + k;
		}
	for (int f = 0; f < M->m->ntri; f++) {
		if (!(M->t[f].flags & TRI_DEGENERATE))
			continue;
		for (int k = 0; k < 3; k++) {
			int src = first[M->t[f].v[k]];
			if (src >= 0)
				memcpy(tangent[3 * f + k], tangent[src], sizeof tangent[0]);
		}
	}
	free(first);
}

void mikk_tangents(const struct obj_mesh *m, const float (*normal)[3],
		   float (*tangent)[4])
{
	size_t nt = m->ntri > 0 ? (size_t)m->ntri : 1;
	struct mikk M = {
		.m = m,
		.normal = normal,
		.t = xmalloc_array(nt, sizeof(struct tri)),
		.good = xmalloc_array(nt, sizeof(int)),
		.g = xmalloc_array(nt * 3, sizeof(struct group)),
		.members = xmalloc_array(nt * 3, sizeof(int)),
	};
	/* A corner no group reaches keeps the reference's default frame. */
	for (int c = 0; c < 3 * m->ntri; c++) {
		tangent[c][0] = 1;
		tangent[c][1] = tangent[c][2] = 0;
		tangent[c][3] = -1;
	}
	weld(&M);
	classify(&M);
	neighbours(&M);
	build_groups(&M);
	group_tangents(&M, tangent);
	degenerate_copies(&M, tangent);
	free(M.t);
	free(M.good);
	free(M.g);
	free(M.members);
}

/* ---- smooth vertex normals ----------------------------------------- */

static dvec3 dpos(const struct obj_mesh *m, int v)
{
	return d3(m->v[v][0], m->v[v][1], m->v[v][2]);
}

void mesh_vertex_normals(const struct obj_mesh *m, double (*normal)[3])
{
	memset(normal, 0, (size_t)m->nv * sizeof normal[0]);
	for (int t = 0; t < m->ntri; t++) {
		dvec3 p[3];
		for (int k = 0; k < 3; k++)
			p[k] = dpos(m, m->tri_v[t][k]);
		dvec3 fn = d3_normalize(d3_cross(d3_sub(p[1], p[0]),
						 d3_sub(p[2], p[0])));
		for (int k = 0; k < 3; k++) {
			dvec3 a = d3_normalize(d3_sub(p[(k + 2) % 3], p[k]));
			dvec3 b = d3_normalize(d3_sub(p[(k + 1) % 3], p[k]));
			double c = d3_dot(a, b);
			double w = acos(c > 1 ? 1 : c < -1 ? -1 : c);
			double *n = normal[m->tri_v[t][k]];
			n[0] += w * fn.x;
			n[1] += w * fn.y;
			n[2] += w * fn.z;
		}
	}
	for (int v = 0; v < m->nv; v++) {
		dvec3 n = d3_normalize(d3(normal[v][0], normal[v][1], normal[v][2]));
		normal[v][0] = n.x;
		normal[v][1] = n.y;
		normal[v][2] = n.z;
	}
}

void mesh_corner_normals(const struct obj_mesh *m, float (*normal)[3])
{
	double (*vn)[3] = xmalloc_array(m->nv > 0 ? (size_t)m->nv : 1, sizeof *vn);
	mesh_vertex_normals(m, vn);
	for (int t = 0; t < m->ntri; t++)
		for (int k = 0; k < 3; k++)
			for (int a = 0; a < 3; a++)
				normal[3 * t + k][a] = (float)vn[m->tri_v[t][k]][a];
	free(vn);
}

/* rest_surface.c - the rest surface over the coarse mesh: its flat
 * triangles, or (--smooth) Phong tessellation of them with a shape
 * factor per vertex.
 *
 * Phong tessellation (Boubekeur and Alexa, SIGGRAPH Asia 2008) moves the
 * point p of a triangle at barycentric weights b towards the tangent
 * plane of each corner (position v_i, normal n_i), by that corner's
 * weight and shape factor alpha_i:
 *      p* = p - sum_i alpha_i b_i ((p - v_i) . n_i) n_i
 * (the paper's one alpha for all corners is alpha_i = alpha).  It passes
 * through the corners, and along an edge depends only on that edge's
 * two corners, so neighbouring triangles (and the two panels of a seam,
 * which share their 3D vertices) meet without a gap.  The normals are
 * the angle-weighted means of the normals of the triangles around each
 * coarse vertex.
 *
 * The shape factor does two things.
 *
 * No ridge along the coarse edges.  The edge from v_i to v_j (e = v_j -
 * v_i) leaves v_i along e - alpha_i (e.n_i) n_i + alpha_j (e.n_j) n_j,
 * which lies in v_i's tangent plane when (1 - alpha) e.n_i + alpha
 * (e.n_j)(n_i.n_j) = 0; on an arc (e.n_j = -e.n_i) that is alpha = 1 /
 * (1 + n_i.n_j): 1/2 for a gentle bend, a little more for a sharper one.
 * Then the patches around a vertex leave it in one plane, and on a
 * cylinder of flat strips neighbouring strips meet with one tangent plane
 * all along their edge: the crease is gone, not only softened.  The
 * paper's 3/4 turns the tangents half as far again as the arc does and
 * leaves a ridge at every edge (a tube of 16 strips at 512 cells: 8.6
 * degrees between grid triangles across an edge, 1.2 inside a triangle;
 * with the factor here 0.86 and 0.86).  A vertex takes
 * the mean of 1 / (1 + n_i.n_j) over its edges, each weighted by (e.n_i
 * / |e|)^2: the edges along which the surface does not bend do not vote,
 * and a flat vertex takes 1/2.
 *
 * Folds stay flat.  Where the triangles around a vertex turn far from
 * its normal the coarse mesh does not sample a smooth surface there: it
 * folds (the knife pleats and drapes of a real garment, whose layers lie
 * millimetres apart), the mean normal means little, and a smooth patch
 * would bulge through the next layer.  So the factor falls linearly with
 * the largest angle between a vertex's normal and its triangles' normals,
 * from full at SMOOTH_DEG (15: triangles up to 30 degrees apart; a skirt
 * of 16 facets turns 22.5 degrees an edge, 11.25 from each normal) to 0
 * at FLAT_DEG (30: triangles 60 degrees apart).  Linearly, so that the
 * surface moves continuously with the mesh through an animation.  On the
 * Berkeley Garment Library's draped dress, isotropic T-shirt and coarse
 * T-shirt, resampled at 256 to 2048 cells, the sampled rest then has
 * exactly the intersecting grid triangles that the flat triangles have
 * (at 1024: 9, 6 and 0), where the paper's 3/4 everywhere had 1019, 29
 * and 1025, and a ramp from 20 to 40 degrees instead still 41 on the dress.
 * An open boundary has the normals of the triangles on one side only:
 * where it runs across a bend (half a cylinder cut along its length) the
 * strip along it keeps a part of its crease.
 *
 * Why Phong and not PN triangles or a subdivision limit: it interpolates
 * the coarse vertices (a subdivision limit surface does not: it shrinks
 * a garment by a fraction of its curvature times the edge length
 * squared, into the body where the garment wraps it), a cubic PN patch
 * bulges more for the same normals and meets its neighbours with no
 * better continuity, and it needs nothing but the triangle and three
 * corners, so the ghost band and seams follow it through the same
 * evaluation. */
#include <math.h>
#include <stdlib.h>

#include "rest_surface.h"
#include "util.h"

#define SMOOTH_DEG 15.0
#define FLAT_DEG 30.0

static dvec3 vpos(const struct obj_mesh *m, int i)
{
	return d3(m->v[i][0], m->v[i][1], m->v[i][2]);
}

static dvec3 face_normal(const struct obj_mesh *m, int t)
{
	dvec3 x0 = vpos(m, m->tri_v[t][0]), x1 = vpos(m, m->tri_v[t][1]),
	      x2 = vpos(m, m->tri_v[t][2]);
	return d3_normalize(d3_cross(d3_sub(x1, x0), d3_sub(x2, x0)));
}

static double angle_of(double c)
{
	return acos(c < -1 ? -1 : c > 1 ? 1 : c);
}

/* The angle of triangle t at corner k. */
static double corner_angle(const struct obj_mesh *m, int t, int k)
{
	dvec3 o = vpos(m, m->tri_v[t][k]);
	dvec3 a = d3_normalize(d3_sub(vpos(m, m->tri_v[t][(k + 1) % 3]), o));
	dvec3 b = d3_normalize(d3_sub(vpos(m, m->tri_v[t][(k + 2) % 3]), o));
	return angle_of(d3_dot(a, b));
}

static dvec3 *vertex_normals(const struct obj_mesh *m)
{
	dvec3 *n = xcalloc((size_t)m->nv + 1, sizeof *n);
	for (int t = 0; t < m->ntri; t++) {
		dvec3 f = face_normal(m, t);
		for (int k = 0; k < 3; k++) {
			int v = m->tri_v[t][k];
			n[v] = d3_add(n[v], d3_scale(f, corner_angle(m, t, k)));
		}
	}
	for (int v = 0; v < m->nv; v++)
		n[v] = d3_normalize(n[v]);
	return n;
}

/* The shape factor of every vertex (see the top of the file).  An edge
 * inside the mesh is seen from both its triangles, an open one once. */
static double *shape_factors(const struct obj_mesh *m, const dvec3 *n)
{
	size_t nv = (size_t)m->nv + 1;
	double *turn = xcalloc(nv, sizeof *turn), *num = xcalloc(nv, sizeof *num),
	       *den = xcalloc(nv, sizeof *den);
	for (int t = 0; t < m->ntri; t++) {
		dvec3 f = face_normal(m, t);
		for (int k = 0; k < 3; k++) {
			int i = m->tri_v[t][k];
			/* a zero normal (a degenerate triangle) is 90 degrees
			 * from everything: flat */
			turn[i] = fmax(turn[i], angle_of(d3_dot(f, n[i])));
			for (int r = 1; r <= 2; r++) {
				int j = m->tri_v[t][(k + r) % 3];
				dvec3 e = d3_normalize(d3_sub(vpos(m, j), vpos(m, i)));
				double w = d3_dot(e, n[i]) * d3_dot(e, n[i]);
				num[i] += w / (1 + fmax(0, d3_dot(n[i], n[j])));
				den[i] += w;
			}
		}
	}
	const double deg = 3.14159265358979323846 / 180;
	for (size_t v = 0; v < nv; v++) {
		double a = den[v] > 0 ? num[v] / den[v] : 0.5;
		double s = (FLAT_DEG * deg - turn[v]) / ((FLAT_DEG - SMOOTH_DEG) * deg);
		num[v] = a * (s < 0 ? 0 : s > 1 ? 1 : s);
	}
	free(turn);
	free(den);
	return num;
}

void rest_surface_init(struct rest_surface *rs, const struct obj_mesh *m,
		       int smooth)
{
	rs->m = m;
	rs->normal = NULL;
	rs->alpha = NULL;
	if (!smooth)
		return;
	rs->normal = vertex_normals(m);
	rs->alpha = shape_factors(m, rs->normal);
}

void rest_surface_free(struct rest_surface *rs)
{
	free(rs->normal);
	free(rs->alpha);
	rs->normal = NULL;
	rs->alpha = NULL;
}

/* The flat point of triangle t at weights w, its corners into x. */
static dvec3 flat_point(const struct obj_mesh *m, int t, const double w[3],
			dvec3 x[3])
{
	dvec3 p = d3(0, 0, 0);
	for (int k = 0; k < 3; k++) {
		x[k] = vpos(m, m->tri_v[t][k]);
		p = d3_add(p, d3_scale(x[k], w[k]));
	}
	return p;
}

dvec3 rest_surface_at(const struct rest_surface *rs, int t, const float *b)
{
	const struct obj_mesh *m = rs->m;
	double w[3] = {1.0 - b[0] - b[1], b[0], b[1]};
	dvec3 x[3], p = flat_point(m, t, w, x);
	if (!rs->normal)
		return p;
	dvec3 d = d3(0, 0, 0);
	for (int k = 0; k < 3; k++) {
		int v = m->tri_v[t][k];
		dvec3 n = rs->normal[v];
		d = d3_add(d, d3_scale(n, -rs->alpha[v] * w[k] *
					  d3_dot(d3_sub(p, x[k]), n)));
	}
	return d3_add(p, d);
}

dvec3 rest_surface_towards(const struct rest_surface *rs, int t,
			   const float *b, int from, int to)
{
	const struct obj_mesh *m = rs->m;
	double w[3] = {1.0 - b[0] - b[1], b[0], b[1]};
	dvec3 x[3], p = flat_point(m, t, w, x);
	dvec3 dp = d3_sub(x[to], x[from]);
	if (!rs->normal)
		return dp;
	/* d/ds of p - sum alpha_k w_k ((p - x_k) . n_k) n_k, with w_to
	 * growing and w_from shrinking at unit rate */
	dvec3 d = dp;
	for (int k = 0; k < 3; k++) {
		int v = m->tri_v[t][k];
		dvec3 n = rs->normal[v];
		double dw = (k == to) - (k == from);
		double s = dw * d3_dot(d3_sub(p, x[k]), n) + w[k] * d3_dot(dp, n);
		d = d3_sub(d, d3_scale(n, rs->alpha[v] * s));
	}
	return d;
}

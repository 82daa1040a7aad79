/* rest_surface.c - the rest surface over the coarse mesh: its flat triangles,
 * or (--smooth) Phong tessellation of them.
 *
 * Phong tessellation (Boubekeur and Alexa, SIGGRAPH Asia 2008): the
 * point p of a triangle at barycentric b is projected onto the tangent
 * plane of each corner (its position v_i and normal n_i), the three
 * projections are interpolated with the same b, and the result blended
 * with p by the shape factor alpha:
 *      p* = (1 - alpha) p + alpha sum_i b_i (p - ((p - v_i) . n_i) n_i)
 * A quadratic patch that passes through the corners with their normals;
 * along an edge it depends only on that edge's corners, so neighbouring
 * triangles (and the two panels of a seam, which share their 3D
 * vertices) meet without a gap.  alpha = 3/4, the paper's choice.
 *
 * Why Phong and not PN triangles or a subdivision limit: it interpolates
 * the coarse vertices (a subdivision limit surface does not: it shrinks
 * a garment by a fraction of its curvature times the edge length
 * squared, off the input's shape), it bulges less than a cubic PN patch
 * for the same normals (its displacement is at most alpha/4 of the
 * corners' tangent-plane distances), and it needs nothing but the
 * triangle and three normals, so the ghost band and seams follow it
 * through the same evaluation.
 *
 * Corner normals: the angle-weighted mean of the normals of the
 * triangles around a vertex.  Where the coarse mesh has a crease (the
 * knife pleats of a draped garment fold a triangle back onto its
 * neighbour) the mean means nothing, so a corner whose triangle's normal
 * is more than 45 degrees from its vertex normal uses the triangle's own
 * normal: that corner stays flat. */
#include <math.h>
#include <stdlib.h>

#include "rest_surface.h"
#include "util.h"

#define PHONG_ALPHA 0.75
#define CREASE_COS 0.70710678118654752   /* cos 45 degrees */

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

/* The angle of triangle t at corner k. */
static double corner_angle(const struct obj_mesh *m, int t, int k)
{
	dvec3 o = vpos(m, m->tri_v[t][k]);
	dvec3 a = d3_normalize(d3_sub(vpos(m, m->tri_v[t][(k + 1) % 3]), o));
	dvec3 b = d3_normalize(d3_sub(vpos(m, m->tri_v[t][(k + 2) % 3]), o));
	double c = d3_dot(a, b);
	return acos(c < -1 ? -1 : c > 1 ? 1 : c);
}

void rest_surface_init(struct rest_surface *rs, const struct obj_mesh *m,
		       int smooth)
{
	rs->m = m;
	rs->normal = NULL;
	if (!smooth)
		return;
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
	rs->normal = n;
}

void rest_surface_free(struct rest_surface *rs)
{
	free(rs->normal);
	rs->normal = NULL;
}

dvec3 rest_surface_at(const struct rest_surface *rs, int t, const float *b)
{
	const struct obj_mesh *m = rs->m;
	double w[3] = {1.0 - b[0] - b[1], b[0], b[1]};
	dvec3 x[3], p = d3(0, 0, 0);
	for (int k = 0; k < 3; k++) {
		x[k] = vpos(m, m->tri_v[t][k]);
		p = d3_add(p, d3_scale(x[k], w[k]));
	}
	if (!rs->normal)
		return p;
	dvec3 f = face_normal(m, t), q = d3(0, 0, 0);
	for (int k = 0; k < 3; k++) {
		dvec3 n = rs->normal[m->tri_v[t][k]];
		if (!(d3_dot(n, f) >= CREASE_COS))
			n = f;
		dvec3 proj = d3_sub(p, d3_scale(n, d3_dot(d3_sub(p, x[k]), n)));
		q = d3_add(q, d3_scale(proj, w[k]));
	}
	return d3_add(d3_scale(p, 1 - PHONG_ALPHA), d3_scale(q, PHONG_ALPHA));
}

/* closest.c - closest points between points, segments and triangles (see
 * closest.h). */
#include "closest.h"

#include <math.h>
#include <string.h>

/* ---- closest point on a triangle --------------------------------------- */

/* Closest point of segment ab to p; returns the squared distance. */
double closest_on_segment(const double *p, const double *a, const double *b,
			  double *out)
{
	double ab[3], ap[3];
	sub3(b, a, ab);
	sub3(p, a, ap);
	double len2 = dot3(ab, ab);
	double t = len2 > 0 ? dot3(ap, ab) / len2 : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	for (int k = 0; k < 3; k++)
		out[k] = a[k] + t * ab[k];
	return dist2(p, out);
}

/* The corner itself as the closest point; returns the squared distance. */
static double at_corner(const double *p, const double *corner, double *out)
{
	memcpy(out, corner, 3 * sizeof *out);
	return dist2(p, out);
}

/* The nearest of the three edges: the closest point of a degenerate
 * triangle (a segment or a point). */
static double nearest_edge(const double *p, const double *t, double *out)
{
	double best = INFINITY, q[3];
	for (int k = 0; k < 3; k++) {
		double d = closest_on_segment(p, t + 3 * k, t + 3 * ((k + 1) % 3), q);
		if (d < best) {
			best = d;
			memcpy(out, q, sizeof q);
		}
	}
	return best;
}

/* Closest point of triangle t (a, b, c) to p, by the Voronoi regions of
 * its corners, edges and face (Ericson, Real-Time Collision Detection,
 * 5.1.5).  Returns the squared distance. */
double closest_on_triangle(const double *p, const double *t, double *out)
{
	const double *a = t, *b = t + 3, *c = t + 6;
	double ab[3], ac[3], ap[3], bp[3], cp[3];
	sub3(b, a, ab);
	sub3(c, a, ac);
	sub3(p, a, ap);
	double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
	if (d1 <= 0 && d2 <= 0)
		return at_corner(p, a, out);
	sub3(p, b, bp);
	double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
	if (d3 >= 0 && d4 <= d3)
		return at_corner(p, b, out);
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0)
		return closest_on_segment(p, a, b, out);
	sub3(p, c, cp);
	double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
	if (d6 >= 0 && d5 <= d6)
		return at_corner(p, c, out);
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0)
		return closest_on_segment(p, a, c, out);
	double va = d3 * d6 - d5 * d4;
	if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
		return closest_on_segment(p, b, c, out);
	double sum = va + vb + vc;
	if (!(sum > 0))
		return nearest_edge(p, t, out);
	double v = vb / sum, w = vc / sum;
	for (int k = 0; k < 3; k++)
		out[k] = a[k] + ab[k] * v + ac[k] * w;
	double d = dist2(p, out);
	/* sum is the squared area times 4 (|ab x ac|^2); on a sliver, whose
	 * sum is tiny beside |ab|^2 |ac|^2, v and w are quotients of
	 * cancelling products and the face point can be off the triangle:
	 * the edges, exact there, bound the distance from above */
	if (sum < 1e-6 * dot3(ab, ab) * dot3(ac, ac)) {
		double q[3], e = nearest_edge(p, t, q);
		if (e < d) {
			memcpy(out, q, sizeof q);
			d = e;
		}
	}
	return d;
}


static double clamp01(double t)
{
	return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* Ericson's closest points of two segments (5.1.9): the parameters s on
 * p0p1 and t on q0q1 of the closest pair, each clamped to its segment,
 * the one clamped first recomputed from the other.  A segment of zero
 * length is its point. */
double segments_distance2(const double *p0, const double *p1,
			  const double *q0, const double *q1)
{
	double d1[3], d2[3], r[3], c1[3], c2[3];
	sub3(p1, p0, d1);
	sub3(q1, q0, d2);
	sub3(p0, q0, r);
	double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r);
	double s, t;
	if (a <= 0 && e <= 0) {
		s = t = 0;
	} else if (a <= 0) {
		s = 0;
		t = clamp01(f / e);
	} else {
		double c = dot3(d1, r);
		if (e <= 0) {
			t = 0;
			s = clamp01(-c / a);
		} else {
			double b = dot3(d1, d2), denom = a * e - b * b;
			/* parallel segments (denom 0): any s will do; take 0 */
			s = denom > 0 ? clamp01((b * f - c * e) / denom) : 0;
			t = (b * s + f) / e;
			if (t < 0) {
				t = 0;
				s = clamp01(-c / a);
			} else if (t > 1) {
				t = 1;
				s = clamp01((b - c) / a);
			}
		}
	}
	for (int k = 0; k < 3; k++) {
		c1[k] = p0[k] + s * d1[k];
		c2[k] = q0[k] + t * d2[k];
	}
	return dist2(c1, c2);
}

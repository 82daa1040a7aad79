/* closest.h - closest points between points, segments and triangles in
 * double precision (Ericson, Real-Time Collision Detection, chapter 5),
 * for the body's closest-point queries (body.c) and the self-collision
 * step bounds (safe.c).  Points are 3 doubles. */
#ifndef PLEAT_CLOSEST_H
#define PLEAT_CLOSEST_H

static inline void sub3(const double *a, const double *b, double *r)
{
	r[0] = a[0] - b[0];
	r[1] = a[1] - b[1];
	r[2] = a[2] - b[2];
}

static inline double dot3(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const double *a, const double *b, double *r)
{
	r[0] = a[1] * b[2] - a[2] * b[1];
	r[1] = a[2] * b[0] - a[0] * b[2];
	r[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double dist2(const double *a, const double *b)
{
	double d[3];
	sub3(a, b, d);
	return dot3(d, d);
}

/* Closest point of segment ab to p into out; returns the squared
 * distance. */
double closest_on_segment(const double *p, const double *a, const double *b,
			  double *out);

/* Closest point of triangle t (corners a, b, c: 9 doubles) to p into
 * out, by the Voronoi regions of its corners, edges and face; a
 * degenerate triangle (a segment or a point) by its nearest edge.
 * Returns the squared distance. */
double closest_on_triangle(const double *p, const double *t, double *out);

/* The squared distance between segments p0p1 and q0q1 (either may be a
 * point). */
double segments_distance2(const double *p0, const double *p1,
			  const double *q0, const double *q1);

#endif

/* inflate.h - inflation and filling (Wang 2021, section 6.3), per vertex,
 * for the CPU and the GPU alike.
 *
 * Three effects, each with its strength in SI units:
 *
 *  - AIR (Eq. 15): a pressure P (Pa) doing work on the enclosed volume,
 *    energy -P V(x).  V is the sum over the grid's triangles (v, a, b),
 *    counter-clockwise in the pattern, of det(x_v - o, x_a - o, x_b - o)
 *    / 6 about a fixed origin o, so its gradient on a vertex with a
 *    closed ring is the area-weighted normal of the ring
 *      a_v = 1/3 sum_r A_r n_r = 1/6 sum_r (x_a - x_v) x (x_b - x_v),
 *    computed from the current positions of the six ring neighbours.  A
 *    triangle's normal points out where the pattern's orientation and the
 *    garment's agree (panels laid out as seen from outside).  V is a
 *    volume, independent of o, only for a closed surface, and the sewn
 *    panels of a garment close it only up to the seams' gaps: at a panel's
 *    edge the exact gradient has a term that depends on o (air_grad), and
 *    the seam partner on the other panel has the opposite one.  We keep
 *    the exact gradient, so that the step control's energies agree with
 *    the steps (with the area-weighted normals alone the solve stalls
 *    near the minimum, the energy rising where the forces say descend);
 *    the price is a pair of opposite forces of about P |x - o| h / 6 on
 *    every seam pair, which the seam springs hold (h the cell size; a
 *    seam 0.3 m from o opens by about 1 micrometre at 100 Pa with 1 mm
 *    cells and cotton's 5000 N/m seams).
 *
 *  - INFLATE, fixed normal (Eq. 16): energy -P sum_i a_i . (x_i - r_i),
 *    a_i the area-weighted normal of the rest shape r (the coarse
 *    surface), fixed for the whole solve: no neighbour is read, and for
 *    small displacements it is the air model's force.
 *
 *  - FILL (Eq. 17): a stuffing layer of thickness D (m) between the
 *    coarse surface and the cloth, resisting compression.  A vertex at
 *    depth d = n_i . (x_i - r_i) over the coarse surface (n_i the unit
 *    rest normal) compresses it when d < D, with the energy
 *      0.5 K A_i (D - d)²,
 *    K (N/m³) the pressure per metre of compression and A_i = |a_i| the
 *    vertex's area: the same stuffing at every grid resolution.  The
 *    layer pushes only; past D nothing pulls the cloth back.
 *
 * The gradients add to grad and the preconditioner to diag, as energy.h's
 * do; air and inflate are linear in the vertex's own position (zero
 * Hessian block) and add nothing to diag.
 */
#ifndef PLEAT_INFLATE_H
#define PLEAT_INFLATE_H

#include <stdint.h>

#include "energy.h"
#include "hostdev.h"
#include "vec.h"

/* The strengths; 0 turns an effect off. */
struct inflate_coef {
	float air;               /* Pa */
	float inflate;           /* Pa, fixed normal */
	float fill_depth;        /* D, m */
	float fill_k;            /* K, N/m³ */
};

/* One grid's inflation and filling: the strengths and, for inflate and
 * fill, every vertex's rest area-weighted normal (3 floats a vertex;
 * NULL when neither is on).  origin: where the air measures the volume
 * from (the cloth's centre keeps the digits and the seam forces small). */
struct inflation {
	struct inflate_coef c;
	float *normal;
	double origin[3];
};

/* Ring neighbour r of the vertex at x (row pitch `pitch`). */
PL_HD const float *inflate_ring_at(const float *x, int pitch, int r)
{
	return x + 3 * (ring_di(r) + ring_dj(r) * pitch);
}

/* The area-weighted normal a_v of vertex v's ring (m²): x points at the
 * vertex, neighbour (di, dj) at x + 3 (di + dj pitch), only the
 * triangles whose neighbours' bits are set in nbr are read.  When chain
 * is not NULL it gets the sum over the ring's triangles (v, a, b) of
 * x_b - x_a: zero on a closed ring, x_last - x_first on an open one. */
PL_HD vec3 inflate_ring_normal(const float *x, int pitch, uint32_t nbr,
			       vec3 *chain)
{
	vec3 a = v3(0.0f, 0.0f, 0.0f), e = v3(0.0f, 0.0f, 0.0f);
	for (int r = 0; r < 6; r++) {
		if (!ring_triangle(nbr, r))
			continue;
		const float *xa = inflate_ring_at(x, pitch, r);
		const float *xb = inflate_ring_at(x, pitch, r == 5 ? 0 : r + 1);
		vec3 da = v3(xa[0] - x[0], xa[1] - x[1], xa[2] - x[2]);
		vec3 db = v3(xb[0] - x[0], xb[1] - x[1], xb[2] - x[2]);
		a = v3_add(a, v3_cross(da, db));
		e = v3_add(e, v3_sub(db, da));
	}
	if (chain)
		*chain = e;
	return v3_scale(a, 1.0f / 6.0f);
}

/* The stuffing's push on a vertex at x with rest r and rest normal a0
 * (area-weighted): adds its gradient and preconditioner. */
PL_HD void fill_grad(const float *x, const float *r, vec3 a0, float depth,
		     float k, vec3 *g, float *d)
{
	float area = v3_norm(a0);
	if (!(area > 0.0f))
		return;
	vec3 n = v3_scale(a0, 1.0f / area);
	float depth_now = n.x * (x[0] - r[0]) + n.y * (x[1] - r[1]) +
			  n.z * (x[2] - r[2]);
	if (depth_now >= depth)
		return;
	*g = v3_madd(*g, n, -k * area * (depth - depth_now));
	*d += k * area;
}

/* The air's gradient on vertex v: the exact gradient of -P V, V about
 * the origin o.  On a closed ring it is -P a_v; on an open one (a
 * panel's edge) V's cone from o over the gap at the edge adds
 * (x_v - o) x (x_last - x_first) / 6, x_first and x_last the ends of the
 * ring's chain of triangles.  The seam partner on the other panel has
 * the opposite term, so the two cancel where the seams close the
 * surface. */
PL_HD vec3 air_grad(const float *x, int pitch, uint32_t nbr, const double *o,
		    float pressure)
{
	vec3 e, a = inflate_ring_normal(x, pitch, nbr, &e);
	if ((nbr & NB_ELASTIC_ALL) != NB_ELASTIC_ALL) {
		vec3 xo = v3((float)(x[0] - o[0]), (float)(x[1] - o[1]),
			     (float)(x[2] - o[2]));
		a = v3_madd(a, v3_cross(xo, e), 1.0f / 6.0f);
	}
	return v3_scale(a, -pressure);
}

/* Every effect's gradient at vertex v (x with pitch and nbr as in
 * inflate_ring_normal, r its rest position). */
PL_HD void inflate_grad(const struct inflation *f, size_t v, const float *x,
			int pitch, uint32_t nbr, const float *r, vec3 *g,
			float *d)
{
	if (f->c.air != 0.0f)
		*g = v3_add(*g, air_grad(x, pitch, nbr, f->origin, f->c.air));
	if (!f->normal)
		return;
	vec3 a0 = v3_load(f->normal + 3 * v);
	if (f->c.inflate != 0.0f)
		*g = v3_madd(*g, a0, -f->c.inflate);
	if (f->c.fill_depth > 0.0f)
		fill_grad(x, r, a0, f->c.fill_depth, f->c.fill_k, g, d);
}

/* ---- energies, in double, for the checks and the tests ------------- */

/* det(p - o, q - o, s - o) for float points p, q, s. */
PL_HD double inflate_det(const float *p, const float *q, const float *s,
			 const double *o)
{
	dvec3 a = d3(p[0] - o[0], p[1] - o[1], p[2] - o[2]);
	dvec3 b = d3(q[0] - o[0], q[1] - o[1], q[2] - o[2]);
	dvec3 c = d3(s[0] - o[0], s[1] - o[1], s[2] - o[2]);
	return d3_dot(a, d3_cross(b, c));
}

/* Vertex v's share of V about origin o: a third of its ring triangles'
 * signed volumes (every triangle is in three rings). */
PL_HD double inflate_volume_share(const float *x, int pitch, uint32_t nbr,
				  const double *o)
{
	double sum = 0;
	for (int r = 0; r < 6; r++) {
		if (!ring_triangle(nbr, r))
			continue;
		sum += inflate_det(x, inflate_ring_at(x, pitch, r),
				   inflate_ring_at(x, pitch, r == 5 ? 0 : r + 1), o);
	}
	return sum / 18;
}

/* The stuffing's energy at one vertex. */
PL_HD double fill_energy(const float *x, const float *r, const float *a0,
			 double depth, double k)
{
	dvec3 a = d3(a0[0], a0[1], a0[2]);
	double area = d3_norm(a);
	if (!(area > 0))
		return 0;
	double depth_now = (a.x * ((double)x[0] - r[0]) +
			    a.y * ((double)x[1] - r[1]) +
			    a.z * ((double)x[2] - r[2])) / area;
	if (depth_now >= depth)
		return 0;
	return 0.5 * k * area * (depth - depth_now) * (depth - depth_now);
}

/* Vertex v's share of every effect's energy (J); the shares of all
 * vertices sum to the energy. */
PL_HD double inflate_energy(const struct inflation *f, size_t v,
			    const float *x, int pitch, uint32_t nbr,
			    const float *r)
{
	double en = 0;
	if (f->c.air != 0.0f)
		en -= (double)f->c.air *
		      inflate_volume_share(x, pitch, nbr, f->origin);
	if (!f->normal)
		return en;
	const float *a0 = f->normal + 3 * v;
	if (f->c.inflate != 0.0f)
		en -= (double)f->c.inflate *
		      (a0[0] * ((double)x[0] - r[0]) +
		       a0[1] * ((double)x[1] - r[1]) +
		       a0[2] * ((double)x[2] - r[2]));
	if (f->c.fill_depth > 0.0f)
		en += fill_energy(x, r, a0, f->c.fill_depth, f->c.fill_k);
	return en;
}

#endif

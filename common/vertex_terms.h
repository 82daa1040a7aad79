/* vertex_terms.h - a vertex's terms of the objective beyond the grid
 * energies of solver.h, for the CPU and the GPU alike: the seams'
 * springs, self collision's repulsion, the dynamic mode's momentum and
 * gravity, and inflation and filling; and the energy check's share of a
 * vertex.
 *
 * A backend fills one struct vertex_terms with pointers into its own
 * memory (host arrays on the CPU, device arrays on the GPU); the
 * functions below add the terms in one order, so that both backends
 * compute the same numbers to the bit. */
#ifndef PLEAT_VERTEX_TERMS_H
#define PLEAT_VERTEX_TERMS_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "dynamic.h"
#include "hostdev.h"
#include "inflate.h"
#include "proximity_hd.h"
#include "seam_link.h"
#include "solver.h"
#include "vec.h"

struct vertex_terms {
	/* seams: each touched vertex's gradient at the last update and its
	 * Hessian's diagonal (seam_term); seam_at NULL without seams */
	const int32_t *seam_at;
	const float *seam_grad, *seam_diag;
	/* the longest inner step of the block method for a vertex the
	 * seams reach, metres (seam_step_limit); 0: no limit */
	float seam_step;
	/* self collision: every vertex's list of self_k neighbours, of which
	 * the first proximity_kept_of(self_found[v], self_k) count, and the
	 * repulsion's radius and stiffness; self_list NULL without */
	const uint32_t *self_list;
	const uint16_t *self_found;
	int self_k;
	float self_radius, self_stiffness;
	/* momentum and gravity (dynamic.h): dynamic 0 without; xhat NULL
	 * in a quasistatic solve with gravity */
	int dynamic;
	struct dynamic_coef dyn;
	struct dynamic_coef_d dyn_d;
	const float *xhat;
	/* inflation and filling: every strength 0 without */
	struct inflation infl;
	/* a constant force on every vertex, 3 floats a vertex, the term
	 * -force.x of F: the multigrid method's coarse-level correction
	 * (solve/multigrid.c); NULL without */
	const float *force;
};

/* Adds vertex v's terms to its gradient g and preconditioner d.  xv is
 * where v is now (in a block's tile, say; row pitch `pitch`, which the
 * air's ring reads), x0 the iterate the terms that reach farther read
 * other vertices from (the start of the outer iteration for the block
 * method); nbr and rest are v's. */
PL_HD void vertex_terms_grad(const struct vertex_terms *t, size_t v,
			     const float *xv, int pitch, const float *x0,
			     uint32_t nbr, const float *rest, vec3 *g,
			     float *d)
{
	if (t->seam_at)
		seam_term(t->seam_at, t->seam_grad, t->seam_diag, v, xv,
			  x0 + 3 * v, g, d);
	if (t->self_list)
		collide_repel_list(xv, x0, t->self_list + v * (size_t)t->self_k,
				   proximity_kept_of(t->self_found[v], t->self_k),
				   t->self_radius, t->self_stiffness, g, d);
	if (t->dynamic)
		dynamic_vertex_grad(&t->dyn, xv, t->xhat ? t->xhat + 3 * v : NULL,
				    g, d);
	inflate_grad(&t->infl, v, xv, pitch, nbr, rest, g, d);
	if (t->force)
		*g = v3_sub(*g, v3_load(t->force + 3 * v));
}

/* Step s of vertex v shortened to t->seam_step where the seams reach v
 * (a seam vertex, a corner of a partner point's cell, a vertex of a bend
 * across a seam: seam_at[v] >= 0); the block method's inner step, before
 * its Chebyshev weights.  The block method sees the seams through a
 * linear model made at the start of the outer iteration, with the
 * partners held where they were (seam.c), while the partners move too:
 * where a seam starts far from closed (a coarse garment stretched out of
 * its pattern, a panel moved), both sides then jump the whole gap at
 * once, fold their boundary cells over and overshoot, and the step
 * control halves every vertex's step for them.  One cell a step
 * (SEAM_STEP_CELLS) keeps a seam vertex from passing its neighbours;
 * seams that start sewn rarely reach it (a floor pushing a skirt up
 * does).  On a panel lifted 5 cm, the energy after 8 iterations is 3%
 * higher with it than without; half a cell and a quarter made it 8% and
 * 14%, and four cells let the overshoot back. */
PL_HD vec3 seam_step_limit(const struct vertex_terms *t, size_t v, vec3 s)
{
	if (!t->seam_at || t->seam_at[v] < 0 || !(t->seam_step > 0.0f))
		return s;
	float l2 = v3_norm2(s), m = t->seam_step;
	return l2 > m * m ? v3_scale(s, m / sqrtf(l2)) : s;
}

/* Whether vertex v has a term here at all (the CPU's block step moves the
 * others as one vector loop). */
PL_HD int vertex_terms_any(const struct vertex_terms *t, size_t v)
{
	return (t->seam_at && t->seam_at[v] >= 0) ||
	       (t->self_list && proximity_kept_of(t->self_found[v], t->self_k)) ||
	       t->dynamic || t->infl.c.air != 0.0f || t->infl.normal ||
	       t->force;
}

/* Vertex v's share of the terms' energy but the seams' (summed per link
 * by the seams' update), in double: x is the whole grid (row pitch w),
 * moves whether v moves.  Every vertex has its share, moving or not (the
 * air's volume is the whole surface's). */
PL_HD double vertex_terms_energy(const struct vertex_terms *t, size_t v,
				 const float *x, int w, uint32_t nbr,
				 const float *rest, int moves)
{
	double en = 0;
	if (t->self_list)
		en += collide_vertex_energy(x, (uint32_t)v,
			t->self_list + v * (size_t)t->self_k,
			proximity_kept_of(t->self_found[v], t->self_k),
			t->self_radius, t->self_stiffness);
	if (t->dynamic && moves)
		en += dynamic_inertia_energy(&t->dyn_d, x + 3 * v,
					     t->xhat ? t->xhat + 3 * v : NULL) +
		      dynamic_gravity_energy(&t->dyn_d, x + 3 * v);
	en += inflate_energy(&t->infl, v, x + 3 * v, w, nbr, rest);
	if (t->force && moves)
		en -= (double)t->force[3 * v] * x[3 * v] +
		      (double)t->force[3 * v + 1] * x[3 * v + 1] +
		      (double)t->force[3 * v + 2] * x[3 * v + 2];
	return en;
}

/* One vertex's share of the step control's check (struct check): its
 * energy (J), the square of its gradient's norm and its noise. */
struct check_share {
	double energy, g2, noise;
};

/* Vertex v's check share: e its grid energies' share (0 when it has no
 * neighbour), g and d its grid energies' gradient and preconditioner
 * (read when it moves), shape the shape term's k_shape m; x the whole
 * grid, row pitch w.  The noise is the change of F that one ulp of each
 * coordinate can explain: first order through the gradient, second
 * order through the preconditioner. */
PL_HD struct check_share check_vertex(const struct vertex_terms *t, size_t v,
				      const float *x, int w, uint32_t nbr,
				      const float *rest, int moves,
				      double shape, double e, vec3 g, float d)
{
	struct check_share s;
	s.energy = e + vertex_terms_energy(t, v, x, w, nbr, rest, moves);
	s.g2 = 0;
	s.noise = 0;
	if (!moves)
		return s;
	const float *xv = x + 3 * v;
	s.energy += solve_shape_energy(xv, rest, shape);
	vertex_terms_grad(t, v, xv, w, x, nbr, rest, &g, &d);
	s.g2 = (double)v3_norm2(g);
	/* in double throughout: C++ (nvcc) has float overloads of fabs */
	double big = fmax(fabs((double)xv[0]),
			  fmax(fabs((double)xv[1]), fabs((double)xv[2])));
	double u = FLT_EPSILON * big;
	s.noise = (fabs((double)g.x) + fabs((double)g.y) +
		   fabs((double)g.z)) * u + (double)d * u * u;
	return s;
}

#endif

/* dynamic.h - the momentum and gravity terms of pleat-solve's dynamic
 * mode (Wang 2021, Eq. 19), per vertex, for the CPU and the GPU.
 *
 * One implicit Euler step of length dt is the minimisation of
 *
 *      F(x) = sum_i m/(2 dt²) |x_i - xhat_i|²  +  E(x)  -  sum_i m g.x_i
 *
 * over the moving vertices, xhat_i = x_i(t) + dt v_i(t) = 2 x_i(t) -
 * x_i(t - dt) where they would coast to, m the vertex's mass (density
 * times the cell's area, h²), g the gravity and E every other energy of
 * the solver (elastic, bending, seams, collisions).  At its minimiser
 * m (x - 2 x(t) + x(t - dt)) / dt² = -grad E + m g: Newton's law with the
 * forces at the end of the step, which is implicit Euler.  Gravity is
 * the linear term -m g.x, not folded into xhat, so that a quasistatic
 * solve with gravity is the same objective with the momentum term off
 * (inertia 0).
 */
#ifndef PLEAT_DYNAMIC_H
#define PLEAT_DYNAMIC_H

#include "hostdev.h"
#include "vec.h"

/* The per-vertex constants, in the solver's float. */
struct dynamic_coef {
	float inertia;   /* m / dt², N/m; 0 in a quasistatic solve */
	vec3 weight;     /* m g, N */
};

/* The same in double, for the energy checks. */
struct dynamic_coef_d {
	double inertia;
	double weight[3];
};

/* Adds the momentum and gravity terms' gradient at vertex position x to
 * g and their Hessian's diagonal to d; xhat (the coasting position) is
 * read only when the inertia is on. */
PL_HD void dynamic_vertex_grad(const struct dynamic_coef *c, const float *x,
			       const float *xhat, vec3 *g, float *d)
{
	if (c->inertia > 0.0f) {
		vec3 off = v3(x[0] - xhat[0], x[1] - xhat[1], x[2] - xhat[2]);
		*g = v3_madd(*g, off, c->inertia);
		*d += c->inertia;
	}
	*g = v3_sub(*g, c->weight);
}

/* The momentum term's share of F at one vertex (J), in double. */
PL_HD double dynamic_inertia_energy(const struct dynamic_coef_d *c,
				    const float *x, const float *xhat)
{
	if (!(c->inertia > 0.0))
		return 0.0;
	double s = 0.0;
	for (int k = 0; k < 3; k++) {
		double o = (double)x[k] - xhat[k];
		s += o * o;
	}
	return 0.5 * c->inertia * s;
}

/* Gravity's potential energy -m g.x at one vertex (J), in double. */
PL_HD double dynamic_gravity_energy(const struct dynamic_coef_d *c,
				    const float *x)
{
	return -(c->weight[0] * x[0] + c->weight[1] * x[1] +
		 c->weight[2] * x[2]);
}

#endif

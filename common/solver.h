/* solver.h - the solver's per-vertex arithmetic, shared by the CPU block
 * loop (solve/block.c) and the CUDA kernels to come: the objective's
 * gradient at one vertex, the preconditioned descent step and the
 * Chebyshev weights.  Like energy.h, everything reads a window of
 * positions through a pointer and a row pitch, so the same code serves a
 * global array and a tile.
 *
 * The objective is F(x) = elastic + bending (energy.h), both with the
 * flat pattern lattice as their rest state, plus the weak global-shape
 * term
 *      0.5 k_shape m_i |x_i - rest_i|²
 * per movable vertex, m_i = density h² its mass and rest_i the coarse 3D
 * shape (the rest channel).  k_shape is in 1/s² (an angular frequency
 * squared), so the term is the same spring per unit area, k_shape *
 * density, at every level.  It acts as an elastic foundation under the
 * cloth: alone with bending it admits wrinkles of wavelength
 *      2 pi (k_b / (k_shape density))^(1/4),
 * so the default k_shape = 100 (0.15 to 0.24 m with the presets) leaves
 * wrinkles free and holds only the low frequencies of the coarse shape,
 * against the drift that nothing else in the quasistatic objective
 * resists (a rigid or isometric motion of a free panel).
 */
#ifndef PLEAT_SOLVER_H
#define PLEAT_SOLVER_H

#include <math.h>
#include <stdint.h>

#include "energy.h"
#include "hostdev.h"
#include "vec.h"

/* Everything a vertex update needs besides positions: the level's energy
 * constants, the terms, the shape spring k_shape * m (N/m) and the step. */
struct solve_coef {
	struct energy_coef_f e;
	unsigned terms;      /* TERM_SPRING or TERM_FEM, | TERM_BEND */
	float shape;         /* k_shape * m, N/m; 0: no shape term */
	float step;          /* fraction of the preconditioned step */
	int gather_pitch;    /* row pitch of the gathering tensors (the
				grid's width), see solve_vertex_grad */
	float fem_diag;      /* fem_diag_regular(&e), set with e */
	int far_start;       /* block method: the bending neighbours two
				steps away (nb_far) from the start of the
				block, Wang 2021 Eq. 9; 0: from the tile */
};

/* Gradient g of F at one vertex and its positive preconditioner d:
 * x and rest point at the vertex's first component (x with row pitch
 * `pitch`; rest is read at the vertex only); xf at the vertex in the
 * positions the bending neighbours two steps away are read from (row
 * pitch fpitch; see solve_coef.far_start); S at the vertex's gathering
 * tensor (the gather channel, row pitch c->gather_pitch), NULL without
 * gathering. */
PL_HD void solve_vertex_grad_far(const float *x, int pitch, const float *xf,
				 int fpitch, const float *rest, const float *S,
				 uint32_t nbr, int parity,
				 const struct solve_coef *c, vec3 *g, float *d)
{
	*g = v3(0.0f, 0.0f, 0.0f);
	*d = 0.0f;
	if (nbr)
		energy_grad_far_f(x, pitch, xf, fpitch, nbr, parity, &c->e,
				  c->terms, S, c->gather_pitch, g, d);
	if (c->shape > 0.0f) {
		vec3 off = v3(x[0] - rest[0], x[1] - rest[1], x[2] - rest[2]);
		*g = v3_madd(*g, off, c->shape);
		*d += c->shape;
	}
}

/* The gradient at x itself. */
PL_HD void solve_vertex_grad(const float *x, int pitch, const float *rest,
			     const float *S, uint32_t nbr, int parity,
			     const struct solve_coef *c, vec3 *g, float *d)
{
	solve_vertex_grad_far(x, pitch, x, pitch, rest, S, nbr, parity, c, g,
			      d);
}

/* The whole-grid passes (the energy check's gradient, gd, pcg's
 * gradient) take vertex (i, j) of a w x h grid with
 * solve_vertex_grad_regular when it moves, is complete, reads the far
 * bending neighbours of both parities on the grid and has no gathering
 * (the CPU runs such vertices side by side as vector loops), and with
 * solve_vertex_grad otherwise.  Both give the same numbers; every
 * backend takes the same one all the same. */
PL_HD int solve_vertex_runs(int i, int j, int w, int h, int moves,
			    uint32_t nbr, int gathered)
{
	return !gathered && i >= 2 && i < w - 2 && j >= 2 && j < h - 2 &&
	       moves && nbr_complete(nbr, (i + j) & 1);
}

/* The energy check takes a vertex's grid energies with
 * energy_vertex_regular_d when it is complete, without gathering, with
 * BEND_HINGES, and with energy_vertex_gather_d otherwise (as above). */
PL_HD int energy_vertex_runs(uint32_t nbr, int parity, int gathered,
			     int bend_rule)
{
	return !gathered && bend_rule == BEND_HINGES &&
	       nbr_complete(nbr, parity);
}

/* solve_vertex_grad_far for a vertex with every neighbour (see
 * energy_grad_regular): the same numbers, bit for bit, when shape_on is
 * c->shape > 0 (a separate argument so that a caller can make it a
 * constant and keep the test out of a vector loop). */
PL_HD void solve_vertex_grad_regular(const float *x, int pitch,
				     const float *xf, int fpitch,
				     const float *rest, int parity,
				     const struct solve_coef *c, int shape_on,
				     vec3 *g, float *d)
{
	*g = v3(0.0f, 0.0f, 0.0f);
	*d = 0.0f;
	energy_grad_regular_f(x, pitch, xf, fpitch, parity, &c->e, c->terms,
			      g, d);
	if (shape_on) {
		vec3 off = v3(x[0] - rest[0], x[1] - rest[1], x[2] - rest[2]);
		*g = v3_madd(*g, off, c->shape);
		*d += c->shape;
	}
}

/* The grid energies' gradient and preconditioner at vertex (i, j) of a
 * whole grid x (row pitch w, h rows) as the whole-grid passes take it
 * (solve_vertex_runs): rest and S point at the vertex's rest position
 * and gathering tensor (NULL without gathering). */
PL_HD void solve_grid_vertex_grad(const float *x, int w, int h, int i,
				  int j, const float *rest, const float *S,
				  uint32_t nbr, int moves,
				  const struct solve_coef *c, vec3 *g, float *d)
{
	const float *xv = x + 3 * ((size_t)j * (size_t)w + (size_t)i);
	int parity = (i + j) & 1;
	if (solve_vertex_runs(i, j, w, h, moves, nbr, S != NULL))
		solve_vertex_grad_regular(xv, w, xv, w, rest, parity, c,
					  c->shape > 0.0f, g, d);
	else
		solve_vertex_grad(xv, w, rest, S, nbr, parity, c, g, d);
}

/* solve_vertex_grad_regular with the FEM part given and the positions
 * as values: xv the vertex, rest its rest position, nbd its twelve
 * bending differences (bend_stencil_diffs); fem and fem_d its FEM
 * gradient (summed from its cells, fem_cell_grad) and preconditioner
 * (c->fem_diag).  c->terms FEM, with or without bending. */
PL_HD void solve_vertex_grad_cells(vec3 xv, vec3 rest, const vec3 nbd[12],
				   int parity, const struct solve_coef *c,
				   int shape_on, vec3 fem, float fem_d,
				   vec3 *g, float *d)
{
	*g = fem;
	*d = fem_d;
	if (c->terms & TERM_BEND)
		bend_stencil_diffs_f(nbd, parity, &c->e, g, d);
	if (shape_on) {
		vec3 off = v3(xv.x - rest.x, xv.y - rest.y, xv.z - rest.z);
		*g = v3_madd(*g, off, c->shape);
		*d += c->shape;
	}
}

/* ---- the FEM by cells ------------------------------------------------
 *
 * A block step computes each cell's two triangles once for its four
 * corners (fem_cell_grad, energy.h) and a complete vertex's FEM
 * gradient as the sum over the four cells around it.  The functions
 * below fix that sum's order and the gathered cells' rest shapes, so
 * that every backend rounds them alike. */

/* The sum at a vertex of a quantity its four cells hold per corner:
 * corner 00 of its own cell (the cell whose corner 00 it is), corner 10
 * of the cell to its left (i - 1), 01 of the one below (j - 1), 11 of
 * the one below and to the left. */
PL_HD float fem_corner_sum(float own, float left, float below,
			   float below_left)
{
	return own + left + below + below_left;
}

/* fem_cell_grad_rest for a cell of gathered fabric: each triangle's
 * rest shape from the gathering tensors (sxx, sxy, syy) of its corners
 * t00 .. t11, their sums in fem_rest's order (from 0, the triangle's
 * origin first). */
PL_HD struct fem_cell_rest_f fem_cell_gathered_f(vec3 p00, vec3 p10,
						 vec3 p01, vec3 p11,
						 vec3 t00, vec3 t10,
						 vec3 t01, vec3 t11,
						 const struct energy_coef_f *e)
{
	vec3 sl = v3(((0.0f + t00.x) + t10.x) + t01.x,
		     ((0.0f + t00.y) + t10.y) + t01.y,
		     ((0.0f + t00.z) + t10.z) + t01.z);
	vec3 su = v3(((0.0f + t10.x) + t11.x) + t01.x,
		     ((0.0f + t10.y) + t11.y) + t01.y,
		     ((0.0f + t10.z) + t11.z) + t01.z);
	return fem_cell_grad_rest_f(p00, p10, p01, p11, sl, su, e);
}

/* The preconditioned descent step -step g / d; zero where d is zero (a
 * vertex with no energy at all: nothing to say where it should go). */
PL_HD vec3 solve_vertex_step(vec3 g, float d, float step)
{
	if (!(d > 0.0f))
		return v3(0.0f, 0.0f, 0.0f);
	return v3_scale(g, -step / d);
}

/* Polak and Ribiere's beta for nonlinear PCG (methods.c): gz = g.z and
 * g_zprev = g.z_prev at this iteration, gz_prev = g.z at the last one;
 * 0 on a restart or when the last step was not a descent, and never
 * negative.  Also 0 where the two moves are far from conjugate, |g.z_prev|
 * at least 0.2 |g.z| (Powell's restart test, Math. Programming 12, 1977,
 * with the preconditioned move for the gradient): near convergence g.z
 * sinks into rounding, beta grew 0.4, 3.8, 8.4, 18, 211, 4e4, 2e9 over
 * consecutive iterations on the tests' inflated patch (-m pcg --step 0.85
 * --air 0.5), and the solve diverged into the step floor. */
PL_HD double pcg_beta(double gz, double g_zprev, double gz_prev, int restart)
{
	if (restart || !(gz_prev < 0) || fabs(g_zprev) >= 0.2 * fabs(gz))
		return 0;
	return fmax(0.0, (gz - g_zprev) / gz_prev);
}

/* One component of PCG's direction, z + beta d: z itself where beta is 0
 * (a restart, or beta clamped), so that a direction a rejected step left
 * infinite or NaN does not survive as 0 d. */
PL_HD float pcg_direction(float z, float b, float d)
{
	return b != 0.0f ? z + b * d : z;
}

/* The energy share of the shape term at one vertex (J), in double. */
PL_HD double solve_shape_energy(const float *x, const float *rest,
				double shape)
{
	double a = (double)x[0] - rest[0], b = (double)x[1] - rest[1];
	double c = (double)x[2] - rest[2];
	return 0.5 * shape * (a * a + b * b + c * c);
}

/* Chebyshev semi-iterative weights (Wang 2015) for iteration k (from 0)
 * of a run that starts accelerating at iteration `delay`: 1 before it,
 * 2 / (2 - rho²) at it, then 4 / (4 - rho² omega_prev), omega_prev the
 * weight of iteration k - 1. */
PL_HD float cheb_omega(int k, int delay, float rho, float omega_prev)
{
	if (k < delay)
		return 1.0f;
	if (k == delay)
		return 2.0f / (2.0f - rho * rho);
	return 4.0f / (4.0f - rho * rho * omega_prev);
}

/* x_new = omega (x_hat - x_old) + x_old, per component; exactly x_hat
 * at omega 1 (x_old need not even be set then). */
PL_HD float cheb_mix(float x_hat, float x_old, float omega)
{
	return omega == 1.0f ? x_hat : omega * (x_hat - x_old) + x_old;
}

#endif

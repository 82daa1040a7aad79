/* gpu.h - pleat-solve's CUDA backend: the gd and block iterations with
 * the outer Chebyshev step, on the GPU, from the same per-vertex
 * arithmetic as the CPU (solver.h, energy.h, seam_link.h, collide.h),
 * self collision's proximity search included (proximity_cuda.h).
 *
 * The GPU keeps x, the previous iterate and a scratch buffer; the host
 * keeps its copy of x for the energy checks, which run on the CPU
 * (problem_check) every --check-every iterations: cuda_solver_get before
 * a check, cuda_solver_put after a rollback.  Plain C, so that main.c
 * can call it; compiled only when nvcc is found. */
#ifndef PLEAT_SOLVE_GPU_H
#define PLEAT_SOLVE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "proximity_cuda.h"
#include "seam_link.h"
#include "solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the GPU needs of a problem, host pointers (copied once). */
struct cuda_problem {
	int w, h;
	const float *rest;
	const uint32_t *nbr;
	const uint8_t *mov;
	const float *plane;      /* body half-planes, 4 a vertex; NULL: none */
	/* seams (solve.h's struct seams); nlinks 0: none */
	size_t nlinks, ntouched, nrefs;
	float seam_k;
	const struct seam_link *link;
	const size_t *start;
	const uint32_t *ref_link;
	const float *ref_coef;
	const int32_t *at;
	const float *seam_diag;
	/* self collision (solve.h's prox, self_radius, self_k, self_search);
	 * self NULL: none.  The GPU starts from the lists in self and keeps
	 * its own from then on; cuda_solver_get copies them to list_out and
	 * found_out (the CPU's lists), so that the energy checks on the CPU
	 * see the lists the GPU iterated with. */
	const struct proximity_setup *self;
	float self_radius, self_k;
	double self_search;
	uint32_t *list_out;
	uint16_t *found_out;
};

struct cuda_solver;

/* NULL with a reason in why when the GPU cannot hold the problem. */
struct cuda_solver *cuda_solver_new(const struct cuda_problem *cp, int dev,
				    char *why, size_t n);
void cuda_solver_free(struct cuda_solver *s);
/* x (and the previous iterate) <- host x. */
int cuda_solver_put(struct cuda_solver *s, const float *x, char *why, size_t n);
/* host x <- x (and the proximity lists, see struct cuda_problem). */
int cuda_solver_get(struct cuda_solver *s, float *x, char *why, size_t n);
/* Before outer iteration `it` (from 1): with self collision, the lists
 * rebuilt from x on the schedule of collide_refresh_due, as
 * problem_refresh_self does on the CPU; nothing otherwise. */
int cuda_solver_refresh(struct cuda_solver *s, int it, char *why, size_t n);
/* One outer iteration: block (inner > 0: that many inner iterations with
 * inner Chebyshev radius inner_rho) or gd (inner 0), then
 * x = omega (x_new - x_prev) + x_prev on the moving vertices. */
int cuda_solver_step(struct cuda_solver *s, const struct solve_coef *c,
		     int inner, float inner_rho, float omega, char *why,
		     size_t n);

#ifdef __cplusplus
}
#endif

#endif

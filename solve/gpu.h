/* gpu.h - pleat-solve's CUDA backend: every method (gd, chebyshev,
 * block, pcg) and every term of the objective the CPU has, on the GPU,
 * from the same per-vertex arithmetic (solver.h, energy.h,
 * vertex_terms.h, collide.h, seam_link.h), self collision's proximity
 * search included (proximity_cuda.h).
 *
 * The GPU holds the iterate, the previous iterate, the last accepted
 * one and the methods' scratch; the step control's energy check runs
 * there too, its sums in double in the CPU's order (each vertex's share,
 * then each row's in order on the GPU, then the rows' in order on the
 * host), so that x crosses to the host only at the start and the end of
 * a solve.  Built without fused multiply-adds (nvcc -fmad=false, or the
 * CUDA execution model) every number is the CPU backend's to the bit.
 *
 * Plain C, so that main.c can call it; compiled only when nvcc is found,
 * and always under the CUDA execution model (cudamodel/). */
#ifndef PLEAT_SOLVE_GPU_H
#define PLEAT_SOLVE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "proximity_cuda.h"
#include "seam_link.h"
#include "solver.h"
#include "vertex_terms.h"

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
	const float *gather;     /* gathering tensors, 3 a vertex; NULL: none */
	/* seams (solve.h's struct seams); nlinks 0: none */
	size_t nlinks, ntouched, nrefs;
	float seam_k;
	const struct seam_link *link;
	size_t nbends;           /* the bending across them */
	const struct seam_bend *bend;
	const size_t *start;
	const uint32_t *ref_link;
	const float *ref_coef;
	const int32_t *at;
	const float *seam_diag;
	/* self collision (solve.h's prox, self_radius, self_k, self_search);
	 * self NULL: none.  The GPU starts from the lists in self and keeps
	 * its own from then on. */
	const struct proximity_setup *self;
	float self_radius, self_k;
	double self_search;
	/* dynamics and inflation: the host's terms (vertex_terms.h), whose
	 * coefficients are copied and whose arrays (xhat, the rest normals)
	 * are uploaded; its seam and self pointers are not read */
	const struct vertex_terms *terms;
	/* the energy check's constants: the grid energies in double and
	 * the shape term's k_shape m */
	struct energy_coef_d cd;
	double shape;
	int pcg;                 /* the pcg method's vectors are needed */
	int safe;                /* --safe: bounds after every step */
};

enum cuda_method { CUDA_GD, CUDA_BLOCK, CUDA_PCG };

/* One outer iteration: gd (chebyshev is gd with omega), block with
 * `inner` inner iterations of inner Chebyshev radius inner_rho, or pcg
 * (block as preconditioner, restart: take the block step itself); then
 * x = omega (x_new - x_prev) + x_prev on the moving vertices. */
struct cuda_step {
	enum cuda_method method;
	const struct solve_coef *c;
	int inner;
	float inner_rho, omega;
	int restart;
};

struct cuda_solver;

/* NULL with a reason in why when the GPU cannot hold the problem. */
struct cuda_solver *cuda_solver_new(const struct cuda_problem *cp, int dev,
				    char *why, size_t n);
/* -1 with a reason when the GPU reports an error on the way. */
int cuda_solver_free(struct cuda_solver *s, char *why, size_t n);
/* x, the previous iterate and the accepted one <- host x. */
int cuda_solver_put(struct cuda_solver *s, const float *x, char *why, size_t n);
/* host x <- x. */
int cuda_solver_get(struct cuda_solver *s, float *x, char *why, size_t n);
/* Before outer iteration `it` (from 1): with self collision, the lists
 * rebuilt from x on the schedule of collide_refresh_due, as
 * problem_refresh_self does on the CPU; nothing otherwise. */
int cuda_solver_refresh(struct cuda_solver *s, int it, char *why, size_t n);
int cuda_solver_step(struct cuda_solver *s, const struct cuda_step *st,
		     char *why, size_t n);
/* The check at x (problem_check): out[0] the energy (J), out[1] the
 * squared gradient norm, out[2] the noise. */
int cuda_solver_check(struct cuda_solver *s, const struct solve_coef *c,
		      double out[3], char *why, size_t n);
/* --safe: the positions the bounds were measured at and the bounds
 * (safe.h), which every step from now on keeps its moves within. */
int cuda_solver_safe_set(struct cuda_solver *s, const float *x0,
			 const float *bound, char *why, size_t n);
/* The steps since the last poll: count[0] vertices that went beyond half
 * their bound, count[1] vertices pulled back. */
int cuda_solver_safe_poll(struct cuda_solver *s, size_t count[2], char *why,
			  size_t n);
/* The accepted iterate <- x. */
int cuda_solver_keep(struct cuda_solver *s, char *why, size_t n);
/* x and the previous iterate <- the accepted one. */
int cuda_solver_restore(struct cuda_solver *s, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif

/* rows.c - the grid energies' gradient along a run of vertices that have
 * every neighbour, as one vector loop.
 *
 * Most of a garment's vertices are complete (all six ring neighbours,
 * every bending neighbour of their parity).  For them the per-vertex
 * arithmetic of solve_vertex_grad runs without a test of which
 * neighbours exist (solve_vertex_grad_regular), so a run of them along a
 * row becomes an 'omp simd' loop: eight vertices per AVX2 instruction.
 * The numbers are the same, bit for bit, as one vertex at a time
 * (ISO C does not contract a * b + c into a fused multiply-add, and the
 * vector sqrt and division are correctly rounded); tests/solve.bats
 * checks it against a per-vertex reference.
 */
#include "solve.h"

/* Function multi-versioning where the compiler has it (GCC and clang on
 * x86-64): an AVX2 build next to the baseline one, picked at run time,
 * so that the binary stays portable. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* solve_vertex_grad_regular by value: a vector loop's body must not take
 * the address of its own variables (they would become per-lane arrays
 * in memory); the callee's, inlined later, are free to. */
struct vertex_grad {
	vec3 g;
	float d;
};

static inline __attribute__((always_inline)) struct vertex_grad
vertex_grad_regular(const float *x, int pitch, const float *rest,
		    int parity, const struct solve_coef *c, int shape_on)
{
	struct vertex_grad r;
	solve_vertex_grad_regular(x, pitch, rest, parity, c, shape_on, &r.g,
				  &r.d);
	return r;
}

static inline __attribute__((always_inline)) void
run_loop(const struct solve_coef *c, const float *x, int pitch,
	 const float *rest, int parity0, int n, float *gx, float *gy,
	 float *gz, float *d, int shape_on)
{
	#pragma omp simd
	for (int a = 0; a < n; a++) {
		struct vertex_grad r = vertex_grad_regular(x + 3 * a, pitch,
			rest + 3 * a, (parity0 + a) & 1, c, shape_on);
		gx[a] = r.g.x;
		gy[a] = r.g.y;
		gz[a] = r.g.z;
		d[a] = r.d;
	}
}

/* The terms fixed at compile time for the usual choice (FEM and
 * bending, with or without the shape term), so that no test of them is
 * left inside the loop. */
VECTOR_CLONES
void grad_run(const struct solve_coef *c, const float *x, int pitch,
	      const float *rest, int parity0, int n, float *gx, float *gy,
	      float *gz, float *d)
{
	struct solve_coef k = *c;
	int shape = c->shape > 0.0f;
	if (c->terms == (TERM_FEM | TERM_BEND)) {
		k.terms = TERM_FEM | TERM_BEND;
		if (shape)
			run_loop(&k, x, pitch, rest, parity0, n, gx, gy, gz,
				 d, 1);
		else
			run_loop(&k, x, pitch, rest, parity0, n, gx, gy, gz,
				 d, 0);
	} else {
		run_loop(c, x, pitch, rest, parity0, n, gx, gy, gz, d, shape);
	}
}

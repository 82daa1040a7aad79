/* rows.c - the solver's vector loops.
 *
 * Most of a garment's vertices are complete (all six ring neighbours,
 * every bending neighbour of their parity).  For them the per-vertex
 * arithmetic runs without a test of which neighbours exist, so that a
 * run of them becomes an 'omp simd' loop, built for AVX-512, AVX2 and
 * the baseline and picked at run time (VECTOR_CLONES):
 *   grad_run        solve_vertex_grad along a run of a row (the energy
 *                   check's and gd's rows, the spring model's tiles);
 *   cell_run,       the block step's FEM by cells and the rest of the
 *   grad_run_cells  gradient, over a tile held by component;
 *   energy_run      the energy check's energies, in double.
 * grad_run and energy_run give the same numbers, bit for bit, as one
 * vertex at a time (ISO C does not contract a * b + c into a fused
 * multiply-add, and the vector sqrt and division are correctly
 * rounded); the FEM by cells sums each vertex's triangle forces in
 * another order.  tests/solve.bats checks both against a per-vertex
 * reference.
 */
#include "solve.h"

/* solve_vertex_grad_regular by value: a vector loop's body must not take
 * the address of its own variables (they would become per-lane arrays
 * in memory); the callee's, inlined later, are free to. */
struct vertex_grad {
	vec3 g;
	float d;
};

static inline __attribute__((always_inline)) struct vertex_grad
vertex_grad_regular(const float *x, int pitch, const float *xf, int fpitch,
		    const float *rest, int parity, const struct solve_coef *c,
		    int shape_on)
{
	struct vertex_grad r;
	solve_vertex_grad_regular(x, pitch, xf, fpitch, rest, parity, c,
				  shape_on, &r.g, &r.d);
	return r;
}

static inline __attribute__((always_inline)) void
run_loop(const struct solve_coef *c, const float *x, int pitch,
	 const float *xf, int fpitch, const float *rest, int parity0, int n,
	 float *gx, float *gy, float *gz, float *d, int shape_on)
{
	#pragma omp simd
	for (int a = 0; a < n; a++) {
		struct vertex_grad r = vertex_grad_regular(x + 3 * a, pitch,
			xf + 3 * a, fpitch, rest + 3 * a, (parity0 + a) & 1,
			c, shape_on);
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
	      const float *xf, int fpitch, const float *rest, int parity0,
	      int n, float *gx, float *gy, float *gz, float *d)
{
	struct solve_coef k = *c;
	int shape = c->shape > 0.0f;
	if (c->terms == (TERM_FEM | TERM_BEND)) {
		k.terms = TERM_FEM | TERM_BEND;
		if (shape)
			run_loop(&k, x, pitch, xf, fpitch, rest, parity0, n,
				 gx, gy, gz, d, 1);
		else
			run_loop(&k, x, pitch, xf, fpitch, rest, parity0, n,
				 gx, gy, gz, d, 0);
	} else {
		run_loop(c, x, pitch, xf, fpitch, rest, parity0, n, gx, gy,
			 gz, d, shape);
	}
}

/* ---- the FEM by cells, on a tile held by component ------------------ */

static inline __attribute__((always_inline)) vec3
soa_at(const float *X, const float *Y, const float *Z, int k)
{
	return v3(X[k], Y[k], Z[k]);
}

/* Cell a's corner gradients into planes 0 to 11 of cg. */
static inline __attribute__((always_inline)) void
cell_store(float *cg, int plane, int a, vec3 g00, vec3 g10, vec3 g01,
	   vec3 g11)
{
	vec3 g[4] = {g00, g10, g01, g11};
	PL_UNROLL
	for (int k = 0; k < 4; k++) {
		cg[3 * k * plane + a] = g[k].x;
		cg[(3 * k + 1) * plane + a] = g[k].y;
		cg[(3 * k + 2) * plane + a] = g[k].z;
	}
}

VECTOR_CLONES
void cell_run(const struct solve_coef *c, const float *X, const float *Y,
	      const float *Z, int pitch, int n, float *cg, int plane)
{
	#pragma omp simd
	for (int a = 0; a < n; a++) {
		struct fem_cell_f r = fem_cell_grad_f(soa_at(X, Y, Z, a),
			soa_at(X, Y, Z, a + 1), soa_at(X, Y, Z, a + pitch),
			soa_at(X, Y, Z, a + pitch + 1), &c->e);
		cell_store(cg, plane, a, r.g00, r.g10, r.g01, r.g11);
	}
}

/* cell_run with gathered rest shapes: TX, TY, TZ the tensors' sxx, sxy,
 * syy by tile position; the corners' preconditioner shares into planes
 * 12 to 15 of cg. */
VECTOR_CLONES
void cell_run_gathered(const struct solve_coef *c, const float *X,
		       const float *Y, const float *Z, const float *TX,
		       const float *TY, const float *TZ, int pitch, int n,
		       float *cg, int plane)
{
	#pragma omp simd
	for (int a = 0; a < n; a++) {
		int k10 = a + 1, k01 = a + pitch, k11 = a + pitch + 1;
		struct fem_cell_rest_f r = fem_cell_gathered_f(
			soa_at(X, Y, Z, a), soa_at(X, Y, Z, k10),
			soa_at(X, Y, Z, k01), soa_at(X, Y, Z, k11),
			soa_at(TX, TY, TZ, a), soa_at(TX, TY, TZ, k10),
			soa_at(TX, TY, TZ, k01), soa_at(TX, TY, TZ, k11), &c->e);
		cell_store(cg, plane, a, r.g00, r.g10, r.g01, r.g11);
		cg[12 * plane + a] = r.d00;
		cg[13 * plane + a] = r.d10;
		cg[14 * plane + a] = r.d01;
		cg[15 * plane + a] = r.d11;
	}
}

/* The sum at vertex a of a quantity its four cells hold per corner, in
 * planes k00 .. k11 of cg: corner 00 of its own cell, 10 of the cell to
 * the left, 01 of the one below, 11 of the one below and to the left. */
static inline __attribute__((always_inline)) float
corner_sum(const float *cg, int plane, int cpitch, int a, int k00, int k10,
	   int k01, int k11)
{
	return fem_corner_sum(cg[k00 * plane + a], cg[k10 * plane + a - 1],
			      cg[k01 * plane + a - cpitch],
			      cg[k11 * plane + a - cpitch - 1]);
}

/* Component j of vertex a's FEM gradient (planes 0 to 11). */
static inline __attribute__((always_inline)) float
cell_sum(const float *cg, int plane, int cpitch, int j, int a)
{
	return corner_sum(cg, plane, cpitch, a, j, 3 + j, 6 + j, 9 + j);
}

/* The bending differences as en_diff_nb takes them: the far neighbours
 * from the planes FX, FY, FZ (X, Y, Z themselves but for Eq. 9). */
static inline __attribute__((always_inline)) struct vertex_grad
vertex_grad_cells(const float *X, const float *Y, const float *Z,
		  const float *FX, const float *FY, const float *FZ, int pitch,
		  int a, vec3 rest, int parity, const struct solve_coef *c,
		  int shape_on, vec3 fem, float fem_d)
{
	struct vertex_grad r;
	vec3 xv = soa_at(X, Y, Z, a), nbd[12];
	PL_UNROLL
	for (int k = 0; k < 12; k++) {
		int at = a + nb_di(k) + nb_dj(k) * pitch;
		nbd[k] = v3_sub(nb_far(k) ? soa_at(FX, FY, FZ, at)
					  : soa_at(X, Y, Z, at), xv);
	}
	solve_vertex_grad_cells(xv, rest, nbd, parity, c, shape_on, fem,
				fem_d, &r.g, &r.d);
	return r;
}

static inline __attribute__((always_inline)) void
cells_loop(const struct solve_coef *c, const float *X, const float *Y,
	   const float *Z, const float *F[3], int pitch, const float *RX,
	   const float *RY,
	   const float *RZ, const unsigned char *parity, int n,
	   const float *cg, int plane, float *gx, float *gy, float *gz,
	   float *d, int shape_on, int gathered)
{
	#pragma omp simd
	for (int a = 0; a < n; a++) {
		vec3 fem = v3(cell_sum(cg, plane, pitch, 0, a),
			      cell_sum(cg, plane, pitch, 1, a),
			      cell_sum(cg, plane, pitch, 2, a));
		/* the preconditioner: planes 12 to 15 when gathered */
		float fem_d = gathered ? corner_sum(cg, plane, pitch, a, 12,
						    13, 14, 15)
				       : c->fem_diag;
		struct vertex_grad r = vertex_grad_cells(X, Y, Z, F[0], F[1],
			F[2], pitch, a,
			soa_at(RX, RY, RZ, a), parity[a], c, shape_on, fem,
			fem_d);
		gx[a] = r.g.x;
		gy[a] = r.g.y;
		gz[a] = r.g.z;
		d[a] = r.d;
	}
}

VECTOR_CLONES
void grad_run_cells(const struct solve_coef *c, const float *X,
		    const float *Y, const float *Z, const float *F[3],
		    int pitch, const float *RX,
		    const float *RY, const float *RZ,
		    const unsigned char *parity, int n, const float *cg,
		    int plane, int gathered, float *gx, float *gy, float *gz,
		    float *d)
{
	struct solve_coef k = *c;
	if (c->terms == (TERM_FEM | TERM_BEND)) {
		/* the usual terms, each variant with its tests decided at
		 * compile time */
		k.terms = TERM_FEM | TERM_BEND;
		int shape = c->shape > 0.0f;
		if (shape && gathered)
			cells_loop(&k, X, Y, Z, F, pitch, RX, RY, RZ, parity, n,
				   cg, plane, gx, gy, gz, d, 1, 1);
		else if (shape)
			cells_loop(&k, X, Y, Z, F, pitch, RX, RY, RZ, parity, n,
				   cg, plane, gx, gy, gz, d, 1, 0);
		else if (gathered)
			cells_loop(&k, X, Y, Z, F, pitch, RX, RY, RZ, parity, n,
				   cg, plane, gx, gy, gz, d, 0, 1);
		else
			cells_loop(&k, X, Y, Z, F, pitch, RX, RY, RZ, parity, n,
				   cg, plane, gx, gy, gz, d, 0, 0);
	} else {
		cells_loop(c, X, Y, Z, F, pitch, RX, RY, RZ, parity, n, cg,
			   plane, gx, gy, gz, d, c->shape > 0.0f, gathered);
	}
}

/* ---- the energy, in double ------------------------------------------- */

VECTOR_CLONES
void energy_run(const struct energy_coef_d *c, unsigned terms,
		const double *x, int pitch, int parity0, int n, double *e)
{
	if (terms == (TERM_FEM | TERM_BEND)) {
		#pragma omp simd
		for (int a = 0; a < n; a++)
			e[a] = energy_vertex_regular_d(x + 3 * a, pitch,
				(parity0 + a) & 1, c, TERM_FEM | TERM_BEND);
	} else {
		#pragma omp simd
		for (int a = 0; a < n; a++)
			e[a] = energy_vertex_regular_d(x + 3 * a, pitch,
				(parity0 + a) & 1, c, terms);
	}
}

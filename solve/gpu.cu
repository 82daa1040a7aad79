/* gpu.cu - the CUDA kernels of pleat-solve (see gpu.h).
 *
 * The block kernel is the paper's Algorithm 1: one thread block per
 * BLOCK_W x BLOCK_W block of the grid, one thread per interior vertex;
 * the block loads its tile (interior and a halo of two vertices) into
 * shared memory once, runs the inner Jacobi iterations there with the
 * halo frozen, and writes its interior back.  An inner iteration is the
 * CPU's (block.c): with the FEM by cells, each cell's two triangles are
 * computed once into shared memory and a complete vertex sums its four
 * cells' corners (fem_corner_sum, solver.h); vertices near a boundary
 * take the per-vertex gradient; every vertex adds its terms
 * (vertex_terms.h); then, after a barrier, every vertex moves.  The
 * other kernels are one thread per vertex, link or row, each the
 * CPU's arithmetic for it.
 *
 * Every number comes from the PL_HD functions the CPU runs, in the
 * CPU's order, sums included (the energy check and pcg's dot products
 * in double: each row in order on the GPU, the rows in order on the
 * host).  Only the compilers' contraction of a * b + c into a fused
 * multiply-add can differ (nvcc fuses by default; gcc does not in ISO
 * C): built with -fmad=false, or under the CUDA execution model, the
 * results are the CPU's bytes. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_launch.h"
#include "gpu.h"
#include "safe_hd.h"

#define W    8               /* BLOCK_W of solve.h */
#define HALO 2
#define T    (W + 2 * HALO)
#define C    (W + 1)         /* cells a side: corner 00 at HALO - 1 .. */
#define CELL_PLANES 16       /* 4 corners x 3 components, 4 diagonals */

struct cuda_solver {
	int w, h;
	size_t n, nlinks, nbends, ntouched;
	float seam_k;
	float *x, *prev, *next, *good;
	float *rest, *plane, *gather;
	uint32_t *nbr;
	uint8_t *mov;
	struct seam_link *link;
	struct seam_bend *bend;
	float *r2;               /* per bend: |rho|² */
	size_t *start;
	uint32_t *ref_link;
	float *ref_coef, *force, *stretch, *sgrad, *sdiag;
	int32_t *at;
	float *xhat, *normal;    /* the terms' arrays */
	struct vertex_terms t;   /* with device pointers */
	struct energy_coef_d cd;
	double shape;
	/* the energy check: every vertex's share, every row's sums */
	double *share, *rows;
	double *host_rows;
	float *host_stretch, *host_r2, *host_bend_w;
	/* pcg: its vectors and the last g.z */
	float *z, *zprev, *d, *g;
	double gz;
	/* self collision: NULL without */
	struct proximity_cuda *prox;
	double self_search;
	/* --safe: the positions the bounds were measured at, the bounds, and
	 * the counts of the last step (vertices beyond half their bound,
	 * vertices pulled back); NULL without */
	float *safe_x0, *safe_bound;
	unsigned long long *safe_count;
};

/* 0, or -1 with "what: the runtime's reason" in why. */
static int fail(cudaError_t err, const char *what, char *why, size_t n)
{
	if (err == cudaSuccess)
		return 0;
	snprintf(why, n, "%s: %s (the last kernel launched: %s)", what,
		 cudaGetErrorString(err), pl_last_launch);
	return -1;
}

/* A device array of count values, copied from src unless it is NULL
 * (nothing for count 0). */
template <typename V>
static cudaError_t upload(V **dst, const V *src, size_t count)
{
	*dst = NULL;
	if (!count)
		return cudaSuccess;
	cudaError_t err = cudaMalloc((void **)dst, count * sizeof(V));
	if (err == cudaSuccess && src)
		err = cudaMemcpy(*dst, src, count * sizeof(V),
				 cudaMemcpyHostToDevice);
	return err;
}

static unsigned blocks_for(size_t n, unsigned threads)
{
	return (unsigned)((n + threads - 1) / threads);
}

/* ---- kernels ---------------------------------------------------------- */

/* What every per-vertex kernel reads of the problem (device pointers). */
struct grid_args {
	int w, h;
	const float *rest, *plane, *gather;
	const uint32_t *nbr;
	const uint8_t *mov;
	struct solve_coef c;
	struct vertex_terms t;
};

__global__ void seam_force_kernel(const struct seam_link *link, size_t nlinks,
				  const float *x, float k, float *force,
				  float *stretch)
{
	size_t l = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (l < nlinks)
		v3_store(force + 3 * l, seam_link_force(&link[l], x, k,
							&stretch[l]));
}

/* The bends' forces follow the links' in force. */
__global__ void seam_bend_kernel(const struct seam_bend *bend, size_t nbends,
				 const float *x, float *force, float *r2)
{
	size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (b < nbends)
		v3_store(force + 3 * b, seam_bend_force(&bend[b], x, &r2[b]));
}

__global__ void seam_gather_kernel(const float *force, const uint32_t *ref_link,
				   const float *ref_coef, const size_t *start,
				   size_t ntouched, float *grad)
{
	size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (t < ntouched)
		v3_store(grad + 3 * t, seam_gather(force, ref_link, ref_coef,
						   start[t], start[t + 1]));
}

__device__ vec3 gather_at(const struct grid_args &a, int i, int j)
{
	if (i < 0 || j < 0 || i >= a.w || j >= a.h)
		return v3(0.0f, 0.0f, 0.0f);
	return v3_load(a.gather + 3 * ((size_t)j * (size_t)a.w + (size_t)i));
}

/* Every cell of the block, corner 00 at tile positions HALO - 1 ..
 * HALO + W - 1 (those its interior vertices read), into cell: corner k's
 * component j in plane 3k + j, with gathering the corners' diagonal
 * shares in planes 12 to 15 (rows.c's cell_run, cell_run_gathered). */
__device__ void block_cells(const struct grid_args &a, const float *tile,
			    float *cell, int tid, int i0, int j0)
{
	for (int q = tid; q < C * C; q += W * W) {
		int ta = HALO - 1 + q % C, tb = HALO - 1 + q / C;
		const float *p = tile + 3 * (tb * T + ta);
		vec3 x00 = v3_load(p), x10 = v3_load(p + 3);
		vec3 x01 = v3_load(p + 3 * T), x11 = v3_load(p + 3 * T + 3);
		vec3 g[4];
		if (a.gather) {
			int i = i0 + ta, j = j0 + tb;
			struct fem_cell_rest_f r = fem_cell_gathered_f(x00, x10,
				x01, x11, gather_at(a, i, j), gather_at(a, i + 1, j),
				gather_at(a, i, j + 1), gather_at(a, i + 1, j + 1),
				&a.c.e);
			g[0] = r.g00;
			g[1] = r.g10;
			g[2] = r.g01;
			g[3] = r.g11;
			cell[12 * C * C + q] = r.d00;
			cell[13 * C * C + q] = r.d10;
			cell[14 * C * C + q] = r.d01;
			cell[15 * C * C + q] = r.d11;
		} else {
			struct fem_cell_f r = fem_cell_grad_f(x00, x10, x01, x11,
							      &a.c.e);
			g[0] = r.g00;
			g[1] = r.g10;
			g[2] = r.g01;
			g[3] = r.g11;
		}
		for (int k = 0; k < 4; k++) {
			cell[(3 * k) * C * C + q] = g[k].x;
			cell[(3 * k + 1) * C * C + q] = g[k].y;
			cell[(3 * k + 2) * C * C + q] = g[k].z;
		}
	}
}

/* Plane k's sum over the four cells around the vertex whose own cell is
 * q (fem_corner_sum): k00 of q, k10 of the cell to its left, k01 of the
 * one below, k11 of the one below and to the left. */
__device__ float cell_sum(const float *cell, int q, int k00, int k10,
			  int k01, int k11)
{
	return fem_corner_sum(cell[k00 * C * C + q], cell[k10 * C * C + q - 1],
			      cell[k01 * C * C + q - C],
			      cell[k11 * C * C + q - C - 1]);
}

/* A complete vertex's gradient from the cells (rows.c's
 * vertex_grad_cells): xt at it in the tile, xf where its far bending
 * neighbours are read (pitch fpitch), q its own cell. */
__device__ void grad_by_cells(const struct grid_args &a, const float *xt,
			      const float *xf, int fpitch, const float *cell,
			      int q, size_t v, int parity, vec3 *g, float *d)
{
	vec3 fem = v3(cell_sum(cell, q, 0, 3, 6, 9), cell_sum(cell, q, 1, 4, 7, 10),
		      cell_sum(cell, q, 2, 5, 8, 11));
	float fem_d = a.gather ? cell_sum(cell, q, 12, 13, 14, 15) : a.c.fem_diag;
	vec3 xv = v3_load(xt), nbd[12];
	for (int k = 0; k < 12; k++) {
		int di = nb_di(k), dj = nb_dj(k);
		const float *y = nb_far(k) ? xf + 3 * (di + dj * fpitch)
					   : xt + 3 * (di + dj * T);
		nbd[k] = v3_sub(v3_load(y), xv);
	}
	solve_vertex_grad_cells(xv, v3_load(a.rest + 3 * v), nbd, parity, &a.c,
				a.c.shape > 0.0f, fem, fem_d, g, d);
}

__device__ int fem_by_cells(const struct solve_coef *c)
{
	return (c->terms & TERM_FEM) && !(c->terms & TERM_SPRING);
}

/* The block's tile of x, and with Eq. 9 its copy that stays at the
 * start of the block (block.c's tile_copy: 0 past the grid). */
__device__ void tile_load(const struct grid_args &a, const float *x,
			  float *tile, float *start, int tid, int i0, int j0)
{
	for (int q = tid; q < T * T; q += W * W) {
		int i = i0 + q % T, j = j0 + q / T;
		int in = i >= 0 && j >= 0 && i < a.w && j < a.h;
		size_t v = in ? (size_t)j * (size_t)a.w + (size_t)i : 0;
		for (int k = 0; k < 3; k++) {
			tile[3 * q + k] = in ? x[3 * v + k] : 0.0f;
			if (a.c.far_start)
				start[3 * q + k] = tile[3 * q + k];
		}
	}
}

__global__ void block_kernel(struct grid_args a, const float *x, float *out,
			     int inner, float inner_rho)
{
	__shared__ float tile[T * T * 3], start[T * T * 3];
	__shared__ float cell[CELL_PLANES * C * C];
	int tx = threadIdx.x, ty = threadIdx.y, tid = ty * W + tx;
	int i0 = blockIdx.x * W - HALO, j0 = blockIdx.y * W - HALO;
	tile_load(a, x, tile, start, tid, i0, j0);
	__syncthreads();
	int i = i0 + HALO + tx, j = j0 + HALO + ty, parity = (i + j) & 1;
	int in = i < a.w && j < a.h;
	size_t v = in ? (size_t)j * (size_t)a.w + (size_t)i : 0;
	int active = in && a.mov[v], cells = fem_by_cells(&a.c);
	int complete = active && cells && nbr_complete(a.nbr[v], parity);
	int at = (ty + HALO) * T + tx + HALO;
	float *xt = tile + 3 * at;
	/* Eq. 9: the far bending neighbours from the start of the block */
	const float *xf = a.c.far_start ? start + 3 * at : xt;
	const float *S = a.gather && in ? a.gather + 3 * v : NULL;
	float old[3] = {0.0f, 0.0f, 0.0f};
	float omega = 1.0f;
	for (int l = 0; l < inner; l++) {
		omega = inner_rho > 0.0f ? cheb_omega(l, 1, inner_rho, omega)
					 : 1.0f;
		if (cells) {
			block_cells(a, tile, cell, tid, i0, j0);
			__syncthreads();
		}
		vec3 s = v3(0.0f, 0.0f, 0.0f);
		if (active) {
			vec3 g;
			float d;
			if (complete)
				grad_by_cells(a, xt, xf, T, cell, (ty + 1) * C + tx + 1,
					      v, parity, &g, &d);
			else
				solve_vertex_grad_far(xt, T, xf, T, a.rest + 3 * v, S,
						      a.nbr[v], parity, &a.c, &g, &d);
			vertex_terms_grad(&a.t, v, xt, T, x, a.nbr[v],
					  a.rest + 3 * v, &g, &d);
			s = seam_step_limit(&a.t, v,
					    solve_vertex_step(g, d, a.c.step));
		}
		__syncthreads();  /* every step from the tile before any move */
		if (active) {
			float st[3] = {s.x, s.y, s.z};
			for (int k = 0; k < 3; k++) {
				float now = xt[k];
				xt[k] = cheb_mix(now + st[k], old[k], omega);
				old[k] = now;
			}
			if (a.plane)
				v3_store(xt, collide_project_halfplane(v3_load(xt),
								a.plane + 4 * v));
		}
		__syncthreads();
	}
	if (in)
		v3_store(out + 3 * v, v3_load(xt));
}

/* Vertex (i, j)'s gradient of the whole objective at x, 0 when it does
 * not move (methods.c's gd_vertex, objective.c's gradient_vertex). */
__device__ void grid_grad(const struct grid_args &a, const float *x, int i,
			  int j, size_t v, vec3 *g, float *d)
{
	*g = v3(0.0f, 0.0f, 0.0f);
	*d = 0.0f;
	if (!a.mov[v])
		return;
	solve_grid_vertex_grad(x, a.w, a.h, i, j, a.rest + 3 * v,
			       a.gather ? a.gather + 3 * v : NULL, a.nbr[v], 1,
			       &a.c, g, d);
	vertex_terms_grad(&a.t, v, x + 3 * v, a.w, x, a.nbr[v], a.rest + 3 * v,
			  g, d);
}

/* This thread's grid vertex (i, j), v = j w + i, of a 2-D launch over
 * the grid; 0 for the threads past its edges. */
__device__ static inline int grid_thread(const struct grid_args &a, int *i,
					 int *j, size_t *v)
{
	*i = blockIdx.x * blockDim.x + threadIdx.x;
	*j = blockIdx.y * blockDim.y + threadIdx.y;
	if (*i >= a.w || *j >= a.h)
		return 0;
	*v = (size_t)*j * (size_t)a.w + (size_t)*i;
	return 1;
}

__global__ void gd_kernel(struct grid_args a, const float *x, float *out)
{
	int i, j;
	size_t v;
	if (!grid_thread(a, &i, &j, &v))
		return;
	vec3 g, s = v3(0.0f, 0.0f, 0.0f);
	float d;
	grid_grad(a, x, i, j, v, &g, &d);
	if (a.mov[v])
		s = solve_vertex_step(g, d, a.c.step);
	vec3 y = v3_add(v3_load(x + 3 * v), s);
	if (a.plane && a.mov[v])
		y = collide_project_halfplane(y, a.plane + 4 * v);
	v3_store(out + 3 * v, y);
}

__global__ void gradient_kernel(struct grid_args a, const float *x,
				float *grad)
{
	int i, j;
	size_t v;
	if (!grid_thread(a, &i, &j, &v))
		return;
	vec3 g;
	float d;
	grid_grad(a, x, i, j, v, &g, &d);
	v3_store(grad + 3 * v, g);
}

__global__ void cheb_kernel(float *out, const float *prev, const uint8_t *mov,
			    const float *plane, size_t n, float omega)
{
	size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (v >= n || !mov[v])
		return;
	for (int k = 0; k < 3; k++)
		out[3 * v + k] = cheb_mix(out[3 * v + k], prev[3 * v + k], omega);
	if (plane)
		v3_store(out + 3 * v, collide_project_halfplane(v3_load(out + 3 * v),
								plane + 4 * v));
}

/* --safe: every moving vertex pulled back within its bound (safe.h);
 * count[0] += those beyond half of it, count[1] += those pulled back. */
__global__ void safe_kernel(float *x, const float *x0, const float *bound,
			    const uint8_t *mov, size_t n,
			    unsigned long long *count)
{
	size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (v >= n || !mov[v])
		return;
	int r = safe_clamp_vertex(x + 3 * v, x0 + 3 * v, bound[v]);
	if (r != SAFE_WITHIN)
		atomicAdd(&count[0], 1ull);
	if (r == SAFE_CLAMPED)
		atomicAdd(&count[1], 1ull);
}

/* out = a - b, m floats */
__global__ void sub_kernel(const float *a, const float *b, float *out,
			   size_t m)
{
	size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (k < m)
		out[k] = a[k] - b[k];
}

/* rows[j] = the sum over row j's moving vertices of a . b, in order
 * (objective.c's problem_dot). */
__global__ void dot_rows_kernel(const float *a, const float *b,
				const uint8_t *mov, int w, int h, double *rows)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= h)
		return;
	double sum = 0;
	for (size_t v = (size_t)j * (size_t)w; v < (size_t)(j + 1) * (size_t)w;
	     v++)
		if (mov[v])
			for (int k = 0; k < 3; k++)
				sum += (double)a[3 * v + k] * b[3 * v + k];
	rows[j] = sum;
}

/* pcg's move (methods.c's pcg_step): d = z + b d on the moving vertices
 * (0 elsewhere), next = x + d, projected onto the body. */
__global__ void pcg_move_kernel(const float *x, const float *z, float *d,
				float *next, const uint8_t *mov,
				const float *plane, size_t n, float b)
{
	size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (v >= n)
		return;
	for (int k = 0; k < 3; k++) {
		size_t q = 3 * v + (size_t)k;
		d[q] = mov[v] ? pcg_direction(z[q], b, d[q]) : 0.0f;
		next[q] = x[q] + d[q];
	}
	if (plane && mov[v])
		v3_store(next + 3 * v, collide_project_halfplane(v3_load(next + 3 * v),
								 plane + 4 * v));
}

/* Vertex (i, j)'s grid energies in double (objective.c's row_energies):
 * its 5 x 5 neighbourhood converted, as the CPU converts the rows. */
__device__ double grid_energy(const struct grid_args &a, const float *x,
			      const struct energy_coef_d &cd, int i, int j,
			      size_t v)
{
	uint32_t nbr = a.nbr[v];
	if (!nbr)
		return 0;
	double win[5 * 5 * 3];
	for (int dj = -2; dj <= 2; dj++)
		for (int di = -2; di <= 2; di++) {
			int ii = i + di, jj = j + dj;
			int in = ii >= 0 && jj >= 0 && ii < a.w && jj < a.h;
			const float *y = x + 3 * ((size_t)jj * (size_t)a.w +
						  (size_t)ii);
			for (int k = 0; k < 3; k++)
				win[3 * ((dj + 2) * 5 + di + 2) + k] = in ? y[k] : 0.0;
		}
	const double *xd = win + 3 * (2 * 5 + 2);
	int parity = (i + j) & 1;
	if (energy_vertex_runs(nbr, parity, a.gather != NULL, cd.bend_rule))
		return energy_vertex_regular_d(xd, 5, parity, &cd, a.c.terms);
	return energy_vertex_gather_d(xd, 5, nbr, parity, &cd, a.c.terms,
				      a.gather ? a.gather + 3 * v : NULL, a.w);
}

__global__ void check_kernel(struct grid_args a, const float *x,
			     struct energy_coef_d cd, double shape,
			     double *share)
{
	int i, j;
	size_t v;
	if (!grid_thread(a, &i, &j, &v))
		return;
	vec3 g = v3(0.0f, 0.0f, 0.0f);
	float d = 0.0f;
	if (a.mov[v])
		solve_grid_vertex_grad(x, a.w, a.h, i, j, a.rest + 3 * v,
				       a.gather ? a.gather + 3 * v : NULL,
				       a.nbr[v], 1, &a.c, &g, &d);
	struct check_share c = check_vertex(&a.t, v, x, a.w, a.nbr[v],
					    a.rest + 3 * v, a.mov[v], shape,
					    grid_energy(a, x, cd, i, j, v), g, d);
	share[3 * v] = c.energy;
	share[3 * v + 1] = c.g2;
	share[3 * v + 2] = c.noise;
}

/* rows[3 j .. 3 j + 2] = row j's shares summed in order. */
__global__ void check_rows_kernel(const double *share, int w, int h,
				  double *rows)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= h)
		return;
	double en = 0, g2 = 0, noise = 0;
	for (size_t v = (size_t)j * (size_t)w; v < (size_t)(j + 1) * (size_t)w;
	     v++) {
		en += share[3 * v];
		g2 += share[3 * v + 1];
		noise += share[3 * v + 2];
	}
	rows[3 * j] = en;
	rows[3 * j + 1] = g2;
	rows[3 * j + 2] = noise;
}

/* ---- host side -------------------------------------------------------------- */

static struct grid_args grid_args_of(const struct cuda_solver *s,
				     const struct solve_coef *c)
{
	struct grid_args a;
	memset(&a, 0, sizeof a);
	a.w = s->w;
	a.h = s->h;
	a.rest = s->rest;
	a.plane = s->plane;
	a.gather = s->gather;
	a.nbr = s->nbr;
	a.mov = s->mov;
	a.c = *c;
	a.t = s->t;
	if (s->prox) {
		a.t.self_list = proximity_cuda_list(s->prox);
		a.t.self_found = proximity_cuda_found(s->prox);
	}
	return a;
}

/* The seams at s->x: every link's force and stretch, and the touched
 * vertices' gradient (solve/seam.c's seams_update). */
static cudaError_t seams_update(struct cuda_solver *s)
{
	if (!s->nlinks)
		return cudaSuccess;
	cudaError_t err = PL_LAUNCH(seam_force_kernel, blocks_for(s->nlinks, 256),
				    256, s->link, s->nlinks, s->x, s->seam_k,
				    s->force, s->stretch);
	if (err == cudaSuccess && s->nbends)
		err = PL_LAUNCH(seam_bend_kernel, blocks_for(s->nbends, 256), 256,
				s->bend, s->nbends, s->x,
				s->force + 3 * s->nlinks, s->r2);
	if (err == cudaSuccess)
		err = PL_LAUNCH(seam_gather_kernel, blocks_for(s->ntouched, 256),
				256, s->force, s->ref_link, s->ref_coef, s->start,
				s->ntouched, s->sgrad);
	return err;
}

static dim3 vertex_blocks(const struct cuda_solver *s)
{
	return dim3(blocks_for((size_t)s->w, W), blocks_for((size_t)s->h, W));
}

/* Upload of the problem's arrays and the terms' (see gpu.h). */
static cudaError_t problem_upload(struct cuda_solver *s,
				  const struct cuda_problem *cp)
{
	size_t n = s->n;
	cudaError_t err = cudaSuccess;
	float **vec[] = {&s->x, &s->prev, &s->next, &s->good};
	for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++)
		if (err == cudaSuccess)
			err = upload(vec[k], (const float *)NULL, 3 * n);
	if (err == cudaSuccess) err = upload(&s->rest, cp->rest, 3 * n);
	if (err == cudaSuccess) err = upload(&s->nbr, cp->nbr, n);
	if (err == cudaSuccess) err = upload(&s->mov, cp->mov, n);
	if (err == cudaSuccess && cp->plane) err = upload(&s->plane, cp->plane, 4 * n);
	if (err == cudaSuccess && cp->gather) err = upload(&s->gather, cp->gather, 3 * n);
	if (cp->nlinks) {
		if (err == cudaSuccess) err = upload(&s->link, cp->link, cp->nlinks);
		if (err == cudaSuccess) err = upload(&s->start, cp->start, cp->ntouched + 1);
		if (err == cudaSuccess) err = upload(&s->ref_link, cp->ref_link, cp->nrefs);
		if (err == cudaSuccess) err = upload(&s->ref_coef, cp->ref_coef, cp->nrefs);
		if (err == cudaSuccess) err = upload(&s->at, cp->at, n);
		if (err == cudaSuccess) err = upload(&s->sdiag, cp->seam_diag, cp->ntouched);
		if (err == cudaSuccess && cp->nbends) err = upload(&s->bend, cp->bend, cp->nbends);
		if (err == cudaSuccess && cp->nbends) err = upload(&s->r2, (const float *)NULL, cp->nbends);
		if (err == cudaSuccess) err = upload(&s->force, (const float *)NULL, 3 * (cp->nlinks + cp->nbends));
		if (err == cudaSuccess) err = upload(&s->stretch, (const float *)NULL, cp->nlinks);
		if (err == cudaSuccess) err = upload(&s->sgrad, (const float *)NULL, 3 * cp->ntouched);
	}
	const struct vertex_terms *t = cp->terms;
	if (err == cudaSuccess && t->xhat) err = upload(&s->xhat, t->xhat, 3 * n);
	if (err == cudaSuccess && t->infl.normal)
		err = upload(&s->normal, (const float *)t->infl.normal, 3 * n);
	if (err == cudaSuccess) err = upload(&s->share, (const double *)NULL, 3 * n);
	if (err == cudaSuccess) err = upload(&s->rows, (const double *)NULL, 3 * (size_t)s->h);
	if (cp->safe) {
		if (err == cudaSuccess) err = upload(&s->safe_x0, (const float *)NULL, 3 * n);
		if (err == cudaSuccess) err = upload(&s->safe_bound, (const float *)NULL, n);
		if (err == cudaSuccess)
			err = upload(&s->safe_count, (const unsigned long long *)NULL, 2);
	}
	if (cp->pcg) {
		float **pcg[] = {&s->z, &s->zprev, &s->d, &s->g};
		for (size_t k = 0; k < sizeof pcg / sizeof pcg[0]; k++)
			if (err == cudaSuccess)
				err = upload(pcg[k], (const float *)NULL, 3 * n);
		if (err == cudaSuccess)
			err = cudaMemset(s->d, 0, 3 * n * sizeof(float));
	}
	return err;
}

/* s->t: the host's terms with the GPU's arrays. */
static void terms_of(struct cuda_solver *s, const struct cuda_problem *cp)
{
	struct vertex_terms *t = &s->t;
	*t = *cp->terms;
	t->seam_at = s->nlinks ? s->at : NULL;
	t->seam_grad = s->sgrad;
	t->seam_diag = s->sdiag;
	t->self_list = NULL;     /* the GPU's own lists, at each launch */
	t->self_found = NULL;
	t->self_k = cp->self ? cp->self->k : 0;
	t->self_radius = cp->self_radius;
	t->self_stiffness = cp->self_k;
	t->xhat = s->xhat;
	t->infl.normal = s->normal;
	t->force = NULL;         /* refused in cuda_solver_new */
}

extern "C" struct cuda_solver *cuda_solver_new(const struct cuda_problem *cp,
					       int dev, char *why, size_t n)
{
	struct cuda_solver *s = (struct cuda_solver *)calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, n, "out of host memory");
		return NULL;
	}
	if (cp->terms->force) {
		/* the multigrid method runs only its finest level here, which
		 * has no coarse-level correction */
		free(s);
		snprintf(why, n, "a coarse level's correction force is not "
			 "uploaded to the GPU");
		return NULL;
	}
	s->w = cp->w;
	s->h = cp->h;
	s->n = (size_t)cp->w * (size_t)cp->h;
	s->nlinks = cp->nlinks;
	s->nbends = cp->nbends;
	s->ntouched = cp->ntouched;
	s->seam_k = cp->seam_k;
	s->cd = cp->cd;
	s->shape = cp->shape;
	s->self_search = cp->self_search;
	s->host_rows = (double *)malloc(3 * (size_t)s->h * sizeof(double));
	s->host_stretch = (float *)malloc((s->nlinks ? s->nlinks : 1) *
					  sizeof(float));
	s->host_r2 = (float *)malloc((s->nbends ? s->nbends : 1) * sizeof(float));
	s->host_bend_w = (float *)malloc((s->nbends ? s->nbends : 1) *
					 sizeof(float));
	char ignored[256];
	if (!s->host_rows || !s->host_stretch || !s->host_r2 ||
	    !s->host_bend_w) {
		cuda_solver_free(s, ignored, sizeof ignored);
		snprintf(why, n, "out of host memory");
		return NULL;
	}
	for (size_t b = 0; b < s->nbends; b++)
		s->host_bend_w[b] = cp->bend[b].w;
	cudaError_t err = cudaSetDevice(dev);
	if (err == cudaSuccess)
		err = problem_upload(s, cp);
	if (fail(err, "cannot set up the problem on the GPU", why, n)) {
		cuda_solver_free(s, ignored, sizeof ignored);
		return NULL;
	}
	terms_of(s, cp);
	if (cp->self && !(s->prox = proximity_cuda_new(cp->self, why, n))) {
		cuda_solver_free(s, ignored, sizeof ignored);
		return NULL;
	}
	return s;
}

extern "C" int cuda_solver_free(struct cuda_solver *s, char *why, size_t n)
{
	if (!s)
		return 0;
	void *p[] = {s->x, s->prev, s->next, s->good, s->rest, s->plane,
		     s->gather, s->nbr, s->mov, s->link, s->bend, s->r2,
		     s->start, s->ref_link,
		     s->ref_coef, s->force, s->stretch, s->sgrad, s->sdiag, s->at,
		     s->xhat, s->normal, s->share, s->rows, s->z, s->zprev, s->d,
		     s->g, s->safe_x0, s->safe_bound, s->safe_count};
	cudaError_t err = cudaSuccess;
	for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) {
		cudaError_t e = cudaFree(p[k]);
		if (err == cudaSuccess)
			err = e;
	}
	int bad = fail(err, "cannot free the GPU's memory", why, n);
	if (proximity_cuda_free(s->prox, why, n))
		bad = -1;
	free(s->host_rows);
	free(s->host_stretch);
	free(s->host_r2);
	free(s->host_bend_w);
	free(s);
	return bad;
}

extern "C" int cuda_solver_put(struct cuda_solver *s, const float *x,
			       char *why, size_t n)
{
	size_t bytes = 3 * s->n * sizeof(float);
	cudaError_t err = cudaMemcpy(s->x, x, bytes, cudaMemcpyHostToDevice);
	if (err == cudaSuccess)
		err = cudaMemcpy(s->prev, s->x, bytes, cudaMemcpyDeviceToDevice);
	if (err == cudaSuccess)
		err = cudaMemcpy(s->good, s->x, bytes, cudaMemcpyDeviceToDevice);
	return fail(err, "cannot copy x to the GPU", why, n);
}

extern "C" int cuda_solver_get(struct cuda_solver *s, float *x, char *why,
			       size_t n)
{
	return fail(cudaMemcpy(x, s->x, 3 * s->n * sizeof(float),
			       cudaMemcpyDeviceToHost),
		    "cannot copy x from the GPU", why, n);
}

extern "C" int cuda_solver_refresh(struct cuda_solver *s, int it, char *why,
				   size_t n)
{
	if (!s->prox || !collide_refresh_due(it))
		return 0;
	return proximity_cuda_refresh(s->prox, s->x, s->self_search, why, n);
}

/* The sum of m doubles in order (of rows, each summed in order on the
 * GPU): the CPU's order, so the same number. */
static double sum_in_order(const double *v, size_t m, size_t stride)
{
	double sum = 0;
	for (size_t k = 0; k < m; k++)
		sum += v[k * stride];
	return sum;
}

/* a . b over the moving vertices (objective.c's problem_dot). */
static cudaError_t dot(struct cuda_solver *s, const float *a, const float *b,
		       double *out)
{
	cudaError_t err = PL_LAUNCH(dot_rows_kernel, blocks_for((size_t)s->h, 64),
				    64, a, b, s->mov, s->w, s->h, s->rows);
	if (err == cudaSuccess)
		err = cudaMemcpy(s->host_rows, s->rows, (size_t)s->h * sizeof(double),
				 cudaMemcpyDeviceToHost);
	*out = sum_in_order(s->host_rows, (size_t)s->h, 1);
	return err;
}

/* Nonlinear PCG with the block step as preconditioner (methods.c's
 * pcg_step); s->next gets the new iterate. */
static cudaError_t pcg_step(struct cuda_solver *s, const struct cuda_step *st,
			    const struct grid_args &a)
{
	size_t m = 3 * s->n;
	double gz = 0, gzp = 0;
	cudaError_t err = PL_LAUNCH(block_kernel, vertex_blocks(s), dim3(W, W), a,
				    s->x, s->next, st->inner, st->inner_rho);
	if (err == cudaSuccess)
		err = PL_LAUNCH(sub_kernel, blocks_for(m, 256), 256, s->next, s->x,
				s->z, m);
	if (err == cudaSuccess)
		err = PL_LAUNCH(gradient_kernel, vertex_blocks(s), dim3(W, W), a,
				s->x, s->g);
	if (err == cudaSuccess)
		err = dot(s, s->g, s->z, &gz);
	int restart = st->restart || !(s->gz < 0);
	if (err == cudaSuccess && !restart)
		err = dot(s, s->g, s->zprev, &gzp);
	float b = (float)pcg_beta(gz, gzp, s->gz, restart);
	if (err == cudaSuccess)
		err = PL_LAUNCH(pcg_move_kernel, blocks_for(s->n, 256), 256, s->x,
				s->z, s->d, s->next, s->mov, s->plane, s->n, b);
	float *t = s->zprev;
	s->zprev = s->z;
	s->z = t;
	s->gz = gz;
	return err;
}

extern "C" int cuda_solver_step(struct cuda_solver *s, const struct cuda_step *st,
				char *why, size_t n)
{
	struct grid_args a = grid_args_of(s, st->c);
	cudaError_t err = seams_update(s);
	if (err != cudaSuccess)
		;
	else if (st->method == CUDA_PCG)
		err = pcg_step(s, st, a);
	else if (st->method == CUDA_BLOCK)
		err = PL_LAUNCH(block_kernel, vertex_blocks(s), dim3(W, W), a, s->x,
				s->next, st->inner, st->inner_rho);
	else
		err = PL_LAUNCH(gd_kernel, vertex_blocks(s), dim3(W, W), a, s->x,
				s->next);
	if (err == cudaSuccess && st->omega != 1.0f)
		err = PL_LAUNCH(cheb_kernel, blocks_for(s->n, 256), 256, s->next,
				s->prev, s->mov, s->plane, s->n, st->omega);
	if (err == cudaSuccess && s->safe_bound)
		err = PL_LAUNCH(safe_kernel, blocks_for(s->n, 256), 256, s->next,
				s->safe_x0, s->safe_bound, s->mov, s->n,
				s->safe_count);
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	if (fail(err, "a solver kernel failed", why, n))
		return -1;
	float *t = s->prev;
	s->prev = s->x;
	s->x = s->next;
	s->next = t;
	return 0;
}

extern "C" int cuda_solver_check(struct cuda_solver *s, const struct solve_coef *c,
				 double out[3], char *why, size_t n)
{
	struct grid_args a = grid_args_of(s, c);
	cudaError_t err = seams_update(s);
	if (err == cudaSuccess)
		err = PL_LAUNCH(check_kernel, vertex_blocks(s), dim3(W, W), a, s->x,
				s->cd, s->shape, s->share);
	if (err == cudaSuccess)
		err = PL_LAUNCH(check_rows_kernel, blocks_for((size_t)s->h, 64), 64,
				s->share, s->w, s->h, s->rows);
	if (err == cudaSuccess)
		err = cudaMemcpy(s->host_rows, s->rows,
				 3 * (size_t)s->h * sizeof(double),
				 cudaMemcpyDeviceToHost);
	if (err == cudaSuccess && s->nlinks)
		err = cudaMemcpy(s->host_stretch, s->stretch,
				 s->nlinks * sizeof(float), cudaMemcpyDeviceToHost);
	if (err == cudaSuccess && s->nbends)
		err = cudaMemcpy(s->host_r2, s->r2, s->nbends * sizeof(float),
				 cudaMemcpyDeviceToHost);
	if (fail(err, "the energy check failed on the GPU", why, n))
		return -1;
	/* the seams' energy in link order, as seams_update sums it */
	double seams = 0;
	for (size_t k = 0; k < s->nlinks; k++)
		seams += seam_link_energy(s->seam_k, s->host_stretch[k]);
	for (size_t b = 0; b < s->nbends; b++)
		seams += seam_bend_energy(s->host_bend_w[b], s->host_r2[b]);
	out[0] = sum_in_order(s->host_rows, (size_t)s->h, 3) + seams;
	out[1] = sum_in_order(s->host_rows + 1, (size_t)s->h, 3);
	out[2] = sum_in_order(s->host_rows + 2, (size_t)s->h, 3);
	return 0;
}

extern "C" int cuda_solver_safe_set(struct cuda_solver *s, const float *x0,
				    const float *bound, char *why, size_t n)
{
	cudaError_t err = cudaMemcpy(s->safe_x0, x0, 3 * s->n * sizeof(float),
				     cudaMemcpyHostToDevice);
	if (err == cudaSuccess)
		err = cudaMemcpy(s->safe_bound, bound, s->n * sizeof(float),
				 cudaMemcpyHostToDevice);
	if (err == cudaSuccess)
		err = cudaMemset(s->safe_count, 0, 2 * sizeof(unsigned long long));
	return fail(err, "cannot set the --safe bounds on the GPU", why, n);
}

extern "C" int cuda_solver_safe_poll(struct cuda_solver *s, size_t count[2],
				     char *why, size_t n)
{
	unsigned long long c[2];
	cudaError_t err = cudaMemcpy(c, s->safe_count, sizeof c,
				     cudaMemcpyDeviceToHost);
	if (err == cudaSuccess)
		err = cudaMemset(s->safe_count, 0, sizeof c);
	count[0] = (size_t)c[0];
	count[1] = (size_t)c[1];
	return fail(err, "cannot read the --safe counts from the GPU", why, n);
}

extern "C" int cuda_solver_keep(struct cuda_solver *s, char *why, size_t n)
{
	return fail(cudaMemcpy(s->good, s->x, 3 * s->n * sizeof(float),
			       cudaMemcpyDeviceToDevice),
		    "cannot keep x on the GPU", why, n);
}

extern "C" int cuda_solver_restore(struct cuda_solver *s, char *why, size_t n)
{
	size_t bytes = 3 * s->n * sizeof(float);
	cudaError_t err = cudaMemcpy(s->x, s->good, bytes, cudaMemcpyDeviceToDevice);
	if (err == cudaSuccess)
		err = cudaMemcpy(s->prev, s->good, bytes, cudaMemcpyDeviceToDevice);
	return fail(err, "cannot go back to the accepted x on the GPU", why, n);
}

/* gpu.cu - the CUDA kernels of pleat-solve (see gpu.h).
 *
 * The block kernel is the paper's Algorithm 1: one thread block per
 * BLOCK_W x BLOCK_W block of the grid, one thread per interior vertex;
 * the block loads its tile (interior and a halo of two vertices) into
 * shared memory once, runs the inner Jacobi iterations there, each
 * between two barriers exactly as the CPU's inner_iteration, and writes
 * its interior back.  Every number comes from the PL_HD functions the
 * CPU runs; what differs is only where the compilers fuse a multiply and
 * an add. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "cuda_launch.h"
#include "gpu.h"

#define W    8               /* BLOCK_W of solve.h */
#define HALO 2
#define T    (W + 2 * HALO)

struct cuda_solver {
	int w, h;
	size_t n, nlinks, ntouched;
	float seam_k;
	float *x, *prev, *next;
	float *rest, *plane;
	uint32_t *nbr;
	uint8_t *mov;
	struct seam_link *link;
	size_t *start;
	uint32_t *ref_link;
	float *ref_coef, *force, *sgrad, *sdiag;
	int32_t *at;
	/* self collision: NULL without */
	struct proximity_cuda *prox;
	int list_k;              /* list length K */
	float self_radius, self_k;
	double self_search;
	uint32_t *list_out;
	uint16_t *found_out;
};

static int fail(cudaError_t err, const char *what, char *why, size_t n)
{
	if (err == cudaSuccess)
		return 0;
	snprintf(why, n, "%s: %s", what, cudaGetErrorString(err));
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

/* ---- kernels ------------------------------------------------------- */

__global__ void seam_force_kernel(const struct seam_link *link, size_t nlinks,
				  const float *x, float k, float *force)
{
	size_t l = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (l >= nlinks)
		return;
	float stretch;
	v3_store(force + 3 * l, seam_link_force(&link[l], x, k, &stretch));
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

struct step_args {
	int w, h;
	const float *x, *rest, *sgrad, *sdiag;
	const float *plane;      /* NULL: no body */
	const uint32_t *nbr;
	const uint8_t *mov;
	const int32_t *at;       /* NULL: no seams */
	float *out;
	struct solve_coef c;
	/* self collision: list NULL without */
	const uint32_t *list;
	const uint16_t *found;
	int k;
	float self_radius, self_k;
};

/* xf, fpitch: where the bending neighbours two steps away are read
 * (solve_vertex_grad_far) */
__device__ void vertex_grad(const struct step_args &a, const float *xv,
			    int pitch, const float *xf, int fpitch, size_t v,
			    int parity, vec3 *g, float *d)
{
	solve_vertex_grad_far(xv, pitch, xf, fpitch, a.rest + 3 * v,
			      (const float *)0, a.nbr[v], parity, &a.c, g, d);
	if (a.at)
		seam_term(a.at, a.sgrad, a.sdiag, v, xv, a.x + 3 * v, g, d);
	/* the neighbours at the start of the outer iteration, as the CPU's
	 * extra_vertex */
	if (a.list)
		collide_repel_list(xv, a.x, a.list + v * (size_t)a.k,
				   proximity_kept_of(a.found[v], a.k),
				   a.self_radius, a.self_k, g, d);
}

__global__ void gd_kernel(struct step_args a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int j = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= a.w || j >= a.h)
		return;
	size_t v = (size_t)j * (size_t)a.w + (size_t)i;
	vec3 s = v3(0.0f, 0.0f, 0.0f);
	if (a.mov[v]) {
		vec3 g;
		float d;
		vertex_grad(a, a.x + 3 * v, a.w, a.x + 3 * v, a.w, v,
			    (i + j) & 1, &g, &d);
		s = solve_vertex_step(g, d, a.c.step);
	}
	vec3 y = v3_add(v3_load(a.x + 3 * v), s);
	if (a.plane && a.mov[v])
		y = collide_project_halfplane(y, a.plane + 4 * v);
	v3_store(a.out + 3 * v, y);
}

__global__ void block_kernel(struct step_args a, int inner, float inner_rho)
{
	__shared__ float tile[T * T * 3];
	int tx = threadIdx.x, ty = threadIdx.y, tid = ty * W + tx;
	int i0 = blockIdx.x * W - HALO, j0 = blockIdx.y * W - HALO;
	for (int q = tid; q < T * T; q += W * W) {
		int i = i0 + q % T, j = j0 + q / T;
		int in = i >= 0 && j >= 0 && i < a.w && j < a.h;
		size_t v = in ? (size_t)j * (size_t)a.w + (size_t)i : 0;
		for (int k = 0; k < 3; k++)
			tile[3 * q + k] = in ? a.x[3 * v + k] : 0.0f;
	}
	__syncthreads();
	int i = i0 + HALO + tx, j = j0 + HALO + ty;
	int in = i < a.w && j < a.h;
	size_t v = in ? (size_t)j * (size_t)a.w + (size_t)i : 0;
	int active = in && a.mov[v];
	float *xt = tile + 3 * ((ty + HALO) * T + tx + HALO);
	/* Eq. 9: the far bending neighbours from x, the start of the block
	 * (as block.c's tile copy of it) */
	const float *xf = a.c.far_start ? a.x + 3 * v : xt;
	int fpitch = a.c.far_start ? a.w : T;
	float old[3] = {0.0f, 0.0f, 0.0f};
	/* the CPU skips a block with no moving vertex; its values are
	 * written back unchanged either way */
	float omega = 1.0f;
	for (int l = 0; l < inner; l++) {
		omega = inner_rho > 0.0f ? cheb_omega(l, 1, inner_rho, omega)
					 : 1.0f;
		vec3 s = v3(0.0f, 0.0f, 0.0f);
		if (active) {
			vec3 g;
			float d;
			vertex_grad(a, xt, T, xf, fpitch, v, (i + j) & 1, &g,
				    &d);
			s = solve_vertex_step(g, d, a.c.step);
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
		v3_store(a.out + 3 * v, v3_load(xt));
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

/* ---- host side ----------------------------------------------------- */

static unsigned blocks_for(size_t n, unsigned threads)
{
	return (unsigned)((n + threads - 1) / threads);
}

extern "C" struct cuda_solver *cuda_solver_new(const struct cuda_problem *cp,
					       int dev, char *why, size_t n)
{
	struct cuda_solver *s = (struct cuda_solver *)calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, n, "out of host memory");
		return NULL;
	}
	s->w = cp->w;
	s->h = cp->h;
	s->n = (size_t)cp->w * (size_t)cp->h;
	s->nlinks = cp->nlinks;
	s->ntouched = cp->ntouched;
	s->seam_k = cp->seam_k;
	cudaError_t err = cudaSetDevice(dev);
	if (err == cudaSuccess) err = upload(&s->x, (const float *)NULL, 3 * s->n);
	if (err == cudaSuccess) err = upload(&s->prev, (const float *)NULL, 3 * s->n);
	if (err == cudaSuccess) err = upload(&s->next, (const float *)NULL, 3 * s->n);
	if (err == cudaSuccess) err = upload(&s->rest, cp->rest, 3 * s->n);
	if (err == cudaSuccess) err = upload(&s->nbr, cp->nbr, s->n);
	if (err == cudaSuccess) err = upload(&s->mov, cp->mov, s->n);
	if (err == cudaSuccess && cp->plane) err = upload(&s->plane, cp->plane, 4 * s->n);
	if (cp->nlinks) {
		if (err == cudaSuccess) err = upload(&s->link, cp->link, cp->nlinks);
		if (err == cudaSuccess) err = upload(&s->start, cp->start, cp->ntouched + 1);
		if (err == cudaSuccess) err = upload(&s->ref_link, cp->ref_link, cp->nrefs);
		if (err == cudaSuccess) err = upload(&s->ref_coef, cp->ref_coef, cp->nrefs);
		if (err == cudaSuccess) err = upload(&s->at, cp->at, s->n);
		if (err == cudaSuccess) err = upload(&s->sdiag, cp->seam_diag, cp->ntouched);
		if (err == cudaSuccess) err = upload(&s->force, (const float *)NULL, 3 * cp->nlinks);
		if (err == cudaSuccess) err = upload(&s->sgrad, (const float *)NULL, 3 * cp->ntouched);
	}
	if (fail(err, "cannot set up the problem on the GPU", why, n)) {
		cuda_solver_free(s);
		return NULL;
	}
	if (cp->self) {
		s->list_k = cp->self->k;
		s->self_radius = cp->self_radius;
		s->self_k = cp->self_k;
		s->self_search = cp->self_search;
		s->list_out = cp->list_out;
		s->found_out = cp->found_out;
		if (!(s->prox = proximity_cuda_new(cp->self, why, n))) {
			cuda_solver_free(s);
			return NULL;
		}
	}
	return s;
}

extern "C" void cuda_solver_free(struct cuda_solver *s)
{
	if (!s)
		return;
	void *p[] = {s->x, s->prev, s->next, s->rest, s->plane, s->nbr, s->mov, s->link,
		     s->start, s->ref_link, s->ref_coef, s->force, s->sgrad,
		     s->sdiag, s->at};
	for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
		cudaFree(p[k]);
	char ignored[256];
	proximity_cuda_free(s->prox, ignored, sizeof ignored);
	free(s);
}

extern "C" int cuda_solver_put(struct cuda_solver *s, const float *x,
			       char *why, size_t n)
{
	size_t bytes = 3 * s->n * sizeof(float);
	cudaError_t err = cudaMemcpy(s->x, x, bytes, cudaMemcpyHostToDevice);
	if (err == cudaSuccess)
		err = cudaMemcpy(s->prev, s->x, bytes, cudaMemcpyDeviceToDevice);
	return fail(err, "cannot copy x to the GPU", why, n);
}

extern "C" int cuda_solver_get(struct cuda_solver *s, float *x, char *why,
			       size_t n)
{
	if (fail(cudaMemcpy(x, s->x, 3 * s->n * sizeof(float),
			    cudaMemcpyDeviceToHost),
		 "cannot copy x from the GPU", why, n))
		return -1;
	if (s->prox)
		return proximity_cuda_get(s->prox, s->list_out, s->found_out, NULL,
					  why, n);
	return 0;
}

extern "C" int cuda_solver_refresh(struct cuda_solver *s, int it, char *why,
				   size_t n)
{
	if (!s->prox || !collide_refresh_due(it))
		return 0;
	return proximity_cuda_refresh(s->prox, s->x, s->self_search, why, n);
}

extern "C" int cuda_solver_step(struct cuda_solver *s, const struct solve_coef *c,
				int inner, float inner_rho, float omega,
				char *why, size_t n)
{
	struct step_args a;
	a.w = s->w;
	a.h = s->h;
	a.x = s->x;
	a.rest = s->rest;
	a.nbr = s->nbr;
	a.mov = s->mov;
	a.plane = s->plane;
	a.out = s->next;
	a.c = *c;
	a.at = s->nlinks ? s->at : NULL;
	a.sgrad = s->sgrad;
	a.sdiag = s->sdiag;
	a.list = s->prox ? proximity_cuda_list(s->prox) : NULL;
	a.found = s->prox ? proximity_cuda_found(s->prox) : NULL;
	a.k = s->list_k;
	a.self_radius = s->self_radius;
	a.self_k = s->self_k;
	cudaError_t err = cudaSuccess;
	if (s->nlinks) {
		err = PL_LAUNCH(seam_force_kernel, blocks_for(s->nlinks, 256), 256,
				s->link, s->nlinks, s->x, s->seam_k, s->force);
		if (err == cudaSuccess)
			err = PL_LAUNCH(seam_gather_kernel,
					blocks_for(s->ntouched, 256), 256, s->force,
					s->ref_link, s->ref_coef, s->start,
					s->ntouched, s->sgrad);
	}
	dim3 threads(W, W);
	dim3 blocks(blocks_for((size_t)s->w, W), blocks_for((size_t)s->h, W));
	if (err == cudaSuccess && inner > 0)
		err = PL_LAUNCH(block_kernel, blocks, threads, a, inner, inner_rho);
	else if (err == cudaSuccess)
		err = PL_LAUNCH(gd_kernel, blocks, threads, a);
	if (err == cudaSuccess && omega != 1.0f)
		err = PL_LAUNCH(cheb_kernel, blocks_for(s->n, 256), 256, s->next,
				s->prev, s->mov, s->plane, s->n, omega);
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

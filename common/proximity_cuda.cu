/* proximity_cuda.cu - the proximity search on the GPU (see
 * proximity_cuda.h for the steps and why they give the CPU's lists). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda_launch.h"
#include "proximity_cuda.h"

typedef unsigned long long ull;

struct proximity_cuda {
	int w, h, k, tw, th, nb;
	size_t n;                     /* w * h */
	size_t m;                     /* hash buckets */
	/* set once */
	struct proximity_block *block;
	int *tile_first;
	struct collide_site *site;
	/* the lists */
	uint32_t *list;
	uint16_t *found;
	/* rebuilt by each refresh: spheres and radii, the hash, the long
	 * pairs (size nb + 1 and m + 1 where a scan writes from index 1) */
	struct proximity_sphere *sp;
	double *radius, *rstat;       /* rstat: largest, sum */
	int64_t *key;
	size_t *bucket_count, *start, *fill;
	int *entry;
	size_t *partners, *first;
	int *pair;
	size_t pair_cap;
	/* the directed vertex pairs, before and after the sort */
	uint32_t *from, *to, *from_sorted, *to_sorted;
	size_t dir_cap;
	ull *counter;
	void *temp;                   /* cub's scratch */
	size_t temp_bytes;
	struct proximity_stats stats;
};

static int fail(cudaError_t err, const char *what, char *why, size_t n)
{
	if (err == cudaSuccess)
		return 0;
	snprintf(why, n, "%s: %s", what, cudaGetErrorString(err));
	return -1;
}

static unsigned blocks_for(size_t n, unsigned threads)
{
	return (unsigned)((n + threads - 1) / threads);
}

/* A device array of count values, copied from src unless it is NULL,
 * zeroed then (at least one value, so that no pointer is NULL). */
template <typename V>
static cudaError_t upload(V **dst, const V *src, size_t count)
{
	size_t bytes = (count ? count : 1) * sizeof(V);
	cudaError_t err = cudaMalloc((void **)dst, bytes);
	if (err != cudaSuccess) {
		*dst = NULL;
		return err;
	}
	if (src && count)
		return cudaMemcpy(*dst, src, count * sizeof(V),
				  cudaMemcpyHostToDevice);
	return cudaMemset(*dst, 0, bytes);
}

/* *p holds at least need values (nothing kept: it is scratch). */
template <typename V>
static cudaError_t reserve(V **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return cudaSuccess;
	cudaFree(*p);
	*cap = 0;
	cudaError_t err = upload(p, (const V *)NULL, need);
	if (err == cudaSuccess)
		*cap = need;
	return err;
}

/* cub's scratch for one call: ask its size with a NULL pointer, grow. */
static cudaError_t scratch(struct proximity_cuda *g, size_t bytes)
{
	return reserve((char **)&g->temp, &g->temp_bytes, bytes);
}

/* ---- kernels -------------------------------------------------------- */

__global__ void sphere_kernel(const struct proximity_block *block, int nb,
			      const float *x, double s,
			      struct proximity_sphere *sp, double *radius)
{
	int b = blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= nb)
		return;
	proximity_block_sphere(&block[b], x, s, &sp[b]);
	radius[b] = sp[b].r;
}

/* Each block's cell, and the count of its bucket. */
__global__ void hash_count_kernel(const struct proximity_sphere *sp, int nb,
				  double cell, size_t mask, int64_t *key,
				  size_t *count)
{
	int b = blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= nb)
		return;
	for (int k = 0; k < 3; k++)
		key[3 * b + k] = proximity_cell_of(sp[b].c[k], cell);
	atomicAdd((ull *)&count[proximity_bucket_of(key + 3 * b, mask)], 1ull);
}

/* Each block into its bucket: fill starts as the buckets' starts. */
__global__ void hash_fill_kernel(const int64_t *key, int nb, size_t mask,
				 size_t *fill, int *entry)
{
	int b = blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= nb)
		return;
	size_t q = proximity_bucket_of(key + 3 * b, mask);
	entry[atomicAdd((ull *)&fill[q], 1ull)] = b;
}

/* Block a's long-range partners: counted (pair NULL) or written at
 * pair + first[a]. */
__global__ void partners_kernel(const struct proximity_block *block, int nb,
				const struct proximity_sphere *sp,
				struct proximity_hash H, double s,
				size_t *count, const size_t *first, int *pair)
{
	int a = blockIdx.x * blockDim.x + threadIdx.x;
	if (a >= nb)
		return;
	size_t c = proximity_find_partners(block, nb, sp, &H, a, s,
					   pair ? pair + first[a] : NULL);
	if (count)
		count[a] = c;
}

struct pair_args {
	const struct proximity_block *block;
	const int *tile_first;
	const struct collide_site *site;
	const struct proximity_sphere *sp;
	const float *x;
	int nb, tw, th;
	double s;
	float s2;
	const size_t *first;
	const int *pair;
	uint32_t *from, *to;
	size_t cap;
	ull *counter;
};

/* Vertex p of block a against block b: each pair found stored as (va,
 * vb) and (vb, va) while the buffer has room, always counted. */
__device__ void pairs_with(const struct pair_args &g, int a, int b, int p)
{
	uint32_t vb[COLLIDE_BLOCK * COLLIDE_BLOCK];
	float d2[COLLIDE_BLOCK * COLLIDE_BLOCK];
	int n = proximity_vertex_pairs(g.block, g.site, g.x, g.sp, a, b, p, g.s,
				       g.s2, vb, d2);
	uint32_t va = g.block[a].v[p];
	for (int q = 0; q < n; q++) {
		ull at = atomicAdd(g.counter, 2ull);
		if (at + 2 > g.cap)
			continue;
		g.from[at] = va;
		g.to[at] = vb[q];
		g.from[at + 1] = vb[q];
		g.to[at + 1] = va;
	}
}

/* A thread a vertex p of a block a: its pairs with the short-range and
 * long-range partners of a, as proximity.c's block_pairs. */
__global__ void pairs_kernel(struct pair_args g)
{
	size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	const int per = COLLIDE_BLOCK * COLLIDE_BLOCK;
	if (t >= (size_t)g.nb * per)
		return;
	int a = (int)(t / per), p = (int)(t % per);
	if (p >= g.block[a].nv)
		return;
	int near[PROXIMITY_SHORT_MAX];
	int n = proximity_short_partners(g.block, g.tile_first, g.tw, g.th, g.sp,
					 a, g.s, near);
	for (int q = 0; q < n; q++)
		pairs_with(g, a, near[q], p);
	for (size_t q = g.first[a]; q < g.first[a + 1]; q++)
		pairs_with(g, a, g.pair[q], p);
}

/* The first index of sorted[0 .. n) not below v. */
__device__ size_t lower_bound(const uint32_t *sorted, size_t n, uint32_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sorted[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Vertex v's list from its pairs, from[lo .. hi) == v, to the neighbours. */
__global__ void lists_kernel(const uint32_t *from, const uint32_t *to,
			     size_t npairs, const float *x, size_t nv, int k,
			     uint32_t *list, uint16_t *found)
{
	size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (v >= nv)
		return;
	size_t lo = lower_bound(from, npairs, (uint32_t)v);
	size_t hi = lower_bound(from, npairs, (uint32_t)v + 1);
	int kept = 0;
	const float *xv = x + 3 * v;
	for (size_t e = lo; e < hi; e++)
		collide_list_offer(x, (uint32_t)v, list + v * (size_t)k, &kept, k,
				   to[e], collide_dist2(xv, x + 3 * (size_t)to[e]));
	found[v] = (uint16_t)(hi - lo < 65535 ? hi - lo : 65535);
}

/* ---- host side ---------------------------------------------------------- */

extern "C" struct proximity_cuda *proximity_cuda_new(const struct proximity_setup *ps,
						     char *why, size_t n)
{
	struct proximity_cuda *g = (struct proximity_cuda *)calloc(1, sizeof *g);
	if (!g) {
		snprintf(why, n, "out of host memory");
		return NULL;
	}
	g->w = ps->w;
	g->h = ps->h;
	g->k = ps->k;
	g->tw = ps->tw;
	g->th = ps->th;
	g->nb = ps->nblocks;
	g->n = (size_t)ps->w * (size_t)ps->h;
	g->m = proximity_buckets(g->nb);
	size_t nb = (size_t)g->nb, ntiles = (size_t)g->tw * (size_t)g->th;
	cudaError_t err = upload(&g->block, ps->block, nb);
	if (err == cudaSuccess) err = upload(&g->tile_first, ps->tile_first, ntiles + 1);
	if (err == cudaSuccess) err = upload(&g->site, ps->site, g->n);
	if (err == cudaSuccess) err = upload(&g->list, ps->list, g->n * (size_t)g->k);
	if (err == cudaSuccess) err = upload(&g->found, ps->found, g->n);
	if (err == cudaSuccess) err = upload(&g->sp, (const struct proximity_sphere *)NULL, nb);
	if (err == cudaSuccess) err = upload(&g->radius, (const double *)NULL, nb);
	if (err == cudaSuccess) err = upload(&g->rstat, (const double *)NULL, 2);
	if (err == cudaSuccess) err = upload(&g->key, (const int64_t *)NULL, 3 * nb);
	if (err == cudaSuccess) err = upload(&g->bucket_count, (const size_t *)NULL, g->m);
	if (err == cudaSuccess) err = upload(&g->start, (const size_t *)NULL, g->m + 1);
	if (err == cudaSuccess) err = upload(&g->fill, (const size_t *)NULL, g->m);
	if (err == cudaSuccess) err = upload(&g->entry, (const int *)NULL, nb);
	if (err == cudaSuccess) err = upload(&g->partners, (const size_t *)NULL, nb);
	if (err == cudaSuccess) err = upload(&g->first, (const size_t *)NULL, nb + 1);
	if (err == cudaSuccess) err = upload(&g->counter, (const ull *)NULL, 1);
	if (fail(err, "cannot set up the proximity search on the GPU", why, n)) {
		char ignored[256];
		proximity_cuda_free(g, ignored, sizeof ignored);
		return NULL;
	}
	return g;
}

extern "C" int proximity_cuda_free(struct proximity_cuda *g, char *why, size_t n)
{
	if (!g)
		return 0;
	void *p[] = {g->block, g->tile_first, g->site, g->list, g->found, g->sp,
		     g->radius, g->rstat, g->key, g->bucket_count, g->start,
		     g->fill, g->entry, g->partners, g->first, g->pair, g->from,
		     g->to, g->from_sorted, g->to_sorted, g->counter, g->temp};
	cudaError_t err = cudaSuccess;
	for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) {
		cudaError_t e = cudaFree(p[k]);
		if (err == cudaSuccess)
			err = e;
	}
	free(g);
	return fail(err, "cannot free the proximity search's GPU memory", why, n);
}

/* Step 1: spheres, and the hash cell from their largest and summed radius. */
static cudaError_t spheres(struct proximity_cuda *g, const float *x, double s,
			   double *cell)
{
	size_t b1 = 0, b2 = 0;
	cudaError_t err = PL_LAUNCH(sphere_kernel, blocks_for((size_t)g->nb, 256),
				    256, g->block, g->nb, x, s, g->sp, g->radius);
	if (err == cudaSuccess)
		err = cub::DeviceReduce::Max(NULL, b1, g->radius, g->rstat, g->nb);
	if (err == cudaSuccess)
		err = cub::DeviceReduce::Sum(NULL, b2, g->radius, g->rstat + 1, g->nb);
	if (err == cudaSuccess)
		err = scratch(g, b1 > b2 ? b1 : b2);
	if (err == cudaSuccess)
		err = cub::DeviceReduce::Max(g->temp, b1, g->radius, g->rstat, g->nb);
	if (err == cudaSuccess)
		err = cub::DeviceReduce::Sum(g->temp, b2, g->radius, g->rstat + 1, g->nb);
	double r[2] = {0, 0};
	if (err == cudaSuccess)
		err = cudaMemcpy(r, g->rstat, sizeof r, cudaMemcpyDeviceToHost);
	/* radii are never negative: the CPU's largest starts at 0 */
	*cell = proximity_hash_cell(r[0] > 0 ? r[0] : 0, r[1], g->nb, s);
	return err;
}

/* start[0] = 0, start[1 .. count + 1) = the inclusive sums of in. */
static cudaError_t scan(struct proximity_cuda *g, const size_t *in,
			size_t *start, size_t count)
{
	size_t bytes = 0;
	cudaError_t err = cudaMemset(start, 0, sizeof(size_t));
	if (err == cudaSuccess)
		err = cub::DeviceScan::InclusiveSum(NULL, bytes, in, start + 1, count);
	if (err == cudaSuccess)
		err = scratch(g, bytes);
	if (err == cudaSuccess)
		err = cub::DeviceScan::InclusiveSum(g->temp, bytes, in, start + 1,
						    count);
	return err;
}

/* Step 2: the hash of the sphere centres. */
static cudaError_t hash(struct proximity_cuda *g, double cell,
			struct proximity_hash *H)
{
	unsigned nblk = blocks_for((size_t)g->nb, 256);
	size_t mask = g->m - 1;
	cudaError_t err = cudaMemset(g->bucket_count, 0, g->m * sizeof(size_t));
	if (err == cudaSuccess) {
		err = PL_LAUNCH(hash_count_kernel, nblk, 256, g->sp, g->nb, cell,
				mask, g->key, g->bucket_count);
	}
	if (err == cudaSuccess)
		err = scan(g, g->bucket_count, g->start, g->m);
	if (err == cudaSuccess)
		err = cudaMemcpy(g->fill, g->start, g->m * sizeof(size_t),
				 cudaMemcpyDeviceToDevice);
	if (err == cudaSuccess) {
		err = PL_LAUNCH(hash_fill_kernel, nblk, 256, g->key, g->nb, mask,
				g->fill, g->entry);
	}
	H->cell = cell;
	H->mask = mask;
	H->start = g->start;
	H->entry = g->entry;
	H->key = g->key;
	return err;
}

/* Step 3: the long-range block pairs, pair[first[a] .. first[a + 1]). */
static cudaError_t long_pairs(struct proximity_cuda *g,
			      const struct proximity_hash *H, double s)
{
	unsigned nblk = blocks_for((size_t)g->nb, 256);
	size_t total = 0;
	cudaError_t err = PL_LAUNCH(partners_kernel, nblk, 256, g->block, g->nb,
				    g->sp, *H, s, g->partners, nullptr, nullptr);
	if (err == cudaSuccess)
		err = scan(g, g->partners, g->first, (size_t)g->nb);
	if (err == cudaSuccess)
		err = cudaMemcpy(&total, g->first + g->nb, sizeof total,
				 cudaMemcpyDeviceToHost);
	if (err == cudaSuccess)
		err = reserve(&g->pair, &g->pair_cap, total);
	if (err == cudaSuccess) {
		err = PL_LAUNCH(partners_kernel, nblk, 256, g->block, g->nb, g->sp,
				*H, s, nullptr, g->first, g->pair);
	}
	g->stats.long_pairs = total;
	return err;
}

/* Room for need directed pairs in the four pair buffers. */
static cudaError_t reserve_pairs(struct proximity_cuda *g, size_t need)
{
	size_t cap[4] = {0, 0, 0, 0};
	cudaError_t err = reserve(&g->from, &cap[0], need);
	if (err == cudaSuccess) err = reserve(&g->to, &cap[1], need);
	if (err == cudaSuccess) err = reserve(&g->from_sorted, &cap[2], need);
	if (err == cudaSuccess) err = reserve(&g->to_sorted, &cap[3], need);
	g->dir_cap = err == cudaSuccess ? need : 0;
	return err;
}

/* Step 4a: every vertex pair, twice, into from/to; *count of them. */
static cudaError_t vertex_pairs(struct proximity_cuda *g, const float *x,
				double s, size_t *count)
{
	struct pair_args a;
	a.block = g->block;
	a.tile_first = g->tile_first;
	a.site = g->site;
	a.sp = g->sp;
	a.x = x;
	a.nb = g->nb;
	a.tw = g->tw;
	a.th = g->th;
	a.s = s;
	a.s2 = (float)(s * s);
	a.first = g->first;
	a.pair = g->pair;
	a.counter = g->counter;
	size_t threads = (size_t)g->nb * COLLIDE_BLOCK * COLLIDE_BLOCK;
	ull stored = 0;
	cudaError_t err = cudaSuccess;
	/* twice at most: the second time the buffers hold the first's count */
	for (int pass = 0; pass < 2 && err == cudaSuccess; pass++) {
		a.from = g->from;
		a.to = g->to;
		a.cap = g->dir_cap;
		err = cudaMemset(g->counter, 0, sizeof(ull));
		if (err == cudaSuccess) {
			err = PL_LAUNCH(pairs_kernel, blocks_for(threads, 128), 128,
					a);
		}
		if (err == cudaSuccess)
			err = cudaMemcpy(&stored, g->counter, sizeof stored,
					 cudaMemcpyDeviceToHost);
		if (err != cudaSuccess || stored <= g->dir_cap)
			break;
		err = reserve_pairs(g, (size_t)stored + (size_t)stored / 4);
	}
	/* the count does not change between the passes: this cannot be */
	if (err == cudaSuccess && stored > g->dir_cap)
		err = cudaErrorInvalidValue;
	*count = (size_t)stored;
	return err;
}

/* Step 4b: the pairs sorted by their first vertex, then the lists. */
static cudaError_t lists(struct proximity_cuda *g, const float *x,
			 size_t count)
{
	int bits = 1;
	while (bits < 32 && ((size_t)1 << bits) < g->n)
		bits++;
	size_t bytes = 0;
	cudaError_t err = cudaSuccess;
	if (count) {
		err = cub::DeviceRadixSort::SortPairs(NULL, bytes, g->from,
						      g->from_sorted, g->to,
						      g->to_sorted, count, 0, bits);
		if (err == cudaSuccess)
			err = scratch(g, bytes);
		if (err == cudaSuccess)
			err = cub::DeviceRadixSort::SortPairs(g->temp, bytes, g->from,
							      g->from_sorted, g->to,
							      g->to_sorted, count, 0,
							      bits);
	}
	if (err == cudaSuccess) {
		err = PL_LAUNCH(lists_kernel, blocks_for(g->n, 256), 256,
				g->from_sorted, g->to_sorted, count, x, g->n, g->k,
				g->list, g->found);
	}
	return err;
}

extern "C" int proximity_cuda_refresh(struct proximity_cuda *g, const float *x,
				      double s, char *why, size_t n)
{
	double cell = s;
	struct proximity_hash H;
	size_t count = 0;
	cudaError_t err = cudaSuccess;
	if (g->nb > 0) {
		err = spheres(g, x, s, &cell);
		if (err == cudaSuccess) err = hash(g, cell, &H);
		if (err == cudaSuccess) err = long_pairs(g, &H, s);
		if (err == cudaSuccess) err = vertex_pairs(g, x, s, &count);
	}
	if (err == cudaSuccess) err = lists(g, x, count);
	if (err == cudaSuccess) err = cudaDeviceSynchronize();
	g->stats.pairs = count / 2;
	g->stats.hash_cell = cell;
	return fail(err, "the proximity search failed on the GPU", why, n);
}

extern "C" const uint32_t *proximity_cuda_list(const struct proximity_cuda *g)
{
	return g->list;
}

extern "C" const uint16_t *proximity_cuda_found(const struct proximity_cuda *g)
{
	return g->found;
}

extern "C" int proximity_cuda_get(const struct proximity_cuda *g, uint32_t *list,
				  uint16_t *found, struct proximity_stats *st,
				  char *why, size_t n)
{
	cudaError_t err = cudaMemcpy(list, g->list,
				     g->n * (size_t)g->k * sizeof(uint32_t),
				     cudaMemcpyDeviceToHost);
	if (err == cudaSuccess)
		err = cudaMemcpy(found, g->found, g->n * sizeof(uint16_t),
				 cudaMemcpyDeviceToHost);
	if (st)
		*st = g->stats;
	return fail(err, "cannot copy the proximity lists from the GPU", why, n);
}

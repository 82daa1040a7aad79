/* proximity_cuda.h - the proximity search of proximity.h on a CUDA GPU,
 * for pleat-solve --self --device cuda.  Compiled only when nvcc is
 * found.
 *
 * The same four steps as the CPU's, from the same arithmetic
 * (proximity_hd.h), over positions that stay on the GPU:
 *   1. a thread a block: its bounding sphere; the hash cell from the
 *      largest and the mean radius (cub's DeviceReduce);
 *   2. the hash: a thread a block counts its bucket (atomics), an
 *      inclusive scan of the counts gives the buckets' starts (cub's
 *      DeviceScan), a thread a block enters itself (atomics: within a
 *      bucket the order varies, which no result depends on);
 *   3. long-range block pairs: a thread a block counts its partners, a
 *      scan gives each block its place, a thread a block writes them;
 *   4. vertex pairs: a thread a vertex of a block, against the vertices
 *      of its short- and long-range partners; each pair found is stored
 *      twice, (a, b) and (b, a), in a buffer (an atomic counter; when it
 *      overflows the buffer grows and the step runs again); a radix sort
 *      by the first vertex (cub's DeviceRadixSort) puts each vertex's
 *      pairs together; a thread a vertex offers them to its list with
 *      collide_list_offer, and its count of pairs is its range's length.
 * A list keeps the K smallest keys whatever order its pairs come in, so
 * the lists and the counts are the CPU's, bit for bit.
 *
 * cub (part of the CUDA toolkit) does the scans, the two reductions and
 * the sort: they are library code, tested far beyond what a few lines of
 * our own would be, and they return error codes rather than throwing. */
#ifndef PLEAT_PROXIMITY_CUDA_H
#define PLEAT_PROXIMITY_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "proximity_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the search needs of a struct proximity, host pointers (copied
 * once): the grid, the blocks by tile and every vertex's exclusion site,
 * and the lists to start from (NULL: empty). */
struct proximity_setup {
	int w, h, k;
	int tw, th, nblocks;
	const struct proximity_block *block;
	const int *tile_first;            /* tw * th + 1 */
	const struct collide_site *site;  /* w * h */
	const uint32_t *list;             /* w * h * k, or NULL */
	const uint16_t *found;            /* w * h, or NULL */
};

struct proximity_cuda;

/* NULL with a reason in why when the GPU cannot hold it. */
struct proximity_cuda *proximity_cuda_new(const struct proximity_setup *ps,
					  char *why, size_t n);
/* -1 with a reason in why when the GPU reports an error freeing it. */
int proximity_cuda_free(struct proximity_cuda *g, char *why, size_t n);

/* Rebuilds every list from x, a device array of 3 floats a grid vertex,
 * with search radius s (metres). */
int proximity_cuda_refresh(struct proximity_cuda *g, const float *x,
			   double s, char *why, size_t n);

/* The lists on the device: vertex v's are list[v K .. v K + min(found[v],
 * K)), as in struct proximity. */
const uint32_t *proximity_cuda_list(const struct proximity_cuda *g);
const uint16_t *proximity_cuda_found(const struct proximity_cuda *g);

/* The lists to host arrays of w * h * k and w * h; st (may be NULL) gets
 * the last refresh's long_pairs, pairs and hash_cell (the counts that
 * the lists tell are proximity_count's). */
int proximity_cuda_get(const struct proximity_cuda *g, uint32_t *list,
		       uint16_t *found, struct proximity_stats *st, char *why,
		       size_t n);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__
#include "proximity.h"

/* The setup of a CPU search, its current lists included. */
static inline struct proximity_setup proximity_setup_of(const struct proximity *pr)
{
	struct proximity_setup ps = {
		.w = pr->w, .h = pr->h, .k = pr->k, .tw = pr->tw, .th = pr->th,
		.nblocks = pr->nblocks, .block = pr->block,
		.tile_first = pr->tile_first, .site = pr->site,
		.list = pr->list, .found = pr->found,
	};
	return ps;
}
#endif

#endif

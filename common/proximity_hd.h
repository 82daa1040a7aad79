/* proximity_hd.h - the arithmetic of the proximity search (proximity.h),
 * written once for the CPU (proximity.c) and the GPU (proximity_cuda.cu):
 * block spheres, the hash cells, which block pairs are searched and which
 * vertex pairs of a block pair are listed.  Each backend only decides how
 * the work is spread over threads and where the pairs are stored.
 *
 * The two backends give the same lists bit for bit: every product and sum
 * here is rounded on its own (prox_mul, prox_add and collide_dist2 keep
 * nvcc from fusing them into one rounding, as gcc never does in ISO C
 * mode), and a list keeps the K smallest keys whatever order its pairs are
 * offered in (collide_list_offer). */
#ifndef PLEAT_PROXIMITY_HD_H
#define PLEAT_PROXIMITY_HD_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "collide.h"
#include "hostdev.h"

/* A collision block: up to 16 cloth vertices of one panel in one tile. */
struct proximity_block {
	int ti, tj;               /* tile */
	int nv;
	uint32_t v[COLLIDE_BLOCK * COLLIDE_BLOCK];
};

/* A block's bounding sphere, grown: see PROXIMITY_GROW. */
struct proximity_sphere {
	double c[3];
	double r;
};

/* What a refresh found (proximity.h). */
struct proximity_stats {
	size_t blocks;            /* collision blocks */
	size_t long_pairs;        /* long-range block pairs (explicit list) */
	size_t pairs;             /* vertex pairs found (each once) */
	size_t overflow;          /* vertices with more than K pairs */
	int most;                 /* the most pairs of one vertex (saturates
				     at 65535) */
	double hash_cell;         /* metres */
};

/* Spheres are grown by a relative 1e-6 of their size, their distance
 * from the origin and the search radius: far more than the rounding of
 * float distances (6e-8 relative), so that culling by spheres never
 * loses a pair the float test would accept. */
#define PROXIMITY_GROW 1e-6

/* The most short-range partners of a block: the other blocks of its tile
 * and of four neighbouring tiles, at most 16 a tile. */
#define PROXIMITY_SHORT_MAX (5 * COLLIDE_BLOCK * COLLIDE_BLOCK)

/* The spatial hash of the block centres, as both backends build it:
 * bucket q holds entry[start[q] .. start[q + 1]), the blocks whose
 * centre lies in a cell that hashes to q; key holds each block's cell,
 * 3 integers a block. */
struct proximity_hash {
	double cell;
	size_t mask;              /* buckets - 1, a power of two less one */
	const size_t *start;
	const int *entry;
	const int64_t *key;
};

PL_HD double prox_mul(double a, double b)
{
#ifdef __CUDA_ARCH__
	return __dmul_rn(a, b);
#else
	return a * b;
#endif
}

PL_HD double prox_add(double a, double b)
{
#ifdef __CUDA_ARCH__
	return __dadd_rn(a, b);
#else
	return a + b;
#endif
}

PL_HD double prox_dist(const double *a, const double *b)
{
	double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
	return sqrt(prox_add(prox_add(prox_mul(dx, dx), prox_mul(dy, dy)),
			     prox_mul(dz, dz)));
}

/* The bounding sphere of block b at positions x (3 floats a vertex):
 * the centre of its box, the radius to its farthest vertex, grown. */
PL_HD void proximity_block_sphere(const struct proximity_block *b,
				  const float *x, double s,
				  struct proximity_sphere *sp)
{
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (int q = 0; q < b->nv; q++)
		for (int k = 0; k < 3; k++) {
			double c = x[3 * (size_t)b->v[q] + k];
			lo[k] = fmin(lo[k], c);
			hi[k] = fmax(hi[k], c);
		}
	double far = 0, r = 0;
	for (int k = 0; k < 3; k++) {
		sp->c[k] = prox_mul(0.5, prox_add(lo[k], hi[k]));
		far = fmax(far, fabs(sp->c[k]));
	}
	for (int q = 0; q < b->nv; q++) {
		const float *xq = x + 3 * (size_t)b->v[q];
		double p[3] = {xq[0], xq[1], xq[2]};
		r = fmax(r, prox_dist(p, sp->c));
	}
	sp->r = prox_add(r, prox_mul(PROXIMITY_GROW, prox_add(prox_add(r, far), s)));
}

/* Whether the spheres of a and b, grown by s, overlap. */
PL_HD int proximity_spheres_meet(const struct proximity_sphere *a,
				 const struct proximity_sphere *b, double s)
{
	return prox_dist(a->c, b->c) < prox_add(prox_add(a->r, b->r), s);
}

/* How many neighbours a list holds: found pairs, at most k. */
PL_HD int proximity_kept_of(uint16_t found, int k)
{
	return found < k ? found : k;
}

/* ---- the hash ------------------------------------------------------------ */

PL_HD int64_t proximity_cell_of(double c, double cell)
{
	double q = floor(c / cell);
	/* far beyond any real cloth: clamp rather than overflow */
	return q > 1e15 ? (int64_t)1e15 : q < -1e15 ? (int64_t)-1e15 : (int64_t)q;
}

PL_HD size_t proximity_bucket_of(const int64_t *k, size_t mask)
{
	uint64_t h = (uint64_t)k[0] * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)k[1] * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t)k[2] * 0x165667b19e3779f9ull;
	return (size_t)((h ^ (h >> 29)) & mask);
}

/* The hash's buckets for nb blocks: a power of two, at least 2 nb. */
PL_HD size_t proximity_buckets(int nb)
{
	size_t m = 1;
	while (m < 2 * (size_t)nb)
		m *= 2;
	return m;
}

/* The cell of the hash from the largest and the mean sphere radius: the
 * largest sphere's diameter plus s, the radius capped at four times the
 * mean so that a few stretched blocks cannot put every block into one
 * cell (each block searches as far as its own size needs, so any cell is
 * correct; this one is fast). */
PL_HD double proximity_hash_cell(double rmax, double rsum, int nb, double s)
{
	double cap = nb ? 4 * rsum / nb : 0;
	return 2 * fmin(rmax, cap) + s;
}

/* ---- which block pairs --------------------------------------------------- */

PL_HD int proximity_tiles_adjacent(const struct proximity_block *a,
				   const struct proximity_block *b)
{
	return abs(a->ti - b->ti) <= 1 && abs(a->tj - b->tj) <= 1;
}

/* Whether block b is a long-range partner that block a finds: not in an
 * adjacent tile, no larger than a (ties: the lower index is smaller),
 * and the spheres, grown by s, overlap. */
PL_HD int proximity_long_partner(const struct proximity_block *block,
				 const struct proximity_sphere *sp, int a,
				 int b, double s)
{
	if (!(sp[b].r < sp[a].r || (sp[b].r == sp[a].r && b < a)))
		return 0;
	if (proximity_tiles_adjacent(&block[a], &block[b]))
		return 0;
	return proximity_spheres_meet(&sp[a], &sp[b], s);
}

/* Block a's long-range partners (proximity.h, step 3), written to out
 * when it is not NULL; returns how many.  Every pair is found once, by
 * its larger block. */
PL_HD size_t proximity_find_partners(const struct proximity_block *block,
				     int nblocks,
				     const struct proximity_sphere *sp,
				     const struct proximity_hash *H, int a,
				     double s, int *out)
{
	size_t n = 0;
	double reach = 2 * sp[a].r + s;
	int64_t lo[3], hi[3], c[3];
	double cells = 1;
	for (int k = 0; k < 3; k++) {
		lo[k] = proximity_cell_of(sp[a].c[k] - reach, H->cell);
		hi[k] = proximity_cell_of(sp[a].c[k] + reach, H->cell);
		cells *= (double)(hi[k] - lo[k] + 1);
	}
	if (cells > nblocks) {
		/* a huge block: every block is nearer than its cells */
		for (int b = 0; b < nblocks; b++)
			if (proximity_long_partner(block, sp, a, b, s)) {
				if (out)
					out[n] = b;
				n++;
			}
		return n;
	}
	for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
		for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
			for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
				size_t q = proximity_bucket_of(c, H->mask);
				for (size_t e = H->start[q]; e < H->start[q + 1]; e++) {
					int b = H->entry[e];
					const int64_t *kb = H->key + 3 * (size_t)b;
					if (kb[0] != c[0] || kb[1] != c[1] ||
					    kb[2] != c[2] ||
					    !proximity_long_partner(block, sp, a, b, s))
						continue;
					if (out)
						out[n] = b;
					n++;
				}
			}
	return n;
}

/* Block a's implicit short-range partners (proximity.h, step 2): the
 * blocks of its own tile from a on, and those of the tiles (1,0) (-1,1)
 * (0,1) (1,1) from it whose spheres, grown by s, meet a's.  Writes them
 * to out (PROXIMITY_SHORT_MAX at most) and returns how many. */
PL_HD int proximity_short_partners(const struct proximity_block *block,
				   const int *tile_first, int tw, int th,
				   const struct proximity_sphere *sp, int a,
				   double s, int *out)
{
	const int fwd[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
	int ti = block[a].ti, tj = block[a].tj, n = 0;
	size_t t = (size_t)tj * (size_t)tw + (size_t)ti;
	for (int b = a; b < tile_first[t + 1]; b++)
		out[n++] = b;
	for (int f = 0; f < 4; f++) {
		int ui = ti + fwd[f][0], uj = tj + fwd[f][1];
		if (ui < 0 || ui >= tw || uj >= th)
			continue;
		size_t u = (size_t)uj * (size_t)tw + (size_t)ui;
		for (int b = tile_first[u]; b < tile_first[u + 1]; b++)
			if (proximity_spheres_meet(&sp[a], &sp[b], s))
				out[n++] = b;
	}
	return n;
}

/* ---- which vertex pairs -------------------------------------------------- */

/* Vertex p of block a against the vertices of block b (a == b: those
 * after p, so that each pair of a block is seen once): the partners
 * closer than s (s2 = s² in float) that are not grid neighbours, written
 * to vb with their squared distances to d2 (COLLIDE_BLOCK² at most);
 * returns how many.  For a != b the vertex is first tested against b's
 * sphere grown by s. */
PL_HD int proximity_vertex_pairs(const struct proximity_block *block,
				 const struct collide_site *site,
				 const float *x,
				 const struct proximity_sphere *sp, int a,
				 int b, int p, double s, float s2,
				 uint32_t *vb, float *d2)
{
	const struct proximity_block *A = &block[a], *B = &block[b];
	uint32_t va = A->v[p];
	const float *xa = x + 3 * (size_t)va;
	if (a != b) {
		double xd[3] = {xa[0], xa[1], xa[2]};
		if (!(prox_dist(xd, sp[b].c) < prox_add(sp[b].r, s)))
			return 0;
	}
	int n = 0;
	for (int q = a == b ? p + 1 : 0; q < B->nv; q++) {
		uint32_t v = B->v[q];
		float e = collide_dist2(xa, x + 3 * (size_t)v);
		if (!(e < s2) || collide_excluded(&site[va], &site[v]))
			continue;
		vb[n] = v;
		d2[n] = e;
		n++;
	}
	return n;
}

#endif

/* dilate.c - growing the UV islands past their edges, so that a texture
 * filter or a mip-map level that reaches outside an island averages
 * island values, not the background.
 *
 * Each texel within `rings` texels of an island (in the square
 * neighbourhood a filter or a mip level reaches) takes the value of its
 * nearest island texel, exactly, by the separable Euclidean distance
 * transform (Felzenszwalb and Huttenlocher, "Distance transforms of
 * sampled functions", 2012) carrying the nearest texel along: first the
 * nearest island texel within each column, then, along each row, the
 * lower envelope of the parabolas (x - x')^2 + g(x')^2.  Rows and
 * columns are independent, so the result does not depend on the thread
 * count.
 */
#include <math.h>
#include <stdlib.h>

#include "normalmap.h"

#define NONE (-1)

/* Per column: g = rows to the nearest island texel in the column (NONE
 * if none), fy = its row (the upper one on a tie). */
static void column_pass(const int32_t *src, int w, int h, int32_t *g,
			int32_t *fy)
{
	#pragma omp parallel for schedule(static)
	for (int x = 0; x < w; x++) {
		int last = NONE;
		for (int y = 0; y < h; y++) {
			size_t t = (size_t)y * w + x;
			if (src[t] >= 0)
				last = y;
			g[t] = last == NONE ? NONE : y - last;
			fy[t] = last;
		}
		int next = NONE;
		for (int y = h - 1; y >= 0; y--) {
			size_t t = (size_t)y * w + x;
			if (src[t] >= 0)
				next = y;
			if (next != NONE && (g[t] == NONE || next - y < g[t])) {
				g[t] = next - y;
				fy[t] = next;
			}
		}
	}
}

/* Where the parabolas rooted at columns p and q (heights fp, fq) cross. */
static double cross_at(int p, double fp, int q, double fq)
{
	return ((fq + (double)q * q) - (fp + (double)p * p)) / (2.0 * (q - p));
}

/* Row y: each texel's nearest island texel (lower envelope of the
 * column distances' parabolas) into near[], NONE where the row sees no
 * island; v and z are scratch of w + 1 entries. */
static void row_nearest(const int32_t *g, int w, int32_t *near, int *v,
			double *z)
{
	int k = -1;
	for (int q = 0; q < w; q++) {
		if (g[q] == NONE)
			continue;
		double fq = (double)g[q] * g[q];
		if (k < 0) {
			k = 0;
			v[0] = q;
			z[0] = -HUGE_VAL;
			z[1] = HUGE_VAL;
			continue;
		}
		double s = cross_at(v[k], (double)g[v[k]] * g[v[k]], q, fq);
		while (s <= z[k]) {
			k--;
			s = cross_at(v[k], (double)g[v[k]] * g[v[k]], q, fq);
		}
		k++;
		v[k] = q;
		z[k] = s;
		z[k + 1] = HUGE_VAL;
	}
	for (int x = 0, j = 0; x < w; x++) {
		if (k < 0) {
			near[x] = NONE;
			continue;
		}
		while (z[j + 1] < x)
			j++;
		near[x] = v[j];
	}
}

/* Whether texel x of a row has an island texel within the square of
 * half-width `rings` around it: a column at most `rings` away whose
 * column distance is at most `rings`.  count[x] is the number of such
 * columns before x (w + 1 entries). */
static int in_band(int w, int x, int rings, const int *count)
{
	int lo = x - rings < 0 ? 0 : x - rings;
	int hi = x + rings + 1 > w ? w : x + rings + 1;
	return count[hi] - count[lo] > 0;
}

size_t dilate(int32_t *src, int w, int h, int rings)
{
	if (rings <= 0)
		return 0;
	size_t n = (size_t)w * (size_t)h, filled = 0;
	int32_t *g = xmalloc_array(n, sizeof *g), *fy = xmalloc_array(n, sizeof *fy);
	column_pass(src, w, h, g, fy);
	#pragma omp parallel reduction(+:filled)
	{
		int32_t *near = xmalloc_array((size_t)w, sizeof *near);
		int *v = xmalloc_array((size_t)w + 1, sizeof *v);
		int *count = xmalloc_array((size_t)w + 1, sizeof *count);
		double *z = xmalloc_array((size_t)w + 2, sizeof *z);
		#pragma omp for schedule(static)
		for (int y = 0; y < h; y++) {
			const int32_t *gr = &g[(size_t)y * w];
			count[0] = 0;
			for (int x = 0; x < w; x++)
				count[x + 1] = count[x] +
					       (gr[x] != NONE && gr[x] <= rings);
			row_nearest(gr, w, near, v, z);
			for (int x = 0; x < w; x++) {
				size_t t = (size_t)y * w + x;
				if (gr[x] == 0 || near[x] == NONE ||
				    !in_band(w, x, rings, count))
					continue;
				src[t] = (int32_t)((size_t)fy[(size_t)y * w + near[x]] * w + near[x]);
				filled++;
			}
		}
		free(near);
		free(v);
		free(count);
		free(z);
	}
	free(g);
	free(fy);
	return filled;
}

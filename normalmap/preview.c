/* preview.c - a shaded picture of the wrinkles laid out over the pattern,
 * for a quick look: every panel flat, lit by one light from the upper
 * left, so that the wrinkles (not the garment's shape) make the shading.
 */
#include <math.h>
#include <stdlib.h>

#include "normalmap.h"

#define AMBIENT 0.2      /* grey level of a face turned away from the light */
#define BACKDROP 0.0f    /* grey level outside the cloth */

/* The light: from the upper left of the picture (-u, +v), 55 degrees
 * above the pattern plane. */
static dvec3 light(void)
{
	return d3_normalize(d3(-1, 1, 2));
}

/* The pattern u direction of the coarse surface at (i, j): the central
 * (else one-sided) difference of rest along the grid row. */
static int rest_du(const struct surface *s, int i, int j, dvec3 *out)
{
	size_t v = (size_t)j * s->w + i;
	int lo = i, hi = i;
	if (i > 0 && (s->mask[v - 1] & MASK_INSIDE) && s->panel[v - 1] == s->panel[v])
		lo = i - 1;
	if (i + 1 < s->w && (s->mask[v + 1] & MASK_INSIDE) && s->panel[v + 1] == s->panel[v])
		hi = i + 1;
	if (lo == hi)
		return -1;
	const float *a = &s->rest[3 * ((size_t)j * s->w + lo)];
	const float *b = &s->rest[3 * ((size_t)j * s->w + hi)];
	*out = d3(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
	return 0;
}

/* Lambert shading of the wrinkled normal at (i, j) in the frame of the
 * coarse surface there (tangent along pattern u); -1 outside the cloth. */
static double shade(const struct surface *s, int i, int j)
{
	size_t v = (size_t)j * s->w + i;
	const float *nx = &s->normal[3 * v];
	dvec3 nr, du;
	if (isnan(nx[0]) || surface_ring_normal(s, s->rest, i, j, &nr) ||
	    rest_du(s, i, j, &du))
		return -1;
	dvec3 t = d3_normalize(d3_sub(du, d3_scale(nr, d3_dot(du, nr))));
	dvec3 b = d3_cross(nr, t), n = d3(nx[0], nx[1], nx[2]);
	dvec3 local = d3(d3_dot(n, t), d3_dot(n, b), d3_dot(n, nr));
	double lit = d3_dot(local, light());
	return AMBIENT + (1 - AMBIENT) * (lit > 0 ? lit : 0);
}

/* The picture's pixels, width x height grey. */
static int alloc_picture(struct map *out, int width, int height,
			 struct error *e)
{
	out->width = width;
	out->height = height;
	out->comps = 1;
	size_t bytes;
	if (size_mul((size_t)width * height, sizeof(float), &bytes) ||
	    !(out->px = big_alloc(bytes)))
		return error_set(e, "out of memory for a %d x %d preview",
				 width, height);
	return 0;
}

/* The shade at a point between vertices (x, y in vertex units): the
 * bilinear blend of the shaded vertices around it, renormalised over
 * those in the cloth; the backdrop where the nearest vertex is not, so
 * that the outline is the one-pixel-a-vertex picture's. */
static float blend(const float *g, int w, int h, double x, double y)
{
	int ni = (int)lround(x), nj = (int)lround(y);
	if (ni < 0 || nj < 0 || ni >= w || nj >= h || g[(size_t)nj * w + ni] < 0)
		return BACKDROP;
	int i0 = (int)floor(x), j0 = (int)floor(y);
	double fx = x - i0, fy = y - j0, sum = 0, weight = 0;
	for (int dj = 0; dj < 2; dj++)
		for (int di = 0; di < 2; di++) {
			int i = i0 + di, j = j0 + dj;
			double wt = (di ? fx : 1 - fx) * (dj ? fy : 1 - fy);
			if (i < 0 || j < 0 || i >= w || j >= h ||
			    g[(size_t)j * w + i] < 0 || wt == 0)
				continue;
			sum += wt * g[(size_t)j * w + i];
			weight += wt;
		}
	return (float)(sum / weight);
}

/* A grid smaller than the picture asked for: u x u pixels a vertex, the
 * shades of the vertices blended between them, so that a coarse result
 * is still seen, smoothly, at the size asked. */
static int upscaled(const struct surface *s, int u, struct map *out,
		    struct error *e)
{
	size_t n = (size_t)s->w * s->h, bytes;
	float *g;
	if (size_mul(n, sizeof *g, &bytes) || !(g = big_alloc(bytes)))
		return error_set(e, "out of memory for a %d x %d preview",
				 s->w, s->h);
	#pragma omp parallel for schedule(dynamic, 4)
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++)
			g[(size_t)j * s->w + i] = (float)shade(s, i, j);
	if (alloc_picture(out, s->w * u, s->h * u, e)) {
		free(g);
		return -1;
	}
	/* pixel centre (X + 1/2, Y + 1/2) over vertex spacing u; row 0 is
	 * the top of the pattern */
	#pragma omp parallel for schedule(dynamic, 4)
	for (int Y = 0; Y < out->height; Y++)
		for (int X = 0; X < out->width; X++)
			out->px[(size_t)Y * out->width + X] =
				blend(g, s->w, s->h, (X + 0.5) / u - 0.5,
				      (out->height - Y - 0.5) / u - 0.5);
	free(g);
	return 0;
}

int preview(const struct surface *s, int size, struct map *out,
	    struct error *e)
{
	int longer = s->w > s->h ? s->w : s->h;
	if (size > longer)
		return upscaled(s, size / longer, out, e);
	int k = size > 0 && size < longer ? (longer + size - 1) / size : 1;
	if (alloc_picture(out, (s->w + k - 1) / k, (s->h + k - 1) / k, e))
		return -1;
	/* pixel (X, Y) averages the k x k grid vertices of block
	 * (X, height - 1 - Y): row 0 is the top of the pattern */
	#pragma omp parallel for schedule(dynamic, 4)
	for (int Y = 0; Y < out->height; Y++)
		for (int X = 0; X < out->width; X++) {
			int bj = out->height - 1 - Y;
			double sum = 0;
			int n = 0;
			for (int j = bj * k; j < (bj + 1) * k && j < s->h; j++)
				for (int i = X * k; i < (X + 1) * k && i < s->w; i++) {
					double g = shade(s, i, j);
					if (g >= 0) {
						sum += g;
						n++;
					}
				}
			out->px[(size_t)Y * out->width + X] = n ? (float)(sum / n) : BACKDROP;
		}
	return 0;
}

/* field.c - the tensors pleat-gather multiplies into the gather channel:
 * shirring bands, diamond quilting, sketched strokes (Wang 2021, Eq. 14),
 * a smooth random perturbation and the coarse input's own stretch. */
#include <math.h>
#include <stdlib.h>

#include "field.h"

struct sym2 sym2_identity(void)
{
	struct sym2 s = {1, 0, 1};
	return s;
}

struct sym2 sym2_axes(double angle, double s_along, double s_across)
{
	double c = cos(angle), s = sin(angle);
	struct sym2 t = {s_along * c * c + s_across * s * s,
			 (s_along - s_across) * c * s,
			 s_along * s * s + s_across * c * c};
	return t;
}

/* The eigenvalues of s, larger first, and the larger one's direction,
 * radians from the u axis (s off the axes: xy != 0). */
static void sym2_eigen(struct sym2 s, double *angle, double *hi, double *lo)
{
	double mean = 0.5 * (s.xx + s.yy);
	double r = hypot(0.5 * (s.xx - s.yy), s.xy);
	*angle = 0.5 * atan2(2 * s.xy, s.xx - s.yy);
	*hi = mean + r;
	*lo = mean - r;
}

struct sym2 sym2_pow(struct sym2 s, double a)
{
	if (s.xy == 0) {  /* on the axes already: exact, no trigonometry */
		struct sym2 t = {pow(s.xx, a), 0, pow(s.yy, a)};
		return t;
	}
	double angle, hi, lo;
	sym2_eigen(s, &angle, &hi, &lo);
	return sym2_axes(angle, pow(hi, a), pow(lo, a));
}

struct sym2 sym2_at_least(struct sym2 s, double lo)
{
	if (s.xy == 0) {  /* on the axes already: exact */
		struct sym2 t = {fmax(s.xx, lo), 0, fmax(s.yy, lo)};
		return t;
	}
	double angle, big, small;
	sym2_eigen(s, &angle, &big, &small);
	if (small >= lo)
		return s;
	return sym2_axes(angle, fmax(big, lo), lo);
}

struct sym2 sym2_apply(struct sym2 a, struct sym2 s)
{
	struct sym2 r = sym2_pow(a, 0.5);
	/* m = r s, then m r; the two off-diagonal entries differ only by
	 * rounding */
	double m00 = r.xx * s.xx + r.xy * s.xy, m01 = r.xx * s.xy + r.xy * s.yy;
	double m10 = r.xy * s.xx + r.yy * s.xy, m11 = r.xy * s.xy + r.yy * s.yy;
	struct sym2 t = {m00 * r.xx + m01 * r.xy,
			 0.5 * ((m00 * r.xy + m01 * r.yy) +
				(m10 * r.xx + m11 * r.xy)),
			 m10 * r.xy + m11 * r.yy};
	return t;
}

/* 1 within width/2 of a line, 0 beyond, a smoothstep over `edge` centred
 * on width/2: the band's half-weight points are width apart. */
static double band_weight(double t, double width, double edge)
{
	double d = fabs(t), lo = 0.5 * (width - edge), hi = 0.5 * (width + edge);
	if (d <= lo)
		return 1;
	if (d >= hi)
		return 0;
	double x = (hi - d) / (hi - lo);
	return x * x * (3 - 2 * x);
}

static struct sym2 shirr(const struct gather_op *op, double u, double v)
{
	/* the band runs along the shirring direction; t is across it */
	double t = -sin(op->angle) * u + cos(op->angle) * v - op->offset;
	double w = band_weight(t, op->width, op->edge);
	return sym2_axes(op->angle, 1 + w * (op->factor - 1), 1);
}

/* Two families of stitch lines at +angle and -angle from the u axis,
 * period apart: on a line the fabric shrinks by factor in every
 * direction, so every diamond between the lines has a shorter border
 * than its own fabric and puffs. */
static struct sym2 quilt(const struct gather_op *op, double u, double v)
{
	double w = 0;
	for (int k = -1; k <= 1; k += 2) {
		double a = k * op->angle;
		double t = -sin(a) * u + cos(a) * v;
		double d = t - op->period * floor(t / op->period + 0.5);
		w = fmax(w, band_weight(d, op->line, 0.5 * op->line));
	}
	double f = 1 + w * (op->factor - 1);
	struct sym2 s = {f, 0, f};
	return s;
}

/* Distance from (u, v) to the stroke's segment. */
static double segment_distance(const struct stroke *s, double u, double v)
{
	double dx = s->u1 - s->u0, dy = s->v1 - s->v0;
	double t = ((u - s->u0) * dx + (v - s->v0) * dy) / (dx * dx + dy * dy);
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return hypot(u - (s->u0 + t * dx), v - (s->v0 + t * dy));
}

/* Eq. 14: each stroke's tensor weighted by (1 - (r/R)²)², r the distance
 * to its segment and R its radius, blended with the identity where the
 * weights sum to less than 1: exactly the stroke's tensor on a lone
 * stroke, the identity beyond every radius, smooth in between. */
static struct sym2 strokes(const struct gather_op *op, double u, double v)
{
	struct sym2 sum = {0, 0, 0};
	double wsum = 0;
	for (size_t k = 0; k < op->nstrokes; k++) {
		const struct stroke *s = &op->strokes[k];
		double r = segment_distance(s, u, v) / s->radius;
		if (r >= 1)
			continue;
		double w = (1 - r * r) * (1 - r * r);
		struct sym2 t = sym2_axes(atan2(s->v1 - s->v0, s->u1 - s->u0),
					  s->along, s->across);
		sum.xx += w * t.xx;
		sum.xy += w * t.xy;
		sum.yy += w * t.yy;
		wsum += w;
	}
	double rest = wsum < 1 ? 1 - wsum : 0;
	struct sym2 out = {(sum.xx + rest) / (wsum + rest),
			   sum.xy / (wsum + rest),
			   (sum.yy + rest) / (wsum + rest)};
	return out;
}

struct sym2 gather_pattern(const struct gather_op *op, double u, double v)
{
	switch (op->kind) {
	case OP_SHIRR: return shirr(op, u, v);
	case OP_QUILT: return quilt(op, u, v);
	case OP_STROKES: return strokes(op, u, v);
	default: return sym2_identity();
	}
}

/* A lattice point's value in [-1, 1]: splitmix64 of its coordinates and
 * the seed. */
static double lattice_value(int64_t i, int64_t j, uint64_t seed)
{
	uint64_t z = seed ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)j * 0xc2b2ae3d27d4eb4full);
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 4503599627370496.0 - 1.0;
}

static double smoother(double t)
{
	return t * t * t * (t * (6 * t - 15) + 10);
}

double gather_noise(double u, double v, double size, uint64_t seed)
{
	double x = u / size, y = v / size;
	double fx = floor(x), fy = floor(y);
	int64_t i = (int64_t)fx, j = (int64_t)fy;
	double sx = smoother(x - fx), sy = smoother(y - fy);
	double a = lattice_value(i, j, seed), b = lattice_value(i + 1, j, seed);
	double c = lattice_value(i, j + 1, seed);
	double d = lattice_value(i + 1, j + 1, seed);
	return (a + sx * (b - a)) + sy * ((c + sx * (d - c)) - (a + sx * (b - a)));
}

static struct sym2 load(const float *f)
{
	struct sym2 s = {f[0], f[1], f[2]};
	return s;
}

static void store(float *f, struct sym2 s)
{
	f[0] = (float)s.xx;
	f[1] = (float)s.xy;
	f[2] = (float)s.yy;
}

/* The coarse surface's derivative along grid axis (di, dj) at (i, j),
 * from the rest positions of cloth neighbours of the same panel: central
 * where both exist, one-sided where one does.  0 when neither does. */
struct surface {
	const struct grid *g;
	const float *rest;
	const uint8_t *mask;
	const uint16_t *panel;
};

static int same_cloth(const struct surface *s, int i, int j, size_t v)
{
	if (i < 0 || j < 0 || i >= s->g->width || j >= s->g->height)
		return 0;
	size_t u = (size_t)j * (size_t)s->g->width + (size_t)i;
	return (s->mask[u] & MASK_INSIDE) &&
	       (!s->panel || s->panel[u] == s->panel[v]);
}

static int derivative(const struct surface *s, int i, int j, int di, int dj,
		      double out[3])
{
	size_t w = (size_t)s->g->width, v = (size_t)j * w + (size_t)i;
	int fwd = same_cloth(s, i + di, j + dj, v);
	int back = same_cloth(s, i - di, j - dj, v);
	if (!fwd && !back)
		return 0;
	size_t a = fwd ? (size_t)(j + dj) * w + (size_t)(i + di) : v;
	size_t b = back ? (size_t)(j - dj) * w + (size_t)(i - di) : v;
	double len = (fwd + back) * s->g->cell;
	for (int k = 0; k < 3; k++)
		out[k] = ((double)s->rest[3 * a + k] - s->rest[3 * b + k]) / len;
	return 1;
}

/* The coarse input's stretch at cloth vertex (i, j): U = sqrt(F^T F),
 * F the 3x2 derivative of the rest positions over the pattern; the
 * identity where it cannot be measured. */
static struct sym2 coarse_stretch(const struct surface *s, int i, int j)
{
	double fu[3], fv[3];
	if (!derivative(s, i, j, 1, 0, fu) || !derivative(s, i, j, 0, 1, fv))
		return sym2_identity();
	double c00 = fu[0] * fu[0] + fu[1] * fu[1] + fu[2] * fu[2];
	double c11 = fv[0] * fv[0] + fv[1] * fv[1] + fv[2] * fv[2];
	double c01 = fu[0] * fv[0] + fu[1] * fv[1] + fu[2] * fv[2];
	double det = c00 * c11 - c01 * c01;
	if (!(det > 0))
		return sym2_identity();
	/* the closed-form square root of a 2x2 positive definite matrix */
	double d = sqrt(det), t = sqrt(c00 + c11 + 2 * d);
	struct sym2 u = {(c00 + d) / t, c01 / t, (c11 + d) / t};
	return u;
}

static int int32_cmp(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return (a > b) - (a < b);
}

/* The coarse triangles' mean edge length, metres, as the edge of an
 * equilateral triangle of their mean pattern area: the cloth's area
 * (a cell a cloth vertex) over the number of coarse triangles the tri
 * channel names.  0 when it names none. */
static double coarse_edge(const struct grid *g, const uint8_t *mask,
			  const int32_t *tri)
{
	size_t n = grid_vertices(g), cloth = 0, ids = 0;
	int32_t *id = xmalloc_array(n ? n : 1, sizeof *id);
	for (size_t v = 0; v < n; v++)
		if (mask[v] & MASK_INSIDE) {
			cloth++;
			if (tri[v] >= 0)
				id[ids++] = tri[v];
		}
	qsort(id, ids, sizeof *id, int32_cmp);
	size_t distinct = 0;
	for (size_t k = 0; k < ids; k++)
		distinct += k == 0 || id[k] != id[k - 1];
	free(id);
	if (distinct == 0)
		return 0;
	double area = (double)cloth * g->cell * g->cell / (double)distinct;
	return sqrt(4 * area / sqrt(3.0));
}

/* Every vertex's distance in the pattern, in cells, to the nearest seam
 * vertex of its panel through its panel's cloth (a two-pass chamfer
 * transform, steps 1 and sqrt 2: within 8% of the straight distance);
 * INFINITY where there is none. */
static float *seam_distance(const struct surface *s)
{
	int w = s->g->width, h = s->g->height;
	size_t n = grid_vertices(s->g);
	float *d = xmalloc_array(n ? n : 1, sizeof *d);
	for (size_t v = 0; v < n; v++)
		d[v] = (s->mask[v] & MASK_INSIDE) && (s->mask[v] & MASK_SEAM) ?
		       0.0f : INFINITY;
	static const int di[4] = {-1, -1, 0, 1}, dj[4] = {0, -1, -1, -1};
	const float step[4] = {1.0f, 1.41421356f, 1.0f, 1.41421356f};
	for (int pass = 0; pass < 2; pass++) {
		int sign = pass == 0 ? 1 : -1;
		for (int jj = 0; jj < h; jj++)
			for (int ii = 0; ii < w; ii++) {
				int i = pass == 0 ? ii : w - 1 - ii;
				int j = pass == 0 ? jj : h - 1 - jj;
				size_t v = (size_t)j * (size_t)w + (size_t)i;
				if (!(s->mask[v] & MASK_INSIDE))
					continue;
				for (int k = 0; k < 4; k++) {
					int a = i + sign * di[k], b = j + sign * dj[k];
					if (!same_cloth(s, a, b, v))
						continue;
					size_t u = (size_t)b * (size_t)w + (size_t)a;
					if (d[u] + step[k] < d[v])
						d[v] = d[u] + step[k];
				}
			}
	}
	return d;
}

/* --stretch-scale: U into every cloth vertex's tensor; with `tension`
 * only U's stretched directions (eigenvalues below 1 raised to 1), so
 * that where the coarse surface is compressed the fabric keeps its
 * pattern lengths and buckles into wrinkles, while where the coarse
 * drape holds the fabric stretched it stays as long as the drape has it
 * (the tension field of the coarse surface) instead of contracting.
 * Except along the seams, within a coarse edge of them in the pattern:
 * a coarse simulation's seams pull the triangles along them out of
 * shape (the Berkeley dress's with a corner on a panel's edge: largest
 * principal stretch 6% on average, 1.7% for the others), the grid's own
 * seam springs make their own,
 * and taking both gave the band along the seam more fabric than the
 * seam holds flat: it buckled across the seam, and the two sides crossed
 * (102 intersecting pairs at 4096 against 40 with no field).  A band of
 * the pattern, not the coarse triangles that hold seam vertices, so that
 * every level leaves the same cloth alone, to a cell. */
static int apply_stretch(const struct grid *g, int tension, float *field,
			 struct error *e)
{
	const struct grid_channel *rest = grid_find_typed(g, "rest", GRID_F32, 3);
	const struct grid_channel *mask = grid_find_typed(g, "mask", GRID_U8, 1);
	const struct grid_channel *panel = grid_find_typed(g, "panel", GRID_U16, 1);
	if (!rest || !mask)
		return error_set(e, "--stretch-scale needs the 'rest' (f32 x 3) "
				 "and 'mask' (u8 x 1) channels: run "
				 "pleat-resample first");
	struct surface s = {g, rest->data, mask->data,
			    panel ? panel->data : NULL};
	/* tension: the band along the seams left alone, one coarse edge
	 * wide, in cells */
	float *near = NULL;
	double band = 0;
	if (tension) {
		const struct grid_channel *tc = grid_find_typed(g, "tri", GRID_I32, 1);
		if (!tc)
			return error_set(e, "--stretch-scale=tension needs the "
					 "'tri' (i32 x 1) channel: run "
					 "pleat-resample first");
		band = coarse_edge(g, s.mask, tc->data) / g->cell;
		near = seam_distance(&s);
	}
	for (int j = 0; j < g->height; j++)
		for (int i = 0; i < g->width; i++) {
			size_t v = (size_t)j * (size_t)g->width + (size_t)i;
			if (!(s.mask[v] & MASK_INSIDE))
				continue;
			if (near && near[v] < band)
				continue;
			float *f = field + 3 * v;
			struct sym2 u = coarse_stretch(&s, i, j);
			if (tension)
				u = sym2_at_least(u, 1);
			store(f, sym2_apply(u, load(f)));
		}
	free(near);
	return 0;
}

int gather_apply(const struct grid *g, const struct gather_op *op,
		 float *field, struct error *e)
{
	if (op->kind == OP_STRETCH)
		return apply_stretch(g, op->tension, field, e);
	for (int j = 0; j < g->height; j++)
		for (int i = 0; i < g->width; i++) {
			float *f = field + 3 * ((size_t)j * (size_t)g->width +
						(size_t)i);
			double u = g->origin[0] + g->cell * i;
			double v = g->origin[1] + g->cell * j;
			if (op->kind == OP_SET)
				store(f, op->set);
			else if (op->kind == OP_PERTURB)
				store(f, sym2_pow(load(f), 1 + op->amount *
					 gather_noise(u, v, op->size, op->seed)));
			else
				store(f, sym2_apply(gather_pattern(op, u, v),
						    load(f)));
		}
	return 0;
}

/* bake.c - the maps: texels of the coarse mesh's UV layout, each holding
 * the wrinkled surface at its point.
 *
 * Tangent space follows MikkTSpace's convention for a shader that builds
 * the frame per pixel from the interpolated, unnormalised vertex normal n
 * and tangent t: bitangent b = sign * cross(n, t) and the shaded normal is
 * normalize(m.x t + m.y b + m.z n) for the map's value m.  The baker must
 * be its exact inverse: m is the wrinkled normal times the inverse of the
 * matrix [t b n], normalised.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "normalmap.h"
#include "pattern.h"
#include "tangent.h"

/* A texel centre on a triangle's edge belongs to it (to the lowest-
 * numbered of the triangles sharing the edge): no texel falls between
 * two triangles that share an edge. */
#define INSIDE_TOL 1e-9

int coarse_init(struct coarse *c, const struct obj_mesh *m, const char *name,
		struct error *e)
{
	struct pattern p;
	memset(c, 0, sizeof *c);
	if (pattern_build(&p, m, name, e))
		return -1;
	size_t n = m->ntri > 0 ? (size_t)m->ntri : 1;
	c->m = m;
	c->tri_panel = xmalloc_array(n, sizeof *c->tri_panel);
	memcpy(c->tri_panel, p.tri_panel, (size_t)m->ntri * sizeof *c->tri_panel);
	pattern_free(&p);
	c->normal = xmalloc_array(n * 3, sizeof *c->normal);
	c->tangent = xmalloc_array(n * 3, sizeof *c->tangent);
	mesh_corner_normals(m, c->normal);
	mikk_tangents(m, (const float (*)[3])c->normal, c->tangent);
	return 0;
}

void coarse_free(struct coarse *c)
{
	free(c->tri_panel);
	free(c->normal);
	free(c->tangent);
	memset(c, 0, sizeof *c);
}

void map_free(struct map *m)
{
	free(m->px);
	m->px = NULL;
}

/* ---- texels and texture coordinates ----------------------------------- */

static void texel_uv(const struct bake_options *o, int c, int r, double uv[2])
{
	uv[0] = o->region[0] + (c + 0.5) / o->width * (o->region[2] - o->region[0]);
	uv[1] = o->region[3] - (r + 0.5) / o->height * (o->region[3] - o->region[1]);
}

static const double *corner_uv(const struct obj_mesh *m, int t, int k)
{
	return m->vt[m->tri_vt[t][k]];
}

/* Twice the signed texture area of triangle t. */
static double uv_area2(const struct obj_mesh *m, int t)
{
	const double *a = corner_uv(m, t, 0), *b = corner_uv(m, t, 1),
		     *c = corner_uv(m, t, 2);
	return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Barycentric coordinates of uv in triangle t (area2 its uv_area2). */
static void uv_bary(const struct obj_mesh *m, int t, double area2,
		    const double uv[2], double w[3])
{
	const double *a = corner_uv(m, t, 0), *b = corner_uv(m, t, 1),
		     *c = corner_uv(m, t, 2);
	w[1] = ((uv[0] - a[0]) * (c[1] - a[1]) - (uv[1] - a[1]) * (c[0] - a[0])) / area2;
	w[2] = ((b[0] - a[0]) * (uv[1] - a[1]) - (b[1] - a[1]) * (uv[0] - a[0])) / area2;
	w[0] = 1 - w[1] - w[2];
}

/* Texel-space coordinate of texture coordinate u along axis a (0: columns,
 * 1: rows, which run downwards), texel centres at integers. */
static double texel_coord(const struct bake_options *o, double u, int a)
{
	if (a == 0)
		return (u - o->region[0]) / (o->region[2] - o->region[0]) * o->width - 0.5;
	return (o->region[3] - u) / (o->region[3] - o->region[1]) * o->height - 0.5;
}

/* Marks owner[] of the texels whose centres lie in triangle t, unless a
 * lower-numbered triangle has them.  Returns whether t reaches outside
 * the region. */
static int raster_triangle(const struct obj_mesh *m, int t,
			   const struct bake_options *o, int32_t *owner)
{
	double area2 = uv_area2(m, t), lo[2], hi[2];
	if (area2 == 0 || !isfinite(area2))
		return 0;
	for (int a = 0; a < 2; a++) {
		lo[a] = HUGE_VAL;
		hi[a] = -HUGE_VAL;
		for (int k = 0; k < 3; k++) {
			double x = texel_coord(o, corner_uv(m, t, k)[a], a);
			lo[a] = fmin(lo[a], x);
			hi[a] = fmax(hi[a], x);
		}
	}
	int outside = lo[0] < -0.5 || lo[1] < -0.5 || hi[0] > o->width - 0.5 ||
		      hi[1] > o->height - 0.5;
	double c0 = fmax(0, ceil(lo[0] - 1e-6)), c1 = fmin(o->width - 1, floor(hi[0] + 1e-6));
	double r0 = fmax(0, ceil(lo[1] - 1e-6)), r1 = fmin(o->height - 1, floor(hi[1] + 1e-6));
	if (!(c0 <= c1 && r0 <= r1))
		return outside;          /* off the map, or not finite */
	for (int r = (int)r0; r <= (int)r1; r++)
		for (int c = (int)c0; c <= (int)c1; c++) {
			size_t at = (size_t)r * o->width + c;
			double uv[2], w[3];
			if (owner[at] >= 0)
				continue;
			texel_uv(o, c, r, uv);
			uv_bary(m, t, area2, uv, w);
			if (w[0] >= -INSIDE_TOL && w[1] >= -INSIDE_TOL &&
			    w[2] >= -INSIDE_TOL)
				owner[at] = t;
		}
	return outside;
}

/* ---- one texel --------------------------------------------------------- */

/* The coarse frame at barycentric point w of triangle t: interpolated,
 * unnormalised normal and tangent, the bitangent built from them. */
struct frame { dvec3 t, b, n; };

static struct frame coarse_frame(const struct coarse *c, int t,
				 const double w[3])
{
	struct frame f = {d3(0, 0, 0), d3(0, 0, 0), d3(0, 0, 0)};
	double sign = 0;
	for (int k = 0; k < 3; k++) {
		const float *n = c->normal[3 * t + k], *tg = c->tangent[3 * t + k];
		f.n = d3_add(f.n, d3_scale(d3(n[0], n[1], n[2]), w[k]));
		f.t = d3_add(f.t, d3_scale(d3(tg[0], tg[1], tg[2]), w[k]));
		sign += w[k] * tg[3];
	}
	f.b = d3_scale(d3_cross(f.n, f.t), sign < 0 ? -1 : 1);
	return f;
}

/* The tangent-space normal whose shaded normal is nw (see the top). */
static dvec3 to_tangent_space(const struct frame *f, dvec3 nw)
{
	dvec3 r0 = d3_cross(f->b, f->n), r1 = d3_cross(f->n, f->t),
	      r2 = d3_cross(f->t, f->b);
	double det = d3_dot(f->t, r0);
	if (!(fabs(det) > 1e-12))
		return d3(0, 0, 1);          /* no frame: leave it flat */
	dvec3 m = d3(d3_dot(nw, r0), d3_dot(nw, r1), d3_dot(nw, r2));
	return d3_normalize(d3_scale(m, det < 0 ? -1 : 1));
}

static void put_rgb(float *px, dvec3 v)
{
	px[0] = (float)(0.5 * v.x + 0.5);
	px[1] = (float)(0.5 * v.y + 0.5);
	px[2] = (float)(0.5 * v.z + 0.5);
}

/* Everything a texel of triangle t shows, written to its maps. */
static int bake_texel(const struct surface *s, const struct coarse *c,
		      const struct bake_options *o, int col, int row, int t,
		      struct map maps[NMAPS])
{
	const struct obj_mesh *m = c->m;
	size_t at = (size_t)row * o->width + col;
	double uv[2], w[3], area2 = uv_area2(m, t);
	texel_uv(o, col, row, uv);
	uv_bary(m, t, area2, uv, w);
	struct frame f = coarse_frame(c, t, w);
	dvec3 coarse_n = d3_normalize(f.n);
	struct sample smp;
	int found = surface_sample(s, s->uv_scale * uv[0], s->uv_scale * uv[1],
				   c->tri_panel[t], &smp) == 0;
	/* The grid's normals point along dx/du x dx/dv; a triangle whose
	 * texture mirrors it has its 3D normal the other way. */
	dvec3 nw = found ? d3_scale(smp.normal, area2 < 0 ? -1 : 1) : coarse_n;
	if (o->want[MAP_TANGENT]) {
		dvec3 ts = found ? to_tangent_space(&f, nw) : d3(0, 0, 1);
		if (o->directx)
			ts.y = -ts.y;
		put_rgb(&maps[MAP_TANGENT].px[3 * at], ts);
	}
	if (o->want[MAP_OBJECT])
		put_rgb(&maps[MAP_OBJECT].px[3 * at], nw);
	if (o->want[MAP_DISPLACEMENT])
		maps[MAP_DISPLACEMENT].px[at] =
			found ? (float)d3_dot(smp.offset, coarse_n) : 0.0f;
	return found;
}

/* ---- the whole map ----------------------------------------------------- */

static const float background[NMAPS][3] = {
	{0.5f, 0.5f, 1.0f},   /* tangent space: the unperturbed normal */
	{0.0f, 0.0f, 0.0f},   /* object space: no normal */
	{0.0f, 0.0f, 0.0f},   /* displacement: none */
};

static const int map_comps[NMAPS] = {3, 3, 1};

static int alloc_maps(const struct bake_options *o, struct map maps[NMAPS],
		      struct error *e)
{
	size_t n = (size_t)o->width * (size_t)o->height;
	for (int k = 0; k < NMAPS; k++) {
		size_t bytes;
		maps[k] = (struct map){o->width, o->height, map_comps[k], NULL};
		if (!o->want[k])
			continue;
		if (size_mul(n, (size_t)map_comps[k] * sizeof(float), &bytes) ||
		    !(maps[k].px = big_alloc(bytes)))
			return error_set(e, "out of memory for a %d x %d map",
					 o->width, o->height);
	}
	return 0;
}

/* Turns owner[] into dilate()'s source array, grows it and copies each
 * filled texel's value from its source; the rest get the background. */
static void fill_outside(const struct bake_options *o, int32_t *src,
			 struct map maps[NMAPS], struct bake_stats *st)
{
	size_t n = (size_t)o->width * (size_t)o->height;
	for (size_t t = 0; t < n; t++)
		src[t] = src[t] >= 0 ? (int32_t)t : -1;
	st->dilated = dilate(src, o->width, o->height, o->dilate);
	for (int k = 0; k < NMAPS; k++) {
		if (!o->want[k])
			continue;
		int nc = maps[k].comps;
		float *px = maps[k].px;
		for (size_t t = 0; t < n; t++) {
			if (src[t] == (int32_t)t)
				continue;
			const float *from = src[t] >= 0 ? &px[(size_t)src[t] * nc] :
							  background[k];
			memcpy(&px[t * nc], from, (size_t)nc * sizeof *px);
		}
	}
}

int bake(const struct surface *s, const struct coarse *c,
	 const struct bake_options *o, struct map maps[NMAPS],
	 struct bake_stats *st, struct error *e)
{
	size_t n = (size_t)o->width * (size_t)o->height;
	memset(st, 0, sizeof *st);
	if (alloc_maps(o, maps, e))
		return -1;
	int32_t *owner = big_alloc(n * sizeof *owner);
	if (!owner)
		return error_set(e, "out of memory for a %d x %d map",
				 o->width, o->height);
	for (size_t t = 0; t < n; t++)
		owner[t] = -1;
	for (int t = 0; t < c->m->ntri; t++)
		st->clipped += raster_triangle(c->m, t, o, owner);
	size_t island = 0, found = 0;
	#pragma omp parallel for schedule(dynamic, 16) reduction(+:island, found)
	for (int r = 0; r < o->height; r++)
		for (int col = 0; col < o->width; col++) {
			int t = owner[(size_t)r * o->width + col];
			if (t < 0)
				continue;
			island++;
			found += (size_t)bake_texel(s, c, o, col, r, t, maps);
		}
	st->island = island;
	st->fallback = island - found;
	fill_outside(o, owner, maps, st);
	free(owner);
	return 0;
}

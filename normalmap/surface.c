/* surface.c - the wrinkled surface held by a solved grid: its normals,
 * its agreement with the coarse mesh, and sampling at pattern points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "normalmap.h"

/* The six neighbours of the grid's triangulation, in turning order: the
 * ring's consecutive pairs are the six triangles around a vertex. */
static const int ring[6][2] = {{1, 0}, {0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, -1}};

/* A vertex's pattern position may differ from where its tri and bary put
 * it only by float rounding: a hundredth of a cell is far above that and
 * far below any real mismatch. */
#define PATTERN_TOL 0.01

/* Coarse positions (rest) agree with the mesh to float rounding: this
 * fraction of the mesh's size. */
#define REST_TOL 1e-5

/* pleat-resample rounds the few sharp folds its grid cannot follow
 * (resample/untangle.c): the rest of those vertices lies up to about a
 * cell off the mesh.  A few such vertices, within this many cells, are
 * the resampler's; a wrong frame moves nearly every vertex. */
#define ROUNDED_CELLS 2.0
#define ROUNDED_SHARE 0.01

static const void *need(const struct grid *g, const char *gname,
			const char *name, enum grid_type t, int comps,
			const char *hint, struct error *e)
{
	struct grid_channel *c = grid_find_typed(g, name, t, comps);
	if (!c) {
		error_set(e, "%s: no %s channel (%s x%d)%s", gname, name,
			  grid_type_name(t), comps, hint);
		return NULL;
	}
	return c->data;
}

static int find_channels(struct surface *s, const struct grid *g,
			 const char *gname, struct error *e)
{
	const char *solve = ": run pleat-solve first";
	s->mask = need(g, gname, "mask", GRID_U8, 1, "", e);
	s->panel = s->mask ? need(g, gname, "panel", GRID_U16, 1, "", e) : NULL;
	s->tri = s->panel ? need(g, gname, "tri", GRID_I32, 1, "", e) : NULL;
	s->bary = s->tri ? need(g, gname, "bary", GRID_F32, 2, "", e) : NULL;
	s->rest = s->bary ? need(g, gname, "rest", GRID_F32, 3, "", e) : NULL;
	s->x = s->rest ? need(g, gname, "x", GRID_F32, 3, solve, e) : NULL;
	return s->x ? 0 : -1;
}

/* Texture coordinates of barycentric point b (of corners 1 and 2) of
 * triangle t. */
static void tri_uv(const struct obj_mesh *m, int t, const float *b,
		   double out[2])
{
	double w[3] = {1.0 - b[0] - b[1], b[0], b[1]};
	out[0] = out[1] = 0;
	for (int k = 0; k < 3; k++) {
		const double *vt = m->vt[m->tri_vt[t][k]];
		out[0] += w[k] * vt[0];
		out[1] += w[k] * vt[1];
	}
}

/* Every cloth vertex must name a triangle of m. */
static int check_triangles(const struct surface *s, const char *gname,
			   const struct obj_mesh *m, const char *mname,
			   struct error *e)
{
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			size_t v = (size_t)j * s->w + i;
			if ((s->mask[v] & MASK_INSIDE) &&
			    (s->tri[v] < 0 || s->tri[v] >= m->ntri))
				return error_set(e, "%s: vertex (%d, %d) lies in "
						 "coarse triangle %d, but %s has %d "
						 "triangles: is it the mesh the grid "
						 "was laid over?", gname, i, j,
						 (int)s->tri[v], mname, m->ntri);
		}
	return 0;
}

/* How far vertex (i, j)'s pattern position is from where its tri and
 * bary put it at the surface's texture scale, in cells. */
static double pattern_offset(const struct surface *s, const struct obj_mesh *m,
			     int i, int j)
{
	size_t v = (size_t)j * s->w + i;
	double uv[2];
	tri_uv(m, s->tri[v], &s->bary[2 * v], uv);
	double dx = s->g->origin[0] + i * s->g->cell - s->uv_scale * uv[0];
	double dy = s->g->origin[1] + j * s->g->cell - s->uv_scale * uv[1];
	return hypot(dx, dy) / s->g->cell;
}

/* How far the grid's coarse surface (rest) at vertex (i, j) is from the
 * mesh's, in metres. */
static double rest_offset(const struct surface *s, const struct obj_mesh *m,
			  int i, int j)
{
	(void)m;   /* s->coarse is over it */
	size_t v = (size_t)j * s->w + i;
	dvec3 p = rest_surface_at(&s->coarse, s->tri[v], &s->bary[2 * v]);
	const float *r = &s->rest[3 * v];
	return d3_norm(d3_sub(p, d3(r[0], r[1], r[2])));
}

typedef double offset_fn(const struct surface *s, const struct obj_mesh *m,
			 int i, int j);

/* How many cloth vertices have an offset not within tol, of *cloth. */
static long count_beyond(const struct surface *s, const struct obj_mesh *m,
			 offset_fn *f, double tol, long *cloth)
{
	long bad = 0, n = 0;
	#pragma omp parallel for schedule(static) reduction(+:bad, n)
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++)
			if (s->mask[(size_t)j * s->w + i] & MASK_INSIDE) {
				n++;
				bad += !(f(s, m, i, j) <= tol);
			}
	*cloth = n;
	return bad;
}

/* The first cloth vertex, in row order, whose offset is not within tol:
 * its index, with the offset in *off; -1 when there is none.  Rows are
 * counted in parallel, the first one found afterwards. */
static long first_beyond(const struct surface *s, const struct obj_mesh *m,
			 offset_fn *f, double tol, double *off)
{
	long cloth;
	if (count_beyond(s, m, f, tol, &cloth) == 0)
		return -1;
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++)
			if ((s->mask[(size_t)j * s->w + i] & MASK_INSIDE) &&
			    !((*off = f(s, m, i, j)) <= tol))
				return (long)j * s->w + i;
	return -1;
}

/* The pattern is the texture coordinates times one scale (the
 * resampler's --uv-scale): the least-squares fit of the cloth vertices'
 * pattern positions to their texture coordinates, then checked at every
 * vertex.  Sums are made per row, then added in row order, so that the
 * scale does not depend on the thread count. */
static int fit_uv_scale(struct surface *s, const char *gname,
			const struct obj_mesh *m, const char *mname,
			struct error *e)
{
	const struct grid *g = s->g;
	double (*row)[2] = xcalloc((size_t)s->h, sizeof *row);
	long n = 0;
	#pragma omp parallel for schedule(static) reduction(+:n)
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			size_t v = (size_t)j * s->w + i;
			if (!(s->mask[v] & MASK_INSIDE))
				continue;
			double uv[2];
			tri_uv(m, s->tri[v], &s->bary[2 * v], uv);
			row[j][0] += (g->origin[0] + i * g->cell) * uv[0] +
				     (g->origin[1] + j * g->cell) * uv[1];
			row[j][1] += uv[0] * uv[0] + uv[1] * uv[1];
			n++;
		}
	double pu = 0, uu = 0, off = 0;
	for (int j = 0; j < s->h; j++) {
		pu += row[j][0];
		uu += row[j][1];
	}
	free(row);
	if (n == 0)
		return error_set(e, "%s: no cloth vertex (mask)", gname);
	s->uv_scale = pu / uu;
	if (!(s->uv_scale > 0) || !isfinite(s->uv_scale))
		return error_set(e, "%s does not lie over %s's texture "
				 "coordinates", gname, mname);
	long v = first_beyond(s, m, pattern_offset, PATTERN_TOL, &off);
	if (v >= 0)
		return error_set(e, "%s does not lie over %s's texture "
				 "coordinates: vertex (%ld, %ld) is %.3g cells "
				 "from where its tri and bary put it", gname,
				 mname, v % s->w, v / s->w, off);
	return 0;
}

/* The grid's coarse surface (rest) must be this mesh's: the tangent
 * frames come from the mesh, the wrinkles are measured from rest. */
static int check_rest(const struct surface *s, const char *gname,
		      const struct obj_mesh *m, const char *mname,
		      struct error *e)
{
	double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
	double big = 0, off = 0;
	for (int v = 0; v < m->nv; v++)
		for (int a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], m->v[v][a]);
			hi[a] = fmax(hi[a], m->v[v][a]);
			big = fmax(big, fabs(m->v[v][a]));
		}
	double tol = REST_TOL * (hypot(hypot(hi[0] - lo[0], hi[1] - lo[1]),
				       hi[2] - lo[2]) + big);
	long cloth, rounded = count_beyond(s, m, rest_offset, tol, &cloth);
	if (rounded <= ROUNDED_SHARE * cloth)
		tol = fmax(tol, ROUNDED_CELLS * s->g->cell);
	long v = first_beyond(s, m, rest_offset, tol, &off);
	if (v >= 0)
		return error_set(e, "%s: the coarse surface (rest) at vertex "
				 "(%ld, %ld) is %.3g m from %s's: is %s the frame "
				 "the grid was resampled from?", gname, v % s->w,
				 v / s->w, off, mname, mname);
	return 0;
}

/* A cloth vertex of the given panel with finite positions. */
static int usable(const struct surface *s, const float *pos, int i, int j,
		  int panel)
{
	if (i < 0 || j < 0 || i >= s->w || j >= s->h)
		return 0;
	size_t v = (size_t)j * s->w + i;
	const float *p = &pos[3 * v];
	return (s->mask[v] & MASK_INSIDE) && s->panel[v] == panel &&
	       isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
}

static dvec3 at(const float *pos, size_t v)
{
	return d3(pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]);
}

int surface_ring_normal(const struct surface *s, const float *pos, int i,
			int j, dvec3 *out)
{
	size_t v = (size_t)j * s->w + i;
	int panel = s->panel[v];
	if (!usable(s, pos, i, j, panel))
		return -1;
	dvec3 p = at(pos, v), sum = d3(0, 0, 0);
	for (int k = 0; k < 6; k++) {
		int ai = i + ring[k][0], aj = j + ring[k][1];
		int bi = i + ring[(k + 1) % 6][0], bj = j + ring[(k + 1) % 6][1];
		if (!usable(s, pos, ai, aj, panel) || !usable(s, pos, bi, bj, panel))
			continue;
		dvec3 a = d3_sub(at(pos, (size_t)aj * s->w + ai), p);
		dvec3 b = d3_sub(at(pos, (size_t)bj * s->w + bi), p);
		sum = d3_add(sum, d3_cross(a, b));
	}
	*out = d3_normalize(sum);
	return d3_dot(*out, *out) > 0.5 ? 0 : -1;
}

static void compute_normals(struct surface *s)
{
	#pragma omp parallel for schedule(static)
	for (int j = 0; j < s->h; j++)
		for (int i = 0; i < s->w; i++) {
			size_t v = (size_t)j * s->w + i;
			float *n = &s->normal[3 * v];
			dvec3 d;
			if (surface_ring_normal(s, s->x, i, j, &d) == 0) {
				n[0] = (float)d.x;
				n[1] = (float)d.y;
				n[2] = (float)d.z;
			} else {
				n[0] = n[1] = n[2] = NAN;
			}
		}
}

int surface_init(struct surface *s, const struct grid *g, const char *gname,
		 const struct obj_mesh *m, const char *mname, struct error *e)
{
	memset(s, 0, sizeof *s);
	s->g = g;
	s->w = g->width;
	s->h = g->height;
	if (find_channels(s, g, gname, e) ||
	    check_triangles(s, gname, m, mname, e) ||
	    fit_uv_scale(s, gname, m, mname, e))
		return -1;
	/* the surface pleat-resample sampled the rest from: no key, the
	 * flat triangles */
	const char *rest = grid_get_extra(g, REST_SURFACE_KEY);
	if (rest && strcmp(rest, REST_SURFACE_SMOOTH) != 0)
		return error_set(e, "%s: rest-surface '%s' is not a surface this "
				 "pleat-normalmap knows%s", gname, rest,
				 strcmp(rest, REST_SURFACE_OLD_PHONG) == 0 ?
				 " (an earlier pleat-resample --smooth): "
				 "resample the mesh again" : "");
	rest_surface_init(&s->coarse, m, rest != NULL);
	if (check_rest(s, gname, m, mname, e))
		return -1;
	size_t n = grid_vertices(g), bytes;
	if (size_mul(n, 3 * sizeof(float), &bytes) ||
	    !(s->normal = big_alloc(bytes)))
		return error_set(e, "%s: out of memory for the normals", gname);
	compute_normals(s);
	return 0;
}

void surface_free(struct surface *s)
{
	rest_surface_free(&s->coarse);
	free(s->normal);
	s->normal = NULL;
}

/* Whether vertex (i, j) has a normal and belongs to the panel. */
static int has_normal(const struct surface *s, int i, int j, int panel)
{
	if (i < 0 || j < 0 || i >= s->w || j >= s->h)
		return 0;
	size_t v = (size_t)j * s->w + i;
	return s->panel[v] == panel && !isnan(s->normal[3 * v]);
}

static void accumulate(const struct surface *s, size_t v, double w,
		       dvec3 *n, dvec3 *off)
{
	*n = d3_add(*n, d3_scale(at(s->normal, v), w));
	*off = d3_add(*off, d3_scale(d3_sub(at(s->x, v), at(s->rest, v)), w));
}

/* The nearest vertex with a normal within two cells of (gx, gy). */
static long nearest_vertex(const struct surface *s, double gx, double gy,
			   int panel)
{
	int ci = (int)floor(gx + 0.5), cj = (int)floor(gy + 0.5);
	long best = -1;
	double bd = HUGE_VAL;
	for (int dj = -2; dj <= 2; dj++)
		for (int di = -2; di <= 2; di++) {
			int i = ci + di, j = cj + dj;
			double d = (i - gx) * (i - gx) + (j - gy) * (j - gy);
			if (d < bd && has_normal(s, i, j, panel)) {
				bd = d;
				best = (long)j * s->w + i;
			}
		}
	return best;
}

int surface_sample(const struct surface *s, double px, double py, int panel,
		   struct sample *out)
{
	const struct grid *g = s->g;
	double gx = (px - g->origin[0]) / g->cell, gy = (py - g->origin[1]) / g->cell;
	if (!(fabs(gx) < 2.0 * GRID_MAX_SIDE && fabs(gy) < 2.0 * GRID_MAX_SIDE))
		return -1;
	double fi = floor(gx), fj = floor(gy), fx = gx - fi, fy = gy - fj;
	int i0 = (int)fi, j0 = (int)fj;
	dvec3 n = d3(0, 0, 0), off = d3(0, 0, 0);
	double wsum = 0;
	for (int c = 0; c < 4; c++) {
		int di = c & 1, dj = c >> 1;
		double w = (di ? fx : 1 - fx) * (dj ? fy : 1 - fy);
		if (w <= 0 || !has_normal(s, i0 + di, j0 + dj, panel))
			continue;
		accumulate(s, (size_t)(j0 + dj) * s->w + (i0 + di), w, &n, &off);
		wsum += w;
	}
	if (wsum == 0) {
		long v = nearest_vertex(s, gx, gy, panel);
		if (v < 0)
			return -1;
		accumulate(s, (size_t)v, 1, &n, &off);
		wsum = 1;
	}
	out->normal = d3_normalize(n);
	out->offset = d3_scale(off, 1 / wsum);
	return d3_dot(out->normal, out->normal) > 0.5 ? 0 : -1;
}

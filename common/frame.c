/* frame.c - local frames of the coarse surface (see frame.h). */
#include "frame.h"

#include <math.h>

#include "vec.h"

/* Below this sine of the angle between the two tangents the coarse
 * surface is taken as collapsed: no normal can be trusted there. */
#define FRAME_MIN_SINE 1e-6

static const void *borrow(const struct grid *g, const char *name,
			  enum grid_type t, int comps, struct error *e)
{
	const struct grid_channel *c = grid_find_typed(g, name, t, comps);
	if (!c)
		error_set(e, "needs a '%s' channel of type %s x %d (as "
			  "pleat-resample writes it)", name, grid_type_name(t),
			  comps);
	return c ? c->data : NULL;
}

int frame_field_init(struct frame_field *f, const struct grid *g,
		     struct error *e)
{
	f->w = g->width;
	f->h = g->height;
	if (!(f->mask = borrow(g, "mask", GRID_U8, 1, e)) ||
	    !(f->panel = borrow(g, "panel", GRID_U16, 1, e)) ||
	    !(f->rest = borrow(g, "rest", GRID_F32, 3, e)))
		return -1;
	return 0;
}

int frame_cloth_of(const struct frame_field *f, int i, int j, uint16_t p)
{
	if (i < 0 || j < 0 || i >= f->w || j >= f->h)
		return 0;
	size_t v = (size_t)j * (size_t)f->w + (size_t)i;
	return (f->mask[v] & MASK_INSIDE) && f->panel[v] == p;
}

static dvec3 rest_at(const struct frame_field *f, int i, int j)
{
	const float *r = f->rest + 3 * ((size_t)j * (size_t)f->w + (size_t)i);
	return d3(r[0], r[1], r[2]);
}

/* Least-squares tangents over the same-panel cloth vertices within
 * `reach` cells: rest(k) - rest(0) ~ a_k tu + b_k tv for the offsets
 * (a_k, b_k).  The normal equations' matrix has integer entries, so it
 * is singular exactly when the offsets are collinear; returns 0 then.
 * tu and tv come out scaled by the determinant, which is positive, so
 * their directions are right; it is stored in *det. */
static int fit_tangents(const struct frame_field *f, int i, int j, int reach,
			dvec3 *tu, dvec3 *tv, double *det)
{
	uint16_t p = f->panel[(size_t)j * (size_t)f->w + (size_t)i];
	dvec3 r0 = rest_at(f, i, j), bu = d3(0, 0, 0), bv = d3(0, 0, 0);
	double saa = 0, sab = 0, sbb = 0;
	for (int b = -reach; b <= reach; b++)
		for (int a = -reach; a <= reach; a++) {
			if ((a == 0 && b == 0) || !frame_cloth_of(f, i + a, j + b, p))
				continue;
			dvec3 r = d3_sub(rest_at(f, i + a, j + b), r0);
			bu = d3_add(bu, d3_scale(r, a));
			bv = d3_add(bv, d3_scale(r, b));
			saa += a * a;
			sab += a * b;
			sbb += b * b;
		}
	*det = saa * sbb - sab * sab;
	if (*det < 0.5)
		return 0;
	*tu = d3_sub(d3_scale(bu, sbb), d3_scale(bv, sab));
	*tv = d3_sub(d3_scale(bv, saa), d3_scale(bu, sab));
	return 1;
}

static void identity(double axes[3][3])
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			axes[r][c] = r == c;
}

static void store(double row[3], dvec3 a)
{
	row[0] = a.x;
	row[1] = a.y;
	row[2] = a.z;
}

int frame_at(const struct frame_field *f, int i, int j, double axes[3][3])
{
	dvec3 tu, tv;
	identity(axes);
	double det;
	if (!fit_tangents(f, i, j, 1, &tu, &tv, &det) &&
	    !fit_tangents(f, i, j, 2, &tu, &tv, &det))
		return 0;
	double nu = d3_norm(tu), nv = d3_norm(tv);
	if (!(nu > 0) || !(nv > 0))
		return 0;
	dvec3 e0 = d3_scale(tu, 1 / nu);
	dvec3 t1 = d3_sub(tv, d3_scale(e0, d3_dot(tv, e0)));
	double n1 = d3_norm(t1);
	if (!(n1 > FRAME_MIN_SINE * nv))
		return 0;
	dvec3 e1 = d3_scale(t1, 1 / n1);
	store(axes[0], e0);
	store(axes[1], e1);
	store(axes[2], d3_cross(e0, e1));
	return 1;
}

int frame_lattice_tangents(const struct frame_field *f, int i, int j,
			   double tu[3], double tv[3])
{
	dvec3 a, b;
	double det;
	if (i < 0 || j < 0 || i >= f->w || j >= f->h ||
	    !(f->mask[(size_t)j * (size_t)f->w + (size_t)i] & MASK_INSIDE) ||
	    (!fit_tangents(f, i, j, 1, &a, &b, &det) &&
	     !fit_tangents(f, i, j, 2, &a, &b, &det)))
		return 0;
	store(tu, d3_scale(a, 1 / det));
	store(tv, d3_scale(b, 1 / det));
	return 1;
}

void frame_to_local(const double axes[3][3], const double d[3], double w[3])
{
	for (int k = 0; k < 3; k++)
		w[k] = axes[k][0] * d[0] + axes[k][1] * d[1] + axes[k][2] * d[2];
}

void frame_to_world(const double axes[3][3], const double w[3], double d[3])
{
	for (int c = 0; c < 3; c++)
		d[c] = axes[0][c] * w[0] + axes[1][c] * w[1] + axes[2][c] * w[2];
}

int frame_pair(const struct frame_field *a, const struct frame_field *b,
	       int i, int j, double fa[3][3], double fb[3][3])
{
	if (frame_at(a, i, j, fa) && frame_at(b, i, j, fb))
		return 1;
	identity(fa);
	identity(fb);
	return 0;
}

void frame_displacement(const struct frame_field *f, const float *x,
			size_t v, double d[3])
{
	for (int c = 0; c < 3; c++)
		d[c] = (double)x[3 * v + c] - (double)f->rest[3 * v + c];
}

/* multigrid.c - --method mg: nonlinear multigrid over the nested grids.
 *
 * The block method's iterations remove the short waves of the error in a
 * few steps and the long ones in thousands (each doubling of the
 * resolution costs about 8x the iterations).  The levels of a pleat
 * hierarchy nest: a level's vertices are every second vertex of the next
 * finer one, same origin.  So the solver makes the coarser grids itself,
 * N/2, N/4, ... down to a small one, and runs the full approximation
 * scheme in its optimisation form (MG/Opt, Nash 2000; the recursive
 * multilevel methods of Kopanicakova, Krause and Tamstorf 2019 are its
 * trust-region relatives): a V-cycle on level l with objective
 * F_l(x) - f_l.x (f_0 = 0) is
 *
 *   smooth:    pre block steps on F_l - f_l.x
 *   restrict:  y0 = the iterate at the coarse vertices (injection),
 *              f_{l+1} = grad F_{l+1}(y0) - R (grad F_l(x) - f_l),
 *              so that the coarse objective's gradient at y0 is the
 *              restricted fine one (the tau correction: first order,
 *              the coarse problem and the fine one agree)
 *   recurse:   y = the V-cycle on level l+1 from y0 (the coarsest level
 *              is solved to its tolerance with the block method and
 *              Chebyshev)
 *   correct:   x + P (y - y0), projected onto the body's half-planes,
 *              accepted only when the level's energy falls (else half
 *              and a quarter of it are tried, then nothing)
 *   smooth:    post block steps
 *
 * and on the finest level a line search along the cycle's move
 * (accel_finish).
 * P is linear interpolation on the triangulated coarse grid (a fine
 * vertex between two coarse ones gets their mean, the diagonal of a cell
 * runs like the grid's), from coarse vertices of the fine vertex's own
 * panel only: nothing crosses a pattern boundary.  R = P^T, gathered per
 * coarse vertex in a fixed order (deterministic at any thread count).
 *
 * The coarse levels hold the grid energies (same material: the per-level
 * constants come from the cell size), the seams (at the seam vertices the
 * coarse grid keeps), the shape pull and gravity; the body, self
 * collision and inflation stay on the finest level, where the energy
 * check and the projection see them, and reach the coarse levels through
 * the correction f.  A coarse vertex is pinned
 * where a pinned fine vertex interpolates from it, so a correction never
 * moves a pin's neighbourhood against the pin.  The finest level's
 * smoothing iterations count against -n. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "solve.h"
#include "util.h"

/* Coarsen while the grid has at least this many vertices on each side;
 * the coarsest level has fewer (about two blocks). */
#define MG_MIN_SIDE 12
#define MG_MAX_LEVELS 16
/* Smoothing iterations before and after the coarse correction, and the
 * coarsest level's budget and tolerance (its iterations are cheap: a
 * few hundred vertices). */
#define MG_PRE 8
#define MG_POST 8
#define MG_COARSEST_BUDGET 1024
#define MG_COARSEST_TOLERANCE 1e-4

/* A fine vertex's coarse parents: up to two, with their weights (one
 * parent of weight 1 on the coarse vertices, none where no coarse
 * vertex of the panel is at hand). */
struct parents {
	int32_t at[2];
	float w[2];
};

/* How a coarse level sits on its fine one: coarse vertex (I, J) is fine
 * vertex (2I + oi, 2J + oj), the parity chosen so that the coarse grid
 * keeps the most of the fine cloth's boundary (a square's edges, say). */
struct nesting {
	int oi, oj;
	int fw, fh, cw, ch;
};

struct level {
	struct grid g;           /* levels 1 ..: the grid made here */
	struct problem *p;       /* level 0: the caller's */
	struct problem own;
	struct solve_params sp;  /* the smoother's */
	float *force;            /* f_l, NULL on level 0 */
	float *grad, *trial, *y0;
	struct parents *up;      /* per vertex: parents on level l+1 */
	struct nesting nest;     /* how level l+1 sits on this one */
};

struct multigrid {
	struct level lv[MG_MAX_LEVELS];
	const struct solve_device *dev;  /* the finest level's smoother's */
	int nlevels;
	int fine_iterations;     /* the finest level's, so far */
	int halvings;
	int coarse_failures;     /* coarse smoothings that gave up */
};

/* ---- the per-vertex transfer arithmetic --------------------------- */

/* The coarse vertex (I, J) as an index, -1 when off the coarse grid or
 * not cloth of the panel. */
static int32_t parent_at(const struct nesting *n, const uint8_t *cmask,
			 const uint16_t *cpanel, int panel, int I, int J)
{
	if (I < 0 || J < 0 || I >= n->cw || J >= n->ch)
		return -1;
	int32_t c = J * n->cw + I;
	if (!(cmask[c] & MASK_INSIDE) || (cpanel && cpanel[c] != panel))
		return -1;
	return c;
}

static int floor_half(int a) { return (a - (a & 1)) / 2; }

/* The parents of fine vertex (i, j): linear interpolation on the coarse
 * triangles, whose diagonals join (I, J + 1) and (I + 1, J) as the fine
 * grid's do, from the coarse vertices that are cloth of the vertex's
 * panel, weights renormalised; where none of those is, the mean of the
 * cell's corners that are (a boundary the coarse grid cuts off). */
static struct parents parents_of(const struct nesting *n, const uint8_t *fmask,
				 const uint16_t *fpanel, const uint8_t *cmask,
				 const uint16_t *cpanel, int i, int j)
{
	struct parents r = {{-1, -1}, {0, 0}};
	size_t v = (size_t)j * (size_t)n->fw + (size_t)i;
	if (!(fmask[v] & MASK_INSIDE))
		return r;
	int panel = fpanel ? fpanel[v] : 0;
	int a = i - n->oi, b = j - n->oj, I = floor_half(a), J = floor_half(b);
	int ci[4], cj[4], m;
	if (!(a & 1) && !(b & 1)) {
		ci[0] = I; cj[0] = J; m = 1;
	} else if (a & 1 && !(b & 1)) {
		ci[0] = I; cj[0] = J; ci[1] = I + 1; cj[1] = J; m = 2;
	} else if (!(a & 1)) {
		ci[0] = I; cj[0] = J; ci[1] = I; cj[1] = J + 1; m = 2;
	} else {
		ci[0] = I; cj[0] = J + 1; ci[1] = I + 1; cj[1] = J; m = 2;
	}
	int kept = 0;
	for (int k = 0; k < m; k++) {
		int32_t c = parent_at(n, cmask, cpanel, panel, ci[k], cj[k]);
		if (c >= 0)
			r.at[kept++] = c;
	}
	/* none: the cell's other corners, the nearest first */
	if (!kept && (a & 1) && (b & 1)) {
		int32_t c0 = parent_at(n, cmask, cpanel, panel, I, J);
		int32_t c1 = parent_at(n, cmask, cpanel, panel, I + 1, J + 1);
		if (c0 >= 0) r.at[kept++] = c0;
		if (c1 >= 0) r.at[kept++] = c1;
	}
	for (int k = 0; k < kept; k++)
		r.w[k] = 1.0f / (float)kept;
	return r;
}

/* The weight coarse vertex c has in fine vertex f's interpolation. */
static float weight_in(const struct parents *f, int32_t c)
{
	return (f->at[0] == c ? f->w[0] : 0.0f) +
	       (f->at[1] == c ? f->w[1] : 0.0f);
}

/* (R r)(c) = sum over c's children f of w_f(c) r(f), in a fixed order
 * (the fallback of parents_of reaches the cell's two other corners, so
 * the children are the 3 x 3 fine vertices around c). */
static vec3 restrict_vertex(const struct nesting *n, const struct parents *up,
			    const float *r, int I, int J, int32_t c)
{
	vec3 s = v3(0.0f, 0.0f, 0.0f);
	for (int k = 0; k < 9; k++) {
		int i = 2 * I + n->oi + k % 3 - 1, j = 2 * J + n->oj + k / 3 - 1;
		if (i < 0 || j < 0 || i >= n->fw || j >= n->fh)
			continue;
		size_t f = (size_t)j * (size_t)n->fw + (size_t)i;
		float w = weight_in(&up[f], c);
		if (w != 0.0f)
			s = v3_madd(s, v3_load(r + 3 * f), w);
	}
	return s;
}

/* (P e)(f) for fine vertex f. */
static vec3 prolong_vertex(const struct parents *u, const float *e)
{
	vec3 s = v3(0.0f, 0.0f, 0.0f);
	for (int k = 0; k < 2; k++)
		if (u->at[k] >= 0)
			s = v3_madd(s, v3_load(e + 3 * (size_t)u->at[k]), u->w[k]);
	return s;
}

/* ---- the levels --------------------------------------------------- */

/* The parity along one axis that puts the most cloth boundary vertices
 * (cloth with a neighbour along the axis that is not) on the coarse
 * grid: di, dj the axis. */
static int best_parity(const struct grid *fg, int di, int dj)
{
	const uint8_t *m = grid_find(fg, "mask")->data;
	long count[2] = {0, 0};
	for (int j = 0; j < fg->height; j++)
		for (int i = 0; i < fg->width; i++) {
			size_t v = (size_t)j * (size_t)fg->width + (size_t)i;
			if (!(m[v] & MASK_INSIDE))
				continue;
			int edge = 0;
			for (int s = -1; s <= 1; s += 2) {
				int a = i + s * di, b = j + s * dj;
				edge |= a < 0 || b < 0 || a >= fg->width ||
					b >= fg->height ||
					!(m[(size_t)b * (size_t)fg->width + (size_t)a] &
					  MASK_INSIDE);
			}
			count[(di ? i : j) & 1] += edge;
		}
	return count[1] > count[0];
}

/* Channel name of the fine grid, copied at the coarse vertices. */
static int subsample(const struct grid *fine, struct grid *coarse,
		     const struct nesting *n, const char *name,
		     struct error *e)
{
	const struct grid_channel *f = grid_find(fine, name);
	if (!f)
		return 0;
	struct grid_channel *c = grid_add(coarse, name, f->type, f->comps, e);
	if (!c)
		return -1;
	size_t bytes = grid_type_size(f->type) * (size_t)f->comps;
	for (int J = 0; J < n->ch; J++)
		for (int I = 0; I < n->cw; I++)
			memcpy((char *)c->data + ((size_t)J * (size_t)n->cw +
			       (size_t)I) * bytes, (const char *)f->data +
			       ((size_t)(2 * J + n->oj) * (size_t)n->fw +
				(size_t)(2 * I + n->oi)) * bytes, bytes);
	return 0;
}

/* The coarse grid of a fine one: its mask, panel, rest shape, gathering
 * field and seams at the coarse vertices (a seam vertex's partner is a
 * point of the pattern, which the coarse grid finds on its own cells). */
static int coarse_grid(const struct grid *fine, struct grid *g,
		       struct nesting *n, struct error *e)
{
	n->oi = best_parity(fine, 1, 0);
	n->oj = best_parity(fine, 0, 1);
	n->fw = fine->width;
	n->fh = fine->height;
	n->cw = (fine->width - n->oi + 1) / 2;
	n->ch = (fine->height - n->oj + 1) / 2;
	double origin[2] = {fine->origin[0] + n->oi * fine->cell,
			    fine->origin[1] + n->oj * fine->cell};
	if (grid_init(g, n->cw, n->ch, 2 * fine->cell, origin, e))
		return -1;
	const char *names[] = {"mask", "panel", "rest", "gather", "seam"};
	for (size_t k = 0; k < sizeof names / sizeof *names; k++)
		if (subsample(fine, g, n, names[k], e))
			return -1;
	return 0;
}

/* Every fine vertex's parents, and the coarse vertices that a pinned
 * fine vertex interpolates from pinned in the coarse mask. */
static void link_levels(struct level *f, const struct grid *fg,
			struct grid *cg)
{
	const uint8_t *fmask = grid_find(fg, "mask")->data;
	uint8_t *cmask = grid_find(cg, "mask")->data;
	const struct grid_channel *fp = grid_find(fg, "panel");
	const struct grid_channel *cp = grid_find(cg, "panel");
	const uint16_t *fpanel = fp && cp ? fp->data : NULL;
	const uint16_t *cpanel = fp && cp ? cp->data : NULL;
	int fw = fg->width, fh = fg->height;
	f->up = xmalloc_array((size_t)fw * (size_t)fh, sizeof *f->up);
	for (int j = 0; j < fh; j++)
		for (int i = 0; i < fw; i++) {
			size_t v = (size_t)j * (size_t)fw + (size_t)i;
			f->up[v] = parents_of(&f->nest, fmask, fpanel, cmask,
					      cpanel, i, j);
		}
	for (size_t v = 0; v < (size_t)fw * (size_t)fh; v++)
		if ((fmask[v] & MASK_INSIDE) && !f->p->mov[v])
			for (int k = 0; k < 2; k++)
				if (f->up[v].at[k] >= 0)
					cmask[f->up[v].at[k]] |= MASK_FIXED;
}

/* Pins the coarse vertices that hang by fewer than two triangles: where
 * a thin part of a panel (a strap, a tip) has lost its width on the
 * coarse grid, nothing but the weak shape pull would hold such a vertex
 * against the correction's force, and it would fly off. */
static void pin_loose(struct problem *p)
{
	for (size_t v = 0; v < p->n; v++) {
		if (!p->mov[v])
			continue;
		int tris = 0;
		for (int r = 0; r < 6; r++)
			tris += ring_edge_triangles(p->nbr[v], r) > 0;
		if (tris < 2) {
			p->mov[v] = 0;
			p->nfree--;
		}
	}
}

/* The smoother's parameters on a level: the block method, no Chebyshev
 * (a few iterations at a time), no output of its own. */
static struct solve_params smoother_params(const struct solve_params *sp,
					   int iterations, double tolerance)
{
	struct solve_params s = *sp;
	s.method = METHOD_BLOCK;
	s.iterations = iterations;
	s.tolerance = tolerance;
	return s;
}

/* The coarse level l + 1 made from level l (whose grid is fg). */
static int add_level(struct multigrid *mg, const struct grid *fg,
		     const struct solve_params *sp, struct error *e)
{
	struct level *f = &mg->lv[mg->nlevels - 1], *c = &mg->lv[mg->nlevels];
	if (coarse_grid(fg, &c->g, &f->nest, e))
		return -1;
	link_levels(f, fg, &c->g);
	/* the coarse problem: grid energies, seams, shape and gravity */
	struct solve_params csp = *sp;
	csp.self = 0;
	memset(&csp.effects, 0, sizeof csp.effects);
	if (problem_init(&c->own, &c->g, &csp, e))
		return -1;
	c->p = &c->own;
	pin_loose(c->p);
	c->sp = smoother_params(&csp, MG_PRE, 0);
	size_t bytes = c->p->n * 3 * sizeof(float);
	c->force = big_alloc(bytes);
	c->y0 = big_alloc(bytes);
	if (!c->force || !c->y0)
		return error_set(e, "out of memory for the multigrid levels");
	memset(c->force, 0, bytes);
	mg->nlevels++;
	return 0;
}

static int scratch(struct level *l, struct error *e)
{
	size_t bytes = l->p->n * 3 * sizeof(float);
	l->grad = big_alloc(bytes);
	l->trial = big_alloc(bytes);
	if (!l->grad || !l->trial)
		return error_set(e, "out of memory for the multigrid levels");
	return 0;
}

static int multigrid_init(struct multigrid *mg, struct problem *p,
			  const struct grid *g, const struct solve_params *sp,
			  struct error *e)
{
	memset(mg, 0, sizeof *mg);
	mg->lv[0].p = p;
	mg->lv[0].sp = smoother_params(sp, MG_PRE, 0);
	mg->nlevels = 1;
	if (scratch(&mg->lv[0], e))
		return -1;
	const struct grid *fg = g;
	while (mg->nlevels < MG_MAX_LEVELS && fg->width >= MG_MIN_SIDE &&
	       fg->height >= MG_MIN_SIDE) {
		if (add_level(mg, fg, sp, e) ||
		    scratch(&mg->lv[mg->nlevels - 1], e))
			return -1;
		fg = &mg->lv[mg->nlevels - 1].g;
	}
	struct level *last = &mg->lv[mg->nlevels - 1];
	last->sp = smoother_params(&last->sp, MG_COARSEST_BUDGET,
				   MG_COARSEST_TOLERANCE);
	/* solved to convergence: Chebyshev with its radius estimated */
	last->sp.rho_auto = 1;
	return 0;
}

static void multigrid_free(struct multigrid *mg)
{
	for (int l = 0; l < mg->nlevels; l++) {
		struct level *lv = &mg->lv[l];
		free(lv->grad);
		free(lv->trial);
		free(lv->force);
		free(lv->y0);
		free(lv->up);
		if (l > 0) {
			problem_free(&lv->own);
			grid_free(&lv->g);
		}
	}
}

/* ---- the cycle ---------------------------------------------------- */

/* grad F_l - f_l at x into out (the level's residual). */
static void level_residual(struct level *l, const float *x, float *out)
{
	seams_update(&l->p->seams, x);
	problem_gradient(l->p, x, out);
}

/* y0 = x at the coarse vertices, and f_c = grad F_c(y0) - R r. */
static void restrict_level(struct level *f, struct level *c)
{
	struct problem *fp = f->p, *cp = c->p;
	level_residual(f, fp->x, f->grad);
	#pragma omp parallel for schedule(static)
	for (int J = 0; J < cp->h; J++)
		for (int I = 0; I < cp->w; I++) {
			size_t v = (size_t)J * (size_t)cp->w + (size_t)I;
			size_t fv = (size_t)(2 * J + f->nest.oj) * (size_t)fp->w +
				    (size_t)(2 * I + f->nest.oi);
			v3_store(cp->x + 3 * v, v3_load(fp->x + 3 * fv));
		}
	memcpy(c->y0, cp->x, cp->n * 3 * sizeof(float));
	cp->terms.force = NULL;
	level_residual(c, cp->x, c->grad);
	#pragma omp parallel for schedule(static)
	for (int J = 0; J < cp->h; J++)
		for (int I = 0; I < cp->w; I++) {
			int32_t v = J * cp->w + I;
			vec3 r = restrict_vertex(&f->nest, f->up, f->grad, I, J, v);
			vec3 fc = cp->mov[v] ? v3_sub(v3_load(c->grad + 3 * (size_t)v),
						      r) : v3(0.0f, 0.0f, 0.0f);
			v3_store(c->force + 3 * (size_t)v, fc);
		}
	cp->terms.force = c->force;
}

/* trial = x + s P (y - y0) on the moving vertices, projected. */
static void prolong_level(struct level *f, const struct level *c, float s)
{
	const struct problem *fp = f->p, *cp = c->p;
	/* the coarse correction, in c's gradient buffer */
	#pragma omp parallel for schedule(static)
	for (long k = 0; k < 3 * (long)cp->n; k++)
		c->grad[k] = cp->x[k] - c->y0[k];
	#pragma omp parallel for schedule(static)
	for (long v = 0; v < (long)fp->n; v++) {
		vec3 x = v3_load(fp->x + 3 * v);
		if (fp->mov[v])
			x = v3_madd(x, prolong_vertex(&f->up[v], c->grad), s);
		v3_store(f->trial + 3 * v, x);
	}
	problem_project(fp, f->trial);
}

/* The coarse correction applied when it lowers level l's energy: the
 * whole of it, or half, or a quarter. */
static void correct(struct multigrid *mg, struct level *f,
		    const struct level *c)
{
	struct check k0, k;
	problem_check(f->p, f->p->x, &k0);
	for (float s = 1.0f; s >= 0.25f; s *= 0.5f) {
		prolong_level(f, c, s);
		problem_check(f->p, f->trial, &k);
		if (isfinite(k.energy) && k.energy < k0.energy) {
			memcpy(f->p->x, f->trial, f->p->n * 3 * sizeof(float));
			return;
		}
		mg->halvings++;
	}
}

/* Smoothing on level l: iterations block steps (its own step control). */
static int smooth(struct multigrid *mg, int l, int iterations,
		  struct error *e)
{
	struct level *lv = &mg->lv[l];
	struct solve_result r;
	if (iterations <= 0)
		return 0;
	lv->sp.iterations = iterations;
	if (solve_run(lv->p, &lv->sp, l == 0 ? mg->dev : NULL, NULL, NULL, &r, e)) {
		/* a coarse level whose step fell below its floor keeps its
		 * last accepted iterate: its correction, whatever it is,
		 * faces the finer level's energy check */
		if (l == 0)
			return -1;
		mg->coarse_failures++;
	}
	if (l == 0)
		mg->fine_iterations += r.iterations;
	return 0;
}

static int vcycle(struct multigrid *mg, int l, int pre, int post,
		  struct error *e)
{
	struct level *lv = &mg->lv[l];
	if (l == mg->nlevels - 1)
		return smooth(mg, l, lv->sp.iterations, e);
	if (smooth(mg, l, pre, e))
		return -1;
	restrict_level(lv, &mg->lv[l + 1]);
	if (vcycle(mg, l + 1, MG_PRE, MG_POST, e))
		return -1;
	correct(mg, lv, &mg->lv[l + 1]);
	return smooth(mg, l, post, e);
}

/* A line search along each cycle's move: z = MG(x0) - x0 is a descent
 * direction, but on cloth it falls short (on a sheet sagging between
 * four pins the energy along z keeps falling to 1.4 - 1.8 z, cycle after
 * cycle: the coarse corrections undershoot).  The secant of the
 * directional derivative at x0 and at x0 + z gives the step t along z
 * where it vanishes; x0 + t z (t at most MG_MAX_STRETCH) replaces the
 * cycle's result when its energy is lower. */
#define MG_MAX_STRETCH 4.0

struct accel {
	float *x0, *g, *z;
};

static int accel_init(struct accel *a, size_t n, struct error *e)
{
	size_t bytes = n * 3 * sizeof(float);
	a->x0 = big_alloc(bytes);
	a->g = big_alloc(bytes);
	a->z = big_alloc(bytes);
	if (!a->x0 || !a->g || !a->z)
		return error_set(e, "out of memory for the multigrid method");
	return 0;
}

static void accel_free(struct accel *a)
{
	free(a->x0);
	free(a->g);
	free(a->z);
}

/* Before a cycle: x0 and the gradient there. */
static void accel_start(struct accel *a, struct level *l)
{
	memcpy(a->x0, l->p->x, l->p->n * 3 * sizeof(float));
	level_residual(l, a->x0, a->g);
}

/* After it (p->x = MG(x0), k its check): the secant step along z. */
static void accel_finish(struct accel *a, struct level *l, struct check *k)
{
	struct problem *p = l->p;
	long m = 3 * (long)p->n;
	#pragma omp parallel for schedule(static)
	for (long q = 0; q < m; q++)
		a->z[q] = p->x[q] - a->x0[q];
	double g0z = problem_dot(p, a->g, a->z);
	level_residual(l, p->x, a->g);
	double g1z = problem_dot(p, a->g, a->z);
	if (!(g0z < 0) || !(g1z < 0))
		return;          /* past the minimum along z already */
	double t = g0z / (g0z - g1z);
	t = t > MG_MAX_STRETCH || !(g0z < g1z) ? MG_MAX_STRETCH : t;
	float ts = (float)t;
	#pragma omp parallel for schedule(static)
	for (long v = 0; v < (long)p->n; v++)
		for (int c = 0; c < 3; c++) {
			size_t q = 3 * (size_t)v + (size_t)c;
			l->trial[q] = p->mov[v] ? a->x0[q] + ts * a->z[q] : p->x[q];
		}
	problem_project(p, l->trial);
	struct check kt;
	problem_check(p, l->trial, &kt);
	if (isfinite(kt.energy) && kt.energy < k->energy) {
		memcpy(p->x, l->trial, p->n * 3 * sizeof(float));
		*k = kt;
	}
}

int multigrid_run(struct problem *p, const struct grid *g,
		  const struct solve_params *sp, const struct solve_device *dev,
		  solve_listener listen, void *arg, struct solve_result *res,
		  struct error *e)
{
	struct multigrid mg;
	struct accel acc = {0};
	struct check k;
	double t0 = now_seconds();
	memset(res, 0, sizeof *res);
	if (multigrid_init(&mg, p, g, sp, e) || accel_init(&acc, p->n, e)) {
		multigrid_free(&mg);
		accel_free(&acc);
		return -1;
	}
	mg.dev = dev;
	problem_project(p, p->x);
	problem_check(p, p->x, &k);
	converge_init(&res->conv, sp->tolerance, k.energy, k.residual);
	struct solve_event ev = {0, sp->iterations, k, sp->step, 0, 1,
				 &res->conv, 0};
	if (listen)
		listen(&ev, arg);
	int bad = 0, met = 0;
	while (!met && mg.fine_iterations < sp->iterations) {
		int left = sp->iterations - mg.fine_iterations;
		int pre = left < MG_PRE ? left : MG_PRE;
		int post = left - pre < MG_POST ? left - pre : MG_POST;
		accel_start(&acc, &mg.lv[0]);
		if (mg.nlevels == 1)
			bad = smooth(&mg, 0, pre + post, e);
		else
			bad = vcycle(&mg, 0, pre, post, e);
		if (bad)
			break;
		res->cycles++;
		problem_check(p, p->x, &k);
		accel_finish(&acc, &mg.lv[0], &k);
		met = converge_update(&res->conv, &k);
		struct solve_event ce = {mg.fine_iterations, sp->iterations, k,
					 sp->step, now_seconds() - t0, 1,
					 &res->conv, res->cycles};
		if (listen)
			listen(&ce, arg);
	}
	res->iterations = mg.fine_iterations;
	res->k = k;
	res->stop = met ? STOP_TOLERANCE : STOP_BUDGET;
	res->seconds = now_seconds() - t0;
	res->halvings = mg.halvings;
	res->step = sp->step;
	multigrid_free(&mg);
	accel_free(&acc);
	return bad ? -1 : 0;
}


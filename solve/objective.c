/* objective.c - the problem pleat-solve builds from a grid, and the
 * objective's value, gradient norm and noise level at a point.
 *
 * The checks of the step control compare energies, so they are computed
 * carefully: every vertex's share in double (from the float positions,
 * converted row by row), summed per row and then over the rows in order,
 * so the figure is the same whatever the thread count. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gather.h"
#include "progress.h"
#include "solve.h"
#include "util.h"

/* A channel that must be there with this type, or a message that says
 * what to do. */
static struct grid_channel *need(const struct grid *g, const char *name,
				 enum grid_type t, int comps, struct error *e)
{
	struct grid_channel *c = grid_find(g, name);
	if (!c) {
		error_set(e, "has no '%s' channel (%s x %d): run pleat-resample "
			  "first", name, grid_type_name(t), comps);
		return NULL;
	}
	if (c->type != t || c->comps != comps) {
		error_set(e, "its '%s' channel is %s x %d, not %s x %d", name,
			  grid_type_name(c->type), c->comps, grid_type_name(t),
			  comps);
		return NULL;
	}
	return c;
}

/* Every value of a float channel must be finite: a NaN would spread
 * through the whole cloth in a few iterations. */
static int check_finite(const struct grid *g, const struct grid_channel *c,
			struct error *e)
{
	const float *v = c->data;
	size_t m = grid_vertices(g) * (size_t)c->comps;
	for (size_t k = 0; k < m; k++)
		if (!isfinite(v[k])) {
			size_t at = k / (size_t)c->comps;
			return error_set(e, "'%s' is not finite (%g) at vertex "
					 "(%zu, %zu)", c->name, (double)v[k],
					 at % (size_t)g->width,
					 at / (size_t)g->width);
		}
	return 0;
}

static int check_channels(const struct grid *g, struct error *e)
{
	const struct grid_channel *rest, *x, *panel;
	if (!need(g, "mask", GRID_U8, 1, e))
		return -1;
	if (!(rest = need(g, "rest", GRID_F32, 3, e)))
		return -1;
	if ((panel = grid_find(g, "panel")) && !need(g, "panel", GRID_U16, 1, e))
		return -1;
	if ((x = grid_find(g, "x")) && !need(g, "x", GRID_F32, 3, e))
		return -1;
	if (check_finite(g, rest, e) || (x && check_finite(g, x, e)))
		return -1;
	return 0;
}

/* Which vertices move: cloth vertices, not pinned.  Ghosts are not
 * cloth (they hold the boundary condition). */
static void movable(struct problem *p, const uint8_t *mask)
{
	p->ninside = p->nfree = 0;
	for (size_t v = 0; v < p->n; v++) {
		int in = (mask[v] & MASK_INSIDE) != 0;
		p->mov[v] = in && !(mask[v] & (MASK_FIXED | MASK_GHOST));
		p->ninside += (size_t)in;
		p->nfree += p->mov[v];
	}
}

static float *buffer(size_t n, struct error *e)
{
	float *b = big_alloc(n * 3 * sizeof(float));
	if (!b)
		error_set(e, "out of memory for %zu vertices", n);
	return b;
}

void problem_terms(struct problem *p)
{
	struct vertex_terms *t = &p->terms;
	memset(t, 0, sizeof *t);
	if (p->seams.nlinks) {
		t->seam_at = p->seams.at;
		t->seam_grad = p->seams.grad;
		t->seam_diag = p->seams.diag;
		t->seam_step = SEAM_STEP_CELLS * p->c.e.h;
	}
	if (p->prox) {
		t->self_list = p->prox->list;
		t->self_found = p->prox->found;
		t->self_k = p->prox->k;
		t->self_radius = p->self_radius;
		t->self_stiffness = p->self_k;
	}
	if (p->dyn) {
		t->dynamic = 1;
		t->dyn = p->dyn->c;
		t->dyn_d = p->dyn->cd;
		t->xhat = p->dyn->xhat;
	}
	t->infl = p->infl;
}

int problem_init(struct problem *p, struct grid *g,
		 const struct solve_params *sp, struct error *e)
{
	struct level_constants lc;
	memset(p, 0, sizeof *p);
	if (check_channels(g, e))
		return -1;
	p->w = g->width;
	p->h = g->height;
	p->n = grid_vertices(g);
	p->rest = grid_find(g, "rest")->data;
	p->nbr = xmalloc_array(p->n, sizeof *p->nbr);
	p->mov = xmalloc_array(p->n, 1);
	if (energy_neighbours(g, p->nbr, e))
		return -1;
	movable(p, grid_find(g, "mask")->data);
	if (p->ninside == 0)
		return error_set(e, "the mask has no cloth (inside) vertex");
	if (gather_channel(g, &p->gather, e))
		return -1;

	level_constants_init(&lc, &sp->mat, g->cell);
	energy_coef_init_f(&p->c.e, &lc, BEND_HINGES);
	p->c.fem_diag = fem_diag_regular_f(&p->c.e);
	energy_coef_init_d(&p->cd, &lc, BEND_HINGES);
	p->c.terms = sp->terms;
	p->shape = sp->shape * lc.mass;
	p->c.shape = (float)p->shape;
	p->c.step = (float)sp->step;
	p->c.gather_pitch = p->w;
	p->c.far_start = sp->far_start;

	size_t bytes = p->n * 3 * sizeof(float);
	if (!(p->x = buffer(p->n, e)) || !(p->prev = buffer(p->n, e)) ||
	    !(p->next = buffer(p->n, e)) || !(p->good = buffer(p->n, e)))
		return -1;
	const struct grid_channel *x = grid_find(g, "x");
	memcpy(p->x, x ? x->data : p->rest, bytes);
	if (inflation_init(p, &sp->effects, e))
		return -1;
	if (seams_init(&p->seams, g, sp->seam * sp->mat.stretch, lc.bend_coef,
		       e))
		return -1;
	problem_terms(p);
	if (dynamic_init(p, g, sp, lc.mass, e))
		return -1;
	problem_terms(p);
	return 0;
}

void problem_free(struct problem *p)
{
	free(p->x);
	free(p->prev);
	free(p->next);
	free(p->good);
	free(p->nbr);
	free(p->mov);
	free(p->plane);
	if (p->prox) {
		proximity_free(p->prox);
		free(p->prox);
	}
	if (p->safe) {
		safe_free(p->safe);
		free(p->safe);
	}
	seams_free(&p->seams);
	dynamic_free(p->dyn);
	inflation_free(&p->infl);
	free(p->blocks);
	memset(p, 0, sizeof *p);
}

/* The energy check runs over bands of CHECK_BAND rows, each converted to
 * double once with the two rows the energies read on either side. */
#define CHECK_BAND 16

/* Rows j0 - 2 .. j1 + 1 of x (those in the grid) in double, into buf:
 * row j at buf + (j - j0 + 2) * 3w. */
static void band_to_double(const struct problem *p, const float *x, int j0,
			   int j1, double *buf)
{
	size_t row = 3 * (size_t)p->w;
	int lo = j0 - 2 < 0 ? 0 : j0 - 2, hi = j1 + 2 > p->h ? p->h : j1 + 2;
	const float *src = x + (size_t)lo * row;
	double *dst = buf + (size_t)(lo - j0 + 2) * row;
	for (size_t k = 0; k < (size_t)(hi - lo) * row; k++)
		dst[k] = src[k];
}

/* The grid energies' shares of row j's vertices into e (0 where a
 * vertex has no neighbour word), xd row j in double: runs of complete
 * vertices as vector loops (energy_run), the others one by one. */
static void row_energies(const struct problem *p, const double *xd, int j,
			 double *e)
{
	const uint32_t *nbr = p->nbr + (size_t)j * (size_t)p->w;
	for (int i = 0; i < p->w;) {
		int parity = (i + j) & 1, n = 0;
		while (i + n < p->w &&
		       energy_vertex_runs(nbr[i + n], (parity + n) & 1,
					  p->gather != NULL, p->cd.bend_rule))
			n++;
		if (n) {
			energy_run(&p->cd, p->c.terms, xd + 3 * i, p->w, parity,
				   n, e + i);
			i += n;
			continue;
		}
		size_t v = (size_t)j * (size_t)p->w + (size_t)i;
		e[i] = nbr[i] ? energy_vertex_gather_d(xd + 3 * i, p->w, nbr[i],
				parity, &p->cd, p->c.terms, gather_at(p, v),
				p->w) : 0;
		i++;
	}
}

/* Vertex (i, j) can take grad_run (solve_vertex_runs). */
static int vertex_runs(const struct problem *p, int i, int j)
{
	size_t v = (size_t)j * (size_t)p->w + (size_t)i;
	return solve_vertex_runs(i, j, p->w, p->h, p->mov[v], p->nbr[v],
				 p->gather != NULL);
}

/* runs of vertex_runs vertices as vector loops, the others one by one */
void row_gradients(const struct problem *p, const float *x, int j,
			  float *gx, float *gy, float *gz, float *d)
{
	for (int i = 0; i < p->w; ) {
		size_t v = (size_t)j * (size_t)p->w + (size_t)i;
		int n = 0;
		while (i + n < p->w && vertex_runs(p, i + n, j))
			n++;
		if (n) {
			grad_run(&p->c, x + 3 * v, p->w, x + 3 * v, p->w,
				 p->rest + 3 * v, (i + j) & 1, n, gx + i,
				 gy + i, gz + i, d + i);
			i += n;
			continue;
		}
		if (p->mov[v]) {
			vec3 g;
			solve_vertex_grad(x + 3 * v, p->w, p->rest + 3 * v,
					  gather_at(p, v), p->nbr[v], (i + j) & 1,
					  &p->c, &g, d + i);
			gx[i] = g.x;
			gy[i] = g.y;
			gz[i] = g.z;
		}
		i++;
	}
}

/* A thread's rows for the check: a band of x in double (band_to_double),
 * a row of energies and a row of gradients. */
struct check_buf {
	double *xd, *e;
	float *gx, *gy, *gz, *gd;
};

/* Row j's share of the check: energy (double), squared gradient norm and
 * noise (see struct check), each vertex's (check_vertex) summed in
 * order; xd is row j in double. */
static void check_row(const struct problem *p, const float *x, int j,
		      const double *xd, const struct check_buf *b,
		      double out[3])
{
	double en = 0, g2 = 0, noise = 0;
	float *gx = b->gx, *gy = b->gy, *gz = b->gz, *gd = b->gd;
	row_energies(p, xd, j, b->e);
	row_gradients(p, x, j, gx, gy, gz, gd);
	for (int i = 0; i < p->w; i++) {
		size_t v = (size_t)j * (size_t)p->w + (size_t)i;
		struct check_share c = check_vertex(&p->terms, v, x, p->w,
			p->nbr[v], p->rest + 3 * v, p->mov[v], p->shape,
			p->nbr[v] ? b->e[i] : 0, v3(gx[i], gy[i], gz[i]), gd[i]);
		en += c.energy;
		g2 += c.g2;
		noise += c.noise;
	}
	out[0] = en;
	out[1] = g2;
	out[2] = noise;
}

void problem_check(const struct problem *p, const float *x, struct check *k)
{
	double seam_energy = seams_update(&p->seams, x);
	double *rows = xmalloc_array((size_t)p->h, 3 * sizeof(double));
	int nbands = (p->h + CHECK_BAND - 1) / CHECK_BAND;
	size_t row = 3 * (size_t)p->w;
	#pragma omp parallel
	{
		struct check_buf b;
		b.xd = xmalloc_array((CHECK_BAND + 4) * row, sizeof(double));
		b.e = xmalloc_array((size_t)p->w, sizeof(double));
		b.gx = xmalloc_array(4 * (size_t)p->w, sizeof(float));
		b.gy = b.gx + p->w;
		b.gz = b.gy + p->w;
		b.gd = b.gz + p->w;
		#pragma omp for schedule(static)
		for (int band = 0; band < nbands; band++) {
			int j0 = band * CHECK_BAND;
			int j1 = j0 + CHECK_BAND < p->h ? j0 + CHECK_BAND : p->h;
			band_to_double(p, x, j0, j1, b.xd);
			for (int j = j0; j < j1; j++)
				check_row(p, x, j, b.xd + (size_t)(j - j0 + 2) * row,
					  &b, rows + 3 * (size_t)j);
		}
		free(b.xd);
		free(b.e);
		free(b.gx);
	}
	/* the rows in order: the same sum for any thread count */
	double en = 0, g2 = 0, noise = 0;
	for (int j = 0; j < p->h; j++) {
		en += rows[3 * j];
		g2 += rows[3 * j + 1];
		noise += rows[3 * j + 2];
	}
	free(rows);
	k->energy = en + seam_energy;
	k->residual = sqrt(g2);
	k->noise = noise;
}

void problem_rows(const struct problem *p, const float *x,
		  vertex_visit visit, void *arg)
{
	#pragma omp parallel
	{
		float *gx = xmalloc_array(4 * (size_t)p->w, sizeof(float));
		float *gy = gx + p->w, *gz = gy + p->w, *gd = gz + p->w;
		#pragma omp for schedule(static)
		for (int j = 0; j < p->h; j++) {
			row_gradients(p, x, j, gx, gy, gz, gd);
			for (int i = 0; i < p->w; i++) {
				size_t v = (size_t)j * (size_t)p->w + (size_t)i;
				if (p->mov[v])
					visit(p, x, v, v3(gx[i], gy[i], gz[i]),
					      gd[i], arg);
				else
					visit(p, x, v, v3(0.0f, 0.0f, 0.0f), 0,
					      arg);
			}
		}
		free(gx);
	}
}

static void gradient_vertex(const struct problem *p, const float *x,
			    size_t v, vec3 g, float d, void *grad)
{
	if (p->mov[v])
		extra_vertex(p, v, x + 3 * v, p->w, x, &g, &d);
	v3_store((float *)grad + 3 * v, g);
}

void problem_gradient(const struct problem *p, const float *x, float *grad)
{
	problem_rows(p, x, gradient_vertex, grad);
}

double problem_dot(const struct problem *p, const float *a, const float *b)
{
	double *rows = xmalloc_array((size_t)p->h, sizeof(double));
	#pragma omp parallel for schedule(static)
	for (int j = 0; j < p->h; j++) {
		double sum = 0;
		for (size_t v = (size_t)j * (size_t)p->w;
		     v < (size_t)(j + 1) * (size_t)p->w; v++)
			if (p->mov[v])
				for (int k = 0; k < 3; k++)
					sum += (double)a[3 * v + k] * b[3 * v + k];
		rows[j] = sum;
	}
	double sum = 0;
	for (int j = 0; j < p->h; j++)
		sum += rows[j];
	free(rows);
	return sum;
}

void problem_set_body(struct problem *p, const struct body *b,
		      const uint8_t *mask, double offset, double reach,
		      int project)
{
	p->plane = xmalloc_array(p->n, 4 * sizeof(float));
	body_halfplanes(b, p->x, mask, p->n, offset, reach, p->plane,
			&p->contact);
	p->unpushed = !project;
	if (project)
		problem_push_out(p, offset);
}

double problem_violation(const struct problem *p, const float *x)
{
	double sum = 0;
	if (!p->plane)
		return 0;
	for (size_t v = 0; v < p->n; v++)
		if (p->mov[v])
			sum += collide_halfplane_violation(v3_load(x + 3 * v),
							   p->plane + 4 * v);
	return sum;
}

void problem_project(const struct problem *p, float *x)
{
	if (!p->plane)
		return;
	#pragma omp parallel for schedule(static)
	for (long v = 0; v < (long)p->n; v++)
		if (p->mov[v])
			project_vertex(p, (size_t)v, x + 3 * v);
}

int problem_set_self(struct problem *p, const struct grid *g,
		     const struct collide_params *cp, struct error *e)
{
	p->prox = xmalloc(sizeof *p->prox);
	if (proximity_init(p->prox, g, cp->neighbours, e)) {
		free(p->prox);
		p->prox = NULL;
		return -1;
	}
	proximity_set_ring(p->prox, collide_ring_for(g->cell, cp->radius));
	p->self_radius = (float)cp->radius;
	p->self_k = (float)cp->stiffness;
	p->self_search = cp->search;
	proximity_refresh(p->prox, p->x, p->self_search);
	problem_terms(p);
	return 0;
}

int problem_set_safe(struct problem *p, const struct grid *g, int band,
		     struct error *e)
{
	p->safe = xmalloc(sizeof *p->safe);
	if (safe_init(p->safe, g, band, e)) {
		free(p->safe);
		p->safe = NULL;
		return -1;
	}
	p->safe->nmoving = p->nfree;
	if (p->safe->held) {
		p->safe->nmoving = 0;
		for (size_t v = 0; v < p->n; v++)
			p->safe->nmoving += p->mov[v] && p->safe->held[v];
	}
	return 0;
}

void problem_refresh_self(struct problem *p, const float *x, int it)
{
	if (p->prox && collide_refresh_due(it)) {
		double t0 = now_seconds();
		proximity_refresh(p->prox, x, p->self_search);
		/* which vertices have pairs changed: so have the blocks */
		if (p->blocks)
			block_plan(p);
		p->self_refresh_seconds += now_seconds() - t0;
	}
}

/* seam_link.h - the seam springs' arithmetic, shared by pleat-solve's CPU
 * loop (solve/seam.c) and its CUDA kernels (solve/cuda.cu).
 *
 * A link ties seam vertex `vertex` to a partner point, the weighted sum
 * of up to four vertices of the other panel (its own partner, or a seam
 * neighbour's for a shear spring, solve/seam.c), with a spring of rest
 * length `len` and stiffness k: 0.5 k (|x_v - P|- len)².  The gradient reaches
 * the vertex (+f) and the partner's corners (-w_c f); it is gathered per
 * touched vertex over a fixed list of (link, coefficient) references. */
#ifndef PLEAT_SEAM_LINK_H
#define PLEAT_SEAM_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "hostdev.h"
#include "vec.h"

struct seam_link {
	uint32_t vertex, corner[4];
	float w[4];              /* 0 for a corner not used */
	float len;               /* rest length, m */
};

#ifdef __cplusplus
extern "C" {
#endif
struct grid;
/* The corners and weights of the partner point at pattern position
 * (u, v), for vertex `self`: the bilinear weights of the cloth vertices
 * (inside, not ghosts, not self) of the cell that holds it, restricted to
 * the panel with the most weight (panel may be NULL: one panel) and
 * renormalised; unused corners get weight 0.  Returns the number of
 * corners used, 0 when no cloth vertex is there (l is then unusable). */
int seam_partner_stencil(const struct grid *g, const uint8_t *mask,
			 const uint16_t *panel, size_t self, double u, double v,
			 struct seam_link *l);
/* The longest step of a vertex the seams reach in the block method's
 * inner iteration, in cells (vertex_terms.h, seam_step_limit). */
#define SEAM_STEP_CELLS 1.0f
/* The vertex that seam vertex v is one point of the cloth with, or
 * SIZE_MAX: its seam has no length (below SEAM_TWIN_LENGTH cells, as
 * where both panels' boundaries run along grid lines), its partner point
 * is another cloth vertex t (within SEAM_TWIN_OFFSET cells), and t's
 * partner point is v in the same way.  seam is the grid's seam
 * channel. */
#define SEAM_TWIN_LENGTH 1e-6
#define SEAM_TWIN_OFFSET 1e-4
size_t seam_twin(const struct grid *g, const uint8_t *mask,
		 const float *seam, size_t v);
/* Whether vertex v's seam, in the grid's seam channel, has no length
 * (below SEAM_TWIN_LENGTH cells). */
int seam_without_length(const struct grid *g, const float *seam, size_t v);
/* Gives each two twin seam vertices (seam_twin: the two sides of a seam
 * of no length, both on grid vertices) of grid g one position in x (3
 * floats a vertex): their midpoint, or where the one that does not move
 * (mov 0: pinned) is.  Nothing without a seam channel.  pleat-solve's
 * springs hold twins within micrometres, not at one point, and two
 * panels that meet along an edge almost but not exactly shared cross
 * each other by rounding; pleat-initialize's upsampling carries each
 * twin its own panel's wrinkle. */
void seam_join_twins(const struct grid *g, const uint8_t *mov, float *x);
#ifdef __cplusplus
}
#endif

/* The link's force on its vertex, d/dx_v of its energy, and its stretch
 * |x_v - P| - len. */
PL_HD vec3 seam_link_force(const struct seam_link *l, const float *x, float k,
			   float *stretch)
{
	vec3 p = v3(0.0f, 0.0f, 0.0f);
	for (int c = 0; c < 4; c++)
		if (l->w[c] != 0.0f)
			p = v3_madd(p, v3_load(x + 3 * (size_t)l->corner[c]),
				    l->w[c]);
	vec3 e = v3_sub(v3_load(x + 3 * (size_t)l->vertex), p);
	float len = v3_norm(e);
	*stretch = len - l->len;
	return len > 0.0f ? v3_scale(e, k * *stretch / len)
			  : v3(0.0f, 0.0f, 0.0f);
}

/* A seam's bending (solve/seam_bend.c): a residual that is a fixed
 * linear combination of up to SEAM_BEND_VERTICES positions,
 * rho = sum coef_i x_i, with the energy 0.5 w |rho|².  Its force, the
 * gradient per unit coefficient, is w rho; vertex i's share is coef_i
 * times that, gathered like a link's. */
#define SEAM_BEND_VERTICES 13
struct seam_bend {
	uint32_t vertex[SEAM_BEND_VERTICES];
	float coef[SEAM_BEND_VERTICES];  /* 0 for a vertex not used */
	float w;                          /* N/m */
};

/* The bend's force w rho, and |rho|² in *r2. */
PL_HD vec3 seam_bend_force(const struct seam_bend *b, const float *x,
			   float *r2)
{
	vec3 r = v3(0.0f, 0.0f, 0.0f);
	for (int c = 0; c < SEAM_BEND_VERTICES; c++)
		if (b->coef[c] != 0.0f)
			r = v3_madd(r, v3_load(x + 3 * (size_t)b->vertex[c]),
				    b->coef[c]);
	*r2 = v3_norm2(r);
	return v3_scale(r, b->w);
}

/* A bend's energy, 0.5 w |rho|², in double. */
PL_HD double seam_bend_energy(float w, float r2)
{
	return 0.5 * (double)w * r2;
}

/* A link's energy, 0.5 k s², in double, from its stretch s. */
PL_HD double seam_link_energy(float k, float stretch)
{
	return 0.5 * (double)k * (double)stretch * stretch;
}

/* A touched vertex's gradient: its references r0 .. r1. */
PL_HD vec3 seam_gather(const float *force, const uint32_t *ref_link,
		       const float *ref_coef, size_t r0, size_t r1)
{
	vec3 g = v3(0.0f, 0.0f, 0.0f);
	for (size_t r = r0; r < r1; r++)
		g = v3_madd(g, v3_load(force + 3 * (size_t)ref_link[r]),
			    ref_coef[r]);
	return g;
}

/* The seam's share of vertex v's gradient and preconditioner, modelled
 * about x0 (where the gradient was gathered) as g0 + d (x - x0). */
PL_HD void seam_term(const int32_t *at, const float *grad, const float *diag,
		     size_t v, const float *x, const float *x0, vec3 *g,
		     float *d)
{
	int32_t t = at[v];
	if (t < 0)
		return;
	float dt = diag[t];
	*g = v3_add(*g, v3(grad[3 * t] + dt * (x[0] - x0[0]),
			   grad[3 * t + 1] + dt * (x[1] - x0[1]),
			   grad[3 * t + 2] + dt * (x[2] - x0[2])));
	*d += dt;
}

#endif

/* seam.c - the seams: every seam vertex is tied to its partner on the
 * other side of the seam by a spring, and to its neighbours' partners by
 * shear springs (add_shear_links).
 *
 * pleat-resample gives each seam vertex its partner as a pattern point,
 * the vertex's mirror image across the seam, and the length of cloth
 * between the two, L = 2d (the seam channel).  The partner is rarely a
 * grid vertex, so it is the bilinear interpolation P = sum w_c x_c of the
 * cloth vertices of the partner's panel around that point.  The energy
 * is a penalty, not a projection, so that it is one more term of F that
 * every method and the step control see:
 *      E_seam = sum over seam vertices 0.5 k (|x_v - P_v| - L_v)²,
 * and as much for each shear spring (add_shear_links).  A sewn pair is
 * held by two springs, one from each side (the partner relation is
 * symmetric, see pleat-resample(1)).  k is the stretch stiffness E of
 * the material times --seam: the springs to the partners alone make a
 * seam as stiff as a square of the cloth pulled along an axis, whatever
 * the level; the shear springs, partly across the seam, add to that
 * where it opens (by 2.2 to 3.5 times on average on the quick start's
 * skirt and the shared dress, and the factor varies with d over the
 * cell, so with the level).
 *
 * The partner lies in another part of the grid, never in a block's tile,
 * so the block method cannot read it between two inner iterations.  It
 * sees the seam through a model made at the start of each outer
 * iteration: the exact gradient g0 there and the diagonal d of the
 * Hessian, g(x_v) = g0 + d (x_v - x0_v).  Gradient descent takes one step
 * per outer iteration and so uses the exact gradient.
 *
 * The bending across the seams (seam_bend.c) is one more set of terms,
 * each a linear combination of up to 13 positions; their forces follow
 * the links' and are gathered with them.
 *
 * The gradient is gathered, not scattered: each link's force first, then
 * each touched vertex sums the forces of the links it belongs to in a
 * fixed order, so the result is the same for any thread count (and the
 * same code shape suits a GPU). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve.h"
#include "util.h"

/* A vertex's part in one link: +1 for the link's own vertex, -w_c for a
 * corner of its partner's stencil; in a bend, its coefficient. */
struct seam_ref {
	uint32_t vertex, link;
	float coef;
};

static int ref_order(const void *a, const void *b)
{
	const struct seam_ref *p = a, *q = b;
	if (p->vertex != q->vertex)
		return p->vertex < q->vertex ? -1 : 1;
	return p->link < q->link ? -1 : p->link > q->link;
}

/* The gather lists: every (vertex, link) reference sorted by vertex, the
 * touched vertices and where each one's references start. */
static void build_gather(struct seams *s, size_t nvert)
{
	size_t m = 0, nforce = s->nlinks + s->nbends;
	struct seam_ref *ref = xmalloc_array(5 * s->nlinks + SEAM_BEND_VERTICES *
					     s->nbends, sizeof *ref);
	for (size_t k = 0; k < s->nlinks; k++) {
		const struct seam_link *l = &s->link[k];
		ref[m++] = (struct seam_ref){l->vertex, (uint32_t)k, 1.0f};
		for (int c = 0; c < 4; c++)
			if (l->w[c] != 0.0f)
				ref[m++] = (struct seam_ref){l->corner[c],
					(uint32_t)k, -l->w[c]};
	}
	for (size_t b = 0; b < s->nbends; b++)
		for (int c = 0; c < SEAM_BEND_VERTICES; c++)
			if (s->bend[b].coef[c] != 0.0f)
				ref[m++] = (struct seam_ref){s->bend[b].vertex[c],
					(uint32_t)(s->nlinks + b),
					s->bend[b].coef[c]};
	qsort(ref, m, sizeof *ref, ref_order);
	s->ref_link = xmalloc_array(m, sizeof *s->ref_link);
	s->ref_coef = xmalloc_array(m, sizeof *s->ref_coef);
	s->touched = xmalloc_array(m, sizeof *s->touched);
	s->start = xmalloc_array(m + 1, sizeof *s->start);
	s->at = xmalloc_array(nvert, sizeof *s->at);
	for (size_t v = 0; v < nvert; v++)
		s->at[v] = -1;
	s->ntouched = 0;
	for (size_t r = 0; r < m; r++) {
		if (r == 0 || ref[r].vertex != ref[r - 1].vertex) {
			s->at[ref[r].vertex] = (int32_t)s->ntouched;
			s->touched[s->ntouched] = ref[r].vertex;
			s->start[s->ntouched++] = r;
		}
		s->ref_link[r] = ref[r].link;
		s->ref_coef[r] = ref[r].coef;
	}
	s->start[s->ntouched] = m;
	free(ref);
	s->force = xmalloc_array(nforce, 3 * sizeof(float));
	s->stretch = xmalloc_array(s->nlinks, sizeof(float));
	s->r2 = xmalloc_array(s->nbends + 1, sizeof(float));
	s->grad = xmalloc_array(s->ntouched + 1, 3 * sizeof(float));
	s->diag = xmalloc_array(s->ntouched + 1, sizeof(float));
	/* the Hessian's diagonal (a link's at rest length): the stiffness
	 * of the link or bend times coef² per reference */
	for (size_t t = 0; t < s->ntouched; t++) {
		double d = 0;
		for (size_t r = s->start[t]; r < s->start[t + 1]; r++) {
			size_t l = s->ref_link[r];
			double k = l < s->nlinks ? s->k : s->bend[l - s->nlinks].w;
			d += k * s->ref_coef[r] * s->ref_coef[r];
		}
		s->diag[t] = (float)d;
	}
}

static void add_link(struct seams *s, const struct seam_link *l)
{
	if (s->nlinks == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->link = xrealloc_array(s->link, s->cap, sizeof *s->link);
	}
	s->link[s->nlinks++] = *l;
}

/* The panel of a stencil's first used corner. */
static uint16_t stencil_panel(const struct seam_link *l, const uint16_t *panel)
{
	for (int c = 0; c < 4; c++)
		if (l->w[c] != 0.0f)
			return panel ? panel[l->corner[c]] : 0;
	return PANEL_NONE;
}

/* The rest length of the shear link from seam vertex v to the partner
 * point of its neighbour v', (a, b) cells away: the length of the seam
 * unfolded into the plane.  v and v' lie at distances d and d' from a
 * straight seam (L = 2d and L' = 2d', their seam channel's lengths, sv
 * and sn), and the partner point of v' lies d' beyond the seam, so
 *      length² = s² + (d + d')²,
 * s the distance along the seam: on v's side, |du|² - (d - d')², du
 * their pattern offset; on the other, the same of their partner points.
 * The two differ where a seam gathers one side onto the other (the
 * Berkeley dress's waist: 2.5 mm of skirt onto 1 mm of bodice); sewn,
 * the seam is as long as its shorter side and the longer one bunches
 * up, so s is the shorter. */
static float shear_length(const struct grid *g, int a, int b,
			  const float *sv, const float *sn)
{
	double d = 0.5 * sv[2], dn = 0.5 * sn[2];
	double du2 = (a * a + b * b) * g->cell * g->cell;
	double dq2 = ((double)sn[0] - sv[0]) * ((double)sn[0] - sv[0]) +
		     ((double)sn[1] - sv[1]) * ((double)sn[1] - sv[1]);
	double s2 = (du2 < dq2 ? du2 : dq2) - (d - dn) * (d - dn);
	return (float)sqrt((s2 > 0 ? s2 : 0) + (d + dn) * (d + dn));
}

/* The shear links: each seam vertex v also tied to the partner points of
 * the seam vertices next to it (the eight neighbours, same panel, same
 * partner panel).  The links to its own partner alone leave the band
 * between the two panels free to shear along the seam: a link can turn
 * to run along the seam at no cost, and does where gathering makes the
 * band too long for the room it has (the quick start's skirt, level 192:
 * the links of its front seam turned 45 degrees towards the waist, and
 * the next level, which makes that band cloth, started from slivers).
 * Seams of no length (twins) have no band, and no shear links. */
static void add_shear_links(struct seams *s, const struct grid *g,
			    const uint8_t *mask, const uint16_t *panel,
			    const float *seam)
{
	size_t nprimary = s->nlinks;
	for (size_t k = 0; k < nprimary; k++) {
		struct seam_link own = s->link[k];
		size_t v = own.vertex;
		int i = (int)(v % (size_t)g->width), j = (int)(v / (size_t)g->width);
		uint16_t across = stencil_panel(&own, panel);
		if (seam_without_length(g, seam, v))
			continue;
		for (int b = -1; b <= 1; b++)
			for (int a = -1; a <= 1; a++) {
				int ni = i + a, nj = j + b;
				if ((a == 0 && b == 0) || ni < 0 || nj < 0 ||
				    ni >= g->width || nj >= g->height)
					continue;
				size_t u = (size_t)nj * (size_t)g->width + (size_t)ni;
				const float *q = seam + 3 * u;
				if ((mask[u] & (MASK_SEAM | MASK_INSIDE | MASK_GHOST)) !=
				    (MASK_SEAM | MASK_INSIDE) ||
				    (panel && panel[u] != panel[v]) ||
				    seam_without_length(g, seam, u))
					continue;
				struct seam_link l = {.vertex = (uint32_t)v};
				if (!seam_partner_stencil(g, mask, panel, v, q[0], q[1], &l) ||
				    stencil_panel(&l, panel) != across)
					continue;
				l.len = shear_length(g, a, b, seam + 3 * v, q);
				add_link(s, &l);
			}
	}
}

int seams_init(struct seams *s, const struct grid *g, double k,
	       double bend, struct error *e)
{
	memset(s, 0, sizeof *s);
	const struct grid_channel *sc = grid_find(g, "seam");
	if (!sc || k <= 0)
		return 0;
	if (sc->type != GRID_F32 || sc->comps != 3)
		return error_set(e, "its 'seam' channel is %s x %d, not f32 x 3",
				 grid_type_name(sc->type), sc->comps);
	const uint8_t *mask = grid_find(g, "mask")->data;
	const struct grid_channel *pc = grid_find_typed(g, "panel", GRID_U16, 1);
	const uint16_t *panel = pc ? pc->data : NULL;
	const float *seam = sc->data;
	size_t n = grid_vertices(g);
	s->k = (float)k;
	for (size_t v = 0; v < n; v++) {
		if ((mask[v] & (MASK_SEAM | MASK_INSIDE)) !=
		    (MASK_SEAM | MASK_INSIDE))
			continue;
		const float *q = seam + 3 * v;
		if (!isfinite(q[0]) || !isfinite(q[1]) || !(q[2] >= 0))
			return error_set(e, "seam vertex (%zu, %zu) has no valid "
					 "partner in the 'seam' channel",
					 v % (size_t)g->width,
					 v / (size_t)g->width);
		struct seam_link l = {.vertex = (uint32_t)v, .len = q[2]};
		if (!seam_partner_stencil(g, mask, panel, v, q[0], q[1], &l)) {
			s->nopen++;
			continue;
		}
		add_link(s, &l);
	}
	s->nbends = seam_bends_build(g, s->link, s->nlinks, (float)bend,
				     &s->bend);
	add_shear_links(s, g, mask, panel, seam);
	if (s->nlinks)
		build_gather(s, n);
	return 0;
}

void seams_free(struct seams *s)
{
	free(s->link);
	free(s->ref_link);
	free(s->ref_coef);
	free(s->touched);
	free(s->start);
	free(s->at);
	free(s->force);
	free(s->stretch);
	free(s->bend);
	free(s->r2);
	free(s->grad);
	free(s->diag);
	memset(s, 0, sizeof *s);
}

double seams_update(const struct seams *s, const float *x)
{
	if (!s->nlinks)
		return 0;
	#pragma omp parallel for schedule(static)
	for (size_t k = 0; k < s->nlinks; k++)
		v3_store(s->force + 3 * k, seam_link_force(&s->link[k], x, s->k,
							   &s->stretch[k]));
	#pragma omp parallel for schedule(static)
	for (size_t b = 0; b < s->nbends; b++)
		v3_store(s->force + 3 * (s->nlinks + b),
			 seam_bend_force(&s->bend[b], x, &s->r2[b]));
	/* in link order: the same sum for any thread count */
	double energy = 0;
	for (size_t k = 0; k < s->nlinks; k++)
		energy += seam_link_energy(s->k, s->stretch[k]);
	for (size_t b = 0; b < s->nbends; b++)
		energy += seam_bend_energy(s->bend[b].w, s->r2[b]);
	#pragma omp parallel for schedule(static)
	for (size_t t = 0; t < s->ntouched; t++)
		v3_store(s->grad + 3 * t, seam_gather(s->force, s->ref_link,
						      s->ref_coef, s->start[t],
						      s->start[t + 1]));
	return energy;
}

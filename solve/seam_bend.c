/* seam_bend.c - a seam bends like cloth: the bending term across a seam.
 *
 * The grid's bending (Bergou's quadratic model, common/energy.h) stops at
 * a panel's boundary, and the seam spring holds only the distance between
 * a seam vertex and its partner point.  A seam was therefore a free
 * hinge: gathered cloth folded flat along it, the two sides' boundary
 * cells lying over each other (the quick start's skirt crossed itself
 * along its whole back seam).  A sewn seam bends at least as stiffly as
 * the cloth around it.
 *
 * Each seam link (vertex v on panel A, partner point P on panel B, cloth
 * of length L between them) gets the line across the seam: the point a
 * cell inside A behind v, I_A, and the point a cell inside B beyond P,
 * I_B, along each panel's outward normal in the pattern.  In 3D the line
 * I_A, v, P, I_B should run straight, as the flat rest shape of the
 * bending model does:
 *
 *   r = (I_B - P) - (v - I_A)       the two sides' tangents, continued
 *   c = (P - v) - L t,              the seam's own cloth along them,
 *       t = ((v - I_A) + (I_B - P)) / 2h
 *
 * r is the grid's axis second difference (1, -2, 1) when L = 0; c keeps
 * the two sides from sliding over each other when L > 0 (scaled by
 * h / max(L, h/4), so that it weighs like r).  Both are linear in the
 * positions, so E = 0.5 w (|r|² + |c|²) is one more quadratic term, with
 * w = k_b / h², one axis hinge of the grid's bending.  A sewn pair has a
 * link from each side, so a seam bends about twice as stiffly as the
 * cloth: a seam with its allowance is two layers.
 *
 * The model's rest shape is flat, as the grid's bending is; the garment's
 * is not, and a seam sewn at an angle (a pillow's edge, folded back on
 * itself; an armhole) would be pulled flat.  So w is scaled by the rest
 * shape's flatness across the seam, the squared cosine of the angle
 * between the two sides' directions there (0 from a right angle on):
 * full on a seam that runs smoothly at rest, none on a sewn edge, which
 * keeps its crease as before.
 *
 * I_A and I_B are bilinear interpolations of their panel's cloth
 * vertices.  The outward normal is the sum of the directions to the
 * eight neighbours that are not the panel's cloth, averaged over the
 * panel's boundary vertices within two cells, so that a staircase
 * boundary gets its edge's normal, not the stair's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve.h"
#include "util.h"

/* How far the normals are averaged, cells. */
#define NORMAL_RADIUS 2

struct bend_grid {
	const struct grid *g;
	const uint8_t *mask;
	const uint16_t *panel;
	const float *rest;        /* the rest positions */
	float (*raw)[2];          /* per vertex: the unaveraged normal */
};

static int cloth_of(const struct bend_grid *b, int i, int j, uint16_t pan)
{
	if (i < 0 || j < 0 || i >= b->g->width || j >= b->g->height)
		return 0;
	size_t q = (size_t)j * (size_t)b->g->width + (size_t)i;
	return (b->mask[q] & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE &&
	       (b->panel ? b->panel[q] : 0) == pan;
}

static uint16_t panel_of(const struct bend_grid *b, size_t v)
{
	return b->panel ? b->panel[v] : 0;
}

/* Every cloth vertex's sum of the directions to its neighbours that are
 * not its panel's cloth (0 inside a panel). */
static void raw_normals(struct bend_grid *b)
{
	size_t w = (size_t)b->g->width, n = grid_vertices(b->g);
	b->raw = xmalloc_array(n, sizeof *b->raw);
	for (size_t v = 0; v < n; v++) {
		int i = (int)(v % w), j = (int)(v / w);
		b->raw[v][0] = b->raw[v][1] = 0;
		if ((b->mask[v] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE)
			continue;
		for (int dj = -1; dj <= 1; dj++)
			for (int di = -1; di <= 1; di++)
				if (!cloth_of(b, i + di, j + dj, panel_of(b, v))) {
					b->raw[v][0] += (float)di;
					b->raw[v][1] += (float)dj;
				}
	}
}

/* n made a unit vector; 0 when it has no length. */
static int unit2(double n[2])
{
	double len = hypot(n[0], n[1]);
	if (!(len > 0))
		return 0;
	n[0] /= len;
	n[1] /= len;
	return 1;
}

/* The outward normal at grid vertex v (a unit vector in grid units), the
 * raw normals of its panel's vertices within NORMAL_RADIUS averaged;
 * 0 when there are none. */
static int normal_at(const struct bend_grid *b, size_t v, double n[2])
{
	int w = b->g->width, i = (int)(v % (size_t)w), j = (int)(v / (size_t)w);
	n[0] = n[1] = 0;
	for (int dj = -NORMAL_RADIUS; dj <= NORMAL_RADIUS; dj++)
		for (int di = -NORMAL_RADIUS; di <= NORMAL_RADIUS; di++) {
			if (!cloth_of(b, i + di, j + dj, panel_of(b, v)))
				continue;
			size_t q = (size_t)(j + dj) * (size_t)w + (size_t)(i + di);
			n[0] += b->raw[q][0];
			n[1] += b->raw[q][1];
		}
	return unit2(n);
}

/* A bend's terms under construction: vertices and their coefficients. */
struct terms {
	uint32_t v[SEAM_BEND_VERTICES];
	double r[SEAM_BEND_VERTICES], c[SEAM_BEND_VERTICES];
	int n;
};

static void add(struct terms *t, uint32_t v, double r, double c)
{
	int k = 0;
	while (k < t->n && t->v[k] != v)
		k++;
	if (k == t->n) {
		t->v[t->n] = v;
		t->r[t->n] = t->c[t->n] = 0;
		t->n++;
	}
	t->r[k] += r;
	t->c[k] += c;
}

/* Adds the bilinear interpolation at grid point (x, y) of panel pan's
 * cloth vertices (renormalised over those present) with r and c
 * coefficients cr and cc, and puts its rest position in at; returns 0
 * when less than half the weight is cloth of the panel. */
static int add_point(struct terms *t, const struct bend_grid *b, double x,
		     double y, uint16_t pan, double cr, double cc, double at[3])
{
	int i0 = (int)floor(x), j0 = (int)floor(y);
	double fx = x - i0, fy = y - j0, w[4], sum = 0;
	for (int k = 0; k < 4; k++) {
		int i = i0 + (k & 1), j = j0 + (k >> 1);
		w[k] = ((k & 1) ? fx : 1 - fx) * ((k >> 1) ? fy : 1 - fy);
		if (!cloth_of(b, i, j, pan))
			w[k] = 0;
		sum += w[k];
	}
	if (!(sum >= 0.5))
		return 0;
	at[0] = at[1] = at[2] = 0;
	for (int k = 0; k < 4; k++) {
		if (w[k] == 0)
			continue;
		size_t q = (size_t)(j0 + (k >> 1)) * (size_t)b->g->width +
			   (size_t)(i0 + (k & 1));
		add(t, (uint32_t)q, cr * w[k] / sum, cc * w[k] / sum);
		for (int d = 0; d < 3; d++)
			at[d] += w[k] / sum * b->rest[3 * q + (size_t)d];
	}
	return 1;
}

/* The rest shape's continuation across the seam: the cosine between the
 * direction into the seam on one side (I_A to v) and out of it on the
 * other (P to I_B), squared, and 0 when they turn back: 1 where the
 * seam is flat at rest, 0 where it is sewn at a right angle or more. */
static double flatness(const double ia[3], const double v[3],
		       const double p[3], const double ib[3])
{
	double a[3], c[3], aa = 0, cc = 0, ac = 0;
	for (int d = 0; d < 3; d++) {
		a[d] = v[d] - ia[d];
		c[d] = ib[d] - p[d];
		aa += a[d] * a[d];
		cc += c[d] * c[d];
		ac += a[d] * c[d];
	}
	if (!(aa > 0 && cc > 0) || ac <= 0)
		return 0;
	return ac * ac / (aa * cc);
}

/* Link l's partner point in grid units (p), the other panel's outward
 * normal there (nb, unit) and that panel (*pb); returns 0 when it has
 * no normal. */
static int partner_side(const struct bend_grid *b, const struct seam_link *l,
			double p[2], double nb[2], uint16_t *pb)
{
	size_t gw = (size_t)b->g->width;
	p[0] = p[1] = nb[0] = nb[1] = 0;
	for (int k = 0; k < 4; k++) {
		double m[2];
		size_t q = l->corner[k];
		if (l->w[k] == 0.0f)
			continue;
		p[0] += l->w[k] * (double)(q % gw);
		p[1] += l->w[k] * (double)(q / gw);
		if (normal_at(b, q, m)) {
			nb[0] += l->w[k] * m[0];
			nb[1] += l->w[k] * m[1];
		}
		/* the stencil's corners are all of one panel */
		*pb = panel_of(b, q);
	}
	return unit2(nb);
}

/* The two bends of link l (seam vertex, partner corners and weights,
 * length): the tangents' r and the seam cloth's c.  Returns 0 when
 * either panel has no cloth a cell in, or the seam is sewn at a right
 * angle or more at rest. */
static int link_bends(const struct bend_grid *b, const struct seam_link *l,
		      float w, struct seam_bend out[2])
{
	const struct grid *g = b->g;
	size_t gw = (size_t)g->width, v = l->vertex;
	double na[2], nb[2], p[2];
	uint16_t pb = 0;
	if (!normal_at(b, v, na) || !partner_side(b, l, p, nb, &pb))
		return 0;
	/* in cells: L over h, and c's scale */
	double lh = l->len / g->cell, lam = lh / 2;
	double sc = 1 / (lh > 0.25 ? lh : 0.25);
	struct terms t = {.n = 0};
	add(&t, (uint32_t)v, -1, sc * (-1 - lam));
	for (int k = 0; k < 4; k++)
		if (l->w[k] != 0.0f)
			add(&t, l->corner[k], -l->w[k], sc * (1 + lam) * l->w[k]);
	double vi = (double)(v % gw), vj = (double)(v / gw);
	double ia[3], ib[3], vr[3], pr[3] = {0, 0, 0};
	if (!add_point(&t, b, vi - na[0], vj - na[1], panel_of(b, v), 1,
		       sc * lam, ia) ||
	    !add_point(&t, b, p[0] - nb[0], p[1] - nb[1], pb, 1, -sc * lam,
		       ib))
		return 0;
	for (int d = 0; d < 3; d++) {
		vr[d] = b->rest[3 * v + (size_t)d];
		for (int k = 0; k < 4; k++)
			pr[d] += l->w[k] * (double)b->rest[3 * (size_t)l->corner[k] +
							    (size_t)d];
	}
	double f = flatness(ia, vr, pr, ib);
	if (!(f > 0))
		return 0;
	memset(out, 0, 2 * sizeof *out);
	for (int k = 0; k < t.n; k++) {
		out[0].vertex[k] = out[1].vertex[k] = t.v[k];
		out[0].coef[k] = (float)t.r[k];
		out[1].coef[k] = (float)t.c[k];
	}
	out[0].w = out[1].w = (float)(w * f);
	return 1;
}

size_t seam_bends_build(const struct grid *g, const struct seam_link *link,
			size_t nlinks, float w, struct seam_bend **bends)
{
	struct bend_grid b = {g, grid_find(g, "mask")->data, NULL, NULL, NULL};
	const struct grid_channel *pc = grid_find_typed(g, "panel", GRID_U16, 1);
	const struct grid_channel *rc = grid_find_typed(g, "rest", GRID_F32, 3);
	b.panel = pc ? pc->data : NULL;
	*bends = NULL;
	if (!(w > 0) || !nlinks || !rc)
		return 0;
	b.rest = rc->data;
	raw_normals(&b);
	size_t n = 0;
	*bends = xmalloc_array(2 * nlinks, sizeof **bends);
	for (size_t k = 0; k < nlinks; k++)
		n += 2 * (size_t)link_bends(&b, &link[k], w, *bends + n);
	free(b.raw);
	return n;
}

/* energy_tmpl.h - the per-vertex energy arithmetic, written once.
 *
 * energy.h includes this file twice, with EN_REAL float / EN_V vec3 /
 * EN_SFX(name) name##_f and with double / dvec3 / name##_d, so the
 * solver's float path and the tests' double path run the same source.
 * No include guard on purpose; nothing else should include it.
 *
 * Conventions of every function below:
 *   x      the vertex's first component; neighbour (di, dj) is at
 *          x + 3 * (di + dj * pitch); only neighbours whose bit is set in
 *          nbr are read
 *   *_grad add the vertex's gradient to *grad and its preconditioner (a
 *          positive scalar, an estimate of the largest eigenvalue of the
 *          vertex's 3x3 Hessian block) to *diag
 *   *_energy return the vertex's share of the energy: the shares of all
 *          vertices sum to the energy (J)
 */
#ifndef EN_REAL
#error "energy_tmpl.h is included by energy.h only"
#endif

#define EN_R(v) ((EN_REAL)(v))

/* The constants of one level in the working precision. */
struct EN_SFX(energy_coef) {
	EN_REAL h, inv_h;
	EN_REAL spring_axis, spring_diag;      /* N/m */
	EN_REAL fem_mu_area, fem_lambda_area;  /* N·m */
	EN_REAL bend;                          /* k_b / h², N/m */
	int bend_rule;                         /* enum bend_rule */
};

PL_HD void EN_SFX(energy_coef_init)(struct EN_SFX(energy_coef) *c,
				    const struct level_constants *lc,
				    int bend_rule)
{
	c->h = EN_R(lc->cell);
	c->inv_h = EN_R(1.0 / lc->cell);
	c->spring_axis = EN_R(lc->spring_axis);
	c->spring_diag = EN_R(lc->spring_diag);
	c->fem_mu_area = EN_R(lc->fem_mu_area);
	c->fem_lambda_area = EN_R(lc->fem_lambda_area);
	c->bend = EN_R(lc->bend_coef);
	c->bend_rule = bend_rule;
}

/* ---- small vector helpers ---------------------------------------- */

PL_HD EN_V EN_SFX(en_v)(EN_REAL a, EN_REAL b, EN_REAL c)
{
	EN_V r = {a, b, c};
	return r;
}
PL_HD EN_V EN_SFX(en_sub)(EN_V a, EN_V b)
{
	return EN_SFX(en_v)(a.x - b.x, a.y - b.y, a.z - b.z);
}
/* a + s b */
PL_HD EN_V EN_SFX(en_axpy)(EN_V a, EN_REAL s, EN_V b)
{
	return EN_SFX(en_v)(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
PL_HD EN_REAL EN_SFX(en_dot)(EN_V a, EN_V b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}
/* x_(i+di, j+dj) - x_(i, j): differences first, so float keeps the
 * digits of a strain even where the positions are metres from 0. */
PL_HD EN_V EN_SFX(en_diff)(const EN_REAL *x, int pitch, int di, int dj)
{
	const EN_REAL *y = x + 3 * ((ptrdiff_t)di + (ptrdiff_t)dj * pitch);
	return EN_SFX(en_v)(y[0] - x[0], y[1] - x[1], y[2] - x[2]);
}

/* ---- springs ------------------------------------------------------- */

/* Ring edge r's spring: stiffness (k/2 per existing triangle on it) and
 * rest length; 0 stiffness when no triangle holds it. */
PL_HD EN_REAL EN_SFX(spring_k)(uint32_t nbr, int r,
			       const struct EN_SFX(energy_coef) *c,
			       EN_REAL *rest)
{
	int diag = ring_is_diag(r);
	*rest = diag ? c->h * EN_R(1.4142135623730951) : c->h;
	return EN_R(0.5) * EN_R(ring_edge_triangles(nbr, r)) *
	       (diag ? c->spring_diag : c->spring_axis);
}

PL_HD void EN_SFX(spring_grad)(const EN_REAL *x, int pitch, uint32_t nbr,
			       const struct EN_SFX(energy_coef) *c,
			       EN_V *grad, EN_REAL *diag)
{
	PL_UNROLL
	for (int r = 0; r < 6; r++) {
		EN_REAL rest, k = EN_SFX(spring_k)(nbr, r, c, &rest);
		if (k == 0)
			continue;
		EN_V e = EN_SFX(en_diff)(x, pitch, ring_di(r), ring_dj(r));
		EN_REAL l = EN_SQRT(EN_SFX(en_dot)(e, e));
		/* d/dx_v of k/2 (l - L)² is -k (l - L) e / l; at l = 0 the
		 * direction is undefined and the spring pushes nowhere */
		if (l > 0)
			*grad = EN_SFX(en_axpy)(*grad, -k * (l - rest) / l, e);
		*diag += k;
	}
}

PL_HD EN_REAL EN_SFX(spring_energy)(const EN_REAL *x, int pitch,
				    uint32_t nbr,
				    const struct EN_SFX(energy_coef) *c)
{
	EN_REAL sum = 0;
	for (int r = 0; r < 6; r++) {
		EN_REAL rest, k = EN_SFX(spring_k)(nbr, r, c, &rest);
		if (k == 0)
			continue;
		EN_V e = EN_SFX(en_diff)(x, pitch, ring_di(r), ring_dj(r));
		EN_REAL s = EN_SQRT(EN_SFX(en_dot)(e, e)) - rest;
		sum += EN_R(0.25) * k * s * s;  /* half of the edge is ours */
	}
	return sum;
}

/* ---- co-rotational FEM --------------------------------------------- */

/* Triangle (v, a, b), a and b at rest offsets (ax, ay), (bx, by) cells
 * from v, counter-clockwise (det 1); da = x_a - x_v, db = x_b - x_v.
 * Returns the triangle's energy A W(F); when gv is not NULL stores the
 * gradient on v.
 *
 * W = mu |S - I|² + lambda/2 tr(S - I)², F = R S, written so float keeps
 * small strains: with C = F^T F, d = sqrt(det C) = s1 s2 and
 * t = tr S = sqrt(tr C + 2 d) (the closed-form 2x2 square root
 * S = (C + d I) / t),
 *   S - I = ((C - I) + (1 + d - t) I) / t,
 * where C - I carries the first-order strain exactly and
 * 1 + d - t = (s1 - 1)(s2 - 1) is second order.  The stress is
 *   P = 2 mu (F - R) + lambda tr(S - I) R = F S^-1 M,
 *   M = 2 mu (S - I) + lambda tr(S - I) I,  S^-1 = (t I - S) / d. */
PL_HD EN_REAL EN_SFX(fem_triangle)(EN_V da, EN_V db, int ax, int ay,
				   int bx, int by,
				   const struct EN_SFX(energy_coef) *c,
				   EN_V *gv)
{
	/* F = [da db] Dm^-1 / h, Dm^-1 = [[by, -bx], [-ay, ax]] */
	EN_V f0 = EN_SFX(en_axpy)(EN_SFX(en_axpy)(EN_SFX(en_v)(0, 0, 0),
				  EN_R(by) * c->inv_h, da), -EN_R(ay) * c->inv_h, db);
	EN_V f1 = EN_SFX(en_axpy)(EN_SFX(en_axpy)(EN_SFX(en_v)(0, 0, 0),
				  EN_R(ax) * c->inv_h, db), -EN_R(bx) * c->inv_h, da);
	EN_REAL c00 = EN_SFX(en_dot)(f0, f0), c11 = EN_SFX(en_dot)(f1, f1);
	EN_REAL c01 = EN_SFX(en_dot)(f0, f1);
	EN_REAL det = c00 * c11 - c01 * c01;
	EN_REAL d = EN_SQRT(EN_FABS(det));
	EN_REAL t = EN_SQRT(c00 + c11 + 2 * d);
	EN_REAL muA = c->fem_mu_area, laA = c->fem_lambda_area;
	/* collapsed to a point: S = 0, R undefined; energy 2 mu A +
	 * 2 lambda A, no gradient.  Chosen by selects, not a branch, so
	 * that a row of vertices stays one vector loop. */
	int point = !(t > 0);
	t = point ? 1 : t;
	EN_REAL p = 1 + d - t;
	EN_REAL e00 = (c00 - 1 + p) / t, e11 = (c11 - 1 + p) / t;
	EN_REAL e01 = c01 / t, tr = e00 + e11;
	EN_REAL energy = muA * (e00 * e00 + e11 * e11 + 2 * e01 * e01) +
			 EN_R(0.5) * laA * tr * tr;
	energy = point ? 2 * muA + 2 * laA : energy;
	if (!gv)
		return energy;

	EN_REAL m00 = 2 * muA * e00 + laA * tr, m11 = 2 * muA * e11 + laA * tr;
	EN_REAL m01 = 2 * muA * e01;
	/* a degenerate (rank-1) F: bound 1/d so that R's undefined column
	 * shrinks to zero instead of blowing up */
	EN_REAL dmin = EN_R(1e-6) * (c00 + c11);
	EN_REAL id = 1 / (d > dmin ? d : dmin);
	EN_REAL i00 = (t - (c00 + d) / t) * id, i11 = (t - (c11 + d) / t) * id;
	EN_REAL i01 = -(c01 / t) * id;
	/* N = S^-1 M, P = [f0 f1] N */
	EN_REAL n00 = i00 * m00 + i01 * m01, n01 = i00 * m01 + i01 * m11;
	EN_REAL n10 = i01 * m00 + i11 * m01, n11 = i01 * m01 + i11 * m11;
	/* gradient on v: -P Dm^-T (1, 1) / h, Dm^-T (1, 1) = (by - ay, ax - bx) */
	EN_REAL cx = EN_R(by - ay) * c->inv_h, cy = EN_R(ax - bx) * c->inv_h;
	EN_REAL w0 = n00 * cx + n01 * cy, w1 = n10 * cx + n11 * cy;
	w0 = point ? 0 : w0;
	w1 = point ? 0 : w1;
	*gv = EN_SFX(en_axpy)(EN_SFX(en_axpy)(EN_SFX(en_v)(0, 0, 0), -w0, f0),
			      -w1, f1);
	return energy;
}

/* Ring triangle r's energy (and gradient on v when gv is not NULL). */
PL_HD EN_REAL EN_SFX(fem_ring)(const EN_REAL *x, int pitch, int r,
			       const struct EN_SFX(energy_coef) *c, EN_V *gv)
{
	int s = r == 5 ? 0 : r + 1;
	int ax = ring_di(r), ay = ring_dj(r), bx = ring_di(s), by = ring_dj(s);
	EN_V da = EN_SFX(en_diff)(x, pitch, ax, ay);
	EN_V db = EN_SFX(en_diff)(x, pitch, bx, by);
	return EN_SFX(fem_triangle)(da, db, ax, ay, bx, by, c, gv);
}

PL_HD void EN_SFX(fem_grad)(const EN_REAL *x, int pitch, uint32_t nbr,
			    const struct EN_SFX(energy_coef) *c,
			    EN_V *grad, EN_REAL *diag)
{
	PL_UNROLL
	for (int r = 0; r < 6; r++) {
		if (!ring_triangle(nbr, r))
			continue;
		EN_V gv;
		EN_SFX(fem_ring)(x, pitch, r, c, &gv);
		*grad = EN_SFX(en_axpy)(*grad, 1, gv);
		/* A (2 mu + lambda) |grad phi_v|², the largest eigenvalue of
		 * the linearised block; |grad phi_v|² = |a - b|² / h² */
		int s = r == 5 ? 0 : r + 1;
		int gx = ring_di(r) - ring_di(s), gy = ring_dj(r) - ring_dj(s);
		*diag += (2 * c->fem_mu_area + c->fem_lambda_area) *
			 EN_R(gx * gx + gy * gy) * c->inv_h * c->inv_h;
	}
}

PL_HD EN_REAL EN_SFX(fem_energy)(const EN_REAL *x, int pitch, uint32_t nbr,
				 const struct EN_SFX(energy_coef) *c)
{
	EN_REAL sum = 0;
	for (int r = 0; r < 6; r++)
		if (ring_triangle(nbr, r))
			sum += EN_SFX(fem_ring)(x, pitch, r, c, (EN_V *)0);
	return sum / 3;  /* a triangle has three vertices */
}

/* ---- quadratic bending --------------------------------------------- */

/* K x for hinge hg (struct bend_hinge, energy.h) turned q quarters, or
 * 0 with *ok = 0 when one of its vertices is missing.  The weights sum
 * to 0, so K x = sum w_m (x_m - x_v). */
PL_HD EN_V EN_SFX(bend_hinge_apply)(const EN_REAL *x, int pitch,
				    uint32_t nbr, struct bend_hinge hg,
				    int q, int *ok)
{
	EN_V kx = EN_SFX(en_v)(0, 0, 0);
	*ok = 1;
	for (int m = 0; m < 3; m++) {
		int k = nb_turn(hg.nb[m], q);
		if (!(nbr & (1u << k))) {
			*ok = 0;
			return kx;
		}
		if (hg.w[m])
			kx = EN_SFX(en_axpy)(kx, EN_R(hg.w[m]),
				EN_SFX(en_diff)(x, pitch, nb_di(k), nb_dj(k)));
	}
	return kx;
}

/* The constant stencil, over the neighbours present (all of them on the
 * fast path): gradient sum_u S_u (x_u - x_v) and, for BEND_COLLAPSE, the
 * energy share -1/4 sum_u S_u |x_u - x_v|².
 *
 * complete: every bending neighbour of both parities can be read (a
 * vertex two cells inside a block's tile).  Then the far neighbours an
 * odd vertex does not have are read anyway and weighted 0, which adds
 * exact zeros, so that a row of vertices of both parities runs as one
 * vector loop with the same numbers. */
PL_HD EN_REAL EN_SFX(bend_stencil)(const EN_REAL *x, int pitch,
				   uint32_t nbr, int parity,
				   const struct EN_SFX(energy_coef) *c,
				   EN_V *grad, EN_REAL *diag, int complete)
{
	EN_V g = EN_SFX(en_v)(0, 0, 0);
	EN_REAL absum = 0, e = 0;
	uint32_t own = parity ? NB_BEND_ODD : NB_BEND_EVEN;
	PL_UNROLL
	for (int k = 0; k < 12; k++) {
		int on = (nbr & own & (1u << k)) != 0;
		if (!complete && !on)
			continue;
		EN_REAL s = on ? EN_R(bend_stencil_weight(k)) : 0;
		EN_V d = EN_SFX(en_diff)(x, pitch, nb_di(k), nb_dj(k));
		g = EN_SFX(en_axpy)(g, s, d);
		e -= EN_R(0.25) * s * EN_SFX(en_dot)(d, d);
		absum += s < 0 ? -s : s;
	}
	if (grad) {
		*grad = EN_SFX(en_axpy)(*grad, c->bend, g);
		/* the full stencil's centre, or, with neighbours collapsed
		 * away, a Gershgorin bound that stays positive */
		uint32_t all = parity ? NB_BEND_ODD : NB_BEND_EVEN;
		*diag += c->bend * ((nbr & all) == all ?
				    EN_R(parity ? BEND_ODD_CENTRE :
					 BEND_EVEN_CENTRE) : absum);
	}
	return c->bend * e;
}

PL_HD void EN_SFX(bend_grad)(const EN_REAL *x, int pitch, uint32_t nbr,
			     int parity, const struct EN_SFX(energy_coef) *c,
			     EN_V *grad, EN_REAL *diag)
{
	uint32_t all = parity ? NB_BEND_ODD : NB_BEND_EVEN;
	if ((nbr & all) == all || c->bend_rule == BEND_COLLAPSE) {
		EN_SFX(bend_stencil)(x, pitch, nbr, parity, c, grad, diag, 0);
		return;
	}
	/* near a missing vertex: the hinges that exist, one by one */
	EN_V g = EN_SFX(en_v)(0, 0, 0);
	EN_REAL dsum = 0;
	int rows = parity ? BEND_ODD_HINGES : BEND_EVEN_HINGES;
	for (int h = 0; h < rows; h++) {
		struct bend_hinge hg = bend_hinge_row(parity, h);
		for (int q = 0; q < 4; q++) {
			int ok;
			EN_V kx = EN_SFX(bend_hinge_apply)(x, pitch, nbr, hg,
							   q, &ok);
			if (!ok)
				continue;
			g = EN_SFX(en_axpy)(g, EN_R(hg.wc), kx);
			dsum += EN_R(hg.wc * hg.wc);
		}
	}
	*grad = EN_SFX(en_axpy)(*grad, c->bend, g);
	*diag += c->bend * dsum;
}

PL_HD EN_REAL EN_SFX(bend_energy)(const EN_REAL *x, int pitch, uint32_t nbr,
				  int parity,
				  const struct EN_SFX(energy_coef) *c)
{
	if (c->bend_rule == BEND_COLLAPSE)
		return EN_SFX(bend_stencil)(x, pitch, nbr, parity, c,
					    (EN_V *)0, (EN_REAL *)0, 0);
	/* the hinges this vertex owns: each hinge once over the grid, a sum
	 * of squares, so no cancellation in float */
	EN_REAL sum = 0;
	int rows = parity ? BEND_ODD_OWNED : BEND_EVEN_OWNED;
	for (int h = 0; h < rows; h++) {
		int ok;
		EN_V kx = EN_SFX(bend_hinge_apply)(x, pitch, nbr,
				bend_owned_row(parity, h), 0, &ok);
		if (ok)
			sum += EN_SFX(en_dot)(kx, kx);
	}
	return EN_R(0.5) * c->bend * sum;
}

/* ---- all terms ----------------------------------------------------- */

PL_HD void EN_SFX(energy_grad)(const EN_REAL *x, int pitch, uint32_t nbr,
			       int parity, const struct EN_SFX(energy_coef) *c,
			       unsigned terms, EN_V *grad, EN_REAL *diag)
{
	if (terms & TERM_SPRING)
		EN_SFX(spring_grad)(x, pitch, nbr, c, grad, diag);
	if (terms & TERM_FEM)
		EN_SFX(fem_grad)(x, pitch, nbr, c, grad, diag);
	if (terms & TERM_BEND)
		EN_SFX(bend_grad)(x, pitch, nbr, parity, c, grad, diag);
}

/* energy_grad for a vertex whose neighbour word is complete (all six
 * ring neighbours and every bending neighbour of its parity) and whose
 * bending neighbours of the other parity can be read too.  The same
 * arithmetic in the same order as energy_grad, with the neighbour tests
 * decided at compile time, so that a row of such vertices vectorises. */
PL_HD void EN_SFX(energy_grad_regular)(const EN_REAL *x, int pitch,
				       int parity,
				       const struct EN_SFX(energy_coef) *c,
				       unsigned terms, EN_V *grad,
				       EN_REAL *diag)
{
	uint32_t nbr = NB_ELASTIC_ALL | NB_BEND_EVEN;
	if (terms & TERM_SPRING)
		EN_SFX(spring_grad)(x, pitch, nbr, c, grad, diag);
	if (terms & TERM_FEM)
		EN_SFX(fem_grad)(x, pitch, nbr, c, grad, diag);
	if (terms & TERM_BEND)
		EN_SFX(bend_stencil)(x, pitch, nbr, parity, c, grad, diag, 1);
}

PL_HD EN_REAL EN_SFX(energy_vertex)(const EN_REAL *x, int pitch,
				    uint32_t nbr, int parity,
				    const struct EN_SFX(energy_coef) *c,
				    unsigned terms)
{
	EN_REAL e = 0;
	if (terms & TERM_SPRING)
		e += EN_SFX(spring_energy)(x, pitch, nbr, c);
	if (terms & TERM_FEM)
		e += EN_SFX(fem_energy)(x, pitch, nbr, c);
	if (terms & TERM_BEND)
		e += EN_SFX(bend_energy)(x, pitch, nbr, parity, c);
	return e;
}

#undef EN_R

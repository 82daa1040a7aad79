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

/* en_diff to bending neighbour k, read from xf (row pitch fpitch) when
 * k is two steps away (nb_far) and from x otherwise: the block method's
 * Eq. 9 passes the positions at the start of the block as xf, everyone
 * else x itself, which is en_diff to the bit. */
PL_HD EN_V EN_SFX(en_diff_nb)(const EN_REAL *x, int pitch,
			      const EN_REAL *xf, int fpitch, int k)
{
	int di = nb_di(k), dj = nb_dj(k);
	const EN_REAL *y = nb_far(k) ?
		xf + 3 * ((ptrdiff_t)di + (ptrdiff_t)dj * fpitch) :
		x + 3 * ((ptrdiff_t)di + (ptrdiff_t)dj * pitch);
	return EN_SFX(en_v)(y[0] - x[0], y[1] - x[1], y[2] - x[2]);
}

/* ---- springs ------------------------------------------------------- */

/* The gathering tensor field (Wang 2021, Eq. 13): S points at the
 * vertex's tensor (sxx, sxy, syy), the symmetric 2x2 matrix that scales
 * rest edges in the pattern's (u, v) axes, neighbour (di, dj) at
 * S + 3 * (di + dj * spitch); NULL: no gathering, the flat lattice.
 * gather_sum adds the tensor of neighbour (di, dj) to t. */
PL_HD void EN_SFX(gather_sum)(const float *S, int spitch, int di, int dj,
			      EN_REAL t[3])
{
	const float *s = S + 3 * ((ptrdiff_t)di + (ptrdiff_t)dj * spitch);
	t[0] += EN_R(s[0]);
	t[1] += EN_R(s[1]);
	t[2] += EN_R(s[2]);
}

/* Ring edge r's spring: stiffness (k/2 per existing triangle on it) and
 * rest length; 0 stiffness when no triangle holds it.  With a tensor
 * field the rest edge is (S_v + S_r)/2 (r h), Eq. 13; identity tensors
 * give the flat lattice's lengths to the last bit (|(1,0)| and |(1,-1)|
 * are 1 and the correctly rounded sqrt 2 either way). */
PL_HD EN_REAL EN_SFX(spring_k)(uint32_t nbr, int r,
			       const struct EN_SFX(energy_coef) *c,
			       const float *S, int spitch, EN_REAL *rest)
{
	int diag = ring_is_diag(r);
	int tris = ring_edge_triangles(nbr, r);
	if (tris == 0) {
		/* no spring, and neighbour r may be off the grid: its
		 * tensor is not read */
		*rest = 0;
		return 0;
	}
	if (S) {
		EN_REAL t[3] = {0, 0, 0};
		EN_SFX(gather_sum)(S, spitch, 0, 0, t);
		EN_SFX(gather_sum)(S, spitch, ring_di(r), ring_dj(r), t);
		EN_REAL ex = EN_R(ring_di(r)), ey = EN_R(ring_dj(r));
		EN_REAL ux = (t[0] * ex + t[1] * ey) / 2;
		EN_REAL uy = (t[1] * ex + t[2] * ey) / 2;
		*rest = EN_SQRT(ux * ux + uy * uy) * c->h;
	} else {
		*rest = diag ? c->h * EN_R(1.4142135623730951) : c->h;
	}
	return EN_R(0.5) * EN_R(tris) *
	       (diag ? c->spring_diag : c->spring_axis);
}

PL_HD void EN_SFX(spring_grad)(const EN_REAL *x, int pitch, uint32_t nbr,
			       const struct EN_SFX(energy_coef) *c,
			       const float *S, int spitch,
			       EN_V *grad, EN_REAL *diag)
{
	PL_UNROLL
	for (int r = 0; r < 6; r++) {
		EN_REAL rest, k = EN_SFX(spring_k)(nbr, r, c, S, spitch, &rest);
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
				    const struct EN_SFX(energy_coef) *c,
				    const float *S, int spitch)
{
	EN_REAL sum = 0;
	for (int r = 0; r < 6; r++) {
		EN_REAL rest, k = EN_SFX(spring_k)(nbr, r, c, S, spitch, &rest);
		if (k == 0)
			continue;
		EN_V e = EN_SFX(en_diff)(x, pitch, ring_di(r), ring_dj(r));
		EN_REAL s = EN_SQRT(EN_SFX(en_dot)(e, e)) - rest;
		sum += EN_R(0.25) * k * s * s;  /* half of the edge is ours */
	}
	return sum;
}

/* ---- co-rotational FEM --------------------------------------------- */

/* The energy of a triangle whose deformation gradient is F = [f0 f1],
 * with its rest area's constants muA = mu A, laA = lambda A: A W(F), and,
 * when n is not NULL, N = S^-1 M into n row by row, so that the first
 * Piola stress is P = [f0 f1] N.  *point: F collapsed the triangle to a
 * point (energy 2 mu A + 2 lambda A; N is then not a number to use).
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
PL_HD EN_REAL EN_SFX(fem_stress)(EN_V f0, EN_V f1, EN_REAL muA, EN_REAL laA,
				 EN_REAL *n, int *point)
{
	EN_REAL c00 = EN_SFX(en_dot)(f0, f0), c11 = EN_SFX(en_dot)(f1, f1);
	EN_REAL c01 = EN_SFX(en_dot)(f0, f1);
	EN_REAL det = c00 * c11 - c01 * c01;
	EN_REAL d = EN_SQRT(EN_FABS(det));
	EN_REAL t = EN_SQRT(c00 + c11 + 2 * d);
	/* collapsed to a point: S = 0, R undefined; no gradient.  Chosen
	 * by selects, not a branch, so that a row of vertices stays one
	 * vector loop. */
	*point = !(t > 0);
	t = *point ? 1 : t;
	EN_REAL p = 1 + d - t;
	/* one division for the four quotients by t: the divider is the
	 * slowest unit this function uses, on every backend */
	EN_REAL it = 1 / t;
	EN_REAL e00 = (c00 - 1 + p) * it, e11 = (c11 - 1 + p) * it;
	EN_REAL e01 = c01 * it, tr = e00 + e11;
	EN_REAL energy = muA * (e00 * e00 + e11 * e11 + 2 * e01 * e01) +
			 EN_R(0.5) * laA * tr * tr;
	energy = *point ? 2 * muA + 2 * laA : energy;
	if (!n)
		return energy;

	EN_REAL m00 = 2 * muA * e00 + laA * tr, m11 = 2 * muA * e11 + laA * tr;
	EN_REAL m01 = 2 * muA * e01;
	/* a degenerate (rank-1) F: bound 1/d so that R's undefined column
	 * shrinks to zero instead of blowing up */
	EN_REAL dmin = EN_R(1e-6) * (c00 + c11);
	EN_REAL id = 1 / (d > dmin ? d : dmin);
	EN_REAL i00 = (t - (c00 + d) * it) * id, i11 = (t - (c11 + d) * it) * id;
	EN_REAL i01 = -e01 * id;
	n[0] = i00 * m00 + i01 * m01;
	n[1] = i00 * m01 + i01 * m11;
	n[2] = i01 * m00 + i11 * m01;
	n[3] = i01 * m01 + i11 * m11;
	return energy;
}

/* A column of F = [da db] Dm^-1 (Dm^-1 = m / h): (p da + q db) / h, in
 * the order fem_triangle_rest has always summed it. */
PL_HD EN_V EN_SFX(fem_column)(EN_V da, EN_V db, EN_REAL p, EN_REAL q,
			      EN_REAL inv_h)
{
	return EN_SFX(en_axpy)(EN_SFX(en_axpy)(EN_SFX(en_v)(0, 0, 0),
			       p * inv_h, da), q * inv_h, db);
}

/* Triangle (v, a, b) with rest matrix Dm = [a b] h (a and b the rest
 * edges from v), given by m = h Dm^-1 row by row ([[m0, m1], [m2, m3]]),
 * and its rest area's constants muA, laA; da = x_a - x_v,
 * db = x_b - x_v.  Returns the triangle's energy A W(F) (fem_stress);
 * when gv is not NULL stores the gradient on v. */
PL_HD EN_REAL EN_SFX(fem_triangle_rest)(EN_V da, EN_V db, const EN_REAL m[4],
					EN_REAL muA, EN_REAL laA,
					EN_REAL inv_h, EN_V *gv)
{
	EN_V f0 = EN_SFX(fem_column)(da, db, m[0], m[2], inv_h);
	EN_V f1 = EN_SFX(fem_column)(db, da, m[3], m[1], inv_h);
	EN_REAL n[4];
	int point;
	EN_REAL energy = EN_SFX(fem_stress)(f0, f1, muA, laA,
					    gv ? n : (EN_REAL *)0, &point);
	if (!gv)
		return energy;
	/* gradient on v: -P Dm^-T (1, 1) */
	EN_REAL cx = (m[0] + m[2]) * inv_h, cy = (m[3] + m[1]) * inv_h;
	EN_REAL w0 = n[0] * cx + n[1] * cy, w1 = n[2] * cx + n[3] * cy;
	w0 = point ? 0 : w0;
	w1 = point ? 0 : w1;
	*gv = EN_SFX(en_axpy)(EN_SFX(en_axpy)(EN_SFX(en_v)(0, 0, 0), -w0, f0),
			      -w1, f1);
	return energy;
}

/* P e_k / h for the stress N of F = [f0 f1] (P = [f0 f1] N): column k
 * of P over h; zero for a triangle collapsed to a point. */
PL_HD EN_V EN_SFX(fem_stress_column)(EN_V f0, EN_V f1, const EN_REAL n[4],
				     int k, int point, EN_REAL inv_h)
{
	EN_V r = EN_SFX(en_axpy)(EN_SFX(en_axpy)(EN_SFX(en_v)(0, 0, 0),
				 n[k] * inv_h, f0), n[2 + k] * inv_h, f1);
	return point ? EN_SFX(en_v)(0, 0, 0) : r;
}

/* The gradients of one cell's two triangles on its four corners, on the
 * flat lattice: corners p00 = x_(i,j), p10, p01 and p11 (one more i, j,
 * both), its lower triangle (p00, p10, p01) and its upper one (p10,
 * p11, p01), the six-neighbour tessellation's.  The same triangles and
 * stress as fem_grad's ring triangles, each computed once for its three
 * corners: the sums over a vertex's four cells give its FEM gradient up
 * to rounding.  It is fem_cell_grad_rest for flat rest shapes, written
 * out for the hot path: the upper triangle's edges taken directly
 * (p11 - p01 rather than da - db) and no products with the rest
 * matrix's 0s and 1s, which the compiler may not drop (signed zeros). */
struct EN_SFX(fem_cell) {
	EN_V g00, g10, g01, g11;
};

PL_HD struct EN_SFX(fem_cell) EN_SFX(fem_cell_grad)(EN_V p00, EN_V p10,
		EN_V p01, EN_V p11, const struct EN_SFX(energy_coef) *c)
{
	EN_REAL ih = c->inv_h, muA = c->fem_mu_area, laA = c->fem_lambda_area;
	/* lower: F = [p10 - p00, p01 - p00] / h; upper: F = [p11 - p01,
	 * p11 - p10] / h */
	EN_V e10 = EN_SFX(en_sub)(p10, p00), e01 = EN_SFX(en_sub)(p01, p00);
	EN_V u10 = EN_SFX(en_sub)(p11, p01), u01 = EN_SFX(en_sub)(p11, p10);
	EN_V f0 = EN_SFX(en_v)(e10.x * ih, e10.y * ih, e10.z * ih);
	EN_V f1 = EN_SFX(en_v)(e01.x * ih, e01.y * ih, e01.z * ih);
	EN_V h0 = EN_SFX(en_v)(u10.x * ih, u10.y * ih, u10.z * ih);
	EN_V h1 = EN_SFX(en_v)(u01.x * ih, u01.y * ih, u01.z * ih);
	EN_REAL nl[4], nu[4];
	int pl, pu;
	EN_SFX(fem_stress)(f0, f1, muA, laA, nl, &pl);
	EN_SFX(fem_stress)(h0, h1, muA, laA, nu, &pu);
	EN_V a0 = EN_SFX(fem_stress_column)(f0, f1, nl, 0, pl, ih);
	EN_V a1 = EN_SFX(fem_stress_column)(f0, f1, nl, 1, pl, ih);
	EN_V b0 = EN_SFX(fem_stress_column)(h0, h1, nu, 0, pu, ih);
	EN_V b1 = EN_SFX(fem_stress_column)(h0, h1, nu, 1, pu, ih);
	/* dE/d[da db] = P Dm^-T.  Lower (Dm = h I): p10 gets column 0, p01
	 * column 1, p00 minus both.  Upper, seen from p10 with edges to p11
	 * and p01 (h Dm^-1 = [[1, 1], [-1, 0]]): p11 gets both columns,
	 * p01 minus column 0, p10 minus column 1. */
	struct EN_SFX(fem_cell) r;
	r.g00 = EN_SFX(en_v)(-(a0.x + a1.x), -(a0.y + a1.y), -(a0.z + a1.z));
	r.g10 = EN_SFX(en_sub)(a0, b1);
	r.g01 = EN_SFX(en_sub)(a1, b0);
	r.g11 = EN_SFX(en_v)(b0.x + b1.x, b0.y + b1.y, b0.z + b1.z);
	return r;
}

/* A corner's share of its FEM preconditioner from a triangle whose
 * area factor is `area`, h grad phi = (gx, gy) for the corner's hat
 * function phi: A (2 mu + lambda) |grad phi|², the largest eigenvalue
 * of the linearised block. */
PL_HD EN_REAL EN_SFX(fem_phi_diag)(const struct EN_SFX(energy_coef) *c,
				   EN_REAL gx, EN_REAL gy, EN_REAL area)
{
	return (2 * (c->fem_mu_area * area) + c->fem_lambda_area * area) *
	       (gx * gx + gy * gy) * c->inv_h * c->inv_h;
}

/* Ring triangle r's share of a vertex's FEM preconditioner (see
 * fem_grad), from its rest shape m and area factor. */
PL_HD EN_REAL EN_SFX(fem_vertex_diag)(const struct EN_SFX(energy_coef) *c,
				      const EN_REAL m[4], EN_REAL area)
{
	/* grad phi_v = -Dm^-T (1, 1), on the flat lattice |a - b| / h */
	return EN_SFX(fem_phi_diag)(c, m[0] + m[2], m[3] + m[1], area);
}

/* Ring triangle r's rest shape: h Dm^-1 into m and the factor of its rest
 * area over the flat lattice's h²/2.  Flat: Dm = [a b] h, det [a b] = 1,
 * so h Dm^-1 = [[by, -bx], [-ay, ax]].  Gathered: the triangle's tensor
 * S_T = (S_v + S_a + S_b) / 3 scales both edges, Dm = S_T [a b] h, so
 * the three vertices that share the triangle see the same rest shape
 * (the per-edge means of Eq. 13 would not close a triangle).  With
 * identity tensors every quantity below is an exact small integer and
 * the result is the flat one to the last bit. */
PL_HD EN_REAL EN_SFX(fem_rest_tensor)(int ax, int ay, int bx, int by,
				      const EN_REAL t[3], EN_REAL m[4]);

PL_HD EN_REAL EN_SFX(fem_rest)(int r, const float *S, int spitch,
			       EN_REAL m[4])
{
	int s = r == 5 ? 0 : r + 1;
	int ax = ring_di(r), ay = ring_dj(r), bx = ring_di(s), by = ring_dj(s);
	if (!S) {
		m[0] = EN_R(by);
		m[1] = -EN_R(bx);
		m[2] = -EN_R(ay);
		m[3] = EN_R(ax);
		return 1;
	}
	EN_REAL t[3] = {0, 0, 0};
	EN_SFX(gather_sum)(S, spitch, 0, 0, t);
	EN_SFX(gather_sum)(S, spitch, ax, ay, t);
	EN_SFX(gather_sum)(S, spitch, bx, by, t);
	return EN_SFX(fem_rest_tensor)(ax, ay, bx, by, t, m);
}

/* fem_rest's gathered shape of the triangle with rest edges a and b
 * (grid units) from the sum t of its three corners' tensors, into m;
 * returns the area factor. */
PL_HD EN_REAL EN_SFX(fem_rest_tensor)(int ax, int ay, int bx, int by,
				      const EN_REAL t[3], EN_REAL m[4])
{
	EN_REAL sxx = t[0] / 3, sxy = t[1] / 3, syy = t[2] / 3;
	EN_REAL d00 = sxx * EN_R(ax) + sxy * EN_R(ay);
	EN_REAL d01 = sxx * EN_R(bx) + sxy * EN_R(by);
	EN_REAL d10 = sxy * EN_R(ax) + syy * EN_R(ay);
	EN_REAL d11 = sxy * EN_R(bx) + syy * EN_R(by);
	EN_REAL det = d00 * d11 - d01 * d10;  /* det S_T: det [a b] = 1 */
	EN_REAL inv = 1 / det;
	m[0] = d11 * inv;
	m[1] = -d01 * inv;
	m[2] = -d10 * inv;
	m[3] = d00 * inv;
	return det;
}

/* One triangle's gradients on its corners v, a, b (rest shape m, area
 * factor area; da = x_a - x_v, db = x_b - x_v): dE/d[da db] = P Dm^-T,
 * so a gets P (m0, m1) / h, b gets P (m2, m3) / h and v minus both;
 * zero for a triangle collapsed to a point. */
struct EN_SFX(fem_corners) {
	EN_V gv, ga, gb;
};

PL_HD struct EN_SFX(fem_corners) EN_SFX(fem_triangle_corners)(EN_V da,
		EN_V db, const EN_REAL m[4], EN_REAL area,
		const struct EN_SFX(energy_coef) *c)
{
	EN_REAL ih = c->inv_h;
	EN_V f0 = EN_SFX(fem_column)(da, db, m[0], m[2], ih);
	EN_V f1 = EN_SFX(fem_column)(db, da, m[3], m[1], ih);
	EN_REAL n[4];
	int point;
	EN_SFX(fem_stress)(f0, f1, c->fem_mu_area * area,
			   c->fem_lambda_area * area, n, &point);
	EN_V p0 = EN_SFX(fem_stress_column)(f0, f1, n, 0, point, ih);
	EN_V p1 = EN_SFX(fem_stress_column)(f0, f1, n, 1, point, ih);
	struct EN_SFX(fem_corners) r;
	r.ga = EN_SFX(en_axpy)(EN_SFX(en_axpy)(EN_SFX(en_v)(0, 0, 0), m[0], p0),
			       m[1], p1);
	r.gb = EN_SFX(en_axpy)(EN_SFX(en_axpy)(EN_SFX(en_v)(0, 0, 0), m[2], p0),
			       m[3], p1);
	r.gv = EN_SFX(en_v)(-(r.ga.x + r.gb.x), -(r.ga.y + r.gb.y),
			    -(r.ga.z + r.gb.z));
	return r;
}

/* fem_cell_grad with gathered rest shapes, and each corner's share of
 * its FEM preconditioner: sl and su are the sums of the lower and the
 * upper triangle's three tensors (sxx, sxy, syy as x, y, z), in the order fem_rest sums them (at
 * p00 for ring triangle 0: p00, p10, p01; at p10 for ring triangle 1:
 * p10, p11, p01), so the rest shapes are fem_rest's to the bit. */
struct EN_SFX(fem_cell_rest) {
	EN_V g00, g10, g01, g11;
	EN_REAL d00, d10, d01, d11;
};

PL_HD struct EN_SFX(fem_cell_rest) EN_SFX(fem_cell_grad_rest)(EN_V p00,
		EN_V p10, EN_V p01, EN_V p11, EN_V sl, EN_V su,
		const struct EN_SFX(energy_coef) *c)
{
	EN_REAL tl[3] = {sl.x, sl.y, sl.z}, tu[3] = {su.x, su.y, su.z};
	EN_REAL ml[4], mu[4];
	EN_REAL al = EN_SFX(fem_rest_tensor)(1, 0, 0, 1, tl, ml);
	EN_REAL au = EN_SFX(fem_rest_tensor)(0, 1, -1, 1, tu, mu);
	struct EN_SFX(fem_corners) L = EN_SFX(fem_triangle_corners)(
		EN_SFX(en_sub)(p10, p00), EN_SFX(en_sub)(p01, p00), ml, al, c);
	struct EN_SFX(fem_corners) U = EN_SFX(fem_triangle_corners)(
		EN_SFX(en_sub)(p11, p10), EN_SFX(en_sub)(p01, p10), mu, au, c);
	struct EN_SFX(fem_cell_rest) r;
	r.g00 = L.gv;
	r.g10 = EN_SFX(en_axpy)(L.ga, 1, U.gv);
	r.g01 = EN_SFX(en_axpy)(L.gb, 1, U.gb);
	r.g11 = U.ga;
	/* h grad phi of corner a is Dm^-T e0 h = (m0, m1), of b (m2, m3),
	 * of v minus their sum */
	EN_REAL lv = EN_SFX(fem_vertex_diag)(c, ml, al);
	EN_REAL la = EN_SFX(fem_phi_diag)(c, ml[0], ml[1], al);
	EN_REAL lb = EN_SFX(fem_phi_diag)(c, ml[2], ml[3], al);
	EN_REAL uv = EN_SFX(fem_vertex_diag)(c, mu, au);
	EN_REAL ua = EN_SFX(fem_phi_diag)(c, mu[0], mu[1], au);
	EN_REAL ub = EN_SFX(fem_phi_diag)(c, mu[2], mu[3], au);
	r.d00 = lv;
	r.d10 = la + uv;
	r.d01 = lb + ub;
	r.d11 = ua;
	return r;
}

/* Ring triangle r's energy (and gradient on v when gv is not NULL); its
 * rest shape (fem_rest) into m and *area. */
PL_HD EN_REAL EN_SFX(fem_ring)(const EN_REAL *x, int pitch, int r,
			       const struct EN_SFX(energy_coef) *c,
			       const float *S, int spitch, EN_REAL m[4],
			       EN_REAL *area, EN_V *gv)
{
	int s = r == 5 ? 0 : r + 1;
	*area = EN_SFX(fem_rest)(r, S, spitch, m);
	EN_V da = EN_SFX(en_diff)(x, pitch, ring_di(r), ring_dj(r));
	EN_V db = EN_SFX(en_diff)(x, pitch, ring_di(s), ring_dj(s));
	return EN_SFX(fem_triangle_rest)(da, db, m, c->fem_mu_area * *area,
					 c->fem_lambda_area * *area, c->inv_h,
					 gv);
}

PL_HD void EN_SFX(fem_grad)(const EN_REAL *x, int pitch, uint32_t nbr,
			    const struct EN_SFX(energy_coef) *c,
			    const float *S, int spitch,
			    EN_V *grad, EN_REAL *diag)
{
	PL_UNROLL
	for (int r = 0; r < 6; r++) {
		if (!ring_triangle(nbr, r))
			continue;
		EN_V gv;
		EN_REAL m[4], area;
		EN_SFX(fem_ring)(x, pitch, r, c, S, spitch, m, &area, &gv);
		*grad = EN_SFX(en_axpy)(*grad, 1, gv);
		*diag += EN_SFX(fem_vertex_diag)(c, m, area);
	}
}

/* The FEM preconditioner of a vertex with all six ring triangles on the
 * flat lattice: fem_grad's sum, in its order. */
PL_HD EN_REAL EN_SFX(fem_diag_regular)(const struct EN_SFX(energy_coef) *c)
{
	EN_REAL d = 0;
	for (int r = 0; r < 6; r++) {
		EN_REAL m[4];
		EN_REAL area = EN_SFX(fem_rest)(r, (const float *)0, 0, m);
		d += EN_SFX(fem_vertex_diag)(c, m, area);
	}
	return d;
}

PL_HD EN_REAL EN_SFX(fem_energy)(const EN_REAL *x, int pitch, uint32_t nbr,
				 const struct EN_SFX(energy_coef) *c,
				 const float *S, int spitch)
{
	/* the two triangles this vertex owns: ring triangle 0 (the lower
	 * one of the cell above and to the right) and 1 (the upper one of
	 * the cell above and to the left).  Every triangle of the grid is
	 * one of the two at exactly one of its corners, and a triangle
	 * exists at all three corners or at none (its corners are inside
	 * and of one panel), so each is counted once: a third of the work
	 * of a third of all six. */
	EN_REAL sum = 0;
	for (int r = 0; r < 2; r++) {
		EN_REAL m[4], area;
		if (ring_triangle(nbr, r))
			sum += EN_SFX(fem_ring)(x, pitch, r, c, S, spitch, m,
						&area, (EN_V *)0);
	}
	return sum;
}

/* ---- quadratic bending --------------------------------------------- */

/* K x for hinge hg (struct bend_hinge, energy.h) turned q quarters, or
 * 0 with *ok = 0 when one of its vertices is missing.  The weights sum
 * to 0, so K x = sum w_m (x_m - x_v).  The bending functions read their
 * neighbours two steps away from xf (en_diff_nb); the energies pass x. */
PL_HD EN_V EN_SFX(bend_hinge_sum)(const EN_REAL *x, int pitch,
				  const EN_REAL *xf, int fpitch,
				  struct bend_hinge hg, int q)
{
	EN_V kx = EN_SFX(en_v)(0, 0, 0);
	PL_UNROLL
	for (int m = 0; m < 3; m++) {
		int k = nb_turn(hg.nb[m], q);
		if (hg.w[m])
			kx = EN_SFX(en_axpy)(kx, EN_R(hg.w[m]),
				EN_SFX(en_diff_nb)(x, pitch, xf, fpitch, k));
	}
	return kx;
}

PL_HD EN_V EN_SFX(bend_hinge_apply)(const EN_REAL *x, int pitch,
				    const EN_REAL *xf, int fpitch,
				    uint32_t nbr, struct bend_hinge hg,
				    int q, int *ok)
{
	*ok = 1;
	for (int m = 0; m < 3; m++)
		if (!(nbr & (1u << nb_turn(hg.nb[m], q)))) {
			*ok = 0;
			return EN_SFX(en_v)(0, 0, 0);
		}
	return EN_SFX(bend_hinge_sum)(x, pitch, xf, fpitch, hg, q);
}

/* The constant stencil, over the neighbours present: gradient
 * sum_u S_u (x_u - x_v) and, for BEND_COLLAPSE, the energy share
 * -1/4 sum_u S_u |x_u - x_v|². */
PL_HD EN_REAL EN_SFX(bend_stencil)(const EN_REAL *x, int pitch,
				   const EN_REAL *xf, int fpitch,
				   uint32_t nbr, int parity,
				   const struct EN_SFX(energy_coef) *c,
				   EN_V *grad, EN_REAL *diag)
{
	EN_V g = EN_SFX(en_v)(0, 0, 0);
	EN_REAL absum = 0, e = 0;
	uint32_t own = parity ? NB_BEND_ODD : NB_BEND_EVEN;
	PL_UNROLL
	for (int k = 0; k < 12; k++) {
		if (!(nbr & own & (1u << k)))
			continue;
		EN_REAL s = EN_R(bend_stencil_weight(k));
		EN_V d = EN_SFX(en_diff_nb)(x, pitch, xf, fpitch, k);
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

/* bend_stencil's gradient for a vertex with every bending neighbour of
 * its parity, from the differences d[k] = x_k - x_v of all twelve
 * (NB_OFF order): the far ones an odd vertex does not have are weighted
 * 0, which adds exact zeros, so that a row of vertices of both parities
 * runs as one vector loop with bend_stencil's numbers.  The callers
 * read the differences from whatever layout they hold. */
PL_HD void EN_SFX(bend_stencil_diffs)(const EN_V d[12], int parity,
				      const struct EN_SFX(energy_coef) *c,
				      EN_V *grad, EN_REAL *diag)
{
	EN_V g = EN_SFX(en_v)(0, 0, 0);
	uint32_t own = parity ? NB_BEND_ODD : NB_BEND_EVEN;
	PL_UNROLL
	for (int k = 0; k < 12; k++) {
		EN_REAL s = own & (1u << k) ? EN_R(bend_stencil_weight(k)) : 0;
		g = EN_SFX(en_axpy)(g, s, d[k]);
	}
	*grad = EN_SFX(en_axpy)(*grad, c->bend, g);
	*diag += c->bend * EN_R(parity ? BEND_ODD_CENTRE : BEND_EVEN_CENTRE);
}

/* The twelve bending differences of the vertex at x, AoS with row
 * pitch `pitch`, the far ones from xf (all twelve must be readable). */
PL_HD void EN_SFX(bend_diffs)(const EN_REAL *x, int pitch,
			      const EN_REAL *xf, int fpitch, EN_V d[12])
{
	PL_UNROLL
	for (int k = 0; k < 12; k++)
		d[k] = EN_SFX(en_diff_nb)(x, pitch, xf, fpitch, k);
}

PL_HD void EN_SFX(bend_grad)(const EN_REAL *x, int pitch,
			     const EN_REAL *xf, int fpitch, uint32_t nbr,
			     int parity, const struct EN_SFX(energy_coef) *c,
			     EN_V *grad, EN_REAL *diag)
{
	uint32_t all = parity ? NB_BEND_ODD : NB_BEND_EVEN;
	if ((nbr & all) == all || c->bend_rule == BEND_COLLAPSE) {
		EN_SFX(bend_stencil)(x, pitch, xf, fpitch, nbr, parity, c,
				     grad, diag);
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
			EN_V kx = EN_SFX(bend_hinge_apply)(x, pitch, xf,
							   fpitch, nbr, hg,
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
		return EN_SFX(bend_stencil)(x, pitch, x, pitch, nbr, parity,
					    c, (EN_V *)0, (EN_REAL *)0);
	/* the hinges this vertex owns: each hinge once over the grid, a sum
	 * of squares, so no cancellation in float */
	EN_REAL sum = 0;
	int rows = parity ? BEND_ODD_OWNED : BEND_EVEN_OWNED;
	for (int h = 0; h < rows; h++) {
		int ok;
		EN_V kx = EN_SFX(bend_hinge_apply)(x, pitch, x, pitch, nbr,
				bend_owned_row(parity, h), 0, &ok);
		if (ok)
			sum += EN_SFX(en_dot)(kx, kx);
	}
	return EN_R(0.5) * c->bend * sum;
}

/* bend_energy with BEND_HINGES for a vertex with every bending
 * neighbour of its parity: the same arithmetic with the tests decided
 * at compile time.  Both parities' hinges are computed and the vertex's
 * chosen (an odd vertex owns two, whose places the even ones' third and
 * fourth take with exact zeros), so that a row of vertices of both
 * parities runs as one vector loop; all of them lie within one step of
 * the vertex. */
PL_HD EN_REAL EN_SFX(bend_energy_regular)(const EN_REAL *x, int pitch,
					  int parity,
					  const struct EN_SFX(energy_coef) *c)
{
	EN_REAL sum = 0;
	PL_UNROLL
	for (int h = 0; h < BEND_EVEN_OWNED; h++) {
		EN_V ke = EN_SFX(bend_hinge_sum)(x, pitch, x, pitch,
						 bend_owned_row(0, h), 0);
		EN_V ko = h < BEND_ODD_OWNED ?
			  EN_SFX(bend_hinge_sum)(x, pitch, x, pitch,
						 bend_owned_row(1, h), 0) : ke;
		EN_V kx = EN_SFX(en_v)(parity ? ko.x : ke.x,
				       parity ? ko.y : ke.y,
				       parity ? ko.z : ke.z);
		EN_REAL t = EN_SFX(en_dot)(kx, kx);
		sum += parity && h >= BEND_ODD_OWNED ? 0 : t;
	}
	return EN_R(0.5) * c->bend * sum;
}

/* ---- all terms ----------------------------------------------------- */

/* The elastic terms with the gathering tensor field S (see gather_sum;
 * NULL: none); bending keeps the flat lattice's stencils either way,
 * with its neighbours two steps away read from xf (row pitch fpitch;
 * x and pitch for the gradient at x). */
PL_HD void EN_SFX(energy_grad_far)(const EN_REAL *x, int pitch,
				   const EN_REAL *xf, int fpitch,
				   uint32_t nbr, int parity,
				   const struct EN_SFX(energy_coef) *c,
				   unsigned terms, const float *S,
				   int spitch, EN_V *grad, EN_REAL *diag)
{
	if (terms & TERM_SPRING)
		EN_SFX(spring_grad)(x, pitch, nbr, c, S, spitch, grad, diag);
	if (terms & TERM_FEM)
		EN_SFX(fem_grad)(x, pitch, nbr, c, S, spitch, grad, diag);
	if (terms & TERM_BEND)
		EN_SFX(bend_grad)(x, pitch, xf, fpitch, nbr, parity, c, grad,
				  diag);
}

PL_HD void EN_SFX(energy_grad_gather)(const EN_REAL *x, int pitch,
				      uint32_t nbr, int parity,
				      const struct EN_SFX(energy_coef) *c,
				      unsigned terms, const float *S,
				      int spitch, EN_V *grad, EN_REAL *diag)
{
	EN_SFX(energy_grad_far)(x, pitch, x, pitch, nbr, parity, c, terms,
				S, spitch, grad, diag);
}

PL_HD EN_REAL EN_SFX(energy_vertex_gather)(const EN_REAL *x, int pitch,
					   uint32_t nbr, int parity,
					   const struct EN_SFX(energy_coef) *c,
					   unsigned terms, const float *S,
					   int spitch)
{
	EN_REAL e = 0;
	if (terms & TERM_SPRING)
		e += EN_SFX(spring_energy)(x, pitch, nbr, c, S, spitch);
	if (terms & TERM_FEM)
		e += EN_SFX(fem_energy)(x, pitch, nbr, c, S, spitch);
	if (terms & TERM_BEND)
		e += EN_SFX(bend_energy)(x, pitch, nbr, parity, c);
	return e;
}

PL_HD void EN_SFX(energy_grad)(const EN_REAL *x, int pitch, uint32_t nbr,
			       int parity, const struct EN_SFX(energy_coef) *c,
			       unsigned terms, EN_V *grad, EN_REAL *diag)
{
	EN_SFX(energy_grad_gather)(x, pitch, nbr, parity, c, terms,
				   (const float *)0, 0, grad, diag);
}

/* energy_grad_far for a vertex whose neighbour word is complete (all
 * six ring neighbours and every bending neighbour of its parity) and
 * whose bending neighbours of the other parity can be read too, without
 * a gathering field.  The same arithmetic in the same order as
 * energy_grad_far, with the neighbour tests decided at compile time, so
 * that a row of such vertices vectorises. */
PL_HD void EN_SFX(energy_grad_regular)(const EN_REAL *x, int pitch,
				       const EN_REAL *xf, int fpitch,
				       int parity,
				       const struct EN_SFX(energy_coef) *c,
				       unsigned terms, EN_V *grad,
				       EN_REAL *diag)
{
	uint32_t nbr = NB_ELASTIC_ALL | NB_BEND_EVEN;
	if (terms & TERM_SPRING)
		EN_SFX(spring_grad)(x, pitch, nbr, c, (const float *)0, 0,
				    grad, diag);
	if (terms & TERM_FEM)
		EN_SFX(fem_grad)(x, pitch, nbr, c, (const float *)0, 0, grad,
				 diag);
	if (terms & TERM_BEND) {
		EN_V d[12];
		EN_SFX(bend_diffs)(x, pitch, xf, fpitch, d);
		EN_SFX(bend_stencil_diffs)(d, parity, c, grad, diag);
	}
}

/* energy_vertex for a vertex whose neighbour word is complete, without
 * a gathering field, with BEND_HINGES: the same numbers, as code a row
 * of such vertices can run as one vector loop. */
PL_HD EN_REAL EN_SFX(energy_vertex_regular)(const EN_REAL *x, int pitch,
					    int parity,
					    const struct EN_SFX(energy_coef) *c,
					    unsigned terms)
{
	uint32_t nbr = NB_ELASTIC_ALL | NB_BEND_EVEN;
	EN_REAL e = 0;
	if (terms & TERM_SPRING)
		e += EN_SFX(spring_energy)(x, pitch, nbr, c, (const float *)0,
					   0);
	if (terms & TERM_FEM)
		e += EN_SFX(fem_energy)(x, pitch, nbr, c, (const float *)0, 0);
	if (terms & TERM_BEND)
		e += EN_SFX(bend_energy_regular)(x, pitch, parity, c);
	return e;
}

PL_HD EN_REAL EN_SFX(energy_vertex)(const EN_REAL *x, int pitch,
				    uint32_t nbr, int parity,
				    const struct EN_SFX(energy_coef) *c,
				    unsigned terms)
{
	return EN_SFX(energy_vertex_gather)(x, pitch, nbr, parity, c, terms,
					    (const float *)0, 0);
}

#undef EN_R

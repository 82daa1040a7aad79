/* material.c - material presets and the per-level constants.
 *
 * Preset values are order-of-magnitude figures for common woven fabrics,
 * not measurements of ours:
 *  - bending rigidity from Kawabata's KES-F bending test (B, per unit
 *    width), typically 0.01-0.03 gf·cm²/cm for silk, 0.05-0.15 for cotton
 *    shirting and polyester, 0.1 for wool suiting and 0.5-1 for denim;
 *    1 gf·cm²/cm = 9.80665e-5 N·m;
 *  - stretch stiffness as the secant modulus of the KES-F tensile test:
 *    500 gf/cm (490 N/m) at an extension EMT of a few percent gives
 *    1e3-2e4 N/m, the lower values for light, crimped weaves; the low-load
 *    modulus of a real fabric is lower still, which the solver does not
 *    model (it is linear in strain);
 *  - Poisson's ratio 0.3 for all: published values for woven fabrics
 *    scatter from 0.1 to 0.5 with direction, and 0.3 is the common choice
 *    of cloth simulators;
 *  - areal density from the usual fabric weights: silk habotai 30-60
 *    g/m², cotton shirting 100-150, polyester plain weave about 100, wool
 *    suiting about 250, 12 oz/yd² denim about 400.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "energy.h"
#include "material.h"

static const struct material presets[] = {
	/* name         E (N/m)  nu    k_b (N·m)  kg/m² */
	{ "silk",       1500.0,  0.3,  1.5e-6,    0.05 },
	{ "cotton",     5000.0,  0.3,  1.0e-5,    0.12 },
	{ "polyester",  6000.0,  0.3,  6.0e-6,    0.10 },
	{ "wool",       3000.0,  0.3,  8.0e-6,    0.25 },
	{ "denim",     20000.0,  0.3,  8.0e-5,    0.40 },
};

const struct material *material_preset(int k)
{
	int n = (int)(sizeof presets / sizeof presets[0]);
	return k >= 0 && k < n ? &presets[k] : NULL;
}

const struct material *material_find(const char *name)
{
	const struct material *m;
	for (int k = 0; (m = material_preset(k)); k++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

static int bad(char *why, int n, const char *field, double v)
{
	if (why && n > 0)
		snprintf(why, (size_t)n, "%s %g is out of range", field, v);
	return -1;
}

int material_check(const struct material *m, char *why, int n)
{
	/* isfinite first: a NaN passes every ordered comparison as false */
	if (!isfinite(m->stretch) || m->stretch <= 0)
		return bad(why, n, "stretch stiffness", m->stretch);
	/* plane-stress lambda = E nu / (1 - nu²) blows up at nu = 1; fabrics
	 * stay below the 0.5 of an incompressible solid */
	if (!isfinite(m->poisson) || m->poisson < 0 || m->poisson > 0.49)
		return bad(why, n, "Poisson's ratio", m->poisson);
	if (!isfinite(m->bend) || m->bend < 0)
		return bad(why, n, "bending stiffness", m->bend);
	if (!isfinite(m->density) || m->density < 0)
		return bad(why, n, "density", m->density);
	return 0;
}

void level_constants_init(struct level_constants *lc,
			  const struct material *m, double cell)
{
	double h = cell, E = m->stretch, nu = m->poisson;
	double area = 0.5 * h * h;

	memset(lc, 0, sizeof *lc);
	lc->cell = h;
	/* plane stress: the cloth is a membrane free to thin */
	lc->mu = E / (2.0 * (1.0 + nu));
	lc->lambda = E * nu / (1.0 - nu * nu);
	lc->fem_mu_area = lc->mu * area;
	lc->fem_lambda_area = lc->lambda * area;
	/* Springs matched to the FEM in the continuum limit (energy.h):
	 * shear needs k_diag = 2 mu, uniaxial strain k_axis + k_diag/2 =
	 * 2 mu + lambda.  A spring's 0.5 k (l - L)² over the h² it stands for
	 * is an energy density in k alone: no power of h. */
	lc->spring_diag = 2.0 * lc->mu;
	lc->spring_axis = lc->mu + lc->lambda;
	/* second differences are h² kappa, squared h⁴ kappa², over h² of
	 * area per hinge: k_b / h² makes the sum an integral */
	lc->bend_coef = m->bend / (h * h);
	lc->bend_even[0] = lc->bend_coef * BEND_EVEN_CENTRE;
	lc->bend_even[1] = lc->bend_coef * BEND_AXIS;
	lc->bend_even[2] = lc->bend_coef * BEND_DIAG;
	lc->bend_even[3] = lc->bend_coef * BEND_FAR;
	lc->bend_odd[0] = lc->bend_coef * BEND_ODD_CENTRE;
	lc->bend_odd[1] = lc->bend_coef * BEND_AXIS;
	lc->bend_odd[2] = lc->bend_coef * BEND_DIAG;
	lc->mass = m->density * h * h;
}

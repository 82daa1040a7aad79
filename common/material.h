/* material.h - cloth materials in SI units and the per-level constants
 * derived from them.
 *
 * A material is what a user measures or looks up: stretch stiffness (the
 * membrane Young's modulus, N/m), Poisson's ratio, bending rigidity (N·m,
 * moment per unit width per unit curvature, as Kawabata's B) and areal
 * density (kg/m²).  Nothing in it depends on the grid.  Every number the
 * energies use at one level is derived from (material, cell size) by
 * level_constants_init, so the same material gives the same cloth at every
 * resolution: see energy.h for why each scaling is what it is.
 */
#ifndef PLEAT_MATERIAL_H
#define PLEAT_MATERIAL_H

#ifdef __cplusplus
extern "C" {
#endif

struct material {
	const char *name;
	double stretch;  /* E: membrane Young's modulus, N/m */
	double poisson;  /* nu, in [0, 0.49] */
	double bend;     /* k_b: bending rigidity, N·m */
	double density;  /* kg/m² */
};

/* The named presets, in a fixed order; NULL past the last. */
const struct material *material_preset(int k);
/* The preset of that name (case-sensitive), or NULL. */
const struct material *material_find(const char *name);
/* 0 when every field is finite and in range, else -1 with a message in
 * why (when not NULL) naming the field. */
int material_check(const struct material *m, char *why, int n);

/* Everything the energies need at one level, in SI units.  The solver
 * converts it to the working precision with energy_coef_init_f/_d. */
struct level_constants {
	double cell;            /* h, metres between grid neighbours */
	double mu, lambda;      /* plane-stress Lamé constants, N/m */
	double fem_mu_area;     /* mu * A, A = h²/2 the area of a triangle, N·m */
	double fem_lambda_area; /* lambda * A, N·m */
	double spring_axis;     /* N/m, an axis edge (length h) */
	double spring_diag;     /* N/m, a diagonal edge (length h√2) */
	double bend_coef;       /* k_b / h², N/m: scales the integer stencils */
	double bend_even[4];    /* parity-0 stencil: centre, axis, diagonal,
				   distance-2 axis neighbour, N/m */
	double bend_odd[3];     /* parity-1 stencil: centre, axis, diagonal */
	double mass;            /* density * h², kg per vertex */
};

/* Derives the constants of one level; cell > 0 and a valid material. */
void level_constants_init(struct level_constants *lc,
			  const struct material *m, double cell);

#ifdef __cplusplus
}
#endif

#endif

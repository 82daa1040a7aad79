/* energy_grid_tmpl.h - sums of the per-vertex energies over a whole grid,
 * written once and included twice by energy.c (float and double, like
 * energy_tmpl.h).  The CPU reference for tests and energy checks: plain
 * loops, double accumulation, the same order every run. */
#ifndef EN_REAL
#error "energy_grid_tmpl.h is included by energy.c only"
#endif

double EN_SFX(energy_total)(int width, int height, const EN_REAL *x,
			    const uint32_t *nbr,
			    const struct EN_SFX(energy_coef) *c,
			    unsigned terms)
{
	double sum = 0;
	for (int j = 0; j < height; j++)
		for (int i = 0; i < width; i++) {
			size_t v = (size_t)j * (size_t)width + (size_t)i;
			if (!nbr[v])
				continue;
			sum += (double)EN_SFX(energy_vertex)(x + 3 * v, width,
					nbr[v], (i + j) & 1, c, terms);
		}
	return sum;
}

void EN_SFX(energy_gradient)(int width, int height, const EN_REAL *x,
			     const uint32_t *nbr,
			     const struct EN_SFX(energy_coef) *c,
			     unsigned terms, EN_REAL *grad, EN_REAL *diag)
{
	for (int j = 0; j < height; j++)
		for (int i = 0; i < width; i++) {
			size_t v = (size_t)j * (size_t)width + (size_t)i;
			EN_V g = {0, 0, 0};
			EN_REAL d = 0;
			if (nbr[v])
				EN_SFX(energy_grad)(x + 3 * v, width, nbr[v],
						    (i + j) & 1, c, terms,
						    &g, &d);
			grad[3 * v] = g.x;
			grad[3 * v + 1] = g.y;
			grad[3 * v + 2] = g.z;
			if (diag)
				diag[v] = d;
		}
}

/* inflate.c - the state of inflation and filling for one grid: the
 * strengths, the rest shape's area-weighted normals (fixed for the whole
 * solve, for --inflate and --fill) and the origin of the air's volume.
 * The per-vertex arithmetic is in common/inflate.h. */
#include <stdlib.h>
#include <string.h>

#include "solve.h"
#include "util.h"

/* Every vertex's area-weighted normal of the rest shape. */
static void rest_normals(const struct problem *p, float *normal)
{
	#pragma omp parallel for schedule(static)
	for (int j = 0; j < p->h; j++)
		for (int i = 0; i < p->w; i++) {
			size_t v = (size_t)j * (size_t)p->w + (size_t)i;
			vec3 a = v3(0.0f, 0.0f, 0.0f);
			if (p->nbr[v])
				a = inflate_ring_normal(p->rest + 3 * v, p->w,
							p->nbr[v], NULL);
			v3_store(normal + 3 * v, a);
		}
}

/* The mean rest position of the cloth vertices: an origin near the
 * cloth, so that the volume's terms keep their digits. */
static void rest_centre(const struct problem *p, double o[3])
{
	double sum[3] = {0, 0, 0};
	size_t count = 0;
	for (size_t v = 0; v < p->n; v++) {
		if (!p->nbr[v])
			continue;
		for (int k = 0; k < 3; k++)
			sum[k] += p->rest[3 * v + k];
		count++;
	}
	for (int k = 0; k < 3; k++)
		o[k] = count ? sum[k] / (double)count : 0;
}

int inflation_init(struct problem *p, const struct inflate_coef *c,
		   struct error *e)
{
	struct inflation *f = &p->infl;
	memset(f, 0, sizeof *f);
	f->c = *c;
	if (c->air != 0.0f)
		rest_centre(p, f->origin);
	if (c->inflate == 0.0f && c->fill_depth == 0.0f)
		return 0;
	f->normal = big_alloc(p->n * 3 * sizeof(float));
	if (!f->normal)
		return error_set(e, "out of memory for the rest normals of %zu "
				 "vertices", p->n);
	rest_normals(p, f->normal);
	return 0;
}

void inflation_free(struct inflation *f)
{
	free(f->normal);
	f->normal = NULL;
}

/* fuzz_obj - libFuzzer harness for the OBJ reader (common/obj.c).
 *
 * Feeds the input to obj_read_mem and, when it is accepted, builds the
 * sewing pattern from it, as pleat-resample does after obj_load.  Checks
 * that an accepted mesh is sane: every index in range, every number
 * finite.  Built and run by `make fuzz` and `make fuzz-ci` (fuzz/fuzz.mk).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "obj.h"
#include "pattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader's promises about an accepted mesh; a broken one aborts, which
 * libFuzzer reports as a crash with the input saved. */
static void check_mesh(const struct obj_mesh *m)
{
	for (int i = 0; i < m->nv; i++)
		for (int k = 0; k < 3; k++)
			if (!isfinite(m->v[i][k]))
				abort();
	for (int i = 0; i < m->nvt; i++)
		for (int k = 0; k < 2; k++)
			if (!isfinite(m->vt[i][k]))
				abort();
	if (m->ntri < 1 || m->nface < 1 || m->nface > m->ntri)
		abort();
	for (int t = 0; t < m->ntri; t++) {
		for (int k = 0; k < 3; k++)
			if (m->tri_v[t][k] < 0 || m->tri_v[t][k] >= m->nv ||
			    m->tri_vt[t][k] < -1 || m->tri_vt[t][k] >= m->nvt)
				abort();
		if (m->tri_face[t] < 0 || m->tri_face[t] >= m->nface)
			abort();
	}
}

static void check_pattern(const struct pattern *p, const struct obj_mesh *m)
{
	for (int t = 0; t < m->ntri; t++)
		if (p->tri_panel[t] < 0 || p->tri_panel[t] >= p->npanels)
			abort();
	for (int i = 0; i < p->nedges; i++) {
		int j = p->edges[i].partner;
		if (j < -1 || j >= p->nedges || (j >= 0 && p->edges[j].partner != i))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct obj_mesh m;
	struct pattern p;
	struct error e;
	if (obj_read_mem(&m, (const char *)data, size, "fuzz.obj", &e) < 0)
		return 0;
	check_mesh(&m);
	if (pattern_build(&p, &m, "fuzz.obj", &e) == 0) {
		check_pattern(&p, &m);
		pattern_free(&p);
	}
	obj_free(&m);
	return 0;
}

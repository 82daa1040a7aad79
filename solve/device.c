/* device.c - --device: which backend runs the iterations.
 *
 * Compiled with PLEAT_CUDA when the CUDA backend is built (nvcc found);
 * without it only the CPU exists and --device cuda is an error. */
#include <stdio.h>
#include <string.h>

#include "solve.h"
#include "util.h"

/* Gathering runs on the CPU only: the CUDA backend does not read the
 * gather channel.  Checked per grid, since the channel is the grid's. */
const char *device_for_problem(const char *chosen, const char *want,
			       const struct problem *p, const char *where)
{
	if (!chosen || !p->gather)
		return chosen;
	if (strcmp(want, "cuda") == 0)
		die("%s: --device cuda: the grid has a gather channel, and "
		    "gathering runs on the CPU only", where);
	warnx("%s: gathering runs on the CPU only: this grid does", where);
	return NULL;
}

#ifdef PLEAT_CUDA
#include "cuda_device.h"
#include "gpu.h"

static char gpu_name[256];

const char *device_choose(const char *want, const struct solve_params *sp)
{
	char why[256] = "";
	if (strcmp(want, "cpu") == 0)
		return NULL;
	int explicit = strcmp(want, "cuda") == 0;
	if (sp->effects.air > 0 || sp->effects.inflate > 0 ||
	    sp->effects.fill_depth > 0) {
		if (explicit)
			usage_fail("--device cuda: inflation and filling run on "
				   "the CPU only");
		return NULL;
	}
	if (sp->method == METHOD_PCG) {
		if (explicit)
			usage_fail("--device cuda: the pcg method runs on the CPU "
				   "only");
		return NULL;
	}
	if (dynamic_wanted(sp)) {
		if (explicit)
			usage_fail("--device cuda: the dynamic mode and gravity "
				   "run on the CPU only");
		return NULL;
	}
	if (cuda_device_count(why, sizeof why) == 0) {
		if (explicit)
			die("--device cuda: no GPU answers: %s", why);
		return NULL;
	}
	if (cuda_device_describe(0, gpu_name, sizeof gpu_name))
		snprintf(gpu_name, sizeof gpu_name, "CUDA device 0");
	warnx("running on the GPU: %s", gpu_name);
	return gpu_name;
}

int device_open(const char *chosen, const struct problem *p,
		struct solve_device *dev, struct error *e)
{
	char why[256];
	if (!chosen)
		return 0;
	const struct seams *s = &p->seams;
	struct cuda_problem cp = {
		.w = p->w, .h = p->h, .rest = p->rest, .nbr = p->nbr,
		.mov = p->mov, .plane = p->plane, .nlinks = s->nlinks, .ntouched = s->ntouched,
		.nrefs = s->nlinks ? s->start[s->ntouched] : 0,
		.seam_k = s->k, .link = s->link, .start = s->start,
		.ref_link = s->ref_link, .ref_coef = s->ref_coef, .at = s->at,
		.seam_diag = s->diag,
	};
	struct proximity_setup self;
	if (p->prox) {
		self = proximity_setup_of(p->prox);
		cp.self = &self;
		cp.self_radius = p->self_radius;
		cp.self_k = p->self_k;
		cp.self_search = p->self_search;
		cp.list_out = p->prox->list;
		cp.found_out = p->prox->found;
	}
	dev->s = cuda_solver_new(&cp, 0, why, sizeof why);
	if (!dev->s)
		return error_set(e, "%s", why);
	dev->put = cuda_solver_put;
	dev->get = cuda_solver_get;
	dev->step = cuda_solver_step;
	dev->refresh = cuda_solver_refresh;
	return 0;
}

void device_close(struct solve_device *dev)
{
	cuda_solver_free(dev->s);
	dev->s = NULL;
}

#else

const char *device_choose(const char *want, const struct solve_params *sp)
{
	(void)sp;
	if (strcmp(want, "cuda") == 0)
		die("--device cuda: this pleat was built without the CUDA "
		    "backend");
	return NULL;
}

int device_open(const char *chosen, const struct problem *p,
		struct solve_device *dev, struct error *e)
{
	(void)chosen;
	(void)p;
	(void)dev;
	(void)e;
	return 0;
}

void device_close(struct solve_device *dev)
{
	(void)dev;
}

#endif

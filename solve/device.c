/* device.c - --device: which backend runs the solve.
 *
 * Compiled with PLEAT_CUDA when the CUDA backend is built (nvcc found, or
 * the CUDA execution model); without it only the CPU exists and --device
 * cuda is an error.  The GPU runs everything the CPU does: every method,
 * term and option. */
#include <stdio.h>
#include <string.h>

#include "solve.h"
#include "util.h"

#ifdef PLEAT_CUDA
#include "cuda_device.h"

static char gpu_name[256];

const char *device_choose(const char *want, int quiet)
{
	char why[256] = "";
	if (strcmp(want, "cpu") == 0)
		return NULL;
	if (cuda_device_count(why, sizeof why) == 0) {
		if (strcmp(want, "cuda") == 0)
			die("--device cuda: no GPU to run on: %s; use --device cpu "
			    "(or auto, which falls back to the CPU)", why);
		return NULL;
	}
	if (cuda_device_describe(0, gpu_name, sizeof gpu_name))
		snprintf(gpu_name, sizeof gpu_name, "CUDA device 0");
	if (!quiet)
		fprintf(stderr, "%s: running on the GPU: %s\n", progname, gpu_name);
	return gpu_name;
}

int device_open(const char *chosen, const struct problem *p,
		const struct solve_params *sp, struct solve_device *dev,
		struct error *e)
{
	char why[256];
	if (!chosen)
		return 0;
	const struct seams *s = &p->seams;
	struct cuda_problem cp = {
		.w = p->w, .h = p->h, .rest = p->rest, .nbr = p->nbr,
		.mov = p->mov, .plane = p->plane, .gather = p->gather,
		.nlinks = s->nlinks, .ntouched = s->ntouched,
		.nrefs = s->nlinks ? s->start[s->ntouched] : 0,
		.seam_k = s->k, .link = s->link, .nbends = s->nbends,
		.bend = s->bend, .start = s->start,
		.ref_link = s->ref_link, .ref_coef = s->ref_coef, .at = s->at,
		.seam_diag = s->diag, .terms = &p->terms, .cd = p->cd,
		.shape = p->shape, .pcg = sp->method == METHOD_PCG,
		.safe = p->safe != NULL,
	};
	struct proximity_setup self;
	if (p->prox) {
		self = proximity_setup_of(p->prox);
		cp.self = &self;
		cp.self_radius = p->self_radius;
		cp.self_k = p->self_k;
		cp.self_search = p->self_search;
	}
	dev->s = cuda_solver_new(&cp, 0, why, sizeof why);
	if (!dev->s)
		return error_set(e, "%s", why);
	dev->put = cuda_solver_put;
	dev->get = cuda_solver_get;
	dev->refresh = cuda_solver_refresh;
	dev->step = cuda_solver_step;
	dev->check = cuda_solver_check;
	dev->keep = cuda_solver_keep;
	dev->restore = cuda_solver_restore;
	dev->safe_set = cuda_solver_safe_set;
	dev->safe_poll = cuda_solver_safe_poll;
	return 0;
}

int device_close(struct solve_device *dev, struct error *e)
{
	char why[256];
	int bad = cuda_solver_free(dev->s, why, sizeof why);
	dev->s = NULL;
	return bad ? error_set(e, "%s", why) : 0;
}

#else

const char *device_choose(const char *want, int quiet)
{
	(void)quiet;
	if (strcmp(want, "cuda") == 0)
		die("--device cuda: this pleat-solve was built without the CUDA "
		    "backend (no nvcc when it was built); use --device cpu");
	return NULL;
}

int device_open(const char *chosen, const struct problem *p,
		const struct solve_params *sp, struct solve_device *dev,
		struct error *e)
{
	(void)chosen;
	(void)p;
	(void)sp;
	(void)dev;
	(void)e;
	return 0;
}

int device_close(struct solve_device *dev, struct error *e)
{
	(void)dev;
	(void)e;
	return 0;
}

#endif

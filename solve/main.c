/* pleat-solve - the nonlinear optimisation: wrinkles on the grid.
 *
 * Reads grids (mask, rest, optionally panel and a starting x), minimises
 * elasticity + bending + a weak pull towards the coarse shape, and writes
 * each grid with its x channel set, everything else passed through. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "outfile.h"
#include "progress.h"
#include "solve.h"

static const char usage_text[] =
"usage: pleat-solve [-m method] [-n iterations] [--tolerance t] [-o file]\n"
"                   [--model model]\n"
"                   [--material name] [--stretch N/m] [--bend N*m]\n"
"                   [--poisson ratio] [--density kg/m2] [--shape k]\n"
"                   [--seam s] [--body file] [--self] [--safe[=scope]]\n"
"                   [--collision-scale s]\n"
"                   [--dynamic] [--dt s] [--gravity gx,gy,gz] [--pin u,v[,r]]\n"
"                   [--step s] [--check-every n] [--inner n]\n"
"                   [--rho r] [--inner-rho r] [--far-bending when]\n"
"                   [--device device]\n"
"                   [--air Pa] [--inflate Pa] [--fill m]\n"
"                   [--fill-stiffness N/m3]\n"
"                   [--stats file] [--progress] [-q] [-v] [file ...]\n"
"\n"
"Find the wrinkles: minimise the elastic, bending and global-shape energy\n"
"of each grid and write it with its x channel (the solution) set.\n"
"\n"
"  -m, --method M       gd, chebyshev, block, pcg or mg (multigrid)\n"
"                       (default block)\n"
"  -n, --iterations N   outer iterations per grid, the budget (default 256)\n"
"      --tolerance T    stop before the budget when the energy still to\n"
"                       gain is below T times the gain so far (default 0:\n"
"                       run the budget; the verdict judges by 1e-3)\n"
"  -o, --output FILE    write to FILE instead of standard output\n"
"      --model M        planar elasticity: fem or spring (default fem)\n"
"      --material NAME  silk, cotton, polyester, wool or denim\n"
"                       (default cotton)\n"
"      --stretch E      stretch stiffness, N/m (overrides the material)\n"
"      --bend B         bending rigidity, N*m (overrides the material)\n"
"      --poisson NU     Poisson's ratio (overrides the material)\n"
"      --density RHO    areal density, kg/m2 (overrides the material)\n"
"      --shape K        pull towards the rest shape, 1/s2 (default 100;\n"
"                       0: off)\n"
"      --seam S         seam stiffness in units of the stretch stiffness\n"
"                       (default 1; 0: seams open)\n"
"      --body FILE      the body (OBJ): no cloth vertex goes inside it;\n"
"                       repeat for a body per grid of a sequence\n"
"      --self           self collision: repulsion between cloth vertices\n"
"                       closer than 0.4 mm (times the collision scale)\n"
"      --safe[=SCOPE]   no new intersections: every move bounded by the\n"
"                       distances between the cloth's triangles (not\n"
"                       with mg); SCOPE all (default) or seams: only\n"
"                       within 6 cells of a seam\n"
"      --collision-scale S  collision lengths over the paper's (0.4 mm\n"
"                       push-out); default: cell / 0.5 mm, at least 1,\n"
"                       and R at least 1.2 cells\n"
"      --dynamic        one implicit Euler time step from x (and xprev):\n"
"                       momentum and gravity; --shape defaults to 0\n"
"      --dt S           the time step, seconds (default 0.01)\n"
"      --gravity G      gx,gy,gz in m/s2 (default 0,0,-9.81 with\n"
"                       --dynamic, else none)\n"
"      --pin P          u,v: pin the cloth vertex nearest to pattern\n"
"                       point (u, v), metres; u,v,r: every one within r\n"
"                       of it (repeatable; kept in the mask)\n"
"      --step S         preconditioned step (default 0.4)\n"
"      --check-every N  check the energy every N iterations (default 8)\n"
"      --inner N        block: inner iterations (default 4)\n"
"      --rho R          outer Chebyshev spectral radius (default 0.992),\n"
"                       or auto: estimated from the convergence\n"
"      --inner-rho R    block: inner Chebyshev radius (default 0.75;\n"
"                       0: off)\n"
"      --far-bending W  block: bending neighbours two steps away as\n"
"                       they are now (now, the default) or as they were\n"
"                       at the start of the block (start: Wang 2021,\n"
"                       Eq. 9)\n"
"      --device D       cpu, cuda or auto (default auto)\n"
"      --air P          inflate with air at pressure P, Pa, on the\n"
"                       enclosed volume (normals from the iterate)\n"
"      --inflate P      inflate with pressure P, Pa, along the rest\n"
"                       shape's normals (cheaper; no neighbours)\n"
"      --fill D         a stuffing layer D metres thick under the cloth\n"
"      --fill-stiffness K  the stuffing's stiffness, N/m3 (default 1e6)\n"
"      --stats FILE     write a JSON line per energy check to FILE\n"
"      --progress       report each energy check on standard error:\n"
"                       iteration k/N, elapsed and remaining time\n"
"  -q, --quiet          no summary line per grid\n"
"  -v, --verbose        the same as --progress\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"With no file, or when file is -, read standard input.\n"
"See pleat-solve(1) and pleat-grid(5).\n";

#define MAX_BODIES 4096
#define MAX_PINS 1024

struct options {
	struct solve_params sp;
	const char *output, *stats, *device;
	const char *gpu;         /* the GPU chosen, NULL: the CPU */
	const char *body_files[MAX_BODIES];
	struct body bodies[MAX_BODIES];
	int nbodies;
	double collision_scale;  /* 0: from the cell size */
	int progress, quiet;
	struct pin pins[MAX_PINS];
	int npins;
	char **files;
	int nfiles;
};

enum { OPT_MODEL = 256, OPT_MATERIAL, OPT_STRETCH, OPT_BEND, OPT_POISSON,
       OPT_DENSITY, OPT_SHAPE, OPT_STEP, OPT_CHECK, OPT_INNER, OPT_RHO,
       OPT_INNER_RHO, OPT_FAR_BENDING, OPT_DEVICE, OPT_STATS,
       OPT_PROGRESS, OPT_SEAM,
       OPT_BODY, OPT_COLLISION_SCALE, OPT_SELF,
       OPT_AIR, OPT_INFLATE, OPT_FILL, OPT_FILL_K, OPT_TOLERANCE, OPT_SAFE };
enum { OPT_DYNAMIC = 512, OPT_DT, OPT_GRAVITY, OPT_PIN };

static const struct option longopts[] = {
	{"method", required_argument, NULL, 'm'},
	{"iterations", required_argument, NULL, 'n'},
	{"tolerance", required_argument, NULL, OPT_TOLERANCE},
	{"output", required_argument, NULL, 'o'},
	{"model", required_argument, NULL, OPT_MODEL},
	{"material", required_argument, NULL, OPT_MATERIAL},
	{"stretch", required_argument, NULL, OPT_STRETCH},
	{"bend", required_argument, NULL, OPT_BEND},
	{"poisson", required_argument, NULL, OPT_POISSON},
	{"density", required_argument, NULL, OPT_DENSITY},
	{"shape", required_argument, NULL, OPT_SHAPE},
	{"seam", required_argument, NULL, OPT_SEAM},
	{"body", required_argument, NULL, OPT_BODY},
	{"self", no_argument, NULL, OPT_SELF},
	{"safe", optional_argument, NULL, OPT_SAFE},
	{"collision-scale", required_argument, NULL, OPT_COLLISION_SCALE},
	{"dynamic", no_argument, NULL, OPT_DYNAMIC},
	{"dt", required_argument, NULL, OPT_DT},
	{"gravity", required_argument, NULL, OPT_GRAVITY},
	{"pin", required_argument, NULL, OPT_PIN},
	{"step", required_argument, NULL, OPT_STEP},
	{"check-every", required_argument, NULL, OPT_CHECK},
	{"inner", required_argument, NULL, OPT_INNER},
	{"rho", required_argument, NULL, OPT_RHO},
	{"inner-rho", required_argument, NULL, OPT_INNER_RHO},
	{"far-bending", required_argument, NULL, OPT_FAR_BENDING},
	{"device", required_argument, NULL, OPT_DEVICE},
	{"stats", required_argument, NULL, OPT_STATS},
	{"air", required_argument, NULL, OPT_AIR},
	{"inflate", required_argument, NULL, OPT_INFLATE},
	{"fill", required_argument, NULL, OPT_FILL},
	{"fill-stiffness", required_argument, NULL, OPT_FILL_K},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static enum solve_method parse_method(const char *s)
{
	if (strcmp(s, "gd") == 0)
		return METHOD_GD;
	if (strcmp(s, "chebyshev") == 0)
		return METHOD_CHEBYSHEV;
	if (strcmp(s, "block") == 0)
		return METHOD_BLOCK;
	if (strcmp(s, "pcg") == 0)
		return METHOD_PCG;
	if (strcmp(s, "mg") == 0)
		return METHOD_MG;
	usage_fail("--method: '%s' is not gd, chebyshev, block, pcg or mg", s);
}

static unsigned parse_model(const char *s)
{
	if (strcmp(s, "fem") == 0)
		return TERM_FEM | TERM_BEND;
	if (strcmp(s, "spring") == 0)
		return TERM_SPRING | TERM_BEND;
	usage_fail("--model: '%s' is not fem or spring", s);
}

static int parse_far_bending(const char *s)
{
	if (strcmp(s, "now") == 0)
		return 0;
	if (strcmp(s, "start") == 0)
		return 1;
	usage_fail("--far-bending: '%s' is not now or start", s);
}

static void defaults(struct options *o)
{
	memset(o, 0, sizeof *o);
	o->sp.method = METHOD_BLOCK;
	o->sp.terms = TERM_FEM | TERM_BEND;
	o->sp.mat = *material_find("cotton");
	o->sp.shape = 100;
	o->sp.iterations = 256;
	o->sp.step = 0.4;
	o->sp.step_floor = 1e-4;
	o->sp.check_every = 8;
	o->sp.inner = 4;
	o->sp.rho = 0.992;
	o->sp.inner_rho = 0.75;
	o->sp.seam = 1;
	o->sp.pcg_restart = 14;
	o->sp.cheb_delay = 32;
	o->sp.dt = 0.01;
	o->output = "-";
	o->device = "auto";
	o->progress = -1;
}

/* What --dynamic changes of the defaults, unless given: gravity on, the
 * shape term off (a falling cloth is not held to its rest shape); --dt
 * means nothing without it. */
struct dynamic_given { int dt, gravity, shape; };

static void dynamic_defaults(struct solve_params *sp,
			     const struct dynamic_given *given)
{
	if (!sp->dynamic) {
		if (given->dt)
			usage_fail("--dt: only a --dynamic solve has a time step");
		return;
	}
	if (!(sp->mat.density > 0))
		usage_fail("--density: a --dynamic solve needs a mass: %g kg/m2",
			   sp->mat.density);
	if (!given->gravity)
		sp->gravity[2] = -9.81;
	if (!given->shape)
		sp->shape = 0;
}

/* The material's fields given on the command line, NAN when not, applied
 * after the preset whatever the order of the options. */
struct overrides { double stretch, bend, poisson, density; };

static void apply(struct material *m, const struct overrides *v)
{
	if (!isnan(v->stretch)) m->stretch = v->stretch;
	if (!isnan(v->bend)) m->bend = v->bend;
	if (!isnan(v->poisson)) m->poisson = v->poisson;
	if (!isnan(v->density)) m->density = v->density;
}

/* --air and --inflate are two models of one pressure; the stuffing's
 * stiffness means nothing without a stuffing. */
static void check_effects(struct inflate_coef *c, double fill_k)
{
	if (c->air > 0 && c->inflate > 0)
		usage_fail("--air and --inflate are two models of the same "
			   "pressure: give one of them");
	if (!isnan(fill_k) && !(c->fill_depth > 0))
		usage_fail("--fill-stiffness: no stuffing to stiffen: give "
			   "--fill too");
	c->fill_k = (float)(isnan(fill_k) ? 1e6 : fill_k);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	double fill_k = NAN;
	struct overrides v = {NAN, NAN, NAN, NAN};
	struct dynamic_given given = {0, 0, 0};
	const struct material *preset;
	int c;
	defaults(o);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:n:o:qvhV", longopts, NULL)) != -1)
		switch (c) {
		case 'm': o->sp.method = parse_method(optarg); break;
		case 'n': o->sp.iterations = (int)parse_long("--iterations", optarg, 0, 100000000); break;
		case OPT_TOLERANCE: o->sp.tolerance = parse_double("--tolerance", optarg, 0, 1); break;
		case 'o': o->output = optarg; break;
		case OPT_MODEL: o->sp.terms = parse_model(optarg); break;
		case OPT_MATERIAL:
			if (!(preset = material_find(optarg)))
				usage_fail("--material: '%s' is not silk, cotton, "
					   "polyester, wool or denim", optarg);
			o->sp.mat = *preset;
			break;
		case OPT_STRETCH: v.stretch = parse_double("--stretch", optarg, 1e-3, 1e9); break;
		case OPT_BEND: v.bend = parse_double("--bend", optarg, 0, 1); break;
		case OPT_POISSON: v.poisson = parse_double("--poisson", optarg, 0, 0.49); break;
		case OPT_DENSITY: v.density = parse_double("--density", optarg, 0, 100); break;
		case OPT_SHAPE: o->sp.shape = parse_double("--shape", optarg, 0, 1e12); given.shape = 1; break;
		case OPT_DYNAMIC: o->sp.dynamic = 1; break;
		case OPT_DT: o->sp.dt = parse_double("--dt", optarg, 1e-9, 1e3); given.dt = 1; break;
		case OPT_GRAVITY: parse_gravity(optarg, o->sp.gravity); given.gravity = 1; break;
		case OPT_PIN:
			if (o->npins == MAX_PINS)
				usage_fail("--pin: at most %d pins", MAX_PINS);
			parse_pin(optarg, &o->pins[o->npins++]);
			break;
		case OPT_BODY:
			if (o->nbodies == MAX_BODIES)
				usage_fail("--body: at most %d bodies", MAX_BODIES);
			o->body_files[o->nbodies++] = optarg;
			break;
		case OPT_SELF: o->sp.self = 1; break;
		case OPT_SAFE: o->sp.safe = safe_scope_option(optarg); break;
		case OPT_COLLISION_SCALE: o->collision_scale = parse_double("--collision-scale", optarg, 1e-3, 1e6); break;
		case OPT_SEAM: o->sp.seam = parse_double("--seam", optarg, 0, 1e6); break;
		case OPT_STEP: o->sp.step = parse_double("--step", optarg, 1e-3, 2); break;
		case OPT_CHECK: o->sp.check_every = (int)parse_long("--check-every", optarg, 1, 1000000); break;
		case OPT_INNER: o->sp.inner = (int)parse_long("--inner", optarg, 1, 64); break;
		case OPT_RHO:
			o->sp.rho_auto = strcmp(optarg, "auto") == 0;
			if (!o->sp.rho_auto)
				o->sp.rho = parse_double("--rho", optarg, 0, 0.9999);
			break;
		case OPT_INNER_RHO: o->sp.inner_rho = parse_double("--inner-rho", optarg, 0, 0.9999); break;
		case OPT_FAR_BENDING: o->sp.far_start = parse_far_bending(optarg); break;
		case OPT_DEVICE: o->device = optarg; break;
		case OPT_STATS: o->stats = optarg; break;
		case OPT_AIR: o->sp.effects.air = (float)parse_double("--air", optarg, 0, 1e6); break;
		case OPT_INFLATE: o->sp.effects.inflate = (float)parse_double("--inflate", optarg, 0, 1e6); break;
		case OPT_FILL: o->sp.effects.fill_depth = (float)parse_double("--fill", optarg, 1e-6, 1); break;
		case OPT_FILL_K: fill_k = parse_double("--fill-stiffness", optarg, 1e-3, 1e12); break;
		case OPT_PROGRESS: o->progress = 1; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->progress = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("pleat-solve %s\n", PLEAT_VERSION); exit(0);
		default: usage_bad_option(c, argv);
		}
	if (strcmp(o->device, "cpu") && strcmp(o->device, "cuda") &&
	    strcmp(o->device, "auto"))
		usage_fail("--device: '%s' is not cpu, cuda or auto", o->device);
	if (o->sp.method == METHOD_MG && o->sp.safe)
		usage_fail("--safe: bounds the moves of gd, chebyshev, block and "
			   "pcg; the coarse corrections of mg are not bounded");
	if (o->sp.method == METHOD_MG && o->sp.dynamic)
		usage_fail("--method mg: solves quasistatic problems; for a "
			   "--dynamic step use block");
	apply(&o->sp.mat, &v);
	dynamic_defaults(&o->sp, &given);
	check_effects(&o->sp.effects, fill_k);
	o->files = argv + optind;
	o->nfiles = argc - optind;
}

/* Where the per-check records go. */
struct listener {
	FILE *stats;
	const char *name;
	int grid;                /* in its file, from 1 */
	int nth;                 /* in the whole input, from 0 */
};

/* A number for a JSON line: null when not finite (JSON has no inf). */
static void json_number(FILE *f, const char *key, double v)
{
	if (isfinite(v))
		fprintf(f, ", \"%s\": %.9g", key, v);
	else
		fprintf(f, ", \"%s\": null", key);
}

static void on_check(const struct solve_event *ev, void *arg)
{
	const struct listener *l = arg;
	const struct converge *c = ev->conv;
	double rel_res = converge_relative_residual(c);
	if (l->stats) {
		fprintf(l->stats, "{\"grid\": %d, \"iteration\": %d, \"budget\": "
			"%d, ", l->grid, ev->iteration, ev->budget);
		if (ev->cycle)
			fprintf(l->stats, "\"cycle\": %d, ", ev->cycle);
		fprintf(l->stats, "\"energy\": %.17g, \"residual\": %.9g, "
			"\"relative_residual\": %.9g", ev->k.energy, ev->k.residual,
			rel_res);
		json_number(l->stats, "energy_to_gain", c->gap);
		json_number(l->stats, "relative_energy_to_gain", c->rel);
		if (ev->k.violation > 0)
			json_number(l->stats, "violation", ev->k.violation);
		fprintf(l->stats, ", \"step\": %.9g, \"seconds\": %.6f, "
			"\"accepted\": %s}\n", ev->step, ev->seconds,
			ev->accepted ? "true" : "false");
	}
	if (!progress_enabled())
		return;
	/* the rest at the pace so far: the budget's end, which a
	 * tolerance may come before */
	char cyc[32] = "", left[48] = "";
	if (ev->cycle)
		snprintf(cyc, sizeof cyc, " (cycle %d)", ev->cycle);
	if (ev->iteration)
		snprintf(left, sizeof left, ", at most %.1f s left", ev->seconds *
			 (ev->budget - ev->iteration) / ev->iteration);
	progress("%s: grid %d: iteration %d/%d%s: energy %.9g J, residual "
		 "%.3g N (relative %.3g), step %g; %.1f s elapsed%s%s", l->name,
		 l->grid, ev->iteration, ev->budget, cyc, ev->k.energy,
		 ev->k.residual, rel_res, ev->step, ev->seconds, left,
		 ev->accepted ? "" : ": the energy rose, back to the last check");
}

static const char *method_name(enum solve_method m)
{
	return m == METHOD_GD ? "gd" : m == METHOD_CHEBYSHEV ? "chebyshev" :
	       m == METHOD_PCG ? "pcg" : m == METHOD_MG ? "mg" : "block";
}

/* The summary's second line with --body or --self: the seconds of the
 * collision set-up and of the proximity lists' refreshes (included in
 * the iterations' time). */
static void report_collisions(const struct listener *l,
			      const struct problem *p)
{
	if (!p->plane && !p->prox && !p->safe)
		return;
	fprintf(stderr, "%s: %s: grid %d: collisions:", progname, l->name,
		l->grid);
	if (p->plane)
		fprintf(stderr, " body half-planes %.3f s%s", p->body_setup_seconds,
			p->prox ? ";" : "");
	if (p->prox)
		fprintf(stderr, " self set-up %.3f s, list refreshes %.3f s, %zu "
			"long-range block pairs at the set-up",
			p->self_setup_seconds, p->self_refresh_seconds,
			p->prox->stats.long_pairs);
	if (p->safe)
		fprintf(stderr, "%s safe%s: %zu bound updates %.3f s, %zu moves "
			"held back, %zu triangles of the seams' strip",
			p->plane || p->prox ? ";" : "",
			p->safe->band ? " (seams)" : "", p->safe->stats.updates,
			p->safe->stats.seconds,
			p->safe->stats.clamped, p->safe->stats.strip);
	if (p->safe && p->safe->stats.local)
		fprintf(stderr, ", %zu of them of some vertices only (%zu "
			"measured)", p->safe->stats.local,
			p->safe->stats.remeasured);
	if (p->safe && p->safe->stats.tangles_start)
		fprintf(stderr, "; %zu intersecting triangle pairs at the start "
			"left free to come apart, %zu at the last search",
			p->safe->stats.tangles_start, p->safe->stats.tangles);
	fputc('\n', stderr);
}

/* The tolerance the verdict judges by when --tolerance is not given. */
#define VERDICT_TOLERANCE 1e-3

/* The summary's verdict line: converged to a stated tolerance, or what
 * is left and what to do about it. */
static void report_verdict(const struct options *o, const struct listener *l,
			   const struct solve_result *r)
{
	const struct converge *c = &r->conv;
	double tol = o->sp.tolerance > 0 ? o->sp.tolerance : VERDICT_TOLERANCE;
	fprintf(stderr, "%s: %s: grid %d: ", progname, l->name, l->grid);
	if (r->stop == STOP_TOLERANCE) {
		fprintf(stderr, "converged to --tolerance %g at iteration %d: "
			"about %.3g J (%.3g of the gain so far) left to gain\n",
			tol, r->iterations, c->gap, c->rel);
		return;
	}
	if (c->rel <= tol) {
		fprintf(stderr, "converged to %g (the budget of %d iterations "
			"ran out): about %.3g J (%.3g of the gain so far) left to "
			"gain\n", tol, o->sp.iterations, c->gap, c->rel);
		return;
	}
	fprintf(stderr, "not converged to %g: ", tol);
	if (isfinite(c->gap))
		fprintf(stderr, "energy still falling, about %.3g J (%.3g of "
			"the gain so far) left to gain", c->gap, c->rel);
	else
		fprintf(stderr, "energy still falling, its rate not yet settled");
	fprintf(stderr, "; try more iterations or a coarser start\n");
}

static void report(const struct options *o, const char *gpu,
		   const struct listener *l, const struct problem *p,
		   const struct solve_result *r)
{
	if (o->quiet)
		return;
	double ms = r->iterations ? 1e3 * r->seconds / r->iterations : 0;
	fprintf(stderr, "%s: %s: grid %d: %d x %d, %zu cloth vertices (%zu "
		"free); %s, %d iterations", progname, l->name, l->grid,
		p->w, p->h, p->ninside, p->nfree, method_name(o->sp.method),
		r->iterations);
	if (r->cycles)
		fprintf(stderr, " in %d cycles", r->cycles);
	fprintf(stderr, ", %.3f s: energy %.9g J, residual %.3g N (relative "
		"%.3g), %.3f ms/iteration ", r->seconds, r->k.energy,
		r->k.residual, converge_relative_residual(&r->conv), ms);
	if (gpu)
		fprintf(stderr, "on %s", gpu);
	else
		fprintf(stderr, "on %d threads", omp_get_max_threads());
	if (o->sp.rho_auto && method_has_radius(o->sp.method))
		fprintf(stderr, ", rho %.6g (auto%s)", r->rho,
			r->rho_falls ? ", lowered as the energy rose" : "");
	if (r->halvings && r->cycles)
		fprintf(stderr, ", %d coarse corrections halved or dropped "
			"(the energy rose)", r->halvings);
	else if (r->halvings)
		fprintf(stderr, ", %d step halvings (step %g)", r->halvings,
			r->step);
	fputc('\n', stderr);
	report_verdict(o, l, r);
	report_collisions(l, p);
}

/* The collision constants of grid g: --collision-scale times the
 * paper's, or those of its cell (collide_params_for_cell). */
static void collision_params(const struct options *o, const struct grid *g,
			     double stiffness, struct collide_params *cp)
{
	if (o->collision_scale > 0)
		collide_params_init(cp, o->collision_scale, stiffness);
	else
		collide_params_for_cell(cp, g->cell, stiffness);
}

/* Self collision, its stiffness the stretch stiffness: a pair at
 * distance 0 pushes as hard as a cell stretched by R. */
static void attach_self(const struct options *o, const struct listener *l,
			struct problem *p, const struct grid *g)
{
	struct collide_params cp;
	struct error e;
	collision_params(o, g, o->sp.mat.stretch, &cp);
	double t0 = now_seconds();
	if (problem_set_self(p, g, &cp, &e))
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	p->self_setup_seconds = now_seconds() - t0;
}

/* The grid's body: the k-th --body for the k-th grid of the input (all
 * files together), or the only one for all of them. */
static void attach_body(const struct options *o, const struct listener *l,
			struct problem *p, const struct grid *g)
{
	int k = o->nbodies == 1 ? 0 : l->nth;
	if (k >= o->nbodies)
		die("%s: grid %d: no body for it: it is grid %d of the input, "
		    "and %d --body were given", l->name, l->grid, l->nth + 1,
		    o->nbodies);
	struct collide_params cp;
	collision_params(o, g, 0, &cp);
	double t0 = now_seconds();
	problem_set_body(p, &o->bodies[k], grid_find(g, "mask")->data,
			 cp.offset, cp.reach, o->sp.safe != SAFE_ALL);
	p->body_setup_seconds = now_seconds() - t0;
	if (!o->quiet && p->contact.inside)
		warnx("%s: grid %d: %zu cloth vertices started inside %s (deepest "
		      "%.3g mm): pushed out", l->name, l->grid, p->contact.inside,
		      o->body_files[k], 1e3 * p->contact.deepest);
}

static void solve_grid(const struct options *o, struct listener *l,
		       struct grid *g)
{
	struct problem p;
	struct solve_result r;
	struct error e;
	if (pins_apply(g, o->pins, o->npins, &e))
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	if (problem_init(&p, g, &o->sp, &e))
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	if (p.seams.nopen)
		warnx("%s: grid %d: %zu seam vertices have no cloth at their "
		      "partner point and stay open", l->name, l->grid,
		      p.seams.nopen);
	if (o->nbodies)
		attach_body(o, l, &p, g);
	if (o->sp.self)
		attach_self(o, l, &p, g);
	if (o->sp.safe && problem_set_safe(&p, g, o->sp.safe == SAFE_SEAMS ?
					   SAFE_SEAM_BAND : 0, &e))
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	if (o->sp.safe == SAFE_SEAMS && p.safe->ntri == 0)
		warnx("%s: grid %d: " SAFE_NO_SEAMS, l->name, l->grid);
	struct solve_device dev = {0};
	const char *gpu = o->gpu;
	if (device_open(gpu, &p, &o->sp, &dev, &e))
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	int bad = o->sp.method == METHOD_MG ?
		multigrid_run(&p, g, &o->sp, gpu ? &dev : NULL, on_check, l, &r,
			      &e) :
		solve_run(&p, &o->sp, gpu ? &dev : NULL, on_check, l, &r, &e);
	if (bad)
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	if (device_close(&dev, &e))
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	struct grid_channel *x = grid_add(g, "x", GRID_F32, 3, &e);
	if (!x)
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	memcpy(x->data, p.x, p.n * 3 * sizeof(float));
	if (p.seams.nlinks)
		seam_join_twins(g, p.mov, x->data);
	if (dynamic_store(&p, g, &e))
		die("%s: grid %d: %s", l->name, l->grid, e.msg);
	report(o, gpu, l, &p, &r);
	if (o->sp.dynamic)
		dynamic_report(&p, &r.k, l->stats, l->name, l->grid, o->quiet);
	problem_free(&p);
}

/* Solves the grids of one input; *nth counts the grids of all inputs. */
struct solve_args {
	const struct options *o;
	struct listener l;
	FILE *out;
	int *nth;
};

static void solve_visit(struct grid *g, int index, void *arg)
{
	struct solve_args *a = arg;
	struct error e;
	a->l.grid = index;
	a->l.nth = (*a->nth)++;
	solve_grid(a->o, &a->l, g);
	if (grid_write(g, a->out, a->o->output, &e))
		die("%s", e.msg);
}

static void solve_stream(const struct options *o, FILE *in, const char *name,
			 FILE *out, FILE *stats, int *nth)
{
	struct error e;
	struct solve_args a = {o, {stats, name, 0, 0}, out, nth};
	if (grid_each(in, name, solve_visit, &a, &e) < 0)
		die("%s", e.msg);
}

int main(int argc, char **argv)
{
	struct options o;
	struct outfile out;
	struct error e;
	FILE *stats = NULL;
	char *stdin_name[] = {"-"};
	int nth = 0;
	progname = "pleat-solve";
	parse_options(argc, argv, &o);
	progress_init(o.progress);
	o.gpu = device_choose(o.device, o.quiet);
	char **files = o.nfiles ? o.files : stdin_name;
	int nfiles = o.nfiles ? o.nfiles : 1;
	FILE **in = open_input_files(files, nfiles);
	for (int k = 0; k < o.nbodies; k++) {
		if (body_load(&o.bodies[k], o.body_files[k], &e))
			die("%s", e.msg);
		body_warn_open(&o.bodies[k], o.body_files[k]);
	}
	if (o.stats && !(stats = fopen(o.stats, "w")))
		die("cannot open %s: %s", o.stats, strerror(errno));
	if (outfile_open(&out, o.output, 1, &e))
		die("%s", e.msg);
	for (int k = 0; k < nfiles; k++) {
		solve_stream(&o, in[k], files[k], out.f, stats, &nth);
		if (in[k] != stdin)
			fclose(in[k]);
	}
	free(in);
	for (int k = 0; k < o.nbodies; k++)
		body_free(&o.bodies[k]);
	if (stats && fclose(stats) == EOF)
		die("write error on %s", o.stats);
	if (outfile_close(&out, &e))
		die("%s", e.msg);
	return 0;
}

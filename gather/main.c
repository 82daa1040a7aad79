/* pleat-gather - make or edit the gathering tensor field of grids.
 *
 * Reads grids and writes each with its gather channel (gather.h) set:
 * the channel as it was (the identity where there was none), times the
 * patterns of the options, applied in the order they are given. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "gather.h"
#include "grid.h"
#include "outfile.h"
#include "progress.h"

static const char usage_text[] =
"usage: pleat-gather [--set sxx,sxy,syy]\n"
"                    [--shirr angle,offset,width,factor[,edge]]\n"
"                    [--quilt period,line,factor[,angle]] [--strokes file]\n"
"                    [--perturb amount[,size]] [--seed n]\n"
"                    [--stretch-scale[=part]] [-o file] [-q] [-v]\n"
"                    [--progress] [file ...]\n"
"\n"
"Make or edit the gathering tensor field (the gather channel) of each grid:\n"
"the field it has (or the identity) times each option's pattern, in the\n"
"order given.  Lengths are metres in pattern space, angles degrees from\n"
"the u axis, factors scale the fabric's rest length.\n"
"\n"
"      --set T          the field becomes the tensor sxx,sxy,syy everywhere\n"
"      --shirr A,O,W,F[,E]  a band along direction A at offset O across it\n"
"                       (its centre line is the points p with\n"
"                       (-sin A, cos A).p = O), W wide: the fabric shrinks\n"
"                       by F along A; edges smooth over E (default W/4)\n"
"      --quilt P,L,F[,A]  diamond quilting: stitch lines at +A and -A\n"
"                       (default 45), P apart, L wide, where the fabric\n"
"                       shrinks by F in every direction\n"
"      --strokes FILE   sketched strokes: a line \"u0 v0 u1 v1 s_along\n"
"                       s_across radius\" per segment, blended by distance\n"
"      --perturb M[,S]  smooth random perturbation: the field to the power\n"
"                       1 + M n, n noise in [-1, 1] with features S metres\n"
"                       wide (default 0.02)\n"
"      --seed N         the perturbation's seed (default 1)\n"
"      --stretch-scale[=P]  times the stretch the coarse input (the rest\n"
"                       channel) already has over the pattern: P all\n"
"                       (default) or tension: its stretched directions\n"
"                       only, so that compression still wrinkles\n"
"  -o, --output FILE    write to FILE instead of standard output\n"
"  -q, --quiet          no summary line per grid on standard error\n"
"  -v, --verbose        also the seconds each grid took\n"
"      --progress       a line on standard error as each grid is read\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"With no file, or when file is -, read standard input.\n"
"See pleat-gather(1) and pleat-grid(5).\n";

#define MAX_OPS 256
#define MAX_FACTOR 100.0
#define DEG (3.14159265358979323846 / 180)

struct options {
	struct gather_op op[MAX_OPS];
	int nops;
	uint64_t seed;
	const char *output;
	int quiet, verbose, progress;
	char **files;
	int nfiles;
};

enum { OPT_SET = 256, OPT_SHIRR, OPT_QUILT, OPT_STROKES, OPT_PERTURB,
       OPT_SEED, OPT_STRETCH, OPT_PROGRESS };

static const struct option longopts[] = {
	{"set", required_argument, NULL, OPT_SET},
	{"shirr", required_argument, NULL, OPT_SHIRR},
	{"quilt", required_argument, NULL, OPT_QUILT},
	{"strokes", required_argument, NULL, OPT_STROKES},
	{"perturb", required_argument, NULL, OPT_PERTURB},
	{"seed", required_argument, NULL, OPT_SEED},
	{"stretch-scale", optional_argument, NULL, OPT_STRETCH},
	{"output", required_argument, NULL, 'o'},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* Splits "a,b,c" into at least min and at most max numbers; a usage
 * error naming the option otherwise.  Returns the count. */
static int parse_list(const char *opt, const char *arg, int min, int max,
		      double *val)
{
	char buf[256], *save = NULL;
	int n = 0;
	if (strlen(arg) >= sizeof buf)
		usage_fail("%s: '%.40s...' is too long", opt, arg);
	strcpy(buf, arg);
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			usage_fail("%s: '%s' has more than %d values", opt, arg,
				   max);
		val[n++] = parse_double(opt, tok, -HUGE_VAL, HUGE_VAL);
	}
	if (n < min)
		usage_fail("%s: '%s' has %d values, expected %d%s", opt, arg, n,
			   min, max > min ? " or more" : "");
	return n;
}

/* A scale factor: positive, at most MAX_FACTOR. */
static double factor(const char *opt, const char *what, double f)
{
	if (!(f > 0) || f > MAX_FACTOR)
		usage_fail("%s: the %s %g is not in (0, %g]", opt, what, f,
			   MAX_FACTOR);
	return f;
}

static double positive(const char *opt, const char *what, double x)
{
	if (!(x > 0))
		usage_fail("%s: the %s %g is not positive", opt, what, x);
	return x;
}

static struct gather_op *new_op(struct options *o, enum gather_op_kind k)
{
	if (o->nops == MAX_OPS)
		usage_fail("at most %d patterns", MAX_OPS);
	struct gather_op *op = &o->op[o->nops++];
	memset(op, 0, sizeof *op);
	op->kind = k;
	return op;
}

static void parse_set(struct options *o, const char *arg)
{
	double t[3];
	parse_list("--set", arg, 3, 3, t);
	const char *why = gather_tensor_fault(t[0], t[1], t[2]);
	if (why)
		usage_fail("--set: %s is %s", arg, why);
	new_op(o, OP_SET)->set = (struct sym2){t[0], t[1], t[2]};
}

static void parse_shirr(struct options *o, const char *arg)
{
	double a[5];
	int n = parse_list("--shirr", arg, 4, 5, a);
	struct gather_op *op = new_op(o, OP_SHIRR);
	op->angle = a[0] * DEG;
	op->offset = a[1];
	op->width = positive("--shirr", "width", a[2]);
	op->factor = factor("--shirr", "factor", a[3]);
	op->edge = n == 5 ? a[4] : op->width / 4;
	if (!(op->edge >= 0 && op->edge <= op->width))
		usage_fail("--shirr: the edge %g is not in [0, width %g]",
			   op->edge, op->width);
}

static void parse_quilt(struct options *o, const char *arg)
{
	double a[4];
	int n = parse_list("--quilt", arg, 3, 4, a);
	struct gather_op *op = new_op(o, OP_QUILT);
	op->period = positive("--quilt", "period", a[0]);
	op->line = positive("--quilt", "line width", a[1]);
	op->factor = factor("--quilt", "factor", a[2]);
	op->angle = (n == 4 ? a[3] : 45) * DEG;
	if (op->line > op->period)
		usage_fail("--quilt: the line width %g is wider than the "
			   "period %g", op->line, op->period);
}

static void parse_perturb(struct options *o, const char *arg)
{
	double a[2];
	int n = parse_list("--perturb", arg, 1, 2, a);
	struct gather_op *op = new_op(o, OP_PERTURB);
	op->amount = a[0];
	if (!(op->amount >= 0 && op->amount <= 1))
		usage_fail("--perturb: the amount %g is not in [0, 1]", a[0]);
	op->size = n == 2 ? positive("--perturb", "feature size", a[1]) : 0.02;
}

static void parse_strokes(struct options *o, const char *path)
{
	struct gather_op *op = new_op(o, OP_STROKES);
	struct stroke *s;
	struct error e;
	if (strokes_read(path, &s, &op->nstrokes, &e))
		die("%s", e.msg);
	op->strokes = s;
}

/* --stretch-scale[=all|tension] */
static void parse_stretch(struct options *o, const char *arg)
{
	int tension = arg && strcmp(arg, "tension") == 0;
	if (arg && !tension && strcmp(arg, "all") != 0)
		usage_fail("--stretch-scale: '%s' is not all or tension", arg);
	new_op(o, OP_STRETCH)->tension = tension;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->output = "-";
	o->progress = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qvhV", longopts, NULL)) != -1)
		switch (c) {
		case OPT_SET: parse_set(o, optarg); break;
		case OPT_SHIRR: parse_shirr(o, optarg); break;
		case OPT_QUILT: parse_quilt(o, optarg); break;
		case OPT_STROKES: parse_strokes(o, optarg); break;
		case OPT_PERTURB: parse_perturb(o, optarg); break;
		case OPT_SEED: o->seed = (uint64_t)parse_long("--seed", optarg, 0, 2147483647L); break;
		case OPT_STRETCH: parse_stretch(o, optarg); break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case OPT_PROGRESS: o->progress = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("pleat-gather %s\n", PLEAT_VERSION); exit(0);
		default: usage_bad_option(c, argv);
		}
	for (int k = 0; k < o->nops; k++)
		o->op[k].seed = o->seed;
	o->files = argv + optind;
	o->nfiles = argc - optind;
}

/* The grid's field: its gather channel, checked, or a new one holding
 * the identity. */
static float *field_of(struct grid *g, const char *where)
{
	struct error e;
	const float *old;
	if (gather_channel(g, &old, &e))
		die("%s: %s", where, e.msg);
	int fresh = !grid_find(g, GATHER_CHANNEL);
	struct grid_channel *c = grid_add(g, GATHER_CHANNEL, GRID_F32, 3, &e);
	if (!c)
		die("%s: %s", where, e.msg);
	float *f = c->data;
	if (fresh)
		for (size_t v = 0; v < grid_vertices(g); v++) {
			f[3 * v] = 1;
			f[3 * v + 1] = 0;
			f[3 * v + 2] = 1;
		}
	return f;
}

/* The line per grid: how far the field scales the fabric (the extreme
 * eigenvalues of the tensors over the cloth) and where it differs from
 * the identity. */
static void summary(const struct grid *g, const float *f, const char *where)
{
	const struct grid_channel *mc = grid_find_typed(g, "mask", GRID_U8, 1);
	const uint8_t *mask = mc ? mc->data : NULL;
	double lo = HUGE_VAL, hi = -HUGE_VAL;
	size_t cloth = 0, gathered = 0;
	for (size_t v = 0; v < grid_vertices(g); v++) {
		if (mask && (mask[v] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE)
			continue;
		double a = f[3 * v], b = f[3 * v + 1], c = f[3 * v + 2];
		double mid = 0.5 * (a + c), r = hypot(0.5 * (a - c), b);
		lo = fmin(lo, mid - r);
		hi = fmax(hi, mid + r);
		cloth++;
		gathered += a != 1 || b != 0 || c != 1;
	}
	if (!cloth)
		lo = hi = 1;
	fprintf(stderr, "%s: %s: rest lengths scaled by %.4g to %.4g; %zu of "
		"%zu cloth vertices gathered\n", progname, where, lo, hi,
		gathered, cloth);
}

static void gather_grid(const struct options *o, struct grid *g,
			const char *where)
{
	struct error e;
	const float *check;
	double t0 = now_seconds();
	progress("%s read", where);
	float *f = field_of(g, where);
	for (int k = 0; k < o->nops; k++)
		if (gather_apply(g, &o->op[k], f, &e))
			die("%s: %s", where, e.msg);
	/* the product of positive definite tensors is one, but float
	 * can still over- or underflow in a long chain */
	if (gather_channel(g, &check, &e))
		die("%s: the result: %s", where, e.msg);
	if (!o->quiet)
		summary(g, check, where);
	if (o->verbose)
		fprintf(stderr, "%s: %s: %.3f s\n", progname, where,
			now_seconds() - t0);
}

struct gather_args {
	const struct options *o;
	const char *name;
	FILE *out;
};

static void gather_visit(struct grid *g, int index, void *arg)
{
	const struct gather_args *a = arg;
	struct error e;
	char where[600];
	snprintf(where, sizeof where, "%s: grid %d", a->name, index);
	gather_grid(a->o, g, where);
	if (grid_write(g, a->out, a->o->output, &e))
		die("%s", e.msg);
}

static void gather_stream(const struct options *o, FILE *in,
			  const char *name, FILE *out)
{
	struct error e;
	struct gather_args a = {o, name, out};
	if (grid_each(in, name, gather_visit, &a, &e) < 0)
		die("%s", e.msg);
}

int main(int argc, char **argv)
{
	struct options o;
	struct outfile out;
	struct error e;
	char *stdin_name[] = {"-"};
	progname = "pleat-gather";
	parse_options(argc, argv, &o);
	progress_init(o.progress);
	char **files = o.nfiles ? o.files : stdin_name;
	int nfiles = o.nfiles ? o.nfiles : 1;
	FILE **in = open_input_files(files, nfiles);
	if (outfile_open(&out, o.output, 1, &e))
		die("%s", e.msg);
	for (int k = 0; k < nfiles; k++) {
		gather_stream(&o, in[k], files[k], out.f);
		if (in[k] != stdin)
			fclose(in[k]);
	}
	free(in);
	if (outfile_close(&out, &e))
		die("%s", e.msg);
	for (int k = 0; k < o.nops; k++)
		free((void *)o.op[k].strokes);
	return 0;
}

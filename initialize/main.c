/* pleat-initialize - the starting guess x(0) of a solve, and the flicker
 * measure.
 *
 * --upsample COARSE: the solved coarser level's wrinkles on each grid.
 * --transfer PREV:   the previous frame's wrinkles, carried in local
 *                    frames of the coarse surface.
 * --flicker:         how much the wrinkles change between consecutive
 *                    results, the coarse motion taken out. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "initialize.h"
#include "outfile.h"
#include "progress.h"
#include "safe.h"

static const char usage_text[] =
"usage: pleat-initialize -u coarse [--safe[=scope]] [-o file] [-q] [-v]\n"
"                        [--progress] [file ...]\n"
"       pleat-initialize -t prev [--cold-start] [--untangle n]\n"
"                        [--collision-scale s] [-o file] [-q] [-v]\n"
"                        [--progress] [file ...]\n"
"       pleat-initialize --flicker [-o file] [-q] [-v] [--progress]\n"
"                        [file ...]\n"
"\n"
"Set the x channel of each grid to a starting guess for pleat-solve: the\n"
"wrinkles of a solved coarser level or of the previous frame's result.\n"
"Or measure how much the wrinkles change between consecutive results.\n"
"\n"
"  -u, --upsample FILE  the solved grid of the next coarser level (twice\n"
"                       the cell, same pattern): its wrinkles, x - rest,\n"
"                       interpolated within each panel\n"
"      --safe[=SCOPE]   with --upsample: reach the upsampled positions\n"
"                       from rest with pleat-solve --safe's bounds, so\n"
"                       that the start has no intersection the rest\n"
"                       lacks; SCOPE all (default) or seams: only within\n"
"                       6 cells of a seam\n"
"  -t, --transfer FILE  the previous frame's result (same pattern and\n"
"                       layout): its wrinkles carried in the local frames\n"
"                       of the coarse surface onto this frame's\n"
"      --cold-start     with --transfer: when FILE does not exist or does\n"
"                       not fit, start from x = rest with a note instead\n"
"                       of an error\n"
"      --untangle N     with --transfer: N iterations that remove the\n"
"                       self-intersections the transfer made, moving from\n"
"                       rest towards the wrinkles (default 16; 0: off)\n"
"      --collision-scale S  with --transfer: collision lengths over the\n"
"                       paper's (0.4 mm apart); default: cell / 0.5 mm, at\n"
"                       least 1, and R at least 1.2 cells, as pleat-solve\n"
"      --flicker        compare each result with the one before it in the\n"
"                       input: one line per pair on standard output,\n"
"                       from=K to=K+1 vertices=N mean=M max=X at=I,J (metres)\n"
"  -o, --output FILE    write to FILE instead of standard output\n"
"  -q, --quiet          no summary line per grid on standard error\n"
"  -v, --verbose        also the seconds each grid took (--upsample,\n"
"                       --transfer)\n"
"      --progress       a line on standard error as each grid is read\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"With no file, or when file is -, read standard input.\n"
"See pleat-initialize(1) and pleat-grid(5).\n";

enum mode { MODE_NONE, MODE_UPSAMPLE, MODE_TRANSFER, MODE_FLICKER };

struct options {
	enum mode mode;
	const char *source;      /* COARSE or PREV */
	int cold_start;
	int safe;                /* --safe: SAFE_ALL or SAFE_SEAMS; 0: off */
	int untangle;            /* iterations, -1 when not given */
	double collision_scale;  /* 0 when not given: from the cell */
	const char *output;
	int quiet, verbose, progress;
	char **files;
	int nfiles;
};

enum { OPT_COLD_START = 256, OPT_UNTANGLE, OPT_COLLISION_SCALE, OPT_FLICKER,
       OPT_PROGRESS, OPT_SAFE };

static void set_mode(struct options *o, enum mode m)
{
	if (o->mode != MODE_NONE && o->mode != m)
		usage_fail("--upsample, --transfer and --flicker exclude each "
			   "other");
	o->mode = m;
}

static const struct option longopts[] = {
	{"upsample", required_argument, NULL, 'u'},
	{"transfer", required_argument, NULL, 't'},
	{"cold-start", no_argument, NULL, OPT_COLD_START},
	{"safe", optional_argument, NULL, OPT_SAFE},
	{"untangle", required_argument, NULL, OPT_UNTANGLE},
	{"collision-scale", required_argument, NULL, OPT_COLLISION_SCALE},
	{"flicker", no_argument, NULL, OPT_FLICKER},
	{"output", required_argument, NULL, 'o'},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;
	memset(o, 0, sizeof *o);
	o->output = "-";
	o->untangle = -1;
	o->progress = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":u:t:o:qvhV", longopts, NULL)) != -1)
		switch (c) {
		case 'u': set_mode(o, MODE_UPSAMPLE); o->source = optarg; break;
		case 't': set_mode(o, MODE_TRANSFER); o->source = optarg; break;
		case OPT_COLD_START: o->cold_start = 1; break;
		case OPT_SAFE: o->safe = safe_scope_option(optarg); break;
		case OPT_UNTANGLE: o->untangle = (int)parse_long("--untangle", optarg, 0, 100000); break;
		case OPT_COLLISION_SCALE: o->collision_scale = parse_double("--collision-scale", optarg, 1e-3, 1e6); break;
		case OPT_FLICKER: set_mode(o, MODE_FLICKER); break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case OPT_PROGRESS: o->progress = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("pleat-initialize %s\n", PLEAT_VERSION); exit(0);
		default: usage_bad_option(c, argv);
		}
	if (o->mode == MODE_NONE)
		usage_fail("give one of --upsample, --transfer or --flicker");
	if (o->cold_start && o->mode != MODE_TRANSFER)
		usage_fail("--cold-start goes with --transfer");
	if (o->safe && o->mode != MODE_UPSAMPLE)
		usage_fail("--safe goes with --upsample");
	if (o->untangle >= 0 && o->mode != MODE_TRANSFER)
		usage_fail("--untangle goes with --transfer");
	if (o->collision_scale > 0 && o->mode != MODE_TRANSFER)
		usage_fail("--collision-scale goes with --transfer");
	if (o->untangle < 0)
		o->untangle = UNTANGLE_ITERATIONS;
	if (o->source && !*o->source)
		usage_fail("%s: the file name is empty", o->mode == MODE_UPSAMPLE ?
			   "--upsample" : "--transfer");
	o->files = argv + optind;
	o->nfiles = argc - optind;
}

/* The grid the mode draws from (COARSE or PREV), loaded once.  Returns
 * 0, or -1 for a cold start: --cold-start and no such file. */
static int load_source(const struct options *o, struct grid *src)
{
	struct error e;
	struct stat st;
	if (o->cold_start && stat(o->source, &st) != 0 && errno == ENOENT) {
		fprintf(stderr, "%s: %s does not exist: cold start, x = rest\n",
			progname, o->source);
		return -1;
	}
	if (grid_load(o->source, src, &e))
		die("%s", e.msg);
	return 0;
}

/* One grid of the input and where it came from, for messages. */
struct item {
	struct grid g;
	const char *name;
	int index;
};

static void do_upsample(const struct options *o, struct item *it,
			const struct grid *coarse)
{
	struct upsample_counts n;
	struct error e;
	const float *cx = solved_x(coarse, o->source, &e);
	struct approach_stats a;
	if (!cx || upsample_nests(&it->g, coarse, o->source, &e) ||
	    upsample(&it->g, coarse, cx, &n, &e) ||
	    (o->safe && approach(&it->g, grid_find(&it->g, "x")->data,
				 o->safe, &a, &e)))
		die("%s: grid %d: %s", it->name, it->index, e.msg);
	if (o->safe && a.no_seams)
		warnx("%s: grid %d: " SAFE_NO_SEAMS, it->name, it->index);
	if (o->quiet)
		return;
	fprintf(stderr, "%s: %s: grid %d: wrinkles of %s upsampled onto "
		"%zu cloth vertices: %zu bilinear, %zu fitted near a "
		"boundary, %zu averaged, %zu of those across a seam, %zu "
		"with no coarse vertex of their panel near (x = rest)\n",
		progname, it->name, it->index, o->source, n.bilinear +
		n.fitted + n.averaged + n.none, n.bilinear, n.fitted,
		n.averaged, n.seamed, n.none);
	if (!o->safe)
		return;
	char tangles[96] = "";
	if (a.tangles)
		snprintf(tangles, sizeof tangles, "; the rest has %zu "
			 "intersecting triangle pairs, and so has the start",
			 a.tangles);
	fprintf(stderr, "%s: %s: grid %d: safe%s: reached from rest in %d "
		"bound updates; %zu vertices held short, by %.3g m in all "
		"(of %.3g m)%s\n", progname, it->name, it->index,
		o->safe == SAFE_SEAMS ? " (seams)" : "", a.rounds, a.away,
		a.left, a.start, tangles);
}

static void cold(struct item *it, struct error *e)
{
	if (!x_at_rest(&it->g, e))
		die("%s: grid %d: %s", it->name, it->index, e->msg);
}

static void do_transfer(const struct options *o, struct item *it,
			const struct grid *prev)
{
	struct error e;
	size_t plain;
	if (!prev) {
		cold(it, &e);
		return;
	}
	const float *px = solved_x(prev, o->source, &e);
	if (!px || same_layout(&it->g, prev, o->source, &e)) {
		if (!o->cold_start)
			die("%s: grid %d: %s", it->name, it->index, e.msg);
		fprintf(stderr, "%s: %s: grid %d: cold start, x = rest: %s\n",
			progname, it->name, it->index, e.msg);
		cold(it, &e);
		return;
	}
	if (transfer(&it->g, prev, px, &plain, &e) ||
	    untangle(&it->g, grid_find(&it->g, "x")->data, o->untangle,
		     o->collision_scale, &e))
		die("%s: grid %d: %s", it->name, it->index, e.msg);
	if (!o->quiet)
		fprintf(stderr, "%s: %s: grid %d: wrinkles of %s carried in "
			"local frames (%zu vertices without a frame: as plain "
			"differences), %d untangling iterations\n", progname,
			it->name, it->index, o->source, plain, o->untangle);
}

/* Upsample or transfer every grid of every input. */
static void initialize_all(const struct options *o, FILE **in, char **files,
			   int nfiles)
{
	struct grid src;
	struct outfile out;
	struct error e;
	int have = load_source(o, &src) == 0;
	if (outfile_open(&out, o->output, 1, &e))
		die("%s", e.msg);
	for (int k = 0; k < nfiles; k++) {
		struct grid_reader r = {.f = in[k], .name = files[k]};
		struct item it = {.name = files[k]};
		int res;
		while ((res = grid_read(&r, &it.g, &e)) == 1) {
			double t0 = now_seconds();
			it.index = r.index;
			progress("%s: grid %d read: %s", it.name, it.index,
				 o->mode == MODE_UPSAMPLE ? "upsampling" :
				 "transferring");
			if (o->mode == MODE_UPSAMPLE)
				do_upsample(o, &it, &src);
			else
				do_transfer(o, &it, have ? &src : NULL);
			if (o->verbose)
				fprintf(stderr, "%s: %s: grid %d: %.3f s\n",
					progname, it.name, it.index,
					now_seconds() - t0);
			if (grid_write(&it.g, out.f, o->output, &e))
				die("%s", e.msg);
			grid_free(&it.g);
		}
		if (res == 0 && r.index == 0)
			grid_error_empty(files[k], &e);
		if (res < 0 || r.index == 0)
			die("%s", e.msg);
	}
	if (outfile_close(&out, &e))
		die("%s", e.msg);
	if (have)
		grid_free(&src);
}

/* Compares b with a, the result before it, and reports. */
static void flicker_pair(const struct options *o, FILE *out, int seq,
			 const struct item *a, const struct item *b)
{
	struct flicker f;
	struct error e;
	const float *xa = solved_x(&a->g, a->name, &e), *xb = NULL;
	if (!xa || !(xb = solved_x(&b->g, b->name, &e)) ||
	    same_layout(&b->g, &a->g, a->name, &e) ||
	    flicker_measure(&a->g, xa, &b->g, xb, &f, &e))
		die("%s: grid %d: %s", b->name, b->index, e.msg);
	fprintf(out, "from=%d to=%d vertices=%zu mean=%.9g max=%.9g at=%d,%d\n",
		seq - 1, seq, f.vertices, f.mean, f.max, f.max_i, f.max_j);
	if (!o->quiet)
		fprintf(stderr, "%s: %s: grid %d against %s: grid %d: wrinkle "
			"change mean %.3g mm, max %.3g mm at vertex (%d, %d), "
			"over %zu cloth vertices (%zu without a frame)\n",
			progname, b->name, b->index, a->name, a->index,
			f.mean * 1e3, f.max * 1e3, f.max_i, f.max_j,
			f.vertices, f.plain);
}

/* Every consecutive pair of results, across the inputs in order. */
static void flicker_all(const struct options *o, FILE **in, char **files,
			int nfiles)
{
	struct outfile out;
	struct error e;
	struct item it[2];
	int seq = 0;
	if (outfile_open(&out, o->output, 0, &e))
		die("%s", e.msg);
	for (int k = 0; k < nfiles; k++) {
		struct grid_reader r = {.f = in[k], .name = files[k]};
		int res;
		while ((res = grid_read(&r, &it[seq % 2].g, &e)) == 1) {
			struct item *cur = &it[seq % 2], *prev = &it[(seq + 1) % 2];
			cur->name = files[k];
			cur->index = r.index;
			progress("%s: grid %d read", cur->name, cur->index);
			if (seq > 0) {
				flicker_pair(o, out.f, seq, prev, cur);
				grid_free(&prev->g);
			}
			seq++;
		}
		if (res == 0 && r.index == 0)
			grid_error_empty(files[k], &e);
		if (res < 0 || r.index == 0)
			die("%s", e.msg);
	}
	if (seq < 2)
		die("--flicker needs two results or more, consecutive frames, "
		    "and the input holds %d", seq);
	grid_free(&it[(seq - 1) % 2].g);
	if (outfile_close(&out, &e))
		die("%s", e.msg);
}

int main(int argc, char **argv)
{
	struct options o;
	char *stdin_name[] = {"-"};
	progname = "pleat-initialize";
	parse_options(argc, argv, &o);
	progress_init(o.progress);
	char **files = o.nfiles ? o.files : stdin_name;
	int nfiles = o.nfiles ? o.nfiles : 1;
	FILE **in = open_input_files(files, nfiles);
	if (o.mode == MODE_FLICKER)
		flicker_all(&o, in, files, nfiles);
	else
		initialize_all(&o, in, files, nfiles);
	for (int k = 0; k < nfiles; k++)
		if (in[k] != stdin)
			fclose(in[k]);
	free(in);
	return 0;
}

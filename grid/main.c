/* pleat-grid - look into grid streams, check them, and pass them on.
 *
 *   info   the header of each grid and per-channel ranges
 *   check  read every grid, verify checksums, print nothing on success
 *   cat    copy grids to the output, optionally dropping channels
 *   dump   print channels as text, one vertex a line, for scripts
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "half.h"
#include "outfile.h"
#include "progress.h"

static const char usage_text[] =
"usage: pleat-grid info [-o file] [-q] [-v] [--progress] [file ...]\n"
"       pleat-grid check [-q] [-v] [--progress] [file ...]\n"
"       pleat-grid cat [-o file] [-q] [-v] [--progress] [-d channel]\n"
"                      [file ...]\n"
"       pleat-grid dump [-o file] [-q] [-v] [--progress] [-a] [-c channel]\n"
"                       [file ...]\n"
"\n"
"Inspect, check and copy pleat grid streams (see pleat-grid(5)).\n"
"\n"
"  info                 print each grid's header and channel ranges\n"
"  check                verify every grid; silent when all are good\n"
"  cat                  copy the grids to the output\n"
"  dump                 print channel values as text, a vertex a line:\n"
"                       grid index, i, j, then each channel's components\n"
"  -o, --output FILE    (info, cat, dump) write to FILE instead of\n"
"                       standard output\n"
"  -q, --quiet          (cat) no summary line per grid on standard error\n"
"  -v, --verbose        (check) a line per good grid on standard error\n"
"      --progress       a line on standard error as each grid is read\n"
"  -d, --drop NAME      (cat) leave out channel NAME; may be repeated\n"
"  -c, --channel NAME   (dump) print channel NAME; may be repeated\n"
"                       (default: every channel)\n"
"  -a, --all            (dump) every vertex, not only the cloth's\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"With no file, or when file is -, read standard input.\n";

#define MAX_NAMES GRID_MAX_CHANNELS

enum { OPT_PROGRESS = 256 };

struct options {
	const char *command;
	const char *output;
	const char *names[MAX_NAMES];   /* --drop or --channel names */
	int nnames;
	int ndrop, nchannel;
	int all, quiet, verbose, progress;
	char **files;
	int nfiles;
};

static void add_name(struct options *o, const char *opt, const char *name)
{
	if (o->nnames == MAX_NAMES)
		usage_fail("%s: too many channels", opt);
	o->names[o->nnames++] = name;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"drop", required_argument, NULL, 'd'},
		{"channel", required_argument, NULL, 'c'},
		{"all", no_argument, NULL, 'a'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	memset(o, 0, sizeof *o);
	o->output = "-";
	o->progress = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:d:c:aqvhV", longopts, NULL)) != -1)
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'd': add_name(o, "--drop", optarg); o->ndrop++; break;
		case 'c': add_name(o, "--channel", optarg); o->nchannel++; break;
		case 'a': o->all = 1; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case OPT_PROGRESS: o->progress = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("pleat-grid %s\n", PLEAT_VERSION); exit(0);
		default: usage_bad_option(c, argv);
		}
	if (optind == argc)
		usage_fail("missing command (info, check, cat or dump)");
	o->command = argv[optind++];
	if (strcmp(o->command, "info") && strcmp(o->command, "check") &&
	    strcmp(o->command, "cat") && strcmp(o->command, "dump"))
		usage_fail("unknown command '%s'", o->command);
	int is_cat = strcmp(o->command, "cat") == 0;
	int is_dump = strcmp(o->command, "dump") == 0;
	int is_check = strcmp(o->command, "check") == 0;
	if ((strcmp(o->output, "-") && is_check) || (o->ndrop && !is_cat) ||
	    (o->nchannel && !is_dump) || (o->all && !is_dump))
		usage_fail("option not valid for '%s'", o->command);
	o->files = argv + optind;
	o->nfiles = argc - optind;
}

/* One component of element k of a channel, as a double. */
static double value_at(const struct grid_channel *c, size_t k)
{
	switch (c->type) {
	case GRID_U8:  return ((const uint8_t *)c->data)[k];
	case GRID_U16: return ((const uint16_t *)c->data)[k];
	case GRID_U32: return ((const uint32_t *)c->data)[k];
	case GRID_I32: return ((const int32_t *)c->data)[k];
	case GRID_F16: return half_to_float(((const uint16_t *)c->data)[k]);
	case GRID_F32: return ((const float *)c->data)[k];
	case GRID_F64: return ((const double *)c->data)[k];
	default:       return NAN;
	}
}

static void print_info(FILE *out, const struct grid *g, const char *name,
		       int index)
{
	size_t n = grid_vertices(g);
	fprintf(out, "%s: grid %d: %d x %d vertices, cell %.6g m, origin %.6g %.6g\n",
	       name, index, g->width, g->height, g->cell, g->origin[0],
	       g->origin[1]);
	for (int i = 0; i < g->nextra; i++)
		fprintf(out, "  key %s\n", g->extra[i]);
	for (int i = 0; i < g->nchannels; i++) {
		const struct grid_channel *c = &g->channels[i];
		double lo = INFINITY, hi = -INFINITY;
		size_t bad = 0, m = n * (size_t)c->comps;
		for (size_t k = 0; k < m; k++) {
			double v = value_at(c, k);
			if (!isfinite(v)) {
				bad++;
				continue;
			}
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		fprintf(out, "  channel %-12s %-3s x %d  min %.9g  max %.9g", c->name,
		       grid_type_name(c->type), c->comps, lo, hi);
		fprintf(out, bad ? "  non-finite %zu\n" : "\n", bad);
	}
	const struct grid_channel *mc = grid_find_typed(g, "mask", GRID_U8, 1);
	if (mc) {
		size_t count[5] = {0};
		for (size_t v = 0; v < n; v++)
			for (int b = 0; b < 5; b++)
				count[b] += (((const uint8_t *)mc->data)[v] >> b) & 1;
		fprintf(out, "  mask: inside %zu, boundary %zu, ghost %zu, fixed %zu, "
		       "seam %zu\n", count[0], count[1], count[2], count[3], count[4]);
	}
}

static void dump_grid(FILE *out, const struct grid *g, const struct options *o,
		      int index)
{
	const struct grid_channel *sel[MAX_NAMES];
	int nsel = 0;
	if (o->nnames == 0)
		for (int i = 0; i < g->nchannels; i++)
			sel[nsel++] = &g->channels[i];
	for (int i = 0; i < o->nnames; i++)
		if (!(sel[nsel++] = grid_find(g, o->names[i])))
			die("grid %d has no channel '%s'", index, o->names[i]);
	const struct grid_channel *mc = grid_find_typed(g, "mask", GRID_U8, 1);
	for (int j = 0; j < g->height; j++)
		for (int i = 0; i < g->width; i++) {
			size_t v = (size_t)j * g->width + i;
			if (!o->all && mc && !(((uint8_t *)mc->data)[v] & MASK_INSIDE))
				continue;
			fprintf(out, "%d %d %d", index, i, j);
			for (int s = 0; s < nsel; s++)
				for (int k = 0; k < sel[s]->comps; k++)
					fprintf(out, " %.9g", value_at(sel[s], v * sel[s]->comps + k));
			fputc('\n', out);
		}
}

struct process_args {
	const struct options *o;
	const char *path;
	FILE *out;
	int *index;              /* in the whole input */
};

static void process_grid(struct grid *g, int index, void *arg)
{
	const struct process_args *a = arg;
	const struct options *o = a->o;
	struct error e;
	(*a->index)++;
	progress("%s: grid %d read", a->path, index);
	if (strcmp(o->command, "info") == 0) {
		print_info(a->out, g, a->path, index);
	} else if (strcmp(o->command, "dump") == 0) {
		dump_grid(a->out, g, o, *a->index);
	} else if (strcmp(o->command, "cat") == 0) {
		int had = g->nchannels;
		for (int i = 0; i < o->nnames; i++)
			grid_remove(g, o->names[i]);
		if (grid_write(g, a->out, o->output, &e))
			die("%s", e.msg);
		if (!o->quiet)
			fprintf(stderr, "%s: %s: grid %d: %d x %d, %d channels "
				"copied, %d dropped\n", progname, a->path, index,
				g->width, g->height, g->nchannels,
				had - g->nchannels);
	} else if (o->verbose) {
		fprintf(stderr, "%s: %s: grid %d: good (%d x %d, %d channels)\n",
			progname, a->path, index, g->width, g->height,
			g->nchannels);
	}
}

static void process(const struct options *o, const char *path, FILE *out,
		    int *index)
{
	struct error e;
	struct process_args a = {o, path, out, index};
	if (grid_each_path(path, process_grid, &a, &e) < 0)
		die("%s", e.msg);
}

int main(int argc, char **argv)
{
	struct options o;
	struct outfile out = {0};
	struct error e;
	char *stdin_name[] = {"-"};
	int index = 0;
	progname = "pleat-grid";
	parse_options(argc, argv, &o);
	progress_init(o.progress);
	int is_cat = strcmp(o.command, "cat") == 0;
	if (outfile_open(&out, o.output, is_cat, &e))
		die("%s", e.msg);
	char **files = o.nfiles ? o.files : stdin_name;
	int nfiles = o.nfiles ? o.nfiles : 1;
	for (int k = 0; k < nfiles; k++)
		process(&o, files[k], out.f, &index);
	if (outfile_close(&out, &e))
		die("%s", e.msg);
	return 0;
}

/* pleat-collide - measure the collisions of a garment on its grid.
 *
 * For each grid of the input: the cloth's triangle pairs that intersect
 * each other, the cloth vertices inside the body deeper than a tolerance,
 * and optionally what the self-collision proximity search finds.  One
 * line a grid on standard output; --list adds one line per offence. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "collide.h"
#include "grid.h"
#include "outfile.h"
#include "progress.h"
#include "proximity.h"

static const char usage_text[] =
"usage: pleat-collide [-b body] [--depth metres] [-c channel]\n"
"                     [--search metres] [-k count] [--no-intersections]\n"
"                     [--list] [-o file] [-q] [-v] [--progress] [file ...]\n"
"\n"
"Count the collisions of each grid's cloth: pairs of its triangles that\n"
"intersect, and vertices inside the body.  One line a grid.\n"
"\n"
"  -b, --body FILE      the body (OBJ): count cloth vertices inside it\n"
"      --depth METRES   only deeper than this counts (default 0.0001)\n"
"  -c, --channel NAME   positions: an f32 x 3 channel (default x, or\n"
"                       rest when the grid has no x)\n"
"      --search METRES  also run the self-collision proximity search with\n"
"                       this radius and report what it finds\n"
"  -k, --neighbours N   list length of that search (default 16)\n"
"      --no-intersections\n"
"                       do not test the triangles for intersections\n"
"      --list           print every offence: vertices inside the body and\n"
"                       intersecting triangle pairs\n"
"  -o, --output FILE    write the lines to FILE instead of standard output\n"
"  -q, --quiet          nothing on standard error but errors (the lines\n"
"                       are the output); cancels --verbose\n"
"  -v, --verbose        report timings on standard error\n"
"      --progress       a line on standard error as each grid is checked\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"With no file, or when file is -, read standard input.\n"
"See pleat-collide(1) and pleat-grid(5).\n";

struct options {
	const char *body_path;
	double depth;
	const char *channel;
	double search;           /* 0: no proximity search */
	int neighbours;
	int intersections;
	int list, verbose, quiet, progress;
	const char *output;
	char **files;
	int nfiles;
};

enum { OPT_NO_INTERSECTIONS = 256, OPT_DEPTH, OPT_SEARCH, OPT_LIST,
       OPT_PROGRESS };

/* Where the lines go: standard output or --output. */
static FILE *report;

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"body", required_argument, NULL, 'b'},
		{"depth", required_argument, NULL, OPT_DEPTH},
		{"channel", required_argument, NULL, 'c'},
		{"search", required_argument, NULL, OPT_SEARCH},
		{"neighbours", required_argument, NULL, 'k'},
		{"no-intersections", no_argument, NULL, OPT_NO_INTERSECTIONS},
		{"list", no_argument, NULL, OPT_LIST},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	memset(o, 0, sizeof *o);
	o->depth = 1e-4;
	o->neighbours = COLLIDE_NEIGHBOURS;
	o->intersections = 1;
	o->output = "-";
	o->progress = -1;
	opterr = 0;
	/* -d, -s and -l: the old spellings, for one release */
	while ((c = getopt_long(argc, argv, ":b:d:c:s:k:lo:qvhV", longopts, NULL)) != -1)
		switch (c) {
		case 'b': o->body_path = optarg; break;
		case 'd': deprecated_short('d', "--depth"); /* fall through */
		case OPT_DEPTH: o->depth = parse_double("--depth", optarg, 0, 1e3); break;
		case 'c': o->channel = optarg; break;
		case 's': deprecated_short('s', "--search"); /* fall through */
		case OPT_SEARCH: o->search = parse_double("--search", optarg, 1e-9, 1e3); break;
		case 'k': o->neighbours = (int)parse_long("--neighbours", optarg, 1, COLLIDE_MAX_NEIGHBOURS); break;
		case OPT_NO_INTERSECTIONS: o->intersections = 0; break;
		case 'l': deprecated_short('l', "--list"); /* fall through */
		case OPT_LIST: o->list = 1; break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case OPT_PROGRESS: o->progress = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("pleat-collide %s\n", PLEAT_VERSION); exit(0);
		default: usage_bad_option(c, argv);
		}
	if (o->quiet)
		o->verbose = 0;
	o->files = argv + optind;
	o->nfiles = argc - optind;
}

/* The positions to check: the named channel, or x, or rest. */
static const struct grid_channel *positions(const struct options *o,
					    const struct grid *g,
					    const char *name, int index)
{
	const char *want = o->channel ? o->channel :
			   grid_find(g, "x") ? "x" : "rest";
	const struct grid_channel *c = grid_find(g, want);
	if (!c)
		die("%s: grid %d has no '%s' channel%s", name, index, want,
		    o->channel ? "" : " (nor x): run pleat-resample first");
	if (c->type != GRID_F32 || c->comps != 3)
		die("%s: grid %d: its '%s' channel is %s x %d, not f32 x 3",
		    name, index, want, grid_type_name(c->type), c->comps);
	const float *x = c->data;
	size_t m = grid_vertices(g) * 3;
	for (size_t k = 0; k < m; k++)
		if (!isfinite(x[k]))
			die("%s: grid %d: '%s' is not finite at vertex (%zu, %zu)",
			    name, index, want, k / 3 % (size_t)g->width,
			    k / 3 / (size_t)g->width);
	return c;
}

static size_t count_cloth(const uint8_t *mask, size_t n)
{
	size_t c = 0;
	for (size_t v = 0; v < n; v++)
		c += (mask[v] & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE;
	return c;
}

/* A triangle by its cell and half: 0 the lower one, (i,j) (i+1,j)
 * (i,j+1); 1 the upper, (i+1,j) (i+1,j+1) (i,j+1). */
static void print_triangle(FILE *f, const struct grid *g, const uint32_t *t)
{
	int upper = t[1] != t[0] + 1;
	size_t v = t[0] - (uint32_t)upper;
	fprintf(f, " (%zu %zu %d)", v % (size_t)g->width, v / (size_t)g->width,
		upper);
}

/* The classes of an intersecting pair, by what the solver's repulsion
 * does with it (collide.h): triangles that share a grid vertex, that lie
 * across a seam from each other (a corner within reach of the other's
 * seam partner), that are other grid neighbours (corners within the 5 x 5
 * square), and the rest, which the repulsion sees. */
enum { PAIR_SHARED, PAIR_SEAM, PAIR_NEIGHBOURS, PAIR_APART, PAIR_CLASSES };
static const char *const pair_class_name[PAIR_CLASSES] = {
	"sharing a grid vertex", "across a seam", "other grid neighbours",
	"apart",
};

static int pair_class(const struct collide_site *site, const uint32_t *t,
		      const uint32_t *u)
{
	int seam = 0, near = 0;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) {
			if (t[a] == u[b])
				return PAIR_SHARED;
			seam |= collide_near_partner(&site[t[a]], &site[u[b]]) ||
				collide_near_partner(&site[u[b]], &site[t[a]]);
			near |= collide_excluded(&site[t[a]], &site[u[b]]);
		}
	return seam ? PAIR_SEAM : near ? PAIR_NEIGHBOURS : PAIR_APART;
}

/* The intersecting pairs, those sharing a corner first, each with its
 * class. */
struct pair_list {
	uint32_t *p;             /* 2 triangle indices a pair */
	unsigned char *cls;
	size_t n, count[PAIR_CLASSES];
};

static void find_pairs(const struct grid *g, const float *x,
		       const uint8_t *mask, const uint16_t *panel,
		       const uint32_t *tri, size_t ntri, struct pair_list *pl)
{
	uint32_t *shared, *apart;
	size_t ns = count_adjacent_intersections(x, tri, ntri, &shared);
	size_t na = count_intersections(x, tri, ntri, &apart);
	const struct grid_channel *sc = grid_find_typed(g, "seam", GRID_F32, 3);
	struct collide_site *site = xmalloc_array(grid_vertices(g), sizeof *site);
	collide_sites(g, mask, panel, sc ? sc->data : NULL, site);
	memset(pl, 0, sizeof *pl);
	pl->n = ns + na;
	pl->p = xmalloc_array(pl->n + 1, 2 * sizeof(uint32_t));
	pl->cls = xmalloc(pl->n + 1);
	memcpy(pl->p, shared, ns * 2 * sizeof(uint32_t));
	memcpy(pl->p + 2 * ns, apart, na * 2 * sizeof(uint32_t));
	for (size_t q = 0; q < pl->n; q++) {
		pl->cls[q] = (unsigned char)pair_class(site,
			tri + 3 * (size_t)pl->p[2 * q],
			tri + 3 * (size_t)pl->p[2 * q + 1]);
		pl->count[pl->cls[q]]++;
	}
	free(site);
	free(shared);
	free(apart);
}

/* Each test adds its part to the grid's line on standard output and,
 * with --list, its offences to `list`, printed after the line. */
static void intersections(const struct options *o, const struct grid *g,
			  const float *x, const uint16_t *panel, FILE *list)
{
	uint32_t *tri;
	struct pair_list pl;
	const uint8_t *mask = grid_find(g, "mask")->data;
	double t0 = now_seconds();
	size_t ntri = grid_triangles(g->width, g->height, mask, panel, &tri);
	find_pairs(g, x, mask, panel, tri, ntri, &pl);
	fprintf(report, ", %zu triangles, %zu intersecting triangle pairs of which",
	       ntri, pl.n);
	for (int c = 0; c < PAIR_CLASSES; c++)
		fprintf(report, "%s %zu %s", c ? "," : "", pl.count[c], pair_class_name[c]);
	if (o->verbose)
		fprintf(stderr, "%s: %zu triangles tested for intersections in "
			"%.3f s\n", progname, ntri, now_seconds() - t0);
	if (list)
		for (size_t q = 0; q < pl.n; q++) {
			fputs("  intersecting", list);
			print_triangle(list, g, tri + 3 * (size_t)pl.p[2 * q]);
			print_triangle(list, g, tri + 3 * (size_t)pl.p[2 * q + 1]);
			fprintf(list, " %s\n", pair_class_name[pl.cls[q]]);
		}
	free(pl.p);
	free(pl.cls);
	free(tri);
}

static void inside_body(const struct options *o, const struct body *b,
			const struct grid *g, const float *x, FILE *list)
{
	size_t n = grid_vertices(g);
	const uint8_t *mask = grid_find(g, "mask")->data;
	float *depth = list ? xmalloc_array(n, sizeof(float)) : NULL;
	double deepest, t0 = now_seconds();
	size_t in = body_count_inside(b, x, mask, n, o->depth, depth, &deepest);
	fprintf(report, ", %zu vertices deeper than %g m inside the body (deepest %.6g m)",
	       in, o->depth, deepest);
	if (o->verbose)
		fprintf(stderr, "%s: body: %zu vertices tested in %.3f s\n",
			progname, n, now_seconds() - t0);
	if (list)
		for (size_t v = 0; v < n; v++)
			if (depth[v] > o->depth)
				fprintf(list, "  inside (%zu %zu) %.6g m\n",
					v % (size_t)g->width, v / (size_t)g->width,
					depth[v]);
	free(depth);
}

static void report_proximity(const struct options *o, const struct grid *g,
		      const float *x, const char *name, int index)
{
	struct proximity pr;
	struct error e;
	if (proximity_init(&pr, g, o->neighbours, &e))
		die("%s: grid %d %s", name, index, e.msg);
	double t0 = now_seconds();
	proximity_refresh(&pr, x, o->search);
	const struct proximity_stats *s = &pr.stats;
	fprintf(report, ", %zu vertex pairs closer than %g m (%zu blocks, %zu long-range "
	       "block pairs, %zu vertices over %d)", s->pairs, o->search,
	       s->blocks, s->long_pairs, s->overflow, o->neighbours);
	if (o->verbose)
		fprintf(stderr, "%s: proximity search in %.3f s on %d threads\n",
			progname, now_seconds() - t0, omp_get_max_threads());
	proximity_free(&pr);
}

static void check_grid(const struct options *o, const struct body *b,
		       struct grid *g, const char *name, int index)
{
	const struct grid_channel *mc = grid_find_typed(g, "mask", GRID_U8, 1);
	const struct grid_channel *pc = grid_find(g, "panel");
	if (!mc)
		die("%s: grid %d has no 'mask' channel (u8 x 1)", name, index);
	if (pc && (pc->type != GRID_U16 || pc->comps != 1))
		die("%s: grid %d: its 'panel' channel is %s x %d, not u16 x 1",
		    name, index, grid_type_name(pc->type), pc->comps);
	const struct grid_channel *xc = positions(o, g, name, index);
	const float *x = xc->data;
	char *listed = NULL;
	size_t len = 0;
	FILE *list = o->list ? open_memstream(&listed, &len) : NULL;
	if (o->list && !list)
		die("cannot make the list: %s", strerror(errno));
	fprintf(report, "%s: grid %d: positions %s, %zu cloth vertices", name, index,
	       xc->name, count_cloth(mc->data, grid_vertices(g)));
	if (o->intersections)
		intersections(o, g, x, pc ? pc->data : NULL, list);
	if (b)
		inside_body(o, b, g, x, list);
	if (o->search > 0)
		report_proximity(o, g, x, name, index);
	fputc('\n', report);
	progress("%s: grid %d checked", name, index);
	if (list) {
		if (fclose(list) == EOF)
			die("cannot make the list: out of memory");
		fputs(listed, report);
		free(listed);
	}
}

struct check_args {
	const struct options *o;
	const struct body *b;
	const char *path;
};

static void check_visit(struct grid *g, int index, void *arg)
{
	const struct check_args *a = arg;
	check_grid(a->o, a->b, g, a->path, index);
}

static void check_stream(const struct options *o, const struct body *b,
			 const char *path)
{
	struct error e;
	struct check_args a = {o, b, path};
	if (grid_each_path(path, check_visit, &a, &e) < 0)
		die("%s", e.msg);
}

int main(int argc, char **argv)
{
	struct options o;
	struct body body;
	struct error e;
	char *stdin_name[] = {"-"};
	struct outfile out;
	progname = "pleat-collide";
	parse_options(argc, argv, &o);
	progress_init(o.progress);
	if (outfile_open(&out, o.output, 0, &e))
		die("%s", e.msg);
	report = out.f;
	if (o.body_path) {
		double t0 = now_seconds();
		if (body_load(&body, o.body_path, &e))
			die("%s", e.msg);
		body_warn_open(&body, o.body_path);
		if (o.verbose)
			fprintf(stderr, "%s: %s: %d triangles, tree built in %.3f s\n",
				progname, o.body_path, body.ntri, now_seconds() - t0);
	}
	char **files = o.nfiles ? o.files : stdin_name;
	int nfiles = o.nfiles ? o.nfiles : 1;
	for (int k = 0; k < nfiles; k++)
		check_stream(&o, o.body_path ? &body : NULL, files[k]);
	if (o.body_path)
		body_free(&body);
	if (outfile_close(&out, &e))
		die("%s", e.msg);
	return 0;
}

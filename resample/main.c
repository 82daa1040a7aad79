/* pleat-resample - lay a regular grid over a garment's sewing pattern.
 *
 * Reads coarse garment meshes (OBJ, texture coordinates = the pattern) and
 * writes one grid per mesh: the frames of a sequence share one layout. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "obj.h"
#include "outfile.h"
#include "pattern.h"
#include "progress.h"
#include "resample.h"

static const char usage_text[] =
"usage: pleat-resample [-s cells | --cell metres] [-o file] [-q] [-v]\n"
"                      [--uv-scale scale] [-g cells] [--ghost-angle degrees]\n"
"                      [--ghost-all] [--smooth | --flat] [--weld mm]\n"
"                      [--progress]\n"
"                      [file ...]\n"
"\n"
"Lay a regular grid over the sewing pattern (the texture coordinates) of\n"
"each coarse garment mesh and write one grid per mesh.\n"
"\n"
"  -s, --size N         N cells across the longer side of the pattern\n"
"                       (default 1024)\n"
"      --cell METRES    cell size in metres, instead of --size\n"
"  -o, --output FILE    write to FILE instead of standard output\n"
"  -q, --quiet          no summary line per grid on standard error\n"
"  -v, --verbose        also the pattern's panels and seams, with times\n"
"      --uv-scale S     metres per texture-coordinate unit (default 1)\n"
"  -g, --ghost-band N   add N cells of ghost vertices past sewn boundaries\n"
"                       (default 0: none)\n"
"      --ghost-angle D  angle of the ghost band to the panel, in degrees,\n"
"                       towards the front side (default 0)\n"
"      --ghost-all      put the ghost band past open boundaries too\n"
"      --weld MM        sew boundary edges of different panels whose ends\n"
"                       lie within MM millimetres of each other in 3D\n"
"      --smooth         the rest surface is Phong tessellation of the\n"
"                       coarse triangles, flat at sharp folds (the\n"
"                       default)\n"
"      --flat           the rest surface is the coarse triangles\n"
"                       themselves\n"
"      --progress       report progress on standard error\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"With no file, or when file is -, read standard input.\n"
"See pleat-resample(1) and pleat-grid(5).\n";

enum { OPT_CELL = 256, OPT_UV_SCALE, OPT_GHOST_ANGLE };

struct options {
	struct resample_options r;
	const char *output;
	double weld;             /* metres */
	int welding;             /* --weld given */
	int progress, quiet, verbose;
	char **files;
	int nfiles;
};

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"size", required_argument, NULL, 's'},
		{"cell", required_argument, NULL, OPT_CELL},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"uv-scale", required_argument, NULL, OPT_UV_SCALE},
		{"ghost-band", required_argument, NULL, 'g'},
		{"ghost-angle", required_argument, NULL, OPT_GHOST_ANGLE},
		{"ghost-all", no_argument, NULL, 'G'},
		{"smooth", no_argument, NULL, 'S'},
		{"flat", no_argument, NULL, 'F'},
		{"weld", required_argument, NULL, 'W'},
		{"progress", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int have_size = 0, have_cell = 0, c;
	memset(o, 0, sizeof *o);
	o->r.size = 1024;
	o->r.uv_scale = 1;
	o->r.smooth = 1;
	o->output = "-";
	o->progress = -1;
	opterr = 0;
	/* -c, -u and -a: the old spellings, for one release */
	while ((c = getopt_long(argc, argv, ":s:c:o:qvu:g:a:hV", longopts, NULL)) != -1)
		switch (c) {
		case 's': o->r.size = (int)parse_long("--size", optarg, 1, 1 << 20); have_size = 1; break;
		case 'c': deprecated_short('c', "--cell"); /* fall through */
		case OPT_CELL: o->r.cell = parse_double("--cell", optarg, 1e-7, 1e3); have_cell = 1; break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case 'u': deprecated_short('u', "--uv-scale"); /* fall through */
		case OPT_UV_SCALE: o->r.uv_scale = parse_double("--uv-scale", optarg, 1e-9, 1e9); break;
		case 'g': o->r.ghost_band = (int)parse_long("--ghost-band", optarg, 0, 64); break;
		case 'a': deprecated_short('a', "--ghost-angle"); /* fall through */
		case OPT_GHOST_ANGLE: o->r.ghost_angle = parse_double("--ghost-angle", optarg, -180, 180) * 3.14159265358979323846 / 180; break;
		case 'G': o->r.ghost_all = 1; break;
		case 'S': o->r.smooth = 1; break;
		case 'F': o->r.smooth = 0; break;
		case 'W': o->weld = 1e-3 * parse_double("--weld", optarg, 0, 1e6); o->welding = 1; break;
		case 'P': o->progress = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("pleat-resample %s\n", PLEAT_VERSION); exit(0);
		default: usage_bad_option(c, argv);
		}
	if (have_size && have_cell)
		usage_fail("--size and --cell exclude each other");
	if (have_cell)
		o->r.size = 0;
	if (o->r.ghost_all && o->r.ghost_band == 0)
		usage_fail("--ghost-all needs --ghost-band");
	o->files = argv + optind;
	o->nfiles = argc - optind;
}

/* Frames of a sequence must share the pattern: same triangles, same
 * texture coordinates, bit for bit. */
static int same_pattern(const struct obj_mesh *a, const struct obj_mesh *b)
{
	if (a->ntri != b->ntri || a->nv != b->nv)
		return 0;
	for (int t = 0; t < a->ntri; t++)
		for (int k = 0; k < 3; k++) {
			if (a->tri_v[t][k] != b->tri_v[t][k])
				return 0;
			const double *p = a->vt[a->tri_vt[t][k]], *q = b->vt[b->tri_vt[t][k]];
			if (memcmp(p, q, 2 * sizeof *p) != 0)
				return 0;
		}
	return 1;
}

static void check_scale(const struct obj_mesh *m, const char *name, double s)
{
	double r = pattern_scale_ratio(m, s);
	if (r > 0 && (r < 0.5 || r > 2.0))
		warnx("%s: the texture coordinates do not look like metres: the "
		      "median 3D edge is %.3g times its pattern edge; see --uv-scale",
		      name, r);
}

static void set_keys(struct grid *g, const char *name, int frame, int npanels,
		     int smooth)
{
	char buf[32];
	struct error e;
	if (smooth && grid_set_extra(g, REST_SURFACE_KEY, REST_SURFACE_SMOOTH, &e))
		die("%s", e.msg);
	snprintf(buf, sizeof buf, "%d", npanels);
	if (grid_set_extra(g, "panels", buf, &e))
		die("%s", e.msg);
	snprintf(buf, sizeof buf, "%d", frame);
	if (grid_set_extra(g, "frame", buf, &e))
		die("%s", e.msg);
	/* The source name is informative only; keep it printable. */
	char src[256];
	size_t n = 0;
	for (const char *c = name; *c && n < sizeof src - 1; c++)
		src[n++] = ((unsigned char)*c < 0x20 || *c == 0x7f) ? '?' : *c;
	src[n] = '\0';
	if (grid_set_extra(g, "source", src, &e))
		die("%s", e.msg);
}

/* Welds the first mesh and builds its pattern again; the map, for the
 * frames after it. */
static int *weld_first(struct obj_mesh *m, struct pattern *p,
		       const char *name, double tol)
{
	struct error e;
	int merged, before = p->nseam_edges;
	int *map = weld_map(m, p, tol, &merged);
	weld_apply(m, map);
	pattern_free(p);
	if (pattern_build(p, m, name, &e))
		die("%s", e.msg);
	progress("%s: --weld %g mm: %d vertices merged, %d seam edges (%d "
		 "before)", name, tol * 1e3, merged, p->nseam_edges, before);
	return map;
}

/* The line per grid on standard error. */
static void summary(const struct grid *g, const char *name, int frame,
		    int npanels, double seconds)
{
	const uint8_t *mask = grid_find(g, "mask")->data;
	size_t cloth = 0;
	for (size_t v = 0; v < grid_vertices(g); v++)
		cloth += (mask[v] & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE;
	fprintf(stderr, "%s: %s: grid %d: %d x %d, cell %.4g mm, %d panels, "
		"%zu cloth vertices (%.2f s)\n", progname, name, frame + 1,
		g->width, g->height, g->cell * 1e3, npanels, cloth, seconds);
}

static void load(struct obj_mesh *m, const char *path)
{
	struct error e;
	/* a mesh can be typed (or pasted): say what is awaited, not hang */
	if (strcmp(path, "-") == 0 && is_terminal(stdin))
		fprintf(stderr, "%s: reading an OBJ mesh from the terminal; "
			"end it with Ctrl-D\n", progname);
	if (obj_load(m, path, &e))
		die("%s", e.msg);
}

int main(int argc, char **argv)
{
	struct options o;
	struct error e;
	struct outfile out;
	struct obj_mesh first, frame;
	struct pattern p;
	struct layout l;
	progname = "pleat-resample";
	parse_options(argc, argv, &o);
	progress_init(o.progress);
	char *stdin_name[] = {"-"};
	char **files = o.nfiles ? o.files : stdin_name;
	int nfiles = o.nfiles ? o.nfiles : 1;

	double t0 = now_seconds();
	load(&first, files[0]);
	if (pattern_build(&p, &first, files[0], &e))
		die("%s", e.msg);
	int *weld = o.welding ? weld_first(&first, &p, files[0], o.weld) : NULL;
	check_scale(&first, files[0], o.r.uv_scale);
	if (layout_build(&l, &first, &p, &o.r, &e))
		die("%s: %s", files[0], e.msg);
	if (l.overlaps)
		warnx("%s: panels overlap in the pattern at %d grid vertices",
		      files[0], l.overlaps);
	if (o.verbose || progress_enabled())
		fprintf(stderr, "%s: %s: %d panels, %d seam edges, grid %d x %d, "
			"cell %.3g mm (%.2f s)\n", progname, files[0], p.npanels,
			p.nseam_edges, l.grid.width, l.grid.height,
			l.grid.cell * 1e3, now_seconds() - t0);
	if (outfile_open(&out, o.output, 1, &e))
		die("%s", e.msg);
	for (int k = 0; k < nfiles; k++) {
		const struct obj_mesh *m = &first;
		if (k > 0) {
			load(&frame, files[k]);
			if (weld && frame.nv != first.nv)
				die("%s: it has %d vertices, %s %d: --weld needs the "
				    "same vertices in every frame", files[k],
				    frame.nv, files[0], first.nv);
			if (weld)
				weld_apply(&frame, weld);
			if (!same_pattern(&first, &frame))
				die("%s: its pattern (faces or texture coordinates) "
				    "differs from %s's", files[k], files[0]);
			m = &frame;
		}
		if (layout_positions(&l, m, &p, &o.r, &e))
			die("%s: %s", files[k], e.msg);
		struct untangle_stats us;
		rest_untangle(&l.grid, &us);
		if (us.after)
			warnx("%s: the rest surface has %zu intersecting triangle "
			      "pairs that rounding its folds does not remove (does "
			      "the mesh intersect itself?); left as sampled",
			      files[k], us.after);
		else if (us.before)
			progress("%s: %zu intersecting triangle pairs at sharp folds: "
				 "%zu vertices moved, at most %.3g mm, %d rounds", files[k],
				 us.before, us.moved, us.max_move * 1e3, us.rounds);
		set_keys(&l.grid, files[k], k, p.npanels, o.r.smooth);
		if (grid_write(&l.grid, out.f, o.output, &e))
			die("%s", e.msg);
		if (k > 0)
			obj_free(&frame);
		if (!o.quiet)
			summary(&l.grid, files[k], k, p.npanels, now_seconds() - t0);
	}
	if (outfile_close(&out, &e))
		die("%s", e.msg);
	layout_free(&l);
	pattern_free(&p);
	obj_free(&first);
	free(weld);
	return 0;
}

/* pleat-normalmap - bake a solved grid into texture maps of the coarse
 * mesh: a tangent-space normal map (MikkTSpace), an object-space normal
 * map, a displacement map and a shaded preview of the pattern. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grid.h"
#include "normalmap.h"
#include "obj.h"
#include "outfile.h"
#include "progress.h"

#define MAX_SIDE 16384   /* texels along either side of a map */

static const char usage_text[] =
"usage: pleat-normalmap [--mesh mesh] [-o file] [-q] [-v] [--object file]\n"
"                       [--displacement file] [--preview file] [--size size]\n"
"                       [--bits bits] [--directx] [--dilate texels]\n"
"                       [--uv-region u0,v0,u1,v1 | --uv-fit]\n"
"                       [--displacement-range metres]\n"
"                       [--preview-size pixels] [--progress] [file]\n"
"\n"
"Bake the wrinkles of a solved grid into texture maps of the coarse mesh\n"
"it was laid over, in the mesh's own texture coordinates.\n"
"\n"
"      --mesh FILE      the coarse mesh (OBJ) of the grid's frame (default:\n"
"                       the file the grid names as its source)\n"
"  -o, --output FILE    tangent-space normal map (PNG; MikkTSpace frames;\n"
"                       standard output when no map is asked for)\n"
"  -q, --quiet          no summary line on standard error\n"
"  -v, --verbose        also the times of reading, baking and writing\n"
"      --object FILE    object-space normal map (PNG)\n"
"      --displacement FILE\n"
"                       displacement along the coarse normal: a 16-bit PNG,\n"
"                       or metres as floats when FILE ends in .pfm\n"
"      --preview FILE   shaded picture of the wrinkles over the pattern\n"
"                       (8-bit grey PNG)\n"
"      --size N|WxH     map size in texels (default 2048)\n"
"      --bits N         8 or 16 bits per channel of the normal maps\n"
"                       (default 8)\n"
"      --directx        green channel down (-Y, Unreal); default up (+Y,\n"
"                       OpenGL: Blender, Unity)\n"
"      --dilate N       grow the islands N texels past their edges\n"
"                       (default 16)\n"
"      --uv-region U0,V0,U1,V1\n"
"                       texture coordinates the map covers (default\n"
"                       0,0,1,1 when the mesh's are in it, else --uv-fit)\n"
"      --uv-fit         cover the texture coordinates' bounding box,\n"
"                       widened to the map's aspect ratio\n"
"      --displacement-range M\n"
"                       PNG displacement: 0 and 1 stand for -M and +M\n"
"                       metres (default 0.01)\n"
"      --preview-size N N pixels along the longer side, or as near as\n"
"                       whole pixels per vertex go (default 1024; 0: a\n"
"                       pixel per grid vertex)\n"
"      --progress       report progress and timings on standard error\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"The grid (one, solved: with an x channel) is read from file, or from\n"
"standard input when file is - or absent.  Maps are PNG files (a\n"
"displacement also .pfm); a name with another extension is refused.\n"
"See pleat-normalmap(1).\n";

struct options {
	struct bake_options b;
	const char *mesh, *input;
	const char *path[NMAPS];     /* output of each map, NULL for none */
	const char *preview;
	int bits, preview_size, uv_fit, progress, quiet, verbose;
	int have_region;             /* --uv-region given */
	double range;                /* displacement range, metres */
};

enum { OPT_OBJECT = 256, OPT_DISPLACEMENT, OPT_PREVIEW, OPT_DIRECTX,
       OPT_DILATE, OPT_REGION, OPT_FIT, OPT_RANGE, OPT_PREVIEW_SIZE,
       OPT_PROGRESS, OPT_MESH, OPT_SIZE, OPT_BITS };

static const struct option longopts[] = {
	{"mesh", required_argument, NULL, OPT_MESH},
	{"output", required_argument, NULL, 'o'},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"object", required_argument, NULL, OPT_OBJECT},
	{"displacement", required_argument, NULL, OPT_DISPLACEMENT},
	{"preview", required_argument, NULL, OPT_PREVIEW},
	{"size", required_argument, NULL, OPT_SIZE},
	{"bits", required_argument, NULL, OPT_BITS},
	{"directx", no_argument, NULL, OPT_DIRECTX},
	{"dilate", required_argument, NULL, OPT_DILATE},
	{"uv-region", required_argument, NULL, OPT_REGION},
	{"uv-fit", no_argument, NULL, OPT_FIT},
	{"displacement-range", required_argument, NULL, OPT_RANGE},
	{"preview-size", required_argument, NULL, OPT_PREVIEW_SIZE},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* A side of --size: a whole number in [1, MAX_SIDE]. */
static int parse_side(const char *s, const char *end, const char *arg)
{
	long v = 0;
	if (s == end || end - s > 6)
		usage_fail("--size: '%s' is not N or WIDTHxHEIGHT", arg);
	for (const char *c = s; c < end; c++) {
		if (*c < '0' || *c > '9')
			usage_fail("--size: '%s' is not N or WIDTHxHEIGHT", arg);
		v = 10 * v + (*c - '0');
	}
	if (v < 1 || v > MAX_SIDE)
		usage_fail("--size: '%s': each side must be 1 to %d texels",
			   arg, MAX_SIDE);
	return (int)v;
}

static void parse_size(const char *arg, int *w, int *h)
{
	const char *x = strchr(arg, 'x');
	const char *end = arg + strlen(arg);
	*w = parse_side(arg, x ? x : end, arg);
	*h = x ? parse_side(x + 1, end, arg) : *w;
}

static void parse_region(const char *arg, double r[4])
{
	char *end;
	const char *s = arg;
	for (int k = 0; k < 4; k++) {
		errno = 0;
		r[k] = strtod(s, &end);
		if (end == s || errno == ERANGE || !isfinite(r[k]) ||
		    *end != (k < 3 ? ',' : '\0'))
			usage_fail("--uv-region: '%s' is not four numbers "
				   "u0,v0,u1,v1", arg);
		s = end + 1;
	}
	if (!(r[2] > r[0] && r[3] > r[1]))
		usage_fail("--uv-region: '%s' is empty: it needs u1 > u0 and "
			   "v1 > v0", arg);
}

static void defaults(struct options *o)
{
	memset(o, 0, sizeof *o);
	o->b.width = o->b.height = 2048;
	o->b.region[2] = o->b.region[3] = 1;
	o->b.dilate = 16;
	o->bits = 8;
	o->range = 0.01;
	o->preview_size = 1024;
	o->progress = -1;
	o->input = "-";
}

/* The format follows the name: PNG, or PFM for a displacement.  A name
 * with another extension (out.jpg, out.exr) is refused rather than
 * written as PNG under a name that says otherwise; a name without one
 * (-, /dev/null) gets PNG. */
static void check_extension(const char *opt, const char *path, int pfm_ok)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	if (!dot || strcasecmp(dot, ".png") == 0 ||
	    (pfm_ok && strcasecmp(dot, ".pfm") == 0))
		return;
	usage_fail("%s: %s: pleat-normalmap writes PNG (.png)%s, not %s", opt,
		   path, pfm_ok ? " or PFM (.pfm)" : "", dot);
}

static void validate(struct options *o, int have_region)
{
	if (!o->path[MAP_TANGENT] && !o->path[MAP_OBJECT] &&
	    !o->path[MAP_DISPLACEMENT] && !o->preview)
		o->path[MAP_TANGENT] = "-";
	if (have_region && o->uv_fit)
		usage_fail("--uv-region and --uv-fit exclude each other");
	const char *outs[NMAPS + 1] = {o->path[0], o->path[1], o->path[2],
				       o->preview};
	int stdout_uses = 0;
	for (int k = 0; k <= NMAPS; k++)
		stdout_uses += outs[k] && strcmp(outs[k], "-") == 0;
	if (stdout_uses > 1)
		usage_fail("only one output can go to standard output (-)");
	for (int k = 0; k < NMAPS; k++)
		o->b.want[k] = o->path[k] != NULL;
	static const char *opt[NMAPS + 1] = {"--output", "--object",
					     "--displacement", "--preview"};
	for (int k = 0; k <= NMAPS; k++)
		if (outs[k])
			check_extension(opt[k], outs[k], k == MAP_DISPLACEMENT);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int c, have_region = 0;
	defaults(o);
	opterr = 0;
	/* -m, -s and -b: the old spellings, for one release */
	while ((c = getopt_long(argc, argv, ":m:o:qvs:b:hV", longopts, NULL)) != -1)
		switch (c) {
		case 'm': deprecated_short('m', "--mesh"); /* fall through */
		case OPT_MESH: o->mesh = optarg; break;
		case 'o': o->path[MAP_TANGENT] = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case OPT_OBJECT: o->path[MAP_OBJECT] = optarg; break;
		case OPT_DISPLACEMENT: o->path[MAP_DISPLACEMENT] = optarg; break;
		case OPT_PREVIEW: o->preview = optarg; break;
		case 's': deprecated_short('s', "--size"); /* fall through */
		case OPT_SIZE: parse_size(optarg, &o->b.width, &o->b.height); break;
		case 'b': deprecated_short('b', "--bits"); /* fall through */
		case OPT_BITS:
			o->bits = (int)parse_long("--bits", optarg, 8, 16);
			if (o->bits != 8 && o->bits != 16)
				usage_fail("--bits: %s is not 8 or 16", optarg);
			break;
		case OPT_DIRECTX: o->b.directx = 1; break;
		case OPT_DILATE: o->b.dilate = (int)parse_long("--dilate", optarg, 0, MAX_SIDE); break;
		case OPT_REGION: parse_region(optarg, o->b.region); have_region = 1; break;
		case OPT_FIT: o->uv_fit = 1; break;
		case OPT_RANGE: o->range = parse_double("--displacement-range", optarg, 1e-9, 1e3); break;
		case OPT_PREVIEW_SIZE: o->preview_size = (int)parse_long("--preview-size", optarg, 0, MAX_SIDE); break;
		case OPT_PROGRESS: o->progress = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("pleat-normalmap %s\n", PLEAT_VERSION); exit(0);
		default: usage_bad_option(c, argv);
		}
	if (argc - optind > 1)
		usage_fail("one grid file at most (got %d)", argc - optind);
	if (optind < argc)
		o->input = argv[optind];
	o->have_region = have_region;
	validate(o, have_region);
}

/* ---- inputs ---------------------------------------------------------- */

/* The one grid of the input: a second grid is an error, because a grid
 * is baked with the mesh of its own frame. */
static void read_grid(const char *path, struct grid *g)
{
	struct error e;
	FILE *f = stdin;
	if (strcmp(path, "-") != 0 && !(f = fopen(path, "rb")))
		die("cannot open %s: %s", path, strerror(errno));
	struct grid_reader r = {.f = f, .name = path};
	int res = grid_read(&r, g, &e);
	if (res < 0)
		die("%s", e.msg);
	if (res == 0 && grid_error_empty(path, &e))
		die("%s", e.msg);
	if (getc(f) != EOF)
		die("%s: more than one grid: pleat-normalmap bakes one grid, "
		    "with the mesh of its frame", path);
	if (f != stdin)
		fclose(f);
}

/* The mesh: --mesh, else the grid's source key (the file pleat-resample
 * read), so that resample | solve | normalmap needs it named once. */
static const char *mesh_path(const struct options *o, const struct grid *g)
{
	if (o->mesh)
		return o->mesh;
	const char *src = grid_get_extra(g, "source");
	if (!src || strcmp(src, "-") == 0)
		die("%s: the grid does not name the mesh it was laid over "
		    "(its source key is %s): give --mesh", o->input,
		    src ? "-, standard input" : "absent");
	return src;
}

/* Whether every texture coordinate of the mesh is in the unit square:
 * where they are not (the toolkit's coordinates are metres), the default
 * map covers their box instead, as --uv-fit. */
static int uv_in_unit_square(const struct obj_mesh *m)
{
	for (int t = 0; t < m->ntri; t++)
		for (int k = 0; k < 3; k++) {
			const double *uv = m->vt[m->tri_vt[t][k]];
			if (uv[0] < 0 || uv[0] > 1 || uv[1] < 0 || uv[1] > 1)
				return 0;
		}
	return 1;
}

/* --uv-fit: the texture coordinates' bounding box, widened about its
 * centre along one axis so that texels are square in texture space. */
static void fit_region(const struct obj_mesh *m, const struct bake_options *b,
		       double r[4])
{
	r[0] = r[1] = HUGE_VAL;
	r[2] = r[3] = -HUGE_VAL;
	for (int t = 0; t < m->ntri; t++)
		for (int k = 0; k < 3; k++) {
			const double *uv = m->vt[m->tri_vt[t][k]];
			r[0] = fmin(r[0], uv[0]);
			r[1] = fmin(r[1], uv[1]);
			r[2] = fmax(r[2], uv[0]);
			r[3] = fmax(r[3], uv[1]);
		}
	double du = r[2] - r[0], dv = r[3] - r[1];
	double aspect = (double)b->width / b->height;
	if (du < dv * aspect)
		du = dv * aspect;
	else
		dv = du / aspect;
	if (!(du > 0))
		die("--uv-fit: the texture coordinates have no extent");
	double cu = 0.5 * (r[0] + r[2]), cv = 0.5 * (r[1] + r[3]);
	r[0] = cu - du / 2;
	r[2] = cu + du / 2;
	r[1] = cv - dv / 2;
	r[3] = cv + dv / 2;
}

/* ---- outputs --------------------------------------------------------- */

static void open_output(struct outfile *out, const char *path)
{
	struct error e;
	if (outfile_open(out, path, 1, &e))
		die("%s", e.msg);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The displacement in metres to [0, 1] over [-range, +range]. */
static size_t scale_displacement(struct map *m, double range)
{
	size_t n = (size_t)m->width * m->height, clamped = 0;
	for (size_t t = 0; t < n; t++) {
		double v = 0.5 + 0.5 * m->px[t] / range;
		clamped += v < 0 || v > 1;
		m->px[t] = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
	}
	return clamped;
}

static void write_map(const struct options *o, struct outfile *out, int k,
		      struct map *m)
{
	static const char *what[NMAPS] = {
		"tangent-space normal map (MikkTSpace)",
		"object-space normal map", "displacement along the coarse normal"};
	char text[512];
	struct error e;
	const double *r = o->b.region;
	int n = snprintf(text, sizeof text, "%s, texture coordinates %g,%g to %g,%g",
			 what[k], r[0], r[1], r[2], r[3]);
	if (k == MAP_TANGENT)
		snprintf(text + n, sizeof text - (size_t)n, ", green %s",
			 o->b.directx ? "-Y (DirectX)" : "+Y (OpenGL)");
	int bad;
	if (k != MAP_DISPLACEMENT) {
		bad = png_write_map(out, m, o->bits, "Description", text, &e);
	} else if (ends_with(o->path[k], ".pfm")) {
		bad = pfm_write_map(out, m, &e);
	} else {
		size_t clamped = scale_displacement(m, o->range);
		if (clamped)
			warnx("%s: %zu texels beyond +-%g m were clamped; see "
			      "--displacement-range", o->path[k], clamped, o->range);
		snprintf(text + n, sizeof text - (size_t)n,
			 ", 0.5 + metres / %g", 2 * o->range);
		bad = png_write_map(out, m, 16, "Description", text, &e);
	}
	if (bad)
		die("%s", e.msg);
}

static void report(const struct options *o, const struct surface *s,
		   const struct bake_stats *st)
{
	size_t n = (size_t)o->b.width * o->b.height;
	const double *r = o->b.region;
	if (!o->quiet)
		fprintf(stderr, "%s: %s: texture scale %.6g m per unit; map %d x "
			"%d over %g,%g to %g,%g%s: %zu island texels (%.1f%%), %zu "
			"without cloth around, %zu dilated\n", progname, o->input,
			s->uv_scale, o->b.width, o->b.height, r[0], r[1], r[2],
			r[3], o->uv_fit ? " (fitted)" : "", st->island,
			100.0 * st->island / n, st->fallback, st->dilated);
	if (st->clipped && !o->uv_fit)
		warnx("%s: %d triangles reach outside the texture coordinates "
		      "%g,%g to %g,%g that the map covers; see --uv-fit",
		      o->mesh, st->clipped, r[0], r[1], r[2], r[3]);
}

int main(int argc, char **argv)
{
	struct options o;
	struct outfile out[NMAPS + 1];
	struct obj_mesh m;
	struct grid g;
	struct coarse c;
	struct surface s;
	struct error e;
	progname = "pleat-normalmap";
	parse_options(argc, argv, &o);
	progress_init(o.verbose ? 1 : o.progress);
	/* outputs first: a path that cannot be written fails before the work */
	for (int k = 0; k < NMAPS; k++)
		if (o.path[k])
			open_output(&out[k], o.path[k]);
	if (o.preview)
		open_output(&out[NMAPS], o.preview);

	double t0 = now_seconds();
	read_grid(o.input, &g);
	int named = o.mesh != NULL;
	o.mesh = mesh_path(&o, &g);
	if (obj_load(&m, o.mesh, &e))
		die("%s%s", e.msg, named ? "" : " (the mesh the grid names as "
		    "its source; see --mesh)");
	double t1 = now_seconds();
	if (coarse_init(&c, &m, o.mesh, &e) ||
	    surface_init(&s, &g, o.input, &m, o.mesh, &e))
		die("%s", e.msg);
	double t2 = now_seconds();
	progress("read in %.2f s; frames and normals in %.2f s", t1 - t0, t2 - t1);

	if (!o.uv_fit && !o.have_region && !uv_in_unit_square(&m))
		o.uv_fit = 1;
	if (o.uv_fit)
		fit_region(&m, &o.b, o.b.region);
	struct map maps[NMAPS];
	struct bake_stats st;
	if (o.b.want[0] || o.b.want[1] || o.b.want[2]) {
		if (bake(&s, &c, &o.b, maps, &st, &e))
			die("%s", e.msg);
		double t3 = now_seconds();
		report(&o, &s, &st);
		for (int k = 0; k < NMAPS; k++)
			if (o.b.want[k]) {
				write_map(&o, &out[k], k, &maps[k]);
				map_free(&maps[k]);
			}
		progress("baked in %.2f s, written in %.2f s", t3 - t2,
			 now_seconds() - t3);
	}
	if (o.preview) {
		double t4 = now_seconds();
		struct map pv;
		if (preview(&s, o.preview_size, &pv, &e) ||
		    png_write_map(&out[NMAPS], &pv, 8, "Description",
				  "shaded preview of the wrinkles over the pattern", &e))
			die("%s", e.msg);
		progress("preview %d x %d in %.2f s", pv.width, pv.height,
			 now_seconds() - t4);
		if (!o.quiet)
			fprintf(stderr, "%s: %s: preview %d x %d\n", progname,
				o.preview, pv.width, pv.height);
		map_free(&pv);
	}
	surface_free(&s);
	coarse_free(&c);
	grid_free(&g);
	obj_free(&m);
	return 0;
}

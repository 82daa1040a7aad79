/* pleat-simplify - the grid's surface as a simplified triangle mesh.
 *
 * Reads grids and writes, for each, a mesh (OBJ or binary PLY) whose
 * triangles follow a quadtree over the grid: large where the cloth is
 * flat, down to the grid's own cells where it wrinkles and along the
 * panels' edges.  With --one-topology (or --pc2) every grid gets the same
 * triangles, the union of what each one needs, so a sequence is one mesh
 * and a point cache. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "grid.h"
#include "meshio.h"
#include "outfile.h"
#include "output.h"
#include "progress.h"
#include "simplify.h"

static const char usage_text[] =
"usage: pleat-simplify [--tolerance mm] [-o file] [-f format] [-1]\n"
"                      [--pc2 file] [--start-frame n] [--open-seams]\n"
"                      [--allow-intersections] [--progress] [-q] [-v]\n"
"                      [file ...]\n"
"\n"
"Simplify the surface of each grid into a triangle mesh with texture\n"
"coordinates (the pattern, in metres) and normals.\n"
"\n"
"      --tolerance MM   how far a grid vertex may be from the mesh, in\n"
"                       millimetres (default 0.1)\n"
"  -o, --output FILE    write to FILE instead of standard output; a %d\n"
"                       in FILE (or %04d...) numbers the grids from 0\n"
"  -f, --format F       obj or ply (default: from FILE's extension; obj\n"
"                       on standard output)\n"
"  -1, --one-topology   the same triangles for every grid: the union of\n"
"                       what each needs (reads the input more than once)\n"
"      --pc2 FILE       write every grid's vertex positions to a PC2\n"
"                       point cache; implies --one-topology\n"
"      --start-frame N  the PC2 start frame (default 0)\n"
"      --open-seams     leave the panels apart along seams (default:\n"
"                       join them with a strip of triangles)\n"
"      --allow-intersections  do not refine where the mesh intersects\n"
"                       itself (faster; default: refine back towards\n"
"                       the grid there)\n"
"      --progress       report each stage on standard error\n"
"  -v, --verbose        the same as --progress\n"
"  -q, --quiet          no summary line per grid\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"With no file, or when file is -, read standard input.\n"
"See pleat-simplify(1) and pleat-grid(5).\n";

enum format { FORMAT_AUTO, FORMAT_OBJ, FORMAT_PLY };

struct options {
	double tol;             /* metres */
	enum format format;
	const char *output, *pc2;
	int numbered;           /* output holds a %d */
	int one_topology, close_seams, untangle, progress, quiet;
	double start_frame;
	char **files;
	int nfiles;
};

enum { OPT_PC2 = 256, OPT_START, OPT_OPEN_SEAMS, OPT_PROGRESS,
       OPT_TOLERANCE, OPT_ALLOW };

static enum format parse_format(const char *s)
{
	if (strcmp(s, "obj") == 0)
		return FORMAT_OBJ;
	if (strcmp(s, "ply") == 0)
		return FORMAT_PLY;
	usage_fail("--format: '%s' is not obj or ply", s);
}

/* The format named by the output's extension; obj on standard output. */
static enum format format_of(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (strcmp(name, "-") == 0)
		return FORMAT_OBJ;
	if (dot && strcasecmp(dot, ".obj") == 0)
		return FORMAT_OBJ;
	if (dot && strcasecmp(dot, ".ply") == 0)
		return FORMAT_PLY;
	usage_fail("--output: cannot tell the format of '%s' from its "
		   "extension: use --format obj or ply", name);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"tolerance", required_argument, NULL, OPT_TOLERANCE},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"one-topology", no_argument, NULL, '1'},
		{"pc2", required_argument, NULL, OPT_PC2},
		{"start-frame", required_argument, NULL, OPT_START},
		{"open-seams", no_argument, NULL, OPT_OPEN_SEAMS},
		{"allow-intersections", no_argument, NULL, OPT_ALLOW},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	memset(o, 0, sizeof *o);
	o->tol = 0.1e-3;
	o->output = "-";
	o->close_seams = 1;
	o->untangle = 1;
	o->progress = -1;
	opterr = 0;
	/* -t: the old spelling, for one release */
	while ((c = getopt_long(argc, argv, ":t:o:f:1qvhV", longopts, NULL)) != -1)
		switch (c) {
		case 't': deprecated_short('t', "--tolerance"); /* fall through */
		case OPT_TOLERANCE: o->tol = 1e-3 * parse_double("--tolerance", optarg, 0, 1e6); break;
		case 'o': o->output = optarg; break;
		case 'f': o->format = parse_format(optarg); break;
		case '1': o->one_topology = 1; break;
		case OPT_PC2: o->pc2 = optarg; o->one_topology = 1; break;
		case OPT_START: o->start_frame = parse_double("--start-frame", optarg, -1e7, 1e7); break;
		case OPT_OPEN_SEAMS: o->close_seams = 0; break;
		case OPT_ALLOW: o->untangle = 0; break;
		case OPT_PROGRESS: o->progress = 1; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->progress = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("pleat-simplify %s\n", PLEAT_VERSION); exit(0);
		default: usage_bad_option(c, argv);
		}
	if (strlen(o->output) > 4000)
		usage_fail("--output: the name is longer than 4000 bytes");
	o->numbered = name_numbered(o->output);
	if (o->numbered < 0)
		usage_fail("--output: '%s' may hold one %%d (or %%04d...) and no "
			   "other %% conversion; write %%%% for a %%", o->output);
	if (o->pc2 && strcmp(o->pc2, "-") == 0 && strcmp(o->output, "-") == 0)
		usage_fail("--pc2 -: the mesh goes to standard output already; "
			   "give one of them --output or a file name");
	if (o->format == FORMAT_AUTO)
		o->format = format_of(o->output);
	o->files = argv + optind;
	o->nfiles = argc - optind;
}

/* ---- inputs --------------------------------------------------------- */

struct input {
	const char *name;
	FILE *f;
	off_t start;           /* where its first grid begins */
	int reread;            /* each reading starts at start */
};

/* Standard input copied to a temporary file, for a second reading. */
static FILE *spool(FILE *in)
{
	FILE *t = tmpfile();
	char *buf = xmalloc(1 << 20);
	size_t n;
	if (!t)
		die("cannot create a temporary file for standard input: %s",
		    strerror(errno));
	while ((n = fread(buf, 1, 1 << 20, in)) > 0)
		if (fwrite(buf, 1, n, t) != n)
			die("cannot keep standard input in a temporary file: %s",
			    strerror(errno));
	if (ferror(in))
		die("-: read error: %s", strerror(errno));
	free(buf);
	rewind(t);
	return t;
}

/* Every input opened before anything is written.  When they are to be
 * read again, standard input that is not a file is kept in a temporary
 * file. */
static struct input *open_inputs(const struct options *o, int *n,
				 int reread)
{
	static char *stdin_name[] = {"-"};
	char **files = o->nfiles ? o->files : stdin_name;
	*n = o->nfiles ? o->nfiles : 1;
	struct input *in = xcalloc((size_t)*n, sizeof *in);
	for (int k = 0; k < *n; k++) {
		in[k].name = files[k];
		in[k].reread = reread;
		if (strcmp(files[k], "-") != 0) {
			if (!(in[k].f = fopen(files[k], "rb")))
				die("cannot open %s: %s", files[k], strerror(errno));
			continue;
		}
		struct stat st;
		in[k].f = stdin;
		widen_pipe(fileno(stdin));
		if (reread && (fstat(fileno(stdin), &st) != 0 ||
			       !S_ISREG(st.st_mode) ||
			       (in[k].start = ftello(stdin)) < 0))
			in[k].f = spool(stdin);
		if (in[k].start < 0)
			in[k].start = 0;
	}
	return in;
}

static void close_inputs(struct input *in, int n)
{
	for (int k = 0; k < n; k++)
		if (in[k].f != stdin)
			fclose(in[k].f);
	free(in);
}

/* Which grid: its input, its place there (from 1, as the grid reader's
 * messages count) and its place in the whole input (from 0, as outputs
 * are numbered). */
struct where {
	const char *name;
	int grid, k;
};

/* Calls fn on every grid of every input, in order, from the start. */
typedef void grid_fn(struct grid *g, const struct where *w, void *arg);

static int each_grid(struct input *in, int n, grid_fn *fn, void *arg)
{
	struct grid g;
	struct error e;
	int k = 0, res;
	for (int i = 0; i < n; i++) {
		struct grid_reader r = {.f = in[i].f, .name = in[i].name};
		if (in[i].reread && fseeko(in[i].f, in[i].start, SEEK_SET) != 0)
			die("%s: cannot read it again: %s", in[i].name,
			    strerror(errno));
		while ((res = grid_read(&r, &g, &e)) == 1) {
			struct where w = {in[i].name, r.index, k++};
			fn(&g, &w, arg);
			grid_free(&g);
		}
		if (res == 0 && r.index == 0)
			grid_error_empty(in[i].name, &e);
		if (res < 0 || r.index == 0)
			die("%s", e.msg);
	}
	return k;
}

/* ---- one grid ------------------------------------------------------- */

static void surface_of(struct surface *s, const struct grid *g,
		       const struct where *w, const struct options *o)
{
	static int said;
	struct error e;
	if (surface_init(s, g, o->close_seams, &e))
		die("%s: grid %d: %s", w->name, w->grid, e.msg);
	if (s->used_rest && !said) {
		fprintf(stderr, "%s: %s: no 'x' channel: simplifying the "
			"resampled surface ('rest')\n", progname, w->name);
		said = 1;
	}
}

static void write_mesh(const struct options *o, long k,
		       const struct simple_mesh *m)
{
	struct outfile out;
	struct error e;
	char name[4096];
	name_format(o->output, k, name, sizeof name);
	int ply = o->format == FORMAT_PLY;
	struct mesh_uv u;
	mesh_texture_corners(m, &u);
	struct out_mesh om = {m->nverts, (const float (*)[3])m->pos,
			      (const float (*)[2])(u.n ? u.uv : m->uv),
			      (const float (*)[3])m->normal, m->ntris,
			      (const int (*)[3])m->tris, u.n, u.vertex,
			      (const int (*)[3])u.tris};
	if (outfile_open(&out, name, ply, &e))
		die("%s", e.msg);
	const char *shown = strcmp(name, "-") ? name : "stdout";
	if ((ply ? mesh_write_ply : mesh_write_obj)(out.f, &om, shown, &e)) {
		outfile_abort(&out);
		die("%s", e.msg);
	}
	if (outfile_close(&out, &e))
		die("%s", e.msg);
	mesh_uv_free(&u);
}


/* The mesh of the tree over s, with its seams closed unless asked not
 * to. */
static void build_mesh(const struct options *o, const struct where *w,
		       struct simple_mesh *m, const struct qtree *q,
		       const struct surface *s, struct zip_stats *zs)
{
	struct error e;
	memset(zs, 0, sizeof *zs);
	if (mesh_build(m, q, s, &e) ||
	    (o->close_seams && mesh_zip_seams(m, s, zs, &e)))
		die("%s: grid %d: %s", w->name, w->grid, e.msg);
}

/* Mesh m (built over q and s) refined where it intersects itself, and
 * with flip its strip's rungs flipped, unless allowed; returns how many
 * times it was built again, the pairs left in zs. */
static int untangle(const struct options *o, const struct where *w,
		    struct simple_mesh *m, struct qtree *q,
		    const struct surface *s, int flip, struct zip_stats *zs)
{
	struct error e;
	int rounds = 0;
	if (!o->untangle)
		return 0;
	size_t left = mesh_untangle(m, q, s, o->close_seams, flip, zs, &rounds,
				    &e);
	if (left == (size_t)-1)
		die("%s: grid %d: %s", w->name, w->grid, e.msg);
	zs->pairs_left = (long)left;
	progress("%s: grid %d: refined %d times where the mesh intersected "
		 "itself, %d strip rungs flipped; %zu intersecting pairs left",
		 w->name, w->grid, rounds, zs->flips, left);
	return rounds;
}

/* ", N seam triangles" and what was left open, for the summary. */
static void seam_summary(const struct zip_stats *zs)
{
	if (zs->welded)
		fprintf(stderr, ", %d seam vertex pairs welded", zs->welded);
	if (zs->strip + zs->holes)
		fprintf(stderr, ", %d seam triangles", zs->strip + zs->holes);
	if (zs->open_edges)
		fprintf(stderr, ", %ld seam edges left open", zs->open_edges);
	if (zs->pairs_left)
		fprintf(stderr, ", %ld intersecting triangle pairs left",
			zs->pairs_left);
}

static void summary(const struct options *o, const struct where *w,
		    const struct surface *s, const struct simple_mesh *m,
		    const struct zip_stats *zs, double seconds)
{
	if (o->quiet)
		return;
	fprintf(stderr, "%s: %s: grid %d: %d x %d, %zu cloth vertices -> %d "
		"vertices, %d triangles (tolerance %g mm", progname, w->name,
		w->grid, s->w, s->h, s->ncloth, m->nverts, m->ntris,
		o->tol * 1e3);
	seam_summary(zs);
	fprintf(stderr, "); %.3f s\n", seconds);
}

/* ---- each grid its own mesh ------------------------------------------ */

struct stream {
	const struct options *o;
	struct simple_mesh held;   /* the last mesh, until the next grid */
	int holding;
};

static void simplify_one(struct grid *g, const struct where *w, void *arg)
{
	struct stream *st = arg;
	const struct options *o = st->o;
	struct surface s;
	struct qtree q;
	struct zip_stats zs;
	if (st->holding && !o->numbered)
		die("%s: grid %d: the input holds more than one grid: number the "
		    "outputs (--output 'frame%%04d.obj') or use --pc2", w->name,
		    w->grid);
	double t0 = now_seconds(), t1, t2, t3;
	surface_of(&s, g, w, o);
	s.weld = twins_weldable(&s, 2 * o->tol);
	qtree_init(&q, s.w, s.h, o->tol);
	t1 = now_seconds();
	qtree_refine(&q, &s);
	t2 = now_seconds();
	int passes = 1;
	while (qtree_settle(&q, &s) > 0)
		passes++;
	t3 = now_seconds();
	build_mesh(o, w, &st->held, &q, &s, &zs);
	untangle(o, w, &st->held, &q, &s, 1, &zs);
	progress("%s: grid %d: surface %.3f s, refinement %.3f s, balance "
		 "and checks %.3f s (%d passes), mesh %.3f s", w->name, w->grid,
		 t1 - t0, t2 - t1, t3 - t2, passes, now_seconds() - t3);
	summary(o, w, &s, &st->held, &zs, now_seconds() - t0);
	qtree_free(&q);
	surface_free(&s);
	if (o->numbered) {
		write_mesh(o, w->k, &st->held);
		mesh_free(&st->held);
	} else {
		st->holding = 1;
	}
}

static void simplify_each(const struct options *o, struct input *in, int n)
{
	struct stream st = {.o = o};
	each_grid(in, n, simplify_one, &st);
	if (st.holding) {
		write_mesh(o, 0, &st.held);
		mesh_free(&st.held);
	}
}

/* ---- one topology for all grids --------------------------------------
 *
 * Pass 1 refines every grid and keeps the union of the refinements.
 * Then passes check every grid's leaves that gained midpoints against
 * that grid, until a whole pass changes nothing: then every grid is
 * within the tolerance of the one topology.  The last pass writes. */

struct sequence {
	const struct options *o;
	struct qtree tree;         /* the union */
	struct surface first;      /* grid 0's layout (cells only) */
	int changed;               /* in this checking pass */
	struct simple_mesh mesh;
	struct zip_stats zip;
	struct outfile pc2;
	int nframes;
	int weld;                  /* every frame's twins can be welded */
	struct mesh_uv uv;         /* the mesh's corners' texture coordinates */
	float (*split)[3];         /* a PLY's points, one per coordinate */
};

/* The frame's points for the PC2 cache: the mesh file's vertices, so one
 * per texture coordinate in a PLY with welded seams (see out_mesh). */
static const float (*pc2_points(struct sequence *sq, int *n))[3]
{
	const struct mesh_uv *u = &sq->uv;
	if (sq->o->format != FORMAT_PLY || !u->n) {
		*n = sq->mesh.nverts;
		return (const float (*)[3])sq->mesh.pos;
	}
	if (!sq->split)
		sq->split = xmalloc_array((size_t)u->n, sizeof *sq->split);
	for (int k = 0; k < u->n; k++)
		memcpy(sq->split[k], sq->mesh.pos[u->vertex[k]],
		       sizeof sq->split[k]);
	*n = u->n;
	return (const float (*)[3])sq->split;
}

static void same_layout(struct sequence *sq, struct surface *s,
			const struct where *w)
{
	if (w->k > 0 && !surface_same_layout(&sq->first, s))
		die("%s: grid %d: its layout (size, cell, origin, cloth or "
		    "panels) differs from the first grid's: one topology needs "
		    "the same layout in every grid", w->name, w->grid);
}

static void refine_frame(struct grid *g, const struct where *w, void *arg)
{
	struct sequence *sq = arg;
	struct surface s;
	struct qtree q;
	surface_of(&s, g, w, sq->o);
	same_layout(sq, &s, w);
	/* the twins are welded when every frame's can be */
	if (sq->weld && twins_weldable(&s, 2 * sq->o->tol) < 0)
		sq->weld = 0;
	qtree_init(&q, s.w, s.h, sq->o->tol);
	qtree_refine(&q, &s);
	progress("%s: grid %d refined", w->name, w->grid);
	if (w->k == 0) {
		sq->tree = q;
		sq->first = s;
		sq->first.x = NULL;   /* the grid's memory; not kept */
		sq->first.grid = NULL;
		sq->first.mask = NULL;
		sq->first.panel = NULL;
		sq->first.seam = NULL;
		return;
	}
	qtree_merge(&sq->tree, &q);
	qtree_free(&q);
	surface_free(&s);
}

/* The tree checked against one frame: the tolerance, then (with the
 * frame's own strips) the intersections.  No flips: the mesh is not
 * kept, and the written one has the first frame's strip (write_frame). */
static void check_frame(struct grid *g, const struct where *w, void *arg)
{
	struct sequence *sq = arg;
	struct surface s;
	surface_of(&s, g, w, sq->o);
	s.weld = sq->weld;
	qtree_forget_checks(&sq->tree);
	while (qtree_settle(&sq->tree, &s) > 0)
		sq->changed = 1;
	if (sq->o->untangle) {
		struct simple_mesh m;
		struct zip_stats zs;
		build_mesh(sq->o, w, &m, &sq->tree, &s, &zs);
		if (untangle(sq->o, w, &m, &sq->tree, &s, 0, &zs) > 0)
			sq->changed = 1;
		mesh_free(&m);
	}
	surface_free(&s);
}

static void write_frame(struct grid *g, const struct where *w, void *arg)
{
	struct sequence *sq = arg;
	const struct options *o = sq->o;
	struct surface s;
	surface_of(&s, g, w, o);
	s.weld = sq->weld;
	long pairs = -1;
	int npoints;
	if (w->k == 0) {
		build_mesh(o, w, &sq->mesh, &sq->tree, &s, &sq->zip);
		/* the strip is the first frame's, and so are its flips */
		if (o->untangle && o->close_seams)
			pairs = (long)mesh_flip_strips(&sq->mesh, &s,
				sq->mesh.ntris - sq->zip.strip - sq->zip.holes,
				&sq->zip.flips);
		if (o->pc2) {
			mesh_texture_corners(&sq->mesh, &sq->uv);
			pc2_points(sq, &npoints);
			pc2_header(sq->pc2.f, npoints, (float)o->start_frame,
				   1.0f, sq->nframes);
		}
	} else {
		mesh_update(&sq->mesh, &s);
	}
	if (o->untangle) {
		/* the first frame's strips: the pairs the frame really has */
		if (pairs < 0)
			pairs = (long)mesh_intersections(&sq->mesh);
		if (pairs > sq->zip.pairs_left)
			sq->zip.pairs_left = pairs;
	}
	if (o->pc2) {
		const float (*points)[3] = pc2_points(sq, &npoints);
		pc2_sample(sq->pc2.f, points, npoints);
	}
	if (w->k == 0 || o->numbered)
		write_mesh(o, w->k, &sq->mesh);
	surface_free(&s);
}

static void simplify_sequence(const struct options *o, struct input *in,
			      int n)
{
	struct sequence sq = {.o = o, .weld = 1};
	struct error e;
	double t0 = now_seconds();
	sq.nframes = each_grid(in, n, refine_frame, &sq);
	if (sq.nframes > 1 && !o->numbered && !o->pc2)
		die("%s: the input holds %d grids: number the outputs (--output "
		    "'frame%%04d.obj') or use --pc2", in[n - 1].name, sq.nframes);
	int passes = 0;
	do {
		sq.changed = 0;
		each_grid(in, n, check_frame, &sq);
		progress("checking pass %d: %s", ++passes,
			 sq.changed ? "leaves split" : "no change");
	} while (sq.changed);
	if (o->pc2 && outfile_open(&sq.pc2, o->pc2, 1, &e))
		die("%s", e.msg);
	each_grid(in, n, write_frame, &sq);
	if (o->pc2 && outfile_close(&sq.pc2, &e))
		die("%s", e.msg);
	if (!o->quiet) {
		fprintf(stderr, "%s: one topology for %d grids: %d vertices, %d "
			"triangles (tolerance %g mm", progname, sq.nframes,
			sq.mesh.nverts, sq.mesh.ntris, o->tol * 1e3);
		seam_summary(&sq.zip);
		fprintf(stderr, "); %.3f s\n", now_seconds() - t0);
	}
	mesh_free(&sq.mesh);
	mesh_uv_free(&sq.uv);
	free(sq.split);
	qtree_free(&sq.tree);
	surface_free(&sq.first);
}

int main(int argc, char **argv)
{
	struct options o;
	int n;
	progname = "pleat-simplify";
	parse_options(argc, argv, &o);
	progress_init(o.progress);
	struct input *in = open_inputs(&o, &n, o.one_topology);
	if (o.one_topology)
		simplify_sequence(&o, in, n);
	else
		simplify_each(&o, in, n);
	close_inputs(in, n);
	return 0;
}

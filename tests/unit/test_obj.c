/* test_obj - checks for the OBJ reader, the pattern builder and the mesh
 * writers.  tests/obj.bats runs one subcommand per test:
 *
 *   load FILE        counts, or the error message (stderr) and exit 1
 *   mem FILE         the same through obj_read_mem on an exact-size copy,
 *                    compared with obj_load field by field
 *   tris FILE        every triangle: face, position and texture indices
 *   verts FILE       every v and vt with %.9g
 *   pattern FILE     panel, boundary and seam counts; checks seam symmetry
 *   edges FILE       every boundary edge
 *   selftest         table of small inputs with exact expected results (TAP)
 *   roundtrip        OBJ and PLY writers read back and compared exactly
 *   writefail PATH   both writers on PATH (/dev/full): the error messages
 *   badtri           a writer given an out-of-range triangle index
 *   fuzz N           N mutated inputs through obj_read_mem and pattern_build
 *   time FILE N      best of N loads, in milliseconds
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meshio.h"
#include "obj.h"
#include "pattern.h"

static int load_or_report(struct obj_mesh *m, const char *path)
{
	struct error e;
	if (obj_load(m, path, &e) == 0)
		return 0;
	fprintf(stderr, "%s\n", e.msg);
	return -1;
}

static void print_counts(FILE *f, const struct obj_mesh *m)
{
	fprintf(f, "v %d vt %d tri %d face %d\n", m->nv, m->nvt, m->ntri,
		m->nface);
}

static int cmd_load(const char *path)
{
	struct obj_mesh m;
	if (load_or_report(&m, path) < 0)
		return 1;
	print_counts(stdout, &m);
	obj_free(&m);
	return 0;
}

/* The whole file in a buffer of exactly its size (no NUL after it), so
 * that ASan catches any read past the end. */
static char *read_exact(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = xmalloc(n > 0 ? (size_t)n : 1);
	*len = fread(buf, 1, (size_t)(n > 0 ? n : 0), f);
	fclose(f);
	return buf;
}

#define SAME(field, n) \
	((a->field == NULL) == (b->field == NULL) && \
	 (n == 0 || memcmp(a->field, b->field, (size_t)(n) * sizeof *a->field) == 0))

static int same_mesh(const struct obj_mesh *a, const struct obj_mesh *b)
{
	return a->nv == b->nv && a->nvt == b->nvt && a->ntri == b->ntri &&
	       a->nface == b->nface && SAME(v, a->nv) && SAME(vt, a->nvt) &&
	       SAME(tri_v, a->ntri) && SAME(tri_vt, a->ntri) &&
	       SAME(tri_face, a->ntri);
}

static int cmd_mem(const char *path)
{
	struct obj_mesh a, b;
	struct error e;
	size_t len = 0;
	char *buf = read_exact(path, &len);
	if (!buf) {
		fprintf(stderr, "cannot read %s\n", path);
		return 1;
	}
	int r = obj_read_mem(&a, buf, len, path, &e);
	free(buf);
	if (r < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	if (load_or_report(&b, path) < 0 || !same_mesh(&a, &b)) {
		fprintf(stderr, "obj_read_mem and obj_load differ\n");
		return 1;
	}
	print_counts(stdout, &a);
	obj_free(&a);
	obj_free(&b);
	return 0;
}

static int cmd_tris(const char *path)
{
	struct obj_mesh m;
	if (load_or_report(&m, path) < 0)
		return 1;
	for (int t = 0; t < m.ntri; t++)
		printf("f%d %d %d %d / %d %d %d\n", m.tri_face[t],
		       m.tri_v[t][0], m.tri_v[t][1], m.tri_v[t][2],
		       m.tri_vt[t][0], m.tri_vt[t][1], m.tri_vt[t][2]);
	obj_free(&m);
	return 0;
}

static int cmd_verts(const char *path)
{
	struct obj_mesh m;
	if (load_or_report(&m, path) < 0)
		return 1;
	for (int i = 0; i < m.nv; i++)
		printf("v %.9g %.9g %.9g\n", m.v[i][0], m.v[i][1], m.v[i][2]);
	for (int i = 0; i < m.nvt; i++)
		printf("vt %.9g %.9g\n", m.vt[i][0], m.vt[i][1]);
	obj_free(&m);
	return 0;
}

/* A seam edge's partner points back, joins the same two positions the
 * other way round or the same way, and differs in pattern coordinates. */
static int check_partner(const struct pattern *p, int i)
{
	const struct pattern_edge *a = &p->edges[i];
	if (a->partner < 0)
		return 0;
	if (a->partner >= p->nedges || a->partner == i)
		return -1;
	const struct pattern_edge *b = &p->edges[a->partner];
	int same = a->v[0] == b->v[0] && a->v[1] == b->v[1];
	int flip = a->v[0] == b->v[1] && a->v[1] == b->v[0];
	const double *b0 = same ? b->a : b->b, *b1 = same ? b->b : b->a;
	int uv_same = memcmp(a->a, b0, sizeof a->a) == 0 &&
		      memcmp(a->b, b1, sizeof a->b) == 0;
	if (b->partner != i || !(same || flip) || uv_same)
		return -1;
	return 0;
}

static int build_pattern(struct obj_mesh *m, struct pattern *p,
			 const char *path)
{
	struct error e;
	if (load_or_report(m, path) < 0)
		return -1;
	if (pattern_build(p, m, path, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		obj_free(m);
		return -1;
	}
	return 0;
}

static int cmd_pattern(const char *path)
{
	struct obj_mesh m;
	struct pattern p;
	int bad = 0, seams = 0;
	if (build_pattern(&m, &p, path) < 0)
		return 1;
	for (int i = 0; i < p.nedges; i++) {
		seams += p.edges[i].partner >= 0;
		if (check_partner(&p, i) < 0 && bad++ == 0)
			fprintf(stderr, "edge %d: bad partner\n", i);
	}
	printf("panels %d edges %d seam %d open %d\n", p.npanels, p.nedges,
	       p.nseam_edges, p.nedges - p.nseam_edges);
	if (seams != p.nseam_edges)
		bad++, fprintf(stderr, "nseam_edges %d, counted %d\n",
			       p.nseam_edges, seams);
	pattern_free(&p);
	obj_free(&m);
	return bad ? 1 : 0;
}

static int cmd_edges(const char *path)
{
	struct obj_mesh m;
	struct pattern p;
	if (build_pattern(&m, &p, path) < 0)
		return 1;
	for (int t = 0; t < m.ntri; t++)
		printf("tri %d panel %d\n", t, p.tri_panel[t]);
	for (int i = 0; i < p.nedges; i++) {
		const struct pattern_edge *ed = &p.edges[i];
		printf("edge %d tri %d panel %d v %d %d a %g %g b %g %g "
		       "partner %d\n", i, ed->tri, ed->panel, ed->v[0],
		       ed->v[1], ed->a[0], ed->a[1], ed->b[0], ed->b[1],
		       ed->partner);
	}
	pattern_free(&p);
	obj_free(&m);
	return 0;
}

/* ---- selftest: small inputs with exact results ---- */

struct mem_case {
	const char *what;
	const char *text;
	size_t len;          /* 0: strlen(text) */
	const char *expect;  /* counts line or error message */
};

static const struct mem_case mem_cases[] = {
	{ "triangle", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 0,
	  "v 3 vt 0 tri 1 face 1" },
	{ "v w and colours ignored", "v 0 0 0 1\nv 1 0 0 1 0.5 0.5\n"
	  "v 0 1 0\nf 1 2 3\n", 0, "v 3 vt 0 tri 1 face 1" },
	{ "vt w ignored", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0 0\nf 1/1 2/1 3/1\n",
	  0, "v 3 vt 1 tri 1 face 1" },
	{ "quad and pentagon", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
	  "v 0 2 0\nf 1 2 3 4\nf 1 2 3 4 5\n", 0, "v 5 vt 0 tri 5 face 2" },
	{ "negative indices", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n"
	  "v 0 0 1\nf -4 -2 -1\n", 0, "v 4 vt 0 tri 2 face 2" },
	{ "v//vn and v/vt/vn", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n"
	  "f 1//1 2//1 3//1\nf 1/1/1 2/1/1 3/1/-1\n", 0,
	  "v 3 vt 1 tri 2 face 2" },
	{ "inline comment, tabs, CR", "v\t0 0 0\r\nv 1 0 0 # x\r\n\r\n"
	  "  v 0 1 0\r\n\tf 1 2 3 # c\r", 0, "v 3 vt 0 tri 1 face 1" },
	{ "byte order mark", "\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3", 0,
	  "v 3 vt 0 tri 1 face 1" },
	{ "skipped records", "mtllib a.mtl\no x\ng a b:c\ns off\nusemtl m\n"
	  "v 0 0 0\nvv 0 0 0\nv 1 0 0\nv 0 1 0\nny 1 2\nt 0\nl 1 2\np 1\n"
	  "vp 0.5\ncstype bezier\nfoo\nf 1 2 3\n", 0, "v 3 vt 0 tri 1 face 1" },
	{ "underflow reads as zero", "v 1e-400 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
	  0, "v 3 vt 0 tri 1 face 1" },
	{ "hex and signs", "v 0x1p-2 +1 -0\nv 1 0 0\nv 0 1 0\nf +1 2 3\n", 0,
	  "v 3 vt 0 tri 1 face 1" },
	{ "empty", "", 0, "t: no mesh in the input (it is empty)" },
	{ "comments only", "# nothing\n\n", 0, "t: no faces" },
	{ "vertices only", "v 0 0 0\n", 0, "t: no faces" },
	{ "index 0", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 0,
	  "t: line 4: face index 0 is invalid (OBJ indices start at 1)" },
	{ "index past end", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 0,
	  "t: line 4: face index 4 out of range (3 vertices)" },
	{ "forward reference", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", 0,
	  "t: line 3: face index 3 out of range (2 vertices)" },
	{ "negative past start", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n", 0,
	  "t: line 4: face index -4 out of range (3 vertices)" },
	{ "huge index", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
	  "f 1 2 99999999999999999999999\n", 0,
	  "t: line 4: face index 99999999999999999999999 out of range "
	  "(3 vertices)" },
	{ "vt past end", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", 0,
	  "t: line 5: face texture index 2 out of range "
	  "(1 texture coordinates)" },
	{ "vt without any vt", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/1 3/1\n", 0,
	  "t: line 4: face texture index 1 out of range "
	  "(0 texture coordinates)" },
	{ "vn past end", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n", 0,
	  "t: line 4: face normal index 1 out of range (0 normals)" },
	{ "mixed vt", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2 3/1\n", 0,
	  "t: line 5: face mixes corners with and without texture "
	  "coordinates" },
	{ "mixed vt, v//vn", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n"
	  "f 1/1/1 2//1 3/1/1\n", 0, "t: line 6: face mixes corners with and "
	  "without texture coordinates" },
	{ "two corners", "v 0 0 0\nv 1 0 0\nf 1 2\n", 0,
	  "t: line 3: face has 2 corners (at least 3 needed)" },
	{ "no corners", "v 0 0 0\nf\n", 0,
	  "t: line 2: face has 0 corners (at least 3 needed)" },
	{ "no corners, comment", "v 0 0 0\nf # x\n", 0,
	  "t: line 2: face has 0 corners (at least 3 needed)" },
	{ "nan", "v 0 0 0\nv nan 0 0\n", 0,
	  "t: line 2: coordinate 'nan' is not a finite number" },
	{ "inf", "v 0 0 0\nvt inf 0\n", 0,
	  "t: line 2: coordinate 'inf' is not a finite number" },
	{ "overflow", "v 1e999 0 0\n", 0,
	  "t: line 1: coordinate '1e999' is not a finite number" },
	{ "bad number", "v 0 0 1.5x\n", 0, "t: line 1: bad number '1.5x'" },
	{ "bad extra number", "v 0 0 0 zz\n", 0, "t: line 1: bad number 'zz'" },
	{ "v short", "v 0 0\n", 0, "t: line 1: v needs 3 coordinates, found 2" },
	{ "vt short", "vt 0.5\n", 0,
	  "t: line 1: vt needs 2 coordinates, found 1" },
	{ "corner garbage", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", 0,
	  "t: line 4: bad face corner '3x'" },
	{ "corner slash only", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2/ 3/\n", 0,
	  "t: line 4: bad face corner '1/'" },
	{ "corner trailing slash", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n"
	  "f 1/1/ 2/1/ 3/1/\n", 0, "t: line 5: bad face corner '1/1/'" },
	{ "corner too many parts", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 1 0 0\n"
	  "f 1/1/1/1 2 3\n", 0, "t: line 6: bad face corner '1/1/1/1'" },
	{ "continuation unsupported", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 \\\n3\n",
	  0, "t: line 4: bad face corner '\\'" },
	{ "control bytes shown as ?", "v 0 0 \x1b[31m\n", 0,
	  "t: line 1: bad number '?[31m'" },
	{ "NUL byte", "v 0 0 0\nv 1\0 0 0\n", 17,
	  "t: line 2: NUL byte in line (not a text file?)" },
};

/* Runs the reader on one case and formats the result like the table. */
static void run_mem_case(const struct mem_case *c, char *out, size_t n)
{
	struct obj_mesh m;
	struct error e;
	size_t len = c->len ? c->len : strlen(c->text);
	char *copy = xmalloc(len ? len : 1);   /* exact size, no NUL */
	memcpy(copy, c->text, len);
	if (obj_read_mem(&m, copy, len, "t", &e) == 0) {
		snprintf(out, n, "v %d vt %d tri %d face %d", m.nv, m.nvt,
			 m.ntri, m.nface);
		obj_free(&m);
	} else {
		snprintf(out, n, "%s", e.msg);
		if (m.v || m.vt || m.tri_v || m.ntri)
			snprintf(out, n, "mesh not cleared after error");
	}
	free(copy);
}

static int tap(int *num, int ok, const char *what)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++*num, what);
	return ok ? 0 : 1;
}

/* A face of n corners on n vertices, built as text. */
static char *polygon_text(int n, size_t *len)
{
	size_t cap = (size_t)n * 32 + 64, k = 0;
	char *s = xmalloc(cap);
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(s + k, cap - k, "v %d 0 0\n", i);
	k += (size_t)snprintf(s + k, cap - k, "f");
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(s + k, cap - k, " %d", i + 1);
	k += (size_t)snprintf(s + k, cap - k, "\n");
	*len = k;
	return s;
}

static int polygon_case(int *num, int n, int expect_ok)
{
	struct obj_mesh m;
	struct error e;
	size_t len;
	char *s = polygon_text(n, &len), what[80];
	int r = obj_read_mem(&m, s, len, "p", &e);
	free(s);
	snprintf(what, sizeof what, "%d-gon %s", n,
		 expect_ok ? "is fanned" : "is refused");
	int ok = expect_ok ? r == 0 && m.ntri == n - 2 && m.tri_v[n - 3][0] == 0
				 && m.tri_v[n - 3][2] == n - 1
			   : r < 0 && strcmp(e.msg, "p: line 4098: face has "
					     "more than 4096 corners") == 0;
	if (r == 0)
		obj_free(&m);
	return tap(num, ok, what);
}

/* A 3 MB comment line, then a triangle: nothing is cut or misread. */
static int long_line_case(int *num)
{
	struct obj_mesh m;
	struct error e;
	size_t n = 3u << 20, len;
	const char *tail = "\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
	char *s = xmalloc(n + strlen(tail));
	memset(s, 'x', n);
	s[0] = '#';
	memcpy(s + n, tail, strlen(tail));
	len = n + strlen(tail);
	int r = obj_read_mem(&m, s, len, "long", &e);
	int ok = r == 0 && m.nv == 3 && m.ntri == 1;
	if (r == 0)
		obj_free(&m);
	/* The same long line as a v record is an error, not a silent cut. */
	memcpy(s, "v 1 2 3 ", 8);
	r = obj_read_mem(&m, s, len, "long", &e);
	free(s);
	ok = ok && r < 0 && strncmp(e.msg, "long: line 1: bad number 'xxx",
				    29) == 0;
	return tap(num, ok, "3 MB line");
}

static uint32_t rng(void);

/* A random decimal of up to 17 digits, sometimes with an exponent, to
 * cover both the reader's fast path and its strtod fallback. */
static int random_number(char *s, size_t n)
{
	int k = snprintf(s, n, "%s", rng() % 2 ? "-" : "");
	int lead = (int)(rng() % 7), frac = (int)(rng() % 12);
	for (int i = 0; i < lead; i++)
		k += snprintf(s + k, n - (size_t)k, "%u", rng() % 10);
	k += snprintf(s + k, n - (size_t)k, "%s", rng() % 8 ? "." : "");
	for (int i = 0; i < frac || lead + i == 0; i++)
		k += snprintf(s + k, n - (size_t)k, "%u", rng() % 10);
	if (rng() % 10 == 0)
		k += snprintf(s + k, n - (size_t)k, "e%d", (int)(rng() % 40) - 20);
	return k;
}

/* Every coordinate read equals strtod of its text, bit for bit. */
static int numbers_case(int *num)
{
	enum { N = 30000 };
	size_t cap = (size_t)N * 3 * 24 + 64, len = 0;
	char *s = xmalloc(cap), (*tok)[24] = xmalloc_array(N * 3, 24);
	struct obj_mesh m;
	struct error e;
	int ok = 1;
	for (int i = 0; i < N * 3; i++) {
		random_number(tok[i], sizeof tok[i]);
		len += (size_t)snprintf(s + len, cap - len, "%s%s%s",
					i % 3 ? " " : "v ", tok[i],
					i % 3 == 2 ? "\n" : "");
	}
	len += (size_t)snprintf(s + len, cap - len, "f 1 2 3\n");
	ok = obj_read_mem(&m, s, len, "n", &e) == 0;
	if (!ok)
		printf("# %s\n", e.msg);
	for (int i = 0; ok && i < N * 3; i++) {
		double want = strtod(tok[i], NULL);
		ok = memcmp(&want, &m.v[i / 3][i % 3], sizeof want) == 0;
		if (!ok)
			printf("# %s read as %.17g\n", tok[i], m.v[i / 3][i % 3]);
	}
	if (m.v)
		obj_free(&m);
	free(tok);
	free(s);
	return tap(num, ok, "numbers equal strtod bit for bit");
}

static int cmd_selftest(void)
{
	int num = 0, fails = 0;
	size_t n = sizeof mem_cases / sizeof mem_cases[0];
	printf("1..%zu\n", n + 4);
	for (size_t i = 0; i < n; i++) {
		char got[600];
		run_mem_case(&mem_cases[i], got, sizeof got);
		int ok = strcmp(got, mem_cases[i].expect) == 0;
		if (!ok)
			printf("# expected: %s\n# got:      %s\n",
			       mem_cases[i].expect, got);
		fails += tap(&num, ok, mem_cases[i].what);
	}
	fails += polygon_case(&num, OBJ_MAX_FACE_CORNERS, 1);
	fails += polygon_case(&num, OBJ_MAX_FACE_CORNERS + 1, 0);
	fails += long_line_case(&num);
	fails += numbers_case(&num);
	return fails ? 1 : 0;
}

/* ---- writers ---- */

static const float rt_pos[5][3] = {
	{ 0, 0, 0 }, { 1.0f / 3, -2.5e-7f, 1e30f }, { -0.1f, 0.2f, 0.3f },
	{ 123456.789f, -1e-30f, 3.14159265f }, { -0.0f, 7, 8 } };
static const float rt_uv[5][2] = {
	{ 0, 0 }, { 0.1f, 0.2f }, { 2.0f / 3, 1e-8f }, { 1, 1 }, { 5, -5 } };
static const float rt_nrm[5][3] = {
	{ 0, 0, 1 }, { 0.6f, 0.8f, 0 }, { 1, 0, 0 }, { 0, 1, 0 },
	{ 0.57735027f, 0.57735027f, 0.57735027f } };
static const int rt_tris[3][3] = { { 0, 1, 2 }, { 0, 2, 3 }, { 4, 3, 1 } };

static struct out_mesh rt_mesh(int uv, int normal)
{
	struct out_mesh m = { 5, rt_pos, uv ? rt_uv : NULL,
			      normal ? rt_nrm : NULL, 3, rt_tris, 0, NULL, NULL };
	return m;
}

/* Written floats read back as doubles must round to the same floats. */
static int same_float(double d, float f)
{
	float g = (float)d;
	return memcmp(&g, &f, sizeof g) == 0;
}

static int obj_matches(const struct obj_mesh *r, const struct out_mesh *w)
{
	if (r->nv != w->nverts || r->ntri != w->ntris ||
	    r->nvt != (w->uv ? w->nverts : 0))
		return 0;
	for (int i = 0; i < w->nverts; i++)
		for (int k = 0; k < 3; k++)
			if (!same_float(r->v[i][k], w->pos[i][k]) ||
			    (w->uv && k < 2 && !same_float(r->vt[i][k],
							   w->uv[i][k])))
				return 0;
	for (int t = 0; t < w->ntris; t++)
		for (int k = 0; k < 3; k++)
			if (r->tri_v[t][k] != w->tris[t][k] ||
			    r->tri_vt[t][k] != (w->uv ? w->tris[t][k] : -1))
				return 0;
	return 1;
}

static int obj_roundtrip(const struct out_mesh *w)
{
	struct obj_mesh r;
	struct error e;
	FILE *f = tmpfile();
	int ok = f && mesh_write_obj(f, w, "tmp", &e) == 0;
	if (ok) {
		rewind(f);
		ok = obj_read(&r, f, "tmp", &e) == 0;
		if (!ok)
			printf("# %s\n", e.msg);
	}
	if (ok) {
		ok = obj_matches(&r, w);
		obj_free(&r);
	}
	if (f)
		fclose(f);
	return ok;
}

static const char *ply_expected_header(const struct out_mesh *w, char *buf,
				       size_t n)
{
	snprintf(buf, n, "ply\nformat binary_little_endian 1.0\n"
		 "comment written by pleat %s\nelement vertex %d\n"
		 "property float x\nproperty float y\nproperty float z\n%s%s"
		 "element face %d\nproperty list uchar int vertex_indices\n"
		 "end_header\n", PLEAT_VERSION, w->nverts,
		 w->normal ? "property float nx\nproperty float ny\n"
			     "property float nz\n" : "",
		 w->uv ? "property float s\nproperty float t\n" : "",
		 w->ntris);
	return buf;
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int float_at(const unsigned char *p, float want)
{
	uint32_t bits = get_u32(p), wb;
	memcpy(&wb, &want, sizeof wb);
	return bits == wb;
}

/* The binary body: vertex records, then count + indices per face. */
static int ply_body_matches(const unsigned char *p, size_t len,
			    const struct out_mesh *w)
{
	size_t vsize = 4 * (3 + (w->normal ? 3 : 0) + (w->uv ? 2 : 0));
	if (len != vsize * (size_t)w->nverts + 13 * (size_t)w->ntris)
		return 0;
	for (int i = 0; i < w->nverts; i++) {
		for (int k = 0; k < 3; k++, p += 4)
			if (!float_at(p, w->pos[i][k]))
				return 0;
		for (int k = 0; w->normal && k < 3; k++, p += 4)
			if (!float_at(p, w->normal[i][k]))
				return 0;
		for (int k = 0; w->uv && k < 2; k++, p += 4)
			if (!float_at(p, w->uv[i][k]))
				return 0;
	}
	for (int t = 0; t < w->ntris; t++, p += 13)
		if (p[0] != 3 || get_u32(p + 1) != (uint32_t)w->tris[t][0] ||
		    get_u32(p + 5) != (uint32_t)w->tris[t][1] ||
		    get_u32(p + 9) != (uint32_t)w->tris[t][2])
			return 0;
	return 1;
}

static int ply_roundtrip(const struct out_mesh *w)
{
	struct error e;
	char head[1024];
	unsigned char buf[4096];
	FILE *f = tmpfile();
	if (!f || mesh_write_ply(f, w, "tmp", &e) < 0)
		return 0;
	rewind(f);
	size_t len = fread(buf, 1, sizeof buf, f);
	fclose(f);
	size_t hl = strlen(ply_expected_header(w, head, sizeof head));
	return len >= hl && memcmp(buf, head, hl) == 0 &&
	       ply_body_matches(buf + hl, len - hl, w);
}

static int cmd_roundtrip(void)
{
	int num = 0, fails = 0;
	printf("1..8\n");
	for (int c = 0; c < 4; c++) {
		struct out_mesh w = rt_mesh(c & 1, c & 2);
		char what[64];
		snprintf(what, sizeof what, "obj uv=%d normal=%d", c & 1,
			 !!(c & 2));
		fails += tap(&num, obj_roundtrip(&w), what);
		what[0] = 'p', what[1] = 'l', what[2] = 'y';
		fails += tap(&num, ply_roundtrip(&w), what);
	}
	return fails ? 1 : 0;
}

static int cmd_writefail(const char *path)
{
	struct out_mesh w = rt_mesh(1, 1);
	struct error e;
	int fails = 0;
	for (int ply = 0; ply < 2; ply++) {
		FILE *f = fopen(path, "wb");
		if (!f) {
			perror(path);
			return 1;
		}
		int r = ply ? mesh_write_ply(f, &w, path, &e)
			    : mesh_write_obj(f, &w, path, &e);
		fclose(f);
		if (r == 0)
			fails++, printf("%s: no error\n", ply ? "ply" : "obj");
		else
			printf("%s\n", e.msg);
	}
	return fails ? 1 : 0;
}

static int cmd_badtri(void)
{
	static const int bad[1][3] = { { 0, 1, 5 } };
	struct out_mesh w = rt_mesh(0, 0);
	struct error e;
	w.ntris = 1;
	w.tris = bad;
	if (mesh_write_obj(stdout, &w, "out.obj", &e) == 0)
		return 1;
	printf("%s\n", e.msg);
	if (mesh_write_ply(stdout, &w, "out.ply", &e) == 0)
		return 1;
	printf("%s\n", e.msg);
	return 0;
}

/* ---- fuzz: deterministic mutations, checked by ASan/UBSan ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static const char *const seeds[] = {
	"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\n"
	"vt 0 1\nf 1/1 2/2 3/3 4/4\nf -4/-4 -2/-2 -1/-1\n",
	"v 0 0 0\r\nvv 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nvn 0 0 1\r\n"
	"f 1//1 2//1 3//1\r\nt 0\r\ng a:b\r\n",
	"v 1 2 3\nv 4 5 6\nv 7 8 9\nvt 0.5 0.5\nvt 1 0.5\nvt 1 1\n"
	"vt 9 9\nf 1/1/1 2/2/1 3/3/1\nf 1/4 3/3 2/2\n",
};

static void mutate(char *s, size_t *len, size_t cap)
{
	static const char alphabet[] = "0123456789 -+/.\nvtfn#e\r\t\0x";
	size_t pos = *len ? rng() % *len : 0;
	char c = alphabet[rng() % (sizeof alphabet - 1)];
	switch (rng() % 3) {
	case 0:
		if (*len)
			s[pos] = c;
		break;
	case 1:
		if (*len + 1 < cap) {
			memmove(s + pos + 1, s + pos, *len - pos);
			s[pos] = c, (*len)++;
		}
		break;
	default:
		if (*len) {
			memmove(s + pos, s + pos + 1, *len - pos - 1);
			(*len)--;
		}
	}
}

/* Every index of a successfully read mesh is in range. */
static int mesh_sane(const struct obj_mesh *m)
{
	for (int t = 0; t < m->ntri; t++)
		for (int k = 0; k < 3; k++)
			if (m->tri_v[t][k] < 0 || m->tri_v[t][k] >= m->nv ||
			    m->tri_vt[t][k] >= m->nvt || m->tri_vt[t][k] < -1 ||
			    m->tri_face[t] >= m->nface)
				return 0;
	return 1;
}

static int fuzz_one(const char *buf, size_t len)
{
	struct obj_mesh m;
	struct pattern p;
	struct error e;
	char *exact = xmalloc(len ? len : 1);
	memcpy(exact, buf, len);
	int r = obj_read_mem(&m, exact, len, "fuzz", &e);
	free(exact);
	if (r < 0)
		return 0;
	int ok = mesh_sane(&m);
	if (pattern_build(&p, &m, "fuzz", &e) == 0) {
		for (int i = 0; i < p.nedges; i++)
			ok = ok && check_partner(&p, i) == 0;
		pattern_free(&p);
	}
	obj_free(&m);
	return ok ? 0 : -1;
}

static int cmd_fuzz(long iters)
{
	char buf[1024];
	int nseeds = (int)(sizeof seeds / sizeof seeds[0]);
	for (long it = 0; it < iters; it++) {
		size_t len = strlen(seeds[it % nseeds]);
		memcpy(buf, seeds[it % nseeds], len);
		for (int k = 1 + (int)(rng() % 8); k > 0; k--)
			mutate(buf, &len, sizeof buf);
		if (fuzz_one(buf, len) < 0) {
			printf("insane mesh at iteration %ld\n", it);
			return 1;
		}
	}
	printf("fuzz ok %ld\n", iters);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmd_time(const char *path, int reps)
{
	double best = 1e30;
	for (int i = 0; i < reps; i++) {
		struct obj_mesh m;
		double t0 = now_ms();
		if (load_or_report(&m, path) < 0)
			return 1;
		double dt = now_ms() - t0;
		best = dt < best ? dt : best;
		obj_free(&m);
	}
	printf("%.2f ms\n", best);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: test_obj load|mem|tris|verts|pattern|edges "
		"FILE | selftest | roundtrip | writefail PATH | badtri | "
		"fuzz N | time FILE N\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "selftest";
	const char *arg = argc > 2 ? argv[2] : NULL;
	static const struct {
		const char *name;
		int (*fn)(const char *);
	} file_cmds[] = { { "load", cmd_load }, { "mem", cmd_mem },
			  { "tris", cmd_tris }, { "verts", cmd_verts },
			  { "pattern", cmd_pattern }, { "edges", cmd_edges },
			  { "writefail", cmd_writefail } };
	for (size_t i = 0; i < sizeof file_cmds / sizeof file_cmds[0]; i++)
		if (strcmp(cmd, file_cmds[i].name) == 0)
			return arg ? file_cmds[i].fn(arg) : usage();
	if (strcmp(cmd, "selftest") == 0)
		return cmd_selftest();
	if (strcmp(cmd, "roundtrip") == 0)
		return cmd_roundtrip();
	if (strcmp(cmd, "badtri") == 0)
		return cmd_badtri();
	if (strcmp(cmd, "fuzz") == 0 && arg)
		return cmd_fuzz(strtol(arg, NULL, 10));
	if (strcmp(cmd, "time") == 0 && arg && argc > 3)
		return cmd_time(arg, atoi(argv[3]));
	return usage();
}

/* test_simplify - test grids for pleat-simplify and independent checks of
 * its meshes (tests/simplify.bats).
 *
 *   test_simplify flat                 a grid of two flat rectangular
 *                                      panels aligned with the quadtree
 *   test_simplify sine [SHIFT]         a grid of a disc and a rectangle
 *                                      holding a sine surface (2 mm high,
 *                                      16 mm wavelength, 0.5 mm cells),
 *                                      shifted SHIFT mm along the rows
 *   test_simplify add-x FILE A W       FILE's grids with x = rest plus a
 *                                      bump field of A mm and wavelength
 *                                      W mm, continuous in 3D
 *   test_simplify check GRID OBJ TOL [K]
 *                                      the mesh against the grid: see
 *                                      check() below; fails when a grid
 *                                      vertex is farther than TOL mm; the
 *                                      last K triangles join the seams
 *   test_simplify seams GRID OBJ K     whether the seams are closed (the
 *                                      last K triangles join them): seam
 *                                      edges left on the boundary, seam
 *                                      vertices joined to no vertex of
 *                                      the panel across
 *   test_simplify pc2 FILE OBJ...      a PC2 cache holds the positions of
 *                                      the meshes, one sample each
 *
 * Generated grids go to standard output.  Everything here is written
 * from the definitions (the solver's triangles, the PC2 layout), not from
 * pleat-simplify's code.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "obj.h"

#define PI 3.14159265358979323846

static void fail(const char *msg)
{
	fprintf(stderr, "test_simplify: %s\n", msg);
	exit(1);
}

/* A rotation about an oblique axis and a translation, so that a flat
 * panel is flat in no coordinate plane. */
static void moved(double u, double v, double z, float out[3])
{
	const double R[3][3] = {{0.36, 0.48, -0.80}, {-0.80, 0.60, 0.00},
				{0.48, 0.64, 0.60}};
	const double t[3] = {0.25, -1.5, 0.75};
	for (int k = 0; k < 3; k++)
		out[k] = (float)(R[k][0] * u + R[k][1] * v + R[k][2] * z + t[k]);
}

/* ---- test grids ------------------------------------------------------ */

typedef int panel_fn(int i, int j, int w, int h);
typedef double height_fn(double u, double v);

static void write_grid(int w, int h, double cell, panel_fn *panel_of,
		       height_fn *z)
{
	struct grid g;
	struct error e;
	double origin[2] = {0, 0};
	if (grid_init(&g, w, h, cell, origin, &e))
		fail(e.msg);
	uint8_t *mask = grid_add(&g, "mask", GRID_U8, 1, &e)->data;
	uint16_t *panel = grid_add(&g, "panel", GRID_U16, 1, &e)->data;
	float *x = grid_add(&g, "x", GRID_F32, 3, &e)->data;
	for (int j = 0; j < h; j++)
		for (int i = 0; i < w; i++) {
			size_t v = (size_t)j * w + i;
			int p = panel_of(i, j, w, h);
			double u = i * cell, t = j * cell;
			mask[v] = p >= 0 ? MASK_INSIDE : 0;
			panel[v] = p >= 0 ? (uint16_t)p : PANEL_NONE;
			moved(u, t, p >= 0 ? z(u, t) : 0, x + 3 * v);
		}
	if (grid_write(&g, stdout, "-", &e))
		fail(e.msg);
	grid_free(&g);
}

/* Panel 0 the vertices [0, 64]^2, panel 1 [96, 128] x [0, 32]: both
 * squares of the quadtree. */
static int flat_panel(int i, int j, int w, int h)
{
	(void)w, (void)h;
	if (i <= 64 && j <= 64)
		return 0;
	if (i >= 96 && i <= 128 && j <= 32)
		return 1;
	return -1;
}

static double no_height(double u, double v)
{
	(void)u, (void)v;
	return 0;
}

/* A disc on the left (a staircase boundary) and a rectangle on the
 * right whose sides are grid lines at no power-of-two place. */
static int sine_panel(int i, int j, int w, int h)
{
	double di = i - 0.25 * w, dj = j - 0.5 * h, r = 0.22 * w;
	if (di * di + dj * dj <= r * r)
		return 0;
	if (i >= w / 2 + 5 && i <= w - 7 && j >= 9 && j <= h - 11)
		return 1;
	return -1;
}

static double sine_shift;   /* metres */

static double sine_height(double u, double v)
{
	const double a = 2e-3, k = 2 * PI / 16e-3;
	return a * sin(k * (u - sine_shift)) * sin(k * v) + 3 * u * u;
}

/* ---- grids and meshes in ------------------------------------------------ */

static void load(const char *path, struct grid *g)
{
	struct error e;
	if (grid_load(path, g, &e))
		fail(e.msg);
}

static void *channel(const struct grid *g, const char *name, enum grid_type t,
		     int comps)
{
	struct grid_channel *c = grid_find_typed(g, name, t, comps);
	return c ? c->data : NULL;
}

static const float *positions(const struct grid *g)
{
	const float *x = channel(g, "x", GRID_F32, 3);
	if (!x)
		x = channel(g, "rest", GRID_F32, 3);
	if (!x)
		fail("the grid has neither x nor rest");
	return x;
}

static int add_x(const char *path, double amp, double wave)
{
	struct grid_reader r = {.name = path};
	struct grid g;
	struct error e;
	int res;
	if (!(r.f = fopen(path, "rb")))
		fail("cannot open the grid");
	while ((res = grid_read(&r, &g, &e)) == 1) {
		const float *rest = channel(&g, "rest", GRID_F32, 3);
		if (!rest)
			fail("no rest channel");
		float *x = grid_add(&g, "x", GRID_F32, 3, &e)->data;
		double k = 2 * PI / wave;
		for (size_t v = 0; v < grid_vertices(&g); v++) {
			const float *p = rest + 3 * v;
			double b = amp * sin(k * p[0] + 1) * sin(k * p[1] + 2) *
				   cos(k * p[2]);
			x[3 * v] = (float)(p[0] + 0.6 * b);
			x[3 * v + 1] = (float)(p[1] - 0.48 * b);
			x[3 * v + 2] = (float)(p[2] + 0.64 * b);
		}
		if (grid_write(&g, stdout, "-", &e))
			fail(e.msg);
		grid_free(&g);
	}
	fclose(r.f);
	return res < 0;
}

static void load_mesh(const char *path, struct obj_mesh *m)
{
	struct error e;
	if (obj_load(m, path, &e))
		fail(e.msg);
	if (m->nv != m->nvt)
		fail("the mesh has not one texture coordinate per vertex");
	for (int t = 0; t < m->ntri; t++)
		for (int c = 0; c < 3; c++)
			if (m->tri_v[t][c] != m->tri_vt[t][c])
				fail("a face uses another texture coordinate "
				     "than its vertex");
}

/* The grid vertex at each mesh vertex's texture coordinates, which must
 * be a grid vertex of the cloth, each one once. */
static long *grid_vertex_of(const struct grid *g, const struct obj_mesh *m)
{
	const uint8_t *mask = channel(g, "mask", GRID_U8, 1);
	long *at = malloc((size_t)m->nv * sizeof *at);
	char *seen = calloc(grid_vertices(g), 1);
	for (int k = 0; k < m->nv; k++) {
		double fi = (m->vt[k][0] - g->origin[0]) / g->cell;
		double fj = (m->vt[k][1] - g->origin[1]) / g->cell;
		long i = lround(fi), j = lround(fj);
		if (fabs(fi - i) > 1e-3 || fabs(fj - j) > 1e-3 || i < 0 || j < 0 ||
		    i >= g->width || j >= g->height)
			fail("a mesh vertex is not at a grid vertex");
		at[k] = j * g->width + i;
		if ((mask[at[k]] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE)
			fail("a mesh vertex is not cloth");
		if (seen[at[k]]++)
			fail("two mesh vertices at one grid vertex");
	}
	free(seen);
	return at;
}

/* ---- the full-resolution mesh ------------------------------------------ */

/* Edge slots of a vertex: to (i+1, j), to (i, j+1), and to (i-1, j+1)
 * (the diagonal of the cell on its left). */
enum { SLOT_H, SLOT_V, SLOT_D };

struct full {
	unsigned char *faces;   /* per vertex and slot: triangles on the edge */
	char *used;             /* per vertex: a corner of some triangle */
	long ntri;
};

static int cloth_same(const uint8_t *mask, const uint16_t *panel, long a,
		      long b, long c)
{
	for (int k = 0; k < 3; k++) {
		long v = k == 0 ? a : k == 1 ? b : c;
		if ((mask[v] & (MASK_INSIDE | MASK_GHOST)) != MASK_INSIDE)
			return 0;
	}
	return !panel || (panel[a] == panel[b] && panel[b] == panel[c]);
}

/* The solver's triangles: cell (i, j) cut from (i+1, j) to (i, j+1). */
static void full_mesh(const struct grid *g, struct full *f)
{
	const uint8_t *mask = channel(g, "mask", GRID_U8, 1);
	const uint16_t *panel = channel(g, "panel", GRID_U16, 1);
	long w = g->width;
	f->faces = calloc(grid_vertices(g) * 3, 1);
	f->used = calloc(grid_vertices(g), 1);
	f->ntri = 0;
	for (long j = 0; j + 1 < g->height; j++)
		for (long i = 0; i + 1 < w; i++) {
			long a = j * w + i, b = a + 1, c = a + w, d = c + 1;
			if (cloth_same(mask, panel, a, b, c)) {
				f->faces[3 * a + SLOT_H]++;
				f->faces[3 * a + SLOT_V]++;
				f->faces[3 * b + SLOT_D]++;
				f->used[a] = f->used[b] = f->used[c] = 1;
				f->ntri++;
			}
			if (cloth_same(mask, panel, b, d, c)) {
				f->faces[3 * b + SLOT_V]++;
				f->faces[3 * c + SLOT_H]++;
				f->faces[3 * b + SLOT_D]++;
				f->used[b] = f->used[c] = f->used[d] = 1;
				f->ntri++;
			}
		}
}

/* The slot of the unit edge from grid vertex a to a + (di, dj), or -1. */
static long unit_slot(long w, long a, long di, long dj)
{
	if (dj == 0 && di == 1)
		return 3 * a + SLOT_H;
	if (dj == 0 && di == -1)
		return 3 * (a - 1) + SLOT_H;
	if (di == 0 && dj == 1)
		return 3 * a + SLOT_V;
	if (di == 0 && dj == -1)
		return 3 * (a - w) + SLOT_V;
	if (di == -1 && dj == 1)
		return 3 * a + SLOT_D;
	if (di == 1 && dj == -1)
		return 3 * (a + 1 - w) + SLOT_D;
	return -1;
}

/* ---- the mesh's edges ----------------------------------------------------- */

struct edge { int lo, hi, forward; };

static int edge_order(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return (a->hi > b->hi) - (a->hi < b->hi);
}

/* Every edge has one or two triangles, two in opposite directions.
 * Calls fn on each boundary edge (one triangle).  Returns the number of
 * bad edges. */
static long edges(const struct obj_mesh *m,
		  void (*fn)(int a, int b, void *), void *arg)
{
	size_t n = (size_t)m->ntri * 3;
	struct edge *e = malloc(n * sizeof *e);
	for (int t = 0; t < m->ntri; t++)
		for (int c = 0; c < 3; c++) {
			int a = m->tri_v[t][c], b = m->tri_v[t][(c + 1) % 3];
			e[3 * t + c] = (struct edge){a < b ? a : b, a < b ? b : a,
						     a < b};
		}
	qsort(e, n, sizeof *e, edge_order);
	long bad = 0;
	for (size_t k = 0; k < n;) {
		size_t r = k + 1;
		while (r < n && edge_order(&e[k], &e[r]) == 0)
			r++;
		if (r - k == 1)
			fn(e[k].forward ? e[k].lo : e[k].hi,
			   e[k].forward ? e[k].hi : e[k].lo, arg);
		else if (r - k > 2 || e[k].forward == e[k + 1].forward)
			bad++;
		k = r;
	}
	free(e);
	return bad;
}

/* ---- check --------------------------------------------------------------- */

struct boundary_cover {
	const struct grid *g;
	const long *at;
	struct full *f;
	unsigned char *covered;   /* per vertex and slot */
	long bad;
	long nedges;
};

/* A boundary edge of the mesh must run along the full mesh's boundary:
 * a straight run of its boundary edges, each covered once. */
static void cover_edge(int a, int b, void *arg)
{
	struct boundary_cover *bc = arg;
	long w = bc->g->width;
	long ia = bc->at[a] % w, ja = bc->at[a] / w;
	long ib = bc->at[b] % w, jb = bc->at[b] / w;
	long di = (ib > ia) - (ib < ia), dj = (jb > ja) - (jb < ja);
	long steps = labs(ib - ia) > labs(jb - ja) ? labs(ib - ia) : labs(jb - ja);
	bc->nedges++;
	if ((di && dj && steps != 1) || (di == dj && di != 0)) {
		bc->bad++;
		return;
	}
	for (long s = 0, v = bc->at[a]; s < steps; s++, v += di + dj * w) {
		long slot = unit_slot(w, v, di, dj);
		if (bc->f->faces[slot] != 1 || bc->covered[slot]++)
			bc->bad++;
	}
}

/* The grid position of triangle t's interpolation at grid vertex (i, j)
 * when the triangle covers it (returns 1). */
static int covers(const double (*tv)[2], double i, double j, double l[3])
{
	double area = (tv[1][0] - tv[0][0]) * (tv[2][1] - tv[0][1]) -
		      (tv[1][1] - tv[0][1]) * (tv[2][0] - tv[0][0]);
	for (int k = 0; k < 3; k++) {
		const double *p = tv[(k + 1) % 3], *q = tv[(k + 2) % 3];
		l[k] = ((q[0] - p[0]) * (j - p[1]) - (q[1] - p[1]) * (i - p[0])) /
		       area;
		if (l[k] < 0)
			return 0;
	}
	return 1;
}

struct deviation {
	double max, seam_moved;
	long uncovered, bad_area;
	double area2;     /* sum of twice the areas, in cells */
};

/* Every grid vertex of the full mesh against the mesh triangle that
 * covers its pattern position: the distance between its position and
 * the triangle's point there. */
static void deviation(const struct grid *g, const struct full *f,
		      const struct obj_mesh *m, const long *at,
		      struct deviation *d)
{
	const float *x = positions(g);
	long w = g->width;
	size_t n = grid_vertices(g);
	char *done = calloc(n, 1);
	memset(d, 0, sizeof *d);
	for (int t = 0; t < m->ntri; t++) {
		double tv[3][2], lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30};
		for (int c = 0; c < 3; c++) {
			long v = at[m->tri_v[t][c]];
			tv[c][0] = (double)(v % w);
			tv[c][1] = (double)(v / w);
			for (int k = 0; k < 2; k++) {
				lo[k] = fmin(lo[k], tv[c][k]);
				hi[k] = fmax(hi[k], tv[c][k]);
			}
		}
		double a2 = (tv[1][0] - tv[0][0]) * (tv[2][1] - tv[0][1]) -
			    (tv[1][1] - tv[0][1]) * (tv[2][0] - tv[0][0]);
		d->area2 += a2;
		if (!(a2 > 0)) {
			d->bad_area++;
			continue;
		}
		for (long j = (long)lo[1]; j <= (long)hi[1]; j++)
			for (long i = (long)lo[0]; i <= (long)hi[0]; i++) {
				double l[3], dist2 = 0;
				size_t v = (size_t)(j * w + i);
				if (done[v] || !covers((const double (*)[2])tv, i, j, l))
					continue;
				done[v] = 1;
				for (int k = 0; k < 3; k++) {
					double p = 0;
					for (int c = 0; c < 3; c++)
						p += l[c] * m->v[m->tri_v[t][c]][k];
					dist2 += (x[3 * v + k] - p) * (x[3 * v + k] - p);
				}
				d->max = fmax(d->max, sqrt(dist2));
			}
	}
	for (size_t v = 0; v < n; v++)
		d->uncovered += f->used[v] && !done[v];
	free(done);
}

/* Mesh vertices are at their grid vertex's position, bit for bit, seam
 * vertices too; the largest move of a seam vertex is returned. */
static long wrong_positions(const struct grid *g, const struct obj_mesh *m,
			    const long *at, double *seam_moved)
{
	const float *x = positions(g);
	const uint8_t *mask = channel(g, "mask", GRID_U8, 1);
	long wrong = 0;
	*seam_moved = 0;
	for (int k = 0; k < m->nv; k++) {
		double d2 = 0;
		for (int c = 0; c < 3; c++) {
			double e = (float)m->v[k][c] - x[3 * at[k] + c];
			d2 += e * e;
		}
		if (mask[at[k]] & MASK_SEAM)
			*seam_moved = fmax(*seam_moved, sqrt(d2));
		wrong += d2 != 0;
	}
	return wrong;
}

/* The vn records, which must be unit vectors, one per vertex. */
static long bad_normals(const char *path, int nv)
{
	FILE *f = fopen(path, "r");
	char line[256];
	long n = 0, bad = 0;
	while (f && fgets(line, sizeof line, f)) {
		double x, y, z;
		if (sscanf(line, "vn %lf %lf %lf", &x, &y, &z) != 3)
			continue;
		n++;
		bad += fabs(sqrt(x * x + y * y + z * z) - 1) > 1e-6;
	}
	if (f)
		fclose(f);
	return bad + (n != nv);
}

static void no_edge(int a, int b, void *arg)
{
	(void)a;
	(void)b;
	(void)arg;
}

/* The panels' triangles (all but the last nseam) must be the full
 * mesh's surface within the tolerance, with its boundary; all of them
 * together a manifold. */
static int check(const char *grid_path, const char *obj_path, double tol_mm,
		 int nseam)
{
	struct grid g;
	struct obj_mesh m;
	struct full f;
	struct deviation d;
	load(grid_path, &g);
	load_mesh(obj_path, &m);
	if (nseam < 0 || nseam > m.ntri)
		fail("more seam triangles than triangles");
	long *at = grid_vertex_of(&g, &m);
	full_mesh(&g, &f);
	struct boundary_cover bc = {&g, at, &f,
				    calloc(grid_vertices(&g) * 3, 1), 0, 0};
	long bad_edges = edges(&m, no_edge, NULL);
	m.ntri -= nseam;
	bad_edges += edges(&m, cover_edge, &bc);
	long uncovered_boundary = 0;
	for (size_t s = 0; s < grid_vertices(&g) * 3; s++)
		uncovered_boundary += f.faces[s] == 1 && !bc.covered[s];
	deviation(&g, &f, &m, at, &d);
	double seam_moved;
	long wrong = wrong_positions(&g, &m, at, &seam_moved);
	long normals = bad_normals(obj_path, m.nv);
	printf("vertices %d triangles %d full_triangles %ld deviation_mm %.6f "
	       "seam_moved_mm %.6f boundary_edges %ld\n", m.nv, m.ntri, f.ntri,
	       d.max * 1e3, seam_moved * 1e3, bc.nedges);
	fflush(stdout);
	int ok = 1;
#define EXPECT(cond, ...) \
	if (!(cond)) { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); ok = 0; }
	EXPECT(bad_edges == 0, "%ld edges with more than two triangles or "
	       "two in one direction", bad_edges);
	m.ntri += nseam;
	EXPECT(bc.bad == 0, "%ld boundary edges not on the full mesh's "
	       "boundary (or covering it twice)", bc.bad);
	EXPECT(uncovered_boundary == 0, "%ld boundary edges of the full mesh "
	       "are not on the mesh's boundary", uncovered_boundary);
	EXPECT(d.bad_area == 0, "%ld triangles are not counter-clockwise in "
	       "the pattern", d.bad_area);
	EXPECT(d.area2 == (double)f.ntri, "the triangles cover %.1f cells, the "
	       "full mesh %.1f", d.area2 / 2, f.ntri / 2.0);
	EXPECT(d.uncovered == 0, "%ld vertices of the full mesh are under no "
	       "triangle", d.uncovered);
	EXPECT(wrong == 0, "%ld vertices are not at their grid position", wrong);
	EXPECT(normals == 0, "%ld normals are missing or not unit", normals);
	EXPECT(d.max <= tol_mm * 1e-3 * (1 + 1e-9), "a grid vertex is %.6f mm "
	       "from the mesh, over the tolerance %g mm", d.max * 1e3, tol_mm);
#undef EXPECT
	free(bc.covered);
	free(f.faces);
	free(f.used);
	free(at);
	obj_free(&m);
	grid_free(&g);
	return !ok;
}

/* ---- seams ------------------------------------------------------------- */

struct boundary_mark {
	const long *at;
	const uint16_t *panel;
	const int *across;   /* per mesh vertex: the panel across its seam */
	long open;           /* boundary edges along one seam */
	char *on_boundary;   /* per mesh vertex */
	long long *keys;     /* the boundary edges, a * 2^31 + b */
	long nkeys;
	const struct boundary_mark *panels;   /* the panels' boundary */
};

static int key_order(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;
	return (a > b) - (a < b);
}

/* A boundary edge is open along a seam when it is an edge of the panels'
 * boundary and its two ends are seam vertices of one panel with the
 * same panel across. */
static void mark_edge(int a, int b, void *arg)
{
	struct boundary_mark *bm = arg;
	long long key = (long long)a << 31 | b;
	bm->on_boundary[a] = bm->on_boundary[b] = 1;
	bm->keys = realloc(bm->keys, (size_t)(bm->nkeys + 1) * sizeof *bm->keys);
	bm->keys[bm->nkeys++] = key;
	if (!bm->panels || !bsearch(&key, bm->panels->keys,
				    (size_t)bm->panels->nkeys, sizeof key,
				    key_order))
		return;
	bm->open += bm->across[a] >= 0 && bm->across[a] == bm->across[b] &&
		    bm->panel[bm->at[a]] == bm->panel[bm->at[b]];
}

/* The panel of the cloth vertex nearest to pattern point (u, v). */
static int panel_at(const struct grid *g, double u, double v)
{
	const uint8_t *mask = channel(g, "mask", GRID_U8, 1);
	const uint16_t *panel = channel(g, "panel", GRID_U16, 1);
	long i0 = lround((u - g->origin[0]) / g->cell);
	long j0 = lround((v - g->origin[1]) / g->cell);
	double best = 1e30;
	int p = -1;
	for (long j = j0 - 2; j <= j0 + 2; j++)
		for (long i = i0 - 2; i <= i0 + 2; i++) {
			if (i < 0 || j < 0 || i >= g->width || j >= g->height)
				continue;
			size_t q = (size_t)(j * g->width + i);
			double d = hypot(i - i0, j - j0);
			if ((mask[q] & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE &&
			    d < best) {
				best = d;
				p = panel[q];
			}
		}
	return p;
}

/* Whether the seams are closed.  A seam vertex (mask SEAM) on the
 * boundary of its panel's triangles (all but the last nseam) is joined
 * when some triangle holds it and a vertex of the panel across the seam
 * (the panel at its partner point); an unjoined one off the mesh's
 * boundary would be a hole.  A seam is open where a boundary edge of
 * the panels stays on the mesh's boundary between two seam vertices of
 * one panel with one panel across.  Seams of a panel with itself are
 * counted apart. */
static int seams(const char *grid_path, const char *obj_path, int nseam)
{
	struct grid g;
	struct obj_mesh m;
	load(grid_path, &g);
	load_mesh(obj_path, &m);
	long *at = grid_vertex_of(&g, &m);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const uint16_t *panel = channel(&g, "panel", GRID_U16, 1);
	const float *seam = channel(&g, "seam", GRID_F32, 3);
	if (!seam || !panel)
		fail("the grid has no seam or panel channel");
	int *across = malloc((size_t)m.nv * sizeof *across);
	char *joined = calloc((size_t)m.nv, 1);
	long n = 0, self = 0, unjoined = 0, inside = 0, on_boundary = 0;
	for (int k = 0; k < m.nv; k++)
		across[k] = mask[at[k]] & MASK_SEAM ?
			    panel_at(&g, seam[3 * at[k]], seam[3 * at[k] + 1]) : -1;
	struct boundary_mark pb = {at, panel, across, 0, calloc((size_t)m.nv, 1),
				   NULL, 0, NULL};
	struct boundary_mark bm = {at, panel, across, 0, calloc((size_t)m.nv, 1),
				   NULL, 0, &pb};
	if (nseam < 0 || nseam > m.ntri)
		fail("more seam triangles than triangles");
	m.ntri -= nseam;
	edges(&m, mark_edge, &pb);
	m.ntri += nseam;
	qsort(pb.keys, (size_t)pb.nkeys, sizeof *pb.keys, key_order);
	if (edges(&m, mark_edge, &bm))
		fail("the mesh is not a manifold");
	for (int t = 0; t < m.ntri; t++)
		for (int c = 0; c < 3; c++)
			for (int o = 0; o < 3; o++) {
				int v = m.tri_v[t][c], w = m.tri_v[t][o];
				if (across[v] >= 0 && panel[at[w]] == across[v] &&
				    across[v] != panel[at[v]])
					joined[v] = 1;
			}
	for (int k = 0; k < m.nv; k++) {
		if (across[k] < 0 || !pb.on_boundary[k])
			continue;
		if (across[k] == panel[at[k]]) {
			self++;
			continue;
		}
		n++;
		unjoined += !joined[k];
		inside += !joined[k] && !bm.on_boundary[k];
		on_boundary += bm.on_boundary[k];
	}
	printf("seam_vertices %ld unjoined %ld unjoined_inside %ld open_edges %ld "
	       "on_boundary %ld self_seam_vertices %ld\n", n, unjoined, inside,
	       bm.open, on_boundary, self);
	free(bm.on_boundary);
	free(pb.on_boundary);
	free(bm.keys);
	free(pb.keys);
	free(across);
	free(joined);
	free(at);
	obj_free(&m);
	grid_free(&g);
	return n == 0;
}

/* ---- PC2 --------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static float lef(const unsigned char *p)
{
	uint32_t b = le32(p);
	float x;
	memcpy(&x, &b, sizeof x);
	return x;
}

static int pc2(const char *path, char **objs, int nobj)
{
	FILE *f = fopen(path, "rb");
	unsigned char h[32];
	if (!f || fread(h, 1, 32, f) != 32)
		fail("cannot read the PC2 header");
	if (memcmp(h, "POINTCACHE2\0", 12) != 0 || le32(h + 12) != 1)
		fail("not a PC2 version 1 file");
	uint32_t points = le32(h + 16), samples = le32(h + 28);
	if ((int)samples != nobj)
		fail("the number of samples is not the number of meshes");
	for (int s = 0; s < nobj; s++) {
		struct obj_mesh m;
		load_mesh(objs[s], &m);
		if ((uint32_t)m.nv != points)
			fail("a mesh has another number of vertices");
		for (int k = 0; k < m.nv; k++) {
			unsigned char p[12];
			if (fread(p, 1, 12, f) != 12)
				fail("the PC2 file is short");
			for (int c = 0; c < 3; c++)
				if (lef(p + 4 * c) != (float)m.v[k][c])
					fail("a PC2 position differs from its mesh's");
		}
		obj_free(&m);
	}
	if (fgetc(f) != EOF)
		fail("the PC2 file is longer than its header says");
	fclose(f);
	printf("points %u samples %u start %g rate %g\n", points, samples,
	       (double)lef(h + 20), (double)lef(h + 24));
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	if (strcmp(cmd, "flat") == 0) {
		write_grid(129, 65, 1e-3, flat_panel, no_height);
		return 0;
	}
	if (strcmp(cmd, "sine") == 0) {
		sine_shift = argc > 2 ? atof(argv[2]) * 1e-3 : 0;
		write_grid(256, 160, 0.5e-3, sine_panel, sine_height);
		return 0;
	}
	if (argc > 4 && strcmp(cmd, "add-x") == 0)
		return add_x(argv[2], atof(argv[3]) * 1e-3, atof(argv[4]) * 1e-3);
	if (argc > 4 && strcmp(cmd, "check") == 0)
		return check(argv[2], argv[3], atof(argv[4]),
			     argc > 5 ? atoi(argv[5]) : 0);
	if (argc > 4 && strcmp(cmd, "seams") == 0)
		return seams(argv[2], argv[3], atoi(argv[4]));
	if (argc > 3 && strcmp(cmd, "pc2") == 0)
		return pc2(argv[2], argv + 3, argc - 3);
	fprintf(stderr, "usage: test_simplify flat|sine|add-x|check|seams|pc2\n");
	return 2;
}

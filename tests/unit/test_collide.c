/* test_collide - inputs, brute-force references and measurements for
 * tests/collide.bats (body queries, proximity search, intersections).
 *
 *   test_collide body-obj KIND   a body on standard output: sphere (radius
 *        0.3 m, 48 x 24, closed, outward), inverted (its faces turned
 *        inward), soup (every triangle with its own three vertices),
 *        open (the sphere less the triangles near its north pole),
 *        degenerate (a triangle, a triangle that is a segment, one that is
 *        a point), two
 *        (two such spheres, centres 0.4 m apart, overlapping), small
 *        (radius 1 cm about (0.024, 0.012, 0): it cuts through the sheets
 *        below)
 *   test_collide closest BODY N   N points around the body: body_closest,
 *        with and without a hint and with a reach, against a loop over
 *        every triangle: "points N mismatches M"
 *   test_collide winding BODY N   the hierarchical winding number against
 *        the exact sum at N points: "points N maxerr E disagree D" (D:
 *        inside/outside differs where the exact number is more than 0.1
 *        from 1/2)
 *   test_collide step BODY N   body_winding_step against the exact sums
 *        at both ends, on N random segments near the body and N through
 *        a triangle's corner or edge: "closed C random N unsure U wrong
 *        W crossing X through-edges N unsure U wrong W crossing X" (C:
 *        body.closed; X: the answers with a nonzero jump)
 *   test_collide buried BODY   the buried triangles (body.h) by the
 *        winding number at each test point, against the body's flags:
 *        "triangles N buried B mismatches M"
 *   test_collide sphere BODY R   inside/outside and half-planes on a body
 *        that is a sphere of radius R about the origin, against the
 *        analytic answer: "points N wrong-side W worst-normal A worst-plane
 *        P" (A: the largest angle, radians, between a plane's normal and
 *        the radial direction; P: the largest |n . c - d + offset|, c the
 *        closest point)
 *   test_collide point BODY X Y Z   "winding W inside I depth D" at a point
 *   test_collide distances BODY OBJ   the distance from every vertex of
 *        OBJ to BODY: "p1 A p50 B max C inside N" (metres)
 *   test_collide sheet KIND SEED CELL OUT   a grid of two panels sewn
 *        along one side, folded (KIND fold: a z-fold, layers 0.3 cells
 *        apart), crumpled (crumple: folded across random planes), stacked
 *        (stack: a zigzag of eight layers 0.15 cells apart) or flat;
 *        channels mask, panel, seam, rest, x; written to OUT
 *   test_collide project GRID BODY OUT   the first grid of GRID with every
 *        cloth vertex of x projected once onto its half-plane (offset 0.4
 *        mm, no reach limit), written to OUT; prints "near N inside I"
 *        (body_halfplanes' counts)
 *   test_collide proximity GRID K S   the proximity search on x, radius S
 *        metres, list length K, against brute force (the seam channel is
 *        used when there is one): "pairs P cross C brute B
 *        listed-neighbours G wrong-lists W overflow O brute-overflow BO
 *        long L hash H" (P the pairs found, C those across panels, B the
 *        pairs of the brute force, G listed pairs that are grid
 *        neighbours, W vertices whose list differs from the brute force's
 *        K closest or whose count of pairs differs, O and BO the vertices
 *        with more than K pairs, L the long-range block pairs, H a hash of
 *        all lists)
 *   test_collide intersections GRID   intersecting triangle pairs of x
 *        by testing every pair: "triangles T brute N shared S" (N all
 *        of them, S those sharing a corner, whose edges opposite it are
 *        tested against the other triangle)
 *   test_collide update GRID ROUNDS   update_intersections after each of
 *        ROUNDS rounds of random moves of x against a full recount:
 *        "rounds R pairs P to Q changed C wrong W" (P and Q the pairs
 *        before the first round and after the last, C the rounds that
 *        changed the pairs of the round before, W the rounds whose
 *        updated pairs are not the recount's)
 *   test_collide touching GRID   the intersecting pairs with a triangle
 *        in the last half, quarter and eighth of GRID's triangles
 *        (count_touching_intersections) against the full count's:
 *        "pairs P tail T wrong W" (T those of the last half, W the
 *        splits whose pairs differ)
 *   test_collide inside GRID BODY TOL   cloth vertices of x deeper than
 *        TOL inside BODY, by the exact winding number and a loop over
 *        every triangle: "inside N"
 *   test_collide orient N   orient3d_sign on N random near-coplanar
 *        quadruples of dyadic float points against an exact integer
 *        determinant: "tests N zero Z inexact I wrong W" (I: those
 *        whose differences are not exact in double)
 *   test_collide triangles   triangles_intersect on hand-made pairs whose
 *        answer is known: "cases N wrong W"
 *   test_collide repel   the repulsion gradient against central
 *        differences of the pair energy, the projection onto a
 *        half-plane: "worst-gradient R worst-projection P"
 *   test_collide bench BODY GRID S   timings for bench/run
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "collide.h"
#include "grid.h"
#include "obj.h"
#include "progress.h"
#include "proximity.h"
#include "rng.h"

#define PI 3.14159265358979323846

static void fail(const char *msg)
{
	fprintf(stderr, "test_collide: %s\n", msg);
	exit(1);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void)  /* uniform in [-1, 1) */
{
	return urand_xorshift(&rng_state);
}

static void load_body(const char *path, struct body *b)
{
	struct error e;
	if (body_load(b, path, &e))
		fail(e.msg);
}

static void load_grid(const char *path, struct grid *g)
{
	struct error e;
	if (grid_load(path, g, &e))
		fail(e.msg);
}

static void *channel(const struct grid *g, const char *name, enum grid_type t,
		     int comps)
{
	struct grid_channel *c = grid_find_typed(g, name, t, comps);
	if (!c)
		fail("a channel is missing");
	return c->data;
}

static int is_cloth(uint8_t m)
{
	return (m & (MASK_INSIDE | MASK_GHOST)) == MASK_INSIDE;
}

/* ---- bodies ---------------------------------------------------------------- */

#define SEG 48
#define RINGS 24

static void sphere_vertices(FILE *f, double cx, double cy, double r)
{
	fprintf(f, "v %.17g %.17g %.17g\n", cx, cy, r);
	for (int k = 1; k < RINGS; k++)
		for (int s = 0; s < SEG; s++) {
			double th = PI * k / RINGS, ph = 2 * PI * s / SEG;
			fprintf(f, "v %.17g %.17g %.17g\n", cx + r * sin(th) * cos(ph),
				cy + r * sin(th) * sin(ph), r * cos(th));
		}
	fprintf(f, "v %.17g %.17g %.17g\n", cx, cy, -r);
}

/* The triangles of the sphere whose vertices start at 1-based index
 * base, outward (counter-clockwise seen from outside) unless inverted;
 * `skip` leaves out the first ring's fan (a hole at the north pole). */
static void sphere_faces(FILE *f, int base, int inverted, int skip)
{
	int north = base, south = base + 1 + (RINGS - 1) * SEG;
	for (int k = 0; k < RINGS; k++)
		for (int s = 0; s < SEG; s++) {
			int s1 = (s + 1) % SEG;
			int a = base + 1 + (k - 1) * SEG + s, b = base + 1 + (k - 1) * SEG + s1;
			int c = base + 1 + k * SEG + s, d = base + 1 + k * SEG + s1;
			int tri[2][3], nt = 0;
			if (k == 0) {
				if (skip)
					continue;
				int t[3] = {north, c, d};
				memcpy(tri[nt++], t, sizeof t);
			} else if (k == RINGS - 1) {
				int t[3] = {a, south, b};
				memcpy(tri[nt++], t, sizeof t);
			} else {
				int t1[3] = {a, c, d}, t2[3] = {a, d, b};
				memcpy(tri[nt++], t1, sizeof t1);
				memcpy(tri[nt++], t2, sizeof t2);
			}
			for (int q = 0; q < nt; q++) {
				if (inverted) {
					int x = tri[q][1];
					tri[q][1] = tri[q][2];
					tri[q][2] = x;
				}
				fprintf(f, "f %d %d %d\n", tri[q][0], tri[q][1], tri[q][2]);
			}
		}
}

static int body_obj(const char *kind)
{
	int nv = 2 + (RINGS - 1) * SEG;
	if (strcmp(kind, "sphere") == 0 || strcmp(kind, "inverted") == 0 ||
	    strcmp(kind, "open") == 0) {
		sphere_vertices(stdout, 0, 0, 0.3);
		sphere_faces(stdout, 1, kind[0] == 'i', kind[0] == 'o');
	} else if (strcmp(kind, "degenerate") == 0) {
		/* a proper triangle, a segment and a point */
		printf("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nv 3 0 1\nv 4 0 2\n"
		       "v 0 0 3\nf 1 2 3\nf 4 5 6\nf 7 7 7\n");
	} else if (strcmp(kind, "small") == 0) {
		sphere_vertices(stdout, 0.024, 0.012, 0.01);
		sphere_faces(stdout, 1, 0, 0);
	} else if (strcmp(kind, "two") == 0) {
		sphere_vertices(stdout, -0.2, 0, 0.3);
		sphere_vertices(stdout, 0.2, 0, 0.3);
		sphere_faces(stdout, 1, 0, 0);
		sphere_faces(stdout, 1 + nv, 0, 0);
	} else if (strcmp(kind, "soup") == 0) {
		/* the sphere's triangles, each with three fresh vertices */
		struct obj_mesh m;
		struct error e;
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		if (!mem)
			fail("open_memstream failed");
		sphere_vertices(mem, 0, 0, 0.3);
		sphere_faces(mem, 1, 0, 0);
		fclose(mem);
		if (obj_read_mem(&m, buf, len, "sphere", &e))
			fail(e.msg);
		for (int t = 0; t < m.ntri; t++) {
			for (int c = 0; c < 3; c++) {
				const double *p = m.v[m.tri_v[t][c]];
				printf("v %.17g %.17g %.17g\n", p[0], p[1], p[2]);
			}
			printf("f -3 -2 -1\n");
		}
		obj_free(&m);
		free(buf);
	} else {
		fail("body-obj: unknown kind");
	}
	return 0;
}

/* ---- closest points and winding numbers --------------------------------- */

/* A point near the body: on a random triangle, moved along its normal by
 * up to 5 cm either way; every fourth one anywhere in the box grown by
 * half its size. */
static void random_point(const struct body *b, double p[3])
{
	const struct body_node *r = &b->node[0];
	if ((rng_state & 3) == 0) {
		for (int k = 0; k < 3; k++) {
			double c = 0.5 * (r->lo[k] + r->hi[k]), h = r->hi[k] - r->lo[k];
			p[k] = c + urand() * h;
		}
		urand();
		return;
	}
	int t = (int)((urand() + 1) * 0.5 * b->ntri) % b->ntri;
	double u = (urand() + 1) / 2, v = (urand() + 1) / 2, n[3];
	if (u + v > 1) {
		u = 1 - u;
		v = 1 - v;
	}
	body_face_normal(b, t, n);
	double off = 0.05 * urand() * fabs(urand());
	const double *x = b->tri[t];
	for (int k = 0; k < 3; k++)
		p[k] = x[k] + u * (x[3 + k] - x[k]) + v * (x[6 + k] - x[k]) + off * n[k];
}

/* The smallest squared distance to a surface (not buried) triangle, by a
 * loop over all of them, each through body_closest on a body of that one
 * triangle: the same point-triangle arithmetic, without the tree. */
static double brute_closest(const struct body *b, const double p[3], int *tri)
{
	double best = INFINITY;
	*tri = -1;
	for (int t = 0; t < b->ntri; t++) {
		if (b->buried[t])
			continue;
		struct body single = *b;
		struct body_node leaf = {.first = 0, .count = 1, .surface = 1};
		for (int k = 0; k < 3; k++) {
			leaf.lo[k] = -INFINITY;
			leaf.hi[k] = INFINITY;
		}
		single.ntri = 1;
		single.tri = b->tri + t;
		single.buried = b->buried + t;
		single.node = &leaf;
		single.nnodes = 1;
		struct body_hit hit;
		body_closest(&single, p, INFINITY, NULL, &hit);
		double d2 = hit.dist * hit.dist;
		if (d2 < best) {
			best = d2;
			*tri = t;
		}
	}
	return best;
}

static int closest(const char *path, int n)
{
	struct body b;
	load_body(path, &b);
	int bad = 0, hint = -1;
	for (int q = 0; q < n; q++) {
		double p[3];
		random_point(&b, p);
		int bt;
		double d2 = brute_closest(&b, p, &bt);
		struct body_hit h1, h2, h3;
		int f1 = body_closest(&b, p, INFINITY, NULL, &h1);
		int f2 = body_closest(&b, p, INFINITY, &hint, &h2);
		double reach = 0.01;
		int f3 = body_closest(&b, p, reach, NULL, &h3);
		double d = sqrt(d2);
		if (!f1 || !f2 || h1.dist != d || h2.dist != d || h1.tri != h2.tri ||
		    f3 != (d <= reach) || (f3 && h3.dist != d))
			bad++;
	}
	printf("points %d mismatches %d\n", n, bad);
	body_free(&b);
	return 0;
}

static int winding(const char *path, int n)
{
	struct body b;
	load_body(path, &b);
	double worst = 0;
	int disagree = 0;
	for (int q = 0; q < n; q++) {
		double p[3];
		random_point(&b, p);
		double w = body_winding(&b, p), x = body_winding_exact(&b, p);
		worst = fmax(worst, fabs(w - x));
		int exact_in = b.orientation * x >= 0.5;
		if (fabs(fabs(x) - 0.5) > 0.1 && body_inside(&b, p) != exact_in)
			disagree++;
	}
	printf("points %d maxerr %.3g disagree %d\n", n, worst, disagree);
	body_free(&b);
	return 0;
}

/* One check of body_winding_step from p to q against the exact sums at
 * both ends; counts it as unsure or wrong, and as crossing when it
 * crosses the surface. */
static void check_step(const struct body *b, const double p[3],
		       const double q[3], int *unsure, int *wrong, int *crossing)
{
	int jump;
	if (body_winding_step(b, p, q, &jump)) {
		(*unsure)++;
		return;
	}
	double wp = body_winding_exact(b, p), wq = body_winding_exact(b, q);
	if (fabs(wp + jump - wq) > 1e-6)
		(*wrong)++;
	*crossing += jump != 0;
}

/* body_winding_step on n random segments near the body (lengths 0.1 mm
 * to 10 cm) and on n segments made to pass through a corner or the
 * middle of an edge of a random triangle, 1 cm either side, where the
 * answer must be either exact or "unsure".  Exact means w(p) + jump =
 * w(q), which holds on a closed body only (on one with holes the
 * winding number also varies off the triangles). */
static int step(const char *path, int n)
{
	struct body b;
	load_body(path, &b);
	int unsure = 0, wrong = 0, crossing = 0, dunsure = 0, dwrong = 0, dcrossing = 0;
	for (int i = 0; i < n; i++) {
		double p[3], q[3], d[3], len = pow(10, -2.5 + 1.5 * urand());
		random_point(&b, p);
		for (int k = 0; k < 3; k++)
			d[k] = urand();
		double s = len / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		for (int k = 0; k < 3; k++)
			q[k] = p[k] + s * d[k];
		check_step(&b, p, q, &unsure, &wrong, &crossing);
	}
	for (int i = 0; i < n; i++) {
		int t = (int)((urand() + 1) * 0.5 * b.ntri) % b.ntri, c = i % 3;
		const double *x = b.tri[t];
		double m[3], p[3], q[3], d[3];
		for (int k = 0; k < 3; k++) {
			m[k] = i % 2 ? x[3 * c + k] :
				0.5 * (x[3 * c + k] + x[3 * ((c + 1) % 3) + k]);
			d[k] = urand();
		}
		double s = 0.01 / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		for (int k = 0; k < 3; k++) {
			p[k] = m[k] + s * d[k];
			q[k] = m[k] - s * d[k];
		}
		check_step(&b, p, q, &dunsure, &dwrong, &dcrossing);
	}
	printf("closed %d random %d unsure %d wrong %d crossing %d through-edges %d "
	       "unsure %d wrong %d crossing %d\n", b.closed, n, unsure, wrong,
	       crossing, n, dunsure, dwrong, dcrossing);
	body_free(&b);
	return 0;
}

/* Which triangles are buried, by evaluating the hierarchical winding
 * number at each of body.h's four test points (body.c walks between
 * them): "triangles N buried B mismatches M". */
static int buried(const char *path)
{
	struct body b;
	load_body(path, &b);
	int nb = 0, bad = 0;
	#pragma omp parallel for schedule(dynamic, 64) reduction(+:nb, bad)
	for (int t = 0; t < b.ntri; t++) {
		const double *x = b.tri[t];
		double n[3], c[3], longest = 0;
		body_face_normal(&b, t, n);
		for (int k = 0; k < 3; k++) {
			c[k] = (x[k] + x[3 + k] + x[6 + k]) / 3;
			double e[3];
			for (int m = 0; m < 3; m++)
				e[m] = x[3 * ((k + 1) % 3) + m] - x[3 * k + m];
			longest = fmax(longest, sqrt(e[0] * e[0] + e[1] * e[1] +
						     e[2] * e[2]));
		}
		int in = longest > 0 && n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0;
		for (int s = 0; s < 4 && in; s++) {
			double q[3];
			for (int k = 0; k < 3; k++)
				q[k] = (s == 0 ? c[k] : 0.9 * x[3 * (s - 1) + k] +
					0.1 * c[k]) + 1e-4 * longest * n[k];
			in = b.orientation * body_winding(&b, q) >= 0.5;
		}
		nb += in;
		bad += in != b.buried[t];
	}
	printf("triangles %d buried %d mismatches %d\n", b.ntri, nb, bad);
	body_free(&b);
	return 0;
}

/* A sphere body of radius r: points at random radii, either side; the
 * polygonal sphere lies between r cos(pi/24)... and r, so points within
 * 2% of r are left out of the side test. */
static int sphere(const char *path, double r)
{
	struct body b;
	load_body(path, &b);
	int n = 4000, wrong = 0;
	double worst_angle = 0, worst_plane = 0, offset = 4e-4;
	for (int q = 0; q < n; q++) {
		double dir[3], len = 0, p[3];
		for (int k = 0; k < 3; k++) {
			dir[k] = urand();
			len += dir[k] * dir[k];
		}
		len = sqrt(len);
		double rad = r * (0.5 + 0.75 * (urand() + 1) / 2);
		for (int k = 0; k < 3; k++)
			p[k] = dir[k] / len * rad;
		if (fabs(rad - r) > 0.02 * r && body_inside(&b, p) != (rad < r))
			wrong++;
		float x[3] = {(float)p[0], (float)p[1], (float)p[2]}, plane[4];
		uint8_t mask = MASK_INSIDE;
		body_halfplanes(&b, x, &mask, 1, offset, INFINITY, plane, NULL);
		double cosang = 0;
		for (int k = 0; k < 3; k++)
			cosang += plane[k] * dir[k] / len;
		/* the normal is radial up to the facets' tilt, pi/24 at most */
		if (fabs(rad - r) > 0.02 * r)
			worst_angle = fmax(worst_angle, acos(fmin(1, cosang)));
		struct body_hit hit;
		double xd[3] = {x[0], x[1], x[2]};
		body_closest(&b, xd, INFINITY, NULL, &hit);
		double nc = 0;
		for (int k = 0; k < 3; k++)
			nc += plane[k] * hit.point[k];
		worst_plane = fmax(worst_plane, fabs(nc + offset - plane[3]));
	}
	printf("points %d wrong-side %d worst-normal %.3g worst-plane %.3g\n", n,
	       wrong, worst_angle, worst_plane);
	body_free(&b);
	return 0;
}

static int point(const char *path, double x, double y, double z)
{
	struct body b;
	load_body(path, &b);
	double p[3] = {x, y, z};
	printf("winding %.6f inside %d depth %.6g\n", body_winding(&b, p),
	       body_inside(&b, p), body_depth(&b, p));
	body_free(&b);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int distances(const char *body_path, const char *obj_path)
{
	struct body b;
	struct obj_mesh m;
	struct error e;
	load_body(body_path, &b);
	if (obj_load(&m, obj_path, &e))
		fail(e.msg);
	double *d = xmalloc_array((size_t)m.nv, sizeof(double));
	int inside = 0;
	#pragma omp parallel for schedule(dynamic, 64) reduction(+:inside)
	for (int v = 0; v < m.nv; v++) {
		struct body_hit hit;
		body_closest(&b, m.v[v], INFINITY, NULL, &hit);
		d[v] = hit.dist;
		inside += body_inside(&b, m.v[v]);
	}
	qsort(d, (size_t)m.nv, sizeof *d, cmp_double);
	printf("p1 %.6g p50 %.6g max %.6g inside %d\n", d[m.nv / 100],
	       d[m.nv / 2], d[m.nv - 1], inside);
	free(d);
	obj_free(&m);
	body_free(&b);
	return 0;
}

/* ---- sheets ---------------------------------------------------------------- */

/* Pattern: panel 0 in columns [2, 2 + pw), panel 1 in columns
 * [pw + 5, 2 pw + 5), rows [2, 2 + ph); panel 0's last column is sewn to
 * panel 1's first: each is the other's partner, one cell of cloth apart.
 * The cloth coordinate u runs on across the seam, so the sewn sheet is
 * one strip of 2 pw columns. */
struct sheet {
	int w, h, pw, ph;
	double cell;
};

static int sheet_u(const struct sheet *s, int i, int *panel)
{
	if (i >= 2 && i < 2 + s->pw) {
		*panel = 0;
		return i - 2;
	}
	if (i >= s->pw + 5 && i < 2 * s->pw + 5) {
		*panel = 1;
		return i - 5;
	}
	*panel = -1;
	return 0;
}

/* A z-fold: flat, a half turn of radius rho up, back, a half turn down,
 * forward again, each layer 2 rho above the last. */
static void zfold(double u, double len, double rho, double out[2])
{
	double seg = len / 3, arc = PI * rho;
	double x = u, z = 0;
	if (u < seg) {
		x = u;
	} else if (u < seg + arc) {
		double a = (u - seg) / rho;
		x = seg + rho * sin(a);
		z = rho - rho * cos(a);
	} else if (u < 2 * seg + arc) {
		x = seg - (u - seg - arc);
		z = 2 * rho;
	} else if (u < 2 * seg + 2 * arc) {
		double a = (u - 2 * seg - arc) / rho;
		x = -rho * sin(a);
		z = 3 * rho - rho * cos(a);
	} else {
		x = u - 2 * seg - 2 * arc;
		z = 4 * rho;
	}
	out[0] = x;
	out[1] = z;
}

static void fold_across(double p[3], const double n[3], double c)
{
	double d = p[0] * n[0] + p[1] * n[1] + p[2] * n[2] - c;
	if (d > 0)
		for (int k = 0; k < 3; k++)
			p[k] -= 2 * d * n[k];
}

static void place(const struct sheet *s, const char *kind, double u, double v,
		  double p[3], const double (*planes)[4], int nplanes)
{
	double h = s->cell, len = 2 * s->pw * h, q[2];
	if (strcmp(kind, "fold") == 0) {
		zfold(u * h, len, 0.15 * h, q);
		p[0] = q[0];
		p[1] = v * h;
		p[2] = q[1];
	} else if (strcmp(kind, "stack") == 0) {
		/* eight layers, zigzag, 0.15 cells apart */
		double layer = len / 8, t = u * h / layer;
		int k = (int)fmin(7, floor(t));
		double f = t - k;
		p[0] = (k & 1) ? (1 - f) * layer : f * layer;
		p[1] = v * h;
		p[2] = 0.15 * h * k;
	} else {
		p[0] = u * h;
		p[1] = v * h;
		p[2] = 0;
		for (int k = 0; k < nplanes; k++)
			fold_across(p, planes[k], planes[k][3]);
	}
}

static void new_channel(struct grid *g, const char *name, enum grid_type t,
			int comps)
{
	struct error e;
	if (!grid_add(g, name, t, comps, &e))
		fail(e.msg);
}

static int sheet(const char *kind, unsigned seed, double cell, const char *out)
{
	struct sheet s = {.pw = 24, .ph = 20, .cell = cell};
	s.w = 2 * s.pw + 7;
	s.h = s.ph + 4;
	rng_state ^= (uint64_t)seed * 0x2545f4914f6cdd1dull;
	urand();
	struct grid g;
	struct error e;
	double origin[2] = {0, 0};
	if (grid_init(&g, s.w, s.h, cell, origin, &e))
		fail(e.msg);
	new_channel(&g, "mask", GRID_U8, 1);
	new_channel(&g, "panel", GRID_U16, 1);
	new_channel(&g, "seam", GRID_F32, 3);
	new_channel(&g, "rest", GRID_F32, 3);
	new_channel(&g, "x", GRID_F32, 3);
	uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	uint16_t *panel = channel(&g, "panel", GRID_U16, 1);
	float *seam = channel(&g, "seam", GRID_F32, 3);
	float *rest = channel(&g, "rest", GRID_F32, 3);
	float *x = channel(&g, "x", GRID_F32, 3);
	/* random folding planes through the sheet's middle region */
	double planes[6][4];
	double centre[2] = {s.pw * cell, s.ph * cell / 2};
	for (int k = 0; k < 6; k++) {
		double a = PI * urand(), tilt = 0.3 * urand();
		planes[k][0] = cos(a) * cos(tilt);
		planes[k][1] = sin(a) * cos(tilt);
		planes[k][2] = sin(tilt);
		planes[k][3] = planes[k][0] * (centre[0] + 0.5 * centre[0] * urand()) +
			       planes[k][1] * (centre[1] + 0.5 * centre[1] * urand()) +
			       0.2 * cell * urand();
	}
	for (int j = 0; j < s.h; j++)
		for (int i = 0; i < s.w; i++) {
			size_t v = (size_t)j * s.w + i;
			int pn, u = sheet_u(&s, i, &pn);
			seam[3 * v] = seam[3 * v + 1] = seam[3 * v + 2] = NAN;
			if (pn < 0 || j < 2 || j >= 2 + s.ph) {
				panel[v] = PANEL_NONE;
				continue;
			}
			mask[v] = MASK_INSIDE;
			panel[v] = (uint16_t)pn;
			int first = i == 2 || i == s.pw + 5, last = i == 1 + s.pw ||
				    i == 2 * s.pw + 4 || j == 2 || j == 1 + s.ph;
			if (first || last)
				mask[v] |= MASK_BOUNDARY;
			if ((pn == 0 && i == 1 + s.pw) || (pn == 1 && i == s.pw + 5)) {
				mask[v] |= MASK_SEAM;
				seam[3 * v] = (float)(cell * (pn == 0 ? s.pw + 5 : 1 + s.pw));
				seam[3 * v + 1] = (float)(cell * j);
				seam[3 * v + 2] = (float)cell;
			}
			double p[3];
			place(&s, kind, u + 0.05 * urand(), j + 0.05 * urand(), p,
			      (const double (*)[4])planes,
			      strcmp(kind, "crumple") == 0 ? 6 : 0);
			for (int k = 0; k < 3; k++) {
				x[3 * v + k] = (float)(p[k] + 0.02 * cell * urand());
				rest[3 * v + k] = x[3 * v + k];
			}
		}
	FILE *f = fopen(out, "wb");
	if (!f || grid_write(&g, f, out, &e) || fclose(f))
		fail("cannot write the sheet");
	grid_free(&g);
	return 0;
}

static int project(const char *grid_path, const char *body_path,
		   const char *out)
{
	struct grid g;
	struct body b;
	struct error e;
	struct body_plane_stats st;
	load_grid(grid_path, &g);
	load_body(body_path, &b);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	float *x = channel(&g, "x", GRID_F32, 3);
	size_t n = grid_vertices(&g);
	float *plane = xmalloc_array(n, 4 * sizeof(float));
	body_halfplanes(&b, x, mask, n, COLLIDE_OFFSET, INFINITY, plane, &st);
	for (size_t v = 0; v < n; v++)
		v3_store(x + 3 * v, collide_project_halfplane(v3_load(x + 3 * v),
							      plane + 4 * v));
	FILE *f = fopen(out, "wb");
	if (!f || grid_write(&g, f, out, &e) || fclose(f))
		fail("cannot write the grid");
	printf("near %zu inside %zu\n", st.near, st.inside);
	free(plane);
	body_free(&b);
	grid_free(&g);
	return 0;
}

/* ---- proximity against brute force ------------------------------------- */

/* Grid neighbours, written out again from collide.h's definition. */
static int neighbours(const struct grid *g, const uint16_t *panel,
		      const float *seam, size_t a, size_t b)
{
	int w = g->width;
	int ia = (int)(a % (size_t)w), ja = (int)(a / (size_t)w);
	int ib = (int)(b % (size_t)w), jb = (int)(b / (size_t)w);
	if (panel[a] == panel[b] && abs(ia - ib) <= 2 && abs(ja - jb) <= 2)
		return 1;
	for (int s = 0; s < 2 && seam; s++) {
		size_t p = s ? b : a;
		int io = s ? ia : ib, jo = s ? ja : jb;
		if (isnan(seam[3 * p]))
			continue;
		double pi = (seam[3 * p] - g->origin[0]) / g->cell;
		double pj = (seam[3 * p + 1] - g->origin[1]) / g->cell;
		if (fabs(io - pi) <= 2.5 && fabs(jo - pj) <= 2.5)
			return 1;
	}
	return 0;
}

struct cand {
	float d2;
	uint32_t v;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	if (a->d2 != b->d2)
		return a->d2 < b->d2 ? -1 : 1;
	return (a->v > b->v) - (a->v < b->v);
}

static int proximity(const char *path, int k, double s)
{
	struct grid g;
	struct proximity pr;
	struct error e;
	load_grid(path, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const uint16_t *panel = channel(&g, "panel", GRID_U16, 1);
	const struct grid_channel *sc = grid_find_typed(&g, "seam", GRID_F32, 3);
	const float *seam = sc ? sc->data : NULL;
	const float *x = channel(&g, "x", GRID_F32, 3);
	if (proximity_init(&pr, &g, k, &e))
		fail(e.msg);
	proximity_refresh(&pr, x, s);
	size_t n = grid_vertices(&g), brute = 0, cross = 0, listed_nbr = 0;
	size_t wrong = 0, overflow = 0;
	float s2 = (float)(s * s);
	struct cand *c = xmalloc_array(n, sizeof *c);
	uint64_t hash = 1469598103934665603ull;
	for (size_t a = 0; a < n; a++) {
		if (!is_cloth(mask[a]))
			continue;
		size_t nc = 0;
		for (size_t b = 0; b < n; b++) {
			if (b == a || !is_cloth(mask[b]))
				continue;
			float d2 = collide_dist2(x + 3 * a, x + 3 * b);
			if (d2 < s2 && !neighbours(&g, panel, seam, a, b))
				c[nc++] = (struct cand){d2, (uint32_t)b};
		}
		brute += nc;
		overflow += nc > (size_t)k;
		qsort(c, nc, sizeof *c, cand_cmp);
		int kept = proximity_kept(&pr, a);
		const uint32_t *l = pr.list + a * (size_t)k;
		int ok = kept == (int)(nc < (size_t)k ? nc : (size_t)k) &&
			 pr.found[a] == nc;
		for (int q = 0; q < kept; q++) {
			ok = ok && q < (int)nc && l[q] == c[q].v;
			listed_nbr += neighbours(&g, panel, seam, a, l[q]);
			cross += panel[a] != panel[l[q]];
			hash = (hash ^ l[q]) * 1099511628211ull;
		}
		wrong += !ok;
	}
	printf("pairs %zu cross %zu brute %zu listed-neighbours %zu wrong-lists "
	       "%zu overflow %zu brute-overflow %zu long %zu hash %016llx\n",
	       pr.stats.pairs, cross / 2, brute / 2, listed_nbr, wrong,
	       pr.stats.overflow, overflow, pr.stats.long_pairs,
	       (unsigned long long)hash);
	free(c);
	proximity_free(&pr);
	grid_free(&g);
	return 0;
}

static int intersections(const char *path)
{
	struct grid g;
	load_grid(path, &g);
	const float *x = channel(&g, "x", GRID_F32, 3);
	uint32_t *tri;
	size_t nt = grid_triangles(g.width, g.height, channel(&g, "mask", GRID_U8, 1),
				   channel(&g, "panel", GRID_U16, 1), &tri);
	size_t count = 0, adjacent = 0;
	#pragma omp parallel for schedule(dynamic, 16) reduction(+:count, adjacent)
	for (long t = 0; t < (long)nt; t++)
		for (size_t u = (size_t)t + 1; u < nt; u++) {
			int shared = 0, st = -1, su = -1;
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++)
					if (tri[3 * t + a] == tri[3 * u + b]) {
						shared++;
						st = a;
						su = b;
					}
			const float *pt[3], *pu[3];
			for (int a = 0; a < 3; a++) {
				pt[a] = x + 3 * (size_t)tri[3 * t + a];
				pu[a] = x + 3 * (size_t)tri[3 * u + a];
			}
			if (shared == 0) {
				count += triangles_intersect(pt, pu);
			} else if (shared == 1) {
				int cross = segment_crosses_triangle(
					pt[(st + 1) % 3], pt[(st + 2) % 3], pu[0], pu[1], pu[2]) ||
					segment_crosses_triangle(pu[(su + 1) % 3],
						pu[(su + 2) % 3], pt[0], pt[1], pt[2]);
				count += cross;
				adjacent += cross;
			}
		}
	printf("triangles %zu brute %zu shared %zu\n", nt, count, adjacent);
	free(tri);
	grid_free(&g);
	return 0;
}

static int pair_cmp(const void *pa, const void *pb)
{
	const uint32_t *a = pa, *b = pb;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Whether pairs a[0..n) and b[0..m) (2 triangles each, in any order) are
 * the same pairs; sorts both. */
static int same_pairs(uint32_t *a, size_t n, uint32_t *b, size_t m)
{
	size_t size = 2 * sizeof(uint32_t);
	qsort(a, n, size, pair_cmp);
	qsort(b, m, size, pair_cmp);
	return n == m && memcmp(a, b, n * size) == 0;
}

/* Rounds of moves of GRID's x, each followed by update_intersections and
 * compared with a full recount, pair by pair.  A round moves the corners
 * of one triangle of every other intersecting pair (as the rest
 * surface's untangling moves corners) and a tenth of all vertices, by up
 * to 0.3 cells along each axis. */
static int update(const char *path, int rounds)
{
	struct grid g;
	load_grid(path, &g);
	float *x = channel(&g, "x", GRID_F32, 3);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	uint32_t *tri, *pairs = NULL, *full = NULL, *before = NULL;
	size_t nt = grid_triangles(g.width, g.height, mask,
				   channel(&g, "panel", GRID_U16, 1), &tri);
	size_t nv = grid_vertices(&g), size = 2 * sizeof(uint32_t);
	uint8_t *moved = xmalloc(nv);
	size_t n = count_all_intersections(x, tri, nt, &pairs), first = n, m = 0;
	int changed = 0, wrong = 0;
	for (int r = 0; r < rounds; r++) {
		memset(moved, 0, nv);
		for (size_t q = 0; q < n; q += 2)
			for (int c = 0; c < 3; c++)
				moved[tri[3 * (size_t)pairs[2 * q] + c]] = 1;
		for (size_t v = 0; v < nv; v++)
			if (is_cloth(mask[v]) && urand() > 0.8)
				moved[v] = 1;
		for (size_t v = 0; v < nv; v++)
			for (int k = 0; moved[v] && k < 3; k++)
				x[3 * v + k] += (float)(0.3 * g.cell * urand());
		n = update_intersections(x, tri, nt, moved, &pairs, n);
		free(before);
		before = full;
		size_t was = m;
		m = count_all_intersections(x, tri, nt, &full);
		wrong += !same_pairs(pairs, n, full, m);
		changed += r > 0 && (m != was || memcmp(full, before, m * size) != 0);
	}
	printf("rounds %d pairs %zu to %zu changed %d wrong %d\n", rounds, first,
	       m, changed, wrong);
	free(before);
	free(full);
	free(pairs);
	free(moved);
	free(tri);
	grid_free(&g);
	return 0;
}

/* The pairs with a triangle from the first on (as --safe counts them
 * after adding the seams' strip), for the last half, quarter and eighth
 * of GRID's triangles, against the full count's: "pairs P tail T wrong
 * W" (T the pairs in the last half, W the splits whose pairs differ). */
static int touching(const char *path)
{
	struct grid g;
	load_grid(path, &g);
	const float *x = channel(&g, "x", GRID_F32, 3);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	uint32_t *tri, *full, *tail;
	size_t nt = grid_triangles(g.width, g.height, mask,
				   channel(&g, "panel", GRID_U16, 1), &tri);
	size_t size = 2 * sizeof(uint32_t), m = count_all_intersections(x, tri, nt, &full);
	uint8_t *touch = xmalloc(nt + 1);
	size_t half = 0;
	int wrong = 0;
	for (size_t part = 2; part <= 8; part *= 2) {
		size_t first = nt - nt / part, kept = 0;
		uint32_t *want = xmalloc_array(m + 1, size);
		for (size_t q = 0; q < m; q++)
			if (full[2 * q] >= first || full[2 * q + 1] >= first) {
				want[2 * kept] = full[2 * q];
				want[2 * kept++ + 1] = full[2 * q + 1];
			}
		for (size_t t = 0; t < nt; t++)
			touch[t] = t >= first;
		size_t n = count_touching_intersections(x, tri, nt, touch, &tail);
		wrong += !same_pairs(tail, n, want, kept);
		if (part == 2)
			half = n;
		free(tail);
		free(want);
	}
	printf("pairs %zu tail %zu wrong %d\n", m, half, wrong);
	free(touch);
	free(full);
	free(tri);
	grid_free(&g);
	return 0;
}

static int inside(const char *grid_path, const char *body_path, double tol)
{
	struct grid g;
	struct body b;
	load_grid(grid_path, &g);
	load_body(body_path, &b);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const float *x = channel(&g, "x", GRID_F32, 3);
	size_t n = grid_vertices(&g), count = 0;
	#pragma omp parallel for schedule(dynamic, 16) reduction(+:count)
	for (long v = 0; v < (long)n; v++) {
		if (!is_cloth(mask[v]))
			continue;
		double p[3] = {x[3 * v], x[3 * v + 1], x[3 * v + 2]};
		int t;
		if (b.orientation * body_winding_exact(&b, p) >= 0.5 &&
		    sqrt(brute_closest(&b, p, &t)) > tol)
			count++;
	}
	printf("inside %zu\n", count);
	body_free(&b);
	grid_free(&g);
	return 0;
}

/* ---- predicates, repulsion -------------------------------------------------- */

/* The sign of det[P0 - P3; P1 - P3; P2 - P3] in integers. */
static int int_orient(long long P[4][3])
{
	__int128 d[3][3];
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++)
			d[r][k] = (__int128)P[r][k] - P[3][k];
	__int128 det = d[0][2] * (d[1][0] * d[2][1] - d[2][0] * d[1][1]) +
		       d[1][2] * (d[2][0] * d[0][1] - d[0][0] * d[2][1]) +
		       d[2][2] * (d[0][0] * d[1][1] - d[1][0] * d[0][1]);
	return det > 0 ? 1 : det < 0 ? -1 : 0;
}

/* Three random points, a fourth on (or next to) their plane: an integer
 * combination a + s (b - a) + t (c - a), nudged. */
static void near_plane(long long P[4][3], int nudge)
{
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++)
			P[r][k] = (long long)(urand() * (1 << 18));
	long long s = (long long)(urand() * 4), t = (long long)(urand() * 4);
	for (int k = 0; k < 3; k++)
		P[3][k] = P[0][k] + s * (P[1][k] - P[0][k]) + t * (P[2][k] - P[0][k]) +
			  (nudge ? (long long)(urand() * 2) : 0);
}

/* Four points on (or next to) a plane y = z, one of them 2^far out
 * along x, the axes then shuffled: too thin a tetrahedron for the
 * floating-point filter to decide; at 2^60 (not 2^52) the differences
 * to the far point are not exact in double. */
static void far_plane(long long P[4][3], int nudge, int out)
{
	long long Q[4][3];
	int far = (int)((urand() + 1) * 2), axis[3] = {0, 1, 2};
	for (int r = 0; r < 4; r++) {
		Q[r][0] = r == far ? 1ll << out : (long long)(urand() * (1 << 18));
		Q[r][1] = Q[r][2] = (long long)(urand() * (1 << 18));
	}
	if (nudge)
		Q[far][2] += (long long)(urand() * 2);
	for (int k = 2; k > 0; k--) {
		int j = (int)((urand() + 1) / 2 * (k + 1)), tmp = axis[k];
		axis[k] = axis[j];
		axis[j] = tmp;
	}
	for (int r = 0; r < 4; r++)
		for (int k = 0; k < 3; k++)
			P[r][axis[k]] = Q[r][k];
}

/* Points k * 2^-20 with |k| < 2^22, or k = 2^52 or 2^60: floats
 * exactly, and their orientation determinant times 2^60 is an integer
 * that fits in 128 bits.  Every fourth quadruple has a far point;
 * inexact counts those whose differences in double are rounded. */
static int orient(int n)
{
	int zero = 0, wrong = 0, inexact = 0;
	for (int q = 0; q < n; q++) {
		long long P[4][3];
		if (q % 4 == 3)
			far_plane(P, q & 4, q & 8 ? 60 : 52);
		else
			near_plane(P, q & 1);
		float f[4][3];
		int rounded = 0;
		for (int r = 0; r < 4; r++)
			for (int k = 0; k < 3; k++)
				f[r][k] = (float)ldexp((double)P[r][k], -20);
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 3; k++)
				rounded |= (long long)ldexp((double)f[r][k] - f[3][k], 20) !=
					   P[r][k] - P[3][k];
		int want = int_orient(P);
		zero += want == 0;
		inexact += rounded;
		wrong += orient3d_sign(f[0], f[1], f[2], f[3]) != want;
	}
	printf("tests %d zero %d inexact %d wrong %d\n", n, zero, inexact, wrong);
	return 0;
}

/* Pairs of triangles and whether they intersect (an edge of one crosses
 * the other, its ends strictly on both sides). */
static int triangles(void)
{
	static const struct { float t[3][3], u[3][3]; int want; } c[] = {
		/* u pierces t's interior */
		{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		 {{0.2f, 0.2f, -1}, {0.3f, 0.2f, 1}, {0.2f, 0.3f, 1}}, 1},
		/* u above t, apart */
		{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		 {{0, 0, 1}, {1, 0, 1}, {0, 1, 2}}, 0},
		/* u's corner touches t's plane inside t: not a crossing */
		{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		 {{0.2f, 0.2f, 0}, {0.3f, 0.2f, 1}, {0.2f, 0.3f, 1}}, 0},
		/* coplanar and overlapping: never counted */
		{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		 {{0.1f, 0.1f, 0}, {2, 0.1f, 0}, {0.1f, 2, 0}}, 0},
		/* u's edge passes through t's edge (the border counts) */
		{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		 {{0.5f, 0, -1}, {0.5f, 0, 1}, {0.5f, -1, 0}}, 1},
		/* u crosses t's plane beside t */
		{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		 {{2, 2, -1}, {3, 2, 1}, {2, 3, 1}}, 0},
		/* interlocked like two links of a chain: t's edge crosses u */
		{{{-1, 0, 0}, {1, 0, 0}, {0, 2, 0}},
		 {{0, 1, -1}, {0, 1, 1}, {0, -2, 0}}, 1},
	};
	int n = (int)(sizeof c / sizeof c[0]), wrong = 0;
	for (int q = 0; q < n; q++) {
		const float *t[3] = {c[q].t[0], c[q].t[1], c[q].t[2]};
		const float *u[3] = {c[q].u[0], c[q].u[1], c[q].u[2]};
		wrong += triangles_intersect(t, u) != c[q].want;
		wrong += triangles_intersect(u, t) != c[q].want;
	}
	printf("cases %d wrong %d\n", n, wrong);
	return 0;
}

static int repel(void)
{
	double worst = 0, worst_proj = 0, R = 4e-4, k = 500;
	for (int q = 0; q < 1000; q++) {
		float a[3], b[3];
		for (int c = 0; c < 3; c++) {
			b[c] = (float)(0.3 * urand());
			a[c] = b[c] + (float)(2.5e-4 * urand());
		}
		vec3 g = v3(0, 0, 0);
		float diag = 0;
		collide_repel(a, b, (float)R, (float)k, &g, &diag);
		float gv[3] = {g.x, g.y, g.z};
		double scale = k * R;
		for (int c = 0; c < 3; c++) {
			float ap[3], am[3], hstep = 2e-6f;
			memcpy(ap, a, sizeof ap);
			memcpy(am, a, sizeof am);
			ap[c] += hstep;
			am[c] -= hstep;
			double fd = (collide_pair_energy(ap, b, R, k) -
				     collide_pair_energy(am, b, R, k)) /
				    ((double)ap[c] - am[c]);
			worst = fmax(worst, fabs(fd - gv[c]) / scale);
		}
		/* a random half-plane: after projection nothing is behind it */
		float plane[4], len = 0;
		for (int c = 0; c < 3; c++) {
			plane[c] = (float)urand();
			len += plane[c] * plane[c];
		}
		for (int c = 0; c < 3; c++)
			plane[c] /= sqrtf(len);
		plane[3] = (float)(0.3 * urand());
		vec3 x = v3(a[0], a[1], a[2]);
		vec3 y = collide_project_halfplane(x, plane);
		worst_proj = fmax(worst_proj, collide_halfplane_violation(y, plane));
		if (collide_halfplane_violation(x, plane) == 0 &&
		    (y.x != x.x || y.y != x.y || y.z != x.z))
			worst_proj = INFINITY;
	}
	printf("worst-gradient %.3g worst-projection %.3g\n", worst, worst_proj);
	return 0;
}

/* ---- bench ------------------------------------------------------------------ */

static int bench(const char *body_path, const char *grid_path, double s)
{
	struct body b;
	struct grid g;
	struct proximity pr;
	struct error e;
	double t0 = now_seconds();
	load_body(body_path, &b);
	double tbuild = now_seconds() - t0;
	load_grid(grid_path, &g);
	const uint8_t *mask = channel(&g, "mask", GRID_U8, 1);
	const float *x = channel(&g, "rest", GRID_F32, 3);
	size_t n = grid_vertices(&g);
	float *plane = xmalloc_array(n, 4 * sizeof(float));
	struct body_plane_stats st;
	size_t cloth = 0;
	for (size_t v = 0; v < n; v++)
		cloth += is_cloth(mask[v]);
	/* the closest-point queries alone, unbounded, one thread */
	t0 = now_seconds();
	int hint = -1;
	for (size_t v = 0; v < n; v++)
		if (is_cloth(mask[v])) {
			double p[3] = {x[3 * v], x[3 * v + 1], x[3 * v + 2]};
			struct body_hit hit;
			body_closest(&b, p, INFINITY, &hint, &hit);
		}
	double tclosest = now_seconds() - t0;
	t0 = now_seconds();
	body_halfplanes(&b, x, mask, n, COLLIDE_OFFSET, 0.01, plane, &st);
	double tplanes = now_seconds() - t0;
	if (proximity_init(&pr, &g, COLLIDE_NEIGHBOURS, &e))
		fail(e.msg);
	t0 = now_seconds();
	proximity_refresh(&pr, x, s);
	double tprox = now_seconds() - t0;
	printf("body %d triangles, tree %.3f s; %zu cloth vertices\n", b.ntri,
	       tbuild, cloth);
	printf("  closest point, unbounded, 1 thread: %.3f s per million vertices\n",
	       tclosest / (double)cloth * 1e6);
	printf("  half-planes (reach 1 cm, %zu near, inside test included), %d "
	       "threads: %.3f s per million vertices\n", st.near,
	       omp_get_max_threads(), tplanes / (double)cloth * 1e6);
	printf("  proximity search, radius %g m, %d threads: %.3f s (%.3f s per "
	       "million), %zu blocks, %zu long-range block pairs, %zu vertex "
	       "pairs\n", s, omp_get_max_threads(), tprox,
	       tprox / (double)cloth * 1e6, pr.stats.blocks, pr.stats.long_pairs,
	       pr.stats.pairs);
	proximity_free(&pr);
	free(plane);
	grid_free(&g);
	body_free(&b);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	progname = "test_collide";
	if (strcmp(cmd, "body-obj") == 0 && argc == 3)
		return body_obj(argv[2]);
	if (strcmp(cmd, "closest") == 0 && argc == 4)
		return closest(argv[2], atoi(argv[3]));
	if (strcmp(cmd, "winding") == 0 && argc == 4)
		return winding(argv[2], atoi(argv[3]));
	if (strcmp(cmd, "buried") == 0 && argc == 3)
		return buried(argv[2]);
	if (strcmp(cmd, "step") == 0 && argc == 4)
		return step(argv[2], atoi(argv[3]));
	if (strcmp(cmd, "sphere") == 0 && argc == 4)
		return sphere(argv[2], atof(argv[3]));
	if (strcmp(cmd, "point") == 0 && argc == 6)
		return point(argv[2], atof(argv[3]), atof(argv[4]), atof(argv[5]));
	if (strcmp(cmd, "distances") == 0 && argc == 4)
		return distances(argv[2], argv[3]);
	if (strcmp(cmd, "sheet") == 0 && argc == 6)
		return sheet(argv[2], (unsigned)atoi(argv[3]), atof(argv[4]), argv[5]);
	if (strcmp(cmd, "project") == 0 && argc == 5)
		return project(argv[2], argv[3], argv[4]);
	if (strcmp(cmd, "proximity") == 0 && argc == 5)
		return proximity(argv[2], atoi(argv[3]), atof(argv[4]));
	if (strcmp(cmd, "intersections") == 0 && argc == 3)
		return intersections(argv[2]);
	if (strcmp(cmd, "update") == 0 && argc == 4)
		return update(argv[2], atoi(argv[3]));
	if (strcmp(cmd, "touching") == 0 && argc == 3)
		return touching(argv[2]);
	if (strcmp(cmd, "inside") == 0 && argc == 5)
		return inside(argv[2], argv[3], atof(argv[4]));
	if (strcmp(cmd, "orient") == 0 && argc == 3)
		return orient(atoi(argv[2]));
	if (strcmp(cmd, "triangles") == 0 && argc == 2)
		return triangles();
	if (strcmp(cmd, "repel") == 0 && argc == 2)
		return repel();
	if (strcmp(cmd, "bench") == 0 && argc == 5)
		return bench(argv[2], argv[3], atof(argv[4]));
	fprintf(stderr, "usage: see the top of tests/unit/test_collide.c\n");
	return 2;
}

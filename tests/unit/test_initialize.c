/* test_initialize - inputs with known answers, and measurements that do
 * not use pleat-initialize's code, for tests/initialize.bats.
 *
 *   test_initialize square-obj    a 1 m square, its 3D positions the
 *        rigid motion below of its pattern (u, v, 0)
 *   test_initialize disc-obj      the same for a 48-gon 1 m across, whose
 *        edges run slanted across the grid
 *   test_initialize rotate-obj    an OBJ on stdin with every position
 *        moved by the rigid motion, on stdout
 *   test_initialize frames FILE   the largest difference, over the cloth,
 *        between the local frame (frame.h) and the columns of the motion's
 *        rotation: exact for the moved square
 *   test_initialize set FIELD IN OUT   IN with x = rest + FIELD on its
 *        cloth vertices and x = rest elsewhere
 *   test_initialize error FIELD FILE   "max E other O": the largest
 *        |x - rest - FIELD| over the cloth, and |x - rest| elsewhere
 *   test_initialize mix FILE   for x - rest = the panels field mixed
 *        across seams: "own N mixed M off E t T0 T1": N cloth vertices
 *        with their own panel's constant c_p (within 1e-7 m), M others,
 *        each of which lies on the segment from c_p to another panel's
 *        constant c_q, the nearest q, at most E off it, at c_p + t
 *        (c_q - c_p) with t from T0 to T1
 *        FIELD: wave, a smooth displacement of the pattern position;
 *        panels, a different constant displacement on each panel; bump,
 *        panel 0 lifted along z by a 10 mm bump over [0, 0.1] x [0, 0.1]
 *        of the pattern, the other panels not at all; or zero
 *   test_initialize rotate IN OUT   rest and x moved by the rigid motion
 *   test_initialize naive PREV CUR OUT   CUR with x = rest + the previous
 *        result's x - rest: the transfer that ignores the coarse motion
 *   test_initialize distance A B   the largest |x_a - x_b| over A's cloth
 *   test_initialize intersections FILE   the pairs of triangles of the
 *        cloth mesh at x that intersect (proximity.h), and the smallest
 *        distance between cloth vertices of different panels
 *   test_initialize ramp IN OUT DX DY DZ   x += c i / (w - 1) on the cloth
 *        (i the column, w the width); prints "mean M max X" of |that|
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "grid.h"
#include "proximity.h"

/* The rigid motion: a turn of 40 degrees about (1, 2, 2) / 3 (Rodrigues'
 * formula) and a translation. */
static const double shift[3] = {0.3, -0.2, 0.5};

static void rotation(double R[3][3])
{
	const double k[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3};
	double a = 40 * 3.14159265358979323846 / 180, c = cos(a), s = sin(a);
	for (int r = 0; r < 3; r++)
		for (int q = 0; q < 3; q++)
			R[r][q] = (r == q) * c + (1 - c) * k[r] * k[q];
	R[0][1] -= s * k[2]; R[1][0] += s * k[2];
	R[0][2] += s * k[1]; R[2][0] -= s * k[1];
	R[1][2] -= s * k[0]; R[2][1] += s * k[0];
}

static void move(const double p[3], double out[3])
{
	double R[3][3];
	rotation(R);
	for (int r = 0; r < 3; r++)
		out[r] = R[r][0] * p[0] + R[r][1] * p[1] + R[r][2] * p[2] + shift[r];
}

/* A grid and its channels; x only when asked for. */
struct result {
	struct grid g;
	const uint8_t *mask;
	const uint16_t *panel;
	float *rest, *x;
};

static void open_result(struct result *r, const char *path, int want_x)
{
	struct error e;
	if (grid_load(path, &r->g, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		exit(1);
	}
	struct grid_channel *m = grid_find_typed(&r->g, "mask", GRID_U8, 1),
		*p = grid_find_typed(&r->g, "panel", GRID_U16, 1),
		*rc = grid_find_typed(&r->g, "rest", GRID_F32, 3),
		*xc = grid_find_typed(&r->g, "x", GRID_F32, 3);
	if (!m || !p || !rc || (want_x && !xc)) {
		fprintf(stderr, "%s: a channel is missing\n", path);
		exit(1);
	}
	r->mask = m->data;
	r->panel = p->data;
	r->rest = rc->data;
	r->x = xc ? xc->data : NULL;
}

/* Gives r an x channel equal to rest. */
static void x_from_rest(struct result *r)
{
	struct error e;
	grid_remove(&r->g, "x");
	struct grid_channel *xc = grid_add(&r->g, "x", GRID_F32, 3, &e);
	if (!xc) {
		fprintf(stderr, "%s\n", e.msg);
		exit(1);
	}
	r->x = xc->data;
	memcpy(r->x, r->rest, grid_channel_bytes(&r->g, xc));
}

static int write_result(struct result *r, const char *path)
{
	struct error e;
	FILE *f = fopen(path, "wb");
	int bad = !f || grid_write(&r->g, f, path, &e);
	if (f && fclose(f))
		bad = 1;
	if (bad)
		fprintf(stderr, "cannot write %s\n", path);
	grid_free(&r->g);
	return bad;
}

static int cloth(const struct result *r, size_t v)
{
	return r->mask[v] & MASK_INSIDE;
}

static double dist3(const float *a, const float *b)
{
	return sqrt(pow((double)a[0] - b[0], 2) + pow((double)a[1] - b[1], 2) +
		    pow((double)a[2] - b[2], 2));
}

/* The panels field's constant of panel p. */
static void panel_constant(unsigned p, double c[3])
{
	double q = p + 1;
	c[0] = 1e-3 * q;
	c[1] = -2e-3 * q;
	c[2] = 3e-3 / q;
}

/* The displacements with known values at vertex v. */
static void field(const char *name, const struct result *r, size_t v,
		  double d[3])
{
	size_t w = (size_t)r->g.width;
	double u = r->g.origin[0] + r->g.cell * (double)(v % w);
	double s = r->g.origin[1] + r->g.cell * (double)(v / w);
	if (strcmp(name, "wave") == 0) {
		/* 5 mm, wavelengths of 0.2 to 0.3 m, every component */
		const double A = 5e-3, k = 2 * 3.14159265358979323846 / 0.2;
		d[0] = A * sin(k * u) * cos(0.8 * k * s);
		d[1] = A * cos(0.7 * k * (u + s));
		d[2] = A * sin(k * (u - 0.5 * s) + 1);
	} else if (strcmp(name, "bump") == 0) {
		/* panel 0 lifted along z by a 10 mm bump over [0, 0.1]^2 */
		const double pi = 3.14159265358979323846;
		d[0] = d[1] = 0;
		d[2] = r->panel[v] == 0 ? 1e-2 * fabs(sin(pi * u / 0.1) * sin(pi * s / 0.1)) : 0;
	} else if (strcmp(name, "zero") == 0) {
		d[0] = d[1] = d[2] = 0;
	} else {
		panel_constant(r->panel[v], d);
	}
}

static int set(const char *name, const char *in, const char *out)
{
	struct result r;
	open_result(&r, in, 0);
	x_from_rest(&r);
	size_t n = grid_vertices(&r.g);
	for (size_t v = 0; v < n; v++) {
		double d[3];
		if (!cloth(&r, v))
			continue;
		field(name, &r, v, d);
		for (int k = 0; k < 3; k++)
			r.x[3 * v + k] = (float)(r.rest[3 * v + k] + d[k]);
	}
	return write_result(&r, out);
}

static int error(const char *name, const char *path)
{
	struct result r;
	open_result(&r, path, 1);
	size_t n = grid_vertices(&r.g);
	double worst = 0, other = 0;
	for (size_t v = 0; v < n; v++) {
		float want[3];
		double d[3] = {0, 0, 0};
		if (cloth(&r, v))
			field(name, &r, v, d);
		for (int k = 0; k < 3; k++)
			want[k] = (float)(r.rest[3 * v + k] + d[k]);
		if (cloth(&r, v))
			worst = fmax(worst, dist3(&r.x[3 * v], want));
		else
			other = fmax(other, dist3(&r.x[3 * v], &r.rest[3 * v]));
	}
	printf("max %.9g other %.9g\n", worst, other);
	grid_free(&r.g);
	return 0;
}

static int mix(const char *path)
{
	struct result r;
	open_result(&r, path, 1);
	size_t n = grid_vertices(&r.g), own = 0, mixed = 0;
	unsigned npanels = 0;
	double off = 0, t0 = INFINITY, t1 = -INFINITY;
	for (size_t v = 0; v < n; v++)
		if (cloth(&r, v) && r.panel[v] + 1u > npanels)
			npanels = r.panel[v] + 1u;
	for (size_t v = 0; v < n; v++) {
		double d[3], cp[3], best = INFINITY, bt = 0;
		if (!cloth(&r, v))
			continue;
		for (int k = 0; k < 3; k++)
			d[k] = (double)r.x[3 * v + k] - r.rest[3 * v + k];
		panel_constant(r.panel[v], cp);
		if (hypot(hypot(d[0] - cp[0], d[1] - cp[1]), d[2] - cp[2]) < 1e-7) {
			own++;
			continue;
		}
		mixed++;
		for (unsigned q = 0; q < npanels; q++) {
			double cq[3], e[3], dd = 0, de = 0;
			if (q == r.panel[v])
				continue;
			panel_constant(q, cq);
			for (int k = 0; k < 3; k++) {
				e[k] = cq[k] - cp[k];
				dd += (d[k] - cp[k]) * e[k];
				de += e[k] * e[k];
			}
			double t = dd / de, o = 0;
			for (int k = 0; k < 3; k++)
				o += pow(d[k] - cp[k] - t * e[k], 2);
			if (sqrt(o) < best) {
				best = sqrt(o);
				bt = t;
			}
		}
		off = fmax(off, best);
		t0 = fmin(t0, bt);
		t1 = fmax(t1, bt);
	}
	printf("own %zu mixed %zu off %.9g t %.6g %.6g\n", own, mixed, off,
	       mixed ? t0 : 0, mixed ? t1 : 0);
	grid_free(&r.g);
	return 0;
}

static int frames(const char *path)
{
	struct result r;
	struct frame_field f;
	struct error e;
	double R[3][3], axes[3][3], worst = 0;
	open_result(&r, path, 0);
	if (frame_field_init(&f, &r.g, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	rotation(R);
	size_t n = grid_vertices(&r.g), count = 0;
	for (size_t v = 0; v < n; v++) {
		if (!cloth(&r, v))
			continue;
		if (!frame_at(&f, (int)(v % (size_t)f.w), (int)(v / (size_t)f.w), axes))
			worst = INFINITY;
		for (int a = 0; a < 3; a++)
			for (int c = 0; c < 3; c++)
				worst = fmax(worst, fabs(axes[a][c] - R[c][a]));
		count++;
	}
	printf("max %.9g vertices %zu\n", worst, count);
	grid_free(&r.g);
	return 0;
}

static int rotate(const char *in, const char *out)
{
	struct result r;
	open_result(&r, in, 1);
	size_t n = grid_vertices(&r.g);
	for (size_t v = 0; v < 2 * n; v++) {
		float *p = v < n ? &r.rest[3 * v] : &r.x[3 * (v - n)];
		double q[3] = {p[0], p[1], p[2]}, m[3];
		move(q, m);
		for (int k = 0; k < 3; k++)
			p[k] = (float)m[k];
	}
	return write_result(&r, out);
}

static int naive(const char *prev, const char *cur, const char *out)
{
	struct result a, b;
	open_result(&a, prev, 1);
	open_result(&b, cur, 0);
	x_from_rest(&b);
	size_t n = grid_vertices(&b.g);
	for (size_t v = 0; v < n; v++)
		for (int k = 0; cloth(&b, v) && k < 3; k++)
			b.x[3 * v + k] = (float)((double)b.rest[3 * v + k] +
						 a.x[3 * v + k] - a.rest[3 * v + k]);
	grid_free(&a.g);
	return write_result(&b, out);
}

static int distance(const char *pa, const char *pb)
{
	struct result a, b;
	open_result(&a, pa, 1);
	open_result(&b, pb, 1);
	size_t n = grid_vertices(&a.g);
	double worst = 0;
	if (grid_vertices(&b.g) != n) {
		fprintf(stderr, "different sizes\n");
		return 1;
	}
	for (size_t v = 0; v < n; v++)
		if (cloth(&a, v))
			worst = fmax(worst, dist3(&a.x[3 * v], &b.x[3 * v]));
	printf("%.9g\n", worst);
	grid_free(&a.g);
	grid_free(&b.g);
	return 0;
}

static int intersections(const char *path)
{
	struct result r;
	uint32_t *tri;
	open_result(&r, path, 1);
	size_t n = grid_vertices(&r.g), ntri = grid_triangles(r.g.width,
		r.g.height, r.mask, r.panel, &tri);
	size_t count = count_intersections(r.x, tri, ntri, NULL);
	double closest = INFINITY;
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; cloth(&r, a) && b < n; b++)
			if (cloth(&r, b) && r.panel[a] != r.panel[b])
				closest = fmin(closest, dist3(&r.x[3 * a], &r.x[3 * b]));
	printf("intersections %zu closest %.9g\n", count, closest);
	free(tri);
	grid_free(&r.g);
	return 0;
}

static int ramp(const char *in, const char *out, char **c)
{
	struct result r;
	double dc[3] = {atof(c[0]), atof(c[1]), atof(c[2])};
	double len = sqrt(dc[0] * dc[0] + dc[1] * dc[1] + dc[2] * dc[2]);
	double sum = 0, top = 0;
	size_t count = 0;
	open_result(&r, in, 1);
	size_t n = grid_vertices(&r.g), w = (size_t)r.g.width;
	for (size_t v = 0; v < n; v++) {
		if (!cloth(&r, v))
			continue;
		double t = (double)(v % w) / (double)(w - 1);
		for (int k = 0; k < 3; k++)
			r.x[3 * v + k] = (float)(r.x[3 * v + k] + t * dc[k]);
		sum += t * len;
		top = fmax(top, t * len);
		count++;
	}
	printf("mean %.9g max %.9g\n", sum / (double)count, top);
	return write_result(&r, out);
}

/* A flat polygon of n corners around (0.5, 0.5), its 3D positions the
 * rigid motion of its pattern: a 1 m square for n = 4 (corners at the
 * pattern's corners), nearly a disc of diameter 1 m for large n (edges
 * slanted across the grid). */
static int polygon_obj(int n)
{
	const double pi = 3.14159265358979323846;
	double r = n == 4 ? sqrt(0.5) : 0.5, a0 = n == 4 ? pi / 4 : 0;
	for (int k = 0; k <= n; k++) {
		double a = a0 + 2 * pi * k / n, uv[2] = {0.5, 0.5};
		if (k < n) {
			uv[0] += r * cos(a);
			uv[1] += r * sin(a);
		}
		double p[3] = {uv[0], uv[1], 0}, m[3];
		move(p, m);
		printf("v %.17g %.17g %.17g\nvt %.17g %.17g\n", m[0], m[1], m[2],
		       uv[0], uv[1]);
	}
	for (int k = 1; k <= n; k++)
		printf("f %d/%d %d/%d %d/%d\n", n + 1, n + 1, k, k, k % n + 1,
		       k % n + 1);
	return 0;
}

/* Moves the "v x y z" lines of an OBJ; every other line passes. */
static int rotate_obj(void)
{
	char line[4096];
	while (fgets(line, sizeof line, stdin)) {
		double p[3], m[3];
		if (strncmp(line, "v ", 2) != 0 ||
		    sscanf(line + 2, "%lf %lf %lf", &p[0], &p[1], &p[2]) != 3) {
			fputs(line, stdout);
			continue;
		}
		move(p, m);
		printf("v %.17g %.17g %.17g\n", m[0], m[1], m[2]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	if ((!strcmp(cmd, "set") || !strcmp(cmd, "error")) && argc > 2 &&
	    strcmp(argv[2], "wave") && strcmp(argv[2], "panels") &&
	    strcmp(argv[2], "zero") && strcmp(argv[2], "bump")) {
		fprintf(stderr, "test_initialize: no field '%s'\n", argv[2]);
		return 2;
	}
	if (strcmp(cmd, "square-obj") == 0)
		return polygon_obj(4);
	if (strcmp(cmd, "disc-obj") == 0)
		return polygon_obj(48);
	if (strcmp(cmd, "rotate-obj") == 0)
		return rotate_obj();
	if (argc == 3 && strcmp(cmd, "frames") == 0)
		return frames(argv[2]);
	if (argc == 5 && strcmp(cmd, "set") == 0)
		return set(argv[2], argv[3], argv[4]);
	if (argc == 4 && strcmp(cmd, "error") == 0)
		return error(argv[2], argv[3]);
	if (argc == 3 && strcmp(cmd, "mix") == 0)
		return mix(argv[2]);
	if (argc == 4 && strcmp(cmd, "rotate") == 0)
		return rotate(argv[2], argv[3]);
	if (argc == 5 && strcmp(cmd, "naive") == 0)
		return naive(argv[2], argv[3], argv[4]);
	if (argc == 4 && strcmp(cmd, "distance") == 0)
		return distance(argv[2], argv[3]);
	if (argc == 3 && strcmp(cmd, "intersections") == 0)
		return intersections(argv[2]);
	if (argc == 7 && strcmp(cmd, "ramp") == 0)
		return ramp(argv[2], argv[3], argv + 4);
	fprintf(stderr, "usage: test_initialize square-obj | disc-obj | rotate-obj | "
		"frames | set | error | mix | rotate | naive | distance | intersections | "
		"ramp\n");
	return 2;
}

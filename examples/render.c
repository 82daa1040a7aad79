/* render.c - a shaded picture of triangle meshes, for the quick start: the
 * wrinkled skirt pleat-simplify wrote, with its body, seen from the front
 * and a little above, lit from the upper left.  Not part of the toolkit
 * (not installed): make builds it into build/examples/ with pleat's OBJ
 * reader.
 *
 *   render out.png WIDTHxHEIGHT mesh.obj [mesh.obj ...]
 *
 * Each OBJ's triangles (v and f lines; texture and normal indices are
 * skipped, normals are the area-weighted face normals at each vertex) are
 * drawn with a depth buffer in an orthographic view that fits them all,
 * the first mesh light grey, the others darker; the back of a face is
 * shaded darker than its front.  Four samples per pixel.  Writes an 8-bit
 * grey PNG. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj.h"

#define SS 2                  /* samples per pixel along each axis */
#define ELEVATION 0.35        /* radians the view looks down */
#define BACKDROP 1.0f

struct mesh {
	int nv, nt;
	double (*v)[3], (*n)[3];
	int (*t)[3];
	double albedo;
};

static void fail(const char *what, const char *name)
{
	fprintf(stderr, "render: %s: %s\n", name, what);
	exit(1);
}

/* The mesh's positions and triangles, read by pleat's OBJ reader. */
static void read_obj(const char *name, struct mesh *m)
{
	struct obj_mesh o;
	struct error e;
	if (obj_load(&o, name, &e))
		fail(e.msg, name);
	if (!o.ntri)
		fail("no faces", name);
	memset(m, 0, sizeof *m);
	m->nv = o.nv;
	m->v = o.v;
	m->nt = o.ntri;
	m->t = o.tri_v;
	o.v = NULL;
	o.tri_v = NULL;
	obj_free(&o);
}

/* Area-weighted vertex normals. */
static void normals(struct mesh *m)
{
	m->n = calloc((size_t)m->nv, sizeof *m->n);
	if (!m->n)
		fail("out of memory", "render");
	for (int t = 0; t < m->nt; t++) {
		double *a = m->v[m->t[t][0]], *b = m->v[m->t[t][1]], *c = m->v[m->t[t][2]];
		double e[3], g[3], n[3];
		for (int k = 0; k < 3; k++) {
			e[k] = b[k] - a[k];
			g[k] = c[k] - a[k];
		}
		n[0] = e[1] * g[2] - e[2] * g[1];
		n[1] = e[2] * g[0] - e[0] * g[2];
		n[2] = e[0] * g[1] - e[1] * g[0];
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 3; k++)
				m->n[m->t[t][j]][k] += n[k];
	}
	for (int v = 0; v < m->nv; v++) {
		double *n = m->n[v], l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		for (int k = 0; k < 3; k++)
			n[k] = l > 0 ? n[k] / l : 0;
	}
}

/* The view: x right, y up, z towards the viewer; the camera looks along
 * -y of the world (the front), tilted down by ELEVATION. */
static void view(const double p[3], double out[3])
{
	double ce = cos(ELEVATION), se = sin(ELEVATION);
	out[0] = p[0];
	out[1] = p[2] * ce + p[1] * se;
	out[2] = -p[1] * ce + p[2] * se;
}

struct frame {
	int w, h;              /* in samples */
	float *img, *depth;
	double scale, off[2];  /* view x, y to sample coordinates */
};

static void fit(struct frame *fr, struct mesh *m, int nm)
{
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
	for (int i = 0; i < nm; i++)
		for (int v = 0; v < m[i].nv; v++) {
			double q[3];
			view(m[i].v[v], q);
			for (int k = 0; k < 2; k++) {
				lo[k] = fmin(lo[k], q[k]);
				hi[k] = fmax(hi[k], q[k]);
			}
		}
	double margin = 0.05;
	fr->scale = fmin(fr->w / (hi[0] - lo[0]), fr->h / (hi[1] - lo[1])) * (1 - 2 * margin);
	fr->off[0] = 0.5 * fr->w - 0.5 * (lo[0] + hi[0]) * fr->scale;
	fr->off[1] = 0.5 * fr->h - 0.5 * (lo[1] + hi[1]) * fr->scale;
}

/* Lambert with a little ambient; the light from the upper left, in front. */
static double shade(const double n[3], int front, double albedo)
{
	static const double light[3] = {-0.70, 0.35, 0.62};
	double d = n[0] * light[0] + n[1] * light[1] + n[2] * light[2];
	double lit = 0.18 + 0.82 * fmax(d, 0);
	return albedo * lit * (front ? 1 : 0.55);
}

static void draw(struct frame *fr, const struct mesh *m)
{
	for (int t = 0; t < m->nt; t++) {
		double s[3][3], nv[3][3];
		for (int j = 0; j < 3; j++) {
			view(m->v[m->t[t][j]], s[j]);
			view(m->n[m->t[t][j]], nv[j]);
			s[j][0] = s[j][0] * fr->scale + fr->off[0];
			s[j][1] = fr->h - (s[j][1] * fr->scale + fr->off[1]);
		}
		double area = (s[1][0] - s[0][0]) * (s[2][1] - s[0][1]) -
			      (s[1][1] - s[0][1]) * (s[2][0] - s[0][0]);
		if (area == 0)
			continue;
		int x0 = (int)fmax(0, floor(fmin(s[0][0], fmin(s[1][0], s[2][0]))));
		int x1 = (int)fmin(fr->w - 1, ceil(fmax(s[0][0], fmax(s[1][0], s[2][0]))));
		int y0 = (int)fmax(0, floor(fmin(s[0][1], fmin(s[1][1], s[2][1]))));
		int y1 = (int)fmin(fr->h - 1, ceil(fmax(s[0][1], fmax(s[1][1], s[2][1]))));
		for (int y = y0; y <= y1; y++)
			for (int x = x0; x <= x1; x++) {
				double px = x + 0.5, py = y + 0.5, b[3];
				for (int j = 0; j < 3; j++) {
					const double *p = s[(j + 1) % 3], *q = s[(j + 2) % 3];
					b[j] = ((q[0] - p[0]) * (py - p[1]) - (q[1] - p[1]) * (px - p[0])) / area;
				}
				if (b[0] < 0 || b[1] < 0 || b[2] < 0)
					continue;
				double z = b[0] * s[0][2] + b[1] * s[1][2] + b[2] * s[2][2];
				size_t at = (size_t)y * fr->w + x;
				if (z <= fr->depth[at])
					continue;
				double n[3];
				for (int k = 0; k < 3; k++)
					n[k] = b[0] * nv[0][k] + b[1] * nv[1][k] + b[2] * nv[2][k];
				double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
				if (!(l > 0))
					continue;
				/* the side of the cloth that faces the viewer */
				int front = n[2] >= 0;
				for (int k = 0; k < 3; k++)
					n[k] /= front ? l : -l;
				fr->depth[at] = (float)z;
				fr->img[at] = (float)shade(n, front, m->albedo);
			}
	}
}

static void write_png(const char *name, const struct frame *fr)
{
	int w = fr->w / SS, h = fr->h / SS;
	png_bytep px = malloc((size_t)w * h);
	if (!px)
		fail("out of memory", "render");
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double sum = 0;
			for (int j = 0; j < SS; j++)
				for (int i = 0; i < SS; i++)
					sum += fr->img[(size_t)(SS * y + j) * fr->w + SS * x + i];
			double g = pow(fmin(fmax(sum / (SS * SS), 0), 1), 1 / 2.2);
			px[(size_t)y * w + x] = (png_byte)lrint(255 * g);
		}
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	img.width = (png_uint_32)w;
	img.height = (png_uint_32)h;
	img.format = PNG_FORMAT_GRAY;
	if (!png_image_write_to_file(&img, name, 0, px, w, NULL))
		fail(img.message, name);
	free(px);
}

int main(int argc, char **argv)
{
	int w, h;
	if (argc < 4 || sscanf(argv[2], "%dx%d", &w, &h) != 2 || w < 16 ||
	    h < 16 || w > 8192 || h > 8192) {
		fprintf(stderr, "usage: render out.png WIDTHxHEIGHT mesh.obj [mesh.obj ...]\n");
		return 2;
	}
	int nm = argc - 3;
	struct mesh *m = calloc((size_t)nm, sizeof *m);
	struct frame fr = {.w = SS * w, .h = SS * h};
	fr.img = malloc((size_t)fr.w * fr.h * sizeof *fr.img);
	fr.depth = malloc((size_t)fr.w * fr.h * sizeof *fr.depth);
	if (!m || !fr.img || !fr.depth)
		fail("out of memory", "render");
	for (size_t i = 0; i < (size_t)fr.w * fr.h; i++) {
		fr.img[i] = BACKDROP;
		fr.depth[i] = -INFINITY;
	}
	for (int i = 0; i < nm; i++) {
		read_obj(argv[3 + i], &m[i]);
		normals(&m[i]);
		m[i].albedo = i ? 0.55 : 0.92;
	}
	fit(&fr, m, nm);
	for (int i = 0; i < nm; i++)
		draw(&fr, &m[i]);
	write_png(argv[1], &fr);
	return 0;
}

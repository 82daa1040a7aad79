/* test_normalmap - independent checks of pleat-normalmap's frames and
 * maps (tests/normalmap.bats).  Maps are read back with libpng here, so
 * the tests need no other image tool.
 *
 *   test_normalmap tangents MESH REF      normals and MikkTSpace tangents
 *                                         against a recorded reference
 *                                         (tests/fixtures/normalmap)
 *   test_normalmap flat-obj               two flat panels, one mirrored in
 *                                         texture space, rigidly moved
 *   test_normalmap add-x IN OUT A         x = rest + a sine wave of
 *                                         amplitude A m along the panels'
 *                                         normal (A = 0: unwrinkled)
 *   test_normalmap check MAP KIND A MAXDEG [MARGIN]
 *                                         the map of flat-obj with wave A
 *                                         against the analytic surface
 *                                         (KIND tangent, directx, object,
 *                                         displacement or pfm)
 *   test_normalmap flat MAP CODES        a tangent map of the unwrinkled
 *                                         panels is (0.5, 0.5, 1) within
 *                                         CODES codes
 *   test_normalmap png-info FILE          width, height, bit depth, channels
 *   test_normalmap upscaled SMALL BIG K   BIG is the preview SMALL (a pixel
 *        a vertex) scaled up K times (odd): block centres and outline
 *   test_normalmap levels FILE            the grey levels of a PNG and
 *                                         their pixel counts
 *   test_normalmap roundtrip MESH TANGENT OBJECT MAXDEG
 *                                         decode the tangent map as a
 *                                         MikkTSpace shader does; compare
 *                                         with the object map
 *   test_normalmap dilation BARE GROWN N  GROWN (--dilate N) against BARE
 *                                         (--dilate 0), object maps
 */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "obj.h"
#include "tangent.h"

#define PI 3.14159265358979323846

/* ---- helpers ----------------------------------------------------------- */

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "test_normalmap: %s: %s\n", path, what);
	exit(1);
}

/* The angle between two vectors, in degrees; atan2 keeps it accurate
 * near zero, where acos of a dot product loses half the digits. */
static double angle_deg(const double a[3], const double b[3])
{
	double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
		       a[0] * b[1] - a[1] * b[0]};
	double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
	return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), d) * 180 / PI;
}

static void normalize(double v[3])
{
	double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	for (int k = 0; k < 3; k++)
		v[k] /= n;
}

static void load_mesh(const char *path, struct obj_mesh *m)
{
	struct error e;
	if (obj_load(m, path, &e))
		fail(e.msg, path);
}

/* ---- PNG and PFM reading ---------------------------------------------- */

struct image {
	int w, h, bits, comps;
	unsigned *code;           /* w * h * comps samples, row 0 at the top */
	float *f;                 /* PFM: w * h floats, row 0 at the top */
};

static void read_png(const char *path, struct image *im)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail("cannot open", path);
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	if (setjmp(png_jmpbuf(png)))
		fail("not a readable PNG", path);
	png_init_io(png, f);
	png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
	im->w = (int)png_get_image_width(png, info);
	im->h = (int)png_get_image_height(png, info);
	im->bits = png_get_bit_depth(png, info);
	im->comps = png_get_channels(png, info);
	im->code = malloc((size_t)im->w * im->h * im->comps * sizeof *im->code);
	png_bytepp rows = png_get_rows(png, info);
	for (int r = 0; r < im->h; r++)
		for (int k = 0; k < im->w * im->comps; k++) {
			const png_byte *p = rows[r] + (im->bits == 16 ? 2 * k : k);
			im->code[(size_t)r * im->w * im->comps + k] =
				im->bits == 16 ? (unsigned)(p[0] << 8 | p[1]) : p[0];
		}
	png_destroy_read_struct(&png, &info, NULL);
	fclose(f);
}

static void read_pfm(const char *path, struct image *im)
{
	FILE *f = fopen(path, "rb");
	double scale;
	if (!f || fscanf(f, "Pf %d %d %lf", &im->w, &im->h, &scale) != 3 ||
	    fgetc(f) != '\n' || scale >= 0)
		fail("not a little-endian grey PFM", path);
	im->comps = 1;
	im->f = malloc((size_t)im->w * im->h * sizeof *im->f);
	for (int r = im->h - 1; r >= 0; r--)
		for (int c = 0; c < im->w; c++) {
			unsigned char b[4];
			uint32_t u;
			if (fread(b, 1, 4, f) != 4)
				fail("truncated", path);
			u = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
			    (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
			memcpy(&im->f[(size_t)r * im->w + c], &u, 4);
		}
	if (fgetc(f) != EOF)
		fail("data past the last row", path);
	fclose(f);
}

static void image_free(struct image *im)
{
	free(im->code);
	free(im->f);
	im->code = NULL;
	im->f = NULL;
}

/* The unit vector a normal-map texel encodes, code / max * 2 - 1. */
static void decode(const struct image *im, size_t t, double out[3])
{
	double max = (1u << im->bits) - 1;
	for (int k = 0; k < 3; k++)
		out[k] = im->code[3 * t + k] / max * 2 - 1;
}

static void texel_uv(const struct image *im, int c, int r, double uv[2])
{
	uv[0] = (c + 0.5) / im->w;
	uv[1] = 1 - (r + 0.5) / im->h;
}

static int print_png_info(const char *path)
{
	struct image im = {0};
	read_png(path, &im);
	printf("%d %d %d %d\n", im.w, im.h, im.bits, im.comps);
	image_free(&im);
	return 0;
}

/* ---- tangents against the reference ----------------------------------- */

/* The reference: one line per face corner, in the OBJ's order,
 * "face corner vertex px py pz nx ny nz tx ty tz sign". */
static void read_reference(const char *path, const struct obj_mesh *m,
			   float (*n)[3], float (*t)[4])
{
	FILE *f = fopen(path, "r");
	char line[512];
	int c = 0;
	if (!f)
		fail("cannot open", path);
	while (fgets(line, sizeof line, f)) {
		int face, k, v;
		double p[3];
		if (line[0] == '#')
			continue;
		if (c >= 3 * m->ntri ||
		    sscanf(line, "%d %d %d %lf %lf %lf %f %f %f %f %f %f %f",
			   &face, &k, &v, &p[0], &p[1], &p[2], &n[c][0], &n[c][1],
			   &n[c][2], &t[c][0], &t[c][1], &t[c][2], &t[c][3]) != 13 ||
		    face != c / 3 || k != c % 3 || v != m->tri_v[c / 3][c % 3])
			fail("a line does not match the mesh's corners", path);
		c++;
	}
	if (c != 3 * m->ntri)
		fail("fewer corners than the mesh has", path);
	fclose(f);
}

/* Positions touched by a triangle with two corners at one position:
 * Blender gives such a triangle the normal +Z, pleat none, so the
 * normals there differ by design. */
static char *near_degenerate(const struct obj_mesh *m)
{
	char *bad = calloc((size_t)m->nv, 1);
	for (int t = 0; t < m->ntri; t++) {
		const double *p[3];
		for (int k = 0; k < 3; k++)
			p[k] = m->v[m->tri_v[t][k]];
		int degenerate = 0;
		for (int k = 0; k < 3; k++)
			degenerate |= memcmp(p[k], p[(k + 1) % 3], sizeof(double[3])) == 0;
		for (int k = 0; degenerate && k < 3; k++)
			bad[m->tri_v[t][k]] = 1;
	}
	return bad;
}

static void to_double(const float *f, double d[3])
{
	for (int k = 0; k < 3; k++)
		d[k] = f[k];
}

/* Differences from the reference: normals (pleat's smooth normals),
 * tangents given the reference's normals, tangents from pleat's own
 * normals, and sign disagreements. */
static int tangents(const char *mesh, const char *ref, double maxdeg)
{
	struct obj_mesh m;
	load_mesh(mesh, &m);
	size_t n = (size_t)m.ntri * 3;
	float (*rn)[3] = malloc(n * sizeof *rn), (*rt)[4] = malloc(n * sizeof *rt);
	float (*pn)[3] = malloc(n * sizeof *pn), (*t1)[4] = malloc(n * sizeof *t1);
	float (*t2)[4] = malloc(n * sizeof *t2);
	read_reference(ref, &m, rn, rt);
	char *skip = near_degenerate(&m);
	mesh_corner_normals(&m, pn);
	mikk_tangents(&m, (const float (*)[3])rn, t1);
	mikk_tangents(&m, (const float (*)[3])pn, t2);
	double dn = 0, d1 = 0, d2 = 0;
	int signs = 0, skipped = 0, mirrored = 0;
	for (size_t c = 0; c < n; c++) {
		double a[3], b[3];
		to_double(rt[c], b);
		to_double(t1[c], a);
		d1 = fmax(d1, angle_deg(a, b));
		signs += t1[c][3] != rt[c][3];
		mirrored += rt[c][3] < 0;
		if (skip[m.tri_v[c / 3][c % 3]]) {
			skipped++;
			continue;
		}
		to_double(t2[c], a);
		d2 = fmax(d2, angle_deg(a, b));
		signs += t2[c][3] != rt[c][3];
		to_double(pn[c], a);
		to_double(rn[c], b);
		dn = fmax(dn, angle_deg(a, b));
	}
	printf("%zu corners (%d mirrored, %d at degenerate triangles): normals "
	       "%.2g deg, tangents %.2g deg with the reference's normals, %.2g "
	       "deg with pleat's, %d sign differences\n", n, mirrored, skipped,
	       dn, d1, d2, signs);
	free(rn);
	free(rt);
	free(pn);
	free(t1);
	free(t2);
	free(skip);
	obj_free(&m);
	return !(dn <= maxdeg && d1 <= maxdeg && d2 <= maxdeg && signs == 0);
}

/* ---- the flat two-panel mesh and its analytic wrinkles ----------------- */

/* The panels' plane, moved rigidly: local (X, Y, Z) to world R p + T. */
static const double R[3][3] = {{0.36, 0.48, -0.80}, {-0.80, 0.60, 0.00},
			       {0.48, 0.64, 0.60}};
static const double T[3] = {0.25, -1.5, 0.75};

#define UV_SCALE 0.2      /* metres per texture unit: resample -u 0.2 */
#define PANEL_W 0.08      /* metres */
#define PANEL_H 0.16
#define GAP 0.02          /* between the panels in the plane */
#define WAVELENGTH 0.02   /* metres */
#define WAVE_DIR 30       /* degrees from local X */
#define DISP_RANGE 0.01   /* pleat-normalmap's default --displacement-range */

static void world(const double p[3], double out[3])
{
	for (int k = 0; k < 3; k++)
		out[k] = R[k][0] * p[0] + R[k][1] * p[1] + R[k][2] * p[2] + T[k];
}

static void rotate(const double p[3], double out[3])
{
	for (int k = 0; k < 3; k++)
		out[k] = R[k][0] * p[0] + R[k][1] * p[1] + R[k][2] * p[2];
}

/* Texture coordinates of local point (X, Y) of panel 0 (kept) or panel
 * 1 (mirrored in u). */
static void panel_uv(int panel, double X, double Y, double uv[2])
{
	uv[1] = 0.1 + Y / UV_SCALE;
	uv[0] = panel == 0 ? 0.05 + X / UV_SCALE :
			     0.95 - (X - PANEL_W - GAP) / UV_SCALE;
}

/* The panel and local (X, Y) of texture point uv; -1 outside both. */
static int uv_local(const double uv[2], double *X, double *Y)
{
	double eps = 1e-12;
	*Y = (uv[1] - 0.1) * UV_SCALE;
	if (*Y < -eps || *Y > PANEL_H + eps)
		return -1;
	if (uv[0] >= 0.05 - eps && uv[0] <= 0.05 + PANEL_W / UV_SCALE + eps) {
		*X = (uv[0] - 0.05) * UV_SCALE;
		return 0;
	}
	if (uv[0] >= 0.95 - PANEL_W / UV_SCALE - eps && uv[0] <= 0.95 + eps) {
		*X = PANEL_W + GAP + (0.95 - uv[0]) * UV_SCALE;
		return 1;
	}
	return -1;
}

/* Each panel a 3 x 3 quad grid, triangles counter-clockwise in the
 * plane, so that the face normals are R * +Z. */
static int flat_obj(void)
{
	const int n = 4;
	for (int panel = 0; panel < 2; panel++)
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++) {
				double X = panel * (PANEL_W + GAP) + PANEL_W * i / (n - 1);
				double Y = PANEL_H * j / (n - 1);
				double p[3] = {X, Y, 0}, w[3], uv[2];
				world(p, w);
				panel_uv(panel, X, Y, uv);
				printf("v %.17g %.17g %.17g\nvt %.17g %.17g\n", w[0],
				       w[1], w[2], uv[0], uv[1]);
			}
	for (int panel = 0; panel < 2; panel++)
		for (int j = 0; j + 1 < n; j++)
			for (int i = 0; i + 1 < n; i++) {
				int a = 1 + panel * n * n + j * n + i;
				int b = a + 1, c = a + n + 1, d = a + n;
				printf("f %d/%d %d/%d %d/%d\nf %d/%d %d/%d %d/%d\n",
				       a, a, b, b, c, c, a, a, c, c, d, d);
			}
	return 0;
}

static double wave_phase(double X, double Y)
{
	double d = WAVE_DIR * PI / 180, k = 2 * PI / WAVELENGTH;
	return k * (cos(d) * X + sin(d) * Y);
}

/* The local normal of Z = A sin(phase(X, Y)). */
static void wave_normal(double A, double X, double Y, double n[3])
{
	double d = WAVE_DIR * PI / 180, k = 2 * PI / WAVELENGTH;
	double slope = A * k * cos(wave_phase(X, Y));
	n[0] = -slope * cos(d);
	n[1] = -slope * sin(d);
	n[2] = 1;
	normalize(n);
}

static int add_x(const char *in, const char *out, double A)
{
	struct grid g;
	struct error e;
	if (grid_load(in, &g, &e))
		fail(e.msg, in);
	const uint8_t *mask = grid_find(&g, "mask")->data;
	const float *rest = grid_find(&g, "rest")->data;
	float *x = grid_add(&g, "x", GRID_F32, 3, &e)->data;
	size_t n = grid_vertices(&g);
	double up[3] = {0, 0, 1}, nw[3];
	rotate(up, nw);
	for (size_t v = 0; v < n; v++) {
		double d[3], X, Y;
		for (int k = 0; k < 3; k++)
			d[k] = rest[3 * v + k] - T[k];
		/* local X, Y: R transposed */
		X = R[0][0] * d[0] + R[1][0] * d[1] + R[2][0] * d[2];
		Y = R[0][1] * d[0] + R[1][1] * d[1] + R[2][1] * d[2];
		double h = (mask[v] & MASK_INSIDE) ? A * sin(wave_phase(X, Y)) : 0;
		for (int k = 0; k < 3; k++)
			x[3 * v + k] = (float)(rest[3 * v + k] + h * nw[k]);
	}
	FILE *f = fopen(out, "wb");
	if (!f || grid_write(&g, f, out, &e) || fclose(f))
		fail("cannot write", out);
	grid_free(&g);
	return 0;
}

/* What the map of kind `kind` should hold at local (X, Y) of `panel`:
 * a unit vector, or (pfm) the displacement in its first component. */
static void expected(const char *kind, int panel, double A, double X, double Y,
		     double out[3])
{
	double n[3];
	wave_normal(A, X, Y, n);
	if (strcmp(kind, "object") == 0) {
		rotate(n, out);
		return;
	}
	if (strcmp(kind, "pfm") == 0 || strcmp(kind, "displacement") == 0) {
		out[0] = A * sin(wave_phase(X, Y));
		return;
	}
	/* Tangent frame: t = dP/du, b = dP/dv.  Panel 1's u runs along -X,
	 * and its mirrored texture makes the sign -1: b = -(n x t) = +Y. */
	out[0] = panel == 0 ? n[0] : -n[0];
	out[1] = strcmp(kind, "directx") == 0 ? -n[1] : n[1];
	out[2] = n[2];
}

/* Every texel whose centre lies on a panel against the analytic
 * surface; the largest error over all of them and over those at least
 * `margin` metres inside their panel's edges. */
static int check(const char *path, const char *kind, double A, double maxerr,
		 double margin)
{
	struct image im = {0};
	int pfm = strcmp(kind, "pfm") == 0;
	int png_disp = strcmp(kind, "displacement") == 0;
	if (pfm)
		read_pfm(path, &im);
	else
		read_png(path, &im);
	if (im.comps != (pfm || png_disp ? 1 : 3))
		fail("not the channels this kind of map has", path);
	double worst = 0, worst_in = 0;
	long count = 0, inner = 0;
	for (int r = 0; r < im.h; r++)
		for (int c = 0; c < im.w; c++) {
			double uv[2], X, Y, want[3], got[3], err;
			texel_uv(&im, c, r, uv);
			int panel = uv_local(uv, &X, &Y);
			if (panel < 0)
				continue;
			size_t t = (size_t)r * im.w + c;
			expected(kind, panel, A, X, Y, want);
			if (pfm) {
				err = fabs(im.f[t] - want[0]);
			} else if (png_disp) {
				double max = (1u << im.bits) - 1;
				err = fabs((im.code[t] / max - 0.5) * 2 * DISP_RANGE - want[0]);
			} else {
				decode(&im, t, got);
				err = angle_deg(got, want);
			}
			double x0 = panel * (PANEL_W + GAP);
			double edge = fmin(fmin(X - x0, x0 + PANEL_W - X),
					   fmin(Y, PANEL_H - Y));
			worst = fmax(worst, err);
			count++;
			if (edge >= margin) {
				worst_in = fmax(worst_in, err);
				inner++;
			}
		}
	printf("%ld texels on the panels: largest error %.4g %s; %ld at least "
	       "%g m inside: %.4g\n", count, worst, pfm || png_disp ? "m" : "deg", inner,
	       margin, worst_in);
	image_free(&im);
	return !(count > 0 && inner > 0 && worst_in <= maxerr);
}

/* A tangent map of the unwrinkled panels: every panel texel is (0.5,
 * 0.5, 1) within `tol` codes of the exact value (which for 0.5 falls
 * half-way between two codes). */
static int flat(const char *path, double tol)
{
	struct image im = {0};
	read_png(path, &im);
	double max = (1u << im.bits) - 1, worst = 0;
	long count = 0;
	for (int r = 0; r < im.h; r++)
		for (int c = 0; c < im.w; c++) {
			double uv[2], X, Y;
			texel_uv(&im, c, r, uv);
			if (uv_local(uv, &X, &Y) < 0)
				continue;
			const unsigned *q = &im.code[3 * ((size_t)r * im.w + c)];
			count++;
			worst = fmax(worst, fabs(q[0] - 0.5 * max));
			worst = fmax(worst, fabs(q[1] - 0.5 * max));
			worst = fmax(worst, max - q[2]);
		}
	printf("%ld texels on the panels, at most %g codes from (0.5, 0.5, 1) "
	       "in %d bits\n", count, worst, im.bits);
	image_free(&im);
	return !(count > 0 && worst <= tol);
}

/* ---- round trip through the shader's decoding ------------------------- */

/* The lowest-numbered triangle whose texture triangle holds uv, with
 * its barycentric coordinates; -1 if none. */
static int find_triangle(const struct obj_mesh *m, const double uv[2],
			 double w[3])
{
	for (int t = 0; t < m->ntri; t++) {
		const double *a = m->vt[m->tri_vt[t][0]], *b = m->vt[m->tri_vt[t][1]],
			     *c = m->vt[m->tri_vt[t][2]];
		double area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
		if (area == 0)
			continue;
		w[1] = ((uv[0] - a[0]) * (c[1] - a[1]) - (uv[1] - a[1]) * (c[0] - a[0])) / area;
		w[2] = ((b[0] - a[0]) * (uv[1] - a[1]) - (b[1] - a[1]) * (uv[0] - a[0])) / area;
		w[0] = 1 - w[1] - w[2];
		if (w[0] >= -1e-9 && w[1] >= -1e-9 && w[2] >= -1e-9)
			return t;
	}
	return -1;
}

/* A MikkTSpace pixel shader: n, t interpolated and not normalised,
 * b = sign * cross(n, t), normal = normalize(m.x t + m.y b + m.z n). */
static void shade(const float (*nrm)[3], const float (*tan)[4], int tri,
		  const double w[3], const double m[3], double out[3])
{
	double n[3] = {0, 0, 0}, t[3] = {0, 0, 0}, sign = 0;
	for (int k = 0; k < 3; k++) {
		for (int a = 0; a < 3; a++) {
			n[a] += w[k] * nrm[3 * tri + k][a];
			t[a] += w[k] * tan[3 * tri + k][a];
		}
		sign += w[k] * tan[3 * tri + k][3];
	}
	sign = sign < 0 ? -1 : 1;
	double b[3] = {sign * (n[1] * t[2] - n[2] * t[1]),
		       sign * (n[2] * t[0] - n[0] * t[2]),
		       sign * (n[0] * t[1] - n[1] * t[0])};
	for (int a = 0; a < 3; a++)
		out[a] = m[0] * t[a] + m[1] * b[a] + m[2] * n[a];
	normalize(out);
}

static int roundtrip(const char *mesh, const char *tpath, const char *opath,
		     double maxdeg)
{
	struct obj_mesh m;
	struct image tm = {0}, om = {0};
	load_mesh(mesh, &m);
	read_png(tpath, &tm);
	read_png(opath, &om);
	if (tm.w != om.w || tm.h != om.h)
		fail("the two maps differ in size", opath);
	size_t n = (size_t)m.ntri * 3;
	float (*nrm)[3] = malloc(n * sizeof *nrm), (*tan)[4] = malloc(n * sizeof *tan);
	mesh_corner_normals(&m, nrm);
	mikk_tangents(&m, (const float (*)[3])nrm, tan);
	double worst = 0;
	long count = 0;
	for (int r = 0; r < tm.h; r++)
		for (int c = 0; c < tm.w; c++) {
			double uv[2], w[3], mt[3], want[3], got[3];
			texel_uv(&tm, c, r, uv);
			int tri = find_triangle(&m, uv, w);
			if (tri < 0)
				continue;
			size_t t = (size_t)r * tm.w + c;
			decode(&tm, t, mt);
			decode(&om, t, want);
			shade(nrm, tan, tri, w, mt, got);
			worst = fmax(worst, angle_deg(got, want));
			count++;
		}
	printf("%ld island texels: largest angle between the shaded tangent "
	       "map and the object map %.4g deg\n", count, worst);
	image_free(&tm);
	image_free(&om);
	free(nrm);
	free(tan);
	obj_free(&m);
	return !(count > 0 && worst <= maxdeg);
}

/* ---- dilation ---------------------------------------------------------- */

static int is_island(const struct image *im, size_t t)
{
	return im->code[3 * t] || im->code[3 * t + 1] || im->code[3 * t + 2];
}

/* GROWN (--dilate N) against BARE (--dilate 0), object maps, whose
 * background (black) no unit normal has: island texels unchanged;
 * texels more than N rings (Chebyshev distance) from every island
 * black; each texel within N rings takes the value of an island texel
 * at the nearest island texel's distance (one of the nearest, on a tie). */
static int dilation(const char *bare, const char *grown, int N)
{
	struct image a = {0}, b = {0};
	read_png(bare, &a);
	read_png(grown, &b);
	if (a.w != b.w || a.h != b.h || a.comps != 3 || b.comps != 3)
		fail("the maps differ in size or are not RGB", grown);
	long changed = 0, wrong_far = 0, unfilled = 0, not_nearest = 0, filled = 0;
	const int reach = (int)ceil(N * sqrt(2.0)) + 1;
	for (int y = 0; y < a.h; y++)
		for (int x = 0; x < a.w; x++) {
			size_t t = (size_t)y * a.w + x;
			if (is_island(&a, t)) {
				changed += memcmp(&a.code[3 * t], &b.code[3 * t],
						  3 * sizeof *a.code) != 0;
				continue;
			}
			/* brute force over a square that holds every texel
			 * nearer than sqrt(2) N, the farthest a nearest
			 * island texel can be when one is within N rings */
			double dmin = HUGE_VAL;
			int cheb = N + 1;
			for (int dy = -reach; dy <= reach; dy++)
				for (int dx = -reach; dx <= reach; dx++) {
					int xx = x + dx, yy = y + dy;
					if (xx < 0 || yy < 0 || xx >= a.w || yy >= a.h ||
					    !is_island(&a, (size_t)yy * a.w + xx))
						continue;
					dmin = fmin(dmin, hypot(dx, dy));
					int c = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
					cheb = c < cheb ? c : cheb;
				}
			if (cheb > N) {
				wrong_far += is_island(&b, t);
				continue;
			}
			if (!is_island(&b, t)) {
				unfilled++;
				continue;
			}
			filled++;
			int match = 0;
			for (int dy = -reach; dy <= reach && !match; dy++)
				for (int dx = -reach; dx <= reach && !match; dx++) {
					int xx = x + dx, yy = y + dy;
					if (xx < 0 || yy < 0 || xx >= a.w || yy >= a.h ||
					    hypot(dx, dy) > dmin + 1e-9)
						continue;
					size_t s = (size_t)yy * a.w + xx;
					match = is_island(&a, s) &&
						memcmp(&a.code[3 * s], &b.code[3 * t],
						       3 * sizeof *a.code) == 0;
				}
			not_nearest += !match;
		}
	printf("island texels changed %ld; filled %ld; within %d rings but "
	       "unfilled %ld; beyond but filled %ld; not a near island value "
	       "%ld\n", changed, filled, N, unfilled, wrong_far, not_nearest);
	image_free(&a);
	image_free(&b);
	return !(filled > 0 && changed == 0 && unfilled == 0 && wrong_far == 0 &&
		 not_nearest == 0);
}

/* The distinct codes of a grey image and how many pixels have each,
 * one "code count" line each, in increasing order. */
/* BIG, a preview scaled up K times (K odd) from SMALL, a pixel a vertex:
 * the centre pixel of each K x K block is SMALL's pixel, and a block is
 * all backdrop (0) exactly where SMALL's pixel is (a shade is at least
 * the ambient level).  Prints "blocks N mismatches M". */
static int upscaled(const char *small, const char *big, int k)
{
	struct image s = {0}, b = {0};
	read_png(small, &s);
	read_png(big, &b);
	if (s.comps != 1 || b.comps != 1 || b.w != k * s.w || b.h != k * s.h)
		fail("not a grey picture K times the small one", big);
	long bad = 0;
	for (int j = 0; j < s.h; j++)
		for (int i = 0; i < s.w; i++) {
			unsigned want = s.code[(size_t)j * s.w + i];
			int backdrop = 1;
			for (int y = k * j; y < k * (j + 1); y++)
				for (int x = k * i; x < k * (i + 1); x++)
					backdrop &= b.code[(size_t)y * b.w + x] == 0;
			bad += b.code[(size_t)(k * j + k / 2) * b.w + k * i + k / 2] != want ||
			       backdrop != (want == 0);
		}
	printf("blocks %d mismatches %ld\n", s.w * s.h, bad);
	image_free(&s);
	image_free(&b);
	return bad != 0;
}

static int levels(const char *path)
{
	struct image im = {0};
	read_png(path, &im);
	if (im.comps != 1)
		fail("not a grey image", path);
	size_t nlev = (size_t)1 << im.bits;
	long *count = calloc(nlev, sizeof *count);
	for (size_t t = 0; t < (size_t)im.w * im.h; t++)
		count[im.code[t]]++;
	for (size_t c = 0; c < nlev; c++)
		if (count[c])
			printf("%zu %ld\n", c, count[c]);
	free(count);
	image_free(&im);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	if (strcmp(cmd, "tangents") == 0 && argc == 5)
		return tangents(argv[2], argv[3], atof(argv[4]));
	if (strcmp(cmd, "flat-obj") == 0 && argc == 2)
		return flat_obj();
	if (strcmp(cmd, "add-x") == 0 && argc == 5)
		return add_x(argv[2], argv[3], atof(argv[4]));
	if (strcmp(cmd, "check") == 0 && (argc == 6 || argc == 7))
		return check(argv[2], argv[3], atof(argv[4]), atof(argv[5]),
			     argc == 7 ? atof(argv[6]) : 0);
	if (strcmp(cmd, "flat") == 0 && argc == 4)
		return flat(argv[2], atof(argv[3]));
	if (strcmp(cmd, "levels") == 0 && argc == 3)
		return levels(argv[2]);
	if (strcmp(cmd, "upscaled") == 0 && argc == 5 && atoi(argv[4]) % 2 == 1)
		return upscaled(argv[2], argv[3], atoi(argv[4]));
	if (strcmp(cmd, "png-info") == 0 && argc == 3)
		return print_png_info(argv[2]);
	if (strcmp(cmd, "roundtrip") == 0 && argc == 6)
		return roundtrip(argv[2], argv[3], argv[4], atof(argv[5]));
	if (strcmp(cmd, "dilation") == 0 && argc == 5)
		return dilation(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: see the comment at the top of test_normalmap.c\n");
	return 2;
}

/* image.c - writing maps as PNG (libpng) and PFM files. */
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "normalmap.h"
#include "outfile.h"

/* zlib level 3 rather than libpng's default 6: on a 4096 x 4096 tangent
 * map of a T-shirt it wrote in half the time, for files 30% (8-bit) and
 * 13% (16-bit) larger; engines recompress textures anyway. */
#define PNG_ZLEVEL 3

/* libpng reports errors by calling back; the callback records the
 * message and jumps back to png_write_map. */
struct png_failure {
	struct error *e;
	const char *path;
	jmp_buf jump;
};

static void on_error(png_structp png, png_const_charp msg)
{
	struct png_failure *f = png_get_error_ptr(png);
	error_set(f->e, "%s: cannot write the PNG: %s", f->path, msg);
	longjmp(f->jump, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

/* v in [0, 1] to the nearest of codes 0..max (NaN to 0). */
static unsigned quantize(float v, unsigned max)
{
	if (!(v > 0))
		return 0;
	if (v >= 1)
		return max;
	return (unsigned)floor(v * (double)max + 0.5);
}

/* One row of m as PNG samples: 8-bit, or 16-bit big-endian. */
static void pack_row(const struct map *m, int r, int bits, unsigned char *out)
{
	size_t n = (size_t)m->width * m->comps;
	const float *px = &m->px[(size_t)r * n];
	for (size_t k = 0; k < n; k++) {
		if (bits == 8) {
			out[k] = (unsigned char)quantize(px[k], 255);
		} else {
			unsigned q = quantize(px[k], 65535);
			out[2 * k] = (unsigned char)(q >> 8);
			out[2 * k + 1] = (unsigned char)(q & 0xff);
		}
	}
}

int png_write_map(struct outfile *o, const struct map *m, int bits,
		  const char *key, const char *text, struct error *e)
{
	struct png_failure f = {.e = e, .path = o->path};
	unsigned char *row = xmalloc_array((size_t)m->width * m->comps, (size_t)bits / 8);
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &f,
						  on_error, on_warning);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		free(row);
		outfile_abort(o);
		return error_set(e, "%s: cannot write the PNG: out of memory",
				 o->path);
	}
	if (setjmp(f.jump)) {
		png_destroy_write_struct(&png, &info);
		free(row);
		outfile_abort(o);
		return -1;
	}
	png_init_io(png, o->f);
	png_set_compression_level(png, PNG_ZLEVEL);
	png_set_IHDR(png, info, (png_uint_32)m->width, (png_uint_32)m->height,
		     bits, m->comps == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	if (key) {
		png_text t;
		memset(&t, 0, sizeof t);
		t.compression = PNG_TEXT_COMPRESSION_NONE;
		t.key = (png_charp)key;
		t.text = (png_charp)text;
		png_set_text(png, info, &t, 1);
	}
	png_write_info(png, info);
	for (int r = 0; r < m->height; r++) {
		pack_row(m, r, bits, row);
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	free(row);
	return outfile_close(o, e);
}

int pfm_write_map(struct outfile *o, const struct map *m, struct error *e)
{
	unsigned char *row = xmalloc_array((size_t)m->width, 4);
	fprintf(o->f, "Pf\n%d %d\n-1.0\n", m->width, m->height);
	for (int r = m->height - 1; r >= 0; r--) {
		for (int c = 0; c < m->width; c++) {
			uint32_t bitsv;
			memcpy(&bitsv, &m->px[(size_t)r * m->width + c], 4);
			for (int b = 0; b < 4; b++)
				row[4 * c + b] = (unsigned char)(bitsv >> (8 * b));
		}
		fwrite(row, 4, (size_t)m->width, o->f);
	}
	free(row);
	return outfile_close(o, e);   /* a failed write shows there */
}

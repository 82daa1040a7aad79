/* output.c - numbered output names and the PC2 point cache. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "output.h"

/* The conversion at p (just after a '%'): an optional 0 flag, a width
 * of at most three digits, then d.  Returns its length, 0 if it is not
 * one. */
static size_t conversion(const char *p, int *zero, int *width)
{
	size_t n = 0;
	*zero = p[n] == '0';
	n += (size_t)*zero;
	*width = 0;
	while (isdigit((unsigned char)p[n]) && n < 4)
		*width = *width * 10 + (p[n++] - '0');
	return p[n] == 'd' ? n + 1 : 0;
}

int name_numbered(const char *name)
{
	int count = 0, zero, width;
	for (const char *p = name; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		size_t n = conversion(p + 1, &zero, &width);
		if (!n)
			return -1;
		count++;
		p += n;
	}
	return count > 1 ? -1 : count;
}

void name_format(const char *name, long k, char *out, size_t size)
{
	size_t o = 0;
	int zero, width;
	for (const char *p = name; *p && o + 1 < size; p++) {
		size_t n;
		if (*p != '%') {
			out[o++] = *p;
		} else if (p[1] == '%') {
			out[o++] = '%';
			p++;
		} else if ((n = conversion(p + 1, &zero, &width)) != 0) {
			int w = snprintf(out + o, size - o, zero ? "%0*ld" : "%*ld",
					 width, k);
			o += w > 0 ? (size_t)w : 0;
			o = o < size ? o : size - 1;
			p += n;
		}
	}
	out[o] = '\0';
}

/* ---- PC2 ------------------------------------------------------------ */

static void put_le32(FILE *f, uint32_t x)
{
	unsigned char b[4] = {(unsigned char)x, (unsigned char)(x >> 8),
			      (unsigned char)(x >> 16), (unsigned char)(x >> 24)};
	fwrite(b, 1, 4, f);
}

static void put_float(FILE *f, float x)
{
	uint32_t b;
	memcpy(&b, &x, sizeof b);
	put_le32(f, b);
}

void pc2_header(FILE *f, int npoints, float start, float rate, int nsamples)
{
	fwrite("POINTCACHE2", 1, 12, f);   /* with its terminating NUL */
	put_le32(f, 1);
	put_le32(f, (uint32_t)npoints);
	put_float(f, start);
	put_float(f, rate);
	put_le32(f, (uint32_t)nsamples);
}

void pc2_sample(FILE *f, const float (*pos)[3], int npoints)
{
	for (int k = 0; k < npoints; k++)
		for (int c = 0; c < 3; c++)
			put_float(f, pos[k][c]);
}

/* obj.c - Wavefront OBJ reader (see obj.h).
 *
 * The whole input is held in one NUL-terminated, writable buffer and parsed
 * line by line in place: there is no fixed-size line buffer that could cut
 * a long line short, and every line can be handed to strtod as a C string.
 * Indices are resolved while reading, because negative indices count back
 * from the records read so far.
 */
#include "obj.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct parser {
	struct obj_mesh *m;
	const char *name;
	struct error *e;
	unsigned long long line;
	size_t cap_v, cap_vt, cap_tri;
	long long nvn;          /* vn records: counted only to check indices */
	int cv[OBJ_MAX_FACE_CORNERS];   /* corners of the current face */
	int cvt[OBJ_MAX_FACE_CORNERS];
};

/* An error at the current line: "NAME: line N: problem". */
static int perr(struct parser *P, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int perr(struct parser *P, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return error_set(P->e, "%s: line %llu: %s", P->name, P->line, what);
}

/* Copies a token for a message: at most 40 bytes, unprintable bytes as
 * '?', so hostile input cannot put control characters on a terminal. */
static const char *show(const char *s, size_t n, char out[48])
{
	size_t i, k = n > 40 ? 40 : n;
	for (i = 0; i < k; i++) {
		unsigned char c = (unsigned char)s[i];
		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (k < n)
		out[k++] = '.', out[k++] = '.', out[k++] = '.';
	out[k] = '\0';
	return out;
}

/* '\r' counts as blank, so CRLF files need no special case. */
static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static const char *skip_blank(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* End of the useful part of a line: its end or a trailing comment. */
static int at_end(const char *p)
{
	return *p == '\0' || *p == '#';
}

static size_t token_len(const char *p)
{
	size_t n = 0;
	while (p[n] && !is_blank(p[n]))
		n++;
	return n;
}

/* Plain decimals ("-0.027503", "12", "3.") with at most 15 significant
 * digits and 22 decimals: then the digits m and 10^k are exact doubles and
 * one correctly rounded division gives the same double as strtod, in a
 * fraction of its time.  Anything else (exponents, hex, inf, long
 * mantissas) returns NULL and goes to strtod.  Needs plain double
 * arithmetic, hence the FLT_EVAL_METHOD guard. */
static const char *fast_decimal(const char *p, double *out)
{
#if FLT_EVAL_METHOD == 0
	static const double pow10[23] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
		1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
		1e18, 1e19, 1e20, 1e21, 1e22 };
	uint64_t m = 0;
	int digits = 0, decimals = 0, neg = *p == '-';
	if (*p == '-' || *p == '+')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		m = m * 10 + (uint64_t)(*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++, decimals++)
			m = m * 10 + (uint64_t)(*p - '0');
	if (digits == 0 || digits > 15 || decimals > 22 || *p == 'e' ||
	    *p == 'E' || !(is_blank(*p) || at_end(p)))
		return NULL;
	double x = (double)m / pow10[decimals];
	*out = neg ? -x : x;
	return p;
#else
	(void)p, (void)out;
	return NULL;
#endif
}

/* Parses one finite number at *pp.  Returns 0, 1 when the line has no more
 * numbers, or -1 on a malformed or non-finite number. */
static int parse_number(struct parser *P, const char **pp, double *out)
{
	const char *p = skip_blank(*pp);
	char *end, buf[48];
	if (at_end(p))
		return 1;
	const char *fast = fast_decimal(p, out);
	if (fast) {
		*pp = fast;
		return 0;
	}
	double x = strtod(p, &end);
	size_t n = token_len(p);
	if (end == p || end != p + n)
		return perr(P, "bad number '%s'", show(p, n, buf));
	if (!isfinite(x))
		return perr(P, "coordinate '%s' is not a finite number",
			    show(p, n, buf));
	*out = x;
	*pp = end;
	return 0;
}

/* Reads `need` numbers into out, then checks that anything after them
 * (the optional w of v and vt, or the vertex colours some tools append to
 * v) is numeric too, so that a garbled line is not half-read. */
static int parse_numbers(struct parser *P, const char *p, double *out,
			 int need, const char *rec)
{
	double extra;
	int r;
	for (int i = 0; i < need; i++) {
		r = parse_number(P, &p, &out[i]);
		if (r < 0)
			return -1;
		if (r > 0)
			return perr(P, "%s needs %d coordinates, found %d",
				    rec, need, i);
	}
	while ((r = parse_number(P, &p, &extra)) == 0)
		;
	return r < 0 ? -1 : 0;
}

/* Capacity for n elements, doubling from cap.  The limits in obj.h keep
 * n far below the point where doubling could overflow. */
static size_t next_cap(size_t cap, size_t n)
{
	size_t c = cap ? cap : 1024;
	while (c < n)
		c *= 2;
	return c;
}

static int read_v(struct parser *P, const char *p)
{
	struct obj_mesh *m = P->m;
	double x[3];
	if (parse_numbers(P, p, x, 3, "v") < 0)
		return -1;
	if (m->nv >= OBJ_MAX_VERTICES)
		return perr(P, "too many vertices (limit %d)", OBJ_MAX_VERTICES);
	if ((size_t)m->nv == P->cap_v) {
		P->cap_v = next_cap(P->cap_v, (size_t)m->nv + 1);
		m->v = xrealloc_array(m->v, P->cap_v, sizeof *m->v);
	}
	memcpy(m->v[m->nv++], x, sizeof x);
	return 0;
}

static int read_vt(struct parser *P, const char *p)
{
	struct obj_mesh *m = P->m;
	double x[2];
	if (parse_numbers(P, p, x, 2, "vt") < 0)
		return -1;
	if (m->nvt >= OBJ_MAX_VERTICES)
		return perr(P, "too many texture coordinates (limit %d)",
			    OBJ_MAX_VERTICES);
	if ((size_t)m->nvt == P->cap_vt) {
		P->cap_vt = next_cap(P->cap_vt, (size_t)m->nvt + 1);
		m->vt = xrealloc_array(m->vt, P->cap_vt, sizeof *m->vt);
	}
	memcpy(m->vt[m->nvt++], x, sizeof x);
	return 0;
}

/* One integer index at *pp: optional sign and digits.  Values past any
 * limit saturate (they are out of range either way).  Returns 0, or 1 when
 * there are no digits. */
static int scan_index(const char **pp, long long *out)
{
	const char *p = *pp;
	int neg = 0;
	long long v = 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (*p < '0' || *p > '9')
		return 1;
	while (*p >= '0' && *p <= '9') {
		if (v < (1LL << 40))
			v = v * 10 + (*p - '0');
		p++;
	}
	*out = neg ? -v : v;
	*pp = p;
	return 0;
}

/* Turns a raw 1-based or negative index into a 0-based one below count. */
static int resolve(struct parser *P, long long raw, long long count,
		   const char *what, const char *unit, const char *txt,
		   size_t txtlen, int *out)
{
	char buf[48];
	if (raw == 0)
		return perr(P, "face %s 0 is invalid (OBJ indices start at 1)",
			    what);
	long long i = raw > 0 ? raw - 1 : count + raw;
	if (i < 0 || i >= count)
		return perr(P, "face %s %s out of range (%lld %s)", what,
			    show(txt, txtlen, buf), count, unit);
	*out = (int)i;
	return 0;
}

/* Parses one index of a corner and resolves it against count. */
static int corner_index(struct parser *P, const char **pp, long long count,
			const char *what, const char *unit, int *out)
{
	const char *start = *pp;
	long long raw;
	if (scan_index(pp, &raw))
		return 1;
	return resolve(P, raw, count, what, unit, start,
		       (size_t)(*pp - start), out);
}

/* One corner: v, v/vt, v//vn or v/vt/vn.  Sets *vt to -1 when absent. */
static int read_corner(struct parser *P, const char **pp, int *v, int *vt)
{
	const char *p = *pp, *start = p;
	char buf[48];
	int vn, r = corner_index(P, &p, P->m->nv, "index", "vertices", v);
	*vt = -1;
	if (r == 0 && *p == '/') {
		p++;
		if (*p != '/')
			r = corner_index(P, &p, P->m->nvt, "texture index",
					 "texture coordinates", vt);
		if (r == 0 && *p == '/') {
			p++;
			r = corner_index(P, &p, P->nvn, "normal index",
					 "normals", &vn);
		}
	}
	if (r < 0)
		return -1;
	if (r > 0 || !(is_blank(*p) || at_end(p)))
		return perr(P, "bad face corner '%s'",
			    show(start, token_len(start), buf));
	*pp = p;
	return 0;
}

/* Appends the fan (c0, ci, ci+1) of the current face's n corners. */
static int add_fan(struct parser *P, int n)
{
	struct obj_mesh *m = P->m;
	long long total = (long long)m->ntri + (n - 2);
	if (total > OBJ_MAX_TRIANGLES)
		return perr(P, "too many triangles (limit %d)",
			    OBJ_MAX_TRIANGLES);
	if ((size_t)total > P->cap_tri) {
		size_t c = P->cap_tri = next_cap(P->cap_tri, (size_t)total);
		m->tri_v = xrealloc_array(m->tri_v, c, sizeof *m->tri_v);
		m->tri_vt = xrealloc_array(m->tri_vt, c, sizeof *m->tri_vt);
		m->tri_face = xrealloc_array(m->tri_face, c,
					     sizeof *m->tri_face);
	}
	for (int i = 1; i + 1 < n; i++) {
		int t = m->ntri++;
		int idx[3] = { 0, i, i + 1 };
		for (int k = 0; k < 3; k++) {
			m->tri_v[t][k] = P->cv[idx[k]];
			m->tri_vt[t][k] = P->cvt[idx[k]];
		}
		m->tri_face[t] = m->nface;
	}
	m->nface++;
	return 0;
}

static int read_f(struct parser *P, const char *p)
{
	int n = 0;
	for (p = skip_blank(p); !at_end(p); p = skip_blank(p)) {
		if (n == OBJ_MAX_FACE_CORNERS)
			return perr(P, "face has more than %d corners",
				    OBJ_MAX_FACE_CORNERS);
		if (read_corner(P, &p, &P->cv[n], &P->cvt[n]) < 0)
			return -1;
		if (n > 0 && (P->cvt[n] < 0) != (P->cvt[0] < 0))
			return perr(P, "face mixes corners with and without "
				    "texture coordinates");
		n++;
	}
	if (n < 3)
		return perr(P, "face has %d corner%s (at least 3 needed)", n,
			    n == 1 ? "" : "s");
	return add_fan(P, n);
}

/* Dispatches one NUL-terminated line on its keyword; unknown records
 * (vn, o, g, s, usemtl, mtllib, vv, ny, t, l, p ...) are skipped. */
static int read_line(struct parser *P, const char *p)
{
	p = skip_blank(p);
	size_t n = token_len(p);
	if (n == 1 && p[0] == 'v')
		return read_v(P, p + 1);
	if (n == 2 && p[0] == 'v' && p[1] == 't')
		return read_vt(P, p + 2);
	if (n == 1 && p[0] == 'f')
		return read_f(P, p + 1);
	if (n == 2 && p[0] == 'v' && p[1] == 'n') {
		/* Bounded by the line count, so no overflow. */
		P->nvn++;
		return 0;
	}
	return 0;
}

/* Parses buf[0..len), which must be writable with buf[len] == '\0'. */
static int parse_buffer(struct obj_mesh *m, char *buf, size_t len,
			const char *name, struct error *e)
{
	struct parser *P = xcalloc(1, sizeof *P);
	char *p = buf, *end = buf + len;
	int r = 0;
	memset(m, 0, sizeof *m);
	P->m = m, P->name = name, P->e = e;
	/* A UTF-8 byte order mark would otherwise hide the first keyword. */
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (r == 0 && p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *stop = nl ? nl : end;
		P->line++;
		*stop = '\0';
		if (memchr(p, '\0', (size_t)(stop - p)))
			r = perr(P, "NUL byte in line (not a text file?)");
		else
			r = read_line(P, p);
		p = stop + 1;
	}
	if (r == 0 && len == 0)
		r = error_set(e, "%s: no mesh in the input (it is empty)", name);
	else if (r == 0 && m->ntri == 0)
		r = error_set(e, "%s: no faces", name);
	free(P);
	if (r < 0)
		obj_free(m);
	return r;
}

static int too_large(const char *name, struct error *e)
{
	return error_set(e, "%s: file too large (limit %zu bytes)", name,
			 (size_t)OBJ_MAX_BYTES);
}

int obj_read_mem(struct obj_mesh *m, const char *buf, size_t len,
		 const char *name, struct error *e)
{
	size_t size;
	memset(m, 0, sizeof *m);
	if (len > OBJ_MAX_BYTES || size_add(len, 1, &size))
		return too_large(name, e);
	/* A private NUL-terminated copy: the parser writes line ends. */
	char *copy = xmalloc(size);
	memcpy(copy, buf, len);
	copy[len] = '\0';
	int r = parse_buffer(m, copy, len, name, e);
	free(copy);
	return r;
}

/* Reads all of f into a NUL-terminated buffer: sized from fstat when f is
 * a regular file, else (a pipe) grown by doubling, never past the limit
 * plus the two bytes that tell "at the limit" from "over it". */
static int slurp(FILE *f, const char *name, struct error *e, char **out,
		 size_t *outlen)
{
	const size_t max_cap = OBJ_MAX_BYTES + 2;
	struct stat st;
	size_t cap = 1 << 16, len = 0;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
		if ((unsigned long long)st.st_size > OBJ_MAX_BYTES)
			return too_large(name, e);
		cap = (size_t)st.st_size + 2;
	}
	char *buf = xmalloc(cap);
	for (;;) {
		if (len + 1 == cap) {
			if (cap == max_cap) {
				free(buf);
				return too_large(name, e);
			}
			cap = cap > max_cap / 2 ? max_cap : cap * 2;
			buf = xrealloc_array(buf, cap, 1);
		}
		size_t got = fread(buf + len, 1, cap - 1 - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int err = errno;
		free(buf);
		return error_set(e, "%s: read error: %s", name,
				 err ? strerror(err) : "I/O error");
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

int obj_read(struct obj_mesh *m, FILE *f, const char *name, struct error *e)
{
	char *buf = NULL;
	size_t len = 0;
	memset(m, 0, sizeof *m);
	errno = 0;
	if (slurp(f, name, e, &buf, &len) < 0)
		return -1;
	int r = parse_buffer(m, buf, len, name, e);
	free(buf);
	return r;
}

int obj_load(struct obj_mesh *m, const char *path, struct error *e)
{
	struct stat st;
	memset(m, 0, sizeof *m);
	if (strcmp(path, "-") == 0)
		return obj_read(m, stdin, "<stdin>", e);
	FILE *f = fopen(path, "rb");
	if (!f)
		return error_set(e, "cannot open %s: %s", path,
				 strerror(errno));
	/* fopen succeeds on a directory; say so instead of "read error". */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return error_set(e, "cannot open %s: %s", path,
				 strerror(EISDIR));
	}
	int r = obj_read(m, f, path, e);
	fclose(f);
	return r;
}

void obj_free(struct obj_mesh *m)
{
	free(m->v);
	free(m->vt);
	free(m->tri_v);
	free(m->tri_vt);
	free(m->tri_face);
	memset(m, 0, sizeof *m);
}

#define _GNU_SOURCE  /* MADV_HUGEPAGE, F_SETPIPE_SZ */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *progname = "pleat";

int error_set(struct error *e, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

__attribute__((format(printf, 1, 0)))
static void vmessage(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	exit(1);
}

void usage_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", progname);
	exit(2);
}

void usage_bad_option(int c, char **argv)
{
	if (c == ':')
		usage_fail("option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		usage_fail("unknown option '-%c'", optopt);
	usage_fail("unknown option '%s'", argv[optind - 1]);
}

void warnx(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: warning: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void deprecated_short(char letter, const char *long_name)
{
	warnx("-%c for %s is deprecated and goes in the next release (see "
	      "pleat(7)): write %s", letter, long_name, long_name);
}

int size_mul(size_t a, size_t b, size_t *out)
{
	if (b != 0 && a > SIZE_MAX / b)
		return -1;
	*out = a * b;
	return 0;
}

int size_add(size_t a, size_t b, size_t *out)
{
	if (a > SIZE_MAX - b)
		return -1;
	*out = a + b;
	return 0;
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		die("out of memory allocating %zu bytes", size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *xmalloc_array(size_t n, size_t size)
{
	size_t total;
	if (size_mul(n, size, &total))
		die("out of memory: %zu x %zu bytes overflows", n, size);
	return xmalloc(total);
}

void *xrealloc_array(void *p, size_t n, size_t size)
{
	size_t total;
	if (size_mul(n, size, &total))
		die("out of memory: %zu x %zu bytes overflows", n, size);
	p = realloc(p, total ? total : 1);
	if (!p)
		die("out of memory allocating %zu bytes", total);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);
	memcpy(p, s, n);
	return p;
}

double parse_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
		usage_fail("%s: '%s' is not a number", opt, s);
	if (v < lo || v > hi)
		usage_fail("%s: %s is out of range [%g, %g]", opt, s, lo, hi);
	return v;
}

long parse_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE)
		usage_fail("%s: '%s' is not an integer", opt, s);
	if (v < lo || v > hi)
		usage_fail("%s: %s is out of range [%ld, %ld]", opt, s, lo, hi);
	return v;
}

int is_terminal(FILE *f)
{
	return isatty(fileno(f));
}

void *big_alloc(size_t size)
{
	const size_t huge = (size_t)2 << 20;
	void *p = NULL;
	if (size < 2 * huge)
		return malloc(size ? size : 1);
	size_t rounded = (size + huge - 1) / huge * huge;
	if (rounded < size || posix_memalign(&p, huge, rounded) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, rounded, MADV_HUGEPAGE);   /* advice only: ignore failure */
#endif
	return p;
}

void widen_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		fcntl(fd, F_SETPIPE_SZ, 1 << 20);   /* best effort */
#else
	(void)fd;
#endif
}

FILE **open_input_files(char **files, int n)
{
	FILE **f = xmalloc_array((size_t)n, sizeof *f);
	for (int k = 0; k < n; k++) {
		if (strcmp(files[k], "-") == 0) {
			f[k] = stdin;
			widen_pipe(fileno(stdin));
		} else if (!(f[k] = fopen(files[k], "rb"))) {
			die("cannot open %s: %s", files[k], strerror(errno));
		}
	}
	return f;
}

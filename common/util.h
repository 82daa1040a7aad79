/* util.h - error reporting, checked allocation and option parsing shared
 * by every pleat program.
 *
 * Library code never exits: it fills a struct error and returns -1, so that
 * the same readers serve the programs, the tests and the fuzz harnesses.
 * Programs turn errors into the conventional message and exit status:
 *   runtime error  "pleat-X: what went wrong: why"    exit 1
 *   usage error    "pleat-X: message" + help hint     exit 2
 */
#ifndef PLEAT_UTIL_H
#define PLEAT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PLEAT_VERSION "0.1.0"

/* A library error: one line of text, without the program name. */
struct error {
	char msg[512];
};

/* Formats into e->msg (if e is not NULL) and returns -1. */
int error_set(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Set once by main(); used as the prefix of every diagnostic. */
extern const char *progname;

_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void usage_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The usage error for what getopt_long returned as ':' (a missing value)
 * or '?' (an unknown option), given an option string starting with ':'
 * and opterr = 0. */
_Noreturn void usage_bad_option(int c, char **argv);
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An old short option whose letter the toolkit's contract (pleat(7))
 * gives another meaning, or none: it still works for one release, with
 * a warning that names its long spelling. */
void deprecated_short(char letter, const char *long_name);

/* Allocation that dies with a message instead of returning NULL.  The
 * array form checks n * size for overflow first. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xmalloc_array(size_t n, size_t size);
void *xrealloc_array(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

/* Allocation of large planes (grid channels): aligned to 2 MiB and marked
 * for transparent huge pages, which cuts the page faults of first touch
 * by a factor of 500.  Returns NULL on failure; free with free(). */
void *big_alloc(size_t size);

/* Makes a pipe on this descriptor hold 1 MiB instead of 64 KiB when it is
 * a pipe, so that grids stream between stages with fewer context switches;
 * does nothing otherwise. */
void widen_pipe(int fd);
/* Opens the input files of a program ("-" is standard input, its pipe
 * widened), all of them before anything is written, so that a missing
 * file is an error (die) with nothing on the output. */
FILE **open_input_files(char **files, int n);

/* Overflow-checked size arithmetic: return 0 and store the result, or
 * return -1 when the result does not fit. */
int size_mul(size_t a, size_t b, size_t *out);
int size_add(size_t a, size_t b, size_t *out);

/* Strict number parsing for option values: the whole string must be a
 * finite number in [lo, hi]; otherwise a usage error naming the option. */
double parse_double(const char *opt, const char *s, double lo, double hi);
long parse_long(const char *opt, const char *s, long lo, long hi);

/* True when the stream is a terminal (binary output is refused there). */
int is_terminal(FILE *f);

#endif

/* strokes.c - the stroke file of pleat-gather --strokes: one segment a
 * line, "u0 v0 u1 v1 s_along s_across radius", metres in pattern space;
 * '#' starts a comment, blank lines are skipped.  Every error names
 * file:line. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"

#define STROKE_FIELDS 7
#define STROKE_MAX_SCALE 100.0

static const char *const field_name[STROKE_FIELDS] = {
	"u0", "v0", "u1", "v1", "s_along", "s_across", "radius"
};

/* The numbers of one line (comment cut off) into val; the count found,
 * or -1 with *bad pointing at a word that is not a number. */
static int split_numbers(char *line, double val[STROKE_FIELDS + 1],
			 char **bad)
{
	int n = 0;
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	for (char *tok = strtok(line, " \t\r\n"); tok;
	     tok = strtok(NULL, " \t\r\n")) {
		char *end;
		errno = 0;
		double x = strtod(tok, &end);
		if (end == tok || *end != '\0' || errno == ERANGE) {
			*bad = tok;
			return -1;
		}
		if (n < STROKE_FIELDS + 1)
			val[n] = x;
		n++;
	}
	return n;
}

/* What is wrong with a stroke's numbers, in e, or 0. */
static int check_stroke(const double *val, const char *where,
			struct error *e)
{
	for (int k = 0; k < STROKE_FIELDS; k++)
		if (!isfinite(val[k]))
			return error_set(e, "%s: %s is not finite (%g)", where,
					 field_name[k], val[k]);
	for (int k = 4; k < STROKE_FIELDS; k++)
		if (!(val[k] > 0))
			return error_set(e, "%s: %s must be positive, not %g",
					 where, field_name[k], val[k]);
	for (int k = 4; k < 6; k++)
		if (val[k] > STROKE_MAX_SCALE)
			return error_set(e, "%s: %s %g is above %g", where,
					 field_name[k], val[k],
					 STROKE_MAX_SCALE);
	if (val[0] == val[2] && val[1] == val[3])
		return error_set(e, "%s: the segment has no length (both ends "
				 "at %g %g)", where, val[0], val[1]);
	return 0;
}

static int parse_line(char *line, const char *where, struct stroke *s,
		      int *empty, struct error *e)
{
	double val[STROKE_FIELDS + 1];
	char *bad = NULL;
	int n = split_numbers(line, val, &bad);
	*empty = n == 0;
	if (n < 0)
		return error_set(e, "%s: '%s' is not a number", where, bad);
	if (n == 0)
		return 0;
	if (n != STROKE_FIELDS)
		return error_set(e, "%s: %d numbers, expected %d (u0 v0 u1 v1 "
				 "s_along s_across radius)", where, n,
				 STROKE_FIELDS);
	if (check_stroke(val, where, e))
		return -1;
	*s = (struct stroke){val[0], val[1], val[2], val[3], val[4], val[5],
			     val[6]};
	return 0;
}

int strokes_read(const char *path, struct stroke **out, size_t *n,
		 struct error *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return error_set(e, "cannot open %s: %s", path, strerror(errno));
	char *line = NULL, where[600];
	size_t cap = 0, count = 0, alloc = 0;
	struct stroke *s = NULL;
	int bad = 0;
	for (long lineno = 1; getline(&line, &cap, f) != -1; lineno++) {
		struct stroke one;
		int empty;
		snprintf(where, sizeof where, "%s:%ld", path, lineno);
		if ((bad = parse_line(line, where, &one, &empty, e)) != 0)
			break;
		if (empty)
			continue;
		if (count == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			s = xrealloc_array(s, alloc, sizeof *s);
		}
		s[count++] = one;
	}
	if (!bad && ferror(f))
		bad = error_set(e, "read error on %s", path);
	free(line);
	fclose(f);
	if (bad) {
		free(s);
		return -1;
	}
	*out = s;
	*n = count;
	return 0;
}

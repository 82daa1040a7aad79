/* outfile.h - output that never leaves a half-written file behind.
 *
 * A named output is written to a temporary file beside it and renamed over
 * the real name only when complete; if the program dies first (an error,
 * exit(1)), the temporary file is removed at exit.  "-" is standard
 * output, where binary data is refused when it is a terminal.  A name
 * that is not a regular file (/dev/null, a FIFO) is written in place.
 */
#ifndef PLEAT_OUTFILE_H
#define PLEAT_OUTFILE_H

#include <stdio.h>

#include "util.h"

struct outfile {
	FILE *f;
	const char *path;   /* the name the user gave, "-" for stdout */
	char *tmp;          /* temporary name, NULL for stdout */
};

/* Opens path for writing; binary outputs are refused on a terminal.
 * Returns 0 or -1 with e naming the path and the reason.  A program
 * opens its outputs from its main thread (the signal handling counts on
 * it). */
int outfile_open(struct outfile *o, const char *path, int binary,
		 struct error *e);

/* Flushes and closes; renames the temporary file into place.  Returns 0
 * or -1 (the temporary file is removed then). */
int outfile_close(struct outfile *o, struct error *e);

/* Gives up: closes and removes the temporary file. */
void outfile_abort(struct outfile *o);

#endif

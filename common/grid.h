/* grid.h - the pleat grid stream, the one interface between the stages.
 *
 * A grid is a regular lattice of width x height vertices laid over the
 * sewing pattern: vertex (i, j) sits at pattern position
 * origin + cell * (i, j), i the column, j the row.  Its data are named,
 * typed channels, each a dense row-major plane (row 0 first, column 0
 * first in a row, components of a vertex adjacent), little endian.
 * The exact byte format is specified in pleat-grid(5).
 *
 * A stage reads a grid, adds or changes the channels it owns and writes the
 * grid with every other channel and every header key it does not know
 * passed through unchanged.
 */
#ifndef PLEAT_GRID_H
#define PLEAT_GRID_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

#define GRID_MAGIC "pleat-grid"
#define GRID_VERSION_MAJOR 1
#define GRID_VERSION_MINOR 0

/* Limits a reader enforces before allocating (see pleat-grid(5)). */
#define GRID_MAX_SIDE       (1 << 20)  /* vertices along each axis */
#define GRID_MAX_VERTICES   ((int64_t)1 << 31)  /* width * height, < 2^31 */
#define GRID_MAX_CHANNELS   64
#define GRID_MAX_COMPONENTS 16
#define GRID_MAX_NAME       31
#define GRID_MAX_HEADER     65536      /* bytes, magic to end line */
#define GRID_MAX_EXTRA      256        /* optional keys carried through */

enum grid_type { GRID_U8, GRID_U16, GRID_U32, GRID_I32, GRID_F16, GRID_F32,
		 GRID_F64, GRID_NTYPES };

/* The mask channel's flags (u8). */
enum {
	MASK_INSIDE   = 1,  /* a cloth vertex: inside a panel */
	MASK_BOUNDARY = 2,  /* inside, with a neighbour of another panel or outside */
	MASK_GHOST    = 4,  /* outside, in the ghost band of a closed boundary */
	MASK_FIXED    = 8,  /* pinned: the solver does not move it */
	MASK_SEAM     = 16, /* boundary vertex with a seam partner */
};
#define PANEL_NONE 0xffff  /* panel channel value outside every panel */

struct grid_channel {
	char name[GRID_MAX_NAME + 1];
	enum grid_type type;
	int comps;        /* components per vertex, 1..GRID_MAX_COMPONENTS */
	void *data;       /* width * height * comps elements */
};

struct grid {
	int width, height;       /* vertices */
	double cell;             /* metres between neighbouring vertices */
	double origin[2];        /* pattern position of vertex (0, 0), metres */
	int nchannels;
	struct grid_channel channels[GRID_MAX_CHANNELS];
	int nextra;              /* optional header lines, passed through */
	char *extra[GRID_MAX_EXTRA];
};

/* Where a reader is: names the stream and counts grids for messages. */
struct grid_reader {
	FILE *f;
	const char *name;        /* path or "-" (stdin) */
	int index;               /* grids read so far */
	uint64_t offset;         /* bytes consumed so far */
};

const char *grid_type_name(enum grid_type t);
size_t grid_type_size(enum grid_type t);
int grid_type_parse(const char *s, enum grid_type *t);

/* Initialises an empty grid of the given geometry, no channels.  Fails
 * when the sizes are out of the limits above. */
int grid_init(struct grid *g, int width, int height, double cell,
	      const double origin[2], struct error *e);
void grid_free(struct grid *g);

size_t grid_vertices(const struct grid *g);
size_t grid_channel_bytes(const struct grid *g, const struct grid_channel *c);

/* Finds a channel by name, or NULL. */
struct grid_channel *grid_find(const struct grid *g, const char *name);
/* Finds a channel and checks its type and component count. */
struct grid_channel *grid_find_typed(const struct grid *g, const char *name,
				     enum grid_type type, int comps);
/* Adds a zero-filled channel, or returns the existing one when it has the
 * same type and components; fails on a type clash or a bad name. */
struct grid_channel *grid_add(struct grid *g, const char *name,
			      enum grid_type type, int comps, struct error *e);
/* Removes a channel (its data freed); no-op when absent. */
void grid_remove(struct grid *g, const char *name);

/* Optional header keys ("key value...").  grid_get_extra returns the value
 * text of a key, or NULL; grid_set_extra replaces or adds one. */
const char *grid_get_extra(const struct grid *g, const char *key);
int grid_set_extra(struct grid *g, const char *key, const char *value,
		   struct error *e);

/* Reads the next grid.  Returns 1 when a grid was read, 0 at a clean end
 * of stream (no byte left before a grid), -1 on error with e filled, the
 * message naming the stream, the grid and the place.  A stream that is a
 * terminal is refused before anything is read: a grid is binary, nobody
 * types one, and a program waiting there silently looks hung. */
int grid_read(struct grid_reader *r, struct grid *g, struct error *e);

/* The error of an input that holds no grid, "no grid in the input",
 * naming it ("-" is standard input).  Returns -1.  Every program that
 * reads grids treats an empty input so: the trace of a job that failed
 * upstream, never an empty result. */
int grid_error_empty(const char *name, struct error *e);

/* The programs' stream loop: reads every grid of stream f (named `name`
 * in messages), calls visit(g, index, arg) on each, index counting from
 * 1 in the stream, and frees it.  Returns how many grids were read, or
 * -1 on a read error with e filled (the grids before it were visited)
 * or on a stream with no grid (grid_error_empty). */
typedef void grid_visit(struct grid *g, int index, void *arg);
int grid_each(FILE *f, const char *name, grid_visit *visit, void *arg,
	      struct error *e);
/* grid_each on the file at path, "-" for standard input (its pipe
 * widened). */
int grid_each_path(const char *path, grid_visit *visit, void *arg,
		   struct error *e);

/* Whether two grids are the same bit for bit: geometry, optional keys,
 * channel names, types and data. */
int grid_equal(const struct grid *a, const struct grid *b);

/* Reads the first grid of the file at path (a coarser level, a previous
 * frame).  A file holding no grid is an error.  Returns 0 or -1. */
int grid_load(const char *path, struct grid *g, struct error *e);

/* Reads a grid from memory (fuzzing): same checks, reading `len` bytes. */
int grid_read_mem(const void *buf, size_t len, const char *name,
		  struct grid *g, size_t *used, struct error *e);

/* Writes one grid: header, payload, checksum.  Returns 0 or -1 with e set. */
int grid_write(const struct grid *g, FILE *f, const char *name,
	       struct error *e);

/* XXH3-64 of the payload, as the header's checksum line states it. */
uint64_t grid_checksum(const struct grid *g);

#endif

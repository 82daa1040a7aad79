/* fuzz_grid - libFuzzer harness for the grid stream reader (common/grid.c).
 *
 * Reads the input as a stream of grids twice, as the programs do: with
 * grid_read_mem, grid after grid, and with grid_read on the same bytes
 * opened as a stdio stream (fmemopen).  Both must agree on every grid and
 * on where and how the stream fails.  Every grid read is written with
 * grid_write to an open_memstream and read back: the round trip must give
 * the same grid.  Built and run by `make fuzz` and `make fuzz-ci`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *msg)
{
	fprintf(stderr, "fuzz_grid: %s%s%s\n", what, msg ? ": " : "",
		msg ? msg : "");
	abort();
}

/* grid_write then grid_read_mem gives the same grid, using every byte. */
static void round_trip(const struct grid *g)
{
	char *buf = NULL;
	size_t len = 0, used = 0;
	struct grid back;
	struct error e;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		fail("open_memstream failed", NULL);
	if (grid_write(g, f, "memstream", &e))
		fail("grid_write", e.msg);
	fclose(f);
	if (grid_read_mem(buf, len, "written", &back, &used, &e) != 1)
		fail("re-reading a written grid", e.msg);
	if (used != len || !grid_equal(g, &back))
		fail("round trip changed the grid", NULL);
	grid_free(&back);
	free(buf);
}

/* The stream reader on the same bytes; r is NULL when fmemopen cannot
 * open an empty buffer (older glibc), and then the stream side is skipped. */
static int stream_next(struct grid_reader *r, struct grid *g, struct error *e)
{
	return r->f ? grid_read(r, g, e) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0, used;
	struct grid g, h;
	struct error e, es;
	FILE *f = size ? fmemopen((void *)data, size, "rb") : NULL;
	struct grid_reader r = {.f = f, .name = "fuzz.grid"};
	for (;;) {
		int res = grid_read_mem(data + off, size - off, "fuzz.grid", &g,
					&used, &e);
		int sres = stream_next(&r, &h, &es);
		if (f && sres != res)
			fail("grid_read and grid_read_mem disagree", res < 0 ? e.msg : es.msg);
		/* Messages agree where the grid numbers do (the first grid). */
		if (f && res < 0 && r.index == 0 && strcmp(e.msg, es.msg))
			fail(e.msg, es.msg);
		if (res != 1)
			break;
		if (f && (!grid_equal(&g, &h) || r.offset != off + used))
			fail("grid_read and grid_read_mem read different grids", NULL);
		round_trip(&g);
		grid_free(&g);
		if (f)
			grid_free(&h);
		off += used;
	}
	if (f)
		fclose(f);
	return 0;
}

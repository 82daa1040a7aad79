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

static int same_grid(const struct grid *a, const struct grid *b)
{
	if (a->width != b->width || a->height != b->height ||
	    a->cell != b->cell || a->origin[0] != b->origin[0] ||
	    a->origin[1] != b->origin[1] || a->nchannels != b->nchannels ||
	    a->nextra != b->nextra)
		return 0;
	for (int i = 0; i < a->nextra; i++)
		if (strcmp(a->extra[i], b->extra[i]))
			return 0;
	for (int i = 0; i < a->nchannels; i++) {
		const struct grid_channel *p = &a->channels[i], *q = &b->channels[i];
		if (strcmp(p->name, q->name) || p->type != q->type ||
		    p->comps != q->comps ||
		    memcmp(p->data, q->data, grid_channel_bytes(a, p)))
			return 0;
	}
	return 1;
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
	if (used != len || !same_grid(g, &back))
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
		if (f && (!same_grid(&g, &h) || r.offset != off + used))
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

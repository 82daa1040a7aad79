/* test_grid - helpers for the grid stream tests (tests/grid.bats).
 *
 *   test_grid make [count]   write `count` grids holding a channel of every
 *                            type with pseudo-random bits, a channel pleat
 *                            does not know and unknown header keys
 *   test_grid roundtrip      write and read back in memory, compare bits
 *   test_grid count [file]   read a stream, print the number of grids
 *   test_grid half           binary16 conversion of all 65536 values
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "half.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	/* splitmix64: deterministic and good enough for test bits */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill_random(struct grid *g, struct grid_channel *c)
{
	size_t n = grid_channel_bytes(g, c);
	unsigned char *p = c->data;
	for (size_t k = 0; k < n; k++)
		p[k] = (unsigned char)rng();
}

static void make_grid(struct grid *g, int width, int height)
{
	struct error e;
	double origin[2] = {0.125, -3.5};
	if (grid_init(g, width, height, 0.000617, origin, &e))
		goto fail;
	for (int t = 0; t < GRID_NTYPES; t++) {
		char name[32];
		snprintf(name, sizeof name, "t.%s", grid_type_name((enum grid_type)t));
		struct grid_channel *c = grid_add(g, name, (enum grid_type)t, 1 + t % 3, &e);
		if (!c)
			goto fail;
		fill_random(g, c);
	}
	struct grid_channel *c = grid_add(g, "user.wetness", GRID_F32, 1, &e);
	if (!c)
		goto fail;
	fill_random(g, c);
	if (grid_set_extra(g, "studio-shot", "sq042 take 3", &e) ||
	    grid_set_extra(g, "flag", "", &e))
		goto fail;
	return;
fail:
	fprintf(stderr, "test_grid: %s\n", e.msg);
	exit(1);
}

static int cmd_make(int count)
{
	struct error e;
	for (int k = 0; k < count; k++) {
		struct grid g;
		make_grid(&g, 37 + k, 23);
		if (grid_write(&g, stdout, "-", &e)) {
			fprintf(stderr, "test_grid: %s\n", e.msg);
			return 1;
		}
		grid_free(&g);
	}
	return 0;
}

static int cmd_roundtrip(void)
{
	struct error e;
	struct grid a, b;
	char *buf = NULL;
	size_t len = 0, used;
	make_grid(&a, 61, 17);
	FILE *f = open_memstream(&buf, &len);
	if (!f || grid_write(&a, f, "memory", &e) || fclose(f)) {
		fprintf(stderr, "write failed\n");
		return 1;
	}
	int r = grid_read_mem(buf, len, "memory", &b, &used, &e);
	if (r != 1) {
		fprintf(stderr, "read failed: %s\n", r < 0 ? e.msg : "no grid");
		return 1;
	}
	int ok = grid_equal(&a, &b) && used == len;
	printf("%s: %d channels, %zu bytes\n", ok ? "identical" : "DIFFERENT",
	       a.nchannels, len);
	grid_free(&a);
	grid_free(&b);
	free(buf);
	return !ok;
}

static int cmd_count(const char *path)
{
	struct error e;
	struct grid g;
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		perror(path);
		return 1;
	}
	struct grid_reader r = {.f = f, .name = path};
	int res;
	while ((res = grid_read(&r, &g, &e)) == 1)
		grid_free(&g);
	if (res < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	printf("%d\n", r.index);
	return 0;
}

static int cmd_half(void)
{
	int bad = 0;
	for (uint32_t h = 0; h < 65536; h++) {
		float f = half_to_float((uint16_t)h);
		uint16_t back = float_to_half(f);
		if (isnan(f) ? !isnan(half_to_float(back)) : back != h)
			bad++;
	}
	/* Rounding: values between two halves go to the nearest, ties to even. */
	if (float_to_half(1.0f + 1.0f / 2048) != 0x3c00 ||      /* tie, to even */
	    float_to_half(1.0f + 3.0f / 2048) != 0x3c02 ||      /* tie, to even */
	    float_to_half(65520.0f) != 0x7c00 ||                /* overflows */
	    float_to_half(5.9604645e-8f) != 0x0001)             /* smallest */
		bad++;
	printf("%d mismatches\n", bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	if (strcmp(cmd, "make") == 0)
		return cmd_make(argc > 2 ? atoi(argv[2]) : 1);
	if (strcmp(cmd, "roundtrip") == 0)
		return cmd_roundtrip();
	if (strcmp(cmd, "count") == 0)
		return cmd_count(argc > 2 ? argv[2] : "-");
	if (strcmp(cmd, "half") == 0)
		return cmd_half();
	fprintf(stderr, "usage: test_grid make|roundtrip|count|half\n");
	return 2;
}

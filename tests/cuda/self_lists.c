/* self_lists.c - the CPU half of test_cuda proximity (self_lists.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "proximity.h"
#include "self_lists.h"

/* Vertices whose lists (the kept entries, in order) or counts differ. */
static void differences(const struct proximity *pr, const uint32_t *list,
			const uint16_t *found, size_t *lists, size_t *counts)
{
	*lists = *counts = 0;
	for (size_t v = 0; v < pr->n; v++) {
		if (found[v] != pr->found[v]) {
			(*counts)++;
			continue;
		}
		size_t kept = (size_t)proximity_kept(pr, v);
		*lists += memcmp(list + v * (size_t)pr->k,
				 pr->list + v * (size_t)pr->k,
				 kept * sizeof(uint32_t)) != 0;
	}
}

int compare_lists(const char *path, int k, double s)
{
	struct grid g;
	struct proximity pr;
	struct error e;
	char why[256];
	if (grid_load(path, &g, &e) || proximity_init(&pr, &g, k, &e)) {
		fprintf(stderr, "test_cuda: %s: %s\n", path, e.msg);
		return 1;
	}
	const struct grid_channel *x = grid_find_typed(&g, "x", GRID_F32, 3);
	if (!x && !(x = grid_find_typed(&g, "rest", GRID_F32, 3))) {
		fprintf(stderr, "test_cuda: %s: no x or rest channel\n", path);
		return 1;
	}
	proximity_refresh(&pr, x->data, s);
	struct proximity_setup ps = proximity_setup_of(&pr);
	ps.list = NULL;        /* the GPU builds its lists from nothing */
	ps.found = NULL;
	uint32_t *list = xmalloc_array(pr.n, (size_t)k * sizeof(uint32_t));
	uint16_t *found = xmalloc_array(pr.n, sizeof(uint16_t));
	struct proximity_stats st, cnt;
	if (gpu_lists(&ps, x->data, s, list, found, &st, why, sizeof why)) {
		fprintf(stderr, "test_cuda: %s\n", why);
		return 1;
	}
	size_t lists, counts;
	differences(&pr, list, found, &lists, &counts);
	proximity_count(&pr, &cnt);
	printf("cpu: pairs %zu long %zu overflow %zu most %d hash %.9g\n",
	       pr.stats.pairs, pr.stats.long_pairs, cnt.overflow, cnt.most,
	       pr.stats.hash_cell);
	printf("gpu: pairs %zu long %zu hash %.9g\n", st.pairs, st.long_pairs,
	       st.hash_cell);
	printf("vertices %zu different-lists %zu different-counts %zu\n", pr.n,
	       lists, counts);
	int same = lists == 0 && counts == 0 && st.pairs == pr.stats.pairs &&
		   st.long_pairs == pr.stats.long_pairs;
	free(list);
	free(found);
	proximity_free(&pr);
	grid_free(&g);
	return !same;
}

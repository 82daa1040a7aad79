/* self_lists.h - test_cuda's comparison of the proximity lists of the
 * GPU search with the CPU's (tests/gpu.bats). */
#ifndef PLEAT_TEST_SELF_LISTS_H
#define PLEAT_TEST_SELF_LISTS_H

#include <stddef.h>
#include <stdint.h>

#include "proximity_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU search (test_cuda.cu): from empty lists, one refresh at host
 * positions x (3 floats a vertex of the setup's grid) with radius s;
 * the lists and stats copied to list, found and st.  0, or -1 with why. */
int gpu_lists(const struct proximity_setup *ps, const float *x, double s,
	      uint32_t *list, uint16_t *found, struct proximity_stats *st,
	      char *why, size_t n);

/* test_cuda proximity GRID K S (self_lists.c): the search with list
 * length K and radius S on the first grid's x (rest when it has none),
 * on the CPU and on the GPU; prints what each found and how many
 * vertices' lists or counts differ; 0 when none does. */
int compare_lists(const char *path, int k, double s);

#ifdef __cplusplus
}
#endif

#endif

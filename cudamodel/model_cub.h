/* model_cub.h - what the model's cub algorithms (cub/device/) share:
 * they run on the host over the model's device memory, so they are not
 * instrumented (CUDAMODEL_HOST_ALGORITHM) and check their spans instead. */
#ifndef PLEAT_CUDAMODEL_CUB_H
#define PLEAT_CUDAMODEL_CUB_H

#include <stddef.h>

#include "cuda_runtime.h"

#define CUDAMODEL_HOST_ALGORITHM __attribute__((no_sanitize_thread))

namespace cudamodel {
/* false when temp is NULL: bytes then gets the scratch size (1 byte: the
 * model needs none, but a caller must still allocate and pass it). */
bool cub_scratch(void *temp, size_t &bytes, const char *what);
/* Whether n values of `size` bytes from p lie in one allocation of
 * device memory; the error is reported (and sticky) otherwise. */
bool cub_span_bytes(const void *p, size_t n, size_t size, const char *what);
template <typename T>
static inline bool cub_span(const T *p, size_t n, const char *what)
{
	return cub_span_bytes(p, n, sizeof(T), what);
}
}

#endif

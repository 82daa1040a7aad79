/* cub::DeviceRadixSort in the CUDA execution model (see
 * device_reduce.cuh): SortPairs is a stable sort of the pairs by bits
 * begin_bit .. end_bit - 1 of their keys, as cub's radix sort is. */
#ifndef PLEAT_CUDAMODEL_DEVICE_RADIX_SORT_CUH
#define PLEAT_CUDAMODEL_DEVICE_RADIX_SORT_CUH

#include <algorithm>
#include <vector>

#include "../../model_cub.h"

namespace cub {
struct DeviceRadixSort {
	template <typename K, typename V>
	CUDAMODEL_HOST_ALGORITHM static cudaError_t
	SortPairs(void *temp, size_t &bytes, const K *keys_in, K *keys_out,
		  const V *values_in, V *values_out, size_t n,
		  int begin_bit = 0, int end_bit = (int)sizeof(K) * 8)
	{
		const char *what = "cub::DeviceRadixSort::SortPairs";
		if (!cudamodel::cub_scratch(temp, bytes, what))
			return cudaSuccess;
		if (!cudamodel::cub_span(keys_in, n, what) ||
		    !cudamodel::cub_span(keys_out, n, what) ||
		    !cudamodel::cub_span(values_in, n, what) ||
		    !cudamodel::cub_span(values_out, n, what))
			return cudaErrorInvalidValue;
		int width = end_bit - begin_bit;
		K mask = width >= (int)sizeof(K) * 8 ? (K)~(K)0 :
			 (K)(((K)1 << width) - 1);
		/* copied to the host first: only this function may read the
		 * device memory from the host */
		std::vector<K> keys(n);
		std::vector<V> values(n);
		std::vector<size_t> order(n);
		for (size_t k = 0; k < n; k++) {
			keys[k] = (K)((keys_in[k] >> begin_bit) & mask);
			values[k] = values_in[k];
			order[k] = k;
		}
		std::stable_sort(order.begin(), order.end(),
				 [&](size_t a, size_t b) {
					 return keys[a] < keys[b];
				 });
		for (size_t k = 0; k < n; k++) {
			keys_out[k] = keys_in[order[k]];
			values_out[k] = values[order[k]];
		}
		return cudaSuccess;
	}
};
}

#endif

/* cub::DeviceReduce in the CUDA execution model: the same results as
 * cub's, computed on the host over the model's device memory.  A sum is
 * taken left to right, which is one of the orders cub's tree may use:
 * callers must not depend on the rounding of a parallel sum (pleat's
 * proximity search does not).  As with cub, a call with temp NULL only
 * says how much scratch memory the real one needs. */
#ifndef PLEAT_CUDAMODEL_DEVICE_REDUCE_CUH
#define PLEAT_CUDAMODEL_DEVICE_REDUCE_CUH

#include <limits>

#include "../../model_cub.h"

namespace cub {
struct DeviceReduce {
	template <typename T>
	CUDAMODEL_HOST_ALGORITHM static cudaError_t
	Max(void *temp, size_t &bytes, const T *in, T *out, int n)
	{
		const char *what = "cub::DeviceReduce::Max";
		if (!cudamodel::cub_scratch(temp, bytes, what))
			return cudaSuccess;
		if (!cudamodel::cub_span(in, n, what) ||
		    !cudamodel::cub_span(out, 1, what))
			return cudaErrorInvalidValue;
		T best = std::numeric_limits<T>::lowest();
		for (int k = 0; k < n; k++)
			best = in[k] > best ? in[k] : best;
		*out = best;
		return cudaSuccess;
	}

	template <typename T>
	CUDAMODEL_HOST_ALGORITHM static cudaError_t
	Sum(void *temp, size_t &bytes, const T *in, T *out, int n)
	{
		const char *what = "cub::DeviceReduce::Sum";
		if (!cudamodel::cub_scratch(temp, bytes, what))
			return cudaSuccess;
		if (!cudamodel::cub_span(in, n, what) ||
		    !cudamodel::cub_span(out, 1, what))
			return cudaErrorInvalidValue;
		T sum = T();
		for (int k = 0; k < n; k++)
			sum = sum + in[k];
		*out = sum;
		return cudaSuccess;
	}
};
}

#endif

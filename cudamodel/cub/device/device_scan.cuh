/* cub::DeviceScan in the CUDA execution model (see device_reduce.cuh). */
#ifndef PLEAT_CUDAMODEL_DEVICE_SCAN_CUH
#define PLEAT_CUDAMODEL_DEVICE_SCAN_CUH

#include "../../model_cub.h"

namespace cub {
struct DeviceScan {
	/* out[k] = in[0] + ... + in[k] */
	template <typename T>
	CUDAMODEL_HOST_ALGORITHM static cudaError_t
	InclusiveSum(void *temp, size_t &bytes, const T *in, T *out, size_t n)
	{
		const char *what = "cub::DeviceScan::InclusiveSum";
		if (!cudamodel::cub_scratch(temp, bytes, what))
			return cudaSuccess;
		if (!cudamodel::cub_span(in, n, what) ||
		    !cudamodel::cub_span(out, n, what))
			return cudaErrorInvalidValue;
		T sum = T();
		for (size_t k = 0; k < n; k++)
			out[k] = sum = sum + in[k];
		return cudaSuccess;
	}
};
}

#endif

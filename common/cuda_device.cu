/* cuda_device.cu - device discovery and a check that the shared PL_HD
 * arithmetic gives the same results on the GPU as on the host. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "cuda_device.h"
#include "cuda_launch.h"
#include "hostdev_sample.h"

extern "C" int cuda_device_count(char *why, size_t n)
{
	int count = 0;
	cudaError_t err = cudaGetDeviceCount(&count);
	if (err == cudaSuccess && count > 0)
		return count;
	if (!why)
		return 0;
	/* in a user's words first, the runtime's after */
	if (err == cudaSuccess || err == cudaErrorNoDevice)
		snprintf(why, n, "this machine has no NVIDIA GPU that CUDA can use");
	else if (err == cudaErrorInsufficientDriver)
		snprintf(why, n, "the NVIDIA driver is missing, or older than this "
			 "build's CUDA runtime (%s)", cudaGetErrorString(err));
	else
		snprintf(why, n, "the CUDA runtime says: %s",
			 cudaGetErrorString(err));
	return 0;
}

extern "C" int cuda_device_describe(int dev, char *buf, size_t n)
{
	cudaDeviceProp prop;
	if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
		return -1;
	snprintf(buf, n, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
	return 0;
}

__global__ void selftest_kernel(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = hostdev_sample(in, i);
}

extern "C" int cuda_fused_multiply_add(void)
{
#ifdef PLEAT_CUDA_FMAD
	return 1;
#else
	return 0;
#endif
}

extern "C" int cuda_hostdev_selftest(int n, struct hostdev_check *r,
				     char *why, size_t whylen)
{
	std::vector<float> in(6 * (size_t)n), out(n);
	unsigned s = 12345u;
	for (auto &x : in) {
		s = s * 1664525u + 1013904223u;
		x = (float)(s >> 8) / 16777216.0f * 2.0f - 1.0f;
	}
	float *din = NULL, *dout = NULL;
	cudaError_t err = cudaMalloc(&din, in.size() * sizeof(float));
	if (err == cudaSuccess)
		err = cudaMalloc(&dout, out.size() * sizeof(float));
	if (err == cudaSuccess)
		err = cudaMemcpy(din, in.data(), in.size() * sizeof(float),
				 cudaMemcpyHostToDevice);
	if (err == cudaSuccess)
		err = PL_LAUNCH(selftest_kernel, (n + 255) / 256, 256, din, dout, n);
	if (err == cudaSuccess)
		err = cudaMemcpy(out.data(), dout, out.size() * sizeof(float),
				 cudaMemcpyDeviceToHost);
	cudaError_t freed = cudaFree(din);
	if (freed == cudaSuccess)
		freed = cudaFree(dout);
	if (err == cudaSuccess)
		err = freed;
	if (err != cudaSuccess) {
		snprintf(why, whylen, "%s", cudaGetErrorString(err));
		return -1;
	}
	hostdev_compare(in.data(), out.data(), n, r);
	return 0;
}

/* cuda_device.cu - device discovery and a check that the shared PL_HD
 * arithmetic gives the same results on the GPU as on the host. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "cuda_device.h"
#include "cuda_launch.h"
#include "half.h"
#include "vec.h"

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

/* The per-element work: the same inline functions on both sides. */
PL_HD float sample(const float *in, int i)
{
	vec3 a = v3_load(in + 6 * i), b = v3_load(in + 6 * i + 3);
	vec3 c = v3_cross(a, b);
	vec3 d = v3_normalize(v3_madd(c, a, 0.5f));
	float h = half_to_float(float_to_half(v3_dot(d, b)));
	return h + v3_norm(c);
}

__global__ void selftest_kernel(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = sample(in, i);
}

extern "C" double cuda_hostdev_selftest(int n)
{
	std::vector<float> in(6 * (size_t)n), out(n);
	unsigned s = 12345u;
	for (auto &x : in) {
		s = s * 1664525u + 1013904223u;
		x = (float)(s >> 8) / 16777216.0f * 2.0f - 1.0f;
	}
	float *din = NULL, *dout = NULL;
	double worst = -1;
	if (cudaMalloc(&din, in.size() * sizeof(float)) == cudaSuccess &&
	    cudaMalloc(&dout, out.size() * sizeof(float)) == cudaSuccess &&
	    cudaMemcpy(din, in.data(), in.size() * sizeof(float),
		       cudaMemcpyHostToDevice) == cudaSuccess) {
		if (PL_LAUNCH(selftest_kernel, (n + 255) / 256, 256, din, dout,
			      n) == cudaSuccess &&
		    cudaMemcpy(out.data(), dout, out.size() * sizeof(float),
			       cudaMemcpyDeviceToHost) == cudaSuccess) {
			worst = 0;
			for (int i = 0; i < n; i++) {
				double d = fabs((double)out[i] - sample(in.data(), i));
				worst = d > worst ? d : worst;
			}
		}
	}
	cudaFree(din);
	cudaFree(dout);
	return worst;
}

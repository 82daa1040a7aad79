/* model_test - kernels with deliberate faults, for the tests of the CUDA
 * execution model itself (tests/cudamodel.bats): each subcommand runs one
 * and prints what the runtime returned; the model's own message about
 * the fault goes to standard error.
 *
 *   ok               a block sum through shared memory, correct
 *   order            the order atomics hand out slots (differs by order)
 *   host-pointer     a kernel given a host pointer
 *   out-of-bounds    a kernel writing one value past its allocation
 *   use-after-free   a kernel reading freed device memory
 *   shared-race      a shared-memory sum missing its barrier
 *   global-race      threads reading what their neighbours write
 *   uninitialised    a kernel reading shared memory nobody wrote
 *   divergent        a barrier some threads return before
 *   split            threads waiting at two different barriers
 *   too-many-threads a block of 2048 threads
 *   host-reads-device  host code dereferencing a device pointer
 *   copy-host-as-device  cudaMemcpy told a host pointer is device memory
 *   copy-past-end    cudaMemcpy past the end of an allocation
 *   double-free      cudaFree twice
 *   leak             an allocation never freed, and exit 0
 *   sticky           a launch after a failed one
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_launch.h"

#define N 256

/* out[0] = the sum of in[0 .. N), by one block of N threads. */
__global__ void sum_kernel(const float *in, float *out)
{
	__shared__ float part[N];
	int t = threadIdx.x;
	part[t] = in[t];
	__syncthreads();
	for (int half = N / 2; half > 0; half /= 2) {
		float mine = t < half ? part[t] + part[t + half] : 0.0f;
		__syncthreads();
		if (t < half)
			part[t] = mine;
		__syncthreads();
	}
	if (t == 0)
		*out = part[0];
}

/* The same with the barrier in the loop gone: a thread may read a partial
 * sum before the thread that owns it has added to it. */
__global__ void racy_sum_kernel(const float *in, float *out)
{
	__shared__ float part[N];
	int t = threadIdx.x;
	part[t] = in[t];
	__syncthreads();
	for (int half = N / 2; half > 0; half /= 2)
		if (t < half)
			part[t] = part[t] + part[t + half];
	__syncthreads();
	if (t == 0)
		*out = part[0];
}

__global__ void uninitialised_kernel(float *out)
{
	__shared__ float part[N];
	int t = threadIdx.x;
	if (t > 0)
		part[t] = 1.0f;
	__syncthreads();
	out[t] = part[(t + 1) % N];
}

__global__ void divergent_kernel(float *out)
{
	int t = threadIdx.x;
	if (t >= N / 2)
		return;
	__syncthreads();
	out[t] = 1.0f;
}

__global__ void split_kernel(float *out)
{
	int t = threadIdx.x;
	if (t % 2) {
		out[t] = 1.0f;
		__syncthreads();
	} else {
		__syncthreads();
		out[t] = 2.0f;
	}
}

/* out[t] = in[t] + 1, one value past the end for the last thread when
 * extra is 1. */
__global__ void add_kernel(const float *in, float *out, int extra)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	out[t + (t == N - 1 ? extra : 0)] = in[t] + 1.0f;
}

/* Each thread writes its own value and reads its neighbour's, in one
 * launch: a race across blocks. */
__global__ void neighbour_kernel(float *v)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	v[t] = (float)t;
	if (t + 1 < N)
		v[t] = v[t] + v[t + 1];
}

/* slot[t] = the order in which thread t reached the counter. */
__global__ void slot_kernel(unsigned long long *counter, unsigned *slot)
{
	int t = threadIdx.x;
	slot[t] = (unsigned)atomicAdd(counter, 1ull);
}

static float *device_floats(int n, float value)
{
	float *d = NULL, *h = (float *)malloc(n * sizeof(float));
	for (int k = 0; k < n; k++)
		h[k] = value;
	if (cudaMalloc((void **)&d, n * sizeof(float)) != cudaSuccess ||
	    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice) !=
		    cudaSuccess) {
		fprintf(stderr, "model_test: cannot set up device memory\n");
		exit(3);
	}
	free(h);
	return d;
}

static int said(const char *what, cudaError_t err)
{
	printf("%s: %s\n", what, cudaGetErrorName(err));
	return err == cudaSuccess ? 0 : 1;
}

static int run_sum(int racy)
{
	float *in = device_floats(N, 1.0f), *out = device_floats(1, 0.0f), sum;
	cudaError_t err = racy ? PL_LAUNCH(racy_sum_kernel, 1, N, in, out) :
				 PL_LAUNCH(sum_kernel, 1, N, in, out);
	if (err == cudaSuccess)
		err = cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost);
	if (err == cudaSuccess)
		printf("sum %g\n", sum);
	cudaFree(in);
	cudaFree(out);
	return said("launch", err);
}

static int run_order(void)
{
	unsigned long long *counter = NULL;
	unsigned *slot = NULL, host[N];
	cudaMalloc((void **)&counter, sizeof *counter);
	cudaMalloc((void **)&slot, N * sizeof *slot);
	cudaMemset(counter, 0, sizeof *counter);
	cudaError_t err = PL_LAUNCH(slot_kernel, 1, N, counter, slot);
	if (err == cudaSuccess)
		err = cudaMemcpy(host, slot, sizeof host, cudaMemcpyDeviceToHost);
	if (err == cudaSuccess)
		printf("slots of threads 0 1 2: %u %u %u\n", host[0], host[1],
		       host[2]);
	cudaFree(counter);
	cudaFree(slot);
	return said("launch", err);
}

static int run_add(const float *in, int extra)
{
	float *out = device_floats(N, 0.0f);
	cudaError_t err = PL_LAUNCH(add_kernel, N / 64, 64, in, out, extra);
	cudaFree(out);
	return said("launch", err);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (!strcmp(what, "ok"))
		return run_sum(0);
	if (!strcmp(what, "shared-race"))
		return run_sum(1);
	if (!strcmp(what, "order"))
		return run_order();
	if (!strcmp(what, "host-pointer")) {
		float *host = (float *)calloc(N, sizeof(float));
		int bad = run_add(host, 0);
		free(host);
		return bad;
	}
	if (!strcmp(what, "out-of-bounds")) {
		float *in = device_floats(N, 1.0f);
		int bad = run_add(in, 1);
		cudaFree(in);
		return bad;
	}
	if (!strcmp(what, "use-after-free")) {
		float *in = device_floats(N, 1.0f);
		cudaFree(in);
		return run_add(in, 0);
	}
	if (!strcmp(what, "global-race")) {
		float *v = device_floats(N, 0.0f);
		cudaError_t err = PL_LAUNCH(neighbour_kernel, N / 64, 64, v);
		cudaFree(v);
		return said("launch", err);
	}
	if (!strcmp(what, "uninitialised") || !strcmp(what, "divergent") ||
	    !strcmp(what, "split")) {
		float *out = device_floats(N, 0.0f);
		cudaError_t err = what[0] == 'u' ?
			PL_LAUNCH(uninitialised_kernel, 1, N, out) :
			what[0] == 'd' ? PL_LAUNCH(divergent_kernel, 1, N, out) :
			PL_LAUNCH(split_kernel, 1, N, out);
		cudaFree(out);
		return said("launch", err);
	}
	if (!strcmp(what, "too-many-threads")) {
		float *in = device_floats(N, 1.0f), *out = device_floats(N, 0.0f);
		said("launch", PL_LAUNCH(add_kernel, 1, 2048, in, out, 0));
		int bad = said("after it", cudaGetLastError());
		cudaFree(in);
		cudaFree(out);
		return bad;
	}
	if (!strcmp(what, "host-reads-device")) {
		float *d = device_floats(N, 1.0f);
		printf("%g\n", d[3]);
		return 0;
	}
	if (!strcmp(what, "copy-host-as-device")) {
		float host[4] = {0, 0, 0, 0};
		float *d = device_floats(4, 1.0f);
		int bad = said("cudaMemcpy", cudaMemcpy(host, d, sizeof host,
							cudaMemcpyHostToDevice));
		cudaFree(d);
		return bad;
	}
	if (!strcmp(what, "copy-past-end")) {
		float host[8] = {0};
		float *d = device_floats(4, 1.0f);
		int bad = said("cudaMemcpy", cudaMemcpy(host, d, sizeof host,
							cudaMemcpyDeviceToHost));
		cudaFree(d);
		return bad;
	}
	if (!strcmp(what, "double-free")) {
		float *d = device_floats(4, 1.0f);
		cudaFree(d);
		return said("cudaFree", cudaFree(d));
	}
	if (!strcmp(what, "leak")) {
		device_floats(N, 1.0f);
		printf("exiting with an allocation\n");
		return 0;
	}
	if (!strcmp(what, "sticky")) {
		float *in = device_floats(N, 1.0f), *out = device_floats(N, 0.0f);
		float *more = NULL;
		said("first launch", PL_LAUNCH(add_kernel, N / 64, 64, in, out, 1));
		said("second launch", PL_LAUNCH(add_kernel, N / 64, 64, in, out, 0));
		said("cudaMalloc", cudaMalloc((void **)&more, 4));
		return said("cudaGetLastError", cudaGetLastError());
	}
	fprintf(stderr, "usage: model_test ok|order|host-pointer|...\n");
	return 2;
}

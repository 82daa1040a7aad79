/* cuda_runtime.h - the CUDA execution model's stand-in for the toolkit's
 * header: what pleat's .cu files use of the kernel language and of the
 * runtime API, so that the host C++ compiler builds them unchanged and
 * they run on the CPU.  See model.h for the execution model and its
 * checks.
 *
 * The .cu files are compiled with -Icudamodel -DPLEAT_CUDA_MODEL and
 * instrumented (every load and store calls model.cc's check), and they
 * launch kernels with PL_LAUNCH (common/cuda_launch.h), which is
 * kernel<<<grid, block>>> under nvcc and pl_launch() below here. */
#ifndef PLEAT_CUDAMODEL_RUNTIME_H
#define PLEAT_CUDAMODEL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tuple>
#include <utility>

/* ---- the kernel language --------------------------------------------- */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
/* Shared memory is one section of the program: blocks run one after
 * another, and the model fills it with NaNs before each block (model.h). */
#define __shared__ static __attribute__((section("cudamodel_shared")))
#define __restrict__ __restrict
/* C11's spelling, which the toolkit's headers accept in C++ too */
#ifndef _Noreturn
#define _Noreturn [[noreturn]]
#endif

struct uint3 {
	unsigned x, y, z;
};

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1)
		: x(vx), y(vy), z(vz) {}
};

/* Set by the model for the thread it runs. */
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;

namespace cudamodel {
void barrier(const char *file, int line);
/* Bounds of an atomic's operand (no race bookkeeping: atomics are the
 * way threads may share a word). */
void atomic_access(const void *p, size_t bytes);
}

#define __syncthreads() cudamodel::barrier(__FILE__, __LINE__)

/* The model runs one thread at a time and never preempts one between two
 * instructions, so a read-modify-write is atomic as it stands. */
template <typename T>
__attribute__((no_sanitize_thread)) static inline T atomicAdd(T *p, T v)
{
	cudamodel::atomic_access(p, sizeof *p);
	T old = *p;
	*p = old + v;
	return old;
}

/* ---- the runtime API --------------------------------------------------- */

enum cudaError {
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorInvalidConfiguration = 9,
	cudaErrorInvalidDevicePointer = 17,
	cudaErrorInvalidMemcpyDirection = 21,
	cudaErrorInsufficientDriver = 35,
	cudaErrorNoDevice = 100,
	cudaErrorInvalidDevice = 101,
	cudaErrorIllegalAddress = 700,
	cudaErrorLaunchFailure = 719,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4,
};

struct cudaDeviceProp {
	char name[256];
	int major, minor;
	size_t totalGlobalMem, sharedMemPerBlock;
	int multiProcessorCount, maxThreadsPerBlock, warpSize;
};

namespace cudamodel {
cudaError_t malloc_at(void **p, size_t bytes, const char *file, int line);
cudaError_t free_at(void *p, const char *file, int line);
cudaError_t memcpy_at(void *dst, const void *src, size_t bytes,
		      cudaMemcpyKind kind, const char *file, int line);
cudaError_t memset_at(void *p, int value, size_t bytes, const char *file,
		      int line);
}

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int dev);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaDeviceSynchronize(void);
const char *cudaGetErrorString(cudaError_t err);
const char *cudaGetErrorName(cudaError_t err);

/* The calls that take device pointers carry their call site, for the
 * model's messages. */
#define cudaMalloc(p, bytes) \
	cudamodel::malloc_at((void **)(p), (bytes), __FILE__, __LINE__)
#define cudaFree(p) cudamodel::free_at((void *)(p), __FILE__, __LINE__)
#define cudaMemcpy(dst, src, bytes, kind) \
	cudamodel::memcpy_at((dst), (src), (bytes), (kind), __FILE__, __LINE__)
#define cudaMemset(p, value, bytes) \
	cudamodel::memset_at((p), (value), (bytes), __FILE__, __LINE__)

/* ---- launches ------------------------------------------------------------ */

namespace cudamodel {
/* One launch: the kernel's name and call site, its configuration, and
 * run(closure), which calls the kernel with its parameters (one thread's
 * work).  params..params + params_bytes is the launch's parameter
 * memory, which the kernel's threads may read. */
struct launch_info {
	const char *name, *file;
	int line;
	dim3 grid, block;
	const void *params;
	size_t params_bytes;
	void (*run)(void *closure);
	void *closure;
};
cudaError_t launch(const launch_info &li);
}

/* kernel<<<grid, block>>>(args): the parameters converted to the
 * kernel's types once, as the launch does, and each thread calls the
 * kernel with its own copy of them. */
template <typename... P, typename... A>
static inline cudaError_t pl_launch_at(void (*kernel)(P...), const char *name,
				       const char *file, int line, dim3 grid,
				       dim3 block, A &&...args)
{
	struct closure {
		void (*kernel)(P...);
		std::tuple<P...> params;
	} c = {kernel, std::tuple<P...>(static_cast<P>(args)...)};
	cudamodel::launch_info li = {
		name, file, line, grid, block, &c, sizeof c,
		[](void *p) {
			closure *k = (closure *)p;
			std::apply(k->kernel, k->params);
		},
		&c};
	return cudamodel::launch(li);
}

#define pl_launch(kernel, name, grid, block, ...) \
	pl_launch_at(kernel, name, __FILE__, __LINE__, grid, block, __VA_ARGS__)

#endif

/* cuda_launch.h - one spelling of a kernel launch for nvcc and for the
 * CUDA execution model (cudamodel/), so that the .cu files are compiled
 * unchanged by both:
 *
 *	err = PL_LAUNCH(kernel, grid, block, arguments...);
 *
 * is kernel<<<grid, block>>>(arguments...) followed by
 * cudaGetLastError() (the launch's own errors: a bad configuration; a
 * fault while the kernel runs shows at the next synchronisation) under
 * nvcc, and the model's launch, which runs the kernel there and then,
 * under the model.  pl_last_launch names it (see below). */
#ifndef PLEAT_CUDA_LAUNCH_H
#define PLEAT_CUDA_LAUNCH_H

#include <cuda_runtime.h>

#ifndef PLEAT_CUDA_MODEL
template <typename... P, typename... A>
static inline cudaError_t pl_launch(void (*kernel)(P...), const char *name,
				    dim3 grid, dim3 block, A &&...args)
{
	(void)name;
	kernel<<<grid, block>>>(static_cast<P>(args)...);
	return cudaGetLastError();
}
#endif

/* The name of the kernel launched last, for messages: a kernel's fault
 * shows at the next synchronisation, and that kernel is the first
 * suspect (under the model, the one). */
inline const char *pl_last_launch = "none";

#define PL_LAUNCH(kernel, grid, block, ...) \
	(pl_last_launch = #kernel, \
	 pl_launch(kernel, #kernel, grid, block, __VA_ARGS__))

#endif

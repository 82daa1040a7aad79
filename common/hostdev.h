/* hostdev.h - one source for the CPU and the GPU.
 *
 * The per-vertex arithmetic (energies, gradients, preconditioners,
 * projections) is written once as static inline functions marked PL_HD:
 * under nvcc they become __host__ __device__, under the C compiler plain
 * static inline.  The CUDA files only own memory, tiles and launches.
 */
#ifndef PLEAT_HOSTDEV_H
#define PLEAT_HOSTDEV_H

#ifdef __CUDACC__
#define PL_HD __host__ __device__ __forceinline__
#define PL_RESTRICT __restrict__
#else
#define PL_HD static inline
#define PL_RESTRICT restrict
#endif

#endif

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
#define PL_HD static inline __attribute__((always_inline))
#define PL_RESTRICT restrict
#endif

/* Unroll the next loop completely (its trip count is a small constant):
 * the CPU's vector loops over a row of vertices need the loops inside
 * the per-vertex functions gone before they can vectorise. */
#if defined(__CUDA_ARCH__)
#define PL_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define PL_UNROLL
#elif defined(__GNUC__) && !defined(__clang__)
#define PL_UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__)
#define PL_UNROLL _Pragma("clang loop unroll(full)")
#else
#define PL_UNROLL
#endif

#endif

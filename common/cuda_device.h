/* cuda_device.h - which CUDA device answers, for --device auto|cuda.
 * Compiled only when the CUDA backend is built (nvcc found). */
#ifndef PLEAT_CUDA_DEVICE_H
#define PLEAT_CUDA_DEVICE_H

#include <stddef.h>

#include "hostdev_sample.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 when there is no driver or no GPU.
 * When why is not NULL it receives the runtime's reason for none. */
int cuda_device_count(char *why, size_t n);

/* Name and compute capability of device dev, e.g. "NVIDIA H100 (sm_90)". */
int cuda_device_describe(int dev, char *buf, size_t n);

/* The shared host/device arithmetic (hostdev_sample.h) run on the GPU
 * and on the host over the same n pseudo-random inputs, compared by
 * hostdev_compare.  Returns 0, or -1 with the reason in why on a CUDA
 * error. */
int cuda_hostdev_selftest(int n, struct hostdev_check *r, char *why,
			  size_t whylen);

/* Whether this build lets the compiler fuse a*b+c into one rounding on
 * the device (make CUDA_FMAD=1); by default it does not, and the device
 * rounds every operation as the host does. */
int cuda_fused_multiply_add(void);

#ifdef __cplusplus
}
#endif

#endif

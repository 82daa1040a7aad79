/* cuda_device.h - which CUDA device answers, for --device auto|cuda.
 * Compiled only when the CUDA backend is built (nvcc found). */
#ifndef PLEAT_CUDA_DEVICE_H
#define PLEAT_CUDA_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 when there is no driver or no GPU.
 * When why is not NULL it receives the runtime's reason for none. */
int cuda_device_count(char *why, size_t n);

/* Name and compute capability of device dev, e.g. "NVIDIA H100 (sm_90)". */
int cuda_device_describe(int dev, char *buf, size_t n);

/* Runs the shared host/device arithmetic (vec.h, half.h) on the GPU over
 * the given inputs and returns the largest difference from the same
 * functions run on the host, or a negative value on a CUDA error. */
double cuda_hostdev_selftest(int n);

#ifdef __cplusplus
}
#endif

#endif

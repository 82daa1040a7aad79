/* hostdev_sample.h - a sample of the shared host/device arithmetic
 * (vec.h, half.h) for test_cuda's hostdev check: the same inline function
 * runs in a kernel (cuda_device.cu) and, as the reference, on the host in
 * hostdev_sample.c, which the C compiler builds with the CPU backend's
 * flags, so the comparison is the GPU against the CPU backend. */
#ifndef PLEAT_HOSTDEV_SAMPLE_H
#define PLEAT_HOSTDEV_SAMPLE_H

#include "half.h"
#include "vec.h"

PL_HD float hostdev_sample(const float *in, int i)
{
	vec3 a = v3_load(in + 6 * i), b = v3_load(in + 6 * i + 3);
	vec3 c = v3_cross(a, b);
	vec3 d = v3_normalize(v3_madd(c, a, 0.5f));
	float h = half_to_float(float_to_half(v3_dot(d, b)));
	return h + v3_norm(c);
}

#ifdef __cplusplus
extern "C" {
#endif

/* How the device's results out[0..n) compare with the host's: how many
 * differ in any bit, the largest difference, and the largest ratio of a
 * difference to what fused multiply-adds may explain. */
struct hostdev_check {
	long differ;
	double worst;
	double worst_share;
};

void hostdev_compare(const float *in, const float *out, int n,
		     struct hostdev_check *r);

#ifdef __cplusplus
}
#endif

#endif

/* hostdev_sample.c - the host's side of test_cuda's hostdev check. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "hostdev_sample.h"

/* What fused multiply-adds may change in hostdev_sample(): a few units in
 * the last place of the dot product, which can then cross a rounding
 * boundary of the half-precision round trip: one unit of the half's last
 * place (10 fraction bits, subnormal below 2^-14), taken in the binade
 * above the host's value in case the device's crossed into it, plus a
 * few units of the float result from the norm. */
static double fused_allowance(const float *in, int i, float result)
{
	vec3 a = v3_load(in + 6 * i), b = v3_load(in + 6 * i + 3);
	vec3 d = v3_normalize(v3_madd(v3_cross(a, b), a, 0.5f));
	float dot = fabsf(v3_dot(d, b));
	int e = dot > 0 ? ilogbf(dot) : -14;
	return ldexp(1.0, (e < -14 ? -14 : e) - 9) + 8 * FLT_EPSILON * fabsf(result);
}

void hostdev_compare(const float *in, const float *out, int n,
		     struct hostdev_check *r)
{
	*r = (struct hostdev_check){0, 0, 0};
	for (int i = 0; i < n; i++) {
		float host = hostdev_sample(in, i);
		if (memcmp(&host, &out[i], sizeof host) == 0)
			continue;
		double d = fabs((double)out[i] - host);
		if (isnan(d))
			d = INFINITY;
		double share = d / fused_allowance(in, i, host);
		r->differ++;
		r->worst = fmax(d, r->worst);
		r->worst_share = fmax(share, r->worst_share);
	}
}

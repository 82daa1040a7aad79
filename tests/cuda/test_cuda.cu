/* test_cuda - the GPU side of the test suite (tests/gpu.bats).
 *
 *   test_cuda devices     list the devices, exit 3 when there is none
 *   test_cuda build       "fused multiply-add: on|off" (make CUDA_FMAD=1)
 *   test_cuda hostdev N   shared PL_HD arithmetic on GPU against host:
 *        "differ D of N worst W share S"; exit 1 when a result differs
 *        in a build without fused multiply-adds, or by more than they
 *        explain (S > 1) in one with them
 *   test_cuda proximity GRID K S   the proximity lists of the GPU search
 *        against the CPU's (self_lists.h)
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_device.h"
#include "self_lists.h"

/* cudaFree(p), its error into why. */
static int fail_free(void *p, char *why, size_t n)
{
	cudaError_t err = cudaFree(p);
	if (err == cudaSuccess)
		return 0;
	snprintf(why, n, "cannot free x on the GPU: %s", cudaGetErrorString(err));
	return -1;
}

extern "C" int gpu_lists(const struct proximity_setup *ps, const float *x,
			 double s, uint32_t *list, uint16_t *found,
			 struct proximity_stats *st, char *why, size_t n)
{
	size_t bytes = (size_t)ps->w * (size_t)ps->h * 3 * sizeof(float);
	float *dx = NULL;
	cudaError_t err = cudaMalloc((void **)&dx, bytes);
	if (err == cudaSuccess)
		err = cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
	if (err != cudaSuccess) {
		snprintf(why, n, "cannot put x on the GPU: %s",
			 cudaGetErrorString(err));
		cudaFree(dx);
		return -1;
	}
	struct proximity_cuda *g = proximity_cuda_new(ps, why, n);
	int bad = !g || proximity_cuda_refresh(g, dx, s, why, n) ||
		  proximity_cuda_get(g, list, found, st, why, n);
	if (g && proximity_cuda_free(g, why, n))
		bad = 1;
	if (fail_free(dx, why, n))
		bad = 1;
	return bad ? -1 : 0;
}

static int hostdev(int samples)
{
	struct hostdev_check r;
	char why[256];
	if (samples < 1 || cuda_hostdev_selftest(samples, &r, why, sizeof why)) {
		fprintf(stderr, "test_cuda: hostdev: %s\n",
			samples < 1 ? "N must be positive" : why);
		return 1;
	}
	printf("differ %ld of %d worst %.3g share %.3g\n", r.differ, samples,
	       r.worst, r.worst_share);
	return cuda_fused_multiply_add() ? r.worst_share > 1 : r.differ != 0;
}

int main(int argc, char **argv)
{
	char why[256] = "";
	int n = cuda_device_count(why, sizeof why);
	if (n == 0) {
		printf("no GPU: %s\n", why);
		return 3;
	}
	if (argc > 1 && strcmp(argv[1], "devices") == 0) {
		for (int d = 0; d < n; d++) {
			char name[256];
			if (cuda_device_describe(d, name, sizeof name) == 0)
				printf("%d: %s\n", d, name);
		}
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "build") == 0) {
		printf("fused multiply-add: %s\n",
		       cuda_fused_multiply_add() ? "on" : "off");
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "hostdev") == 0)
		return hostdev(atoi(argv[2]));
	if (argc == 5 && strcmp(argv[1], "proximity") == 0)
		return compare_lists(argv[2], atoi(argv[3]), atof(argv[4]));
	fprintf(stderr, "usage: test_cuda devices|build|hostdev N|proximity GRID K S\n");
	return 2;
}

/* test_cuda - the GPU side of the test suite (tests/gpu.bats).
 *
 *   test_cuda devices     list the devices, exit 3 when there is none
 *   test_cuda hostdev N   shared PL_HD arithmetic on GPU against host
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_device.h"

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
	if (argc > 2 && strcmp(argv[1], "hostdev") == 0) {
		double worst = cuda_hostdev_selftest(atoi(argv[2]));
		printf("largest difference %.3g\n", worst);
		/* nvcc fuses a*b+c into FMA where gcc does not, so results may
		 * differ by a few ulps of values of order 1. */
		return worst < 0 || worst > 1e-5;
	}
	fprintf(stderr, "usage: test_cuda devices|hostdev N\n");
	return 2;
}

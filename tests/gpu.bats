#!/usr/bin/env bats
# The GPU suite: CUDA against the CPU on the same inputs.  Skipped, with
# the reason, where the CUDA backend was not built or no GPU answers.

load common

setup() {
	TC="$PLEAT_TESTBIN/test_cuda"
	[ -x "$TC" ] || skip "CUDA backend not built (nvcc not found)"
	run "$TC" devices
	[ "$status" -ne 3 ] || skip "$output"
}

@test "a CUDA device answers and is described" {
	run "$TC" devices
	[ "$status" -eq 0 ]
	[[ "$output" == 0:*sm_* ]]
}

@test "the shared host/device arithmetic agrees on GPU and CPU" {
	run "$TC" hostdev 100000
	echo "$output"
	[ "$status" -eq 0 ]
}

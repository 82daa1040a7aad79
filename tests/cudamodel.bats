#!/usr/bin/env bats
# The CUDA execution model (cudamodel/) on kernels with deliberate faults
# (tests/cuda/model_test.cu): what it must catch, with the message that
# names the kernel, the block and the thread, and what it must let pass.

load common
bats_require_minimum_version 1.5.0

setup() {
	MT="$ROOT/build/model/tests/model_test"
	[ -x "$MT" ] || { echo "$MT not built: run make" >&2; return 1; }
}

@test "model: a correct block sum runs, the same in every thread order" {
	for order in forward reverse shuffle:1 shuffle:2; do
		PLEAT_CUDA_MODEL_ORDER=$order run --separate-stderr "$MT" ok
		[ "$status" -eq 0 ]
		[ "$output" = "sum 256
launch: cudaSuccess" ]
		[ -z "$stderr" ]
	done
}

@test "model: the order runs threads in the order asked for" {
	PLEAT_CUDA_MODEL_ORDER=forward run "$MT" order
	[ "${lines[0]}" = "slots of threads 0 1 2: 0 1 2" ]
	PLEAT_CUDA_MODEL_ORDER=reverse run "$MT" order
	[ "${lines[0]}" = "slots of threads 0 1 2: 255 254 253" ]
	PLEAT_CUDA_MODEL_ORDER=shuffle:5 run "$MT" order
	[ "$status" -eq 0 ]
	[ "${lines[0]}" != "slots of threads 0 1 2: 0 1 2" ]
	[ "${lines[0]}" != "slots of threads 0 1 2: 255 254 253" ]
	PLEAT_CUDA_MODEL_ORDER=sideways run "$MT" order
	[ "$status" -eq 2 ]
	[[ "$output" == *"PLEAT_CUDA_MODEL_ORDER: 'sideways' is not forward, reverse or shuffle[:SEED]"* ]]
}

@test "model: a host pointer given to a kernel fails the launch" {
	run --separate-stderr "$MT" host-pointer
	[ "$status" -eq 1 ]
	[ "$output" = "launch: cudaErrorIllegalAddress" ]
	[[ "$stderr" == "model_test: cuda model: add_kernel (launched at tests/cuda/model_test.cu:"*"), block (0,0,0), thread (0,0,0): read of 4 bytes at 0x"*": not device memory (a host pointer?)"* ]]
}

@test "model: a write past the end of an allocation fails the launch" {
	run --separate-stderr "$MT" out-of-bounds
	[ "$status" -eq 1 ]
	[ "$output" = "launch: cudaErrorIllegalAddress" ]
	[[ "$stderr" == *"add_kernel (launched at "*"), block (3,0,0), thread (63,0,0): write of 4 bytes: "*" is in no allocation of device memory"* ]]
}

@test "model: a read of freed device memory fails the launch" {
	run --separate-stderr "$MT" use-after-free
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"add_kernel"*"read of 4 bytes: "*" is in an allocation of 1024 bytes (tests/cuda/model_test.cu:"*") freed at tests/cuda/model_test.cu:"* ]]
}

@test "model: a missing barrier is a race, and changes the result with the order" {
	run --separate-stderr "$MT" shared-race
	[ "$status" -eq 1 ]
	[ "$output" = "launch: cudaErrorLaunchFailure" ]
	[[ "$stderr" == *"racy_sum_kernel (launched at "*"race: write after read on shared memory offset "*" with no barrier between"* ]]
	sums=""
	for order in forward reverse; do
		PLEAT_CUDA_MODEL_RACECHECK=0 PLEAT_CUDA_MODEL_ORDER=$order run "$MT" shared-race
		[ "$status" -eq 0 ]
		sums="$sums ${lines[0]}"
	done
	echo "# without the race check: $sums" >&3
	[ "$sums" = " sum 9 sum 256" ]
}

@test "model: threads of different blocks writing what others read race" {
	run --separate-stderr "$MT" global-race
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"neighbour_kernel"*"race: write after read on device memory (1024 bytes from tests/cuda/model_test.cu:"* ]]
}

@test "model: a read of shared memory no thread wrote fails the launch" {
	run --separate-stderr "$MT" uninitialised
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"uninitialised_kernel"*"thread (255,0,0): reads shared memory offset "*", which no thread of the block has written"* ]]
}

@test "model: a barrier that some threads return before is an error, not a hang" {
	run --separate-stderr timeout 20 "$MT" divergent
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"divergent_kernel (launched at "*"), block (0,0,0): __syncthreads (tests/cuda/model_test.cu:"*") reached by 128 of its 256 threads; the other 128 returned"* ]]
}

@test "model: threads waiting at different barriers are an error" {
	run --separate-stderr timeout 20 "$MT" split
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"split_kernel (launched at "*"), block (0,0,0), thread ("*"): waits at __syncthreads (tests/cuda/model_test.cu:"*") while other threads of its block wait at another (tests/cuda/model_test.cu:"* ]]
}

@test "model: a launch of too many threads is refused, and the next call is clean" {
	run --separate-stderr "$MT" too-many-threads
	[ "$status" -eq 0 ]
	[ "$output" = "launch: cudaErrorInvalidConfiguration
after it: cudaSuccess" ]
	[[ "$stderr" == *"add_kernel (launched at tests/cuda/model_test.cu:"*"): block (2048,1,1) is not a valid block"* ]]
}

@test "model: host code reading device memory is stopped" {
	run --separate-stderr "$MT" host-reads-device
	[ "$status" -eq 134 ]
	[[ "$stderr" == *"host code reads 4 bytes of device memory at 0x"*": a device pointer dereferenced on the host"* ]]
}

@test "model: cudaMemcpy checks each side's kind of memory and its bounds" {
	run --separate-stderr "$MT" copy-host-as-device
	[ "$status" -eq 1 ]
	[ "$output" = "cudaMemcpy: cudaErrorInvalidValue" ]
	[[ "$stderr" == *"cudaMemcpy (tests/cuda/model_test.cu:"*"): the source 0x"*" is device memory where the call says host memory"* ]]
	run --separate-stderr "$MT" copy-past-end
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the source: 32 bytes from 0x"*" run 16 bytes past the end of an allocation of 16 bytes"* ]]
}

@test "model: cudaFree of freed memory is an error" {
	run --separate-stderr "$MT" double-free
	[ "$status" -eq 1 ]
	[ "$output" = "cudaFree: cudaErrorInvalidValue" ]
	[[ "$stderr" == *"cudaFree (tests/cuda/model_test.cu:"*"): 0x"*" was freed already, at tests/cuda/model_test.cu:"* ]]
}

@test "model: device memory never freed turns a clean exit into status 1" {
	run --separate-stderr "$MT" leak
	[ "$status" -eq 1 ]
	[ "$output" = "exiting with an allocation" ]
	[[ "$stderr" == *"leak: 1024 bytes of device memory allocated at tests/cuda/model_test.cu:"*" never freed"* ]]
	[[ "$stderr" == *"1 allocations of device memory (1024 bytes) never freed" ]]
	PLEAT_CUDA_MODEL_LEAKS=0 run "$MT" leak
	[ "$status" -eq 0 ]
}

@test "model: after a failed launch every call returns its error" {
	run "$MT" sticky
	[ "$status" -eq 1 ]
	[[ "$output" == *"first launch: cudaErrorIllegalAddress
second launch: cudaErrorIllegalAddress
cudaMalloc: cudaErrorIllegalAddress
cudaGetLastError: cudaErrorIllegalAddress" ]]
}

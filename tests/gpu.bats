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

# The CUDA backend against the CPU, one problem per method.  The GPU runs
# the same per-vertex functions, but nvcc fuses a*b+c into one rounding
# where gcc rounds twice, so each iteration may differ by an ulp or two of
# the positions (~1e-7 m at 1 m from the origin).  On a problem with one
# stable minimum these differences do not grow: 64 iterations stay within
# 64 * 1e-7 m, and we allow 1e-5 m, a thousandth of the solve's motion
# (which the test prints).  A buckling problem is left out on purpose: at
# a bifurcation an ulp may pick the other branch.
gpu_vs_cpu() {
	"$ROOT/examples/make-skirt" > "$BATS_TEST_TMPDIR/skirt.obj"
	pleat-resample -s 256 "$BATS_TEST_TMPDIR/skirt.obj" > "$BATS_TEST_TMPDIR/skirt.grid"
	"$PLEAT_TESTBIN/test_solve" shift "$BATS_TEST_TMPDIR/skirt.grid" 1 0.01 > "$BATS_TEST_TMPDIR/in.grid"
	pleat-solve -q -m "$1" -n 64 --device cpu "$BATS_TEST_TMPDIR/in.grid" > "$BATS_TEST_TMPDIR/cpu.grid"
	pleat-solve -q -m "$1" -n 64 --device cuda "$BATS_TEST_TMPDIR/in.grid" > "$BATS_TEST_TMPDIR/gpu.grid"
	run "$PLEAT_TESTBIN/test_solve" xdiff "$BATS_TEST_TMPDIR/cpu.grid" "$BATS_TEST_TMPDIR/gpu.grid"
	echo "# $1: $output" >&3
	[ "$status" -eq 0 ]
	read -r _ diff _ motion < <(echo "$output")
	awk -v d="$diff" -v m="$motion" 'BEGIN { exit !(d < 1e-5 && m > 1e-3) }'
}

@test "CUDA and CPU agree within 1e-5 m: block (seams included)" {
	gpu_vs_cpu block
}

@test "CUDA and CPU agree within 1e-5 m: chebyshev" {
	gpu_vs_cpu chebyshev
}

@test "CUDA and CPU agree within 1e-5 m: gd" {
	gpu_vs_cpu gd
}

@test "--device auto picks the GPU and says which on stderr" {
	"$ROOT/examples/make-skirt" > "$BATS_TEST_TMPDIR/skirt.obj"
	pleat-resample -s 256 "$BATS_TEST_TMPDIR/skirt.obj" > "$BATS_TEST_TMPDIR/skirt.grid"
	run --separate-stderr pleat-solve -q -n 8 -o "$BATS_TEST_TMPDIR/out.grid" "$BATS_TEST_TMPDIR/skirt.grid"
	[ "$status" -eq 0 ]
	[[ "$stderr" == "pleat-solve: running on the GPU: "*"(sm_"* ]]
}

@test "CUDA and CPU agree within 1e-5 m with a body (half-plane projection)" {
	W="$BATS_TEST_TMPDIR"
	printf 'v -1 -1 -0.01\nv 1 -1 -0.01\nv 1 1 -0.01\nv -1 1 -0.01\nf 1 2 3\nf 1 3 4\n' > "$W/floor.obj"
	"$ROOT/examples/make-skirt" > "$W/skirt.obj"
	pleat-resample -s 256 "$W/skirt.obj" > "$W/skirt.grid"
	"$PLEAT_TESTBIN/test_solve" shift "$W/skirt.grid" 1 0.01 > "$W/in.grid"
	pleat-solve -q -n 64 --device cpu --body "$W/floor.obj" "$W/in.grid" > "$W/cpu.grid"
	pleat-solve -q -n 64 --device cuda --body "$W/floor.obj" "$W/in.grid" > "$W/gpu.grid"
	run "$PLEAT_TESTBIN/test_solve" xdiff "$W/cpu.grid" "$W/gpu.grid"
	echo "# body: $output" >&3
	read -r _ diff _ motion < <(echo "$output")
	awk -v d="$diff" 'BEGIN { exit !(d < 1e-5) }'
}

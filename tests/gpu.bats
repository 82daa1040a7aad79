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
	pleat-solve -q -m "$@" -n 64 --device cpu "$BATS_TEST_TMPDIR/in.grid" > "$BATS_TEST_TMPDIR/cpu.grid"
	pleat-solve -q -m "$@" -n 64 --device cuda "$BATS_TEST_TMPDIR/in.grid" > "$BATS_TEST_TMPDIR/gpu.grid"
	run "$PLEAT_TESTBIN/test_solve" xdiff "$BATS_TEST_TMPDIR/cpu.grid" "$BATS_TEST_TMPDIR/gpu.grid"
	echo "# $*: $output" >&3
	[ "$status" -eq 0 ]
	read -r _ diff _ motion < <(echo "$output")
	awk -v d="$diff" -v m="$motion" 'BEGIN { exit !(d < 1e-5 && m > 1e-3) }'
}

@test "CUDA and CPU agree within 1e-5 m: block (seams included)" {
	gpu_vs_cpu block
}

@test "CUDA and CPU agree within 1e-5 m: block with Eq. 9 (--far-bending start)" {
	gpu_vs_cpu block --far-bending start
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

# The GPU's proximity search against the CPU's at the same positions: the
# lists must be equal bit for bit (the same pairs, the same K closest in
# the same order, the same counts and long-range block pairs), since both
# run the arithmetic of proximity_hd.h rounded the same way and a list
# keeps the K smallest keys whatever order its pairs arrive in.  Sheets
# of two panels sewn together (seams excluded from the pairs): folded,
# crumpled, and stacked eight layers deep with K = 4 (lists overflow, so
# the choice of the K closest is tested); at the paper's radius and at a
# wide one (more long-range block pairs).
@test "the GPU's proximity lists are the CPU's, bit for bit" {
	for kind in fold crumple stack; do
		"$PLEAT_TESTBIN/test_collide" sheet $kind 1 0.001 "$BATS_TEST_TMPDIR/$kind.grid"
	done
	for args in "fold 16 0.00055" "crumple 16 0.00055" "stack 4 0.00055" "crumple 16 0.004"; do
		set -- $args
		run "$TC" proximity "$BATS_TEST_TMPDIR/$1.grid" "$2" "$3"
		echo "# $args: $(echo $output)" >&3
		[ "$status" -eq 0 ]
	done
}

@test "the GPU's proximity lists are the CPU's on the dress solved without --self" {
	need_shared
	W="$BATS_TEST_TMPDIR"
	pleat-resample -s 512 "$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj" |
		pleat-solve -q -n 32 --device cpu > "$W/dress.grid"
	# the search radius pleat-solve uses at this cell (collision scale 10)
	run "$TC" proximity "$W/dress.grid" 16 0.0055
	echo "# $(echo $output)" >&3
	[ "$status" -eq 0 ]
}

# --self on both backends: a z-folded sheet of two sewn panels whose
# layers start 0.3 mm apart, inside the repulsion radius (0.8 mm at this
# 1 mm cell), so that the repulsion pushes them apart: one stable
# configuration, no buckling.  The lists are the same at the same
# positions (above); the positions differ by the rounding of fused
# multiply-adds, as in the tests above, and a pair that enters or leaves a
# list by such a difference does so at the search radius, 1.4 R, where its
# force is zero; the repulsion's gradient is continuous at R.  So the same
# 1e-5 m over 64 iterations as above, while --self itself moves the cloth
# by more than ten times that (the solve without it, printed).
@test "CUDA and CPU agree within 1e-5 m with --self (proximity search on the GPU)" {
	W="$BATS_TEST_TMPDIR"
	"$PLEAT_TESTBIN/test_collide" sheet fold 1 0.001 "$W/fold.grid"
	pleat-solve -q -n 64 --self --device cpu "$W/fold.grid" > "$W/cpu.grid"
	pleat-solve -q -n 64 --self --device cuda "$W/fold.grid" > "$W/gpu.grid"
	pleat-solve -q -n 64 --device cpu "$W/fold.grid" > "$W/free.grid"
	run "$PLEAT_TESTBIN/test_solve" xdiff "$W/cpu.grid" "$W/gpu.grid"
	echo "# self: $output" >&3
	read -r _ diff _ < <(echo "$output")
	read -r _ effect _ < <("$PLEAT_TESTBIN/test_solve" xdiff "$W/cpu.grid" "$W/free.grid")
	echo "# --self against none, on the CPU: $effect m" >&3
	awk -v d="$diff" -v f="$effect" 'BEGIN { exit !(d < 1e-5 && f > 1e-4) }'
	[ "$(pleat-collide "$W/gpu.grid" | sed 's/.* \([0-9]*\) intersecting.*/\1/')" -eq 0 ]
}

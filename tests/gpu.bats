#!/usr/bin/env bats
# The GPU suite: the CUDA backend against the CPU backend on the same
# inputs, for every method and effect of pleat-solve.
#
# PLEAT_CUDA_TARGET says what runs the kernels:
#   model        (the default) the CUDA execution model, build/model:
#                the unchanged .cu files on the CPU, every memory access
#                and barrier checked (cudamodel/model.cc); runs everywhere
#   model-fmad   the same, built with fused multiply-adds
#                (make model-fmad), as nvcc builds with CUDA_FMAD=1
#   device       the real GPU (bin/pleat-solve); skipped, with the
#                reason, where none answers
#
# The device code rounds every operation as the CPU does (no fused
# multiply-adds unless CUDA_FMAD=1; sqrt and division are IEEE on both),
# sums in the same order (the FEM by cells in the block kernel, as
# block.c; the rows' sums on the host) and reads the same per-vertex
# functions, so --device cuda must give the CPU's bytes.  Not close: the
# same.  Rounding can no longer hide a race or a missing barrier.

load common
bats_require_minimum_version 1.5.0

setup() {
	W="$BATS_TEST_TMPDIR"
	BODY_SHARED="$SHARED/bodies/female_body_dance-paused_f0.obj"
	DRESS="$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj"
	case "${PLEAT_CUDA_TARGET:-model}" in
	model | model-fmad)
		MB="$ROOT/build/${PLEAT_CUDA_TARGET:-model}"
		CUDA_SOLVE="$MB/bin/pleat-solve"
		TC="$MB/tests/test_cuda"
		[ -x "$CUDA_SOLVE" ] && [ -x "$TC" ] || {
			echo "$MB is not built: run make (or make model-fmad)" >&2
			return 1
		}
		;;
	device)
		CUDA_SOLVE="$PLEAT_BIN/pleat-solve"
		TC="$PLEAT_TESTBIN/test_cuda"
		[ -x "$TC" ] || skip "CUDA backend not built (nvcc not found)"
		run "$TC" devices
		[ "$status" -ne 3 ] || skip "$output"
		;;
	*)
		echo "PLEAT_CUDA_TARGET: '$PLEAT_CUDA_TARGET' is not model, model-fmad or device" >&2
		return 1
		;;
	esac
	FMAD=$("$TC" build)
}

fused() { [ "$FMAD" = "fused multiply-add: on" ]; }

# The inputs: the example skirt at 128 (two panels sewn by two seams),
# one panel lifted 1 cm so the seams pull and every term moves; the same
# lifted 20 cm, 13 cells, so that the seam vertices' steps are cut to a
# cell (seam_step_limit); a gathered copy; a floor under it; a z-folded
# sheet for --self.
inputs() {
	[ -e "$W/skirt.grid" ] && return
	"$ROOT/examples/make-skirt" > "$W/skirt.obj"
	pleat-resample -s 128 "$W/skirt.obj" > "$W/rest.grid"
	"$PLEAT_TESTBIN/test_solve" shift "$W/rest.grid" 1 0.01 > "$W/skirt.grid"
	"$PLEAT_TESTBIN/test_solve" shift "$W/rest.grid" 1 0.2 > "$W/lifted.grid"
	pleat-gather --shirr 0,0.3,0.1,0.7 --perturb 0.3 "$W/skirt.grid" > "$W/gathered.grid"
	# a closed slab whose top is the floor
	printf 'v %s\n' '-2 -2 -0.5' '2 -2 -0.5' '2 2 -0.5' '-2 2 -0.5' \
		'-2 -2 -0.31' '2 -2 -0.31' '2 2 -0.31' '-2 2 -0.31' > "$W/floor.obj"
	printf 'f %s\n' '1 3 2' '1 4 3' '5 6 7' '5 7 8' '1 2 6' '1 6 5' \
		'2 3 7' '2 7 6' '3 4 8' '3 8 7' '4 1 5' '4 5 8' >> "$W/floor.obj"
	"$PLEAT_TESTBIN/test_collide" sheet fold 1 0.001 "$W/fold.grid"
}

# Every case the GPU suite solves: a name, the input, pleat-solve's
# options.  Together they use every option of pleat-solve that changes
# the arithmetic (the test "every option ... is covered" checks it).
CASES='
block         skirt     -m block
spring        skirt     --model spring
far-start     skirt     --far-bending start
inner         skirt     --inner 2 --inner-rho 0 --step 0.3
gd            skirt     -m gd
chebyshev     skirt     -m chebyshev --rho 0.99
pcg           skirt     -m pcg
mg            skirt     -m mg
rho-auto      skirt     -m chebyshev --rho auto
tolerance     skirt     --tolerance 0.05
denim         skirt     --material denim --check-every 4
silk          skirt     --material silk --seam 3
custom        skirt     --stretch 800 --bend 2e-6 --poisson 0.2 --density 0.2 --shape 30
open-seams    skirt     --seam 0
seam-limit    lifted    -m block
body          skirt     --body floor.obj
self          fold      --self --collision-scale 2
safe          fold      --safe --self
safe-body     skirt     --safe --body floor.obj
safe-seams    skirt     --safe=seams --self
gather        gathered  -m block
air           skirt     --air 40
inflate       skirt     --inflate 40
fill          skirt     --fill 0.002 --fill-stiffness 2e5 --body floor.obj
gravity-pins  skirt     --gravity 0,0,-9.81 --pin 0.2,0.1,0.05 --pin 0.5,0.3
dynamic       skirt     --dynamic --dt 0.005
'

case_args() {
	local name input rest
	while read -r name input rest; do
		[ "$name" = "$1" ] && { echo "$input $rest"; return; }
	done <<< "$CASES"
	echo "no case $1" >&2
	return 1
}

# solve_both NAME ITERATIONS: the case on the CPU and on the CUDA target
# ($ORDER, when set, the model's thread order).
solve_both() {
	inputs
	local spec input
	spec=$(case_args "$1")
	input=${spec%% *}
	local args=(${spec#* })
	args=("${args[@]/#floor.obj/$W/floor.obj}")
	pleat-solve -q --device cpu -n "$2" "${args[@]}" -o "$W/cpu.grid" "$W/$input.grid"
	PLEAT_CUDA_MODEL_ORDER="${ORDER:-forward}" \
		run --separate-stderr "$CUDA_SOLVE" -q --device cuda -n "$2" "${args[@]}" \
		-o "$W/gpu.grid" "$W/$input.grid"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

# The CUDA result is the CPU's, byte for byte (32 outer iterations, four
# energy checks); with fused multiply-adds, one outer iteration is within
# 8 units in the last place of each vertex's largest coordinate: at most
# one unit per rounding of x + step in each of the 4 inner updates, times
# the inner Chebyshev weights (<= 1.4), measured at most 2.7.
agree() {
	if fused; then
		solve_both "$1" 1
		run "$PLEAT_TESTBIN/test_solve" ulps "$W/cpu.grid" "$W/gpu.grid"
		echo "# $1 (one iteration, fused multiply-adds): $output" >&3
		[ "$status" -eq 0 ]
		[[ "$output" =~ ^ulps\ ([0-9.e+-]+)$ ]]
		awk -v u="${BASH_REMATCH[1]}" 'BEGIN { exit !(u + 0 == u && u <= 8) }'
	else
		solve_both "$1" 32
		cmp "$W/cpu.grid" "$W/gpu.grid"
		# and the solve moved the cloth: a comparison of two inputs proves nothing
		run "$PLEAT_TESTBIN/test_solve" xdiff "$W/cpu.grid" "$W/$(case_args "$1" | cut -d' ' -f1).grid"
		[ "$status" -eq 0 ]
		[[ "$output" =~ ^diff\ ([0-9.e+-]+)\  ]]
		awk -v d="${BASH_REMATCH[1]}" 'BEGIN { exit !(d + 0 == d && d > 1e-5) }'
	fi
}

@test "a CUDA device answers and is described" {
	run "$TC" devices
	[ "$status" -eq 0 ]
	[[ "$output" == 0:*"(sm_"[0-9]*")" ]]
}

@test "the shared host/device arithmetic: the same bits on both sides" {
	run "$TC" hostdev 100000
	echo "# $FMAD: $output" >&3
	[ "$status" -eq 0 ]
	if ! fused; then [[ "$output" == "differ 0 of 100000 "* ]]; fi
}

@test "every option of pleat-solve that changes the arithmetic is covered here" {
	# The options that do not change a solve's numbers.
	local neutral=" --iterations --output --device --stats --progress --verbose --quiet --help --version --method --check-every "
	local missing=""
	for opt in $(pleat-solve --help | grep -o -- '--[a-z-]*' | sort -u); do
		[[ "$neutral" == *" $opt "* ]] && continue
		[[ "$CASES" == *"$opt "* ]] || missing="$missing $opt"
	done
	echo "not covered:$missing"
	[ -z "$missing" ]
}

@test "CUDA gives the CPU's bytes: block (FEM by cells, seams)" { agree block; }
@test "CUDA gives the CPU's bytes: block, spring model" { agree spring; }
@test "CUDA gives the CPU's bytes: block with Eq. 9 (--far-bending start)" { agree far-start; }
@test "CUDA gives the CPU's bytes: block, other inner iterations" { agree inner; }
@test "CUDA gives the CPU's bytes: gd" { agree gd; }
@test "CUDA gives the CPU's bytes: chebyshev" { agree chebyshev; }
@test "CUDA gives the CPU's bytes: pcg" { agree pcg; }
@test "CUDA gives the CPU's bytes: mg (its finest level on the GPU)" { agree mg; }
@test "CUDA gives the CPU's bytes: chebyshev, --rho auto" { agree rho-auto; }
@test "CUDA gives the CPU's bytes: stopped by --tolerance" { agree tolerance; }
@test "CUDA gives the CPU's bytes: denim" { agree denim; }
@test "CUDA gives the CPU's bytes: silk, stiffer seams" { agree silk; }
@test "CUDA gives the CPU's bytes: material given number by number" { agree custom; }
@test "CUDA gives the CPU's bytes: seams open" { agree open-seams; }
@test "CUDA gives the CPU's bytes: seams far from closed (steps cut to a cell)" { agree seam-limit; }
@test "CUDA gives the CPU's bytes: a body (half-plane projection)" { agree body; }
@test "CUDA gives the CPU's bytes: --self (proximity search on the GPU)" {
	agree self
	fused || [ "$(pleat-collide "$W/gpu.grid" | sed 's/.* \([0-9]*\) intersecting.*/\1/')" = 0 ]
}
@test "CUDA gives the CPU's bytes: --safe (bounds measured on the host, held on the GPU)" {
	agree safe
	fused || [ "$(pleat-collide "$W/gpu.grid" | sed 's/.* \([0-9]*\) intersecting.*/\1/')" = 0 ]
}
@test "CUDA gives the CPU's bytes: --safe taking the cloth out of a body" { agree safe-body; }
@test "CUDA gives the CPU's bytes: --safe=seams (the cloth outside the band unbounded)" { agree safe-seams; }
@test "CUDA gives the CPU's bytes: gathering" { agree gather; }
@test "CUDA gives the CPU's bytes: --air" { agree air; }
@test "CUDA gives the CPU's bytes: --inflate" { agree inflate; }
@test "CUDA gives the CPU's bytes: --fill on a body" { agree fill; }
@test "CUDA gives the CPU's bytes: gravity and pins" { agree gravity-pins; }
@test "CUDA gives the CPU's bytes: --dynamic" { agree dynamic; }

# The model runs the threads of each block, and the blocks, in the order
# asked for; a result that depended on it would be a race.  Every kernel
# runs in one of these cases.
@test "the results do not depend on the thread order (model)" {
	[[ "${PLEAT_CUDA_TARGET:-model}" == model* ]] || skip "the order is the GPU's own"
	fused && skip "the model with fused multiply-adds compares one iteration"
	for ORDER in reverse shuffle:7 shuffle:1234; do
		for c in block far-start gd chebyshev pcg mg self gather air fill dynamic; do
			solve_both "$c" 16
			cmp "$W/cpu.grid" "$W/gpu.grid" || { echo "$c in order $ORDER"; return 1; }
		done
	done
}

@test "a real garment: the Berkeley dress on its body, --self, seams (128)" {
	need_shared
	pleat-resample -s 128 "$DRESS" > "$W/dress.grid"
	local n=24
	fused && n=1
	pleat-solve -q --device cpu -n $n --self --body "$BODY_SHARED" -o "$W/cpu.grid" "$W/dress.grid"
	PLEAT_CUDA_MODEL_ORDER=reverse "$CUDA_SOLVE" -q --device cuda -n $n --self \
		--body "$BODY_SHARED" -o "$W/gpu.grid" "$W/dress.grid"
	if fused; then
		run "$PLEAT_TESTBIN/test_solve" ulps "$W/cpu.grid" "$W/gpu.grid"
		echo "# dress: $output" >&3
		[[ "$output" =~ ^ulps\ ([0-9.e+-]+)$ ]]
		awk -v u="${BASH_REMATCH[1]}" 'BEGIN { exit !(u + 0 == u && u <= 8) }'
	else
		cmp "$W/cpu.grid" "$W/gpu.grid"
	fi
}

@test "--device auto picks the GPU and says which on stderr" {
	inputs
	run --separate-stderr "$CUDA_SOLVE" -n 2 -o "$W/out.grid" "$W/skirt.grid"
	[ "$status" -eq 0 ]
	[[ "${stderr_lines[0]}" == "pleat-solve: running on the GPU: "*"(sm_"*")" ]]
	pleat-solve -q --device cpu -n 2 "$W/skirt.grid" | cmp - "$W/out.grid" || fused
}

@test "a kernel error stops the solve with the kernel's name, nothing written" {
	[[ "${PLEAT_CUDA_TARGET:-model}" == model* ]] || skip "needs the model's racy build"
	inputs
	# build/model/racy/pleat-solve: the block kernel without the barrier
	# between loading a tile and moving its vertices (tests/cuda/drop-barrier)
	RACY="$ROOT/build/model/racy/pleat-solve"
	run --separate-stderr "$RACY" -q --device cuda -n 8 -o "$W/racy.grid" "$W/skirt.grid"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ ! -e "$W/racy.grid" ]
	[[ "$stderr" == *"race: read after write on shared memory"*"block_kernel"* ]]
	[[ "$stderr" == *"pleat-solve: "*"(the last kernel launched: block_kernel)"* ]]
}

@test "a missing barrier changes the results with the thread order (model, no race check)" {
	[[ "${PLEAT_CUDA_TARGET:-model}" == model* ]] || skip "needs the model's racy build"
	inputs
	RACY="$ROOT/build/model/racy/pleat-solve"
	for order in forward reverse; do
		PLEAT_CUDA_MODEL_RACECHECK=0 PLEAT_CUDA_MODEL_ORDER=$order \
			"$RACY" -q --device cuda -n 8 -o "$W/$order.grid" "$W/skirt.grid"
	done
	run "$PLEAT_TESTBIN/test_solve" xdiff "$W/forward.grid" "$W/reverse.grid"
	echo "# forward against reverse without the barrier: $output" >&3
	[[ "$output" =~ ^diff\ ([0-9.e+-]+)\  ]]
	awk -v d="${BASH_REMATCH[1]}" 'BEGIN { exit !(d + 0 == d && d > 1e-6) }'
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
		"$PLEAT_TESTBIN/test_collide" sheet $kind 1 0.001 "$W/$kind.grid"
	done
	for args in "fold 16 0.00055" "crumple 16 0.00055" "stack 4 0.00055" "crumple 16 0.004"; do
		set -- $args
		PLEAT_CUDA_MODEL_ORDER=shuffle:3 run "$TC" proximity "$W/$1.grid" "$2" "$3"
		echo "# $args: $(echo $output)" >&3
		[ "$status" -eq 0 ]
	done
}

@test "the GPU's proximity lists are the CPU's on the dress solved without --self" {
	need_shared
	pleat-resample -s 256 "$DRESS" | pleat-solve -q -n 16 --device cpu > "$W/dress.grid"
	# the search radius pleat-solve uses at this cell (collision scale 10)
	run "$TC" proximity "$W/dress.grid" 16 0.0055
	echo "# $(echo $output)" >&3
	[ "$status" -eq 0 ]
}

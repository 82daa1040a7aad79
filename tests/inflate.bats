#!/usr/bin/env bats
# pleat-solve --air, --inflate and --fill on the paper's inflated patch: a
# double-layered square (tests/generators/make-pillow), its two layers
# sewn all around and lying flat on each other at the start.  What is
# measured (tests/unit/test_inflate.c layers) is each layer's offset
# along its rest normal, n . (x - rest), over its cloth vertices: the
# layers are apart by the sum of the two.
#
# The air and inflate runs stand the patch on a stiff elastic foundation
# (--shape 1e5 1/s², density 0.1 kg/m², so k_shape rho = 1e4 N/m³) with a
# soft membrane (--stretch 10 N/m): away from the seams a layer then sits
# where the pressure meets the foundation, at P / (k_shape rho), an
# analytic value to compare with, and 256 iterations converge (a flat
# sheet pushed along its normal is the slowest mode of the method; with
# the default cotton the layers would still be moving).

bats_require_minimum_version 1.5.0
load common

FOUNDATION="--stretch 10 --shape 1e5 --density 0.1"

setup() {
	T="$PLEAT_TESTBIN/test_inflate"
	W="$BATS_TEST_TMPDIR"
	# one thread: the machines that run the suite are shared, and the
	# CPU result is the same bytes for any thread count (tested below)
	export OMP_NUM_THREADS=1
	"$ROOT/tests/generators/make-pillow" 0.1 4 > "$W/pillow.obj"
	pleat-resample --cell 0.005 "$W/pillow.obj" > "$W/pillow.grid"
}

# median PANEL GRID: that layer's median offset along its rest normal.
median() {
	"$T" layers "$2" | awk -v p="$1" '$1 == "panel" && $2 == p ":" { print $9 }'
}

# largest PANEL GRID: that layer's largest offset.
largest() {
	"$T" layers "$2" | awk -v p="$1" '$1 == "panel" && $2 == p ":" { print $11 }'
}

# solve NAME OPTIONS...: the patch solved into $W/NAME.grid (256
# iterations); fails when the step control had to halve the step (the
# energies of the checks would not match the gradient).
solve() {
	local name=$1
	shift
	run --separate-stderr pleat-solve -n 256 "$@" -o "$W/$name.grid" "$W/pillow.grid"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *halving* ]]
}

@test "every effect's gradient is its energy's: central differences" {
	run "$T" fd
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "the air's volume shares sum to the volume under a tent" {
	run "$T" volume
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the patch is a closed double layer: two panels sewn all around" {
	run pleat-grid info "$W/pillow.grid"
	[[ "$output" == *"key panels 2"* ]]
	[[ "$output" == *"boundary 160, ghost 0, fixed 0, seam 160"* ]]
}

@test "--air pushes the layers apart, monotonically with P, at P / (k_shape rho)" {
	prev=0
	for P in 0.5 2 16 64; do
		solve "air$P" $FOUNDATION --air "$P"
		m0=$(median 0 "$W/air$P.grid")
		m1=$(median 1 "$W/air$P.grid")
		echo "# --air $P Pa: median offsets $m0 m and $m1 m, foundation's P/(k rho) $(awk -v p="$P" 'BEGIN { print p / 1e4 }') m" >&3
		# the layers move apart, symmetrically
		awk -v a="$m0" -v b="$m1" -v prev="$prev" 'BEGIN {
			exit !(a > 0 && b > 0 && a + b > prev && (a - b) ^ 2 < (1e-3 * a) ^ 2) }'
		prev=$(awk -v a="$m0" -v b="$m1" 'BEGIN { print a + b }')
		# small P: where the layer stays flat it is on the analytic value
		# (measured 0.5% under it: the seams' pull reaches in)
		if [ "$P" = 0.5 ] || [ "$P" = 2 ]; then
			awk -v a="$m0" -v p="$P" 'BEGIN { e = p / 1e4; exit !((a - e) ^ 2 < (0.02 * e) ^ 2) }'
		fi
	done
}

# separation GRID: the layers' distance at their flat middle, the sum of
# the two layers' median offsets.
separation() {
	awk -v a="$(median 0 "$1")" -v b="$(median 1 "$1")" 'BEGIN { printf "%.9g\n", a + b }'
}

# reldiff A B: |A - B| / A.
reldiff() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / a; printf "%.3g\n", d < 0 ? -d : d }'
}

@test "--inflate (fixed normals) agrees with --air at small P, not at large" {
	for P in 1 64; do
		solve "air$P" $FOUNDATION --air "$P"
		solve "inf$P" $FOUNDATION --inflate "$P"
	done
	small=$(reldiff "$(separation "$W/air1.grid")" "$(separation "$W/inf1.grid")")
	large=$(reldiff "$(separation "$W/air64.grid")" "$(separation "$W/inf64.grid")")
	echo "# separation, air against inflate: relative difference $small at 1 Pa (0.2 mm apart), $large at 64 Pa (12 mm)" >&3
	echo "# largest |x_air - x_inflate|, largest motion: $("$PLEAT_TESTBIN/test_solve" xdiff "$W/air1.grid" "$W/inf1.grid") at 1 Pa" >&3
	# measured 1e-4 at 1 Pa and 6% at 64 Pa, where the air's normals
	# follow the slope of the bulge and the fixed ones do not: 1% leaves
	# room for rounding, 3% fails when the two are the same model
	awk -v s="$small" -v l="$large" 'BEGIN { exit !(s < 0.01 && l > 0.03) }'
}

# The layer only pushes, so where the cloth touches it, it sits at D;
# between its sewn edges the cloth's bending makes it a dome that clears
# the layer everywhere else.  So the measure is the share of the vertices
# off the sewn edges (which stay at 0) that are at least 0.9 D off:
# measured 0.97 and 0.94 at --fill 1 and 3 mm after 256 iterations, 0.98
# and 0.94 after 4096, 0.89 to 1.0 at cells of 2.5 to 10 mm converged.
# The median and the top are the dome's and grow as the solve converges:
# at 1 mm the top was 1.03 mm after 256 iterations and 1.36 mm after 4096
# (1.75 mm with --rho auto), so "within 10% of D" held only short of the
# equilibrium.
held() {
	"$T" layers "$2" "$3" | awk -v p="$1" '$1 == "panel" && $2 == p ":" { print $14 }'
}

@test "--fill D holds the layers at least D off the coarse surface (90% of D, 85% of them), and less than 2 D off" {
	for D in 0.001 0.003; do
		solve "fill$D" --fill "$D"
		for p in 0 1; do
			h=$(held "$p" "$W/fill$D.grid" "$D")
			top=$(largest "$p" "$W/fill$D.grid")
			echo "# --fill $D m: layer $p: $h of the vertices off its edges at 0.9 D or more, largest offset $top m" >&3
			numeric 'h >= 0.85 && t < 2 * d' h="$h" t="$top" d="$D"
		done
	done
	# and without it the layers stay where they are
	solve plain
	[ "$(median 0 "$W/plain.grid")" = 0 ]
}

# --rho auto's estimate overshoots here: the patch converges fast (a
# stiff foundation), and a radius raised to explain the first slow
# decreases lets the energy rise.  The estimate that only grew halved the
# step one to three times on these pressures; the estimate now falls
# instead (converge.c), and the step stays.
@test "--rho auto where the energy rises: the radius falls, the step never halves, the energy is the fixed radius's" {
	for P in 0.5 64; do
		run --separate-stderr pleat-solve -n 256 $FOUNDATION --air "$P" --rho auto -o "$W/auto.grid" "$W/pillow.grid"
		[ "$status" -eq 0 ]
		echo "$stderr"
		[[ "$stderr" != *halving* ]]
		[[ "$stderr" == *", rho 0."*" (auto, lowered as the energy rose)"* ]]
		ea=$(sed -n 's/.* s: energy \([-0-9.e+]*\) J.*/\1/p' <<< "$stderr")
		run --separate-stderr pleat-solve -n 256 $FOUNDATION --air "$P" --rho 0.992 -o "$W/fixed.grid" "$W/pillow.grid"
		[ "$status" -eq 0 ]
		ef=$(sed -n 's/.* s: energy \([-0-9.e+]*\) J.*/\1/p' <<< "$stderr")
		echo "# --air $P: energy $ea J with --rho auto, $ef J with 0.992" >&3
		# measured equal to 9 digits at 64 Pa, lower at 0.5 Pa
		numeric 'a <= f + 1e-6 * (f < 0 ? -f : f)' a="$ea" f="$ef"
	done
}

# gd and pcg have no Chebyshev radius: --rho auto must change nothing.
# Lowering a radius they do not use once restarted pcg's sequence at the
# wrong place and repeated the same rejected step, and at step 0.8 pcg
# ran into the step floor.
@test "--rho auto with gd and pcg, which have no radius: the fixed radius's bytes" {
	for m in gd pcg; do
		pleat-solve -q -m "$m" --step 0.8 -n 512 $FOUNDATION --air 16 --rho auto -o "$W/auto.grid" "$W/pillow.grid"
		pleat-solve -q -m "$m" --step 0.8 -n 512 $FOUNDATION --air 16 --rho 0.992 -o "$W/fixed.grid" "$W/pillow.grid"
		cmp "$W/auto.grid" "$W/fixed.grid"
	done
}

# Near convergence g.z sinks into rounding and Polak and Ribiere's beta
# grew without bound (to 2e9 in seven iterations): pcg diverged, a NaN
# direction outlived the restart as 0 d, and the step fell to its floor.
# Powell's restart test and a restart that takes z itself: the energy of
# the other methods (block -2.08402e-07 J; pcg measured -2.08401999e-07).
@test "pcg near convergence (--air 0.5, step 0.85): no divergence, the energy block reaches" {
	run --separate-stderr pleat-solve -m pcg --step 0.85 -n 512 $FOUNDATION --air 0.5 -o "$W/pcg.grid" "$W/pillow.grid"
	echo "$stderr"
	[ "$status" -eq 0 ]
	ep=$(sed -n 's/.* s: energy \([-0-9.e+]*\) J.*/\1/p' <<< "$stderr")
	run --separate-stderr pleat-solve -n 512 $FOUNDATION --air 0.5 -o "$W/block.grid" "$W/pillow.grid"
	eb=$(sed -n 's/.* s: energy \([-0-9.e+]*\) J.*/\1/p' <<< "$stderr")
	echo "# pcg $ep J, block $eb J" >&3
	numeric 'p < b + 1e-5 * (b < 0 ? -b : b)' p="$ep" b="$eb"
}

@test "--air and --fill give the same bytes with 1 and 2 threads" {
	OMP_NUM_THREADS=1 pleat-solve -q -n 32 --air 5 --fill 0.001 "$W/pillow.grid" > "$W/a.grid"
	OMP_NUM_THREADS=2 pleat-solve -q -n 32 --air 5 --fill 0.001 "$W/pillow.grid" > "$W/b.grid"
	cmp "$W/a.grid" "$W/b.grid"
}

# bad MESSAGE OPTIONS...: exit 2, the message on stderr, nothing on stdout.
bad() {
	local msg=$1
	shift
	run --separate-stderr pleat-solve "$@" "$W/pillow.grid"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${stderr%%$'\n'*}" = "pleat-solve: $msg" ]
}

@test "option errors: exit 2 naming the option" {
	bad "--air: -1 is out of range [0, 1e+06]" --air -1
	bad "--inflate: 'much' is not a number" --inflate much
	bad "--fill: 0 is out of range [1e-06, 1]" --fill 0
	bad "--fill-stiffness: 0 is out of range [0.001, 1e+12]" --fill 0.001 --fill-stiffness 0
	bad "--air and --inflate are two models of the same pressure: give one of them" --air 1 --inflate 1
	bad "--fill-stiffness: no stuffing to stiffen: give --fill too" --fill-stiffness 1e5
}

# The GPU runs the effects too (tests/gpu.bats covers every option); here
# under the CUDA execution model, which every build has.
@test "--device cuda with air, inflation and filling: the CPU's bytes" {
	for opt in "--air 200" "--inflate 200" "--fill 0.001"; do
		pleat-solve -q --device cpu -n 16 $opt -o "$W/cpu.grid" "$W/pillow.grid"
		"$ROOT/build/model/bin/pleat-solve" -q --device cuda -n 16 $opt \
			-o "$W/gpu.grid" "$W/pillow.grid"
		cmp "$W/cpu.grid" "$W/gpu.grid"
	done
}

#!/usr/bin/env bats
# The paper's Fig. 11 and Fig. 12 on the Blender animation of a cloth
# falling on a sphere (../shared/data): frame to frame transfer lowers the
# flicker and the error for the same iterations; three levels reach a lower
# error than the finest level alone for the same cost.  Sizes are scaled
# down from the paper's so that CI stays fast; the numbers are printed.

bats_require_minimum_version 1.5.0
load common

setup() {
	W="$BATS_TEST_TMPDIR"
	D="$SHARED/blender_cloth_sphere"
}

# energy_at FILE ITERATION [LEVEL]: the energy of that check in a --stats
# file of pleat-frame.
energy_at() {
	grep "\"level\": ${3:-[0-9]*}, .*\"iteration\": $2," "$1" | sed 's/.*"energy": \([^,]*\),.*/\1/'
}

# mean_flicker FILE...: the mean over consecutive pairs of the mean wrinkle
# change (m), and the largest max.
mean_flicker() {
	cat "$@" | pleat-initialize -q --flicker |
		sed 's/.* mean=\([^ ]*\) max=\([^ ]*\) .*/\1 \2/' |
		awk '{ s += $1; n++; if ($2 > m) m = $2 } END { printf "%.4g %.4g\n", s / n, m }'
}

@test "Fig. 11: transfer from the previous frame, a lower error for the same iterations and a largest flicker at least 2x smaller (cloth on a sphere, frames 19-23)" {
	need_shared
	local n=128 size=128 f
	local solve=(-l "$size" -n "$n" --body "$D/sphere.obj")
	# the chain starts from a well solved frame 19 (1024 iterations), as a shot's chain is by
	# then; every later frame gets n iterations, transferred or cold
	pleat-frame -l "$size" -n 1024 --body "$D/sphere.obj" -o "$W/warm19.grid" "$D/frame_0019.obj"
	for f in 19 20 21 22 23; do
		pleat-frame "${solve[@]}" --stats "$W/cold$f.json" -o "$W/cold$f.grid" "$D/frame_00$f.obj"
		[ "$f" = 19 ] || pleat-frame "${solve[@]}" -p "$W/warm$((f - 1)).grid" \
			--stats "$W/warm$f.json" -o "$W/warm$f.grid" "$D/frame_00$f.obj"
	done
	read -r cold cold_max < <(mean_flicker "$W"/cold*.grid)
	read -r warm warm_max < <(mean_flicker "$W"/warm*.grid)
	echo "# Fig. 11 flicker (mean wrinkle change per frame, m): cold $cold, transfer $warm (largest: cold $cold_max, transfer $warm_max)" >&3
	# the error after n iterations: F* from 512 more iterations of the
	# transferred result; the same denominator, F(rest) - F*, for both
	pleat-solve -q -n 512 --body "$D/sphere.obj" --stats "$W/star.json" "$W/warm23.grid" > /dev/null
	for f in 20 21 22 23; do
		fc=$(energy_at "$W/cold$f.json" "$n")
		fw=$(energy_at "$W/warm$f.json" "$n")
		echo "# Fig. 11 frame $f energy after $n iterations: cold $fc J, transfer $fw J" >&3
		awk -v c="$fc" -v w="$fw" 'BEGIN { exit !(w < c) }'
	done
	f0=$(energy_at "$W/cold23.json" 0)
	fstar=$(sed 's/.*"energy": \([^,]*\),.*/\1/' "$W/star.json" | sort -g | head -1)
	awk -v z="$f0" -v s="$fstar" -v c="$fc" -v w="$fw" -v n="$n" 'BEGIN {
		printf "# Fig. 11 frame 23 relative error after %d iterations: cold %.4g, transfer %.4g (F(rest) %g, F* %g)\n",
			n, (c - s) / (z - s), (w - s) / (z - s), z, s }' >&3
	# the largest wrinkle change, the pop a viewer sees, at least halved
	# (measured 7.63 mm cold, 3.79 mm transferred); the mean is not lower
	# (measured 1.76e-4 m and 1.88e-4 m): n cold iterations leave small
	# wrinkles that change little, the transferred ones are formed and
	# follow the cloth
	awk -v c="$cold_max" -v w="$warm_max" 'BEGIN { exit !(2 * w <= c) }'
}

@test "Fig. 12: three levels reach a lower error than the finest level alone for the same cost (cloth on a sphere, frame 23, 192/384/768)" {
	need_shared
	# cost in vertex-iterations: an iteration at 384 costs 1/4 of one at
	# 768, at 192 1/16; three levels of 8 cost 8 (1/16 + 1/4 + 1) = 10.5
	# iterations at 768, the finest alone gets 11
	pleat-frame -l 192,384,768 -n 8 --body "$D/sphere.obj" --stats "$W/three.json" \
		-o "$W/three.grid" "$D/frame_0023.obj"
	pleat-frame -l 768 -n 11 --body "$D/sphere.obj" --stats "$W/one.json" \
		-o "$W/one.grid" "$D/frame_0023.obj"
	f0=$(energy_at "$W/one.json" 0 768)
	fone=$(energy_at "$W/one.json" 11 768)
	fthree=$(energy_at "$W/three.json" 8 768)
	# the relative error (F - F*) / (F(rest) - F*) is lower for the lower
	# energy whatever F* is; printed with F* >= 0 as the bound it has
	awk -v z="$f0" -v a="$fthree" -v b="$fone" 'BEGIN {
		printf "# Fig. 12 energy at 768 after the cost of 10.5-11 iterations there: F(rest) %g, three levels %g, 768 alone %g (F/F(rest): %.3g and %.3g)\n",
			z, a, b, a / z, b / z }' >&3
	awk -v a="$fthree" -v b="$fone" 'BEGIN { exit !(a < b) }'
}

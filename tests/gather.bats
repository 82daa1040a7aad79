#!/usr/bin/env bats
# Gathering: pleat-gather makes the tensor field, pleat-solve gives the
# fabric the rest shape it asks for.  Identity changes nothing bit for
# bit; a uniform field shrinks the sheet by its factor along its axis;
# extra fabric in a band wrinkles that band only, crests across the
# shirring direction; bad strokes and tensors are refused with the file,
# line or vertex.  Measurements come from tests/unit/test_gather.c.

bats_require_minimum_version 1.5.0
load common

setup() {
	T="$PLEAT_TESTBIN/test_gather"
	W="$BATS_TEST_TMPDIR"
	export OMP_NUM_THREADS=1
	# a flat 0.1 m square, 3D = pattern
	printf 'v 0 0 0\nv 0.1 0 0\nv 0.1 0.1 0\nv 0 0.1 0\nvt 0 0\nvt 0.1 0\nvt 0.1 0.1\nvt 0 0.1\nf 1/1 2/2 3/3 4/4\n' > "$W/square.obj"
}

# square N: the square resampled at N cells, into $W/sq.grid
square() {
	pleat-resample -s "$1" "$W/square.obj" > "$W/sq.grid"
}

# solved_band FACTOR ITERATIONS: the 0.1 m square at 48 cells with a band
# 3 cm wide along u through v = 5 cm, FACTOR times the fabric along u,
# lifted by 10 micrometres and solved, into $W/out.grid
solved_band() {
	square 48
	pleat-gather --shirr "0,0.05,0.03,$1" "$W/sq.grid" > "$W/g.grid"
	"$T" lift "$W/g.grid" "$W/lifted.grid" 1e-5
	pleat-solve -q -n "$2" "$W/lifted.grid" > "$W/out.grid"
}

# field_at FILE I J: the gather tensor of vertex (I, J)
field_at() {
	pleat-grid dump -c gather "$1" | awk -v i="$2" -v j="$3" '$2 == i && $3 == j { print $4, $5, $6 }'
}

@test "identity tensors: the solve is the same as without a gather channel" {
	# a strip compressed by 10%, ends pinned: it buckles
	printf 'v 0 0 0\nv 0.2 0 0\nv 0.2 0.05 0\nv 0 0.05 0\nvt 0 0\nvt 0.2 0\nvt 0.2 0.05\nvt 0 0.05\nf 1/1 2/2 3/3 4/4\n' > "$W/strip.obj"
	pleat-resample -s 48 "$W/strip.obj" > "$W/strip.grid"
	"$PLEAT_TESTBIN/test_solve" compress "$W/strip.grid" "$W/cs.grid" 0.9 1e-5
	pleat-gather --set 1,0,1 "$W/cs.grid" > "$W/id.grid"
	for model in fem spring; do
		for m in block gd; do
			pleat-solve -q -n 40 -m "$m" --model "$model" "$W/cs.grid" > "$W/plain.grid"
			pleat-solve -q -n 40 -m "$m" --model "$model" "$W/id.grid" |
				pleat-grid cat -d gather > "$W/gathered.grid"
			run "$PLEAT_TESTBIN/test_solve" xdiff "$W/plain.grid" "$W/cs.grid"
			read -r _ _ _ motion <<< "$output"
			# the solve moved: the comparison is not between two copies
			numeric 'm > 1e-4' m="$motion"
			if [ "$m$model" != blockfem ]; then
				cmp "$W/plain.grid" "$W/gathered.grid"
				continue
			fi
			# the block step takes the flat lattice's FEM by cells
			# (each triangle once), a gathered one per vertex: the
			# same forces summed in another order, so the same
			# result up to rounding (3.2e-7 m of 2.7e-3 m here)
			run "$PLEAT_TESTBIN/test_solve" xdiff "$W/plain.grid" "$W/gathered.grid"
			read -r _ diff _ _ <<< "$output"
			echo "block fem: $diff of $motion"
			numeric 'd < 1e-3 * m' d="$diff" m="$motion"
		done
	done
}

@test "identity tensors: the gathered arithmetic is the flat lattice's, bit for bit" {
	run "$T" identity
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "gathered FEM and spring gradients match central differences (1e-5)" {
	run "$T" fd
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a uniform field of 0.5 along 30 degrees: the sheet shrinks to 0.5 along it, 1 across (2%)" {
	square 32
	pleat-gather --shirr 30,0,10,0.5 "$W/sq.grid" > "$W/u.grid"
	pleat-solve -q -n 300 "$W/u.grid" > "$W/out.grid"
	run "$T" metric "$W/out.grid"
	echo "$output"
	read -r _ s1 s2 _ angle _ z <<< "$output"
	# the larger stretch is across 30 degrees: at -60
	numeric 'a > 0.98 && a < 1.02 && b > 0.49 && b < 0.51 && t > -61 && t < -59 && z < 1e-6' a="$s1" b="$s2" t="$angle" z="$z"
}

# Wrinkles are told from the sheet's overall shape by their curvature
# (the band's "bend": z's second differences along the rows).  Slopes
# (first differences) also count the whole square cupping around the
# gathered band, which grows as the solve converges: the far rows'
# slopes rose from 1/85 of the band's at 150 iterations to 1/10 at 6400
# (the fixed radius 0.992), while their curvature went from 1/90 of the
# band's at 150 to 1/28 at 400, 1/22 at 800 to 2400 and 1/26 at 6400
# (1/47 at 150 and 1/33 converged with --rho auto).
@test "gathering 2 in a band: wrinkles in the band only, crests across the shirring direction" {
	solved_band 2 150
	run "$T" band "$W/out.grid" 0.05 0.03
	echo "$output"
	read -r _ along across _ _ _ _ _ _ _ bend far <<< "$output"
	# folds with slopes of millimetres per cell in the band, twenty
	# times less curvature a band's width away; z varies along u (crests
	# run along v) several times more than across (which also sees the
	# band bulge)
	numeric 'a > 1e-3 && a > 4 * c && f < b / 20' a="$along" c="$across" b="$bend" f="$far"
}

# The band is measured by its length, not its span: the gathered square
# cups, so the middle row's ends come closer than its length (span 0.42,
# length 0.500 at the equilibrium; the span read 0.50 only while the
# solve was short of it).  Beside the band the cloth keeps its length
# and folds to the band's span; the band itself is not flat either, but
# its curvature is a third of the folds' (3.4 to 3.5 from 400 to 1600
# iterations, and 8 with the fixed radius 0.992 at 1600).
@test "shirring 0.5 in a band: it shrinks to 0.5 (5%), and the fabric it pulls in folds beside it" {
	solved_band 0.5 400
	run "$T" band "$W/out.grid" 0.05 0.03
	echo "$output"
	read -r _ _ _ _ _ _ _ _ arc _ bend _ <<< "$output"
	# rows beside the band, 2 cm from its centre line
	run "$T" band "$W/out.grid" 0.03 0.01
	echo "$output"
	read -r _ _ _ _ _ _ bspan _ barc _ bbend _ <<< "$output"
	numeric 'l > 0.475 && l < 0.525 && bs < 0.8 && bl > 0.95 && bb > 5e-4 && bb > 2 * b' \
		l="$arc" b="$bend" bs="$bspan" bl="$barc" bb="$bbend"
}

@test "a lone stroke: its tensor on the segment, the identity beyond its radius" {
	square 32
	# along u at v = 5 cm from u = 2 to 8 cm: 0.5 along, 1.5 across, radius 1 cm
	printf '# one stroke\n\n0.02 0.05 0.08 0.05 0.5 1.5 0.01  # along u\n' > "$W/s.txt"
	pleat-gather --strokes "$W/s.txt" "$W/sq.grid" > "$W/g.grid"
	# vertex (19, 19) is at (0.05, 0.05) (origin -3 cells, cell 1/320 m)
	[ "$(field_at "$W/g.grid" 19 19)" = "0.5 0 1.5" ]
	[ "$(field_at "$W/g.grid" 19 30)" = "1 0 1" ]
	# a diagonal stroke: the tensor's axes turn with it
	printf '0.02 0.02 0.08 0.08 0.5 1 0.01\n' > "$W/d.txt"
	pleat-gather --strokes "$W/d.txt" "$W/sq.grid" > "$W/g.grid"
	read -r xx xy yy <<< "$(field_at "$W/g.grid" 19 19)"
	numeric 'a > 0.7499 && a < 0.7501 && b > -0.2501 && b < -0.2499 && c > 0.7499 && c < 0.7501' a="$xx" b="$xy" c="$yy"
}

@test "the perturbation is seeded: the same seed the same bytes, another seed another field" {
	square 32
	pleat-gather --shirr 0,0.05,0.03,0.5 --perturb 0.5,0.02 --seed 7 "$W/sq.grid" > "$W/a.grid"
	pleat-gather --shirr 0,0.05,0.03,0.5 --perturb 0.5,0.02 --seed 7 "$W/sq.grid" > "$W/b.grid"
	pleat-gather --shirr 0,0.05,0.03,0.5 --perturb 0.5,0.02 --seed 8 "$W/sq.grid" > "$W/c.grid"
	cmp "$W/a.grid" "$W/b.grid"
	! cmp -s "$W/a.grid" "$W/c.grid"
	# where nothing is gathered, nothing is perturbed
	[ "$(field_at "$W/a.grid" 19 4)" = "1 0 1" ]
	# and in the band the factor 0.5 now varies
	pleat-grid dump -c gather "$W/a.grid" | awk '$3 == 19 { print $4 }' | sort -u | wc -l | {
		read -r n; [ "$n" -gt 10 ]; }
}

@test "--stretch-scale: a coarse input stretched by 1.2 along u gives 1.2 along u" {
	square 32
	"$PLEAT_TESTBIN/test_solve" compress "$W/sq.grid" "$W/st.grid" 1.2 0
	pleat-gather --stretch-scale "$W/st.grid" > "$W/g.grid"
	read -r xx xy yy <<< "$(field_at "$W/g.grid" 19 19)"
	echo "$xx $xy $yy"
	numeric 'a > 1.1999 && a < 1.2001 && b == 0 && c > 0.9999 && c < 1.0001' a="$xx" b="$xy" c="$yy"
	# composed with a pattern after it: 0.5 x 1.2 along u
	pleat-gather --stretch-scale --shirr 0,0.05,1,0.5 "$W/st.grid" > "$W/g.grid"
	read -r xx _ _ <<< "$(field_at "$W/g.grid" 19 19)"
	numeric 'a > 0.5999 && a < 0.6001' a="$xx"
}

# sheared_square: the 0.1 m square at 32 cells whose 3D shape is the
# pattern through R diag(1.2, 0.8) R^T, R a turn by 30 degrees: stretched
# by 1.2 along 30 degrees and compressed to 0.8 across, into $W/sh.grid
sheared_square() {
	awk 'BEGIN {
		c = cos(atan2(1, 1) * 4 / 6); s = sin(atan2(1, 1) * 4 / 6)
		a = 1.2 * c * c + 0.8 * s * s; b = 0.4 * c * s; d = 1.2 * s * s + 0.8 * c * c
		split("0 0 0.1 0 0.1 0.1 0 0.1", p, " ")
		for (k = 1; k <= 8; k += 2)
			printf "v %.9f %.9f 0\n", a * p[k] + b * p[k + 1], b * p[k] + d * p[k + 1]
		for (k = 1; k <= 8; k += 2)
			printf "vt %s %s\n", p[k], p[k + 1]
		print "f 1/1 2/2 3/3 4/4" }' > "$W/sheared.obj"
	pleat-resample -s 32 "$W/sheared.obj" > "$W/sh.grid"
}

@test "--stretch-scale=tension: the stretched direction kept, the compressed one at the pattern's length" {
	sheared_square
	# all: U itself, R diag(1.2, 0.8) R^T = [1.1 0.1732; 0.1732 0.9]
	pleat-gather --stretch-scale=all "$W/sh.grid" > "$W/g.grid"
	read -r xx xy yy <<< "$(field_at "$W/g.grid" 16 16)"
	echo "all: $xx $xy $yy"
	numeric '(a - 1.1)^2 < 1e-8 && (b - 0.173205)^2 < 1e-8 && (c - 0.9)^2 < 1e-8' a="$xx" b="$xy" c="$yy"
	# tension: R diag(1.2, 1) R^T = [1.15 0.0866; 0.0866 1.05]
	pleat-gather --stretch-scale=tension "$W/sh.grid" > "$W/g.grid"
	read -r xx xy yy <<< "$(field_at "$W/g.grid" 16 16)"
	echo "tension: $xx $xy $yy"
	numeric '(a - 1.15)^2 < 1e-8 && (b - 0.0866025)^2 < 1e-8 && (c - 1.05)^2 < 1e-8' a="$xx" b="$xy" c="$yy"
	# on the axes: compressed to 0.8 along u gives the identity (to the
	# rounding of the rest positions along v)
	square 32
	"$PLEAT_TESTBIN/test_solve" compress "$W/sq.grid" "$W/st.grid" 0.8 0
	pleat-gather --stretch-scale=tension "$W/st.grid" > "$W/g.grid"
	read -r xx xy yy <<< "$(field_at "$W/g.grid" 19 19)"
	echo "tension, compressed: $xx $xy $yy"
	numeric '(a - 1)^2 < 1e-12 && b^2 < 1e-12 && (c - 1)^2 < 1e-12' a="$xx" b="$xy" c="$yy"
	pleat-gather --stretch-scale "$W/st.grid" > "$W/g.grid"
	read -r xx _ _ <<< "$(field_at "$W/g.grid" 19 19)"
	numeric '(a - 0.8)^2 < 1e-8' a="$xx"
}

# seam_band FILE: checks the field of FILE against the band along the
# seams that --stretch-scale=tension leaves alone, computed here by brute
# force: a cloth vertex nearer than the coarse edge (cells: sqrt(4 a /
# sqrt 3), a the cloth vertices over the tri channel's distinct ids) to a
# seam vertex (mask bit 16) of its panel, straight in the pattern, over
# 1.0824 (the chamfer distance's largest overshoot; pleat-gather's runs
# through the panel's cloth, so where the cloth bends away a vertex
# near in a straight line can be farther there).  Prints "near N kept K
# far F scaled S".
seam_band() {
	pleat-grid dump -c mask -c panel -c tri -c gather "$1" | awk '
		$4 % 2 == 1 { n++; I[n] = $2; J[n] = $3; P[n] = $5; F[n] = $7 " " $8 " " $9
			if (!($6 in id)) { id[$6] = 1; ids++ }
			if (int($4 / 16) % 2) { ns++; SI[ns] = $2; SJ[ns] = $3; SP[ns] = $5 } }
		END {
			band = sqrt(4 * n / ids / sqrt(3))
			for (k = 1; k <= n; k++) {
				best = 1e30
				for (q = 1; q <= ns; q++)
					if (SP[q] == P[k]) {
						d = (I[k] - SI[q]) ^ 2 + (J[k] - SJ[q]) ^ 2
						if (d < best) best = d
					}
				d = sqrt(best)
				if (d < band / 1.0824) { near++; kept += F[k] == "1 0 1" }
				else if (d >= band) { far++; scaled += F[k] != "1 0 1" }
			}
			printf "near %d kept %d far %d scaled %d band %.2f\n", near, kept, far, scaled, band
		}'
}

@test "--stretch-scale=tension leaves a band along the seams alone, a coarse edge wide" {
	# the skirt's rest stretched by 1.2 along x: U > 1 almost everywhere
	"$ROOT/examples/make-skirt" > "$W/skirt.obj"
	pleat-resample -s 128 "$W/skirt.obj" > "$W/sk.grid"
	"$PLEAT_TESTBIN/test_solve" compress "$W/sk.grid" "$W/st.grid" 1.2 0
	pleat-gather --stretch-scale=tension "$W/st.grid" > "$W/g.grid"
	read -r _ near _ kept _ far _ scaled _ band < <(seam_band "$W/g.grid")
	echo "tension: near $near kept $kept far $far scaled $scaled (band $band cells)"
	[ "$near" -gt 0 ] && [ "$kept" -ge $((near - near / 100)) ] && [ "$scaled" -gt $((far / 2)) ]
	# all scales the band too
	pleat-gather --stretch-scale=all "$W/st.grid" > "$W/g.grid"
	read -r _ near _ kept _ _ _ _ _ _ < <(seam_band "$W/g.grid")
	echo "all: near $near kept $kept"
	[ "$kept" -lt $((near / 2)) ]
	# and the band is as wide in the pattern at the next level (the
	# coarse edge from the tri channel), so that the levels leave the
	# same cloth alone, to a cell at the band's edge
	pleat-resample -s 256 "$W/skirt.obj" > "$W/sk2.grid"
	"$PLEAT_TESTBIN/test_solve" compress "$W/sk2.grid" "$W/st2.grid" 1.2 0
	pleat-gather --stretch-scale=tension "$W/st2.grid" > "$W/g2.grid"
	read -r _ near2 _ kept2 _ _ _ _ _ band2 < <(seam_band "$W/g2.grid")
	cell=$(pleat-grid info "$W/st.grid" | sed -n 's/.*cell \([^ ]*\) m.*/\1/p')
	cell2=$(pleat-grid info "$W/st2.grid" | sed -n 's/.*cell \([^ ]*\) m.*/\1/p')
	echo "band: $band cells of $cell m at 128, $band2 of $cell2 m at 256; kept at 256 $kept2 of $near2"
	[ "$kept2" -ge $((near2 - near2 / 100)) ]
	numeric '(a * b / (c * d) - 1)^2 < 0.03^2' a="$band" b="$cell" c="$band2" d="$cell2"
}

@test "--stretch-scale with a part that is not all or tension: usage error; tension without a tri channel: exit 1" {
	square 8
	run --separate-stderr pleat-gather --stretch-scale=compression "$W/sq.grid"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${stderr%%$'\n'*}" = "pleat-gather: --stretch-scale: 'compression' is not all or tension" ]
	pleat-grid cat -q -d tri "$W/sq.grid" > "$W/notri.grid"
	run --separate-stderr pleat-gather --stretch-scale=tension -o "$W/out.grid" "$W/notri.grid"
	[ "$status" -eq 1 ]
	[ ! -e "$W/out.grid" ]
	[ "$stderr" = "pleat-gather: $W/notri.grid: grid 1: --stretch-scale=tension needs the 'tri' (i32 x 1) channel: run pleat-resample first" ]
}

@test "the gather channel shows in pleat-grid info and dump" {
	square 8
	pleat-gather --quilt 0.02,0.004,0.7 "$W/sq.grid" > "$W/g.grid"
	run pleat-grid info "$W/g.grid"
	[[ "$output" == *"channel gather       f32 x 3"* ]]
	pleat-grid check "$W/g.grid"
}

# stroke_error CONTENT MESSAGE: pleat-gather --strokes refuses the file
stroke_error() {
	printf "$1" > "$W/bad.txt"
	run --separate-stderr pleat-gather --strokes "$W/bad.txt" "$W/sq.grid"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "pleat-gather: $W/bad.txt:$2" ]
}

@test "bad stroke files: exit 1, the file and line named, nothing on stdout" {
	square 8
	stroke_error '0 0 1 1 0.5 1 0.01\n0 0 1 1 0.5 1\n' \
		"2: 6 numbers, expected 7 (u0 v0 u1 v1 s_along s_across radius)"
	stroke_error '# c\n0 0 1 x 0.5 1 0.01\n' "2: 'x' is not a number"
	stroke_error '0 0 1 1 -0.5 1 0.01\n' "1: s_along must be positive, not -0.5"
	stroke_error '0 0 1 1 0.5 0 0.01\n' "1: s_across must be positive, not 0"
	stroke_error '\n\n0 0 1 1 0.5 1 nan\n' "3: radius is not finite (nan)"
	stroke_error '0 0 1 1 0.5 1 0\n' "1: radius must be positive, not 0"
	stroke_error '0.1 0.2 0.1 0.2 0.5 1 0.01\n' "1: the segment has no length (both ends at 0.1 0.2)"
	stroke_error '0 0 1 1 500 1 0.01\n' "1: s_along 500 is above 100"
	run --separate-stderr pleat-gather --strokes "$W/none.txt" "$W/sq.grid"
	[ "$status" -eq 1 ]
	[ "$stderr" = "pleat-gather: cannot open $W/none.txt: No such file or directory" ]
}

@test "bad tensors and patterns on the command line: exit 2, the option named" {
	square 8
	run --separate-stderr pleat-gather --set 1,2,1 "$W/sq.grid"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "pleat-gather: --set: 1,2,1 is not positive definite"* ]]
	run --separate-stderr pleat-gather --set 1,0,nan "$W/sq.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "pleat-gather: --set: 'nan' is not a number"* ]]
	run --separate-stderr pleat-gather --shirr 0,0.05,0.03,-0.5 "$W/sq.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "pleat-gather: --shirr: the factor -0.5 is not in (0, 100]"* ]]
	run --separate-stderr pleat-gather --shirr 0,0.05 "$W/sq.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "pleat-gather: --shirr: '0,0.05' has 2 values, expected 4 or more"* ]]
	run --separate-stderr pleat-gather --perturb 2 "$W/sq.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "pleat-gather: --perturb: the amount 2 is not in [0, 1]"* ]]
}

@test "pleat-solve refuses a gather channel with a bad tensor, naming the vertex" {
	square 8
	pleat-gather --set 1,0,1 "$W/sq.grid" > "$W/g.grid"
	"$PLEAT_TESTBIN/test_solve" set "$W/g.grid" gather nan > "$W/nan.grid"
	run --separate-stderr pleat-solve -q "$W/nan.grid"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "pleat-solve: $W/nan.grid: grid 1: 'gather' at vertex ("*") is not finite (sxx nan, sxy 0, syy 1)" ]]
	"$PLEAT_TESTBIN/test_solve" set "$W/g.grid" gather -1 > "$W/neg.grid"
	run --separate-stderr pleat-solve -q "$W/neg.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "pleat-solve: $W/neg.grid: grid 1: 'gather' at vertex ("*") is not positive definite (sxx -1, sxy 0, syy 1)" ]]
	# and pleat-gather will not build on it either
	run --separate-stderr pleat-gather --shirr 0,0,1,0.5 "$W/neg.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "pleat-gather: $W/neg.grid: grid 1: 'gather' at vertex ("*") is not positive definite"* ]]
}

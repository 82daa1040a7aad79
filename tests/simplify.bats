#!/usr/bin/env bats
# pleat-simplify: flat panels collapse, every grid vertex stays within the
# tolerance of the mesh (measured, not assumed), the mesh is a manifold
# whose boundary is the full-resolution mesh's, seams meet, sequences keep
# one topology with a PC2 cache, bad input is refused.  The test grids
# and the independent checks come from tests/unit/test_simplify.c.

bats_require_minimum_version 1.5.0
load common

setup() {
	T="$PLEAT_TESTBIN/test_simplify"
	W="$BATS_TEST_TMPDIR"
}

# field NAME LINE: the value after word NAME in a "name value ..." line.
field() {
	echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# The example skirt at --size 512 (3.8 mm cells), with x = rest plus
# bumps of 1 mm, so that it is not piecewise flat.
skirt() {
	pleat-resample -s 512 "$ROOT/examples/skirt.obj" > "$W/skirt-rest.grid"
	"$T" add-x "$W/skirt-rest.grid" 1 30 > "$W/skirt.grid"
}

@test "a flat grid: two triangles per panel, at the grid's positions" {
	"$T" flat > "$W/flat.grid"
	pleat-simplify -q -o "$W/flat.obj" "$W/flat.grid"
	run "$T" check "$W/flat.grid" "$W/flat.obj" 0.1
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field triangles "$output")" -eq 4 ]
	[ "$(field vertices "$output")" -eq 8 ]
}

@test "a sine surface: every grid vertex within the tolerance, a manifold with the grid's boundary" {
	"$T" sine > "$W/sine.grid"
	last=999999999
	for tol in 0.05 0.1 0.5; do
		pleat-simplify -q --tolerance "$tol" -o "$W/sine.obj" "$W/sine.grid"
		run "$T" check "$W/sine.grid" "$W/sine.obj" "$tol"
		echo "tolerance $tol: $output"
		[ "$status" -eq 0 ]
		n=$(field triangles "$output")
		# fewer triangles than the grid's, fewer for a larger tolerance
		[ "$n" -lt "$(field full_triangles "$output")" ]
		[ "$n" -lt "$last" ]
		last=$n
	done
	# the tolerance is used, not just kept: deviation above half of it
	dev=$(field deviation_mm "$output")
	awk -v d="$dev" 'BEGIN { exit !(d > 0.25 && d <= 0.5) }'
}

@test "the check finds a moved vertex, a missing triangle and a too small tolerance" {
	"$T" sine > "$W/sine.grid"
	pleat-simplify -q -o "$W/sine.obj" "$W/sine.grid"
	run "$T" check "$W/sine.grid" "$W/sine.obj" 0.1
	[ "$status" -eq 0 ]
	run "$T" check "$W/sine.grid" "$W/sine.obj" 0.01
	[ "$status" -eq 1 ]
	[[ "$output" == *"over the tolerance"* ]]
	# the 100th vertex 1 mm up
	awk '/^v / && ++n == 100 { $4 += 0.001 } { print }' "$W/sine.obj" > "$W/moved.obj"
	run "$T" check "$W/sine.grid" "$W/moved.obj" 0.1
	[ "$status" -eq 1 ]
	[[ "$output" == *"not at their grid position"* ]]
	# the 100th triangle gone: a hole
	awk '/^f / && ++n == 100 { next } { print }' "$W/sine.obj" > "$W/hole.obj"
	run "$T" check "$W/sine.grid" "$W/hole.obj" 0.1
	[ "$status" -eq 1 ]
	[[ "$output" == *"boundary edges not on the full mesh's boundary"* ]]
	[[ "$output" == *"the triangles cover 26012.5 cells, the full mesh 26013.0"* ]]
}

@test "the mesh is the same for 1 and 2 threads, bit for bit" {
	skirt
	OMP_NUM_THREADS=1 pleat-simplify -q -o "$W/a.ply" "$W/skirt.grid"
	OMP_NUM_THREADS=2 pleat-simplify -q -o "$W/b.ply" "$W/skirt.grid"
	cmp "$W/a.ply" "$W/b.ply"
}

@test "seams meet: the seam vertices of one panel lie on the other's boundary" {
	skirt
	pleat-simplify -q -o "$W/closed.obj" "$W/skirt.grid"
	run "$T" check "$W/skirt.grid" "$W/closed.obj" 0.1
	echo "$output"
	[ "$status" -eq 0 ]
	run "$T" seams "$W/skirt.grid" "$W/closed.obj"
	echo "closed: $output"
	[ "$status" -eq 0 ]
	mean=$(field mean_cells "$output"); n=$(field seam_vertices "$output")
	far=$(field over_quarter_cell "$output")
	awk -v m="$mean" -v f="$far" -v n="$n" 'BEGIN { exit !(m < 0.05 && f <= n / 100) }'
	# as the grid holds them, the panels are a cell apart
	pleat-simplify -q --open-seams -o "$W/open.obj" "$W/skirt.grid"
	run "$T" seams "$W/skirt.grid" "$W/open.obj"
	echo "open: $output"
	mean=$(field mean_cells "$output")
	awk -v m="$mean" 'BEGIN { exit !(m > 0.5) }'
}

@test "real garments: within the tolerance at 0.05, 0.1 and 0.5 mm; seams closer" {
	need_shared
	for g in dress/draped/dress-draped-iso.obj tshirt/isotropic/tshirt-iso.obj; do
		pleat-resample -s 512 "$SHARED/berkeley_garments/$g" > "$W/rest.grid"
		"$T" add-x "$W/rest.grid" 2 40 > "$W/g.grid"
		for tol in 0.05 0.1 0.5; do
			pleat-simplify -q --tolerance "$tol" -o "$W/g.obj" "$W/g.grid"
			run "$T" check "$W/g.grid" "$W/g.obj" "$tol"
			echo "$g tolerance $tol: $output"
			[ "$status" -eq 0 ]
		done
		run "$T" seams "$W/g.grid" "$W/g.obj"
		echo "closed: $output"
		closed=$(field mean_cells "$output")
		pleat-simplify -q --open-seams -o "$W/open.obj" "$W/g.grid"
		run "$T" seams "$W/g.grid" "$W/open.obj"
		echo "open: $output"
		open=$(field mean_cells "$output")
		awk -v c="$closed" -v o="$open" 'BEGIN { exit !(c < 0.25 && c < o / 4) }'
	done
}

@test "a sequence with --pc2: one topology, every frame within the tolerance" {
	for s in 0 0.75 1.25; do "$T" sine "$s" > "$W/f$s.grid"; done
	cat "$W/f0.grid" "$W/f0.75.grid" "$W/f1.25.grid" > "$W/seq.grid"
	pleat-simplify -q --pc2 "$W/seq.pc2" --start-frame 1 -o "$W/m%02d.obj" "$W/seq.grid"
	k=0
	for s in 0 0.75 1.25; do
		run "$T" check "$W/f$s.grid" "$W/m0$k.obj" 0.1
		echo "frame $k: $output"
		[ "$status" -eq 0 ]
		union=$(field triangles "$output")
		# one frame alone needs no more triangles than the union
		pleat-simplify -q -o "$W/alone.obj" "$W/f$s.grid"
		[ "$(grep -c '^f' "$W/alone.obj")" -le "$union" ]
		k=$((k + 1))
	done
	cmp <(grep '^f' "$W/m00.obj") <(grep '^f' "$W/m02.obj")
	run "$T" pc2 "$W/seq.pc2" "$W/m00.obj" "$W/m01.obj" "$W/m02.obj"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "points $(grep -c '^v ' "$W/m00.obj") samples 3 start 1 rate 1" ]
}

@test "--pc2 reads a sequence from a pipe, writing the first mesh to --output" {
	for s in 0 1.25; do "$T" sine "$s"; done > "$W/seq.grid"
	cat "$W/seq.grid" | pleat-simplify -q --pc2 "$W/a.pc2" -o "$W/first.obj"
	pleat-simplify -q --pc2 "$W/b.pc2" -o "$W/first2.obj" "$W/seq.grid"
	cmp "$W/a.pc2" "$W/b.pc2"
	cmp "$W/first.obj" "$W/first2.obj"
}

@test "several grids need numbered outputs: an error, nothing written" {
	for s in 0 1; do "$T" sine "$s"; done > "$W/seq.grid"
	run --separate-stderr pleat-simplify -o "$W/out.obj" "$W/seq.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"seq.grid: grid 2: the input holds more than one grid"* ]]
	[ ! -e "$W/out.obj" ]
	run --separate-stderr pleat-simplify -1 -o "$W/out.obj" "$W/seq.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the input holds 2 grids"* ]]
	[ ! -e "$W/out.obj" ]
	[ -z "$(ls "$W" | grep tmp)" ]
	pleat-simplify -q -o "$W/out%d.obj" "$W/seq.grid"
	[ -s "$W/out0.obj" ] && [ -s "$W/out1.obj" ]
}

@test "--one-topology refuses grids of different layouts" {
	"$T" flat > "$W/a.grid"
	"$T" sine >> "$W/a.grid"
	run --separate-stderr pleat-simplify -1 -o "$W/m%d.obj" "$W/a.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"a.grid: grid 2: its layout"*"differs from the first grid's"* ]]
}

@test "the format: from the extension or --format; binary PLY of the same mesh" {
	"$T" sine > "$W/sine.grid"
	pleat-simplify -q -o "$W/m.obj" "$W/sine.grid"
	pleat-simplify -q -o "$W/m.PLY" "$W/sine.grid"
	pleat-simplify -q -f ply -o "$W/m.mesh" "$W/sine.grid"
	cmp "$W/m.PLY" "$W/m.mesh"
	nv=$(grep -c '^v ' "$W/m.obj"); nf=$(grep -c '^f ' "$W/m.obj")
	head -c 400 "$W/m.PLY" | grep -a -q "^format binary_little_endian 1.0$"
	head -c 400 "$W/m.PLY" | grep -a -q "^element vertex $nv$"
	head -c 400 "$W/m.PLY" | grep -a -q "^element face $nf$"
	# x y z nx ny nz s t as floats, faces as a count and three indices
	header=$(head -c 600 "$W/m.PLY" | awk '{ print } /^end_header/ { exit }' | wc -c)
	[ "$(stat -c %s "$W/m.PLY")" -eq $((header + 32 * nv + 13 * nf)) ]
	# OBJ on standard output
	pleat-simplify -q "$W/sine.grid" | cmp - "$W/m.obj"
	run --separate-stderr pleat-simplify -o "$W/m.stl" "$W/sine.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"cannot tell the format of"*"--format obj or ply"* ]]
	[ ! -e "$W/m.stl" ]
	run --separate-stderr pleat-simplify -f stl "$W/sine.grid"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
}

@test "bad --output patterns and option values are usage errors" {
	for args in "-o a%s.obj" "-o a%d%d.obj" "-t -1" "-t x" "--pc2 - -o -"; do
		run --separate-stderr pleat-simplify $args /dev/null
		echo "$args: $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
	done
	# %% is a percent sign
	"$T" flat > "$W/flat.grid"
	pleat-simplify -q -o "$W/100%%.obj" "$W/flat.grid"
	[ -s "$W/100%.obj" ]
}

@test "a grid without x: the rest surface, said once" {
	pleat-resample -s 128 "$ROOT/examples/skirt.obj" "$ROOT/examples/skirt.obj" > "$W/two.grid"
	run --separate-stderr pleat-simplify -q -o "$W/m%d.obj" "$W/two.grid"
	[ "$status" -eq 0 ]
	[ "$stderr" = "pleat-simplify: $W/two.grid: no 'x' channel: simplifying the resampled surface ('rest')" ]
	run "$T" check "$W/two.grid" "$W/m1.obj" 0.1
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "bad input: no mask, no positions, a non-finite position, no grid" {
	"$T" flat > "$W/flat.grid"
	pleat-grid cat -d mask -o "$W/nomask.grid" "$W/flat.grid"
	run --separate-stderr pleat-simplify "$W/nomask.grid"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "pleat-simplify: $W/nomask.grid: grid 1: it has no 'mask' channel (u8 x 1)" ]
	pleat-grid cat -d x -o "$W/nox.grid" "$W/flat.grid"
	run --separate-stderr pleat-simplify "$W/nox.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nox.grid: grid 1: it has neither an 'x' nor a 'rest' channel"* ]]
	pleat-resample -s 32 "$ROOT/examples/skirt.obj" > "$W/rest.grid"
	"$T" add-x "$W/rest.grid" nan 10 > "$W/nan.grid"
	run --separate-stderr pleat-simplify "$W/nan.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nan.grid: grid 1: 'x' is not finite at cloth vertex ("* ]]
	: > "$W/empty.grid"
	run --separate-stderr pleat-simplify -o "$W/out.obj" "$W/empty.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"empty.grid: no grid in the input"* ]]
	[ ! -e "$W/out.obj" ]
	head -c 2000 "$W/flat.grid" > "$W/cut.grid"
	run --separate-stderr pleat-simplify "$W/cut.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"cut.grid"* ]]
}

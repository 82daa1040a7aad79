#!/usr/bin/env bats
# pleat-simplify: flat panels collapse, every grid vertex stays within the
# tolerance of the mesh (measured, not assumed), the mesh is a manifold
# whose boundary is the full-resolution mesh's, seams are closed by a
# strip of triangles without intersections, sequences keep one topology
# with a PC2 cache, bad input is refused.  The test grids and the
# independent checks come from tests/unit/test_simplify.c; intersecting
# triangle pairs are counted by tests/unit/test_intersect.c (exact).

bats_require_minimum_version 1.5.0
load common

setup() {
	T="$PLEAT_TESTBIN/test_simplify"
	X="$PLEAT_TESTBIN/test_intersect"
	W="$BATS_TEST_TMPDIR"
}

# simplify GRID OBJ [options]: the mesh, and in $K the number of seam
# triangles its summary reports (they come after the panels' triangles).
simplify() {
	local grid=$1 obj=$2
	shift 2
	K=$(pleat-simplify "$@" -o "$obj" "$grid" 2>&1 |
	    sed -n 's/.* \([0-9]*\) seam triangles.*/\1/p')
	K=${K:-0}
}

# closed GRID OBJ [PAIRS]: the mesh is an oriented manifold, no seam edge
# is left on its boundary, no seam vertex off the boundary is unjoined,
# and no more than PAIRS (default 0) triangle pairs intersect.
closed() {
	run "$X" edges "$2"
	echo "edges: $output"
	[ "$(field flipped "$output")" -eq 0 ]
	[ "$(field nonmanifold "$output")" -eq 0 ]
	run "$T" seams "$1" "$2" "$K"
	echo "seams: $output"
	[ "$status" -eq 0 ]
	[ "$(field open_edges "$output")" -eq 0 ]
	[ "$(field unjoined_inside "$output")" -eq 0 ]
	run "$X" pairs "$2"
	echo "pairs: $output"
	[ "$(field pairs "$output")" -le "${3:-0}" ]
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
	numeric 'd > 0.25 && d <= 0.5' d="$dev"
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

@test "seams closed by construction: a manifold joined along every seam, nothing moved, no intersection" {
	skirt
	for g in skirt-rest skirt; do
		simplify "$W/$g.grid" "$W/$g.obj"
		[ "$K" -gt 0 ]
		run "$T" check "$W/$g.grid" "$W/$g.obj" 0.1 "$K"
		echo "$g: $output"
		[ "$status" -eq 0 ]
		[ "$(field seam_moved_mm "$output")" = 0.000000 ]
		closed "$W/$g.grid" "$W/$g.obj"
	done
	# as the grid holds them, the panels are apart: every seam edge open
	simplify "$W/skirt.grid" "$W/open.obj" --open-seams
	[ "$K" -eq 0 ]
	run "$T" seams "$W/skirt.grid" "$W/open.obj" 0
	echo "open: $output"
	[ "$(field open_edges "$output")" -gt 100 ]
	[ "$(field unjoined "$output")" -eq "$(field seam_vertices "$output")" ]
}

@test "a seam of no length is welded: one vertex with each panel's texture coordinates, a manifold, in OBJ, PLY and PC2" {
	"$ROOT/examples/make-gathered-skirt" > "$W/gathered.obj"
	pleat-resample -s 192 "$W/gathered.obj" | pleat-solve -q -n 16 > "$W/g.grid"
	simplify "$W/g.grid" "$W/g.obj"
	nv=$(grep -c '^v ' "$W/g.obj")
	nvt=$(grep -c '^vt ' "$W/g.obj")
	echo "v $nv vt $nvt"
	# the back seam's vertex pairs (64 at 192), each one vertex with two
	# coordinates
	[ $((nvt - nv)) -ge 60 ]
	run "$X" edges "$W/g.obj"
	echo "edges: $output"
	[ "$(field flipped "$output")" -eq 0 ]
	[ "$(field nonmanifold "$output")" -eq 0 ]
	# no more intersecting pairs than the grid has (16 iterations without
	# --self leave a few folds crossed), no triangle of no area
	grid_pairs=$(pleat-collide "$W/g.grid" | sed -n 's/.* \([0-9]*\) intersecting triangle pairs.*/\1/p')
	run "$X" pairs "$W/g.obj"
	echo "pairs: $output; grid $grid_pairs"
	[ "$(field pairs "$output")" -le "$grid_pairs" ]
	[ "$(field degenerate "$output")" -eq 0 ]
	# every face corner takes its own panel's coordinate: the seam's two
	# sides are 1.5 m apart in the pattern, the other seam's 0.1 m
	awk -F'[ /]+' '$1 == "vt" { u[++n] = $2; v[n] = $3 }
		$1 == "f" { for (i = 3; i <= 9; i += 3) for (j = i + 3; j <= 9; j += 3) {
			du = u[$i] - u[$j]; dv = v[$i] - v[$j]
			if (du * du + dv * dv > 0.25) bad++ } }
		END { exit bad > 0 }' "$W/g.obj"
	# PLY: a vertex per coordinate; the PC2 cache has the mesh file's points
	pleat-simplify -q -o "$W/g.ply" --pc2 "$W/g.pc2" "$W/g.grid"
	plyv=$(awk '/^element vertex/ { print $3; exit }' "$W/g.ply")
	[ "$plyv" -eq "$nvt" ]
	[ "$(od -An -tu4 -j16 -N4 "$W/g.pc2" | tr -d ' ')" -eq "$nvt" ]
	pleat-simplify -q -o "$W/h.obj" --pc2 "$W/h.pc2" "$W/g.grid"
	[ "$(od -An -tu4 -j16 -N4 "$W/h.pc2" | tr -d ' ')" -eq "$nv" ]
	# solved with the seams open, the twins are centimetres apart: none
	# welded (a weld would move them more than the tolerance), the strip
	# joins them; in a sequence with such a frame, none in any frame
	pleat-resample -s 192 "$W/gathered.obj" | pleat-solve -q -n 16 --seam 0 > "$W/open.grid"
	run pleat-simplify --tolerance 6 -o "$W/open.obj" "$W/open.grid"
	echo "open: $output"
	[[ $output != *welded* ]]
	[ "$(grep -c '^v ' "$W/open.obj")" -eq "$(grep -c '^vt ' "$W/open.obj")" ]
	run "$X" edges "$W/open.obj"
	echo "edges: $output"
	[[ $output == *" flipped 0 nonmanifold 0" ]]
	run pleat-simplify -o "$W/seq.obj" --pc2 "$W/seq.pc2" "$W/g.grid" "$W/open.grid"
	echo "sequence: $output"
	[[ $output != *welded* ]]
	nseq=$(grep -c '^v ' "$W/seq.obj")
	[ "$nseq" -eq "$(grep -c '^vt ' "$W/seq.obj")" ]
	[ "$(od -An -tu4 -j16 -N4 "$W/seq.pc2" | tr -d ' ')" -eq "$nseq" ]
}

@test "the checks see an open seam, a fold and a crossing" {
	skirt
	simplify "$W/skirt.grid" "$W/m.obj"
	# the last seam triangle gone: a seam edge open again
	awk -v n="$(grep -c '^f' "$W/m.obj")" '/^f / && ++k == n { next } { print }' \
		"$W/m.obj" > "$W/hole.obj"
	K=$((K - 1))
	run "$T" seams "$W/skirt.grid" "$W/hole.obj" "$K"
	echo "$output"
	[ "$(field open_edges "$output")" -ge 1 ]
	# a vertex pulled through the cloth beyond another vertex: its
	# triangles pierce the surface there
	read -r x y z < <(awk '/^v / && ++n == 4000 { print $2, $3, $4 }' "$W/m.obj")
	awk -v x="$x" -v y="$y" -v z="$z" '/^v / && ++n == 2000 {
		$2 = 2 * x - $2; $3 = 2 * y - $3; $4 = 2 * z - $4 } { print }' \
		"$W/m.obj" > "$W/fold.obj"
	run "$X" pairs "$W/fold.obj"
	echo "$output"
	[ "$(field pairs "$output")" -gt 0 ]
	# two triangles through each other, and two sharing a vertex that
	# overlap flat, and two sharing an edge folded flat onto each other
	printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0.2 0.2 -1\nv 0.2 0.2 1\nv 0.3 0.1 1\n' > "$W/x.obj"
	printf 'v 2 0 0\nv 3 0 0\nv 2 1 0\nv 2.5 0.2 0\nv 2.2 0.5 0\nv 2.6 0.2 0\n' >> "$W/x.obj"
	printf 'f 1 2 3\nf 4 5 6\nf 7 8 9\nf 7 10 11\nf 8 9 12\n' >> "$W/x.obj"
	run "$X" pairs "$W/x.obj"
	echo "$output"
	[ "$output" = "triangles 5 pairs 3 sharing_vertex 2 degenerate 0 candidates 4" ]
}

@test "real garments: seams closed without intersections the open mesh lacks, within the tolerance" {
	need_shared
	for g in dress/draped/dress-draped-iso.obj tshirt/isotropic/tshirt-iso.obj \
		 tshirt/coarse/tshirt.obj; do
		pleat-resample -s 512 "$SHARED/berkeley_garments/$g" > "$W/rest.grid"
		"$T" add-x "$W/rest.grid" 2 40 > "$W/g.grid"
		for tol in 0.05 0.5; do
			simplify "$W/g.grid" "$W/g.obj" --tolerance "$tol"
			run "$T" check "$W/g.grid" "$W/g.obj" "$tol" "$K"
			echo "$g tolerance $tol: $output"
			[ "$status" -eq 0 ]
		done
		# the resampled surface may hold intersections of its own: the
		# seams add none
		pleat-simplify -q --open-seams -o "$W/open.obj" "$W/rest.grid"
		open=$(field pairs "$("$X" pairs "$W/open.obj")")
		simplify "$W/rest.grid" "$W/r.obj"
		closed "$W/rest.grid" "$W/r.obj" "$open"
		simplify "$W/g.grid" "$W/g.obj"
		run "$T" seams "$W/g.grid" "$W/g.obj" "$K"
		echo "bumped: $output"
		[ "$(field open_edges "$output")" -eq 0 ]
		[ "$(field unjoined_inside "$output")" -eq 0 ]
	done
}

@test "leaves that would intersect other cloth are split back towards the grid" {
	need_shared
	# At 2 mm the quadtree's leaves flatten folds that lie closer than
	# that to other cloth: the merged triangles pass through it.
	local g n s open allowed
	for g in dress/draped/dress-draped-iso.obj tshirt/isotropic/tshirt-iso.obj; do
		n=$(basename "$g" .obj)
		pleat-resample -q -s 512 "$SHARED/berkeley_garments/$g" > "$W/$n.grid"
		run "$X" pairs <(pleat-simplify -q --tolerance 0 --open-seams "$W/$n.grid")
		[ "$(field pairs "$output")" -eq 0 ]
		for open in "" --open-seams; do
			pleat-simplify -q --tolerance 2 $open --allow-intersections \
				-o "$W/a.obj" "$W/$n.grid"
			allowed=$(field pairs "$("$X" pairs "$W/a.obj")")
			simplify "$W/$n.grid" "$W/m.obj" --tolerance 2 $open
			run "$X" pairs "$W/m.obj"
			echo "$n $open: $allowed pairs allowed, refined: $output"
			[ "$allowed" -gt 0 ]
			[ "$(field pairs "$output")" -eq 0 ]
			# still within the tolerance, and a closed manifold
			run "$T" check "$W/$n.grid" "$W/m.obj" 2 "$K"
			echo "$output"
			[ "$status" -eq 0 ]
			[ -n "$open" ] || closed "$W/$n.grid" "$W/m.obj"
		done
		# the summary says nothing is left; --progress, how it got there
		run --separate-stderr pleat-simplify --progress --tolerance 2 -o "$W/m.obj" "$W/$n.grid"
		echo "$stderr"
		[[ "$stderr" == *"refined "[1-9]*" times where the mesh intersected itself, "*"; 0 intersecting pairs left"* ]]
		[[ "$stderr" != *"pairs left)"* ]]
	done
	# a sequence: one topology free of them in every frame
	"$T" add-x "$W/$n.grid" 2 40 > "$W/b.grid"
	cat "$W/$n.grid" "$W/b.grid" > "$W/seq.grid"
	pleat-simplify -q --tolerance 2 --pc2 "$W/seq.pc2" -o "$W/f%d.obj" "$W/seq.grid"
	for s in 0 1; do
		run "$X" pairs "$W/f$s.obj"
		echo "frame $s: $output"
		[ "$(field pairs "$output")" -eq 0 ]
	done
}

@test "strip triangles that cross the cloth are mended by flipping the strip's rungs" {
	need_shared
	# The coarse T-shirt at 768: the greedy strip leaves triangles
	# through the panels beside it (8 pairs); no leaf can be split there
	# (seam vertices are kept at the grid's resolution).  The dress at
	# 512: a fan of strip triangles folded over a seam's end (1 pair),
	# which takes two flips in a row.
	pleat-resample -q -s 768 "$SHARED/berkeley_garments/tshirt/coarse/tshirt.obj" > "$W/t.grid"
	pleat-resample -q -s 512 --smooth "$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj" > "$W/d.grid"
	local g allowed
	for g in t d; do
		pleat-simplify -q --allow-intersections -o "$W/a.obj" "$W/$g.grid"
		allowed=$(field pairs "$("$X" pairs "$W/a.obj")")
		run --separate-stderr pleat-simplify --progress -o "$W/m.obj" "$W/$g.grid"
		echo "$stderr" | grep refined
		[[ "$stderr" == *"refined 0 times where the mesh intersected itself, "[1-9]*" strip rungs flipped; 0 intersecting pairs left"* ]]
		K=$(echo "$stderr" | sed -n 's/.* \([0-9]*\) seam triangles.*/\1/p')
		echo "$g: $allowed pairs allowed"
		[ "$allowed" -gt 0 ]
		# a closed manifold, every seam vertex still joined across
		closed "$W/$g.grid" "$W/m.obj"
		# the panels' triangles are those of the unmended mesh
		cmp <(grep '^f' "$W/a.obj" | head -n -"$K") <(grep '^f' "$W/m.obj" | head -n -"$K")
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

@test "a sequence with --pc2: the seams closed alike in every frame" {
	skirt
	"$T" add-x "$W/skirt-rest.grid" 2 20 > "$W/skirt2.grid"
	cat "$W/skirt.grid" "$W/skirt2.grid" > "$W/seq.grid"
	K=$(pleat-simplify --pc2 "$W/seq.pc2" -o "$W/m%d.obj" "$W/seq.grid" 2>&1 |
	    sed -n 's/.* \([0-9]*\) seam triangles.*/\1/p')
	[ "$K" -gt 0 ]
	cmp <(grep '^f' "$W/m0.obj") <(grep '^f' "$W/m1.obj")
	k=0
	for g in skirt skirt2; do
		run "$T" check "$W/$g.grid" "$W/m$k.obj" 0.1 "$K"
		echo "frame $k: $output"
		[ "$status" -eq 0 ]
		closed "$W/$g.grid" "$W/m$k.obj"
		k=$((k + 1))
	done
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
	run --separate-stderr pleat-simplify -q --open-seams -o "$W/m%d.obj" "$W/two.grid"
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

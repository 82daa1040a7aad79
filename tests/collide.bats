#!/usr/bin/env bats
# Collisions: the body's closest points and inside test against brute
# force and the analytic sphere, the half-planes, the proximity search
# against brute force on folded and crumpled sheets, the exact triangle
# tests, and pleat-collide against brute-force counts.  Inputs and
# references come from tests/unit/test_collide.c.

bats_require_minimum_version 1.5.0
load common

setup() {
	T="$PLEAT_TESTBIN/test_collide"
	W="$BATS_TEST_TMPDIR"
	BODY="$SHARED/bodies/female_body_dance-paused_f0.obj"
	DRESS="$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj"
}

# field NAME LINE: the value after the word NAME in LINE.
field() {
	echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

# count WORDS LINE: the number just before WORDS in a pleat-collide line.
count() {
	echo "$2" | sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p"
}

# A sheet of two panels sewn together, 1 mm cells: sheet KIND SEED.
sheet() {
	"$T" sheet "$1" "$2" 0.001 "$W/$1$2.grid"
}

@test "closest points are a brute-force search's, bit for bit, on six kinds of body" {
	for kind in sphere inverted soup open two degenerate; do
		"$T" body-obj $kind > "$W/$kind.obj"
		run "$T" closest "$W/$kind.obj" 400
		echo "$kind: $output"
		[ "$status" -eq 0 ]
		[ "$output" = "points 400 mismatches 0" ]
	done
}

@test "closest points on the posed ARCSim body are a brute-force search's" {
	need_shared
	run "$T" closest "$BODY" 200
	echo "$output"
	[ "$output" = "points 200 mismatches 0" ]
}

@test "the hierarchical winding number is within 0.1 of the exact sum and never flips a side" {
	for kind in sphere inverted open two; do
		"$T" body-obj $kind > "$W/$kind.obj"
		run "$T" winding "$W/$kind.obj" 1500
		echo "$kind: $output"
		[ "$(field disagree "$output")" -eq 0 ]
		numeric 'e < 0.1' e="$(field maxerr "$output")"
	done
}

@test "on the posed ARCSim body too (sixteen overlapping shells)" {
	need_shared
	run "$T" winding "$BODY" 1500
	echo "$output"
	[ "$(field disagree "$output")" -eq 0 ]
	numeric 'e < 0.1' e="$(field maxerr "$output")"
}

@test "the winding number carried along a segment is the exact sums' difference, or unsure" {
	for kind in sphere inverted two soup; do
		"$T" body-obj $kind > "$W/$kind.obj"
		run "$T" step "$W/$kind.obj" 2000
		echo "$kind: $output"
		set -- $output
		[ "$2" -eq 1 ]          # closed
		[ "$8" -eq 0 ]          # never wrong, on random segments
		[ "${16}" -eq 0 ]       # nor through corners and edges
		[ "$6" -le 20 ]         # random segments: nearly all answered,
		[ "${10}" -gt 100 ]     # and over 100 of them cross
		[ "${14}" -gt 1000 ]    # through a corner or an edge: mostly
		[ "${18}" -gt 100 ]     # unsure; the answers count crossings
	done
	# with a hole the number varies off the triangles too: not carried
	for kind in open degenerate; do
		"$T" body-obj $kind > "$W/$kind.obj"
		run "$T" step "$W/$kind.obj" 10
		set -- $output
		[ "$2" -eq 0 ]
	done
}

@test "on the posed ARCSim body too (closed, sixteen overlapping shells)" {
	need_shared
	run "$T" step "$BODY" 300
	echo "$output"
	set -- $output
	[ "$2" -eq 1 ]
	[ "$8" -eq 0 ]
	[ "${16}" -eq 0 ]
	[ "${10}" -gt 20 ]
}

@test "buried triangles: the winding number at every test point agrees with the walk" {
	"$T" body-obj two > "$W/two.obj"
	run "$T" buried "$W/two.obj"
	echo "$output"
	[ "$(field mismatches "$output")" -eq 0 ]
	[ "$(field buried "$output")" -gt 100 ]
}

@test "buried triangles of the posed ARCSim body: the walk's, the winding number's and body.h's count" {
	need_shared
	run "$T" buried "$BODY"
	echo "$output"
	[ "$output" = "triangles 26842 buried 9643 mismatches 0" ]
}

@test "sphere: inside iff nearer the centre than the radius; planes radial, through the closest point" {
	for kind in sphere inverted soup; do
		"$T" body-obj $kind > "$W/$kind.obj"
		run "$T" sphere "$W/$kind.obj" 0.3
		echo "$kind: $output"
		[ "$(field wrong-side "$output")" -eq 0 ]
		# a facet's normal is within pi/24 (0.131) of the radial direction
		numeric 'a < 0.131' a="$(field worst-normal "$output")"
		# the plane is n . c + 0.4 mm, to float rounding at 0.3 m
		numeric 'p < 1e-7' p="$(field worst-plane "$output")"
	done
}

@test "overlapping shells: the overlap is inside (winding 2), depth to the outer surface" {
	"$T" body-obj two > "$W/two.obj"
	# spheres of 0.3 m about x = -0.2 and 0.2: the origin is in both, its
	# nearest outer surface is the circle where they meet, 0.224 m away
	# (the buried parts of the spheres are 0.1 m away)
	run "$T" point "$W/two.obj" 0 0 0
	echo "$output"
	[ "$(field inside "$output")" -eq 1 ]
	numeric 'w > 1.9 && w < 2.1 && d > 0.18 && d < 0.2237' \
		w="$(field winding "$output")" d="$(field depth "$output")"
	run "$T" point "$W/two.obj" 0 0 0.25
	[ "$(field inside "$output")" -eq 0 ]
}

@test "a sphere with a hole: inside and outside are still told apart away from the hole" {
	"$T" body-obj open > "$W/open.obj"
	run "$T" point "$W/open.obj" 0 0 0
	[ "$(field inside "$output")" -eq 1 ]
	run "$T" point "$W/open.obj" 0 0 -0.29
	[ "$(field inside "$output")" -eq 1 ]
	run "$T" point "$W/open.obj" 0.2 0.2 0.2
	[ "$(field inside "$output")" -eq 0 ]
	run "$T" point "$W/open.obj" 0 0 0.35
	[ "$(field inside "$output")" -eq 0 ]
}

@test "the draped dress is on its body: distances as MANIFEST.md measured, no vertex inside" {
	need_shared
	run "$T" distances "$BODY" "$DRESS"
	echo "$output"
	# MANIFEST.md: p1 = 1.0 mm, p50 = 12 mm, max = 140 mm
	numeric 'a > 0.9e-3 && a < 1.1e-3 && b > 11e-3 && b < 13e-3 && c > 0.135 && c < 0.145' \
		a="$(field p1 "$output")" b="$(field p50 "$output")" c="$(field max "$output")"
	[ "$(field inside "$output")" -eq 0 ]
}

@test "the draped dress, resampled, has no vertex inside its body" {
	need_shared
	pleat-resample -s 512 -o "$W/dress.grid" "$DRESS"
	run pleat-collide --no-intersections -b "$BODY" "$W/dress.grid"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(count "vertices deeper" "$output")" -eq 0 ]
}

@test "the posed body moved 2 cm into the draped dress: pleat-collide counts what brute force counts" {
	need_shared
	awk '$1 == "v" { printf "v %.9g %s %.9g\n", $2 + 0.02, $3, $4 + 0.02; next }
	     { print }' "$BODY" > "$W/moved.obj"
	pleat-resample -s 256 "$DRESS" | pleat-solve -q -n 1 -o "$W/dress.grid"
	ref=$("$T" inside "$W/dress.grid" "$W/moved.obj" 0.0001)
	run pleat-collide --no-intersections -b "$W/moved.obj" "$W/dress.grid"
	echo "$ref | $output"
	[ "$status" -eq 0 ]
	[ "$(count "vertices deeper" "$output")" -eq "$(field inside "$ref")" ]
	[ "$(field inside "$ref")" -gt 1000 ]
}

@test "projecting onto the half-planes takes every vertex out of a convex body" {
	"$T" body-obj small > "$W/small.obj"
	for k in flat crumple; do
		sheet $k 1
		run "$T" project "$W/${k}1.grid" "$W/small.obj" "$W/p.grid"
		echo "$output"
		[ "$(field inside "$output")" -gt 100 ]
		run pleat-collide --no-intersections --depth 0 -b "$W/small.obj" "$W/p.grid"
		echo "$output"
		[ "$(count "vertices deeper" "$output")" -eq 0 ]
	done
}

@test "proximity search: exactly the brute-force pairs on folded and crumpled sheets, across panels" {
	for s in "fold 1" "crumple 1" "crumple 2" "crumple 3" "stack 1"; do
		set -- $s
		sheet $1 $2
		run "$T" proximity "$W/$1$2.grid" 16 0.00055
		echo "$s: $output"
		[ "$status" -eq 0 ]
		[ "$(field pairs "$output")" -eq "$(field brute "$output")" ]
		[ "$(field pairs "$output")" -gt 50 ]
		[ "$(field cross "$output")" -gt 10 ]     # pairs across panels
		[ "$(field long "$output")" -gt 0 ]       # long-range block pairs
		[ "$(field wrong-lists "$output")" -eq 0 ]
		[ "$(field listed-neighbours "$output")" -eq 0 ]
		[ "$(field overflow "$output")" -eq 0 ]
	done
}

@test "proximity search: the two sides of a seam are neighbours, not colliding pairs" {
	# a flat sheet searched 1.5 cells wide: every pair in range is a grid
	# neighbour, on a panel or across the seam
	sheet flat 1
	run "$T" proximity "$W/flat1.grid" 16 0.0015
	echo "$output"
	[ "$(field pairs "$output")" -eq 0 ]
	[ "$(field brute "$output")" -eq 0 ]
	# without the seam channel the two sides are strangers, and collide
	pleat-grid cat -d seam "$W/flat1.grid" > "$W/noseam.grid"
	run "$T" proximity "$W/noseam.grid" 16 0.0015
	echo "$output"
	[ "$(field pairs "$output")" -gt 20 ]
	[ "$(field pairs "$output")" -eq "$(field cross "$output")" ]
	[ "$(field pairs "$output")" -eq "$(field brute "$output")" ]
	[ "$(field wrong-lists "$output")" -eq 0 ]
}

@test "proximity search at the bound: the K closest are kept and the overflow is reported" {
	# eight layers 0.15 mm apart: many vertices have more than 4 pairs
	sheet stack 1
	run "$T" proximity "$W/stack1.grid" 4 0.00055
	echo "$output"
	[ "$(field overflow "$output")" -gt 50 ]
	[ "$(field overflow "$output")" -eq "$(field brute-overflow "$output")" ]
	[ "$(field wrong-lists "$output")" -eq 0 ]   # each list: the 4 closest
	run pleat-collide --search 0.00055 -k 4 "$W/stack1.grid"
	echo "$output"
	[ "$(count "vertices over 4" "$output")" -gt 50 ]
}

@test "proximity lists and checker output do not depend on the thread count" {
	sheet crumple 2
	a=$(OMP_NUM_THREADS=1 "$T" proximity "$W/crumple2.grid" 16 0.00055)
	b=$(OMP_NUM_THREADS=2 "$T" proximity "$W/crumple2.grid" 16 0.00055)
	c=$(OMP_NUM_THREADS=3 "$T" proximity "$W/crumple2.grid" 5 0.00055)
	d=$(OMP_NUM_THREADS=1 "$T" proximity "$W/crumple2.grid" 5 0.00055)
	echo "$a"; echo "$b"
	[ "$a" = "$b" ]
	[ "$c" = "$d" ]
	"$T" body-obj small > "$W/small.obj"
	a=$(OMP_NUM_THREADS=1 pleat-collide --list --search 0.00055 -b "$W/small.obj" "$W/crumple2.grid")
	b=$(OMP_NUM_THREADS=2 pleat-collide --list --search 0.00055 -b "$W/small.obj" "$W/crumple2.grid")
	[ "$a" = "$b" ]
}

@test "pleat-collide counts the intersecting triangle pairs a brute-force test counts" {
	for s in "flat 1" "fold 1" "crumple 1" "crumple 2" "stack 1"; do
		set -- $s
		sheet $1 $2
		ref=$("$T" intersections "$W/$1$2.grid")
		run pleat-collide "$W/$1$2.grid"
		echo "$s: $ref | $output"
		[ "$status" -eq 0 ]
		[ "$(count "intersecting" "$output")" -eq "$(field brute "$ref")" ]
		[ "$(count "sharing a grid vertex" "$output")" -eq "$(field shared "$ref")" ]
		[ "$(count "triangles" "$output")" -eq "$(field triangles "$ref")" ]
		# the classes add up to the whole
		sum=$(echo "$output" | sed 's/.*of which \(.* apart\).*/\1/' |
		      awk -F', ' '{ for (i = 1; i <= NF; i++) { split($i, w, " "); s += w[1] } print s }')
		[ "$sum" -eq "$(count "intersecting" "$output")" ]
	done
	# the crumpled sheet cuts itself, the flat one does not: the test can fail
	[ "$(field brute "$("$T" intersections "$W/crumple1.grid")")" -gt 50 ]
	[ "$(field brute "$("$T" intersections "$W/flat1.grid")")" -eq 0 ]
	# --list: a line per pair
	run pleat-collide --list "$W/crumple1.grid"
	[ "$(echo "$output" | grep -c '^  intersecting ')" -eq "$(count "intersecting" "${lines[0]}")" ]
}

@test "pleat-collide's pairs and those sharing a vertex are an independent exact count's" {
	for s in "crumple 1" "crumple 2" "stack 1"; do
		set -- $s
		sheet $1 $2
		run pleat-collide "$W/$1$2.grid"
		# the grid's own triangles, as a mesh (tolerance 0: nothing merges
		# on these sheets)
		pleat-simplify -q --tolerance 0 --open-seams -o "$W/m.obj" "$W/$1$2.grid"
		ref=$("$PLEAT_TESTBIN/test_intersect" pairs "$W/m.obj")
		echo "$s: $ref | $output"
		[ "$(count "intersecting" "$output")" -eq "$(field pairs "$ref")" ]
		[ "$(count "sharing a grid vertex" "$output")" -eq "$(field sharing_vertex "$ref")" ]
		[ "$(field sharing_vertex "$ref")" -gt 0 ]
	done
}

@test "after a move the pairs recounted near the moved vertices, with the rest kept, are a full recount's" {
	for s in "fold 1" "crumple 1" "stack 1"; do
		set -- $s
		sheet $1 $2
		run "$T" update "$W/$1$2.grid" 8
		echo "$s: $output"
		[ "$status" -eq 0 ]
		[ "$(field wrong "$output")" -eq 0 ]
		# every round changed the pairs, and there are many
		[ "$(field changed "$output")" -eq 7 ]
		[ "$(field to "$output")" -gt 500 ]
	done
}

@test "the pairs with a triangle of a given tail are the full count's that have one" {
	# --safe counts only the seams' strip's pairs once the cloth is free
	for s in "crumple 1" "crumple 2" "stack 1"; do
		set -- $s
		sheet $1 $2
		run "$T" touching "$W/$1$2.grid"
		echo "$s: $output"
		[ "$status" -eq 0 ]
		[ "$(field wrong "$output")" -eq 0 ]
		# pairs on both sides of the split
		[ "$(field tail "$output")" -gt 20 ]
		[ "$(field tail "$output")" -lt "$(field pairs "$output")" ]
	done
}

@test "pleat-collide counts the vertices inside the body a brute-force test counts" {
	"$T" body-obj small > "$W/small.obj"
	for s in "flat 1" "fold 1" "crumple 1" "crumple 2"; do
		set -- $s
		sheet $1 $2
		ref=$("$T" inside "$W/$1$2.grid" "$W/small.obj" 0.0001)
		run pleat-collide --no-intersections -b "$W/small.obj" "$W/$1$2.grid"
		echo "$s: $ref | $output"
		[ "$(count "vertices deeper" "$output")" -eq "$(field inside "$ref")" ]
		[ "$(field inside "$ref")" -gt 10 ]
	done
	run pleat-collide --list --no-intersections -b "$W/small.obj" "$W/flat1.grid"
	[ "$(echo "$output" | grep -c '^  inside ')" -eq "$(count "vertices deeper" "${lines[0]}")" ]
}

@test "orientation tests are exact, on near-coplanar points too" {
	run "$T" orient 20000
	echo "$output"
	[ "$(field wrong "$output")" -eq 0 ]
	[ "$(field zero "$output")" -gt 1000 ]   # the exact path is exercised
	[ "$(field inexact "$output")" -gt 1000 ]   # and the one for rounded differences
	run "$T" triangles
	echo "$output"
	[ "$(field wrong "$output")" -eq 0 ]
}

@test "the repulsion gradient is the energy's; projection leaves nothing behind a plane" {
	run "$T" repel
	echo "$output"
	numeric 'g < 1e-2 && p < 1e-6' \
		g="$(field worst-gradient "$output")" p="$(field worst-projection "$output")"
}

@test "positions: x when there is one, else rest, and the line says which" {
	sheet flat 1
	run pleat-collide "$W/flat1.grid"
	[[ "$output" == *": grid 1: positions x, 960 cloth vertices"* ]]
	pleat-grid cat -d x "$W/flat1.grid" > "$W/rest.grid"
	run pleat-collide "$W/rest.grid"
	[[ "$output" == *": grid 1: positions rest, 960 cloth vertices"* ]]
	run pleat-collide -c nosuch "$W/rest.grid"
	[ "$status" -eq 1 ]
	[[ "$output" == *"rest.grid: grid 1 has no 'nosuch' channel"* ]]
}

@test "a body that cannot be read, is empty or has a NaN vertex: exit 1, the file named, nothing on stdout" {
	sheet flat 1
	F="$FIXTURES/collide"
	for b in "$W/nosuch.obj:cannot open $W/nosuch.obj" \
		 "$W:cannot open $W: Is a directory" \
		 "$F/empty.obj:$F/empty.obj: no mesh in the input (it is empty)" \
		 "$F/vertices-only.obj:$F/vertices-only.obj: no faces" \
		 "$F/nan-vertex.obj:$F/nan-vertex.obj: line 3: coordinate 'nan' is not a finite number"; do
		run --separate-stderr pleat-collide -b "${b%%:*}" "$W/flat1.grid"
		echo "$b: $stderr"
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[[ "$stderr" == "pleat-collide: ${b#*:}"* ]]
	done
}

@test "pleat-collide: usage errors exit 2 with nothing on stdout" {
	for args in "--depth x" "--depth -1" "-k 0" "-k 65" "--search 0" "--bogus" "-b"; do
		run --separate-stderr pleat-collide $args
		echo "$args: $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == *"Try 'pleat-collide --help'"* ]]
	done
	run pleat-collide --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: pleat-collide"* ]]
}

@test "an open body: pleat-solve and pleat-collide warn with its count of open edges; closed ones do not" {
	pleat-resample -q -s 32 "$ROOT/examples/skirt.obj" > "$W/g.grid"
	# the sphere less its north pole's fan: the 48 edges of the first ring
	"$T" body-obj open > "$W/open.obj"
	local want="$W/open.obj: the body is not closed: 48 open edges"
	run --separate-stderr pleat-solve -q -n 1 --body "$W/open.obj" -o "$W/s.grid" "$W/g.grid"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == "pleat-solve: warning: $want;"* ]]
	run --separate-stderr pleat-collide -q --body "$W/open.obj" -o /dev/null "$W/g.grid"
	[ "$status" -eq 0 ]
	[[ "$stderr" == "pleat-collide: warning: $want;"* ]]
	# closed: one sphere, its triangles as a soup, two overlapping
	local kind
	for kind in sphere soup two inverted; do
		"$T" body-obj $kind > "$W/$kind.obj"
		run --separate-stderr pleat-solve -q -n 1 --body "$W/$kind.obj" -o "$W/s.grid" "$W/g.grid"
		echo "$kind: $stderr"
		[ "$status" -eq 0 ]
		[[ "$stderr" != *"not closed"* ]]
	done
}

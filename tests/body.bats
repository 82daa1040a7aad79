#!/usr/bin/env bats
# pleat-solve --body: no cloth vertex ends inside the body (the paper's
# half-planes, Eq. 10), measured with pleat-collide; without the body the
# same solves do go inside, so the tests can fail.

bats_require_minimum_version 1.5.0
load common

setup() {
	W="$BATS_TEST_TMPDIR"
	# a UV sphere, radius 5 cm, centre (0.1, 0.1, 0.03): it pokes 2 cm
	# through a flat 0.2 m sheet at z = 0
	awk 'BEGIN { R = 0.05; n = 24; m = 48; pi = atan2(0, -1)
		print "v", 0.1, 0.1, 0.03 + R
		for (i = 1; i < n; i++) for (j = 0; j < m; j++) {
			t = pi * i / n; p = 2 * pi * j / m
			print "v", 0.1 + R * sin(t) * cos(p), 0.1 + R * sin(t) * sin(p), 0.03 + R * cos(t) }
		print "v", 0.1, 0.1, 0.03 - R
		for (j = 0; j < m; j++) print "f", 1, 2 + j, 2 + (j + 1) % m
		for (i = 0; i < n - 2; i++) for (j = 0; j < m; j++) {
			a = 2 + i * m + j; b = 2 + i * m + (j + 1) % m
			print "f", a, a + m, b + m; print "f", a, b + m, b }
		s = 2 + (n - 1) * m
		for (j = 0; j < m; j++) print "f", s, 2 + (n - 2) * m + (j + 1) % m, 2 + (n - 2) * m + j }' > "$W/sphere.obj"
	printf 'v 0 0 0\nv 0.2 0 0\nv 0.2 0.2 0\nv 0 0.2 0\nvt 0 0\nvt 0.2 0\nvt 0.2 0.2\nvt 0 0.2\nf 1/1 2/2 3/3 4/4\n' > "$W/sheet.obj"
}

# inside FILE BODY: the number of cloth vertices deeper than 0.1 mm
inside() {
	pleat-collide --no-intersections -b "$2" "$1" |
		sed 's/.* \([0-9]*\) vertices deeper than.*/\1/'
}

@test "a sheet pushed against a sphere: none deeper than 0.1 mm after the solve" {
	pleat-resample -s 96 "$W/sheet.obj" > "$W/sheet.grid"
	before=$(inside "$W/sheet.grid" "$W/sphere.obj")
	run --separate-stderr pleat-solve --body "$W/sphere.obj" -n 128 -o "$W/out.grid" "$W/sheet.grid"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"cloth vertices started inside $W/sphere.obj (deepest 2"*" mm): pushed out"* ]]
	after=$(inside "$W/out.grid" "$W/sphere.obj")
	echo "# inside before $before, after $after" >&3
	[ "$before" -gt 1000 ]
	[ "$after" -eq 0 ]
}

@test "every method and a pcg solve keep the sheet out of the sphere" {
	pleat-resample -s 64 "$W/sheet.obj" > "$W/sheet.grid"
	for m in gd chebyshev block pcg; do
		pleat-solve -q -m "$m" -n 64 --body "$W/sphere.obj" "$W/sheet.grid" > "$W/$m.grid"
		[ "$(inside "$W/$m.grid" "$W/sphere.obj")" -eq 0 ]
	done
}

@test "a real garment on its body (Berkeley dress, ARCSim mannequin): none inside" {
	need_shared
	body="$SHARED/bodies/female_body_dance-paused_f0.obj"
	pleat-resample -s 512 "$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj" > "$W/dress.grid"
	pleat-solve -q --body "$body" "$W/dress.grid" > "$W/with.grid"
	pleat-solve -q "$W/dress.grid" > "$W/without.grid"
	with=$(inside "$W/with.grid" "$body")
	without=$(inside "$W/without.grid" "$body")
	echo "# deeper than 0.1 mm after 256 iterations: $with with the body, $without without" >&3
	[ "$with" -eq 0 ]
	[ "$without" -gt 0 ]
}

# A sheet folded in two, its layers 0.3 mm apart, lying 0.05 mm over a
# box: both layers start within the 0.4 mm push-out (cells of 0.25 mm,
# scale 1).  Projected each on its own, both would land on the plane
# 0.35 mm up, one on the other; pushed out as a stack (push.c), the top
# layer goes out with the bottom one and stays 0.3 mm above it.
@test "layers of cloth on the body are pushed out together: their order and gap kept" {
	printf '%s\n' 'v 0 0 0' 'v 0.0495 0 0' 'v 0.0495 0 0.0003' 'v 0 0 0.0003' \
		'v 0 0.01 0' 'v 0.0495 0.01 0' 'v 0.0495 0.01 0.0003' 'v 0 0.01 0.0003' \
		'vt 0 0' 'vt 0.0495 0' 'vt 0.0505 0' 'vt 0.1 0' \
		'vt 0 0.01' 'vt 0.0495 0.01' 'vt 0.0505 0.01' 'vt 0.1 0.01' \
		'f 1/1 2/2 6/6 5/5' 'f 2/2 3/3 7/7 6/6' 'f 3/3 4/4 8/8 7/7' > "$W/fold.obj"
	# the box: x -0.01..0.06, y -0.01..0.02, z -0.02..-0.00005
	printf '%s\n' 'v -0.01 -0.01 -0.02' 'v 0.06 -0.01 -0.02' 'v 0.06 0.02 -0.02' \
		'v -0.01 0.02 -0.02' 'v -0.01 -0.01 -0.00005' 'v 0.06 -0.01 -0.00005' \
		'v 0.06 0.02 -0.00005' 'v -0.01 0.02 -0.00005' \
		'f 1 4 3' 'f 1 3 2' 'f 5 6 7' 'f 5 7 8' 'f 1 2 6' 'f 1 6 5' \
		'f 2 3 7' 'f 2 7 6' 'f 3 4 8' 'f 3 8 7' 'f 4 1 5' 'f 4 5 8' > "$W/box.obj"
	pleat-resample -q -s 400 "$W/fold.obj" > "$W/fold.grid"
	OMP_NUM_THREADS=2 pleat-solve -q -n 0 --body "$W/box.obj" -o "$W/out.grid" "$W/fold.grid"
	OMP_NUM_THREADS=1 pleat-solve -q -n 0 --body "$W/box.obj" -o "$W/one.grid" "$W/fold.grid"
	cmp "$W/out.grid" "$W/one.grid"
	[ "$(inside "$W/out.grid" "$W/box.obj")" -eq 0 ]
	# columns below 170 are the bottom layer (pattern u < 0.0408 m), above
	# 230 the top (u > 0.0558 m), away from the fold between them
	read -r bottom top < <(pleat-grid dump -c x "$W/out.grid" | awk '
		$2 < 170 && (nb == 0 || $6 > b) { b = $6; nb = 1 }
		$2 > 230 && (nt == 0 || $6 < t) { t = $6; nt = 1 }
		END { printf "%.7f %.7f\n", b, t }')
	echo "# highest bottom-layer vertex $bottom m, lowest top-layer vertex $top m" >&3
	# the bottom layer on the plane 0.35 mm up, the top 0.3 mm above it
	awk -v b="$bottom" -v t="$top" 'BEGIN { exit !(b > 0.000349 && b < 0.000351 &&
		t - b > 0.000299 && t - b < 0.000301) }'
}

# The draped dress at 1024 cells on the posed body: much of it lies
# within the 2 mm push-out, pleats in layers.  Each vertex projected on
# its own, the start had 405 pairs of crossing triangles, from a rest
# surface with none.
@test "the dress pushed out of its body: no crossing triangles at the start" {
	need_shared
	body="$SHARED/bodies/female_body_dance-paused_f0.obj"
	pleat-resample -q -s 1024 "$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj" > "$W/dress.grid"
	[ "$(pleat-collide -q "$W/dress.grid" | sed 's/.* \([0-9]*\) intersecting.*/\1/')" -eq 0 ]
	pleat-solve -q -n 0 --body "$body" -o "$W/start.grid" "$W/dress.grid"
	run pleat-collide -q -b "$body" "$W/start.grid"
	echo "# $output" >&3
	[[ "$output" == *" 0 intersecting triangle pairs "*" 0 vertices deeper than"* ]]
}

@test "a body per grid of a sequence; too few bodies is an error naming the grid" {
	pleat-resample -s 64 "$W/sheet.obj" "$W/sheet.obj" > "$W/two.grid"
	pleat-solve -q -n 8 --body "$W/sphere.obj" --body "$W/sphere.obj" "$W/two.grid" > "$W/out.grid"
	[ "$(pleat-grid info "$W/out.grid" | grep -c ': grid [12]:')" -eq 2 ]
	run --separate-stderr pleat-solve -q -n 8 -o "$W/three.grid" --body "$W/sphere.obj" --body "$W/sphere.obj" "$W/two.grid" "$W/two.grid"
	[ "$status" -eq 1 ]
	[ "$stderr" = "pleat-solve: $W/two.grid: grid 1: no body for it: it is grid 3 of the input, and 2 --body were given" ]
	[ ! -e "$W/three.grid" ]
}

@test "a body that cannot be read, is empty or has NaN: exit 1 naming the file, nothing written" {
	pleat-resample -s 32 "$W/sheet.obj" > "$W/sheet.grid"
	run --separate-stderr pleat-solve --body "$W/missing.obj" -o "$W/out.grid" "$W/sheet.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "pleat-solve: cannot open $W/missing.obj: "* ]]
	: > "$W/empty.obj"
	run --separate-stderr pleat-solve --body "$W/empty.obj" -o "$W/out.grid" "$W/sheet.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "pleat-solve: $W/empty.obj"* ]]
	printf 'v 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n' > "$W/nan.obj"
	run --separate-stderr pleat-solve --body "$W/nan.obj" -o "$W/out.grid" "$W/sheet.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "pleat-solve: $W/nan.obj"* ]]
	[ ! -e "$W/out.grid" ]
}

#!/usr/bin/env bats
# pleat-resample: exact positions on an analytic case, panels and seams on
# real garments, sequences, ghost bands and bad input.

bats_require_minimum_version 1.5.0
load common

setup() {
	T="$PLEAT_TESTBIN/test_resample"
	W="$BATS_TEST_TMPDIR"
	"$T" square-obj > "$W/square.obj"
}

# field NAME LINE: the value after word NAME in a "name value ..." line.
field() {
	echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

garments() {
	local d="$SHARED/berkeley_garments"
	echo "$d/dress/draped/dress-draped-iso.obj 11"
	echo "$d/tshirt/isotropic/tshirt-iso.obj 6"
	echo "$d/tshirt/coarse/tshirt.obj 6"
}

@test "a flat 1 m square: exact positions, exactly the vertices inside, its area" {
	for size in 7 64 300 1000; do
		pleat-resample -s "$size" "$W/square.obj" > "$W/sq.grid"
		run "$T" square-check "$W/sq.grid"
		echo "size $size: $output"
		[ "$status" -eq 0 ]
	done
}

@test "--cell gives the cell size asked for" {
	pleat-resample --cell 0.01 "$W/square.obj" > "$W/sq.grid"
	run "$T" square-check "$W/sq.grid"
	[ "$status" -eq 0 ]
	grep -a -q '^cell 0.01$' "$W/sq.grid"
	grep -a -q '^size 107 107$' "$W/sq.grid"
}

@test "levels of sizes N and 2N nest: same origin, half the cell, 2w-1 vertices" {
	pleat-resample -s 256 "$W/square.obj" > "$W/a.grid"
	pleat-resample -s 512 "$W/square.obj" > "$W/b.grid"
	oa=$(grep -a -m1 '^origin' "$W/a.grid"); ob=$(grep -a -m1 '^origin' "$W/b.grid")
	[ "$oa" = "$ob" ]
	read -r _ wa ha < <(grep -a -m1 '^size' "$W/a.grid")
	read -r _ wb hb < <(grep -a -m1 '^size' "$W/b.grid")
	[ "$wb" -eq $((2 * wa - 1)) ]
	[ "$hb" -eq $((2 * ha - 1)) ]
}

@test "reads standard input and writes --output" {
	pleat-resample -s 16 < "$W/square.obj" > "$W/a.grid"
	pleat-resample -s 16 -o "$W/b.grid" - < "$W/square.obj"
	# the source key names the input; everything else is identical
	cmp <(grep -av '^source\|^checksum' "$W/a.grid") <(grep -av '^source\|^checksum' "$W/b.grid")
}

@test "panels equal the UV islands of the real garments, at every vertex" {
	need_shared
	while read -r obj want; do
		pleat-resample -s 256 "$obj" > "$W/g.grid"
		run "$T" panels "$W/g.grid"
		echo "$obj: $output panels, expected $want"
		[ "$output" -eq "$want" ]
		grep -a -q "^panels $want\$" "$W/g.grid"
	done < <(garments)
}

@test "seam partners on the real garments are symmetric" {
	need_shared
	while read -r obj _; do
		pleat-resample -s 1024 "$obj" > "$W/g.grid"
		run "$T" seams "$W/g.grid" 95
		echo "$obj: $output"
		[ "$status" -eq 0 ]
	done < <(garments)
}

@test "a sequence of frames gives one grid per frame with one layout" {
	need_shared
	d="$SHARED/blender_cloth_sphere"
	pleat-resample -s 64 "$d/frame_0001.obj" "$d/frame_0002.obj" "$d/frame_0013.obj" > "$W/seq.grid"
	run "$PLEAT_TESTBIN/test_grid" count "$W/seq.grid"
	[ "$output" = 3 ]
	[ "$(grep -a -c '^frame ' "$W/seq.grid")" -eq 3 ]
	# the same layout: only rest (and the keys naming the frame) differ
	pleat-grid dump -c mask -c tri "$W/seq.grid" | awk '{ $1 = ""; print }' | sort | uniq -c | awk '$1 != 3 { bad++ } END { exit bad }'
}

@test "a frame whose pattern differs is an error naming it" {
	sed 's/^vt 1 1$/vt 1 0.9/' "$W/square.obj" > "$W/other.obj"
	run --separate-stderr pleat-resample -s 8 "$W/square.obj" "$W/other.obj"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"other.obj: its pattern (faces or texture coordinates) differs from"* ]]
}

@test "a mesh without texture coordinates is refused with the reason" {
	printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' > "$W/novt.obj"
	run --separate-stderr pleat-resample "$W/novt.obj"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"novt.obj"*"pleat needs the sewing pattern as texture coordinates"* ]]
}

@test "texture coordinates not in metres draw a warning, --uv-scale fixes it" {
	awk '/^vt/ { print "vt", $2 * 100, $3 * 100; next } { print }' "$W/square.obj" > "$W/cm.obj"
	run --separate-stderr pleat-resample -s 8 -o "$W/g.grid" "$W/cm.obj"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"do not look like metres"* ]]
	run --separate-stderr pleat-resample -q -s 8 --uv-scale 0.01 -o "$W/g.grid" "$W/cm.obj"
	[ -z "$stderr" ]
	run "$T" square-check "$W/g.grid"
	[ "$status" -eq 0 ]
}

@test "the ghost band lies past sewn edges at the given angle" {
	# Two unit squares sewn along x = 1 in 3D, laid apart in the pattern.
	cat > "$W/two.obj" <<-'OBJ'
	v 0 0 0
	v 1 0 0
	v 1 1 0
	v 0 1 0
	v 2 0 0
	v 2 1 0
	vt 0 0
	vt 1 0
	vt 1 1
	vt 0 1
	vt 2 0
	vt 3 0
	vt 3 1
	vt 2 1
	f 1/1 2/2 3/3 4/4
	f 2/5 5/6 6/7 3/8
	OBJ
	pleat-resample --cell 0.1 -g 3 --ghost-angle 90 "$W/two.obj" > "$W/g.grid"
	# ghosts: 3 columns past each sewn edge, 11 rows each, and the quarter
	# discs of radius 3 cells around the four ends of the sewn edges
	n=$(pleat-grid info "$W/g.grid" | grep -o 'ghost [0-9]*' | cut -d' ' -f2)
	[ "$n" -eq $((66 + 4 * 11)) ]
	# at 90 degrees both bands rise along +z (the front of both panels)
	# from the sewn edge at x = 1, as high as they are far from the edge
	pleat-grid dump -a -c mask -c rest "$W/g.grid" | awk '$4 == 4' > "$W/ghosts"
	[ "$(wc -l < "$W/ghosts")" -eq "$n" ]
	awk '{ if ($5 < 0.9999 || $5 > 1.0001 || $7 < 0.0999 || $7 > 0.3001 || $6 < -1e-4 || $6 > 1.0001) bad++ }
	     END { exit bad }' "$W/ghosts"
	# the ghost three cells right of the first panel's edge, mid-height
	# (pattern u = 1.3, v = 0.5: column 19, row 11) is 0.3 m up
	awk '$2 == 19 && $3 == 11 { f = 1; if ($7 < 0.2999 || $7 > 0.3001 || $6 < 0.4999 || $6 > 0.5001) exit 1 } END { exit !f }' "$W/ghosts"
	# with no ghost band there are none
	pleat-resample --cell 0.1 "$W/two.obj" | pleat-grid info | grep -q 'ghost 0,'
}

@test "sewn squares: every vertex on the sewn edge is a seam vertex, open edges are not" {
	printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 2 0\nvt 3 0\nvt 3 1\nvt 2 1\nf 1/1 2/2 3/3 4/4\nf 2/5 5/6 6/7 3/8\n' > "$W/two.obj"
	pleat-resample --cell 0.1 "$W/two.obj" > "$W/g.grid"
	# seam vertices: the columns at u = 1 and u = 2, 11 rows each, and their
	# partners are mirror images (distance across the seam 0 on the edge)
	pleat-grid dump -c mask -c seam "$W/g.grid" | awk -v ox=-0.3 '
		$4 % 32 >= 16 { n++; u = ox + $2 * 0.1; if (u < 0.95 || (u > 1.05 && u < 1.95) || u > 2.05) bad++ }
		END { if (n != 22) bad++; exit bad }'
}

@test "bad numbers and conflicting options are usage errors" {
	run --separate-stderr pleat-resample -s 0 "$W/square.obj"
	[ "$status" -eq 2 ]; [[ "$stderr" == *"--size: 0 is out of range"* ]]
	run --separate-stderr pleat-resample --cell nan "$W/square.obj"
	[ "$status" -eq 2 ]; [[ "$stderr" == *"--cell: 'nan' is not a number"* ]]
	run --separate-stderr pleat-resample -s 8 --cell 0.1 "$W/square.obj"
	[ "$status" -eq 2 ]; [[ "$stderr" == *"--size and --cell exclude each other"* ]]
	run --separate-stderr pleat-resample --ghost-all "$W/square.obj"
	[ "$status" -eq 2 ]; [ -z "$output" ]
}

@test "a grid too large for the format is refused before allocating" {
	run --separate-stderr pleat-resample -s 1048576 "$W/square.obj"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"too large"* ]]
	[ -z "$output" ]
}

# The threshold.  On a surface with one tangent plane on both sides of
# every coarse edge (the tube's strips meet as arcs of one circle), the
# angle between neighbouring grid triangles is the curvature times about
# a cell wherever they lie, on one coarse triangle or across an edge:
# measured, the largest across is 1.00 times the largest inside on the
# resampled rest and 0.96 after the 16 iterations.  Any crease left at
# the edges adds to the angles across them, and at 512 cells (32 a
# strip, 0.7 degrees a cell) 10% more than inside is a crease of 0.09
# degrees: the flat strips keep 21 of their 22.5 degrees (21.2 across,
# 3.8 inside), Phong tessellation with the paper's shape factor of 3/4
# everywhere 4.8 across against 1.4 inside, and even 1/2 everywhere (the
# factor of a gentle bend, a little short of this one) 1.29 against 0.90.
@test "the smooth rest surface (the default): a tube of 16 flat strips, solved briefly, bends no more across the coarse edges than inside the triangles; --flat, far more" {
	"$T" tube 16 > "$W/tube.obj"
	ratio() {
		pleat-resample -q -s 512 "$@" "$W/tube.obj" | pleat-solve -q -n 16 > "$W/t.grid"
		out=$("$T" facets "$W/t.grid")
		echo "${*:-default}: $out" >&2
		awk -v i="$(field inside "$out")" -v a="$(field across "$out")" \
			'BEGIN { if (i > 0.5) print a / i }'
	}
	smooth=$(ratio)
	flat=$(ratio --flat)
	numeric 's <= 1.1 && f > 2' s="$smooth" f="$flat"
	[ "$(ratio --smooth)" = "$smooth" ]
	# the header names the surface; the flat one has no key
	pleat-resample -q -s 64 "$W/tube.obj" | pleat-grid info | grep -qx '  key rest-surface phong2'
	[ -z "$(pleat-resample -q -s 64 --flat "$W/tube.obj" | pleat-grid info | grep 'rest-surface')" ]
	# the last of --smooth and --flat counts
	[ -z "$(pleat-resample -q -s 64 --smooth --flat "$W/tube.obj" | pleat-grid info | grep 'rest-surface')" ]
	pleat-resample -q -s 64 --flat --smooth "$W/tube.obj" | pleat-grid info | grep -qx '  key rest-surface phong2'
}

@test "the smooth rest surface passes through the coarse vertices; an open boundary across a bend keeps part of its crease" {
	"$T" cylinder 8 > "$W/cyl.obj"
	pleat-resample -s 128 --flat "$W/cyl.obj" > "$W/flat.grid"
	pleat-resample -s 128 "$W/cyl.obj" > "$W/smooth.grid"
	flat=$("$T" facets "$W/flat.grid")
	smooth=$("$T" facets "$W/smooth.grid")
	echo "flat: $flat"; echo "smooth: $smooth"
	# flat strips: no bend inside a coarse triangle, 180/8 degrees across
	# its edges
	numeric 'i < 0.01 && a > 22.4 && a < 22.6' i="$(field inside "$flat")" \
		a="$(field across "$flat")"
	# smooth: bent inside instead; half a cylinder's sides have the
	# normals of their own strips only, so the strip along each keeps
	# part of its crease (6.7 degrees), the others none
	numeric 'a < f / 2 && i > 0.5' i="$(field inside "$smooth")" \
		a="$(field across "$smooth")" f="$(field across "$flat")"
	# the coarse vertices are on the surface: the grid vertices at the
	# strips' corners (16 cells a strip, from the 4 cells of padding) are
	# where the flat surface has them, to float rounding
	corners() {
		pleat-grid dump -c rest "$1" | awk '($2 - 4) % 16 == 0 && $3 == 4 {
			printf "%d %d %.6f %.6f %.6f\n", $2, $3, $4, $5, $6 }'
	}
	[ "$(corners "$W/flat.grid" | wc -l)" -eq 9 ]
	cmp <(corners "$W/flat.grid") <(corners "$W/smooth.grid")
}

# A Phong patch along an edge depends on that edge's two corners only,
# the same from both triangles: no gap, measured exactly 0 (within a
# picometre allows the sums to be taken in another order).  Seams are
# edges whose two triangles belong to different panels.
@test "the smooth rest surface has no gap along any coarse edge of the real garments, seams included" {
	need_shared
	garments | while read -r g _; do
		out=$("$T" watertight "$g")
		echo "$g: $out"
		numeric 'e > 800 && s > 80 && gap <= 1e-12' e="$(field edges "$out")" \
			s="$(field seams "$out")" gap="$(field gap "$out")"
	done
}

# The ghost band continues the surface's tangent plane at the sewn edge:
# the angle between the cloth's last grid triangles and the band's first
# is then the curvature times a cell, as inside (measured 0.82 against
# 0.86 degrees); the band along the flat triangle's plane from the
# smooth surface's edge met it at 11.5 degrees, about the half of 22.5
# by which the strip's plane turns from the surface's at its edge.
@test "the ghost band continues the smooth rest surface past a seam" {
	"$T" tube 16 > "$W/tube.obj"
	pleat-resample -q -s 512 -g 2 "$W/tube.obj" > "$W/g.grid"
	pleat-grid info "$W/g.grid" | grep -q 'ghost [1-9]'
	out=$("$T" facets "$W/g.grid")
	echo "$out"
	numeric 'g <= 1.1 * i && i > 0.5' g="$(field ghost "$out")" i="$(field inside "$out")"
	# flat: the band continues each strip's plane exactly
	pleat-resample -q -s 512 -g 2 --flat "$W/tube.obj" > "$W/f.grid"
	out=$("$T" facets "$W/f.grid")
	echo "flat: $out"
	numeric 'g < 0.01' g="$(field ghost "$out")"
}

# same-layout A B: the grids of A and B have the same seams, boundaries,
# panels, ghost band and rest positions.
same_layout() {
	for c in seam mask panel rest; do
		cmp <(pleat-grid dump -c $c "$1") <(pleat-grid dump -c $c "$2") || return 1
	done
}

@test "--weld: a garment cut apart into panels gets back the welded original's seams and ghosts" {
	cut="$ROOT/tests/fixtures/cut-apart.awk"
	awk -f "$cut" "$ROOT/examples/skirt.obj" > "$W/cut.obj"
	[ "$(grep -c '^v ' "$W/cut.obj")" -gt "$(grep -c '^v ' "$ROOT/examples/skirt.obj")" ]
	pleat-resample -s 128 -g 2 "$ROOT/examples/skirt.obj" > "$W/a.grid"
	# cut apart: no seams at all
	pleat-resample -s 128 -g 2 "$W/cut.obj" > "$W/b.grid"
	[ -z "$(pleat-grid dump -c mask "$W/b.grid" | awk '$4 >= 16')" ]
	run ! same_layout "$W/a.grid" "$W/b.grid"
	# welded: the original's layout, bit for bit
	pleat-resample -s 128 -g 2 --weld 0.01 "$W/cut.obj" > "$W/c.grid"
	same_layout "$W/a.grid" "$W/c.grid"
	# the panels' copies 0.2 mm apart: welded within 1 mm, not within 0.01
	awk '/^v / { $2 += 0.0002 * sin(NR); $3 += 0.0002 * cos(NR) } { print }' \
		"$W/cut.obj" > "$W/jitter.obj"
	pleat-resample -s 128 -g 2 --weld 1 "$W/jitter.obj" > "$W/d.grid"
	cmp <(pleat-grid dump -c seam "$W/a.grid") <(pleat-grid dump -c seam "$W/d.grid")
	cmp <(pleat-grid dump -c mask "$W/a.grid") <(pleat-grid dump -c mask "$W/d.grid")
	pleat-resample -s 128 -g 2 --weld 0.01 "$W/jitter.obj" > "$W/e.grid"
	run ! cmp <(pleat-grid dump -c mask "$W/a.grid") <(pleat-grid dump -c mask "$W/e.grid")
}

@test "--weld on the real garments cut apart: the welded originals' seams, darts and sleeves too" {
	need_shared
	garments | while read -r g _; do
		awk -f "$ROOT/tests/fixtures/cut-apart.awk" "$g" > "$W/cut.obj"
		pleat-resample -s 256 -g 1 "$g" > "$W/a.grid"
		pleat-resample -s 256 -g 1 --weld 0.01 "$W/cut.obj" > "$W/c.grid"
		same_layout "$W/a.grid" "$W/c.grid"
	done
}

@test "--weld: bad values are usage errors; frames must keep their vertices" {
	for v in -1 x ""; do
		run --separate-stderr pleat-resample --weld "$v" "$W/square.obj"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
	done
	awk -f "$ROOT/tests/fixtures/cut-apart.awk" "$ROOT/examples/skirt.obj" > "$W/cut.obj"
	run --separate-stderr pleat-resample -s 64 --weld 0.01 -o "$W/seq.grid" \
		"$W/cut.obj" "$ROOT/examples/skirt.obj"
	[ "$status" -eq 1 ]
	[ ! -e "$W/seq.grid" ]
	[[ "$stderr" == *"skirt.obj: it has 112 vertices, $W/cut.obj 126: --weld needs the same vertices in every frame"* ]]
}

@test "the rest surface has no intersections the coarse mesh lacks: sharp folds rounded to the cell" {
	need_shared
	# the draped dress's knife pleats: grid triangles cutting across folds
	# of 170 to 180 degrees pass through each other unless rounded
	g="$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj"
	run --separate-stderr pleat-resample --progress -s 512 -o "$W/dress.grid" "$g"
	echo "$stderr"
	[ "$status" -eq 0 ]
	line=$(echo "$stderr" | grep 'at sharp folds')
	[ "$(echo "$line" | sed 's/.*: \([0-9]*\) intersecting.*/\1/')" -gt 0 ]
	# moved by less than a cell (5 mm at this size)
	mm=$(echo "$line" | sed 's/.*at most \([0-9.e+-]*\) mm.*/\1/')
	awk -v m="$mm" 'BEGIN { exit !(m > 0 && m < 5) }'
	run pleat-collide "$W/dress.grid"
	echo "$output"
	[[ "$output" == *" 0 intersecting triangle pairs"* ]]
}

#!/usr/bin/env bats
# pleat-normalmap: MikkTSpace frames against Blender's, maps of analytic
# surfaces, the round trip through a MikkTSpace shader, dilation, the
# PNG files themselves and bad input.  Maps are read back with libpng by
# build/tests/test_normalmap.

bats_require_minimum_version 1.5.0
load common

# The grids are made once for the whole file, in $BATS_FILE_TMPDIR ($G),
# and only read by the tests.
#
# flat.obj: two flat panels, the second mirrored in texture space,
# rigidly moved; texture coordinates in [0, 1], the pattern 0.2 m per
# unit.  The grid has 256 cells across (0.7 mm); flat.grid is unwrinkled,
# sine.grid has a 1.5 mm wave of 2 cm wavelength along the panels'
# normal.  solved.grid: the example skirt (curved panels, seams), solved
# briefly for real wrinkles; skirt.grid the same before solving.
# curved.grid: the tangent fixture's mesh (a seam, a mirrored island, a
# fold, a zero-area texture triangle), solved briefly.
setup_file() {
	local T="$PLEAT_TESTBIN/test_normalmap" G="$BATS_FILE_TMPDIR"
	"$T" flat-obj > "$G/flat.obj"
	pleat-resample -s 256 --uv-scale 0.2 "$G/flat.obj" > "$G/resampled.grid"
	"$T" add-x "$G/resampled.grid" "$G/flat.grid" 0
	"$T" add-x "$G/resampled.grid" "$G/sine.grid" 0.0015
	pleat-resample -s 256 "$ROOT/examples/skirt.obj" > "$G/skirt.grid"
	pleat-solve -q -n 32 "$G/skirt.grid" > "$G/solved.grid"
	pleat-resample -s 256 --uv-scale 3 "$FIXTURES/normalmap/curved.obj" 2>/dev/null |
		pleat-solve -q -n 16 > "$G/curved.grid"
}

setup() {
	T="$PLEAT_TESTBIN/test_normalmap"
	W="$BATS_TEST_TMPDIR"
	G="$BATS_FILE_TMPDIR"
	F="$FIXTURES/normalmap"
}

@test "tangent frames agree with Blender 3.4.1's MikkTSpace on a curved mesh" {
	# within 0.01 degree, every sign equal: float rounding and Blender's
	# C++ port of MikkTSpace differ by 0.001 degree at most here
	run "$T" tangents "$F/curved.obj" "$F/curved-blender.txt" 0.01
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 sign differences"* ]]
}

@test "the tangent comparison fails when the reference disagrees" {
	# a sign flipped and a tangent turned: the check must notice both
	awk 'NR == 10 { $13 = -$13 } { print }' "$F/curved-blender.txt" > "$W/sign.txt"
	run "$T" tangents "$F/curved.obj" "$W/sign.txt" 0.01
	[ "$status" -ne 0 ]
	awk 'NR == 10 { t = $10; $10 = $11; $11 = t } { print }' \
		"$F/curved-blender.txt" > "$W/turned.txt"
	run "$T" tangents "$F/curved.obj" "$W/turned.txt" 0.01
	[ "$status" -ne 0 ]
}

@test "an unwrinkled grid on flat panels maps to (0.5, 0.5, 1) on every island texel" {
	pleat-normalmap --mesh "$G/flat.obj" --size 512 -o "$W/f8.png" "$G/flat.grid"
	run "$T" flat "$W/f8.png" 0.5
	echo "$output"
	[ "$status" -eq 0 ]
	# 16 bits: the grid's float positions (1e-7 of a metre over a 0.7 mm
	# cell) tilt the normals by up to 1e-4 radian, two codes
	pleat-normalmap --mesh "$G/flat.obj" --size 512 --bits 16 -o "$W/f16.png" "$G/flat.grid"
	run "$T" flat "$W/f16.png" 2
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a sine wave over flat panels: decoded normals within 1 degree of the analytic ones" {
	pleat-normalmap --mesh "$G/flat.obj" --size 512 --bits 16 -o "$W/t.png" \
		--object "$W/o.png" "$G/sine.grid"
	# texels at least two grid cells (1.5 mm) inside a panel's edge; the
	# mirrored panel checks the bitangent sign
	for kind in tangent object; do
		f="$W/t.png"
		[ "$kind" = object ] && f="$W/o.png"
		run "$T" check "$f" "$kind" 0.0015 1 0.0015
		echo "$kind: $output"
		[ "$status" -eq 0 ]
	done
	# and 8 bits, quantisation included
	pleat-normalmap --mesh "$G/flat.obj" --size 512 -o "$W/t8.png" "$G/sine.grid"
	run "$T" check "$W/t8.png" tangent 0.0015 1 0.0015
	echo "8 bits: $output"
	[ "$status" -eq 0 ]
}

@test "--directx flips green, and only green" {
	pleat-normalmap --mesh "$G/flat.obj" --size 256 --bits 16 --directx -o "$W/dx.png" "$G/sine.grid"
	run "$T" check "$W/dx.png" directx 0.0015 1 0.0015
	echo "$output"
	[ "$status" -eq 0 ]
	# read as OpenGL it is wrong: the check can fail
	run "$T" check "$W/dx.png" tangent 0.0015 1 0.0015
	[ "$status" -ne 0 ]
}

@test "displacement: floats (.pfm) and 16-bit PNG within 2% of the wave's amplitude" {
	pleat-normalmap --mesh "$G/flat.obj" --size 256 --displacement "$W/d.pfm" "$G/sine.grid"
	pleat-normalmap --mesh "$G/flat.obj" --size 256 --displacement "$W/d.png" "$G/sine.grid"
	run "$T" check "$W/d.pfm" pfm 0.0015 3e-5 0.0015
	echo "pfm: $output"
	[ "$status" -eq 0 ]
	run "$T" check "$W/d.png" displacement 0.0015 3e-5 0.0015
	echo "png: $output"
	[ "$status" -eq 0 ]
	run "$T" png-info "$W/d.png"
	[ "$output" = "256 256 16 1" ]
}

@test "the tangent map, decoded as a MikkTSpace shader does, gives the object map" {
	# 16-bit quantisation: 0.003 degree where the frame is near
	# orthonormal; up to 0.02 degree on the fixture's folded and
	# zero-area triangles, whose interpolated frames are far from it
	pleat-normalmap --uv-region 0,0,1,1 --size 256 --bits 16 -o "$W/t.png" \
		--object "$W/o.png" "$G/solved.grid" 2>/dev/null
	run "$T" roundtrip "$ROOT/examples/skirt.obj" "$W/t.png" "$W/o.png" 0.01
	echo "skirt: $output"
	[ "$status" -eq 0 ]
	pleat-normalmap --size 256 --bits 16 -o "$W/t.png" --object "$W/o.png" \
		"$G/curved.grid"
	run "$T" roundtrip "$F/curved.obj" "$W/t.png" "$W/o.png" 0.05
	echo "curved: $output"
	[ "$status" -eq 0 ]
}

@test "dilation: every texel within N of an island takes the nearest island value" {
	pleat-normalmap --size 200 --dilate 0 --object "$W/bare.png" "$G/solved.grid" 2>/dev/null
	for n in 3 16; do
		pleat-normalmap --size 200 --dilate "$n" --object "$W/grown.png" \
			"$G/solved.grid" 2>/dev/null
		run "$T" dilation "$W/bare.png" "$W/grown.png" "$n"
		echo "N=$n: $output"
		[ "$status" -eq 0 ]
	done
}

@test "PNGs read back with the size and bit depth asked for" {
	pleat-normalmap --size 300x200 -o "$W/a.png" "$G/solved.grid" 2>/dev/null
	run "$T" png-info "$W/a.png"
	[ "$output" = "300 200 8 3" ]
	pleat-normalmap --size 64 --bits 16 --object "$W/b.png" "$G/solved.grid" 2>/dev/null
	run "$T" png-info "$W/b.png"
	[ "$output" = "64 64 16 3" ]
	# no output named: the tangent map on standard output
	pleat-normalmap --size 32 < "$G/solved.grid" > "$W/c.png" 2>/dev/null
	run "$T" png-info "$W/c.png"
	[ "$output" = "32 32 8 3" ]
}

@test "the preview: grey, the grid's size or at most --preview-size, even on flat cloth" {
	pleat-normalmap --mesh "$G/flat.obj" --preview "$W/p.png" --preview-size 0 "$G/flat.grid"
	read -r _ gw gh < <(grep -a -m1 '^size' "$G/flat.grid")
	run "$T" png-info "$W/p.png"
	[ "$output" = "$gw $gh 8 1" ]
	# unwrinkled: black outside, one grey inside: 0.2 + 0.8 * 2/sqrt(6)
	run "$T" levels "$W/p.png"
	echo "$output"
	[ "$(echo "$output" | cut -d' ' -f1 | tr '\n' ' ')" = "0 218 " ]
	pleat-normalmap --mesh "$G/flat.obj" --preview "$W/q.png" --preview-size 100 "$G/sine.grid"
	run "$T" png-info "$W/q.png"
	[ "$output" = "89 79 8 1" ]   # 265 x 237 vertices, 3 x 3 a pixel
	run "$T" levels "$W/q.png"
	[ "$(echo "$output" | wc -l)" -gt 20 ]
}

@test "the same bytes whatever the thread count" {
	OMP_NUM_THREADS=1 pleat-normalmap --size 256 -o "$W/1.png" --object "$W/1o.png" \
		--preview "$W/1p.png" "$G/solved.grid" 2>/dev/null
	OMP_NUM_THREADS=2 pleat-normalmap --size 256 -o "$W/2.png" --object "$W/2o.png" \
		--preview "$W/2p.png" "$G/solved.grid" 2>/dev/null
	cmp "$W/1.png" "$W/2.png"
	cmp "$W/1o.png" "$W/2o.png"
	cmp "$W/1p.png" "$W/2p.png"
}

@test "a grid bakes against the rest surface its header names: --smooth's, flat without the key; an unknown one is refused" {
	pleat-resample -q --smooth -s 128 "$ROOT/examples/skirt.obj" |
		pleat-solve -q -n 8 > "$W/smooth.grid"
	pleat-grid info "$W/smooth.grid" | grep -qx '  key rest-surface phong2'
	bake() {
		run --separate-stderr pleat-normalmap -q --mesh "$ROOT/examples/skirt.obj" \
			--size 64 -o "$W/n.png" "$1"
		echo "$stderr"
	}
	bake "$W/smooth.grid"
	[ "$status" -eq 0 ]
	[ -s "$W/n.png" ]
	# the same rest said to be the flat triangles is not where they are
	perl -0777 -pe 's/\nrest-surface phong2\n/\n/' "$W/smooth.grid" > "$W/nokey.grid"
	pleat-grid check "$W/nokey.grid"
	bake "$W/nokey.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nokey.grid: the coarse surface (rest) at vertex ("*") is "*" m from "*"skirt.obj's"* ]]
	# the flat triangles bake
	pleat-resample -q -s 128 "$ROOT/examples/skirt.obj" |
		pleat-solve -q -n 8 > "$W/flat.grid"
	bake "$W/flat.grid"
	[ "$status" -eq 0 ]
	# the earlier smooth surface, and one never made, are refused by name
	perl -0777 -pe 's/\nrest-surface phong2\n/\nrest-surface phong\n/' "$W/smooth.grid" > "$W/old.grid"
	bake "$W/old.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"old.grid: rest-surface 'phong' is not a surface this pleat-normalmap knows (an earlier pleat-resample --smooth): resample the mesh again"* ]]
	perl -0777 -pe 's/\nrest-surface phong2\n/\nrest-surface nurbs\n/' "$W/smooth.grid" > "$W/other.grid"
	bake "$W/other.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"other.grid: rest-surface 'nurbs' is not a surface this pleat-normalmap knows" ]]
}

@test "the mesh comes from the grid's source key, or --mesh" {
	cd "$W"
	cp "$ROOT/examples/skirt.obj" .
	pleat-resample -s 64 skirt.obj | pleat-solve -q -n 4 > s.grid
	run pleat-normalmap --size 64 -o a.png s.grid
	[ "$status" -eq 0 ]
	pleat-resample -s 64 < skirt.obj | pleat-solve -q -n 4 > stdin.grid
	run -1 pleat-normalmap --size 64 -o b.png stdin.grid
	[[ "$output" == *"does not name the mesh"*"--mesh"* ]]
	[ ! -e b.png ]
	run pleat-normalmap --mesh skirt.obj --size 64 -o b.png stdin.grid
	[ "$status" -eq 0 ]
	cmp a.png b.png
}

@test "texture coordinates past the unit square: fitted by default; the unit square asked for warns" {
	# the skirt's texture coordinates are metres: the default fits them
	run --separate-stderr pleat-normalmap --size 64 -o "$W/a.png" "$G/solved.grid"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"(fitted)"* ]]
	[[ "$stderr" != *"warning"* ]]
	run --separate-stderr pleat-normalmap -q --size 64 --uv-fit -o "$W/b.png" "$G/solved.grid"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	cmp "$W/a.png" "$W/b.png"
	run pleat-normalmap -q --size 64 --uv-region 0,0,1,1 -o "$W/c.png" "$G/solved.grid"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning"*"triangles reach outside"*"--uv-fit"* ]]
	! cmp -s "$W/a.png" "$W/c.png"
	# coordinates inside the unit square keep it as the default
	run --separate-stderr pleat-normalmap --size 64 --mesh "$G/flat.obj" -o "$W/d.png" "$G/sine.grid"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"over 0,0 to 1,1:"* ]]
}

@test "the format follows the name: .png (or .pfm for a displacement), another extension refused" {
	run --separate-stderr pleat-normalmap --size 64 -o "$W/a.jpg" "$G/solved.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--output: $W/a.jpg: pleat-normalmap writes PNG (.png), not .jpg"* ]]
	[ ! -e "$W/a.jpg" ]
	run --separate-stderr pleat-normalmap --size 64 --displacement "$W/d.exr" "$G/solved.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--displacement: $W/d.exr: pleat-normalmap writes PNG (.png) or PFM (.pfm), not .exr"* ]]
	run --separate-stderr pleat-normalmap --size 64 --preview "$W/p.pfm" "$G/solved.grid"
	[ "$status" -eq 2 ]
	run pleat-normalmap -q --size 64 -o "$W/A.PNG" "$G/solved.grid"
	[ "$status" -eq 0 ]
	run "$T" png-info "$W/A.PNG"
	[ "$output" = "64 64 8 3" ]
}

@test "--preview-size upscales a grid smaller than the size asked, a whole block per vertex" {
	local w h
	read -r w h <<< "$(pleat-grid info "$G/solved.grid" | sed -n 's/.*grid 1: \([0-9]*\) x \([0-9]*\) vertices.*/\1 \2/p')"
	[ -n "$w" ] && [ -n "$h" ]
	pleat-normalmap -q --preview-size 0 --preview "$W/p1.png" "$G/solved.grid"
	run "$T" png-info "$W/p1.png"
	[ "$output" = "$w $h 8 1" ]
	# as many whole pixels a vertex as fit: 3 for a size 3.5 times the
	# longer side; the vertices' shades at the blocks' centres, blended
	# between them, the outline the small picture's
	local longer=$((w > h ? w : h))
	pleat-normalmap -q --preview-size $((7 * longer / 2)) --preview "$W/p3.png" "$G/solved.grid"
	run "$T" png-info "$W/p3.png"
	[ "$output" = "$((3 * w)) $((3 * h)) 8 1" ]
	run "$T" upscaled "$W/p1.png" "$W/p3.png" 3
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "blocks $((w * h)) mismatches 0" ]
}

# ---- bad input ----

@test "bad sizes and bits: status 2, the option named, nothing written" {
	cd "$W"
	for s in 0 -5 abc 10x0 x10 16385 3x 1.5; do
		run --separate-stderr pleat-normalmap --size "$s" -o out.png "$G/solved.grid"
		echo "$s: $status $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == *"--size"* ]]
	done
	for b in 0 12 32 x; do
		run --separate-stderr pleat-normalmap --bits "$b" -o out.png "$G/solved.grid"
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"--bits"* ]]
	done
	run --separate-stderr pleat-normalmap --uv-region 0,0,0,1 -o out.png "$G/solved.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--uv-region"* ]]
	run --separate-stderr pleat-normalmap --uv-fit --uv-region 0,0,1,1 "$G/solved.grid"
	[ "$status" -eq 2 ]
	run --separate-stderr pleat-normalmap -o - --object - "$G/solved.grid"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"standard output"* ]]
	[ ! -e out.png ]
}

@test "an unwritable output: status 1, the path named, before any work" {
	run -1 pleat-normalmap -o /nonexistent/dir/n.png "$G/solved.grid"
	[[ "$output" == "pleat-normalmap: cannot create /nonexistent/dir/n.png: "* ]]
	# the other outputs are not left behind either
	run -1 pleat-normalmap -o "$W/n.png" --preview /nonexistent/p.png "$G/solved.grid"
	[ ! -e "$W/n.png" ]
	[ -z "$(ls "$W" | grep tmp)" ]
}

@test "PNG is not written to a terminal" {
	command -v script >/dev/null || skip "script(1) not installed"
	run script -qec "pleat-normalmap --size 16 $G/solved.grid" /dev/null
	[[ "$output" == *"refusing to write binary data to a terminal"* ]]
}

@test "a grid that does not fit the mesh, lacks x, or comes with another: status 1" {
	run -1 pleat-normalmap --mesh "$G/flat.obj" -o "$W/n.png" "$G/solved.grid"
	echo "$output"
	[[ "$output" == *"solved.grid"* && "$output" == *"flat.obj"* ]]
	[ ! -e "$W/n.png" ]
	run -1 pleat-normalmap -o "$W/n.png" "$G/skirt.grid"
	[[ "$output" == *"no x channel"*"pleat-solve"* ]]
	cat "$G/solved.grid" "$G/solved.grid" > "$W/two.grid"
	run -1 pleat-normalmap -o "$W/n.png" "$W/two.grid"
	[[ "$output" == *"more than one grid"* ]]
	# another frame of the same pattern: the rest positions differ
	sed 's/^v \([^ ]*\) \([^ ]*\) \([^ ]*\)$/v \1 \2 0.5/' "$ROOT/examples/skirt.obj" \
		> "$W/moved.obj"
	run -1 pleat-normalmap --mesh "$W/moved.obj" -o "$W/n.png" "$G/solved.grid"
	[[ "$output" == *"the coarse surface (rest)"*"moved.obj"* ]]
	[ ! -e "$W/n.png" ]
}

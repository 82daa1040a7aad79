#!/usr/bin/env bats
# The quick start (examples/run): a skirt gathered at the waist over a
# body, solved at 192 and 384 cells, simplified and baked.  Its folds are
# measured by test_solve wrinkles: the RMS of the solved grid's
# displacement along the coarse surface's normal.

bats_require_minimum_version 1.5.0
load common

# The quick start runs once for the file, into its own folder.
setup_file() {
	Q="$BATS_FILE_TMPDIR/out"
	"$ROOT/examples/run" "$Q" > "$BATS_FILE_TMPDIR/run.log" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/run.log"; return 1; }
	export Q
}

setup() {
	W="$BATS_TEST_TMPDIR"
	T="$PLEAT_TESTBIN/test_solve"
}

# png_size FILE: "width height" from the PNG header.
png_size() {
	od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4,
		$5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}

# rms_of FILE: the RMS normal displacement of a solved grid, metres.
rms_of() {
	"$T" wrinkles "$1" | awk '$1 == "rms" && $2 + 0 == $2 { print $2 }'
}

@test "the quick start writes every asset and its pictures; the preview has a pixel per grid vertex" {
	for f in skirt.obj hips.obj solved-192.grid solved.grid skirt-wrinkled.obj \
		skirt-normal.png skirt-preview.png skirt.png; do
		[ -s "$Q/$f" ] || { echo "no $f"; false; }
	done
	pleat-grid check "$Q/solved.grid"
	read -r gw gh < <(pleat-grid info "$Q/solved.grid" |
		sed -n 's/.*grid 1: \([0-9]*\) x \([0-9]*\) vertices.*/\1 \2/p')
	[ "$(png_size "$Q/skirt-preview.png")" = "$gw $gh" ]
	[ "$(png_size "$Q/skirt-normal.png")" = "1024 1024" ]
	[ "$(png_size "$Q/skirt.png")" = "560 640" ]
	# the body is closed and the cloth stays out of it
	run pleat-collide --body "$Q/hips.obj" "$Q/solved.grid"
	echo "$output"
	[[ $output == *", 0 vertices deeper than 0.0001 m inside the body"* ]]
}

# The quick start's two seams: the back one runs along grid lines on both
# panels (no length: one point of the cloth, welded in the mesh), the
# front one 0.2 cell off them (0.4 cell of seam cloth at 384).  Gathered
# folds run along both.  A seam that only held its length was a free
# hinge: 108 crossing pairs at 192 and 318 at 384 in the grid, 448 in
# the mesh, all across a seam.  Joined and bending like cloth: 0, 7 and
# 13, the sides' boundary cells lying over each other; with
# --safe=seams, which holds the two sides and the strip apart, none
# across a seam, and none elsewhere either (the repulsion's part, where
# the bound leaves room for a compiler's rounding, not for a seam).
@test "the quick start's seams do not cross: no intersecting pair across a seam, on either level or the mesh" {
	for g in solved-192 solved; do
		run pleat-collide "$Q/$g.grid"
		echo "$g: $output"
		[[ "$output" =~ \ ([0-9]+)\ intersecting\ triangle\ pairs\ of\ which\ [0-9]+\ sharing\ a\ grid\ vertex,\ ([0-9]+)\ across\ a\ seam ]]
		[ "${BASH_REMATCH[2]}" = 0 ]
		numeric 'n <= 2' n="${BASH_REMATCH[1]}"
	done
	run "$PLEAT_TESTBIN/test_intersect" pairs "$Q/skirt-wrinkled.obj"
	echo "mesh: $output"
	numeric 'n <= 4' n="$(echo "$output" | awk '{ print $4 }')"
	run "$PLEAT_TESTBIN/test_intersect" edges "$Q/skirt-wrinkled.obj"
	echo "edges: $output"
	[[ $output == *" flipped 0 nonmanifold 0" ]]
}

# The threshold.  At the hem the panels are 1.3 times the skirt's
# circumference; folds that take up that much cloth with the shortest
# wavelength the 384 grid resolves well (4 cells, 15.6 mm) are, as a
# sinusoid, 3.0 mm high: an RMS of 2.1 mm, and more for any longer
# wavelength or at the waist (1.6:1); measured: 2.19 mm.  1.5 mm leaves
# room for folds that lean sideways, off the normal.  The same two levels
# on the ungathered cone (gathers 1 and 1), whose coarse facets are all
# the solve rounds, give about 0.4 mm: the measure tells folds from that
# by far.
@test "the quick start's skirt folds: normal displacement RMS over 1.5 mm; the ungathered cone's under 0.75 mm" {
	gathered=$(rms_of "$Q/solved.grid")
	"$ROOT/examples/make-gathered-skirt" 1 1 > "$W/cone.obj"
	pleat-resample -s 192 "$W/cone.obj" |
		pleat-solve -q --body "$Q/hips.obj" -n 512 > "$W/cone-192.grid"
	pleat-resample -s 384 "$W/cone.obj" | pleat-initialize -q -u "$W/cone-192.grid" |
		pleat-solve -q --body "$Q/hips.obj" > "$W/cone.grid"
	cone=$(rms_of "$W/cone.grid")
	echo "# wrinkle RMS along the coarse normal: gathered skirt $gathered m, ungathered cone $cone m" >&3
	numeric 'g > 1.5e-3 && c < 0.75e-3' g="$gathered" c="$cone"
}

@test "test_solve wrinkles: a flat sheet lifted 1 mm along its normal, RMS and mean 1 mm, nothing local" {
	printf 'v 0 0 0\nv 0.2 0 0\nv 0.2 0.1 0\nv 0 0.1 0\nvt 0 0\nvt 0.2 0\nvt 0.2 0.1\nvt 0 0.1\nf 1/1 2/2 3/3 4/4\n' > "$W/sheet.obj"
	pleat-resample -s 64 "$W/sheet.obj" > "$W/sheet.grid"
	"$T" shift "$W/sheet.grid" 0 0.001 > "$W/lifted.grid"
	run "$T" wrinkles "$W/lifted.grid"
	echo "$output"
	read -r _ rms _ local _ mean _ count <<< "$output"
	numeric 'n > 1000 && r > 0.999e-3 && r < 1.001e-3 && m > 0.999e-3 && m < 1.001e-3 && l < 1e-7' \
		r="$rms" l="$local" m="$mean" n="$count"
}

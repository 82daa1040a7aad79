#!/usr/bin/env bats
# The OBJ reader (common/obj.c), the sewing pattern (common/pattern.c) and
# the mesh writers (common/meshio.c), through build/tests/test_obj.

load common

setup() {
	T="$PLEAT_TESTBIN/test_obj"
	OBJ="$FIXTURES/obj"
	cd "$OBJ"
}

# ---- reader: accepted input ----

@test "obj: table of small inputs (selftest)" {
	run "$T" selftest
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not ok"* ]]
}

@test "obj: a quad is fanned from its first corner" {
	run "$T" tris quad.obj
	[ "$status" -eq 0 ]
	[ "$output" = "f0 0 1 2 / 0 1 2
f0 0 2 3 / 0 2 3" ]
}

@test "obj: a hexagon becomes four triangles around corner 1" {
	run "$T" tris ngon.obj
	[ "$status" -eq 0 ]
	[ "$output" = "f0 0 1 2 / -1 -1 -1
f0 0 2 3 / -1 -1 -1
f0 0 3 4 / -1 -1 -1
f0 0 4 5 / -1 -1 -1" ]
}

@test "obj: negative indices count back from the records read so far" {
	run "$T" tris negative.obj
	[ "$status" -eq 0 ]
	[ "$output" = "f0 0 1 2 / 0 1 2
f1 1 3 2 / 1 3 2
f2 1 3 2 / 1 3 2" ]
}

@test "obj: o g s usemtl mtllib vv vn vp ny t l p and unknown records are skipped" {
	run "$T" load records.obj
	[ "$status" -eq 0 ]
	[ "$output" = "v 3 vt 3 tri 2 face 2" ]
	run "$T" tris records.obj
	[ "$output" = "f0 0 1 2 / 0 1 2
f1 0 2 1 / -1 -1 -1" ]
}

@test "obj: CRLF line ends leave no carriage return in the numbers" {
	grep -q $'\r' crlf.obj   # the fixture must really be CRLF
	run "$T" verts crlf.obj
	[ "$status" -eq 0 ]
	[ "$output" = "v 0 0 0
v 1 0 0
v 0 1 0
vt 0 0
vt 1 0
vt 0 1" ]
	run "$T" tris crlf.obj
	[ "$output" = "f0 0 1 2 / 0 1 2" ]
}

@test "obj: a missing final newline still reads the last face" {
	[ "$(tail -c 1 nofinalnl.obj)" = "3" ]
	run "$T" load nofinalnl.obj
	[ "$status" -eq 0 ]
	[ "$output" = "v 3 vt 0 tri 1 face 1" ]
}

@test "obj: tabs, blank lines and comments" {
	run "$T" load whitespace.obj
	[ "$status" -eq 0 ]
	[ "$output" = "v 3 vt 0 tri 1 face 1" ]
}

@test "obj: a file without vt loads (a body)" {
	run "$T" load novt.obj
	[ "$status" -eq 0 ]
	[ "$output" = "v 3 vt 0 tri 1 face 1" ]
}

@test "obj: - reads standard input" {
	run sh -c '"$1" load - < quad.obj' sh "$T"
	[ "$status" -eq 0 ]
	[ "$output" = "v 4 vt 4 tri 2 face 1" ]
}

@test "obj: a 2 MB line is read whole, not cut" {
	f="$BATS_TEST_TMPDIR/long.obj"
	{ printf '# '; head -c 2000000 /dev/zero | tr '\0' x; printf '\n';
	  printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf'
	  for i in $(seq 3000); do printf ' %d' $(( (i % 3) + 1 )); done
	  printf '\n'; } > "$f"
	run "$T" load "$f"
	[ "$status" -eq 0 ]
	[ "$output" = "v 3 vt 0 tri 2998 face 1" ]
}

@test "obj: obj_read_mem on an exact-size buffer equals obj_load" {
	for f in *.obj; do
		case $f in badindex.obj|zeroindex.obj|nan.obj|empty.obj|\
			   twocorners.obj|mixed.obj) continue ;; esac
		run "$T" mem "$f"
		echo "$f: $output"
		[ "$status" -eq 0 ]
	done
}

# ---- reader: errors name the file and the line ----

@test "obj: face index past the last vertex" {
	run "$T" load badindex.obj
	[ "$status" -eq 1 ]
	[ "$output" = "badindex.obj: line 11: face index 9 out of range (8 vertices)" ]
}

@test "obj: face index 0" {
	run "$T" load zeroindex.obj
	[ "$status" -eq 1 ]
	[ "$output" = "zeroindex.obj: line 4: face index 0 is invalid (OBJ indices start at 1)" ]
}

@test "obj: NaN coordinate" {
	run "$T" load nan.obj
	[ "$status" -eq 1 ]
	[ "$output" = "nan.obj: line 2: coordinate 'NaN' is not a finite number" ]
}

@test "obj: empty file" {
	run "$T" load empty.obj
	[ "$status" -eq 1 ]
	[ "$output" = "empty.obj: no mesh in the input (it is empty)" ]
}

@test "obj: face with 2 corners" {
	run "$T" load twocorners.obj
	[ "$status" -eq 1 ]
	[ "$output" = "twocorners.obj: line 4: face has 2 corners (at least 3 needed)" ]
}

@test "obj: face mixing corners with and without vt" {
	run "$T" load mixed.obj
	[ "$status" -eq 1 ]
	[ "$output" = "mixed.obj: line 6: face mixes corners with and without texture coordinates" ]
}

@test "obj: errors on standard input say <stdin>" {
	run sh -c '"$1" load - < nan.obj' sh "$T"
	[ "$status" -eq 1 ]
	[ "$output" = "<stdin>: line 2: coordinate 'NaN' is not a finite number" ]
}

@test "obj: missing file" {
	run "$T" load nope.obj
	[ "$status" -eq 1 ]
	[ "$output" = "cannot open nope.obj: No such file or directory" ]
}

@test "obj: a directory" {
	run "$T" load "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	[ "$output" = "cannot open $BATS_TEST_TMPDIR: Is a directory" ]
}

@test "obj: 20000 mutated inputs: no crash, every accepted mesh sane" {
	run "$T" fuzz 20000
	[ "$status" -eq 0 ]
	[ "$output" = "fuzz ok 20000" ]
}

# ---- pattern ----

@test "pattern: one quad is one panel with four open edges" {
	run "$T" pattern quad.obj
	[ "$status" -eq 0 ]
	[ "$output" = "panels 1 edges 4 seam 0 open 4" ]
}

@test "pattern: per-corner vt lines with equal values join (Berkeley style)" {
	run "$T" pattern percorner.obj
	[ "$status" -eq 0 ]
	[ "$output" = "panels 1 edges 4 seam 0 open 4" ]
}

@test "pattern: two panels sewn along one edge" {
	run "$T" pattern seam.obj
	[ "$status" -eq 0 ]
	[ "$output" = "panels 2 edges 8 seam 2 open 6" ]
	run "$T" edges seam.obj
	[[ "$output" == *"edge 1 tri 0 panel 0 v 1 2 a 1 0 b 1 1 partner 7"* ]]
	[[ "$output" == *"edge 7 tri 3 panel 1 v 2 1 a 3 1 b 3 0 partner 1"* ]]
}

@test "pattern: a tube is one panel sewn to itself" {
	run "$T" pattern tube.obj
	[ "$status" -eq 0 ]
	[ "$output" = "panels 1 edges 8 seam 2 open 6" ]
}

@test "pattern: no texture coordinates" {
	run "$T" pattern novt.obj
	[ "$status" -eq 1 ]
	[ "$output" = "novt.obj: has no texture coordinates: pleat needs the sewing pattern as texture coordinates (vt, in metres)" ]
}

@test "pattern: a triangle without vt among others" {
	run "$T" pattern records.obj
	[ "$status" -eq 1 ]
	[ "$output" = "records.obj: has no texture coordinates: pleat needs the sewing pattern as texture coordinates (vt, in metres)" ]
}

# ---- writers ----

@test "meshio: OBJ and PLY round trip exactly" {
	run "$T" roundtrip
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not ok"* ]]
}

@test "meshio: write errors are reported" {
	[ -w /dev/full ] || skip "no /dev/full"
	run "$T" writefail /dev/full
	[ "$status" -eq 0 ]
	[ "$output" = "/dev/full: write failed: No space left on device
/dev/full: write failed: No space left on device" ]
}

@test "meshio: out-of-range triangle index is refused before writing" {
	run "$T" badtri
	[ "$status" -eq 0 ]
	[ "$output" = "out.obj: triangle 0 has vertex index 5 out of range (5 vertices)
out.ply: triangle 0 has vertex index 5 out of range (5 vertices)" ]
}

# ---- the shared data set (MANIFEST.md section 4) ----

@test "shared: garment counts" {
	need_shared
	g="$SHARED/berkeley_garments"
	run "$T" load "$g/dress/draped/dress-draped-iso.obj"
	[ "$output" = "v 5293 vt 31176 tri 10392 face 10392" ]
	run "$T" load "$g/tshirt/isotropic/tshirt-iso.obj"
	[ "$output" = "v 3546 vt 20862 tri 6954 face 6954" ]
	run "$T" load "$g/tshirt/coarse/tshirt.obj"
	[ "$output" = "v 330 vt 1812 tri 604 face 604" ]
}

@test "shared: dress has 11 panels, 301 seams, 198 open edges" {
	need_shared
	run "$T" pattern "$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj"
	[ "$status" -eq 0 ]
	[ "$output" = "panels 11 edges 800 seam 602 open 198" ]
}

@test "shared: tshirt-iso has 6 panels, 221 seams, 142 open edges" {
	need_shared
	run "$T" pattern "$SHARED/berkeley_garments/tshirt/isotropic/tshirt-iso.obj"
	[ "$status" -eq 0 ]
	[ "$output" = "panels 6 edges 584 seam 442 open 142" ]
}

@test "shared: coarse tshirt has 6 panels, 88 seams, 60 open edges" {
	need_shared
	run "$T" pattern "$SHARED/berkeley_garments/tshirt/coarse/tshirt.obj"
	[ "$status" -eq 0 ]
	[ "$output" = "panels 6 edges 236 seam 176 open 60" ]
}

@test "shared: guy.obj (CRLF, g with colons) and its 31 UV islands" {
	need_shared
	run "$T" load "$SHARED/bodies/arcsim_guy/guy.obj"
	[ "$output" = "v 14212 vt 84900 tri 28300 face 28300" ]
	run "$T" pattern "$SHARED/bodies/arcsim_guy/guy.obj"
	[ "$status" -eq 0 ]
	[[ "$output" == "panels 31 "* ]]
}

@test "shared: guy.obj through a pipe (buffer grown, not sized by stat)" {
	need_shared
	run sh -c 'cat "$2" | "$1" load -' sh "$T" "$SHARED/bodies/arcsim_guy/guy.obj"
	[ "$status" -eq 0 ]
	[ "$output" = "v 14212 vt 84900 tri 28300 face 28300" ]
}

@test "shared: posed body n-gons fan into 26648 + 194 triangles" {
	need_shared
	# 8 x (16-2) + 2 x (18-2) + (22-2) + (32-2) = 194 extra triangles
	run "$T" load "$SHARED/bodies/female_body_dance-paused_f0.obj"
	[ "$status" -eq 0 ]
	[ "$output" = "v 13481 vt 0 tri 26842 face 26660" ]
	run "$T" pattern "$SHARED/bodies/female_body_dance-paused_f0.obj"
	[ "$status" -eq 1 ]
	[[ "$output" == *"has no texture coordinates"* ]]
}

@test "shared: the 16 body segments sum to the posed body's counts" {
	need_shared
	v=0 vt=0 tri=0 face=0
	for f in "$SHARED"/bodies/arcsim_female_segments/female-objs/body00*.obj; do
		run "$T" load "$f"
		[ "$status" -eq 0 ]
		set -- $output
		v=$((v + $2)) vt=$((vt + $4)) tri=$((tri + $6)) face=$((face + $8))
	done
	[ "$v $vt $tri $face" = "13481 14766 26842 26660" ]
}

@test "shared: Blender cloth and sphere" {
	need_shared
	run "$T" load "$SHARED/blender_cloth_sphere/frame_0001.obj"
	[ "$output" = "v 1089 vt 1089 tri 2048 face 2048" ]
	run "$T" pattern "$SHARED/blender_cloth_sphere/frame_0001.obj"
	[ "$output" = "panels 1 edges 128 seam 0 open 128" ]
	run "$T" load "$SHARED/blender_cloth_sphere/sphere.obj"
	[ "$output" = "v 1106 vt 0 tri 2208 face 2208" ]
}

@test "shared: obj_read_mem equals obj_load on every file" {
	need_shared
	for f in "$SHARED"/berkeley_garments/*/*/*.obj "$SHARED"/bodies/*.obj \
		 "$SHARED"/bodies/*/*.obj "$SHARED"/bodies/*/*/*.obj \
		 "$SHARED"/blender_cloth_sphere/*.obj; do
		run "$T" mem "$f"
		echo "$f: $output"
		[ "$status" -eq 0 ]
	done
}

@test "shared: guy.obj (3.4 MB) loads in well under 100 ms" {
	need_shared
	case "$PLEAT_TESTBIN" in */san/*) skip "timing means nothing under sanitizers" ;; esac
	run "$T" time "$SHARED/bodies/arcsim_guy/guy.obj" 5
	echo "$output"
	[ "$status" -eq 0 ]
	ms=${output% ms}
	[ "${ms%.*}" -lt 50 ]
}

#!/usr/bin/env bats
# Damaged and hostile input to the two readers: the grid stream (through
# pleat-grid cat) and the OBJ reader (through pleat-resample).  Every case
# exits 1 with a message naming the file and the problem, and writes
# nothing on stdout.  Fixtures in tests/fixtures/corrupt/ are the inputs
# the fuzz harnesses (fuzz/) found or that need exact bytes.

bats_require_minimum_version 1.5.0
load common

setup() {
	W="$BATS_TEST_TMPDIR"
	C="$FIXTURES/corrupt"
	"$PLEAT_TESTBIN/test_grid" make 1 > "$W/one.grid"
	"$PLEAT_TESTBIN/test_resample" square-obj > "$W/square.obj"
}

# fails CMD... -- MESSAGE: CMD exits 1, prints nothing on stdout, and its
# stderr holds MESSAGE.
fails() {
	local args=() msg
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	msg=$2
	run --separate-stderr "${args[@]}"
	echo "status $status, stderr: $stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"$msg"* ]]
}

grid_fails() { fails pleat-grid cat "$1" -- "$1: grid 1: $2"; }
obj_fails()  { fails pleat-resample -s 8 "$1" -- "$1: $2"; }

# header_len FILE: bytes up to and including the "end" line.
header_len() {
	LC_ALL=C awk '{ n += length($0) + 1 } /^end$/ { print n; exit }' "$1"
}

# with_header FILE SED-EXPR > OUT: rewrite the text header, keep the payload.
with_header() {
	local n; n=$(header_len "$1")
	{ head -c "$n" "$1" | sed "$2"; tail -c +"$((n + 1))" "$1"; }
}

# ---- grid stream -------------------------------------------------------

@test "grid: an empty file or standard input is an error" {
	: > "$W/empty.grid"
	fails pleat-grid cat "$W/empty.grid" -- "$W/empty.grid: no grid in the input (it is empty)"
	run --separate-stderr pleat-grid cat < "$W/empty.grid"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "pleat-grid: standard input: no grid in the input (it is empty)" ]
}

@test "grid: a lone newline is not a grid" {
	printf '\n' > "$W/nl.grid"
	grid_fails "$W/nl.grid" "not a pleat grid stream (bad magic)"
}

@test "grid: truncated inside the magic line" {
	local n
	for n in 1 5 10 14; do
		head -c "$n" "$W/one.grid" > "$W/t.grid"
		grid_fails "$W/t.grid" "truncated: stream ends inside the header"
	done
}

@test "grid: truncated after each header line" {
	lines=$(LC_ALL=C awk '/^end$/ { print NR; exit }' "$W/one.grid")
	[ "$lines" -eq 17 ]
	local k
	for k in $(seq 1 $((lines - 1))); do
		head -n "$k" "$W/one.grid" > "$W/t.grid"
		grid_fails "$W/t.grid" "truncated: stream ends inside the header"
	done
}

@test "grid: truncated right after end" {
	head -c "$(header_len "$W/one.grid")" "$W/one.grid" > "$W/t.grid"
	grid_fails "$W/t.grid" "truncated: stream ends in channel 't.u8' (0 of 851 bytes)"
}

@test "grid: truncated inside each channel" {
	# 37 x 23 = 851 vertices; channel bytes in header order
	local names=(t.u8 t.u16 t.u32 t.i32 t.f16 t.f32 t.f64 user.wetness)
	local sizes=(851 3404 10212 3404 3404 10212 6808 3404)
	local at; at=$(header_len "$W/one.grid")
	local ch half
	for ch in "${!names[@]}"; do
		half=$((sizes[ch] / 2))
		head -c $((at + half)) "$W/one.grid" > "$W/t.grid"
		grid_fails "$W/t.grid" "truncated: stream ends in channel '${names[ch]}' ($half of ${sizes[ch]} bytes)"
		at=$((at + sizes[ch]))
	done
	[ "$at" -eq "$(wc -c < "$W/one.grid")" ]
}

@test "grid: truncated through a pipe and from standard input" {
	head -c 5000 "$W/one.grid" > "$W/t.grid"
	run --separate-stderr sh -c 'cat "$1" | pleat-grid cat' sh "$W/t.grid"
	[ "$status" -eq 1 ]; [ -z "$output" ]
	[[ "$stderr" == *"-: grid 1: truncated: stream ends in channel"* ]]
	fails sh -c 'pleat-grid cat < "$1"' sh "$W/t.grid" -- "-: grid 1: truncated"
}

@test "grid: a huge payload claim on a short stream is truncation, not an allocation" {
	# 16384^2 f32: 1 GiB claimed, 4 bytes sent.  Refused before allocating
	# from a file (its length is known) and after at most 64 MiB from a
	# pipe; under a 768 MiB address-space limit the old reader failed with
	# "out of memory" instead.
	f="$C/grid-huge-claim.grid"
	msg="truncated: stream ends in channel 'rest' (4 of 1073741824 bytes)"
	grid_fails "$f" "$msg"
	fails sh -c 'cat "$1" | pleat-grid cat' sh "$f" -- "-: grid 1: $msg"
	case "$PLEAT_BIN" in */san/*) return 0 ;; esac  # ASan needs the address space
	fails sh -c 'ulimit -v 786432; pleat-grid cat "$1"' sh "$f" -- "$msg"
	fails sh -c 'ulimit -v 786432; cat "$1" | pleat-grid cat' sh "$f" -- "$msg"
}

@test "grid: absurd and overflowing sizes" {
	local s
	for s in "0 5" "5 0" "-1 5" "1048577 1" "99999999999999999999 1" "1 1 1" "3"; do
		with_header "$W/one.grid" "s/^size .*/size $s/" > "$W/s.grid"
		grid_fails "$W/s.grid" "header line 2: bad or repeated size (1..1048576 each way)"
	done
	with_header "$W/one.grid" 's/^size .*/size 1048576 2048/' > "$W/s.grid"
	grid_fails "$W/s.grid" "header line 2: size has 2^31 vertices or more"
}

@test "grid: absurd component counts and channel counts" {
	local n
	for n in 0 17 -1 99999999999999999999 x; do
		with_header "$W/one.grid" "s/^channel t.u16 u16 2\$/channel t.u16 u16 $n/" > "$W/c.grid"
		grid_fails "$W/c.grid" "header line 6: bad component count $n"
	done
	with_header "$W/one.grid" 's/^channel t.u16 u16 2$/channel t.u16 u16/' > "$W/c.grid"
	grid_fails "$W/c.grid" "header line 6: channel needs a name, a type and a component count"
	with_header "$W/one.grid" 's/^channel t.u16 u16 2$/channel T.U16 u16 2/' > "$W/c.grid"
	grid_fails "$W/c.grid" "header line 6: bad channel name 'T.U16'"
	extra=$(for n in $(seq 1 57); do printf 'channel x%d u8 1\\n' "$n"; done)
	with_header "$W/one.grid" "s/^flag\$/${extra}flag/" > "$W/c.grid"
	grid_fails "$W/c.grid" "header line 70: more than 64 channels"
}

@test "grid: absurd and overflowing payload sizes" {
	local p
	for p in -1 18446744073709551616 99999999999999999999 1e3 x +5 5x; do
		with_header "$W/one.grid" "s/^payload .*/payload $p/" > "$W/p.grid"
		grid_fails "$W/p.grid" "header line 15: bad or repeated payload size"
	done
	with_header "$W/one.grid" 's/^payload .*/payload 41700/' > "$W/p.grid"
	grid_fails "$W/p.grid" "header says payload 41700 bytes but its channels hold 41699"
	# 64 channels of 2^31-1 vertices x 16 f64: the sum overflows no size_t,
	# but is far beyond memory
	with_header "$W/one.grid" 's/^size .*/size 65535 32767/; s/^channel t.f64 f64 1$/channel t.f64 f64 16/' > "$W/p.grid"
	grid_fails "$W/p.grid" "header says payload 41699 bytes but its channels hold"
}

@test "grid: cell and origin must be finite, cell positive" {
	local c o
	for c in nan inf -inf 0 -0.001 1e999 0x1p-10 "1 2"; do
		with_header "$W/one.grid" "s/^cell .*/cell $c/" > "$W/h.grid"
		grid_fails "$W/h.grid" "header line 3: bad or repeated cell size"
	done
	for o in "inf 0" "0 -inf" "nan 0" "1e999 0" "0" "0 0 0"; do
		with_header "$W/one.grid" "s/^origin .*/origin $o/" > "$W/h.grid"
		grid_fails "$W/h.grid" "header line 4: bad or repeated origin"
	done
}

@test "grid: a header without its end, or too long, is refused" {
	{ head -n 14 "$W/one.grid"; for n in $(seq 20); do printf 'k%d %04000d\n' "$n" 0; done; } > "$W/h.grid"
	grid_fails "$W/h.grid" "header longer than 65536 bytes"
	{ head -n 3 "$W/one.grid"; printf 'k %05000d\n' 0; } > "$W/h.grid"
	grid_fails "$W/h.grid" "header line 4: line too long"
	{ head -n 3 "$W/one.grid"; printf 'k\0v\n'; } > "$W/h.grid"
	grid_fails "$W/h.grid" "header line 4: NUL byte in header"
}

@test "grid: control characters in a bad word are not echoed" {
	with_header "$W/one.grid" 's/^channel t.u16 u16 2$/channel t.u16 \x1b[2J 2/' > "$W/h.grid"
	grid_fails "$W/h.grid" "header line 6: unknown channel type ?[2J"
	[[ "$stderr" != *$'\x1b'* ]]
}

@test "grid: CRLF header lines are refused, naming the line" {
	sed '1,15s/$/\r/' "$W/one.grid" > "$W/h.grid"
	grid_fails "$W/h.grid" "header line 1: bad version"
}

@test "grid: binary garbage" {
	grid_fails "$C/garbage.bin" "not a pleat grid stream (bad magic)"
	grid_fails "$C/garbage-high.bin" "not a pleat grid stream (bad magic)"
	# garbage after a good header: the checksum catches it
	{ head -c "$(header_len "$W/one.grid")" "$W/one.grid"; head -c 41699 /dev/urandom; } > "$W/g.grid"
	grid_fails "$W/g.grid" "checksum mismatch: the payload is damaged"
}

@test "grid: garbage after a good grid is an error naming grid 2" {
	cat "$W/one.grid" "$C/garbage.bin" > "$W/g.grid"
	fails pleat-grid check "$W/g.grid" -- "$W/g.grid: grid 2: not a pleat grid stream (bad magic)"
}

@test "grid: a directory or a missing file" {
	fails pleat-grid cat "$W" -- "$W: grid 1: read error: Is a directory"
	fails pleat-grid cat "$W/nope.grid" -- "cannot open $W/nope.grid: No such file or directory"
}

# ---- OBJ ---------------------------------------------------------------

@test "obj: an empty file" {
	: > "$W/empty.obj"
	obj_fails "$W/empty.obj" "no mesh in the input (it is empty)"
}

@test "obj: truncated mid-line" {
	printf 'v 0 0 0\nv 1 0' > "$W/t.obj"
	obj_fails "$W/t.obj" "line 2: v needs 3 coordinates, found 2"
	head -n 5 "$W/square.obj" | head -c -3 > "$W/t.obj"
	obj_fails "$W/t.obj" "line 5: vt needs 2 coordinates, found 1"
}

@test "obj: truncated after the v block" {
	grep '^v ' "$W/square.obj" > "$W/t.obj"
	obj_fails "$W/t.obj" "no faces"
	grep -v '^f ' "$W/square.obj" > "$W/t.obj"
	obj_fails "$W/t.obj" "no faces"
}

@test "obj: truncated mid-face" {
	# the last line is "f 1/1 3/3 4/4"; cut it after each of its bytes
	local cut want
	for cut in 1 2 3 4 5 6 7 8 9 10 11 12; do
		{ head -n 9 "$W/square.obj"; printf 'f 1/1 3/3 4/4' | head -c "$cut"; } > "$W/t.obj"
		case $cut in
		1|2) want="face has 0 corners (at least 3 needed)" ;;
		3|5|6) want="face has 1 corner (at least 3 needed)" ;;
		4) want="bad face corner '1/'" ;;
		7|11) want="face mixes corners with and without texture coordinates" ;;
		8) want="bad face corner '3/'" ;;
		9|10) want="face has 2 corners (at least 3 needed)" ;;
		12) want="bad face corner '4/'" ;;
		esac
		obj_fails "$W/t.obj" "line 10: $want"
	done
}

@test "obj: huge indices" {
	local n
	for n in 99999999999999999999 2147483648 4294967297 5; do
		sed "s|^f 1/1 3/3 4/4\$|f 1/1 3/3 $n/4|" "$W/square.obj" > "$W/i.obj"
		obj_fails "$W/i.obj" "line 10: face index $n out of range (4 vertices)"
		sed "s|^f 1/1 3/3 4/4\$|f 1/1 3/3 4/$n|" "$W/square.obj" > "$W/i.obj"
		obj_fails "$W/i.obj" "line 10: face texture index $n out of range (4 texture coordinates)"
	done
	sed 's|^f 1/1 3/3 4/4$|f 1/1/1 3/3/1 4/4/99999999999999999999|' "$W/square.obj" > "$W/i.obj"
	obj_fails "$W/i.obj" "line 10: face normal index 1 out of range (0 normals)"
}

@test "obj: negative and zero indices out of range" {
	local n
	for n in -5 -99999999999999999999 -2147483649; do
		sed "s|^f 1/1 3/3 4/4\$|f 1/1 3/3 $n/4|" "$W/square.obj" > "$W/i.obj"
		obj_fails "$W/i.obj" "line 10: face index $n out of range (4 vertices)"
	done
	sed 's|^f 1/1 3/3 4/4$|f 1/1 3/3 4/0|' "$W/square.obj" > "$W/i.obj"
	obj_fails "$W/i.obj" "line 10: face texture index 0 is invalid (OBJ indices start at 1)"
	printf 'f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n' > "$W/i.obj"
	obj_fails "$W/i.obj" "line 1: face index 1 out of range (0 vertices)"
}

@test "obj: NaN and infinite coordinates" {
	local x
	for x in nan NaN -nan inf -Infinity 1e999 -1e400; do
		sed "1s/^v [^ ]*/v $x/" "$W/square.obj" > "$W/n.obj"
		obj_fails "$W/n.obj" "line 1: coordinate '$x' is not a finite number"
		sed "5s/^vt [^ ]*/vt $x/" "$W/square.obj" > "$W/n.obj"
		obj_fails "$W/n.obj" "line 5: coordinate '$x' is not a finite number"
	done
	sed '5s/^vt .*/vt 0 0 nan/' "$W/square.obj" > "$W/n.obj"
	obj_fails "$W/n.obj" "line 5: coordinate 'nan' is not a finite number"
}

@test "obj: texture coordinates whose extent overflows" {
	obj_fails "$C/obj-huge-extent.obj" "texture coordinates too large: the pattern's extent overflows"
	fails pleat-resample -s 8 --uv-scale 1e9 "$C/obj-huge-span.obj" -- \
		"obj-huge-span.obj: texture coordinates too large: the pattern's extent overflows"
}

@test "obj: a cell size that gives more cells than a long holds" {
	# 1e300 m at 1 mm: the cell count overflowed the conversion to long
	# and wrapped to a small, wrong grid
	fails pleat-resample --cell 0.001 "$C/obj-huge-span.obj" -- \
		"obj-huge-span.obj: grid of 1e+303 cells across is too large (at most 1048576 each way)"
}

@test "obj: a face with too many corners" {
	{ cat "$W/square.obj"; printf 'f'; for i in $(seq 4097); do printf ' 1/1'; done; printf '\n'; } > "$W/f.obj"
	obj_fails "$W/f.obj" "line 11: face has more than 4096 corners"
}

@test "obj: binary garbage" {
	obj_fails "$C/garbage.bin" "line 1: NUL byte in line (not a text file?)"
	obj_fails "$C/garbage-high.bin" "no faces"
	printf 'v 0 0 0\nf 1 \x1b[2J 1\n' > "$W/b.obj"
	obj_fails "$W/b.obj" "line 2: bad face corner '?[2J'"
	[[ "$stderr" != *$'\x1b'* ]]
}

@test "obj: a directory or a missing file" {
	fails pleat-resample -s 8 "$W" -- "cannot open $W: Is a directory"
	fails pleat-resample -s 8 "$W/nope.obj" -- "cannot open $W/nope.obj: No such file or directory"
}

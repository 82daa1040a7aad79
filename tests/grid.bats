#!/usr/bin/env bats
# The grid stream: exact round trips, pass-through, and a distinct clear
# error for every kind of damage (pleat-grid(5)).

bats_require_minimum_version 1.5.0
load common

setup() {
	T="$PLEAT_TESTBIN/test_grid"
	W="$BATS_TEST_TMPDIR"
	"$T" make 1 > "$W/one.grid"
}

# header_len FILE: bytes up to and including the "end" line.
header_len() {
	LC_ALL=C awk '{ n += length($0) + 1 } /^end$/ { print n; exit }' "$1"
}

# edit_header FILE SED-EXPR > OUT: rewrite the text header, keep the payload.
edit_header() {
	local n; n=$(header_len "$1")
	{ head -c "$n" "$1" | sed "$2"; tail -c +"$((n + 1))" "$1"; }
}

# expect_error FILE MESSAGE: a stage reading FILE fails with exit 1, the
# message on stderr, nothing on stdout.
expect_error() {
	run --separate-stderr pleat-grid cat "$1"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"$2"* ]] || { echo "stderr: $stderr"; return 1; }
}

@test "write then read is bit-exact for every channel type" {
	run "$T" roundtrip
	[ "$status" -eq 0 ]
	[[ "$output" == identical* ]]
}

@test "a stage passes every channel and key through unchanged, bit for bit" {
	"$T" make 3 > "$W/three.grid"
	pleat-grid cat "$W/three.grid" > "$W/copy.grid"
	cmp "$W/three.grid" "$W/copy.grid"
	grep -a -q '^channel user.wetness f32 1$' "$W/copy.grid"
	grep -a -q '^studio-shot sq042 take 3$' "$W/copy.grid"
}

@test "binary16 conversion is exact for all 65536 values and rounds to even" {
	run "$T" half
	[ "$status" -eq 0 ]
	[ "$output" = "0 mismatches" ]
}

@test "two grids in one stream read as two" {
	"$T" make 2 > "$W/two.grid"
	run "$T" count "$W/two.grid"
	[ "$output" = 2 ]
	cat "$W/one.grid" "$W/two.grid" | pleat-grid cat > "$W/three.grid"
	run "$T" count "$W/three.grid"
	[ "$output" = 3 ]
}

@test "an empty stream holds no grid and is not an error" {
	run "$T" count /dev/null
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
}

@test "unknown optional header keys are skipped and kept" {
	edit_header "$W/one.grid" 's/^end$/x-future-key 1 2 3\nend/' > "$W/k.grid"
	pleat-grid cat "$W/k.grid" > "$W/out.grid"
	grep -a -q '^x-future-key 1 2 3$' "$W/out.grid"
}

@test "a newer minor version is read" {
	edit_header "$W/one.grid" '1s/^pleat-grid 1.0$/pleat-grid 1.9/' > "$W/v.grid"
	run "$T" count "$W/v.grid"
	[ "$status" -eq 0 ]
	[ "$output" = 1 ]
}

@test "a newer major version is refused" {
	edit_header "$W/one.grid" '1s/^pleat-grid 1.0$/pleat-grid 2.0/' > "$W/v.grid"
	expect_error "$W/v.grid" "v.grid: grid 1: format version 2.0 is not supported (this pleat reads 1.x)"
}

@test "wrong magic is refused" {
	edit_header "$W/one.grid" '1s/^pleat-grid/PLEAT-GRID/' > "$W/m.grid"
	expect_error "$W/m.grid" "m.grid: grid 1: not a pleat grid stream (bad magic)"
	printf 'P6\n640 480\n255\n' > "$W/ppm.grid"
	expect_error "$W/ppm.grid" "not a pleat grid stream (bad magic)"
	head -c 5000 /dev/urandom > "$W/noise.grid"
	expect_error "$W/noise.grid" "noise.grid: grid 1:"
}

@test "a stream truncated in the payload is an error naming the channel" {
	n=$(wc -c < "$W/one.grid")
	head -c $((n - 7)) "$W/one.grid" > "$W/t.grid"
	expect_error "$W/t.grid" "t.grid: grid 1: truncated: stream ends in channel 'user.wetness'"
}

@test "a stream truncated in the header is an error" {
	head -c 60 "$W/one.grid" > "$W/t.grid"
	expect_error "$W/t.grid" "t.grid: grid 1: truncated: stream ends inside the header"
}

@test "a truncated second grid is an error naming grid 2" {
	"$T" make 2 > "$W/two.grid"
	n=$(wc -c < "$W/two.grid")
	head -c $((n - 1000)) "$W/two.grid" > "$W/t.grid"
	run --separate-stderr "$T" count "$W/t.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"t.grid: grid 2: truncated"* ]]
}

@test "a damaged payload fails the checksum" {
	n=$(header_len "$W/one.grid")
	cp "$W/one.grid" "$W/d.grid"
	printf '\x5a' | dd of="$W/d.grid" bs=1 seek=$((n + 100)) conv=notrunc 2>/dev/null
	cmp -s "$W/one.grid" "$W/d.grid" && skip "byte already had that value"
	expect_error "$W/d.grid" "d.grid: grid 1: checksum mismatch: the payload is damaged"
}

@test "sizes past the limits are refused before allocating" {
	edit_header "$W/one.grid" 's/^size .*/size 1048576 1048576/' > "$W/s.grid"
	expect_error "$W/s.grid" "header line 2: size has 2^31 vertices or more"
	edit_header "$W/one.grid" 's/^size .*/size 99999999999999999999999 3/' > "$W/s.grid"
	expect_error "$W/s.grid" "header line 2: bad or repeated size"
	edit_header "$W/one.grid" 's/^size .*/size -4 3/' > "$W/s.grid"
	expect_error "$W/s.grid" "header line 2: bad or repeated size"
}

@test "a payload size that disagrees with the channels is refused" {
	edit_header "$W/one.grid" 's/^payload .*/payload 18446744073709551615/' > "$W/p.grid"
	expect_error "$W/p.grid" "bad or repeated payload size"
	edit_header "$W/one.grid" 's/^payload .*/payload 12/' > "$W/p.grid"
	expect_error "$W/p.grid" "p.grid: grid 1: header says payload 12 bytes but its channels hold"
}

@test "a grid larger than the machine's memory fails fast" {
	# 46000^2 vertices x 16 f64 components = 270 GB: within the format's
	# limits, beyond any test machine; refused from the header alone.
	edit_header "$W/one.grid" 's/^size .*/size 46000 46000/; s/^channel t.f64 f64 1$/channel t.f64 f64 16/; s/^payload .*/payload 0/' > "$W/big.grid"
	run --separate-stderr pleat-grid cat "$W/big.grid"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"header says payload 0 bytes but its channels hold"* ]]
	bytes=$((46000 * 46000 * (1 + 4 + 12 + 4 + 4 + 12 + 128 + 4)))
	edit_header "$W/one.grid" "s/^size .*/size 46000 46000/; s/^channel t.f64 f64 1\$/channel t.f64 f64 16/; s/^payload .*/payload $bytes/" > "$W/big.grid"
	expect_error "$W/big.grid" "big.grid: grid 1: needs"
	[[ "$stderr" == *"more than this machine's"* ]]
}

@test "header syntax errors name the line" {
	edit_header "$W/one.grid" 's/^channel t.u16 u16 2$/channel t.u16 u24 2/' > "$W/h.grid"
	expect_error "$W/h.grid" "h.grid: grid 1: header line 6: unknown channel type u24"
	edit_header "$W/one.grid" 's/^channel t.u16 u16 2$/channel t.u16 u16 17/' > "$W/h.grid"
	expect_error "$W/h.grid" "header line 6: bad component count 17"
	edit_header "$W/one.grid" 's/^channel t.u16 u16 2$/channel t.u8 u16 2/' > "$W/h.grid"
	expect_error "$W/h.grid" "header line 6: duplicate channel t.u8"
	edit_header "$W/one.grid" '/^checksum/d' > "$W/h.grid"
	expect_error "$W/h.grid" "h.grid: grid 1: header lacks checksum"
	edit_header "$W/one.grid" 's/^cell .*/cell nan/' > "$W/h.grid"
	expect_error "$W/h.grid" "header line 3: bad or repeated cell size"
	edit_header "$W/one.grid" 's/^origin .*/origin 1  2/' > "$W/h.grid"
	expect_error "$W/h.grid" "header line 4: malformed line"
}

@test "binary grids are not written to a terminal" {
	command -v script >/dev/null || skip "script(1) not installed"
	run script -qec "pleat-grid cat $W/one.grid" /dev/null
	[[ "$output" == *"refusing to write binary data to a terminal"* ]]
}

@test "an output that is a device or a FIFO is written in place, not replaced" {
	# -o /dev/null: written to, and still the character device
	pleat-grid cat -o /dev/null "$W/one.grid"
	[ -c /dev/null ]
	[ -z "$(ls -a /dev | grep 'null\.tmp')" ]
	# -o FIFO: the reader at the other end gets the grid
	mkfifo "$W/fifo"
	cat "$W/fifo" > "$W/through.grid" &
	pleat-grid cat -o "$W/fifo" "$W/one.grid"
	wait
	[ -p "$W/fifo" ]
	cmp "$W/one.grid" "$W/through.grid"
}

@test "a failed stage leaves no half-written output file" {
	n=$(wc -c < "$W/one.grid")
	head -c $((n - 7)) "$W/one.grid" > "$W/t.grid"
	run pleat-grid cat -o "$W/out.grid" "$W/one.grid" "$W/t.grid"
	[ "$status" -eq 1 ]
	[ ! -e "$W/out.grid" ]
	[ -z "$(ls "$W" | grep '\.tmp')" ]
	pleat-grid cat -o "$W/out.grid" "$W/one.grid"
	cmp "$W/one.grid" "$W/out.grid"
}

@test "the checksum is XXH3-64 of the payload, as xxhsum computes it" {
	command -v xxhsum >/dev/null || skip "xxhsum not installed"
	n=$(header_len "$W/one.grid")
	want=$(grep -a -m1 '^checksum ' "$W/one.grid" | cut -d' ' -f3)
	got=$(tail -c +"$((n + 1))" "$W/one.grid" | xxhsum -H3 | awk "{ print \$NF }")
	[ "$got" = "$want" ]
}

@test "a directory is a read error, not an empty stream" {
	run --separate-stderr pleat-grid info "$W"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$W: grid 1: read error: Is a directory"* ]]
}

@test "pleat-grid refuses an option of another command" {
	run --separate-stderr pleat-grid dump -d rest "$W/one.grid"
	[ "$status" -eq 2 ]; [ -z "$output" ]
	run --separate-stderr pleat-grid cat -c rest "$W/one.grid"
	[ "$status" -eq 2 ]; [ -z "$output" ]
}

@test "header numbers are plain decimals" {
	edit_header "$W/one.grid" 's/^size \([0-9]*\) /size +\1 /' > "$W/h.grid"
	expect_error "$W/h.grid" "header line 2: bad or repeated size"
	edit_header "$W/one.grid" 's/^cell .*/cell 0x1p-10/' > "$W/h.grid"
	expect_error "$W/h.grid" "header line 3: bad or repeated cell size"
}

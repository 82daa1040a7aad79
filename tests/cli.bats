#!/usr/bin/env bats
# Command-line conventions that every program follows (DESIGN.md §5):
# --help, --version, usage errors, missing and unreadable input files.
# Each test runs every program in bin/ (PLEAT_BIN), so a new program is
# covered as soon as it is built; a failure names the program.

load common
bats_require_minimum_version 1.5.0

# Every program built: the files bin/pleat-* (fails when there is none).

# Programs that read no input file (pleat-drape makes its own square).
reads_input() {
	[ "$1" != pleat-drape ]
}

# capture CMD ARGS...: runs it with no standard input and sets $status,
# $out (its standard output) and $err (its standard error).
capture() {
	status=0
	"$@" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" </dev/null ||
		status=$?
	out=$(cat "$BATS_TEST_TMPDIR/out")
	err=$(cat "$BATS_TEST_TMPDIR/err")
}

# expect NAME WHAT TEST...: runs the test command; on failure notes it
# (with the program's output) and counts it in $failed.
failed=0
expect() {
	local name=$1 what=$2
	shift 2
	if ! "$@"; then
		echo "FAIL $name: $what (status $status)"
		echo "  stdout: ${out:0:300}"
		echo "  stderr: ${err:0:300}"
		failed=$((failed + 1))
	fi
}

# The version every program reports: PLEAT_VERSION in common/util.h.
pleat_version() {
	sed -n 's/^#define PLEAT_VERSION "\(.*\)"$/\1/p' "$ROOT/common/util.h"
}

@test "there are programs to test" {
	run programs
	[ "$status" -eq 0 ]
	[ -n "$output" ]
}

@test "--help: usage on stdout, status 0, nothing on stderr" {
	local prog name
	for prog in $(programs); do
		name=$(basename "$prog")
		capture "$prog" --help
		expect "$name" "--help exits 0" [ "$status" -eq 0 ]
		expect "$name" "--help starts with 'usage: $name'" \
			[ "${out:0:$((7 + ${#name}))}" = "usage: $name" ]
		expect "$name" "--help writes nothing on stderr" [ -z "$err" ]
	done
	[ "$failed" -eq 0 ]
}

@test "--version: 'pleat-NAME VERSION' on stdout, status 0" {
	local prog name version
	version=$(pleat_version)
	[ -n "$version" ]
	for prog in $(programs); do
		name=$(basename "$prog")
		capture "$prog" --version
		expect "$name" "--version exits 0" [ "$status" -eq 0 ]
		expect "$name" "--version prints '$name $version'" \
			[ "$out" = "$name $version" ]
		expect "$name" "--version writes nothing on stderr" [ -z "$err" ]
	done
	[ "$failed" -eq 0 ]
}

@test "an unknown option: status 2, named on stderr, nothing on stdout" {
	local prog name
	for prog in $(programs); do
		name=$(basename "$prog")
		capture "$prog" $(input_prefix "$name") --no-such-option
		expect "$name" "an unknown option exits 2" [ "$status" -eq 2 ]
		expect "$name" "the message names --no-such-option" \
			grep -q -e "--no-such-option" "$BATS_TEST_TMPDIR/err"
		expect "$name" "the message starts with '$name: '" \
			[ "${err:0:$((${#name} + 2))}" = "$name: " ]
		expect "$name" "nothing on stdout" [ -z "$out" ]
	done
	[ "$failed" -eq 0 ]
}

@test "a missing input file: status 1, named on stderr, nothing on stdout" {
	local prog name file=/nonexistent/file.obj
	for prog in $(programs); do
		name=$(basename "$prog")
		reads_input "$name" || continue
		capture "$prog" $(input_prefix "$name") "$file"
		expect "$name" "a missing file exits 1" [ "$status" -eq 1 ]
		expect "$name" "the message names $file" \
			grep -qF "$file" "$BATS_TEST_TMPDIR/err"
		expect "$name" "the message starts with '$name: '" \
			[ "${err:0:$((${#name} + 2))}" = "$name: " ]
		expect "$name" "nothing on stdout" [ -z "$out" ]
	done
	[ "$failed" -eq 0 ]
}

@test "an unreadable input file: status 1, named on stderr" {
	# As root (CI is), chmod 000 does not stop reading: the programs then
	# run as nobody, the file in a folder that nobody can enter.
	local prog name as=() dir
	dir=$(mktemp -d)
	chmod 1777 "$dir"
	local file="$dir/unreadable.obj"
	local bin=$PLEAT_BIN
	if [ "$(id -u)" -eq 0 ]; then
		as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
		# the checkout may be where nobody cannot go (/root): copies
		bin="$dir/bin"
		cp -r "$PLEAT_BIN" "$bin"
		chmod -R a+rX "$bin"
	fi
	printf 'v 0 0 0\n' >"$file"
	chmod 000 "$file"
	# the condition itself: this user cannot read the file
	run ! "${as[@]}" cat "$file"
	for prog in $(programs); do
		name=$(basename "$prog")
		reads_input "$name" || continue
		capture "${as[@]}" env PATH="$bin:$PATH" "$bin/$name" \
			$(BATS_TEST_TMPDIR=$dir input_prefix "$name") "$file"
		expect "$name" "an unreadable file exits 1" [ "$status" -eq 1 ]
		expect "$name" "the message names the file" \
			grep -qF "$file" "$BATS_TEST_TMPDIR/err"
		expect "$name" "nothing on stdout" [ -z "$out" ]
	done
	rm -rf "$dir"
	[ "$failed" -eq 0 ]
}

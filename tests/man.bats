#!/usr/bin/env bats
# The man pages: mandoc -T lint is clean, every program has a page, and
# each page's SYNOPSIS names the same options as the program's --help.

load common
load synopsis

need_mandoc() {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
}

# Every man page of the project.
pages() {
	ls "$ROOT"/man/man[1-9]/*.[1-9] 2>/dev/null
}

# Every program built: the files bin/pleat-* (fails when there is none).

@test "mandoc -T lint -W warning is clean on every page under man/" {
	need_mandoc
	run pages
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	run mandoc -T lint -W warning $(pages)
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the grid format has its page, pleat-grid(5)" {
	[ -f "$ROOT/man/man5/pleat-grid.5" ]
}

@test "every program has a man page in section 1 with its name" {
	local prog name page bad=0
	run programs
	[ "$status" -eq 0 ]
	for prog in $(programs); do
		name=$(basename "$prog")
		page="$ROOT/man/man1/$name.1"
		if [ ! -f "$page" ]; then
			echo "$name: no man page $page"
			bad=1
		elif ! grep -qx "\.Dt $(printf '%s' "$name" | tr a-z A-Z) 1" "$page"; then
			echo "$name: $page lacks '.Dt $(printf '%s' "$name" | tr a-z A-Z) 1'"
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}

@test "every program's SYNOPSIS names the options of its --help usage" {
	need_mandoc
	local prog name page bad=0
	run programs
	[ "$status" -eq 0 ]
	for prog in $(programs); do
		name=$(basename "$prog")
		page="$ROOT/man/man1/$name.1"
		if [ ! -f "$page" ]; then
			echo "$name: no man page"
			bad=1
			continue
		fi
		synopsis_matches_help "$prog" "$page" || bad=1
	done
	[ "$bad" = 0 ]
}

# The comparison itself: it must fail when an option is missing on
# either side.  A fake program and a page of its own, then each broken.
fake_program() {
	cat >"$BATS_TEST_TMPDIR/pleat-fake" <<-'EOF'
	#!/bin/sh
	cat <<'USAGE'
	usage: pleat-fake [-a | -b file] [--long-one] [file ...]
	       pleat-fake sub [-c name]

	  -a            an option
	  -z            described, but not in the usage lines
	USAGE
	EOF
	chmod +x "$BATS_TEST_TMPDIR/pleat-fake"
	cat >"$BATS_TEST_TMPDIR/pleat-fake.1" <<-'EOF'
	.Dd November 21, 2026
	.Dt PLEAT-FAKE 1
	.Os
	.Sh NAME
	.Nm pleat-fake
	.Nd a program for testing the test
	.Sh SYNOPSIS
	.Nm
	.Op Fl a | Fl b Ar file
	.Op Fl -long-one
	.Op Ar
	.Nm
	.Cm sub
	.Op Fl c Ar name
	.Sh DESCRIPTION
	Nothing.
	EOF
}

@test "the SYNOPSIS comparison accepts a matching page" {
	need_mandoc
	fake_program
	run synopsis_matches_help "$BATS_TEST_TMPDIR/pleat-fake" "$BATS_TEST_TMPDIR/pleat-fake.1"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the SYNOPSIS comparison fails on an option missing from the page" {
	need_mandoc
	fake_program
	sed -i '/^\.Op Fl -long-one$/d' "$BATS_TEST_TMPDIR/pleat-fake.1"
	run synopsis_matches_help "$BATS_TEST_TMPDIR/pleat-fake" "$BATS_TEST_TMPDIR/pleat-fake.1"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not in the SYNOPSIS"*"--long-one"* ]]
	# a short option, on a second usage line
	fake_program
	sed -i 's/^\.Op Fl c Ar name$/.Op Ar name/' "$BATS_TEST_TMPDIR/pleat-fake.1"
	run synopsis_matches_help "$BATS_TEST_TMPDIR/pleat-fake" "$BATS_TEST_TMPDIR/pleat-fake.1"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not in the SYNOPSIS"*"-c"* ]]
}

@test "the SYNOPSIS comparison fails on an option missing from --help" {
	need_mandoc
	fake_program
	sed -i 's/\[-a | -b file\]/[-b file]/' "$BATS_TEST_TMPDIR/pleat-fake"
	run synopsis_matches_help "$BATS_TEST_TMPDIR/pleat-fake" "$BATS_TEST_TMPDIR/pleat-fake.1"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not in --help usage"*"-a"* ]]
}

@test "the SYNOPSIS comparison fails without usage lines or SYNOPSIS" {
	need_mandoc
	fake_program
	sed -i 's/^usage: //' "$BATS_TEST_TMPDIR/pleat-fake"
	run synopsis_matches_help "$BATS_TEST_TMPDIR/pleat-fake" "$BATS_TEST_TMPDIR/pleat-fake.1"
	[ "$status" -ne 0 ]
	fake_program
	sed -i 's/^\.Sh SYNOPSIS$/.Sh USAGE/' "$BATS_TEST_TMPDIR/pleat-fake.1"
	run synopsis_matches_help "$BATS_TEST_TMPDIR/pleat-fake" "$BATS_TEST_TMPDIR/pleat-fake.1"
	[ "$status" -ne 0 ]
}

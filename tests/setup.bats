#!/usr/bin/env bats
# ./setup, the README's set-up: the package lists, and what it asks of
# apt-get, sudo and dpkg-query, run against stand-ins for them that record
# their arguments (nothing is installed).

bats_require_minimum_version 1.5.0
load common

setup() {
	W="$BATS_TEST_TMPDIR"
	mkdir -p "$W/bin"
	# the tools setup uses besides the package tools
	for t in bash env dirname grep cat nproc printf; do
		ln -s "$(command -v "$t")" "$W/bin/$t"
	done
}

# fake NAME BODY: a stand-in for NAME in $W/bin that logs its arguments
# to $W/calls and then runs BODY.
fake() {
	printf '#!/bin/bash\necho "%s $*" >> "%s/calls"\n%s\n' "$1" "$W" "$2" > "$W/bin/$1"
	chmod +x "$W/bin/$1"
}

# installed_except PACKAGE...: a dpkg-query for which every package but
# these is installed.
installed_except() {
	local missing=" $* "
	printf '#!/bin/bash\np=${@: -1}\ncase "%s" in *" $p "*) exit 1 ;; esac\nprintf "install ok installed"\n' \
		"$missing" > "$W/bin/dpkg-query"
	chmod +x "$W/bin/dpkg-query"
}

@test "-l: each set holds the one before it; the build's is what the README says" {
	run "$ROOT/setup" -l build
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "make gcc g++ libc6-dev libxxhash-dev libpng-dev libgmp-dev" ]
	build=$output
	run "$ROOT/setup" -l test
	[[ $output == "$build"$'\n'* ]]
	[[ $output == *bats* && $output == *mandoc* && $output == *perl* ]]
	tests=$output
	run "$ROOT/setup" -l ci
	[[ $output == "$tests"$'\n'* ]]
	[[ $output == *clang* ]]
}

@test "only the missing packages, through sudo when not root, with one update" {
	installed_except mandoc bats
	fake id 'echo 1000'
	fake sudo 'exec "$@"'
	fake apt-get 'exit 0'
	run env PATH="$W/bin" "$ROOT/setup" -i test
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "setup: installing bats mandoc" ]
	[ "$(grep -c '^apt-get' "$W/calls")" -eq 2 ]
	grep -qx 'sudo apt-get update -qq' "$W/calls"
	grep -qx 'sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bats mandoc' "$W/calls"
}

@test "as root: apt-get itself; nothing missing: apt-get is not run" {
	installed_except libpng-dev
	fake id 'echo 0'
	fake apt-get 'exit 0'
	run env PATH="$W/bin" "$ROOT/setup" -i build
	[ "$status" -eq 0 ]
	grep -qx 'apt-get install -y -qq --no-install-recommends libpng-dev' "$W/calls"
	run ! grep -q '^sudo' "$W/calls"
	rm "$W/calls"
	installed_except
	run env PATH="$W/bin" "$ROOT/setup" -i ci
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	! grep -q '^apt-get' "$W/calls"
}

@test "no apt-get: exit 1, what to install by other means; not root and no sudo: exit 1, the command" {
	run env PATH="$W/bin" "$ROOT/setup" example
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "setup: apt-get is not here: this script installs packages on Debian and Ubuntu only." ]
	[ "${lines[1]}" = "setup: install these (Debian names) with your system's package manager, then run make:" ]
	[ "$(echo ${lines[@]:2})" = "make gcc g++ libc6-dev libxxhash-dev libpng-dev libgmp-dev" ]
	installed_except libxxhash-dev
	fake id 'echo 1000'
	fake apt-get 'exit 0'
	run env PATH="$W/bin" "$ROOT/setup" example
	[ "$status" -eq 1 ]
	[ "$output" = "setup: not root and no sudo: as root, run apt-get install libxxhash-dev" ]
	! grep -q '^apt-get' "$W/calls"
}

@test "a failing apt-get: exit 1 naming the packages; usage errors: exit 2" {
	installed_except make
	fake id 'echo 0'
	fake apt-get '[ "$1" = update ] || exit 100'
	run env PATH="$W/bin" "$ROOT/setup" -i build
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "setup: apt-get install make failed" ]
	run "$ROOT/setup"
	[ "$status" -eq 2 ]
	run "$ROOT/setup" -l nothing
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "setup: unknown set 'nothing' (build, test or ci)" ]
	run "$ROOT/setup" build
	[ "$status" -eq 2 ]
	run "$ROOT/setup" example extra
	[ "$status" -eq 2 ]
}

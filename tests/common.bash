# Shared setup for the bats tests.  PLEAT_BIN and PLEAT_TESTBIN point the
# suite at another build (the sanitizer build sets both).
ROOT="$(cd "$(dirname "${BATS_TEST_FILENAME}")/.." && pwd)"
PLEAT_BIN="${PLEAT_BIN:-$ROOT/bin}"
PLEAT_TESTBIN="${PLEAT_TESTBIN:-$ROOT/build/tests}"
SHARED="${PLEAT_SHARED:-$ROOT/../shared/data}"
FIXTURES="$ROOT/tests/fixtures"
PATH="$PLEAT_BIN:$PATH"
export ROOT PLEAT_BIN PLEAT_TESTBIN SHARED FIXTURES PATH

# Skips the test, visibly, when ../shared/data is not beside the checkout.
need_shared() {
	[ -d "$SHARED" ] || skip "../shared/data not present"
}

# A solve of a whole garment at full size: minutes under ASan + UBSan, so
# make test-san (PLEAT_SANITIZED) leaves it to the suite.
not_sanitized() {
	[ -z "${PLEAT_SANITIZED:-}" ] || skip "a full-size garment: run by make test, not under the sanitizers"
}

# Every program built into $PLEAT_BIN, one path a line; fails when none.
programs() {
	local p found=0
	for p in "$PLEAT_BIN"/pleat-*; do
		[ -f "$p" ] && [ -x "$p" ] || continue
		echo "$p"
		found=1
	done
	[ "$found" = 1 ] || { echo "no programs in $PLEAT_BIN: run make" >&2; return 1; }
}

# numeric 'EXPR' NAME=VALUE...: true when every VALUE is a finite decimal
# number and the awk condition EXPR on them holds.  An empty value, "nan",
# "-nan" or "inf" fails with the value shown: awk (mawk) compares such a
# string as a string, so that a bare `awk -v e="" 'BEGIN { exit !(e < 1) }'`
# passes whatever the program printed.
numeric() {
	local expr=$1 kv name value
	local args=() coerce=""
	shift
	for kv in "$@"; do
		name=${kv%%=*}
		value=${kv#*=}
		if ! [[ $value =~ ^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]]; then
			echo "numeric: $name='$value' is not a number" >&2
			return 1
		fi
		args+=(-v "$name=$value")
		coerce+="$name += 0; "
	done
	awk "${args[@]}" "BEGIN { $coerce exit !($expr) }" || {
		echo "numeric: not ($expr) for $*" >&2
		return 1
	}
}

# How each program is given an input file: the words that come before
# the file.  A program not listed takes its input files as operands.
input_prefix() {
	case "$1" in
	pleat-grid) echo info ;;
	pleat-initialize) echo --flicker ;;
	pleat-frame) echo -o "$BATS_TEST_TMPDIR/frame.grid" ;;
	*) ;;
	esac
}

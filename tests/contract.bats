#!/usr/bin/env bats
# The contract every program keeps (pleat(7)): a signal removes every
# temporary file and ends the program with status 128 + N; an empty input
# is an error naming it; a terminal on standard input is refused, or what
# is awaited there is said.

load common
bats_require_minimum_version 1.5.0

setup() {
	W="$BATS_TEST_TMPDIR"
	pleat-resample -q -s 32 "$ROOT/examples/skirt.obj" > "$W/g.grid"
	pleat-solve -q -n 4 "$W/g.grid" > "$W/s.grid"
}

# Waits (60 s at most) until a file matching the glob exists.
appears() {
	local k
	for ((k = 0; k < 6000; k++)); do
		compgen -G "$1" >/dev/null && return 0
		sleep 0.01
	done
	echo "nothing like $1 appeared" >&2
	return 1
}

# dies_clean SIG GLOB PID: once a temporary file (GLOB) is there, sends
# SIG to PID; the program must die of it (status 128 + N) and leave
# nothing matching GLOB.
dies_clean() {
	local sig=$1 glob=$2 pid=$3 status=0
	appears "$glob" || { kill -KILL "$pid"; return 1; }
	kill -s "$sig" "$pid"
	wait "$pid" || status=$?
	echo "SIG$sig: status $status; left: $(compgen -G "$glob" || echo nothing)"
	[ "$status" -eq $((128 + $(kill -l "$sig"))) ]
	! compgen -G "$glob" >/dev/null
}

# started CMD...: CMD in the background, its signals as a foreground
# program has them (a shell starts a background job with SIGINT ignored,
# and an ignored signal stays ignored); sets pid.  Its standard input is
# $stdin (a background job's is otherwise /dev/null).
stdin=/dev/null
started() {
	env --default-signal "$@" < "$stdin" &
	pid=$!
}

# A FIFO that delivers one grid, then stays open: a stream program has
# its output open and waits for the next grid.
feed_one_grid() {
	rm -f "$W/in"
	mkfifo "$W/in"
	{ cat "$1"; exec sleep 120; } > "$W/in" 2>/dev/null &
	feeder=$!
}

# stream_program_dies_clean SIG CMD...: CMD reads the FIFO, writes out.grid.
stream_program_dies_clean() {
	local sig=$1 pid
	shift
	feed_one_grid "$W/s.grid"
	stdin="$W/in" started "$@" 2>/dev/null
	dies_clean "$sig" "$W/out.grid.tmp*" "$pid"
	kill "$feeder" 2>/dev/null || true
}

@test "a signal (INT, TERM) removes the temporary output of the grid stream programs and pleat-collide" {
	local sig
	for sig in INT TERM; do
		stream_program_dies_clean $sig pleat-solve -q -n 2 -o "$W/out.grid"
		stream_program_dies_clean $sig pleat-gather --set 1,0,1 -o "$W/out.grid"
		stream_program_dies_clean $sig pleat-grid cat -o "$W/out.grid"
		stream_program_dies_clean $sig pleat-initialize -q -t "$W/s.grid" -o "$W/out.grid"
		# its lines, not a grid, under the same name
		stream_program_dies_clean $sig pleat-collide -q -o "$W/out.grid"
		[ ! -e "$W/out.grid" ]
	done
}

@test "a signal (INT, TERM, HUP) removes pleat-resample's temporary output" {
	local sig pid
	rm -f "$W/in"
	mkfifo "$W/in"
	for sig in INT TERM HUP; do
		# the first mesh is written, the second (a FIFO) awaited
		started pleat-resample -s 32 -o "$W/out.grid" "$ROOT/examples/skirt.obj" "$W/in"
		dies_clean $sig "$W/out.grid.tmp*" "$pid"
	done
}

@test "a signal (INT, TERM) removes pleat-normalmap's two temporary outputs" {
	local sig pid
	for sig in INT TERM; do
		# a large map: seconds of PNG compression with both files open
		started pleat-normalmap -q --mesh "$ROOT/examples/skirt.obj" --uv-fit \
			--size 8192 --bits 16 --preview "$W/p.png" -o "$W/out.png" "$W/s.grid"
		dies_clean $sig "$W/*.png.tmp*" "$pid"
		[ ! -e "$W/out.png" ]
	done
}

@test "a signal (INT, TERM) removes pleat-simplify's temporary output" {
	local sig pid
	pleat-resample -s 1024 "$ROOT/examples/skirt.obj" > "$W/big.grid"
	for sig in INT TERM; do
		# every vertex kept: a large OBJ, written for a while
		started pleat-simplify -q --tolerance 0 -o "$W/out.obj" "$W/big.grid"
		dies_clean $sig "$W/out.obj.tmp*" "$pid"
	done
}

@test "a signal (INT, TERM) removes the work folder of pleat-frame and pleat-drape" {
	local sig pid
	for sig in INT TERM; do
		started pleat-frame -q -l 192,384 -n 200 -o "$W/f.grid" "$ROOT/examples/skirt.obj"
		dies_clean $sig "$W/.pleat-frame.*" "$pid"
		started env TMPDIR=$W pleat-drape -q -s 64 --frames 4 -n 500 -o "$W/d.grid"
		dies_clean $sig "$W/pleat-drape.*" "$pid"
	done
}

@test "an empty input, a file or standard input: status 1, 'no grid in the input'" {
	local prog name want bad=0
	: > "$W/empty"
	for prog in $(programs); do
		name=$(basename "$prog")
		[ "$name" != pleat-drape ] || continue
		want="no grid in the input (it is empty)"
		case $name in pleat-resample|pleat-frame) want="no mesh in the input (it is empty)" ;; esac
		run --separate-stderr "$prog" $(input_prefix "$name") "$W/empty"
		if [ "$status" -ne 1 ] || [[ "$stderr" != *"$W/empty: $want"* ]] || [ -n "$output" ]; then
			echo "$name (file): status $status: $stderr"
			bad=1
		fi
		[ "$name" != pleat-frame ] || continue
		run --separate-stderr "$prog" $(input_prefix "$name") < "$W/empty"
		if [ "$status" -ne 1 ] || [[ "$stderr" != *"standard input: $want"* && \
			"$stderr" != *"<stdin>: $want"* ]] || [ -n "$output" ]; then
			echo "$name (standard input): status $status: $stderr"
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}

# What each program needs to get as far as reading standard input.
terminal_words() {
	case "$1" in
	pleat-simplify) echo -f obj -o /dev/null ;;
	*) echo -o /dev/null ;;
	esac
}

@test "a terminal on standard input: refused by the grid readers, prompted for by pleat-resample" {
	command -v script >/dev/null || skip "script(1) is not installed"
	local prog name bad=0
	for prog in $(programs); do
		name=$(basename "$prog")
		case $name in pleat-drape|pleat-frame|pleat-resample) continue ;; esac
		run script -qec "$prog $(input_prefix "$name") $(terminal_words "$name")" /dev/null < /dev/null
		if [ "$status" -ne 1 ] || [[ "$output" != *"standard input is a terminal: grids are binary"* ]]; then
			echo "$name: status $status: $output"
			bad=1
		fi
	done
	run script -qec "pleat-resample -s 8 -o /dev/null" /dev/null < /dev/null
	echo "$output"
	[[ "$output" == *"reading an OBJ mesh from the terminal; end it with Ctrl-D"* ]]
	[ "$bad" = 0 ]
}

# Every "-X, --long" pair of a program's --help, one "X long" a line.
short_options() {
	"$1" --help | sed -nE 's/^ +-([A-Za-z0-9]), --([a-z0-9-]+).*/\1 \2/p'
}

@test "a short option means one thing across the programs" {
	local prog letter long seen bad=0
	declare -A meaning
	for prog in $(programs); do
		while read -r letter long; do
			seen=${meaning[$letter]:-}
			if [ -n "$seen" ] && [ "${seen%% *}" != "$long" ]; then
				echo "-$letter: --$long in $(basename "$prog"), --$seen"
				bad=1
			fi
			meaning[$letter]="$long in $(basename "$prog")"
		done < <(short_options "$prog")
	done
	[ "${#meaning[@]}" -gt 10 ]
	[ "$bad" = 0 ]
}

@test "the shared options in every program: -o, -q, -v, --progress, -h, -V" {
	local prog name opt bad=0
	for prog in $(programs); do
		name=$(basename "$prog")
		for opt in "o output" "q quiet" "v verbose" "h help" "V version"; do
			if ! short_options "$prog" | grep -qx "$opt"; then
				echo "$name: no -${opt% *}, --${opt#* }"
				bad=1
			fi
		done
		if ! "$prog" --help | grep -qE '^ +--progress '; then
			echo "$name: no --progress"
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}

# old_spelling PROGRAM OLD NEW ARGS...: PROGRAM with the old short option
# OLD warns (naming NEW) and writes what it writes with NEW (into files
# ending in $ext).
ext=.out
old_spelling() {
	local prog=$1 old=$2 new=$3
	shift 3
	run --separate-stderr "$prog" -q "${@/#@/$new}" -o "$W/new$ext"
	[ "$status" -eq 0 ] || { echo "$prog $new: status $status: $stderr"; return 1; }
	run --separate-stderr "$prog" -q "${@/#@/$old}" -o "$W/old$ext"
	[ "$status" -eq 0 ] || { echo "$prog $old: status $status: $stderr"; return 1; }
	[ "$stderr" = "$prog: warning: $old for $new is deprecated and goes in the next release (see pleat(7)): write $new" ] ||
		{ echo "$prog $old: stderr: $stderr"; return 1; }
	if [ "$prog" = pleat-drape ]; then
		# its grids name the mesh it made in a temporary folder
		cmp <(pleat-grid dump -a "$W/new$ext") <(pleat-grid dump -a "$W/old$ext")
	else
		cmp "$W/new$ext" "$W/old$ext"
	fi
}

@test "the old spellings of the changed short options still work, with a warning" {
	local skirt="$ROOT/examples/skirt.obj"
	old_spelling pleat-resample -c --cell @ 0.02 "$skirt"
	old_spelling pleat-resample -u --uv-scale -s 32 @ 1.5 "$skirt"
	old_spelling pleat-resample -a --ghost-angle -s 32 -g 2 @ 30 "$skirt"
	ext=.png old_spelling pleat-normalmap -m --mesh @ "$skirt" --size 64 "$W/s.grid"
	ext=.png old_spelling pleat-normalmap -s --size @ 64 "$W/s.grid"
	ext=.png old_spelling pleat-normalmap -b --bits --size 64 @ 16 "$W/s.grid"
	old_spelling pleat-collide -d --depth @ 0.01 "$W/s.grid"
	old_spelling pleat-collide -s --search @ 0.01 "$W/s.grid"
	old_spelling pleat-collide -l --list @ "$W/s.grid"
	old_spelling pleat-simplify -t --tolerance -f obj @ 0.5 "$W/s.grid"
	old_spelling pleat-drape -f --frames -s 4 -n 2 @ 2
	old_spelling pleat-drape -l --length -s 4 -n 2 --frames 1 @ 0.5
}

# A run of each program on a small input, with extra options first.
typical_run() {
	local name=$1
	shift
	case $name in
	pleat-resample) pleat-resample "$@" -s 32 -o "$W/o" "$ROOT/examples/skirt.obj" ;;
	pleat-initialize) pleat-initialize "$@" -t "$W/s.grid" -o "$W/o" "$W/g.grid" ;;
	pleat-solve) pleat-solve "$@" -n 2 -o "$W/o" "$W/g.grid" ;;
	pleat-simplify) pleat-simplify "$@" -o "$W/o.obj" "$W/s.grid" ;;
	pleat-normalmap) pleat-normalmap "$@" --size 64 -o "$W/o.png" "$W/s.grid" ;;
	pleat-gather) pleat-gather "$@" --set 1,0,0.5 -o "$W/o" "$W/g.grid" ;;
	pleat-grid) pleat-grid cat "$@" -o "$W/o" "$W/g.grid" ;;
	pleat-frame) pleat-frame "$@" -l 192 -n 2 -o "$W/o.grid" "$ROOT/examples/skirt.obj" ;;
	pleat-drape) pleat-drape "$@" -s 4 -n 2 --frames 1 -o "$W/o" ;;
	pleat-collide) pleat-collide "$@" -o "$W/o" "$W/s.grid" ;;
	*) echo "no typical run of $name" >&2; return 1 ;;
	esac
}

# stderr_is empty|some NAME OPTION...: the typical run of NAME with the
# options succeeds and writes nothing, or something that is no warning,
# on standard error; otherwise says so and sets bad.
stderr_is() {
	local want=$1 name=$2
	shift 2
	run --separate-stderr typical_run "$name" "$@"
	if [ "$status" -eq 0 ]; then
		case $want in
		empty) [ -n "$stderr" ] || return 0 ;;
		some) [ -z "$stderr" ] || [[ "$stderr" == *warning* ]] || return 0 ;;
		esac
	fi
	echo "$name $*: status $status, stderr (want $want): '$stderr'"
	bad=1
}

@test "a summary line on standard error (not a terminal here) unless -q" {
	local prog name bad=0
	for prog in $(programs); do
		name=$(basename "$prog")
		# the report of pleat-collide is its output
		[ "$name" != pleat-collide ] || continue
		stderr_is some "$name"
		stderr_is empty "$name" -q
	done
	[ "$bad" = 0 ]
}

@test "--progress: progress lines on standard error when it is not a terminal" {
	local prog bad=0
	for prog in $(programs); do
		stderr_is some "$(basename "$prog")" -q --progress
	done
	[ "$bad" = 0 ]
}

@test "pleat(7)'s table of short options is the programs' own" {
	local prog page="$ROOT/man/man7/pleat.7"
	# rows ".It Fl X Ta Fl -long Ta programs" of the first table
	sed -n '/^\.Ss Short options/,/^\.Ss Changed/p' "$page" |
		sed -nE 's/^\.It Fl ([A-Za-z0-9]) Ta Fl -([a-z0-9-]+) Ta .*/\1 \2/p' |
		sort > "$W/page"
	for prog in $(programs); do short_options "$prog"; done | sort -u > "$W/help"
	diff "$W/page" "$W/help"
	[ "$(wc -l < "$W/page")" -gt 10 ]
}

#!/usr/bin/env bats
# pleat-frame: the recipe gives the bytes of its stages run by hand,
# frame to frame and level to level; a failing stage or a bad option
# leaves nothing behind.

bats_require_minimum_version 1.5.0
load common

setup() {
	W="$BATS_TEST_TMPDIR"
	"$ROOT/examples/make-skirt" > "$W/a.obj"
	# the next frame: the skirt turned by 0.05 rad about x
	awk 'BEGIN { c = cos(0.05); s = sin(0.05) }
	     /^v / { printf "v %.6f %.6f %.6f\n", $2, c * $3 - s * $4, s * $3 + c * $4; next }
	     { print }' "$W/a.obj" > "$W/b.obj"
}

# fails STATUS MESSAGE ARGS...: pleat-frame ARGS exits with STATUS, writes
# nothing on standard output, MESSAGE on standard error, and leaves no
# file in $W/out.
fails() {
	local want_status=$1 want=$2
	shift 2
	mkdir -p "$W/out"
	run --separate-stderr pleat-frame "$@"
	echo "status $status, stderr: $stderr"
	[ "$status" -eq "$want_status" ] && [ -z "$output" ] && [[ "$stderr" == *"$want"* ]] &&
		[ -z "$(ls -A "$W/out")" ]
}

@test "two frames, two levels: the bytes of resample | initialize | solve by hand" {
	pleat-frame -l 192,384 -n 8,4 --carry "$W/a.carry.grid" -o "$W/a.grid" "$W/a.obj"
	pleat-frame -l 192,384 -n 8,4 -p "$W/a.carry.grid" --carry "$W/b.carry.grid" \
		--keep-levels -o "$W/b.grid" "$W/b.obj"
	# by hand
	pleat-resample -s 192 "$W/a.obj" | pleat-solve -q -n 8 > "$W/a192.grid"
	pleat-resample -s 192 "$W/b.obj" | pleat-initialize -q -t "$W/a192.grid" |
		pleat-solve -q -n 8 > "$W/b192.grid"
	pleat-resample -s 384 "$W/b.obj" | pleat-initialize -q -u "$W/b192.grid" |
		pleat-solve -q -n 4 > "$W/b384.grid"
	cmp "$W/a192.grid" "$W/a.carry.grid"
	cmp "$W/b192.grid" "$W/b.carry.grid"
	cmp "$W/b192.grid" "$W/b.192.grid"
	cmp "$W/b384.grid" "$W/b.grid"
	[ ! -e "$W/b.384.grid" ]
	# the transfer made a difference: frame b started cold is other bytes
	pleat-frame -l 192,384 -n 8,4 -o "$W/b-cold.grid" "$W/b.obj"
	! cmp -s "$W/b-cold.grid" "$W/b.grid"
	# nothing left over beside the outputs
	[ -z "$(ls -A "$W" | grep '^\.')" ]
}

@test "--self --safe reach pleat-solve at every level and the upsampled starts: the bytes by hand" {
	pleat-frame -l 192,384 -n 8,4 --self --safe -o "$W/a.grid" "$W/a.obj"
	pleat-resample -s 192 "$W/a.obj" | pleat-solve -q -n 8 --self --safe > "$W/a192.grid"
	pleat-resample -s 384 "$W/a.obj" | pleat-initialize -q -u "$W/a192.grid" --safe |
		pleat-solve -q -n 4 --self --safe > "$W/a384.grid"
	cmp "$W/a384.grid" "$W/a.grid"
	# the skirt hardly moves in so few iterations, so that the bounds
	# hold nothing back: the solver's summaries show that they were there
	run --separate-stderr pleat-frame -v -l 192,384 -n 8,4 --self --safe -o "$W/b.grid" "$W/a.obj"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'collisions: self set-up .*; safe: [0-9]* bound updates' <<< "$stderr")" -eq 2 ]
	# and its scope: --safe=seams, the band around the seams
	run --separate-stderr pleat-frame -v -l 192,384 -n 8,4 --self --safe=seams -o "$W/c.grid" "$W/a.obj"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'collisions: self set-up .*; safe (seams): [0-9]* bound updates' <<< "$stderr")" -eq 2 ]
	[ "$(grep -c 'pleat-initialize: .*: safe (seams): reached from rest in [0-9]* bound updates' <<< "$stderr")" -eq 1 ]
}

@test "--gather-args: a pleat-gather stage after resample at every level: the bytes by hand" {
	local shirr="--shirr 0,0.3,0.05,0.5 --stretch-scale=tension"
	pleat-frame -l 192,384 -n 8,4 --gather-args "$shirr" -o "$W/a.grid" "$W/a.obj"
	pleat-resample -s 192 "$W/a.obj" | pleat-gather -q $shirr | pleat-solve -q -n 8 > "$W/a192.grid"
	pleat-resample -s 384 "$W/a.obj" | pleat-gather -q $shirr |
		pleat-initialize -q -u "$W/a192.grid" | pleat-solve -q -n 4 > "$W/a384.grid"
	cmp "$W/a384.grid" "$W/a.grid"
	# and the stage is there: without it the result differs
	pleat-frame -l 192,384 -n 8,4 -o "$W/b.grid" "$W/a.obj"
	! cmp -s "$W/a.grid" "$W/b.grid"
}

@test "--coarse takes the coarsest level as solved: the same bytes in two runs" {
	pleat-frame -l 192 -n 8 -o "$W/a.carry.grid" "$W/a.obj"
	pleat-frame -l 192,384 -n 8,4 -p "$W/a.carry.grid" -o "$W/one.grid" "$W/b.obj"
	pleat-frame -l 192 -n 8 -p "$W/a.carry.grid" -o "$W/b.carry.grid" "$W/b.obj"
	pleat-frame -l 192,384 -n 8,4 --coarse "$W/b.carry.grid" -o "$W/two.grid" "$W/b.obj"
	cmp "$W/one.grid" "$W/two.grid"
}

@test "--mesh and --normalmap: the files pleat-simplify and pleat-normalmap make" {
	pleat-frame -l 192 -n 8 -o "$W/a.grid" --mesh "$W/a.ply" --normalmap "$W/a.png" \
		--normalmap-args "--size 128" --simplify-args "--tolerance 0.2" "$W/a.obj"
	pleat-simplify -q --tolerance 0.2 -o "$W/want.ply" "$W/a.grid"
	# the pattern is in metres, past the unit square: the map is fitted
	run --separate-stderr pleat-normalmap --mesh "$W/a.obj" --size 128 -o "$W/want.png" "$W/a.grid"
	[[ "$stderr" == *"(fitted)"* ]]
	cmp "$W/want.ply" "$W/a.ply"
	cmp "$W/want.png" "$W/a.png"
	pleat-normalmap -q --mesh "$W/a.obj" --uv-fit --size 128 -o "$W/fit.png" "$W/a.grid"
	cmp "$W/fit.png" "$W/a.png"
}

@test "--stats and --times: every level's energy checks; a time per stage" {
	run --separate-stderr pleat-frame -l 192,384 -n 16,8 --times --stats "$W/st.json" \
		-o "$W/a.grid" "$W/a.obj"
	[ "$status" -eq 0 ]
	echo "$stderr"
	# checks every 8 iterations, iteration 0 included: 3 + 2 lines
	[ "$(grep -c '^{"level": 192, "grid": 1, "iteration": ' "$W/st.json")" -eq 3 ]
	[ "$(grep -c '^{"level": 384, "grid": 1, "iteration": ' "$W/st.json")" -eq 2 ]
	stages=$(echo "$stderr" | sed -n 's/^pleat-frame: stage=\([a-z]*\) level=\([-0-9]*\) seconds=[0-9.]*$/\1 \2/p' | tr '\n' ,)
	[ "$stages" = "resample 192,solve 192,resample 384,initialize 384,solve 384,total -," ]
}

@test "a missing frame or previous result: exit 1, nothing written; --cold starts from rest" {
	fails 1 "pleat-frame: cannot open $W/none.obj" -l 192 -o "$W/out/x.grid" "$W/none.obj"
	fails 1 "pleat-frame: --prev $W/none.grid: No such file (--cold starts without it)" \
		-l 192 -p "$W/none.grid" -o "$W/out/x.grid" "$W/a.obj"
	run --separate-stderr pleat-frame -q -l 192 -n 4 -p "$W/none.grid" --cold -o "$W/out/x.grid" "$W/a.obj"
	[ "$status" -eq 0 ]
	[[ "$stderr" == "pleat-frame: $W/none.grid does not exist: cold start" ]]
	pleat-frame -l 192 -n 4 -o "$W/y.grid" "$W/a.obj"
	cmp "$W/y.grid" "$W/out/x.grid"
	rm "$W/out/x.grid"
	# a previous result of another size is an error even with --cold
	pleat-frame -l 384 -n 1 -o "$W/big.grid" "$W/a.obj"
	fails 1 "pleat-frame: stage initialize (level 192) failed (exit 1); nothing written" \
		-l 192 -p "$W/big.grid" --cold -o "$W/out/x.grid" "$W/a.obj"
}

@test "a failing stage: exit 1 naming it, nothing under any output name" {
	# the body does not exist: the solver of the first level fails
	fails 1 "stage solve (level 192) failed" -l 192,384 --body "$W/none.obj" \
		--carry "$W/out/c.grid" --mesh "$W/out/m.obj" -o "$W/out/x.grid" "$W/a.obj"
	# not a mesh: resample fails
	echo "v 1 2" > "$W/bad.obj"
	fails 1 "stage resample (level 192) failed" -l 192 -o "$W/out/x.grid" "$W/bad.obj"
	# a bad gathering pattern: the gather stage fails
	fails 1 "stage gather (level 192) failed" -l 192 --gather-args "--shirr 1" \
		-o "$W/out/x.grid" "$W/a.obj"
	# the last stage fails: the grid, already solved, is not written either
	fails 1 "stage simplify failed" -l 192 -n 1 --simplify-args "-t -1" \
		--mesh "$W/out/m.obj" -o "$W/out/x.grid" "$W/a.obj"
}

@test "levels that do not nest, counts that do not match: usage errors" {
	fails 2 "--levels: 192 does not follow 384: each level is twice the one before" -l 384,192 -o x.grid a.obj
	fails 2 "--levels: 512 does not follow 192" -l 192,512 -o x.grid a.obj
	fails 2 "--levels: 200 is not a multiple of 64" -l 200 -o x.grid a.obj
	fails 2 "--levels: the coarsest, 128, is below 192" -l 128,256 -o x.grid a.obj
	fails 2 "--levels: 'big' in '192,big' is not a positive integer" -l 192,big -o x.grid a.obj
	fails 2 "--iterations: 3 counts for 2 levels" -l 192,384 -n 1,2,3 -o x.grid a.obj
	fails 2 "--iterations: '-1' is not a count" -n -1 -o x.grid a.obj
	fails 2 "-o FILE is required" a.obj
	fails 2 "no frame.obj given" -o x.grid
	fails 2 "--cold goes with --prev" --cold -o x.grid a.obj
	fails 2 "--coarse and --prev exclude each other" --coarse c.grid -p p.grid -o x.grid a.obj
	fails 2 "unknown option '--bogus'" --bogus
	fails 2 "option '--levels' needs a value" --levels
	fails 2 "one frame.obj only" -o x.grid a.obj b.obj
}

@test "--help and --version" {
	run pleat-frame --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: pleat-frame [-l sizes]"* ]]
	run pleat-frame --version
	[ "$status" -eq 0 ]
	[ "$output" = "pleat-frame 0.1.0" ]
}

@test "-o /dev/null is written to, not replaced (pleat-frame, pleat-drape)" {
	pleat-frame -l 192 -n 4 -o /dev/null "$W/a.obj"
	[ -c /dev/null ]
	pleat-drape --frames 2 -s 16 -n 8 -o /dev/null
	[ -c /dev/null ]
}

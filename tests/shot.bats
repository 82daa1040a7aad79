#!/usr/bin/env bats
# pleat-shot.mk and the farm recipes: a 4-frame shot with make -j2, the
# frames rebuilt after an input changes, chunks as independent jobs (GNU
# parallel on this host, the Slurm array script run by hand).

bats_require_minimum_version 1.5.0
load common
load shot

setup() {
	S="$BATS_TEST_TMPDIR/shot"
	make_shot "$S"
}

@test "make -j2 makes the shot; a touched frame redoes it and the frames after it only" {
	make -s -j2 -C "$S" 2>/dev/null
	run made "$S"
	[ "$output" = "out/carry/frame_0001.grid out/carry/frame_0002.grid out/carry/frame_0003.grid out/carry/frame_0004.grid out/frame_0001.grid out/frame_0002.grid out/frame_0003.grid out/frame_0004.grid " ]
	for k in 1 2 3 4; do [ -s "$S/out/frame_000$k.obj" ]; done
	# frame 2 is what pleat-frame makes of it in one run, transferring from
	# frame 1's carry
	(cd "$S" && pleat-frame -l 192,384 -n 8,4 -p out/carry/frame_0001.grid -o two.grid in/frame_0002.obj)
	cmp "$S/two.grid" "$S/out/frame_0002.grid"
	make -q -C "$S"
	# frame 3's input changes: frames 3 and 4 again, their meshes too
	sleep 1
	touch "$S/in/frame_0003.obj"
	run make -j2 -C "$S"
	[ "$status" -eq 0 ]
	run made "$S"
	[ "$output" = "out/carry/frame_0003.grid out/carry/frame_0004.grid out/frame_0003.grid out/frame_0004.grid " ]
	[ "$S/out/frame_0004.obj" -nt "$S/in/frame_0003.obj" ]
	[ "$S/out/frame_0002.obj" -ot "$S/in/frame_0003.obj" ]
	make -q -C "$S"
}

# chunk_outputs DIR: the chunked shot's results, named, one a line.
chunk_outputs() {
	(cd "$1" && find . -type f | sort)
}

@test "chunks with GNU parallel on this host: every frame once, the same bytes as each chunk alone" {
	command -v parallel > /dev/null || skip "GNU parallel is not installed"
	run "$ROOT/examples/farm/parallel-shot" -c 2 -w 1 -S : -j 2 "$S" SHOT_OUT=farm SHOT_MESH=0
	echo "$output"
	[ "$status" -eq 0 ]
	run made "$S"
	[ "$output" = "farm/carry/frame_0001.grid farm/carry/frame_0002.grid farm/carry/frame_0003.grid farm/carry/frame_0004.grid farm/frame_0001.grid farm/frame_0002.grid farm/frame_0003.grid farm/frame_0004.grid farm/warmup-3/frame_0002.grid " ]
	# each chunk alone, one after the other
	make -s -C "$S" SHOT_OUT=alone SHOT_MESH=0 SHOT_FIRST=1 SHOT_LAST=2 SHOT_OVERLAP=1 2>/dev/null
	make -s -C "$S" SHOT_OUT=alone SHOT_MESH=0 SHOT_FIRST=3 SHOT_LAST=4 SHOT_OVERLAP=1 2>/dev/null
	diff <(chunk_outputs "$S/farm") <(chunk_outputs "$S/alone")
	for f in $(chunk_outputs "$S/farm"); do cmp "$S/farm/$f" "$S/alone/$f"; done
	# the first chunk is the start of the whole shot
	make -s -C "$S" SHOT_MESH=0 SHOT_LAST=2 2>/dev/null
	cmp "$S/out/frame_0002.grid" "$S/farm/frame_0002.grid"
}

@test "the chunk commands without GNU parallel (-n), quoted for the shell, run as plain local jobs" {
	run "$ROOT/examples/farm/parallel-shot" -n -c 3 -w 2 "$S" SHOT_OUT=plain SHOT_MESH=0
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "make -C $S SHOT_FIRST=1 SHOT_LAST=3 SHOT_OVERLAP=2 SHOT_OUT=plain SHOT_MESH=0" ]
	[ "${lines[1]}" = "make -C $S SHOT_FIRST=4 SHOT_LAST=4 SHOT_OVERLAP=2 SHOT_OUT=plain SHOT_MESH=0" ]
	printf '%s\n' "${lines[@]}" | sed 's/$/ -s 2>\/dev\/null \&/; $ a wait' | sh
	# arguments that need it quoted, so that the shell reads them back
	run "$ROOT/examples/farm/parallel-shot" -n -c 4 "$S" "SHOT_FRAME_FLAGS=--material silk" "it's" ''
	[ "$output" = "make -C $S SHOT_FIRST=1 SHOT_LAST=4 SHOT_OVERLAP=4 'SHOT_FRAME_FLAGS=--material silk' 'it'\''s' ''" ]
	eval "set -- $output"
	[ "$#" -eq 9 ] && [ "$7" = "SHOT_FRAME_FLAGS=--material silk" ] && [ "$8" = "it's" ] && [ -z "$9" ]
	run made "$S"
	# frame 4 warmed up by frames 2 and 3, at the coarsest level only
	[ "$output" = "plain/carry/frame_0001.grid plain/carry/frame_0002.grid plain/carry/frame_0003.grid plain/carry/frame_0004.grid plain/frame_0001.grid plain/frame_0002.grid plain/frame_0003.grid plain/frame_0004.grid plain/warmup-4/frame_0002.grid plain/warmup-4/frame_0003.grid " ]
}

@test "the overlap warms the chain up: a chunk's first frame closer to the whole shot's" {
	make -s -C "$S" SHOT_MESH=0 2>/dev/null
	make -s -C "$S" SHOT_OUT=cold SHOT_MESH=0 SHOT_FIRST=4 2>/dev/null
	make -s -C "$S" SHOT_OUT=warm SHOT_MESH=0 SHOT_FIRST=4 SHOT_OVERLAP=2 2>/dev/null
	# the wrinkles' distance from the whole shot's frame 4
	cold=$(pleat-initialize -q --flicker "$S/out/frame_0004.grid" "$S/cold/frame_0004.grid" | sed 's/.* mean=\([^ ]*\) .*/\1/')
	warm=$(pleat-initialize -q --flicker "$S/out/frame_0004.grid" "$S/warm/frame_0004.grid" | sed 's/.* mean=\([^ ]*\) .*/\1/')
	echo "# chunk from frame 4, mean distance to the whole shot: cold $cold m, 2 frames of overlap $warm m" >&3
	awk -v c="$cold" -v w="$warm" 'BEGIN { exit !(w < 0.5 * c) }'
}

@test "the Slurm array script, run as task 0, 1 and 2 by hand, without a scheduler" {
	cp "$ROOT/examples/farm/slurm-shot.sbatch" "$S/"
	for t in 0 1; do
		SLURM_ARRAY_TASK_ID=$t SLURM_SUBMIT_DIR="$S" SHOT_CHUNK=2 SHOT_OVERLAP=1 \
			bash "$S/slurm-shot.sbatch" -s SHOT_OUT=slurm SHOT_MESH=0 2>/dev/null
	done
	run made "$S"
	[ "$output" = "slurm/carry/frame_0001.grid slurm/carry/frame_0002.grid slurm/carry/frame_0003.grid slurm/carry/frame_0004.grid slurm/frame_0001.grid slurm/frame_0002.grid slurm/frame_0003.grid slurm/frame_0004.grid slurm/warmup-3/frame_0002.grid " ]
	# the same as those chunks made alone
	make -s -C "$S" SHOT_OUT=alone SHOT_MESH=0 SHOT_FIRST=3 SHOT_OVERLAP=1 2>/dev/null
	cmp "$S/alone/frame_0004.grid" "$S/slurm/frame_0004.grid"
	# a task past the shot, no task at all
	run --separate-stderr env SLURM_ARRAY_TASK_ID=2 SLURM_SUBMIT_DIR="$S" SHOT_CHUNK=2 bash "$S/slurm-shot.sbatch"
	[ "$status" -eq 1 ]
	[ "$stderr" = "slurm-shot: task 2 starts at frame 5, past the shot's 4 frames" ]
	run --separate-stderr env -u SLURM_ARRAY_TASK_ID bash "$S/slurm-shot.sbatch"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"not a task of a job array: submit with sbatch --array"* ]]
}

@test "the include refuses a chunk outside the shot and outputs over the inputs" {
	run make -C "$S" SHOT_FIRST=5
	[ "$status" -eq 2 ]
	[[ "$output" == *"pleat-shot.mk: frames 5 to 4 are not a chunk of the 4 frames of SHOT_FRAMES"* ]]
	run make -C "$S" SHOT_OVERLAP=two
	[[ "$output" == *"SHOT_FIRST, SHOT_LAST and SHOT_OVERLAP are counts"* ]]
	run make -C "$S" SHOT_OUT=in SHOT_MESH=1
	[ "$status" -eq 2 ]
	[[ "$output" == *"SHOT_OUT=in would overwrite input frames: in/frame_0001.obj"* ]]
	run make -C "$S" SHOT_FRAMES=
	[[ "$output" == *"SHOT_FRAMES names no frame"* ]]
	[ ! -e "$S/frames.log" ] || [ ! -s "$S/frames.log" ]
}

# A gathering stage for every frame, as a studio's shot Makefile gives
# it: pleat-frame's --gather-args, its options quoted in SHOT_FRAME_FLAGS.
@test "SHOT_FRAME_FLAGS carries --gather-args, quoted, to every frame: the bytes of pleat-frame by hand" {
	local gather='--set 0.9,0,1 --perturb 0.2'
	make -s -C "$S" SHOT_MESH=0 SHOT_LAST=2 "SHOT_FRAME_FLAGS=--gather-args '$gather'" 2>/dev/null
	run made "$S"
	[ "$output" = "out/carry/frame_0001.grid out/carry/frame_0002.grid out/frame_0001.grid out/frame_0002.grid " ]
	(cd "$S" && pleat-frame -l 192,384 -n 8,4 --gather-args "$gather" \
		-p out/carry/frame_0001.grid -o two.grid in/frame_0002.obj)
	cmp "$S/two.grid" "$S/out/frame_0002.grid"
	# and the gathering is there: without it, other bytes
	(cd "$S" && pleat-frame -l 192,384 -n 8,4 \
		-p out/carry/frame_0001.grid -o plain.grid in/frame_0002.obj)
	! cmp -s "$S/plain.grid" "$S/out/frame_0002.grid"
	pleat-grid info "$S/out/frame_0002.grid" | grep -q 'gather'
}

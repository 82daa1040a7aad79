#!/usr/bin/env bats
# The farm recipes of pleat-shot(7) on a real scheduler: the Slurm job
# array script submitted with sbatch to a single-node cluster (munged,
# slurmctld, slurmd) started for this file, and parallel-shot over ssh to
# an sshd on a loopback port; each against the shot made by make on one
# machine, and with the failures a farm sees (a corrupt input frame, a
# cancelled task).  Skipped, saying why, where the packages are missing.

bats_require_minimum_version 1.5.0
load common
load shot
load farm

# The cluster, the sshd and the reference shot (made by make, no farm),
# once for the file; how long the cluster and the sshd took to come up.
setup_file() {
	FARM="$BATS_FILE_TMPDIR"
	REF="$FARM/ref"
	export FARM REF
	start_slurm_for_file
	start_sshd_for_file
	if [ -z "${SLURM_SKIP:-}${SLURM_FAILED:-}" ] || [ -z "${SSHD_SKIP:-}${SSHD_FAILED:-}" ]; then
		make_shot "$REF"
		make -s -j2 -C "$REF" 2> /dev/null
	fi
}

teardown_file() {
	slurm_stop "$FARM/slurm"
	sshd_stop "$FARM/ssh"
}

# SLURM_SKIP: why the Slurm tests skip; SLURM_FAILED: the daemons' logs
# when the cluster did not come up (each Slurm test fails with them).
start_slurm_for_file() {
	local missing start
	missing=$(slurm_missing | tr '\n' ' ')
	if [ -n "$missing" ]; then
		export SLURM_SKIP="Slurm or munge is not installed (no ${missing% })"
	elif [ "$(id -u)" -ne 0 ]; then
		export SLURM_SKIP="slurmd runs jobs as their user: root only"
	elif ! grep -q ' /sys/fs/cgroup ' /proc/self/mounts; then
		# slurmd 22.05 starts its cgroup plugin whatever the task plugin
		export SLURM_SKIP="slurmd needs a cgroup filesystem at /sys/fs/cgroup, and none is mounted here"
	else
		start=$(date +%s.%N)
		if slurm_start "$FARM/slurm" 2> "$FARM/slurm-start.err"; then
			echo "# Slurm cluster up (sinfo: idle) in $(elapsed "$start") s" >&3
		else
			export SLURM_FAILED="$(cat "$FARM/slurm-start.err" "$FARM"/slurm/*.out "$FARM"/slurm/*.log 2> /dev/null)"
		fi
	fi
}

start_sshd_for_file() {
	local missing start
	missing=$(sshd_missing | tr '\n' ' ')
	if [ -n "$missing" ]; then
		export SSHD_SKIP="OpenSSH is not installed (no ${missing% })"
	elif ! command -v parallel > /dev/null; then
		export SSHD_SKIP="GNU parallel is not installed"
	elif [ "$(id -u)" -ne 0 ] && [ ! -d /run/sshd ]; then
		export SSHD_SKIP="sshd needs /run/sshd, which only root can make"
	else
		start=$(date +%s.%N)
		if sshd_start "$FARM/ssh" farm1 farm2 2> "$FARM/sshd-start.err"; then
			echo "# sshd up (ssh farm1 true) in $(elapsed "$start") s" >&3
		else
			export SSHD_FAILED="$(cat "$FARM/sshd-start.err" "$FARM/ssh/sshd.out" 2> /dev/null)"
		fi
	fi
}

# elapsed START: seconds since START (date +%s.%N), to 0.1 s.
elapsed() {
	awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'
}

need_slurm() {
	[ -z "${SLURM_SKIP:-}" ] || skip "$SLURM_SKIP"
	[ -z "${SLURM_FAILED:-}" ] || { echo "$SLURM_FAILED"; false; }
}

need_sshd() {
	[ -z "${SSHD_SKIP:-}" ] || skip "$SSHD_SKIP"
	[ -z "${SSHD_FAILED:-}" ] || { echo "$SSHD_FAILED"; false; }
}

setup() {
	S="$BATS_TEST_TMPDIR/shot"
	make_shot "$S"
}

# same_as_reference: every file of the reference shot's out/ is in $S/out
# with the same bytes, and $S/out has nothing else but warm-up frames: no
# temporary file, no private folder of pleat-frame.
same_as_reference() {
	diff <(cd "$REF/out" && find . | sort) \
	     <(cd "$S/out" && find . -path './warmup-*' -prune -o -print | sort)
	local f
	for f in $(cd "$REF/out" && find . -type f); do
		cmp "$REF/out/$f" "$S/out/$f"
	done
}

# break_frame_3: frame 3's coarse mesh corrupt (line 5, a vertex of two
# coordinates), the good one kept aside.
break_frame_3() {
	cp "$S/in/frame_0003.obj" "$BATS_TEST_TMPDIR/good.obj"
	sed -i '5s/.*/v 0.1 0.2/' "$S/in/frame_0003.obj"
}

# mend_frame_3: the good frame 3 back, the log of frames made emptied.
mend_frame_3() {
	cp "$BATS_TEST_TMPDIR/good.obj" "$S/in/frame_0003.obj"
	: > "$S/frames.log"
}

# first_chunk_only: frames 1 and 2 made, meshes too; nothing of 3 and 4.
first_chunk_only() {
	local k
	for k in 1 2; do
		[ -s "$S/out/frame_000$k.grid" ] && [ -s "$S/out/frame_000$k.obj" ] || return 1
	done
	[ ! -e "$S/out/carry/frame_0003.grid" ] && [ ! -e "$S/out/frame_0004.grid" ]
}

# submit [--wait] ARGUMENT...: in the shot folder, as pleat-shot(7)
# says, with chunks of 2 frames and the SHOT_OVERLAP of the environment:
# the job array of slurm-shot.sbatch for the whole shot, ARGUMENTs to
# make; the job's id in $job; fails when sbatch does.  With --wait,
# sbatch's, which waits for the job and returns its exit code (in
# $status), 180 s at most (124 after that).
submit() {
	local n wait=
	[ "$1" != --wait ] || { wait=--wait; shift; }
	n=$(make -s -C "$S" shot-count)
	cd "$S"
	run timeout 180 env SHOT_CHUNK=2 sbatch --parsable $wait --array=0-$(( (n + 1) / 2 - 1 )) \
		"$ROOT/examples/farm/slurm-shot.sbatch" "$@"
	cd - > /dev/null
	job=${output%%$'\n'*}
	[ -n "$wait" ] || [ "$status" -eq 0 ]
}

# job_over JOB: squeue shows nothing of JOB.
job_over() {
	[ -z "$(squeue -h -j "$1")" ]
}

# finish JOB: waits (120 s at most) until JOB is over.  (sbatch --wait
# does too, but polls at growing intervals: up to half a minute late.)
finish() {
	wait_for 120 "the end of job $1" job_over "$1"
}

# task_states JOB: each task of the array JOB as TASK=STATE:EXITCODE, in
# task order, on one line (the controller keeps finished jobs MinJobAge).
task_states() {
	scontrol -o show job "$1" |
		sed 's/.* ArrayTaskId=\([0-9]*\) .* JobState=\([A-Z]*\) .* ExitCode=\([0-9:]*\) .*/\1=\2:\3/' |
		sort -n | tr '\n' ' '
}

@test "sbatch runs the array script: every frame once, the bytes of make on one machine, a lost frame redone alone" {
	need_slurm
	# an overlap of 2: the second chunk's chain warmed up from the first
	# frame, so the farm's shot is the single machine's to the byte
	SHOT_OVERLAP=2 submit
	finish "$job"
	run task_states "$job"
	[ "$output" = "0=COMPLETED:0:0 1=COMPLETED:0:0 " ]
	run made "$S"
	[ "$output" = "out/carry/frame_0001.grid out/carry/frame_0002.grid out/carry/frame_0003.grid out/carry/frame_0004.grid out/frame_0001.grid out/frame_0002.grid out/frame_0003.grid out/frame_0004.grid out/warmup-3/frame_0001.grid out/warmup-3/frame_0002.grid " ]
	same_as_reference
	# each task's log in the shot folder, named by job and task
	grep -qx "slurm-shot: task 0 on .*: frames 1 to 2, overlap 2" "$S/pleat-shot-${job}_0.log"
	grep -qx "slurm-shot: task 1 on .*: frames 3 to 4, overlap 2" "$S/pleat-shot-${job}_1.log"
	# a frame lost: submitted again, the shot makes that frame alone
	rm "$S/out/frame_0004.grid" "$S/out/frame_0004.obj"
	SHOT_OVERLAP=2 submit
	finish "$job"
	run task_states "$job"
	[ "$output" = "0=COMPLETED:0:0 1=COMPLETED:0:0 " ]
	run made "$S"
	[ "$output" = "out/frame_0004.grid " ]
	same_as_reference
}

@test "sbatch: a corrupt frame fails its task with the program's message in its log, the other task finishes, the fixed shot completes" {
	need_slurm
	break_frame_3
	SHOT_OVERLAP=2 submit --wait
	# sbatch --wait: the job's exit code, the highest of its tasks' (make's 2)
	[ "$status" -eq 2 ]
	run task_states "$job"
	[ "$output" = "0=COMPLETED:0:0 1=FAILED:2:0 " ]
	grep -qx "pleat-resample: in/frame_0003.obj: line 5: v needs 3 coordinates, found 2" "$S/pleat-shot-${job}_1.log"
	grep -qx "pleat-frame: stage resample (level 192) failed (exit 1); nothing written" "$S/pleat-shot-${job}_1.log"
	first_chunk_only
	# fixed, submitted again: the failed chunk only
	mend_frame_3
	SHOT_OVERLAP=2 submit
	finish "$job"
	run task_states "$job"
	[ "$output" = "0=COMPLETED:0:0 1=COMPLETED:0:0 " ]
	run made "$S"
	[ "$output" = "out/carry/frame_0003.grid out/carry/frame_0004.grid out/frame_0003.grid out/frame_0004.grid " ]
	same_as_reference
}

# mid_first_frame DIR: the fine levels of the first frame are being
# made: pleat-frame's private folder is in DIR/out.
mid_first_frame() {
	grep -q -- '-o out/frame_0001.grid ' "$1/frames.log" 2> /dev/null &&
		compgen -G "$1/out/.pleat-frame.*" > /dev/null
}

@test "scancel mid-frame: the task CANCELLED, no partial result under a final name, the shot completes when submitted again" {
	need_slurm
	# a shot of one chunk, its fine level long enough (60 iterations) to
	# be cancelled in the middle
	rm "$S/in/frame_0003.obj" "$S/in/frame_0004.obj"
	submit SHOT_ITERATIONS=8,60
	wait_for 30 "the first frame's fine levels under way" mid_first_frame "$S"
	scancel "$job"
	finish "$job"
	run task_states "$job"
	[ "$output" = "0=CANCELLED:0:15 " ]
	# what was finished is there; the frame under way is not, nor any
	# temporary file or folder
	[ -s "$S/out/carry/frame_0001.grid" ]
	[ ! -e "$S/out/frame_0001.grid" ]
	run find "$S/out" -name '.*' -o -name '*.tmp*'
	[ "$output" = "" ]
	# submitted again: the rest, the cancelled frame first
	run made "$S"
	submit SHOT_ITERATIONS=8,60
	finish "$job"
	run task_states "$job"
	[ "$output" = "0=COMPLETED:0:0 " ]
	run made "$S"
	[ "$output" = "out/carry/frame_0002.grid out/frame_0001.grid out/frame_0002.grid " ]
	[ -s "$S/out/frame_0001.obj" ] && [ -s "$S/out/frame_0002.obj" ]
}

# farm_path: the PATH an ssh session to farm1 has, without this one's.
farm_path() {
	ssh -F "$FARM/ssh/ssh_config" farm1 'echo "$PATH"'
}

@test "parallel-shot over ssh on two hosts: every frame once, the bytes of make on one machine, blanks intact in the folder and the make arguments" {
	need_sshd
	S="$BATS_TEST_TMPDIR/shot 3"
	make_shot "$S"
	# the hosts' own PATH does not reach pleat: parallel-shot hands them
	# this one
	run farm_path
	[ "$status" -eq 0 ]
	[[ ":$output:" != *":$PLEAT_BIN:"* ]]
	# --material cotton, the solver's default: the same bytes
	run "$ROOT/examples/farm/parallel-shot" -c 2 -w 2 -S farm1,farm2 "$S" \
		'SHOT_FRAME_FLAGS=--material cotton'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"frames 1-2:"* ]] && [[ "$output" == *"frames 3-4:"* ]]
	[ "$(grep -c -- '^--material cotton -l' "$S/frames.log")" -eq 10 ]
	run made "$S"
	[ "$output" = "out/carry/frame_0001.grid out/carry/frame_0002.grid out/carry/frame_0003.grid out/carry/frame_0004.grid out/frame_0001.grid out/frame_0002.grid out/frame_0003.grid out/frame_0004.grid out/warmup-3/frame_0001.grid out/warmup-3/frame_0002.grid " ]
	same_as_reference
	# a frame lost: run again, that frame alone
	rm "$S/out/frame_0002.grid"
	run "$ROOT/examples/farm/parallel-shot" -c 2 -w 2 -S farm1,farm2 "$S" \
		'SHOT_FRAME_FLAGS=--material cotton'
	[ "$status" -eq 0 ]
	run made "$S"
	[ "$output" = "out/frame_0002.grid " ]
	same_as_reference
}

@test "parallel-shot over ssh: a corrupt frame fails its chunk with the program's message, the other chunk finishes, the fixed shot completes" {
	need_sshd
	break_frame_3
	run --separate-stderr "$ROOT/examples/farm/parallel-shot" -c 2 -w 2 -S farm1,farm2 "$S"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"frames 3-4:	pleat-resample: in/frame_0003.obj: line 5: v needs 3 coordinates, found 2"* ]]
	[[ "$stderr" == *"parallel-shot: 1 of the chunks failed; run it again to redo only what is missing" ]]
	first_chunk_only
	# fixed, run again: the failed chunk only
	mend_frame_3
	run "$ROOT/examples/farm/parallel-shot" -c 2 -w 2 -S farm1,farm2 "$S"
	[ "$status" -eq 0 ]
	run made "$S"
	[ "$output" = "out/carry/frame_0003.grid out/carry/frame_0004.grid out/frame_0003.grid out/frame_0004.grid " ]
	same_as_reference
}

#!/usr/bin/env bats
# pleat-solve --dynamic and the pleat-drape driver: the momentum and
# gravity terms' gradient, free fall, a pinned square that falls and
# swings with a total energy that never grows, the hanging equilibrium
# against a quasistatic solve with gravity, pinning, and bad input.
# Measurements come from tests/unit/test_dynamic.c.

bats_require_minimum_version 1.5.0
load common

# Small problems: one thread is faster than two busy ones.
export OMP_NUM_THREADS=1

# square_obj L FILE: a level square of side L metres, pattern = 3D.
square_obj() {
	printf 'v 0 0 0\nv %s 0 0\nv %s %s 0\nv 0 %s 0\nvt 0 0\nvt %s 0\nvt %s %s\nvt 0 %s\nf 1/1 2/2 3/3 4/4\n' \
		"$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" > "$2"
}

# The swing: a 0.25 m square of a stretchy cloth (50 N/m; cotton's 5000
# N/m would need a time step a hundred times shorter at this cell size
# for the iterations to converge, see pleat-solve(1)), 16 cells, pinned
# at two corners, 100 steps of 10 ms, 128 iterations each (with 64 the
# steps are not converged enough: the total energy rises at times by a
# few 1e-5 J); simulated once for the file.
setup_file() {
	D="$BATS_FILE_TMPDIR"
	"$ROOT/scripts/pleat-drape" --length 0.25 -s 16 --frames 100 --dt 0.01 -n 128 \
		--stats "$D/swing.json" -o "$D/swing.grid" -- --stretch 50
}

setup() {
	D="$BATS_FILE_TMPDIR"
	W="$BATS_TEST_TMPDIR"
	T="$PLEAT_TESTBIN/test_dynamic"
}

@test "the momentum and gravity gradient matches central differences (< 1e-5)" {
	run "$T" fd
	echo "$output"
	[ "$status" -eq 0 ]
	# quadratic and linear terms: differences are exact up to float
	# positions (~1e-7 of a 1e-3 step); a wrong factor is O(1)
	awk -v r="${output#worst }" 'BEGIN { exit !(r < 1e-5) }'
}

@test "free fall: an unpinned cloth from rest is at rest + 3 dt² g after two steps" {
	square_obj 0.25 "$W/sq.obj"
	pleat-resample -s 8 "$W/sq.obj" > "$W/f0.grid"
	pleat-solve -q --dynamic --dt 0.01 --gravity 1,-2,-9.81 -n 16 "$W/f0.grid" > "$W/f1.grid"
	pleat-solve -q --dynamic --dt 0.01 --gravity 1,-2,-9.81 -n 16 "$W/f1.grid" > "$W/f2.grid"
	run "$T" drop "$W/f2.grid"
	echo "$output"
	[ "$status" -eq 0 ]
	# implicit Euler: x1 = x0 + dt² g, x2 = 2 x1 - x0 + dt² g
	echo "$output" | awk '{
		want[1] = 3e-4; want[2] = -6e-4; want[3] = -2.943e-3
		for (k = 1; k <= 3; k++)
			for (s = 0; s < 2; s++) {
				d = $(3 * k - 1 + s) - want[k]
				if (d < -1e-7 || d > 1e-7) { print "component " k " off by " d; bad = 1 }
			}
		exit bad }'
}

@test "a step leaves x = the new positions, xprev = the old x, pins kept in the mask" {
	square_obj 0.25 "$W/sq.obj"
	pleat-resample -s 8 "$W/sq.obj" > "$W/f0.grid"
	pleat-solve -q --dynamic -n 8 --pin 0,0.25 --pin 0.25,0.25 "$W/f0.grid" > "$W/f1.grid"
	pleat-solve -q --dynamic -n 8 "$W/f1.grid" > "$W/f2.grid"
	cmp <(pleat-grid dump -c x "$W/f1.grid") <(pleat-grid dump -c xprev "$W/f2.grid")
	run pleat-grid info "$W/f2.grid"
	[[ "$output" == *"fixed 2,"* ]]
	# the pinned corners stay where they were; the rest falls
	pleat-grid dump -c mask -c rest -c x "$W/f2.grid" | awk '
		int($4 / 8) % 2 { pinned++; if ($5 != $8 || $6 != $9 || $7 != $10) bad = 1; next }
		$4 % 2 && $10 >= 0 { bad = 1 }
		END { exit bad || pinned != 2 }'
}

@test "a pinned square falls and swings: the centre goes down, then back up" {
	run "$T" centre "$D/swing.grid"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 100 ]
	# the centre's vertical velocity: its sign changes (with at least
	# 5 mm of motion between them), and it fell at least L/4 first
	printf '%s\n' "${lines[@]}" | awk '
		NR == 1 { z0 = $1 }
		{ z[NR] = $1 }
		END {
			lo = z0; dir = -1; turns = 0; last = z0
			for (k = 2; k <= NR; k++) {
				if (dir < 0 && z[k] > last + 0.005) { dir = 1; turns++; last = z[k] }
				else if (dir > 0 && z[k] < last - 0.005) { dir = -1; turns++; last = z[k] }
				else if ((dir < 0 && z[k] < last) || (dir > 0 && z[k] > last)) last = z[k]
				if (z[k] < lo) lo = z[k]
			}
			print "start " z0 " lowest " lo " turns " turns
			exit !(z0 - lo > 0.0625 && turns >= 2)
		}'
}

@test "the total energy (kinetic + gravity + elastic + bending) never grows over 100 steps" {
	grep '"total"' "$D/swing.json" > "$W/energy.json"
	[ "$(wc -l < "$W/energy.json")" -eq 100 ]
	# frame 0 is the flat square at rest: total 0.  Implicit Euler
	# dissipates; allow float rounding of the sums (1e-9 J, against
	# changes of 1e-5 J a step) and nothing more.
	sed 's/.*"kinetic": \([^,]*\),.*"total": \([^}]*\)}/\1 \2/' "$W/energy.json" |
		awk 'BEGIN { last = 0 }
		     { if ($2 > last + 1e-9) { print "frame " NR ": " last " -> " $2; bad = 1 }
		       last = $2; if ($1 > kmax) kmax = $1 }
		     END { print "final total " last " J, largest kinetic " kmax " J"; exit bad || kmax <= 0 }'
}

# The top edge of an 8-cell, 0.25 m square pinned vertex by vertex.
edge_pins() {
	local k
	for k in 0 1 2 3 4 5 6 7 8; do
		printf -- '--pin %s,0.25 ' "$(awk -v k="$k" 'BEGIN { print k * 0.25 / 8 }')"
	done
}

@test "the hanging equilibrium after falling matches a quasistatic solve with gravity (1 mm)" {
	# pinned along its whole top edge: two corner pins would leave two
	# mirror-image equilibria (the top edge buckles to either side)
	square_obj 0.25 "$W/level.obj"
	printf 'v 0 0.25 -0.25\nv 0.25 0.25 -0.25\nv 0.25 0.25 0\nv 0 0.25 0\nvt 0 0\nvt 0.25 0\nvt 0.25 0.25\nvt 0 0.25\nf 1/1 2/2 3/3 4/4\n' > "$W/hanging.obj"
	pleat-resample -s 8 "$W/level.obj" > "$W/g.grid"
	pleat-resample -s 8 "$W/hanging.obj" > "$W/hanging.grid"
	pins=$(edge_pins)
	# the reference: from the flat hanging sheet, with gravity alone
	pleat-solve -q --gravity 0,0,-9.81 --shape 0 --stretch 50 -n 4000 $pins \
		"$W/hanging.grid" > "$W/static.grid"
	# the simulation: from the level sheet at rest, the fall and swing
	# in 40 steps of 50 ms, then 30 steps of 1 s (implicit Euler damps
	# a swing of period T by (1 + (2 pi dt / T)^2)^(-1/2) a step)
	cp "$W/g.grid" "$W/prev.grid"
	for k in $(seq 70); do
		if [ "$k" -le 40 ]; then dt=0.05 n=256; else dt=1 n=1024; fi
		pleat-solve -q --dynamic --dt $dt -n $n --stretch 50 $pins "$W/prev.grid" > "$W/next.grid"
		mv "$W/next.grid" "$W/prev.grid"
	done
	run "$PLEAT_TESTBIN/test_solve" xdiff "$W/prev.grid" "$W/static.grid"
	echo "$output"
	read -r _ diff _ motion < <(echo "$output")
	awk -v d="$diff" -v m="$motion" 'BEGIN { exit !(d < 1e-3 && m > 0.3) }'
}

# bad_option ARGS... MESSAGE: exit 2, the message, nothing on stdout.
bad_option() {
	local msg=${*: -1}
	run --separate-stderr pleat-solve "${@:1:$#-1}"
	echo "status $status, stderr: $stderr"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${stderr%%$'\n'*}" = "pleat-solve: $msg" ]
}

@test "option errors: --dt not positive or without --dynamic, no mass, a bad --gravity or --pin" {
	bad_option --dynamic --dt 0 "--dt: 0 is out of range [1e-09, 1000]"
	bad_option --dynamic --dt -0.01 "--dt: -0.01 is out of range [1e-09, 1000]"
	bad_option --dt 0.01 "--dt: only a --dynamic solve has a time step"
	bad_option --dynamic --density 0 "--density: a --dynamic solve needs a mass: 0 kg/m2"
	bad_option --gravity 0,-9.81 "--gravity: '0,-9.81' is not three numbers gx,gy,gz (m/s2)"
	bad_option --gravity 0,0,x "--gravity: '0,0,x' is not three numbers gx,gy,gz (m/s2)"
	bad_option --gravity 0,0,nan "--gravity: '0,0,nan' is not three numbers gx,gy,gz (m/s2)"
	bad_option --pin 0.5 "--pin: '0.5' is not u,v or u,v,radius (metres, radius >= 0)"
	bad_option --pin 0,0,-1 "--pin: '0,0,-1' is not u,v or u,v,radius (metres, radius >= 0)"
}

# bad_input FILE MESSAGE ARGS...: exit 1, the message, nothing on stdout.
bad_input() {
	local file=$1 msg=$2
	shift 2
	run --separate-stderr pleat-solve -n 4 "$@" "$file"
	echo "status $status, stderr: $stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "pleat-solve: $file: grid 1: $msg" ]
}

@test "bad input: xprev of the wrong type or size, not finite, without x; a pin off the cloth" {
	square_obj 0.25 "$W/sq.obj"
	pleat-resample -s 8 "$W/sq.obj" > "$W/f0.grid"
	pleat-solve -q --dynamic -n 4 "$W/f0.grid" > "$W/f1.grid"
	# xprev as i32 x 1 and as f32 x 2: other channels of those types
	# renamed in the header (the checksum covers the payload only)
	pleat-grid cat -d xprev "$W/f1.grid" > "$W/noprev.grid"
	perl -0777 -pe 's/^channel tri i32 1$/channel xprev i32 1/m' "$W/noprev.grid" > "$W/i32.grid"
	bad_input "$W/i32.grid" "its 'xprev' channel is i32 x 1, not f32 x 3" --dynamic
	perl -0777 -pe 's/^channel bary f32 2$/channel xprev f32 2/m' "$W/noprev.grid" > "$W/f32x2.grid"
	bad_input "$W/f32x2.grid" "its 'xprev' channel is f32 x 2, not f32 x 3" --dynamic
	"$PLEAT_TESTBIN/test_solve" set "$W/f1.grid" xprev nan > "$W/nan.grid"
	bad_input "$W/nan.grid" "'xprev' is not finite (nan) at vertex (7, 7)" --dynamic
	pleat-grid cat -d x "$W/f1.grid" > "$W/nox.grid"
	bad_input "$W/nox.grid" "has an 'xprev' channel but no 'x': a step needs the positions at both earlier times" --dynamic
	bad_input "$W/f0.grid" "--pin 1,1: no cloth vertex within two cells (0.0625 m) of it" --pin 1,1
	bad_input "$W/f0.grid" "--pin 0.11,0.11,0.005: no cloth vertex within 0.005 m of it" --pin 0.11,0.11,0.005
}

# The GPU runs the dynamic step too (tests/gpu.bats covers every option);
# here under the CUDA execution model, which every build has.
@test "--device auto with the dynamic mode and gravity: the GPU where one answers, the CPU's bytes" {
	square_obj 0.25 "$W/sq.obj"
	pleat-resample -s 8 "$W/sq.obj" > "$W/f0.grid"
	for opt in --dynamic "--gravity 0,0,-1"; do
		pleat-solve -q --device cpu -n 4 $opt -o "$W/cpu.grid" "$W/f0.grid"
		run --separate-stderr "$ROOT/build/model/bin/pleat-solve" --device auto -n 4 $opt \
			-o "$W/gpu.grid" "$W/f0.grid"
		[ "$status" -eq 0 ]
		[ "${stderr_lines[0]}" = "pleat-solve: running on the GPU: CUDA execution model on the CPU (sm_90)" ]
		cmp "$W/cpu.grid" "$W/gpu.grid"
	done
}

@test "pleat-drape: usage errors exit 2 with nothing written; --help exits 0" {
	run --separate-stderr "$ROOT/scripts/pleat-drape" --frames 0
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "pleat-drape: --frames: '0' is not a whole number from 1 to 1000000"* ]]
	run --separate-stderr "$ROOT/scripts/pleat-drape" --dt -1
	[ "$status" -eq 2 ]
	[[ "$stderr" == "pleat-drape: --dt: '-1' is not a positive number"* ]]
	run --separate-stderr "$ROOT/scripts/pleat-drape" --bogus
	[ "$status" -eq 2 ]
	run "$ROOT/scripts/pleat-drape" --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: pleat-drape "* ]]
	# a failing step: exit 1, no output file
	run --separate-stderr "$ROOT/scripts/pleat-drape" --frames 2 -s 4 -o "$W/out.grid" -- --stretch 0
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"pleat-drape: frame 1: pleat-solve failed" ]]
	[ ! -e "$W/out.grid" ]
}

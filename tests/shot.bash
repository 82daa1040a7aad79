# The test shot, for shot.bats and farm.bats.

# make_shot DIR: a 4-frame shot in DIR: the example skirt turning about x
# by 0.05 rad a frame, two levels, few iterations, meshes too; every
# pleat-frame run logged to DIR/frames.log (by DIR/logged-frame).
make_shot() {
	local dir=$1 k
	mkdir -p "$dir/in"
	"$ROOT/examples/make-skirt" > "$dir/skirt.obj"
	for k in 1 2 3 4; do
		awk -v a="$k" 'BEGIN { c = cos(0.05 * a); s = sin(0.05 * a) }
		     /^v / { printf "v %.6f %.6f %.6f\n", $2, c * $3 - s * $4, s * $3 + c * $4; next }
		     { print }' "$dir/skirt.obj" > "$dir/in/frame_000$k.obj"
	done
	printf '#!/bin/sh\necho "$*" >> "%s/frames.log"\nexec pleat-frame "$@"\n' "$dir" > "$dir/logged-frame"
	chmod +x "$dir/logged-frame"
	cat > "$dir/Makefile" <<-END
	SHOT_FRAMES = \$(wildcard in/frame_*.obj)
	SHOT_LEVELS = 192,384
	SHOT_ITERATIONS = 8,4
	SHOT_MESH = 1
	PLEAT_FRAME = ./logged-frame
	include $ROOT/mk/pleat-shot.mk
	END
}

# made DIR: the outputs (-o) of the logged pleat-frame runs in shot DIR,
# sorted, on one line, and the log emptied.
made() {
	sed 's/.* -o \([^ ]*\) .*/\1/' "$1/frames.log" | sort | tr '\n' ' '
	: > "$1/frames.log"
}

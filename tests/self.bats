#!/usr/bin/env bats
# pleat-solve --self: a sheet folded onto itself and compressed, so that
# its two layers wrinkle into each other, ends with no more intersecting
# triangle pairs than it started with (zero), counted by pleat-collide's
# exact tests; without --self the same solve does intersect.  On a real
# garment (the shared data's dress) the same holds for the intersections
# the repulsion is responsible for.

bats_require_minimum_version 1.5.0
load common

setup() {
	W="$BATS_TEST_TMPDIR"
	# pattern 0.1 m x 0.01 m; 3D: folded in two, the layers 0.3 mm apart
	cat > "$W/fold.obj" <<-'OBJ'
	v 0 0 0
	v 0.0495 0 0
	v 0.0495 0 0.0003
	v 0 0 0.0003
	v 0 0.01 0
	v 0.0495 0.01 0
	v 0.0495 0.01 0.0003
	v 0 0.01 0.0003
	vt 0 0
	vt 0.0495 0
	vt 0.0505 0
	vt 0.1 0
	vt 0 0.01
	vt 0.0495 0.01
	vt 0.0505 0.01
	vt 0.1 0.01
	f 1/1 2/2 6/6 5/5
	f 2/2 3/3 7/7 6/6
	f 3/3 4/4 8/8 7/7
	OBJ
}

pairs() {
	pleat-collide "$1" | sed 's/.* \([0-9]*\) intersecting triangle pairs.*/\1/'
}

@test "a folded sheet compressed by 10%: no intersections with --self, many without" {
	pleat-resample -s 400 "$W/fold.obj" > "$W/fold.grid"
	"$PLEAT_TESTBIN/test_solve" compress "$W/fold.grid" "$W/in.grid" 0.9 1e-5
	[ "$(pairs "$W/in.grid")" -eq 0 ]
	pleat-solve -q -n 256 --self "$W/in.grid" > "$W/self.grid"
	pleat-solve -q -n 256 "$W/in.grid" > "$W/free.grid"
	with=$(pairs "$W/self.grid")
	without=$(pairs "$W/free.grid")
	echo "# intersecting triangle pairs after 256 iterations: $with with --self, $without without" >&3
	[ "$with" -eq 0 ]
	[ "$without" -gt 100 ]
	# and the wrinkles did grow: the layers moved
	read -r _ disp _ < <("$PLEAT_TESTBIN/test_solve" measure "$W/self.grid")
	awk -v d="$disp" 'BEGIN { exit !(d > 1e-4) }'
}

@test "--self gives the same bytes with 1 and 2 threads" {
	pleat-resample -s 200 "$W/fold.obj" > "$W/fold.grid"
	"$PLEAT_TESTBIN/test_solve" compress "$W/fold.grid" "$W/in.grid" 0.9 1e-5
	OMP_NUM_THREADS=1 pleat-solve -q -n 32 --self "$W/in.grid" > "$W/a.grid"
	OMP_NUM_THREADS=2 pleat-solve -q -n 32 --self "$W/in.grid" > "$W/b.grid"
	cmp "$W/a.grid" "$W/b.grid"
}

# The draped dress of the Berkeley Garment Library at --size 1024 (135K
# cloth vertices, cell 2.5 mm, so R = 2 mm), 64 iterations.  pleat-collide
# counts every intersecting triangle pair (those sharing a corner too),
# but vertex repulsion cannot prevent them all: a pair whose corners are grid neighbours (within the
# 5 x 5 square, or across a seam) never repels, by design (collide.h), so
# the tight folds the solve makes near seams and panel edges leave such
# pairs with or without --self.  test_self far counts the pairs that are
# the repulsion's to prevent: those with no neighbouring corners.
@test "the draped dress: no far intersections with --self, hundreds without" {
	need_shared
	pleat-resample -s 1024 "$SHARED/berkeley_garments/dress/draped/dress-draped-iso.obj" > "$W/dress.grid"
	read -r _ in _ infar < <("$PLEAT_TESTBIN/test_self" far "$W/dress.grid")
	pleat-solve -q -n 64 --self "$W/dress.grid" > "$W/self.grid"
	pleat-solve -q -n 64 "$W/dress.grid" > "$W/free.grid"
	read -r _ with _ withfar < <("$PLEAT_TESTBIN/test_self" far "$W/self.grid")
	read -r _ without _ withoutfar < <("$PLEAT_TESTBIN/test_self" far "$W/free.grid")
	echo "# intersecting pairs (far ones): input $in ($infar), --self $with ($withfar), without $without ($withoutfar)" >&3
	# test_self counts what pleat-collide counts
	[ "$with" -eq "$(pairs "$W/self.grid")" ]
	[ "$withfar" -le "$infar" ]
	[ "$withoutfar" -gt 100 ]
	[ "$with" -lt "$without" ]
}

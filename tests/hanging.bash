# The hanging square for the solver's convergence tests (converge.bats,
# multigrid.bats): 1 m, pinned at its two top corners, starting flat,
# gravity, a stretchy cloth (100 N/m).  Small problems: one thread is
# faster than two busy ones.
export OMP_NUM_THREADS=1

HANG=(--gravity 0,0,-9.81 --pin 0,1 --pin 1,1 --shape 0 --stretch 100)

# hanging_grids SIZE...: the square resampled at each size into
# $BATS_FILE_TMPDIR/sSIZE.grid.
hanging_grids() {
	printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 2/2 3/3 4/4\n' > "$BATS_FILE_TMPDIR/square.obj"
	for size in "$@"; do
		pleat-resample -s "$size" -o "$BATS_FILE_TMPDIR/s$size.grid" "$BATS_FILE_TMPDIR/square.obj"
	done
}

# num VALUE: VALUE is a finite number (awk would compare an empty or
# non-numeric field as a string, and pass).
num() {
	[[ "$1" =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]] || { echo "not a number: '$1'"; return 1; }
}

# energy_of TEXT: the final energy of pleat-solve's summary line in TEXT.
energy_of() { sed -n 's/.* s: energy \([-0-9.e+]*\) J.*/\1/p' <<< "$1"; }

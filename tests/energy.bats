#!/usr/bin/env bats
# The grid energies (common/energy.h): gradients, the stencil bending
# against a per-edge assembly, springs against FEM, rest, resolution
# independence.  The numbers and tolerances are in tests/unit/test_energy.c;
# each command prints what it measured and fails on its own tolerance.

load common

setup() {
	T="$PLEAT_TESTBIN/test_energy"
}

@test "every energy's gradient matches central differences (double, < 1e-4)" {
	run "$T" fd
	echo "$output"
	[ "$status" -eq 0 ]
	# the check must reject a gradient 0.1% off at one vertex
	[[ "$output" == *"perturbed 1.000e-03"* ]]
	[ "$(grep -c 'diag positive' <<< "$output")" -eq 5 ]
}

@test "stencil bending equals the per-edge Bergou assembly on the mesh (1e-10)" {
	run "$T" mesh
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^bend-' <<< "$output")" -eq 2 ]
}

@test "springs and FEM agree on small uniaxial strain and shear" {
	run "$T" springfem
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *FAIL* ]]
}

@test "a flat sheet at rest has zero gradient (< 1e-12 N)" {
	run "$T" rest
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "same energy at two cell sizes; cylinder matches the plate energy" {
	run "$T" resolution
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the bending matrix is positive semidefinite with the hinge rule" {
	run "$T" psd
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "float path agrees with the double path" {
	run "$T" float
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "unknown command is a usage error" {
	run "$T" nonsense
	[ "$status" -eq 2 ]
}

@test "the FEM by cells equals the per-vertex FEM (double, 1e-12); the regular energies are exact" {
	run "$T" cells
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"exact at 64 of 64"* ]]
}

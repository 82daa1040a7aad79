/* energy.h - the cloth energies on the grid, per vertex, for the CPU and
 * the GPU alike.
 *
 * Every function here computes one vertex's share of an energy, its
 * gradient and a positive diagonal preconditioner from a window of
 * positions: x points at the vertex's first component and neighbour
 * (di, dj) is at x + 3 * (di + dj * pitch), so the same code reads a
 * global array on the CPU and a shared-memory tile on the GPU.  A vertex
 * never reads a neighbour whose bit in its neighbour word is clear, so a
 * window needs no padding past the cloth.
 *
 * PLANAR ELASTICITY on the six-neighbour tessellation: offsets (±1,0),
 * (0,±1), (1,-1), (-1,1); each cell is cut along its (1,-1) diagonal into
 * two right triangles of area h²/2, and a vertex lies in six of them.  A
 * triangle exists when its three vertices are inside the same panel.
 *  - FEM: co-rotational linear elasticity per triangle,
 *      W(F) = mu |F - R|² + lambda/2 (tr S - 2)²,   F = R S (polar),
 *    F the 3x2 deformation gradient.  It is exactly rotation invariant,
 *    has no inversion singularity (F maps into 3D: a flipped triangle is
 *    a rotation), equals linear elasticity mu e:e + lambda/2 (tr e)² to
 *    first order, and its 2x2 polar factor has a closed form (no
 *    iteration on the GPU).  We chose it over St. Venant-Kirchhoff,
 *    which softens and loses convexity under compression, exactly where
 *    wrinkles live.
 *  - springs: every edge of an existing triangle, 0.5 k (l - L)², each
 *    triangle giving half of k to its edges (a boundary edge has half the
 *    stiffness, so an affine strain gives the same energy per area as the
 *    FEM up to the sheet's edge).  In the continuum limit the lattice has
 *      W = k_a/2 (exx² + eyy²) + k_d/4 (exx + eyy - 2 exy)²;
 *    k_d = 2 mu matches the FEM in shear, k_a = mu + lambda then matches
 *    it in uniaxial strain along either axis.  What cannot match: the
 *    exx eyy coupling is k_d/2 = mu, not lambda (the lattice's Poisson
 *    ratio is 1/3 whatever the material's: equibiaxial strain s costs
 *    (3 mu + lambda) s² instead of 2 (mu + lambda) s²), and the single
 *    diagonal direction couples shear to dilation: uniaxial strain along
 *    (1,1) is (mu + lambda)/(4 mu + 2 lambda) as stiff as in the FEM,
 *    along (1,-1) (9 mu + lambda)/(4 mu + 2 lambda) as stiff (0.32 and
 *    1.72 at nu = 0.3).  Use the FEM when the bias matters.
 *
 * BENDING: Bergou et al. 2006, E = 1/2 x^T Q x with Q constant (built
 * from the flat rest shape), on the interleaved tessellation whose
 * diagonals alternate like a checkerboard (cell (a,b) is cut along
 * (a,b)-(a+1,b+1) when a+b is even, along (a+1,b)-(a,b+1) when odd):
 *
 *   j=2  E-----o-----E-----o-----E      E: parity 0, i+j even, where four
 *        | \   |   / | \   |   / |         diagonals meet (valence 8)
 *        |   \ | /   |   \ | /   |      o: parity 1, i+j odd, no diagonal
 *   j=1  o-----E-----o-----E-----o         (valence 4)
 *        |   / | \   |   / | \   |
 *        | /   |   \ | /   |   \ |      The pattern is invariant under
 *   j=0  E-----o-----E-----o-----E      quarter turns about any vertex:
 *       i=0   i=1   i=2   i=3   i=4     no direction of (1,±1) is favoured
 *
 * Each interior edge e of the triangle mesh is a hinge of two triangles
 * (x0, x1, x2) and (x0, x1, x3) with Bergou's cotangent vector
 *   K_e = (c03 + c04, c01 + c02, -c01 - c03, -c02 - c04),
 * and Q = sum_e w K_e^T K_e.  On this grid every angle is 45 or 90
 * degrees, the cotangents are 0 or 1 and each K_e is an integer second
 * difference: (1, -2, 1) along an axis through an o vertex, or
 * 2 (x00 + x11 - x10 - x01) across a cell diagonal.  Summing the hinges
 * gives two constant stencils, in units of k_b / h²:
 *
 *        parity 0: 12 neighbours            parity 1: 8 neighbours
 *                 2
 *            4  -12    4                     4  -12    4
 *       2  -12   24  -12   2               -12   32  -12
 *            4  -12    4                     4  -12    4
 *                 2
 *
 * Scaling: Bergou's weight is w = 3 / (A1 + A2) with A1 + A2 = h² here;
 * we use w = k_b / h², one third of it.  The sum of hinges tends to
 *   E = k_b/2 * integral of (kxx² + kyy² + 4 kxy²) dA
 * (kxx, kyy, kxy the second derivatives of the normal displacement), so
 * with our weight a cylinder bent about either grid axis has the plate
 * energy k_b/2 * A / R², k_b the bending rigidity one measures (per unit
 * width, along warp or weft, which the pattern grid is aligned with); with
 * 3/(A1+A2) it would be three times that.  The model is not isotropic: a
 * cylinder whose axis is at 45 degrees to the grid costs 1.5 times as
 * much (an isotropic plate has 2 kxy², not 4).  Every factor of h is in
 * k_b / h²: the same k_b gives the same energy at every level.
 *
 * Boundaries.  BEND_HINGES (the default): a hinge counts only when its
 * four vertices exist, which is the per-edge assembly on the mesh of the
 * existing triangles.  Away from missing vertices the row is the constant
 * stencil (shared constants, the fast path); near them the row is summed
 * hinge by hinge.  BEND_COLLAPSE is the rule "a missing neighbour is the
 * vertex itself": the stencil with x_u replaced by x_v for each missing
 * u, i.e. its weight moved to the centre.  It is kept for comparison with
 * the paper but is not the default, because (tests/energy.bats shows
 * both) the collapsed Q does not annihilate affine maps at a boundary --
 * a flat sheet at rest feels a force of 4 k_b / h on the boundary o
 * vertices -- and it is indefinite wherever the boundary is not a
 * straight grid line (a hole, a curved edge), so the bending energy is
 * not bounded below there.  Ghost vertices (MASK_GHOST) count as existing
 * for bending and not for elasticity: they shape the bending at a closed
 * boundary without being cloth.
 *
 * Precision: the arithmetic is written once, in energy_tmpl.h, and
 * instantiated here for float (suffix _f, the solver's) and double
 * (suffix _d, the tests').
 */
#ifndef PLEAT_ENERGY_H
#define PLEAT_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "hostdev.h"
#include "material.h"
#include "vec.h"

/* Bending stencils in units of k_b / h² (see above). */
#define BEND_EVEN_CENTRE 24
#define BEND_ODD_CENTRE  32
#define BEND_AXIS       -12
#define BEND_DIAG         4
#define BEND_FAR          2

enum bend_rule { BEND_HINGES = 0, BEND_COLLAPSE = 1 };

/* Terms, for the sums over a grid. */
enum {
	TERM_SPRING = 1,
	TERM_FEM    = 2,
	TERM_BEND   = 4,
};

/* The neighbour word of a vertex (uint32).
 * Bits 0-11: bending neighbour k exists (inside or ghost, same panel as
 * the vertex, which is itself inside or ghost), k indexing NB_OFF:
 *   0-3 (1,0) (0,1) (-1,0) (0,-1), 4-7 (1,1) (-1,1) (-1,-1) (1,-1),
 *   8-11 (2,0) (0,2) (-2,0) (0,-2);
 * within each group of four, k+1 (mod 4) is k turned a quarter counter-
 * clockwise, which is how the bending code walks its hinges.
 * Bits 16-21: elastic neighbour r of the ring (inside, same panel, the
 * vertex inside), r indexing RING_OFF counter-clockwise:
 *   (1,0) (0,1) (-1,1) (-1,0) (0,-1) (1,-1);
 * triangle r is (vertex, ring r, ring r+1). */
#define NB_BEND_EVEN  0x0fffu  /* all twelve: the parity-0 fast path */
#define NB_BEND_ODD   0x00ffu  /* the eight of parity 1 */
#define NB_ELASTIC(r) (1u << (16 + (r)))
#define NB_ELASTIC_ALL 0x003f0000u

/* Every neighbour a vertex of this parity can have is there: the
 * vertex can take energy_grad_regular. */
PL_HD int nbr_complete(uint32_t nbr, int parity)
{
	uint32_t all = NB_ELASTIC_ALL | (parity ? NB_BEND_ODD : NB_BEND_EVEN);
	return (nbr & all) == all;
}

PL_HD int nb_di(int k)
{
	/* (1,0) (0,1) (-1,0) (0,-1) scaled by 1, (1,1)-type, or 2 */
	const int ax[4] = {1, 0, -1, 0};
	const int dg[4] = {1, -1, -1, 1};
	int q = k & 3;
	return k < 4 ? ax[q] : k < 8 ? dg[q] : 2 * ax[q];
}

PL_HD int nb_dj(int k)
{
	const int ax[4] = {0, 1, 0, -1};
	const int dg[4] = {1, 1, -1, -1};
	int q = k & 3;
	return k < 4 ? ax[q] : k < 8 ? dg[q] : 2 * ax[q];
}

PL_HD int ring_di(int r)
{
	const int d[6] = {1, 0, -1, -1, 0, 1};
	return d[r];
}

PL_HD int ring_dj(int r)
{
	const int d[6] = {0, 1, 1, 0, -1, -1};
	return d[r];
}

/* Bending neighbour k lies two steps away along an axis, outside the
 * 3 x 3 neighbourhood the elastic terms read: the neighbours the block
 * method may take from the start of the block (Wang 2021, Eq. 9). */
PL_HD int nb_far(int k)
{
	return k >= 8;
}

/* Index k turned q quarters counter-clockwise (within its group of 4). */
PL_HD int nb_turn(int k, int q)
{
	return (k & ~3) | ((k + q) & 3);
}

/* Weight of bending neighbour k in the constant stencils, in k_b / h². */
PL_HD int bend_stencil_weight(int k)
{
	return k < 4 ? BEND_AXIS : k < 8 ? BEND_DIAG : BEND_FAR;
}

PL_HD int ring_is_diag(int r)
{
	return r == 2 || r == 5;
}

/* Triangle r of the ring, (v, ring r, ring r+1), exists. */
PL_HD int ring_triangle(uint32_t nbr, int r)
{
	uint32_t both = NB_ELASTIC(r) | NB_ELASTIC(r == 5 ? 0 : r + 1);
	return (nbr & both) == both;
}

/* Existing triangles on ring edge r: 0, 1 or 2. */
PL_HD int ring_edge_triangles(uint32_t nbr, int r)
{
	return ring_triangle(nbr, r == 0 ? 5 : r - 1) + ring_triangle(nbr, r);
}

/* A hinge of the bending model seen from one vertex: its three other
 * vertices (bending neighbour indices), their weights in K and the
 * centre's weight.  The weights are Bergou's cotangent sums on this grid
 * (0, ±1, ±2), so they are exact small integers. */
struct bend_hinge {
	signed char nb[3], w[3], wc;
};

PL_HD struct bend_hinge bend_hinge_make(int a, int b, int c, int wa, int wb,
					int wcc, int wcentre)
{
	struct bend_hinge h;
	h.nb[0] = (signed char)a;
	h.nb[1] = (signed char)b;
	h.nb[2] = (signed char)c;
	h.w[0] = (signed char)wa;
	h.w[1] = (signed char)wb;
	h.w[2] = (signed char)wcc;
	h.wc = (signed char)wcentre;
	return h;
}

/* The hinges through a vertex with a nonzero centre weight, one of each
 * orbit under quarter turns (bend_grad turns each four times): a parity-0
 * vertex is in 12 such hinges (and 4 where its weight is 0), a parity-1
 * vertex in 8.  With all of them present their sum is the stencil. */
#define BEND_EVEN_HINGES 3
#define BEND_ODD_HINGES  2
PL_HD struct bend_hinge bend_hinge_row(int parity, int h)
{
	if (!parity) {
		if (h == 0)  /* (0,-2) (0,-1) v: second difference, edge to (-1,-1) */
			return bend_hinge_make(6, 3, 11, 0, 2, -1, -1);
		if (h == 1)  /* the same second difference, edge to (1,-1) */
			return bend_hinge_make(3, 7, 11, 2, 0, -1, -1);
		/* across the diagonal v-(-1,-1) */
		return bend_hinge_make(6, 3, 2, 2, -2, -2, 2);
	}
	if (h == 0)  /* across the diagonal (-1,0)-(0,-1) */
		return bend_hinge_make(2, 3, 6, 2, 2, -2, -2);
	/* (-1,0) v (1,0): second difference, edge v-(0,-1) */
	return bend_hinge_make(3, 2, 0, 0, -1, -1, 2);
}

/* The hinges a vertex owns, so that each hinge of the grid is counted
 * once in the energy: the edges to (1,0) and (0,1) and, for parity 0,
 * the two cell diagonals leaving it upwards. */
#define BEND_EVEN_OWNED 4
#define BEND_ODD_OWNED  2
PL_HD struct bend_hinge bend_owned_row(int parity, int h)
{
	if (!parity) {
		if (h == 0)  /* edge (1,0): (1,-1) (1,0) (1,1) */
			return bend_hinge_make(0, 7, 4, 2, -1, -1, 0);
		if (h == 1)  /* edge (0,1): (-1,1) (0,1) (1,1) */
			return bend_hinge_make(1, 5, 4, 2, -1, -1, 0);
		if (h == 2)  /* diagonal to (1,1) */
			return bend_hinge_make(4, 0, 1, 2, -2, -2, 2);
		/* diagonal to (-1,1) */
		return bend_hinge_make(5, 2, 1, 2, -2, -2, 2);
	}
	if (h == 0)  /* edge (1,0): (0,-1) v (0,1) */
		return bend_hinge_make(0, 3, 1, 0, -1, -1, 2);
	/* edge (0,1): (-1,0) v (1,0) */
	return bend_hinge_make(1, 2, 0, 0, -1, -1, 2);
}

#define EN_REAL float
#define EN_SQRT sqrtf
#define EN_FABS fabsf
#define EN_V vec3
#define EN_SFX(name) name##_f
#include "energy_tmpl.h"
#undef EN_REAL
#undef EN_SQRT
#undef EN_FABS
#undef EN_V
#undef EN_SFX

#define EN_REAL double
#define EN_SQRT sqrt
#define EN_FABS fabs
#define EN_V dvec3
#define EN_SFX(name) name##_d
#include "energy_tmpl.h"
#undef EN_REAL
#undef EN_SQRT
#undef EN_FABS
#undef EN_V
#undef EN_SFX

#ifdef __cplusplus
extern "C" {
#endif

/* Fills nbr[width * height] from the mask (u8) and, when not NULL, panel
 * (u16) planes; a NULL panel puts every vertex in one panel. */
void energy_neighbours_raw(int width, int height, const uint8_t *mask,
			   const uint16_t *panel, uint32_t *nbr);
/* The same from a grid's mask and panel channels (panel optional);
 * returns -1 with e set when the mask is missing or mistyped. */
struct grid;
struct error;
int energy_neighbours(const struct grid *g, uint32_t *nbr, struct error *e);

/* Sums over a whole grid (x: width * height * 3, row pitch width), the
 * terms selected by `terms`, accumulated in double.  energy_total_*
 * returns the energy (J); energy_gradient_* writes the gradient of that
 * energy into grad and, when diag is not NULL, the preconditioner. */
double energy_total_f(int width, int height, const float *x,
		      const uint32_t *nbr, const struct energy_coef_f *c,
		      unsigned terms);
double energy_total_d(int width, int height, const double *x,
		      const uint32_t *nbr, const struct energy_coef_d *c,
		      unsigned terms);
void energy_gradient_f(int width, int height, const float *x,
		       const uint32_t *nbr, const struct energy_coef_f *c,
		       unsigned terms, float *grad, float *diag);
void energy_gradient_d(int width, int height, const double *x,
		       const uint32_t *nbr, const struct energy_coef_d *c,
		       unsigned terms, double *grad, double *diag);

#ifdef __cplusplus
}
#endif

#endif

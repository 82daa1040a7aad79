/* block.c - one outer iteration of the block-based descent (Wang 2021,
 * section 5), shaped like the GPU kernel it stands for.
 *
 * The grid is cut into non-overlapping BLOCK_W x BLOCK_W blocks.  A block
 * copies its tile, its interior and a halo of BLOCK_HALO vertices, from
 * the x of the start of the outer iteration, runs `inner` Jacobi
 * iterations on the interior with the halo frozen, and writes the
 * interior to out.  Within an inner iteration every interior vertex
 * computes its step from the same tile (as the GPU's threads do between
 * two barriers), then all of them move.  Blocks read only x and write
 * only their own interior of out, so the result does not depend on the
 * order or the thread that runs them: the CPU output is the same bytes
 * for any OMP_NUM_THREADS.
 *
 * The tile holds its positions by component, so that the vector loops
 * (the FEM by cells, the bending stencil, the moves) read a neighbour
 * with one load.  Most vertices of a garment take only those loops.
 * Near a boundary, and for the terms beyond the grid energies (seams,
 * self collision, dynamics, inflation), vertices go one by one through
 * the per-vertex arithmetic the GPU runs, which reads an interleaved
 * copy of the tile made when an inner iteration needs it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solve.h"

#define TILE_N (BLOCK_T * BLOCK_T)

#define INNER_N (BLOCK_W * BLOCK_W)

/* The vector passes run a whole number of 16-lane vectors (a remainder
 * loop would cost as much as the vectors), so the arrays they read and
 * write by tile index have room for the lanes past the last position
 * they need: a pass over n positions from `first` runs to first +
 * LANES(n) - 1 and reads two rows further, at most 149 (one run in the
 * last interior row: first 110, 16 lanes, + 2 BLOCK_T) < PLANE. */
#define LANES(n) (((n) + 15) & ~15)
#define PLANE (TILE_N + 16)

enum aos { AOS_STALE, AOS_HALO, AOS_FRESH };  /* nothing, the halo, all */

/* A block's working set, one per thread (the GPU's shared memory). */
struct tile {
	/* positions by component, row pitch BLOCK_T, and the interior's
	 * one inner iteration ago */
	float sx[PLANE], sy[PLANE], sz[PLANE];
	float ox[PLANE], oy[PLANE], oz[PLANE];
	/* with Eq. 9 (solve_coef.far_start), the positions at the start of
	 * the block, where the bending neighbours two steps away are read,
	 * and their interleaved copy when the per-vertex path needs it */
	float fx[PLANE], fy[PLANE], fz[PLANE];
	float xf[TILE_N * 3];
	int xf_fresh;
	/* the positions interleaved, for the per-vertex path, and how
	 * much of them is current: enum aos */
	float x[TILE_N * 3];
	int aos;
	int at[INNER_N];            /* interior index -> tile index */
	size_t gv[INNER_N];         /* interior index -> grid vertex */
	int parity[INNER_N];
	int nact;                   /* movable interior vertices */
	/* the gradients: runs of complete vertices side by side in a row
	 * as vector loops, run_q0[r] the first and run_n[r] the length of
	 * run r; the other vertices one by one, scalar_q[0 .. nscalar-1] */
	int nrun, run_q0[INNER_N], run_n[INNER_N];
	int nscalar, scalar_q[INNER_N];
	/* the moves: the vertices with no term beyond the grid energies in
	 * one vector loop, plain[] marking them by tile index between
	 * plain_lo and plain_hi; the others (other_q) one by one, after
	 * extra_vertex, with their steps in step[] by interior index */
	unsigned char plain[PLANE];
	int plain_lo, plain_hi;
	int nother, other_q[INNER_N];
	float step[INNER_N * 3];
	struct block_kind listed;   /* the kind the lists are of */
	/* the FEM by cells for the runs: corner gradients of the cells
	 * whose corner p00 is tile vertex (a, b), at b * BLOCK_T + a of
	 * 12 planes (fem_cell_grad, cell_run), and with gathering the
	 * corners' preconditioner shares in 4 more */
	float cg[16 * PLANE];
	/* with a gathering field: the tile's tensors (sxx, sxy, syy) */
	float tx[PLANE], ty[PLANE], tz[PLANE];
	/* this inner iteration's gradients and preconditioners by tile
	 * index */
	float gx[PLANE], gy[PLANE], gz[PLANE], d[PLANE];
	/* the interior's rest positions, every position's parity */
	float rx[PLANE], ry[PLANE], rz[PLANE];
	unsigned char par[PLANE];
	/* with a body: the moving vertices' half-planes (n, d), and which
	 * positions they are at, between act_lo and act_hi */
	float nx[PLANE], ny[PLANE], nz[PLANE], nd[PLANE];
	unsigned char act[PLANE];
	int act_lo, act_hi;
};

/* A thread's tile before its first block: the numbers no block sets
 * (halo rest positions, cells and gradients of positions that are not
 * run vertices) start as zeros, and the parities are the same for every
 * block (a tile's first vertex is at an even i + j, BLOCK_W and
 * BLOCK_HALO being even). */
static void tile_init(struct tile *t)
{
	memset(t, 0, sizeof *t);
	for (int q = 0; q < TILE_N; q++)
		t->par[q] = (unsigned char)((q % BLOCK_T + q / BLOCK_T) & 1);
}

/* Whether vertex v's step is its grid energies' alone: no term of
 * extra_vertex reaches it (with self collision, its proximity list is
 * empty: block_plan runs again after every refresh). */
static int vertex_plain(const struct problem *p, size_t v)
{
	return !vertex_terms_any(&p->terms, v);
}

/* The tile of block (bx, by) of src, a grid-wide array of 3 floats a
 * vertex (positions, tensors), into the planes X, Y, Z; vertices past
 * the grid's edge are zero and never read (their neighbour bits are
 * clear). */
static void tile_copy(const struct problem *p, const float *src, int bx,
		      int by, float *X, float *Y, float *Z)
{
	int i0 = bx * BLOCK_W - BLOCK_HALO, j0 = by * BLOCK_W - BLOCK_HALO;
	int a0 = i0 < 0 ? -i0 : 0;
	int a1 = p->w - i0 < BLOCK_T ? p->w - i0 : BLOCK_T;
	for (int b = 0; b < BLOCK_T; b++) {
		int j = j0 + b, q = b * BLOCK_T;
		int lo = j >= 0 && j < p->h ? a0 : BLOCK_T;
		int hi = j >= 0 && j < p->h ? a1 : BLOCK_T;
		int jr = j < 0 ? 0 : j >= p->h ? p->h - 1 : j;
		const float *row = src + 3 * ((size_t)jr * (size_t)p->w);
		for (int a = 0; a < lo; a++)
			X[q + a] = Y[q + a] = Z[q + a] = 0.0f;
		for (int a = lo; a < hi; a++) {
			const float *v = row + 3 * (i0 + a);
			X[q + a] = v[0];
			Y[q + a] = v[1];
			Z[q + a] = v[2];
		}
		for (int a = hi; a < BLOCK_T; a++)
			X[q + a] = Y[q + a] = Z[q + a] = 0.0f;
	}
}

/* Rows and columns lo to hi - 1 of the planes X, Y, Z into the
 * interleaved dst. */
static void interleave(const float *X, const float *Y, const float *Z,
		       int lo, int hi, float *dst)
{
	for (int b = lo; b < hi; b++)
		for (int a = lo; a < hi; a++) {
			int q = b * BLOCK_T + a;
			dst[3 * q] = X[q];
			dst[3 * q + 1] = Y[q];
			dst[3 * q + 2] = Z[q];
		}
}

/* The interleaved copies brought up to date, for the per-vertex path:
 * the whole tile after a load, the interior after a move (the halo does
 * not move); with Eq. 9 the start of the block once. */
static void tile_interleave(const struct problem *p, struct tile *t)
{
	if (p->c.far_start && !t->xf_fresh) {
		interleave(t->fx, t->fy, t->fz, 0, BLOCK_T, t->xf);
		t->xf_fresh = 1;
	}
	if (t->aos == AOS_FRESH)
		return;
	int lo = t->aos == AOS_STALE ? 0 : BLOCK_HALO;
	int hi = t->aos == AOS_STALE ? BLOCK_T : BLOCK_HALO + BLOCK_W;
	interleave(t->sx, t->sy, t->sz, lo, hi, t->x);
	t->aos = AOS_FRESH;
}

/* Whether the runs take the FEM by cells: each triangle once for its
 * three corners instead of once per corner (the spring model has no
 * such form here). */
static int fem_by_cells(const struct solve_coef *c)
{
	return (c->terms & TERM_FEM) && !(c->terms & TERM_SPRING);
}

static struct block_kind block_kind_of(const struct problem *p, int bx,
				       int by)
{
	struct block_kind k = {0, 0, 0};
	for (int b = 0; b < BLOCK_W; b++)
		for (int a = 0; a < BLOCK_W; a++) {
			int i = bx * BLOCK_W + a, j = by * BLOCK_W + b;
			size_t v = (size_t)j * (size_t)p->w + (size_t)i;
			if (i >= p->w || j >= p->h || !p->mov[v])
				continue;
			uint64_t bit = (uint64_t)1 << (a + b * BLOCK_W);
			k.moves |= bit;
			if (nbr_complete(p->nbr[v], (i + j) & 1) &&
			    (!p->gather || fem_by_cells(&p->c)))
				k.complete |= bit;
			if (vertex_plain(p, v))
				k.plain |= bit;
		}
	return k;
}

void block_plan(struct problem *p)
{
	int nbx = (p->w + BLOCK_W - 1) / BLOCK_W;
	int nby = (p->h + BLOCK_W - 1) / BLOCK_W;
	long nblocks = (long)nbx * nby;
	free(p->blocks);
	p->blocks = xmalloc_array((size_t)nblocks, sizeof *p->blocks);
	#pragma omp parallel for schedule(static)
	for (long b = 0; b < nblocks; b++)
		p->blocks[b] = block_kind_of(p, (int)(b % nbx), (int)(b / nbx));
}

/* The moving vertices' half-planes, by component, for project_tile. */
static void tile_planes(const struct problem *p, struct tile *t)
{
	memset(t->act, 0, sizeof t->act);
	for (int q = 0; q < t->nact; q++) {
		const float *pl = p->plane + 4 * t->gv[q];
		int at = t->at[q];
		t->nx[at] = pl[0];
		t->ny[at] = pl[1];
		t->nz[at] = pl[2];
		t->nd[at] = pl[3];
		t->act[at] = 1;
	}
	t->act_lo = t->at[0];
	t->act_hi = t->at[t->nact - 1];
}

/* Lists the moving vertices of block (bx, by), of kind k (not empty),
 * and sorts them into the runs, the per-vertex gradients, and the
 * vector or per-vertex moves. */
static void tile_list(const struct problem *p, int bx, int by,
		      struct block_kind k, struct tile *t)
{
	t->nact = t->nrun = t->nscalar = t->nother = 0;
	t->plain_lo = TILE_N;
	t->plain_hi = -1;
	memset(t->plain, 0, sizeof t->plain);
	for (uint64_t m = k.moves; m; m &= m - 1) {
		int bit = __builtin_ctzll(m), a = bit % BLOCK_W, b = bit / BLOCK_W;
		int i = bx * BLOCK_W + a, j = by * BLOCK_W + b;
		int q = t->nact++, at = (b + BLOCK_HALO) * BLOCK_T + a + BLOCK_HALO;
		t->at[q] = at;
		t->gv[q] = (size_t)j * (size_t)p->w + (size_t)i;
		t->parity[q] = (i + j) & 1;
		if (k.plain >> bit & 1) {
			t->plain[at] = 1;
			t->plain_lo = at < t->plain_lo ? at : t->plain_lo;
			t->plain_hi = at;
		} else {
			t->other_q[t->nother++] = q;
		}
		if (!(k.complete >> bit & 1))
			t->scalar_q[t->nscalar++] = q;
		else if (a > 0 && (k.complete >> (bit - 1) & 1))
			t->run_n[t->nrun - 1]++;
		else {
			t->run_q0[t->nrun] = q;
			t->run_n[t->nrun++] = 1;
		}
	}
	t->listed = k;
}

/* Lists the moving vertices of block (bx, by), of kind k, and sorts
 * them into the runs, the per-vertex gradients, and the vector or
 * per-vertex moves; copies the tile from x and what else the block
 * reads when there are any.  Returns how many there are.  The lists
 * depend on the kind alone but for the grid vertices, so a block of
 * the kind the thread listed last (most blocks of a garment: every
 * vertex moving, complete and plain) only renumbers those. */
static int tile_load(const struct problem *p, const float *x, int bx,
		     int by, struct block_kind k, struct tile *t)
{
	if (!k.moves)
		return 0;
	if (k.moves == t->listed.moves && k.complete == t->listed.complete &&
	    k.plain == t->listed.plain) {
		size_t first = (size_t)by * BLOCK_W * (size_t)p->w +
			       (size_t)bx * BLOCK_W;
		for (int q = 0; q < t->nact; q++) {
			int b = t->at[q] / BLOCK_T - BLOCK_HALO;
			int a = t->at[q] % BLOCK_T - BLOCK_HALO;
			t->gv[q] = first + (size_t)b * (size_t)p->w + (size_t)a;
		}
	} else {
		tile_list(p, bx, by, k, t);
	}
	tile_copy(p, x, bx, by, t->sx, t->sy, t->sz);
	if (p->c.far_start) {
		memcpy(t->fx, t->sx, sizeof t->fx);
		memcpy(t->fy, t->sy, sizeof t->fy);
		memcpy(t->fz, t->sz, sizeof t->fz);
		t->xf_fresh = 0;
	}
	t->aos = AOS_STALE;
	for (int q = 0; q < t->nact; q++) {
		const float *r = p->rest + 3 * t->gv[q];
		t->rx[t->at[q]] = r[0];
		t->ry[t->at[q]] = r[1];
		t->rz[t->at[q]] = r[2];
	}
	if (p->plane)
		tile_planes(p, t);
	if (p->gather)
		tile_copy(p, p->gather, bx, by, t->tx, t->ty, t->tz);
	return t->nact;
}

/* The runs' gradients with the FEM by cells.  The tile's rows lie one
 * after another, so both passes run as one vector loop over every
 * position from the first run's vertex to the last's (BLOCK_T a row,
 * halo included): the cells first (a vertex reads the four around it:
 * its own, and those to the left, below, and below and to the left),
 * then the vertices.  The positions that are not run vertices cost less
 * than rows of BLOCK_W lanes would; their numbers are not read (the
 * per-vertex path writes its vertices' afterwards). */
static void tile_runs_by_cells(const struct problem *p, struct tile *t)
{
	int lo = t->at[t->run_q0[0]] / BLOCK_T;
	int hi = t->at[t->run_q0[t->nrun - 1]] / BLOCK_T;
	int first = lo * BLOCK_T + BLOCK_HALO, last = hi * BLOCK_T +
		    BLOCK_HALO + BLOCK_W - 1;
	int cfirst = first - BLOCK_T - 1;
	int ncells = LANES(last - cfirst + 1), gathered = p->gather != NULL;
	const float *far[3] = {t->sx + first, t->sy + first, t->sz + first};
	if (p->c.far_start) {
		far[0] = t->fx + first;
		far[1] = t->fy + first;
		far[2] = t->fz + first;
	}
	if (gathered)
		cell_run_gathered(&p->c, t->sx + cfirst, t->sy + cfirst,
				  t->sz + cfirst, t->tx + cfirst, t->ty + cfirst,
				  t->tz + cfirst, BLOCK_T, ncells,
				  t->cg + cfirst, PLANE);
	else
		cell_run(&p->c, t->sx + cfirst, t->sy + cfirst, t->sz + cfirst,
			 BLOCK_T, ncells, t->cg + cfirst, PLANE);
	grad_run_cells(&p->c, t->sx + first, t->sy + first, t->sz + first,
		       far, BLOCK_T, t->rx + first, t->ry + first, t->rz + first,
		       t->par + first, LANES(last - first + 1), t->cg + first,
		       PLANE, gathered, t->gx + first, t->gy + first,
		       t->gz + first, t->d + first);
}

/* Every interior vertex's gradient of the grid energies into t->g*,
 * t->d. */
static void tile_gradients(const struct problem *p, struct tile *t)
{
	int cells = fem_by_cells(&p->c);
	if (t->nrun && cells)
		tile_runs_by_cells(p, t);
	int aos = t->nscalar || t->nother || (t->nrun && !cells);
	if (aos)
		tile_interleave(p, t);
	/* where the per-vertex path reads the far bending neighbours */
	const float *xf = p->c.far_start ? t->xf : t->x;
	for (int r = 0; r < t->nrun && !cells; r++) {
		int q = t->run_q0[r], at = t->at[q];
		grad_run(&p->c, t->x + 3 * at, BLOCK_T, xf + 3 * at,
			 BLOCK_T, p->rest + 3 * t->gv[q],
			 t->parity[q], t->run_n[r], t->gx + at, t->gy + at,
			 t->gz + at, t->d + at);
	}
	for (int s = 0; s < t->nscalar; s++) {
		int q = t->scalar_q[s], at = t->at[q];
		vec3 g;
		size_t v = t->gv[q];
		solve_vertex_grad_far(t->x + 3 * at, BLOCK_T, xf + 3 * at,
				      BLOCK_T, p->rest + 3 * v,
				      gather_at(p, v), p->nbr[v], t->parity[q],
				      &p->c, &g, &t->d[at]);
		t->gx[at] = g.x;
		t->gy[at] = g.y;
		t->gz[at] = g.z;
	}
}

/* One coordinate's move: the arithmetic of solve_vertex_step (the step
 * is 0 where the preconditioner is not positive) and cheb_mix. */
static inline __attribute__((always_inline)) void
move_coordinate(float *xk, float *ok, float g, int on, int dpos, float s,
		float omega)
{
	float now = *xk, before = *ok;
	float moved = cheb_mix(now + (dpos ? g * s : 0.0f), before, omega);
	*xk = on ? moved : now;
	*ok = on ? now : before;
}

/* The plain vertices' steps and moves, as one vector loop over the
 * positions from the first to the last of them (the others keep their
 * values). */
VECTOR_CLONES
static void move_plain(struct tile *t, float step, float omega)
{
	int lo = t->plain_lo, n = LANES(t->plain_hi - lo + 1);
	float *X = t->sx + lo, *Y = t->sy + lo, *Z = t->sz + lo;
	float *OX = t->ox + lo, *OY = t->oy + lo, *OZ = t->oz + lo;
	const float *gx = t->gx + lo, *gy = t->gy + lo, *gz = t->gz + lo;
	const float *d = t->d + lo;
	const unsigned char *on = t->plain + lo;
	#pragma omp simd
	for (int a = 0; a < n; a++) {
		int dpos = d[a] > 0.0f;
		float s = -step / d[a];
		move_coordinate(X + a, OX + a, gx[a], on[a], dpos, s, omega);
		move_coordinate(Y + a, OY + a, gy[a], on[a], dpos, s, omega);
		move_coordinate(Z + a, OZ + a, gz[a], on[a], dpos, s, omega);
	}
}

/* The other vertices' steps, each with its extra terms, all from the
 * positions before any move. */
static void step_others(const struct problem *p, const float *x0,
			struct tile *t)
{
	for (int s = 0; s < t->nother; s++) {
		int q = t->other_q[s], at = t->at[q];
		vec3 g = v3(t->gx[at], t->gy[at], t->gz[at]);
		float d = t->d[at];
		extra_vertex(p, t->gv[q], t->x + 3 * at, BLOCK_T, x0, &g, &d);
		v3_store(t->step + 3 * q, seam_step_limit(&p->terms, t->gv[q],
				solve_vertex_step(g, d, p->c.step)));
	}
}

static void move_others(struct tile *t, float omega)
{
	float *S[3] = {t->sx, t->sy, t->sz}, *O[3] = {t->ox, t->oy, t->oz};
	for (int s = 0; s < t->nother; s++) {
		int q = t->other_q[s], at = t->at[q];
		for (int k = 0; k < 3; k++) {
			float now = S[k][at];
			S[k][at] = cheb_mix(now + t->step[3 * q + k], O[k][at],
					    omega);
			O[k][at] = now;
		}
	}
}

/* The body's half-planes on every moving vertex, as one vector loop
 * over the positions from the first to the last of them: the arithmetic
 * of collide_project_halfplane, lane by lane. */
VECTOR_CLONES
static void project_tile(struct tile *t)
{
	int lo = t->act_lo, n = LANES(t->act_hi - lo + 1);
	float *X = t->sx + lo, *Y = t->sy + lo, *Z = t->sz + lo;
	const float *nx = t->nx + lo, *ny = t->ny + lo, *nz = t->nz + lo;
	const float *nd = t->nd + lo;
	const unsigned char *on = t->act + lo;
	#pragma omp simd
	for (int a = 0; a < n; a++) {
		vec3 x = v3(X[a], Y[a], Z[a]);
		vec3 pr = collide_project_plane(x, v3(nx[a], ny[a], nz[a]),
						nd[a]);
		X[a] = on[a] ? pr.x : x.x;
		Y[a] = on[a] ? pr.y : x.y;
		Z[a] = on[a] ? pr.z : x.z;
	}
}

/* One inner Jacobi iteration with Chebyshev weight omega: every step
 * from the same tile, then every move. */
static void inner_iteration(const struct problem *p, const float *x0,
			    struct tile *t, float omega)
{
	tile_gradients(p, t);
	step_others(p, x0, t);
	if (t->plain_hi >= 0)
		move_plain(t, p->c.step, omega);
	move_others(t, omega);
	if (p->plane)
		project_tile(t);
	if (t->aos == AOS_FRESH)
		t->aos = AOS_HALO;
}

/* The interior of block (bx, by) into out from the tile. */
static void tile_store(const struct problem *p, const struct tile *t,
		       int bx, int by, float *out)
{
	int i0 = bx * BLOCK_W;
	int m = p->w - i0 < BLOCK_W ? p->w - i0 : BLOCK_W;
	for (int b = 0; b < BLOCK_W && by * BLOCK_W + b < p->h; b++) {
		size_t j = (size_t)by * BLOCK_W + (size_t)b;
		float *dst = out + 3 * (j * (size_t)p->w + (size_t)i0);
		const int q0 = (b + BLOCK_HALO) * BLOCK_T + BLOCK_HALO;
		for (int a = 0; a < m; a++) {
			dst[3 * a] = t->sx[q0 + a];
			dst[3 * a + 1] = t->sy[q0 + a];
			dst[3 * a + 2] = t->sz[q0 + a];
		}
	}
}

/* The interior of block (bx, by) carried through from x to out. */
static void block_carry(const struct problem *p, const float *x, int bx,
			int by, float *out)
{
	int i0 = bx * BLOCK_W;
	int m = p->w - i0 < BLOCK_W ? p->w - i0 : BLOCK_W;
	for (int b = 0; b < BLOCK_W && by * BLOCK_W + b < p->h; b++) {
		size_t k = 3 * (((size_t)by * BLOCK_W + (size_t)b) *
				(size_t)p->w + (size_t)i0);
		memcpy(out + k, x + k, 3 * (size_t)m * sizeof(float));
	}
}

void block_step(const struct problem *p, const float *x, float *out,
		int inner, float inner_rho)
{
	int nbx = (p->w + BLOCK_W - 1) / BLOCK_W;
	int nby = (p->h + BLOCK_W - 1) / BLOCK_W;
	long nblocks = (long)nbx * nby;
	#pragma omp parallel
	{
		struct tile t;
		tile_init(&t);
		#pragma omp for schedule(dynamic, 16)
		for (long b = 0; b < nblocks; b++) {
			int bx = (int)(b % nbx), by = (int)(b / nbx);
			struct block_kind k = p->blocks ? p->blocks[b] :
					      block_kind_of(p, bx, by);
			if (!tile_load(p, x, bx, by, k, &t)) {
				/* nothing moves */
				block_carry(p, x, bx, by, out);
				continue;
			}
			float omega = 1.0f;
			for (int l = 0; l < inner; l++) {
				omega = inner_rho > 0 ?
					cheb_omega(l, 1, inner_rho, omega) : 1.0f;
				inner_iteration(p, x, &t, omega);
			}
			tile_store(p, &t, bx, by, out);
		}
	}
}

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
 */
#include <string.h>

#include "solve.h"

#define TILE_N (BLOCK_T * BLOCK_T)

#define INNER_N (BLOCK_W * BLOCK_W)

/* The passes of the FEM by cells run a whole number of 16-lane vectors
 * (a remainder loop would cost as much as the vectors), so their arrays
 * have room for the lanes past the last position they need. */
#define LANES(n) (((n) + 15) & ~15)
#define CELL_PLANE (TILE_N + 16)

/* A block's working set, one per thread (the GPU's shared memory). */
struct tile {
	float x[TILE_N * 3];        /* positions, row pitch BLOCK_T */
	float old[INNER_N * 3];     /* interior one inner iteration ago */
	float step[INNER_N * 3];    /* this inner iteration's steps */
	int at[INNER_N];            /* interior index -> tile index */
	size_t gv[INNER_N];         /* interior index -> grid vertex */
	int parity[INNER_N];
	int nact;                   /* movable interior vertices */
	/* row b of the interior in one vector loop: every vertex of it
	 * moves and has every neighbour; row_q[b] is its first interior
	 * index then, -1 otherwise.  The vertices of the other rows, one by
	 * one: scalar_q[0 .. nscalar-1]. */
	int row_q[BLOCK_W];
	/* and row_plain[b] when no vertex of it has a term beyond the grid
	 * energies: its steps and moves are one vector loop too */
	int row_plain[BLOCK_W];
	int nother, other_q[INNER_N];  /* the vertices of the other rows */
	/* the gradients: runs of complete vertices side by side in a row
	 * (every full row is one) as vector loops, run_q0[r] the first and
	 * run_n[r] the length of run r; the other vertices one by one,
	 * scalar_q[0 .. nscalar-1] */
	int nrun, run_q0[INNER_N], run_n[INNER_N];
	int nscalar, scalar_q[INNER_N];
	/* the FEM by cells for the runs: corner gradients of the cells
	 * whose corner p00 is tile vertex (a, b), at b * BLOCK_T + a of
	 * 12 planes (fem_cell_grad, cell_run) */
	float cg[12 * CELL_PLANE];
	/* this inner iteration's gradients and preconditioners by tile
	 * index, by component so that a row of them is one vector store */
	float gx[CELL_PLANE], gy[CELL_PLANE], gz[CELL_PLANE], d[CELL_PLANE];
	/* what the FEM by cells reads: the positions by component (sx,
	 * sy, sz, copied from x before each pass), the interior's rest
	 * positions by component, every position's parity; by tile index */
	float sx[CELL_PLANE], sy[CELL_PLANE], sz[CELL_PLANE];
	float rx[CELL_PLANE], ry[CELL_PLANE], rz[CELL_PLANE];
	unsigned char par[CELL_PLANE];
};

/* Whether vertex v's step is its grid energies' alone: no term of
 * extra_vertex reaches it (see inner_iteration). */
static int vertex_plain(const struct problem *p, size_t v)
{
	return !p->prox && !p->dyn && p->infl.c.air == 0.0f &&
	       !p->infl.normal &&
	       !(p->seams.nlinks && p->seams.at[v] >= 0);
}

/* Copies the tile of block (bx, by) from x, a row at a time; vertices
 * past the grid's edge are zero and never read (their neighbour bits are
 * clear). */
static void tile_copy(const struct problem *p, const float *x, int bx,
		      int by, struct tile *t)
{
	int i0 = bx * BLOCK_W - BLOCK_HALO, j0 = by * BLOCK_W - BLOCK_HALO;
	int a0 = i0 < 0 ? -i0 : 0;
	int a1 = p->w - i0 < BLOCK_T ? p->w - i0 : BLOCK_T;
	for (int b = 0; b < BLOCK_T; b++) {
		int j = j0 + b;
		float *dst = t->x + 3 * b * BLOCK_T;
		if (j < 0 || j >= p->h) {
			memset(dst, 0, 3 * BLOCK_T * sizeof(float));
			continue;
		}
		memset(dst, 0, 3 * (size_t)a0 * sizeof(float));
		memcpy(dst + 3 * a0,
		       x + 3 * ((size_t)j * (size_t)p->w + (size_t)(i0 + a0)),
		       3 * (size_t)(a1 - a0) * sizeof(float));
		memset(dst + 3 * a1, 0, 3 * (size_t)(BLOCK_T - a1) * sizeof(float));
	}
}

/* Copies the tile of block (bx, by) from x and sorts its moving
 * vertices into runs, rows and the rest; 0 when none moves (then the
 * tile is not copied). */
/* The interior's rest positions into t->rx, ry, rz. */
static void tile_copy_rest(const struct problem *p, struct tile *t)
{
	for (int q = 0; q < t->nact; q++) {
		const float *r = p->rest + 3 * t->gv[q];
		t->rx[t->at[q]] = r[0];
		t->ry[t->at[q]] = r[1];
		t->rz[t->at[q]] = r[2];
	}
}

/* A thread's tile before its first block: the numbers no block sets
 * (rest positions outside the moving interior, cells and gradients
 * outside the runs) start as zeros, and the parities are the same for every block (a tile's first
 * vertex is at an even i + j, BLOCK_W and BLOCK_HALO being even). */
static void tile_init(struct tile *t)
{
	memset(t, 0, sizeof *t);
	for (int q = 0; q < TILE_N; q++)
		t->par[q] = (unsigned char)((q % BLOCK_T + q / BLOCK_T) & 1);
}

static int tile_load(const struct problem *p, const float *x, int bx,
		     int by, struct tile *t)
{
	t->nact = t->nrun = t->nscalar = t->nother = 0;
	for (int b = 0; b < BLOCK_W; b++) {
		int q0 = t->nact, full = 1, plain = 1, last = -2;
		for (int a = 0; a < BLOCK_W; a++) {
			int i = bx * BLOCK_W + a, j = by * BLOCK_W + b;
			size_t v = (size_t)j * (size_t)p->w + (size_t)i;
			if (i >= p->w || j >= p->h || !p->mov[v]) {
				full = 0;
				continue;
			}
			int q = t->nact++;
			t->at[q] = (b + BLOCK_HALO) * BLOCK_T + a + BLOCK_HALO;
			t->gv[q] = v;
			t->parity[q] = (i + j) & 1;
			plain &= vertex_plain(p, v);
			if (p->gather || !nbr_complete(p->nbr[v], t->parity[q])) {
				full = 0;
				t->scalar_q[t->nscalar++] = q;
				continue;
			}
			if (last == a - 1)
				t->run_n[t->nrun - 1]++;
			else {
				t->run_q0[t->nrun] = q;
				t->run_n[t->nrun++] = 1;
			}
			last = a;
		}
		t->row_q[b] = full ? q0 : -1;
		t->row_plain[b] = full && plain;
		if (!t->row_plain[b])
			for (int q = q0; q < t->nact; q++)
				t->other_q[t->nother++] = q;
	}
	if (t->nact) {
		tile_copy(p, x, bx, by, t);
		tile_copy_rest(p, t);
	}
	return t->nact;
}

/* Whether the runs take the FEM by cells: each triangle once for its
 * three corners instead of once per corner (the spring model has no
 * such form here). */
static int fem_by_cells(const struct solve_coef *c)
{
	return (c->terms & TERM_FEM) && !(c->terms & TERM_SPRING);
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
	/* by component: every read below is then one vector load; the
	 * bending stencil reaches two rows up and down */
	int from = (lo - 2) * BLOCK_T, to = (hi + 3) * BLOCK_T;
	#pragma omp simd
	for (int q = from; q < to; q++) {
		t->sx[q] = t->x[3 * q];
		t->sy[q] = t->x[3 * q + 1];
		t->sz[q] = t->x[3 * q + 2];
	}
	cell_run(&p->c, t->sx + cfirst, t->sy + cfirst, t->sz + cfirst,
		 BLOCK_T, LANES(last - cfirst + 1), t->cg + cfirst,
		 CELL_PLANE);
	grad_run_cells(&p->c, t->sx + first, t->sy + first, t->sz + first,
		       BLOCK_T, t->rx + first, t->ry + first, t->rz + first,
		       t->par + first, LANES(last - first + 1), t->cg + first,
		       CELL_PLANE, t->gx + first, t->gy + first, t->gz + first,
		       t->d + first);
}

/* Every interior vertex's gradient of the grid energies into t->g*. */
static void tile_gradients(const struct problem *p, struct tile *t)
{
	if (t->nrun && fem_by_cells(&p->c))
		tile_runs_by_cells(p, t);
	for (int r = 0; r < t->nrun && !fem_by_cells(&p->c); r++) {
		int q = t->run_q0[r], at = t->at[q];
		grad_run(&p->c, t->x + 3 * at, BLOCK_T, p->rest + 3 * t->gv[q],
			 t->parity[q], t->run_n[r], t->gx + at, t->gy + at,
			 t->gz + at, t->d + at);
	}
	for (int s = 0; s < t->nscalar; s++) {
		int q = t->scalar_q[s];
		vec3 g;
		size_t v = t->gv[q];
		solve_vertex_grad(t->x + 3 * t->at[q], BLOCK_T, p->rest + 3 * v,
				  gather_at(p, v), p->nbr[v], t->parity[q],
				  &p->c, &g, &t->d[t->at[q]]);
		t->gx[t->at[q]] = g.x;
		t->gy[t->at[q]] = g.y;
		t->gz[t->at[q]] = g.z;
	}
}

/* Row b's steps (no extra terms) and moves: the arithmetic of
 * solve_vertex_step and cheb_mix, lane by lane, in two vector loops; the
 * second runs over the row's 3 BLOCK_W coordinates, which lie one after
 * another in the tile and in old. */
static void move_plain_row(struct tile *t, int b, float step, float omega)
{
	int q0 = t->row_q[b];
	float *x = t->x + 3 * t->at[q0], *old = t->old + 3 * q0;
	int at = t->at[q0];
	const float *gx = t->gx + at, *gy = t->gy + at, *gz = t->gz + at;
	const float *d = t->d + at;
	float dx[3 * BLOCK_W];
	#pragma omp simd
	for (int a = 0; a < BLOCK_W; a++) {
		int ok = d[a] > 0.0f;
		float s = -step / d[a];
		dx[3 * a] = ok ? gx[a] * s : 0.0f;
		dx[3 * a + 1] = ok ? gy[a] * s : 0.0f;
		dx[3 * a + 2] = ok ? gz[a] * s : 0.0f;
	}
	#pragma omp simd
	for (int k = 0; k < 3 * BLOCK_W; k++) {
		float now = x[k];
		x[k] = cheb_mix(now + dx[k], old[k], omega);
		old[k] = now;
	}
}

/* One inner Jacobi iteration with Chebyshev weight omega: every step
 * from the same tile, then every move.  The plain rows' steps need
 * nothing but their gradients, so they are taken as they move, after
 * every other vertex's step has read the tile. */
static void inner_iteration(const struct problem *p, const float *x0,
			    struct tile *t, float omega)
{
	tile_gradients(p, t);
	for (int s = 0; s < t->nother; s++) {
		int q = t->other_q[s];
		int at = t->at[q];
		vec3 g = v3(t->gx[at], t->gy[at], t->gz[at]);
		float d = t->d[at];
		extra_vertex(p, t->gv[q], t->x + 3 * t->at[q], BLOCK_T, x0, &g,
			     &d);
		v3_store(t->step + 3 * q, solve_vertex_step(g, d, p->c.step));
	}
	for (int b = 0; b < BLOCK_W; b++)
		if (t->row_plain[b])
			move_plain_row(t, b, p->c.step, omega);
	for (int s = 0; s < t->nother; s++) {
		int q = t->other_q[s];
		float *xq = t->x + 3 * t->at[q], *oq = t->old + 3 * q;
		for (int k = 0; k < 3; k++) {
			float now = xq[k];
			xq[k] = cheb_mix(now + t->step[3 * q + k], oq[k],
					 omega);
			oq[k] = now;
		}
	}
	if (p->plane)
		for (int q = 0; q < t->nact; q++)
			project_vertex(p, t->gv[q], t->x + 3 * t->at[q]);
}

/* The interior of block (bx, by) into out from src, the block's first
 * vertex at row pitch `pitch` (every vertex of it: those that do not
 * move carry their value through). */
static void block_store(const struct problem *p, const float *src,
			int pitch, int bx, int by, float *out)
{
	int i0 = bx * BLOCK_W;
	int m = p->w - i0 < BLOCK_W ? p->w - i0 : BLOCK_W;
	for (int b = 0; b < BLOCK_W; b++) {
		int j = by * BLOCK_W + b;
		if (j >= p->h)
			break;
		memcpy(out + 3 * ((size_t)j * (size_t)p->w + (size_t)i0),
		       src + 3 * (size_t)b * (size_t)pitch,
		       3 * (size_t)m * sizeof(float));
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
			size_t first = (size_t)by * BLOCK_W * (size_t)p->w +
				       (size_t)bx * BLOCK_W;
			if (!tile_load(p, x, bx, by, &t)) {
				/* nothing moves: x carries through */
				block_store(p, x + 3 * first, p->w, bx, by,
					    out);
				continue;
			}
			float omega = 1.0f;
			for (int l = 0; l < inner; l++) {
				omega = inner_rho > 0 ?
					cheb_omega(l, 1, inner_rho, omega) : 1.0f;
				inner_iteration(p, x, &t, omega);
			}
			block_store(p, t.x + 3 * (BLOCK_HALO * BLOCK_T +
						  BLOCK_HALO),
				    BLOCK_T, bx, by, out);
		}
	}
}

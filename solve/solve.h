/* solve.h - pleat-solve's pieces: the problem built from a grid
 * (objective.c), the steps of the methods (block.c, methods.c) and the
 * outer loop with its step control (methods.c). */
#ifndef PLEAT_SOLVE_H
#define PLEAT_SOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grid.h"
#include "body.h"
#include "material.h"
#include "proximity.h"
#include "safe.h"
#include "collide.h"
#include "seam_link.h"
#include "dynamic.h"
#include "solver.h"
#include "inflate.h"
#include "vertex_terms.h"
#include "gpu.h"

enum solve_method { METHOD_GD, METHOD_CHEBYSHEV, METHOD_BLOCK, METHOD_PCG,
		    METHOD_MG };

/* Whether the method's steps are accelerated by the outer Chebyshev
 * sequence, and so have a radius (--rho); gd and pcg have none, mg's
 * smoothers are block solves of their own. */
static inline int method_has_radius(enum solve_method m)
{
	return m == METHOD_CHEBYSHEV || m == METHOD_BLOCK;
}

/* The block method's geometry: W x W interiors, a halo of 2 (bending
 * reaches two vertices away), tiles of T x T. */
#define BLOCK_W    8
#define BLOCK_HALO 2
#define BLOCK_T    (BLOCK_W + 2 * BLOCK_HALO)

/* Everything the options decide about one solve. */
struct solve_params {
	enum solve_method method;
	unsigned terms;          /* TERM_FEM or TERM_SPRING, | TERM_BEND */
	struct material mat;
	double shape;            /* k_shape, 1/s² */
	int iterations;          /* the budget: outer iterations (mg: of
				    the finest level's smoother) */
	double tolerance;        /* stop when the energy still to gain is
				    below this fraction of the gain so far
				    (converge.c); 0: run the whole budget */
	double step;
	double step_floor;       /* give up when the step falls below */
	int check_every;
	int inner;               /* block: inner iterations */
	double rho;              /* outer Chebyshev */
	int rho_auto;            /* --rho auto: rho from the convergence
				    (converge.c), starting from rho */
	double inner_rho;        /* block: inner Chebyshev, 0 = off */
	int far_start;           /* block: Eq. 9 (solve_coef.far_start) */
	double seam;             /* seam stiffness / stretch stiffness; 0: off */
	int pcg_restart;         /* pcg: steepest (block) step every n */
	int self;                /* self collision */
	int safe;                /* --safe: step bounds (safe.h), SAFE_ALL or
				    SAFE_SEAMS; 0: off */
	int cheb_delay;          /* outer iterations before Chebyshev */
	int dynamic;             /* one implicit Euler step (dynamic.c) */
	double dt;               /* its length, s */
	double gravity[3];       /* m/s²; all 0: no gravity */
	struct inflate_coef effects;  /* --air, --inflate, --fill */
};

/* The seams (seam.c): one spring per seam vertex to its partner point,
 * the bilinear interpolation of up to four vertices of the other panel,
 * shear springs to its neighbours' partner points, and the bending
 * across it (seam_bend.c). */
struct seams {
	float k;                 /* N/m */
	size_t nlinks, cap, nopen;  /* nopen: seam vertices with no partner cloth */
	struct seam_link *link;
	/* the gradient, gathered per touched vertex t (vertex touched[t]):
	 * references start[t] .. start[t+1] into ref_link/ref_coef */
	size_t ntouched;
	uint32_t *touched, *ref_link;
	float *ref_coef;
	size_t *start;
	int32_t *at;             /* vertex -> t, -1 when untouched */
	/* the seams' bending (seam_bend.c): its terms' forces follow the
	 * links' in force, their |rho|² are in r2 */
	size_t nbends;
	struct seam_bend *bend;
	float *r2;
	float *force, *stretch;  /* per link (force: then per bend), from
				    the last update */
	float *grad, *diag;      /* per touched vertex: gradient at the last
				    update, and the Hessian's diagonal */
};

/* What kind each interior vertex of a block is, as three bit masks of
 * BLOCK_W * BLOCK_W bits (bit a + b BLOCK_W for interior vertex (a, b)):
 * it moves; it moves and has every neighbour (its gradient can take a
 * vector run); it moves with no term beyond the grid energies (it can
 * take the vector moves).  These do not change during a solve. */
struct block_kind {
	uint64_t moves, complete, plain;
};
_Static_assert(BLOCK_W * BLOCK_W == 64, "a block_kind mask is 64 bits");

/* One grid's problem.  x, prev and next are the solver's own buffers;
 * rest, mask and panel point into the grid. */
struct problem {
	int w, h;
	size_t n;                /* w * h */
	size_t ninside, nfree;   /* cloth vertices, and those that move */
	const float *rest;
	float *x, *prev, *next, *good;
	uint32_t *nbr;           /* energy neighbour words */
	uint8_t *mov;            /* 1 where the vertex moves */
	struct solve_coef c;
	struct energy_coef_d cd; /* the same constants in double, for F */
	double shape;            /* k_shape * m, N/m */
	struct seams seams;
	float *plane;            /* body half-planes, 4 a vertex (collide.h),
				    NULL without a body */
	struct body_plane_stats contact;
	int unpushed;            /* the start was left behind the half-planes
				    (problem_set_body without project): the
				    iterations take the cloth out */
	/* self collision (--self): proximity lists and the repulsion's R,
	 * search radius and stiffness; prox NULL when off */
	struct proximity *prox;
	float self_radius, self_k;
	double self_search;
	/* gathering: the grid's gather channel, 3 floats a vertex (gather.h),
	   NULL without one */
	const float *gather;
	/* seconds spent on collisions, for the summary: the body's
	 * half-planes and the self-collision set-up (main.c times them), and
	 * the list refreshes of the iterations, on either backend */
	double body_setup_seconds, self_setup_seconds, self_refresh_seconds;
	struct safe *safe;       /* --safe's step bounds, NULL when off */
	struct dynamic *dyn;     /* momentum and gravity, NULL when off */
	struct inflation infl;   /* air, inflate and fill (inflate.c) */
	struct block_kind *blocks;  /* every block's, row by row (block_plan);
				       NULL: block_step finds them itself */
	/* the seams, self collision, dynamics and inflation as the
	 * per-vertex arithmetic reads them (problem_terms) */
	struct vertex_terms terms;
};

/* Vertex v's gathering tensor for solve_vertex_grad, NULL without. */
static inline const float *gather_at(const struct problem *p, size_t v)
{
	return p->gather ? p->gather + 3 * v : NULL;
}

/* The objective at one point, as a check sees it. */
struct check {
	double energy;           /* F(x), J, summed in double */
	double residual;         /* |grad F| over the free vertices, N */
	double noise;            /* the change of F that one ulp of every
				    coordinate can explain, J */
	double violation;        /* how far the moving vertices are behind
				    their half-planes, summed, metres: 0 but
				    while --safe takes the cloth out of the
				    body (problem_violation) */
};

/* objective.c */
/* p->terms from the problem as it is set up: called again whenever a
 * term is added (self collision, dynamics). */
void problem_terms(struct problem *p);
int problem_init(struct problem *p, struct grid *g,
		 const struct solve_params *sp, struct error *e);
void problem_free(struct problem *p);
void problem_check(const struct problem *p, const float *x, struct check *k);
/* The body (--body): every cloth vertex's half-plane from its position in
 * p->x, the surface pushed out by offset (metres), for vertices within
 * reach of it; then, when `project`, p->x pushed out of them with the
 * cloth lying over the pushed cloth (problem_push_out), so that the
 * solve starts from a feasible point.  Without (--safe), the
 * iterations' projections take the cloth out, as fast as the step
 * bounds let them, instead of in one jump that can push one layer of
 * cloth through another. */
void problem_set_body(struct problem *p, const struct body *b,
		      const uint8_t *mask, double offset, double reach,
		      int project);
/* push.c: moves every vertex of p->x that is behind its half-plane out
 * of it, and the cloth over it (within the largest push, its planes
 * facing the same way) out with it, so that layers of cloth keep their
 * order; offset is the body's push-out (it caps the reach). */
void problem_push_out(struct problem *p, double offset);
/* Self collision: the proximity lists from p->x, and the repulsion
 * 0.5 k (R - d)² of collide.h on every listed pair. */
int problem_set_self(struct problem *p, const struct grid *g,
		     const struct collide_params *cp, struct error *e);
/* --safe: the step bounds of safe.h on the cloth of g, measured first
 * at the start of the iterations. */
int problem_set_safe(struct problem *p, const struct grid *g, int band,
		     struct error *e);
/* The lists rebuilt from x, on the schedule of iteration `it`: every
 * iteration for the first 16, then every 8th. */
void problem_refresh_self(struct problem *p, const float *x, int it);
/* The sum over the moving vertices of x of how far each is behind its
 * half-plane, in double, in vertex order (0 without a body). */
double problem_violation(const struct problem *p, const float *x);
/* Projects the moving vertices of x onto their half-planes (no-op
 * without a body). */
void problem_project(const struct problem *p, float *x);
static inline void project_vertex(const struct problem *p, size_t v, float *xv)
{
	if (p->plane)
		v3_store(xv, collide_project_halfplane(v3_load(xv), p->plane + 4 * v));
}

/* solve_vertex_grad on the moving vertices of row j of x into gx, gy,
 * gz, d (indexed by the column), as vector loops where it can. */
void row_gradients(const struct problem *p, const float *x, int j,
		   float *gx, float *gy, float *gz, float *d);
/* Calls visit for every vertex of the grid, rows in parallel, with the
 * grid energies' gradient and preconditioner at x (row_gradients; 0 for
 * the vertices that do not move). */
typedef void (*vertex_visit)(const struct problem *p, const float *x,
			     size_t v, vec3 g, float d, void *arg);
void problem_rows(const struct problem *p, const float *x,
		  vertex_visit visit, void *arg);
/* grad F at x on the moving vertices, 0 elsewhere; the seams must have
 * been updated at x (seams_update). */
void problem_gradient(const struct problem *p, const float *x, float *grad);
/* sum a.b over the moving vertices, in an order fixed by the grid. */
double problem_dot(const struct problem *p, const float *a, const float *b);

/* inflate.c: p->infl from the options and the rest shape (the rest
 * normals when inflate or fill is on); problem_init calls it. */
int inflation_init(struct problem *p, const struct inflate_coef *c,
		   struct error *e);
void inflation_free(struct inflation *f);

/* seam.c: the links from the grid's seam channel (none when it has no
 * seam channel or k is 0), with the bending across them of weight bend
 * (k_b / h², N/m; 0: none); seams_update computes every link's and
 * bend's force and the gathered gradient at x and returns E_seam. */
int seams_init(struct seams *s, const struct grid *g, double k,
	       double bend, struct error *e);
/* seam_bend.c: the bending terms across the seams of links link[0 ..
 * nlinks), each of weight w (N/m), in a new array *bends; returns how
 * many. */
size_t seam_bends_build(const struct grid *g, const struct seam_link *link,
			size_t nlinks, float w, struct seam_bend **bends);
void seams_free(struct seams *s);
double seams_update(const struct seams *s, const float *x);

/* dynamic.c: the dynamic mode's state.  x_t, the positions at the start
 * of the step, and xhat = 2 x_t - x_{t-dt} are NULL in a quasistatic
 * solve with gravity. */
struct dynamic {
	struct dynamic_coef c;
	struct dynamic_coef_d cd;
	double mass, dt;         /* kg per vertex, s */
	float *xt, *xhat;
};

/* Whether the options ask for the dynamic state (dynamic mode or
 * gravity). */
int dynamic_wanted(const struct solve_params *sp);
/* p->dyn from the options and the grid (called by problem_init once p->x
 * holds x_t): x_{t-dt} is the grid's xprev channel, or x_t when it has
 * none (at rest); the moving vertices of p->x start at xhat.  mass: kg
 * per vertex. */
int dynamic_init(struct problem *p, const struct grid *g,
		 const struct solve_params *sp, double mass, struct error *e);
void dynamic_free(struct dynamic *dyn);
/* After a dynamic step: the grid's xprev channel set to x_t (its x
 * channel is the caller's). */
int dynamic_store(const struct problem *p, struct grid *g, struct error *e);
/* The energies after a step, at p->x, k the check there (J). */
struct dynamic_energy {
	double kinetic;          /* sum 0.5 m |x - x_t|² / dt² */
	double gravity;          /* sum -m g.x */
	double internal;         /* everything else the objective holds:
				    elastic, bending, seams, shape, contact */
	double total;
};
void dynamic_energy(const struct problem *p, const struct check *k,
		    struct dynamic_energy *en);
/* The energies as a JSON line on stats (when not NULL) and a line on
 * standard error (unless quiet); name and grid say which grid. */
void dynamic_report(const struct problem *p, const struct check *k,
		    FILE *stats, const char *name, int grid, int quiet);

/* --pin: the cloth vertices within radius metres of pattern point
 * (u, v), or with radius 0 the nearest cloth vertex (within two cells),
 * get MASK_FIXED in the grid's mask.  A grid without a u8 mask is left
 * for problem_init to refuse. */
struct pin { double u, v, radius; };
int pins_apply(struct grid *g, const struct pin *pins, int npins,
	       struct error *e);
/* Option values: "gx,gy,gz" and "u,v[,radius]"; usage errors exit 2. */
void parse_gravity(const char *s, double g[3]);
void parse_pin(const char *s, struct pin *pin);

/* Every term of vertex v's gradient beyond the grid energies that
 * solve_vertex_grad computes from the vertex's neighbourhood
 * (vertex_terms.h): xv is where v is now (in a block's tile, say, with
 * row pitch `pitch`), x0 the iterate that terms reaching farther than
 * the tile read other vertices from (the start of the outer iteration
 * for the block method).  Adds to g and d. */
static inline void extra_vertex(const struct problem *p, size_t v,
				const float *xv, int pitch, const float *x0,
				vec3 *g, float *d)
{
	vertex_terms_grad(&p->terms, v, xv, pitch, x0, p->nbr[v],
			  p->rest + 3 * v, g, d);
}

/* Function multi-versioning where the compiler has it (GCC and clang on
 * x86-64), for the vector loops: AVX-512 and AVX2 builds next to the
 * baseline one, picked at run time, so that the binary stays portable.
 * All of them give the same bytes; CFLAGS=-DPLEAT_NO_CLONES builds the
 * baseline alone, to compare. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(PLEAT_NO_CLONES)
#define VECTOR_CLONES \
	__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* rows.c: solve_vertex_grad_far for n consecutive vertices of a row,
 * every one of them complete (nbr_complete) and able to read the far
 * bending neighbours of both parities: x, xf and rest at the first,
 * parity0 its parity; gradients and preconditioners into gx, gy, gz,
 * d[0 .. n-1].  The same numbers as solve_vertex_grad_far, as one
 * vector loop. */
void grad_run(const struct solve_coef *c, const float *x, int pitch,
	      const float *xf, int fpitch, const float *rest, int parity0,
	      int n, float *gx, float *gy, float *gz, float *d);

/* The same with the FEM by cells (fem_cell_grad), for the block step,
 * over n consecutive positions of a tile held by component (X, Y, Z
 * with row pitch `pitch`; the rows wrap, and a position that is not a
 * complete vertex gets a number nobody reads).  cell_run computes the
 * cells whose corner p00 is at X, Y, Z into cg, corner k's component j
 * at plane 3k + j (planes `plane` floats apart); grad_run_cells takes
 * each vertex's FEM gradient from the four cells around it (cg at the
 * first vertex's own cell) and adds the other terms, reading the
 * bending neighbours two steps away from the planes F[0 .. 2] (X, Y, Z
 * but for Eq. 9, see solve_coef.far_start) and the rest
 * positions RX, RY, RZ and the parities (a byte each) are indexed like
 * X.  c->terms must hold TERM_FEM and not TERM_SPRING.  The same
 * numbers as grad_run but for the rounding of the FEM sums. */
void cell_run(const struct solve_coef *c, const float *X, const float *Y,
	      const float *Z, int pitch, int n, float *cg, int plane);
/* With a gathering field: cell_run_gathered takes the rest shapes from
 * the tensors (TX, TY, TZ: sxx, sxy, syy, indexed like X) and adds the
 * corners' preconditioner shares in planes 12 to 15, which
 * grad_run_cells reads when `gathered`. */
void cell_run_gathered(const struct solve_coef *c, const float *X,
		       const float *Y, const float *Z, const float *TX,
		       const float *TY, const float *TZ, int pitch, int n,
		       float *cg, int plane);
void grad_run_cells(const struct solve_coef *c, const float *X,
		    const float *Y, const float *Z, const float *F[3],
		    int pitch, const float *RX,
		    const float *RY, const float *RZ,
		    const unsigned char *parity, int n, const float *cg,
		    int plane, int gathered, float *gx, float *gy, float *gz,
		    float *d);

/* energy_vertex_d of n consecutive vertices of a row, every one of them
 * complete, without gathering, with BEND_HINGES (see
 * energy_vertex_regular): x and parity0 at the first; into e[0 .. n-1].
 * The same numbers as one vertex at a time. */
void energy_run(const struct energy_coef_d *c, unsigned terms,
		const double *x, int pitch, int parity0, int n, double *e);

/* block.c: p->blocks for the problem as it is set up (body, self
 * collision and the rest included): what block_step would otherwise
 * work out for every block in every iteration. */
void block_plan(struct problem *p);
/* One outer iteration of the block method, x -> out. */
void block_step(const struct problem *p, const float *x, float *out,
		int inner, float inner_rho);

/* methods.c */
void gd_step(const struct problem *p, const float *x, float *out);

/* converge.c: the stopping test, from the energies of the accepted
 * checks (see there).  gap: the energy still to gain, J, estimated from
 * the last two decreases (INFINITY while unknown or not shrinking); rel:
 * gap over the gain so far. */
struct converge {
	double tolerance;
	double e0, e, d;         /* first and last energy, last decrease */
	double q;                /* last ratio of decreases, NAN: none */
	double r0, r;            /* first and last residual */
	double gap, rel;
	int checks, met;         /* met: consecutive checks within tolerance */
};
void converge_init(struct converge *c, double tolerance, double energy,
		   double residual);
/* After an accepted check: 1 when the tolerance is met (at two
 * consecutive checks). */
int converge_update(struct converge *c, const struct check *k);
/* The residual over the first one. */
double converge_relative_residual(const struct converge *c);

/* --rho auto (converge.c): the outer Chebyshev radius estimated from the
 * energy's decreases. */
struct rho_estimate {
	double rho;              /* the estimate */
	double ceiling;          /* what it may rise to */
	int hold;                /* accepted checks the ceiling still holds */
	double dprev;            /* the decrease before the last */
	int estimated;           /* the first estimate is made */
};
void rho_init(struct rho_estimate *r, double rho);
/* After an accepted check: d the decrease since the check before,
 * noise the decrease rounding can explain (struct check), kc
 * the iterations of the Chebyshev sequence so far (delay included),
 * every the iterations between checks.  1 when the estimate changed:
 * the sequence restarts with it. */
int rho_update(struct rho_estimate *r, double d, double noise, int kc,
	       int delay, int every);
/* After a rejected check (the energy rose): 1 when the estimate fell,
 * and with it the ceiling; 0 when it cannot, and the step must. */
int rho_rose(struct rho_estimate *r);

/* One line of the run's record, for --stats and --progress: iteration
 * of budget, the check there, and the stopping test's state. */
struct solve_event {
	int iteration, budget;
	struct check k;
	double step, seconds;
	int accepted;
	const struct converge *conv;
	int cycle;               /* mg: the V-cycle, 0 for the others */
};
typedef void (*solve_listener)(const struct solve_event *ev, void *arg);

/* A device that runs the solve in place of the CPU (device.c, gpu.h):
 * the iterations and the energy checks, on its own copies of the
 * iterate, the previous one and the last accepted one. */
struct solve_device {
	struct cuda_solver *s;
	int (*put)(struct cuda_solver *s, const float *x, char *why, size_t n);
	int (*get)(struct cuda_solver *s, float *x, char *why, size_t n);
	/* before iteration it's step: the work problem_refresh_self does */
	int (*refresh)(struct cuda_solver *s, int it, char *why, size_t n);
	int (*step)(struct cuda_solver *s, const struct cuda_step *st,
		    char *why, size_t n);
	int (*check)(struct cuda_solver *s, const struct solve_coef *c,
		     double out[3], char *why, size_t n);
	int (*keep)(struct cuda_solver *s, char *why, size_t n);
	int (*restore)(struct cuda_solver *s, char *why, size_t n);
	/* --safe: the bounds to the device, and its counts back */
	int (*safe_set)(struct cuda_solver *s, const float *x0,
			const float *bound, char *why, size_t n);
	int (*safe_poll)(struct cuda_solver *s, size_t count[2], char *why,
			 size_t n);
};

enum solve_stop { STOP_BUDGET, STOP_TOLERANCE };

struct solve_result {
	int iterations;
	int cycles;              /* mg: V-cycles (0 for the others) */
	enum solve_stop stop;    /* what ended it */
	struct converge conv;    /* the stopping test at the end */
	struct check k;          /* at the returned x */
	double seconds;          /* the iterations, checks included */
	int halvings;
	int rho_falls;           /* --rho auto: lowered as the energy rose */
	double step;             /* the step at the end */
	double rho;              /* the outer Chebyshev radius at the end */
};

/* Runs sp->iterations of the method from p->x on the CPU, or on dev when
 * it is not NULL, leaving the last
 * accepted iterate in p->x.  Returns 0, or -1 with e set when the step
 * fell below its floor (p->x then holds the last accepted iterate) or the
 * device failed. */
int solve_run(struct problem *p, const struct solve_params *sp,
	      const struct solve_device *dev, solve_listener listen, void *arg,
	      struct solve_result *res, struct error *e);

/* multigrid.c: --method mg from p->x (p made from g, whose mask holds
 * the pins), leaving the result in p->x; sp->iterations counts the
 * finest level's smoothing iterations, which run on dev when it is not
 * NULL (the coarse levels, the transfers and the line search on the
 * CPU).  Returns 0, or -1 with e set. */
int multigrid_run(struct problem *p, const struct grid *g,
		  const struct solve_params *sp, const struct solve_device *dev,
		  solve_listener listen, void *arg, struct solve_result *res,
		  struct error *e);

/* device.c: the device --device asks for (cpu, cuda or auto), named on
 * standard error unless quiet; NULL for the CPU.  Exits with a message
 * when --device cuda cannot be honoured (no GPU, or no CUDA backend). */
const char *device_choose(const char *want, int quiet);
/* The problem on the chosen GPU (name from device_choose, NULL: the
 * CPU, and *dev untouched); -1 with e set when it does not fit. */
int device_open(const char *chosen, const struct problem *p,
		const struct solve_params *sp, struct solve_device *dev,
		struct error *e);
/* -1 with e set when the GPU reports an error on the way out (a fault
 * of the solve's kernels that surfaced late, say). */
int device_close(struct solve_device *dev, struct error *e);

#endif

/* safe.h - step bounds that keep a solve free of new intersections
 * (pleat-solve --safe).
 *
 * The cloth is the grid's triangle mesh (proximity.h: grid_triangles).
 * Two triangles can only come to intersect through a contact of two of
 * their primitives that share no vertex: a vertex touching a triangle it
 * is not a corner of, or two edges with no common end touching.  So if
 * every such pair closer than a reach r is measured, at distance d, and
 * every vertex moves at most gamma times the smallest d of the pairs it
 * belongs to (at most gamma r when it belongs to none), with gamma < 1/2,
 * then along the straight path from the positions x0 where the distances
 * were measured to the moved positions no pair can close: each of its
 * points moves by at most gamma d (a point of a triangle or an edge is a
 * convex combination of corners that each move that little), so the
 * pair's distance shrinks by at most 2 gamma d < d.  A mesh free of
 * intersections at x0 is then free of them at every position within the
 * bounds (but for the twins and tangles below).  This is the conservative bound of vertex block descent and
 * offset geometric contact (Chen et al. 2024, 2025), applied to the
 * solver's iterates: after each outer iteration every moving vertex is
 * pulled back towards x0 until it is within its bound, and the bounds
 * are measured again at the current iterate before the next iteration
 * when vertices need the room (safe_step_done) and after the step
 * control went back to an earlier iterate.
 *
 * Seams: the two sides of a seam are measured like any other pair, so
 * neither side passes through the other, however the seam folds.  Only
 * twins (seam_link.h: a seam of no length, two vertices that are one
 * point of the cloth) count as one vertex, as the corners of a triangle
 * do: the seam springs hold them micrometres apart, and bounding by that
 * would freeze the seam.  The guarantee then holds up to that distance:
 * a vertex could pass through a triangle that has its twin for a corner
 * only as far as the twins are apart.  A vertex sewn at a short length
 * lies that close to the other side's triangles, so it and they move by
 * little at a time: a seam of a few micrometres nearly freezes.
 *
 * The seams' strip: pleat-simplify closes a seam with a strip of
 * triangles between its two sides' boundaries (seam_strip.h), and the
 * grid's triangles alone do not keep a seam vertex from ending behind
 * the other side's cloth, past its boundary edge, where the strip then
 * folds through the panel (the dress at 1024 on its body: a clean grid,
 * 3 intersecting pairs on the mesh).  So the strip that seam_strip.c
 * makes over the full grid, from the positions of the first
 * measurement, is part of the cloth here: its triangles are measured as
 * the grid's are.  It joins at the first measurement that finds no
 * intersecting pair among the grid's triangles: a tangled start comes
 * apart through where the strip would be (the quick start's second
 * level: 2 pairs across a seam left at the end with the strip held from
 * the start, none without it).  pleat-simplify makes its own strip from
 * the solved positions, over its simplified panels; where the pattern
 * leaves the triangulation to a tie, it may choose otherwise.
 *
 * Measuring again where the room is needed: after a few steps only a
 * few hundred of a garment's vertices (135,310 on the dress at 1024) are
 * beyond half their bound, and measuring the whole cloth again for them
 * cost 13 times the solve.  The bounds hold with each vertex measured at
 * its own time: let x0_v be where v was last measured and b_v its bound,
 * so that v stays in the ball B(x0_v, b_v).  If every pair of
 * primitives P, Q that share no vertex satisfies
 *     dist(P(x0), Q(x0)) > B(P) + B(Q),
 * P(x0) the primitive with its corners at their own x0 and B(P) the
 * largest bound of its corners, then no pair can touch while every
 * vertex stays in its ball (a point of P moves from P(x0) by at most
 * B(P)), and the measured positions x0, which all vertices can go back
 * to within their balls, have the intersections of the iterate.  A
 * measurement of a set S of vertices (safe_update, when it need not
 * measure all) sets x0_v to the iterate for v in S, and measures each
 * pair with a corner in S, at distance d, against what the corners
 * outside S keep: with F the sum of the largest bound of P's corners
 * outside S and of Q's, h = d - F, each corner in S gets at most
 * gamma h (gamma times the reach without a pair).  Then the sum above
 * is at most F < d, gamma h + F < d or 2 gamma h < h <= d.  A pair with
 * h below d/2 takes its corners outside S into S and is measured again
 * with them, so that a vertex is not held short by its neighbours' old
 * bounds (and h <= 0, which would break the rule, cannot stay); S grows
 * until none does.  (Halving those neighbours' bounds instead, which
 * keeps S small, held so many moves back that in an earlier build the
 * dress's energy after 64 iterations was 5.70 J against 4.90 J.)  S
 * starts as the vertices beyond half their bound, but for tight ones
 * that the last measurement did not give twice the room: they sit out
 * 1, 3, then 7 measurements (their own back-off, as `wait` below is the
 * whole cloth's), until the whole cloth is measured.  Twins join S
 * together.  The whole cloth is
 * measured at the first measurement, after the solver went back, while
 * there are tangles, when S reaches a quarter of the triangles, and
 * always with --safe=seams: there the band is cheap to measure, and the
 * sets' measurements, which leave the rest of the band with the room it
 * had left, called for four times as many (the dress at 2048 on its
 * body, 64 iterations: 47 measurements and 5.1 s against 11 and 2.3 s;
 * after 128 iterations, 12.9 s and 3.279 J before, 96 iterations and
 * 14.8 s to 3.365 J with sets).
 *
 * Tangles: bounds measured where triangles already intersect would hold
 * the intersection as it is (undoing it passes through a contact the
 * bounds forbid; a vertex touching a triangle at distance 0 would not
 * move at all).  A start made by upsampling or transfer can have a few,
 * pleat-initialize's at a seam.  So a pair whose vertices are all
 * corners of intersecting triangles (tangled, twins taken as one point)
 * is not measured: the tangle is not held by its own pairs (untangled
 * cloth near it still bounds its corners), and only a contact of tangled
 * vertices alone can make a new intersection; a contact with an
 * untangled vertex in it cannot happen.  The tangled vertices are found
 * again at every measurement, until there are none; from then on none
 * can appear and the search stops, until the solver goes back to an
 * earlier iterate (safe_restored).
 */
#ifndef PLEAT_SAFE_H
#define PLEAT_SAFE_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "safe_hd.h"
#include "seam_strip.h"
#include "util.h"

struct safe_stats {
	size_t updates;          /* times the bounds were measured */
	size_t local;            /* of them, of a set of vertices only */
	size_t remeasured;       /* vertices measured by those */
	size_t clamped;          /* vertex moves pulled back, all iterations */
	size_t pairs;            /* primitive pairs within reach, last update */
	size_t tangles_start;    /* intersecting triangle pairs (twins as one
				    point) at the first update */
	size_t tangles;          /* the same at the last search for them */
	size_t strip;            /* triangles of the seams' strip */
	double seconds;          /* measuring the bounds */
};

struct safe {
	size_t n;                /* grid vertices */
	size_t ntri;
	uint32_t *tri;           /* the cloth's triangles, 3 corners each */
	uint8_t *own;            /* ntri: which of its corners (bits 0-2) and
				    edges (bits 3-5, edge k from corner k to
				    k + 1) a triangle measures: those it is
				    the first triangle of */
	uint8_t *tangled;        /* n: a corner of a triangle that intersects
				    another at x0 */
	int tangle_free;         /* no intersecting pair at the last update:
				    none can appear, no need to look */
	uint32_t *twin;          /* n: the vertex that v is one point of the
				    cloth with (seam_link.h: seam_twin), or
				    v itself */
	uint32_t *tri_one;       /* the triangles, twins made the lower
				    index; NULL when the grid has none */
	struct seam_grid seams;  /* the grid's channels, for the strip */
	int band;                /* --safe=seams: SAFE_SEAM_BAND, else 0 */
	uint8_t *held;           /* n: the vertices bounded, NULL for all
				    (a seam band's corners) */
	int stripped;            /* the seams' strip is among the triangles
				    (or the grid has none) */
	double reach;            /* r, metres */
	float *x0;               /* n x 3: where each vertex's bound was
				    measured */
	float *bound;            /* n: metres */
	uint32_t *nearest;       /* n: the nearest distance (float bits) */
	struct safe_hash *hash;  /* the triangles at xh, kept between
				    measurements */
	float *xh;               /* n x 3: x0 when the hash was made */
	double drift;            /* the largest distance of an x0 from its
				    xh along an axis */
	uint32_t *vtri_start;    /* n + 1: vertex v's triangles are */
	uint32_t *vtri;          /* vtri[vtri_start[v] .. vtri_start[v+1]) */
	uint8_t *in;             /* n: in the set being measured */
	uint8_t *want;           /* n: a pair asks it into the set */
	uint32_t *wanted;        /* those vertices, nwanted of them */
	size_t nwanted;
	uint8_t *vwait, *vexp;   /* n: measurements a tight vertex sits out,
				    and log2 of the last wait */
	uint8_t *tmark;          /* ntri: a corner in the set, taken in by
				    an earlier round (1) or this one (2) */
	uint32_t *set;           /* the set's vertices, in order */
	uint32_t *tset;          /* its triangles */
	uint32_t *tround;        /* those this round measures */
	int measuring_set;       /* measuring a set, not all */
	int due;                 /* measure again before the next move */
	int steps;               /* steps since the last measurement */
	int wait;                /* steps before vertices beyond half their
				    bound may call for the next */
	int pressed;             /* the caller: some vertex is behind the
				    body's half-plane */
	size_t nmoving;          /* vertices that move (the caller's count) */
	struct safe_stats stats;
};

/* The bounds for grid g's cloth (its u8 mask; panel and seam when
 * present), none measured yet (due); with band > 0, only the triangles
 * with a corner within `band` cells of a seam vertex (SAFE_SEAM_BAND),
 * the other vertices unbounded (bound FLT_MAX).  g's channels must
 * outlive s: the seams' strip is made at the first measurement. */
int safe_init(struct safe *s, const struct grid *g, int band,
	      struct error *e);
void safe_free(struct safe *s);

/* Measures the bounds at x (n x 3 floats, within the bounds of the
 * last measurement; may be s->x0 itself, which then measures all): of
 * the vertices beyond half their bound (and those their pairs take in),
 * whose x0 becomes their x, or of all, x0 becoming x (see above for
 * when).  OpenMP inside; the bounds do not depend on the thread
 * count. */
void safe_update(struct safe *s, const float *x);

/* pleat-solve --safe=seams: only the triangles with a corner within
 * this many cells (along either grid axis) of a seam vertex are
 * measured (none on a grid without seams), and only their corners are
 * bounded.  The two sides of a seam then cannot cross each other or the
 * strip, which the repulsion of --self leaves alone; 2 covers both
 * sides' boundary cells and the row inside them (1 did as well on
 * tshirt-iso at 1024).  But where a seam gathers one side onto the
 * other, the gathered side crumples further in: on the Berkeley dress's
 * waist (2.5:1) adjacent cells folded through each other 4 cells from
 * the seam at 2048, and pleat-frame's three levels on the posed body
 * with --self --safe=seams ended with 9 and 38 pairs at 2048 and 4096
 * with 2 cells, 6 and 3 with 6 cells.  The strip is made over the same
 * band. */
#define SAFE_SEAM_BAND 6

/* --safe's scope (pleat-solve, pleat-initialize): the whole cloth, or
 * the triangles within SAFE_SEAM_BAND cells of a seam vertex. */
enum { SAFE_ALL = 1, SAFE_SEAMS = 2 };

/* What pleat-solve and pleat-initialize warn of when --safe=seams finds
 * no seam to bound. */
#define SAFE_NO_SEAMS "--safe=seams: the grid has no seams, so nothing is bounded"

/* The scope --safe[=SCOPE] names: SAFE_ALL for no value or "all",
 * SAFE_SEAMS for "seams", 0 for anything else. */
int safe_scope(const char *name);
/* safe_scope of an option's value, or a usage error (exit 2). */
int safe_scope_option(const char *name);

/* When to measure again.  A vertex that has gone beyond half its bound
 * may need room that a new measurement would give it; but vertices held
 * close to another part of the cloth (a tight fold, a layer pushed
 * through another before the solve) reach their small bounds at every
 * step, and measuring at every step for them would cost far more than
 * the step.  So: again when more than one in SAFE_MANY moving vertices
 * (and more than one) went beyond half their bound and `wait` steps have
 * passed, or when one was pulled back and SAFE_EVERY steps have passed
 * since the last measurement.
 *
 * wait is 1, and doubles (up to SAFE_EVERY) after each measurement of
 * the whole cloth that gave fewer than one in SAFE_ROOMIER of the tight
 * vertices (bounds below SAFE_TIGHT of the largest) twice the room they
 * had (after a set's it is 1: a set is cheap, and its tight vertices
 * wait on their own, above): near a seam sewn
 * at a fraction of a cell, measuring again gives them nothing (the
 * quick start's second level: 243 measurements in 256 iterations, 36 s,
 * against 37, 8 s, and a lower energy).  Not while the caller says a
 * vertex is behind the body's half-plane (pressed): the projections take
 * those out only as fast as the bounds allow, and with the wait their
 * violation fell so slowly that --tolerance never stopped (the dress at
 * 128 on its body, 2400 iterations, against 528). */
#define SAFE_MANY 1000
#define SAFE_EVERY 8
#define SAFE_TIGHT 0.25
#define SAFE_ROOMIER 10

/* The solver went back to an earlier iterate: the bounds are due, and
 * the tangles are looked for again. */
void safe_restored(struct safe *s);

/* Every vertex with mov[v] pulled back within its bound, then
 * safe_step_done. */
void safe_clamp(struct safe *s, const uint8_t *mov, float *x);
/* After a step that left `over` vertices beyond half their bound and
 * pulled `clamped` back: sets s->due by the rule above. */
void safe_step_done(struct safe *s, size_t over, size_t clamped);

#endif

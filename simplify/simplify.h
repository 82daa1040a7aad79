/* simplify.h - quadtree simplification of a grid's surface (the paper's
 * section 6.4), in four parts:
 *
 *   surface.c   the full-resolution triangle mesh of a grid: which
 *               triangles exist, which vertices must stay, the positions
 *   quadtree.c  which quadtree nodes are leaves: refinement to the
 *               tolerance, the balance rule, the check of every leaf
 *               against the triangles it will really have
 *   mesh.c      the leaves' triangles as a mesh: vertices, texture
 *               coordinates (pattern positions) and normals
 *   zip.c       the seams closed: a strip of triangles between the two
 *               panels' boundaries along each seam (seam_strip.h)
 *   untangle.c  the leaves split back towards the grid wherever the mesh
 *               intersects itself
 *
 * The full-resolution mesh is the solver's: cell (i, j) holds the lower
 * triangle (i,j) (i+1,j) (i,j+1) and the upper triangle (i+1,j) (i+1,j+1)
 * (i,j+1), cut along the diagonal from (i+1,j) to (i,j+1); a triangle
 * exists when its three vertices are cloth (inside, not ghost) of the
 * same panel.  A cell with both triangles is full; one with just one is
 * partial, and the vertices of a partial cell's triangle are pinned: they
 * are kept in the output, so the output's boundary is the full mesh's
 * boundary wherever it is a staircase.
 */
#ifndef PLEAT_SIMPLIFY_H
#define PLEAT_SIMPLIFY_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"

#define CELL_LOWER 1   /* triangle (i,j) (i+1,j) (i,j+1) exists */
#define CELL_UPPER 2   /* triangle (i+1,j) (i+1,j+1) (i,j+1) exists */
#define CELL_FULL  3

/* The full-resolution mesh of one grid. */
struct surface {
	int w, h;              /* vertices */
	double cell;           /* metres per cell in the pattern */
	double origin[2];      /* pattern position of vertex (0, 0) */
	const float *x;        /* positions, 3 floats a vertex: the grid's x
				  (or rest) channel */
	const struct grid *grid;
	const uint8_t *mask;
	const uint16_t *panel; /* NULL: one panel */
	const float *seam;     /* the seam channel, or NULL */
	uint8_t *cells;        /* (w-1) x (h-1): CELL_LOWER | CELL_UPPER */
	uint8_t *pinned;       /* w x h: 1 on the vertices of partial cells'
				  triangles (and on seam vertices, when the
				  seams are closed) */
	size_t ncloth;         /* cloth vertices */
	int weld;              /* weld the twin seam vertices (weld.c) when
				  > 0 (twins_weldable's answer) */
	int used_rest;         /* positions came from 'rest' (no 'x') */
};

/* Reads the channels of grid g into s (which points into g's memory);
 * positions are g's x channel, or rest when there is no x.  With seams,
 * seam vertices are pinned, for the seams' strips.  Returns 0, or -1
 * with e set (a missing or mistyped channel, a non-finite position, a
 * seam vertex without a partner). */
int surface_init(struct surface *s, const struct grid *g, int seams,
		 struct error *e);
void surface_free(struct surface *s);
/* The unit normal of the full-resolution surface at grid vertex v: the
 * area-weighted normal of the grid triangles around it; +z where they
 * have no area. */
void surface_normal(const struct surface *s, size_t v, float out[3]);
/* Whether a and b have the same geometry and triangles (and so the same
 * pinned vertices). */
int surface_same_layout(const struct surface *a, const struct surface *b);

/* ---- the quadtree ----------------------------------------------------
 *
 * Level L >= 1 has nodes of 2^L x 2^L cells, node (a, b) covering
 * vertices a 2^L .. (a+1) 2^L across and b 2^L .. (b+1) 2^L down (its
 * closed square); level 0 is the cells themselves.  The root level is the
 * first whose one node covers the whole grid: the grid is padded, in
 * thought, to a power of two with vertices that are not cloth.  Only the
 * nodes that overlap the grid are stored. */
#define QT_MAX_LEVELS 24
enum { NODE_EMPTY, NODE_LEAF, NODE_SPLIT };
#define FINE_NONE 255

struct qt_level {
	int nx, ny;            /* nodes across and down */
	uint8_t *state;        /* NODE_EMPTY, NODE_LEAF or NODE_SPLIT */
	uint8_t (*fine)[4];    /* per side (bottom, right, top, left): the
				  level of the finest leaf in the node whose
				  triangles have an edge on that side, or
				  FINE_NONE when none has */
	uint8_t *checked;      /* 16 + the midpoint set a leaf last passed
				  the tolerance with, 0 when not checked */
	float *err;            /* phase 1: a leaf's largest deviation from
				  its two triangles (or a bound of it), m */
};

struct qtree {
	int top;               /* root level, >= 1 */
	double tol, tol2;      /* tolerance and its square, m and m^2 */
	struct qt_level lv[QT_MAX_LEVELS];   /* lv[1] .. lv[top] */
};

/* The tree for a grid of w x h vertices, tolerance tol in metres. */
void qtree_init(struct qtree *q, int w, int h, double tol);
void qtree_free(struct qtree *q);

/* Phase 1, bottom up: a node is a leaf when it holds only full cells, no
 * pinned vertex but on its corners, and every vertex of its closed
 * square lies within the tolerance of its two triangles; empty when it
 * holds no triangle; split otherwise. */
void qtree_refine(struct qtree *q, const struct surface *s);
/* The union of two refinements of the same layout: split where either
 * is (the topology of a sequence). */
void qtree_merge(struct qtree *dst, const struct qtree *src);
/* Phases 2 and 3 until nothing changes: the balance rule, then every
 * leaf that gained side midpoints checked against its real triangles. */
void qtree_finish(struct qtree *q, const struct surface *s);
/* Phase 2 once, then phase 3 once; returns the leaves that phase 3 split. */
size_t qtree_settle(struct qtree *q, const struct surface *s);
/* Splits every leaf (of level 1 or more) whose closed square holds one
 * of the grid vertices verts[0..n) of a grid w vertices wide, one level
 * at a time: a leaf its split makes actual is split by the next call.
 * Returns how many leaves it split; qtree_settle must follow. */
size_t qtree_split_at(struct qtree *q, const uint32_t *verts, size_t n,
		      int w);
/* Forgets which leaves were checked (before checking another frame). */
void qtree_forget_checks(struct qtree *q);

/* A leaf's triangles, as indices into its ring of corners and side
 * midpoints (counter-clockwise from the lower left corner, in units of
 * half the node: see quadtree.c).  mids: bit k set when side k (bottom,
 * right, top, left) has its midpoint.  Returns 2 to 6. */
int leaf_triangles(unsigned mids, unsigned char tri[6][3]);
extern const unsigned char leaf_ring[8][2];

/* Calls fn for every leaf of the finished tree that may have triangles:
 * level L >= 1 with its midpoints, or level 0 for a cell of a split
 * level-1 node.  The leaves come in rows: row r is one row of nodes of
 * one level (level 1's rows first), so that rows can be visited in
 * parallel and their results put together in a fixed order. */
struct qt_leaf { int level, a, b; unsigned mids; };
size_t qtree_rows(const struct qtree *q);
void qtree_row_leaves(const struct qtree *q, size_t row,
		      void (*fn)(const struct qt_leaf *, void *), void *arg);

/* ---- the output mesh ------------------------------------------------- */
struct simple_mesh {
	int nverts, ntris;
	uint32_t *vgrid;       /* grid vertex of each output vertex */
	int (*tris)[3];        /* counter-clockwise in the pattern */
	float (*pos)[3];
	float (*uv)[2];        /* pattern position, metres */
	float (*normal)[3];
	/* with seams of no length welded (weld.c), else NULL: the grid
	 * vertex of each vertex's twin (UINT32_MAX: none), and the twin's
	 * pattern position */
	uint32_t *vtwin;
	float (*uv2)[2];
	/* the first nflagged triangles' corners that were a twin (bit c) */
	uint8_t *twin_corner;
	int nflagged;
};

/* The triangles of the finished tree q over surface s, with positions,
 * pattern positions and normals.  Vertices are numbered in grid order
 * (row by row), triangles leaf by leaf; the result does not depend on
 * the number of threads.  Fails when the mesh has more than INT_MAX
 * vertices or triangles. */
int mesh_build(struct simple_mesh *m, const struct qtree *q,
	       const struct surface *s, struct error *e);
/* Positions and normals from another frame of the same layout. */
void mesh_update(struct simple_mesh *m, const struct surface *s);
void mesh_free(struct simple_mesh *m);

/* ---- the seams ------------------------------------------------------- */
struct zip_stats {
	int chains;            /* boundary runs along a seam, one per side */
	int strip;             /* triangles joining the two sides of seams */
	int holes;             /* triangles closing holes where panels meet */
	long open_edges;       /* seam edges still on the boundary */
	long pairs_left;       /* intersecting triangle pairs no split
				  could mend (untangle.c) */
	int flips;             /* strip rungs flipped to mend them */
	int welded;            /* twin seam vertices made one (weld.c) */
};

/* Closes the seams of mesh m (built over surface s) by construction:
 * appends the triangles of a strip between the two sides of every seam
 * and of the small holes where three panels meet (see seam_strip.h).  No vertex
 * moves; the result is a manifold whose seams' sides share triangles.
 * Fails when the mesh would have more than INT_MAX triangles. */
int mesh_zip_seams(struct simple_mesh *m, const struct surface *s,
		   struct zip_stats *st, struct error *e);

/* Whether the twin seam vertices of s (seam_twin: a seam of no length
 * between grid vertices) can be welded: 1 when every pair is within
 * `within` (m) and lies in a run of twins along its seam, -1 when some
 * pair is not, 0 when there are none. */
int twins_weldable(const struct surface *s, double within);
/* With s->weld, welds the twin seam vertices of mesh m (its panels'
 * triangles, before the seams are closed) into one vertex each, at
 * their midpoint; st->welded counts the pairs. */
void mesh_weld_twins(struct simple_mesh *m, const struct surface *s,
		     struct zip_stats *st);
/* Welded vertex k's position and normal from the two grid vertices. */
void mesh_weld_point(const struct simple_mesh *m, const struct surface *s,
		     int k);
/* A welded mesh's texture coordinates per triangle corner: n pattern
 * positions, each of vertex `vertex`, and every triangle's three; n is 0
 * (and the rest NULL) when nothing is welded. */
struct mesh_uv {
	int n;
	float (*uv)[2];
	int *vertex;
	int (*tris)[3];
};
void mesh_texture_corners(const struct simple_mesh *m, struct mesh_uv *u);
void mesh_uv_free(struct mesh_uv *u);

/* ---- intersections ----------------------------------------------------
 *
 * Mesh m, built over tree q and surface s (with its seams closed when
 * close_seams; zs then its strip's figures), refined where its triangles
 * intersect (see untangle.c) and built again, until it has no
 * intersecting pair or no leaf that holds one can be split; then, with
 * flip and closed seams, the strip's rungs flipped as mesh_flip_strips
 * does.  Returns the pairs left, or (size_t)-1 with e set when a build
 * fails; *rounds: how many times it was built again. */
size_t mesh_untangle(struct simple_mesh *m, struct qtree *q,
		     const struct surface *s, int close_seams, int flip,
		     struct zip_stats *zs, int *rounds, struct error *e);
/* The intersecting triangle pairs of m, as pleat-collide counts them. */
size_t mesh_intersections(const struct simple_mesh *m);
/* The rungs of the seams' strips (triangles first .. m->ntris - 1 of
 * mesh m over surface s) flipped where that makes fewer intersecting
 * pairs; *flips: how many.  Returns the pairs left. */
size_t mesh_flip_strips(struct simple_mesh *m, const struct surface *s,
			int first, int *flips);

#endif

/* untangle.c - the mesh refined back towards the grid where it
 * intersects itself.
 *
 * A leaf's two triangles cut across the wrinkles the tolerance lets them
 * flatten, and a seam's strip joins boundaries that the leaves beside it
 * have straightened: either can pass through a neighbouring piece of
 * cloth that the grid keeps clear of it (on the resampled dress at 2048
 * the quadtree's merges alone make 4 intersecting pairs, the strips 4
 * more).  So after building, the exact count of pleat-collide runs over
 * the mesh, and every leaf that holds a corner of an intersecting
 * triangle is split, one level a round, until no pair is left or every
 * such leaf is down to the grid's cells: then the pairs left are the
 * grid's own (or a seam's strip between grid vertices), which the mesh
 * cannot mend.  A strip follows its leaves: a split leaf gives the seam
 * boundary its vertices back. */
#include <stdlib.h>
#include <string.h>

#include "proximity.h"
#include "simplify.h"

/* The grid vertices of the corners of the triangles in pairs[0..2n). */
static uint32_t *pair_corners(const struct simple_mesh *m,
			      const uint32_t *pairs, size_t n, size_t *nv)
{
	uint32_t *v = xmalloc_array(6 * n, sizeof *v);
	*nv = 0;
	for (size_t k = 0; k < 2 * n; k++)
		for (int c = 0; c < 3; c++)
			v[(*nv)++] = m->vgrid[m->tris[pairs[k]][c]];
	return v;
}

/* The intersecting pairs of m (sharing a corner or not), as the
 * collision count finds them. */
static size_t mesh_pairs(const struct simple_mesh *m, uint32_t **pairs)
{
	return count_all_intersections((const float *)m->pos,
				       (const uint32_t *)m->tris,
				       (size_t)m->ntris, pairs);
}

size_t mesh_untangle(struct simple_mesh *m, struct qtree *q,
		     const struct surface *s, int close_seams,
		     struct zip_stats *zs, int *rounds, struct error *e)
{
	*rounds = 0;
	for (;;) {
		uint32_t *pairs = NULL;
		size_t n = mesh_pairs(m, &pairs), nv;
		if (n == 0) {
			free(pairs);
			return 0;
		}
		uint32_t *corners = pair_corners(m, pairs, n, &nv);
		free(pairs);
		size_t split = qtree_split_at(q, corners, nv, s->w);
		free(corners);
		if (split == 0 && close_seams && zs)
			return mesh_flip_strips(m, s, m->ntris - zs->strip -
						zs->holes, &zs->flips);
		if (split == 0)
			return n;
		while (qtree_settle(q, s) > 0)
			;
		mesh_free(m);
		if (zs)
			*zs = (struct zip_stats){0};
		if (mesh_build(m, q, s, e) ||
		    (close_seams && mesh_zip_seams(m, s, zs, e)))
			return (size_t)-1;
		++*rounds;
	}
}

/* ---- flips in the seams' strips --------------------------------------
 *
 * A strip or hole triangle that still crosses something joins seam
 * vertices at the grid's resolution: no split can move it.  But the
 * strip's triangulation is a choice (zip.c makes it greedily, looking
 * only at the triangles around each corner), so a rung between two
 * strip triangles can be flipped to the quadrilateral's other diagonal;
 * a flip is kept when the two new triangles cross fewer triangles of
 * the mesh than the two old ones did.  The quadrilateral's boundary is
 * unchanged and the new edge is not an edge yet, so the mesh stays an
 * oriented manifold; and each of the four corners that had a triangle
 * across the seam (with a corner of another panel) keeps one. */

struct flip_mesh {
	struct simple_mesh *m;
	const uint16_t *panel;  /* per grid vertex */
	int first;              /* the first strip or hole triangle */
};

/* Whether the closed boxes of triangles c and t overlap. */
static int boxes_meet(const struct simple_mesh *m, const int c[3],
		      const int t[3])
{
	for (int k = 0; k < 3; k++) {
		float clo = m->pos[c[0]][k], chi = clo, tlo = m->pos[t[0]][k],
		      thi = tlo;
		for (int r = 1; r < 3; r++) {
			float a = m->pos[c[r]][k], b = m->pos[t[r]][k];
			clo = a < clo ? a : clo;
			chi = a > chi ? a : chi;
			tlo = b < tlo ? b : tlo;
			thi = b > thi ? b : thi;
		}
		if (chi < tlo || thi < clo)
			return 0;
	}
	return 1;
}

/* How many triangles of the mesh, but skip0 and skip1, cross triangle c. */
static int crossings(const struct simple_mesh *m, const int c[3], int skip0,
		     int skip1)
{
	int n = 0;
	uint32_t cu[3] = {(uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2]};
	for (int t = 0; t < m->ntris; t++) {
		if (t == skip0 || t == skip1 || !boxes_meet(m, c, m->tris[t]))
			continue;
		uint32_t tu[3] = {(uint32_t)m->tris[t][0], (uint32_t)m->tris[t][1],
				  (uint32_t)m->tris[t][2]};
		n += triangles_cross((const float *)m->pos, cu, tu);
	}
	return n;
}

/* Whether a triangle's corners are on one line in 3D (a flip must not
 * make one without area). */
static int flat_corners(const struct simple_mesh *m, const int c[3])
{
	double e[2][3];
	for (int k = 0; k < 3; k++) {
		e[0][k] = (double)m->pos[c[1]][k] - m->pos[c[0]][k];
		e[1][k] = (double)m->pos[c[2]][k] - m->pos[c[0]][k];
	}
	return e[0][1] * e[1][2] == e[0][2] * e[1][1] &&
	       e[0][2] * e[1][0] == e[0][0] * e[1][2] &&
	       e[0][0] * e[1][1] == e[0][1] * e[1][0];
}

static int has_edge(const struct simple_mesh *m, int a, int b)
{
	for (int t = 0; t < m->ntris; t++)
		for (int c = 0; c < 3; c++)
			if ((m->tris[t][c] == a && m->tris[t][(c + 1) % 3] == b) ||
			    (m->tris[t][c] == b && m->tris[t][(c + 1) % 3] == a))
				return 1;
	return 0;
}

/* Whether vertex v has a strip triangle with a corner of another panel. */
static int joined(const struct flip_mesh *f, int v)
{
	const struct simple_mesh *m = f->m;
	uint16_t own = f->panel[m->vgrid[v]];
	for (int t = f->first; t < m->ntris; t++)
		if (m->tris[t][0] == v || m->tris[t][1] == v || m->tris[t][2] == v)
			for (int c = 0; c < 3; c++)
				if (f->panel[m->vgrid[m->tris[t][c]]] != own)
					return 1;
	return 0;
}

/* The strip triangle across edge c (from corner c to c + 1) of strip
 * triangle t, and its corner opposite that edge; -1 when none. */
static int strip_across(const struct flip_mesh *f, int t, int c, int *opp)
{
	const struct simple_mesh *m = f->m;
	int b = m->tris[t][c], e = m->tris[t][(c + 1) % 3];
	for (int u = f->first; u < m->ntris; u++)
		for (int k = 0; k < 3; k++)
			if (u != t && m->tris[u][k] == e &&
			    m->tris[u][(k + 1) % 3] == b) {
				*opp = m->tris[u][(k + 2) % 3];
				return u;
			}
	return -1;
}

/* Tries the flips of strip triangle t's edges; keeps the first that
 * lowers the crossings.  Returns 1 when it flipped. */
static int flip_strip_triangle(struct flip_mesh *f, int t)
{
	struct simple_mesh *m = f->m;
	for (int c = 0; c < 3; c++) {
		int d, u = strip_across(f, t, c, &d);
		if (u < 0)
			continue;
		/* t = (b, e, a) from corner c: a b e d is the quadrilateral,
		 * counter-clockwise; its other diagonal is a d */
		int b = m->tris[t][c], e = m->tris[t][(c + 1) % 3],
		    a = m->tris[t][(c + 2) % 3];
		int n1[3] = {a, b, d}, n2[3] = {a, d, e};
		if (a == d || flat_corners(m, n1) || flat_corners(m, n2) ||
		    has_edge(m, a, d))
			continue;
		int before = crossings(m, m->tris[t], u, u) +
			     crossings(m, m->tris[u], t, t);
		int after = crossings(m, n1, t, u) + crossings(m, n2, t, u);
		if (after >= before)
			continue;
		int quad[4] = {a, b, d, e}, was[4], old_t[3], old_u[3];
		for (int k = 0; k < 4; k++)
			was[k] = joined(f, quad[k]);
		memcpy(old_t, m->tris[t], sizeof old_t);
		memcpy(old_u, m->tris[u], sizeof old_u);
		memcpy(m->tris[t], n1, sizeof n1);
		memcpy(m->tris[u], n2, sizeof n2);
		int keeps = 1;
		for (int k = 0; k < 4; k++)
			keeps &= !was[k] || joined(f, quad[k]);
		if (keeps)
			return 1;
		memcpy(m->tris[t], old_t, sizeof old_t);
		memcpy(m->tris[u], old_u, sizeof old_u);
	}
	return 0;
}

size_t mesh_flip_strips(struct simple_mesh *m, const struct surface *s,
			int first, int *flips)
{
	struct flip_mesh f = {m, s->panel, first};
	*flips = 0;
	for (int round = 0; round < 8 && s->panel; round++) {
		uint32_t *pairs = NULL;
		size_t n = mesh_pairs(m, &pairs);
		int flipped = 0;
		for (size_t k = 0; k < 2 * n; k++)
			if ((int)pairs[k] >= first)
				flipped += flip_strip_triangle(&f, (int)pairs[k]);
		free(pairs);
		*flips += flipped;
		if (!flipped || n == 0)
			return n;
	}
	uint32_t *pairs = NULL;
	size_t n = mesh_pairs(m, &pairs);
	free(pairs);
	return n;
}

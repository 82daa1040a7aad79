/* mesh.c - the leaves' triangles as an indexed mesh with texture
 * coordinates and normals.
 *
 * Triangles are gathered row by row of the quadtree (count, then fill at
 * offsets), vertices numbered in grid order: the same mesh for any
 * thread count.  A vertex's normal is that of the full-resolution surface
 * (surface_normal), not of the simplified one, so that shading keeps the
 * detail the simplification flattened away. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "simplify.h"

/* Where one row of leaves puts its triangles (grid vertex indices). */
struct tri_sink {
	const struct surface *s;
	uint32_t (*tri)[3];   /* NULL: only count */
	size_t n;
};

static void put(struct tri_sink *k, size_t a, size_t b, size_t c)
{
	if (k->tri) {
		k->tri[k->n][0] = (uint32_t)a;
		k->tri[k->n][1] = (uint32_t)b;
		k->tri[k->n][2] = (uint32_t)c;
	}
	k->n++;
}

static void leaf_to_sink(const struct qt_leaf *l, void *arg)
{
	struct tri_sink *k = arg;
	size_t w = (size_t)k->s->w;
	if (l->level == 0) {
		if (l->a >= k->s->w - 1 || l->b >= k->s->h - 1)
			return;   /* a cell of a node past the grid's edge */
		uint8_t bits = k->s->cells[(size_t)l->b * (w - 1) + (size_t)l->a];
		size_t a = (size_t)l->b * w + (size_t)l->a;
		if (bits & CELL_LOWER)
			put(k, a, a + 1, a + w);
		if (bits & CELL_UPPER)
			put(k, a + 1, a + w + 1, a + w);
		return;
	}
	unsigned char t[6][3];
	int nt = leaf_triangles(l->mids, t);
	size_t half = (size_t)1 << (l->level - 1);
	size_t i0 = (size_t)l->a << l->level, j0 = (size_t)l->b << l->level;
	for (int r = 0; r < nt; r++) {
		size_t v[3];
		for (int c = 0; c < 3; c++)
			v[c] = (j0 + leaf_ring[t[r][c]][1] * half) * w + i0 +
			       leaf_ring[t[r][c]][0] * half;
		put(k, v[0], v[1], v[2]);
	}
}

/* Every triangle of the tree, in grid vertex indices. */
static uint32_t (*gather(const struct qtree *q, const struct surface *s,
			 size_t *ntri))[3]
{
	size_t rows = qtree_rows(q);
	size_t *start = xmalloc_array(rows + 1, sizeof *start);
	#pragma omp parallel for schedule(dynamic, 4)
	for (size_t r = 0; r < rows; r++) {
		struct tri_sink k = {s, NULL, 0};
		qtree_row_leaves(q, r, leaf_to_sink, &k);
		start[r + 1] = k.n;
	}
	start[0] = 0;
	for (size_t r = 0; r < rows; r++)
		start[r + 1] += start[r];
	uint32_t (*tri)[3] = xmalloc_array(start[rows], sizeof *tri);
	#pragma omp parallel for schedule(dynamic, 4)
	for (size_t r = 0; r < rows; r++) {
		struct tri_sink k = {s, tri + start[r], 0};
		qtree_row_leaves(q, r, leaf_to_sink, &k);
	}
	*ntri = start[rows];
	free(start);
	return tri;
}

void mesh_update(struct simple_mesh *m, const struct surface *s)
{
	#pragma omp parallel for schedule(static)
	for (int k = 0; k < m->nverts; k++) {
		size_t v = m->vgrid[k];
		if (m->vtwin && m->vtwin[k] != UINT32_MAX) {
			mesh_weld_point(m, s, k);
			continue;
		}
		memcpy(m->pos[k], s->x + 3 * v, sizeof m->pos[k]);
		surface_normal(s, v, m->normal[k]);
	}
}

int mesh_build(struct simple_mesh *m, const struct qtree *q,
	       const struct surface *s, struct error *e)
{
	size_t ntri, n = (size_t)s->w * (size_t)s->h;
	memset(m, 0, sizeof *m);
	uint32_t (*tri)[3] = gather(q, s, &ntri);
	if (ntri > INT_MAX) {
		free(tri);
		return error_set(e, "the mesh has %zu triangles, more than a "
				 "mesh file holds (%d)", ntri, INT_MAX);
	}
	int32_t *index = big_alloc(n * sizeof *index);
	if (!index)
		die("out of memory for the index of %zu vertices", n);
	memset(index, 0, n * sizeof *index);
	for (size_t t = 0; t < ntri; t++)
		index[tri[t][0]] = index[tri[t][1]] = index[tri[t][2]] = 1;
	int nv = 0;
	for (size_t v = 0; v < n; v++)
		index[v] = index[v] ? nv++ : -1;
	m->nverts = nv;
	m->ntris = (int)ntri;
	m->vgrid = xmalloc_array((size_t)nv, sizeof *m->vgrid);
	for (size_t v = 0; v < n; v++)
		if (index[v] >= 0)
			m->vgrid[index[v]] = (uint32_t)v;
	m->tris = xmalloc_array(ntri, sizeof *m->tris);
	for (size_t t = 0; t < ntri; t++)
		for (int c = 0; c < 3; c++)
			m->tris[t][c] = index[tri[t][c]];
	free(tri);
	free(index);
	m->pos = xmalloc_array((size_t)nv, sizeof *m->pos);
	m->normal = xmalloc_array((size_t)nv, sizeof *m->normal);
	m->uv = xmalloc_array((size_t)nv, sizeof *m->uv);
	for (int k = 0; k < nv; k++) {
		size_t v = m->vgrid[k], w = (size_t)s->w;
		m->uv[k][0] = (float)(s->origin[0] + s->cell * (double)(v % w));
		m->uv[k][1] = (float)(s->origin[1] + s->cell * (double)(v / w));
	}
	mesh_update(m, s);
	return 0;
}

void mesh_free(struct simple_mesh *m)
{
	free(m->vgrid);
	free(m->tris);
	free(m->pos);
	free(m->uv);
	free(m->normal);
	free(m->vtwin);
	free(m->uv2);
	free(m->twin_corner);
	memset(m, 0, sizeof *m);
}

/* pattern.c - panels and seams of a coarse garment (see pattern.h).
 *
 * Three hash tables, all open addressing with linear probing and sized
 * once from the triangle count (so they never rehash):
 *   pattern vertices  (position index, u bits, v bits) -> id
 *   pattern edges     (pattern vertex id pair)         -> id, use count
 *   3D edges          (position index pair)            -> boundary edges
 * Hash order never reaches the output: panels are numbered by first
 * triangle and boundary edges are listed in triangle/corner order.
 */
#include "pattern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct table {
	size_t mask;
	int *slot;      /* id, or -1 when empty */
};

struct pv_key {
	int pos;
	uint64_t u, v;  /* bit patterns of the texture coordinates */
};

/* splitmix64's finaliser: cheap and mixes every input bit. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A table for up to n keys, at most half full. */
static void table_init(struct table *t, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	t->slot = xmalloc_array(cap, sizeof *t->slot);
	memset(t->slot, 0xff, cap * sizeof *t->slot);
	t->mask = cap - 1;
}

/* The slot holding key, or the empty slot where it belongs. */
static int *find_u64(const struct table *t, const uint64_t *keys,
		     uint64_t key)
{
	size_t i = (size_t)mix(key) & t->mask;
	while (t->slot[i] >= 0 && keys[t->slot[i]] != key)
		i = (i + 1) & t->mask;
	return &t->slot[i];
}

static int *find_pv(const struct table *t, const struct pv_key *keys,
		    const struct pv_key *k)
{
	size_t i = (size_t)mix(mix(k->u ^ (uint64_t)k->pos) ^ k->v) & t->mask;
	for (; t->slot[i] >= 0; i = (i + 1) & t->mask) {
		const struct pv_key *o = &keys[t->slot[i]];
		if (o->pos == k->pos && o->u == k->u && o->v == k->v)
			break;
	}
	return &t->slot[i];
}

/* Bits of a texture coordinate; adding 0.0 turns -0.0 into +0.0 so that
 * equal values always match. */
static uint64_t coord_bits(double x)
{
	uint64_t b;
	x += 0.0;
	memcpy(&b, &x, sizeof b);
	return b;
}

/* Unordered pair as one key. */
static uint64_t pair_key(int a, int b)
{
	uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
	return (uint64_t)lo << 32 | hi;
}

static int check_mesh(const struct obj_mesh *m, const char *name,
		      struct error *e)
{
	for (int t = 0; t < m->ntri; t++)
		for (int k = 0; k < 3; k++) {
			if (m->tri_vt[t][k] < 0 || m->nvt == 0)
				return error_set(e, "%s: has no texture "
					"coordinates: pleat needs the sewing "
					"pattern as texture coordinates (vt, "
					"in metres)", name);
			if (m->tri_vt[t][k] >= m->nvt || m->tri_v[t][k] < 0 ||
			    m->tri_v[t][k] >= m->nv)
				return error_set(e, "%s: triangle %d has an "
						 "index out of range", name, t);
		}
	return 0;
}

/* Gives every corner its pattern vertex id in pv. */
static void pattern_vertices(const struct obj_mesh *m, int (*pv)[3])
{
	size_t n = (size_t)m->ntri * 3;
	struct pv_key *keys = xmalloc_array(n, sizeof *keys);
	struct table t;
	int count = 0;
	table_init(&t, n);
	for (int i = 0; i < m->ntri; i++)
		for (int k = 0; k < 3; k++) {
			const double *uv = m->vt[m->tri_vt[i][k]];
			struct pv_key key = { m->tri_v[i][k],
				coord_bits(uv[0]), coord_bits(uv[1]) };
			int *s = find_pv(&t, keys, &key);
			if (*s < 0) {
				keys[count] = key;
				*s = count++;
			}
			pv[i][k] = *s;
		}
	free(t.slot);
	free(keys);
}

static int uf_find(int *parent, int x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static void uf_union(int *parent, int a, int b)
{
	a = uf_find(parent, a);
	b = uf_find(parent, b);
	if (a != b)
		parent[a > b ? a : b] = a < b ? a : b;
}

/* Counts the uses of every pattern edge (edge k of a triangle runs from
 * corner k to corner k+1), stores its id in tri_edge, and joins the
 * triangles that share one into a panel. */
static void pattern_edges(const struct obj_mesh *m, int (*pv)[3],
			  int (*tri_edge)[3], int *uses, int *parent)
{
	size_t n = (size_t)m->ntri * 3;
	uint64_t *keys = xmalloc_array(n, sizeof *keys);
	int *first = xmalloc_array(n, sizeof *first);
	struct table t;
	int count = 0;
	table_init(&t, n);
	for (int i = 0; i < m->ntri; i++) {
		parent[i] = i;
		for (int k = 0; k < 3; k++) {
			uint64_t key = pair_key(pv[i][k], pv[i][(k + 1) % 3]);
			int *s = find_u64(&t, keys, key);
			if (*s < 0) {
				keys[count] = key;
				first[count] = i;
				uses[count] = 0;
				*s = count++;
			}
			uses[*s]++;
			uf_union(parent, i, first[*s]);
			tri_edge[i][k] = *s;
		}
	}
	free(t.slot);
	free(first);
	free(keys);
}

/* Panel ids in order of each panel's first triangle. */
static int number_panels(int ntri, int *parent, int *tri_panel)
{
	int n = 0;
	for (int i = 0; i < ntri; i++) {
		int r = uf_find(parent, i);
		tri_panel[i] = r == i ? n++ : tri_panel[r];
	}
	return n;
}

/* Lists the pattern edges used once, in triangle and corner order. */
static void boundary_edges(struct pattern *p, const struct obj_mesh *m,
			   int (*tri_edge)[3], const int *uses)
{
	p->edges = xmalloc_array((size_t)m->ntri * 3, sizeof *p->edges);
	for (int i = 0; i < m->ntri; i++)
		for (int k = 0; k < 3; k++) {
			if (uses[tri_edge[i][k]] != 1)
				continue;
			int k1 = (k + 1) % 3;
			struct pattern_edge *ed = &p->edges[p->nedges++];
			ed->tri = i;
			ed->panel = p->tri_panel[i];
			ed->v[0] = m->tri_v[i][k];
			ed->v[1] = m->tri_v[i][k1];
			memcpy(ed->a, m->vt[m->tri_vt[i][k]], sizeof ed->a);
			memcpy(ed->b, m->vt[m->tri_vt[i][k1]], sizeof ed->b);
			ed->partner = -1;
		}
}

/* Pairs boundary edges over the same two positions.  Being distinct
 * pattern edges, two such edges differ in texture coordinates: a seam.
 * Only a 3D edge with exactly two boundary edges is paired; more would be
 * a non-manifold seam with no single partner. */
static void pair_seams(struct pattern *p)
{
	size_t n = (size_t)p->nedges;
	uint64_t *keys = xmalloc_array(n ? n : 1, sizeof *keys);
	int *first = xmalloc_array(n ? n : 1, sizeof *first);
	int *count = xmalloc_array(n ? n : 1, sizeof *count);
	int *edge_slot = xmalloc_array(n ? n : 1, sizeof *edge_slot);
	struct table t;
	int nkeys = 0;
	table_init(&t, n);
	for (int i = 0; i < p->nedges; i++) {
		uint64_t key = pair_key(p->edges[i].v[0], p->edges[i].v[1]);
		int *s = find_u64(&t, keys, key);
		if (*s < 0) {
			keys[nkeys] = key;
			first[nkeys] = i;
			count[nkeys] = 0;
			*s = nkeys++;
		}
		count[*s]++;
		edge_slot[i] = *s;
	}
	for (int i = 0; i < p->nedges; i++) {
		int s = edge_slot[i], j = first[s];
		if (count[s] == 2 && j != i) {
			p->edges[i].partner = j;
			p->edges[j].partner = i;
			p->nseam_edges += 2;
		}
	}
	free(t.slot);
	free(edge_slot);
	free(count);
	free(first);
	free(keys);
}

int pattern_build(struct pattern *p, const struct obj_mesh *m,
		  const char *name, struct error *e)
{
	memset(p, 0, sizeof *p);
	if (m->ntri <= 0)
		return error_set(e, "%s: no faces", name);
	if (check_mesh(m, name, e) < 0)
		return -1;
	size_t n = (size_t)m->ntri;
	int (*pv)[3] = xmalloc_array(n, sizeof *pv);
	int (*tri_edge)[3] = xmalloc_array(n, sizeof *tri_edge);
	int *uses = xmalloc_array(n * 3, sizeof *uses);
	int *parent = xmalloc_array(n, sizeof *parent);
	pattern_vertices(m, pv);
	pattern_edges(m, pv, tri_edge, uses, parent);
	p->tri_panel = xmalloc_array(n, sizeof *p->tri_panel);
	p->npanels = number_panels(m->ntri, parent, p->tri_panel);
	boundary_edges(p, m, tri_edge, uses);
	pair_seams(p);
	free(parent);
	free(uses);
	free(tri_edge);
	free(pv);
	return 0;
}

void pattern_free(struct pattern *p)
{
	free(p->tri_panel);
	free(p->edges);
	memset(p, 0, sizeof *p);
}

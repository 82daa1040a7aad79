/* weld.c - seams for garments whose panels arrive as separate pieces.
 *
 * Garment-CAD exports often write each panel with its own vertices, so
 * nothing in the mesh says which edges are sewn: the pattern (pattern.h)
 * finds seams only where two panels share their 3D vertices.  --weld MM
 * makes them share: the end points of boundary edges of different panels
 * that lie within MM of each other in 3D become one vertex, at the mean
 * of their positions, and the pattern is built again; its seams, seam
 * partners and ghost band are then those of a garment that came welded.
 * Two vertices of one panel merge only when their pattern positions are
 * farther apart than MM (a panel sewn to itself, as a sleeve is along
 * its underarm); never two at one place of the pattern, which would
 * pinch the panel.
 * The sides of a seam must have their vertices at matching places (as a
 * garment cut apart has): an edge whose ends find no partner stays open.
 *
 * The map from old to new vertex index is made on the first mesh and
 * applied to every frame of a sequence, whose positions move together. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resample.h"

/* Union-find over vertex indices, the root the smallest index. */
static int root(int *up, int v)
{
	while (up[v] != v) {
		up[v] = up[up[v]];
		v = up[v];
	}
	return v;
}

/* A boundary vertex: its panel and pattern position (the first of its
 * boundary edges'), panel -1 for the other vertices. */
struct bvertex { int panel; double uv[2]; };

static struct bvertex *boundary_vertices(const struct obj_mesh *m,
					 const struct pattern *p)
{
	struct bvertex *bv = xmalloc_array((size_t)m->nv + 1, sizeof *bv);
	for (int v = 0; v < m->nv; v++)
		bv[v].panel = -1;
	for (int k = 0; k < p->nedges; k++)
		for (int c = 0; c < 2; c++) {
			struct bvertex *x = &bv[p->edges[k].v[c]];
			if (x->panel >= 0)
				continue;
			x->panel = p->edges[k].panel;
			memcpy(x->uv, c ? p->edges[k].b : p->edges[k].a, sizeof x->uv);
		}
	return bv;
}

static const struct obj_mesh *sort_mesh;

static int by_x(const void *a, const void *b)
{
	double x = sort_mesh->v[*(const int *)a][0],
	       y = sort_mesh->v[*(const int *)b][0];
	return (x > y) - (x < y);
}

/* The members of each group, kept at its root. */
struct groups {
	int *up;
	int **member, *nmember;
	const struct bvertex *bv;
	double tol;
};

/* Whether x and y may be one vertex: of different panels, or of one
 * panel at places of its pattern farther apart than the tolerance (the
 * two edges of a panel sewn to itself, a sleeve's underarm), never a
 * panel pinched at one place. */
static int compatible(const struct groups *g, int x, int y)
{
	const struct bvertex *a = &g->bv[x], *b = &g->bv[y];
	return a->panel != b->panel ||
	       hypot(a->uv[0] - b->uv[0], a->uv[1] - b->uv[1]) > g->tol;
}

/* Merges the groups of a and b when all their members are compatible. */
static int merge(struct groups *g, int a, int b)
{
	int ra = root(g->up, a), rb = root(g->up, b);
	if (ra == rb)
		return 0;
	for (int i = 0; i < g->nmember[ra]; i++)
		for (int j = 0; j < g->nmember[rb]; j++)
			if (!compatible(g, g->member[ra][i], g->member[rb][j]))
				return 0;
	int lo = ra < rb ? ra : rb, hi = ra < rb ? rb : ra;
	g->up[hi] = lo;
	g->member[lo] = xrealloc_array(g->member[lo],
				       (size_t)(g->nmember[lo] + g->nmember[hi]),
				       sizeof(int));
	memcpy(g->member[lo] + g->nmember[lo], g->member[hi],
	       (size_t)g->nmember[hi] * sizeof(int));
	g->nmember[lo] += g->nmember[hi];
	free(g->member[hi]);
	g->member[hi] = NULL;
	g->nmember[hi] = 0;
	return 1;
}

int *weld_map(const struct obj_mesh *m, const struct pattern *p, double tol,
	      int *merged)
{
	struct bvertex *bv = boundary_vertices(m, p);
	int *ord = xmalloc_array((size_t)m->nv + 1, sizeof *ord);
	struct groups g = {
		xmalloc_array((size_t)m->nv + 1, sizeof(int)),
		xcalloc((size_t)m->nv + 1, sizeof(int *)),
		xcalloc((size_t)m->nv + 1, sizeof(int)),
		bv, tol,
	};
	int n = 0;
	for (int v = 0; v < m->nv; v++) {
		g.up[v] = v;
		if (bv[v].panel < 0)
			continue;
		ord[n++] = v;
		g.member[v] = xmalloc(sizeof(int));
		g.member[v][0] = v;
		g.nmember[v] = 1;
	}
	sort_mesh = m;
	qsort(ord, (size_t)n, sizeof *ord, by_x);
	*merged = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			int a = ord[i], b = ord[j];
			if (m->v[b][0] - m->v[a][0] > tol)
				break;
			double d2 = 0;
			for (int k = 0; k < 3; k++)
				d2 += (m->v[a][k] - m->v[b][k]) * (m->v[a][k] - m->v[b][k]);
			if (d2 <= tol * tol)
				*merged += merge(&g, a, b);
		}
	for (int v = 0; v < m->nv; v++) {
		g.up[v] = root(g.up, v);
		free(g.member[v]);
	}
	free(g.member);
	free(g.nmember);
	free(ord);
	free(bv);
	return g.up;
}

void weld_apply(struct obj_mesh *m, const int *map)
{
	double (*sum)[3] = xcalloc((size_t)m->nv + 1, sizeof *sum);
	int *count = xcalloc((size_t)m->nv + 1, sizeof *count);
	for (int v = 0; v < m->nv; v++) {
		for (int k = 0; k < 3; k++)
			sum[map[v]][k] += m->v[v][k];
		count[map[v]]++;
	}
	for (int v = 0; v < m->nv; v++)
		if (map[v] == v && count[v] > 1)
			for (int k = 0; k < 3; k++)
				m->v[v][k] = sum[v][k] / count[v];
	for (int t = 0; t < m->ntri; t++)
		for (int c = 0; c < 3; c++)
			m->tri_v[t][c] = map[m->tri_v[t][c]];
	free(sum);
	free(count);
}

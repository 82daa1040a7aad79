/* weld.c - the two sides of a seam of no length made one vertex.
 *
 * Where both panels' boundaries run along grid lines, a seam vertex's
 * partner point is a grid vertex of the other panel and the seam has no
 * length (seam_twin): the two grid vertices are one point of the cloth,
 * and pleat-solve gives them one position.  A strip between them would
 * be triangles of no area, and two panels meeting along an edge that is
 * almost but not exactly shared cross each other by rounding.  So before
 * the strip is made (zip.c), the two output vertices become one, at
 * their midpoint (no move at all on a grid that pleat-solve wrote), and
 * the seam there needs no strip.  The vertex keeps both panels' pattern
 * positions: each triangle's corner takes its own panel's (an OBJ face
 * corner's texture index).
 *
 * The grid's twins are welded all or none (twins_weldable): none when a
 * pair is further apart than twice the tolerance (a grid solved with its
 * seams open, say), so that no vertex moves more than the tolerance, or
 * when a twin lies next to a seam vertex whose seam has a length (a seam
 * of no length for only part of its way), where a strip would have to
 * start from a welded vertex.  The strip then joins them as any seam. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam_link.h"
#include "simplify.h"

/* The output vertex of grid vertex v, or -1 (vgrid is ascending). */
static int vertex_of(const struct simple_mesh *m, uint32_t v)
{
	int lo = 0, hi = m->nverts - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (m->vgrid[mid] == v)
			return mid;
		if (m->vgrid[mid] < v)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The distance between grid vertices a and b. */
static double apart(const struct surface *s, uint32_t a, uint32_t b)
{
	double d = 0;
	for (int k = 0; k < 3; k++) {
		double x = (double)s->x[3 * (size_t)a + k] - s->x[3 * (size_t)b + k];
		d += x * x;
	}
	return sqrt(d);
}

/* Whether twin v's seam neighbours of its panel (8-neighbourhood) all
 * have seams of no length too: a seam does not go on from v with a
 * length (a corner's vertex, sewn to a corner that is not, may end it). */
static int twin_run(const struct surface *s, size_t v)
{
	int i = (int)(v % (size_t)s->w), j = (int)(v / (size_t)s->w);
	for (int dj = -1; dj <= 1; dj++)
		for (int di = -1; di <= 1; di++) {
			int a = i + di, b = j + dj;
			if (a < 0 || b < 0 || a >= s->w || b >= s->h)
				continue;
			size_t q = (size_t)b * (size_t)s->w + (size_t)a;
			if ((s->mask[q] & MASK_SEAM) &&
			    (s->panel ? s->panel[q] == s->panel[v] : 1) &&
			    !seam_without_length(s->grid, s->seam, q))
				return 0;
		}
	return 1;
}

int twins_weldable(const struct surface *s, double within)
{
	size_t n = (size_t)s->w * (size_t)s->h;
	int any = 0;
	if (!s->seam)
		return 0;
	for (size_t v = 0; v < n; v++) {
		size_t t = seam_twin(s->grid, s->mask, s->seam, v);
		if (t == SIZE_MAX)
			continue;
		any = 1;
		if (apart(s, (uint32_t)v, (uint32_t)t) > within ||
		    !twin_run(s, v))
			return -1;
	}
	return any;
}

/* One of every twin pair: rep[k] is the vertex k is welded onto (k when
 * none, the lower index of a pair otherwise); returns the pairs. */
static int find_twins(const struct simple_mesh *m, const struct surface *s,
		      int *rep)
{
	int n = 0;
	for (int k = 0; k < m->nverts; k++)
		rep[k] = k;
	if (!s->seam || s->weld <= 0)
		return 0;
	for (int k = 0; k < m->nverts; k++) {
		size_t t = seam_twin(s->grid, s->mask, s->seam, m->vgrid[k]);
		int j = t == SIZE_MAX ? -1 : vertex_of(m, (uint32_t)t);
		if (j > k) {
			rep[j] = k;
			n++;
		}
	}
	return n;
}

/* The welded vertex's position and normal from its two grid vertices. */
static void weld_point(const struct surface *s, uint32_t a, uint32_t b,
		       float *pos, float *normal)
{
	float na[3], nb[3];
	double len = 0;
	surface_normal(s, a, na);
	surface_normal(s, b, nb);
	for (int k = 0; k < 3; k++) {
		pos[k] = 0.5f * (s->x[3 * (size_t)a + k] + s->x[3 * (size_t)b + k]);
		normal[k] = na[k] + nb[k];
		len += (double)normal[k] * normal[k];
	}
	/* two sides folded back on each other: one side's normal */
	if (len < 0.25)
		memcpy(normal, na, sizeof na);
	else
		for (int k = 0; k < 3; k++)
			normal[k] = (float)(normal[k] / sqrt(len));
}

void mesh_weld_point(const struct simple_mesh *m, const struct surface *s,
		     int k)
{
	weld_point(s, m->vgrid[k], m->vtwin[k], m->pos[k], m->normal[k]);
}

/* The triangles mapped through index, each corner that was a twin
 * flagged (bit c of m->twin_corner). */
static void map_triangles(struct simple_mesh *m, const int *rep,
			  const int *index)
{
	m->twin_corner = xmalloc_array((size_t)m->ntris + 1,
				       sizeof *m->twin_corner);
	m->nflagged = m->ntris;
	for (int t = 0; t < m->ntris; t++) {
		m->twin_corner[t] = 0;
		for (int c = 0; c < 3; c++) {
			int k = m->tris[t][c];
			m->twin_corner[t] |= (uint8_t)((rep[k] != k) << c);
			m->tris[t][c] = index[k];
		}
	}
}

void mesh_weld_twins(struct simple_mesh *m, const struct surface *s,
		     struct zip_stats *st)
{
	int *rep = xmalloc_array((size_t)m->nverts + 1, sizeof *rep);
	int pairs = find_twins(m, s, rep);
	if (!pairs) {
		free(rep);
		return;
	}
	/* the new numbering: welded vertices go, the others close up */
	int *index = xmalloc_array((size_t)m->nverts + 1, sizeof *index);
	int nv = 0;
	for (int k = 0; k < m->nverts; k++)
		index[k] = rep[k] == k ? nv++ : -1;
	for (int k = 0; k < m->nverts; k++)
		index[k] = index[rep[k]];
	map_triangles(m, rep, index);
	m->vtwin = xmalloc_array((size_t)nv + 1, sizeof *m->vtwin);
	m->uv2 = xmalloc_array((size_t)nv + 1, sizeof *m->uv2);
	for (int k = 0; k < nv; k++)
		m->vtwin[k] = UINT32_MAX;
	for (int k = 0; k < m->nverts; k++) {
		int to = index[k];
		if (rep[k] != k) {
			m->vtwin[to] = m->vgrid[k];
			memcpy(m->uv2[to], m->uv[k], sizeof m->uv2[to]);
			continue;
		}
		m->vgrid[to] = m->vgrid[k];
		memcpy(m->pos[to], m->pos[k], sizeof m->pos[to]);
		memcpy(m->normal[to], m->normal[k], sizeof m->normal[to]);
		memcpy(m->uv[to], m->uv[k], sizeof m->uv[to]);
	}
	m->nverts = nv;
	for (int k = 0; k < nv; k++)
		if (m->vtwin[k] != UINT32_MAX)
			mesh_weld_point(m, s, k);
	st->welded = pairs;
	free(index);
	free(rep);
}

/* Whether triangle t's corner c takes its vertex's second pattern
 * position, its twin's: where a panel's triangle had the twin as that
 * corner; on a strip triangle (after them, made from welded vertices),
 * the position nearer the triangle's other corners that are not
 * welded, though there the panel does not matter. */
static int second_uv(const struct simple_mesh *m, int t, int c)
{
	int k = m->tris[t][c];
	if (!m->vtwin || m->vtwin[k] == UINT32_MAX)
		return 0;
	if (t < m->nflagged)
		return m->twin_corner[t] >> c & 1;
	double own = 0, twin = 0;
	for (int d = 0; d < 3; d++) {
		int j = m->tris[t][d];
		if (d == c || m->vtwin[j] != UINT32_MAX)
			continue;
		for (int x = 0; x < 2; x++) {
			own += fabs((double)m->uv[j][x] - m->uv[k][x]);
			twin += fabs((double)m->uv[j][x] - m->uv2[k][x]);
		}
	}
	return twin < own;
}

void mesh_texture_corners(const struct simple_mesh *m, struct mesh_uv *u)
{
	int extra = 0;
	memset(u, 0, sizeof *u);
	for (int k = 0; m->vtwin && k < m->nverts; k++)
		extra += m->vtwin[k] != UINT32_MAX;
	if (!extra)
		return;
	u->n = m->nverts + extra;
	u->uv = xmalloc_array((size_t)u->n, sizeof *u->uv);
	u->vertex = xmalloc_array((size_t)u->n, sizeof *u->vertex);
	int *second = xmalloc_array((size_t)m->nverts, sizeof *second);
	memcpy(u->uv, m->uv, (size_t)m->nverts * sizeof *u->uv);
	int n = m->nverts;
	for (int k = 0; k < m->nverts; k++) {
		u->vertex[k] = k;
		second[k] = -1;
		if (m->vtwin[k] == UINT32_MAX)
			continue;
		memcpy(u->uv[n], m->uv2[k], sizeof u->uv[n]);
		u->vertex[n] = k;
		second[k] = n++;
	}
	u->tris = xmalloc_array((size_t)m->ntris + 1, sizeof *u->tris);
	for (int t = 0; t < m->ntris; t++)
		for (int c = 0; c < 3; c++) {
			int k = m->tris[t][c];
			u->tris[t][c] = second_uv(m, t, c) ? second[k] : k;
		}
	free(second);
}

void mesh_uv_free(struct mesh_uv *u)
{
	free(u->uv);
	free(u->vertex);
	free(u->tris);
	memset(u, 0, sizeof *u);
}

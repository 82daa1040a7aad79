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
#include "seam_strip.h"
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

size_t mesh_intersections(const struct simple_mesh *m)
{
	uint32_t *pairs = NULL;
	size_t n = mesh_pairs(m, &pairs);
	free(pairs);
	return n;
}

/* The strip's rungs flipped (seam_strip_flip) where pairs[0..2n) cross:
 * taken over and freed. */
static size_t flip_strips(struct simple_mesh *m, const struct surface *s,
			  int first, uint32_t *pairs, size_t n, int *flips)
{
	return seam_strip_flip(m->tris, m->ntris, first,
			       (const float (*)[3])m->pos, m->vgrid, s->panel,
			       pairs, n, flips);
}

size_t mesh_untangle(struct simple_mesh *m, struct qtree *q,
		     const struct surface *s, int close_seams, int flip,
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
		size_t split = qtree_split_at(q, corners, nv, s->w);
		free(corners);
		if (split == 0 && flip && close_seams)
			/* the pairs just counted are the flips' first round's */
			return flip_strips(m, s, m->ntris - zs->strip - zs->holes,
					   pairs, n, &zs->flips);
		free(pairs);
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

size_t mesh_flip_strips(struct simple_mesh *m, const struct surface *s,
			int first, int *flips)
{
	uint32_t *pairs = NULL;
	size_t n = mesh_pairs(m, &pairs);
	return flip_strips(m, s, first, pairs, n, flips);
}

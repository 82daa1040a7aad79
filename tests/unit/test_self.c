/* test_self - measurements for tests/self.bats.
 *
 *   test_self far GRID   the intersecting triangle pairs of the first
 *        grid's positions (x, or rest when it has no x), those sharing a
 *        corner included (as pleat-collide counts them), and how many of
 *        them are "far": no corner of one triangle is a grid neighbour of
 *        a corner of the other by collide_excluded's rule.  Only far pairs
 *        are the repulsion's to prevent: a pair with a corner in the other
 *        triangle's 5 x 5 square or across a seam from it never repels
 *        (collide.h), so the folds that make those intersections are left
 *        to the cloth's own energies.  Prints "intersecting N far F".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collide.h"
#include "grid.h"
#include "proximity.h"

static void fail(const char *msg)
{
	fprintf(stderr, "test_self: %s\n", msg);
	exit(1);
}

/* Whether any corner of triangle t and any corner of u never repel. */
static int near_pair(const struct collide_site *site, const uint32_t *t,
		     const uint32_t *u)
{
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			if (collide_excluded(&site[t[a]], &site[u[b]]))
				return 1;
	return 0;
}

static int far(const char *path)
{
	struct grid g;
	struct proximity pr;
	struct error e;
	if (grid_load(path, &g, &e))
		fail(e.msg);
	const struct grid_channel *x = grid_find_typed(&g, "x", GRID_F32, 3);
	if (!x && !(x = grid_find_typed(&g, "rest", GRID_F32, 3)))
		fail("the grid has neither x nor rest (f32 x 3)");
	const struct grid_channel *panel = grid_find_typed(&g, "panel", GRID_U16, 1);
	/* the proximity set-up gives every vertex its exclusion site */
	if (proximity_init(&pr, &g, 1, &e))
		fail(e.msg);
	uint32_t *tri, *pairs;
	size_t nt = grid_triangles(g.width, g.height,
				   grid_find(&g, "mask")->data,
				   panel ? panel->data : NULL, &tri);
	size_t n = count_intersections(x->data, tri, nt, &pairs), nfar = 0;
	for (size_t q = 0; q < n; q++)
		nfar += !near_pair(pr.site, tri + 3 * (size_t)pairs[2 * q],
				   tri + 3 * (size_t)pairs[2 * q + 1]);
	n += count_adjacent_intersections(x->data, tri, nt, NULL);
	printf("intersecting %zu far %zu\n", n, nfar);
	free(tri);
	free(pairs);
	proximity_free(&pr);
	grid_free(&g);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "far") == 0)
		return far(argv[2]);
	fprintf(stderr, "usage: test_self far GRID\n");
	return 2;
}

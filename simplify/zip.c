/* zip.c - the seams of the simplified mesh closed by construction: the
 * twins welded (weld.c), then the strip and the holes of seam_strip.h
 * appended to the panels' triangles.  No vertex moves.
 *
 * A sequence's frames share one topology: what the pattern leaves open
 * is decided on the first frame. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seam_strip.h"
#include "simplify.h"

int mesh_zip_seams(struct simple_mesh *m, const struct surface *s,
		   struct zip_stats *st, struct error *e)
{
	memset(st, 0, sizeof *st);
	mesh_weld_twins(m, s, st);
	struct strip_mesh sm = {m->nverts, m->ntris, m->vgrid,
				(const int (*)[3])m->tris,
				(const float (*)[3])m->pos};
	struct seam_grid sg = {s->grid, s->mask, s->panel, s->seam};
	struct seam_strip strip;
	seam_strip_build(&strip, &sm, &sg);
	int added = strip.nstrip + strip.nholes;
	if ((long)added > (long)INT32_MAX - m->ntris) {
		seam_strip_free(&strip);
		return error_set(e, "the seams need more triangles than a mesh "
				 "file holds");
	}
	if (added) {
		m->tris = xrealloc_array(m->tris, (size_t)m->ntris + (size_t)added,
					 sizeof *m->tris);
		memcpy(m->tris + m->ntris, strip.tris,
		       (size_t)added * sizeof *strip.tris);
		m->ntris += added;
	}
	st->chains = strip.chains;
	st->strip = strip.nstrip;
	st->holes = strip.nholes;
	st->open_edges = strip.open_edges;
	seam_strip_free(&strip);
	return 0;
}

/* unit.h - the helpers the unit test programs share: a grid loaded from
 * a file and a channel that must be there, each exiting 1 with a message
 * when it is not. */
#ifndef PLEAT_TESTS_UNIT_H
#define PLEAT_TESTS_UNIT_H

#include <stdio.h>
#include <stdlib.h>

#include "grid.h"
#include "util.h"

static inline void load(const char *path, struct grid *g)
{
	struct error e;
	if (grid_load(path, g, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		exit(1);
	}
}

static inline void *channel(const struct grid *g, const char *name,
			    enum grid_type t, int comps)
{
	struct grid_channel *c = grid_find_typed(g, name, t, comps);
	if (!c) {
		fprintf(stderr, "no channel %s\n", name);
		exit(1);
	}
	return c->data;
}

#endif

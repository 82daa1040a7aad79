/* gather.h - the gathering tensor field (Wang 2021, section 6.2).
 *
 * The grid channel "gather" (f32 x 3) holds at every vertex the symmetric
 * 2x2 tensor S = [[sxx, sxy], [sxy, syy]] in the pattern's (u, v) axes,
 * stored as (sxx, sxy, syy).  pleat-solve builds the elastic rest shape
 * from it: a rest edge between vertices i and j is (S_i + S_j)/2 (r_j - r_i)
 * (Eq. 13; energy_tmpl.h has the arithmetic).  The identity (1, 0, 1)
 * means no gathering; S = 0.5 along a direction halves the fabric's rest
 * length along it. */
#ifndef PLEAT_GATHER_H
#define PLEAT_GATHER_H

#include "grid.h"
#include "util.h"

#define GATHER_CHANNEL "gather"

/* Why (sxx, sxy, syy) is not a usable tensor: "not finite", "not
 * positive definite", or NULL when it is one. */
const char *gather_tensor_fault(double sxx, double sxy, double syy);

/* The grid's gather channel checked: f32 x 3, a finite positive definite
 * tensor at every cloth (inside) vertex; *data its values, NULL when the
 * grid has no such channel.  Returns 0, or -1 with e naming the channel
 * and the first bad vertex (i, j). */
int gather_channel(const struct grid *g, const float **data, struct error *e);

#endif

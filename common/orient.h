/* orient.h - the floating-point filter of the orientation predicate,
 * shared by the cloth's exact intersection tests (proximity.c) and the
 * body's segment walk (body.c). */
#ifndef PLEAT_ORIENT_H
#define PLEAT_ORIENT_H

#include <math.h>

/* The sign of det[ad; bd; cd] (the differences a - d, b - d, c - d of an
 * orientation test, computed in double) when the double evaluation
 * decides it, else 0: Shewchuk's error bound for it, (7 + 56 eps) eps
 * times the permanent, eps = 2^-53, which also covers rounded
 * differences.  det[a - d; b - d; c - d] is positive when d is on the
 * back of triangle abc (the side its counter-clockwise normal points
 * away from). */
static inline int orient3d_filter(const double ad[3], const double bd[3],
				  const double cd[3])
{
	double bc = bd[0] * cd[1] - cd[0] * bd[1];
	double ca = cd[0] * ad[1] - ad[0] * cd[1];
	double ab = ad[0] * bd[1] - bd[0] * ad[1];
	double det = ad[2] * bc + bd[2] * ca + cd[2] * ab;
	double perm = (fabs(bd[0] * cd[1]) + fabs(cd[0] * bd[1])) * fabs(ad[2]) +
		      (fabs(cd[0] * ad[1]) + fabs(ad[0] * cd[1])) * fabs(bd[2]) +
		      (fabs(ad[0] * bd[1]) + fabs(bd[0] * ad[1])) * fabs(cd[2]);
	const double eps = 1.1102230246251565e-16;
	double bound = (7.0 + 56.0 * eps) * eps * perm;
	return det > bound ? 1 : det < -bound ? -1 : 0;
}

#endif

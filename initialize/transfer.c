/* transfer.c - the previous frame's wrinkles as the starting guess of
 * the current frame (temporal coherence, paper section 6.1).
 *
 * The wrinkles of the previous result, d = x - rest, are expressed in the
 * local frames of its coarse surface, w = F_prev d, and put back in the
 * current frames: x = rest + F_cur^T w.  The coarse motion between the
 * frames (a turn of the torso, a swing of a skirt) turns the frames, so
 * the wrinkles turn with the cloth instead of keeping their world
 * directions, as a plain difference would. */
#include "initialize.h"

int transfer(struct grid *cur, const struct grid *prev,
	     const float *prev_x, size_t *plain, struct error *e)
{
	struct frame_field fc, fp;
	float *x;
	if (frame_field_init(&fc, cur, e) || frame_field_init(&fp, prev, e) ||
	    !(x = x_at_rest(cur, e)))
		return -1;
	size_t without = 0;
	#pragma omp parallel for schedule(static) reduction(+: without)
	for (int j = 0; j < fc.h; j++)
		for (int i = 0; i < fc.w; i++) {
			size_t v = (size_t)j * (size_t)fc.w + (size_t)i;
			double ap[3][3], ac[3][3], d[3], w[3];
			if (!(fc.mask[v] & MASK_INSIDE))
				continue;
			without += !frame_pair(&fp, &fc, i, j, ap, ac);
			frame_displacement(&fp, prev_x, v, d);
			frame_to_local(ap, d, w);
			frame_to_world(ac, w, d);
			for (int k = 0; k < 3; k++)
				x[3 * v + k] = (float)(fc.rest[3 * v + k] + d[k]);
		}
	*plain = without;
	return 0;
}

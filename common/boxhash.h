/* boxhash.h - a spatial hash of axis-aligned boxes (triangles' boxes),
 * for the searches that pair boxes which overlap: the intersection count
 * (proximity.c) and the step bounds of --safe (safe.c).
 *
 * Each box is entered in every cell it overlaps.  The cell is twice the
 * mean box, at least an eighth of the largest (so that no box is in more
 * than about 10^3 cells), and large enough that the boxes span fewer
 * than 2^30 cells each way.  To find the boxes overlapping box b, visit
 * the cells of boxhash_range(b), the entries of each cell's bucket with
 * the cell's coordinates, and keep those that tribox_overlap b; a pair
 * is met in every cell both share, and boxhash_home picks one of them.
 * The hash is built by all threads, and is the same for any number of
 * them (each bucket in triangle order).
 */
#ifndef PLEAT_BOXHASH_H
#define PLEAT_BOXHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tribox {
	float lo[3], hi[3];
};

/* A hash of the triangles' boxes: each triangle is entered in every cell
 * its box overlaps. */
struct boxhash {
	struct tribox bound;        /* of all the boxes */
	double origin[3], cell;
	size_t mask;
	size_t *start;
	struct boxhash_entry { int32_t c[3]; uint32_t tri; } *entry;
	int32_t (*low)[3];          /* each box's low corner's cell */
	/* what start, entry and low hold room for: a hash made again
	 * reuses them (first touches of fresh pages cost more than the
	 * hash's own work) */
	size_t start_cap, entry_cap, low_cap;
};

/* The hash of ntri boxes (their index is the entry's tri), in H zeroed
 * or made before (its storage reused). */
void boxhash_build(struct boxhash *H, const struct tribox *box, size_t ntri);
/* Frees H's storage and zeroes it. */
void boxhash_free(struct boxhash *H);
/* The cells box b overlaps, lo to hi along each axis. */
void boxhash_range(const struct boxhash *H, const struct tribox *b,
		   int32_t lo[3], int32_t hi[3]);
/* The bucket of cell c: entries H->start[q] .. H->start[q + 1]. */
size_t boxhash_bucket(const int32_t c[3], size_t mask);
int tribox_overlap(const struct tribox *a, const struct tribox *b);
/* Whether cell c is where the pair of overlapping boxes is taken: the
 * cell of the low corner of their overlap, from the cells of the two
 * boxes' low corners, alow and blow (the cell of a larger coordinate is
 * never lower, so the overlap's corner, the larger of the two low
 * corners, is in the larger of their cells). */
static inline int boxhash_home(const int32_t alow[3], const int32_t blow[3],
			       const int32_t c[3])
{
	for (int k = 0; k < 3; k++)
		if ((alow[k] > blow[k] ? alow[k] : blow[k]) != c[k])
			return 0;
	return 1;
}
/* Calls fn(u, arg) once for every box u >= from of box[] (the boxes of
 * the hash) that overlaps box b, and returns the sum of what it
 * returned.  Inline, so that a search's own fn is inlined into its
 * loop. */
static inline size_t boxhash_visit(const struct boxhash *H,
				   const struct tribox *box,
				   const struct tribox *b, uint32_t from,
				   size_t (*fn)(uint32_t u, void *arg),
				   void *arg)
{
	int32_t lo[3], hi[3], c[3];
	size_t sum = 0;
	boxhash_range(H, b, lo, hi);
	for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
		for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
			for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
				size_t q = boxhash_bucket(c, H->mask);
				for (size_t e = H->start[q]; e < H->start[q + 1]; e++) {
					uint32_t u = H->entry[e].tri;
					if (u >= from && !memcmp(H->entry[e].c, c, sizeof c) &&
					    tribox_overlap(b, &box[u]) &&
					    boxhash_home(lo, H->low[u], c))
						sum += fn(u, arg);
				}
			}
	return sum;
}

#endif

/* test_intersect - an independent count of a mesh's intersecting
 * triangle pairs and of its edges' use, for the tests of clean geometry.
 *
 *   test_intersect pairs OBJ [N] intersecting triangle pairs, all and
 *                                those that share a vertex; the first N
 *                                pairs listed (face numbers from 1)
 *   test_intersect edges OBJ     edges used by one, two (in opposite
 *                                directions) or other numbers of triangles
 *
 * Nothing here comes from pleat: its own OBJ reader, its own predicates,
 * exact.  Positions are read as the float32 values pleat writes (%.9g
 * round-trips them); vertices at identical positions are one vertex.
 * Every predicate is the sign of a determinant evaluated in integers
 * (GMP), each float scaled by 2^149 to an integer, so no rounding
 * decides anything.
 *
 * Two triangles intersect when their closed point sets meet beyond what
 * they share: with no common vertex, in any point; with one, in a point
 * other than it (then an edge opposite the shared vertex meets the other
 * triangle); with a common edge, when they are coplanar and on the same
 * side of it (a fold flat onto itself); with all three, always.
 * Triangles whose corners are collinear are counted apart and left out.
 * Candidate pairs come from a sweep over bounding boxes, which prunes
 * only pairs whose closed boxes are disjoint. */
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *msg, const char *what)
{
	fprintf(stderr, "test_intersect: %s%s\n", msg, what ? what : "");
	exit(1);
}

/* ---- the mesh ----------------------------------------------------------- */

struct mesh {
	float (*v)[3];
	int nv;
	int (*t)[3];
	int nt;
};

static void load(const char *path, struct mesh *m)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int cv = 0, ct = 0;
	if (!f)
		fail("cannot open ", path);
	memset(m, 0, sizeof *m);
	while (fgets(line, sizeof line, f)) {
		if (line[0] == 'v' && line[1] == ' ') {
			double x, y, z;
			if (sscanf(line + 2, "%lf %lf %lf", &x, &y, &z) != 3)
				fail("a bad v line in ", path);
			if (m->nv == cv)
				m->v = realloc(m->v, (size_t)(cv = cv ? 2 * cv : 4096) *
					       sizeof *m->v);
			m->v[m->nv][0] = (float)x;
			m->v[m->nv][1] = (float)y;
			m->v[m->nv][2] = (float)z;
			m->nv++;
		} else if (line[0] == 'f' && line[1] == ' ') {
			int idx[3], n = 0;
			char *p = line + 2, *end;
			while (n < 4) {
				long k = strtol(p, &end, 10);
				if (end == p)
					break;
				if (n == 3)
					fail("a face with more than three corners in ", path);
				idx[n++] = (int)(k > 0 ? k - 1 : m->nv + k);
				p = end;
				while (*p && *p != ' ' && *p != '\t' && *p != '\n')
					p++;
			}
			if (n != 3)
				fail("a face with fewer than three corners in ", path);
			if (m->nt == ct)
				m->t = realloc(m->t, (size_t)(ct = ct ? 2 * ct : 4096) *
					       sizeof *m->t);
			memcpy(m->t[m->nt++], idx, sizeof idx);
		}
	}
	fclose(f);
	for (int t = 0; t < m->nt; t++)
		for (int c = 0; c < 3; c++)
			if (m->t[t][c] < 0 || m->t[t][c] >= m->nv)
				fail("a face index out of range in ", path);
}

static void mesh_free(struct mesh *m)
{
	free(m->v);
	free(m->t);
}

static const struct mesh *order_mesh;

static int by_position(const void *x, const void *y)
{
	const float *a = order_mesh->v[*(const int *)x],
		    *b = order_mesh->v[*(const int *)y];
	for (int k = 0; k < 3; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* Vertices at one position become the first of them. */
static void weld(struct mesh *m)
{
	int *ord = malloc((size_t)m->nv * sizeof *ord);
	int *to = malloc((size_t)m->nv * sizeof *to);
	for (int k = 0; k < m->nv; k++)
		ord[k] = k;
	order_mesh = m;
	qsort(ord, (size_t)m->nv, sizeof *ord, by_position);
	for (int k = 0; k < m->nv; k++)
		to[ord[k]] = k > 0 && by_position(&ord[k - 1], &ord[k]) == 0 ?
			     to[ord[k - 1]] : ord[k];
	for (int t = 0; t < m->nt; t++)
		for (int c = 0; c < 3; c++)
			m->t[t][c] = to[m->t[t][c]];
	free(ord);
	free(to);
}

/* ---- exact predicates ---------------------------------------------------- */

static mpz_t *X;           /* 3 integers a vertex: position 2^149 */
static mpz_t r[24];        /* scratch */

static int nexact;

static void exact_free(void)
{
	for (int k = 0; k < 3 * nexact; k++)
		mpz_clear(X[k]);
	for (int k = 0; k < 24; k++)
		mpz_clear(r[k]);
	free(X);
}

static void exact_positions(const struct mesh *m)
{
	nexact = m->nv;
	X = malloc((size_t)m->nv * 3 * sizeof *X);
	for (int k = 0; k < m->nv; k++)
		for (int c = 0; c < 3; c++) {
			mpz_init(X[3 * k + c]);
			mpz_set_d(X[3 * k + c], ldexp((double)m->v[k][c], 149));
		}
	for (int k = 0; k < 24; k++)
		mpz_init(r[k]);
}

/* The sign of det [b - a; c - a; d - a]. */
static int orient3(int a, int b, int c, int d)
{
	mpz_t *A = &X[3 * a], *B = &X[3 * b], *C = &X[3 * c], *D = &X[3 * d];
	for (int k = 0; k < 3; k++) {
		mpz_sub(r[k], B[k], A[k]);
		mpz_sub(r[3 + k], C[k], A[k]);
		mpz_sub(r[6 + k], D[k], A[k]);
	}
	/* r[0..2] u, r[3..5] v, r[6..8] w: u . (v x w) */
	mpz_mul(r[9], r[4], r[8]);
	mpz_submul(r[9], r[5], r[7]);
	mpz_mul(r[10], r[5], r[6]);
	mpz_submul(r[10], r[3], r[8]);
	mpz_mul(r[11], r[3], r[7]);
	mpz_submul(r[11], r[4], r[6]);
	mpz_mul(r[12], r[0], r[9]);
	mpz_addmul(r[12], r[1], r[10]);
	mpz_addmul(r[12], r[2], r[11]);
	return mpz_sgn(r[12]);
}

/* The axis to drop when projecting the plane of a, b, c: where its
 * normal's component is largest; -1 when they are collinear. */
static int drop_axis(int a, int b, int c)
{
	mpz_t *A = &X[3 * a], *B = &X[3 * b], *C = &X[3 * c];
	for (int k = 0; k < 3; k++) {
		mpz_sub(r[13 + k], B[k], A[k]);
		mpz_sub(r[16 + k], C[k], A[k]);
	}
	int best = -1;
	for (int k = 0; k < 3; k++) {
		int i = (k + 1) % 3, j = (k + 2) % 3;
		mpz_mul(r[19 + k], r[13 + i], r[16 + j]);
		mpz_submul(r[19 + k], r[13 + j], r[16 + i]);
		mpz_abs(r[19 + k], r[19 + k]);
		if (mpz_sgn(r[19 + k]) && (best < 0 ||
		    mpz_cmp(r[19 + k], r[19 + best]) > 0))
			best = k;
	}
	return best;
}

/* The sign of the 2D orientation of a, b, c with axis `drop` left out. */
static int orient2(int drop, int a, int b, int c)
{
	int i = (drop + 1) % 3, j = (drop + 2) % 3;
	mpz_sub(r[0], X[3 * b + i], X[3 * a + i]);
	mpz_sub(r[1], X[3 * b + j], X[3 * a + j]);
	mpz_sub(r[2], X[3 * c + i], X[3 * a + i]);
	mpz_sub(r[3], X[3 * c + j], X[3 * a + j]);
	mpz_mul(r[4], r[0], r[3]);
	mpz_submul(r[4], r[1], r[2]);
	return mpz_sgn(r[4]);
}

/* Whether c, collinear with a and b, lies within the closed box of a, b. */
static int between(int a, int b, int c)
{
	for (int k = 0; k < 3; k++) {
		int lo = mpz_cmp(X[3 * a + k], X[3 * b + k]) < 0 ? a : b;
		int hi = lo == a ? b : a;
		if (mpz_cmp(X[3 * c + k], X[3 * lo + k]) < 0 ||
		    mpz_cmp(X[3 * c + k], X[3 * hi + k]) > 0)
			return 0;
	}
	return 1;
}

/* Closed segments p q and a b in a plane, seen with axis drop left out. */
static int segments_meet(int drop, int p, int q, int a, int b)
{
	int o1 = orient2(drop, p, q, a), o2 = orient2(drop, p, q, b);
	int o3 = orient2(drop, a, b, p), o4 = orient2(drop, a, b, q);
	if (o1 * o2 < 0 && o3 * o4 < 0)
		return 1;
	return (o1 == 0 && between(p, q, a)) || (o2 == 0 && between(p, q, b)) ||
	       (o3 == 0 && between(a, b, p)) || (o4 == 0 && between(a, b, q));
}

static int in_triangle2(int drop, int p, int a, int b, int c)
{
	int s1 = orient2(drop, a, b, p), s2 = orient2(drop, b, c, p),
	    s3 = orient2(drop, c, a, p);
	return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}

/* Whether the closed segment p q meets the closed triangle a b c (not
 * collinear). */
static int segment_meets_triangle(int p, int q, int a, int b, int c)
{
	int s1 = orient3(a, b, c, p), s2 = orient3(a, b, c, q);
	if (s1 * s2 > 0)
		return 0;
	if (s1 == 0 && s2 == 0) {
		int d = drop_axis(a, b, c);
		return in_triangle2(d, p, a, b, c) || in_triangle2(d, q, a, b, c) ||
		       segments_meet(d, p, q, a, b) || segments_meet(d, p, q, b, c) ||
		       segments_meet(d, p, q, c, a);
	}
	int o1 = orient3(p, q, a, b), o2 = orient3(p, q, b, c),
	    o3 = orient3(p, q, c, a);
	return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

/* ---- pairs ----------------------------------------------------------------- */

static int intersect(const int *s, const int *t)
{
	int shared = 0, si = -1, ti = -1;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (s[i] == t[j]) {
				shared++;
				si = i;
				ti = j;
			}
	if (shared == 3)
		return 1;
	if (shared == 0) {
		for (int k = 0; k < 3; k++)
			if (segment_meets_triangle(s[k], s[(k + 1) % 3], t[0], t[1], t[2]) ||
			    segment_meets_triangle(t[k], t[(k + 1) % 3], s[0], s[1], s[2]))
				return 1;
		return 0;
	}
	if (shared == 1)
		return segment_meets_triangle(s[(si + 1) % 3], s[(si + 2) % 3],
					      t[0], t[1], t[2]) ||
		       segment_meets_triangle(t[(ti + 1) % 3], t[(ti + 2) % 3],
					      s[0], s[1], s[2]);
	/* a common edge u v: the corners a of s and b of t off it */
	int a = -1, b = -1;
	for (int i = 0; i < 3; i++) {
		if (s[i] != t[0] && s[i] != t[1] && s[i] != t[2])
			a = s[i];
		if (t[i] != s[0] && t[i] != s[1] && t[i] != s[2])
			b = t[i];
	}
	int u = -1, v = -1;
	for (int i = 0; i < 3; i++)
		if (s[i] != a && u < 0)
			u = s[i];
		else if (s[i] != a)
			v = s[i];
	if (orient3(u, v, a, b) != 0)
		return 0;
	int d = drop_axis(u, v, a);
	return orient2(d, u, v, a) * orient2(d, u, v, b) > 0;
}

struct box { float lo[3], hi[3]; int t; };

static int axis;

static int by_low(const void *x, const void *y)
{
	const struct box *a = x, *b = y;
	return (a->lo[axis] > b->lo[axis]) - (a->lo[axis] < b->lo[axis]);
}

static int pairs(const char *path, long list)
{
	struct mesh m;
	load(path, &m);
	weld(&m);
	exact_positions(&m);
	struct box *bx = malloc((size_t)m.nt * sizeof *bx + 1);
	float lo[3] = {INFINITY, INFINITY, INFINITY},
	      hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	int nb = 0;
	long degenerate = 0;
	for (int t = 0; t < m.nt; t++) {
		const int *c = m.t[t];
		if (c[0] == c[1] || c[1] == c[2] || c[0] == c[2] ||
		    drop_axis(c[0], c[1], c[2]) < 0) {
			degenerate++;
			continue;
		}
		struct box *b = &bx[nb++];
		b->t = t;
		for (int k = 0; k < 3; k++) {
			b->lo[k] = fminf(fminf(m.v[c[0]][k], m.v[c[1]][k]), m.v[c[2]][k]);
			b->hi[k] = fmaxf(fmaxf(m.v[c[0]][k], m.v[c[1]][k]), m.v[c[2]][k]);
			lo[k] = fminf(lo[k], b->lo[k]);
			hi[k] = fmaxf(hi[k], b->hi[k]);
		}
	}
	axis = 0;
	for (int k = 1; k < 3; k++)
		if (hi[k] - lo[k] > hi[axis] - lo[axis])
			axis = k;
	qsort(bx, (size_t)nb, sizeof *bx, by_low);
	long all = 0, sharing = 0, candidates = 0;
	for (int i = 0; i < nb; i++)
		for (int j = i + 1; j < nb && bx[j].lo[axis] <= bx[i].hi[axis]; j++) {
			int k;
			for (k = 0; k < 3; k++)
				if (bx[j].lo[k] > bx[i].hi[k] || bx[i].lo[k] > bx[j].hi[k])
					break;
			if (k < 3)
				continue;
			candidates++;
			const int *s = m.t[bx[i].t], *t = m.t[bx[j].t];
			if (!intersect(s, t))
				continue;
			if (all++ < list)
				printf("pair f%d f%d\n", bx[i].t + 1, bx[j].t + 1);
			int share = 0;
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++)
					share |= s[a] == t[b];
			sharing += share;
		}
	printf("triangles %d pairs %ld sharing_vertex %ld degenerate %ld "
	       "candidates %ld\n", m.nt, all, sharing, degenerate, candidates);
	free(bx);
	exact_free();
	mesh_free(&m);
	return 0;
}

/* ---- edges ----------------------------------------------------------------- */

static int by_edge(const void *x, const void *y)
{
	const long *a = x, *b = y;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

static int edges(const char *path)
{
	struct mesh m;
	load(path, &m);
	weld(&m);
	size_t n = 3 * (size_t)m.nt;
	long (*e)[3] = malloc(n * sizeof *e + 1);
	for (int t = 0; t < m.nt; t++)
		for (int c = 0; c < 3; c++) {
			long a = m.t[t][c], b = m.t[t][(c + 1) % 3];
			e[3 * t + c][0] = a < b ? a : b;
			e[3 * t + c][1] = a < b ? b : a;
			e[3 * t + c][2] = a < b;
		}
	qsort(e, n, sizeof *e, by_edge);
	long one = 0, two = 0, flipped = 0, more = 0;
	for (size_t k = 0; k < n;) {
		size_t j = k + 1;
		while (j < n && by_edge(e[k], e[j]) == 0)
			j++;
		if (j - k == 1)
			one++;
		else if (j - k == 2 && e[k][2] != e[k + 1][2])
			two++;
		else if (j - k == 2)
			flipped++;
		else
			more++;
		k = j;
	}
	printf("boundary %ld interior %ld flipped %ld nonmanifold %ld\n", one, two,
	       flipped, more);
	free(e);
	mesh_free(&m);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "pairs") == 0)
		return pairs(argv[2], argc == 4 ? atol(argv[3]) : 0);
	if (argc == 3 && strcmp(argv[1], "edges") == 0)
		return edges(argv[2]);
	fprintf(stderr, "usage: test_intersect pairs OBJ [N] | edges OBJ\n");
	return 2;
}

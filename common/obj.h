/* obj.h - Wavefront OBJ reader for coarse garments and bodies.
 *
 * Keeps, for every triangle corner, the pair (position index, texture
 * coordinate index): the texture coordinates of a garment are its sewing
 * pattern in metres, and a coarse vertex used with different texture
 * coordinates on two faces lies on a seam.
 *
 * Accepted: v, vt, f (triangles, quads and n-gons, fan-triangulated from
 * the first corner; v, v/vt, v//vn and v/vt/vn corners; negative indices
 * counted back from the end, as the format defines), and any other record
 * (vn, o, g, s, usemtl, mtllib, ARCSim's vv, ny, t ...) is skipped.
 * CRLF line ends, a missing final newline, blank lines and # comments are
 * fine.  Errors name the file and the line.  An index must refer to a
 * record read before the face (as the format requires), so that indices
 * can be checked while reading.
 */
#ifndef PLEAT_OBJ_H
#define PLEAT_OBJ_H

#include <stdio.h>

#include "util.h"

/* Hard limits: a file past them is refused with a clear error instead of
 * exhausting memory.  They are far above any coarse garment or body. */
#define OBJ_MAX_VERTICES  (1 << 26)   /* v and vt records, each */
#define OBJ_MAX_TRIANGLES (1 << 26)
#define OBJ_MAX_FACE_CORNERS 4096     /* corners of one polygon */
#define OBJ_MAX_BYTES ((size_t)1 << 31) /* whole file, read into memory */

struct obj_mesh {
	int nv;             /* positions */
	double (*v)[3];
	int nvt;            /* texture coordinates */
	double (*vt)[2];
	int ntri;           /* triangles after fan triangulation */
	int (*tri_v)[3];    /* 0-based position index of each corner */
	int (*tri_vt)[3];   /* 0-based texture index of each corner, -1 if none */
	int *tri_face;      /* 0-based index of the f record it came from */
	int nface;          /* f records read */
};

/* Reads an OBJ from f; name is used in messages ("-" or a path).  Returns 0
 * on success, -1 with e filled (message starts with the name) on error. */
int obj_read(struct obj_mesh *m, FILE *f, const char *name, struct error *e);

/* Reads from a memory buffer (fuzzing, tests); same semantics. */
int obj_read_mem(struct obj_mesh *m, const char *buf, size_t len,
		 const char *name, struct error *e);

/* Opens path ("-" means stdin, called "<stdin>" in messages) and reads
 * it.  An unopenable path gives "cannot open PATH: reason". */
int obj_load(struct obj_mesh *m, const char *path, struct error *e);

void obj_free(struct obj_mesh *m);

#endif

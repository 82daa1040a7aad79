/* meshio.h - triangle mesh writers: Wavefront OBJ and binary PLY.
 *
 * Both write positions, and, when given, texture coordinates (the pattern
 * position in metres) and per-vertex normals.  PLY is binary little endian
 * with float properties x y z [nx ny nz] [s t] and faces as a uchar count
 * and int indices, which Blender, MeshLab and Houdini read.
 */
#ifndef PLEAT_MESHIO_H
#define PLEAT_MESHIO_H

#include <stdio.h>

#include "util.h"

struct out_mesh {
	int nverts;
	const float (*pos)[3];
	const float (*uv)[2];     /* may be NULL */
	const float (*normal)[3]; /* may be NULL */
	int ntris;
	const int (*tris)[3];     /* 0-based */
	/* Texture coordinates per triangle corner, for vertices that have
	 * more than one (the two sides of a welded seam): uv then holds nuv
	 * of them, uv_vertex[k] the vertex of the k-th, uv_tris each
	 * triangle's corners.  NULL uv_tris: uv has one a vertex.  A PLY
	 * vertex has one, so PLY writes nuv vertices, one per coordinate
	 * (a welded vertex twice, at one position). */
	int nuv;
	const int *uv_vertex;
	const int (*uv_tris)[3];
};

/* Return 0, or -1 with e filled when writing fails (disk full...). */
int mesh_write_obj(FILE *f, const struct out_mesh *m, const char *name,
		   struct error *e);
int mesh_write_ply(FILE *f, const struct out_mesh *m, const char *name,
		   struct error *e);

#endif

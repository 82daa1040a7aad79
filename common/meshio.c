/* meshio.c - OBJ and binary PLY writers (see meshio.h).
 *
 * Triangle indices are checked before anything is written, so a bad mesh
 * never produces a file that other tools would misread.  Write errors are
 * found with ferror after a final fflush: stdio keeps the error flag, so
 * one check at the end catches a failure anywhere (a full disk, a closed
 * pipe).
 */
#include "meshio.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static int check_tris(const struct out_mesh *m, const char *name,
		      struct error *e)
{
	if (m->nverts < 0 || m->ntris < 0)
		return error_set(e, "%s: negative vertex or triangle count",
				 name);
	for (int t = 0; t < m->ntris; t++)
		for (int k = 0; k < 3; k++)
			if (m->tris[t][k] < 0 || m->tris[t][k] >= m->nverts)
				return error_set(e, "%s: triangle %d has vertex "
						 "index %d out of range (%d "
						 "vertices)", name, t,
						 m->tris[t][k], m->nverts);
	if (!m->uv_tris)
		return 0;
	for (int k = 0; k < m->nuv; k++)
		if (m->uv_vertex[k] < 0 || m->uv_vertex[k] >= m->nverts)
			return error_set(e, "%s: texture coordinate %d has vertex "
					 "%d out of range", name, k,
					 m->uv_vertex[k]);
	for (int t = 0; t < m->ntris; t++)
		for (int k = 0; k < 3; k++)
			if (m->uv_tris[t][k] < 0 || m->uv_tris[t][k] >= m->nuv ||
			    m->uv_vertex[m->uv_tris[t][k]] != m->tris[t][k])
				return error_set(e, "%s: triangle %d's texture "
						 "coordinate %d is not its vertex "
						 "%d's", name, t,
						 m->uv_tris[t][k], m->tris[t][k]);
	return 0;
}

static int finish(FILE *f, const char *name, struct error *e)
{
	errno = 0;
	if (fflush(f) != 0 || ferror(f)) {
		int err = errno;
		return error_set(e, "%s: write failed: %s", name,
				 err ? strerror(err) : "I/O error");
	}
	return 0;
}

/* Corner k of triangle t; the index form follows the attributes
 * present. */
static void obj_corner(FILE *f, const struct out_mesh *m, int t, int k)
{
	int i = m->tris[t][k] + 1;
	int vt = m->uv_tris ? m->uv_tris[t][k] + 1 : i;
	if (m->uv && m->normal)
		fprintf(f, " %d/%d/%d", i, vt, i);
	else if (m->uv)
		fprintf(f, " %d/%d", i, vt);
	else if (m->normal)
		fprintf(f, " %d//%d", i, i);
	else
		fprintf(f, " %d", i);
}

int mesh_write_obj(FILE *f, const struct out_mesh *m, const char *name,
		   struct error *e)
{
	if (check_tris(m, name, e) < 0)
		return -1;
	fprintf(f, "# written by pleat %s\n", PLEAT_VERSION);
	for (int i = 0; i < m->nverts; i++)
		fprintf(f, "v %.9g %.9g %.9g\n", m->pos[i][0], m->pos[i][1],
			m->pos[i][2]);
	int nuv = m->uv_tris ? m->nuv : m->nverts;
	for (int i = 0; m->uv && i < nuv; i++)
		fprintf(f, "vt %.9g %.9g\n", m->uv[i][0], m->uv[i][1]);
	for (int i = 0; m->normal && i < m->nverts; i++)
		fprintf(f, "vn %.9g %.9g %.9g\n", m->normal[i][0],
			m->normal[i][1], m->normal[i][2]);
	for (int t = 0; t < m->ntris; t++) {
		fputc('f', f);
		for (int k = 0; k < 3; k++)
			obj_corner(f, m, t, k);
		fputc('\n', f);
	}
	return finish(f, name, e);
}

/* Little-endian bytes whatever the host's order. */
static unsigned char *put_u32(unsigned char *p, uint32_t x)
{
	p[0] = (unsigned char)x;
	p[1] = (unsigned char)(x >> 8);
	p[2] = (unsigned char)(x >> 16);
	p[3] = (unsigned char)(x >> 24);
	return p + 4;
}

static unsigned char *put_floats(unsigned char *p, const float *x, int n)
{
	for (int i = 0; i < n; i++) {
		uint32_t b;
		memcpy(&b, &x[i], sizeof b);
		p = put_u32(p, b);
	}
	return p;
}

/* PLY's vertices: one per texture coordinate when a vertex has more. */
static int ply_vertices(const struct out_mesh *m)
{
	return m->uv && m->uv_tris ? m->nuv : m->nverts;
}

static void ply_header(FILE *f, const struct out_mesh *m)
{
	fprintf(f, "ply\nformat binary_little_endian 1.0\n"
		"comment written by pleat %s\n"
		"element vertex %d\n"
		"property float x\nproperty float y\nproperty float z\n",
		PLEAT_VERSION, ply_vertices(m));
	if (m->normal)
		fputs("property float nx\nproperty float ny\n"
		      "property float nz\n", f);
	if (m->uv)
		fputs("property float s\nproperty float t\n", f);
	fprintf(f, "element face %d\n"
		"property list uchar int vertex_indices\nend_header\n",
		m->ntris);
}

int mesh_write_ply(FILE *f, const struct out_mesh *m, const char *name,
		   struct error *e)
{
	unsigned char rec[32], *p;
	if (check_tris(m, name, e) < 0)
		return -1;
	ply_header(f, m);
	int split = m->uv && m->uv_tris;
	for (int k = 0; k < ply_vertices(m); k++) {
		int i = split ? m->uv_vertex[k] : k;
		p = put_floats(rec, m->pos[i], 3);
		if (m->normal)
			p = put_floats(p, m->normal[i], 3);
		if (m->uv)
			p = put_floats(p, m->uv[k], 2);
		fwrite(rec, 1, (size_t)(p - rec), f);
	}
	const int (*tris)[3] = split ? m->uv_tris : m->tris;
	for (int t = 0; t < m->ntris; t++) {
		p = rec;
		*p++ = 3;
		for (int k = 0; k < 3; k++)
			p = put_u32(p, (uint32_t)tris[t][k]);
		fwrite(rec, 1, (size_t)(p - rec), f);
	}
	return finish(f, name, e);
}

/* tangent.h - vertex normals and tangent frames of a coarse mesh, computed
 * the way renderers expect them for tangent-space normal maps.
 *
 * The tangent frames follow MikkTSpace (Morten Mikkelsen's algorithm, the
 * one Blender, Unity, Unreal, xNormal and Substance use), so that a map
 * baked with these frames is read back by those tools as intended.  A
 * shader rebuilds the frame at a point from the interpolated vertex normal
 * n and tangent t and the tangent's sign w: bitangent = w * cross(n, t).
 *
 * The mesh is taken as the triangles of an obj_mesh (the OBJ reader fans
 * larger polygons from their first corner; MikkTSpace splits a quad along
 * its shorter UV diagonal instead, so triangulate quads before export for
 * an exact match).  Corners are numbered 3 * triangle + k.
 */
#ifndef PLEAT_TANGENT_H
#define PLEAT_TANGENT_H

#include "obj.h"

/* Smooth vertex normals, one per position: the unit sum of the normals of
 * the triangles around it, each weighted by the triangle's angle at the
 * vertex (Blender's smooth shading).  A vertex of degenerate triangles
 * only gets a zero vector. */
void mesh_vertex_normals(const struct obj_mesh *m, double (*normal)[3]);

/* The normal of every corner: the smooth normal of its position, rounded
 * to float as a renderer holds it.  normal has 3 * m->ntri entries. */
void mesh_corner_normals(const struct obj_mesh *m, float (*normal)[3]);

/* MikkTSpace tangents of every corner, given the corner normals (unit
 * length, as a renderer would pass them): tangent[c] is the unit tangent
 * (x, y, z) and the bitangent sign w, +1 where the texture coordinates
 * keep the triangle's orientation and -1 where they mirror it.  Every
 * triangle needs texture coordinates (m->tri_vt >= 0). */
void mikk_tangents(const struct obj_mesh *m, const float (*normal)[3],
		   float (*tangent)[4]);

#endif

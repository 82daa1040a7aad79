/* vec.h - small vector math shared by the CPU and CUDA code.
 * Single precision, as the solver stores x; pleat's tests check gradients
 * in double through the separate dvec helpers where precision matters. */
#ifndef PLEAT_VEC_H
#define PLEAT_VEC_H

#include <math.h>

#include "hostdev.h"

typedef struct { float x, y, z; } vec3;
typedef struct { float x, y; } vec2;

PL_HD vec3 v3(float x, float y, float z) { vec3 r = {x, y, z}; return r; }
PL_HD vec3 v3_add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
PL_HD vec3 v3_sub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
PL_HD vec3 v3_scale(vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
PL_HD vec3 v3_madd(vec3 a, vec3 b, float s)
{
	return v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s);
}
PL_HD float v3_dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
PL_HD vec3 v3_cross(vec3 a, vec3 b)
{
	return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
		  a.x * b.y - a.y * b.x);
}
PL_HD float v3_norm2(vec3 a) { return v3_dot(a, a); }
PL_HD float v3_norm(vec3 a) { return sqrtf(v3_dot(a, a)); }
/* Unit vector, or zero for a zero vector (never NaN). */
PL_HD vec3 v3_normalize(vec3 a)
{
	float n = v3_norm(a);
	return n > 0.0f ? v3_scale(a, 1.0f / n) : v3(0.0f, 0.0f, 0.0f);
}
PL_HD vec3 v3_load(const float *p) { return v3(p[0], p[1], p[2]); }
PL_HD void v3_store(float *p, vec3 a) { p[0] = a.x; p[1] = a.y; p[2] = a.z; }

/* Double precision triple for host-side geometry (resampling, queries). */
typedef struct { double x, y, z; } dvec3;
PL_HD dvec3 d3(double x, double y, double z) { dvec3 r = {x, y, z}; return r; }
PL_HD dvec3 d3_add(dvec3 a, dvec3 b) { return d3(a.x + b.x, a.y + b.y, a.z + b.z); }
PL_HD dvec3 d3_sub(dvec3 a, dvec3 b) { return d3(a.x - b.x, a.y - b.y, a.z - b.z); }
PL_HD dvec3 d3_scale(dvec3 a, double s) { return d3(a.x * s, a.y * s, a.z * s); }
PL_HD double d3_dot(dvec3 a, dvec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
PL_HD dvec3 d3_cross(dvec3 a, dvec3 b)
{
	return d3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
		  a.x * b.y - a.y * b.x);
}
PL_HD double d3_norm(dvec3 a) { return sqrt(d3_dot(a, a)); }
PL_HD dvec3 d3_normalize(dvec3 a)
{
	double n = d3_norm(a);
	return n > 0.0 ? d3_scale(a, 1.0 / n) : d3(0.0, 0.0, 0.0);
}

#endif

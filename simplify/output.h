/* output.h - numbered output names and the PC2 point cache. */
#ifndef PLEAT_SIMPLIFY_OUTPUT_H
#define PLEAT_SIMPLIFY_OUTPUT_H

#include <stdio.h>

/* An output name may hold one printf-style %d conversion (with an
 * optional 0 flag and width: %d, %04d) that numbers the grids; %% is a
 * percent sign.  Returns 1 when name has the conversion, 0 when it has
 * none, -1 when it has another conversion or more than one. */
int name_numbered(const char *name);
/* name with its conversion replaced by k. */
void name_format(const char *name, long k, char *out, size_t size);

/* The PC2 point cache of Blender and 3ds Max, little endian: the 12
 * bytes "POINTCACHE2\0", int32 version 1, int32 points, float32 start
 * frame, float32 sample rate, int32 samples; then for every sample the
 * float32 x, y, z of every point.  Write errors show at the stream's
 * close. */
void pc2_header(FILE *f, int npoints, float start, float rate, int nsamples);
void pc2_sample(FILE *f, const float (*pos)[3], int npoints);

#endif

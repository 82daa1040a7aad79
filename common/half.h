/* half.h - IEEE 754 binary16 (the grid stream's f16) to and from float.
 * Round to nearest even; infinities, NaN and subnormals kept. */
#ifndef PLEAT_HALF_H
#define PLEAT_HALF_H

#include <stdint.h>
#include <string.h>

#include "hostdev.h"

PL_HD float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
	if (exp == 0x1f) {                  /* inf, NaN */
		bits = sign | 0x7f800000u | (man << 13);
	} else if (exp != 0) {              /* normal */
		bits = sign | ((exp + 112u) << 23) | (man << 13);
	} else if (man == 0) {              /* zero */
		bits = sign;
	} else {                            /* subnormal: normalise */
		int e = -1;
		do { man <<= 1; e++; } while (!(man & 0x400u));
		bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
	}
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

PL_HD uint16_t float_to_half(float f)
{
	uint32_t x;
	memcpy(&x, &f, sizeof x);
	uint32_t sign = (x >> 16) & 0x8000u;
	uint32_t ax = x & 0x7fffffffu;
	if (ax >= 0x7f800000u)              /* inf or NaN (keep a quiet NaN) */
		return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
	if (ax >= 0x477ff000u)              /* rounds past the largest half */
		return (uint16_t)(sign | 0x7c00u);
	if (ax < 0x38800000u) {             /* subnormal half or zero */
		if (ax < 0x33000000u)
			return (uint16_t)sign;
		uint32_t man = (ax & 0x7fffffu) | 0x800000u;
		int shift = 126 - (int)(ax >> 23); /* 14..24 */
		uint32_t h = man >> shift;
		uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1u)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((ax >> 13) - (112u << 10));
	uint32_t rem = ax & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
		h++;
	return (uint16_t)(sign | h);
}

#endif

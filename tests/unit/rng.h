/* rng.h - the unit tests' random numbers: small, deterministic
 * generators, each program keeping its own state (and so its own
 * sequence from its own seed). */
#ifndef PLEAT_TESTS_RNG_H
#define PLEAT_TESTS_RNG_H

#include <stdint.h>

/* Uniform in [-1, 1) from the top 53 bits of a 64-bit draw. */
static inline double rng_unit(uint64_t z)
{
	return (double)(z >> 11) / 4503599627370496.0 - 1.0;
}

/* xorshift64: state must not be 0. */
static inline double urand_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return rng_unit(*s);
}

/* splitmix64 */
static inline double urand_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return rng_unit(z);
}

#endif

/* Philox4x32-10 on the host (Salmon et al., SC11), the reference that tests check against the
 * published Random123 known-answer vectors and compare Loom's device streams with. */
#ifndef LOOM_TEST_PHILOX_REF_H
#define LOOM_TEST_PHILOX_REF_H

#include <stdint.h>

static inline void philox_ref(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4])
{
    uint32_t c[4] = {ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3]};
    uint32_t k0 = key_in[0], k1 = key_in[1];
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = (uint32_t)p1;
        c[2] = n2;
        c[3] = (uint32_t)p0;
    }
    for (int i = 0; i < 4; i++)
        out[i] = c[i];
}

/* Block `block` at draw `draw` of the stream keyed by seed (kernels/loom_random.cuh's layout:
 * counter {block low, block high, draw, 0}, key {seed low, seed high}). */
static inline void philox_block(uint64_t seed, uint64_t block, uint32_t draw, uint32_t out[4])
{
    const uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), draw, 0};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    philox_ref(ctr, key, out);
}

/* Random123's known answers for philox4x32_10 (kat_vectors). */
static const struct {
    uint32_t ctr[4], key[2], out[4];
} philox_kat[3] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

#endif

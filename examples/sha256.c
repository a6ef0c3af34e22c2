// SHA-256 (FIPS 180-4) of a 64-byte message: party A holds its first 32
// bytes, party B its last 32; both learn the 32-byte digest h[0..31] (the
// usual big-endian byte order, as sha256sum prints it). The message fills
// one 512-bit block exactly, so the padding (0x80, zeros, the length 512
// as a 64-bit big-endian integer) is a second, public block: two calls of
// the compression function, the second with a message schedule that is
// all constants. Ch and Maj are written in their one-AND-a-bit forms.
#include <stdint.h>

typedef struct {
    uint8_t m[32];
} Half;

typedef struct {
    uint8_t h[32];
} Digest;

// Section 4.2.2: the first 32 bits of the fractional parts of the cube
// roots of the first 64 primes.
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// Section 5.3.3: the initial hash value H(0).
static const uint32_t H0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

// Section 4.1.2's functions; rotations are shifts, free in the circuit.
// Ch and Maj are written in equivalent forms with one AND a bit instead of
// two and three: (x & y) ^ (~x & z) == z ^ (x & (y ^ z)), and
// (x & y) ^ (x & z) ^ (y & z) == (x & y) ^ (z & (x ^ y)).
static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t ch(uint32_t x, uint32_t y, uint32_t z)
{
    return z ^ (x & (y ^ z));
}

static uint32_t maj(uint32_t x, uint32_t y, uint32_t z)
{
    return (x & y) ^ (z & (x ^ y));
}

static uint32_t big_sigma0(uint32_t x)
{
    return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22);
}

static uint32_t big_sigma1(uint32_t x)
{
    return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25);
}

static uint32_t small_sigma0(uint32_t x)
{
    return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3);
}

static uint32_t small_sigma1(uint32_t x)
{
    return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10);
}

// Section 6.2.2: one block M[0..15] (big-endian words) into the hash value H.
static void compress(uint32_t H[8], const uint32_t M[16])
{
    uint32_t W[64];
    for (int t = 0; t < 16; t++)
        W[t] = M[t];
    for (int t = 16; t < 64; t++)
        W[t] = small_sigma1(W[t - 2]) + W[t - 7] + small_sigma0(W[t - 15]) + W[t - 16];

    uint32_t a = H[0], b = H[1], c = H[2], d = H[3];
    uint32_t e = H[4], f = H[5], g = H[6], h = H[7];
    for (int t = 0; t < 64; t++) {
        uint32_t T1 = h + big_sigma1(e) + ch(e, f, g) + K[t] + W[t];
        uint32_t T2 = big_sigma0(a) + maj(a, b, c);
        h = g;
        g = f;
        f = e;
        e = d + T1;
        d = c;
        c = b;
        b = a;
        a = T1 + T2;
    }
    H[0] += a;
    H[1] += b;
    H[2] += c;
    H[3] += d;
    H[4] += e;
    H[5] += f;
    H[6] += g;
    H[7] += h;
}

Digest mpc_main(Half INPUT_A, Half INPUT_B)
{
    uint32_t H[8];
    for (int i = 0; i < 8; i++)
        H[i] = H0[i];

    // Block 1: the 64 message bytes, A's then B's, as 16 big-endian words.
    uint32_t M[16];
    for (int i = 0; i < 8; i++) {
        M[i] = ((uint32_t)INPUT_A.m[4 * i] << 24) | ((uint32_t)INPUT_A.m[4 * i + 1] << 16)
             | ((uint32_t)INPUT_A.m[4 * i + 2] << 8) | (uint32_t)INPUT_A.m[4 * i + 3];
        M[8 + i] = ((uint32_t)INPUT_B.m[4 * i] << 24) | ((uint32_t)INPUT_B.m[4 * i + 1] << 16)
                 | ((uint32_t)INPUT_B.m[4 * i + 2] << 8) | (uint32_t)INPUT_B.m[4 * i + 3];
    }
    compress(H, M);

    // Block 2 (section 5.1.1): a 1 bit, zeros, and the length 512 in bits.
    for (int i = 0; i < 16; i++)
        M[i] = 0;
    M[0] = 0x80000000;
    M[15] = 512;
    compress(H, M);

    Digest r;
    for (int i = 0; i < 8; i++) {
        r.h[4 * i] = (uint8_t)(H[i] >> 24);
        r.h[4 * i + 1] = (uint8_t)(H[i] >> 16);
        r.h[4 * i + 2] = (uint8_t)(H[i] >> 8);
        r.h[4 * i + 3] = (uint8_t)H[i];
    }
    return r;
}

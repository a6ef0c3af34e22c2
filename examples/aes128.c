// AES-128 (FIPS-197): A's 16-byte key encrypts B's 16-byte plaintext block
// into OUTPUT_ciphertext. Data-oblivious: no table is read at a secret
// index; the S-box is computed (inversion in GF(2^8) through the tower
// fields GF((2^4)^2) and GF((2^2)^2), 36 AND gates an S-box), so the whole
// cipher is 200 S-boxes (160 in the rounds, 40 in the key schedule) and
// free XORs: 7,200 AND gates.
//
// Bytes are in FIPS-197 order (key[0] is the first key byte, the state is
// filled column by column); on the command line:
//   -i 'INPUT_A_key={0x00, 0x01, ..., 0x0f}' -i 'INPUT_B_plaintext={...}'
#include <stdint.h>

// GF(2^4) is GF(2)[y]/(y^4 + y + 1); GF(2^8) is GF(2^4)[z]/(z^2 + z + y^3),
// a byte h:l of the tower holding h*z + l. The AES field
// GF(2)[x]/(x^8 + x^4 + x^3 + x + 1) maps onto it by x -> 0x20 (a root of the
// AES polynomial in the tower): TO_TOWER[j] is the image of x^j.
// FROM_TOWER[j] is tower bit j mapped back and put through the linear part
// of the S-box's affine transformation.
#define LAMBDA 8
static const uint8_t TO_TOWER[8] = {0x01, 0x20, 0x46, 0x4c, 0x3c, 0xd5, 0x34, 0xe5};
static const uint8_t FROM_TOWER[8] = {0x1f, 0xb2, 0xab, 0x36, 0x52, 0x3e, 0x65, 0x60};

// Inversion in GF(2^4) goes one level further down: GF(2^4) is also
// GF(2^2)[w]/(w^2 + w + u) with GF(2^2) = GF(2)[u]/(u^2 + u + 1), a nibble
// h:l (two bits each) holding h*w + l; y -> 0x4 maps one onto the other
// (TO_PAIR[j] is the image of y^j, FROM_PAIR[j] that of bit j back).
#define NU 2
static const uint8_t TO_PAIR[4] = {0x1, 0x4, 0x6, 0xe};
static const uint8_t FROM_PAIR[4] = {0x1, 0x6, 0x2, 0xc};

// A GF(2)-linear map of an n-bit value: the XOR of the columns its bits
// select. The columns are public, so this is XOR gates only.
static uint8_t linear(uint8_t v, const uint8_t *columns, int n)
{
    uint8_t r = 0;
    for (int j = 0; j < n; j++)
        r ^= ((v >> j) & 1) ? columns[j] : 0;
    return r;
}

// The carry-less product of two polynomials of degree 1: 3 ANDs (Karatsuba).
static uint8_t clmul2(uint8_t a, uint8_t b)
{
    uint8_t lo = a & b & 1;
    uint8_t hi = (a >> 1) & (b >> 1) & 1;
    uint8_t mid = ((a ^ (a >> 1)) & (b ^ (b >> 1)) & 1) ^ lo ^ hi;
    return lo ^ (mid << 1) ^ (hi << 2);
}

// Product in GF(2^2): 3 ANDs, then reduction by u^2 = u + 1 (free).
static uint8_t gf4_mul(uint8_t a, uint8_t b)
{
    uint8_t p = clmul2(a, b);
    uint8_t h = p >> 2;
    return (p ^ h ^ (h << 1)) & 3;
}

// Square in GF(2^2), which is also the inverse of a non-zero element (free).
static uint8_t gf4_sq(uint8_t x)
{
    return ((x ^ (x >> 1)) & 1) ^ (x & 2);
}

// Product in GF(2^4): Karatsuba on 2-bit halves (9 ANDs), then reduction by
// y^4 = y + 1 (free).
static uint8_t gf16_mul(uint8_t a, uint8_t b)
{
    uint8_t lo = clmul2(a & 3, b & 3);
    uint8_t hi = clmul2(a >> 2, b >> 2);
    uint8_t mid = clmul2((a ^ (a >> 2)) & 3, (b ^ (b >> 2)) & 3) ^ lo ^ hi;
    uint8_t p = lo ^ (mid << 2) ^ (hi << 4);
    uint8_t h = p >> 4;
    return (p ^ h ^ (h << 1)) & 15;
}

// Square in GF(2^4): linear, so free.
static uint8_t gf16_sq(uint8_t x)
{
    uint8_t x1 = (x >> 1) & 1, x2 = (x >> 2) & 1, x3 = (x >> 3) & 1;
    return ((x & 1) ^ x2) ^ (x2 << 1) ^ ((x1 ^ x3) << 2) ^ (x3 << 3);
}

// Inverse in GF(2^4) (0 for 0), in GF((2^2)^2): 1/(h w + l) = (h w + h + l)
// * 1/d with d = h^2 u + h l + l^2, and 1/d = d^2 in GF(2^2): 9 ANDs.
static uint8_t gf16_inv(uint8_t x)
{
    uint8_t t = linear(x, TO_PAIR, 4);
    uint8_t h = t >> 2, l = t & 3;
    uint8_t d = gf4_mul(gf4_sq(h), NU) ^ gf4_mul(h, l) ^ gf4_sq(l);
    uint8_t di = gf4_sq(d);
    uint8_t inv = (gf4_mul(h, di) << 2) ^ gf4_mul(h ^ l, di);
    return linear(inv, FROM_PAIR, 4);
}

// The AES S-box: inversion in GF(2^8) (computed in the tower: 1/(h z + l) =
// (h z + h + l) / d with d = h^2 y^3 + h l + l^2), then the affine map.
static uint8_t sbox(uint8_t x)
{
    uint8_t t = linear(x, TO_TOWER, 8);
    uint8_t h = t >> 4, l = t & 15;
    uint8_t d = gf16_mul(gf16_sq(h), LAMBDA) ^ gf16_mul(h, l) ^ gf16_sq(l);
    uint8_t di = gf16_inv(d);
    uint8_t inv = (gf16_mul(h, di) << 4) ^ gf16_mul(h ^ l, di);
    return linear(inv, FROM_TOWER, 8) ^ 0x63;
}

// Multiplication by x in the AES field.
static uint8_t xtime(uint8_t b)
{
    return (uint8_t)(b << 1) ^ ((b >> 7) ? 0x1b : 0);
}

int main(void)
{
    uint8_t INPUT_A_key[16];
    uint8_t INPUT_B_plaintext[16];
    uint8_t OUTPUT_ciphertext[16];

    // Key expansion: 11 round keys of 16 bytes.
    uint8_t w[176];
    for (int i = 0; i < 16; i++)
        w[i] = INPUT_A_key[i];
    uint8_t rcon = 1;
    for (int i = 16; i < 176; i += 4) {
        uint8_t t[4];
        for (int k = 0; k < 4; k++)
            t[k] = w[i - 4 + k];
        if (i % 16 == 0) {
            uint8_t first = t[0];
            t[0] = sbox(t[1]) ^ rcon;
            t[1] = sbox(t[2]);
            t[2] = sbox(t[3]);
            t[3] = sbox(first);
            rcon = xtime(rcon);
        }
        for (int k = 0; k < 4; k++)
            w[i + k] = w[i - 16 + k] ^ t[k];
    }

    uint8_t s[16];
    for (int i = 0; i < 16; i++)
        s[i] = INPUT_B_plaintext[i] ^ w[i];
    for (int round = 1; round <= 10; round++) {
        // SubBytes and ShiftRows: row r of the state turns left by r.
        uint8_t u[16];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++)
                u[4 * c + r] = sbox(s[4 * ((c + r) % 4) + r]);
        // MixColumns (not in the last round), then AddRoundKey.
        for (int c = 0; c < 4; c++) {
            uint8_t *a = &u[4 * c];
            uint8_t all = a[0] ^ a[1] ^ a[2] ^ a[3];
            for (int r = 0; r < 4; r++) {
                uint8_t mixed = a[r] ^ all ^ xtime(a[r] ^ a[(r + 1) % 4]);
                uint8_t v = round < 10 ? mixed : a[r];
                s[4 * c + r] = v ^ w[16 * round + 4 * c + r];
            }
        }
    }
    for (int i = 0; i < 16; i++)
        OUTPUT_ciphertext[i] = s[i];
    return 0;
}

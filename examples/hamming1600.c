// Hamming distance of two 1600-bit strings (A's and B's, packed in 32-bit words), counted with a tree of additions.
#include <stdint.h>

#define NBITS 1600
#define WORDS ((NBITS + 31) / 32)

typedef struct {
    uint32_t w[WORDS];
} BitString;

int mpc_main(BitString INPUT_A, BitString INPUT_B)
{
    uint32_t count[NBITS];
    for (int i = 0; i < NBITS; i++)
        count[i] = ((INPUT_A.w[i / 32] ^ INPUT_B.w[i / 32]) >> (i % 32)) & 1;
    for (int step = 1; step < NBITS; step *= 2)
        for (int i = 0; i + step < NBITS; i += 2 * step)
            count[i] += count[i + step];
    return count[0];
}

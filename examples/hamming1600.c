// Hamming distance of two 1600-bit strings (A's and B's, packed in 50 32-bit words): the number of bit positions where they differ.
#include <stdint.h>

#define NBITS 1600
#define WORDS (NBITS / 32)

typedef struct {
    uint32_t w[WORDS];
} BitString;

int mpc_main(BitString INPUT_A, BitString INPUT_B)
{
    int dist = 0;
    for (int i = 0; i < NBITS; i++)
        dist += ((INPUT_A.w[i / 32] ^ INPUT_B.w[i / 32]) >> (i % 32)) & 1;
    return dist;
}

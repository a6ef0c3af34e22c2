// Hamming distance of two 900-bit strings (A's and B's, one _Bool per bit): the number of positions where they differ.
#define NBITS 900

typedef struct {
    _Bool bit[NBITS];
} BitString;

int mpc_main(BitString INPUT_A, BitString INPUT_B)
{
    int dist = 0;
    for (int i = 0; i < NBITS; i++)
        if (INPUT_A.bit[i] != INPUT_B.bit[i])
            dist++;
    return dist;
}

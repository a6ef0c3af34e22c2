// A 16-bin histogram of 4,096 values, each the XOR of A's and B's byte
// (low 4 bits): the bin loop only adds to lazy counts, so it is unrolled.
// Not among the examples the tests run.
#include <stdint.h>
#define N 4096
typedef struct { uint8_t v[N]; } Bytes;
typedef struct { int h[16]; } Hist;
Hist mpc_main(Bytes INPUT_A, Bytes INPUT_B)
{
    Hist r;
    for (int k = 0; k < 16; k++)
        r.h[k] = 0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 16; k++)
            if (((INPUT_A.v[i] ^ INPUT_B.v[i]) & 15) == k)
                r.h[k]++;
    return r;
}

// BioMatch (ParCC benchmark): the minimum squared Euclidean distance between B's sample and A's database of n=512 samples of degree d=4 (64-bit).
#include <stdint.h>

#define N 512
#define D 4

typedef struct {
    uint64_t db[N][D];
} Database;

typedef struct {
    uint64_t sample[D];
} Sample;

uint64_t mpc_main(Database INPUT_A, Sample INPUT_B)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < N; i++) {
        uint64_t dist = 0;
        for (int j = 0; j < D; j++) {
            uint64_t t = INPUT_A.db[i][j] - INPUT_B.sample[j];
            dist += t * t;
        }
        if (dist < best)
            best = dist;
    }
    return best;
}

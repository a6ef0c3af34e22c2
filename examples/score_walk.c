// A product between comparisons: party A's and party B's 8x8 matrices of
// 32-bit integers are multiplied (dot products: arithmetic sharing), then
// a score walks over 24 entries of the product, each step multiplying the
// score by an entry and folding it back when it exceeds 100. The walk's
// products read a word that comparisons made: in the arithmetic sharing
// each step costs two conversions and their rounds, so `--protocol auto`
// gives those products their garbled circuits where the network is slow
// (`twofold stats examples/score_walk.c --network wan`).
#include <stdint.h>

#define N 8
#define STEPS 24

typedef struct {
    int32_t m[N][N];
} Matrix;

typedef struct {
    int32_t product[N][N];
    int16_t score;
} Result;

Result mpc_main(Matrix INPUT_A, Matrix INPUT_B)
{
    Result r;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int32_t acc = 0;
            for (int k = 0; k < N; k++)
                acc += INPUT_A.m[i][k] * INPUT_B.m[k][j];
            r.product[i][j] = acc;
        }
    int16_t score = 1;
    for (int i = 0; i < STEPS; i++) {
        int16_t t = (int16_t)(score * (int16_t)r.product[i % N][(3 * i) % N]);
        score = t > 100 ? (int16_t)(t - 100) : (int16_t)(t + 7);
    }
    r.score = score;
    return r;
}

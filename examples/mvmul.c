// MVMul (ParCC benchmark): A's 16x16 matrix times B's 16-vector, 64-bit integers (wrapping), giving a 16-vector.
#include <stdint.h>

#define N 16

typedef struct {
    uint64_t m[N][N];
} Matrix;

typedef struct {
    uint64_t v[N];
} Vector;

Vector mpc_main(Matrix INPUT_A, Vector INPUT_B)
{
    Vector y;
    for (int i = 0; i < N; i++) {
        uint64_t acc = 0;
        for (int j = 0; j < N; j++)
            acc += INPUT_A.m[i][j] * INPUT_B.v[j];
        y.v[i] = acc;
    }
    return y;
}

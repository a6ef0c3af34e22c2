// 16x16 matrix multiplication: party A holds one matrix of 32-bit integers,
// party B the other; both learn the product A*B (int32_t, wrapping).
#include <stdint.h>

#define N 16

typedef struct {
    int32_t m[N][N];
} Matrix;

Matrix mpc_main(Matrix INPUT_A, Matrix INPUT_B)
{
    Matrix c;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int32_t acc = 0;
            for (int k = 0; k < N; k++)
                acc += INPUT_A.m[i][k] * INPUT_B.m[k][j];
            c.m[i][j] = acc;
        }
    return c;
}

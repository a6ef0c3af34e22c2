// 5x5 matrix multiplication of A's and B's matrices of 32-bit integers (wrapping).
#include <stdint.h>

#define N 5

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

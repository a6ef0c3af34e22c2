// Inner product of two 2,048-element vectors of 32-bit integers, one per
// party: the wide case of the parallel-scaling benchmarks (the loop is a
// region of 2,048 multiplications; `--no-regions` gives its flat form).
#define N 2048

typedef struct {
    int x[N];
} Vector;

int mpc_main(Vector INPUT_A, Vector INPUT_B)
{
    int sum = 0;
    for (int i = 0; i < N; i++)
        sum += INPUT_A.x[i] * INPUT_B.x[i];
    return sum;
}

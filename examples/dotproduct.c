// Dot product (ParCC Listing 2): the inner product of two vectors of 16 32-bit integers, one per party.
#define N 16

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

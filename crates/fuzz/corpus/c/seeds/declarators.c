#include <stdint.h>
typedef struct { int16_t x, y; } P;
typedef struct { int32_t m[3][4]; } M;

static int32_t trace(int32_t (*m)[4], int n)
{
    int32_t s = 0;
    for (int i = 0; i < n; i++) s += m[i][i];
    return s;
}

static int32_t norm1(P p) { return (p.x < 0 ? -p.x : p.x) + (p.y < 0 ? -p.y : p.y); }

int32_t mpc_main(int16_t INPUT_A[6], int32_t INPUT_B[3][4])
{
    int32_t (*row)[4] = INPUT_B;
    P *pp = &(P){ INPUT_A[0], 2 };
    pp->y += INPUT_A[5];
    int32_t s = trace(row, 3) + norm1(*pp) + (int32_t[]){ 1, INPUT_A[1], 3 }[1];
    s += (P){ .y = INPUT_A[2] }.y * (int32_t)sizeof(int32_t (*)[4]);
    char name[] = "ab" "c";
    _Static_assert(sizeof name == 4, "three and a NUL");
    return s + INPUT_A[4] + name[INPUT_A[3] & 1] + "xyz"[2];
}

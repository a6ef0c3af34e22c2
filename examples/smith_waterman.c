// Smith-Waterman local alignment score of A's and B's sequences of 60 residues (0..19, taken mod 20), affine gap penalty 12 + 7x for a gap of length x, BLOSUM62-style public score table.
#include <stdint.h>

#define N 60
#define NA 20
#define GAP_OPEN 12
#define GAP_EXTEND 7
#define NEG (-1000)
#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef struct {
    uint8_t s[N];
} Sequence;

/* Order A R N D C Q E G H I L K M F P S T W Y V. */
static const int8_t BLOSUM[NA][NA] = {
    { 4, -1, -2, -2,  0, -1, -1,  0, -2, -1, -1, -1, -1, -2, -1,  1,  0, -3, -2,  0},
    {-1,  5,  0, -2, -3,  1,  0, -2,  0, -3, -2,  2, -1, -3, -2, -1, -1, -3, -2, -3},
    {-2,  0,  6,  1, -3,  0,  0,  0,  1, -3, -3,  0, -2, -3, -2,  1,  0, -4, -2, -3},
    {-2, -2,  1,  6, -3,  0,  2, -1, -1, -3, -4, -1, -3, -3, -1,  0, -1, -4, -3, -3},
    { 0, -3, -3, -3,  9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1},
    {-1,  1,  0,  0, -3,  5,  2, -2,  0, -3, -2,  1,  0, -3, -1,  0, -1, -2, -1, -2},
    {-1,  0,  0,  2, -4,  2,  5, -2,  0, -3, -3,  1, -2, -3, -1,  0, -1, -3, -2, -2},
    { 0, -2,  0, -1, -3, -2, -2,  6, -2, -4, -4, -2, -3, -3, -2,  0, -2, -2, -3, -3},
    {-2,  0,  1, -1, -3,  0,  0, -2,  8, -3, -3, -1, -2, -1, -2, -1, -2, -2,  2, -3},
    {-1, -3, -3, -3, -1, -3, -3, -4, -3,  4,  2, -3,  1,  0, -3, -2, -1, -3, -1,  3},
    {-1, -2, -3, -4, -1, -2, -3, -4, -3,  2,  4, -2,  2,  0, -3, -2, -1, -2, -1,  1},
    {-1,  2,  0, -1, -3,  1,  1, -2, -1, -3, -2,  5, -1, -3, -1,  0, -1, -3, -2, -2},
    {-1, -1, -2, -3, -1,  0, -2, -3, -2,  1,  2, -1,  5,  0, -2, -1, -1, -1, -1,  1},
    {-2, -3, -3, -3, -2, -3, -3, -3, -1,  0,  0, -3,  0,  6, -4, -2, -2,  1,  3, -1},
    {-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4,  7, -1, -1, -4, -3, -2},
    { 1, -1,  1,  0, -1,  0,  0,  0, -1, -2, -2,  0, -1, -2, -1,  4,  1, -3, -2, -2},
    { 0, -1,  0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1,  1,  5, -2, -2,  0},
    {-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1,  1, -4, -3, -2, 11,  2, -3},
    {-2, -2, -2, -3, -2, -1, -2, -3,  2, -1, -1, -2, -1,  3, -3, -2, -2,  2,  7, -1},
    { 0, -3, -3, -3, -1, -2, -2, -3, -3,  3,  1, -2,  1, -1, -2, -2,  0, -3, -1,  4},
};

int mpc_main(Sequence INPUT_A, Sequence INPUT_B)
{
    uint8_t b[N];
    int hprev[N + 1], hcur[N + 1], f[N + 1];
    int best = 0;
    for (int j = 0; j < N; j++)
        b[j] = INPUT_B.s[j] % NA;
    for (int j = 0; j <= N; j++) {
        hprev[j] = 0;
        f[j] = NEG;
    }
    for (int i = 1; i <= N; i++) {
        uint8_t a = INPUT_A.s[i - 1] % NA;
        int row[NA];
        for (int c = 0; c < NA; c++)
            row[c] = BLOSUM[a][c];
        int e = NEG;
        hcur[0] = 0;
        for (int j = 1; j <= N; j++) {
            e = MAX(e - GAP_EXTEND, hcur[j - 1] - GAP_OPEN - GAP_EXTEND);
            f[j] = MAX(f[j] - GAP_EXTEND, hprev[j] - GAP_OPEN - GAP_EXTEND);
            int h = hprev[j - 1] + row[b[j - 1]];
            h = MAX(h, e);
            h = MAX(h, f[j]);
            h = MAX(h, 0);
            hcur[j] = h;
            best = MAX(best, h);
        }
        for (int j = 0; j <= N; j++)
            hprev[j] = hcur[j];
    }
    return best;
}

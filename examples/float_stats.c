// Statistics over float readings: party A holds 32 sensor readings, party B
// the 32 calibration offsets of the sensors; both learn the mean, the
// (sample) variance and the range of the calibrated readings, nothing else.
// IEEE-754 binary32 throughout, bit for bit as gcc computes it on x86-64.
#include <math.h>

#define N 32

typedef struct {
    float mean;
    float variance;
    float lo;
    float hi;
} Stats;

Stats mpc_main(float INPUT_A[N], float INPUT_B[N])
{
    float x[N];
    float sum = 0.0f;
    Stats s;
    s.lo = INFINITY;
    s.hi = -INFINITY;
    for (int i = 0; i < N; i++) {
        x[i] = INPUT_A[i] - INPUT_B[i];
        sum += x[i];
        s.lo = fminf(s.lo, x[i]);
        s.hi = fmaxf(s.hi, x[i]);
    }
    s.mean = sum / N;
    float sq = 0.0f;
    for (int i = 0; i < N; i++) {
        float d = x[i] - s.mean;
        sq += d * d;
    }
    s.variance = sq / (N - 1);
    return s;
}

// A fixed-point multilayer perceptron 16 -> 32 -> 10 scored in secret:
// party A holds the model (int16_t weights and biases, Q8 fixed point),
// party B holds the 16 features (int16_t, Q8); both learn only the class,
// the arg max of the 10 outputs (the first maximum on ties). Each layer
// accumulates exact products in int32_t, adds the bias scaled to Q16,
// shifts right by 8 (arithmetic) back to Q8; the hidden layer applies ReLU.
#include <stdint.h>

#define IN 16
#define HID 32
#define OUT 10

// The type the model and the features are held as (mlp32.c: int32_t).
#ifndef MLP_VALUE
#define MLP_VALUE int16_t
#endif

typedef struct {
    MLP_VALUE w1[HID][IN];
    MLP_VALUE b1[HID];
    MLP_VALUE w2[OUT][HID];
    MLP_VALUE b2[OUT];
} Model;

typedef struct {
    MLP_VALUE x[IN];
} Features;

int32_t mpc_main(Model INPUT_A, Features INPUT_B)
{
    int32_t h[HID];
    for (int i = 0; i < HID; i++) {
        int32_t acc = 0;
        for (int j = 0; j < IN; j++)
            acc += (int32_t)INPUT_A.w1[i][j] * (int32_t)INPUT_B.x[j];
        acc += (int32_t)INPUT_A.b1[i] * 256;
        acc = acc >> 8;
        h[i] = acc > 0 ? acc : 0;
    }

    int32_t y[OUT];
    for (int i = 0; i < OUT; i++) {
        int32_t acc = 0;
        for (int j = 0; j < HID; j++)
            acc += (int32_t)INPUT_A.w2[i][j] * h[j];
        acc += (int32_t)INPUT_A.b2[i] * 256;
        y[i] = acc >> 8;
    }

    int32_t best = 0;
    int32_t best_val = y[0];
    for (int i = 1; i < OUT; i++)
        if (y[i] > best_val) {
            best_val = y[i];
            best = i;
        }
    return best;
}

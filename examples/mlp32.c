// The fixed-point multilayer perceptron of mlp.c (16 -> 32 -> 10, Q8,
// ReLU, arg max) with the model and the features held as int32_t, as a
// store of additive shares keeps them for arithmetic (three-party mode):
// each weight is then a 32-bit lane of the shares, used by the products
// as it is, where mlp.c's int16_t weights must first be sign-extended in
// garbled circuits. The values (examples/data/mlp_model.txt,
// mlp_features.txt) and the result are mlp.c's.
#include <stdint.h>

#define IN 16
#define HID 32
#define OUT 10

typedef struct {
    int32_t w1[HID][IN];
    int32_t b1[HID];
    int32_t w2[OUT][HID];
    int32_t b2[OUT];
} Model;

typedef struct {
    int32_t x[IN];
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

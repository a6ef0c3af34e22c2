// The fixed-point multilayer perceptron of mlp.c (16 -> 32 -> 10, Q8,
// ReLU, arg max) with the model and the features held as int32_t, as a
// store of additive shares keeps them for arithmetic (three-party mode):
// each weight is then a 32-bit lane of the shares, used by the products
// as it is, where mlp.c's int16_t weights must first be sign-extended in
// garbled circuits. The values (examples/data/mlp_model.txt,
// mlp_features.txt) and the result are mlp.c's.
#define MLP_VALUE int32_t
#include "mlp.c"

// A linear model scored in secret: party A holds a trained model (16
// double weights and a bias), party B a feature vector; both learn the
// score w.x + b and the class it gives (score > 0), as a logistic
// regression or a linear SVM decides. IEEE-754 binary64, no fused
// multiply-add: bit for bit what gcc -O0 -ffp-contract=off computes.
#define D 16

typedef struct {
    double w[D];
    double bias;
} Model;

typedef struct {
    double score;
    int label;
} Prediction;

Prediction mpc_main(Model INPUT_A, double INPUT_B[D])
{
    double s = INPUT_A.bias;
    for (int i = 0; i < D; i++)
        s += INPUT_A.w[i] * INPUT_B[i];
    Prediction p;
    p.score = s;
    p.label = s > 0.0;
    return p;
}

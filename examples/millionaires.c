// Yao's millionaires' problem (ParCC Listing 1): OUTPUT_richer is 1 if party A's income is larger than party B's, else 0.
void mpc_main(void)
{
    int INPUT_A_income;
    int INPUT_B_income;
    int OUTPUT_richer = 0;
    if (INPUT_A_income > INPUT_B_income)
        OUTPUT_richer = 1;
}

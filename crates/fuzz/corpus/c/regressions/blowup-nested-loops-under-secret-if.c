int mpc_main(int INPUT_A, int INPUT_B) {
    int r = 0;
    if (INPUT_A > INPUT_B) {
        for (int i = 0; i < 100000; i++)
            for (int j = 0; j < 100000; j++)
                for (int k = 0; k < 100000; k++)
                    for (int l = 0; l < 100000; l++)
                        r = r + INPUT_A;
    }
    return r;
}

/*
 * Exact likelihood of the hands, dealt one card at a time, after a GSR a-shuffle (a = 4:
 * two riffles) and a cut of a pack whose order before was `ref` (bench only; built by
 * bench/detection_bound.py with the machine's C compiler, called through ctypes).
 *
 * A 4-shuffle cuts the pack into four consecutive packets (sizes multinomial) and
 * interleaves them, every interleaving equally likely: each of the 4**52 label
 * sequences over the new positions has probability 4**-52. For packet sizes n, the
 * count of interleavings that send every card to its hand (position minus the cut,
 * modulo 4) is a dynamic programme over the packets' pointers t (state: cards taken
 * from each packet); summing the counts over n gives P(hands) * 4**52 exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 52

/* counts for one size vector, the four cut residues at once; out[c] += count */
static void count_sizes(const int *hand_of_ref, const int n[4], double out[4]) {
    int s[4] = {0, n[0], n[0] + n[1], n[0] + n[1] + n[2]};
    int d1 = n[3] + 1, d2 = (n[2] + 1) * d1, d3 = (n[1] + 1) * d2;
    size_t states = (size_t)(n[0] + 1) * d3;
    double *v = calloc(states * 4, sizeof(double));
    if (v == NULL)
        return;
    v[0] = v[1] = v[2] = v[3] = 1.0;
    for (int t0 = 0; t0 <= n[0]; t0++)
        for (int t1 = 0; t1 <= n[1]; t1++)
            for (int t2 = 0; t2 <= n[2]; t2++)
                for (int t3 = 0; t3 <= n[3]; t3++) {
                    int p = t0 + t1 + t2 + t3;
                    if (p == 0)
                        continue;
                    size_t idx = (size_t)t0 * d3 + (size_t)t1 * d2 + (size_t)t2 * d1 + t3;
                    double *cur = v + idx * 4;
                    int t[4] = {t0, t1, t2, t3};
                    size_t stride[4] = {(size_t)d3, (size_t)d2, (size_t)d1, 1};
                    for (int j = 0; j < 4; j++) {
                        if (t[j] == 0)
                            continue;
                        int h = hand_of_ref[s[j] + t[j] - 1];
                        /* the card went to position p - 1: hand (p - 1 - c) mod 4 */
                        int c = ((p - 1 - h) % 4 + 4) % 4;
                        cur[c] += v[(idx - stride[j]) * 4 + c];
                    }
                }
    double *last = v + (states - 1) * 4;
    for (int c = 0; c < 4; c++)
        out[c] += last[c];
    free(v);
}

/* log(sum over packet sizes within [lo, hi] of the cut-weighted counts) - 52 log 4:
 * log P(hands). hand_of_ref[i] is the hand of the i-th card of the old pack. */
double log_likelihood(const int *hand_of_ref, const double cut_weight[4], int lo, int hi) {
    double total[4] = {0, 0, 0, 0};
    int n[4];
    for (n[0] = lo; n[0] <= hi; n[0]++)
        for (n[1] = lo; n[1] <= hi; n[1]++)
            for (n[2] = lo; n[2] <= hi; n[2]++) {
                n[3] = N - n[0] - n[1] - n[2];
                if (n[3] < lo || n[3] > hi)
                    continue;
                count_sizes(hand_of_ref, n, total);
            }
    double sum = 0.0;
    for (int c = 0; c < 4; c++)
        sum += cut_weight[c] * total[c];
    return log(sum) - N * log(4.0);
}

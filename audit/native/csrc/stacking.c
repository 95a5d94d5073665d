/* The stacking statistics (audit/stacking/order.py, hands.py; pile_top="either": both
 * readings of a gathered pile count) and the report's `stacking` object. */
#include "fastaudit.h"

/* ------------------------------------------------------------------------ */
/* the stacking statistics (audit/stacking/order.py and hands.py, pile_top="either") */

static double tail_p(const Tail *t, double score, int extrapolate) {
    const double *grid = t->grid;
    double step = 1.0 / t->steps;
    if (score <= grid[0])
        return 1.0;
    Py_ssize_t lo = 0, hi = t->n; /* bisect_left */
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (grid[mid] < score)
            lo = mid + 1;
        else
            hi = mid;
    }
    Py_ssize_t j = lo;
    if (j == t->n) {
        if (!extrapolate)
            return t->deepest;
        Py_ssize_t top = t->n - 1;
        Py_ssize_t span = t->steps < top ? t->steps : top;
        double width = grid[top] - grid[top - span];
        double slope = ((double)span * step) / (width > 1e-9 ? width : 1e-9);
        double log10p = -(double)top * step - slope * (score - grid[top]);
        double p = pow(10.0, log10p);
        return p > G.min_p ? p : G.min_p;
    }
    if (grid[j] == score)
        return pow(10.0, (double)(-j) * step);
    double t0 = grid[j - 1], t1 = grid[j];
    return pow(10.0, -((double)(j - 1) + (score - t0) / (t1 - t0)) * step);
}

static double exact_p_value(int w) {
    if (w <= 0)
        return 0.0;
    return G.cdf[w < NCARDS ? w : NCARDS];
}

/* Tables.order_p_value(two_way=True): the table, then the union bound over the 2**14
 * readings of the cycle (orientations and directions). */
static double order_p_value(double soft_w) {
    const Tail *table = &G.order_two_way;
    double p = tail_p(table, -soft_w, 0);
    if (p > table->deepest)
        return p;
    int w = (int)floor(soft_w + 14 * log(2.0) / G.soft_min_scale + 1e-9);
    double bound = (double)(1 << 14) * exact_p_value(w);
    double m = p < bound ? p : bound;
    return m > G.min_p ? m : G.min_p;
}

/* Each block's first and last position read in play order ([0]) and reversed ([1]),
 * and its descents in play order (reversed: 3 minus them). */
static void block_ends(const uint8_t blocks[13][4], const int *pos, int first[13][2],
                       int last[13][2], int descents[13]) {
    for (int b = 0; b < 13; b++) {
        int p0 = pos[blocks[b][0]], p1 = pos[blocks[b][1]], p2 = pos[blocks[b][2]],
            p3 = pos[blocks[b][3]];
        descents[b] = (p1 < p0) + (p2 < p1) + (p3 < p2);
        first[b][0] = p0;
        first[b][1] = p3;
        last[b][0] = p3;
        last[b][1] = p0;
    }
}

static double soft_min_descents(const uint8_t blocks[13][4], const int *pos) {
    double e = exp(-G.soft_min_scale);
    int first[13][2], last[13][2], d[13];
    double inner[13][2];
    block_ends(blocks, pos, first, last, d);
    for (int b = 0; b < 13; b++) {
        inner[b][0] = pow(e, (double)d[b]);
        inner[b][1] = pow(e, (double)(3 - d[b]));
    }
    double total = 0.0;
    for (int o0 = 0; o0 < 2; o0++) {
        double v0 = o0 == 0 ? inner[0][0] : 0.0;
        double v1 = o0 == 1 ? inner[0][1] : 0.0;
        for (int i = 1; i < 13; i++) {
            int l0 = last[i - 1][0], l1 = last[i - 1][1], f0 = first[i][0], f1 = first[i][1];
            double n0 = (v0 * (f0 < l0 ? e : 1.0) + v1 * (f0 < l1 ? e : 1.0)) * inner[i][0];
            double n1 = (v0 * (f1 < l0 ? e : 1.0) + v1 * (f1 < l1 ? e : 1.0)) * inner[i][1];
            v0 = n0;
            v1 = n1;
        }
        int f = first[0][o0], l0 = last[12][0], l1 = last[12][1];
        total += v0 * (f < l0 ? e : 1.0) + v1 * (f < l1 ? e : 1.0);
    }
    return -log(total) / G.soft_min_scale;
}

static int min_cyclic_descents(const uint8_t blocks[13][4], const int *pos) {
    int first[13][2], last[13][2], d[13], inner[13][2];
    block_ends(blocks, pos, first, last, d);
    for (int b = 0; b < 13; b++) {
        inner[b][0] = d[b];
        inner[b][1] = 3 - d[b];
    }
    int best = 1000000000;
    for (int o0 = 0; o0 < 2; o0++) {
        int big = 1000000;
        int v[2] = {o0 == 0 ? inner[0][0] : big, o0 == 1 ? inner[0][1] : big};
        for (int i = 1; i < 13; i++) {
            int nv[2];
            for (int o = 0; o < 2; o++) {
                int f = first[i][o];
                int c0 = v[0] + (f < last[i - 1][0]);
                int c1 = v[1] + (f < last[i - 1][1]);
                nv[o] = (c1 < c0 ? c1 : c0) + inner[i][o];
            }
            v[0] = nv[0];
            v[1] = nv[1];
        }
        int f = first[0][o0];
        for (int o = 0; o < 2; o++) {
            int total = v[o] + (f < last[12][o]);
            if (total < best)
                best = total;
        }
    }
    return best;
}

/* advance_score(): the weights' exp() e[] and the pair weights' ep[a][b] (advance a
 * followed by b; ONES when there are none, as exp(0.0) is); the same operations in the
 * same order as audit/stacking/hands.py */
static const double ONES[4][4] = {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};

static double advance_score(const uint8_t blocks[13][4], const int *rel, const double *e,
                            const double (*ep)[4]) {
    int first[13][2], last[13][2], head[13][2], tail[13][2];
    double within[13][2];
    for (int b = 0; b < 13; b++) {
        int s0 = rel[blocks[b][0]], s1 = rel[blocks[b][1]], s2 = rel[blocks[b][2]],
            s3 = rel[blocks[b][3]];
        int a = (s1 - s0) & 3, c = (s2 - s1) & 3, d = (s3 - s2) & 3;
        int ra = (s2 - s3) & 3, rc = (s1 - s2) & 3, rd = (s0 - s1) & 3;
        first[b][0] = s0;
        first[b][1] = s3;
        last[b][0] = s3;
        last[b][1] = s0;
        head[b][0] = a;
        head[b][1] = ra;
        tail[b][0] = d;
        tail[b][1] = rd;
        within[b][0] = e[a] * e[c] * e[d] * ep[a][c] * ep[c][d];
        within[b][1] = e[ra] * e[rc] * e[rd] * ep[ra][rc] * ep[rc][rd];
    }
    /* steps[i - 1][o][q]: from block i - 1 lying q to block i % 13 lying o */
    double steps[13][2][2];
    for (int i = 1; i <= 13; i++) {
        int j = i % 13;
        for (int o = 0; o < 2; o++)
            for (int q = 0; q < 2; q++) {
                int x = (first[j][o] - last[i - 1][q]) & 3;
                steps[i - 1][o][q] = e[x] * ep[tail[i - 1][q]][x] * ep[x][head[j][o]];
            }
    }
    double total = 0.0;
    for (int o0 = 0; o0 < 2; o0++) {
        double v0 = o0 == 0 ? within[0][0] : 0.0;
        double v1 = o0 == 1 ? within[0][1] : 0.0;
        for (int i = 1; i < 13; i++) {
            double n0 = (v0 * steps[i - 1][0][0] + v1 * steps[i - 1][0][1]) * within[i][0];
            double n1 = (v0 * steps[i - 1][1][0] + v1 * steps[i - 1][1][1]) * within[i][1];
            v0 = n0;
            v1 = n1;
        }
        total += v0 * steps[12][o0][0] + v1 * steps[12][o0][1];
    }
    return total > 0.0 ? log(total) : -INFINITY;
}

/* mixed(): log((exp(a) + exp(b)) / 2), an even mixture of two alternatives */
static double mixed(double a, double b) {
    double top = a >= b ? a : b;
    if (top == -INFINITY)
        return top;
    return top + log(exp(a - top) + exp(b - top)) - log(2.0);
}

static double oriented_score(const uint8_t *cycle, const int *rel, const double *w,
                             const double (*pw)[4]) {
    int steps[NCARDS];
    int prev = rel[cycle[NCARDS - 1]];
    for (int i = 0; i < NCARDS; i++) {
        int r = rel[cycle[i]];
        steps[i] = (r - prev) & 3;
        prev = r;
    }
    double total = 0.0;
    int before = steps[NCARDS - 1];
    for (int i = 0; i < NCARDS; i++) {
        total += w[steps[i]];
        if (pw)
            total += pw[before][steps[i]];
        before = steps[i];
    }
    return total;
}

/* two_way_soft_min: the soft minimum over both directions of the cycle (read backwards
 * every position p becomes 51 - p); *backward when the backward reading is lower. */
static double two_way_soft_min(const uint8_t blocks[13][4], const int *pos, const int *rpos,
                               int *backward) {
    double forward = soft_min_descents(blocks, pos);
    double back = soft_min_descents(blocks, rpos);
    double low = forward < back ? forward : back;
    double total = exp(-G.soft_min_scale * (forward - low)) + exp(-G.soft_min_scale * (back - low));
    *backward = back < forward;
    return low - log(total) / G.soft_min_scale;
}

/* mirrored(): the weights of advances read the other way round the cycle */
static void mirror(const double *w, double *out) {
    out[0] = w[0];
    out[1] = w[3];
    out[2] = w[2];
    out[3] = w[1];
}

/* mirrored_pairs(): a then b read the other way round is -b then -a */
static void mirror_pairs(const double (*pw)[4], double out[4][4]) {
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            out[a][b] = pw[(-b) & 3][(-a) & 3];
}

/* two_way_score: log((exp(S_forward) + exp(S_backward)) / 2), from the weights' exp()
 * (a mirror of the exps is the exps of the mirror: the same doubles, moved) */
static double two_way_score(const uint8_t blocks[13][4], const int *rel, const double *e,
                            const double (*ep)[4], int *backward) {
    double me[4], mp[4][4];
    mirror(e, me);
    mirror_pairs(ep, mp);
    double forward = advance_score(blocks, rel, e, ep);
    double back = advance_score(blocks, rel, me, (const double(*)[4])mp);
    double top = forward >= back ? forward : back;
    *backward = 0;
    if (top == -INFINITY)
        return top;
    *backward = back > forward;
    return top + log(exp(forward - top) + exp(back - top)) - log(2.0);
}

static void best_orientation(const uint8_t blocks[13][4], const int *rel, const double *w,
                             int *path) {
    double wr[4] = {w[0], w[3], w[2], w[1]};
    int first[13][2], last[13][2];
    double within[13][2];
    for (int b = 0; b < 13; b++) {
        int s[4];
        for (int i = 0; i < 4; i++)
            s[i] = rel[blocks[b][i]];
        double f = 0.0, r = 0.0;
        for (int i = 0; i < 3; i++) {
            int a = (s[i + 1] - s[i]) & 3;
            f = i ? f + w[a] : w[a];
            r = i ? r + wr[a] : wr[a];
        }
        first[b][0] = s[0];
        first[b][1] = s[3];
        last[b][0] = s[3];
        last[b][1] = s[0];
        within[b][0] = f;
        within[b][1] = r;
    }
    double best = -INFINITY;
    for (int o0 = 0; o0 < 2; o0++) {
        double v[2] = {o0 == 0 ? within[0][0] : -INFINITY, o0 == 1 ? within[0][1] : -INFINITY};
        int back[13][2];
        for (int i = 1; i < 13; i++) {
            double nv[2];
            for (int o = 0; o < 2; o++) {
                int f = first[i][o];
                double c0 = v[0] + w[(f - last[i - 1][0]) & 3];
                double c1 = v[1] + w[(f - last[i - 1][1]) & 3];
                back[i][o] = c1 > c0 ? 1 : 0;
                nv[o] = (c0 >= c1 ? c0 : c1) + within[i][o];
            }
            v[0] = nv[0];
            v[1] = nv[1];
        }
        int f = first[0][o0];
        for (int o = 0; o < 2; o++) {
            double total = v[o] + w[(f - last[12][o]) & 3];
            if (total > best) {
                best = total;
                int cur = o;
                path[12] = cur;
                for (int i = 12; i >= 1; i--) {
                    cur = back[i][cur];
                    path[i - 1] = cur;
                }
            }
        }
    }
}


/* The test's numbers of hand `h` against `prev` (the costly part: the statistic, its
 * p-value, and for a deal below EVIDENCE_P its advances and most likely riffles). */
static void stacking_test(const Hand *h, const Hand *prev, const Pattern *pat,
                          const int rel[NCARDS], uint8_t blocks[13][4], int oriented,
                          StackTest *t) {
    const uint8_t *cycle = &blocks[0][0];
    t->backward = 0;
    t->riffles = -1;
    if (h->has_order) {
        int pos[NCARDS];
        for (int i = 0; i < NCARDS; i++)
            pos[h->order[i]] = i;
        int w;
        if (oriented) {
            int prev_pos = pos[cycle[NCARDS - 1]];
            w = 0;
            for (int i = 0; i < NCARDS; i++) {
                w += pos[cycle[i]] < prev_pos;
                prev_pos = pos[cycle[i]];
            }
            t->p = exact_p_value(w);
            t->p = t->p > G.min_p ? t->p : G.min_p;
            t->statistic = (double)w;
        } else {
            int rpos[NCARDS], backward = 0;
            for (int i = 0; i < NCARDS; i++)
                rpos[i] = NCARDS - 1 - pos[i];
            t->statistic = two_way_soft_min(blocks, pos, rpos, &backward);
            t->p = order_p_value(t->statistic);
            w = min_cyclic_descents(blocks, backward ? rpos : pos);
            t->backward = (int8_t)backward;
        }
        t->w = w;
    } else {
        /* an even mixture: the advances' Markov chain (lowered by its offset) and
         * single advances */
        const double(*pw)[4] = (const double(*)[4])pat->pair_w;
        int backward = 0;
        if (oriented) {
            t->statistic =
                mixed(oriented_score(cycle, rel, pat->test_w, pw) - pat->chain_offset,
                      oriented_score(cycle, rel, pat->plain_w, NULL));
            t->p = tail_p(&pat->oriented, t->statistic, 1);
        } else {
            int chain_back, single_back;
            const double(*ep)[4] = (const double(*)[4])pat->e_pair;
            double chain = two_way_score(blocks, rel, pat->e_test, ep, &chain_back);
            chain -= pat->chain_offset;
            double single = two_way_score(blocks, rel, pat->e_plain, ONES, &single_back);
            t->statistic = mixed(chain, single);
            backward = chain >= single ? chain_back : single_back;
            t->p = tail_p(&pat->two_way, t->statistic, 1);
        }
        t->backward = (int8_t)backward;
        if (t->p < G.evidence_p) {
            int path[13] = {0}, cyc[NCARDS], n = 0;
            double tw[4];
            memset(t->counts, 0, sizeof t->counts);
            if (backward)
                mirror(pat->orient_w, tw);
            else
                memcpy(tw, pat->orient_w, sizeof tw);
            if (!oriented)
                best_orientation(blocks, rel, tw, path);
            for (int b = 0; b < 13; b++)
                for (int i = 0; i < 4; i++)
                    cyc[n++] = blocks[b][path[b] ? 3 - i : i];
            for (int i = 0; i < NCARDS; i++)
                t->counts[(rel[cyc[(i + 1) % NCARDS]] - rel[cyc[i]]) & 3]++;
            if (backward) {
                int c1 = t->counts[1];
                t->counts[1] = t->counts[3];
                t->counts[3] = c1;
            }
            double best = 0.0;
            for (int k = 0; k < pat->n_riffles; k++) {
                double re[4];
                if (backward)
                    mirror(pat->e_riffle[k], re);
                else
                    memcpy(re, pat->e_riffle[k], sizeof re);
                double sc = oriented ? oriented_score(cycle, rel, pat->riffle_w[k], NULL)
                                     : advance_score(blocks, rel, re, ONES);
                if (sc > best) {
                    best = sc;
                    t->riffles = k;
                }
            }
        }
    }
    t->done = 1;
}

/* The report's `stacking` object of hand `h` against the pack's previous hand `prev`
 * (1-based number `prev_number`); Py_None when untested. A p-value below alpha is a
 * finding (STACKED_DEAL) that audit/native/__init__.py makes from this object. The
 * test's numbers are computed once into `*t` (t->done) and read from there after. */
/* Each card's seat relative to the dealer's left into rel[], the reference into blocks[]
 * (the collected pack, its order known, else the gathering: each side's pile read from
 * its last trick, N-S's pile first, each trick either way); whether it is oriented. */
static int reference(const Hand *h, const Hand *prev, int rel[NCARDS], uint8_t blocks[13][4]) {
    for (int s = 0; s < 4; s++) {
        int r = (s - h->dealer - 1) & 3;
        for (int i = 0; i < 13; i++)
            rel[h->deal[s][i]] = r;
    }
    int oriented = prev->has_collected;
    if (oriented) {
        memcpy(blocks, prev->collected, NCARDS);
    } else {
        int nb = 0;
        for (int s = 0; s < 2; s++)
            for (int i = prev->n_gathered[s] - 1; i >= 0; i--)
                memcpy(blocks[nb++], prev->cards[prev->gathered[s][i] - 1], 4);
    }
    return oriented;
}

int stacking_numbers(const Hand *h, const Hand *prev, const Pattern *pat, StackTest *t) {
    if (!h->has_order && !pat->has_tables)
        return 0;
    if (!t->done) {
        int rel[NCARDS];
        uint8_t blocks[13][4];
        int oriented = reference(h, prev, rel, blocks);
        stacking_test(h, prev, pat, rel, blocks, oriented, t);
    }
    return 1;
}

PyObject *stacking_json(const Hand *h, const Hand *prev, int prev_number, const Pattern *pat,
                        StackTest *t) {
    if (!h->has_order && !pat->has_tables)
        return new_ref(Py_None);
    int rel[NCARDS];
    uint8_t blocks[13][4];
    int oriented = reference(h, prev, rel, blocks);
    if (!t->done)
        stacking_test(h, prev, pat, rel, blocks, oriented, t);
    int together[13], spread[13], n_together = 0, n_spread = 0;
    for (int tr = 0; tr < 13; tr++) {
        const uint8_t *c = prev->cards[tr];
        int r0 = rel[c[0]], r1 = rel[c[1]], r2 = rel[c[2]], r3 = rel[c[3]];
        if (r0 == r1 && r1 == r2 && r2 == r3)
            together[n_together++] = tr + 1;
        else if (((1 << r0) | (1 << r1) | (1 << r2) | (1 << r3)) == 15)
            spread[n_spread++] = tr + 1;
    }
    PyObject *ev = PyDict_New();
    if (ev == NULL)
        return NULL;
    if (!put(ev, S_reference, new_ref(oriented ? S_collected : S_gathered_v)) ||
        !put(ev, S_pattern, new_ref(pat->name)) ||
        !put(ev, S_tricks_together, int_list(together, n_together)) ||
        !put(ev, S_tricks_spread, int_list(spread, n_spread)) ||
        (!oriented && !put(ev, S_direction, new_ref(S_forward))))
        goto fail; /* the key's place; set again below when the backward reading wins */
    PyObject *method;
    if (h->has_order) {
        int pos[NCARDS];
        for (int i = 0; i < NCARDS; i++)
            pos[h->order[i]] = i;
        int close[13], n_close = 0;
        for (int tr = 0; tr < 13; tr++) {
            int lo = NCARDS, hi = -1;
            for (int i = 0; i < 4; i++) {
                int q = pos[prev->cards[tr][i]];
                lo = q < lo ? q : lo;
                hi = q > hi ? q : hi;
            }
            if (hi - lo < G.close_span)
                close[n_close++] = tr + 1;
        }
        int k = G.riffles[t->w];
        method = S_m_order;
        if (!put(ev, S_method, new_ref(method)) ||
            !put(ev, S_rising_sequences, PyLong_FromLong(t->w)) ||
            !put(ev, S_expected_rising, new_ref(F_26)) ||
            !put(ev, S_riffles, k < G.thorough_riffles ? PyLong_FromLong(k) : new_ref(Py_None)) ||
            !put(ev, S_llr, new_ref(G.llr[t->w])) ||
            !put(ev, S_tricks_close, int_list(close, n_close)))
            goto fail;
    } else {
        method = S_m_hands;
        /* `riffles` keeps its place before `advances` (set again after, as the Python
         * detector does) */
        if (!put(ev, S_method, new_ref(method)) || !put(ev, S_score, round_to(t->statistic, 4)) ||
            !put(ev, S_riffles, new_ref(Py_None)))
            goto fail;
        if (t->p < G.evidence_p) {
            if (!put(ev, S_advances, int_list(t->counts, 4)) ||
                (t->riffles >= 0 && !put(ev, S_riffles, PyLong_FromLong(t->riffles))))
                goto fail;
        }
    }
    if (t->backward && !put(ev, S_direction, new_ref(S_backward)))
        goto fail;
    return dict_of(5, S_p_value, PyFloat_FromDouble(t->p), S_statistic,
                   PyFloat_FromDouble(t->statistic), S_method, new_ref(method), S_evidence, ev,
                   S_reference_hand, PyLong_FromLong(prev_number));
fail:
    Py_DECREF(ev);
    return NULL;
}

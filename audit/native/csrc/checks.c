/* The checks across fields (dealt_order, gathered, collected) and the scorer. */
#include "fastaudit.h"

/* ------------------------------------------------------------------------ */
/* the checks that need more than one field                                 */

/* MISDEAL: the deal follows from dealt_order by the pattern from the dealer's left. */
int follows_order(const Hand *h, const Pattern *pat) {
    uint64_t masks[4] = {0, 0, 0, 0};
    int i = 0;
    for (int p = 0; p < pat->len; p++) {
        int seat = (h->dealer + 1) & 3;
        for (int k = 0; k < 4; k++) {
            for (int j = 0; j < pat->sizes[p]; j++)
                masks[seat] |= 1ULL << h->order[i++];
            seat = (seat + 1) & 3;
        }
    }
    for (int s = 0; s < 4; s++)
        if (masks[s] != h->holding[s])
            return 0;
    return 1; /* 52 cards landing on the four holdings: 52 distinct */
}

/* TRICKS_OUT_OF_ORDER: each side's pile is the tricks it won, in the order won. */
int gathered_as_won(const Hand *h) {
    for (int s = 0; s < 2; s++) {
        int k = 0;
        for (int t = 0; t < 13; t++) {
            if ((h->winner[t] & 1) != s)
                continue;
            if (k >= h->n_gathered[s] || h->gathered[s][k] != t + 1)
                return 0;
            k++;
        }
        if (k != h->n_gathered[s])
            return 0;
    }
    return 1;
}

/* TRICKS_OUT_OF_ORDER from `collected`: the 52 cards played, each trick's four together,
 * one pile per side (at most two piles), every pile in the order won or every pile in
 * the reverse order (a pile may be written either way up, the same for both). */
int collected_as_won(const Hand *h) {
    int trick_of[NCARDS];
    for (int t = 0; t < 13; t++)
        for (int i = 0; i < 4; i++)
            trick_of[h->cards[t][i]] = t;
    uint64_t cards = 0;
    for (int i = 0; i < NCARDS; i++)
        cards |= 1ULL << h->collected[i];
    if (cards != (1ULL << NCARDS) - 1)
        return 0; /* not the 52 cards played */
    int runs[13], n_runs = 0, seen = 0;
    for (int i = 0; i < NCARDS; i++) {
        int t = trick_of[h->collected[i]];
        if (n_runs && runs[n_runs - 1] == t)
            continue;
        if (seen >> t & 1)
            return 0; /* a trick split up (or a card twice) */
        seen |= 1 << t;
        runs[n_runs++] = t;
    }
    if (n_runs != 13)
        return 0;
    int piles = 1, rising = 1, falling = 1;
    for (int k = 1; k < 13; k++) {
        if ((h->winner[runs[k]] & 1) != (h->winner[runs[k - 1]] & 1)) {
            piles++;
            continue;
        }
        if (runs[k] < runs[k - 1])
            rising = 0;
        else
            falling = 0;
    }
    return piles <= 2 && (rising || falling);
}

/* ------------------------------------------------------------------------ */
/* scoring (audit/rules/scoring.py, without revokes: a hand with one is not on this path) */


static int game_value(int loser, int seven_double) {
    if (loser == 0)
        return 4;
    if (loser <= 3)
        return 3;
    if (loser <= 6)
        return 2;
    if (loser == 7)
        return seven_double ? 2 : 1;
    return 1;
}

typedef struct {
    int pts[2], gms[2], over;
    HandScore *out;
    int seven_double;
} Adder;

static void add_points(Adder *a, int side, int n, int cap) {
    if (a->over >= 0 || n <= 0)
        return;
    int total = a->pts[side] + n;
    if (cap) {
        int capped = total < 9 ? total : 9;
        if (capped > a->pts[side])
            a->pts[side] = capped;
        return;
    }
    int other = side ^ 1;
    a->pts[side] = total;
    while (a->pts[side] >= 10) {
        Game g = {side, game_value(a->pts[other], a->seven_double)};
        a->out->games[a->out->n_games++] = g;
        a->pts[side] -= 10;
        a->pts[other] = 0;
        a->gms[side]++;
        if (a->gms[side] >= 4) {
            a->over = side;
            Bonus b = {side, 0, 8};
            a->out->bonuses[a->out->n_bonuses++] = b;
            return;
        }
    }
}

void score_hand(const int points[2], const int games[2], const Hand *h, int seven_double,
                       HandScore *out) {
    Adder a = {{points[0], points[1]}, {games[0], games[1]}, -1, out, seven_double};
    out->n_games = out->n_bonuses = 0;
    int nullo = h->contract == 5;
    int odd = -1;
    for (int s = 0; s < 2; s++)
        if (h->won[s] > 6)
            odd = s;
    if (odd >= 0)
        add_points(&a, nullo ? odd ^ 1 : odd, (h->won[odd] - 6) * h->unit, 0);
    if (h->contract < 4) {
        int out_by_cards[2] = {0, 0};
        for (int i = 0; i < out->n_games; i++)
            out_by_cards[out->games[i].side] = 1;
        int major = h->honours[0] >= 3 ? 0 : h->honours[1] >= 3 ? 1 : -1;
        if (major >= 0 && !out_by_cards[major ^ 1])
            add_points(&a, major, (2 * h->honours[major] - 4) * h->unit, odd != major);
    }
    for (int s = 0; s < 2; s++) {
        int n = h->won[s];
        if (n >= 12) {
            Bonus b = {nullo ? s ^ 1 : s, n == 13 ? 1 : 2, n == 13 ? 6 : 4};
            out->bonuses[out->n_bonuses++] = b;
        }
    }
    out->rubber_winner = a.over;
    if (a.over >= 0) {
        a.pts[0] = a.pts[1] = a.gms[0] = a.gms[1] = 0;
    }
    out->points[0] = a.pts[0];
    out->points[1] = a.pts[1];
    out->games_after[0] = a.gms[0];
    out->games_after[1] = a.gms[1];
}

/* SCORE_MISMATCH: the claim agrees with the rules (points; games in order; bonuses as a
 * multiset), each where the players wrote it down. */
int claim_agrees(const Score *c, const HandScore *e) {
    if (c->points[0] != e->points[0] || c->points[1] != e->points[1])
        return 0;
    if (c->has_games) {
        if (c->n_games != e->n_games)
            return 0;
        for (int i = 0; i < e->n_games; i++)
            if (c->games[i].side != e->games[i].side || c->games[i].value != e->games[i].value)
                return 0;
    }
    if (c->has_bonuses) {
        if (c->n_bonuses != e->n_bonuses)
            return 0;
        int used[MAX_CLAIMED] = {0};
        for (int i = 0; i < e->n_bonuses; i++) {
            int found = 0;
            for (int j = 0; j < c->n_bonuses && !found; j++) {
                if (!used[j] && c->bonuses[j].side == e->bonuses[i].side &&
                    c->bonuses[j].kind == e->bonuses[i].kind &&
                    c->bonuses[j].points == e->bonuses[i].points) {
                    used[j] = 1;
                    found = 1;
                }
            }
            if (!found)
                return 0;
        }
    }
    return 1;
}


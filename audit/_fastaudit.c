/*
 * The auditor's native fast path (audit/native.py is its Python face).
 *
 * Most records a director or a card room audits are in order: every hand valid,
 * played by the rules, gathered as won, scored right and honestly shuffled. For
 * such a record this module does the whole audit of its hands in one pass over the
 * parsed JSON (validate, replay, score, every check, the stacking tests) and builds
 * the report's `hands` and `rubbers`, the very objects the Python auditor builds.
 *
 * It is a fast path, not a second auditor: the moment it meets anything it would
 * have to report (an irregularity, a score slip; not a stacked deal, which
 * audit/native.py reports from the stacking object built here) or anything
 * it does not handle (`penalties`, `shuffle`, a value it is not sure
 * is valid), it returns None and the Python auditor audits the record from the
 * start. tests/audit/test_native.py holds the two to the same report, byte for
 * byte, on clean and on mutated records.
 *
 * Floating point follows the Python code operation by operation (same libm exp,
 * log and pow, no contraction: setup.py passes -ffp-contract=off), so p-values and
 * statistics are bit-identical. What Python computes with its own algorithms
 * (lgamma, round) comes from Python: the riffle table is passed in by configure(),
 * and rounding calls the builtin round().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define NCARDS 52
#define MAX_PATTERNS 8
#define MAX_CLAIMED 8
#define EVIDENCE_P 0.05
#define CLOSE_SPAN 8
#define THOROUGH_RIFFLES 7
#define SOFT_MIN_SCALE 2.0

/* ------------------------------------------------------------------------ */
/* tables handed over by configure()                                        */

typedef struct {
    double *grid;
    Py_ssize_t n;
    int steps;
    double deepest;
} Tail;

typedef struct {
    int len;
    int sizes[13];
    PyObject *name;
    int has_tables;
    double test_w[4];
    int n_riffles;
    double (*riffle_w)[4];
    Tail one_way;
    Tail oriented;
} Pattern;

static struct {
    int configured;
    double cdf[NCARDS + 1];
    int riffles[NCARDS + 1];
    PyObject *llr[NCARDS + 1];
    Tail order_one_way;
    double min_p;
    int n_patterns;
    Pattern patterns[MAX_PATTERNS];
    PyObject *round_fn;
} G;

/* interned strings */
static PyObject *S_dealer, *S_deal, *S_cayenne, *S_calls, *S_tricks, *S_pack, *S_dealt_order,
    *S_gathered, *S_collected, *S_penalties, *S_claimed, *S_shuffle, *S_seat, *S_call,
    *S_leader, *S_cards, *S_ace_high, *S_NS, *S_EW, *S_points, *S_games, *S_bonuses, *S_side,
    *S_value, *S_kind, *S_hand, *S_contract, *S_unit, *S_score, *S_stacking, *S_p_value,
    *S_statistic, *S_method, *S_evidence, *S_reference_hand, *S_reference, *S_pattern,
    *S_tricks_together, *S_tricks_spread, *S_direction, *S_rising_sequences,
    *S_expected_rising, *S_riffles, *S_llr, *S_tricks_close, *S_advances, *S_winner,
    *S_sheet, *S_totals, *S_rubber, *S_slam, *S_little_slam, *S_gathered_v,
    *S_forward, *S_m_order, *S_m_hands, *S_pass, *S_seat_name[4], *S_contract_name[6];
static PyObject *F_26;

/* ------------------------------------------------------------------------ */
/* parsed hands                                                             */

typedef struct {
    int side, value;
} Game;

typedef struct {
    int side, kind, points; /* kind: 0 rubber, 1 slam, 2 little_slam */
} Bonus;

typedef struct {
    int points[2];
    int has_games, n_games;
    Game games[MAX_CLAIMED];
    int has_bonuses, n_bonuses;
    Bonus bonuses[MAX_CLAIMED];
} Score;

typedef struct {
    int dealer;
    int pack; /* -1: absent */
    uint8_t deal[4][13];
    uint64_t holding[4];
    int cayenne;
    int contract;
    uint8_t leader[13];
    uint8_t cards[13][4];
    int has_order;
    uint8_t order[NCARDS];
    int has_gathered;
    int has_collected;
    uint8_t collected[NCARDS];
    int n_gathered[2];
    uint8_t gathered[2][13];
    int has_claimed;
    Score claimed;
    /* replay */
    uint8_t winner[13];
    int won[2];
    int honours[2];
    int unit;
} Hand;

/* ------------------------------------------------------------------------ */
/* small helpers                                                            */

static const int RANK_INDEX[128] = {
    ['2'] = 1, ['3'] = 2, ['4'] = 3, ['5'] = 4, ['6'] = 5, ['7'] = 6, ['8'] = 7,
    ['9'] = 8, ['T'] = 9, ['J'] = 10, ['Q'] = 11, ['K'] = 12, ['A'] = 13,
}; /* rank - 1, so that 0 means "not a rank" */
static const int SUIT_INDEX[128] = {['S'] = 1, ['H'] = 2, ['D'] = 3, ['C'] = 4};

/* A card's number (suit * 13 + rank - 2), or -1 when `o` is not certainly a card. */
static int card_of(PyObject *o) {
    if (!PyUnicode_CheckExact(o) || !PyUnicode_IS_ASCII(o))
        return -1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(o);
    const unsigned char *s = PyUnicode_DATA(o);
    int rank, suit;
    if (n == 2) {
        rank = RANK_INDEX[s[0] & 127];
        suit = SUIT_INDEX[s[1] & 127];
        if (!rank || !suit)
            return -1;
        rank += 1;
    } else if (n == 3 && s[0] == '1' && s[1] == '0') {
        suit = SUIT_INDEX[s[2] & 127];
        if (!suit)
            return -1;
        rank = 10;
    } else {
        return -1;
    }
    return (suit - 1) * 13 + rank - 2;
}

static int seat_of(PyObject *o) {
    if (!PyUnicode_CheckExact(o) || !PyUnicode_IS_ASCII(o) || PyUnicode_GET_LENGTH(o) != 1)
        return -1;
    switch (((const char *)PyUnicode_DATA(o))[0]) {
    case 'N': return 0;
    case 'E': return 1;
    case 'S': return 2;
    case 'W': return 3;
    default: return -1;
    }
}

static int side_of(PyObject *o) {
    if (o == NULL || !PyUnicode_CheckExact(o))
        return -1;
    if (PyUnicode_Compare(o, S_NS) == 0)
        return 0;
    if (PyUnicode_Compare(o, S_EW) == 0)
        return 1;
    return -1;
}

/* 0..5 for S H D C grand nullo, 6 for pass, -1 otherwise */
static int call_of(PyObject *o) {
    if (o == NULL || !PyUnicode_CheckExact(o) || !PyUnicode_IS_ASCII(o))
        return -1;
    const char *s = PyUnicode_DATA(o);
    Py_ssize_t n = PyUnicode_GET_LENGTH(o);
    if (n == 1) {
        switch (s[0]) {
        case 'S': return 0;
        case 'H': return 1;
        case 'D': return 2;
        case 'C': return 3;
        default: return -1;
        }
    }
    if (n == 5 && memcmp(s, "grand", 5) == 0)
        return 4;
    if (n == 5 && memcmp(s, "nullo", 5) == 0)
        return 5;
    if (n == 4 && memcmp(s, "pass", 4) == 0)
        return 6;
    return -1;
}

/* An exact int in [lo, hi] (hi < 0: no upper bound), else -1. */
static long small_int(PyObject *o, long lo, long hi) {
    if (o == NULL || !PyLong_CheckExact(o))
        return -1;
    int overflow;
    long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (overflow || v < lo || (hi >= 0 && v > hi))
        return -1;
    return v;
}

static PyObject *get(PyObject *d, PyObject *key) { return PyDict_GetItemWithError(d, key); }

/* Cards of a list into out[]; the count, or -1 when not a list of cards of length `want`
 * (want < 0: any length up to max). */
static int cards_into(PyObject *list, uint8_t *out, int want, int max) {
    if (list == NULL || !PyList_CheckExact(list))
        return -1;
    Py_ssize_t n = PyList_GET_SIZE(list);
    if ((want >= 0 && n != want) || n > max)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int c = card_of(PyList_GET_ITEM(list, i));
        if (c < 0)
            return -1;
        out[i] = (uint8_t)c;
    }
    return (int)n;
}

static int key_ok(PyObject *k, int allow_seat) {
    if (!PyUnicode_CheckExact(k))
        return 0;
    if (allow_seat && seat_of(k) >= 0)
        return 1;
    if (!PyUnicode_IS_ASCII(k) || PyUnicode_GET_LENGTH(k) < 2)
        return 0;
    const char *s = PyUnicode_DATA(k);
    return s[0] == 'x' && s[1] == '-';
}

/* ------------------------------------------------------------------------ */
/* reading one hand: 1 when it is certainly valid and in the fast path's scope */

static int read_score(PyObject *x, Score *out) {
    if (x == NULL || !PyDict_CheckExact(x))
        return 0;
    PyObject *pts = get(x, S_points);
    if (pts == NULL || !PyDict_CheckExact(pts))
        return 0;
    for (int s = 0; s < 2; s++) {
        long v = small_int(get(pts, s ? S_EW : S_NS), 0, 9);
        if (v < 0)
            return 0;
        out->points[s] = (int)v;
    }
    PyObject *g = get(x, S_games);
    out->has_games = g != NULL;
    out->n_games = 0;
    if (g != NULL) {
        if (!PyList_CheckExact(g) || PyList_GET_SIZE(g) > MAX_CLAIMED)
            return 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(g); i++) {
            PyObject *item = PyList_GET_ITEM(g, i);
            if (!PyDict_CheckExact(item))
                return 0;
            int side = side_of(get(item, S_side));
            long v = small_int(get(item, S_value), 1, 4);
            if (side < 0 || v < 0)
                return 0;
            out->games[i].side = side;
            out->games[i].value = (int)v;
            out->n_games++;
        }
    }
    PyObject *b = get(x, S_bonuses);
    out->has_bonuses = b != NULL;
    out->n_bonuses = 0;
    if (b != NULL) {
        if (!PyList_CheckExact(b) || PyList_GET_SIZE(b) > MAX_CLAIMED)
            return 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(b); i++) {
            PyObject *item = PyList_GET_ITEM(b, i);
            if (!PyDict_CheckExact(item))
                return 0;
            int side = side_of(get(item, S_side));
            PyObject *k = get(item, S_kind);
            int kind = -1;
            if (k != NULL && PyUnicode_CheckExact(k)) {
                if (PyUnicode_Compare(k, S_rubber) == 0)
                    kind = 0;
                else if (PyUnicode_Compare(k, S_slam) == 0)
                    kind = 1;
                else if (PyUnicode_Compare(k, S_little_slam) == 0)
                    kind = 2;
            }
            long v = small_int(get(item, S_points), 0, -1);
            if (side < 0 || kind < 0 || v < 0)
                return 0;
            out->bonuses[i].side = side;
            out->bonuses[i].kind = kind;
            out->bonuses[i].points = (int)v;
            out->n_bonuses++;
        }
    }
    return !PyErr_Occurred();
}

static int read_hand(PyObject *h, Hand *out) {
    if (!PyDict_CheckExact(h))
        return 0;
    PyObject *o;
    out->dealer = seat_of((o = get(h, S_dealer)) ? o : Py_None);
    out->cayenne = (o = get(h, S_cayenne)) ? card_of(o) : -1;
    if (out->dealer < 0 || out->cayenne < 0)
        return 0;
    /* the deal: four hands of 13 cards, the whole pack */
    PyObject *deal = get(h, S_deal);
    if (deal == NULL || !PyDict_CheckExact(deal))
        return 0;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(deal, &pos, &k, &v))
        if (!key_ok(k, 1))
            return 0;
    uint64_t seen = 0;
    for (int s = 0; s < 4; s++) {
        if (cards_into(get(deal, S_seat_name[s]), out->deal[s], 13, 13) != 13)
            return 0;
        uint64_t m = 0;
        for (int i = 0; i < 13; i++)
            m |= 1ULL << out->deal[s][i];
        if (m & seen)
            return 0;
        seen |= m;
        out->holding[s] = m;
    }
    if (seen != (1ULL << NCARDS) - 1)
        return 0;
    /* calls: the dealer makes it, or passes and his partner makes it */
    PyObject *calls = get(h, S_calls);
    if (calls == NULL || !PyList_CheckExact(calls))
        return 0;
    Py_ssize_t nc = PyList_GET_SIZE(calls);
    if (nc < 1 || nc > 2)
        return 0;
    int made = -1;
    for (Py_ssize_t i = 0; i < nc; i++) {
        PyObject *c = PyList_GET_ITEM(calls, i);
        if (!PyDict_CheckExact(c))
            return 0;
        int call = call_of(get(c, S_call));
        o = get(c, S_seat);
        int seat = o ? seat_of(o) : -1;
        if (call < 0 || seat < 0)
            return 0;
        int expected = i == 0 ? out->dealer : (out->dealer + 2) & 3;
        if (seat != expected)
            return 0;
        if (i == 0 && call == 6 && nc == 2)
            continue;
        if (call == 6 || i != nc - 1)
            return 0;
        made = call;
    }
    if (made < 0)
        return 0;
    out->contract = made;
    /* tricks */
    PyObject *tricks = get(h, S_tricks);
    if (tricks == NULL || !PyList_CheckExact(tricks) || PyList_GET_SIZE(tricks) != 13)
        return 0;
    int nullo = made == 5;
    int trump = made < 4 ? made : -1;
    uint64_t hold[4] = {out->holding[0], out->holding[1], out->holding[2], out->holding[3]};
    int expected_leader = (out->dealer + 1) & 3;
    out->won[0] = out->won[1] = 0;
    for (int t = 0; t < 13; t++) {
        PyObject *tr = PyList_GET_ITEM(tricks, t);
        if (!PyDict_CheckExact(tr))
            return 0;
        o = get(tr, S_leader);
        int leader = o ? seat_of(o) : -1;
        if (leader != expected_leader)
            return 0;
        uint8_t *cards = out->cards[t];
        if (cards_into(get(tr, S_cards), cards, 4, 4) != 4)
            return 0;
        out->leader[t] = (uint8_t)leader;
        uint64_t ace_mask = 0;
        PyObject *ah = get(tr, S_ace_high);
        if (ah != NULL) {
            uint8_t aces[13];
            int na = cards_into(ah, aces, -1, 13);
            if (na < 0)
                return 0;
            for (int i = 0; i < na; i++) {
                int a = aces[i];
                if (!nullo || a % 13 != 12)
                    return 0;
                if (a != cards[0] && a != cards[1] && a != cards[2] && a != cards[3])
                    return 0;
                ace_mask |= 1ULL << a;
            }
        }
        int led = cards[0] / 13;
        uint64_t led_mask = 0x1FFFULL << (13 * led);
        int seat = leader, best = 0, best_suit = led, best_value = 0;
        for (int i = 0; i < 4; i++) {
            int c = cards[i];
            uint64_t bit = 1ULL << c;
            int s = c / 13;
            if (!(hold[seat] & bit))
                return 0; /* not held */
            if (i && s != led && (hold[seat] & led_mask))
                return 0; /* a revoke */
            hold[seat] &= ~bit;
            int r = c % 13 + 2;
            int value = (ace_mask >> c & 1) ? 15 : (nullo && r == 14) ? 1 : r;
            if (i == 0) {
                best_value = value;
            } else if (s == best_suit) {
                if (value > best_value) {
                    best = i;
                    best_value = value;
                }
            } else if (s == trump) {
                best = i;
                best_suit = s;
                best_value = value;
            }
            seat = (seat + 1) & 3;
        }
        int winner = (leader + best) & 3;
        out->winner[t] = (uint8_t)winner;
        out->won[winner & 1]++;
        expected_leader = winner;
    }
    static const int SUIT_VALUE[4][4] = {
        /* cayenne S */ {4, 2, 1, 3},
        /* cayenne H */ {1, 4, 3, 2},
        /* cayenne D */ {1, 3, 4, 2},
        /* cayenne C */ {3, 2, 1, 4},
    };
    out->unit = made >= 4 ? 8 : SUIT_VALUE[out->cayenne / 13][made];
    out->honours[0] = out->honours[1] = 0;
    if (made < 4) {
        uint64_t hon = 0x1F00ULL << (13 * made); /* T J Q K A */
        out->honours[0] = __builtin_popcountll((out->holding[0] | out->holding[2]) & hon);
        out->honours[1] = __builtin_popcountll((out->holding[1] | out->holding[3]) & hon);
    }
    /* optional fields */
    o = get(h, S_pack);
    out->pack = -1;
    if (o != NULL) {
        long p = small_int(o, 0, 1);
        if (p < 0)
            return 0;
        out->pack = (int)p;
    }
    o = get(h, S_dealt_order);
    out->has_order = o != NULL;
    if (o != NULL && cards_into(o, out->order, NCARDS, NCARDS) != NCARDS)
        return 0;
    o = get(h, S_gathered);
    out->has_gathered = o != NULL;
    if (o != NULL) {
        if (!PyDict_CheckExact(o))
            return 0;
        for (int s = 0; s < 2; s++) {
            PyObject *pile = get(o, s ? S_EW : S_NS);
            if (pile == NULL || !PyList_CheckExact(pile) || PyList_GET_SIZE(pile) > 13)
                return 0;
            out->n_gathered[s] = (int)PyList_GET_SIZE(pile);
            for (int i = 0; i < out->n_gathered[s]; i++) {
                long t = small_int(PyList_GET_ITEM(pile, i), 1, 13);
                if (t < 0)
                    return 0;
                out->gathered[s][i] = (uint8_t)t;
            }
        }
    }
    o = get(h, S_collected);
    out->has_collected = o != NULL;
    if (o != NULL && cards_into(o, out->collected, NCARDS, NCARDS) != NCARDS)
        return 0;
    if (get(h, S_shuffle) != NULL)
        return 0;
    o = get(h, S_penalties);
    if (o != NULL && (!PyList_CheckExact(o) || PyList_GET_SIZE(o) != 0))
        return 0;
    o = get(h, S_claimed);
    out->has_claimed = o != NULL;
    if (o != NULL && !read_score(o, &out->claimed))
        return 0;
    return !PyErr_Occurred();
}

/* ------------------------------------------------------------------------ */
/* the checks that need more than one field                                 */

/* MISDEAL: the deal follows from dealt_order by the pattern from the dealer's left. */
static int follows_order(const Hand *h, const Pattern *pat) {
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
static int gathered_as_won(const Hand *h) {
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
static int collected_as_won(const Hand *h) {
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
/* scoring (audit/scoring.py, without revokes: a hand with one is not on this path) */

typedef struct {
    int points[2];
    int n_games;
    Game games[MAX_CLAIMED];
    int n_bonuses;
    Bonus bonuses[4];
    int games_after[2];
    int rubber_winner;
} HandScore;

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

static void score_hand(const int points[2], const int games[2], const Hand *h, int seven_double,
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
static int claim_agrees(const Score *c, const HandScore *e) {
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

/* ------------------------------------------------------------------------ */
/* the stacking statistics (audit/stacking/order.py and hands.py, pile_top="last") */

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

static double order_p_value(double soft_w) {
    const Tail *table = &G.order_one_way;
    double p = tail_p(table, -soft_w, 0);
    if (p > table->deepest)
        return p;
    int w = (int)floor(soft_w + 13 * log(2.0) / SOFT_MIN_SCALE + 1e-9);
    double bound = (double)(1 << 13) * exact_p_value(w);
    double m = p < bound ? p : bound;
    return m > G.min_p ? m : G.min_p;
}

static double soft_min_descents(const uint8_t blocks[13][4], const int *pos) {
    double e = exp(-SOFT_MIN_SCALE);
    int first[13][2], last[13][2];
    double inner[13][2];
    for (int b = 0; b < 13; b++) {
        int p0 = pos[blocks[b][0]], p1 = pos[blocks[b][1]], p2 = pos[blocks[b][2]],
            p3 = pos[blocks[b][3]];
        int d = (p1 < p0) + (p2 < p1) + (p3 < p2);
        first[b][0] = p0;
        first[b][1] = p3;
        last[b][0] = p3;
        last[b][1] = p0;
        inner[b][0] = pow(e, (double)d);
        inner[b][1] = pow(e, (double)(3 - d));
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
    return -log(total) / SOFT_MIN_SCALE;
}

static int min_cyclic_descents(const uint8_t blocks[13][4], const int *pos) {
    int first[13][2], last[13][2], inner[13][2];
    for (int b = 0; b < 13; b++) {
        int p0 = pos[blocks[b][0]], p1 = pos[blocks[b][1]], p2 = pos[blocks[b][2]],
            p3 = pos[blocks[b][3]];
        int d = (p1 < p0) + (p2 < p1) + (p3 < p2);
        first[b][0] = p0;
        first[b][1] = p3;
        last[b][0] = p3;
        last[b][1] = p0;
        inner[b][0] = d;
        inner[b][1] = 3 - d;
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

static double advance_score(const uint8_t blocks[13][4], const int *rel, const double *weights) {
    double e[4], er[4];
    for (int i = 0; i < 4; i++)
        e[i] = exp(weights[i]);
    er[0] = e[0];
    er[1] = e[3];
    er[2] = e[2];
    er[3] = e[1];
    int first[13][2], last[13][2];
    double within[13][2];
    for (int b = 0; b < 13; b++) {
        int s0 = rel[blocks[b][0]], s1 = rel[blocks[b][1]], s2 = rel[blocks[b][2]],
            s3 = rel[blocks[b][3]];
        int a = (s1 - s0) & 3, c = (s2 - s1) & 3, d = (s3 - s2) & 3;
        first[b][0] = s0;
        first[b][1] = s3;
        last[b][0] = s3;
        last[b][1] = s0;
        within[b][0] = e[a] * e[c] * e[d];
        within[b][1] = er[a] * er[c] * er[d];
    }
    double total = 0.0;
    for (int o0 = 0; o0 < 2; o0++) {
        double v0 = o0 == 0 ? within[0][0] : 0.0;
        double v1 = o0 == 1 ? within[0][1] : 0.0;
        for (int i = 1; i < 13; i++) {
            int l0 = last[i - 1][0], l1 = last[i - 1][1], f0 = first[i][0], f1 = first[i][1];
            double n0 = (v0 * e[(f0 - l0) & 3] + v1 * e[(f0 - l1) & 3]) * within[i][0];
            double n1 = (v0 * e[(f1 - l0) & 3] + v1 * e[(f1 - l1) & 3]) * within[i][1];
            v0 = n0;
            v1 = n1;
        }
        int f = first[0][o0], l0 = last[12][0], l1 = last[12][1];
        total += v0 * e[(f - l0) & 3] + v1 * e[(f - l1) & 3];
    }
    return total > 0.0 ? log(total) : -INFINITY;
}

static double oriented_score(const uint8_t *cycle, const int *rel, const double *w) {
    int prev = rel[cycle[NCARDS - 1]];
    double total = 0.0;
    for (int i = 0; i < NCARDS; i++) {
        int r = rel[cycle[i]];
        total += w[(r - prev) & 3];
        prev = r;
    }
    return total;
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

/* ------------------------------------------------------------------------ */
/* building the report's objects                                            */

static PyObject *int_list(const int *xs, int n) {
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(xs[i]);
        if (v == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, v);
    }
    return l;
}

/* dict from alternating key, value (values are stolen; NULL values fail) */
static PyObject *dict_of(int n, ...) {
    va_list ap;
    va_start(ap, n);
    PyObject *d = PyDict_New();
    int ok = d != NULL;
    for (int i = 0; i < n; i++) {
        PyObject *k = va_arg(ap, PyObject *);
        PyObject *v = va_arg(ap, PyObject *);
        if (ok && (v == NULL || PyDict_SetItem(d, k, v) < 0))
            ok = 0;
        Py_XDECREF(v);
    }
    va_end(ap);
    if (!ok) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *sides_of(int ns, int ew) {
    return dict_of(2, S_NS, PyLong_FromLong(ns), S_EW, PyLong_FromLong(ew));
}

static PyObject *new_ref(PyObject *o) {
    Py_INCREF(o);
    return o;
}

static PyObject *kind_name(int kind) {
    return new_ref(kind == 0 ? S_rubber : kind == 1 ? S_slam : S_little_slam);
}

static PyObject *score_json(const HandScore *s) {
    PyObject *games = PyList_New(s->n_games);
    PyObject *bonuses = PyList_New(s->n_bonuses);
    if (games == NULL || bonuses == NULL) {
        Py_XDECREF(games);
        Py_XDECREF(bonuses);
        return NULL;
    }
    for (int i = 0; i < s->n_games; i++) {
        PyObject *g = dict_of(2, S_side, new_ref(s->games[i].side ? S_EW : S_NS), S_value,
                              PyLong_FromLong(s->games[i].value));
        if (g == NULL)
            goto fail;
        PyList_SET_ITEM(games, i, g);
    }
    for (int i = 0; i < s->n_bonuses; i++) {
        PyObject *b = dict_of(3, S_side, new_ref(s->bonuses[i].side ? S_EW : S_NS), S_kind,
                              kind_name(s->bonuses[i].kind), S_points,
                              PyLong_FromLong(s->bonuses[i].points));
        if (b == NULL)
            goto fail;
        PyList_SET_ITEM(bonuses, i, b);
    }
    return dict_of(3, S_points, sides_of(s->points[0], s->points[1]), S_games, games, S_bonuses,
                   bonuses);
fail:
    Py_DECREF(games);
    Py_DECREF(bonuses);
    return NULL;
}

static PyObject *round_to(double x, int digits) {
    return PyObject_CallFunction(G.round_fn, "di", x, digits);
}

/* The report's `stacking` object of hand `h` against the pack's previous hand `prev`
 * (1-based number `prev_number`); Py_None when untested. A p-value below alpha is a
 * finding (STACKED_DEAL) that audit/native.py makes from this object. */
/* d[key] = value, the value stolen; 0 on failure (also for a NULL value) */
static int put(PyObject *d, PyObject *key, PyObject *value) {
    if (value == NULL)
        return 0;
    int rc = PyDict_SetItem(d, key, value);
    Py_DECREF(value);
    return rc == 0;
}

static PyObject *stacking_json(const Hand *h, const Hand *prev, int prev_number,
                               const Pattern *pat) {
    int rel[NCARDS];
    for (int s = 0; s < 4; s++) {
        int r = (s - h->dealer - 1) & 3;
        for (int i = 0; i < 13; i++)
            rel[h->deal[s][i]] = r;
    }
    /* the reference: the collected pack (its order known), else the gathering: each
     * side's pile read from its last trick, N-S's pile first, each trick either way */
    int oriented = prev->has_collected;
    uint8_t blocks[13][4];
    if (oriented) {
        memcpy(blocks, prev->collected, NCARDS);
    } else {
        int nb = 0;
        for (int s = 0; s < 2; s++)
            for (int i = prev->n_gathered[s] - 1; i >= 0; i--)
                memcpy(blocks[nb++], prev->cards[prev->gathered[s][i] - 1], 4);
    }
    const uint8_t *cycle = &blocks[0][0];
    if (!h->has_order && !pat->has_tables)
        return new_ref(Py_None);
    int together[13], spread[13], n_together = 0, n_spread = 0;
    for (int t = 0; t < 13; t++) {
        const uint8_t *c = prev->cards[t];
        int r0 = rel[c[0]], r1 = rel[c[1]], r2 = rel[c[2]], r3 = rel[c[3]];
        if (r0 == r1 && r1 == r2 && r2 == r3)
            together[n_together++] = t + 1;
        else if (((1 << r0) | (1 << r1) | (1 << r2) | (1 << r3)) == 15)
            spread[n_spread++] = t + 1;
    }
    PyObject *ev = PyDict_New();
    if (ev == NULL)
        return NULL;
    if (!put(ev, S_reference, new_ref(oriented ? S_collected : S_gathered_v)) ||
        !put(ev, S_pattern, new_ref(pat->name)) ||
        !put(ev, S_tricks_together, int_list(together, n_together)) ||
        !put(ev, S_tricks_spread, int_list(spread, n_spread)) ||
        (!oriented && !put(ev, S_direction, new_ref(S_forward))))
        goto fail;
    double p, statistic;
    PyObject *method;
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
            p = exact_p_value(w);
            p = p > G.min_p ? p : G.min_p;
            statistic = (double)w;
        } else {
            statistic = soft_min_descents(blocks, pos);
            p = order_p_value(statistic);
            w = min_cyclic_descents(blocks, pos);
        }
        int close[13], n_close = 0;
        for (int t = 0; t < 13; t++) {
            int lo = NCARDS, hi = -1;
            for (int i = 0; i < 4; i++) {
                int q = pos[prev->cards[t][i]];
                lo = q < lo ? q : lo;
                hi = q > hi ? q : hi;
            }
            if (hi - lo < CLOSE_SPAN)
                close[n_close++] = t + 1;
        }
        int k = G.riffles[w];
        method = S_m_order;
        if (!put(ev, S_method, new_ref(method)) ||
            !put(ev, S_rising_sequences, PyLong_FromLong(w)) ||
            !put(ev, S_expected_rising, new_ref(F_26)) ||
            !put(ev, S_riffles, k < THOROUGH_RIFFLES ? PyLong_FromLong(k) : new_ref(Py_None)) ||
            !put(ev, S_llr, new_ref(G.llr[w])) ||
            !put(ev, S_tricks_close, int_list(close, n_close)))
            goto fail;
    } else {
        if (oriented) {
            statistic = oriented_score(cycle, rel, pat->test_w);
            p = tail_p(&pat->oriented, statistic, 1);
        } else {
            statistic = advance_score(blocks, rel, pat->test_w);
            p = tail_p(&pat->one_way, statistic, 1);
        }
        method = S_m_hands;
        if (!put(ev, S_method, new_ref(method)) || !put(ev, S_score, round_to(statistic, 4)) ||
            !put(ev, S_riffles, new_ref(Py_None)))
            goto fail;
        if (p < EVIDENCE_P) {
            int path[13] = {0}, counts[4] = {0, 0, 0, 0}, cyc[NCARDS], n = 0;
            if (!oriented)
                best_orientation(blocks, rel, pat->test_w, path);
            for (int b = 0; b < 13; b++)
                for (int i = 0; i < 4; i++)
                    cyc[n++] = blocks[b][path[b] ? 3 - i : i];
            for (int i = 0; i < NCARDS; i++)
                counts[(rel[cyc[(i + 1) % NCARDS]] - rel[cyc[i]]) & 3]++;
            if (!put(ev, S_advances, int_list(counts, 4)))
                goto fail;
            double best = 0.0;
            for (int k = 0; k < pat->n_riffles; k++) {
                double sc = oriented ? oriented_score(cycle, rel, pat->riffle_w[k])
                                     : advance_score(blocks, rel, pat->riffle_w[k]);
                if (sc > best) {
                    best = sc;
                    if (!put(ev, S_riffles, PyLong_FromLong(k)))
                        goto fail;
                }
            }
        }
    }
    return dict_of(5, S_p_value, PyFloat_FromDouble(p), S_statistic,
                   PyFloat_FromDouble(statistic), S_method, new_ref(method), S_evidence, ev,
                   S_reference_hand, PyLong_FromLong(prev_number));
fail:
    Py_DECREF(ev);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* the score sheet                                                          */

typedef struct {
    PyObject *cols[2]; /* lists of column entries */
    PyObject *extra[2]; /* slam bonuses, in the order won */
    int rubber_bonus[2];
    int games[2];
    int winner;
    int first_hand;
    int used;
} Rubber;

static int rubber_init(Rubber *r) {
    memset(r, 0, sizeof *r);
    r->winner = -1;
    r->first_hand = -1;
    for (int s = 0; s < 2; s++) {
        r->cols[s] = PyList_New(0);
        r->extra[s] = PyList_New(0);
        if (r->cols[s] == NULL || r->extra[s] == NULL)
            return 0;
    }
    r->used = 1;
    return 1;
}

static void rubber_free(Rubber *r) {
    for (int s = 0; s < 2; s++) {
        Py_XDECREF(r->cols[s]);
        Py_XDECREF(r->extra[s]);
    }
}

static int append_int(PyObject *list, long v) {
    PyObject *o = PyLong_FromLong(v);
    if (o == NULL)
        return -1;
    int rc = PyList_Append(list, o);
    Py_DECREF(o);
    return rc;
}

static PyObject *rubber_json(const Rubber *r) {
    PyObject *sheet[2] = {NULL, NULL};
    long totals[2] = {0, 0};
    for (int s = 0; s < 2; s++) {
        sheet[s] = PySequence_List(r->cols[s]);
        if (sheet[s] == NULL)
            goto fail;
        if (r->rubber_bonus[s] && append_int(sheet[s], 8) < 0)
            goto fail;
        Py_ssize_t n = PyList_GET_SIZE(r->extra[s]);
        for (Py_ssize_t i = 0; i < n; i++)
            if (PyList_Append(sheet[s], PyList_GET_ITEM(r->extra[s], i)) < 0)
                goto fail;
        n = PyList_GET_SIZE(sheet[s]);
        for (Py_ssize_t i = 0; i < n; i++)
            totals[s] += PyLong_AsLong(PyList_GET_ITEM(sheet[s], i));
    }
    PyObject *obj = dict_of(4, S_winner,
                            r->winner < 0 ? new_ref(Py_None)
                                          : new_ref(r->winner ? S_EW : S_NS),
                            S_games, sides_of(r->games[0], r->games[1]), S_sheet,
                            dict_of(2, S_NS, sheet[0], S_EW, sheet[1]), S_totals,
                            sides_of(totals[0], totals[1]));
    if (obj != NULL && r->winner >= 0) {
        PyObject *v = PyLong_FromLong(totals[r->winner] - totals[r->winner ^ 1]);
        if (v == NULL || PyDict_SetItem(obj, S_value, v) < 0)
            Py_CLEAR(obj);
        Py_XDECREF(v);
    }
    return obj;
fail:
    Py_XDECREF(sheet[0]);
    Py_XDECREF(sheet[1]);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* audit_hands(hands, pattern, seven_double, points, games, prior_sheet, independent)
 *   -> (hands_json, rubbers_json) or None                                   */

static const Pattern *find_pattern(PyObject *pattern) {
    if (!PyTuple_Check(pattern))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(pattern);
    for (int i = 0; i < G.n_patterns; i++) {
        const Pattern *p = &G.patterns[i];
        if (p->len != n)
            continue;
        int same = 1;
        for (Py_ssize_t j = 0; j < n && same; j++)
            same = PyLong_AsLong(PyTuple_GET_ITEM(pattern, j)) == p->sizes[j];
        if (same)
            return p;
    }
    return NULL;
}

static PyObject *audit_hands(PyObject *self, PyObject *args) {
    PyObject *hands_raw, *pattern_obj, *prior;
    int seven_double, independent;
    int p0, p1, g0, g1;
    if (!PyArg_ParseTuple(args, "O!Op(ii)(ii)Op", &PyList_Type, &hands_raw, &pattern_obj,
                          &seven_double, &p0, &p1, &g0, &g1, &prior, &independent))
        return NULL;
    if (!G.configured) {
        PyErr_SetString(PyExc_RuntimeError, "audit._fastaudit: configure() was not called");
        return NULL;
    }
    const Pattern *pat = find_pattern(pattern_obj);
    if (pat == NULL)
        Py_RETURN_NONE; /* a pattern this path was not told about */
    Py_ssize_t n = PyList_GET_SIZE(hands_raw);
    Hand *hands = PyMem_Malloc((n ? n : 1) * sizeof(Hand));
    if (hands == NULL)
        return PyErr_NoMemory();
    PyObject *out_hands = NULL, *out_rubbers = NULL, *result = NULL;
    Rubber *rubbers = NULL;
    Py_ssize_t n_rubbers = 0;
    int fast = 1;
    /* read and replay every hand; the per-hand checks */
    for (Py_ssize_t i = 0; i < n && fast; i++) {
        Hand *h = &hands[i];
        if (!read_hand(PyList_GET_ITEM(hands_raw, i), h)) {
            fast = 0;
            break;
        }
        if (h->has_order && !follows_order(h, pat))
            fast = 0;
        else if (h->has_gathered && !gathered_as_won(h))
            fast = 0;
        else if (h->has_collected && !collected_as_won(h))
            fast = 0;
        else if (!independent && i > 0) {
            const Hand *prev = &hands[i - 1];
            if (h->dealer != ((prev->dealer + 1) & 3))
                fast = 0;
            if (h->pack >= 0 && prev->pack >= 0 && h->pack == prev->pack)
                fast = 0;
        }
    }
    if (!fast || PyErr_Occurred())
        goto done;
    /* score from the start; the claims */
    rubbers = PyMem_Calloc(n + 1, sizeof(Rubber));
    out_hands = PyList_New(n);
    if (rubbers == NULL || out_hands == NULL)
        goto error;
    if (!rubber_init(&rubbers[0]))
        goto error;
    n_rubbers = 1;
    rubbers[0].games[0] = g0;
    rubbers[0].games[1] = g1;
    if (prior != Py_None) {
        /* (ns entries, ew entries): columns, the shorter padded with 0 */
        PyObject *ns = PyTuple_GET_ITEM(prior, 0), *ew = PyTuple_GET_ITEM(prior, 1);
        Py_ssize_t a = PyTuple_GET_SIZE(ns), b = PyTuple_GET_SIZE(ew);
        Py_ssize_t width = a > b ? a : b;
        for (Py_ssize_t k = 0; k < width; k++) {
            if (k < a ? PyList_Append(rubbers[0].cols[0], PyTuple_GET_ITEM(ns, k)) < 0
                      : append_int(rubbers[0].cols[0], 0) < 0)
                goto error;
            if (k < b ? PyList_Append(rubbers[0].cols[1], PyTuple_GET_ITEM(ew, k)) < 0
                      : append_int(rubbers[0].cols[1], 0) < 0)
                goto error;
        }
    }
    int points[2] = {p0, p1}, games[2] = {g0, g1};
    for (Py_ssize_t i = 0; i < n; i++) {
        Hand *h = &hands[i];
        HandScore s;
        score_hand(points, games, h, seven_double, &s);
        if (h->has_claimed && !claim_agrees(&h->claimed, &s)) {
            fast = 0;
            goto done;
        }
        Rubber *r = &rubbers[n_rubbers - 1];
        if (r->first_hand < 0)
            r->first_hand = (int)i + 1;
        for (int k = 0; k < s.n_games; k++) {
            int side = s.games[k].side;
            if (append_int(r->cols[side], s.games[k].value) < 0 ||
                append_int(r->cols[side ^ 1], 0) < 0)
                goto error;
            r->games[side]++;
        }
        for (int k = 0; k < s.n_bonuses; k++) {
            if (s.bonuses[k].kind == 0)
                r->rubber_bonus[s.bonuses[k].side] = 1;
            else if (append_int(r->extra[s.bonuses[k].side], s.bonuses[k].points) < 0)
                goto error;
        }
        points[0] = s.points[0];
        points[1] = s.points[1];
        games[0] = s.games_after[0];
        games[1] = s.games_after[1];
        if (s.rubber_winner >= 0) {
            r->winner = s.rubber_winner;
            if (!rubber_init(&rubbers[n_rubbers]))
                goto error;
            n_rubbers++;
        }
        /* the hand's report entry */
        PyObject *entry = dict_of(
            6, S_hand, PyLong_FromSsize_t(i + 1), S_dealer, new_ref(S_seat_name[h->dealer]),
            S_contract, new_ref(S_contract_name[h->contract]), S_unit, PyLong_FromLong(h->unit),
            S_tricks, sides_of(h->won[0], h->won[1]), S_score, score_json(&s));
        if (entry == NULL)
            goto error;
        PyList_SET_ITEM(out_hands, i, entry);
    }
    /* the stacking tests, each deal against its pack's previous hand */
    if (!independent) {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t j = -1;
            if (hands[i].pack < 0) {
                j = i >= 2 ? i - 2 : -1;
            } else {
                for (Py_ssize_t k = i - 1; k >= 0; k--)
                    if (hands[k].pack == hands[i].pack) {
                        j = k;
                        break;
                    }
            }
            if (j < 0 || !(hands[j].has_gathered || hands[j].has_collected))
                continue;
            PyObject *info = stacking_json(&hands[i], &hands[j], (int)j + 1, pat);
            if (info == NULL)
                goto error;
            if (info == Py_None) {
                Py_DECREF(info);
                continue;
            }
            int rc = PyDict_SetItem(PyList_GET_ITEM(out_hands, i), S_stacking, info);
            Py_DECREF(info);
            if (rc < 0)
                goto error;
        }
    }
    out_rubbers = PyList_New(0);
    if (out_rubbers == NULL)
        goto error;
    for (Py_ssize_t k = 0; k < n_rubbers; k++) {
        const Rubber *r = &rubbers[k];
        int empty = r->first_hand < 0 && PyList_GET_SIZE(r->cols[0]) == 0;
        if (empty && k == n_rubbers - 1 && n_rubbers > 1)
            continue;
        PyObject *obj = rubber_json(r);
        if (obj == NULL)
            goto error;
        int rc = PyList_Append(out_rubbers, obj);
        Py_DECREF(obj);
        if (rc < 0)
            goto error;
    }
    result = PyTuple_Pack(2, out_hands, out_rubbers);
    goto done;
error:
    fast = 1; /* an exception is set: report it */
done:
    if (rubbers != NULL) {
        for (Py_ssize_t k = 0; k < n_rubbers; k++)
            rubber_free(&rubbers[k]);
        PyMem_Free(rubbers);
    }
    PyMem_Free(hands);
    Py_XDECREF(out_hands);
    Py_XDECREF(out_rubbers);
    if (result != NULL)
        return result;
    if (PyErr_Occurred())
        return NULL;
    (void)fast;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------ */
/* configure(cdf, riffles, llr, order_tail, min_p, patterns)                  */

static int read_doubles(PyObject *seq, double *out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(seq, i));
        if (out[i] == -1.0 && PyErr_Occurred())
            return 0;
    }
    return 1;
}

/* tail: (grid tuple, steps, deepest) */
static int read_tail(PyObject *t, Tail *out) {
    PyObject *grid;
    if (!PyArg_ParseTuple(t, "O!id", &PyTuple_Type, &grid, &out->steps, &out->deepest))
        return 0;
    out->n = PyTuple_GET_SIZE(grid);
    if (out->n < 2 || out->steps < 1) {
        PyErr_SetString(PyExc_ValueError, "a tail table needs two values and steps");
        return 0;
    }
    out->grid = PyMem_Malloc(out->n * sizeof(double));
    if (out->grid == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    return read_doubles(grid, out->grid, out->n);
}

static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *cdf, *riffles, *llr, *order_tail, *patterns;
    double min_p;
    if (G.configured) {
        Py_RETURN_NONE; /* once per process: the tables are constants */
    }
    if (!PyArg_ParseTuple(args, "O!O!O!OdO!", &PyTuple_Type, &cdf, &PyTuple_Type, &riffles,
                          &PyTuple_Type, &llr, &order_tail, &min_p, &PyTuple_Type, &patterns))
        return NULL;
    if (PyTuple_GET_SIZE(cdf) != NCARDS + 1 || PyTuple_GET_SIZE(riffles) != NCARDS + 1 ||
        PyTuple_GET_SIZE(llr) != NCARDS + 1 || PyTuple_GET_SIZE(patterns) > MAX_PATTERNS) {
        PyErr_SetString(PyExc_ValueError, "configure: tables of the wrong size");
        return NULL;
    }
    if (!read_doubles(cdf, G.cdf, NCARDS + 1))
        return NULL;
    for (int w = 0; w <= NCARDS; w++) {
        G.riffles[w] = (int)PyLong_AsLong(PyTuple_GET_ITEM(riffles, w));
        G.llr[w] = new_ref(PyTuple_GET_ITEM(llr, w));
    }
    if (PyErr_Occurred() || !read_tail(order_tail, &G.order_one_way))
        return NULL;
    G.min_p = min_p;
    G.n_patterns = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(patterns); i++) {
        /* (sizes, name, tables or None); tables: (test_w, riffle_ws, one_way, oriented) */
        Pattern *p = &G.patterns[i];
        PyObject *sizes, *name, *tables;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(patterns, i), "O!UO", &PyTuple_Type, &sizes,
                              &name, &tables))
            return NULL;
        p->len = (int)PyTuple_GET_SIZE(sizes);
        if (p->len < 1 || p->len > 13) {
            PyErr_SetString(PyExc_ValueError, "configure: a pattern of 1 to 13 packets");
            return NULL;
        }
        for (int k = 0; k < p->len; k++)
            p->sizes[k] = (int)PyLong_AsLong(PyTuple_GET_ITEM(sizes, k));
        p->name = new_ref(name);
        p->has_tables = tables != Py_None;
        if (p->has_tables) {
            PyObject *tw, *rw, *tail, *otail;
            if (!PyArg_ParseTuple(tables, "O!O!OO", &PyTuple_Type, &tw, &PyTuple_Type, &rw, &tail,
                                  &otail))
                return NULL;
            if (PyTuple_GET_SIZE(tw) != 4 || !read_doubles(tw, p->test_w, 4))
                return NULL;
            p->n_riffles = (int)PyTuple_GET_SIZE(rw);
            p->riffle_w = PyMem_Malloc((p->n_riffles ? p->n_riffles : 1) * sizeof(double[4]));
            if (p->riffle_w == NULL)
                return PyErr_NoMemory();
            for (int k = 0; k < p->n_riffles; k++) {
                PyObject *ws = PyTuple_GET_ITEM(rw, k);
                if (!PyTuple_Check(ws) || PyTuple_GET_SIZE(ws) != 4 ||
                    !read_doubles(ws, p->riffle_w[k], 4))
                    return NULL;
            }
            if (!read_tail(tail, &p->one_way) || !read_tail(otail, &p->oriented))
                return NULL;
        }
        G.n_patterns++;
    }
    if (PyErr_Occurred())
        return NULL;
    G.configured = 1;
    Py_RETURN_NONE;
}

static PyObject *is_configured(PyObject *self, PyObject *noargs) {
    return PyBool_FromLong(G.configured);
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS, "Hand over the detector's tables (once)."},
    {"is_configured", is_configured, METH_NOARGS, "Whether configure() has run."},
    {"audit_hands", audit_hands, METH_VARARGS,
     "The report's hands and rubbers for a record in order, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastaudit",
                                    "The auditor's native fast path.", -1, methods};

#define INTERN(var, text)                                                                      \
    do {                                                                                       \
        if ((var = PyUnicode_InternFromString(text)) == NULL)                                  \
            return NULL;                                                                       \
    } while (0)

PyMODINIT_FUNC PyInit__fastaudit(void) {
    INTERN(S_dealer, "dealer");
    INTERN(S_deal, "deal");
    INTERN(S_cayenne, "cayenne");
    INTERN(S_calls, "calls");
    INTERN(S_tricks, "tricks");
    INTERN(S_pack, "pack");
    INTERN(S_dealt_order, "dealt_order");
    INTERN(S_gathered, "gathered");
    INTERN(S_collected, "collected");
    INTERN(S_penalties, "penalties");
    INTERN(S_claimed, "claimed");
    INTERN(S_shuffle, "shuffle");
    INTERN(S_seat, "seat");
    INTERN(S_call, "call");
    INTERN(S_leader, "leader");
    INTERN(S_cards, "cards");
    INTERN(S_ace_high, "ace_high");
    INTERN(S_NS, "NS");
    INTERN(S_EW, "EW");
    INTERN(S_points, "points");
    INTERN(S_games, "games");
    INTERN(S_bonuses, "bonuses");
    INTERN(S_side, "side");
    INTERN(S_value, "value");
    INTERN(S_kind, "kind");
    INTERN(S_hand, "hand");
    INTERN(S_contract, "contract");
    INTERN(S_unit, "unit");
    INTERN(S_score, "score");
    INTERN(S_stacking, "stacking");
    INTERN(S_p_value, "p_value");
    INTERN(S_statistic, "statistic");
    INTERN(S_method, "method");
    INTERN(S_evidence, "evidence");
    INTERN(S_reference_hand, "reference_hand");
    INTERN(S_reference, "reference");
    INTERN(S_pattern, "pattern");
    INTERN(S_tricks_together, "tricks_together");
    INTERN(S_tricks_spread, "tricks_spread");
    INTERN(S_direction, "direction");
    INTERN(S_rising_sequences, "rising_sequences");
    INTERN(S_expected_rising, "expected_rising_sequences");
    INTERN(S_riffles, "riffles");
    INTERN(S_llr, "log_likelihood_ratio");
    INTERN(S_tricks_close, "tricks_close");
    INTERN(S_advances, "advances");
    INTERN(S_winner, "winner");
    INTERN(S_sheet, "sheet");
    INTERN(S_totals, "totals");
    INTERN(S_rubber, "rubber");
    INTERN(S_slam, "slam");
    INTERN(S_little_slam, "little_slam");
    INTERN(S_gathered_v, "gathered");
    INTERN(S_forward, "last trick of each pile on top");
    INTERN(S_m_order, "rising-sequences");
    INTERN(S_m_hands, "hands");
    INTERN(S_pass, "pass");
    const char *seats[4] = {"N", "E", "S", "W"};
    for (int i = 0; i < 4; i++)
        INTERN(S_seat_name[i], seats[i]);
    const char *contracts[6] = {"S", "H", "D", "C", "grand", "nullo"};
    for (int i = 0; i < 6; i++)
        INTERN(S_contract_name[i], contracts[i]);
    if ((F_26 = PyFloat_FromDouble(26.0)) == NULL)
        return NULL;
    PyObject *builtins = PyEval_GetBuiltins();
    G.round_fn = builtins ? PyDict_GetItemString(builtins, "round") : NULL;
    if (G.round_fn == NULL)
        return NULL;
    Py_INCREF(G.round_fn);
    return PyModule_Create(&module);
}

/* Reading one hand of the parsed JSON, and its replay (audit/rules/replay.py, the happy path). */
#include "fastaudit.h"

/* ------------------------------------------------------------------------ */
/* small helpers                                                            */

static const int RANK_INDEX[128] = {
    ['2'] = 1, ['3'] = 2, ['4'] = 3, ['5'] = 4, ['6'] = 5, ['7'] = 6, ['8'] = 7,
    ['9'] = 8, ['T'] = 9, ['J'] = 10, ['Q'] = 11, ['K'] = 12, ['A'] = 13,
}; /* rank - 1, so that 0 means "not a rank" */
static const int SUIT_INDEX[128] = {['S'] = 1, ['H'] = 2, ['D'] = 3, ['C'] = 4};

/* A card's number (suit * 13 + rank - 2), or -1 when `o` is not certainly a card. */
int card_of(PyObject *o) {
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

PyObject *get(PyObject *d, PyObject *key) { return PyDict_GetItemWithError(d, key); }

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

int read_hand(PyObject *h, Hand *out) {
    if (!PyDict_CheckExact(h))
        return 0;
    if (get(h, S_void) != NULL)
        return 0; /* a voided deal: the Python auditor reports it */
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
        if (get(tr, S_corrected) != NULL)
            return 0; /* a corrected revoke: the Python auditor reports it */
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
    o = get(h, S_board);
    out->board = -1;
    if (o != NULL && (out->board = small_int(o, 1, -1)) < 0)
        return 0;
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
    /* A commit-reveal transcript is checked by Python (audit.native, with the shuffle
     * check's own function) once the hands are in order; here it need only be an object. */
    o = get(h, S_shuffle);
    if (o != NULL && !PyDict_CheckExact(o))
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


/* Double-dummy solver for Cayenne (audit.native._ddsolve), the fast path of
 * audit/analysis/solver.py, whose pure-Python search is its oracle in the tests.
 *
 * A card is suit * 13 + (rank - 2) as in audit/rules/cards.py; a hand is a 52-bit mask.
 * The search answers one question, "can the maximising side make the counted side take
 * at least t more tricks?" (a null-window search on a trick target), and the exact
 * value is found by moving t between the bounds. Trump and grand: the counted side is
 * the contract side and it maximises. Nullo: the counted side is still the contract side
 * but its adversaries maximise (both sides avoid tricks).
 *
 * At each trick boundary a transposition table keyed on rank-equivalent holdings (for
 * each suit, who holds its remaining cards in rank order: positions that differ only in
 * which small cards are gone are one entry) stores lower and upper bounds on the
 * counted side's tricks from there. Quick tricks (the leader's run of top cards) bound
 * trump and grand positions; cards of one hand with no other card between them are
 * collapsed into one move; moves are ordered by a cheap trick-winning heuristic. In a
 * nullo an ace in the suit led (or led) is two moves, low (below the deuce) and
 * declared high (above the king), and is never collapsed with its neighbours.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define TT_BITS 20
#define TT_SIZE (1u << TT_BITS)
#define SUIT13 0x1FFFull

typedef struct {
    uint64_t k1, k2;
    uint32_t gen;
    int8_t lb, ub;
    int8_t best_suit, best_rel; /* the lead that last decided the search, by relative rank */
} Entry;

typedef struct {
    uint64_t h[4];
    int trump;      /* -1: none */
    int nullo;
    int counted;    /* side whose tricks are counted (seat & 1) */
    int maxside;    /* side that maximises the counted tricks */
    int leader;     /* leader of the current trick */
    int ncur;       /* cards in the current trick */
    int cur[4];
    int win_idx, win_val, win_suit, led;
    int remaining;  /* tricks left, the current one included */
} State;

static Entry *tt = NULL;
static uint32_t gen = 0;
static long nodes = 0;

static inline int lowbit(uint64_t m) { return __builtin_ctzll(m); }
static inline int card_val(const State *s, int card, int high) {
    int r = card % 13;
    if (s->nullo && r == 12) return high ? 13 : -1;
    return r;
}

static void make_key(const State *s, uint64_t *k1, uint64_t *k2) {
    uint64_t parts[4];
    uint64_t aces = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint64_t code = 0;
        int n = 0;
        for (int r = 12; r >= 0; r--) {
            int c = suit * 13 + r;
            for (int p = 0; p < 4; p++) {
                if (s->h[p] >> c & 1) {
                    code = code << 2 | (uint64_t)p;
                    n++;
                    break;
                }
            }
        }
        if (s->nullo) {
            int ace = suit * 13 + 12;
            if ((s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> ace & 1) aces |= 1ull << suit;
        }
        parts[suit] = code << 4 | (uint64_t)n;
    }
    *k1 = parts[0] | parts[1] << 30 | aces << 60;
    *k2 = parts[2] | parts[3] << 30 | (uint64_t)s->leader << 60;
}

static inline Entry *tt_slot(uint64_t k1, uint64_t k2) {
    uint64_t x = k1 * 0x9E3779B97F4A7C15ull ^ (k2 + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 29;
    return &tt[x & (TT_SIZE - 1)];
}

/* The leader's run of top cards in one suit: cards that win when led. */
static int top_run(const State *s, int seat, int suit) {
    uint64_t all = (s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> (suit * 13) & SUIT13;
    uint64_t mine = s->h[seat] >> (suit * 13) & SUIT13;
    int n = 0;
    for (int r = 12; r >= 0; r--) {
        if (!(all >> r & 1)) continue;
        if (!(mine >> r & 1)) break;
        n++;
    }
    return n;
}

/* Tricks the leader takes by running his top cards: trumps first, then each side suit
 * for as long as every adversary who still holds a trump must follow to it (so no
 * adversary's holding in another suit changes while a suit is run). */
static int quick_tricks(const State *s) {
    int seat = s->leader;
    int q = 0;
    if (s->trump >= 0) q += top_run(s, seat, s->trump);
    for (int suit = 0; suit < 4; suit++) {
        if (suit == s->trump) continue;
        int k = top_run(s, seat, suit);
        if (s->trump >= 0) {
            for (int o = 1; o <= 3; o += 2) {
                uint64_t oh = s->h[(seat + o) & 3];
                if (!(oh >> (s->trump * 13) & SUIT13)) continue;
                int len = __builtin_popcountll(oh >> (suit * 13) & SUIT13);
                if (len < k) k = len;
            }
        }
        q += k;
    }
    return q;
}

typedef struct { int8_t card, high; int16_t score; } Move;

/* Legal moves of the seat to play, equivalent cards collapsed, best guess first. */
static int gen_moves(const State *s, Move *out, int pref_suit, int pref_rel) {
    int seat = (s->leader + s->ncur) & 3;
    uint64_t hand = s->h[seat];
    uint64_t legal = hand;
    if (s->ncur > 0) {
        uint64_t f = hand & (SUIT13 << (s->led * 13));
        if (f) legal = f;
    }
    uint64_t present = s->h[0] | s->h[1] | s->h[2] | s->h[3];
    for (int i = 0; i < s->ncur; i++) present |= 1ull << s->cur[i];
    int side = seat & 1;
    int wants = s->nullo ? 0 : 1; /* does this seat's side want to win the trick? */
    int partner_winning = s->ncur > 0 && (((s->leader + s->win_idx) & 3) & 1) == side;
    int n = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint64_t m = legal >> (suit * 13) & SUIT13;
        if (!m) continue;
        int prev_kept_owned = 0; /* the card just above (in present) is ours */
        for (int r = 12; r >= 0; r--) {
            int c = suit * 13 + r;
            if (!(present >> c & 1)) continue;
            int owned = (int)(m >> r & 1);
            if (!owned) { prev_kept_owned = 0; continue; }
            int is_ace = s->nullo && r == 12;
            if (!is_ace && prev_kept_owned) { continue; }
            prev_kept_owned = is_ace ? 0 : 1;
            int nh = (is_ace && (s->ncur == 0 || suit == s->led)) ? 2 : 1;
            for (int hi = 0; hi < nh; hi++) {
                int v = card_val(s, c, hi);
                int score;
                if (s->ncur == 0) {
                    score = -v;
                    if (!s->nullo) {
                        uint64_t all = present >> (suit * 13) & SUIT13;
                        int top = 63 - __builtin_clzll(all);
                        score = (r == top) ? 100 + r : -r;
                    }
                    if (suit == pref_suit &&
                        __builtin_popcountll((present >> (suit * 13) & SUIT13) >> (r + 1)) == pref_rel)
                        score = 1000;
                } else {
                    int beats;
                    if (suit == s->win_suit) beats = v > s->win_val;
                    else beats = (suit == s->trump);
                    if (wants) {
                        if (partner_winning) score = beats ? -50 - v : -v;
                        else score = beats ? 100 - v : -v - (suit == s->trump ? 30 : 0);
                    } else {
                        score = beats ? -100 - v : v;
                    }
                }
                out[n].card = (int8_t)c;
                out[n].high = (int8_t)hi;
                out[n].score = (int16_t)score;
                n++;
            }
        }
    }
    /* insertion sort, best score first */
    for (int i = 1; i < n; i++) {
        Move x = out[i];
        int j = i - 1;
        while (j >= 0 && out[j].score < x.score) { out[j + 1] = out[j]; j--; }
        out[j + 1] = x;
    }
    return n;
}

/* Plays a move; returns the side that won the trick, or -1 if it goes on. */
static int play(State *s, int card, int high) {
    int seat = (s->leader + s->ncur) & 3;
    s->h[seat] &= ~(1ull << card);
    int v = card_val(s, card, high), suit = card / 13;
    if (s->ncur == 0) {
        s->led = suit; s->win_suit = suit; s->win_val = v; s->win_idx = 0;
    } else if (suit == s->win_suit) {
        if (v > s->win_val) { s->win_val = v; s->win_idx = s->ncur; }
    } else if (suit == s->trump) {
        s->win_suit = suit; s->win_val = v; s->win_idx = s->ncur;
    }
    s->cur[s->ncur++] = card;
    if (s->ncur < 4) return -1;
    int winner = (s->leader + s->win_idx) & 3;
    s->leader = winner;
    s->ncur = 0;
    s->remaining--;
    return winner & 1;
}

static int search(State *s, int t) {
    if (t <= 0) return 1;
    if (t > s->remaining) return 0;
    nodes++;
    Entry *e = NULL;
    uint64_t k1 = 0, k2 = 0;
    int pref_suit = -1, pref_rel = -1;
    if (s->ncur == 0) {
        make_key(s, &k1, &k2);
        e = tt_slot(k1, k2);
        if (e->gen == gen && e->k1 == k1 && e->k2 == k2) {
            if (e->lb >= t) return 1;
            if (e->ub < t) return 0;
            pref_suit = e->best_suit;
            pref_rel = e->best_rel;
        }
        if (!s->nullo) {
            int q = quick_tricks(s);
            int lside = s->leader & 1;
            if (lside == s->counted && q >= t) return 1;
            if (lside != s->counted && s->remaining - q < t) return 0;
        }
    }
    Move mv[20];
    int n = gen_moves(s, mv, pref_suit, pref_rel);
    int seat = (s->leader + s->ncur) & 3;
    int is_max = (seat & 1) == s->maxside;
    int result = is_max ? 0 : 1;
    int decided = 0;
    for (int i = 0; i < n; i++) {
        State save = *s;
        int w = play(s, mv[i].card, mv[i].high);
        int r = search(s, (w == s->counted) ? t - 1 : t);
        *s = save;
        if (is_max && r) { result = 1; decided = i; break; }
        if (!is_max && !r) { result = 0; decided = i; break; }
    }
    if (e != NULL) {
        if (!(e->gen == gen && e->k1 == k1 && e->k2 == k2)) {
            e->gen = gen; e->k1 = k1; e->k2 = k2; e->lb = 0; e->ub = (int8_t)s->remaining;
        }
        if (n > 0) {
            int c = mv[decided].card, suit = c / 13;
            uint64_t all = (s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> (suit * 13) & SUIT13;
            e->best_suit = (int8_t)suit;
            e->best_rel = (int8_t)__builtin_popcountll(all >> (c % 13 + 1));
        }
        if (result) { if (e->lb < t) e->lb = (int8_t)t; }
        else { if (e->ub > t - 1) e->ub = (int8_t)(t - 1); }
    }
    return result;
}

/* Exact number of counted tricks from a position, by moving a null window. */
static int exact(State *s, int guess) {
    int lo = 0, hi = s->remaining; /* lo <= value <= hi */
    if (guess < lo) guess = lo;
    if (guess > hi) guess = hi;
    while (lo < hi) {
        int t = guess;
        if (t <= lo) t = lo + 1;
        if (t > hi) t = hi;
        if (search(s, t)) lo = t; else hi = t - 1;
        guess = (lo + hi + 1) / 2;
    }
    return lo;
}

/* solve(hands, trump, nullo, counted, leader, trick, trick_high) ->
 *   list of (card, high, counted tricks from the current trick on)
 * hands: four 52-bit masks (cards still held, by seat N E S W); trick: cards of the
 * current trick in play order; trick_high: 0/1 for each. */
static PyObject *py_solve(PyObject *self, PyObject *args) {
    PyObject *hands, *trick, *trick_high;
    int trump, nullo, counted, leader;
    (void)self;
    if (!PyArg_ParseTuple(args, "OiiiiOO", &hands, &trump, &nullo, &counted, &leader, &trick,
                          &trick_high))
        return NULL;
    State s;
    memset(&s, 0, sizeof s);
    if (!PySequence_Check(hands) || PySequence_Size(hands) != 4) {
        PyErr_SetString(PyExc_ValueError, "hands: four masks");
        return NULL;
    }
    int total = 0;
    for (int p = 0; p < 4; p++) {
        PyObject *o = PySequence_GetItem(hands, p);
        if (!o) return NULL;
        s.h[p] = PyLong_AsUnsignedLongLong(o);
        Py_DECREF(o);
        if (PyErr_Occurred()) return NULL;
        total += __builtin_popcountll(s.h[p]);
    }
    Py_ssize_t nt = PySequence_Size(trick);
    if (nt < 0 || nt > 3 || PySequence_Size(trick_high) != nt) {
        PyErr_SetString(PyExc_ValueError, "trick: up to three cards");
        return NULL;
    }
    s.trump = trump; s.nullo = nullo; s.counted = counted;
    s.maxside = nullo ? counted ^ 1 : counted;
    s.leader = leader & 3;
    s.remaining = (total + (int)nt) / 4;
    for (Py_ssize_t i = 0; i < nt; i++) {
        PyObject *o = PySequence_GetItem(trick, i);
        PyObject *q = PySequence_GetItem(trick_high, i);
        if (!o || !q) { Py_XDECREF(o); Py_XDECREF(q); return NULL; }
        int c = (int)PyLong_AsLong(o), hi = PyObject_IsTrue(q);
        Py_DECREF(o); Py_DECREF(q);
        if (PyErr_Occurred()) return NULL;
        /* play() removes the card from the hand: put it back first */
        int seat = (s.leader + s.ncur) & 3;
        s.h[seat] |= 1ull << c;
        play(&s, c, hi);
    }
    if (tt == NULL) {
        tt = (Entry *)PyMem_RawCalloc(TT_SIZE, sizeof(Entry));
        if (!tt) return PyErr_NoMemory();
    }
    gen++;
    if (gen == 0) { memset(tt, 0, TT_SIZE * sizeof(Entry)); gen = 1; }
    /* every legal move, none collapsed, at the root */
    int seat = (s.leader + s.ncur) & 3;
    uint64_t legal = s.h[seat];
    if (s.ncur > 0 && (legal & (SUIT13 << (s.led * 13)))) legal &= SUIT13 << (s.led * 13);
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    int guess = s.remaining / 2;
    for (uint64_t m = legal; m; m &= m - 1) {
        int c = lowbit(m);
        int nh = (nullo && c % 13 == 12) ? 2 : 1;
        for (int hi = 0; hi < nh; hi++) {
            State save = s;
            int w = play(&s, c, hi);
            int v = (w == s.counted ? 1 : 0);
            v += exact(&s, guess - v);
            s = save;
            guess = v;
            PyObject *item = Py_BuildValue("(iii)", c, hi, v);
            if (!item || PyList_Append(out, item) < 0) { Py_XDECREF(item); Py_DECREF(out); return NULL; }
            Py_DECREF(item);
        }
    }
    return out;
}

static PyObject *py_nodes(PyObject *self, PyObject *args) {
    (void)self; (void)args;
    return PyLong_FromLong(nodes);
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS, "Counted tricks from the current trick on, per legal move."},
    {"nodes", py_nodes, METH_NOARGS, "Nodes searched since the module was loaded."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ddsolve", NULL, -1, methods};

PyMODINIT_FUNC PyInit__ddsolve(void) { return PyModule_Create(&module); }

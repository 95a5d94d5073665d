/*
 * The auditor's native fast path: what its C files share (audit/native/csrc/).
 *
 * module.c  the Python module: audit_hands() and configure(), the tables it is handed
 * hand.c    reading one hand of the parsed JSON, and its replay
 * checks.c  the checks across fields: dealt_order, gathered, collected; the scorer
 * stacking.c the stacking statistics and the report's `stacking` object
 * report.c  building the report's objects; the score sheet
 *
 * See module.c for what the fast path does and how it is held to the Python auditor.
 */
#ifndef FAIRPLAY_FASTAUDIT_H
#define FAIRPLAY_FASTAUDIT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* Array bounds. NCARDS and MAX_PATTERNS are exported to Python, which checks them against
 * its own values at configure(); MAX_CLAIMED is this path's own limit (a longer claim
 * goes to the Python auditor). Every scalar of the detector comes from Python:
 * configure() hands it over (Tables below). */
#define NCARDS 52
#define MAX_PATTERNS 8
#define MAX_CLAIMED 8

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
    double pair_w[4][4]; /* the hands statistic's pair weights */
    double plain_w[4];   /* the mixture's other half: single weights */
    double chain_offset; /* subtracted from the chain's score before mixing */
    double orient_w[4];  /* single weights that pick the evidence's trick orientation */
    int n_riffles;
    double (*riffle_w)[4];
    /* exp() of the weights above, taken once by configure() (advance_score multiplies
     * them): the same doubles it took per call before */
    double e_test[4], e_pair[4][4], e_plain[4];
    double (*e_riffle)[4];
    Tail two_way;  /* orientations and direction unknown (gathered) */
    Tail oriented; /* card order known (collected) */
} Pattern;

typedef struct {
    int configured;
    double cdf[NCARDS + 1];
    int riffles[NCARDS + 1];
    PyObject *llr[NCARDS + 1];
    Tail order_two_way;
    double min_p;
    int n_patterns;
    Pattern patterns[MAX_PATTERNS];
    PyObject *round_fn;
    /* the detector's scalars (audit.stacking.detector, audit.stacking.order) */
    double evidence_p; /* EVIDENCE_P */
    int close_span; /* CLOSE_SPAN */
    int thorough_riffles; /* THOROUGH_RIFFLES */
    double soft_min_scale; /* SOFT_MIN_SCALE */
} Tables;

extern Tables G;

/* interned strings: X(variable, text) */
#define FA_STRINGS(X) \
    X(S_dealer, "dealer") \
    X(S_board, "board") \
    X(S_deal, "deal") \
    X(S_cayenne, "cayenne") \
    X(S_calls, "calls") \
    X(S_tricks, "tricks") \
    X(S_pack, "pack") \
    X(S_dealt_order, "dealt_order") \
    X(S_gathered, "gathered") \
    X(S_collected, "collected") \
    X(S_penalties, "penalties") \
    X(S_claimed, "claimed") \
    X(S_shuffle, "shuffle") \
    X(S_void, "void") \
    X(S_corrected, "corrected") \
    X(S_seat, "seat") \
    X(S_call, "call") \
    X(S_leader, "leader") \
    X(S_cards, "cards") \
    X(S_ace_high, "ace_high") \
    X(S_NS, "NS") \
    X(S_EW, "EW") \
    X(S_points, "points") \
    X(S_games, "games") \
    X(S_bonuses, "bonuses") \
    X(S_side, "side") \
    X(S_value, "value") \
    X(S_kind, "kind") \
    X(S_hand, "hand") \
    X(S_contract, "contract") \
    X(S_unit, "unit") \
    X(S_score, "score") \
    X(S_stacking, "stacking") \
    X(S_p_value, "p_value") \
    X(S_statistic, "statistic") \
    X(S_method, "method") \
    X(S_evidence, "evidence") \
    X(S_reference_hand, "reference_hand") \
    X(S_reference, "reference") \
    X(S_pattern, "pattern") \
    X(S_tricks_together, "tricks_together") \
    X(S_tricks_spread, "tricks_spread") \
    X(S_direction, "direction") \
    X(S_rising_sequences, "rising_sequences") \
    X(S_expected_rising, "expected_rising_sequences") \
    X(S_riffles, "riffles") \
    X(S_llr, "log_likelihood_ratio") \
    X(S_tricks_close, "tricks_close") \
    X(S_advances, "advances") \
    X(S_winner, "winner") \
    X(S_sheet, "sheet") \
    X(S_totals, "totals") \
    X(S_rubber, "rubber") \
    X(S_slam, "slam") \
    X(S_little_slam, "little_slam") \
    X(S_gathered_v, "gathered") \
    X(S_forward, "last trick of each pile on top") \
    X(S_backward, "first trick of each pile on top") \
    X(S_m_order, "rising-sequences") \
    X(S_m_hands, "hands") \
    X(S_pass, "pass")

#define FA_DECLARE(var, text) extern PyObject *var;
FA_STRINGS(FA_DECLARE)
#undef FA_DECLARE
extern PyObject *S_seat_name[4], *S_contract_name[6], *F_26;

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
    long board; /* -1: absent (a duplicate board's number otherwise) */
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

typedef struct {
    int points[2];
    int n_games;
    Game games[MAX_CLAIMED];
    int n_bonuses;
    Bonus bonuses[4];
    int games_after[2];
    int rubber_winner;
} HandScore;

typedef struct {
    PyObject *cols[2]; /* lists of column entries */
    PyObject *extra[2]; /* slam bonuses, in the order won */
    int rubber_bonus[2];
    int games[2];
    int winner;
    int first_hand;
    int used;
} Rubber;

/* hand.c */
int card_of(PyObject *o);
PyObject *get(PyObject *d, PyObject *key);
int read_hand(PyObject *h, Hand *out);

/* checks.c */
int follows_order(const Hand *h, const Pattern *pat);
int gathered_as_won(const Hand *h);
int collected_as_won(const Hand *h);
void score_hand(const int points[2], const int games[2], const Hand *h, int seven_double,
                HandScore *out);
int claim_agrees(const Score *c, const HandScore *e);

/* stacking.c */
/* A deal's stacking test, computed once per deal: its report object is built from it. */
typedef struct {
    double p, statistic;
    int w;         /* with dealt_order: the rising sequences */
    int riffles;   /* hands only, below EVIDENCE_P: the most likely riffles; -1: none */
    int counts[4]; /* hands only, below EVIDENCE_P: the advances */
    int8_t backward, done;
} StackTest;
PyObject *stacking_json(const Hand *h, const Hand *prev, int prev_number, const Pattern *pat,
                        StackTest *t);
/* the test's numbers into *t (once); 0 when the deal is untested (no evidence for it) */
int stacking_numbers(const Hand *h, const Hand *prev, const Pattern *pat, StackTest *t);

/* report.c */
PyObject *new_ref(PyObject *o);
PyObject *int_list(const int *xs, int n);
PyObject *dict_of(int n, ...);
PyObject *sides_of(int ns, int ew);
PyObject *score_json(const HandScore *s);
PyObject *round_to(double x, int digits);
int put(PyObject *d, PyObject *key, PyObject *value);
int append_int(PyObject *list, long v);
int rubber_init(Rubber *r);
void rubber_free(Rubber *r);
PyObject *rubber_json(const Rubber *r);

#endif

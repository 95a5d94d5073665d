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
 * At each trick boundary a transposition table (partition search) stores lower and upper
 * bounds on the counted side's tricks from there, for a class of positions: the same
 * lengths of each hand in each suit, the same leader, and, per suit, the same owners of
 * the cards down to the lowest card whose rank decided the search below (a trick won by
 * rank against a card of its suit, a quick trick, the lowest card of a run collapsed into
 * one move where every move had to be searched); the smaller cards of a suit are
 * interchangeable between the hands. The key (the lengths, the leader, the contract) finds
 * all the entries stored for it, kept in chunks read in memory order, so none is evicted
 * by another of the same lengths. The table lives across calls (its keys hold the
 * contract), so the positions of one hand share it, and the values of the last call's
 * moves give the next position's value when it follows one of them. Bounds without
 * searching (trump and grand): the quick tricks of the leader's side (his run of top
 * cards and then his long cards, his partner's reached through an entry, both hands'
 * winners cashed suit by suit, the trumps of the longer hand and a ruff when the
 * adversaries have none), the sure trump tricks of either side, and with no trumps in
 * play a trick lost by a side that would have to lead every trick; the last trick's winner
 * read from the four cards left (trump and grand). Cards of one hand
 * with no other card between them are collapsed into one move; moves are ordered after
 * DDS's heuristics (a lead that leaves the adversaries few cards to play; cash the
 * side's top cards, lead low to the partner's winner or ruff, avoid the adversaries'
 * ruffs; follow with the cheapest sure winner, low behind a partner who wins; discard
 * low from length), then by the table's best lead and the cutoffs each card caused in
 * this call (history). In a nullo an ace in the suit led (or led) is two
 * moves, low (below the deuce) and declared high (above the king), and is never
 * collapsed with its neighbours. Where a move was searched without a cutoff, a later card
 * of its suit below every card that decided that move's search (and below the move
 * itself) is not searched: it does what the searched card did (DDS skips such cards
 * too, against every card that decided the moves searched so far).
 */
#if defined(__x86_64__) && defined(__GNUC__)
/* Population counts are the search's commonest operation: use the instruction (every
 * x86-64 processor since 2008 has it) rather than a library call. */
#pragma GCC target("popcnt")
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>
#include <string.h>

#define SUIT13 0x1FFFull

/* A partition-search entry: bounds on the counted side's tricks for every position of
 * its key (the suit lengths of each hand, the leader, the aces still out in a nullo, the
 * contract) whose owners of the top k cards of each suit are the entry's (the cards whose
 * ranks decided the search below; the lower cards of a suit are interchangeable between
 * the hands). The owners are compared two suits a word: (code & mask(k)) == v. */
typedef struct {
    uint64_t va, vb; /* the owners of the top k cards of each suit, as in aligned() */
    uint8_t k[4];
    int8_t lb, ub;
    int8_t best_suit, best_rel; /* the lead that last decided the search, by relative rank */
} Entry;

/* The entries of one key lie in chunks of CHUNK, newest chunk first, so that a probe reads
 * memory in order; the keys are an open-addressed table. */
#define CHUNK 10
typedef struct {
    uint32_t next, n;
    Entry e[CHUNK];
} Chunk;

typedef struct {
    uint64_t lens;
    uint32_t meta; /* bit 31: in use */
    uint32_t chunk;
} Key;

#define KEY_BITS 17
#define CHUNKS (1u << 17)

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
    uint64_t trick_rel; /* the winner of the trick just completed, if it won by rank */
} State;

static Key *keys = NULL;
static uint32_t keys_used = 0;
static Chunk *chunks = NULL; /* chunk 0 is unused: 0 ends a list */
static uint32_t chunks_used = 1;

static void tt_clear(void) {
    memset(keys, 0, sizeof(Key) << KEY_BITS);
    keys_used = 0;
    chunks_used = 1;
}

/* The key's slot, or the empty slot where it goes. */
static inline Key *tt_key(uint64_t lens, uint32_t meta) {
    uint64_t x = lens * 0x9E3779B97F4A7C15ull ^ ((uint64_t)meta + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 29;
    uint32_t i = (uint32_t)x & ((1u << KEY_BITS) - 1);
    meta |= 1u << 31;
    for (;;) {
        Key *k = &keys[i];
        if (k->meta == 0 || (k->meta == meta && k->lens == lens)) return k;
        i = (i + 1) & ((1u << KEY_BITS) - 1);
    }
}
static long nodes = 0;


/* Nullo: the lead that decided the last search of a position whose leader and his
 * partner had the same suit lengths (a hashed slot, the suit + 1 and its relative rank;
 * 0: none), for a position of lengths the table has never seen. (In trump and grand it
 * helped some hands and hurt others.) */
static int8_t side_hint[1 << 16][2];
static inline uint32_t side_hint_slot(uint64_t lens, uint32_t meta, int leader) {
    uint64_t mine = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint64_t L = lens >> ((3 - suit) * 16); /* describe(): suit-major, N E S W nibbles */
        mine = mine << 8 | ((L >> ((3 - leader) * 4)) & 15) << 4 | ((L >> ((3 - (leader ^ 2)) * 4)) & 15);
    }
    uint64_t x = (mine ^ ((uint64_t)meta << 40)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 48);
}
static uint32_t hist[52]; /* cutoffs each card caused this call (history heuristic) */
/* The search runs without the GIL (a service's requests go on while its analysis is
 * built in a thread), one call at a time: the tables above are shared. */
static PyThread_type_lock search_lock = NULL;

static inline int lowbit(uint64_t m) { return __builtin_ctzll(m); }
static inline int card_val(const State *s, int card, int high) {
    int r = card % 13;
    if (s->nullo && r == 12) return high ? 13 : -1;
    return r;
}

/* Per suit: the owners of its remaining cards from the top (2 bits each, the top card in
 * the highest bits), their number; the lengths of each hand in each suit. */
static void describe(const State *s, uint32_t code[4], int n[4], uint64_t *lens, uint32_t *meta) {
    uint64_t L = 0;
    uint32_t aces = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint32_t c = 0;
        int m = 0;
        uint64_t h1 = s->h[1] >> (suit * 13), h2 = s->h[2] >> (suit * 13), h3 = s->h[3] >> (suit * 13);
        uint64_t left = (s->h[0] >> (suit * 13) | h1 | h2 | h3) & SUIT13;
        while (left) {
            int r = 63 - __builtin_clzll(left);
            left &= ~(1ull << r);
            uint32_t p = (uint32_t)((h1 >> r & 1) | (h2 >> r & 1) * 2 | (h3 >> r & 1) * 3);
            c = c << 2 | p;
            m++;
        }
        code[suit] = c;
        n[suit] = m;
        for (int p = 0; p < 4; p++)
            L = L << 4 | (uint64_t)__builtin_popcountll(s->h[p] >> (suit * 13) & SUIT13);
        if (s->nullo && ((s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> (suit * 13 + 12) & 1))
            aces |= 1u << suit;
    }
    *lens = L;
    *meta = (uint32_t)s->leader | aces << 2 | (uint32_t)(s->trump + 1) << 6 |
            (uint32_t)s->nullo << 9 | (uint32_t)s->counted << 10;
}

/* The owners of all the cards, two suits a word: each suit's field is 26 bits, its top
 * card in the highest two, so that "the owners of the top k" is a mask of the field's
 * top 2k bits. */
static inline void aligned(const uint32_t code[4], const int n[4], uint64_t *a, uint64_t *b) {
    uint64_t c[4];
    for (int suit = 0; suit < 4; suit++) c[suit] = (uint64_t)code[suit] << (2 * (13 - n[suit]));
    *a = c[0] << 26 | c[1];
    *b = c[2] << 26 | c[3];
}

static inline uint64_t top_mask(int k) { return ((1ull << (2 * k)) - 1) << (26 - 2 * k); }

static uint64_t mask26[14]; /* the top 2k bits of a suit's 26-bit field */

static inline int entry_matches(const Entry *e, uint64_t a, uint64_t b) {
    return (a & (mask26[e->k[0]] << 26 | mask26[e->k[1]])) == e->va &&
           (b & (mask26[e->k[2]] << 26 | mask26[e->k[3]])) == e->vb;
}

/* The cards of the top k of each suit (as the entry fixes them), as a card mask. */
static uint64_t top_cards(const State *s, const uint8_t k[4]) {
    uint64_t all = s->h[0] | s->h[1] | s->h[2] | s->h[3], out = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint64_t x = all >> (suit * 13) & SUIT13;
        for (int left = k[suit]; left > 0 && x; left--) {
            int r = 63 - __builtin_clzll(x);
            x &= ~(1ull << r);
            out |= 1ull << (suit * 13 + r);
        }
    }
    return out;
}

/* The leader's run of top cards in one suit: cards that win when led. Once the run has
 * outlasted every other hand's cards of the suit, his remaining cards of it win too (the
 * lengths are the key's, so only the run's cards decide). */
static int top_run(const State *s, int seat, int suit, uint64_t *rel) {
    uint64_t all = (s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> (suit * 13) & SUIT13;
    uint64_t mine = s->h[seat] >> (suit * 13) & SUIT13;
    int n = 0;
    for (int r = 12; r >= 0; r--) {
        if (!(all >> r & 1)) continue;
        if (!(mine >> r & 1)) break;
        *rel |= 1ull << (suit * 13 + r);
        n++;
    }
    if (n) {
        int others = 0;
        for (int d = 1; d <= 3; d++) {
            int len = __builtin_popcountll(s->h[(seat + d) & 3] >> (suit * 13) & SUIT13);
            if (len > others) others = len;
        }
        if (n >= others) n = __builtin_popcountll(mine);
    }
    return n;
}

/* How many rounds of `suit` `seat`'s side can cash before an adversary ruffs: the fewest
 * cards of it among the adversaries still holding a trump once `drawn` rounds of trumps
 * have been led (13: no such adversary, or the suit is trumps). */
static int follow_cap(const State *s, int seat, int suit, int drawn) {
    int cap = 13;
    if (s->trump < 0 || suit == s->trump) return cap;
    for (int d = 1; d <= 3; d += 2) {
        uint64_t oh = s->h[(seat + d) & 3];
        if (__builtin_popcountll(oh >> (s->trump * 13) & SUIT13) <= drawn) continue;
        int len = __builtin_popcountll(oh >> (suit * 13) & SUIT13);
        if (len < cap) cap = len;
    }
    return cap;
}

/* Whether an adversary of `seat` can ruff a lead of `suit` (void in it, holding a trump). */
static int ruffable(const State *s, int seat, int suit) {
    if (s->trump < 0 || suit == s->trump) return 0;
    for (int d = 1; d <= 3; d += 2) {
        uint64_t oh = s->h[(seat + d) & 3];
        if (!(oh >> (suit * 13) & SUIT13) && (oh >> (s->trump * 13) & SUIT13)) return 1;
    }
    return 0;
}

/* Tricks `seat` takes on lead by running his top cards: trumps first (each round draws a
 * trump from every adversary who has one), then each side suit for as long as every
 * adversary who still holds a trump must follow to it (so no adversary's holding in
 * another suit changes while a suit is run). */
static int run_tricks(const State *s, int seat, uint64_t *rel) {
    int q = 0, drawn = 0;
    if (s->trump >= 0) q = drawn = top_run(s, seat, s->trump, rel);
    for (int suit = 0; suit < 4; suit++) {
        if (suit == s->trump) continue;
        int k = top_run(s, seat, suit, rel), cap = follow_cap(s, seat, suit, drawn);
        q += k < cap ? k : cap;
    }
    return q;
}

/* The leader's side cashing its winners with both hands. In each suit the leader leads his
 * cards above every adversary's, highest first, for as long as each wins and keeps him on
 * lead (his partner following with his lowest card); then, in one suit played last, he
 * may hand the lead to his partner (a low card to the partner's winner, or a winner the
 * partner's lowest card overtakes) and the partner cashes his remaining winners there.
 * Trumps first; a side suit only for as many rounds as every adversary who holds a trump
 * can follow. Where the partner cannot follow he discards from suits not cashed (else
 * no count), and never from the last suit's winners. */
static int side_tricks(const State *s, uint64_t *rel) {
    int L = s->leader, P = L ^ 2;
    int ph1[4], extra[4], lenP[4];
    uint64_t srel[4];
    int total = 0;
    for (int suit = 0; suit < 4; suit++) {
        int sh = suit * 13;
        uint64_t lm = s->h[L] >> sh & SUIT13, pm = s->h[P] >> sh & SUIT13;
        uint64_t om = (s->h[L ^ 1] | s->h[L ^ 3]) >> sh & SUIT13;
        lenP[suit] = __builtin_popcountll(pm);
        ph1[suit] = extra[suit] = 0;
        int o = om ? 63 - __builtin_clzll(om) : -1;
        srel[suit] = (uint64_t)(o < 0 ? SUIT13 : SUIT13 & ~((1ull << o) - 1)) << sh;
        if (!lm) continue;
        int cap = follow_cap(s, L, suit, 0);
        uint64_t l = lm, pp = pm;
        int n = 0, overtaken = 0;
        while (l && n < cap) {
            int lc = 63 - __builtin_clzll(l);
            int pc = pp ? __builtin_ctzll(pp) : -1;
            if (lc < o) break;
            if (pc > lc) { overtaken = 1; break; }
            l &= ~(1ull << lc);
            if (pp) pp &= pp - 1;
            n++;
        }
        ph1[suit] = n;
        total += n;
        if (n >= cap) continue;
        uint64_t pw = o < 0 ? pp : pp & ~((2ull << o) - 1); /* the partner's winners left */
        int x = 0;
        if (overtaken) x = __builtin_popcountll(pw); /* his lowest is a winner: all are */
        else if (l && pw && 63 - __builtin_clzll(pw) > __builtin_ctzll(l)) x = __builtin_popcountll(pw);
        if (x > cap - n) x = cap - n;
        extra[suit] = x;
    }
    /* the partner discards, where he cannot follow, from suits not cashed only */
    int discards = 0, spare = 0;
    for (int y = 0; y < 4; y++) {
        if (ph1[y] > lenP[y]) discards += ph1[y] - lenP[y];
        if (ph1[y] == 0) spare += lenP[y];
    }
    if (discards > spare) return 0;
    int best = 0, bsuit = -1;
    for (int x = 0; x < 4; x++)
        if (extra[x] > best && discards <= spare - (ph1[x] == 0 ? lenP[x] : 0)) {
            best = extra[x];
            bsuit = x;
        }
    for (int suit = 0; suit < 4; suit++)
        if (ph1[suit] || suit == bsuit) *rel |= srel[suit];
    return total + best;
}

/* Quick tricks of the leader's side: the leader's run of top cards, or his partner's when
 * the leader can reach him first, leading a suit whose top card the partner holds and
 * that no adversary can ruff (that trick is the first of the partner's run). */
static int quick_tricks(const State *s, uint64_t *rel) {
    int seat = s->leader, P = seat ^ 2;
    uint64_t r0 = 0;
    int q = run_tricks(s, seat, &r0), entry = -1;
    uint64_t best_rel = r0;
    for (int suit = 0; suit < 4; suit++) {
        if (!(s->h[seat] >> (suit * 13) & SUIT13)) continue;
        uint64_t all = (s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> (suit * 13) & SUIT13;
        int top = 63 - __builtin_clzll(all);
        if (!(s->h[P] >> (suit * 13 + top) & 1)) continue;
        if (ruffable(s, seat, suit)) continue;
        uint64_t r1 = 0;
        entry = suit * 13 + top;
        int qp = run_tricks(s, P, &r1);
        if (qp > q) { q = qp; best_rel = r1 | 1ull << entry; }
        break; /* the partner's run does not depend on which entry */
    }
    uint64_t r2 = 0;
    int q2 = side_tricks(s, &r2);
    if (q2 > q) { q = q2; best_rel = r2; }
    if (s->trump >= 0 && !((s->h[seat ^ 1] | s->h[seat ^ 3]) >> (s->trump * 13) & SUIT13)) {
        /* the adversaries have no trumps: every trump of a hand wins a trick of its own, and
         * the other hand's ruff of a suit it lacks is one more (the longer hand leads that
         * suit, or the shorter one leads it after an entry to the longer) */
        int sh = s->trump * 13;
        int a = __builtin_popcountll(s->h[seat] >> sh & SUIT13), b = __builtin_popcountll(s->h[P] >> sh & SUIT13);
        if (a && b) {
            uint64_t lsuits = 0, psuits = 0;
            for (int x = 0; x < 4; x++) {
                if (x == s->trump) continue;
                if (s->h[seat] >> (x * 13) & SUIT13) lsuits |= 1u << x;
                if (s->h[P] >> (x * 13) & SUIT13) psuits |= 1u << x;
            }
            if (a >= b && (lsuits & ~psuits) && a + 1 > q) { q = a + 1; best_rel = 0; }
            else if (a < b && entry >= 0 && (psuits & ~lsuits) && b + 1 > q) { q = b + 1; best_rel = 1ull << entry; }
        }
    }
    *rel |= best_rel;
    return q;
}

/* Sure tricks of a side in a trump contract: a trump above every trump of the adversaries
 * wins the trick it is played in (unless a partner's higher one is in it too), and every
 * card gets played, so the side takes at least as many tricks as either of its hands has
 * such trumps. *rel gets the trumps that decide it (down to the adversaries' highest). */
static int sure_trumps(const State *s, int side, uint64_t *rel) {
    int sh = s->trump * 13;
    uint64_t adv = (s->h[side ^ 1] | s->h[side ^ 3]) >> sh & SUIT13;
    int top = adv ? 63 - __builtin_clzll(adv) : -1; /* the adversaries' highest trump */
    uint64_t above = top < 0 ? SUIT13 : ~((2ull << top) - 1) & SUIT13;
    int a = __builtin_popcountll(s->h[side] >> sh & above);
    int b = __builtin_popcountll(s->h[side ^ 2] >> sh & above);
    uint64_t all = (s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> sh & SUIT13;
    int best = a > b ? a : b;
    if (best < 2 && __builtin_popcountll(all) >= 2) {
        /* the top two trumps split between the side's hands, one of them guarded: two
         * tricks (the guarded one is played low under the other, or wins by itself); the
         * second trump guarded, held behind the adversary's top one, the side not on
         * lead (its holder sees whether the top trump is played before him; he plays
         * before it only on his own lead, after a trick the side has won), or with the
         * third trump also the side's (the top trump takes one of them): one */
        int r1 = 63 - __builtin_clzll(all);
        uint64_t rest = all & ~(1ull << r1);
        int r2 = 63 - __builtin_clzll(rest);
        rest &= ~(1ull << r2);
        int r3 = rest ? 63 - __builtin_clzll(rest) : -1;
        int o1 = 0, o2 = 0, o3 = -1;
        for (int p = 0; p < 4; p++) {
            uint64_t m = s->h[p] >> sh;
            if (m >> r1 & 1) o1 = p;
            if (m >> r2 & 1) o2 = p;
            if (r3 >= 0 && (m >> r3 & 1)) o3 = p;
        }
        int l1 = __builtin_popcountll(s->h[o1] >> sh & SUIT13), l2 = __builtin_popcountll(s->h[o2] >> sh & SUIT13);
        if ((o1 & 1) == side && (o2 & 1) == side && o1 != o2 && (l1 > 1 || l2 > 1)) {
            *rel |= (all & ~((1ull << r2) - 1)) << sh;
            return 2;
        }
        if (best == 0 && (o1 & 1) != side && (o2 & 1) == side && l2 > 1) {
            if (((o2 + 3) & 3) == o1 && (s->leader & 1) != side) { *rel |= (all & ~((1ull << r2) - 1)) << sh; return 1; }
            if (o3 >= 0 && (o3 & 1) == side) { *rel |= (all & ~((1ull << r3) - 1)) << sh; return 1; }
        }
    }
    if (adv) *rel |= (all & ~((1ull << top) - 1)) << sh;
    return best;
}

/* Bounds on the counted side's tricks from a trick boundary without searching: the quick
 * tricks of the leader's side and the sure trump tricks of either side (trump and grand;
 * none in a nullo). *rlo and *rhi get the cards whose ranks decide each bound. */
static void trick_bounds(const State *s, int *lo, uint64_t *rlo, int *hi, uint64_t *rhi) {
    *lo = 0; *hi = s->remaining; *rlo = *rhi = 0;
    if (s->nullo) return;
    uint64_t r = 0;
    int q = quick_tricks(s, &r);
    if ((s->leader & 1) == s->counted) { *lo = q; *rlo = r; }
    else { *hi = s->remaining - q; *rhi = r; }
    if (s->trump < 0 || !((s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> (s->trump * 13) & SUIT13)) {
        /* no trumps: a side that takes every trick leads every one, and never a suit whose
         * top card an adversary holds; each trick in a suit it tops takes a card of that
         * suit from each of its hands that has one. So if its longer hands in the suits it
         * tops hold fewer cards than there are tricks, the adversaries take one (DDS's
         * later tricks in no trump). */
        int L = s->leader, sum = 0;
        uint64_t all = s->h[0] | s->h[1] | s->h[2] | s->h[3], tops = 0;
        for (int suit = 0; suit < 4; suit++) {
            uint64_t m = all >> (suit * 13) & SUIT13;
            if (!m) continue;
            int top = 63 - __builtin_clzll(m);
            int owner = 0;
            while (!(s->h[owner] >> (suit * 13 + top) & 1)) owner++;
            if ((owner & 1) == (L & 1)) {
                int a = __builtin_popcountll(s->h[L] >> (suit * 13) & SUIT13);
                int b = __builtin_popcountll(s->h[L ^ 2] >> (suit * 13) & SUIT13);
                sum += a > b ? a : b;
            } else if (m != (s->h[owner] >> (suit * 13) & SUIT13)) {
                tops |= 1ull << (suit * 13 + top);
            }
        }
        if (sum < s->remaining) {
            if ((L & 1) == s->counted) {
                if (s->remaining - 1 < *hi) { *hi = s->remaining - 1; *rhi = tops; }
            } else if (*lo < 1) { *lo = 1; *rlo = tops; }
        }
    }
    if (s->trump >= 0) {
        r = 0;
        int a = sure_trumps(s, s->counted, &r);
        if (a > *lo) { *lo = a; *rlo = r; }
        r = 0;
        int b = s->remaining - sure_trumps(s, s->counted ^ 1, &r);
        if (b < *hi) { *hi = b; *rhi = r; }
    }
}

/* What a proof's cards cost the table: for each suit, the cards from its top down to the
 * lowest card the proof names (an entry fixes the owners of all of them). */
static int rel_cost(const State *s, uint64_t rel) {
    uint64_t all = s->h[0] | s->h[1] | s->h[2] | s->h[3];
    int cost = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint64_t present = all >> (suit * 13) & SUIT13, w = rel >> (suit * 13) & present;
        if (w) cost += __builtin_popcountll(present >> __builtin_ctzll(w));
    }
    return cost;
}

/* How many of `need` tricks `seat`, on lead, takes by cashing his cards above every
 * adversary's suit after suit (trumps first), and the cards that decide it (added to
 * *used). His partner follows with his lowest card; if that is higher, the partner takes
 * the trick and the lead, and the count stops there. A suit is cashed for as many rounds
 * as every adversary still holding a trump can follow (while one suit is run no such
 * adversary discards, so the others' lengths hold; the trumps cashed first draw the
 * adversaries' trumps, as in run_tricks), and once every other hand's cards of the suit
 * are gone his remaining cards of it win too. `skip` (a suit, or -1) is not cashed: the
 * suit of the entry that put him on lead. */
static int cash_run(const State *s, int seat, int need, int skip, uint64_t *used) {
    int got = 0, drawn = 0;
    for (int i = 0; i < 4 && got < need; i++) {
        int suit = s->trump >= 0 ? (i == 0 ? s->trump : (i <= s->trump ? i - 1 : i)) : i;
        if (suit == skip) continue;
        int sh = suit * 13;
        uint64_t mine = s->h[seat] >> sh & SUIT13;
        int cap = follow_cap(s, seat, suit, drawn), others = 0;
        for (int d = 1; d <= 3; d++) {
            int len = __builtin_popcountll(s->h[(seat + d) & 3] >> sh & SUIT13);
            if (len > others) others = len;
        }
        uint64_t part = s->h[seat ^ 2] >> sh & SUIT13;
        uint64_t adv = (s->h[seat ^ 1] | s->h[seat ^ 3]) >> sh & SUIT13;
        int top_adv = adv ? 63 - __builtin_clzll(adv) : -1, rounds = 0, passed = 0;
        while (got < need && rounds < cap && mine) {
            int r = 63 - __builtin_clzll(mine);
            if (r > top_adv) {
                /* above every adversary's card: the side's trick, his partner following
                 * with his lowest card (which, if it is higher, takes the lead from him) */
                *used |= 1ull << (sh + r);
                mine &= ~(1ull << r);
                if (part) {
                    passed = __builtin_ctzll(part) > r;
                    part &= part - 1;
                }
            } else if (rounds >= others) {
                mine &= mine - 1; /* a long card: the others have none left */
            } else {
                break;
            }
            got++;
            rounds++;
            if (passed) break;
        }
        if (suit == s->trump) drawn = rounds;
        if (passed) break;
    }
    return got;
}

/* A proof that `side` takes `need` more tricks naming as few cards as it can, where the
 * simplest ones give it: `need` trumps of one hand of the side above every adversary's
 * (each wins the trick it is played in for the side, and every card gets played); the
 * leader's cards above every adversary's cashed (cash_run); or a low card to his partner's
 * top card of a suit no adversary can ruff, then the partner's cash. Of those found, the
 * one fixing the fewest owners (rel_cost). The bounds above name every card their count
 * used: a cutoff that needs fewer tricks than they count is proved by fewer cards here, and
 * the table's entries stored above it then stand for more positions (DDS's quick tricks
 * stop at the cutoff for the same reason). */
static int few_cards_proof(const State *s, int side, int need, uint64_t *rel) {
    if (need <= 0 || need > s->remaining) return 0;
    uint64_t all = s->h[0] | s->h[1] | s->h[2] | s->h[3], best = 0;
    int best_cost = 1 << 20;
#define TAKE(r) do { int c_ = rel_cost(s, (r)); if (c_ < best_cost) { best_cost = c_; best = (r); } } while (0)
    if (s->trump >= 0) {
        /* a hand whose `need` highest trumps lie above every adversary's: each wins its
         * trick for the side (a higher trump beside it is the partner's) */
        int sh = s->trump * 13;
        uint64_t m = all >> sh & SUIT13, ours = (s->h[side] | s->h[side ^ 2]) >> sh & SUIT13;
        for (int p = side; p < 4; p += 2) {
            uint64_t x = m, top = 0, mine = s->h[p] >> sh & SUIT13;
            int n = 0;
            while (x && n < need) {
                int r = 63 - __builtin_clzll(x);
                if (!(ours >> r & 1)) break;
                top |= 1ull << r;
                x &= ~(1ull << r);
                n += (int)(mine >> r & 1);
            }
            if (n >= need) TAKE(top << sh);
        }
    }
    int L = s->leader, P = L ^ 2;
    if ((L & 1) == side) {
        uint64_t used = 0;
        if (cash_run(s, L, need, -1, &used) >= need) TAKE(used);
        for (int e = 0; e < 4; e++) {
            int sh = e * 13;
            uint64_t m = all >> sh & SUIT13;
            if (!(s->h[L] >> sh & SUIT13)) continue;
            int top = 63 - __builtin_clzll(m);
            if (!(s->h[P] >> (sh + top) & 1)) continue;
            if (ruffable(s, L, e)) continue;
            used = 1ull << (sh + top);
            if (1 + cash_run(s, P, need - 1, e, &used) >= need) TAKE(used);
        }
    }
#undef TAKE
    if (best_cost == 1 << 20) return 0;
    *rel = best;
    return 1;
}

/* Whether the bounds without searching decide "at least t more counted tricks" (*result),
 * with the cards of the cheapest proof at hand in *rel. */
static int bounds_decide(const State *s, int t, uint64_t *rel, int *result) {
    int lo, hi;
    uint64_t rlo, rhi, few = 0;
    trick_bounds(s, &lo, &rlo, &hi, &rhi);
    if (lo >= t) {
        int ok = few_cards_proof(s, s->counted, t, &few);
        *rel = ok && rel_cost(s, few) <= rel_cost(s, rlo) ? few : rlo;
        *result = 1;
        return 1;
    }
    if (hi < t) {
        int ok = few_cards_proof(s, s->counted ^ 1, s->remaining - t + 1, &few);
        *rel = ok && rel_cost(s, few) <= rel_cost(s, rhi) ? few : rhi;
        *result = 0;
        return 1;
    }
    return 0;
}

typedef struct { int8_t card, high, low; int32_t score; } Move; /* low: the lowest card collapsed into it */

/* What the move ordering of a trump or grand contract knows of each hand: its highest
 * card in each suit (-1: void) and its length. */
typedef struct { int hi[4][4], len[4][4]; } View;

static void view_of(const State *s, View *w) {
    for (int p = 0; p < 4; p++)
        for (int suit = 0; suit < 4; suit++) {
            uint64_t m = s->h[p] >> (suit * 13) & SUIT13;
            w->hi[p][suit] = m ? 63 - __builtin_clzll(m) : -1;
            w->len[p][suit] = __builtin_popcountll(m);
        }
}

/* Can seat y, still to play to this trick, beat a card of suit `suit` and rank `v`? */
static inline int can_beat(const State *s, const View *w, int y, int suit, int v) {
    if (w->len[y][s->led]) return suit == s->led && w->hi[y][s->led] > v;
    if (s->trump < 0 || !w->len[y][s->trump]) return 0;
    return suit != s->trump || w->hi[y][s->trump] > v;
}

/* What a lead costs to search, DDS's estimate: each card an adversary may play to it is a
 * subtree of its own, and a void adversary may play any card he holds. Leads that leave
 * the adversaries few choices come first. */
static inline int lead_tree(const State *s, int seat, int suit) {
    int cl = __builtin_popcountll(s->h[(seat + 1) & 3] >> (suit * 13) & SUIT13);
    int cr = __builtin_popcountll(s->h[(seat + 3) & 3] >> (suit * 13) & SUIT13);
    return 12 * ((cl ? cl : s->remaining) + (cr ? cr : s->remaining));
}

/* The guess of a move's worth in a trump or grand contract, after DDS's heuristics: the
 * leader cashes his side's top cards, leads low to a partner who holds the top card or
 * can ruff, and avoids suits an adversary ruffs; a follower wins as cheaply as is sure,
 * plays low when his partner's card or his partner still to play wins, and discards low
 * from long suits, keeping his top cards. */
static int trump_score(const State *s, const View *w, int seat, int suit, int r) {
    if (s->ncur == 0) {
        int P = seat ^ 2, lho = (seat + 1) & 3, rho = (seat + 3) & 3;
        int myhi = w->hi[seat][suit], phi = w->hi[P][suit];
        int opp = w->hi[lho][suit] > w->hi[rho][suit] ? w->hi[lho][suit] : w->hi[rho][suit];
        int tr = s->trump;
        int ruffed = tr >= 0 && suit != tr &&
                     ((!w->len[lho][suit] && w->len[lho][tr]) || (!w->len[rho][suit] && w->len[rho][tr]));
        int score;
        if (myhi > opp && myhi >= phi) score = r == myhi ? 80 : 10 - r;
        else if (phi > opp) score = 60 - r;
        else if (tr >= 0 && suit != tr && !w->len[P][suit] && w->len[P][tr] &&
                 !(!w->len[rho][suit] && w->hi[rho][tr] > w->hi[P][tr]))
            score = 50 - r;
        else {
            /* the adversaries hold the top card: lead the top of a sequence that forces it
             * out, else low */
            uint64_t all = (s->h[0] | s->h[1] | s->h[2] | s->h[3]) >> (suit * 13) & SUIT13;
            int second = 63 - __builtin_clzll(all & ~(1ull << (63 - __builtin_clzll(all))));
            score = ((r == myhi && myhi == second) ? 20 : -r) + 3 * w->len[seat][suit];
            /* toward the partner's second-best card, the more so when the top card is on
             * the left (the partner, playing after it, wins unless it is played) */
            if (s->h[P] >> (suit * 13 + second) & 1) {
                score += 30;
                if (w->hi[lho][suit] > second && w->len[P][suit] > 1) score += 30;
            }
        }
        if (ruffed) score -= 60;
        return score; /* gen_moves subtracts the lead's tree (lead_tree) */
    }
    int v = r;
    int beats = suit == s->win_suit ? v > s->win_val : suit == s->trump;
    int side = seat & 1;
    int wseat = (s->leader + s->win_idx) & 3;
    int partner_winning = (wseat & 1) == side;
    int safe_now = 1; /* the winning card holds against the adversaries still to play */
    for (int i = s->ncur + 1; i < 4; i++) {
        int y = (s->leader + i) & 3;
        if ((y & 1) != side && can_beat(s, w, y, s->win_suit, s->win_val)) safe_now = 0;
    }
    int ruff = suit != s->led && suit == s->trump;
    if (partner_winning && safe_now) return ruff ? -60 - v : (suit != s->led ? 40 - v + w->len[seat][suit] * 2 - (r == w->hi[seat][suit] && r >= 10 ? 20 : 0) : 50 - v);
    if (beats) {
        int sure = 1;
        for (int i = s->ncur + 1; i < 4; i++) {
            int y = (s->leader + i) & 3;
            if ((y & 1) != side && can_beat(s, w, y, suit, v)) sure = 0;
        }
        if (sure) return 100 - v;
    }
    /* second hand: low when the partner, last to play, wins over everything */
    if (s->ncur == 1) {
        int P = seat ^ 2, third = (seat + 1) & 3;
        int best = s->win_val, bsuit = s->win_suit;
        if (w->len[third][s->led]) { if (w->hi[third][s->led] > best && bsuit == s->led) best = w->hi[third][s->led]; }
        else if (s->trump >= 0 && w->len[third][s->trump]) { bsuit = s->trump; best = w->hi[third][s->trump]; }
        if (can_beat(s, w, P, bsuit, best) && !beats) return 70 - v;
    }
    if (beats) return 30 - v;
    if (suit == s->led) return -v;
    if (suit == s->trump) return -40 - v; /* a trump that does not win */
    return -v + w->len[seat][suit] * 2 - (r == w->hi[seat][suit] && r >= 10 ? 20 : 0);
}

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
    View w;
    int single = __builtin_popcountll(legal) == 1; /* one card: nothing to order */
    if (!s->nullo && !single) view_of(s, &w);
    int n = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint64_t m = legal >> (suit * 13) & SUIT13;
        if (!m) continue;
        int prev_kept_owned = 0; /* the card just above (in present) is ours */
        int tree = s->ncur == 0 ? lead_tree(s, seat, suit) : 0; /* the same for the suit's cards */
        /* the cards still in play from the top down to his lowest */
        uint64_t pres = (present >> (suit * 13) & SUIT13) & ~((1ull << __builtin_ctzll(m)) - 1);
        while (pres) {
            int r = 63 - __builtin_clzll(pres);
            pres &= ~(1ull << r);
            int c = suit * 13 + r;
            int owned = (int)(m >> r & 1);
            if (!owned) { prev_kept_owned = 0; continue; }
            int is_ace = s->nullo && r == 12;
            if (!is_ace && prev_kept_owned) { out[n - 1].low = (int8_t)c; continue; }
            prev_kept_owned = is_ace ? 0 : 1;
            int nh = (is_ace && (s->ncur == 0 || suit == s->led)) ? 2 : 1;
            for (int hi = 0; hi < nh; hi++) {
                int v = card_val(s, c, hi);
                int score;
                if (!s->nullo) {
                    score = single ? 0 : trump_score(s, &w, seat, suit, r) - tree;
                    /* the hinted lead first; the hinted suit's other cards a little ahead
                     * (the hint may come from another holding of the same lengths, where
                     * the card of that rank is someone else's) */
                    if (s->ncur == 0 && suit == pref_suit) {
                        if (__builtin_popcountll((present >> (suit * 13) & SUIT13) >> (r + 1)) == pref_rel)
                            score = 1000;
                        else
                            score += 20;
                    }
                } else if (s->ncur == 0) {
                    score = 0; /* nullo: the hinted lead, then the hinted suit, as above */
                    if (suit == pref_suit) {
                        if (__builtin_popcountll((present >> (suit * 13) & SUIT13) >> (r + 1)) == pref_rel)
                            score = 1000;
                        else
                            score = 20;
                    }
                    score -= tree;
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
                out[n].low = (int8_t)c;
                uint32_t hb = hist[c] > 0xFFFF ? 0xFFFF : hist[c];
                out[n].score = score * (1 << 20) + (int32_t)(hb << 4) + (15 - r);
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
    int same = 0;
    for (int i = 0; i < 4; i++) same += s->cur[i] / 13 == s->win_suit;
    s->trick_rel = same > 1 ? 1ull << s->cur[s->win_idx] : 0;
    int winner = (s->leader + s->win_idx) & 3;
    s->leader = winner;
    s->ncur = 0;
    s->remaining--;
    return winner & 1;
}

/* Can the maximising side make the counted side take at least t more tricks? *rel gets
 * the cards whose ranks decided it (the answer holds for every position with the same
 * suit lengths and the same owners of each suit's cards down to its lowest such card). */
static int search(State *s, int t, uint64_t *rel) {
    *rel = 0;
    if (t <= 0) return 1;
    if (t > s->remaining) return 0;
    nodes++;
    Key *key = NULL;
    int at_boundary = 0;
    uint32_t code[4], meta = 0;
    uint64_t ca = 0, cb = 0;
    int nsuit[4];
    uint64_t lens = 0;
    int pref_suit = -1, pref_rel = -1;
    if (s->ncur == 0 && s->remaining == 1 && !s->nullo) {
        /* the last trick: one card each, so its winner is known */
        int L = s->leader, win = L, wc = lowbit(s->h[L]), same = 0;
        for (int d = 1; d < 4; d++) {
            int p = (L + d) & 3, c = lowbit(s->h[p]);
            if ((c / 13 == wc / 13 && c > wc) || (c / 13 == s->trump && wc / 13 != s->trump)) { win = p; wc = c; }
        }
        for (int p = 0; p < 4; p++) same += lowbit(s->h[p]) / 13 == wc / 13;
        *rel = same > 1 ? 1ull << wc : 0;
        return (win & 1) == s->counted;
    }
    if (s->ncur == 0) {
        at_boundary = 1;
        /* the bounds before the table near the end of the hand, where they are cheap and
         * their proofs often name fewer cards than the table's entry; after it earlier */
        int bounds_first = s->remaining <= 4, decided;
        if (bounds_first && bounds_decide(s, t, rel, &decided)) return decided;
        describe(s, code, nsuit, &lens, &meta);
        key = tt_key(lens, meta);
        aligned(code, nsuit, &ca, &cb);
        if (!key->meta && s->nullo) {
            uint32_t slot = side_hint_slot(lens, meta, s->leader);
            pref_suit = side_hint[slot][0] - 1;
            pref_rel = side_hint[slot][1];
        }
        if (key->meta) {
            /* the lead to try first: the one that decided the search of a position this
             * one's entry stands for; failing that, of the position of the same lengths
             * searched last (the suits' lengths say much of which lead works) */
            int matched = 0;
            if (key->chunk) {
                const Chunk *newest = &chunks[key->chunk];
                if (newest->n) {
                    pref_suit = newest->e[newest->n - 1].best_suit;
                    pref_rel = newest->e[newest->n - 1].best_rel;
                }
            }
            for (uint32_t ci = key->chunk; ci; ci = chunks[ci].next) {
                Chunk *ch = &chunks[ci];
                for (uint32_t j = ch->n; j-- > 0;) {
                    Entry *e = &ch->e[j];
                    if (!entry_matches(e, ca, cb)) continue;
                    if (e->lb >= t) { *rel = top_cards(s, e->k); return 1; }
                    if (e->ub < t) { *rel = top_cards(s, e->k); return 0; }
                    if (!matched && e->best_suit >= 0) {
                        matched = 1;
                        pref_suit = e->best_suit;
                        pref_rel = e->best_rel;
                    }
                }
            }
        }
        if (!bounds_first && bounds_decide(s, t, rel, &decided)) return decided;
    }
    if (s->ncur == 1 && !s->nullo) {
        /* second hand: his side surely wins this trick (the highest card of the suit led
         * above the card led and the next hand's, or a ruff the next hand cannot
         * overruff), which decides when his side needs one more trick or the other side
         * every trick; with no trumps, also after the tricks that follow it for sure */
        int seat = (s->leader + 1) & 3, P = seat ^ 2, lho = (seat + 1) & 3, ls = s->led, tr = s->trump;
        int side = seat & 1;
        int need = side == s->counted ? t : s->remaining - t + 1;
        uint64_t allc = s->h[0] | s->h[1] | s->h[2] | s->h[3];
        int notrump = tr < 0 || !(allc >> (tr * 13) & SUIT13);
        if (need == 1 || notrump) {
            uint64_t mine = s->h[seat] >> (ls * 13) & SUIT13, part = s->h[P] >> (ls * 13) & SUIT13;
            uint64_t lhom = s->h[lho] >> (ls * 13) & SUIT13;
            int lho_ruffs = tr >= 0 && ls != tr && !lhom && (s->h[lho] >> (tr * 13) & SUIT13);
            int wins = 0;
            uint64_t r = 0;
            if (tr >= 0 && ls != tr && ((!mine && (s->h[seat] >> (tr * 13) & SUIT13)) ||
                                         (!part && (s->h[P] >> (tr * 13) & SUIT13)))) {
                wins = !lho_ruffs;
            } else if (mine | part) {
                int top = 63 - __builtin_clzll(mine | part);
                int lt = lhom ? 63 - __builtin_clzll(lhom) : -1;
                if (top > s->win_val && top > lt && !lho_ruffs) { wins = 1; r = 1ull << (ls * 13 + top); }
            }
            if (wins && need > 1 && r) {
                /* no trumps: the hand that wins it leads next and cashes his second card
                 * of the suit if it is the next highest, the top card of each other suit,
                 * and the whole of a suit no one else holds (DDS's quick tricks of the
                 * second hand) */
                int top = __builtin_ctzll(r) - ls * 13;
                int hh = (mine >> top & 1) ? seat : P;
                int q = 1;
                uint64_t rest = allc >> (ls * 13) & SUIT13 & ~(1ull << top);
                if (rest && (s->h[hh] >> (ls * 13 + 63 - __builtin_clzll(rest)) & 1)) {
                    q++;
                    r |= 1ull << (ls * 13 + 63 - __builtin_clzll(rest));
                }
                for (int x = 0; x < 4 && q < need; x++) {
                    if (x == ls) continue;
                    uint64_t mx = s->h[hh] >> (x * 13) & SUIT13, ax = allc >> (x * 13) & SUIT13;
                    if (!mx) continue;
                    if (mx == ax) q += __builtin_popcountll(mx);
                    else if (mx >> (63 - __builtin_clzll(ax)) & 1) { q++; r |= 1ull << (x * 13 + 63 - __builtin_clzll(ax)); }
                }
                if (q < need) wins = 0;
            }
            if (wins && (need == 1 || r)) { *rel = r; return side == s->counted; }
        }
    }
    Move mv[20];
    int n = gen_moves(s, mv, pref_suit, pref_rel);
    int seat = (s->leader + s->ncur) & 3;
    int is_max = (seat & 1) == s->maxside;
    int result = is_max ? 0 : 1;
    int decided = 0;
    uint64_t acc = 0;
    int below[4] = {0, 0, 0, 0}; /* per suit: cards under this one do what a searched card did */
    for (int i = 0; i < n; i++) {
        int suit = mv[i].card / 13;
        int ace = s->nullo && mv[i].card % 13 == 12;
        if (!ace && mv[i].card < below[suit]) continue;
        State save = *s;
        int w = play(s, mv[i].card, mv[i].high);
        uint64_t crel;
        int r = search(s, (w == s->counted) ? t - 1 : t, &crel);
        if (w >= 0) crel |= s->trick_rel;
        *s = save;
        if ((is_max && r) || (!is_max && !r)) {
            result = r; decided = i; acc = crel;
            hist[(int)mv[i].card] += (uint32_t)(s->remaining * s->remaining);
            break;
        }
        /* every move was needed: when the card won its trick by rank (it is among the
         * cards that decided), the cards collapsed into it stand for it only while the
         * cards above the lowest of them keep their owners; a card that lost or was
         * discarded would have done the same at any rank below the cards that decided */
        if (mv[i].low != mv[i].card && (crel >> mv[i].card & 1)) crel |= 1ull << mv[i].low;
        acc |= crel;
        if (!ace) {
            /* a card of this suit below every card that decided this move's search (this
             * one included) would do what this one did */
            uint64_t sr = crel >> (suit * 13) & SUIT13;
            int rmin = suit * 13 + (sr ? __builtin_ctzll(sr) : 13);
            if (mv[i].card < rmin && rmin > below[suit]) below[suit] = rmin;
        }
    }
    *rel = acc;
    if (at_boundary) {
        uint64_t all = s->h[0] | s->h[1] | s->h[2] | s->h[3];
        uint8_t k[4];
        for (int suit = 0; suit < 4; suit++) {
            uint64_t present = all >> (suit * 13) & SUIT13;
            uint64_t w = acc >> (suit * 13) & present;
            k[suit] = w ? (uint8_t)__builtin_popcountll(present >> __builtin_ctzll(w)) : 0;
        }
        uint64_t ma = top_mask(k[0]) << 26 | top_mask(k[1]), mb = top_mask(k[2]) << 26 | top_mask(k[3]);
        uint64_t va = ca & ma, vb = cb & mb;
        Entry *e = NULL;
        key = tt_key(lens, meta); /* again: the search below may have cleared the table */
        if (key->meta) {
            for (uint32_t ci = key->chunk; ci && !e; ci = chunks[ci].next) {
                Chunk *ch = &chunks[ci];
                for (uint32_t j = 0; j < ch->n; j++) {
                    Entry *x = &ch->e[j];
                    if (!memcmp(x->k, k, 4) && x->va == va && x->vb == vb) { e = x; break; }
                }
            }
        }
        if (e == NULL) {
            if (chunks_used + 1 >= CHUNKS || keys_used >= (3u << KEY_BITS) / 4) { /* full: start again */
                tt_clear();
                key = tt_key(lens, meta);
            }
            if (!key->meta) {
                key->lens = lens; key->meta = meta | 1u << 31; key->chunk = 0;
                keys_used++;
            }
            if (!key->chunk || chunks[key->chunk].n == CHUNK) {
                uint32_t ci = chunks_used++;
                chunks[ci].next = key->chunk;
                chunks[ci].n = 0;
                key->chunk = ci;
            }
            Chunk *ch = &chunks[key->chunk];
            e = &ch->e[ch->n++];
            memcpy(e->k, k, 4);
            e->va = va; e->vb = vb;
            e->lb = 0; e->ub = (int8_t)s->remaining;
            e->best_suit = -1; e->best_rel = -1;
        }
        if (n > 0) {
            int c = mv[decided].card, suit = c / 13;
            uint64_t sall = all >> (suit * 13) & SUIT13;
            e->best_suit = (int8_t)suit;
            e->best_rel = (int8_t)__builtin_popcountll(sall >> (c % 13 + 1));
            if (s->nullo) {
                uint32_t slot = side_hint_slot(lens, meta, s->leader);
                side_hint[slot][0] = (int8_t)(suit + 1);
                side_hint[slot][1] = e->best_rel;
            }
        }
        if (result) { if (e->lb < t) e->lb = (int8_t)t; }
        else { if (e->ub > t - 1) e->ub = (int8_t)(t - 1); }
    }
    return result;
}

/* The positions after each move of the last call and their values (counted tricks from
 * their own trick on): the analysis of a hand asks for the position after a move next,
 * whose value is then known without searching. */
#define LAST_MAX 20
static State last_child[LAST_MAX];
static int8_t last_value[LAST_MAX];
static int last_n = 0;

static int same_position(const State *a, const State *b) {
    if (memcmp(a->h, b->h, sizeof a->h) || a->trump != b->trump || a->nullo != b->nullo ||
        a->counted != b->counted || a->leader != b->leader || a->ncur != b->ncur ||
        a->remaining != b->remaining)
        return 0;
    for (int i = 0; i < a->ncur; i++) if (a->cur[i] != b->cur[i]) return 0;
    return a->ncur == 0 || (a->win_idx == b->win_idx && a->win_val == b->win_val && a->win_suit == b->win_suit);
}

/* Exact number of counted tricks from a position, by moving a null window. */
static int exact_in(State *s, int lo, int hi, int guess) {
    if (lo < 0) lo = 0;
    if (hi > s->remaining) hi = s->remaining;
    if (guess < lo) guess = lo;
    if (guess > hi) guess = hi;
    while (lo < hi) {
        int t = guess;
        if (t <= lo) t = lo + 1;
        if (t > hi) t = hi;
        uint64_t rel;
        /* step by one trick from the guess (the values of a position's moves are close) */
        if (search(s, t, &rel)) { lo = t; guess = lo + 1; } else { hi = t - 1; guess = hi; }
    }
    return lo;
}

/* A position's value with nothing known of it: bisection. (Stepping up from a guess far
 * below the value proves every target on the way, each nearly as costly as the value.) */
static int exact(State *s) {
    int lo = 0, hi = s->remaining;
    while (lo < hi) {
        int t = (lo + hi + 1) / 2;
        uint64_t rel;
        if (search(s, t, &rel)) lo = t; else hi = t - 1;
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
    if (keys == NULL) {
        keys = (Key *)PyMem_RawCalloc((size_t)1 << KEY_BITS, sizeof(Key));
        chunks = (Chunk *)PyMem_RawMalloc((size_t)CHUNKS * sizeof(Chunk));
        if (!keys || !chunks) return PyErr_NoMemory();
        for (int k = 0; k <= 13; k++) mask26[k] = top_mask(k);
    }
    if (search_lock == NULL && (search_lock = PyThread_allocate_lock()) == NULL)
        return PyErr_NoMemory();
    /* every legal move, none collapsed, at the root */
    int seat = (s.leader + s.ncur) & 3;
    uint64_t legal = s.h[seat];
    if (s.ncur > 0 && (legal & (SUIT13 << (s.led * 13)))) legal &= SUIT13 << (s.led * 13);
    int cards[64], highs[64], values[64], n = 0; /* at most 13 cards, an ace twice */
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(search_lock, WAIT_LOCK);
    memset(hist, 0, sizeof hist);
    /* The value of the position first; then each move's value lies on one side of it,
     * and one search says whether the move reaches it. */
    int best = -1;
    for (int i = 0; i < last_n; i++)
        if (same_position(&s, &last_child[i])) { best = last_value[i]; break; }
    if (best < 0) best = exact(&s);
    int is_max = (seat & 1) == s.maxside;
    last_n = 0;
    for (uint64_t m = legal; m; m &= m - 1) {
        int c = lowbit(m);
        int nh = (nullo && c % 13 == 12) ? 2 : 1;
        for (int hi = 0; hi < nh; hi++) {
            State save = s;
            int w = play(&s, c, hi);
            int wv = (w == s.counted ? 1 : 0), v;
            uint64_t rel;
            if (is_max)
                v = search(&s, best - wv, &rel) ? best : wv + exact_in(&s, 0, best - wv - 1, best - wv - 1);
            else
                v = !search(&s, best - wv + 1, &rel) ? best
                                                     : wv + exact_in(&s, best - wv + 1, s.remaining, best - wv + 1);
            if (last_n < LAST_MAX) { last_child[last_n] = s; last_value[last_n++] = (int8_t)(v - wv); }
            s = save;
            cards[n] = c; highs[n] = hi; values[n] = v; n++;
        }
    }
    PyThread_release_lock(search_lock);
    Py_END_ALLOW_THREADS
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *item = Py_BuildValue("(iii)", cards[i], highs[i], values[i]);
        if (!item) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* bounds(hands, trump, nullo, counted, leader) -> (lower, upper): the bounds the search
 * takes without searching on the counted side's tricks from a trick boundary (hands:
 * four masks of as many cards each). For the tests: the bounds must hold. */
static PyObject *py_bounds(PyObject *self, PyObject *args) {
    PyObject *hands;
    int trump, nullo, counted, leader;
    (void)self;
    if (!PyArg_ParseTuple(args, "Oiiii", &hands, &trump, &nullo, &counted, &leader)) return NULL;
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
    if (total % 4 || __builtin_popcountll(s.h[0]) * 4 != total) {
        PyErr_SetString(PyExc_ValueError, "hands: as many cards each");
        return NULL;
    }
    s.trump = trump; s.nullo = nullo; s.counted = counted & 1;
    s.maxside = nullo ? s.counted ^ 1 : s.counted;
    s.leader = leader & 3;
    s.remaining = total / 4;
    int lo, hi;
    uint64_t rlo, rhi;
    trick_bounds(&s, &lo, &rlo, &hi, &rhi);
    return Py_BuildValue("(ii)", lo, hi);
}

static PyObject *py_nodes(PyObject *self, PyObject *args) {
    (void)self; (void)args;

    return PyLong_FromLong(nodes);
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS, "Counted tricks from the current trick on, per legal move."},
    {"bounds", py_bounds, METH_VARARGS, "The search's bounds on the counted tricks at a trick boundary."},
    {"nodes", py_nodes, METH_NOARGS, "Nodes searched since the module was loaded."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ddsolve", NULL, -1, methods};

PyMODINIT_FUNC PyInit__ddsolve(void) { return PyModule_Create(&module); }

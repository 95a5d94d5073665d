/*
 * The auditor's native fast path (audit/native/__init__.py is its Python face).
 *
 * Most records a director or a card room audits are in order: every hand valid,
 * played by the rules, gathered as won, scored right and honestly shuffled. For
 * such a record this module does the whole audit of its hands in one pass over the
 * parsed JSON (validate, replay, score, every check) and keeps each hand as a compact
 * struct (Audited), from which the report's `hands` entries (with their stacking tests)
 * are built one at a time, and builds the report's `rubbers`: the very objects the
 * Python auditor builds.
 *
 * It is a fast path, not a second auditor: the moment it meets anything it would
 * have to report (an irregularity, a score slip; not a stacked deal, which
 * audit/native/__init__.py reports from the stacking object built here) or anything
 * it does not handle (`penalties`, a value it is not sure is valid), it returns
 * None and the Python auditor audits the record from the start. A hand's `shuffle`
 * transcript is left to Python (audit/native/__init__.py verifies it with the shuffle
 * check's own function and declines on any finding). tests/audit/test_native.py holds the two to the same report, byte for
 * byte, on clean and on mutated records.
 *
 * Floating point follows the Python code operation by operation (same libm exp,
 * log and pow, no contraction: setup.py passes -ffp-contract=off), so p-values and
 * statistics are bit-identical. What Python computes with its own algorithms
 * (lgamma, round) comes from Python: the riffle table is passed in by configure(),
 * and rounding calls the builtin round().
 *
 * This file is the Python module (audit_hands, Audited, configure); fastaudit.h lists the
 * others.
 */
#include "fastaudit.h"

Tables G;
#define FA_DEFINE(var, text) PyObject *var;
FA_STRINGS(FA_DEFINE)
#undef FA_DEFINE
PyObject *S_seat_name[4], *S_contract_name[6], *F_26;

/* ------------------------------------------------------------------------ */
/* Audited: the hands of a record in order, kept as their compact structs. The report's
 * entries are built from them one at a time, as they are asked for (entry(i)), so a
 * record's entries need never be whole in memory (docs/performance.md, "One big
 * record"); building one twice gives the same object.                      */

typedef struct {
    PyObject_HEAD
    Hand *hands;
    int (*before)[4]; /* the marker (NS, EW) and the games (NS, EW) before each hand */
    Py_ssize_t *ref; /* the hand each deal is tested against; -1: untested */
    StackTest *tests; /* each deal's test, computed when first asked for */
    Py_ssize_t n;
    const Pattern *pat;
    int seven_double;
} Audited;

static void audited_dealloc(Audited *self) {
    PyMem_Free(self->hands);
    PyMem_Free(self->before);
    PyMem_Free(self->ref);
    PyMem_Free(self->tests);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t audited_len(Audited *self) {
    return self->n;
}

static int index_of(Audited *self, PyObject *arg, Py_ssize_t *i) {
    *i = PyLong_AsSsize_t(arg);
    if (*i == -1 && PyErr_Occurred())
        return 0;
    if (*i < 0 || *i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "no such hand");
        return 0;
    }
    return 1;
}

/* the report's `stacking` of hand i (a new reference), or Py_None when untested */
static PyObject *stacking_of(Audited *self, Py_ssize_t i) {
    Py_ssize_t j = self->ref[i];
    if (j < 0)
        Py_RETURN_NONE;
    return stacking_json(&self->hands[i], &self->hands[j], (int)j + 1, self->pat,
                         &self->tests[i]);
}

static PyObject *audited_entry(Audited *self, PyObject *arg) {
    Py_ssize_t i;
    if (!index_of(self, arg, &i))
        return NULL;
    const Hand *h = &self->hands[i];
    const int *b = self->before[i];
    int points[2] = {b[0], b[1]}, games[2] = {b[2], b[3]};
    HandScore s;
    score_hand(points, games, h, self->seven_double, &s);
    PyObject *entry = h->board < 0
        ? dict_of(6, S_hand, PyLong_FromSsize_t(i + 1), S_dealer, new_ref(S_seat_name[h->dealer]),
                  S_contract, new_ref(S_contract_name[h->contract]), S_unit,
                  PyLong_FromLong(h->unit), S_tricks, sides_of(h->won[0], h->won[1]), S_score,
                  score_json(&s))
        : dict_of(7, S_hand, PyLong_FromSsize_t(i + 1), S_board, PyLong_FromLong(h->board),
                  S_dealer, new_ref(S_seat_name[h->dealer]), S_contract,
                  new_ref(S_contract_name[h->contract]), S_unit, PyLong_FromLong(h->unit),
                  S_tricks, sides_of(h->won[0], h->won[1]), S_score, score_json(&s));
    if (entry == NULL)
        return NULL;
    PyObject *info = stacking_of(self, i);
    if (info == NULL || (info != Py_None && PyDict_SetItem(entry, S_stacking, info) < 0)) {
        Py_XDECREF(info);
        Py_DECREF(entry);
        return NULL;
    }
    Py_DECREF(info);
    return entry;
}

static PyObject *audited_stacking(Audited *self, PyObject *arg) {
    Py_ssize_t i;
    if (!index_of(self, arg, &i))
        return NULL;
    return stacking_of(self, i);
}

/* per hand: (dealer, (p_value, statistic, method)), or (dealer, None) when untested */
static PyObject *audited_results(Audited *self, PyObject *noargs) {
    PyObject *out = PyList_New(self->n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < self->n; i++) {
        Py_ssize_t j = self->ref[i];
        const Hand *h = &self->hands[i];
        StackTest *t = &self->tests[i];
        PyObject *dealer = S_seat_name[h->dealer], *row;
        if (j < 0 || !stacking_numbers(h, &self->hands[j], self->pat, t))
            row = PyTuple_Pack(2, dealer, Py_None);
        else
            row = Py_BuildValue("(O(ddO))", dealer, t->p, t->statistic,
                                h->has_order ? S_m_order : S_m_hands);
        if (row == NULL)
            goto fail;
        PyList_SET_ITEM(out, i, row);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *audited_held(Audited *self, PyObject *arg) {
    Py_ssize_t i;
    if (!index_of(self, arg, &i))
        return NULL;
    const Hand *h = &self->hands[i];
    return Py_BuildValue("(ii)", h->honours[0], h->honours[1]);
}

static PyMethodDef audited_methods[] = {
    {"held", (PyCFunction)audited_held, METH_O,
     "Hand i's trump honours (T J Q K A) dealt to each side (NS, EW); (0, 0) without trumps."},
    {"entry", (PyCFunction)audited_entry, METH_O,
     "Hand i's report entry (0-based), without its claim and explanation."},
    {"stacking", (PyCFunction)audited_stacking, METH_O,
     "Hand i's report `stacking` (0-based), or None when its deal is untested."},
    {"results", (PyCFunction)audited_results, METH_NOARGS,
     "Per hand: (dealer, (p_value, statistic, method)), or (dealer, None) if untested."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods audited_as_sequence = {.sq_length = (lenfunc)audited_len};

static PyTypeObject AuditedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "audit.native._fastaudit.Audited",
    .tp_doc = "The hands of a record audited in order; their report entries built one at a "
              "time.",
    .tp_basicsize = sizeof(Audited),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)audited_dealloc,
    .tp_as_sequence = &audited_as_sequence,
    .tp_methods = audited_methods,
};

/* ------------------------------------------------------------------------ */
/* audit_hands(hands, pattern, seven_double, points, games, prior_sheet, independent)
 *   -> (Audited, rubbers_json) or None; hands: a list or any iterable         */

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

/* Grow the hands array to hold at least n + 1 hands (doubling). */
static int room_for(Hand **hands, Py_ssize_t *cap, Py_ssize_t n) {
    if (n < *cap)
        return 1;
    Py_ssize_t grown = *cap * 2;
    Hand *more = PyMem_Realloc(*hands, grown * sizeof(Hand));
    if (more == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    *hands = more;
    *cap = grown;
    return 1;
}

static PyObject *audit_hands(PyObject *self, PyObject *args) {
    PyObject *hands_raw, *pattern_obj, *prior;
    int seven_double, independent;
    int p0, p1, g0, g1;
    if (!PyArg_ParseTuple(args, "OOp(ii)(ii)Op", &hands_raw, &pattern_obj, &seven_double, &p0,
                          &p1, &g0, &g1, &prior, &independent))
        return NULL;
    if (!G.configured) {
        PyErr_SetString(PyExc_RuntimeError, "audit.native._fastaudit: configure() was not called");
        return NULL;
    }
    const Pattern *pat = find_pattern(pattern_obj);
    if (pat == NULL)
        Py_RETURN_NONE; /* a pattern this path was not told about */
    /* a list, or any iterable (a streamed record): each hand is read into its compact
     * struct and its JSON let go before the next is asked for */
    PyObject *it = PyObject_GetIter(hands_raw);
    if (it == NULL)
        return NULL;
    Py_ssize_t cap = PyList_Check(hands_raw) ? PyList_GET_SIZE(hands_raw) : 1024;
    if (cap < 1)
        cap = 1;
    Hand *hands = PyMem_Malloc(cap * sizeof(Hand));
    if (hands == NULL) {
        Py_DECREF(it);
        return PyErr_NoMemory();
    }
    Audited *audited = NULL;
    PyObject *out_rubbers = NULL, *result = NULL;
    Rubber *rubbers = NULL;
    Py_ssize_t n_rubbers = 0;
    Py_ssize_t n = 0;
    int fast = 1;
    /* read and replay every hand; the per-hand checks */
    for (;;) {
        PyObject *raw = PyIter_Next(it);
        if (raw == NULL)
            break; /* the end, or an exception (reported below) */
        if (!room_for(&hands, &cap, n)) {
            Py_DECREF(raw);
            break;
        }
        Py_ssize_t i = n++;
        Hand *h = &hands[i];
        int ok = read_hand(raw, h);
        Py_DECREF(raw);
        if (!ok) {
            fast = 0;
            break;
        }
        if (h->has_order && !follows_order(h, pat))
            fast = 0;
        else if (h->has_gathered && !gathered_as_won(h))
            fast = 0;
        else if (h->has_collected && !collected_as_won(h))
            fast = 0;
        else if (!independent && i > 0 && h->board < 0 && hands[i - 1].board < 0) {
            /* a duplicate board is dealt by its own dealer with its own pack */
            const Hand *prev = &hands[i - 1];
            if (h->dealer != ((prev->dealer + 1) & 3))
                fast = 0;
            if (h->pack >= 0 && prev->pack >= 0 && h->pack == prev->pack)
                fast = 0;
        }
        if (!fast)
            break;
    }
    Py_DECREF(it);
    if (!fast || PyErr_Occurred())
        goto done;
    /* the hands, kept (the array shrunk to fit) for the entries */
    audited = PyObject_New(Audited, &AuditedType);
    if (audited == NULL)
        goto error;
    audited->hands = n > 0 ? PyMem_Realloc(hands, n * sizeof(Hand)) : hands;
    if (audited->hands == NULL) {
        audited->hands = hands;
        audited->before = NULL;
        audited->ref = NULL;
        audited->tests = NULL;
        audited->n = 0;
        PyErr_NoMemory();
        goto error;
    }
    hands = audited->hands;
    audited->n = n;
    audited->pat = pat;
    audited->seven_double = seven_double;
    audited->before = PyMem_Malloc((n + 1) * sizeof(int[4]));
    audited->ref = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    audited->tests = PyMem_Calloc(n + 1, sizeof(StackTest));
    if (audited->before == NULL || audited->ref == NULL || audited->tests == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    /* score from the start; the claims */
    rubbers = PyMem_Calloc(n + 1, sizeof(Rubber));
    if (rubbers == NULL)
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
        int *b = audited->before[i];
        b[0] = points[0];
        b[1] = points[1];
        b[2] = games[0];
        b[3] = games[1];
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
    }
    /* the stacking tests: each deal against its pack's previous hand */
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t j = -1;
        if (independent) {
            audited->ref[i] = -1;
            continue;
        }
        if (hands[i].pack < 0) {
            j = i >= 2 ? i - 2 : -1;
        } else {
            for (Py_ssize_t k = i - 1; k >= 0; k--)
                if (hands[k].pack == hands[i].pack) {
                    j = k;
                    break;
                }
        }
        if (j >= 0 && !(hands[j].has_gathered || hands[j].has_collected))
            j = -1;
        if (j >= 0 && (hands[i].board >= 0 || hands[j].board >= 0))
            j = -1; /* a duplicate board is not dealt from the table's last pack */
        audited->ref[i] = j;
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
    result = PyTuple_Pack(2, (PyObject *)audited, out_rubbers);
    goto done;
error:
    fast = 1; /* an exception is set: report it */
done:
    if (rubbers != NULL) {
        for (Py_ssize_t k = 0; k < n_rubbers; k++)
            rubber_free(&rubbers[k]);
        PyMem_Free(rubbers);
    }
    if (audited == NULL)
        PyMem_Free(hands);
    Py_XDECREF(audited); /* frees the hands unless the result holds it */
    Py_XDECREF(out_rubbers);
    if (result != NULL)
        return result;
    if (PyErr_Occurred())
        return NULL;
    (void)fast;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------ */
/* configure(cdf, riffles, llr, order_tail, min_p, patterns, scalars)
 *   scalars: (evidence_p, close_span, thorough_riffles, soft_min_scale)       */

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
    double min_p, evidence_p, soft_min_scale;
    int close_span, thorough_riffles;
    if (G.configured) {
        Py_RETURN_NONE; /* once per process: the tables are constants */
    }
    if (!PyArg_ParseTuple(args, "O!O!O!OdO!(diid)", &PyTuple_Type, &cdf, &PyTuple_Type,
                          &riffles, &PyTuple_Type, &llr, &order_tail, &min_p, &PyTuple_Type,
                          &patterns, &evidence_p, &close_span, &thorough_riffles,
                          &soft_min_scale))
        return NULL;
    if (!(soft_min_scale > 0.0) || close_span < 1 || thorough_riffles < 1) {
        PyErr_SetString(PyExc_ValueError, "configure: a scalar out of range");
        return NULL;
    }
    G.evidence_p = evidence_p;
    G.close_span = close_span;
    G.thorough_riffles = thorough_riffles;
    G.soft_min_scale = soft_min_scale;
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
    if (PyErr_Occurred() || !read_tail(order_tail, &G.order_two_way))
        return NULL;
    G.min_p = min_p;
    G.n_patterns = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(patterns); i++) {
        /* (sizes, name, tables or None); tables: (test_w, pair_w, plain_w, chain_offset,
         * orient_w, riffle_ws, two_way, oriented) */
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
            PyObject *tw, *pw, *fw, *ow, *rw, *tail, *otail;
            if (!PyArg_ParseTuple(tables, "O!O!O!dO!O!OO", &PyTuple_Type, &tw, &PyTuple_Type, &pw,
                                  &PyTuple_Type, &fw, &p->chain_offset, &PyTuple_Type, &ow,
                                  &PyTuple_Type, &rw, &tail, &otail))
                return NULL;
            if (PyTuple_GET_SIZE(tw) != 4 || !read_doubles(tw, p->test_w, 4) ||
                PyTuple_GET_SIZE(fw) != 4 || !read_doubles(fw, p->plain_w, 4) ||
                PyTuple_GET_SIZE(ow) != 4 || !read_doubles(ow, p->orient_w, 4))
                return NULL;
            if (PyTuple_GET_SIZE(pw) != 4) {
                PyErr_SetString(PyExc_ValueError, "configure: pair weights must be 4 x 4");
                return NULL;
            }
            for (int a = 0; a < 4; a++) {
                PyObject *row = PyTuple_GET_ITEM(pw, a);
                if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 4 ||
                    !read_doubles(row, p->pair_w[a], 4))
                    return NULL;
            }
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
            if (!read_tail(tail, &p->two_way) || !read_tail(otail, &p->oriented))
                return NULL;
            p->e_riffle = PyMem_Malloc((p->n_riffles ? p->n_riffles : 1) * sizeof(double[4]));
            if (p->e_riffle == NULL)
                return PyErr_NoMemory();
            for (int i = 0; i < 4; i++) {
                p->e_test[i] = exp(p->test_w[i]);
                p->e_plain[i] = exp(p->plain_w[i]);
                for (int b = 0; b < 4; b++)
                    p->e_pair[i][b] = exp(p->pair_w[i][b]);
                for (int k = 0; k < p->n_riffles; k++)
                    p->e_riffle[k][i] = exp(p->riffle_w[k][i]);
            }
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
    {"configure", configure, METH_VARARGS, "Hand over the detector's tables and scalars (once)."},
    {"is_configured", is_configured, METH_NOARGS, "Whether configure() has run."},
    {"audit_hands", audit_hands, METH_VARARGS,
     "The hands (Audited) and the report's rubbers for a record in order, or None."},
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
#define FA_INTERN(var, text) INTERN(var, text);
    FA_STRINGS(FA_INTERN)
#undef FA_INTERN
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
    if (PyType_Ready(&AuditedType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "NCARDS", NCARDS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_PATTERNS", MAX_PATTERNS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

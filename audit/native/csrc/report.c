/* Building the report's objects; the score sheet of each rubber. */
#include "fastaudit.h"

/* ------------------------------------------------------------------------ */
/* building the report's objects                                            */

PyObject *int_list(const int *xs, int n) {
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
PyObject *dict_of(int n, ...) {
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

PyObject *sides_of(int ns, int ew) {
    return dict_of(2, S_NS, PyLong_FromLong(ns), S_EW, PyLong_FromLong(ew));
}

PyObject *new_ref(PyObject *o) {
    Py_INCREF(o);
    return o;
}

static PyObject *kind_name(int kind) {
    return new_ref(kind == 0 ? S_rubber : kind == 1 ? S_slam : S_little_slam);
}

PyObject *score_json(const HandScore *s) {
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

PyObject *round_to(double x, int digits) {
    return PyObject_CallFunction(G.round_fn, "di", x, digits);
}

/* The report's `stacking` object of hand `h` against the pack's previous hand `prev`
 * (1-based number `prev_number`); Py_None when untested. A p-value below alpha is a
 * finding (STACKED_DEAL) that audit/native/__init__.py makes from this object. */
/* d[key] = value, the value stolen; 0 on failure (also for a NULL value) */
int put(PyObject *d, PyObject *key, PyObject *value) {
    if (value == NULL)
        return 0;
    int rc = PyDict_SetItem(d, key, value);
    Py_DECREF(value);
    return rc == 0;
}


/* ------------------------------------------------------------------------ */
/* the score sheet                                                          */


int rubber_init(Rubber *r) {
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

void rubber_free(Rubber *r) {
    for (int s = 0; s < 2; s++) {
        Py_XDECREF(r->cols[s]);
        Py_XDECREF(r->extra[s]);
    }
}

int append_int(PyObject *list, long v) {
    PyObject *o = PyLong_FromLong(v);
    if (o == NULL)
        return -1;
    int rc = PyList_Append(list, o);
    Py_DECREF(o);
    return rc;
}

PyObject *rubber_json(const Rubber *r) {
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


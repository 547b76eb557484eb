/* The hot operators of graphs/relalg.py, compiled: sequence, transitive closure, inverse,
 * acyclicity, domain, range of relations encoded as Python ints (pair (i, j) is bit
 * i * cap + j, n events), and the product of two sets (event sets: bit i, event i).
 *
 * Optional: setup.py builds it when a C compiler is there; graphs/relalg.py falls back to
 * its pure-Python operators otherwise, with identical answers (tests/test_relalg_kernel.py
 * compares them).  Rows are copied out of the int into 64-bit words, combined, and the
 * result is made an int again.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if PY_BIG_ENDIAN
#error "little-endian hosts only (the pure-Python operators serve the others)"
#endif

/* The int x as `nw` little-endian 64-bit words (x >= 0 and x < 2**(64*nw)), and back.
 * Up to CPython 3.11 an int's digits are read and written in place (its layout: ob_size
 * digits of PyLong_SHIFT bits, least significant first), several times faster than the
 * byte-array conversions, which serve later versions. */
#if PY_VERSION_HEX < 0x030C0000
#define DIRECT_DIGITS 1
#endif

static int to_words(PyObject *x, uint64_t *w, Py_ssize_t nw) {
#ifdef DIRECT_DIGITS
    const digit *d = ((PyLongObject *)x)->ob_digit;
    Py_ssize_t nd = Py_SIZE(x);
    memset(w, 0, (size_t)nw * sizeof(uint64_t));
    for (Py_ssize_t i = 0; i < nd; i++) {
        Py_ssize_t pos = i * PyLong_SHIFT;
        Py_ssize_t q = pos >> 6;
        int off = (int)(pos & 63);
        uint64_t v = (uint64_t)d[i];
        if (q < nw)
            w[q] |= v << off;
        if (off > 64 - PyLong_SHIFT && q + 1 < nw)
            w[q + 1] |= v >> (64 - off);
    }
    return 0;
#elif PY_VERSION_HEX >= 0x030D0000
    return _PyLong_AsByteArray((PyLongObject *)x, (unsigned char *)w, (size_t)nw * 8, 1, 0, 1);
#else
    return _PyLong_AsByteArray((PyLongObject *)x, (unsigned char *)w, (size_t)nw * 8, 1, 0);
#endif
}

static PyObject *from_words(const uint64_t *w, Py_ssize_t nw) {
#ifdef DIRECT_DIGITS
    Py_ssize_t top = nw;
    while (top && !w[top - 1])
        top--;
    if (!top)
        return PyLong_FromLong(0);
    Py_ssize_t nbits = 64 * (top - 1) + (64 - __builtin_clzll(w[top - 1]));
    Py_ssize_t nd = (nbits + PyLong_SHIFT - 1) / PyLong_SHIFT;
    if (nd == 1) /* small ints come from the interpreter's cache */
        return PyLong_FromLong((long)w[0]);
    PyLongObject *v = _PyLong_New(nd);
    if (!v)
        return NULL;
    digit *d = v->ob_digit;
    for (Py_ssize_t i = 0; i < nd; i++) {
        Py_ssize_t pos = i * PyLong_SHIFT;
        Py_ssize_t q = pos >> 6;
        int off = (int)(pos & 63);
        uint64_t b = w[q] >> off;
        if (off > 64 - PyLong_SHIFT && q + 1 < top)
            b |= w[q + 1] << (64 - off);
        d[i] = (digit)(b & PyLong_MASK);
    }
    return (PyObject *)v;
#else
    return _PyLong_FromByteArray((const unsigned char *)w, (size_t)nw * 8, 1, 0);
#endif
}

/* The 64 bits of w from bit pos on (0 past its end). */
static inline uint64_t bits_at(const uint64_t *w, Py_ssize_t nw, Py_ssize_t pos) {
    Py_ssize_t q = pos >> 6;
    int off = (int)(pos & 63);
    uint64_t v = q < nw ? w[q] >> off : 0;
    if (off && q + 1 < nw)
        v |= w[q + 1] << (64 - off);
    return v;
}

/* OR the 64 bits v into w from bit pos on (what falls past its end is dropped). */
static inline void or_bits(uint64_t *w, Py_ssize_t nw, Py_ssize_t pos, uint64_t v) {
    Py_ssize_t q = pos >> 6;
    int off = (int)(pos & 63);
    if (q < nw)
        w[q] |= v << off;
    if (off && q + 1 < nw)
        w[q + 1] |= v >> (64 - off);
}

static inline uint64_t row_mask(Py_ssize_t n) {
    return n >= 64 ? ~(uint64_t)0 : (((uint64_t)1) << n) - 1;
}

/* Row i (bits i*cap .. i*cap+n-1 of w) into `rw` words of out. */
static inline void get_row(const uint64_t *w, Py_ssize_t nw, Py_ssize_t i, Py_ssize_t cap,
                    Py_ssize_t n, uint64_t *out, Py_ssize_t rw) {
    for (Py_ssize_t k = 0; k < rw; k++)
        out[k] = bits_at(w, nw, i * cap + 64 * k);
    out[rw - 1] &= row_mask(n - 64 * (rw - 1)); /* bits used in the last word: 1..64 */
}

/* OR the `rw` words of row into row i of w. */
static inline void or_row(uint64_t *w, Py_ssize_t nw, Py_ssize_t i, Py_ssize_t cap,
                   const uint64_t *row, Py_ssize_t rw) {
    for (Py_ssize_t k = 0; k < rw; k++)
        if (row[k])
            or_bits(w, nw, i * cap + 64 * k, row[k]);
}

typedef struct {
    Py_ssize_t n, cap, rw, nw;
} Shape;

/* The universe of n events, rows cap bits apart, read from two ints; 0 on success, -1
 * with an exception set. */
static int universe_of(PyObject *pn, PyObject *pcap, Py_ssize_t *n, Py_ssize_t *cap) {
    *n = PyLong_AsSsize_t(pn);
    *cap = PyLong_AsSsize_t(pcap);
    if (PyErr_Occurred())
        return -1;
    if (*n < 0 || *cap < *n || *n > (1 << 20)) {
        PyErr_SetString(PyExc_ValueError, "bad universe");
        return -1;
    }
    return 0;
}

/* The number of bits of the non-negative int x. */
static inline Py_ssize_t num_bits(PyObject *x) {
#ifdef DIRECT_DIGITS
    Py_ssize_t nd = Py_SIZE(x);
    if (!nd)
        return 0;
    digit top = ((PyLongObject *)x)->ob_digit[nd - 1];
    return (nd - 1) * PyLong_SHIFT + (32 - __builtin_clz((unsigned int)top));
#else
    return (Py_ssize_t)_PyLong_NumBits(x);
#endif
}

/* The k relations of a call on the universe (n, cap) checked, and the buffers sized; 0 on
 * success, -1 with an exception set. */
static int shape_of(Py_ssize_t n, Py_ssize_t cap, PyObject *const *rels, int k, Shape *sh) {
    sh->n = n;
    sh->cap = cap;
    sh->rw = n ? (n + 63) / 64 : 1;
    Py_ssize_t bits = n * cap;
    for (int i = 0; i < k; i++) {
        if (!PyLong_CheckExact(rels[i]) || _PyLong_Sign(rels[i]) < 0) {
            PyErr_SetString(PyExc_TypeError, "relations are non-negative ints");
            return -1;
        }
        Py_ssize_t b = num_bits(rels[i]);
        if (b > bits)
            bits = b;
    }
    sh->nw = bits / 64 + 1;
    return 0;
}

/* The arguments (n, cap, then k relations) checked, and the buffers sized; 0 on success,
 * -1 with an exception set. */
static int parse_call(PyObject *const *args, Py_ssize_t nargs, int k, const char *usage,
                      Shape *sh) {
    if (nargs != 2 + k) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    Py_ssize_t n, cap;
    if (universe_of(args[0], args[1], &n, &cap))
        return -1;
    return shape_of(n, cap, args + 2, k, sh);
}

/* Universes of at most SMALL_N events whose relations fit in SMALL_WORDS words take the
 * small path: one word per row, buffers on the stack (no allocation). */
#define SMALL_N 64
#define SMALL_WORDS 66

/* Buffers of at most this many words live on the stack (16 KB: universes of about 180
 * events), larger ones on the heap. */
#define STACK_WORDS 2048

/* Whether the call takes the small path (see SMALL_N). */
static inline int small(const Shape *sh) { return sh->n <= SMALL_N && sh->nw <= SMALL_WORDS; }


/* r ; s on the small path. */
static PyObject *seq_small(PyObject *x, PyObject *y, const Shape *sh) {
    Py_ssize_t n = sh->n, cap = sh->cap, nw = sh->nw;
    uint64_t r[SMALL_WORDS], s[SMALL_WORDS], out[SMALL_WORDS], rows[SMALL_N];
    if (to_words(x, r, nw) || to_words(y, s, nw))
        return NULL;
    memset(out, 0, (size_t)nw * sizeof(uint64_t));
    uint64_t mask = row_mask(n), used = 0;
    uint64_t ri[SMALL_N];
    for (Py_ssize_t i = 0; i < n; i++) {
        ri[i] = bits_at(r, nw, i * cap) & mask;
        used |= ri[i];
    }
    for (uint64_t u = used; u; u &= u - 1) {
        int j = __builtin_ctzll(u);
        rows[j] = bits_at(s, nw, j * cap) & mask;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t acc = 0;
        for (uint64_t v = ri[i]; v; v &= v - 1)
            acc |= rows[__builtin_ctzll(v)];
        if (acc)
            or_bits(out, nw, i * cap, acc);
    }
    return from_words(out, nw);
}

/* The n rows (rw words each) closed transitively (Warshall); whether some event reaches
 * itself (with stop_at_cycle, the closure stops at the first that does). */
static int close_rows(uint64_t *rows, Py_ssize_t n, Py_ssize_t rw, int stop_at_cycle) {
    for (Py_ssize_t k = 0; rw == 1 && k < n; k++) { /* one word per row */
        uint64_t rk = rows[k], kbit = ((uint64_t)1) << k;
        for (Py_ssize_t i = 0; rk && i < n; i++)
            if ((rows[i] & kbit) && ((rows[i] |= rk) >> i & 1) && stop_at_cycle)
                return 1;
    }
    for (Py_ssize_t k = 0; rw > 1 && k < n; k++) {
        const uint64_t *rk = rows + k * rw;
        uint64_t kbit = ((uint64_t)1) << (k & 63);
        Py_ssize_t kw = k >> 6;
        for (Py_ssize_t i = 0; i < n; i++) {
            uint64_t *rowi = rows + i * rw;
            if (rowi[kw] & kbit) {
                for (Py_ssize_t m = 0; m < rw; m++)
                    rowi[m] |= rk[m];
                if (stop_at_cycle && ((rowi[i >> 6] >> (i & 63)) & 1))
                    return 1;
            }
        }
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if ((rows[i * rw + (i >> 6)] >> (i & 63)) & 1)
            return 1;
    return 0;
}

/* Whether the n rows (one word each) have a cycle: the events that reach no live event
 * (sinks) leave, round after round, from those with a successor; a cycle is what stays.
 * A round costs a pass over the live events and there are as many as the longest path
 * has events: cheaper than the closure on the small sparse relations of a check. */
static int cyclic_small(const uint64_t *rows, Py_ssize_t n) {
    uint64_t live = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (rows[i])
            live |= ((uint64_t)1) << i;
    while (live) {
        uint64_t sinks = 0;
        for (uint64_t v = live; v; v &= v - 1) {
            int i = __builtin_ctzll(v);
            if (!(rows[i] & live))
                sinks |= ((uint64_t)1) << i;
        }
        if (!sinks)
            return 1;
        live &= ~sinks;
    }
    return 0;
}

/* Relations of at most two words (n * cap < 128: universes of up to 11 events, most
 * litmus tests') take the tiny path: one 128-bit integer, rows cut out by shifts. */
typedef unsigned __int128 u128;

static inline int tiny(const Shape *sh) { return sh->nw <= 2; }

/* The int x (of shape sh, tiny) as a 128-bit integer; 0 on success. */
static inline int tiny_load(PyObject *x, u128 *v) {
    uint64_t w[2];
    if (to_words(x, w, 2))
        return -1;
    *v = (u128)w[0] | ((u128)w[1] << 64);
    return 0;
}

static inline PyObject *tiny_int(u128 v) {
    uint64_t w[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
    return from_words(w, 2);
}

/* The n rows of v (cap bits apart), n bits each. */
static inline void tiny_rows(u128 v, Py_ssize_t n, Py_ssize_t cap, uint64_t *rows) {
    uint64_t mask = row_mask(n);
    for (Py_ssize_t i = 0; i < n; i++)
        rows[i] = (uint64_t)(v >> (i * cap)) & mask;
}

/* r ; s on the tiny path. */
static PyObject *seq_tiny(PyObject *x, PyObject *y, const Shape *sh) {
    Py_ssize_t n = sh->n, cap = sh->cap;
    u128 r, s, out = 0;
    uint64_t rows[SMALL_N];
    if (tiny_load(x, &r) || tiny_load(y, &s))
        return NULL;
    tiny_rows(s, n, cap, rows);
    uint64_t mask = row_mask(n);
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t acc = 0;
        for (uint64_t v = (uint64_t)(r >> (i * cap)) & mask; v; v &= v - 1)
            acc |= rows[__builtin_ctzll(v)];
        if (acc)
            out |= (u128)acc << (i * cap);
    }
    return tiny_int(out);
}

/* r ; s, args = (r, s) of shape sh (checked). */
static PyObject *do_seq(PyObject *const *args, const Shape *sh0) {
    Shape sh = *sh0;
    if (!_PyLong_Sign(args[0]) || !_PyLong_Sign(args[1]))
        return PyLong_FromLong(0);
    if (tiny(&sh))
        return seq_tiny(args[0], args[1], &sh);
    if (small(&sh))
        return seq_small(args[0], args[1], &sh);
    Py_ssize_t n = sh.n, cap = sh.cap, nw = sh.nw, rw = sh.rw;
    size_t need = (size_t)(3 * nw + (n + 2) * rw);
    uint64_t stack[STACK_WORDS];
    uint64_t *buf = stack;
    if (need > STACK_WORDS) {
        buf = PyMem_Malloc(need * sizeof(uint64_t));
        if (!buf)
            return PyErr_NoMemory();
    }
    uint64_t *r = buf, *s = buf + nw, *out = buf + 2 * nw, *rows = buf + 3 * nw;
    uint64_t *acc = rows + n * rw, *ri = acc + rw;
    PyObject *res = NULL;
    memset(out, 0, (size_t)nw * sizeof(uint64_t));
    if (to_words(args[0], r, nw) || to_words(args[1], s, nw))
        goto done;
    for (Py_ssize_t j = 0; j < n; j++)
        get_row(s, nw, j, cap, n, rows + j * rw, rw);
    for (Py_ssize_t i = 0; i < n; i++) {
        get_row(r, nw, i, cap, n, ri, rw);
        int any = 0;
        memset(acc, 0, (size_t)rw * sizeof(uint64_t));
        for (Py_ssize_t k = 0; k < rw; k++) {
            uint64_t v = ri[k];
            while (v) {
                int b = __builtin_ctzll(v);
                v &= v - 1;
                const uint64_t *sj = rows + (64 * k + b) * rw;
                for (Py_ssize_t m = 0; m < rw; m++)
                    acc[m] |= sj[m];
                any = 1;
            }
        }
        if (any)
            or_row(out, nw, i, cap, acc, rw);
    }
    res = from_words(out, nw);
done:
    if (buf != stack)
        PyMem_Free(buf);
    return res;
}

/* seq(n, cap, r, s): r ; s. */
static PyObject *relalg_seq(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    Shape sh;
    if (parse_call(args, nargs, 2, "seq(n, cap, r, s)", &sh))
        return NULL;
    return do_seq(args + 2, &sh);
}

enum { OP_PLUS, OP_INVERSE, OP_ACYCLIC, OP_DOMAIN, OP_RANGE };

/* The operators of one relation: plus(n, cap, r), the transitive closure r+ (Warshall);
 * inverse(n, cap, r), the pairs (j, i) of the pairs (i, j) of r; acyclic(n, cap, r),
 * whether r has no cycle (the closure, stopping at the first event that reaches itself);
 * domain(n, cap, r) and range(n, cap, r), the events with a successor, with a predecessor.
 * Buffers: r's words, its rows, an output's words; on the stack for small universes. */
static PyObject *unary_tiny(PyObject *x, const Shape *sh, int op) {
    Py_ssize_t n = sh->n, cap = sh->cap;
    u128 v, out = 0;
    uint64_t rows[SMALL_N];
    if (tiny_load(x, &v))
        return NULL;
    tiny_rows(v, n, cap, rows);
    switch (op) {
    case OP_INVERSE:
        for (Py_ssize_t i = 0; i < n; i++)
            for (uint64_t b = rows[i]; b; b &= b - 1)
                out |= (u128)1 << (__builtin_ctzll(b) * cap + i);
        return tiny_int(out);
    case OP_DOMAIN:
        for (Py_ssize_t i = 0; i < n; i++)
            if (rows[i])
                out |= (u128)1 << i;
        return tiny_int(out);
    case OP_RANGE:
        for (Py_ssize_t i = 0; i < n; i++)
            out |= rows[i];
        return tiny_int(out);
    default: /* OP_ACYCLIC */
        return PyBool_FromLong(!cyclic_small(rows, n));
    }
}

static PyObject *do_unary(PyObject *x, const Shape *sh0, int op) {
    Shape sh = *sh0;
    if (!_PyLong_Sign(x))
        return op == OP_ACYCLIC ? Py_NewRef(Py_True) : PyLong_FromLong(0);
    if (op != OP_PLUS && tiny(&sh))
        return unary_tiny(x, &sh, op);
    Py_ssize_t n = sh.n, cap = sh.cap, nw = sh.nw, rw = sh.rw;
    uint64_t stack[STACK_WORDS];
    uint64_t *buf = stack;
    if ((size_t)(2 * nw + n * rw + 1) > STACK_WORDS) {
        buf = PyMem_Malloc((size_t)(2 * nw + n * rw + 1) * sizeof(uint64_t));
        if (!buf)
            return PyErr_NoMemory();
    }
    uint64_t *w = buf, *rows = buf + nw, *out = rows + n * rw;
    PyObject *res = NULL;
    if (to_words(x, w, nw))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        if (rw == 1)
            rows[i] = bits_at(w, nw, i * cap) & row_mask(n);
        else
            get_row(w, nw, i, cap, n, rows + i * rw, rw);
    switch (op) {
    case OP_PLUS:
        close_rows(rows, n, rw, 0);
        for (Py_ssize_t i = 0; i < n; i++)
            or_row(w, nw, i, cap, rows + i * rw, rw);
        res = from_words(w, nw);
        break;
    case OP_INVERSE:
        memset(out, 0, (size_t)nw * sizeof(uint64_t));
        for (Py_ssize_t i = 0; i < n; i++)
            for (Py_ssize_t k = 0; k < rw; k++)
                for (uint64_t v = rows[i * rw + k]; v; v &= v - 1) {
                    Py_ssize_t pos = (64 * k + __builtin_ctzll(v)) * cap + i;
                    out[pos >> 6] |= ((uint64_t)1) << (pos & 63);
                }
        res = from_words(out, nw);
        break;
    case OP_DOMAIN:
        memset(out, 0, (size_t)rw * sizeof(uint64_t));
        for (Py_ssize_t i = 0; i < n; i++)
            for (Py_ssize_t k = 0; k < rw; k++)
                if (rows[i * rw + k]) {
                    out[i >> 6] |= ((uint64_t)1) << (i & 63);
                    break;
                }
        res = from_words(out, rw);
        break;
    case OP_RANGE:
        memset(out, 0, (size_t)rw * sizeof(uint64_t));
        for (Py_ssize_t i = 0; i < n; i++)
            for (Py_ssize_t k = 0; k < rw; k++)
                out[k] |= rows[i * rw + k];
        res = from_words(out, rw);
        break;
    default:
        res = PyBool_FromLong(!(rw == 1 ? cyclic_small(rows, n) : close_rows(rows, n, rw, 1)));
    }
done:
    if (buf != stack)
        PyMem_Free(buf);
    return res;
}

static PyObject *unary(PyObject *const *args, Py_ssize_t nargs, const char *usage, int op) {
    Shape sh;
    if (parse_call(args, nargs, 1, usage, &sh))
        return NULL;
    return do_unary(args[2], &sh, op);
}

static PyObject *relalg_plus(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    return unary(args, nargs, "plus(n, cap, r)", OP_PLUS);
}

static PyObject *relalg_inverse(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    return unary(args, nargs, "inverse(n, cap, r)", OP_INVERSE);
}

static PyObject *relalg_acyclic(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    return unary(args, nargs, "acyclic(n, cap, r)", OP_ACYCLIC);
}

static PyObject *relalg_domain(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    return unary(args, nargs, "domain(n, cap, r)", OP_DOMAIN);
}

static PyObject *relalg_range(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    return unary(args, nargs, "range(n, cap, r)", OP_RANGE);
}

/* product(n, cap, s, t): the pairs (i, j) of i in s and j in t (s spread to column 0,
 * times t): t's words ORed into row i for each i of s.  Sets beyond the universe (s of
 * more than n bits, t of more than cap: rows would overlap) are multiplied out as the
 * Python twin does. */
static PyObject *product_beyond(PyObject *s, PyObject *t, Py_ssize_t cap) {
    if (!cap) /* every event's column bit is bit 0 */
        return Py_NewRef(t);
    PyObject *one = PyLong_FromLong(1), *col = PyLong_FromLong(0), *rest = Py_NewRef(s);
    for (Py_ssize_t at = 0; one && col && rest && _PyLong_Sign(rest); at += cap) {
        PyObject *low = PyNumber_And(rest, one);
        int set = low ? PyObject_IsTrue(low) : -1;
        Py_XDECREF(low);
        if (set < 0)
            break;
        if (set) {
            PyObject *shift = PyLong_FromSsize_t(at);
            PyObject *row = shift ? PyNumber_Lshift(t, shift) : NULL;
            Py_XDECREF(shift);
            PyObject *sum = row ? PyNumber_Add(col, row) : NULL;
            Py_XDECREF(row);
            Py_SETREF(col, sum);
        }
        Py_SETREF(rest, PyNumber_Rshift(rest, one));
    }
    Py_XDECREF(one);
    Py_XDECREF(rest);
    if (PyErr_Occurred())
        Py_CLEAR(col);
    return col;
}

/* s * t on the universe (n, cap), args = (s, t). */
static PyObject *do_product(Py_ssize_t n, Py_ssize_t cap, PyObject *const *args) {
    PyObject *s = args[0], *t = args[1];
    for (int k = 0; k < 2; k++)
        if (!PyLong_CheckExact(args[k]) || _PyLong_Sign(args[k]) < 0) {
            PyErr_SetString(PyExc_TypeError, "sets are non-negative ints");
            return NULL;
        }
    if (!_PyLong_Sign(s) || !_PyLong_Sign(t))
        return PyLong_FromLong(0);
    size_t sb = (size_t)num_bits(s), tb = (size_t)num_bits(t);
    if (sb > (size_t)n || tb > (size_t)cap)
        return product_beyond(s, t, cap);
    if (n * cap < 128) { /* the tiny path (see seq_tiny) */
        u128 sv, tv, out = 0;
        if (tiny_load(s, &sv) || tiny_load(t, &tv))
            return NULL;
        for (uint64_t v = (uint64_t)sv; v; v &= v - 1)
            out |= tv << (__builtin_ctzll(v) * cap);
        return tiny_int(out);
    }
    Py_ssize_t sw = (Py_ssize_t)sb / 64 + 1, tw = (Py_ssize_t)tb / 64 + 1, nw = n * cap / 64 + 1;
    uint64_t stack[STACK_WORDS];
    uint64_t *buf = stack;
    if (nw + sw + tw > STACK_WORDS) {
        buf = PyMem_Malloc((size_t)(nw + sw + tw) * sizeof(uint64_t));
        if (!buf)
            return PyErr_NoMemory();
    }
    uint64_t *out = buf, *sv = buf + nw, *tv = sv + sw;
    PyObject *res = NULL;
    memset(out, 0, (size_t)nw * sizeof(uint64_t));
    if (to_words(s, sv, sw) || to_words(t, tv, tw))
        goto done;
    for (Py_ssize_t q = 0; q < sw; q++)
        for (uint64_t v = sv[q]; v; v &= v - 1) {
            Py_ssize_t i = 64 * q + __builtin_ctzll(v);
            for (Py_ssize_t k = 0; k < tw; k++)
                if (tv[k])
                    or_bits(out, nw, i * cap + 64 * k, tv[k]);
        }
    res = from_words(out, nw);
done:
    if (buf != stack)
        PyMem_Free(buf);
    return res;
}

static PyObject *relalg_product(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "product(n, cap, s, t)");
        return NULL;
    }
    Py_ssize_t n, cap;
    if (universe_of(args[0], args[1], &n, &cap))
        return NULL;
    return do_product(n, cap, args + 2);
}

/* Kernel(n, cap): the operators bound to one universe (its methods take the relations
 * only: no universe to read and check per call). */
typedef struct {
    PyObject_HEAD Py_ssize_t n, cap;
} KernelObject;

static PyObject *kernel_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *pn, *pcap;
    if (kwds && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Kernel(n, cap) takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "Kernel", 2, 2, &pn, &pcap))
        return NULL;
    Py_ssize_t n, cap;
    if (universe_of(pn, pcap, &n, &cap))
        return NULL;
    KernelObject *k = (KernelObject *)type->tp_alloc(type, 0);
    if (!k)
        return NULL;
    k->n = n;
    k->cap = cap;
    return (PyObject *)k;
}

/* The k relations of a method call checked against the kernel's universe. */
static int kernel_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs, int k,
                       const char *usage, Shape *sh) {
    if (nargs != k) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    KernelObject *kern = (KernelObject *)self;
    return shape_of(kern->n, kern->cap, args, k, sh);
}

static PyObject *kernel_seq(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Shape sh;
    if (kernel_call(self, args, nargs, 2, "seq(r, s)", &sh))
        return NULL;
    return do_seq(args, &sh);
}

#define KERNEL_UNARY(name, op)                                                                  \
    static PyObject *kernel_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs) { \
        Shape sh;                                                                               \
        if (kernel_call(self, args, nargs, 1, #name "(r)", &sh))                               \
            return NULL;                                                                        \
        return do_unary(args[0], &sh, op);                                                      \
    }
KERNEL_UNARY(plus, OP_PLUS)
KERNEL_UNARY(inverse, OP_INVERSE)
KERNEL_UNARY(acyclic, OP_ACYCLIC)
KERNEL_UNARY(domain, OP_DOMAIN)
KERNEL_UNARY(range, OP_RANGE)

static PyObject *kernel_product(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "product(s, t)");
        return NULL;
    }
    KernelObject *kern = (KernelObject *)self;
    return do_product(kern->n, kern->cap, args);
}

static PyMethodDef kernel_methods[] = {
    {"seq", (PyCFunction)(void (*)(void))kernel_seq, METH_FASTCALL, "seq(r, s): r ; s"},
    {"plus", (PyCFunction)(void (*)(void))kernel_plus, METH_FASTCALL, "plus(r): r+"},
    {"inverse", (PyCFunction)(void (*)(void))kernel_inverse, METH_FASTCALL, "inverse(r): r^-1"},
    {"acyclic", (PyCFunction)(void (*)(void))kernel_acyclic, METH_FASTCALL,
     "acyclic(r): whether r has no cycle"},
    {"domain", (PyCFunction)(void (*)(void))kernel_domain, METH_FASTCALL,
     "domain(r): the events with a successor"},
    {"range", (PyCFunction)(void (*)(void))kernel_range, METH_FASTCALL,
     "range(r): the events with a predecessor"},
    {"product", (PyCFunction)(void (*)(void))kernel_product, METH_FASTCALL,
     "product(s, t): the pairs of an event of s and one of t"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "herdsman.graphs._relalg.Kernel",
    .tp_basicsize = sizeof(KernelObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Kernel(n, cap): the operators of one universe (relations of n events, rows cap "
              "bits apart).",
    .tp_new = kernel_new,
    .tp_methods = kernel_methods,
};

static PyMethodDef methods[] = {
    {"seq", (PyCFunction)(void (*)(void))relalg_seq, METH_FASTCALL, "seq(n, cap, r, s): r ; s"},
    {"plus", (PyCFunction)(void (*)(void))relalg_plus, METH_FASTCALL, "plus(n, cap, r): r+"},
    {"inverse", (PyCFunction)(void (*)(void))relalg_inverse, METH_FASTCALL,
     "inverse(n, cap, r): r^-1"},
    {"acyclic", (PyCFunction)(void (*)(void))relalg_acyclic, METH_FASTCALL,
     "acyclic(n, cap, r): whether r has no cycle"},
    {"domain", (PyCFunction)(void (*)(void))relalg_domain, METH_FASTCALL,
     "domain(n, cap, r): the events with a successor"},
    {"range", (PyCFunction)(void (*)(void))relalg_range, METH_FASTCALL,
     "range(n, cap, r): the events with a predecessor"},
    {"product", (PyCFunction)(void (*)(void))relalg_product, METH_FASTCALL,
     "product(n, cap, s, t): the pairs of an event of s and one of t"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_relalg", "Compiled relation operators (see relalg.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__relalg(void) {
    if (PyType_Ready(&KernelType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

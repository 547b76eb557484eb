/* TruSt's exploration loop, compiled (engine/trust/core.py drives it; the algorithm is
 * the one of engine/trust/explore.py, step for step, with the same counts).
 *
 * The graph lives here: per event its thread's node (a prefix of the thread's path
 * tree), rf, value and stamp; per location co in order and its reads in the order they
 * were added; per write the writes co-after it and the reads reading from it, as sets of
 * events: one 64-bit word (graphs of at most 64 events), or 128 bits in the wide build
 * (module _core128, CORE_WIDE defined).  Python is asked only for what is new: a node's
 * next step (`info`), a child node (`child`, `after`), a node's completion, the static
 * relations of a skeleton (`statics`), complete graphs (`leaf`) and, every 256 steps,
 * the clock (`tick`).  Values are small ids Python interns.
 *
 * Consistency is the checker's CheckPlan (cat/contract.py): acyclicity checks of unions
 * of static relations and of rf, co, fr filtered by static ones, and emptiness checks
 * that hold while their static operands meet in nothing among the present events.  A new
 * event may only close a cycle through itself, so one search from it decides; a revisited
 * graph is checked whole.  An
 * emptiness check of a static meet and a sequence of two filtered base relations (tso's
 * atomicity, `rmw & (fre; coe)`) is evaluated pair by pair.  When another emptiness check
 * would have to be evaluated, or the search nests deeper than MAX_DEPTH, the host's
 * `fallback` is called (it raises, and the Python explorer runs the exploration).
 */
#define PY_SSIZE_T_CLEAN
#ifdef CORE_WIDE
#define SETW_MAX 128
#else
#define SETW_MAX 64
#endif
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if PY_BIG_ENDIAN
#error "little-endian hosts only (the Python explorer serves the others)"
#endif

#define MAXE SETW_MAX
#define MAXT 64
#define MAXSTEPS 16
#define MAXTERMS 16
#define MAXK 4
#define MAX_DEPTH 2000 /* nested steps (events added, revisits) kept on the C stack */

enum { S_READ = 0, S_EMIT = 1, S_DONE = 2, S_FAILED = 3, S_BLOCKED = 4, S_ASSUMED = 5 };
enum { K_R = 0, K_W = 1, K_S = 2, K_J = 3, K_OTHER = 4 };
enum { B_STATIC = 0, B_RF = 1, B_CO = 2, B_FR = 3 };

typedef uint64_t u64;

/* A set of events: one bit per event id.  The wide build (CORE_WIDE, module _core128)
 * takes graphs of up to 128 events. */
#ifdef CORE_WIDE
typedef unsigned __int128 set_t;
#define SETW 128
static inline int ctz(set_t x) {
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}
#else
typedef uint64_t set_t;
#define SETW 64
static inline int ctz(set_t x) { return __builtin_ctzll(x); }
#endif

/* The events 0 .. k-1. */
static inline set_t lowbits(int k) { return k >= SETW ? ~(set_t)0 : (((set_t)1) << k) - 1; }

typedef struct {
    int base, ninter, ndiff;
    int inter[MAXK], diff[MAXK];
} Term;

typedef struct {
    int meet;  /* slot of the meet of an emptiness check's static operands, or -1 */
    int su;    /* slot of the union of the step's static terms, or -1 */
    int nterms;
    Term terms[MAXTERMS];
    int bases; /* bit b: some term has base b */
} Step;

typedef struct {
    int i, n;                         /* child being explored, children */
    long long done, began, entered;   /* counts: in finished children, at that child, on entry */
} Level;

typedef struct {
    int depth, n, j, used;
    double size;
    long long count;
} Profile;

typedef struct {
    signed char known, stype, kind;
    int li, vid, poi, tgt, comp, next, kids;
} Node;

typedef struct {
    int vid, node, next;
} Kid;

typedef struct {
    u64 hash;
    int *key;
    set_t *rows; /* nslots * size rows, then per step the su's columns (size rows) */
} Static;

/* A graph: three sets, the clock, then set_t coafter[size], readers[size], then ints. */
typedef struct {
    set_t addedmax, revisitable, present;
    uint32_t clock;
    int32_t pad;
    set_t w[];
} G;

typedef struct {
    set_t *coafter, *readers;
    int *n, *cur, *spawned_at, *node, *rf, *val, *stamp, *kind, *loc, *poi, *colen, *rllen,
        *co, *rl;
} V;

typedef struct {
    PyObject_HEAD int T, L, size, nsteps, nslots, has_spawn;
    int wf; /* GenMC's writes-first schedule (graph.py's TrustGraph.writes_first) */
    int c11;   /* a C11 step among the checks (cat/c11.py's checker): 1 | its GenMC
                  variants << 1 (C11_RS, C11_PSC) */
    int base[MAXT], room[MAXT], spawned[MAXT]; /* thread t's root node is node t */
    int tid[MAXE], idx[MAXE], initval[MAXE];
    Step steps[MAXSTEPS];
    Node *nodes;
    int nnodes, capnodes;
    Kid *kids;
    int nkids, capkids;
    Static *stab;
    int capst, nst, max_statics; /* skeletons' statics: table size, held, most held */
    PyObject *host;
    long long pruned, dead_end, moot, revisits, rev_inconsistent, rev_doomed, refused, checks;
    int budget, depth;
    size_t gbytes;
    int o_n, o_cur, o_sp, o_node, o_rf, o_val, o_stamp, o_kind, o_loc, o_poi, o_colen, o_rllen,
        o_co, o_rl;
    G *leafg;
    G *root;
    /* the search tree's size, estimated as it goes (only with a progress reporter; see
     * engine/progress.py's TreeEstimate, which this follows) */
    int tracking;
    long long complete; /* complete executions counted by the host */
    Level *levels;
    int nlevels, caplevels;
    Profile *prof;
    int capprof, nprof;
} Core;

static inline V view(Core *c, G *g) {
    V v;
    v.coafter = g->w;
    v.readers = g->w + c->size;
    int *I = (int *)(g->w + 2 * c->size);
    v.n = I + c->o_n;
    v.cur = I + c->o_cur;
    v.spawned_at = I + c->o_sp;
    v.node = I + c->o_node;
    v.rf = I + c->o_rf;
    v.val = I + c->o_val;
    v.stamp = I + c->o_stamp;
    v.kind = I + c->o_kind;
    v.loc = I + c->o_loc;
    v.poi = I + c->o_poi;
    v.colen = I + c->o_colen;
    v.rllen = I + c->o_rllen;
    v.co = I + c->o_co;
    v.rl = I + c->o_rl;
    return v;
}

#define BIT(e) (((set_t)1) << (e))

/* ------------------------------------------------------------------ the host's answers */

/* The host's answer to method(a, b) (fmt: "", "i" or "ii"), an id >= 0; -1 on error. */
static long ask(Core *c, const char *method, const char *fmt, int a, int b) {
    PyObject *r = *fmt ? PyObject_CallMethod(c->host, method, fmt, a, b)
                       : PyObject_CallMethod(c->host, method, NULL);
    if (r == NULL)
        return -1;
    long got = PyLong_Check(r) ? PyLong_AsLong(r) : 0;
    Py_DECREF(r);
    return got < 0 ? -1 : got;
}

/* Have the host raise what method(a, b) raises (a fallback, an error); -1. */
static int raise_from(Core *c, const char *method, const char *fmt, int a, int b) {
    ask(c, method, fmt, a, b);
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_RuntimeError, "host.%s did not raise", method);
    return -1;
}

/* Make room for one more element in the array *arr of *cap elements of `size` bytes,
 * holding `used` (doubling it, from `first`): 0, or -1 when memory ran out. */
static int grow(void **arr, int *cap, int used, size_t size, int first) {
    if (used < *cap)
        return 0;
    int n = *cap ? 2 * *cap : first;
    void *p = PyMem_Realloc(*arr, (size_t)n * size);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *arr = p;
    *cap = n;
    return 0;
}

static int new_node(Core *c) {
    if (grow((void **)&c->nodes, &c->capnodes, c->nnodes, sizeof(Node), 256) < 0)
        return -1;
    Node *nd = &c->nodes[c->nnodes];
    memset(nd, 0, sizeof(Node));
    nd->comp = -1;
    nd->next = -1;
    nd->kids = -1;
    return c->nnodes++;
}

/* Make sure node id `nid` (registered by the host under that id) exists here. */
static int have_node(Core *c, long nid) {
    while (c->nnodes <= nid)
        if (new_node(c) < 0)
            return -1;
    return 0;
}

/* What node `nid` does next (asked once). */
static Node *info(Core *c, int nid) {
    Node *nd = &c->nodes[nid];
    if (nd->known)
        return nd;
    PyObject *r = PyObject_CallMethod(c->host, "info", "i", nid);
    if (r == NULL)
        return NULL;
    int st, kind, li, vid, poi, tgt;
    if (!PyArg_ParseTuple(r, "iiiiii", &st, &kind, &li, &vid, &poi, &tgt)) {
        Py_DECREF(r);
        return NULL;
    }
    Py_DECREF(r);
    nd = &c->nodes[nid];
    nd->known = 1;
    nd->stype = (signed char)st;
    nd->kind = (signed char)kind;
    nd->li = li;
    nd->vid = vid;
    nd->poi = poi;
    nd->tgt = tgt;
    return nd;
}

/* The node after the read of `nid` reads value `vid`. */
static int child(Core *c, int nid, int vid) {
    for (int k = c->nodes[nid].kids; k >= 0; k = c->kids[k].next)
        if (c->kids[k].vid == vid)
            return c->kids[k].node;
    long got = ask(c, "child", "ii", nid, vid);
    if (got < 0 || have_node(c, got) < 0)
        return -1;
    if (grow((void **)&c->kids, &c->capkids, c->nkids, sizeof(Kid), 256) < 0)
        return -1;
    Kid *kd = &c->kids[c->nkids];
    kd->vid = vid;
    kd->node = (int)got;
    kd->next = c->nodes[nid].kids;
    c->nodes[nid].kids = c->nkids++;
    return (int)got;
}

/* The node after the event (not a read) of `nid`. */
static int after(Core *c, int nid) {
    if (c->nodes[nid].next >= 0)
        return c->nodes[nid].next;
    long got = ask(c, "after", "i", nid, 0);
    if (got < 0 || have_node(c, got) < 0)
        return -1;
    c->nodes[nid].next = (int)got;
    return (int)got;
}

static int completion(Core *c, int nid) {
    if (c->nodes[nid].comp >= 0)
        return c->nodes[nid].comp;
    long got = ask(c, "completion", "i", nid, 0);
    if (got < 0)
        return -1;
    c->nodes[nid].comp = (int)got;
    return (int)got;
}

static void free_statics(Core *c) {
    for (int i = 0; i < c->capst; i++)
        if (c->stab[i].key != NULL) {
            PyMem_Free(c->stab[i].key);
            PyMem_Free(c->stab[i].rows);
            c->stab[i].key = NULL;
        }
    c->nst = 0;
}

/* Double the table of statics (rehashed). */
static int grow_statics(Core *c) {
    int cap = 2 * c->capst;
    Static *t = PyMem_Calloc((size_t)cap, sizeof(Static));
    if (t == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int k = 0; k < c->capst; k++)
        if (c->stab[k].key != NULL) {
            int at = (int)(c->stab[k].hash & (u64)(cap - 1));
            while (t[at].key != NULL)
                at = (at + 1) & (cap - 1);
            t[at] = c->stab[k];
        }
    PyMem_Free(c->stab);
    c->stab = t;
    c->capst = cap;
    return 0;
}

/* The static relations of the skeleton the threads' present paths complete to (the
 * model's static relations are restriction stable: restricted to the present events they
 * do not depend on how the paths complete). */
static set_t *statics(Core *c, G *g) {
    V v = view(c, g);
    int key[MAXT];
    u64 h = 1469598103934665603ULL;
    for (int t = 0; t < c->T; t++) {
        int k = completion(c, v.cur[t]);
        if (k < 0)
            return NULL;
        key[t] = k;
        h = (h ^ (u64)k) * 1099511628211ULL;
    }
    int mask = c->capst - 1;
    int i = (int)(h & (u64)mask);
    while (c->stab[i].key != NULL) {
        if (c->stab[i].hash == h && memcmp(c->stab[i].key, key, sizeof(int) * c->T) == 0)
            return c->stab[i].rows;
        i = (i + 1) & mask;
    }
    PyObject *tup = PyTuple_New(c->T);
    if (tup == NULL)
        return NULL;
    for (int t = 0; t < c->T; t++)
        PyTuple_SET_ITEM(tup, t, PyLong_FromLong(key[t]));
    PyObject *r = PyObject_CallMethod(c->host, "statics", "(O)", tup);
    Py_DECREF(tup);
    if (r == NULL)
        return NULL;
    Py_ssize_t want = (Py_ssize_t)c->nslots * c->size * (Py_ssize_t)sizeof(set_t);
    if (!PyBytes_Check(r) || PyBytes_GET_SIZE(r) != want) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_ValueError, "statics: wrong size");
        return NULL;
    }
    if (c->nst >= c->max_statics) { /* memory stays flat: start again */
        free_statics(c);
    } else if (2 * (c->nst + 1) > c->capst && grow_statics(c) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    mask = c->capst - 1;
    i = (int)(h & (u64)mask);
    while (c->stab[i].key != NULL)
        i = (i + 1) & mask;
    int n = c->size;
    set_t *rows = PyMem_Malloc(((size_t)c->nslots + c->nsteps) * n * sizeof(set_t));
    int *kc = PyMem_Malloc(sizeof(int) * c->T);
    if (rows == NULL || kc == NULL) {
        Py_DECREF(r);
        PyMem_Free(rows);
        PyMem_Free(kc);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(rows, PyBytes_AS_STRING(r), (size_t)want);
    Py_DECREF(r);
    for (int s = 0; s < c->nsteps; s++) { /* the static union's columns */
        set_t *col = rows + ((size_t)c->nslots + s) * n;
        memset(col, 0, (size_t)n * sizeof(set_t));
        int su = c->steps[s].su;
        if (su < 0)
            continue;
        const set_t *sr = rows + (size_t)su * n;
        for (int x = 0; x < n; x++)
            for (set_t b = sr[x]; b; b &= b - 1)
                col[ctz(b)] |= BIT(x);
    }
    memcpy(kc, key, sizeof(int) * c->T);
    c->stab[i].hash = h;
    c->stab[i].key = kc;
    c->stab[i].rows = rows;
    c->nst++;
    return rows;
}

/* ------------------------------------------------------------------ consistency */

/* The events x relates to by the term tm (its base relation, filtered). */
static inline set_t term_row(Core *c, const set_t *st, const V *v, const Term *tm, int x) {
    int n = c->size;
    set_t row;
    if (tm->base == B_RF)
        row = v->readers[x];
    else if (tm->base == B_CO)
        row = v->coafter[x];
    else if (x >= c->L && v->kind[x] == K_R)
        row = v->coafter[v->rf[x]];
    else
        return 0;
    if (!row)
        return 0;
    for (int k = 0; k < tm->ninter; k++)
        row &= st[(size_t)tm->inter[k] * n + x];
    for (int k = 0; k < tm->ndiff; k++)
        row &= ~st[(size_t)tm->diff[k] * n + x];
    return row;
}

/* Successors of x in step s's relation, in the graph (statics `st`). */
static inline set_t succ(Core *c, const set_t *st, const V *v, set_t present, const Step *sp, int x) {
    set_t out = sp->su >= 0 ? st[(size_t)sp->su * c->size + x] & present : 0;
    for (int i = 0; i < sp->nterms; i++)
        out |= term_row(c, st, v, &sp->terms[i], x);
    return out;
}

/* The emptiness checks: each holds while its static meet M, restricted to the present
 * events, is empty, or (with two terms A, B) meets no pair of A ; B.  One with no terms
 * and a meet that is not empty is not for the core: the Python explorer takes over.
 * 1: they hold, 0: one does not, -1: an error (or that fallback). */
static int meets(Core *c, const set_t *st, const V *v, set_t present) {
    for (int s = 0; s < c->nsteps; s++) {
        const Step *sp = &c->steps[s];
        if (sp->meet < 0)
            continue;
        const set_t *rows = st + (size_t)sp->meet * c->size;
        for (set_t b = present; b; b &= b - 1) {
            int a = ctz(b);
            set_t m = rows[a] & present;
            if (!m)
                continue;
            if (sp->nterms != 2)
                return raise_from(c, "fallback", "", 0, 0);
            for (set_t x = term_row(c, st, v, &sp->terms[0], a); x; x &= x - 1)
                if (term_row(c, st, v, &sp->terms[1], ctz(x)) & m)
                    return 0;
        }
    }
    return 1;
}

/* Whether step sp's relation has a cycle through e (the graph without e had none). */
static int cycle_through(Core *c, const set_t *st, const V *v, set_t present, const Step *sp,
                         int e) {
    set_t seen = 0, frontier = succ(c, st, v, present, sp, e);
    while (frontier) {
        if (frontier & BIT(e))
            return 1;
        seen |= frontier;
        set_t nxt = 0;
        for (set_t b = frontier; b; b &= b - 1)
            nxt |= succ(c, st, v, present, sp, ctz(b));
        frontier = nxt & ~seen;
    }
    return 0;
}

/* Whether step sp's relation has a cycle among the present events. */
static int cyclic(Core *c, const set_t *st, const V *v, set_t present, const Step *sp) {
    set_t rows[MAXE];
    for (set_t b = present; b; b &= b - 1) {
        int x = ctz(b);
        rows[x] = succ(c, st, v, present, sp, x);
    }
    set_t left = present;
    while (left) { /* peel the events with no successor left */
        set_t sinks = 0;
        for (set_t b = left; b; b &= b - 1) {
            int x = ctz(b);
            if (!(rows[x] & left))
                sinks |= BIT(x);
        }
        if (!sinks)
            return 1;
        left &= ~sinks;
    }
    return 0;
}

/* ------------------------------------------------------------------ C11 (RC11, RA)
 * cat/c11.py's checker, the same checks over the same views: happens-before kept per
 * event as the set of events before it (hb), a write's release view (rv), computed
 * for every present event in porf order at each check; coherence, atomicity of
 * read-modify-writes and (RC11) the SC axiom, psc acyclic (cat/c11_sc.py). */
enum { C_POPRED, C_SBLOC, C_A, C_ACQ, C_REL, C_SC, C_F, C11_NSLOTS };
/* GenMC's variants (c->c11's bits): its release sequences (genmc-rs), its SC order
 * (genmc-sc) */
enum { C11_RS = 2, C11_PSC = 4 };

typedef struct {
    set_t A, ACQ, REL, SC, F, R, W;
    set_t hb[MAXE], rv[MAXE], at[MAXE]; /* at: by location index */
} C11;

/* The members of a set given as a slot of singleton rows, among `among`. */
static inline set_t c11_set(Core *c, const set_t *st, int slot, set_t among) {
    const set_t *rows = st + (size_t)slot * c->size;
    set_t m = 0;
    for (set_t b = among; b; b &= b - 1)
        m |= rows[ctz(b)];
    return m;
}

static inline const set_t *c11_row(Core *c, const set_t *st, int slot) {
    return st + (size_t)slot * c->size;
}

/* The read of the read-modify-write whose write is w (-1: none). */
static inline int c11_rmw_read(Core *c, const V *v, int w) {
    if (w < c->L || !c->idx[w])
        return -1;
    return (v->kind[w - 1] == K_R && v->poi[w - 1] == v->poi[w]) ? w - 1 : -1;
}

static void c11_view(Core *c, const set_t *st, const V *v, C11 *x, int e) {
    set_t pred = c11_row(c, st, C_POPRED)[e], h = pred;
    for (set_t b = pred; b; b &= b - 1)
        h |= x->hb[ctz(b)];
    set_t bit = BIT(e);
    if (x->R & bit) {
        if (x->A & x->ACQ & bit)
            h |= x->rv[v->rf[e]];
    } else if (x->F & x->ACQ & bit) { /* (GenMC's release sequences: any read) */
        for (set_t b = pred & x->R & (c->c11 & C11_RS ? ~(set_t)0 : x->A); b; b &= b - 1)
            h |= x->rv[v->rf[ctz(b)]];
    }
    x->hb[e] = h;
    if (x->W & bit) { /* the events hb-before-or-equal the heads of its release sequences */
        set_t rv = 0;
        int rs20 = (c->c11 & C11_RS) != 0;
        if ((x->A & bit) || rs20) {
            if (x->REL & bit)
                rv = bit | h;
            set_t heads = pred & x->F & x->REL;
            if (!rs20) /* RC11's: also the release writes before it at its location */
                heads |= c11_row(c, st, C_SBLOC)[e] & x->REL;
            for (set_t b = heads; b; b &= b - 1)
                rv |= (b & -b) | x->hb[ctz(b)];
        }
        int r = c11_rmw_read(c, v, e);
        if (r >= 0)
            rv |= x->rv[v->rf[r]];
        x->rv[e] = rv;
    }
}

/* The views of the present events (e >= 0 and not present: and of e's po predecessors'
 * union, returned, as the next event's view without its own reads-from). */
static set_t c11_views(Core *c, const set_t *st, const V *v, set_t present, C11 *x, int e) {
    x->A = c11_set(c, st, C_A, present);
    x->ACQ = c11_set(c, st, C_ACQ, present);
    x->REL = c11_set(c, st, C_REL, present);
    x->SC = c11_set(c, st, C_SC, present);
    x->F = c11_set(c, st, C_F, present);
    set_t init = lowbits(c->L);
    x->R = x->W = 0;
    for (int li = 0; li < c->L; li++)
        x->at[li] = 0, x->hb[li] = x->rv[li] = 0;
    for (set_t b = present & ~init; b; b &= b - 1) {
        int y = ctz(b);
        if (v->kind[y] == K_R)
            x->R |= BIT(y), x->at[v->loc[y]] |= BIT(y);
        else if (v->kind[y] == K_W)
            x->W |= BIT(y), x->at[v->loc[y]] |= BIT(y);
    }
    const set_t *popred = c11_row(c, st, C_POPRED);
    set_t done = init, todo = present & ~init;
    while (todo) { /* porf order: an event after its po predecessors and its write */
        set_t before = todo;
        for (set_t b = todo; b; b &= b - 1) {
            int y = ctz(b);
            set_t deps = popred[y];
            if (v->kind[y] == K_R)
                deps |= BIT(v->rf[y]);
            if (deps & ~done)
                continue;
            c11_view(c, st, v, x, y);
            done |= BIT(y);
            todo &= ~BIT(y);
        }
        if (todo == before) /* a porf cycle: never in a TruSt graph */
            break;
    }
    if (e < 0 || (present & BIT(e)))
        return 0;
    set_t h = popred[e];
    for (set_t b = popred[e]; b; b &= b - 1)
        h |= x->hb[ctz(b)];
    return h;
}

/* Coherence positions of the writes of location li (pos[w], -1: not among them). */
static void c11_positions(Core *c, const V *v, int li, int *pos) {
    const int *co = v->co + li * c->size;
    for (int i = 0; i < v->colen[li]; i++)
        pos[co[i]] = i;
}

/* The coherence position of the write p, or of the write the read p reads (-1: the
 * initial write). */
static inline int c11_copos(const V *v, const int *pos, int p) {
    return pos[v->kind[p] == K_W ? p : v->rf[p]];
}

/* No event hb-before e at its location is eco-after it. */
static int c11_coherent(Core *c, const V *v, const C11 *x, int e) {
    int li = v->loc[e];
    set_t before = x->hb[e] & x->at[li];
    if (!before)
        return 1;
    int pos[MAXE];
    for (int i = 0; i < c->size; i++)
        pos[i] = -1;
    c11_positions(c, v, li, pos);
    int mine = c11_copos(v, pos, e);
    for (set_t b = before; b; b &= b - 1)
        if (c11_copos(v, pos, ctz(b)) > mine)
            return 0;
    return 1;
}

/* The write e breaks no read-modify-write's atomicity. */
static int c11_atomic(Core *c, const V *v, int e) {
    int li = v->loc[e];
    const int *co = v->co + li * c->size;
    int len = v->colen[li], p = 0;
    while (co[p] != e)
        p++;
    int s = p ? co[p - 1] : li;
    int r = c11_rmw_read(c, v, e);
    if (r >= 0 && v->rf[r] != s)
        return 0;
    if (p + 1 < len) {
        r = c11_rmw_read(c, v, co[p + 1]);
        if (r >= 0 && v->rf[r] == s)
            return 0;
    }
    return 1;
}

/* Writes mo-after x (a write), or rb-after it (a read). */
static inline set_t c11_after(const V *v, int x) {
    if (v->kind[x] == K_W)
        return v->coafter[x];
    return v->kind[x] == K_R ? v->coafter[v->rf[x]] : 0;
}

/* The SC fences hb-after an event of u. */
static inline set_t c11_to_fences(const C11 *x, set_t fsc, set_t u) {
    set_t s = 0;
    for (set_t b = fsc; b; b &= b - 1)
        if (x->hb[ctz(b)] & u)
            s |= b & -b;
    return s;
}

/* eco successors of y: mo- or rb-after it, their readers, its readers (a write). */
static inline set_t c11_eco(const V *v, int y) {
    set_t m = c11_after(v, y), e = m | (v->kind[y] == K_W ? v->readers[y] : 0);
    for (set_t d = m; d; d &= d - 1)
        e |= v->readers[ctz(d)];
    return e;
}

/* sb | rf | mo | rb successors of y. */
static inline set_t c11_step(const V *v, const set_t *sbsucc, int y) {
    return sbsucc[y] | c11_after(v, y) | (v->kind[y] == K_W ? v->readers[y] : 0);
}

/* The psc successors of the SC event a, as RC11's (cat/c11_sc.py's rc11_row). */
static set_t c11_rc11_row(const V *v, const C11 *x, const set_t *hbsucc, const set_t *sbsucc,
                          const set_t *locset, set_t sc, set_t fsc, int a) {
    int fence = (fsc & BIT(a)) != 0;
    set_t left = BIT(a) | (fence ? hbsucc[a] : 0), u = 0;
    for (set_t b = left; b; b &= b - 1) { /* scb from the events of left */
        int y = ctz(b);
        set_t s = sbsucc[y];
        u |= s | c11_after(v, y) | (hbsucc[y] & locset[y]);
        set_t z = 0;
        for (set_t d = s & ~locset[y]; d; d &= d - 1)
            z |= hbsucc[ctz(d)];
        for (set_t d = z; d; d &= d - 1) {
            int q = ctz(d);
            u |= sbsucc[q] & ~locset[q];
        }
    }
    set_t s = (u & sc) | c11_to_fences(x, fsc, u);
    if (fence) {
        set_t eco = 0;
        for (set_t b = hbsucc[a]; b; b &= b - 1)
            eco |= c11_eco(v, ctz(b));
        s |= (hbsucc[a] & fsc) | c11_to_fences(x, fsc, eco);
    }
    return s;
}

/* The psc successors of the SC event a, as GenMC's (cat/c11_sc.py's genmc_row). */
static set_t c11_genmc_row(const V *v, const C11 *x, const set_t *hbsucc, const set_t *sbsucc,
                           set_t sc, set_t fsc, int a) {
    set_t st = c11_step(v, sbsucc, a), z = 0, s = 0;
    for (set_t b = sbsucc[a]; b; b &= b - 1)
        z |= hbsucc[ctz(b)];
    for (set_t b = z; b; b &= b - 1)
        s |= sbsucc[ctz(b)];
    s = ((s | st) & sc) | c11_to_fences(x, fsc, st);
    if (fsc & BIT(a)) {
        set_t u = 0, e = 0;
        for (set_t b = hbsucc[a]; b; b &= b - 1) {
            int y = ctz(b);
            u |= c11_step(v, sbsucc, y);
            e |= c11_eco(v, y);
        }
        s |= (u & sc) | (hbsucc[a] & fsc) | c11_to_fences(x, fsc, e);
    }
    return s;
}

/* RC11's SC axiom (genmc: GenMC's): psc has no cycle (see cat/c11_sc.py). */
static int c11_psc_acyclic(Core *c, const set_t *st, const V *v, const C11 *x, set_t present,
                           int genmc) {
    set_t sc = x->SC & present;
    if (!(sc & (sc - 1)))
        return 1;
    set_t fsc = sc & x->F;
    int n = c->size;
    const set_t *popred = c11_row(c, st, C_POPRED);
    set_t hbsucc[MAXE], sbsucc[MAXE], locset[MAXE], succ[MAXE];
    memset(hbsucc, 0, sizeof(set_t) * (size_t)n);
    memset(sbsucc, 0, sizeof(set_t) * (size_t)n);
    memset(locset, 0, sizeof(set_t) * (size_t)n);
    set_t events = present & ~lowbits(c->L);
    for (set_t b = events; b; b &= b - 1) {
        int y = ctz(b);
        for (set_t h = x->hb[y]; h; h &= h - 1)
            hbsucc[ctz(h)] |= BIT(y);
        for (set_t h = popred[y] & present; h; h &= h - 1)
            sbsucc[ctz(h)] |= BIT(y);
    }
    for (int li = 0; li < c->L; li++)
        for (set_t b = x->at[li]; b; b &= b - 1)
            locset[ctz(b)] = x->at[li];
    for (set_t sa = sc; sa; sa &= sa - 1) {
        int a = ctz(sa);
        succ[a] = genmc ? c11_genmc_row(v, x, hbsucc, sbsucc, sc, fsc, a)
                        : c11_rc11_row(v, x, hbsucc, sbsucc, locset, sc, fsc, a);
    }
    set_t left = sc;
    while (left) { /* peel the events with no successor left */
        set_t sinks = 0;
        for (set_t b = left; b; b &= b - 1)
            if (!(succ[ctz(b)] & left))
                sinks |= b & -b;
        if (!sinks)
            return 0;
        left &= ~sinks;
    }
    return 1;
}

/* RC11's SC axiom, checked only where the new event e can change psc (e < 0: whole). */
static int c11_sc_ok(Core *c, const set_t *st, const V *v, const C11 *x, set_t present, int e) {
    if (e >= 0 && !(x->SC & BIT(e))) {
        if (!(x->hb[e] & x->F & x->SC))
            return 1;
        int kind = v->kind[e];
        if (kind != K_R && kind != K_W)
            return 1;
        int w = kind == K_R ? v->rf[e] : e, li = v->loc[e], len = v->colen[li];
        if (!len || v->co[li * c->size + len - 1] == w)
            return 1;
    }
    return c11_psc_acyclic(c, st, v, x, present, (c->c11 & C11_PSC) != 0);
}

/* Whether g is C11-consistent (1) or not (0): e >= 0, the event just added to a
 * consistent graph; e < 0, the whole graph. */
static int c11_check(Core *c, const set_t *st, G *g, int e, int sc) {
    V v = view(c, g);
    C11 x;
    set_t present = g->present;
    c11_views(c, st, &v, present, &x, -1);
    set_t todo = e >= 0 ? BIT(e) : present & ~lowbits(c->L);
    for (set_t b = todo; b; b &= b - 1) {
        int y = ctz(b), kind = v.kind[y];
        if ((kind == K_R || kind == K_W) &&
            !(c11_coherent(c, &v, &x, y) && (kind == K_R || c11_atomic(c, &v, y))))
            return 0;
    }
    return !sc || c11_sc_ok(c, st, &v, &x, present, e);
}

/* The highest coherence position plus one of a write hb-before the next event e at
 * location li or read by a read hb-before it: the options (the initial write then co,
 * or co positions) below it are incoherent. */
static int c11_floor(Core *c, const set_t *st, G *g, int e, int li) {
    V v = view(c, g);
    C11 x;
    set_t h = c11_views(c, st, &v, g->present, &x, e);
    set_t before = h & x.at[li];
    if (!before)
        return 0;
    int pos[MAXE];
    for (int i = 0; i < c->size; i++)
        pos[i] = -1;
    c11_positions(c, &v, li, pos);
    int top = -1;
    for (set_t b = before; b; b &= b - 1) {
        int p = c11_copos(&v, pos, ctz(b));
        if (p > top)
            top = p;
    }
    return top + 1;
}

/* Whether the graph g at a leaf has a data race: two threads' conflicting accesses at
 * one location, one not atomic, unordered by hb. */
static int c11_racy(Core *c, G *g) {
    const set_t *st = statics(c, g);
    if (st == NULL)
        return -1;
    V v = view(c, g);
    C11 x;
    c11_views(c, st, &v, g->present, &x, -1);
    for (set_t b = x.R | x.W; b; b &= b - 1) {
        int e = ctz(b);
        set_t others = x.at[v.loc[e]] & ~x.hb[e] & ~BIT(e);
        if (!(x.W & BIT(e)))
            others &= x.W;
        if (x.A & BIT(e))
            others &= ~x.A;
        for (set_t o = others; o; o &= o - 1) {
            int y = ctz(o);
            if (c->tid[y] != c->tid[e] && !(x.hb[y] & BIT(e)))
                return 1;
        }
    }
    return 0;
}

/* Whether g is consistent (1), not (0), or an error: e >= 0, the event just added to a
 * consistent graph (a new cycle goes through it); e < 0, the whole graph. */
static int check(Core *c, G *g, int e) {
    c->checks++;
    const set_t *st = statics(c, g);
    if (st == NULL)
        return -1;
    V v = view(c, g);
    set_t present = g->present;
    for (int s = 0; s < c->nsteps; s++) {
        const Step *sp = &c->steps[s];
        if (sp->meet < -1) { /* RC11 (-3) or RA (-2) */
            if (!c11_check(c, st, g, e, sp->meet == -3))
                return 0;
            continue;
        }
        if (sp->meet < 0 && (e >= 0 ? cycle_through(c, st, &v, present, sp, e)
                                    : cyclic(c, st, &v, present, sp)))
            return 0;
    }
    return meets(c, st, &v, present);
}

/* Events x such that a pair (e, x) of `base`, filtered as a check's term filters it,
 * closes a cycle with the check's static part in the graph restricted to `present`. */
static set_t forbidden(Core *c, const set_t *st, int e, int base, set_t present) {
    int n = c->size;
    set_t out = 0;
    for (int s = 0; s < c->nsteps; s++) {
        const Step *sp = &c->steps[s];
        if (sp->meet >= 0 || !(sp->bases & (1 << base)) || sp->su < 0)
            continue;
        const set_t *col = st + ((size_t)c->nslots + s) * n;
        set_t reach = col[e] & present, frontier = reach;
        while (frontier) {
            set_t nxt = 0;
            for (set_t b = frontier; b; b &= b - 1)
                nxt |= col[ctz(b)];
            frontier = nxt & present & ~reach;
            reach |= frontier;
        }
        if (!reach)
            continue;
        for (int i = 0; i < sp->nterms; i++) {
            const Term *tm = &sp->terms[i];
            if (tm->base != base)
                continue;
            set_t x = reach;
            for (int k = 0; k < tm->ninter; k++)
                x &= st[(size_t)tm->inter[k] * n + e] & present;
            for (int k = 0; k < tm->ndiff; k++)
                x &= ~(st[(size_t)tm->diff[k] * n + e] & present);
            out |= x;
        }
    }
    return out;
}

/* How many of the first options (co positions, or the initial write then co) are
 * certainly inconsistent for the next event e of location li: -1 on error. */
static int floor_of(Core *c, G *g, int e, int li, int base) {
    V v = view(c, g);
    if (!v.colen[li]) /* no write to skip */
        return 0;
    const set_t *st = statics(c, g);
    if (st == NULL)
        return -1;
    if (c->c11)
        return c11_floor(c, st, g, e, li);
    set_t forb = forbidden(c, st, e, base, g->present | BIT(e));
    int floor = 0;
    const int *co = v.co + li * c->size;
    for (int i = 0; forb && i < v.colen[li]; i++)
        if (forb & BIT(co[i]))
            floor = i + 1;
    return floor;
}

/* ------------------------------------------------------------------ the graph */

static G *new_graph(Core *c) {
    G *g = PyMem_Malloc(c->gbytes);
    if (g == NULL)
        PyErr_NoMemory();
    return g;
}

static void recompute_sets(Core *c, G *g) {
    V v = view(c, g);
    int n = c->size;
    memset(v.coafter, 0, 2 * sizeof(set_t) * (size_t)n);
    set_t present = lowbits(c->L);
    for (int t = 0; t < c->T; t++)
        for (int k = 0; k < v.n[t]; k++) {
            int e = c->base[t] + k;
            present |= BIT(e);
            if (v.kind[e] == K_R)
                v.readers[v.rf[e]] |= BIT(e);
        }
    for (int li = 0; li < c->L; li++) {
        const int *co = v.co + li * n;
        set_t later = 0;
        for (int i = v.colen[li] - 1; i >= 0; i--) {
            v.coafter[co[i]] = later;
            later |= BIT(co[i]);
        }
        v.coafter[li] = later;
    }
    g->present = present;
}

static inline void stamp_new(Core *c, G *g, V *v, int t, int e, const Node *nd) {
    v->n[t]++;
    v->kind[e] = nd->kind;
    v->loc[e] = (nd->kind == K_S || nd->kind == K_J) ? nd->tgt : nd->li;
    v->poi[e] = nd->poi;
    v->stamp[e] = (int)g->clock++;
    g->revisitable |= BIT(e);
    g->present |= BIT(e);
}

static int room_error(Core *c, int t, int k) { return raise_from(c, "no_room", "ii", t, k); }

static int add_read(Core *c, G *g, int t, int nid, int e, int w, int maximal) {
    V v = view(c, g);
    Node nd = c->nodes[nid];
    if (v.n[t] >= c->room[t])
        return room_error(c, t, v.n[t]);
    int nx = child(c, nid, v.val[w]);
    if (nx < 0)
        return -1;
    stamp_new(c, g, &v, t, e, &nd);
    v.rf[e] = w;
    v.val[e] = v.val[w];
    v.rl[nd.li * c->size + v.rllen[nd.li]++] = e;
    v.readers[w] |= BIT(e);
    v.coafter[e] = v.readers[e] = 0;
    if (maximal)
        g->addedmax |= BIT(e);
    else
        g->addedmax &= ~BIT(e);
    v.node[e] = v.cur[t] = nx;
    return 0;
}

static int add_write(Core *c, G *g, int t, int nid, int e, int pos) {
    V v = view(c, g);
    Node nd = c->nodes[nid];
    if (v.n[t] >= c->room[t])
        return room_error(c, t, v.n[t]);
    int nx = after(c, nid);
    if (nx < 0)
        return -1;
    stamp_new(c, g, &v, t, e, &nd);
    int li = nd.li;
    int *co = v.co + li * c->size;
    int len = v.colen[li];
    v.val[e] = nd.vid;
    v.rf[e] = -1;
    if (pos == len)
        g->addedmax |= BIT(e);
    else
        g->addedmax &= ~BIT(e);
    set_t later = 0;
    for (int i = len; i > pos; i--) {
        co[i] = co[i - 1];
        later |= BIT(co[i]);
    }
    co[pos] = e;
    v.colen[li] = len + 1;
    v.coafter[e] = later;
    v.readers[e] = 0;
    v.coafter[li] |= BIT(e);
    for (int i = 0; i < pos; i++)
        v.coafter[co[i]] |= BIT(e);
    v.node[e] = v.cur[t] = nx;
    return 0;
}

static int add_other(Core *c, G *g, int t, int nid, int e) {
    V v = view(c, g);
    Node nd = c->nodes[nid];
    if (nd.kind == K_S) {
        int ch = nd.tgt;
        if (v.spawned_at[ch] >= 0 || v.n[ch])
            return raise_from(c, "spawned_twice", "ii", t, ch);
    }
    if (v.n[t] >= c->room[t])
        return room_error(c, t, v.n[t]);
    int nx = after(c, nid);
    if (nx < 0)
        return -1;
    if (nd.kind == K_S)
        v.spawned_at[nd.tgt] = e;
    stamp_new(c, g, &v, t, e, &nd);
    v.rf[e] = -1;
    v.val[e] = -1;
    v.coafter[e] = v.readers[e] = 0;
    g->addedmax |= BIT(e);
    v.node[e] = v.cur[t] = nx;
    return 0;
}

static void pop(Core *c, G *g, int t) {
    V v = view(c, g);
    int e = c->base[t] + v.n[t] - 1;
    int kind = v.kind[e];
    if (kind == K_R) {
        v.readers[v.rf[e]] &= ~BIT(e);
        v.rf[e] = -1;
        v.rllen[v.loc[e]]--;
    } else if (kind == K_W) {
        int li = v.loc[e];
        int *co = v.co + li * c->size;
        int len = v.colen[li], p = 0;
        while (co[p] != e)
            p++;
        for (int i = p; i + 1 < len; i++)
            co[i] = co[i + 1];
        v.colen[li] = len - 1;
        v.coafter[li] &= ~BIT(e);
        for (int i = 0; i < p; i++)
            v.coafter[co[i]] &= ~BIT(e);
        v.coafter[e] = 0;
    } else if (kind == K_S) {
        v.spawned_at[v.loc[e]] = -1;
    }
    v.val[e] = -1;
    v.n[t]--;
    g->clock--;
    g->present &= ~BIT(e);
    v.cur[t] = c->idx[e] ? v.node[e - 1] : t;
}

/* ------------------------------------------------------------------ threads */

static int started(Core *c, const V *v, int t) { return !c->spawned[t] || v->spawned_at[t] >= 0; }

/* Whether thread t has started and finished (1), not (0), or an error. */
static int ended(Core *c, G *g, int t) {
    V v = view(c, g);
    if (!started(c, &v, t))
        return 0;
    Node *nd = info(c, v.cur[t]);
    if (nd == NULL)
        return -1;
    return nd->stype == S_DONE || nd->stype == S_FAILED;
}

/* The leftmost thread with a next event (-1: none; -2: an error); with the writes-first
 * schedule, the thread of a read-modify-write's pending write, else the leftmost whose
 * next event is no read, else the leftmost. */
static int next_thread(Core *c, G *g) {
    int first = -1, first_read = 1;
    for (int t = 0; t < c->T; t++) {
        V v = view(c, g);
        if (c->has_spawn && c->spawned[t] && v.spawned_at[t] < 0)
            continue;
        Node *nd = info(c, v.cur[t]);
        if (nd == NULL)
            return -2;
        if (nd->stype == S_READ) {
            if (!c->wf)
                return t;
            if (first < 0)
                first = t;
        } else if (nd->stype == S_EMIT) {
            if (c->has_spawn && nd->kind == K_J) {
                int en = ended(c, g, nd->tgt);
                if (en < 0)
                    return -2;
                if (!en)
                    continue;
            }
            if (!c->wf || (nd->kind == K_W && nd->tgt == 1))
                return t;
            if (first < 0 || first_read) {
                first = t;
                first_read = 0;
            }
        }
    }
    return first;
}

/* ------------------------------------------------------------------ revisits */

static void porf_view(Core *c, G *g, int e, int *out) {
    V v = view(c, g);
    int todo[4 * MAXE + 8], sp = 0;
    for (int t = 0; t < c->T; t++)
        out[t] = 0;
    todo[sp++] = e;
    while (sp) {
        int x = todo[--sp];
        if (x < c->L)
            continue;
        int t = c->tid[x], upto = c->idx[x] + 1, have = out[t];
        if (upto <= have)
            continue;
        if (c->has_spawn && !have && v.spawned_at[t] >= 0)
            todo[sp++] = v.spawned_at[t];
        int b = c->base[t];
        for (int j = b + have; j < b + upto; j++) {
            if (v.kind[j] == K_R && v.rf[j] >= c->L)
                todo[sp++] = v.rf[j];
            if (c->has_spawn && v.kind[j] == K_J && v.n[v.loc[j]]) {
                int ch = v.loc[j];
                todo[sp++] = c->base[ch] + v.n[ch] - 1;
            }
            if (sp > 4 * MAXE)
                break; /* cannot happen: each event is pushed once per thread */
        }
        out[t] = upto;
    }
}

static inline int in_view(Core *c, int e, const int *vw) {
    return e < c->L || c->idx[e] < vw[c->tid[e]];
}

static set_t view_set(Core *c, const int *vw) {
    set_t s = lowbits(c->L);
    for (int t = 0; t < c->T; t++)
        if (vw[t])
            s |= lowbits(vw[t]) << c->base[t];
    return s;
}

/* TruSt's maximality condition for deleting the events outside `kept` and r. */
static int maximal(Core *c, G *g, int r, int a, const int *kept) {
    V v = view(c, g);
    set_t keep = view_set(c, kept) & ~BIT(a);
    for (int t = -1; t < c->T; t++) {
        int lo, hi;
        if (t < 0)
            lo = r, hi = r + 1;
        else
            lo = c->base[t] + kept[t], hi = c->base[t] + v.n[t];
        for (int j = lo; j < hi; j++) {
            if (!(g->revisitable & BIT(j)))
                return 0;
            int src;
            if (v.kind[j] == K_R)
                src = v.rf[j];
            else if (v.kind[j] == K_W)
                src = j;
            else
                continue;
            if (!(g->addedmax & BIT(j)))
                return 0;
            if (v.coafter[src] & keep)
                return 0;
        }
    }
    return 1;
}

/* Whether re-reading r from a, restricted to kept, is certainly inconsistent (1). */
static int doomed(Core *c, G *g, int r, int a, const int *kept) {
    V v = view(c, g);
    set_t keep = view_set(c, kept);
    set_t succs = v.coafter[a] & keep;
    if (!succs)
        return 0;
    const set_t *st = statics(c, g);
    if (st == NULL)
        return -1;
    return (forbidden(c, st, r, B_FR, keep) & succs) != 0;
}

/* g restricted to kept, where r reads from a; a's porf-prefix wview becomes stable. */
static G *revisit(Core *c, G *g, int r, int a, const int *kept, const int *wview) {
    G *h = new_graph(c);
    if (h == NULL)
        return NULL;
    memcpy(h, g, c->gbytes);
    V v = view(c, h);
    int n = c->size;
    for (int t = 0; t < c->T; t++) {
        int b = c->base[t];
        for (int j = b + kept[t]; j < b + v.n[t]; j++) {
            v.kind[j] = K_OTHER;
            v.rf[j] = -1;
            v.val[j] = -1;
        }
        if (kept[t] < v.n[t])
            v.n[t] = kept[t];
    }
    for (int li = 0; li < c->L; li++) {
        int *co = v.co + li * n, *rl = v.rl + li * n, m = 0;
        for (int i = 0; i < v.colen[li]; i++)
            if (c->idx[co[i]] < kept[c->tid[co[i]]])
                co[m++] = co[i];
        v.colen[li] = m;
        m = 0;
        for (int i = 0; i < v.rllen[li]; i++)
            if (c->idx[rl[i]] < kept[c->tid[rl[i]]])
                rl[m++] = rl[i];
        v.rllen[li] = m;
    }
    if (c->has_spawn)
        for (int ch = 0; ch < c->T; ch++) {
            int s = v.spawned_at[ch];
            if (s >= 0 && c->idx[s] >= kept[c->tid[s]])
                v.spawned_at[ch] = -1;
        }
    for (int t = 0; t < c->T; t++) {
        int m = kept[t];
        v.cur[t] = m ? v.node[c->base[t] + m - 1] : t;
    }
    v.rf[r] = a;
    v.val[r] = v.val[a];
    recompute_sets(c, h);
    int la = v.loc[a];
    const int *co = v.co + la * n;
    if (v.colen[la] && co[v.colen[la] - 1] == a)
        h->addedmax |= BIT(r);
    else
        h->addedmax &= ~BIT(r);
    int t = c->tid[r];
    int before = c->idx[r] ? v.node[r - 1] : t;
    int nx = child(c, before, v.val[a]);
    if (nx < 0) {
        PyMem_Free(h);
        return NULL;
    }
    v.node[r] = v.cur[t] = nx;
    h->revisitable &= ~(view_set(c, wview) & ~view_set(c, (const int[MAXT]){0}));
    return h;
}

static int visit(Core *c, G *g);
static int visit_at(Core *c, G *g);
static int moot_block(Core *c, G *g, int e);

/* Backward revisits by the write a (just added) of location li. */
static int backward(Core *c, G *g, int a, int li) {
    V v = view(c, g);
    int wview[MAXT], kept[MAXT], have_w = 0, succ_a = -2;
    int nr = v.rllen[li];
    int reads[MAXE];
    memcpy(reads, v.rl + li * c->size, sizeof(int) * nr);
    for (int i = 0; i < nr; i++) {
        int r = reads[i];
        if (!(g->revisitable & BIT(r)))
            continue;
        if (!have_w) {
            porf_view(c, g, a, wview);
            have_w = 1;
        }
        if (in_view(c, r, wview))
            continue;
        if (!(g->addedmax & BIT(r))) {
            c->refused++;
            continue;
        }
        if (succ_a == -2) {
            const int *co = v.co + li * c->size;
            int p = 0;
            while (co[p] != a)
                p++;
            succ_a = p + 1 < v.colen[li] ? co[p + 1] : -1;
        }
        for (int t = 0; t < c->T; t++) { /* events added no later than r, and a's prefix */
            int b = c->base[t], k = v.n[t];
            while (k && v.stamp[b + k - 1] > v.stamp[r])
                k--;
            kept[t] = k > wview[t] ? k : wview[t];
        }
        if ((succ_a >= 0 && !in_view(c, succ_a, kept)) || !maximal(c, g, r, a, kept)) {
            c->refused++;
            continue;
        }
        int d = doomed(c, g, r, a, kept);
        if (d < 0)
            return -1;
        if (d) {
            c->rev_doomed++;
            continue;
        }
        G *h = revisit(c, g, r, a, kept, wview);
        if (h == NULL)
            return -1;
        int ok = check(c, h, -1);
        if (ok <= 0) {
            PyMem_Free(h);
            if (ok < 0)
                return -1;
            c->rev_inconsistent++;
            continue;
        }
        c->revisits++;
        int m = moot_block(c, h, r);
        int rc = m < 0 ? -1 : m ? 0 : visit(c, h);
        if (m > 0)
            c->moot++;
        PyMem_Free(h);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ the tree estimate */

static inline int prof_slot(int depth, int n, int j, int cap) {
    unsigned h = ((unsigned)depth * 2654435761u) ^ ((unsigned)n * 40503u) ^ (unsigned)j * 97u;
    return (int)(h & (unsigned)(cap - 1));
}

/* The profile entry (depth, n, j): the finished j-th children of the nodes at that depth
 * with n children; NULL when there is none and `create` is 0 (or memory ran out). */
static Profile *profile(Core *c, int depth, int n, int j, int create) {
    if (create && 2 * (c->nprof + 1) > c->capprof) { /* grow, rehash */
        int cap = c->capprof ? 2 * c->capprof : 1024;
        Profile *p = PyMem_Calloc((size_t)cap, sizeof(Profile));
        if (p == NULL)
            return NULL;
        for (int k = 0; k < c->capprof; k++)
            if (c->prof[k].used) {
                const Profile *q = &c->prof[k];
                int at = prof_slot(q->depth, q->n, q->j, cap);
                while (p[at].used)
                    at = (at + 1) & (cap - 1);
                p[at] = *q;
            }
        PyMem_Free(c->prof);
        c->prof = p;
        c->capprof = cap;
    }
    if (!c->capprof)
        return NULL;
    int at = prof_slot(depth, n, j, c->capprof);
    while (c->prof[at].used) {
        Profile *q = &c->prof[at];
        if (q->depth == depth && q->n == n && q->j == j)
            return q;
        at = (at + 1) & (c->capprof - 1);
    }
    if (!create)
        return NULL;
    Profile *q = &c->prof[at];
    q->used = 1;
    q->depth = depth;
    q->n = n;
    q->j = j;
    c->nprof++;
    return q;
}

/* The child being explored at the top level is done with `size`; those before `nxt`
 * after it were never begun. */
static int finished(Core *c, long long size, int nxt) {
    Level *lv = &c->levels[c->nlevels - 1];
    for (int j = lv->i > 0 ? lv->i : 0; j < nxt; j++) {
        Profile *q = profile(c, c->nlevels, lv->n, j, 1);
        if (q == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        if (j == lv->i)
            q->size += (double)size;
        q->count++;
    }
    return 0;
}

static int tree_enter(Core *c, int n) {
    if (grow((void **)&c->levels, &c->caplevels, c->nlevels, sizeof(Level), 64) < 0)
        return -1;
    Level *lv = &c->levels[c->nlevels++];
    lv->i = -1;
    lv->n = n;
    lv->done = 0;
    lv->began = lv->entered = c->complete;
    return 0;
}

static int tree_child(Core *c) {
    Level *lv = &c->levels[c->nlevels - 1];
    long long k = c->complete;
    if (finished(c, k - lv->began, lv->i + 1) < 0)
        return -1;
    lv->done += k - lv->began;
    lv->began = k;
    lv->i++;
    return 0;
}

static int tree_leave(Core *c) {
    Level *lv = &c->levels[c->nlevels - 1];
    int nxt = lv->n > lv->i + 1 ? lv->n : lv->i + 1;
    if (finished(c, c->complete - lv->began, nxt) < 0)
        return -1;
    c->nlevels--;
    return 0;
}

/* estimate(): the estimated number of complete executions of the whole search (None:
 * no node entered yet, or no reporter). */
static PyObject *Core_estimate(Core *c, PyObject *unused) {
    if (!c->nlevels)
        Py_RETURN_NONE;
    double size = 0;
    long long inner = c->complete;
    for (int depth = c->nlevels; depth >= 1; depth--) {
        const Level *lv = &c->levels[depth - 1];
        size += (double)(inner - lv->began + lv->done);
        double mean = size / (lv->i + 1 > 1 ? lv->i + 1 : 1);
        for (int j = lv->i + 1; j < lv->n; j++) {
            const Profile *q = profile(c, depth, lv->n, j, 0);
            size += q != NULL ? q->size / (double)q->count : mean;
        }
        inner = lv->entered;
    }
    return PyFloat_FromDouble((double)c->levels[0].entered + size);
}

/* ------------------------------------------------------------------ the exploration */

static int leaf(Core *c, G *g) {
    int racy = c->c11 ? c11_racy(c, g) : 0;
    if (racy < 0)
        return -1;
    V v = view(c, g);
    PyObject *curs = PyTuple_New(c->T);
    PyObject *fin = PyTuple_New(c->L);
    if (curs == NULL || fin == NULL) {
        Py_XDECREF(curs);
        Py_XDECREF(fin);
        return -1;
    }
    u64 st = 0; /* the threads started */
    for (int t = 0; t < c->T; t++) {
        PyTuple_SET_ITEM(curs, t, PyLong_FromLong(v.cur[t]));
        if (started(c, &v, t))
            st |= ((u64)1) << t;
    }
    for (int li = 0; li < c->L; li++) {
        int len = v.colen[li];
        int w = len ? v.co[li * c->size + len - 1] : li;
        PyTuple_SET_ITEM(fin, li, PyLong_FromLong(v.val[w]));
    }
    c->leafg = g;
    PyObject *r =
        PyObject_CallMethod(c->host, "leaf", "OOKi", curs, fin, (unsigned long long)st, racy);
    c->leafg = NULL;
    Py_DECREF(curs);
    Py_DECREF(fin);
    if (r == NULL)
        return -1;
    c->complete += PyObject_IsTrue(r) == 1;
    Py_DECREF(r);
    return 0;
}

/* Whether the thread of event e (just added) blocked on an assumption after a read not
 * added maximally or not revisitable: the graph is moot (GenMC's
 * mootExecutionIfFullyBlocked; graph.py's moot_block): 1, 0, or -1 on an error. */
static int moot_block(Core *c, G *g, int e) {
    int t = c->tid[e];
    V v = view(c, g);
    Node *nd = info(c, v.cur[t]);
    if (nd == NULL)
        return -1;
    if (nd->stype != S_ASSUMED)
        return 0;
    for (int j = c->base[t] + v.n[t] - 1; j >= c->base[t]; j--) {
        if (v.kind[j] == K_R)
            return !((g->addedmax >> j) & 1) || !((g->revisitable >> j) & 1);
        if (v.kind[j] == K_W)
            return 0;
    }
    return 0;
}

static int go_on(Core *c, G *g, int e, int *alive) {
    int ok = check(c, g, e);
    if (ok < 0)
        return -1;
    if (!ok) {
        c->pruned++;
        return 0;
    }
    *alive = 1;
    int m = moot_block(c, g, e);
    if (m < 0)
        return -1;
    if (m) {
        c->moot++;
        return 0;
    }
    return visit(c, g);
}

static int visit(Core *c, G *g) {
    if (c->depth >= MAX_DEPTH) /* the C stack is not the heap: Python goes on */
        return raise_from(c, "fallback", "", 0, 0);
    c->depth++;
    int rc = visit_at(c, g);
    c->depth--;
    return rc;
}

static int visit_at(Core *c, G *g) {
    if (--c->budget == 0) {
        c->budget = 256;
        if (ask(c, "tick", "", 0, 0) < 0 && PyErr_Occurred())
            return -1;
    }
    int t = next_thread(c, g);
    if (t == -2)
        return -1;
    if (t < 0)
        return leaf(c, g);
    V v = view(c, g);
    int nid = v.cur[t];
    Node nd = c->nodes[nid];
    int e = c->base[t] + v.n[t];
    int alive = 0;
    if ((nd.kind == K_R || nd.kind == K_W) && nd.li < 0) /* an address computed now */
        return raise_from(c, "new_location", "i", nid, 0);
    if (nd.kind == K_R) {
        int li = nd.li;
        int writes[MAXE + 1], nw = 0;
        writes[nw++] = li;
        for (int i = 0; i < v.colen[li]; i++)
            writes[nw++] = v.co[li * c->size + i];
        int last = writes[nw - 1];
        int floor = floor_of(c, g, e, li, B_FR);
        if (floor < 0)
            return -1;
        c->pruned += floor;
        if (c->tracking && tree_enter(c, nw - floor) < 0)
            return -1;
        for (int j = floor; j < nw; j++) {
            if (c->tracking && tree_child(c) < 0)
                return -1;
            if (add_read(c, g, t, nid, e, writes[j], writes[j] == last) < 0)
                return -1;
            if (go_on(c, g, e, &alive) < 0)
                return -1;
            pop(c, g, t);
        }
        if (c->tracking && tree_leave(c) < 0)
            return -1;
        if (!alive)
            c->dead_end++;
    } else if (nd.kind == K_W) {
        int li = nd.li;
        int floor = floor_of(c, g, e, li, B_CO);
        if (floor < 0)
            return -1;
        int readers = v.rllen[li] > 0;
        if (c->tracking && tree_enter(c, v.colen[li] + 1) < 0)
            return -1;
        for (int pos = v.colen[li]; pos >= 0; pos--) {
            if (c->tracking && tree_child(c) < 0)
                return -1;
            int dm = pos < floor;
            if (dm && !readers) {
                c->pruned++;
                continue;
            }
            if (add_write(c, g, t, nid, e, pos) < 0)
                return -1;
            if (dm)
                c->pruned++;
            else if (go_on(c, g, e, &alive) < 0)
                return -1;
            if (readers && backward(c, g, e, li) < 0)
                return -1;
            pop(c, g, t);
        }
        if (c->tracking && tree_leave(c) < 0)
            return -1;
        if (!alive) {
            if (c->idx[e] && v.poi[e - 1] == nd.poi) /* a read-modify-write's write */
                c->moot++;
            else
                c->dead_end++;
        }
    } else {
        if (add_other(c, g, t, nid, e) < 0)
            return -1;
        if (go_on(c, g, e, &alive) < 0)
            return -1;
        if (!alive)
            c->dead_end++;
        pop(c, g, t);
    }
    return 0;
}

/* ------------------------------------------------------------------ the type */

static void Core_dealloc(Core *c) {
    if (c->stab != NULL) {
        free_statics(c);
        PyMem_Free(c->stab);
    }
    PyMem_Free(c->nodes);
    PyMem_Free(c->kids);
    PyMem_Free(c->root);
    PyMem_Free(c->levels);
    PyMem_Free(c->prof);
    Py_XDECREF(c->host);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int int_list(PyObject *seq, int *out, int n, const char *what) {
    PyObject *f = PySequence_Fast(seq, what);
    if (f == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(f) != n) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "%s: %d entries expected", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        out[i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(f, i));
        if (out[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(f);
            return -1;
        }
    }
    Py_DECREF(f);
    return 0;
}

/* o as a fast sequence of at most `max` items (NULL: an error, set). */
static PyObject *items(PyObject *o, const char *what, Py_ssize_t max) {
    PyObject *f = PySequence_Fast(o, what);
    if (f != NULL && PySequence_Fast_GET_SIZE(f) > max) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "%s: more than %zd", what, max);
        return NULL;
    }
    return f;
}

/* One step: (meet slot, su slot, ((base, (inter slots), (diff slots)), ...)). */
static int parse_step(PyObject *o, Step *sp) {
    PyObject *terms;
    memset(sp, 0, sizeof(Step));
    if (!PyArg_ParseTuple(o, "iiO", &sp->meet, &sp->su, &terms))
        return -1;
    PyObject *f = items(terms, "terms", MAXTERMS);
    if (f == NULL)
        return -1;
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(f);
    sp->nterms = (int)nt;
    for (Py_ssize_t i = 0; i < nt; i++) {
        Term *tm = &sp->terms[i];
        PyObject *ins, *dfs;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(f, i), "iOO", &tm->base, &ins, &dfs)) {
            Py_DECREF(f);
            return -1;
        }
        Py_ssize_t ni = PySequence_Size(ins), nd = PySequence_Size(dfs);
        if (ni < 0 || nd < 0 || ni > MAXK || nd > MAXK || tm->base < B_RF || tm->base > B_FR) {
            Py_DECREF(f);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "bad term");
            return -1;
        }
        tm->ninter = (int)ni;
        tm->ndiff = (int)nd;
        if (int_list(ins, tm->inter, (int)ni, "inters") < 0 ||
            int_list(dfs, tm->diff, (int)nd, "diffs") < 0) {
            Py_DECREF(f);
            return -1;
        }
        sp->bases |= 1 << tm->base;
    }
    Py_DECREF(f);
    return 0;
}

/* Core(host, T, L, size, base, room, spawned, initvals, steps, nslots, tracking,
 *      max_statics[, writes_first]); the host numbers thread t's root node t; a
 * step (-3 or -2, flags, ()) is RC11's or RA's (cat/c11.py), flags GenMC's variants
 * (1 its release sequences, 2 its SC order) */
static int Core_init(Core *c, PyObject *args, PyObject *kw) {
    PyObject *host, *base, *room, *spawned, *initvals, *steps;
    int T, L, size, nslots, tracking, max_statics, wf = 0;
    if (!PyArg_ParseTuple(args, "OiiiOOOOOipi|p", &host, &T, &L, &size, &base, &room, &spawned,
                          &initvals, &steps, &nslots, &tracking, &max_statics, &wf))
        return -1;
    c->wf = wf;
    if (max_statics < 1) {
        PyErr_SetString(PyExc_ValueError, "max_statics must be >= 1");
        return -1;
    }
    c->max_statics = max_statics;
    c->tracking = tracking;
    if (T < 1 || T > MAXT || L < 0 || size > MAXE || L > size || nslots < 0) {
        PyErr_SetString(PyExc_ValueError, "graph too big for the compiled core");
        return -1;
    }
    c->T = T;
    c->L = L;
    c->size = size;
    c->nslots = nslots;
    if (int_list(base, c->base, T, "base") < 0 || int_list(room, c->room, T, "room") < 0 ||
        int_list(spawned, c->spawned, T, "spawned") < 0 ||
        int_list(initvals, c->initval, L, "initvals") < 0)
        return -1;
    PyObject *f = items(steps, "steps", MAXSTEPS);
    if (f == NULL)
        return -1;
    Py_ssize_t ns = PySequence_Fast_GET_SIZE(f);
    c->nsteps = (int)ns;
    for (Py_ssize_t i = 0; i < ns; i++)
        if (parse_step(PySequence_Fast_GET_ITEM(f, i), &c->steps[i]) < 0) {
            Py_DECREF(f);
            return -1;
        }
    Py_DECREF(f);
    c->c11 = 0;
    for (int s = 0; s < c->nsteps; s++)
        if (c->steps[s].meet < -1) { /* its su: GenMC's variants (1 rs, 2 SC order) */
            int flags = c->steps[s].su;
            if (c->steps[s].meet < -3 || nslots < C11_NSLOTS || flags < 0 || flags > 3) {
                PyErr_SetString(PyExc_ValueError, "bad C11 step");
                return -1;
            }
            c->c11 = 1 | flags << 1;
            c->steps[s].su = -1;
        }
    c->has_spawn = 0;
    for (int t = 0; t < T; t++) {
        c->has_spawn |= c->spawned[t] != 0;
        for (int k = 0; k < c->room[t]; k++) {
            int e = c->base[t] + k;
            if (e >= size) {
                PyErr_SetString(PyExc_ValueError, "room past the graph's size");
                return -1;
            }
            c->tid[e] = t;
            c->idx[e] = k;
        }
    }
    for (int e = 0; e < L; e++)
        c->tid[e] = -1, c->idx[e] = 0;
    int off = 0;
    c->o_n = off, off += T;
    c->o_cur = off, off += T;
    c->o_sp = off, off += T;
    c->o_node = off, off += size;
    c->o_rf = off, off += size;
    c->o_val = off, off += size;
    c->o_stamp = off, off += size;
    c->o_kind = off, off += size;
    c->o_loc = off, off += size;
    c->o_poi = off, off += size;
    c->o_colen = off, off += L;
    c->o_rllen = off, off += L;
    c->o_co = off, off += L * size;
    c->o_rl = off, off += L * size;
    c->gbytes = sizeof(G) + 2 * sizeof(set_t) * (size_t)size + 4 * (size_t)off;
    c->capst = 16; /* grows to twice max_statics */
    c->stab = PyMem_Calloc((size_t)c->capst, sizeof(Static));
    c->root = PyMem_Calloc(1, c->gbytes);
    if (c->stab == NULL || c->root == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (have_node(c, T - 1) < 0) /* the roots */
        return -1;
    G *g = c->root;
    V v = view(c, g);
    for (int t = 0; t < T; t++) {
        v.n[t] = 0;
        v.cur[t] = t;
        v.spawned_at[t] = -1;
    }
    for (int e = 0; e < size; e++) {
        v.rf[e] = -1;
        v.val[e] = e < L ? c->initval[e] : -1;
        v.kind[e] = e < L ? K_W : K_OTHER;
        v.loc[e] = e < L ? e : -1;
    }
    g->addedmax = g->revisitable = ~(set_t)0;
    recompute_sets(c, g);
    Py_INCREF(host);
    Py_XSETREF(c->host, host);
    c->budget = 256;
    return 0;
}

/* run(): the exploration from the graph of initial writes (False: the model rejects
 * even that one). */
static PyObject *Core_run(Core *c, PyObject *unused) {
    G *g = new_graph(c);
    if (g == NULL)
        return NULL;
    memcpy(g, c->root, c->gbytes);
    int ok = check(c, g, -1);
    int rc = ok > 0 ? visit(c, g) : ok;
    PyMem_Free(g);
    if (rc < 0)
        return NULL;
    return PyBool_FromLong(ok > 0);
}

static PyObject *Core_stats(Core *c, PyObject *unused) {
    return Py_BuildValue("{sLsLsLsLsLsLsLsL}", "pruned", c->pruned, "dead_end", c->dead_end,
                         "moot", c->moot, "revisits", c->revisits, "revisits_inconsistent",
                         c->rev_inconsistent, "revisits_doomed", c->rev_doomed, "refused",
                         c->refused, "checks", c->checks);
}

/* A set as a Python int (bit e: event e). */
static PyObject *set_to_py(set_t x) {
    return _PyLong_FromByteArray((const unsigned char *)&x, sizeof(set_t), 1, 0);
}

/* snapshot(): the graph at the present leaf, as (n, rf, val, stamp, co, rl, node,
 * spawned_at, addedmax, revisitable, clock). */
static PyObject *Core_snapshot(Core *c, PyObject *unused) {
    G *g = c->leafg;
    if (g == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "snapshot outside a leaf");
        return NULL;
    }
    V v = view(c, g);
    int n = c->size;
    PyObject *ns = PyList_New(c->T), *sp = PyList_New(c->T);
    PyObject *rf = PyList_New(n), *val = PyList_New(n), *stamp = PyList_New(n),
             *node = PyList_New(n);
    PyObject *co = PyList_New(c->L), *rl = PyList_New(c->L);
    if (!ns || !sp || !rf || !val || !stamp || !node || !co || !rl)
        goto fail;
    for (int t = 0; t < c->T; t++) {
        PyList_SET_ITEM(ns, t, PyLong_FromLong(v.n[t]));
        PyList_SET_ITEM(sp, t, PyLong_FromLong(v.spawned_at[t]));
    }
    for (int e = 0; e < n; e++) {
        PyList_SET_ITEM(rf, e, PyLong_FromLong(v.rf[e]));
        PyList_SET_ITEM(val, e, PyLong_FromLong(v.val[e]));
        PyList_SET_ITEM(stamp, e, PyLong_FromLong(v.stamp[e]));
        PyList_SET_ITEM(node, e, PyLong_FromLong(e < c->L ? -1 : v.node[e]));
    }
    for (int li = 0; li < c->L; li++) {
        PyObject *a = PyList_New(v.colen[li]), *b = PyList_New(v.rllen[li]);
        if (!a || !b) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto fail;
        }
        for (int i = 0; i < v.colen[li]; i++)
            PyList_SET_ITEM(a, i, PyLong_FromLong(v.co[li * n + i]));
        for (int i = 0; i < v.rllen[li]; i++)
            PyList_SET_ITEM(b, i, PyLong_FromLong(v.rl[li * n + i]));
        PyList_SET_ITEM(co, li, a);
        PyList_SET_ITEM(rl, li, b);
    }
    return Py_BuildValue("(NNNNNNNNNNI)", ns, rf, val, stamp, co, rl, node, sp,
                         set_to_py(g->addedmax), set_to_py(g->revisitable), g->clock);
fail:
    Py_XDECREF(ns);
    Py_XDECREF(sp);
    Py_XDECREF(rf);
    Py_XDECREF(val);
    Py_XDECREF(stamp);
    Py_XDECREF(node);
    Py_XDECREF(co);
    Py_XDECREF(rl);
    return NULL;
}

static PyMethodDef Core_methods[] = {
    {"run", (PyCFunction)Core_run, METH_NOARGS, "Explore (False: the empty graph is rejected)."},
    {"stats", (PyCFunction)Core_stats, METH_NOARGS, "The exploration's counts."},
    {"snapshot", (PyCFunction)Core_snapshot, METH_NOARGS, "The graph at the present leaf."},
    {"estimate", (PyCFunction)Core_estimate, METH_NOARGS, "The search's estimated size."},
    {NULL, NULL, 0, NULL},
};

#ifdef CORE_WIDE
#define MODULE "_core128"
#define INIT PyInit__core128
#else
#define MODULE "_core"
#define INIT PyInit__core
#endif

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "herdsman.engine.trust." MODULE ".Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_doc = "TruSt's exploration loop, compiled (see engine/trust/core.py).",
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, MODULE, "TruSt's exploration loop, compiled.", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC INIT(void) {
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

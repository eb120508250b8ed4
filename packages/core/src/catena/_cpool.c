/*
 * catena._cpool: a NumPy data allocator that keeps freed large buffers for
 * reuse (NEP 49's PyDataMem_Handler).
 *
 * A training step frees and allocates the same large arrays every iteration
 * (weight gradients, activations). The C library returns such blocks to the
 * kernel and maps them again, so every step pays a page fault per 4 KiB; on a
 * 784-1000-1000-10 MLP that was 2,200 faults and about 15 % of the step.
 * Here a freed block of at least MIN_POOLED bytes waits in a small table and
 * serves the next request it fits (at most 1/8 larger), already mapped.
 * A block leaves once STALE_AFTER requests that it could not serve have
 * come, so leftovers that no step asks for again do not add to the peak.
 *
 * Every block carries a 16-byte header with its capacity, so freeing and
 * reallocating never rely on the size NumPy passes. Blocks below MIN_POOLED
 * go straight to malloc and free. The table holds at most MAX_SLOTS blocks
 * and `limit` bytes; the oldest block leaves first. Only the table is
 * guarded by a lock, so small arrays never take it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>
#include <string.h>

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

#define HEADER 16                      /* keeps malloc's 16-byte alignment */
#define MIN_POOLED ((size_t)128 << 10)  /* below: malloc's own heap is fast */
#define PAGE ((size_t)4096)
#define MAX_SLOTS 128
#define STALE_AFTER 4  /* misses a held block waits through */

typedef struct {
    char *base;       /* what malloc returned; the data starts HEADER later */
    size_t capacity;  /* usable bytes after the header */
    uint64_t age;     /* when it was freed (pool.clock), for eviction */
    uint64_t misses_when_freed;
} Slot;

static struct {
    Slot slots[MAX_SLOTS];
    int count;
    size_t held;      /* bytes in the table */
    size_t limit;     /* most bytes the table keeps; 0 keeps nothing */
    uint64_t clock;
    uint64_t hits, misses;
    PyThread_type_lock lock;
} pool;

static inline size_t *capacity_of(char *base) { return (size_t *)base; }
static inline void *data_of(char *base) { return base + HEADER; }
static inline char *base_of(void *data) { return (char *)data - HEADER; }

static inline size_t pooled_capacity(size_t size)
{
    return (size + PAGE - 1) & ~(PAGE - 1);
}

static void remove_slot(int i)
{
    pool.held -= pool.slots[i].capacity;
    pool.slots[i] = pool.slots[--pool.count];
}

/*
 * Takes the smallest held block that fits `size` with at most 1/8 to spare.
 * On a miss, blocks that have waited through STALE_AFTER misses leave: a
 * training step asks again for what it freed, so its blocks are taken long
 * before that, while leftovers (say, temporaries of initialization) would
 * only add to the peak.
 */
static char *take(size_t size)
{
    size_t most = size + size / 8;
    int best = -1;
    char *base = NULL, *stale[MAX_SLOTS];
    int n_stale = 0;
    PyThread_acquire_lock(pool.lock, WAIT_LOCK);
    for (int i = 0; i < pool.count; i++) {
        size_t capacity = pool.slots[i].capacity;
        if (capacity >= size && capacity <= most
                && (best < 0 || capacity < pool.slots[best].capacity))
            best = i;
    }
    if (best >= 0) {
        base = pool.slots[best].base;
        remove_slot(best);
        pool.hits++;
    } else {
        pool.misses++;
        for (int i = pool.count - 1; i >= 0; i--) {
            if (pool.misses - pool.slots[i].misses_when_freed > STALE_AFTER) {
                stale[n_stale++] = pool.slots[i].base;
                remove_slot(i);
            }
        }
    }
    PyThread_release_lock(pool.lock);
    for (int i = 0; i < n_stale; i++)
        free(stale[i]);
    return base;
}

static int oldest_slot(void)
{
    int oldest = 0;
    for (int i = 1; i < pool.count; i++)
        if (pool.slots[i].age < pool.slots[oldest].age)
            oldest = i;
    return oldest;
}

/* Keeps `base` for reuse, or frees it when it cannot be kept. */
static void give_back(char *base)
{
    size_t capacity = *capacity_of(base);
    char *evicted[MAX_SLOTS];
    int n_evicted = 0;
    if (capacity < MIN_POOLED) {
        free(base);
        return;
    }
    PyThread_acquire_lock(pool.lock, WAIT_LOCK);
    if (capacity > pool.limit / 2) {
        evicted[n_evicted++] = base;
    } else {
        while (pool.count > 0 && (pool.count == MAX_SLOTS || pool.held + capacity > pool.limit)) {
            int oldest = oldest_slot();
            evicted[n_evicted++] = pool.slots[oldest].base;
            remove_slot(oldest);
        }
        pool.slots[pool.count++] = (Slot){base, capacity, ++pool.clock, pool.misses};
        pool.held += capacity;
    }
    PyThread_release_lock(pool.lock);
    for (int i = 0; i < n_evicted; i++)
        free(evicted[i]);
}

static void *pool_malloc(void *ctx, size_t size)
{
    char *base = NULL;
    size_t capacity = size;
    (void)ctx;
    if (size >= MIN_POOLED) {
        if ((base = take(size)) != NULL)
            return data_of(base);
        capacity = pooled_capacity(size);
    }
    if (capacity > SIZE_MAX - HEADER || (base = malloc(capacity + HEADER)) == NULL)
        return NULL;
    *capacity_of(base) = capacity;
    return data_of(base);
}

static void *pool_calloc(void *ctx, size_t count, size_t item_size)
{
    char *base;
    size_t size, capacity;
    (void)ctx;
    if (item_size != 0 && count > SIZE_MAX / item_size)
        return NULL;
    size = count * item_size;
    capacity = size;
    if (size >= MIN_POOLED) {
        if ((base = take(size)) != NULL) {
            memset(data_of(base), 0, size);
            return data_of(base);
        }
        capacity = pooled_capacity(size);
    }
    if (capacity > SIZE_MAX - HEADER || (base = calloc(1, capacity + HEADER)) == NULL)
        return NULL;
    *capacity_of(base) = capacity;
    return data_of(base);
}

static void *pool_realloc(void *ctx, void *data, size_t size)
{
    char *base;
    if (data == NULL)
        return pool_malloc(ctx, size);
    if (size > SIZE_MAX - HEADER || (base = realloc(base_of(data), size + HEADER)) == NULL)
        return NULL;
    *capacity_of(base) = size;
    return data_of(base);
}

static void pool_free(void *ctx, void *data, size_t size)
{
    (void)ctx;
    (void)size;  /* the header knows the capacity */
    if (data != NULL)
        give_back(base_of(data));
}

static PyDataMem_Handler handler = {
    "catena_pool",
    1,
    {NULL, pool_malloc, pool_calloc, pool_realloc, pool_free},
};

/* Frees every held block; returns the bytes released. */
static size_t release_all(void)
{
    char *bases[MAX_SLOTS];
    int n;
    size_t released;
    PyThread_acquire_lock(pool.lock, WAIT_LOCK);
    n = pool.count;
    for (int i = 0; i < n; i++)
        bases[i] = pool.slots[i].base;
    released = pool.held;
    pool.count = 0;
    pool.held = 0;
    PyThread_release_lock(pool.lock);
    for (int i = 0; i < n; i++)
        free(bases[i]);
    return released;
}

/* ------------------------------------------------------------- Python API */

static PyObject *handler_capsule;

static PyObject *py_install(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyDataMem_SetHandler(handler_capsule);
}

static PyObject *py_set_limit(PyObject *self, PyObject *arg)
{
    size_t limit = PyLong_AsSize_t(arg);
    char *evicted[MAX_SLOTS];
    int n_evicted = 0;
    (void)self;
    if (limit == (size_t)-1 && PyErr_Occurred())
        return NULL;
    PyThread_acquire_lock(pool.lock, WAIT_LOCK);
    pool.limit = limit;
    while (pool.count > 0 && pool.held > pool.limit) {
        int oldest = oldest_slot();
        evicted[n_evicted++] = pool.slots[oldest].base;
        remove_slot(oldest);
    }
    PyThread_release_lock(pool.lock);
    for (int i = 0; i < n_evicted; i++)
        free(evicted[i]);
    Py_RETURN_NONE;
}

static PyObject *py_release(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyLong_FromSize_t(release_all());
}

static PyObject *py_stats(PyObject *self, PyObject *noargs)
{
    PyObject *result;
    (void)self;
    (void)noargs;
    PyThread_acquire_lock(pool.lock, WAIT_LOCK);
    result = Py_BuildValue("{s:n,s:n,s:n,s:K,s:K,s:n,s:i}",
                           "held_bytes", (Py_ssize_t)pool.held,
                           "held_blocks", (Py_ssize_t)pool.count,
                           "limit_bytes", (Py_ssize_t)pool.limit,
                           "hits", (unsigned long long)pool.hits,
                           "misses", (unsigned long long)pool.misses,
                           "min_pooled_bytes", (Py_ssize_t)MIN_POOLED,
                           "stale_after", STALE_AFTER);
    PyThread_release_lock(pool.lock);
    return result;
}

static PyObject *py_after_fork(PyObject *self, PyObject *noargs)
{
    /* The lock may have been held by a thread that does not exist in the child. */
    (void)self;
    (void)noargs;
    pool.lock = PyThread_allocate_lock();
    if (pool.lock == NULL)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"install", py_install, METH_NOARGS,
     "Makes the pool NumPy's data allocator in the current context; returns the previous handler."},
    {"set_limit", py_set_limit, METH_O, "Sets the most bytes the pool keeps, releasing the excess."},
    {"release", py_release, METH_NOARGS, "Frees every held block; returns the bytes released."},
    {"stats", py_stats, METH_NOARGS, "Returns the pool's counters as a dict."},
    {"after_fork", py_after_fork, METH_NOARGS, "Gives a forked child a fresh lock."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "catena._cpool",
    "A NumPy data allocator that reuses freed large buffers.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cpool(void)
{
    PyObject *m;
    import_array();
    if ((pool.lock = PyThread_allocate_lock()) == NULL)
        return PyErr_NoMemory();
    if ((handler_capsule = PyCapsule_New(&handler, "mem_handler", NULL)) == NULL)
        return NULL;
    if ((m = PyModule_Create(&module)) == NULL)
        return NULL;
    if (PyModule_AddObject(m, "handler", handler_capsule) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(handler_capsule);
    return m;
}

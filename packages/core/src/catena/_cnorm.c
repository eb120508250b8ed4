/*
 * catena._cnorm: per-channel loops of batch normalization on CPU.
 *
 * The normalization functions see x as an (A, K, B) array and reduce over A
 * and B for each channel k. In NumPy, a forward pass is five passes over x
 * and a backward pass seven; these loops need three and two. Each row's
 * sums run in eight lanes of the array's dtype and are added up in double;
 * every element-wise result is rounded in the array's dtype, in the order
 * the NumPy code uses.
 *
 * The arrays must be float32 or float64 NumPy arrays of one dtype,
 * C-contiguous: x-like ones of shape (A, K, B), per-channel ones of shape
 * (K,). Anything else raises TypeError; catena.functions.normalization.
 * _common checks before calling and otherwise runs its NumPy code.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

typedef struct {
    npy_intp a, k, b;
    int type;
} Shape;

static int as_array(PyObject *o, int ndim, const char *name, Shape *shape,
                    PyArrayObject **out)
{
    PyArrayObject *array = (PyArrayObject *)o;
    if (Py_TYPE(o) != &PyArray_Type || PyArray_NDIM(array) != ndim
            || !PyArray_ISCARRAY_RO(array) || !PyArray_ISNOTSWAPPED(array)
            || (PyArray_TYPE(array) != NPY_FLOAT32 && PyArray_TYPE(array) != NPY_FLOAT64)) {
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous float32 or float64 "
                     "ndarray with %d dimensions", name, ndim);
        return -1;
    }
    if (ndim == 3) {
        if (shape->type == NPY_NOTYPE) {
            shape->a = PyArray_DIM(array, 0);
            shape->k = PyArray_DIM(array, 1);
            shape->b = PyArray_DIM(array, 2);
            shape->type = PyArray_TYPE(array);
        } else if (PyArray_DIM(array, 0) != shape->a || PyArray_DIM(array, 1) != shape->k
                   || PyArray_DIM(array, 2) != shape->b) {
            PyErr_Format(PyExc_TypeError, "%s must have the shape of x", name);
            return -1;
        }
    } else if (PyArray_DIM(array, 0) != shape->k) {
        PyErr_Format(PyExc_TypeError, "%s must have one element per channel", name);
        return -1;
    }
    if (PyArray_TYPE(array) != shape->type) {
        PyErr_Format(PyExc_TypeError, "%s must have the dtype of x", name);
        return -1;
    }
    *out = array;
    return 0;
}

static PyArrayObject *new_like(Shape *shape, int ndim)
{
    npy_intp dims[3] = {shape->a, shape->k, shape->b};
    if (ndim == 1)
        dims[0] = shape->k;
    return (PyArrayObject *)PyArray_SimpleNew(ndim, dims, shape->type);
}

/*
 * Two new per-channel arrays and a zeroed double accumulator of n_acc
 * elements; NULL with an exception set (and nothing allocated) on failure.
 */
static double *two_vectors(Shape *s, PyArrayObject **first, PyArrayObject **second,
                           npy_intp n_acc)
{
    double *acc = NULL;
    *first = new_like(s, 1);
    *second = *first == NULL ? NULL : new_like(s, 1);
    if (*second != NULL && (acc = PyMem_Calloc(n_acc > 0 ? n_acc : 1, sizeof(double))) == NULL)
        PyErr_NoMemory();
    if (acc == NULL) {
        Py_XDECREF(*first);
        Py_XDECREF(*second);
    }
    return acc;
}

#define ROW(T, array, i, j) ((T *)PyArray_DATA(array) + ((i) * s.k + (j)) * s.b)
#define VEC(T, array) ((T *)PyArray_DATA(array))

/*
 * Row sums in independent lanes, so that the compiler can vectorize them
 * (a single accumulator would fix the order of the additions); the lanes
 * are added up in double. A row is short (one sample's channel), so lanes
 * of the array's dtype lose nothing that matters.
 */
#define LANES 8
#define ROW_SUMS(T)                                                          \
    static inline void row_sums_##T(const T *x, const T *gy, T mu, npy_intp n, \
                                    double *sum, double *dot)                \
    {                                                                        \
        T s1[LANES] = {0}, s2[LANES] = {0};                                  \
        npy_intp l = 0;                                                      \
        double t1 = 0, t2 = 0;                                               \
        if (gy == NULL) {  /* sum of x; dot: sum of (x - mu)^2 */            \
            for (; l + LANES <= n; l += LANES)                               \
                for (int q = 0; q < LANES; q++) {                            \
                    T d = x[l + q] - mu;                                     \
                    s1[q] += x[l + q];                                       \
                    s2[q] += d * d;                                          \
                }                                                            \
            for (; l < n; l++) {                                             \
                T d = x[l] - mu;                                             \
                t1 += x[l];                                                  \
                t2 += (double)d * d;                                         \
            }                                                                \
        } else {  /* sum of gy; dot: sum of gy * (x - mu) */                 \
            for (; l + LANES <= n; l += LANES)                               \
                for (int q = 0; q < LANES; q++) {                            \
                    T d = x[l + q] - mu;                                     \
                    s1[q] += gy[l + q];                                      \
                    s2[q] += gy[l + q] * d;                                  \
                }                                                            \
            for (; l < n; l++) {                                             \
                T d = x[l] - mu;                                             \
                t1 += gy[l];                                                 \
                t2 += (double)gy[l] * d;                                     \
            }                                                                \
        }                                                                    \
        for (int q = 0; q < LANES; q++) {                                    \
            t1 += s1[q];                                                     \
            t2 += s2[q];                                                     \
        }                                                                    \
        *sum = t1;                                                           \
        *dot = t2;                                                           \
    }
ROW_SUMS(float)
ROW_SUMS(double)

/* ------------------------------------------------------------ statistics */

/* Two passes: the mean, then the variance around it (stable). */
#define STATISTICS(T)                                                        \
    {                                                                        \
        T *mean_out = VEC(T, mean), *var_out = VEC(T, var);                  \
        double sum, unused;                                                  \
        for (npy_intp i = 0; i < s.a; i++)                                   \
            for (npy_intp j = 0; j < s.k; j++) {                             \
                row_sums_##T(ROW(T, x, i, j), NULL, 0, s.b, &sum, &unused);  \
                acc[j] += sum;                                               \
            }                                                                \
        for (npy_intp j = 0; j < s.k; j++) {                                 \
            mean_out[j] = (T)(acc[j] / m);                                   \
            acc[j] = 0;                                                      \
        }                                                                    \
        for (npy_intp i = 0; i < s.a; i++)                                   \
            for (npy_intp j = 0; j < s.k; j++) {                             \
                row_sums_##T(ROW(T, x, i, j), NULL, mean_out[j], s.b, &unused, &sum); \
                acc[j] += sum;                                               \
            }                                                                \
        for (npy_intp j = 0; j < s.k; j++)                                   \
            var_out[j] = (T)(acc[j] / m);                                    \
    }

static PyObject *statistics(PyObject *self, PyObject *args)
{
    PyObject *x_object;
    PyArrayObject *x, *mean, *var;
    Shape s = {0, 0, 0, NPY_NOTYPE};
    double *acc, m;
    (void)self;
    if (!PyArg_ParseTuple(args, "O:statistics", &x_object)
            || as_array(x_object, 3, "x", &s, &x) < 0)
        return NULL;
    m = (double)(s.a * s.b > 0 ? s.a * s.b : 1);
    if ((acc = two_vectors(&s, &mean, &var, s.k)) == NULL)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (s.type == NPY_FLOAT32)
        STATISTICS(float)
    else
        STATISTICS(double)
    Py_END_ALLOW_THREADS
    PyMem_Free(acc);
    return Py_BuildValue("NN", mean, var);
}

/* ------------------------------------------------------------- normalize */

#define NORMALIZE(T)                                                         \
    for (npy_intp i = 0; i < s.a; i++)                                       \
        for (npy_intp j = 0; j < s.k; j++) {                                 \
            const T *row = ROW(T, x, i, j);                                  \
            T *out = ROW(T, y, i, j);                                        \
            const T mu = VEC(T, mean)[j], c = VEC(T, scale)[j];              \
            const T d = VEC(T, shift)[j];                                    \
            for (npy_intp l = 0; l < s.b; l++) {                             \
                T t = row[l] - mu;                                           \
                t = t * c;                                                   \
                out[l] = t + d;                                              \
            }                                                                \
        }

/* normalize(x, mean, scale, shift) -> (x - mean) * scale + shift, a new array. */
static PyObject *normalize(PyObject *self, PyObject *args)
{
    PyObject *objects[4];
    PyArrayObject *x, *mean, *scale, *shift, *y;
    Shape s = {0, 0, 0, NPY_NOTYPE};
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOO:normalize", &objects[0], &objects[1], &objects[2],
                          &objects[3])
            || as_array(objects[0], 3, "x", &s, &x) < 0
            || as_array(objects[1], 1, "mean", &s, &mean) < 0
            || as_array(objects[2], 1, "scale", &s, &scale) < 0
            || as_array(objects[3], 1, "shift", &s, &shift) < 0)
        return NULL;
    if ((y = new_like(&s, 3)) == NULL)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (s.type == NPY_FLOAT32)
        NORMALIZE(float)
    else
        NORMALIZE(double)
    Py_END_ALLOW_THREADS
    return (PyObject *)y;
}

/* ------------------------------------------------------------- gradients */

#define GRADIENT_SUMS(T)                                                     \
    {                                                                        \
        double sum, dot;                                                     \
        for (npy_intp i = 0; i < s.a; i++)                                   \
            for (npy_intp j = 0; j < s.k; j++) {                             \
                row_sums_##T(ROW(T, x, i, j), ROW(T, gy, i, j), VEC(T, mean)[j], s.b, \
                             &sum, &dot);                                    \
                acc[j] += sum;                                               \
                acc[s.k + j] += dot;                                         \
            }                                                                \
        for (npy_intp j = 0; j < s.k; j++) {                                 \
            VEC(T, sum_gy)[j] = (T)acc[j];                                   \
            VEC(T, sum_gy_xc)[j] = (T)acc[s.k + j];                          \
        }                                                                    \
    }

/* gradient_sums(gy, x, mean) -> (sum of gy, sum of gy * (x - mean)) per channel. */
static PyObject *gradient_sums(PyObject *self, PyObject *args)
{
    PyObject *objects[3];
    PyArrayObject *gy, *x, *mean, *sum_gy, *sum_gy_xc;
    Shape s = {0, 0, 0, NPY_NOTYPE};
    double *acc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO:gradient_sums", &objects[0], &objects[1], &objects[2])
            || as_array(objects[0], 3, "gy", &s, &gy) < 0
            || as_array(objects[1], 3, "x", &s, &x) < 0
            || as_array(objects[2], 1, "mean", &s, &mean) < 0)
        return NULL;
    if ((acc = two_vectors(&s, &sum_gy, &sum_gy_xc, 2 * s.k)) == NULL)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (s.type == NPY_FLOAT32)
        GRADIENT_SUMS(float)
    else
        GRADIENT_SUMS(double)
    Py_END_ALLOW_THREADS
    PyMem_Free(acc);
    return Py_BuildValue("NN", sum_gy, sum_gy_xc);
}

#define INPUT_GRADIENT(T)                                                    \
    for (npy_intp i = 0; i < s.a; i++)                                       \
        for (npy_intp j = 0; j < s.k; j++) {                                 \
            const T *g = ROW(T, gy, i, j), *row = ROW(T, x, i, j);           \
            T *out = ROW(T, gx, i, j);                                       \
            const T mu = VEC(T, mean)[j], c1 = VEC(T, along_xc)[j];          \
            const T c2 = VEC(T, offset)[j], c3 = VEC(T, scale)[j];           \
            for (npy_intp l = 0; l < s.b; l++) {                             \
                T t = row[l] - mu;                                           \
                t = t * c1;                                                  \
                t = t + g[l];                                                \
                t = t + c2;                                                  \
                out[l] = t * c3;                                             \
            }                                                                \
        }

/* input_gradient(x, mean, gy, along_xc, offset, scale)
 *     -> (((x - mean) * along_xc + gy) + offset) * scale, a new array. */
static PyObject *input_gradient(PyObject *self, PyObject *args)
{
    PyObject *objects[6];
    PyArrayObject *x, *mean, *gy, *along_xc, *offset, *scale, *gx;
    Shape s = {0, 0, 0, NPY_NOTYPE};
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOO:input_gradient", &objects[0], &objects[1],
                          &objects[2], &objects[3], &objects[4], &objects[5])
            || as_array(objects[0], 3, "x", &s, &x) < 0
            || as_array(objects[1], 1, "mean", &s, &mean) < 0
            || as_array(objects[2], 3, "gy", &s, &gy) < 0
            || as_array(objects[3], 1, "along_xc", &s, &along_xc) < 0
            || as_array(objects[4], 1, "offset", &s, &offset) < 0
            || as_array(objects[5], 1, "scale", &s, &scale) < 0)
        return NULL;
    if ((gx = new_like(&s, 3)) == NULL)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (s.type == NPY_FLOAT32)
        INPUT_GRADIENT(float)
    else
        INPUT_GRADIENT(double)
    Py_END_ALLOW_THREADS
    return (PyObject *)gx;
}

static PyMethodDef methods[] = {
    {"statistics", statistics, METH_VARARGS,
     "statistics(x) -> (mean, var): per channel of an (A, K, B) array, the biased variance."},
    {"normalize", normalize, METH_VARARGS,
     "normalize(x, mean, scale, shift) -> (x - mean) * scale + shift per channel."},
    {"gradient_sums", gradient_sums, METH_VARARGS,
     "gradient_sums(gy, x, mean) -> (sum of gy, sum of gy * (x - mean)) per channel."},
    {"input_gradient", input_gradient, METH_VARARGS,
     "input_gradient(x, mean, gy, along_xc, offset, scale) -> "
     "(((x - mean) * along_xc + gy) + offset) * scale."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "catena._cnorm",
    "Per-channel loops of batch normalization on CPU.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cnorm(void)
{
    import_array();
    return PyModule_Create(&module);
}

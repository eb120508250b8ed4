/*
 * catena._cupdate: one-pass update steps for the common optimizers on CPU.
 *
 * NumPy runs an update rule as a chain of whole-array operations (SGD with
 * momentum is four passes over parameter, gradient and velocity). These
 * loops do the same arithmetic element by element in one pass, rounding
 * after every operation in the array's dtype as NumPy does, so the results
 * are the NumPy chain's to the last bit (the build turns off contraction
 * into fused multiply-adds).
 *
 * Each function takes float32 or float64 arrays of one dtype and one size,
 * C-contiguous, aligned and writable where written, and returns True when it
 * updated them. Anything else returns False before touching memory, and the
 * caller runs its NumPy code.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

/* eligible() rules out overlap, so the loops may say so and vectorize. */
#ifdef _MSC_VER
#define RESTRICT __restrict
#else
#define RESTRICT restrict
#endif

/* Whether `arrays` (the first `n_written` of them written) can take the loop. */
static int eligible(PyObject **arrays, int n, int n_written, int *type, npy_intp *size)
{
    for (int i = 0; i < n; i++) {
        PyArrayObject *a;
        if (Py_TYPE(arrays[i]) != &PyArray_Type)
            return 0;
        a = (PyArrayObject *)arrays[i];
        if (!PyArray_ISCARRAY_RO(a) || !PyArray_ISNOTSWAPPED(a)
                || (i < n_written && !PyArray_ISWRITEABLE(a)))
            return 0;
        if (i == 0) {
            *type = PyArray_TYPE(a);
            *size = PyArray_SIZE(a);
            if (*type != NPY_FLOAT32 && *type != NPY_FLOAT64)
                return 0;
        } else if (PyArray_TYPE(a) != *type || PyArray_SIZE(a) != *size) {
            return 0;
        }
    }
    /* Written arrays must not overlap anything else (a view of itself, say). */
    for (int i = 0; i < n_written; i++) {
        char *start = PyArray_BYTES((PyArrayObject *)arrays[i]);
        char *end = start + PyArray_NBYTES((PyArrayObject *)arrays[i]);
        for (int j = 0; j < n; j++) {
            char *other = PyArray_BYTES((PyArrayObject *)arrays[j]);
            char *other_end = other + PyArray_NBYTES((PyArrayObject *)arrays[j]);
            if (j != i && start < other_end && other < end)
                return 0;
        }
    }
    return 1;
}

#define DATA(T, i) ((T *)PyArray_DATA((PyArrayObject *)arrays[i]))

/* ------------------------------------------------------------------- SGD */

#define SGD_LOOP(T)                                                          \
    {                                                                        \
        T *RESTRICT p = DATA(T, 0);                                          \
        const T *RESTRICT g = DATA(T, 1);                                    \
        const T r = (T)lr;                                                   \
        for (npy_intp k = 0; k < size; k++) {                                \
            T step = g[k] * r;                                               \
            p[k] = p[k] - step;                                              \
        }                                                                    \
    }

static PyObject *sgd(PyObject *self, PyObject *args)
{
    PyObject *arrays[2];
    double lr;
    int type = 0;
    npy_intp size = 0;
    NPY_BEGIN_THREADS_DEF;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOd:sgd", &arrays[0], &arrays[1], &lr))
        return NULL;
    if (!eligible(arrays, 2, 1, &type, &size))
        Py_RETURN_FALSE;
    NPY_BEGIN_THREADS_THRESHOLDED(size);
    if (type == NPY_FLOAT32)
        SGD_LOOP(float)
    else
        SGD_LOOP(double)
    NPY_END_THREADS;
    Py_RETURN_TRUE;
}

/* ---------------------------------------------------------- MomentumSGD */

#define MOMENTUM_LOOP(T)                                                     \
    {                                                                        \
        T *RESTRICT p = DATA(T, 0);                                          \
        T *RESTRICT v = DATA(T, 1);                                          \
        const T *RESTRICT g = DATA(T, 2);                                    \
        const T r = (T)lr, m = (T)momentum;                                  \
        for (npy_intp k = 0; k < size; k++) {                                \
            T step = g[k] * r;                                               \
            T velocity = v[k] * m;                                           \
            velocity = velocity - step;                                      \
            v[k] = velocity;                                                 \
            p[k] = p[k] + velocity;                                          \
        }                                                                    \
    }

static PyObject *momentum_sgd(PyObject *self, PyObject *args)
{
    PyObject *arrays[3];
    double lr, momentum;
    int type = 0;
    npy_intp size = 0;
    NPY_BEGIN_THREADS_DEF;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOdd:momentum_sgd", &arrays[0], &arrays[1], &arrays[2],
                          &lr, &momentum))
        return NULL;
    if (!eligible(arrays, 3, 2, &type, &size))
        Py_RETURN_FALSE;
    NPY_BEGIN_THREADS_THRESHOLDED(size);
    if (type == NPY_FLOAT32)
        MOMENTUM_LOOP(float)
    else
        MOMENTUM_LOOP(double)
    NPY_END_THREADS;
    Py_RETURN_TRUE;
}

/* ------------------------------------------------------------------ Adam */

/* Plain Adam (no AMSGrad, no AdaBound) with Chainer's eta and weight decay. */
#define ADAM_LOOP(T)                                                         \
    {                                                                        \
        T *RESTRICT p = DATA(T, 0);                                          \
        T *RESTRICT m = DATA(T, 1);                                          \
        T *RESTRICT v = DATA(T, 2);                                          \
        const T *RESTRICT g = DATA(T, 3);                                    \
        const T b1 = (T)one_minus_beta1, b2 = (T)one_minus_beta2;            \
        const T a = (T)alpha_t, e = (T)eps, et = (T)eta, keep = (T)decay;    \
        for (npy_intp k = 0; k < size; k++) {                                \
            T gk = g[k], buf, mk, vk, pk;                                    \
            buf = gk - m[k];                                                 \
            buf = buf * b1;                                                  \
            mk = m[k] + buf;                                                 \
            m[k] = mk;                                                       \
            buf = gk * gk;                                                   \
            buf = buf - v[k];                                                \
            buf = buf * b2;                                                  \
            vk = v[k] + buf;                                                 \
            v[k] = vk;                                                       \
            buf = SQRT_##T(vk);                                              \
            buf = buf + e;                                                   \
            buf = a / buf;                                                   \
            buf = buf * mk;                                                  \
            if (scale_by_eta)                                                \
                buf = buf * et;                                              \
            pk = p[k];                                                       \
            if (apply_decay)                                                 \
                pk = pk * keep;                                              \
            p[k] = pk - buf;                                                 \
        }                                                                    \
    }
#define SQRT_float sqrtf
#define SQRT_double sqrt

static PyObject *adam(PyObject *self, PyObject *args)
{
    PyObject *arrays[4];
    double one_minus_beta1, one_minus_beta2, alpha_t, eps, eta, decay;
    int type = 0, scale_by_eta, apply_decay;
    npy_intp size = 0;
    NPY_BEGIN_THREADS_DEF;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOdddddd:adam", &arrays[0], &arrays[1], &arrays[2],
                          &arrays[3], &one_minus_beta1, &one_minus_beta2, &alpha_t, &eps,
                          &eta, &decay))
        return NULL;
    if (!eligible(arrays, 4, 3, &type, &size))
        Py_RETURN_FALSE;
    scale_by_eta = eta != 1.0;
    apply_decay = decay != 1.0;
    NPY_BEGIN_THREADS_THRESHOLDED(size);
    if (type == NPY_FLOAT32)
        ADAM_LOOP(float)
    else
        ADAM_LOOP(double)
    NPY_END_THREADS;
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"sgd", sgd, METH_VARARGS,
     "sgd(param, grad, lr): param -= lr * grad; False when the arrays do not qualify."},
    {"momentum_sgd", momentum_sgd, METH_VARARGS,
     "momentum_sgd(param, velocity, grad, lr, momentum): velocity = momentum * velocity - "
     "lr * grad; param += velocity; False when the arrays do not qualify."},
    {"adam", adam, METH_VARARGS,
     "adam(param, m, v, grad, 1 - beta1, 1 - beta2, alpha_t, eps, eta, 1 - eta * "
     "weight_decay_rate): one Adam step; False when the arrays do not qualify."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "catena._cupdate",
    "One-pass update steps for the common optimizers on CPU.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cupdate(void)
{
    import_array();
    return PyModule_Create(&module);
}

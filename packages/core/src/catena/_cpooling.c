/*
 * catena._cpooling: the gradient of 2-D max pooling on CPU, in one pass.
 *
 * The NumPy code scatters the output gradient tap by tap, two passes over
 * the output per tap. Here each output adds its gradient to the pixel its
 * tap read (the forward pass stays NumPy's: its tap-by-tap maxima are
 * vectorized and beat a per-window loop).
 *
 * Arrays: gx and gy float32 or float64 of one dtype, (n, c, h, w) and
 * (n, c, out_h, out_w), C-contiguous; the indexes int8, int16 or int32 of
 * gy's shape. Anything else raises TypeError; catena.functions.pooling.
 * _window checks before calling and otherwise runs its NumPy code.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

typedef struct {
    npy_intp planes, h, w, out_h, out_w;
    int kh, kw, sy, sx, ph, pw;
} Geometry;

/* Checks one array; only a written one (`writable`) must be writable. */
static int check(PyObject *o, const char *name, int floating, int writable,
                 PyArrayObject **out)
{
    PyArrayObject *a = (PyArrayObject *)o;
    int type;
    if (Py_TYPE(o) != &PyArray_Type || PyArray_NDIM(a) != 4 || !PyArray_ISCARRAY_RO(a)
            || !PyArray_ISNOTSWAPPED(a) || (writable && !PyArray_ISWRITEABLE(a))) {
        PyErr_Format(PyExc_TypeError, "%s must be a%s C-contiguous 4-d ndarray", name,
                     writable ? " writable" : "");
        return -1;
    }
    type = PyArray_TYPE(a);
    if (floating ? (type != NPY_FLOAT32 && type != NPY_FLOAT64)
                 : (type != NPY_INT8 && type != NPY_INT16 && type != NPY_INT32)) {
        PyErr_Format(PyExc_TypeError, "%s must be %s", name,
                     floating ? "float32 or float64" : "int8, int16 or int32");
        return -1;
    }
    *out = a;
    return 0;
}

/* Checks that (image, pooled, indexes) agree; fills the geometry's sizes. */
static int agree(PyArrayObject *image, PyArrayObject *pooled, PyArrayObject *indexes,
                 Geometry *g)
{
    if (PyArray_TYPE(image) != PyArray_TYPE(pooled)
            || PyArray_DIM(image, 0) != PyArray_DIM(pooled, 0)
            || PyArray_DIM(image, 1) != PyArray_DIM(pooled, 1)
            || !PyArray_SAMESHAPE(indexes, pooled)) {
        PyErr_SetString(PyExc_TypeError, "the arrays' shapes or dtypes do not agree");
        return -1;
    }
    if (g->kh <= 0 || g->kw <= 0 || g->sy <= 0 || g->sx <= 0 || g->ph < 0 || g->pw < 0) {
        PyErr_SetString(PyExc_ValueError, "ksize and stride must be positive, pad >= 0");
        return -1;
    }
    g->planes = PyArray_DIM(image, 0) * PyArray_DIM(image, 1);
    g->h = PyArray_DIM(image, 2);
    g->w = PyArray_DIM(image, 3);
    g->out_h = PyArray_DIM(pooled, 2);
    g->out_w = PyArray_DIM(pooled, 3);
    return 0;
}

#define BY_INDEX_TYPE(MACRO, T, type)                                        \
    switch (type) {                                                          \
    case NPY_INT8: MACRO(T, npy_int8) break;                                 \
    case NPY_INT16: MACRO(T, npy_int16) break;                               \
    default: MACRO(T, npy_int32) break;                                      \
    }

#define MAX_POOL_GRAD(T, I)                                                  \
    for (npy_intp p = 0; p < g.planes; p++) {                                \
        T *plane = (T *)PyArray_DATA(gx) + p * g.h * g.w;                    \
        const T *grad = (const T *)PyArray_DATA(gy) + p * g.out_h * g.out_w; \
        const I *taps = (const I *)PyArray_DATA(idx) + p * g.out_h * g.out_w; \
        for (npy_intp oy = 0; oy < g.out_h; oy++)                            \
            for (npy_intp ox = 0; ox < g.out_w; ox++) {                      \
                int tap = taps[oy * g.out_w + ox];                           \
                npy_intp iy = oy * g.sy - g.ph + tap / g.kw;                 \
                npy_intp ix = ox * g.sx - g.pw + tap % g.kw;                 \
                if (tap >= 0 && tap < g.kh * g.kw && iy >= 0 && iy < g.h     \
                        && ix >= 0 && ix < g.w)                              \
                    plane[iy * g.w + ix] += grad[oy * g.out_w + ox];         \
            }                                                                \
    }

/*
 * max_pool_2d_grad(gy, indexes, gx, kh, kw, sy, sx, ph, pw): adds gy into gx
 * (zeros) at the pixel each tap read; taps outside the window or the image
 * add nothing.
 */
static PyObject *max_pool_2d_grad(PyObject *self, PyObject *args)
{
    PyObject *gy_object, *idx_object, *gx_object;
    PyArrayObject *gy, *idx, *gx;
    Geometry g;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOiiiiii:max_pool_2d_grad", &gy_object, &idx_object,
                          &gx_object, &g.kh, &g.kw, &g.sy, &g.sx, &g.ph, &g.pw)
            || check(gy_object, "gy", 1, 0, &gy) < 0
            || check(idx_object, "indexes", 0, 0, &idx) < 0
            || check(gx_object, "gx", 1, 1, &gx) < 0 || agree(gx, gy, idx, &g) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (PyArray_TYPE(gx) == NPY_FLOAT32) {
        BY_INDEX_TYPE(MAX_POOL_GRAD, float, PyArray_TYPE(idx))
    } else {
        BY_INDEX_TYPE(MAX_POOL_GRAD, double, PyArray_TYPE(idx))
    }
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"max_pool_2d_grad", max_pool_2d_grad, METH_VARARGS,
     "max_pool_2d_grad(gy, indexes, gx, kh, kw, sy, sx, ph, pw): adds each gy to the "
     "pixel its tap read, in gx."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "catena._cpooling",
    "The gradient of 2-D max pooling on CPU, in one pass.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cpooling(void)
{
    import_array();
    return PyModule_Create(&module);
}

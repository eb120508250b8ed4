/*
 * catena._cengine: the compiled engine, FunctionNode.apply's common path in C.
 *
 * It works on catena's own Python classes (Variable, VariableNode,
 * FunctionNode): subclassing, mocking and pickling behave as with the
 * pure-Python engine. catena._engine installs it; CATENA_ENGINE=python turns
 * it off. Whatever the common path does not cover (hooks, debug mode, inputs
 * that are neither Variables nor NumPy arrays, a non-tuple input sequence)
 * goes to the Python apply before anything has run, so both engines agree.
 *
 * Variable's and VariableNode's attributes are __slots__: the engine reads
 * and writes them at the offsets their member descriptors declare.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
/* Only the array struct's fields are read (no NumPy C-API call), so the
 * module does not call import_array and works with NumPy 1.26 and 2.x. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarraytypes.h>

/* What install() is given. */
static PyTypeObject *variable_type;
static PyTypeObject *node_type;
static PyTypeObject *ndarray_type;
static PyObject *flags;          /* catena.configuration.flags (thread-local) */
static PyObject *hooks_globals;  /* catena._function_hooks.__dict__ */
static PyObject *registry_globals;  /* catena.backends._registry.__dict__ */
static PyObject *python_apply;   /* the pure-Python FunctionNode.apply */
static PyObject *dead_reference; /* catena.variable_node._dead_reference */
static PyObject *fallback;       /* catena.Fallback */
/* catena._quick_types' tests, which the engine runs in C when a class names them. */
static PyObject *quick_same, *quick_same_float, *quick_one_float;

/* Slot offsets of Variable. */
static Py_ssize_t var_data, var_vnode, var_grad_var, var_requires_grad, var_name,
    var_loss_scale;
/* Slot offsets of VariableNode. */
static Py_ssize_t node_variable, node_creator, node_data, node_name, node_rank,
    node_requires_grad, node_old_style, node_shape, node_dtype;

static PyObject *s_debug, *s_type_check, *s_enable_backprop, *s_n_registered,
    *s_local_function_hooks, *s_kernel_node_classes, *s_accepts_types,
    *s_check_type_forward, *s_checks_types, *s_check_same_device, *s_check_types,
    *s_forward, *s_forward_with_kernel, *s_check_output_types, *s_label, *s_rank,
    *s_inputs, *s_outputs, *s_input_retain, *s_output_retain, *s_retained_output_data,
    *s_node, *s_shape, *s_dtype, *s_kernels, *s_config_key, *s_auto,
    *s_never, *s_size, *s_auto_min_size, *s_kernel_wanted, *s_dict, *s_apply,
    *s_backward_accumulate, *s_backward, *s_targets_only, *s_pop, *s_creator_node,
    *s_requires_grad_slot, *s_default_backward_accumulate;

#define SLOT(obj, offset) (*(PyObject **)((char *)(obj) + (offset)))

/* Stores a new reference to value in a slot, releasing the old one. */
static inline void
set_slot(PyObject *obj, Py_ssize_t offset, PyObject *value)
{
    PyObject *old = SLOT(obj, offset);
    Py_INCREF(value);
    SLOT(obj, offset) = value;
    Py_XDECREF(old);
}

static inline int
truth(PyObject *value)
{
    return value == Py_True ? 1 : value == Py_False || value == Py_None ? 0
                                                                         : PyObject_IsTrue(value);
}

/* The truth of a new reference, which it releases; -1 when value is NULL (an error). */
static int
consume_truth(PyObject *value)
{
    if (value == NULL) {
        return -1;
    }
    int result = truth(value);
    Py_DECREF(value);
    return result;
}

static int
slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *offset)
{
    PyObject *descr = PyDict_GetItemString(type->tp_dict, name);
    if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a __slots__ member", type->tp_name, name);
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX || (member->flags & READONLY)) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a writable object slot", type->tp_name,
                     name);
        return -1;
    }
    *offset = member->offset;
    return 0;
}

/* The calling thread's __dict__ of flags, and which thread that is. */
static PyObject *flags_dict;
static uint64_t flags_thread = UINT64_MAX;

/* flags.<name> (a new reference): the calling thread's value, else the global one.
 * Reading the thread-local object's dict once per thread is much cheaper than
 * a getattr on it per read. */
static PyObject *
flag_value(PyObject *name)
{
    uint64_t thread = PyThreadState_GetID(PyThreadState_Get());
    if (thread != flags_thread || flags_dict == NULL) {
        PyObject *dict = PyObject_GetAttr(flags, s_dict);
        if (dict == NULL) {
            return NULL;
        }
        if (!PyDict_Check(dict)) {
            Py_DECREF(dict);
            return PyObject_GetAttr(flags, name);
        }
        Py_XSETREF(flags_dict, dict);
        flags_thread = thread;
    }
    PyObject *value = PyDict_GetItemWithError(flags_dict, name);
    if (value == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        value = _PyType_Lookup(Py_TYPE(flags), name);
        if (value == NULL) {
            return PyObject_GetAttr(flags, name);  /* raises what Python would */
        }
    }
    return Py_NewRef(value);
}

/* Truth of a flag read from the thread-local configuration; -1 on error. */
static int
flag(PyObject *name)
{
    return consume_truth(flag_value(name));
}

/* self.<name> (a new reference), found as Python's generic getattr finds it,
 * given self's instance dict: a data descriptor of the class, else the
 * instance's value, else the class attribute (bound if a descriptor). */
static PyObject *
node_attr(PyObject *self, PyObject *dict, PyObject *name)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject *found = _PyType_Lookup(type, name);
    descrgetfunc get = found == NULL ? NULL : Py_TYPE(found)->tp_descr_get;
    if (get == NULL || Py_TYPE(found)->tp_descr_set == NULL) {
        PyObject *own = PyDict_GetItemWithError(dict, name);
        if (own != NULL) {
            return Py_NewRef(own);
        }
        if (PyErr_Occurred()) {
            return NULL;
        }
    }
    if (found == NULL) {
        return PyObject_GetAttr(self, name);  /* __getattr__, or the AttributeError */
    }
    return get == NULL ? Py_NewRef(found) : get(found, self, (PyObject *)type);
}

/* 1 when the node has a function hook to call (global or local), else 0; -1 on error. */
static int
has_hooks(PyObject *self, PyObject *dict)
{
    PyObject *count = PyDict_GetItemWithError(hooks_globals, s_n_registered);
    if (count == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "catena._function_hooks.n_registered is gone");
        }
        return -1;
    }
    int registered = truth(count);
    if (registered != 0) {
        return registered;
    }
    return consume_truth(node_attr(self, dict, s_local_function_hooks));
}

/* 1 when a and b are NumPy arrays of one dtype (the same object) and one shape. */
static int
same_arrays(PyObject *a, PyObject *b, int float_only)
{
    if (Py_TYPE(a) != ndarray_type || Py_TYPE(b) != ndarray_type) {
        return 0;
    }
    PyArrayObject *lhs = (PyArrayObject *)a, *rhs = (PyArrayObject *)b;
    PyArray_Descr *dtype = PyArray_DESCR(lhs);
    int ndim = PyArray_NDIM(lhs);
    return dtype == PyArray_DESCR(rhs) && (!float_only || dtype->kind == 'f') &&
           ndim == PyArray_NDIM(rhs) &&
           memcmp(PyArray_DIMS(lhs), PyArray_DIMS(rhs), ndim * sizeof(npy_intp)) == 0;
}

/* Runs a class's quick type test: in C when it is one of catena._quick_types'. */
static int
quick_test(PyObject *accepts, PyObject *in_data)
{
    Py_ssize_t n = PyTuple_GET_SIZE(in_data);
    if (accepts == quick_same || accepts == quick_same_float) {
        return n == 2 && same_arrays(PyTuple_GET_ITEM(in_data, 0), PyTuple_GET_ITEM(in_data, 1),
                                     accepts == quick_same_float);
    }
    if (accepts == quick_one_float) {
        PyObject *x = n == 1 ? PyTuple_GET_ITEM(in_data, 0) : NULL;
        return x != NULL && Py_TYPE(x) == ndarray_type &&
               PyArray_DESCR((PyArrayObject *)x)->kind == 'f';
    }
    return consume_truth(PyObject_CallOneArg(accepts, in_data));
}

/* The checks apply() makes before forward: devices, then check_type_forward. */
static int
check_inputs(PyObject *self, PyObject *dict, PyObject *in_data)
{
    int type_check = flag(s_type_check);
    if (type_check < 0) {
        return -1;
    }
    /* Whether the instance itself holds check_type_forward (a test patched it). */
    int overridden = PyDict_Contains(dict, s_check_type_forward);
    if (overridden < 0) {
        return -1;
    }
    PyObject *accepts = node_attr(self, dict, s_accepts_types);
    if (accepts == NULL) {
        return -1;
    }
    if (accepts != Py_None && type_check) {
        int accepted = quick_test(accepts, in_data);
        Py_DECREF(accepts);
        if (accepted < 0) {
            return -1;
        }
        if (accepted && !overridden) {
            return 0;  /* the quick test vouches for every check */
        }
    }
    else {
        Py_DECREF(accepts);
    }

    Py_ssize_t n = PyTuple_GET_SIZE(in_data);
    if (n > 1) {
        PyTypeObject *first = Py_TYPE(PyTuple_GET_ITEM(in_data, 0));
        for (Py_ssize_t i = 1; i < n; i++) {
            if (Py_TYPE(PyTuple_GET_ITEM(in_data, i)) != first) {
                PyObject *done = PyObject_CallMethodOneArg(self, s_check_same_device, in_data);
                if (done == NULL) {
                    return -1;
                }
                Py_DECREF(done);
                break;
            }
        }
    }
    if (!type_check) {
        return 0;
    }
    int checks_types = consume_truth(node_attr(self, dict, s_checks_types));
    if (checks_types < 0) {
        return -1;
    }
    if (!checks_types && !overridden) {
        return 0;
    }
    PyObject *done = PyObject_CallMethodOneArg(self, s_check_types, in_data);
    if (done == NULL) {
        return -1;
    }
    Py_DECREF(done);
    return 0;
}

/* What the engine needs of the kernel registered for a (node class, array
 * class) pair, cached by the pair and the registry's table: the registry
 * replaces its tables when the plugins change, it never edits them. */
typedef struct {
    PyObject *table, *node_class, *array_class;  /* the key */
    PyObject *kernel;                            /* NULL: none for the pair */
    PyObject *config_key, *forward;
    double auto_min_size;
} KernelEntry;

#define KERNEL_CACHE_SIZE 64
static KernelEntry kernel_cache[KERNEL_CACHE_SIZE];

static void
clear_entry(KernelEntry *entry)
{
    Py_CLEAR(entry->table);
    Py_CLEAR(entry->node_class);
    Py_CLEAR(entry->array_class);
    Py_CLEAR(entry->kernel);
    Py_CLEAR(entry->config_key);
    Py_CLEAR(entry->forward);
}

static KernelEntry *
kernel_entry(PyObject *table, PyObject *node_class, PyObject *array_class)
{
    size_t slot = (((uintptr_t)node_class >> 4) ^ ((uintptr_t)array_class >> 7)) %
                  KERNEL_CACHE_SIZE;
    KernelEntry *entry = &kernel_cache[slot];
    if (entry->table == table && entry->node_class == node_class &&
        entry->array_class == array_class) {
        return entry;
    }
    PyObject *key = PyTuple_Pack(2, node_class, array_class);
    if (key == NULL) {
        return NULL;
    }
    PyObject *kernel = PyDict_GetItemWithError(table, key);
    Py_DECREF(key);
    if (kernel == NULL && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *config_key = NULL, *forward = NULL;
    double least = 0;
    if (kernel != NULL) {
        config_key = PyObject_GetAttr(kernel, s_config_key);
        forward = config_key == NULL ? NULL : PyObject_GetAttr(kernel, s_forward);
        PyObject *size = forward == NULL ? NULL : PyObject_GetAttr(kernel, s_auto_min_size);
        least = size == NULL ? -1 : PyFloat_AsDouble(size);
        Py_XDECREF(size);
        if (least == -1 && PyErr_Occurred()) {
            Py_XDECREF(config_key);
            Py_XDECREF(forward);
            return NULL;
        }
    }
    clear_entry(entry);
    entry->table = Py_NewRef(table);
    entry->node_class = Py_NewRef(node_class);
    entry->array_class = Py_NewRef(array_class);
    entry->kernel = Py_XNewRef(kernel);
    entry->config_key = config_key;
    entry->forward = forward;
    entry->auto_min_size = least;
    return entry;
}

/* The number of elements of an array, as its size attribute says; -1 on error. */
static double
array_size(PyObject *array)
{
    if (Py_TYPE(array) == ndarray_type) {
        PyArrayObject *x = (PyArrayObject *)array;
        double size = 1;
        for (int i = 0; i < PyArray_NDIM(x); i++) {
            size *= (double)PyArray_DIMS(x)[i];
        }
        return size;
    }
    PyObject *size = PyObject_GetAttr(array, s_size);
    if (size == NULL) {
        return -1;
    }
    double value = PyFloat_AsDouble(size);
    Py_DECREF(size);
    return value;
}

/* FunctionNode._kernel_wanted: whether the kernel's level lets it run on first; -1 on error. */
static int
kernel_wanted(PyObject *self, KernelEntry *entry, PyObject *first)
{
    if (entry->config_key == Py_None) {
        return 1;
    }
    PyObject *level = flag_value(entry->config_key);
    if (level == NULL || !PyUnicode_Check(level)) {
        /* A key no code has defined yet, or an odd value: as the Python code does. */
        Py_XDECREF(level);
        PyErr_Clear();
        return consume_truth(
            PyObject_CallMethodObjArgs(self, s_kernel_wanted, entry->kernel, first, NULL));
    }
    int wanted;
    if (PyUnicode_Compare(level, s_auto) == 0) {
        double size = array_size(first);
        wanted = size == -1 && PyErr_Occurred() ? -1 : size >= entry->auto_min_size;
    }
    else {
        wanted = PyUnicode_Compare(level, s_never) != 0;
    }
    Py_DECREF(level);
    return wanted;
}

/* FunctionNode._forward_with_kernel: the registered kernel, unless it is not
 * wanted or declines; then the generic forward. */
static PyObject *
forward_with_kernel(PyObject *self, PyObject *in_data)
{
    PyObject *table = PyDict_GetItemWithError(registry_globals, s_kernels);
    if (table == NULL || !PyDict_CheckExact(table)) {
        return PyErr_Occurred()
                   ? NULL
                   : PyObject_CallMethodOneArg(self, s_forward_with_kernel, in_data);
    }
    PyObject *first = PyTuple_GET_ITEM(in_data, 0);
    KernelEntry *entry =
        kernel_entry(table, (PyObject *)Py_TYPE(self), (PyObject *)Py_TYPE(first));
    if (entry == NULL) {
        return NULL;
    }
    if (entry->kernel != NULL) {
        int wanted = kernel_wanted(self, entry, first);
        if (wanted < 0) {
            return NULL;
        }
        if (wanted) {
            PyObject *forward = Py_NewRef(entry->forward);  /* the call may refill the entry */
            PyObject *outputs = PyObject_CallFunctionObjArgs(forward, self, in_data, NULL);
            Py_DECREF(forward);
            if (outputs != fallback) {
                return outputs;
            }
            Py_DECREF(outputs);
            if (PyObject_SetAttr(self, s_input_retain, Py_None) < 0 ||
                PyObject_SetAttr(self, s_output_retain, Py_None) < 0) {
                return NULL;
            }
        }
    }
    return PyObject_CallMethodOneArg(self, s_forward, in_data);
}

static PyObject *
run_forward(PyObject *self, PyObject *in_data)
{
    int has_kernel = 0;
    if (PyTuple_GET_SIZE(in_data) > 0) {
        PyObject *classes =
            PyDict_GetItemWithError(registry_globals, s_kernel_node_classes);
        if (classes == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_RuntimeError,
                                "catena.backends._registry.kernel_node_classes is gone");
            }
            return NULL;
        }
        has_kernel = PySequence_Contains(classes, (PyObject *)Py_TYPE(self));
        if (has_kernel < 0) {
            return NULL;
        }
    }
    PyObject *outputs = has_kernel ? forward_with_kernel(self, in_data)
                                   : PyObject_CallMethodOneArg(self, s_forward, in_data);
    if (outputs == NULL) {
        return NULL;
    }
    if (!PyTuple_CheckExact(outputs)) {
        PyObject *label = PyObject_GetAttr(self, s_label);
        if (label != NULL) {
            PyErr_Format(PyExc_TypeError, "forward output must be a tuple (%S)\nActual: %S",
                         label, (PyObject *)Py_TYPE(outputs));
            Py_DECREF(label);
        }
        Py_DECREF(outputs);
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(outputs);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (Py_TYPE(PyTuple_GET_ITEM(outputs, i)) != ndarray_type) {
            PyObject *done = PyObject_CallMethodOneArg(self, s_check_output_types, outputs);
            if (done == NULL) {
                Py_DECREF(outputs);
                return NULL;
            }
            Py_DECREF(done);
            break;
        }
    }
    return outputs;
}

static PyObject *
new_variable(PyObject *array, PyObject *requires_grad)
{
    PyObject *variable = variable_type->tp_alloc(variable_type, 0);
    if (variable == NULL) {
        return NULL;
    }
    SLOT(variable, var_data) = Py_NewRef(array);
    SLOT(variable, var_vnode) = Py_NewRef(Py_None);
    SLOT(variable, var_grad_var) = Py_NewRef(Py_None);
    SLOT(variable, var_requires_grad) = Py_NewRef(requires_grad);
    SLOT(variable, var_name) = Py_NewRef(Py_None);
    SLOT(variable, var_loss_scale) = Py_NewRef(Py_None);
    return variable;
}

/* catena.variable_node._bare_node in C. */
static PyObject *
new_node(PyObject *variable_ref, PyObject *creator, PyObject *rank, PyObject *requires_grad,
         PyObject *array)
{
    PyObject *shape = Py_None, *dtype = Py_None;
    if (array != Py_None) {
        shape = PyObject_GetAttr(array, s_shape);
        if (shape == NULL) {
            return NULL;
        }
        dtype = PyObject_GetAttr(array, s_dtype);
        if (dtype == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
    }
    else {
        Py_INCREF(shape);
        Py_INCREF(dtype);
    }
    PyObject *node = node_type->tp_alloc(node_type, 0);
    if (node == NULL) {
        Py_DECREF(shape);
        Py_DECREF(dtype);
        return NULL;
    }
    SLOT(node, node_variable) = Py_NewRef(variable_ref);
    SLOT(node, node_creator) = Py_NewRef(creator);
    SLOT(node, node_data) = Py_NewRef(Py_None);
    SLOT(node, node_name) = Py_NewRef(Py_None);
    SLOT(node, node_rank) = Py_NewRef(rank);
    SLOT(node, node_requires_grad) = Py_NewRef(requires_grad);
    SLOT(node, node_old_style) = Py_NewRef(Py_None);
    SLOT(node, node_shape) = shape;
    SLOT(node, node_dtype) = dtype;
    return node;
}

/* The node of an input: its variable's (built on first use), or a constant's. */
static PyObject *
input_node(PyObject *x)
{
    if (Py_TYPE(x) == ndarray_type) {
        static PyObject *zero;
        if (zero == NULL) {
            zero = PyLong_FromLong(0);
        }
        return new_node(dead_reference, Py_None, zero, Py_False, x);
    }
    PyObject *node = SLOT(x, var_vnode);
    if (node != NULL && node != Py_None) {
        return Py_NewRef(node);
    }
    return PyObject_GetAttr(x, s_node);
}

/* Keeps the arrays that forward asked to retain in the nodes. */
static int
retain(PyObject *self, PyObject *dict, PyObject *nodes, PyObject *in_data, PyObject *ret,
       PyObject *outputs)
{
    PyObject *indexes = node_attr(self, dict, s_input_retain);
    if (indexes == NULL) {
        return -1;
    }
    if (indexes != Py_None) {
        PyObject *fast = PySequence_Fast(indexes, "retained input indexes must be a sequence");
        Py_DECREF(indexes);
        if (fast == NULL) {
            return -1;
        }
        Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
        for (Py_ssize_t k = 0; k < count; k++) {
            PyObject *index = PySequence_Fast_GET_ITEM(fast, k);
            PyObject *node = PyObject_GetItem(nodes, index);
            PyObject *array = node == NULL ? NULL : PyObject_GetItem(in_data, index);
            if (array == NULL) {
                Py_XDECREF(node);
                Py_DECREF(fast);
                return -1;
            }
            set_slot(node, node_data, array);
            Py_DECREF(array);
            Py_DECREF(node);
        }
        Py_DECREF(fast);
    }
    else {
        Py_DECREF(indexes);
    }

    indexes = node_attr(self, dict, s_output_retain);
    if (indexes == NULL) {
        return -1;
    }
    if (indexes == Py_None) {
        Py_DECREF(indexes);
        return 0;
    }
    PyObject *fast = PySequence_Fast(indexes, "retained output indexes must be a sequence");
    Py_DECREF(indexes);
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    PyObject *kept = PyTuple_New(count);
    if (kept == NULL) {
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *index = PySequence_Fast_GET_ITEM(fast, k);
        PyObject *array = PyObject_GetItem(outputs, index);
        if (array == NULL) {
            goto error;
        }
        PyTuple_SET_ITEM(kept, k, array);
    }
    if (PyObject_SetAttr(self, s_retained_output_data, kept) < 0) {
        goto error;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *variable = PyObject_GetItem(ret, PySequence_Fast_GET_ITEM(fast, k));
        if (variable == NULL) {
            goto error;
        }
        PyObject *node = SLOT(variable, var_vnode);
        set_slot(node, node_data, PyTuple_GET_ITEM(kept, k));
        Py_DECREF(variable);
    }
    Py_DECREF(kept);
    Py_DECREF(fast);
    return 0;
error:
    Py_DECREF(kept);
    Py_DECREF(fast);
    return -1;
}

/* FunctionNode._record: wires self into the graph between inputs and ret. */
static int
record(PyObject *self, PyObject *dict, PyObject *inputs, PyObject *ret, PyObject *in_data,
       PyObject *outputs)
{
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    PyObject *nodes = PyTuple_New(n);
    if (nodes == NULL) {
        return -1;
    }
    long rank = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *node = input_node(PyTuple_GET_ITEM(inputs, i));
        if (node == NULL) {
            Py_DECREF(nodes);
            return -1;
        }
        PyTuple_SET_ITEM(nodes, i, node);
        PyObject *node_rank_value = SLOT(node, node_rank);
        long r = node_rank_value == NULL ? 0 : PyLong_AsLong(node_rank_value);
        if (r == -1 && PyErr_Occurred()) {
            Py_DECREF(nodes);
            return -1;
        }
        if (r > rank) {
            rank = r;
        }
    }
    PyObject *own_rank = PyLong_FromLong(rank);
    PyObject *out_rank = PyLong_FromLong(rank + 1);
    Py_ssize_t n_out = PyTuple_GET_SIZE(ret);
    PyObject *refs = PyTuple_New(n_out);
    if (own_rank == NULL || out_rank == NULL || refs == NULL ||
        PyObject_SetAttr(self, s_rank, own_rank) < 0 ||
        PyObject_SetAttr(self, s_inputs, nodes) < 0) {
        goto error;
    }
    for (Py_ssize_t i = 0; i < n_out; i++) {
        PyObject *y = PyTuple_GET_ITEM(ret, i);
        PyObject *y_ref = PyWeakref_NewRef(y, NULL);
        if (y_ref == NULL) {
            goto error;
        }
        PyObject *node = new_node(y_ref, self, out_rank, SLOT(y, var_requires_grad),
                                  PyTuple_GET_ITEM(outputs, i));
        Py_DECREF(y_ref);
        if (node == NULL) {
            goto error;
        }
        set_slot(y, var_vnode, node);
        PyObject *node_ref = PyWeakref_NewRef(node, NULL);
        Py_DECREF(node);
        if (node_ref == NULL) {
            goto error;
        }
        PyTuple_SET_ITEM(refs, i, node_ref);
    }
    if (PyObject_SetAttr(self, s_outputs, refs) < 0 ||
        retain(self, dict, nodes, in_data, ret, outputs) < 0) {
        goto error;
    }
    Py_DECREF(own_rank);
    Py_DECREF(out_rank);
    Py_DECREF(refs);
    Py_DECREF(nodes);
    return 0;
error:
    Py_XDECREF(own_rank);
    Py_XDECREF(out_rank);
    Py_XDECREF(refs);
    Py_DECREF(nodes);
    return -1;
}

static PyObject *
call_python_apply(PyObject *self, PyObject *inputs)
{
    return PyObject_CallFunctionObjArgs(python_apply, self, inputs, NULL);
}

static PyObject *apply_descriptor;  /* what install() put on FunctionNode as apply */

static PyObject *
apply(PyObject *self, PyObject *inputs)
{
    if (variable_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "catena._cengine is not installed");
        return NULL;
    }
    if (!PyTuple_CheckExact(inputs)) {
        return call_python_apply(self, inputs);
    }
    int debug = flag(s_debug);
    if (debug != 0) {
        return debug < 0 ? NULL : call_python_apply(self, inputs);
    }
    PyObject *dict = PyObject_GenericGetDict(self, NULL);
    if (dict == NULL) {
        return NULL;
    }
    int hooked = has_hooks(self, dict);
    if (hooked != 0) {
        Py_DECREF(dict);
        return hooked < 0 ? NULL : call_python_apply(self, inputs);
    }

    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    int requires_grad = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(inputs, i);
        if (Py_TYPE(x) == ndarray_type) {
            continue;
        }
        if (!PyObject_TypeCheck(x, variable_type) || SLOT(x, var_data) == NULL) {
            Py_DECREF(dict);
            return call_python_apply(self, inputs);
        }
        PyObject *wanted = SLOT(x, var_requires_grad);
        int yes = wanted == NULL ? 0 : truth(wanted);
        if (yes < 0) {
            Py_DECREF(dict);
            return NULL;
        }
        requires_grad |= yes;
    }
    PyObject *in_data = PyTuple_New(n);
    if (in_data == NULL) {
        Py_DECREF(dict);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(inputs, i);
        PyTuple_SET_ITEM(in_data, i, Py_NewRef(Py_TYPE(x) == ndarray_type ? x : SLOT(x, var_data)));
    }

    PyObject *outputs = NULL, *ret = NULL;
    if (check_inputs(self, dict, in_data) < 0) {
        goto error;
    }
    outputs = run_forward(self, in_data);
    if (outputs == NULL) {
        goto error;
    }
    Py_ssize_t n_out = PyTuple_GET_SIZE(outputs);
    ret = PyTuple_New(n_out);
    if (ret == NULL) {
        goto error;
    }
    PyObject *wanted = requires_grad ? Py_True : Py_False;
    for (Py_ssize_t i = 0; i < n_out; i++) {
        PyObject *y = new_variable(PyTuple_GET_ITEM(outputs, i), wanted);
        if (y == NULL) {
            goto error;
        }
        PyTuple_SET_ITEM(ret, i, y);
    }
    if (requires_grad) {
        int recording = flag(s_enable_backprop);
        if (recording < 0 || (recording && record(self, dict, inputs, ret, in_data, outputs) < 0)) {
            goto error;
        }
    }
    Py_DECREF(dict);
    Py_DECREF(in_data);
    Py_DECREF(outputs);
    return ret;
error:
    Py_DECREF(dict);
    Py_DECREF(in_data);
    Py_XDECREF(outputs);
    Py_XDECREF(ret);
    return NULL;
}

/* The + and * of two Variables, or of a Variable and a NumPy array of its dtype:
 * the node class's apply, as catena.functions.math.basic_math's operators do;
 * every other operand goes to their Python code. */
typedef struct {
    PyObject *node_class;
    PyObject *fallback;
} Operator;

enum { OPERATOR_ADD, OPERATOR_MUL, N_OPERATORS };
static Operator operators[N_OPERATORS];

static PyObject *
binary_operator(PyObject *self, PyObject *other, Operator *op)
{
    if (op->node_class == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "catena._cengine operator is not installed");
        return NULL;
    }
    PyObject *array = SLOT(self, var_data);
    int fast = Py_TYPE(other) == variable_type ||
               (Py_TYPE(other) == ndarray_type && array != NULL &&
                Py_TYPE(array) == ndarray_type &&
                PyArray_DESCR((PyArrayObject *)other) == PyArray_DESCR((PyArrayObject *)array));
    if (!fast) {
        return PyObject_CallFunctionObjArgs(op->fallback, self, other, NULL);
    }
    PyObject *node = PyObject_CallNoArgs(op->node_class);
    if (node == NULL) {
        return NULL;
    }
    PyObject *inputs = PyTuple_Pack(2, self, other);
    PyObject *outputs = NULL;
    if (inputs != NULL) {
        /* The engine's own apply directly, unless the class has another one. */
        outputs = _PyType_Lookup(Py_TYPE(node), s_apply) == apply_descriptor
                      ? apply(node, inputs)
                      : PyObject_CallMethodOneArg(node, s_apply, inputs);
    }
    Py_DECREF(node);
    Py_XDECREF(inputs);
    if (outputs == NULL) {
        return NULL;
    }
    PyObject *y = PySequence_GetItem(outputs, 0);
    Py_DECREF(outputs);
    return y;
}

static PyObject *
add_operator(PyObject *self, PyObject *other)
{
    return binary_operator(self, other, &operators[OPERATOR_ADD]);
}

static PyObject *
mul_operator(PyObject *self, PyObject *other)
{
    return binary_operator(self, other, &operators[OPERATOR_MUL]);
}

static PyMethodDef operator_defs[N_OPERATORS] = {
    {"__add__", (PyCFunction)add_operator, METH_O, "Return self+value."},
    {"__mul__", (PyCFunction)mul_operator, METH_O, "Return self*value."},
};

static PyObject *
operator(PyObject *module, PyObject *args)
{
    const char *kind;
    PyObject *node_class, *python_operator;
    if (!PyArg_ParseTuple(args, "sO!O:operator", &kind, &PyType_Type, &node_class,
                          &python_operator)) {
        return NULL;
    }
    if (variable_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "catena._cengine is not installed");
        return NULL;
    }
    int index = strcmp(kind, "add") == 0 ? OPERATOR_ADD : strcmp(kind, "mul") == 0 ? OPERATOR_MUL : -1;
    if (index < 0) {
        PyErr_Format(PyExc_ValueError, "operator: kind must be 'add' or 'mul', got '%s'", kind);
        return NULL;
    }
    PyObject *descriptor = PyDescr_NewMethod(variable_type, &operator_defs[index]);
    if (descriptor == NULL) {
        return NULL;
    }
    Py_XSETREF(operators[index].node_class, Py_NewRef(node_class));
    Py_XSETREF(operators[index].fallback, Py_NewRef(python_operator));
    return descriptor;
}

static PyMethodDef propagate_def;

/* ------------------------------------------------------------- backprop */

static PyObject *backprop_globals;  /* catena._backprop.__dict__: helpers, found by name */
static PyObject *heappop, *heappush;

/* A helper of catena._backprop, called with the given arguments (a new reference). */
static PyObject *
call_helper(const char *name, PyObject *const *args, size_t n)
{
    PyObject *helper = PyDict_GetItemString(backprop_globals, name);
    if (helper == NULL) {
        PyErr_Format(PyExc_RuntimeError, "catena._backprop.%s is gone", name);
        return NULL;
    }
    Py_INCREF(helper);
    PyObject *result = PyObject_Vectorcall(helper, args, n, NULL);
    Py_DECREF(helper);
    return result;
}

/* What a weak reference points to (a new reference; None when it is dead). */
static PyObject *
dereference(PyObject *ref)
{
    if (!PyWeakref_CheckRef(ref)) {
        return PyObject_CallNoArgs(ref);
    }
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *target;
    if (PyWeakref_GetRef(ref, &target) < 0) {
        return NULL;
    }
    return target != NULL ? target : Py_NewRef(Py_None);
#else
    return Py_NewRef(PyWeakref_GetObject(ref));
#endif
}

/* grads.pop(node, None) (a new reference). */
static PyObject *
pop_gradient(PyObject *grads, PyObject *node)
{
    if (!PyDict_CheckExact(grads)) {
        return PyObject_CallMethodObjArgs(grads, s_pop, node, Py_None, NULL);
    }
    PyObject *gy = PyDict_GetItemWithError(grads, node);
    if (gy == NULL) {
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    }
    Py_INCREF(gy);
    if (PyDict_DelItem(grads, node) < 0) {
        Py_DECREF(gy);
        return NULL;
    }
    return gy;
}

/* The rank a FunctionNode was given when applied; -1 with an error set on failure. */
static long
function_rank(PyObject *func)
{
    PyObject *rank = PyObject_GetAttr(func, s_rank);
    if (rank == NULL) {
        return -1;
    }
    long value = PyLong_AsLong(rank);
    Py_DECREF(rank);
    return value;
}

/* Whether gx is a Variable whose array has the node's dtype (the same object)
 * and shape: then it needs no further check. */
static int
gradient_fits(PyObject *gx, PyObject *node)
{
    if (Py_TYPE(gx) != variable_type) {
        return 0;
    }
    PyObject *array = SLOT(gx, var_data);
    PyObject *shape = SLOT(node, node_shape);
    if (array == NULL || Py_TYPE(array) != ndarray_type || shape == NULL ||
        !PyTuple_CheckExact(shape) ||
        (PyObject *)PyArray_DESCR((PyArrayObject *)array) != SLOT(node, node_dtype)) {
        return 0;
    }
    int ndim = PyArray_NDIM((PyArrayObject *)array);
    if (ndim != PyTuple_GET_SIZE(shape)) {
        return 0;
    }
    npy_intp *dims = PyArray_DIMS((PyArrayObject *)array);
    for (int i = 0; i < ndim; i++) {
        PyObject *size = PyTuple_GET_ITEM(shape, i);
        if (!PyLong_CheckExact(size) || PyLong_AsSsize_t(size) != dims[i]) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* Adds the annotation of catena._backprop._backward_failed to the raised exception. */
static void
backward_failed(PyObject *func)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *error = PyErr_GetRaisedException();
#else
    PyObject *type, *error, *traceback;
    PyErr_Fetch(&type, &error, &traceback);
    PyErr_NormalizeException(&type, &error, &traceback);
    if (traceback != NULL) {
        PyException_SetTraceback(error, traceback);
    }
#endif
    if (PyObject_TypeCheck(error, (PyTypeObject *)PyExc_Exception)) {
        PyObject *args[2] = {error, func};
        PyObject *done = call_helper("_backward_failed", args, 2);
        if (done == NULL) {  /* the helper's own error replaces the first */
#if PY_VERSION_HEX >= 0x030C0000
            Py_DECREF(error);
#else
            Py_XDECREF(type);
            Py_XDECREF(error);
            Py_XDECREF(traceback);
#endif
            return;
        }
        Py_DECREF(done);
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(error);
#else
    PyErr_Restore(type, error, traceback);
#endif
}

/* The backward call of one function: gxs (a new reference, a sequence). */
static PyObject *
call_backward(PyObject *func, PyObject *indexes, PyObject *gys, PyObject *grads,
              PyObject *in_nodes, PyObject *default_accumulate)
{
    PyObject *dict = PyObject_GenericGetDict(func, NULL);
    if (dict == NULL) {
        return NULL;
    }
    int hooked = has_hooks(func, dict);
    Py_DECREF(dict);
    if (hooked < 0) {
        return NULL;
    }
    PyObject *accumulate = hooked ? NULL : _PyType_Lookup(Py_TYPE(func), s_backward_accumulate);
    if (hooked || accumulate != default_accumulate) {
        PyObject *args[5] = {func, indexes, gys, grads, in_nodes};
        return call_helper("_call_backward", args, 5);
    }
    PyObject *args[3] = {func, indexes, gys};
    PyObject *gxs = PyObject_VectorcallMethod(s_backward, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (gxs == NULL) {
        return NULL;
    }
    Py_ssize_t n = PyObject_Length(gxs);
    if (n < 0) {
        Py_DECREF(gxs);
        return NULL;
    }
    if (n != PyTuple_GET_SIZE(indexes)) {
        PyObject *targets = PyObject_CallMethodObjArgs(func, s_targets_only, indexes, gxs, NULL);
        Py_DECREF(gxs);
        return targets;
    }
    return gxs;
}

/* Queues creator for backward: as the next function when it has the highest
 * rank (kept out of the heap, so that a chain never touches it), else on the heap. */
static int
queue_creator(PyObject *creator, PyObject *heap, PyObject **ready, Py_ssize_t *order)
{
    long rank = function_rank(creator);
    if (rank == -1 && PyErr_Occurred()) {
        return -1;
    }
    PyObject *pushed = creator;
    long pushed_rank = rank;
    if (*ready == NULL) {
        int highest = PyList_GET_SIZE(heap) == 0;
        if (!highest) {
            PyObject *top = PyTuple_GET_ITEM(PyList_GET_ITEM(heap, 0), 0);
            long top_rank = PyLong_AsLong(top);
            if (top_rank == -1 && PyErr_Occurred()) {
                return -1;
            }
            highest = rank >= -top_rank;
        }
        if (highest) {
            *ready = Py_NewRef(creator);
            return 0;
        }
    }
    else {
        long ready_rank = function_rank(*ready);
        if (ready_rank == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (rank > ready_rank) {
            pushed = *ready;
            pushed_rank = ready_rank;
            *ready = Py_NewRef(creator);
        }
    }
    PyObject *entry = Py_BuildValue("(lnO)", -pushed_rank, *order, pushed);
    if (pushed != creator) {
        Py_DECREF(pushed);  /* the reference ready held */
    }
    if (entry == NULL) {
        return -1;
    }
    (*order)++;
    PyObject *args[2] = {heap, entry};
    PyObject *done = PyObject_Vectorcall(heappush, args, 2, NULL);
    Py_DECREF(entry);
    if (done == NULL) {
        return -1;
    }
    Py_DECREF(done);
    return 0;
}

/* Whether func created node (its creator_node); -1 on error. */
static int
creator_is(PyObject *node, PyObject *func)
{
    if (PyObject_TypeCheck(node, node_type)) {
        return SLOT(node, node_creator) == func;
    }
    PyObject *creator = PyObject_GetAttr(node, s_creator_node);
    if (creator == NULL) {
        return -1;
    }
    Py_DECREF(creator);
    return creator == func;
}

/* The gradients a function's outputs received: gys and the output nodes (new
 * references in *gys_out and *nodes_out), or 0 when none received one. */
static int
output_gradients(PyObject *func, PyObject *grads, PyObject *owned, PyObject **gys_out,
                 PyObject **nodes_out)
{
    PyObject *refs = PyObject_GetAttr(func, s_outputs);
    if (refs == NULL) {
        return -1;
    }
    PyObject *fast = PySequence_Fast(refs, "FunctionNode.outputs must be a sequence");
    Py_DECREF(refs);
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject *gys = PyTuple_New(n), *nodes = PyTuple_New(n);
    int any = 0;
    if (gys == NULL || nodes == NULL) {
        goto error;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *node = dereference(PySequence_Fast_GET_ITEM(fast, i));
        if (node == NULL) {
            goto error;
        }
        PyTuple_SET_ITEM(nodes, i, node);
        /* An output that was unchained no longer passes gradients to func. */
        int created = node != Py_None && creator_is(node, func);
        if (created < 0) {
            goto error;
        }
        PyObject *gy = created ? pop_gradient(grads, node) : NULL;
        if (created && gy == NULL) {
            goto error;
        }
        if (gy == NULL) {
            gy = Py_NewRef(Py_None);
        }
        else if (PySet_GET_SIZE(owned) > 0 && PySet_Discard(owned, node) < 0) {
            Py_DECREF(gy);
            goto error;
        }
        any |= gy != Py_None;
        PyTuple_SET_ITEM(gys, i, gy);
    }
    Py_DECREF(fast);
    if (!any) {
        Py_DECREF(gys);
        Py_DECREF(nodes);
        return 0;
    }
    *gys_out = gys;
    *nodes_out = nodes;
    return 1;
error:
    Py_DECREF(fast);
    Py_XDECREF(gys);
    Py_XDECREF(nodes);
    return -1;
}

/* The indexes of the inputs that need a gradient (a new tuple). */
static PyObject *
target_indexes(PyObject *in_nodes)
{
    Py_ssize_t n = PyTuple_GET_SIZE(in_nodes), count = 0;
    PyObject *indexes = PyTuple_New(n);
    if (indexes == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *node = PyTuple_GET_ITEM(in_nodes, i);
        int yes = consume_truth(PyObject_TypeCheck(node, node_type)
                                    ? Py_XNewRef(SLOT(node, node_requires_grad))
                                    : PyObject_GetAttr(node, s_requires_grad_slot));
        if (yes < 0) {
            Py_DECREF(indexes);
            return NULL;
        }
        if (yes) {
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL) {
                Py_DECREF(indexes);
                return NULL;
            }
            PyTuple_SET_ITEM(indexes, count++, index);
        }
    }
    if (count < n && _PyTuple_Resize(&indexes, count) < 0) {
        return NULL;
    }
    return indexes;
}

/* Adds gx to what reached node before; queues node's creator. */
static int
pass_gradient(PyObject *func, PyObject *index, PyObject *node, PyObject *gx, PyObject *grads,
              PyObject *owned, PyObject *queued, PyObject *heap, PyObject **ready,
              Py_ssize_t *order, int double_backprop)
{
    if (!gradient_fits(gx, node)) {
        PyObject *args[4] = {func, index, node, gx};
        PyObject *done = call_helper("_check_grad_matches", args, 4);
        if (done == NULL) {
            return -1;
        }
        Py_DECREF(done);
    }
    PyObject *previous = PyDict_GetItemWithError(grads, node);
    if (previous == NULL && PyErr_Occurred()) {
        return -1;
    }
    PyObject *total;
    if (previous != NULL && previous != Py_None) {
        if (double_backprop) {
            total = PyNumber_Add(previous, gx);
        }
        else {
            PyObject *args[4] = {previous, gx, node, owned};
            total = call_helper("_sum_gradients", args, 4);
        }
        if (total == NULL) {
            return -1;
        }
    }
    else {
        total = Py_NewRef(gx);
    }
    int stored = PyDict_SetItem(grads, node, total);
    Py_DECREF(total);
    if (stored < 0) {
        return -1;
    }
    PyObject *creator = SLOT(node, node_creator);
    if (creator == NULL || creator == Py_None) {
        return 0;
    }
    int seen = PySet_Contains(queued, creator);
    if (seen != 0) {
        return seen < 0 ? -1 : 0;
    }
    Py_INCREF(creator);
    int result = PySet_Add(queued, creator) < 0 ? -1 : queue_creator(creator, heap, ready, order);
    Py_DECREF(creator);
    return result;
}

/* One function's step of the loop: its backward, and the gradients passed on. */
static int
backward_step(PyObject *func, PyObject *heap, Py_ssize_t *order, PyObject *queued,
              PyObject *grads, PyObject *owned, PyObject *targets, PyObject *found,
              int retain_grad, int double_backprop, int debug, PyObject **ready)
{
    PyObject *gys = NULL, *output_nodes = NULL, *in_nodes = NULL, *indexes = NULL,
             *gxs = NULL, *fast = NULL;
    int received = output_gradients(func, grads, owned, &gys, &output_nodes);
    if (received <= 0) {
        return received;
    }
    int result = -1;
    if (targets != Py_None) {
        PyObject *args[4] = {output_nodes, gys, targets, found};
        PyObject *done = call_helper("_collect_targets", args, 4);
        if (done == NULL) {
            goto done;
        }
        Py_DECREF(done);
    }
    if (retain_grad) {
        PyObject *args[2] = {output_nodes, gys};
        PyObject *done = call_helper("_retain_output_grads", args, 2);
        if (done == NULL) {
            goto done;
        }
        Py_DECREF(done);
    }
    in_nodes = PyObject_GetAttr(func, s_inputs);
    if (in_nodes == NULL) {
        goto done;
    }
    if (!PyTuple_Check(in_nodes)) {
        Py_SETREF(in_nodes, PySequence_Tuple(in_nodes));
        if (in_nodes == NULL) {
            goto done;
        }
    }
    indexes = target_indexes(in_nodes);
    if (indexes == NULL) {
        goto done;
    }
    if (PyTuple_GET_SIZE(indexes) == 0) {
        result = 0;
        goto done;
    }
    PyObject *default_accumulate = PyDict_GetItemWithError(backprop_globals,
                                                           s_default_backward_accumulate);
    if (default_accumulate == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError,
                            "catena._backprop._default_backward_accumulate is gone");
        }
        goto done;
    }
    gxs = call_backward(func, indexes, gys, grads, in_nodes, default_accumulate);
    if (gxs != NULL && debug) {
        PyObject *args[5] = {func, indexes, in_nodes, gxs, grads};
        PyObject *done = call_helper("_debug_check_gradients", args, 5);
        if (done == NULL) {
            Py_CLEAR(gxs);
        }
        else {
            Py_DECREF(done);
            PyObject *check_args[2] = {func, gxs};
            done = call_helper("_check_finite_gradients", check_args, 2);
            if (done == NULL) {
                Py_CLEAR(gxs);
            }
            Py_XDECREF(done);
        }
    }
    if (gxs == NULL) {
        backward_failed(func);
        goto done;
    }
    fast = PySequence_Fast(gxs, "backward must return a sequence of gradients");
    if (fast == NULL) {
        goto done;
    }
    Py_ssize_t n = Py_MIN(PyTuple_GET_SIZE(indexes), PySequence_Fast_GET_SIZE(fast));
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *gx = PySequence_Fast_GET_ITEM(fast, k);
        if (gx == Py_None) {
            continue;
        }
        PyObject *index = PyTuple_GET_ITEM(indexes, k);
        PyObject *node = PyTuple_GET_ITEM(in_nodes, PyLong_AsSsize_t(index));
        if (pass_gradient(func, index, node, gx, grads, owned, queued, heap, ready, order,
                          double_backprop) < 0) {
            goto done;
        }
    }
    result = 0;
done:
    Py_XDECREF(gys);
    Py_XDECREF(output_nodes);
    Py_XDECREF(in_nodes);
    Py_XDECREF(indexes);
    Py_XDECREF(gxs);
    Py_XDECREF(fast);
    return result;
}

static PyObject *
propagate(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (backprop_globals == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "catena._cengine.propagate is not installed");
        return NULL;
    }
    if (nargs != 9 || !PyList_CheckExact(args[0]) || !PyAnySet_Check(args[2]) ||
        !PyDict_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "propagate(heap: list, order: int, queued: set, "
                                         "grads: dict, targets, found, retain_grad, "
                                         "enable_double_backprop, is_debug)");
        return NULL;
    }
    PyObject *heap = args[0], *queued = args[2], *grads = args[3], *targets = args[4],
             *found = args[5];
    Py_ssize_t order = PyLong_AsSsize_t(args[1]);
    int retain_grad = truth(args[6]), double_backprop = truth(args[7]), debug = truth(args[8]);
    if ((order == -1 && PyErr_Occurred()) || retain_grad < 0 || double_backprop < 0 ||
        debug < 0) {
        return NULL;
    }
    /* The nodes whose gradient in grads is an array this loop allocated (a
     * sum): catena._backprop._sum_gradients adds further gradients into it. */
    PyObject *owned = PySet_New(NULL);
    if (owned == NULL) {
        return NULL;
    }
    PyObject *ready = NULL;
    for (;;) {
        PyObject *func;
        if (ready != NULL) {
            func = ready;
            ready = NULL;
        }
        else if (PyList_GET_SIZE(heap) > 0) {
            PyObject *entry = PyObject_CallOneArg(heappop, heap);
            func = entry == NULL ? NULL : PySequence_GetItem(entry, 2);
            Py_XDECREF(entry);
            if (func == NULL) {
                Py_DECREF(owned);
                return NULL;
            }
        }
        else {
            break;
        }
        int failed = backward_step(func, heap, &order, queued, grads, owned, targets, found,
                                   retain_grad, double_backprop, debug, &ready);
        Py_DECREF(func);
        if (failed < 0) {
            Py_XDECREF(ready);
            Py_DECREF(owned);
            return NULL;
        }
    }
    Py_DECREF(owned);
    Py_RETURN_NONE;
}

static PyObject *
install_backprop(PyObject *module, PyObject *args)
{
    PyObject *backprop_module, *heapq_module;
    if (!PyArg_ParseTuple(args, "O!O!:install_backprop", &PyModule_Type, &backprop_module,
                          &PyModule_Type, &heapq_module)) {
        return NULL;
    }
    if (variable_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "catena._cengine is not installed");
        return NULL;
    }
    PyObject *pop = PyObject_GetAttrString(heapq_module, "heappop");
    PyObject *push = pop == NULL ? NULL : PyObject_GetAttrString(heapq_module, "heappush");
    if (push == NULL) {
        Py_XDECREF(pop);
        return NULL;
    }
    Py_XSETREF(heappop, pop);
    Py_XSETREF(heappush, push);
    Py_XSETREF(backprop_globals, Py_NewRef(PyModule_GetDict(backprop_module)));
    return PyCFunction_New(&propagate_def, NULL);
}

static PyMethodDef apply_def = {
    "apply", (PyCFunction)apply, METH_O,
    "apply($self, inputs, /)\n--\n\n"
    "Computes the outputs and, when backprop is enabled, records the node.\n\n"
    "Args:\n"
    "    inputs: Variables or arrays. Arrays are treated as variables that\n"
    "        do not require grad.\n\n"
    "Returns:\n"
    "    tuple: The output Variables.\n"};

static int
intern_names(void)
{
#define NAME(var, text)                              \
    if ((var = PyUnicode_InternFromString(text)) == NULL) \
        return -1;
    NAME(s_debug, "debug");
    NAME(s_type_check, "type_check");
    NAME(s_enable_backprop, "enable_backprop");
    NAME(s_n_registered, "n_registered");
    NAME(s_local_function_hooks, "_local_function_hooks");
    NAME(s_kernel_node_classes, "kernel_node_classes");
    NAME(s_accepts_types, "_accepts_types");
    NAME(s_check_type_forward, "check_type_forward");
    NAME(s_checks_types, "_checks_types");
    NAME(s_check_same_device, "_check_same_device");
    NAME(s_check_types, "_check_types");
    NAME(s_forward, "forward");
    NAME(s_forward_with_kernel, "_forward_with_kernel");
    NAME(s_check_output_types, "_check_output_types");
    NAME(s_label, "label");
    NAME(s_rank, "rank");
    NAME(s_inputs, "inputs");
    NAME(s_outputs, "outputs");
    NAME(s_input_retain, "_input_indexes_to_retain");
    NAME(s_output_retain, "_output_indexes_to_retain");
    NAME(s_retained_output_data, "_retained_output_data");
    NAME(s_node, "node");
    NAME(s_shape, "shape");
    NAME(s_dtype, "dtype");
    NAME(s_kernels, "kernels");
    NAME(s_config_key, "config_key");
    NAME(s_auto, "auto");
    NAME(s_never, "never");
    NAME(s_size, "size");
    NAME(s_auto_min_size, "auto_min_size");
    NAME(s_kernel_wanted, "_kernel_wanted");
    NAME(s_dict, "__dict__");
    NAME(s_apply, "apply");
    NAME(s_backward_accumulate, "backward_accumulate");
    NAME(s_backward, "backward");
    NAME(s_targets_only, "_targets_only");
    NAME(s_pop, "pop");
    NAME(s_creator_node, "creator_node");
    NAME(s_requires_grad_slot, "_requires_grad");
    NAME(s_default_backward_accumulate, "_default_backward_accumulate");
#undef NAME
    return 0;
}

static PyObject *
install(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"function_node", "variable", "variable_node", "ndarray",
                               "flags", "function_hooks", "registry", "python_apply",
                               "dead_reference", "fallback", "quick_tests", NULL};
    PyObject *function_node, *variable, *node, *ndarray, *flags_object, *hooks_module,
        *registry_module, *python, *dead, *declined, *same, *same_float, *one_float;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!O!OOOOOO(OOO):install", keywords,
                                     &PyType_Type, &function_node, &PyType_Type, &variable,
                                     &PyType_Type, &node, &PyType_Type, &ndarray, &flags_object,
                                     &hooks_module, &registry_module, &python, &dead, &declined,
                                     &same, &same_float, &one_float)) {
        return NULL;
    }
    PyTypeObject *v = (PyTypeObject *)variable, *vn = (PyTypeObject *)node;
    if (slot_offset(v, "_data", &var_data) < 0 || slot_offset(v, "_vnode", &var_vnode) < 0 ||
        slot_offset(v, "_grad_var", &var_grad_var) < 0 ||
        slot_offset(v, "_requires_grad", &var_requires_grad) < 0 ||
        slot_offset(v, "_name", &var_name) < 0 ||
        slot_offset(v, "_loss_scale", &var_loss_scale) < 0 ||
        slot_offset(vn, "_variable", &node_variable) < 0 ||
        slot_offset(vn, "creator_node", &node_creator) < 0 ||
        slot_offset(vn, "data", &node_data) < 0 || slot_offset(vn, "name", &node_name) < 0 ||
        slot_offset(vn, "_rank", &node_rank) < 0 ||
        slot_offset(vn, "_requires_grad", &node_requires_grad) < 0 ||
        slot_offset(vn, "_old_style_grad_generator", &node_old_style) < 0 ||
        slot_offset(vn, "shape", &node_shape) < 0 || slot_offset(vn, "dtype", &node_dtype) < 0) {
        return NULL;
    }
    PyObject *hooks_dict = PyModule_GetDict(hooks_module);
    PyObject *registry_dict = PyModule_GetDict(registry_module);
    if (hooks_dict == NULL || registry_dict == NULL || intern_names() < 0) {
        return NULL;
    }
    PyObject *descriptor = PyDescr_NewMethod((PyTypeObject *)function_node, &apply_def);
    if (descriptor == NULL) {
        return NULL;
    }
    Py_XSETREF(variable_type, (PyTypeObject *)Py_NewRef(variable));
    Py_XSETREF(node_type, (PyTypeObject *)Py_NewRef(node));
    Py_XSETREF(ndarray_type, (PyTypeObject *)Py_NewRef(ndarray));
    Py_XSETREF(flags, Py_NewRef(flags_object));
    Py_XSETREF(hooks_globals, Py_NewRef(hooks_dict));
    Py_XSETREF(registry_globals, Py_NewRef(registry_dict));
    Py_XSETREF(python_apply, Py_NewRef(python));
    Py_XSETREF(dead_reference, Py_NewRef(dead));
    Py_XSETREF(fallback, Py_NewRef(declined));
    Py_XSETREF(quick_same, Py_NewRef(same));
    Py_XSETREF(quick_same_float, Py_NewRef(same_float));
    Py_XSETREF(quick_one_float, Py_NewRef(one_float));
    Py_XSETREF(apply_descriptor, Py_NewRef(descriptor));
    return descriptor;
}

static PyMethodDef propagate_def = {
    "propagate", (PyCFunction)(void (*)(void))propagate, METH_FASTCALL,
    "propagate(heap, order, queued, grads, targets, found, retain_grad, "
    "enable_double_backprop, is_debug)\n--\n\n"
    "catena._backprop._propagate in C: runs the queued functions' backward\n"
    "methods, highest rank first, until none is left."};

static PyMethodDef module_methods[] = {
    {"install", (PyCFunction)(void (*)(void))install, METH_VARARGS | METH_KEYWORDS,
     "install(function_node, variable, variable_node, ndarray, flags, function_hooks, "
     "registry, python_apply, dead_reference, fallback, quick_tests)\n--\n\n"
     "Binds the engine to catena's classes and returns the method descriptor\n"
     "that replaces FunctionNode.apply. Called by catena._engine only."},
    {"operator", (PyCFunction)operator, METH_VARARGS,
     "operator(kind, node_class, python_operator)\n--\n\n"
     "Returns a method descriptor of Variable for + ('add') or * ('mul') that\n"
     "applies node_class to two Variables, or to a Variable and an array of\n"
     "its dtype, and calls python_operator otherwise. Called by catena._engine only."},
    {"install_backprop", (PyCFunction)install_backprop, METH_VARARGS,
     "install_backprop(backprop_module, heapq_module)\n--\n\n"
     "Binds the backprop loop to catena._backprop's helpers and returns it.\n"
     "Called by catena._engine only."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "catena._cengine",
    "The compiled engine of catena: FunctionNode.apply's common path in C.", -1,
    module_methods};

PyMODINIT_FUNC
PyInit__cengine(void)
{
    return PyModule_Create(&module_def);
}

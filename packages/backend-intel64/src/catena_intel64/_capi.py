"""The part of oneDNN's C API (3.x) that catena-intel64 calls, bound with :mod:`ctypes`.

Every handle (engine, stream, memory descriptor, memory, primitive
descriptor, primitive) is an opaque pointer, held here as a
``c_void_p``. :func:`check` turns a non-zero ``dnnl_status_t`` into
:class:`DnnlError`; :data:`lib` is the library with every prototype below
declared, so that Python floats and ints convert to the C types the API
expects.

The numeric constants are those of ``dnnl_types.h`` and
``dnnl_common_types.h`` of oneDNN 3.x.
"""

from __future__ import annotations

import ctypes
from typing import Any

from catena_intel64 import _dnnl

# dnnl_status_t
SUCCESS = 0
UNIMPLEMENTED = 3
_STATUS_NAMES = {
    0: 'success', 1: 'out_of_memory', 2: 'invalid_arguments', 3: 'unimplemented',
    5: 'runtime_error', 6: 'not_required', 7: 'invalid_graph', 8: 'invalid_graph_op',
    9: 'invalid_shape', 10: 'invalid_data_type',
}

# dnnl_data_type_t
F16, BF16, F32, S32, S8, U8, F64 = 1, 2, 3, 4, 5, 6, 7

# dnnl_engine_kind_t, dnnl_stream_flags_t
ENGINE_CPU = 1
STREAM_IN_ORDER = 1

# dnnl_format_tag_t
FORMAT_ANY = 1
FORMAT_NCHW = 5
FORMAT_NHWC = 22
FORMAT_NCW16C = 56
FORMAT_NCHW16C = 78
FORMAT_NCDHW16C = 121

# dnnl_prop_kind_t
FORWARD_TRAINING = 64
FORWARD_INFERENCE = 96
BACKWARD = 128
BACKWARD_DATA = 160
BACKWARD_WEIGHTS = 192

# dnnl_alg_kind_t
CONVOLUTION_DIRECT = 0x1
DECONVOLUTION_DIRECT = 0xa
ELTWISE_RELU = 0x20
ELTWISE_TANH = 0x21
ELTWISE_ELU = 0x22
ELTWISE_LOGISTIC = 0x29
ELTWISE_RELU_USE_DST_FOR_BWD = 0x100
ELTWISE_TANH_USE_DST_FOR_BWD = 0x101
ELTWISE_ELU_USE_DST_FOR_BWD = 0x102
ELTWISE_LOGISTIC_USE_DST_FOR_BWD = 0x104
POOLING_MAX = 0x1ff
POOLING_AVG_INCLUDE_PADDING = 0x2ff
POOLING_AVG_EXCLUDE_PADDING = 0x3ff
LRN_ACROSS_CHANNELS = 0xaff
BINARY_ADD = 0x1fff0
BINARY_MUL = 0x1fff1

# dnnl_normalization_flags_t
USE_GLOBAL_STATS = 0x1
USE_SCALE = 0x2
USE_SHIFT = 0x4

# dnnl_query_t
QUERY_IMPL_INFO_STR = 8
QUERY_SRC_MD = 129
QUERY_DIFF_SRC_MD = 130
QUERY_WEIGHTS_MD = 131
QUERY_DIFF_WEIGHTS_MD = 132
QUERY_DST_MD = 133
QUERY_DIFF_DST_MD = 134
QUERY_WORKSPACE_MD = 135

# DNNL_ARG_*
ARG_SRC = 1
ARG_SRC_1 = 2
ARG_DST = 17
ARG_WEIGHTS = 33
ARG_BIAS = 41
ARG_MEAN = 49
ARG_VARIANCE = 50
ARG_SCALE = 51
ARG_SHIFT = 52
ARG_WORKSPACE = 64
ARG_DIFF_SRC = 129
ARG_DIFF_DST = 145
ARG_DIFF_WEIGHTS = 161
ARG_DIFF_BIAS = 169
ARG_DIFF_SCALE = 255
ARG_DIFF_SHIFT = 256
ARG_MULTIPLE_SRC = 1024

MAX_NDIMS = 12
Dims: type[ctypes.Array[ctypes.c_int64]] = ctypes.c_int64 * MAX_NDIMS
"""``dnnl_dims_t``: an array of 12 ``int64``."""


class ExecArg(ctypes.Structure):
    """``dnnl_exec_arg_t``: one ``(DNNL_ARG_*, memory)`` pair of an execution."""

    _fields_ = [('arg', ctypes.c_int), ('memory', ctypes.c_void_p)]


class DnnlError(RuntimeError):
    """A oneDNN call returned an error status.

    Attributes:
        status: The ``dnnl_status_t`` value.
        function: The name of the C function that failed.
    """

    def __init__(self, function: str, status: int) -> None:
        self.function = function
        self.status = status
        name = _STATUS_NAMES.get(status, str(status))
        super().__init__(f'oneDNN: {function} failed with status {name}')


_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_I = ctypes.c_int
_U = ctypes.c_uint
_F = ctypes.c_float
_D = ctypes.POINTER(Dims)
_I64 = ctypes.c_int64
_SIZE = ctypes.c_size_t

# name: argument types; every function returns dnnl_status_t unless listed in _RESTYPES.
_PROTOTYPES: dict[str, list[Any]] = {
    'dnnl_engine_create': [_PP, _I, _SIZE],
    'dnnl_stream_create': [_PP, _P, _U],
    'dnnl_stream_wait': [_P],
    'dnnl_memory_desc_create_with_strides': [_PP, _I, _D, _I, _D],
    'dnnl_memory_desc_create_with_tag': [_PP, _I, _D, _I, _I],
    'dnnl_memory_desc_clone': [_PP, _P],
    'dnnl_memory_desc_destroy': [_P],
    'dnnl_memory_desc_equal': [_P, _P],
    'dnnl_memory_desc_get_size': [_P],
    'dnnl_memory_create': [_PP, _P, _P, _P],
    'dnnl_memory_set_data_handle': [_P, _P],
    'dnnl_memory_destroy': [_P],
    'dnnl_primitive_desc_query': [_P, _I, _I, _P],
    'dnnl_primitive_desc_query_md': [_P, _I, _I],
    'dnnl_primitive_desc_destroy': [_P],
    'dnnl_primitive_create': [_PP, _P],
    'dnnl_primitive_execute': [_P, _P, _I, ctypes.POINTER(ExecArg)],
    'dnnl_primitive_destroy': [_P],
    'dnnl_reorder_primitive_desc_create': [_PP, _P, _P, _P, _P, _P],
    'dnnl_concat_primitive_desc_create': [_PP, _P, _P, _I, _I, _PP, _P],
    'dnnl_sum_primitive_desc_create': [_PP, _P, _P, _I, ctypes.POINTER(_F), _PP, _P],
    'dnnl_binary_primitive_desc_create': [_PP, _P, _I, _P, _P, _P, _P],
    'dnnl_matmul_primitive_desc_create': [_PP, _P, _P, _P, _P, _P, _P],
    'dnnl_convolution_forward_primitive_desc_create':
        [_PP, _P, _I, _I, _P, _P, _P, _P, _D, _D, _D, _D, _P],
    'dnnl_convolution_backward_data_primitive_desc_create':
        [_PP, _P, _I, _P, _P, _P, _D, _D, _D, _D, _P, _P],
    'dnnl_convolution_backward_weights_primitive_desc_create':
        [_PP, _P, _I, _P, _P, _P, _P, _D, _D, _D, _D, _P, _P],
    'dnnl_deconvolution_forward_primitive_desc_create':
        [_PP, _P, _I, _I, _P, _P, _P, _P, _D, _D, _D, _D, _P],
    'dnnl_deconvolution_backward_data_primitive_desc_create':
        [_PP, _P, _I, _P, _P, _P, _D, _D, _D, _D, _P, _P],
    'dnnl_deconvolution_backward_weights_primitive_desc_create':
        [_PP, _P, _I, _P, _P, _P, _P, _D, _D, _D, _D, _P, _P],
    'dnnl_inner_product_forward_primitive_desc_create': [_PP, _P, _I, _P, _P, _P, _P, _P],
    'dnnl_inner_product_backward_data_primitive_desc_create': [_PP, _P, _P, _P, _P, _P, _P],
    'dnnl_inner_product_backward_weights_primitive_desc_create':
        [_PP, _P, _P, _P, _P, _P, _P, _P],
    'dnnl_eltwise_forward_primitive_desc_create': [_PP, _P, _I, _I, _P, _P, _F, _F, _P],
    'dnnl_eltwise_backward_primitive_desc_create': [_PP, _P, _I, _P, _P, _P, _F, _F, _P, _P],
    'dnnl_pooling_forward_primitive_desc_create':
        [_PP, _P, _I, _I, _P, _P, _D, _D, _D, _D, _D, _P],
    'dnnl_pooling_backward_primitive_desc_create':
        [_PP, _P, _I, _P, _P, _D, _D, _D, _D, _D, _P, _P],
    'dnnl_lrn_forward_primitive_desc_create': [_PP, _P, _I, _I, _P, _P, _I64, _F, _F, _F, _P],
    'dnnl_lrn_backward_primitive_desc_create':
        [_PP, _P, _I, _P, _P, _P, _I64, _F, _F, _F, _P, _P],
    'dnnl_batch_normalization_forward_primitive_desc_create': [_PP, _P, _I, _P, _P, _F, _U, _P],
    'dnnl_batch_normalization_backward_primitive_desc_create':
        [_PP, _P, _I, _P, _P, _P, _F, _U, _P, _P],
    'dnnl_set_primitive_cache_capacity': [_I],
    'dnnl_set_max_cpu_isa': [_I],
}

_RESTYPES: dict[str, Any] = {
    'dnnl_memory_desc_equal': ctypes.c_int,
    'dnnl_memory_desc_get_size': ctypes.c_size_t,
    'dnnl_primitive_desc_query_md': ctypes.c_void_p,
}


class _Library:
    """oneDNN's library with the prototypes above declared (on first attribute use)."""

    _cdll: ctypes.CDLL | None = None

    def __getattr__(self, name: str) -> Any:
        if self._cdll is None:
            cdll = _dnnl.load()
            for function, argtypes in _PROTOTYPES.items():
                prototype = getattr(cdll, function)
                prototype.argtypes = argtypes
                prototype.restype = _RESTYPES.get(function, ctypes.c_int)
            type(self)._cdll = cdll
        value = getattr(self._cdll, name)
        setattr(self, name, value)
        return value


lib: Any = _Library()
"""oneDNN's C functions, callable as ``lib.dnnl_primitive_execute(...)``."""


def check(function: str, *args: Any) -> None:
    """Calls the oneDNN function named ``function`` with ``args``.

    Raises:
        DnnlError: It returned a status other than success.
    """
    status = getattr(lib, function)(*args)
    if status != SUCCESS:
        raise DnnlError(function, status)


def dims(values: Any) -> ctypes.Array[ctypes.c_int64]:
    """Returns ``values`` (a sequence of ints) as a ``dnnl_dims_t``."""
    return Dims(*values)

"""catena: a define-by-run deep-learning framework with Chainer v7's API.

``import catena`` loads no plugin; plugins load on first need (a device
lookup, a kernel dispatch, runtime information).
"""

from __future__ import annotations

import sys
from typing import Any

from catena import (
    _config_keys,
    _memory_pool,
    backend,
    backends,
    dataset,
    datasets,
    distributions,
    function_hooks,
    functions,
    graph_optimizations,
    initializer,
    initializers,
    iterators,
    link,
    link_hook,
    link_hooks,
    links,
    memory_layouts,
    optimizer,
    optimizer_hooks,
    optimizers,
    reporter,
    sequential,
    serializer,
    serializers,
    training,
    utils,
    variable,
)
from catena._backprop import backward, force_backprop_mode, grad, no_backprop_mode
from catena._debug_mode import DebugMode
from catena._dtype import get_compute_mode, get_dtype, mixed16
from catena._function_hooks import get_function_hooks
from catena._version import __version__
from catena.backend import (
    get_array_types,
    get_cpu_array_types,
    get_device,
    is_arrays_compatible,
    using_device,
)
from catena.backends import cuda, intel64  # cheap shims; they load no plugin
from catena.backends._kernel import Fallback
from catena.configuration import config, global_config, using_config
from catena.device_resident import DeviceResident
from catena.distributions import Distribution, cross_entropy, kl_divergence, register_kl
from catena.function import Function, FunctionAdapter
from catena.function_hook import FunctionHook
from catena.function_node import FunctionNode
from catena.functions.math import basic_math  # Chainer's chainer.basic_math
from catena.graph_optimizations import static_code, static_graph
from catena.initializers import Initializer
from catena.link import Chain, ChainList, Link
from catena.link_hook import LinkHook
from catena.optimizer import GradientMethod, Optimizer, UpdateRule
from catena.parameter import Parameter
from catena.plugins import hookimpl, hookspec
from catena.reporter import (
    DictSummary,
    Reporter,
    Summary,
    get_current_reporter,
    report,
    report_scope,
)
from catena.sequential import Sequential
from catena.serializer import AbstractSerializer, Deserializer, Serializer
from catena.utils.experimental import disabled_by_environment as _experimental_disabled
from catena.variable import Variable, as_array, as_variable

# Chainer's old module path: ``import chainer.cuda`` is chainer.backends.cuda.
sys.modules[__name__ + '.cuda'] = cuda

_config_keys.apply(_config_keys.CORE_KEYS, global_config)
_memory_pool.install()  # NumPy's data allocator from here on (CATENA_CPU_MEMORY_POOL)

#: Set to True to silence the FutureWarning of experimental APIs
#: (``catena.utils.experimental``); ``CATENA_DISABLE_EXPERIMENTAL_FEATURE_WARNING=1``
#: (or ``CHAINER_...``) sets it at import.
disable_experimental_feature_warning: bool = _experimental_disabled()


def is_debug() -> bool:
    """Returns whether debug mode (``catena.config.debug``) is on."""
    return bool(config.debug)


def set_debug(debug: bool) -> None:
    """Turns debug mode on or off for the current thread.

    In debug mode, every forward and backward result is checked for NaN and
    Inf, and the error names the FunctionNode and the stage.
    """
    config.debug = debug


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Whether cuDNN should be used at ``level`` ('==always' or '>=auto').

    Always False without catena-cuda.
    """
    try:
        decide = cuda.should_use_cudnn
    except AttributeError:
        return False
    return bool(decide(level, lowest_version))


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Whether cuDNN should use Tensor Cores for ``dtype``; False without catena-cuda."""
    try:
        decide = cuda.should_use_cudnn_tensor_core
    except AttributeError:
        return False
    return bool(decide(dtype))


def print_runtime_info(out: Any = None) -> None:
    """Prints versions, plugins (loaded or failed, with the reason) and devices.

    Args:
        out: A writable text stream (default: standard output).
    """
    from catena import _runtime_info

    _runtime_info.print_runtime_info(out)


__all__ = [
    'AbstractSerializer', 'Chain', 'ChainList', 'DebugMode', 'Deserializer', 'DeviceResident',
    'DictSummary', 'Distribution', 'Fallback', 'Function', 'FunctionAdapter', 'FunctionHook',
    'FunctionNode', 'GradientMethod', 'Initializer', 'Link', 'LinkHook', 'Optimizer',
    'Parameter', 'Reporter', 'Sequential', 'Serializer', 'Summary', 'UpdateRule', 'Variable',
    '__version__', 'as_array', 'as_variable', 'backend', 'backward', 'config', 'cross_entropy',
    'dataset', 'datasets', 'disable_experimental_feature_warning', 'distributions',
    'force_backprop_mode', 'functions',
    'get_array_types', 'get_compute_mode', 'get_cpu_array_types', 'get_current_reporter',
    'get_device', 'get_dtype', 'get_function_hooks', 'global_config', 'grad',
    'graph_optimizations', 'memory_layouts', 'static_code', 'static_graph', 'hookimpl',
    'hookspec', 'initializers', 'is_arrays_compatible', 'is_debug', 'iterators',
    'kl_divergence', 'link', 'link_hook', 'link_hooks', 'links', 'mixed16', 'no_backprop_mode',
    'optimizer', 'optimizer_hooks', 'optimizers', 'print_runtime_info', 'register_kl',
    'report', 'report_scope', 'reporter', 'sequential', 'serializer', 'serializers',
    'set_debug', 'should_use_cudnn', 'should_use_cudnn_tensor_core', 'training',
    'using_config', 'using_device', 'utils',
]

"""Where the special functions (erf, gamma, zeta, ...) come from.

Arrays in host memory (NumPy arrays and ndarray subclasses such as the
``'@fake'`` device's) use :mod:`scipy.special`, an optional dependency that is
imported on first use. Other array modules use their own SciPy-compatible
namespace when they have one (:mod:`cupyx.scipy.special` for CuPy).
"""

from __future__ import annotations

import importlib
import math
import types
from collections.abc import Callable
from typing import Any

import numpy

from catena import backend
from catena.utils import force_array, type_check

SQRT_PI = math.sqrt(math.pi)
SQRT_2PI = math.sqrt(2.0 * math.pi)
#: The integer dtype of the orders that digamma's gradient passes to polygamma.
ORDER_DTYPE = numpy.dtype(numpy.int32)

#: The special-function module of each array module, by the array module's name.
_SPECIAL_MODULES = {'numpy': 'scipy.special', 'cupy': 'cupyx.scipy.special'}
_loaded: dict[str, types.ModuleType] = {}


def _special_module(array_module: str, function: str) -> types.ModuleType:
    module = _loaded.get(array_module)
    if module is not None:
        return module
    name = _SPECIAL_MODULES.get(array_module)
    if name is None:
        raise NotImplementedError(
            f'catena.functions.{function} has no implementation for arrays of '
            f'{array_module!r}: it needs a SciPy-compatible special-function module, which '
            f'catena knows for {", ".join(sorted(_SPECIAL_MODULES))} arrays only')
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        if array_module == 'numpy':
            raise ImportError(f'catena.functions.{function} needs SciPy on the CPU: '
                              'pip install scipy') from error
        raise ImportError(f'catena.functions.{function} needs {name} for {array_module} '
                          f'arrays, and it failed to import: {error}') from error
    _loaded[array_module] = module
    return module


def special_function(x: Any, name: str, function: str) -> Callable[..., Any]:
    """Returns the special function ``name`` that works on arrays like ``x``.

    Args:
        x: An array; its array module picks the implementation.
        name: The function's name in :mod:`scipy.special` (``'erfinv'``).
        function: The catena function that needs it, for error messages.
    """
    if isinstance(x, numpy.ndarray):  # host memory: SciPy takes any ndarray subclass
        array_module = 'numpy'
    else:
        array_module = backend.get_array_module(x).__name__.partition('.')[0]
    module = _special_module(array_module, function)
    found = getattr(module, name, None)
    if found is None:
        raise NotImplementedError(f'catena.functions.{function} needs {module.__name__}.{name}, '
                                  'which this version does not have')
    return found  # type: ignore[no-any-return]


def compute(function: str, name: str, x: Any, *args: Any) -> Any:
    """Applies ``name`` to ``args`` (``x`` when empty) as an array of ``x``'s dtype and device.

    Args:
        function: The catena function, for error messages.
        name: The function's name in :mod:`scipy.special`.
        x: The floating-point input that decides the device and the dtype.
        args: The arguments, when they are not just ``x``.
    """
    result = special_function(x, name, function)(*(args or (x,)))
    # SciPy has no float16 loops (it answers in a wider dtype) and returns
    # scalars for 0-d input; give back an array like x, on x's device.
    result = force_array(result, x.dtype)
    if result.__class__ is not x.__class__:
        result = backend.get_array_module(x).asarray(result)
    return result


def check_float_input(in_types: Any, name: str = 'x') -> None:
    """The type check of the unary special functions: one floating-point input."""
    type_check._argname(in_types, (name,))
    type_check.expect(in_types.size() == 1, in_types[0].dtype.kind == 'f')

"""Initializers: objects that fill a parameter's array.

Every initializer is a callable ``initializer(array)`` that fills ``array`` in
place and may carry a ``dtype``. Scalars, arrays and plain callables are
accepted wherever an initializer is.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.initializers._base import Initializer, generate_array, get_fans
from catena.initializers.constant import Constant, Identity, NaN, One, Zero
from catena.initializers.normal import GlorotNormal, HeNormal, LeCunNormal, Normal
from catena.initializers.orthogonal import Orthogonal
from catena.initializers.sampling import DownsamplingConvFilter, UpsamplingDeconvFilter
from catena.initializers.uniform import GlorotUniform, HeUniform, LeCunUniform, Uniform

__all__ = [
    'Constant',
    'DownsamplingConvFilter',
    'GlorotNormal',
    'GlorotUniform',
    'HeNormal',
    'HeUniform',
    'Identity',
    'Initializer',
    'LeCunNormal',
    'LeCunUniform',
    'NaN',
    'Normal',
    'One',
    'Orthogonal',
    'Uniform',
    'UpsamplingDeconvFilter',
    'Zero',
    'generate_array',
    'get_fans',
]


def _get_initializer(initializer: Any) -> Any:
    """Turns a link's initializer argument into an initializer.

    None gives the default ``LeCunNormal()``, a scalar or an array gives a
    :class:`Constant`, and a callable is returned as it is.
    """
    if initializer is None:
        return LeCunNormal()
    if isinstance(initializer, (str, bytes)):
        raise TypeError(f'initializer must be None, a scalar, an array or a callable; '
                        f'got the string {initializer!r}')
    if numpy.isscalar(initializer) or hasattr(initializer, 'shape'):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError(f'initializer must be None, a scalar, an array or a callable; '
                        f'got {type(initializer).__name__}')
    return initializer

"""Initializers: objects that fill a parameter's array.

Every initializer is a callable ``initializer(array)`` that fills ``array`` in
place and may carry a ``dtype``. Scalars, arrays and plain callables are
accepted wherever an initializer is.
"""

from __future__ import annotations

from catena.initializers._base import Initializer, generate_array
from catena.initializers.constant import Constant, Identity, NaN, One, Zero

__all__ = ['Constant', 'Identity', 'Initializer', 'NaN', 'One', 'Zero', 'generate_array']

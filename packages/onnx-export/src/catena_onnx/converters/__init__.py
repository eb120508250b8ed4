"""The built-in converters, one module per category of catena.functions.

Importing this package registers them (see :func:`catena_onnx.registry.converter`).
"""

from __future__ import annotations

import importlib

CATEGORIES = ('activation', 'array', 'connection', 'custom', 'loss', 'math', 'noise',
              'normalization', 'pooling', 'rnn', 'rounding')

for _category in CATEGORIES:
    try:
        importlib.import_module(f'catena_onnx.converters.{_category}')
    except ModuleNotFoundError as _error:
        if _error.name != f'catena_onnx.converters.{_category}':
            raise

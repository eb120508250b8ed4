"""Class-level test parameterization (``testing.parameterize``, ``product``, ``product_dict``)."""

from __future__ import annotations

import itertools
import re
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def _text(value: Any) -> str:
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return value.__name__
    return repr(value) if not isinstance(value, str) else value


def _class_name(base: str, index: int, param: Mapping[str, Any]) -> str:
    summary = '_'.join(f'{key}_{_text(value)}' for key, value in param.items())
    summary = re.sub(r'[^0-9A-Za-z]+', '_', summary).strip('_')
    if len(summary) > 80:
        summary = summary[:80].rstrip('_')
    return f'{base}_param_{index}' + (f'_{summary}' if summary else '')


def parameterize(*params: Mapping[str, Any]) -> Callable[[type], None]:
    """Makes one test class per parameter dict.

    Each generated class is a subclass of the decorated one whose attributes
    are set from one dict (plain functions stay plain: they are wrapped in
    :func:`staticmethod`). The classes are added to the decorated class's
    module as ``<Name>_param_<i>_<summary>`` (for example
    ``TestTanh_param_0_dtype_float16_shape_3_2``), and, as in Chainer, the
    decorator returns None so that the unparameterized class itself is not
    collected: put it outermost, above the other class decorators.

    Args:
        params: Dicts of attribute names to values (often from :func:`product`).

    .. admonition:: Example

        >>> import unittest
        >>> @testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
        ... class TestDouble(unittest.TestCase):
        ...     def test_double(self):
        ...         x = np.ones(3, dtype=self.dtype)
        ...         assert (x * 2).dtype == self.dtype
    """
    for index, param in enumerate(params):
        if not isinstance(param, Mapping):
            raise TypeError(f'parameterize takes dicts; parameter {index} is a '
                            f'{type(param).__name__}')

    def decorator(base: type) -> None:
        if not isinstance(base, type):
            raise TypeError(f'parameterize decorates classes; got {base!r}')
        module = sys.modules.get(base.__module__)
        namespace = module.__dict__ if module is not None else sys._getframe(1).f_globals
        for index, param in enumerate(params):
            name = _class_name(base.__name__, index, param)
            attrs: dict[str, Any] = {
                key: staticmethod(value) if isinstance(value, types.FunctionType) else value
                for key, value in param.items()}
            attrs['__module__'] = base.__module__
            attrs['__qualname__'] = name
            attrs['__doc__'] = base.__doc__
            attrs['_catena_parameters'] = dict(param)
            namespace[name] = type(base)(name, (base,), attrs)
        return None

    return decorator


def product(parameter: Mapping[str, Iterable[Any]] | Iterable[Iterable[Mapping[str, Any]]]
            ) -> list[dict[str, Any]]:
    """Returns the Cartesian product of parameter values as a list of dicts.

    Args:
        parameter: Either a dict from attribute name to a list of values
            (every combination of values is produced, the last key varying
            fastest), or a list of lists of dicts (the same as
            :func:`product_dict`).

    .. admonition:: Example

        >>> testing.product({'a': [1, 2], 'b': ['x']})
        [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}]
    """
    if isinstance(parameter, Mapping):
        keys = list(parameter)
        values = [list(parameter[key]) for key in keys]
        return [dict(zip(keys, combination)) for combination in itertools.product(*values)]
    return product_dict(*parameter)


def product_dict(*parameters: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Returns every merge of one dict from each list.

    Args:
        parameters: Lists of dicts.

    .. admonition:: Example

        >>> testing.product_dict([{'a': 1}, {'a': 2}], [{'b': 3}])
        [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
    """
    result = []
    for combination in itertools.product(*[list(p) for p in parameters]):
        merged: dict[str, Any] = {}
        for entry in combination:
            merged.update(entry)
        result.append(merged)
    return result


__all__ = ['parameterize', 'product', 'product_dict']

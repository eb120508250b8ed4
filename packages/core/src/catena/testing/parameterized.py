"""Class-level test parameterization (``testing.parameterize``, ``product``, ``product_dict``)."""

from __future__ import annotations

import itertools
import re
import sys
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

_T = TypeVar('_T', bound=type)

# The classes a parameterize call generated, kept on the class it decorated.
_CHILDREN = '_catena_parameterized_children'


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


def _namespace(cls: type) -> dict[str, Any]:
    module = sys.modules.get(cls.__module__)
    if module is None:
        raise RuntimeError(f'parameterize: the module {cls.__module__!r} of '
                           f'{cls.__qualname__} is not imported')
    return module.__dict__


def _leaves(cls: type) -> list[type]:
    """The most derived classes that earlier parameterize calls made from ``cls``."""
    children = cls.__dict__.get(_CHILDREN)
    if children is None:
        return [cls]
    return [leaf for child in children for leaf in _leaves(child)]


def _generate(parent: type, params: Sequence[Mapping[str, Any]]) -> list[type]:
    namespace = _namespace(parent)
    inherited = dict(getattr(parent, '_catena_parameters', {}))
    generated = []
    for index, param in enumerate(params):
        name = _class_name(parent.__name__, index, param)
        attrs: dict[str, Any] = {
            key: staticmethod(value) if isinstance(value, types.FunctionType) else value
            for key, value in param.items()}
        attrs['__module__'] = parent.__module__
        attrs['__qualname__'] = name
        attrs['__doc__'] = parent.__doc__
        attrs['__test__'] = True
        attrs['_catena_parameters'] = {**inherited, **param}
        child = type(parent)(name, (parent,), attrs)
        namespace[name] = child
        generated.append(child)
    return generated


def parameterize(*params: Mapping[str, Any]) -> Callable[[_T], _T]:
    """Makes one test class per parameter dict.

    Each generated class is a subclass of the decorated one whose attributes
    are set from one dict (plain functions stay plain: they are wrapped in
    :func:`staticmethod`). The classes are added to the decorated class's
    module as ``<Name>_param_<i>_<summary>`` (for example
    ``TestTanh_param_0_dtype_float16_shape_3_2``).

    The decorated class itself is returned, marked ``__test__ = False`` so
    that pytest does not collect it unparameterized. Other class decorators
    stack above it: a second ``parameterize`` makes the product of both
    parameter lists, and :func:`~catena.testing.inject_backend_tests`
    expands the test methods of every generated class.

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

    def decorator(base: _T) -> _T:
        if not isinstance(base, type):
            raise TypeError(f'parameterize decorates classes; got {base!r}')
        for leaf in _leaves(base):
            if leaf is not base:
                # A class made by an inner parameterize becomes a base itself.
                _namespace(leaf).pop(leaf.__name__, None)
            leaf.__test__ = False  # type: ignore[attr-defined]
            setattr(leaf, _CHILDREN, _generate(leaf, params))
        return base

    return decorator


def _keyed_dicts(key: str, values: Iterable[Any]) -> list[dict[str, Any]]:
    """One dict per value; a key ``'a,b'`` spreads each value (a tuple) over ``a`` and ``b``."""
    names = [name.strip() for name in key.split(',')]
    if len(names) == 1:
        return [{key: value} for value in values]
    dicts = []
    for value in values:
        value = tuple(value)
        if len(value) != len(names):
            raise ValueError(f'product: the key {key!r} names {len(names)} parameters but '
                             f'the value {value!r} has {len(value)}')
        dicts.append(dict(zip(names, value)))
    return dicts


def product(parameter: Mapping[str, Iterable[Any]] | Iterable[Iterable[Mapping[str, Any]]]
            ) -> list[dict[str, Any]]:
    """Returns the Cartesian product of parameter values as a list of dicts.

    Args:
        parameter: Either a dict from attribute name to a list of values
            (every combination of values is produced, the last key varying
            fastest; a key ``'a,b'`` takes tuples ``(a, b)`` that stay
            together), or a list of lists of dicts (the same as
            :func:`product_dict`).

    .. admonition:: Example

        >>> testing.product({'a': [1, 2], 'b': ['x']})
        [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}]
        >>> testing.product({'a,b': [(1, 'x'), (2, 'y')], 'c': [0]})
        [{'a': 1, 'b': 'x', 'c': 0}, {'a': 2, 'b': 'y', 'c': 0}]
    """
    if isinstance(parameter, Mapping):
        # Looked up at call time: Chainer's conftest swaps in a pairwise product_dict.
        return product_dict(*[_keyed_dicts(key, values) for key, values in parameter.items()])
    return product_dict(*parameter)


def _full_product_dict(*parameters: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    result = []
    for combination in itertools.product(*[list(p) for p in parameters]):
        merged: dict[str, Any] = {}
        for entry in combination:
            merged.update(entry)
        result.append(merged)
    return result


def product_dict(*parameters: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Returns every merge of one dict from each list.

    Args:
        parameters: Lists of dicts.

    .. admonition:: Example

        >>> testing.product_dict([{'a': 1}, {'a': 2}], [{'b': 3}])
        [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
    """
    return _full_product_dict(*parameters)


# The unreplaced product_dict, for code that swaps in _pairwise_product_dict.
_product_dict_orig = product_dict


def _gain(row: list[int | None], k: int, choice: int,
          uncovered: set[tuple[int, int, int, int]]) -> int:
    """How many uncovered pairs choosing entry ``choice`` of list ``k`` would cover in ``row``."""
    count = 0
    for m, chosen in enumerate(row):
        if chosen is None:
            continue
        key = (m, chosen, k, choice) if m < k else (k, choice, m, chosen)
        count += key in uncovered
    return count


def _pairwise_product_dict(*parameters: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Like :func:`product_dict`, but only enough merges to cover every pair of entries.

    Each pair of entries from two different lists occurs in at least one
    merge; with two lists or fewer that is the full product. The choice is
    greedy and deterministic (the same lists give the same merges).
    """
    lists = [list(p) for p in parameters]
    if len(lists) <= 2 or any(not entries for entries in lists):
        return _full_product_dict(*lists)
    uncovered = {(i, a, j, b)
                 for i, j in itertools.combinations(range(len(lists)), 2)
                 for a in range(len(lists[i])) for b in range(len(lists[j]))}
    rows: list[list[int]] = []
    while uncovered:
        i, a, j, b = min(uncovered)
        row: list[int | None] = [None] * len(lists)
        row[i], row[j] = a, b
        for k in range(len(lists)):
            if row[k] is not None:
                continue

            def score(c: int, k: int = k, row: list[int | None] = row) -> tuple[int, int]:
                return _gain(row, k, c, uncovered), -c

            row[k] = max(range(len(lists[k])), key=score)
        complete = [c for c in row if c is not None]
        for m, n in itertools.combinations(range(len(lists)), 2):
            uncovered.discard((m, complete[m], n, complete[n]))
        rows.append(complete)
    result = []
    for choices in rows:
        merged: dict[str, Any] = {}
        for entries, choice in zip(lists, choices):
            merged.update(entries[choice])
        result.append(merged)
    return result


def from_pytest_parameterize(names: str | Sequence[str], values: Iterable[Any]
                             ) -> list[dict[str, Any]]:
    """Turns ``pytest.mark.parametrize``-style arguments into parameter dicts.

    Args:
        names: Comma-separated names (``'a,b'``) or a sequence of names.
        values: One value per combination; a tuple per combination when
            there are several names.

    .. admonition:: Example

        >>> testing.from_pytest_parameterize('a,b', [(1, 2), (3, 4)])
        [{'a': 1, 'b': 2}, {'a': 3, 'b': 4}]
    """
    if isinstance(names, str):
        names = [name.strip() for name in names.split(',') if name.strip()]
    names = list(names)
    if len(names) == 1:
        return [{names[0]: value} for value in values]
    return _keyed_dicts(','.join(names), values)


def parameterize_pytest(names: str | Sequence[str], values: Iterable[Any]
                        ) -> Callable[[_T], _T]:
    """:func:`parameterize` with ``pytest.mark.parametrize``'s arguments.

    Args:
        names: Comma-separated names or a sequence of names.
        values: One value (or tuple of values) per combination.
    """
    return parameterize(*from_pytest_parameterize(names, values))


__all__ = ['from_pytest_parameterize', 'parameterize', 'parameterize_pytest', 'product',
           'product_dict']

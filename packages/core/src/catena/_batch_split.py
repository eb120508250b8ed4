"""Splitting a batch over devices by workload, and putting the pieces back together.

Three jobs, shared by :class:`catena.links.DataParallel` and
:class:`catena.training.updaters.ParallelUpdater`:

* :func:`split_sizes` / :func:`split_bounds`: how many examples each device
  gets for given workload weights (largest-remainder rounding, so the sizes
  add up to the batch size exactly);
* :func:`scatter`: cuts nested arguments (Variables, arrays, tuples, lists,
  dicts) along the batch axis into one piece per device;
* :func:`gather`: joins the per-device results (same nesting) on one device.

Scatter and gather go through differentiable functions for Variables, so
backpropagation from a gathered result reaches every piece.
"""

from __future__ import annotations

import fractions
import functools
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from catena import backend
from catena.backends._device import Device
from catena.variable import Variable


def split_sizes(batch_size: int, weights: Sequence[float] | None = None,
                count: int | None = None) -> list[int]:
    """Returns how many examples of a batch each device gets.

    Device ``i`` gets a share proportional to ``weights[i]``. The exact
    shares ``batch_size * w_i / sum(w)`` are rounded down, and the examples
    left over go one each to the devices with the largest fractional parts
    (ties to the lower index), so the sizes add up to ``batch_size``. A size
    may be 0 (a weight of 0, or fewer examples than devices).

    Args:
        batch_size: The number of examples (at least 0).
        weights: Non-negative workload weights, one per device, with a
            positive sum; None for equal weights.
        count: The number of devices when ``weights`` is None.

    Returns:
        list[int]: The size of each device's chunk.

    Raises:
        ValueError: ``weights`` is empty, has a negative or non-finite
            entry, or sums to zero; ``batch_size`` is negative.
        TypeError: ``batch_size`` is not an int or a weight is not a real number.

    .. admonition:: Example

        >>> split_sizes(8, [3, 1])
        [6, 2]
        >>> split_sizes(1, count=2)
        [1, 0]
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral):
        raise TypeError(f'batch_size must be an int, got {type(batch_size).__name__}')
    if batch_size < 0:
        raise ValueError(f'batch_size must be at least 0, got {batch_size}')
    shares = _checked_weights(weights, count)
    total = sum(shares)
    quotas = [fractions.Fraction(int(batch_size)) * share / total for share in shares]
    sizes = [math.floor(quota) for quota in quotas]
    left_over = int(batch_size) - sum(sizes)
    by_remainder = sorted(range(len(quotas)), key=lambda i: (-(quotas[i] - sizes[i]), i))
    for i in by_remainder[:left_over]:
        sizes[i] += 1
    return sizes


def split_bounds(batch_size: int, weights: Sequence[float] | None = None,
                 count: int | None = None) -> list[tuple[int, int]]:
    """Returns the ``(start, stop)`` range of each device's contiguous chunk.

    The chunks follow each other in device order and cover ``range(batch_size)``;
    their sizes are those of :func:`split_sizes` (same arguments). An empty
    chunk has ``start == stop``.

    .. admonition:: Example

        >>> split_bounds(8, [3, 1])
        [(0, 6), (6, 8)]
    """
    bounds = []
    start = 0
    for size in split_sizes(batch_size, weights, count):
        bounds.append((start, start + size))
        start += size
    return bounds


def _checked_weights(weights: Sequence[float] | None,
                     count: int | None) -> list[fractions.Fraction]:
    if weights is None:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f'without weights, count must be a positive int, got {count!r}')
        return [fractions.Fraction(1)] * count
    if isinstance(weights, (str, bytes, Mapping)) or not isinstance(weights, Iterable):
        raise TypeError(f'weights must be a sequence of numbers, got {type(weights).__name__}')
    try:
        weights = list(weights)
    except TypeError as error:  # a 0-d array is Iterable but cannot be iterated
        raise TypeError(f'weights must be a sequence of numbers, got {weights!r}') from error
    if count is not None and len(weights) != count:
        raise ValueError(f'weights must have {count} entries (one per device), got {len(weights)}')
    if not weights:
        raise ValueError('weights must have at least one entry, got an empty sequence')
    shares: list[fractions.Fraction] = []
    for index, weight in enumerate(weights):
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
            raise TypeError(f'weights[{index}] must be a real number, got '
                            f'{type(weight).__name__}')
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f'weights must be finite and non-negative, got weights[{index}] '
                             f'= {weight!r}')
        shares.append(fractions.Fraction(weight) if isinstance(weight, numbers.Rational)
                      else fractions.Fraction(float(weight)))
    if sum(shares) == 0:
        raise ValueError(f'weights must have a positive sum, got {list(weights)!r}')
    return shares


# ------------------------------------------------------------------- scatter

def scatter(args: tuple[Any, ...], kwargs: dict[str, Any], devices: Sequence[Device],
            bounds: Sequence[tuple[int, int]], batch_dim: int = 0,
            ) -> list[tuple[tuple[Any, ...], dict[str, Any]] | None]:
    """Cuts positional and keyword arguments into one piece per device.

    Every Variable or array with more than ``batch_dim`` axes is a batched
    leaf: piece ``i`` holds its slice ``bounds[i]`` along ``batch_dim``, on
    ``devices[i]``. Other Variables and arrays (fewer axes, such as 0-d
    ones) go whole to every device. Tuples (named tuples too), lists and
    dicts are followed into; any other object is passed as it is to every
    piece. Variables are cut and moved with differentiable functions
    (``get_item`` and ``copy``), arrays without a graph.

    Args:
        args: The positional arguments.
        kwargs: The keyword arguments.
        devices: The device of each piece.
        bounds: The ``(start, stop)`` of each piece along ``batch_dim``
            (:func:`split_bounds`).
        batch_dim: The batch axis.

    Returns:
        A list with ``(args, kwargs)`` for each piece, or None for an empty
        piece (``start == stop``).

    Raises:
        ValueError: No batched leaf was found, or batched leaves disagree on
            the batch size, or ``bounds`` do not end at the batch size.
    """
    if len(devices) != len(bounds):
        raise ValueError(f'devices and bounds must have the same length, got {len(devices)} '
                         f'devices and {len(bounds)} bounds')
    batch_size = find_batch_size(args, kwargs, batch_dim)
    if bounds and bounds[-1][1] != batch_size:
        raise ValueError(f'bounds {list(bounds)} do not cover the batch of {batch_size}')
    pieces: list[tuple[tuple[Any, ...], dict[str, Any]] | None] = []
    for device, (start, stop) in zip(devices, bounds, strict=True):
        if stop <= start:
            pieces.append(None)
            continue
        index = (slice(None),) * batch_dim + (slice(start, stop),)
        pieces.append(_map_leaves(functools.partial(_cut_leaf, device=device, index=index,
                                                    batch_dim=batch_dim), (args, kwargs)))
    return pieces


def find_batch_size(args: tuple[Any, ...], kwargs: dict[str, Any], batch_dim: int = 0) -> int:
    """Returns the common length along ``batch_dim`` of the batched arguments.

    The batched leaves are the Variables and arrays with more than
    ``batch_dim`` axes, found inside tuples, lists and dicts.

    Raises:
        ValueError: There is no batched leaf, or two of them differ in length
            (the message names both, as ``args[0]['x']``).
    """
    sizes = _batch_sizes(args, batch_dim, 'args') + _batch_sizes(kwargs, batch_dim, 'kwargs')
    if not sizes:
        raise ValueError(
            f'no Variable or array with a batch axis (axis {batch_dim}) among the arguments: '
            'there is nothing to split over the devices')
    return _common_batch_size(sizes, batch_dim)


def _is_array(value: Any) -> bool:
    return isinstance(value, backend.get_array_types())


def _is_batched(value: Any, batch_dim: int) -> bool:
    return (isinstance(value, Variable) or _is_array(value)) and value.ndim > batch_dim


def _batch_sizes(value: Any, batch_dim: int, path: str) -> list[tuple[str, int]]:
    if _is_batched(value, batch_dim):
        return [(path, int(value.shape[batch_dim]))]
    found: list[tuple[str, int]] = []
    if isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            found += _batch_sizes(item, batch_dim, f'{path}[{index}]')
    elif isinstance(value, dict):
        for key, item in value.items():
            found += _batch_sizes(item, batch_dim, f'{path}[{key!r}]')
    return found


def _common_batch_size(sizes: list[tuple[str, int]], batch_dim: int) -> int:
    first_path, first = sizes[0]
    for path, size in sizes[1:]:
        if size != first:
            raise ValueError(
                f'every batched argument must have the same length along batch_dim={batch_dim}; '
                f'{first_path} has {first} but {path} has {size}. Pass arrays that are not '
                'batched through the module (attributes) instead of as arguments')
    return first


def _map_leaves(func: Callable[[Any], Any], value: Any) -> Any:
    if isinstance(value, tuple):
        items = [_map_leaves(func, item) for item in value]
        return type(value)(*items) if hasattr(value, '_fields') else type(value)(items)
    if isinstance(value, list):
        return [_map_leaves(func, item) for item in value]
    if isinstance(value, dict):
        return type(value)((key, _map_leaves(func, item)) for key, item in value.items())
    return func(value)


def _cut_leaf(leaf: Any, device: Device, index: tuple[slice, ...], batch_dim: int) -> Any:
    from catena.functions.array.copy import copy

    if isinstance(leaf, Variable):
        return copy(leaf[index] if leaf.ndim > batch_dim else leaf, device)
    if _is_array(leaf):
        return device.send_array(leaf[index] if leaf.ndim > batch_dim else leaf)
    return leaf


# -------------------------------------------------------------------- gather

def gather(outputs: Sequence[Any], sizes: Sequence[int], device: Device, batch_dim: int = 0,
           scalar_reduce: str = 'mean') -> Any:
    """Joins per-device results of the same nesting into one result on ``device``.

    For each leaf position:

    * a Variable or array with more than ``batch_dim`` axes: the pieces are
      concatenated along ``batch_dim``;
    * a 0-d Variable or array, or a Python int or float (a scalar such as a
      loss): with ``scalar_reduce='mean'`` the mean of the pieces weighted by
      their example counts ``sizes[i] / sum(sizes)`` (the batch mean when each
      piece is the mean over its chunk); with ``'sum'`` their sum;
    * None: None; any other object: the first piece's.

    Variables are joined with differentiable functions (``copy``, ``concat``,
    multiplication and addition), so the gradient flows back to each piece.

    Args:
        outputs: The result of each device that ran, in chunk order.
        sizes: The number of examples behind each result.
        device: Where the joined result lives.
        batch_dim: The batch axis.
        scalar_reduce: ``'mean'`` or ``'sum'``.

    Returns:
        The joined result.

    Raises:
        ValueError: The results differ in structure, or ``outputs`` is empty.
        TypeError: A leaf is a Variable in one result and not in another.
    """
    if scalar_reduce not in ('mean', 'sum'):
        raise ValueError(f"scalar_reduce must be 'mean' or 'sum', got {scalar_reduce!r}")
    if not outputs or len(outputs) != len(sizes):
        raise ValueError(f'gather needs one size per output, got {len(outputs)} outputs and '
                         f'{len(sizes)} sizes')
    total = sum(sizes)
    if scalar_reduce == 'mean':
        coefficients = [size / total for size in sizes]
    else:
        coefficients = [1.0] * len(sizes)
    return _gather_node(list(outputs), coefficients, device, batch_dim, 'output')


def _gather_node(pieces: list[Any], coefficients: list[float], device: Device,
                 batch_dim: int, path: str) -> Any:
    first = pieces[0]
    if isinstance(first, Variable) or _is_array(first):
        _check_same_kind(pieces, path)
        if first.ndim > batch_dim:
            return _concat(pieces, device, batch_dim)
        return _weighted_sum(pieces, coefficients, device)
    if first is None:
        return None
    if isinstance(first, (tuple, list)):
        _check_same_length(pieces, path)
        items = [_gather_node([piece[i] for piece in pieces], coefficients, device, batch_dim,
                              f'{path}[{i}]') for i in range(len(first))]
        if hasattr(first, '_fields'):
            return type(first)(*items)
        return type(first)(items)
    if isinstance(first, dict):
        keys = list(first)
        for piece in pieces[1:]:
            if not isinstance(piece, dict) or set(piece) != set(keys):
                raise ValueError(f'the devices returned different structures at {path}: '
                                 f'keys {sorted(map(str, keys))} vs {_describe(piece)}')
        return type(first)((key, _gather_node([piece[key] for piece in pieces], coefficients,
                                               device, batch_dim, f'{path}[{key!r}]'))
                           for key in keys)
    if isinstance(first, numbers.Number) and not isinstance(first, bool):
        return sum(coefficient * piece for coefficient, piece in zip(coefficients, pieces,
                                                                     strict=True))
    return first


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return f'keys {sorted(map(str, value))}'
    return f'a {type(value).__name__}'


def _check_same_kind(pieces: list[Any], path: str) -> None:
    want = isinstance(pieces[0], Variable)
    for piece in pieces[1:]:
        if isinstance(piece, Variable) != want or not (want or _is_array(piece)):
            raise TypeError(f'the devices returned different kinds of value at {path}: '
                            f'{type(pieces[0]).__name__} and {type(piece).__name__}')


def _check_same_length(pieces: list[Any], path: str) -> None:
    first = pieces[0]
    for piece in pieces[1:]:
        if not isinstance(piece, (tuple, list)) or len(piece) != len(first):
            raise ValueError(f'the devices returned different structures at {path}: a '
                             f'{type(first).__name__} of {len(first)} and {_describe(piece)}'
                             + (f' of {len(piece)}' if isinstance(piece, (tuple, list)) else ''))


def _concat(pieces: list[Any], device: Device, batch_dim: int) -> Any:
    if isinstance(pieces[0], Variable):
        from catena.functions.array.concat import concat
        from catena.functions.array.copy import copy

        moved = [copy(piece, device) for piece in pieces]
        return moved[0] if len(moved) == 1 else concat(moved, axis=batch_dim)
    arrays = [device.send_array(piece) for piece in pieces]
    return arrays[0] if len(arrays) == 1 else device.xp.concatenate(arrays, axis=batch_dim)


def _weighted_sum(pieces: list[Any], coefficients: list[float], device: Device) -> Any:
    if isinstance(pieces[0], Variable):
        from catena.functions.array.copy import copy

        moved = [copy(piece, device) for piece in pieces]
    else:
        moved = [device.send_array(piece) for piece in pieces]
    result = None
    for coefficient, piece in zip(coefficients, moved, strict=True):
        term = piece if coefficient == 1.0 else piece * coefficient
        result = term if result is None else result + term
    return result

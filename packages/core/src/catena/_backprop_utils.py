"""One step of backprop on gradient lists (Chainer's ``chainer._backprop_utils``).

catena's own backprop loop lives in :mod:`catena._backprop`; this module
offers the step-wise helpers that Chainer exposes under this name, for code
that drives backprop one function at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import _backprop
from catena.configuration import config


def _reduce(grad_list: list[Any]) -> Any:
    """Sums the gradients in ``grad_list`` in place; returns the sum, or None if empty."""
    if not grad_list:
        return None
    if len(grad_list) >= 2:
        total = grad_list[0]
        for grad in grad_list[1:]:
            total = total + grad
        grad_list[:] = [total]
    return grad_list[0]


def backprop_step(func: Any, target_input_indexes: Sequence[int],
                  grad_outputs: Sequence[Any], grad_inputs: dict[Any, list[Any]],
                  is_debug: bool) -> None:
    """Runs the backward of ``func`` and adds the results to ``grad_inputs``.

    Args:
        func: The :class:`~catena.FunctionNode` (its ``inputs`` must be set).
        target_input_indexes: The inputs whose gradients are needed.
        grad_outputs: The gradients of the outputs (None for zero).
        grad_inputs: A list of gradient Variables per input node; the new
            gradients are summed into it (appended when the configuration's
            ``lazy_grad_sum`` is on).
        is_debug: Whether to check what the backward method returned.
    """
    indexes = tuple(target_input_indexes)
    grad_outputs = tuple(grad_outputs)
    nodes = func.inputs
    if type(func).backward_accumulate is not _backprop._default_backward_accumulate:
        seen = set()
        previous = []
        for index in indexes:
            node = nodes[index]
            # A node given twice receives its accumulated gradient once.
            previous.append(None if node in seen else _reduce(grad_inputs[node]))
            seen.add(node)
        gxs = tuple(func.backward_accumulate(indexes, grad_outputs, tuple(previous)))
        _check_count(func, indexes, gxs)
        if is_debug:
            _check(func, indexes, gxs)
        for index, gx in zip(indexes, gxs):
            grad_list = grad_inputs[nodes[index]]
            del grad_list[:]
            if gx is not None:
                grad_list.append(gx)
        return
    gxs = func._targets_only(indexes, func.backward(indexes, grad_outputs))
    if is_debug:
        _check(func, indexes, gxs)
    for index, gx in zip(indexes, gxs):
        if gx is None:
            continue
        grad_list = grad_inputs[nodes[index]]
        grad_list.append(gx)
        if not config.lazy_grad_sum:
            _reduce(grad_list)


def _check_count(func: Any, indexes: tuple[int, ...], gxs: tuple[Any, ...]) -> None:
    if len(gxs) != len(indexes):
        raise ValueError(
            f'number of gradients returned from backward_accumulate is incorrect: '
            f'{func.label} returned {len(gxs)} for {len(indexes)} target inputs')


def _check(func: Any, indexes: tuple[int, ...], gxs: tuple[Any, ...]) -> None:
    for index, gx in zip(indexes, gxs):
        if gx is None:
            continue
        _backprop.check_returned_gradient(func, index, gx, func.inputs[index].shape)
    func._check_finite('Backward', [None if gx is None else gx.array for gx in gxs])

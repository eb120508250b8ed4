"""Backpropagation: :func:`backward`, :func:`grad` and the backprop modes."""

from __future__ import annotations

import contextlib
import heapq
from collections.abc import Sequence
from typing import Any

from catena import _function_hooks
from catena.configuration import config, using_config
from catena.variable import Variable
from catena.variable_node import VariableNode


def no_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Disables graph construction within a ``with`` block.

    Functions applied inside the block return variables without a creator,
    which saves memory when no gradient is needed (evaluation, inference).
    """
    return using_config('enable_backprop', False)


def force_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Enables graph construction within a ``with`` block, even inside
    :func:`no_backprop_mode`."""
    return using_config('enable_backprop', True)


_UNSET = object()


class _backprop_mode:  # noqa: N801 - used like the context-manager functions beside it
    """Configures the nodes that backward methods apply.

    Without double backprop no graph is recorded, and their type checks are
    skipped unless debug mode is on: their inputs come from the framework, and
    every gradient's shape and dtype is checked against its input anyway.

    It writes the calling thread's configuration directly (what
    :func:`using_config` does for one key): backprop enters it once per call,
    and a generator-based context manager would cost more than a small
    backward pass.
    """

    __slots__ = ('_enable_double_backprop', '_saved')

    def __init__(self, enable_double_backprop: bool) -> None:
        self._enable_double_backprop = enable_double_backprop

    def __enter__(self) -> None:
        local = config.__dict__
        self._saved = (local.get('enable_backprop', _UNSET), local.get('type_check', _UNSET))
        local['enable_backprop'] = self._enable_double_backprop
        if not self._enable_double_backprop and not config.debug:
            local['type_check'] = False

    def __exit__(self, *exc_info: object) -> None:
        local = config.__dict__
        for key, value in zip(('enable_backprop', 'type_check'), self._saved):
            if value is _UNSET:
                local.pop(key, None)
            else:
                local[key] = value


def backward(outputs: Sequence[Variable], grad_outputs: Sequence[Any] | None = None, *,
             retain_grad: bool = False, enable_double_backprop: bool = False,
             loss_scale: float | None = None) -> None:
    """Runs backpropagation from several output variables at once.

    Args:
        outputs: The variables to start from.
        grad_outputs: Their initial gradients (Variables or arrays); None, or
            a None entry, means the output's ``grad``, or ones for an output of
            size one.
        retain_grad: Keep the gradients of intermediate variables too.
        enable_double_backprop: Record the backward computation as a graph.
        loss_scale: Multiplies the initial gradients (see
            :meth:`Variable.backward`).
    """
    if isinstance(outputs, Variable):
        raise TypeError('catena.backward takes a sequence of Variables as outputs; '
                        'for one variable call y.backward() or pass [y]')
    outputs = tuple(outputs)
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    elif len(grad_outputs) != len(outputs):
        raise ValueError(f'grad_outputs has {len(grad_outputs)} entries but there are '
                         f'{len(outputs)} outputs')
    roots = []
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            gy = _initial_grad(y)
        elif not isinstance(gy, Variable):
            gy = Variable(gy, requires_grad=False)
        if gy is None:
            continue
        if loss_scale is not None:
            gy = _scaled(gy, loss_scale)
        roots.append((y, gy))
    _run(roots, None, retain_grad, enable_double_backprop, loss_scale)


def _initial_grad(y: Variable) -> Variable | None:
    if y._grad_var is not None:
        return y._grad_var
    if y._data is None:
        return None
    if y._data.size != 1:
        raise ValueError(
            f'cannot start backward from a variable of shape {y.shape} without a gradient: '
            'set its grad first (y.grad = xp.ones_like(y.array)) or reduce it to one element '
            '(catena.functions.sum)')
    y.grad = y.xp.ones_like(y._data)
    return y._grad_var


def grad(outputs: Sequence[Variable], inputs: Sequence[Variable],
         grad_outputs: Sequence[Any] | None = None, grad_inputs: Sequence[Any] | None = None,
         set_grad: bool = False, retain_grad: bool = False,
         enable_double_backprop: bool = False, loss_scale: float | None = None
         ) -> list[Variable | None]:
    """Computes the gradients of ``outputs`` with respect to ``inputs``.

    Unlike :meth:`Variable.backward`, no ``grad`` attribute changes unless
    ``set_grad`` is True.

    Args:
        outputs: The variables to differentiate.
        inputs: The variables to differentiate with respect to.
        grad_outputs: Initial gradients of the outputs (None: ones for
            single-element outputs).
        grad_inputs: Gradients added to those of the inputs.
        set_grad: Also store the results in the inputs' ``grad_var``.
        retain_grad: Store the gradients of intermediate variables.
        enable_double_backprop: Record the computation so that the results
            can be differentiated again.
        loss_scale: Multiplies the initial gradients.

    Returns:
        list: One gradient Variable (or None when unreachable) per input.
    """
    if isinstance(outputs, Variable) or isinstance(inputs, Variable):
        raise TypeError('catena.grad takes sequences of Variables as outputs and inputs')
    outputs = tuple(outputs)
    inputs = tuple(inputs)
    for index, x in enumerate(inputs):
        if not isinstance(x, Variable):
            raise TypeError(f'inputs[{index}] must be a Variable; got {type(x).__name__}')
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    roots = []
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            if y._data is None:
                continue
            if y._data.size != 1:
                raise ValueError(f'grad_outputs must be given for outputs of size other than '
                                 f'one; an output has shape {y.shape}')
            gy = Variable(y.xp.ones_like(y._data), requires_grad=False)
        elif not isinstance(gy, Variable):
            gy = Variable(gy, requires_grad=False)
        if loss_scale is not None:
            gy = _scaled(gy, loss_scale)
        roots.append((y, gy))

    targets = {x.node: None for x in inputs}
    found = _run(roots, targets, retain_grad, enable_double_backprop, loss_scale)
    results: list[Variable | None] = [found.get(x.node) for x in inputs]
    if grad_inputs is not None:
        for index, extra in enumerate(grad_inputs):
            if extra is None:
                continue
            if not isinstance(extra, Variable):
                extra = Variable(extra, requires_grad=False)
            current = results[index]
            results[index] = extra if current is None else current + extra
    if set_grad:
        for x, gx in zip(inputs, results):
            x.grad_var = gx
    return results


def _run(roots: list[tuple[Variable, Variable]], targets: dict[VariableNode, Any] | None,
         retain_grad: bool, enable_double_backprop: bool,
         loss_scale: float | None) -> dict[VariableNode, Variable]:
    """The backprop loop shared by :func:`backward` and :func:`grad`.

    With ``targets`` None (``backward``), leaf gradients are added to the
    leaves' ``grad``. Otherwise the gradients of the target nodes are returned
    and no variable is changed.
    """
    grads: dict[VariableNode, Any] = {}
    found: dict[VariableNode, Variable] = {}
    heap: list[tuple[int, int, Any]] = []
    queued = set()
    order = 0
    gy: Any
    for y, gy in roots:
        node = y.node
        _accumulate(grads, node, gy)
        creator = node.creator_node
        if creator is not None and creator not in queued:
            queued.add(creator)
            heap.append((-creator.rank, order, creator))
            order += 1
    heapq.heapify(heap)
    is_debug = config.debug

    with _backprop_mode(enable_double_backprop):
        # A leaf among the outputs is delivered with the other leaves at the end,
        # its initial gradient added to what reaches it through the graph;
        # unless that gradient is the leaf's own grad (y.backward() on a leaf).
        if targets is None:
            for y, _ in roots:
                node = y.node
                if node.creator_node is None and grads.get(node) is y._grad_var:
                    del grads[node]
        pop = grads.pop
        heappop = heapq.heappop
        heappush = heapq.heappush
        # The node to process next is kept out of the heap when it is known to
        # have the highest rank: in a chain the heap is then never touched.
        ready = None
        while True:
            if ready is not None:
                func = ready
                ready = None
            elif heap:
                func = heappop(heap)[2]
            else:
                break
            refs = func.outputs
            if len(refs) == 1:
                node = refs[0]()
                gy = None if node is None else pop(node, None)
                if gy is None:
                    continue
                output_nodes: Any = (node,)
                gys: Any = (gy,)
            else:
                output_nodes = [ref() for ref in refs]
                gys = tuple([None if node is None else pop(node, None)
                             for node in output_nodes])
                if all([gy is None for gy in gys]):
                    continue
            if targets is not None:
                _collect_targets(output_nodes, gys, targets, found)
            if retain_grad:
                _retain_output_grads(output_nodes, gys)
            in_nodes = func.inputs
            if len(in_nodes) == 1:
                target_indexes: Any = (0,) if in_nodes[0].requires_grad else ()
            else:
                target_indexes = tuple([i for i, x in enumerate(in_nodes) if x.requires_grad])
            if not target_indexes:
                continue
            try:
                if _function_hooks.n_registered or func._local_function_hooks or \
                        func.__class__.backward_accumulate is not _default_backward_accumulate:
                    gxs = _call_backward(func, target_indexes, gys, grads, in_nodes)
                else:
                    gxs = func.backward(target_indexes, gys)
                    if len(gxs) != len(target_indexes):
                        gxs = func._targets_only(target_indexes, gxs)
            except Exception as error:
                _note(error, f'raised in the backward pass of {func.label}'
                      + _creation_site(func))
                raise
            if is_debug:
                func._check_finite('Backward', [None if g is None else g._data for g in gxs])
            for index, gx in zip(target_indexes, gxs):
                if gx is None:
                    continue
                node = in_nodes[index]
                if gx.__class__ is not Variable or gx._data.shape != node.shape or \
                        gx._data.dtype != node.dtype:
                    _check_grad_matches(func, index, node, gx)
                previous = grads.get(node)
                if previous is not None:
                    gx = previous + gx if enable_double_backprop else _add_arrays(previous, gx)
                grads[node] = gx
                creator = node.creator_node
                if creator is not None and creator not in queued:
                    queued.add(creator)
                    if ready is None:
                        if not heap or creator.rank >= -heap[0][0]:
                            ready = creator
                            continue
                    elif creator.rank > ready.rank:
                        heappush(heap, (-ready.rank, order, ready))
                        order += 1
                        ready = creator
                        continue
                    heappush(heap, (-creator.rank, order, creator))
                    order += 1
        for node in list(grads):
            if node.creator_node is None:
                _deliver(node, grads.pop(node), targets, found, loss_scale)
    return found


def _note(error: Exception, text: str) -> None:
    if hasattr(error, 'add_note'):  # Python 3.11+
        error.add_note(text)


def _creation_site(func: Any) -> str:
    """Where ``func`` was applied, when debug mode recorded it."""
    stack = func.stack
    if not stack:
        return ''
    frame = stack[-1]
    return f' (applied at {frame.filename}:{frame.lineno})'


def _add_arrays(a: Variable, b: Variable) -> Variable:
    """Sums two gradients without recording a node (no double backprop)."""
    total = a._data + b._data
    if total.__class__ is not a._data.__class__:
        total = a.xp.asarray(total)
    return Variable(total, requires_grad=False)


def _collect_targets(output_nodes: Any, gys: Any, targets: dict[VariableNode, Any],
                     found: dict[VariableNode, Variable]) -> None:
    for node, gy in zip(output_nodes, gys):
        if node is not None and node in targets and gy is not None:
            found[node] = gy


def _retain_output_grads(output_nodes: Any, gys: Any) -> None:
    for node, gy in zip(output_nodes, gys):
        variable = None if node is None else node._variable()
        if variable is not None and gy is not None:
            variable._grad_var = gy


def _scaled(gy: Variable, loss_scale: float) -> Variable:
    """The initial gradient multiplied by the loss scale, in its own dtype."""
    scaled = gy.array.copy()
    scaled *= scaled.dtype.type(loss_scale)
    return Variable(scaled, requires_grad=False)


def _accumulate(grads: dict[VariableNode, Variable], node: VariableNode, gx: Variable) -> None:
    previous = grads.get(node)
    grads[node] = gx if previous is None else previous + gx


def _deliver(node: VariableNode, gx: Variable | None, targets: dict[VariableNode, Any] | None,
             found: dict[VariableNode, Variable], loss_scale: float | None) -> None:
    """Hands the final gradient of a leaf to its variable or to the results."""
    if gx is None:
        return
    if targets is not None:
        if node in targets:
            found[node] = gx
        return
    if not node.requires_grad:
        return
    variable = node.get_variable_or_none()
    if variable is None:
        return
    existing = variable._grad_var
    variable._grad_var = gx if existing is None else existing + gx
    if loss_scale is not None:
        variable._loss_scale = loss_scale


def _call_backward(func: Any, target_indexes: tuple[int, ...], gys: tuple[Any, ...],
                   grads: dict[VariableNode, Variable],
                   in_nodes: tuple[VariableNode, ...]) -> tuple[Any, ...]:
    hooks = _function_hooks.active_hooks(func)
    if hooks:
        in_data = tuple([x.data for x in in_nodes])
        out_grad = tuple([None if g is None else g._data for g in gys])
        for hook in hooks:
            hook.backward_preprocess(func, in_data, out_grad)
    if type(func).backward_accumulate is _default_backward_accumulate:
        gxs = func._targets_only(target_indexes, func.backward(target_indexes, gys))
    else:
        previous = tuple([grads.pop(in_nodes[i], None) for i in target_indexes])
        gxs = func.backward_accumulate(target_indexes, gys, previous)
    if hooks:
        for hook in hooks:
            hook.backward_postprocess(func, in_data, out_grad)
    return gxs


def _check_grad_matches(func: Any, index: int, node: VariableNode, gx: Any) -> None:
    if not isinstance(gx, Variable):
        raise TypeError(f'{func.label}.backward returned a {type(gx).__name__} for input '
                        f'{index}; gradients must be Variables (or None)')
    array = gx._data
    if array.shape != node.shape or array.dtype != node.dtype:
        if array.shape != node.shape:
            what, got, expected = 'shape', array.shape, node.shape
        else:
            what, got, expected = 'dtype', array.dtype, node.dtype
        raise ValueError(
            f'{func.label}.backward returned a gradient of {what} {got} for input {index}, '
            f'whose {what} is {expected}')


def unchain_backward(variable: Variable) -> None:
    """Removes every creator reference reachable backwards from ``variable``."""
    node = variable._node
    if node is None:
        return
    pending = [node.creator_node] if node.creator_node is not None else []
    node.creator_node = None
    seen = set()
    while pending:
        func = pending.pop()
        if func in seen:
            continue
        seen.add(func)
        for x in func.inputs or ():
            if x.creator_node is not None:
                pending.append(x.creator_node)
                x.creator_node = None


def _default_backward_accumulate_ref() -> Any:
    from catena.function_node import FunctionNode

    return FunctionNode.backward_accumulate


_default_backward_accumulate = _default_backward_accumulate_ref()

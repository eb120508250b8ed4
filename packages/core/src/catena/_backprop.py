"""Backpropagation: :func:`backward`, :func:`grad` and the backprop modes."""

from __future__ import annotations

import contextlib
import heapq
import traceback
import warnings
from collections.abc import Sequence
from typing import Any

from catena import _engine, _function_hooks
from catena.configuration import config, flags, using_config
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
        # The keys are written to both config and flags (see configuration.flags).
        local = config.__dict__
        fast = flags.__dict__
        self._saved = (local.get('enable_backprop', _UNSET), local.get('type_check', _UNSET))
        local['enable_backprop'] = fast['enable_backprop'] = self._enable_double_backprop
        if not self._enable_double_backprop and not flags.debug:
            local['type_check'] = fast['type_check'] = False

    def __exit__(self, *exc_info: object) -> None:
        local = config.__dict__
        fast = flags.__dict__
        for key, value in zip(('enable_backprop', 'type_check'), self._saved):
            if value is _UNSET:
                local.pop(key, None)
                fast.pop(key, None)
            else:
                local[key] = fast[key] = value


def backward(outputs: Sequence[Variable], grad_outputs: Sequence[Any] | None = None, *,
             retain_grad: bool = False, enable_double_backprop: bool = False,
             loss_scale: float | None = None) -> None:
    """Runs backpropagation from several output variables at once.

    The outputs' gradients are consumed: unless ``retain_grad``, their
    ``grad`` is None afterwards.

    Args:
        outputs: The variables to start from (a tuple or list).
        grad_outputs: Their initial gradients (Variables or arrays), as a tuple
            or list; None, or a None entry, means the output's ``grad``. An
            output without any gradient is skipped with a RuntimeWarning, and
            so is an output given twice.
        retain_grad: Keep the gradients of intermediate variables too.
        enable_double_backprop: Record the backward computation as a graph.
        loss_scale: Multiplies the initial gradients (see
            :meth:`Variable.backward`).
    """
    if not isinstance(outputs, (tuple, list)):
        raise TypeError('catena.backward takes the outputs as a tuple or list of Variables; '
                        'for one variable call y.backward() or pass [y]')
    if grad_outputs is not None and not isinstance(grad_outputs, (tuple, list)):
        raise TypeError('catena.backward takes grad_outputs as a tuple or list; got '
                        f'{type(grad_outputs).__name__}')
    outputs = tuple(outputs)
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    elif len(grad_outputs) != len(outputs):
        raise ValueError(f'grad_outputs has {len(grad_outputs)} entries but there are '
                         f'{len(outputs)} outputs')
    roots = []
    seen = set()
    for index, (y, gy) in enumerate(zip(outputs, grad_outputs)):
        if id(y) in seen:
            warnings.warn(f'outputs[{index}] is given more than once; its gradient is used '
                          'once', RuntimeWarning, stacklevel=2)
            continue
        seen.add(id(y))
        if y._vnode is not None:
            y._vnode._check_old_style_gradient()
        if gy is None:
            gy = y._grad_var
            if gy is None:
                warnings.warn(f'outputs[{index}] has no gradient (set its grad or pass '
                              'grad_outputs); it is skipped', RuntimeWarning, stacklevel=2)
                continue
        elif not isinstance(gy, Variable):
            gy = Variable(gy, requires_grad=False)
        if loss_scale is not None:
            gy = _scaled(gy, loss_scale)
        roots.append((y, gy))
    _run(roots, None, retain_grad, enable_double_backprop, loss_scale)
    if not retain_grad:
        for y, _ in roots:
            if y._vnode is not None and y._vnode.creator_node is not None:
                y._grad_var = None


def backward_from_variable(y: Variable, retain_grad: bool, enable_double_backprop: bool,
                           loss_scale: float | None) -> None:
    """:meth:`Variable.backward`: backprop from ``y``, consuming its gradient.

    Nothing happens for a variable without a creator. A single-element
    variable without a gradient starts from ones (a warning is issued unless
    it is a scalar). Unless ``retain_grad``, ``y.grad_var`` is cleared
    afterwards: the gradient has been passed on to the graph.
    """
    node = y._vnode
    if node is None:
        return
    node._check_old_style_gradient()
    if node.creator_node is None:
        return
    if y._grad_var is None and y._data is not None and y._data.size == 1 \
            and y._data.ndim != 0:
        warnings.warn(
            'Treating a variable with only one element as a scalar in Variable.backward is '
            'deprecated: apply catena.functions.squeeze to get a 0-dimensional variable, or '
            'set its grad explicitly.', DeprecationWarning, stacklevel=3)
    gy = _initial_grad(y)
    if gy is None:
        return
    if loss_scale is not None:
        gy = _scaled(gy, loss_scale)
    _run([(y, gy)], None, retain_grad, enable_double_backprop, loss_scale)
    if not retain_grad:
        y._grad_var = None


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
        grad_outputs: Initial gradients of the outputs (None, or a None entry: ones
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
    for what, value in (('outputs', outputs), ('inputs', inputs),
                        ('grad_outputs', grad_outputs), ('grad_inputs', grad_inputs)):
        if value is not None and not isinstance(value, (tuple, list)):
            raise TypeError(f'catena.grad takes {what} as a tuple or list; '
                            f'got {type(value).__name__}')
    outputs = tuple(outputs)
    inputs = tuple(inputs)
    if grad_outputs is not None and len(grad_outputs) != len(outputs):
        raise ValueError(f'grad_outputs has {len(grad_outputs)} entries but there are '
                         f'{len(outputs)} outputs')
    if grad_inputs is not None and len(grad_inputs) != len(inputs):
        raise ValueError(f'grad_inputs has {len(grad_inputs)} entries but there are '
                         f'{len(inputs)} inputs')
    for y in outputs:
        if isinstance(y, Variable) and y._vnode is not None:
            y._vnode._check_old_style_gradient()
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
            gy = Variable(y.xp.ones_like(y._data), requires_grad=False)
        elif not isinstance(gy, Variable):
            gy = Variable(gy, requires_grad=False)
        if loss_scale is not None:
            gy = _scaled(gy, loss_scale)
        roots.append((y, gy))

    targets = {x.node: None for x in inputs}
    # The given input gradients seed the table: an input inside the graph
    # passes its seed on to the variables it was computed from.
    seeds = []
    for x, extra in zip(inputs, grad_inputs or ()):
        if extra is not None:
            if not isinstance(extra, Variable):
                extra = Variable(extra, requires_grad=False)
            seeds.append((x.node, extra))
    found = _run(roots, targets, retain_grad, enable_double_backprop, loss_scale, seeds)
    results: list[Variable | None] = [found.get(x.node) for x in inputs]
    if set_grad:
        for x, gx in zip(inputs, results):
            x.grad_var = gx
    return results


def _run(roots: list[tuple[Variable, Variable]], targets: dict[VariableNode, Any] | None,
         retain_grad: bool, enable_double_backprop: bool,
         loss_scale: float | None,
         seeds: Sequence[tuple[VariableNode, Variable]] = ()) -> dict[VariableNode, Variable]:
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
    for node, gx in seeds:
        _accumulate(grads, node, gx)
    for y, gy in roots:
        node = y.node
        _accumulate(grads, node, gy)
        creator = node.creator_node
        if creator is not None and creator not in queued:
            queued.add(creator)
            heap.append((-creator.rank, order, creator))
            order += 1
    heapq.heapify(heap)
    is_debug = flags.debug

    with _backprop_mode(enable_double_backprop):
        # A leaf among the outputs is delivered with the other leaves at the end,
        # its initial gradient added to what reaches it through the graph;
        # unless that gradient is the leaf's own grad (y.backward() on a leaf).
        if targets is None:
            for y, _ in roots:
                node = y.node
                if node.creator_node is None and grads.get(node) is y._grad_var:
                    del grads[node]
        _propagate(heap, order, queued, grads, targets, found, retain_grad,
                   enable_double_backprop, is_debug)
        for node in list(grads):
            if node.creator_node is None:
                _deliver(node, grads.pop(node), targets, found, loss_scale)
        if targets is not None:
            for node in targets:
                if node not in found and node in grads:
                    found[node] = grads[node]  # a seed its creator never consumed
    return found


def _propagate(heap: list[tuple[int, int, Any]], order: int, queued: set[Any],
               grads: dict[VariableNode, Any], targets: dict[VariableNode, Any] | None,
               found: dict[VariableNode, Variable], retain_grad: bool,
               enable_double_backprop: bool, is_debug: bool) -> None:
    """Runs the queued functions' backward methods, highest rank first, until none is left.

    ``heap`` holds ``(-rank, order, function)`` entries (``order`` is the
    next free tie-breaker); ``grads`` maps each node to the gradient that
    reached it so far. The compiled engine runs its own copy of this loop
    (``catena._cengine.propagate``).
    """
    pop = grads.pop
    # The nodes whose gradient in grads is an array this loop allocated (a sum):
    # further gradients are added into it in place.
    owned: set[VariableNode] = set()
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
            # An output that was unchained no longer passes gradients to func.
            gy = None if node is None or node.creator_node is not func else pop(node, None)
            if gy is None:
                continue
            if owned:
                owned.discard(node)
            output_nodes: Any = (node,)
            gys: Any = (gy,)
        else:
            output_nodes = [ref() for ref in refs]
            gys = tuple([None if node is None or node.creator_node is not func
                         else pop(node, None) for node in output_nodes])
            if all([gy is None for gy in gys]):
                continue
            owned.difference_update(output_nodes)
        if targets is not None:
            _collect_targets(output_nodes, gys, targets, found)
        if retain_grad:
            _retain_output_grads(output_nodes, gys)
        in_nodes = func.inputs
        if len(in_nodes) == 1:
            target_indexes: Any = (0,) if in_nodes[0]._requires_grad else ()
        elif len(in_nodes) == 2:
            if in_nodes[0]._requires_grad:
                target_indexes = (0, 1) if in_nodes[1]._requires_grad else (0,)
            else:
                target_indexes = (1,) if in_nodes[1]._requires_grad else ()
        else:
            target_indexes = tuple([i for i, x in enumerate(in_nodes) if x._requires_grad])
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
            if is_debug:
                _debug_check_gradients(func, target_indexes, in_nodes, gxs, grads)
                _check_finite_gradients(func, gxs)
        except Exception as error:
            _backward_failed(error, func)
            raise
        for index, gx in zip(target_indexes, gxs):
            if gx is None:
                continue
            node = in_nodes[index]
            if gx.__class__ is not Variable or gx._data.shape != node.shape or (
                    gx._data.dtype is not node.dtype and gx._data.dtype != node.dtype):
                _check_grad_matches(func, index, node, gx)
            previous = grads.get(node)
            if previous is not None:
                gx = previous + gx if enable_double_backprop else \
                    _sum_gradients(previous, gx, node, owned)
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


def _check_finite_gradients(func: Any, gxs: Any) -> None:
    """Debug mode's check that no gradient a backward method returned holds NaN or Inf."""
    func._check_finite('Backward', [None if g is None else g._data for g in gxs])


def _backward_failed(error: Exception, func: Any) -> None:
    """Says in ``error`` which function's backward raised it, and where it was applied."""
    _note(error, f'raised in the backward pass of {func.label}' + _creation_site(func))
    if func.stack:
        _append_stack(error, func.stack)


def _note(error: Exception, text: str) -> None:
    if hasattr(error, 'add_note'):  # Python 3.11+
        error.add_note(text)


def _append_stack(error: Exception, stack: Any) -> None:
    """Adds where the failing function was applied to the message (debug mode)."""
    text = '\n' + _stack_text(stack)
    if error.args and isinstance(error.args[0], str):
        if 'Stacktrace of the function' not in error.args[0]:
            error.args = (error.args[0] + text,) + error.args[1:]
    elif not error.args:
        error.args = (text,)


def _creation_site(func: Any) -> str:
    """Where ``func`` was applied, when debug mode recorded it."""
    stack = func.stack
    if not stack:
        return ''
    frame = stack[-1]
    return f' (applied at {frame.filename}:{frame.lineno})'


def _sum_gradients(previous: Variable, gx: Variable, node: VariableNode,
                   owned: set[VariableNode]) -> Variable:
    """``previous + gx`` for ``node`` without a graph (no double backprop).

    The first sum allocates an array, which nothing outside the loop has
    seen; ``node`` goes into ``owned`` and later gradients are added into
    that array in place, as a parameter shared by many steps (an RNN's
    weights) collects one gradient per step.
    """
    if node in owned:
        array = previous._data
        array += gx._data
        return previous
    owned.add(node)
    return _add_arrays(previous, gx)


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
    node._check_old_style_gradient()
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
        raise TypeError(_blame(func) + f'{func.label}.backward returned a '
                        f'{type(gx).__name__} for input {index}; gradients must be Variables '
                        '(or None)')
    array = gx._data
    if array.dtype != node.dtype:
        raise TypeError(_blame(func) + f'Dtype of data and grad mismatch (input {index})\n'
                        f'grad: {array.dtype} != data: {node.dtype}')
    if array.shape != node.shape:
        raise ValueError(_blame(func) + f'Shape of data and grad mismatch (input {index})\n'
                         f'grad: {array.shape} != data: {node.shape}')


def check_returned_gradient(func: Any, index: int, gx: Any,
                            shape: tuple[int, ...] | None) -> None:
    """Debug mode's check of one gradient a backward method returned for input ``index``."""
    if not isinstance(gx, Variable):
        raise ValueError(
            f'type of gradients returned from backward is incorrect: {func.label} '
            f'returned a {type(gx).__name__} for input {index}; expected a Variable')
    if shape is not None and gx.shape != shape:
        raise ValueError(
            f'shape of gradients returned from backward is incorrect: {func.label} '
            f'returned {gx.shape} for input {index} of shape {shape}')


def _debug_check_gradients(func: Any, target_indexes: tuple[int, ...],
                           in_nodes: tuple[VariableNode, ...], gxs: Any,
                           grads: dict[VariableNode, Any]) -> None:
    """The checks of debug mode on what a backward method returned."""
    for index, gx in zip(target_indexes, gxs):
        if gx is None:
            continue
        node = in_nodes[index]
        check_returned_gradient(func, index, gx, node.shape)
        previous = grads.get(node)
        dtype = node.dtype if previous is None else previous.dtype
        if dtype is None:
            variable = node.get_variable_or_none()
            grad = None if variable is None else variable._grad_var
            dtype = None if grad is None else grad.dtype
        if dtype is not None and gx.dtype != dtype:
            raise ValueError(
                f'dtype of gradients returned from backward is incorrect: {func.label} '
                f'returned {gx.dtype} for input {index} of dtype {dtype}')


def _blame(func: Any) -> str:
    """The first lines of an error about a wrong gradient: which function, and where."""
    text = f'Function `{func._impl_name}` ({func.label}) returned a wrong gradient.\n'
    if func.stack:
        text += _stack_text(func.stack)
    return text


def _stack_text(stack: Any) -> str:
    return ('Stacktrace of the function is below:\n'
            + ''.join(traceback.format_list(stack)))


def unchain_backward(variable: Variable) -> None:
    """Removes every creator reference reachable backwards from ``variable``."""
    node = variable._vnode
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
_python_propagate = _propagate
_propagate = _engine.backprop_loop(_python_propagate)

"""``forget``: call a function without keeping its intermediate results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena._backprop import backward as _backward, force_backprop_mode, no_backprop_mode
from catena.configuration import config, using_config
from catena.function_node import FunctionNode
from catena.variable import Variable


def _ordinal(n: int) -> str:
    suffix = 'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')
    return f'{n}{suffix}'


def _call(func: Callable[..., Any], xs: tuple[Variable, ...]) -> tuple[Variable, ...]:
    """Calls ``func`` and returns its outputs as a tuple of Variables."""
    outs = func(*xs)
    if isinstance(outs, Variable):
        return (outs,)
    if not isinstance(outs, tuple):
        raise RuntimeError('forget: the function must return a Variable or a tuple of '
                           f'Variables, but it returned {type(outs)}')
    for index, out in enumerate(outs):
        if not isinstance(out, Variable):
            raise RuntimeError(f'forget: the {_ordinal(index + 1)} element of the tuple the '
                               f'function returned is not a Variable, but is {type(out)}')
    return outs


class _Pass(FunctionNode):
    """Identity that joins a recomputed graph to an input of :class:`Forget`.

    While :class:`Forget` backpropagates through the recomputed graph, it
    stops there (``blocked``), so that the walk stays inside the graph. It is
    then opened, so that gradients computed with double backprop reach the
    real input when they are differentiated in turn.
    """

    blocked = True

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs[0],

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return (None,) if self.blocked else grad_outputs


class Forget(FunctionNode):
    """Runs ``func`` without a graph and reruns it to backpropagate.

    Args:
        func: The function: it takes Variables and returns a Variable or a
            tuple of Variables.
    """

    def __init__(self, func: Callable[..., Any]) -> None:
        if not callable(func):
            raise TypeError(f'forget: func must be callable; got {type(func).__name__}')
        self.func = func

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        with no_backprop_mode(), using_config('_will_recompute', True):
            outs = _call(self.func, tuple(Variable(x) for x in inputs))
        return tuple(out.array for out in outs)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        double_backprop = config.enable_backprop
        passes = [_Pass() for _ in indexes]
        inputs = self.get_retained_inputs()
        with force_backprop_mode(), using_config('in_recomputing', True):
            stand_ins = [Variable(x.array, requires_grad=False) for x in inputs]
            for index, node in zip(indexes, passes):
                stand_ins[index] = node.apply((inputs[index],))[0]
            outs = _call(self.func, tuple(stand_ins))
        if len(outs) != len(grad_outputs):
            raise RuntimeError(f'forget: the function returned {len(outs)} outputs when '
                               f'recomputed, but {len(grad_outputs)} the first time')
        roots = [(y, gy) for y, gy in zip(outs, grad_outputs) if gy is not None]
        # Backpropagate through the recomputed graph: this also gives their
        # gradients to variables func uses besides its inputs (link parameters),
        # as a graph of its own would. The stand-ins keep theirs (retain_grad).
        _backward([y for y, _ in roots], [gy for _, gy in roots], retain_grad=True,
                  enable_double_backprop=double_backprop)
        for node in passes:
            node.blocked = False
        return tuple(stand_ins[index].grad_var for index in indexes)


def forget(func: Callable[..., Any], *xs: Any) -> Variable | tuple[Variable, ...]:
    """Calls a function without storing its intermediate results.

    ``func`` runs without building a graph, so none of its intermediate
    arrays are kept; backpropagation calls it again (with
    ``catena.config.in_recomputing`` set to True) to rebuild the graph it
    needs. This trades computation time for memory. Variables that ``func``
    uses besides ``xs``, such as link parameters, get their gradients as
    usual. Double backpropagation is supported (the function is then
    recomputed again for each order).

    ``func`` must give the same results when called again with the same
    inputs: random functions such as :func:`~catena.functions.dropout` do
    not qualify.

    Args:
        func: The function to call: it takes Variables and returns a Variable
            or a tuple of Variables.
        xs: Its arguments: Variables, or arrays (turned into Variables that
            require grad, so that the call is part of the graph).

    Returns:
        Variable or tuple: What ``func`` returns; a single Variable when it
        returns one output (also as a one-element tuple).

    Raises:
        TypeError: If ``func`` is not callable.
        RuntimeError: If ``func`` returns something other than Variables.

    .. admonition:: Example

        >>> def f(a, b):
        ...     return F.tanh(a * b) + a
        >>> x = catena.Variable(np.array([1.0, 2.0], dtype=np.float32))
        >>> y = catena.Variable(np.array([0.5, 0.5], dtype=np.float32))
        >>> z = F.forget(f, x, y)  # tanh(a * b) and a * b are not kept
        >>> F.sum(z).backward()
        >>> x.grad.round(4)
        array([1.3932, 1.21  ], dtype=float32)
    """
    variables = tuple(x if isinstance(x, Variable) else Variable(x, requires_grad=True)
                      for x in xs)
    ys = Forget(func).apply(variables)
    if len(ys) == 1:
        return ys[0]
    return ys

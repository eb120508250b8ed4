"""The driver that every ``n_step_*`` function shares (:func:`n_step_rnn_impl`).

It validates the arguments, projects the inputs of a whole layer with one
GEMM, and steps in Python over time only, each step working on the whole
mini-batch of that time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from catena.functions.array.concat import concat
from catena.functions.array.get_item import get_item
from catena.functions.array.separate import separate
from catena.functions.array.stack import stack
from catena.functions.connection.linear import linear
from catena.functions.noise.dropout import dropout
from catena.functions.rnn._cell import split
from catena.variable import Variable


class RNNCell(Protocol):
    """What :func:`n_step_rnn_impl` needs from a kind of recurrent cell."""

    #: The function's name, for messages.
    name: str
    #: How many weight matrices (and bias vectors) a layer has.
    n_weights: int
    #: How many of them multiply the layer's input (the others multiply ``h``).
    n_input_weights: int

    def prepare(self, w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, ...]:
        """Returns ``(W_x, b_x, *params)``: the input projection and the step's parameters."""

    def step(self, gx: Any, h: Any, c: Any, params: tuple[Any, ...]) -> tuple[Any, Any]:
        """Returns the new ``(h, c)`` from the projected input ``gx`` of one time step."""


def _shape(value: Any) -> tuple[int, ...]:
    return tuple(getattr(value, 'shape', ()))


def _check_arguments(cell: RNNCell, n_layers: Any, dropout_ratio: Any, hx: Any, cx: Any,
                     ws: Any, bs: Any, xs: Any, directions: int) -> None:
    """Raises ValueError or TypeError, naming the argument, unless the shapes fit together."""
    name = cell.name
    if isinstance(n_layers, bool) or not isinstance(n_layers, int) or n_layers < 1:
        raise ValueError(f'{name}: n_layers must be a positive int; got {n_layers!r}')
    if not 0.0 <= dropout_ratio < 1.0:
        raise ValueError(f'{name}: dropout_ratio must be in [0, 1); got {dropout_ratio!r}')
    n_states = n_layers * directions
    if hx is None or len(_shape(hx)) != 3 or _shape(hx)[0] != n_states:
        raise ValueError(f'{name}: hx must have shape (n_layers * {directions}, B, N) = '
                         f'({n_states}, B, N); got {_shape(hx) if hx is not None else None}')
    _, batch, n_units = _shape(hx)
    if cx is not None and _shape(cx) != _shape(hx):
        raise ValueError(f'{name}: cx must have the shape of hx {_shape(hx)}; '
                         f'got {_shape(cx)}')
    if not isinstance(xs, (list, tuple)):
        raise TypeError(f'{name}: xs must be a list of arrays, one per time step '
                        f'(shape (B_t, I)); got {type(xs).__name__}')
    for label, params in (('ws', ws), ('bs', bs)):
        if not isinstance(params, (list, tuple)) or len(params) != n_states:
            got = len(params) if isinstance(params, (list, tuple)) else type(params).__name__
            raise ValueError(f'{name}: {label} must be a list of n_layers * {directions} = '
                             f'{n_states} lists; got {got}')
        for i, layer_params in enumerate(params):
            if not isinstance(layer_params, (list, tuple)) or \
                    len(layer_params) != cell.n_weights:
                got = (len(layer_params) if isinstance(layer_params, (list, tuple))
                       else type(layer_params).__name__)
                raise ValueError(f'{name}: {label}[{i}] must hold {cell.n_weights} '
                                 f'{"matrices" if label == "ws" else "vectors"}; got {got}')
    in_size = (_shape(xs[0]) if xs and len(_shape(xs[0])) == 2 else
               _shape(ws[0][0]) or (0,))[-1]
    for i, (w, b) in enumerate(zip(ws, bs)):
        layer_in = in_size if i < directions else n_units * directions
        for j in range(cell.n_weights):
            expected = (n_units, layer_in if j < cell.n_input_weights else n_units)
            if _shape(w[j]) != expected:
                raise ValueError(f'{name}: ws[{i}][{j}] must have shape {expected} (N = '
                                 f'{n_units} from hx, input size {layer_in}); '
                                 f'got {_shape(w[j])}')
            if _shape(b[j]) != (n_units,):
                raise ValueError(f'{name}: bs[{i}][{j}] must have shape ({n_units},); '
                                 f'got {_shape(b[j])}')
    previous = batch
    for t, x in enumerate(xs):
        shape = _shape(x)
        if len(shape) != 2 or shape[1] != in_size:
            raise ValueError(f'{name}: xs[{t}] must have shape (B_t, {in_size}); got {shape}')
        if shape[0] > previous:
            what = 'hx.shape[1]' if t == 0 else f'xs[{t - 1}].shape[0]'
            raise ValueError(
                f'{name}: the batch sizes must not increase: xs[{t}].shape[0] = {shape[0]} > '
                f'{what} = {previous} (sort the sequences by decreasing length and '
                'transpose them with transpose_sequence)')
        previous = shape[0]


def _rows(x: Any, start: int, stop: int) -> Any:
    return x if start == 0 and stop == x.shape[0] else get_item(x, slice(start, stop))


def _one_direction(cell: RNNCell, x: Any, params: tuple[Any, ...], batch_sizes: list[int],
                   offsets: list[int], h0: Any, c0: Any, reverse: bool
                   ) -> tuple[Any, Any, Any]:
    """Runs one layer in one direction over the packed input ``x``.

    The running state holds the rows of the sequences active at the current
    time only. Going forward in time the batch shrinks: the rows of the
    sequences that ended are parked. Going backward it grows: rows of
    ``h0`` (and ``c0``) join as their sequences start.

    Returns:
        tuple: The final ``h`` and ``c`` (all rows) and the packed outputs.
    """
    gx_all = linear(x, params[0], params[1])
    gxs = (gx_all,) if len(batch_sizes) == 1 else split(gx_all, offsets, 0)
    h = c = None
    active = 0
    parked: list[tuple[Any, Any]] = []
    outputs: list[Any] = [None] * len(batch_sizes)
    steps = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    for t in steps:
        size = batch_sizes[t]
        if h is None:
            h = _rows(h0, 0, size)
            c = None if c0 is None else _rows(c0, 0, size)
        elif size < active:
            h, h_done = split(h, [size], 0)
            c_done = None
            if c is not None:
                c, c_done = split(c, [size], 0)
            parked.append((h_done, c_done))
        elif size > active:
            h = concat([h, _rows(h0, active, size)], axis=0)
            if c is not None:
                c = concat([c, _rows(c0, active, size)], axis=0)
        active = size
        h, c = cell.step(gxs[t], h, c, params)
        outputs[t] = h

    # The parked rows come after the active ones, the latest parked first.
    h_pieces, c_pieces = [h], [c]
    for h_done, c_done in reversed(parked):
        h_pieces.append(h_done)
        c_pieces.append(c_done)
    top = batch_sizes[0]  # the longest sequences' batch; rows beyond it never ran
    if top < h0.shape[0]:
        h_pieces.append(_rows(h0, top, h0.shape[0]))
        c_pieces.append(None if c0 is None else _rows(c0, top, h0.shape[0]))
    h_last = h_pieces[0] if len(h_pieces) == 1 else concat(h_pieces, axis=0)
    c_last = None
    if c0 is not None:
        c_last = c_pieces[0] if len(c_pieces) == 1 else concat(c_pieces, axis=0)
    ys = outputs[0] if len(outputs) == 1 else concat(outputs, axis=0)
    return h_last, c_last, ys


def n_step_rnn_impl(cell: RNNCell, n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                    ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]],
                    xs: Sequence[Any], use_bi_direction: bool
                    ) -> tuple[Variable, Variable | None, tuple[Variable, ...]]:
    """Runs a stacked (bi-directional) recurrent network of ``cell`` over ``xs``.

    Args:
        cell: The kind of cell (see :class:`RNNCell`).
        n_layers, dropout_ratio, hx, ws, bs, xs: As in :func:`n_step_rnn`.
        cx: The initial cell states for an LSTM, else None.
        use_bi_direction: Whether each layer also runs backward in time.

    Returns:
        tuple: ``(hy, cy, ys)``; ``cy`` is None when ``cx`` is.
    """
    directions = 2 if use_bi_direction else 1
    _check_arguments(cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions)
    h0s = separate(hx, 0)
    c0s: Sequence[Any] = [None] * len(h0s) if cx is None else separate(cx, 0)
    if not xs:
        return stack(h0s, 0), None if cx is None else stack(c0s, 0), ()

    batch_sizes = [x.shape[0] for x in xs]
    offsets = []
    total = 0
    for size in batch_sizes[:-1]:
        total += size
        offsets.append(total)
    layer_input = xs[0] if len(xs) == 1 else concat(xs, axis=0)
    hy: list[Any] = []
    cy: list[Any] = []
    for layer in range(n_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            x = layer_input
            if layer > 0 and dropout_ratio > 0:
                # Each direction draws its own mask, as Chainer does.
                x = dropout(x, dropout_ratio)
            params = cell.prepare(ws[index], bs[index])
            h, c, ys = _one_direction(cell, x, params, batch_sizes, offsets, h0s[index],
                                      c0s[index], reverse=direction == 1)
            hy.append(h)
            cy.append(c)
            outputs.append(ys)
        layer_input = outputs[0] if directions == 1 else concat(outputs, axis=1)
    ys_out = ((layer_input,) if len(xs) == 1 else
              split(layer_input, offsets, 0))
    return stack(hy, 0), None if cx is None else stack(cy, 0), ys_out

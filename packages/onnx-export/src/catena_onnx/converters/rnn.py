"""Converters of catena.functions.rnn: the gated cells and the stacked n-step networks.

The cells (:func:`~catena.functions.lstm`, :func:`~catena.functions.slstm`,
:func:`~catena.functions.tree_lstm`) are single FunctionNodes written out as
their gate arithmetic.

The ``n_step_*`` functions are composites of many FunctionNodes. While export
traces, every place they are looked up from (the ``catena.functions``
namespace, their defining modules, the modules of the ``NStep*`` links) holds
a wrapper that records each call as one node (a
:class:`~catena_onnx.replace_func.WrappedFunctionNode` subclass per kind),
which becomes one ONNX ``LSTM``, ``GRU`` or ``RNN`` operator per layer.
Sequences of unequal length (time-major ``xs`` with shrinking batches) are
padded and passed with ``sequence_lens``. onnxruntime runs these operators in
float32 only, so other float dtypes are cast around them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import catena
from catena.functions.rnn.lstm import LSTM
from catena.functions.rnn.slstm import SLSTM
from catena.functions.rnn.tree_lstm import TreeLSTM
from catena_onnx.context import ConversionContext
from catena_onnx.converters._ops import cast, pad, reshape, slice_, split, squeeze, unsqueeze
from catena_onnx.registry import converter, substitute_while_tracing
from catena_onnx.replace_func import WrappedFunctionNode

# --------------------------------------------------------------------------- cells


def _gates(ctx: ConversionContext, index: int, shape: Sequence[int], axis: int,
           count: int) -> list[str]:
    """Reshapes input ``index`` to ``shape``; returns its ``count`` slices along ``axis``."""
    blocks = reshape(ctx, ctx.inputs[index], shape, in_shape=ctx.input_arrays[index].shape)
    parts = split(ctx, blocks, [1] * count, axis)
    return [squeeze(ctx, part, [axis]) for part in parts]


def _cell_state(ctx: ConversionContext, a: Sequence[str], i: Sequence[str],
                f: Sequence[str], c: Sequence[str], out: str) -> str:
    """``sum_j tanh(a_j) sigmoid(i_j) + sum_k sigmoid(f_k) c_k`` into ``out``."""
    terms = [ctx.op('Mul', [ctx.op('Tanh', [aj]), ctx.op('Sigmoid', [ij])])
             for aj, ij in zip(a, i)]
    terms += [ctx.op('Mul', [ctx.op('Sigmoid', [fk]), ck]) for fk, ck in zip(f, c)]
    total = terms[0]
    for index, term in enumerate(terms[1:]):
        total = ctx.op('Add', [total, term], out if index == len(terms) - 2 else None)
    return total


def _hidden(ctx: ConversionContext, o: str, c: str, out: str) -> None:
    ctx.op('Mul', [ctx.op('Sigmoid', [o]), ctx.op('Tanh', [c])], out)


@converter(LSTM)
def convert_lstm(ctx: ConversionContext) -> None:
    """Gates interleaved per unit: ``x`` viewed as ``(B, N, 4, ...)`` holds ``a, i, f, o``."""
    c_prev = ctx.inputs[0]
    c_shape, x_shape = ctx.input_arrays[0].shape, ctx.input_arrays[1].shape
    n_units, batch = c_shape[1], x_shape[0]
    a, i, f, o = _gates(ctx, 1, (batch, n_units, 4) + tuple(c_shape[2:]), 2, 4)
    head = c_prev
    if batch < c_shape[0]:
        head, tail = split(ctx, c_prev, [batch, c_shape[0] - batch], 0)
    c_new = _cell_state(ctx, [a], [i], [f], [head],
                        ctx.outputs[0] if batch == c_shape[0] else ctx.temp('lstm_c'))
    if batch < c_shape[0]:
        ctx.op('Concat', [c_new, tail], ctx.outputs[0], axis=0)
    _hidden(ctx, o, c_new, ctx.outputs[1])


@converter(SLSTM)
def convert_slstm(ctx: ConversionContext) -> None:
    """Two interleaved gate blocks; the output gate is ``sigmoid(o_1 + o_2)``."""
    c1, c2 = ctx.inputs[:2]
    c_shape = ctx.input_arrays[0].shape
    shape = (ctx.input_arrays[2].shape[0], c_shape[1], 4) + tuple(c_shape[2:])
    a1, i1, f1, o1 = _gates(ctx, 2, shape, 2, 4)
    a2, i2, f2, o2 = _gates(ctx, 3, shape, 2, 4)
    c = _cell_state(ctx, [a1, a2], [i1, i2], [f1, f2], [c1, c2], ctx.outputs[0])
    _hidden(ctx, ctx.op('Add', [o1, o2]), c, ctx.outputs[1])


@converter(TreeLSTM)
def convert_tree_lstm(ctx: ConversionContext) -> None:
    """Contiguous gate blocks ``a, i, o, f_1, ..., f_n`` of ``x``."""
    cs = ctx.inputs[:-1]
    c_shape = ctx.input_arrays[0].shape
    n_gates = len(cs) + 3
    shape = (ctx.input_arrays[-1].shape[0], n_gates, c_shape[1]) + tuple(c_shape[2:])
    a, i, o, *f = _gates(ctx, len(cs), shape, 1, n_gates)
    c = _cell_state(ctx, [a], [i], f, cs, ctx.outputs[0])
    _hidden(ctx, o, c, ctx.outputs[1])


# --------------------------------------------------------------------------- n-step networks


class _NStepNode(WrappedFunctionNode):
    """One call of an ``n_step_*`` function, recorded as a single node.

    Its inputs are ``hx``, ``cx`` (LSTM only), ``ws`` and ``bs`` flattened
    layer by layer, then ``xs``; its outputs ``hy``, ``cy`` (LSTM only), then
    ``ys``.

    Attributes:
        n_layers, dropout_ratio: As given to the function.
        use_bi_direction: Whether it is the bi-directional form.
        activation: ``'tanh'`` or ``'relu'`` (Elman RNN only).
        n_steps: ``len(xs)``.
        train: ``catena.config.train`` when it was applied.
    """

    #: The ONNX operator.
    op_type = ''
    #: How many weight matrices a layer of one direction has.
    n_weights = 0
    #: Whether the function also takes and returns cell states.
    has_cell = False
    #: The order of catena's ``ws[k][j]`` that makes ONNX's ``W`` (then ``R``) gate blocks.
    w_order: tuple[int, ...] = ()
    r_order: tuple[int, ...] = ()

    def __init__(self, name: str, func: Callable[..., Any], n_layers: int,
                 dropout_ratio: float, use_bi_direction: bool, n_steps: int,
                 activation: str = 'tanh') -> None:
        super().__init__(name, func, (), {})
        self.n_layers = n_layers
        self.dropout_ratio = dropout_ratio
        self.use_bi_direction = use_bi_direction
        self.activation = activation
        self.n_steps = n_steps
        self.train = bool(catena.config.train)

    @property
    def n_states(self) -> int:
        """``n_layers`` times the number of directions."""
        return self.n_layers * (2 if self.use_bi_direction else 1)

    def _run(self, inputs: Sequence[Any]) -> Any:
        states = 2 if self.has_cell else 1
        size = self.n_states * self.n_weights
        flat_ws = inputs[states:states + size]
        flat_bs = inputs[states + size:states + 2 * size]
        ws = [list(flat_ws[k:k + self.n_weights]) for k in range(0, size, self.n_weights)]
        bs = [list(flat_bs[k:k + self.n_weights]) for k in range(0, size, self.n_weights)]
        xs = list(inputs[states + 2 * size:])
        extra = {'activation': self.activation} if self.op_type == 'RNN' else {}
        return self.func(self.n_layers, self.dropout_ratio, *inputs[:states], ws, bs, xs,
                         **extra)


class NStepLSTMNode(_NStepNode):
    """:func:`~catena.functions.n_step_lstm` / ``n_step_bilstm`` as one node (ONNX ``LSTM``)."""

    op_type = 'LSTM'
    n_weights = 8
    has_cell = True
    # catena: input, forget, cell input, output; ONNX: input, output, forget, cell.
    w_order = (0, 3, 1, 2)
    r_order = (4, 7, 5, 6)


class NStepGRUNode(_NStepNode):
    """:func:`~catena.functions.n_step_gru` / ``n_step_bigru`` as one node (ONNX ``GRU``)."""

    op_type = 'GRU'
    n_weights = 6
    # catena: reset, update, new; ONNX: update, reset, new.
    w_order = (1, 0, 2)
    r_order = (4, 3, 5)


class NStepRNNNode(_NStepNode):
    """:func:`~catena.functions.n_step_rnn` / ``n_step_birnn`` as one node (ONNX ``RNN``)."""

    op_type = 'RNN'
    n_weights = 2
    w_order = (0,)
    r_order = (1,)


def _well_formed(params: Any, n_states: int, n_weights: int) -> bool:
    return isinstance(params, (list, tuple)) and len(params) == n_states and all(
        isinstance(layer, (list, tuple)) and len(layer) == n_weights for layer in params)


def _recording(node_class: type[_NStepNode], use_bi_direction: bool
               ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Returns ``wrap(original)`` making each call of ``original`` one ``node_class`` node."""
    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(original)

        @functools.wraps(original)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            given = bound.arguments
            n_layers, ws, bs, xs = given['n_layers'], given['ws'], given['bs'], given['xs']
            states = [given['hx']] + ([given['cx']] if node_class.has_cell else [])
            n_states = -1 if isinstance(n_layers, bool) or not isinstance(n_layers, int) \
                else n_layers * (2 if use_bi_direction else 1)
            if (any(state is None for state in states) or not isinstance(xs, (list, tuple))
                    or not _well_formed(ws, n_states, node_class.n_weights)
                    or not _well_formed(bs, n_states, node_class.n_weights)):
                return original(*args, **kwargs)  # it raises the error that explains
            node = node_class(original.__name__, original, n_layers, given['dropout_ratio'],
                              use_bi_direction, len(xs), given.get('activation', 'tanh'))
            flat = states + [w for layer in ws for w in layer] + \
                [b for layer in bs for b in layer] + list(xs)
            outputs = node.apply(flat)
            n_out = len(states)
            return (*outputs[:n_out], tuple(outputs[n_out:]))

        return recorded
    return wrap


_FUNCTIONS = (
    ('n_step_lstm', NStepLSTMNode, False, 'catena.links.rnn.n_step_lstm'),
    ('n_step_bilstm', NStepLSTMNode, True, 'catena.links.rnn.n_step_lstm'),
    ('n_step_gru', NStepGRUNode, False, 'catena.links.rnn.n_step_gru'),
    ('n_step_bigru', NStepGRUNode, True, 'catena.links.rnn.n_step_gru'),
    ('n_step_rnn', NStepRNNNode, False, 'catena.links.rnn.n_step_rnn'),
    ('n_step_birnn', NStepRNNNode, True, 'catena.links.rnn.n_step_rnn'),
)

for _name, _node_class, _bi, _link_module in _FUNCTIONS:
    _defining = f'catena.functions.rnn.{_name.replace("_bi", "_")}'
    for _module in ('catena.functions', _defining, _link_module):
        substitute_while_tracing(_module, _name, _recording(_node_class, _bi))


class _Cast:
    """Casts values to float32 for the ONNX operator and back to catena's dtype."""

    def __init__(self, ctx: ConversionContext, dtype: Any) -> None:
        self.ctx = ctx
        self.dtype = numpy.dtype(dtype)
        self.needed = self.dtype != numpy.float32

    def into(self, name: str) -> str:
        return cast(self.ctx, name, numpy.float32) if self.needed else name

    def back(self, name: str, out: str | None = None) -> str:
        if self.needed:
            return cast(self.ctx, name, self.dtype, out)
        return name if out is None else self.ctx.op('Identity', [name], out)


def _stacked(ctx: ConversionContext, names: Sequence[str]) -> str:
    """Stacks same-shaped values along a new leading axis."""
    parts = [unsqueeze(ctx, name, [0]) for name in names]
    return parts[0] if len(parts) == 1 else ctx.op('Concat', parts, axis=0)


def _concat(ctx: ConversionContext, names: Sequence[str], axis: int,
            out: str | None = None) -> str:
    if len(names) == 1 and out is None:
        return names[0]
    return ctx.op('Concat', names, out, axis=axis)


def _layer_params(ctx: ConversionContext, func: _NStepNode, ws: Sequence[Sequence[str]],
                  bs: Sequence[Sequence[str]], f32: _Cast) -> tuple[str, str, str]:
    """ONNX's ``W``, ``R`` and ``B`` of one layer from its directions' ``ws`` and ``bs``."""
    w = [_concat(ctx, [d[j] for j in func.w_order], 0) for d in ws]
    r = [_concat(ctx, [d[j] for j in func.r_order], 0) for d in ws]
    b = [_concat(ctx, [d[j] for j in func.w_order + func.r_order], 0) for d in bs]
    w_all, r_all, b_all = (f32.into(_stacked(ctx, per_direction)) for per_direction in (w, r, b))
    return w_all, r_all, b_all


@converter(NStepLSTMNode, NStepGRUNode, NStepRNNNode)
def convert_n_step(ctx: ConversionContext) -> None:
    """One ONNX ``LSTM``/``GRU``/``RNN`` per layer over the padded time-major batch."""
    func: _NStepNode = ctx.func
    if func.train and func.dropout_ratio > 0 and func.n_layers > 1:
        raise ValueError(f'{func.label}: dropout between layers cannot be exported; export '
                         'in test mode (train=False) or with dropout_ratio 0')
    n_states_in = 2 if func.has_cell else 1
    size = func.n_states * func.n_weights
    states = ctx.inputs[:n_states_in]
    flat_ws = ctx.inputs[n_states_in:n_states_in + size]
    flat_bs = ctx.inputs[n_states_in + size:n_states_in + 2 * size]
    xs = ctx.inputs[n_states_in + 2 * size:]
    ws = [flat_ws[k:k + func.n_weights] for k in range(0, size, func.n_weights)]
    bs = [flat_bs[k:k + func.n_weights] for k in range(0, size, func.n_weights)]
    n_out_states = len(states)

    if not xs:
        for state, out in zip(states, ctx.outputs):
            ctx.op('Identity', [state], out)
        return

    hx_shape = ctx.input_arrays[0].shape
    batch, n_units = hx_shape[1], hx_shape[2]
    x_arrays = ctx.input_arrays[n_states_in + 2 * size:]
    batch_sizes = [x.shape[0] for x in x_arrays]
    top = batch_sizes[0]
    f32 = _Cast(ctx, ctx.input_arrays[0].dtype)
    directions = 2 if func.use_bi_direction else 1

    # X: (T, top, I), zero rows after a sequence's end.
    steps = []
    for x, size_t in zip(xs, batch_sizes):
        x = f32.into(x)
        if size_t < top:
            x = pad(ctx, x, [0, 0, top - size_t, 0], value_dtype=numpy.float32)
        steps.append(x)
    layer_input = _stacked(ctx, steps)
    lengths = ''
    if any(size_t != top for size_t in batch_sizes):
        counts = [sum(1 for size_t in batch_sizes if size_t > row) for row in range(top)]
        lengths = ctx.const(numpy.asarray(counts, dtype=numpy.int32), hint='sequence_lens')

    initial = []
    for state in states:
        state = f32.into(state)
        if top < batch:  # the sequences of length 0 keep their initial state
            state = slice_(ctx, state, [0], [top], [1])
        initial.append(state)

    attributes: dict[str, Any] = {
        'hidden_size': n_units,
        'direction': 'bidirectional' if directions == 2 else 'forward'}
    if func.op_type == 'GRU':
        attributes['linear_before_reset'] = 1
    if func.op_type == 'RNN':
        attributes['activations'] = [func.activation.capitalize()] * directions
    final: list[list[str]] = [[] for _ in states]
    for layer in range(func.n_layers):
        first, last = layer * directions, (layer + 1) * directions
        w, r, b = _layer_params(ctx, func, ws[first:last], bs[first:last], f32)
        layer_states = [slice_(ctx, state, [first], [last], [0]) if func.n_layers > 1
                        else state for state in initial]
        inputs = [layer_input, w, r, b, lengths] + layer_states
        outputs = ctx.node(func.op_type, inputs, 1 + n_out_states, **attributes)
        assert isinstance(outputs, list)
        y, *ends = outputs
        for collected, end in zip(final, ends):
            collected.append(end)
        # Y is (T, D, top, N); the next layer takes (T, top, D * N).
        if directions == 1:
            layer_input = squeeze(ctx, y, [1])
        else:
            y = ctx.op('Transpose', [y], perm=[0, 2, 1, 3])
            layer_input = reshape(ctx, y, (0, 0, directions * n_units))

    for index, (collected, state) in enumerate(zip(final, states)):
        out = ctx.outputs[index]
        value = _concat(ctx, collected, 0)
        if top < batch:
            rest = slice_(ctx, state, [top], [batch], [1])
            _concat(ctx, [f32.back(value), rest], 1, out)
        else:
            f32.back(value, out)

    pieces = split(ctx, layer_input, [1] * len(xs), 0) if len(xs) > 1 else [layer_input]
    for piece, size_t, out in zip(pieces, batch_sizes, ctx.outputs[n_out_states:]):
        piece = squeeze(ctx, piece, [0])
        if size_t < top:
            piece = slice_(ctx, piece, [0], [size_t], [0])
        f32.back(piece, out)

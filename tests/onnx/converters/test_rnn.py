"""Converters of catena.functions.rnn against onnxruntime."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena.functions.array.permutate import Permutate
from catena.functions.array.transpose_sequence import TransposeSequence
from catena.functions.connection.embed_id import EmbedIDFunction
from catena.functions.connection.linear import LinearFunction
from catena.functions.rnn.lstm import LSTM
from catena.functions.rnn.slstm import SLSTM
from catena.functions.rnn.tree_lstm import TreeLSTM

pytest.importorskip('onnxruntime')
from catena_onnx.converters.rnn import NStepGRUNode, NStepLSTMNode, NStepRNNNode  # noqa: E402
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402

MODULE = 'catena_onnx.converters.rnn'
rng = np.random.default_rng(0)
F16 = {'rtol': 1e-2, 'atol': 1e-2}
# onnxruntime runs LSTM/GRU/RNN in float32 only: float64 models are cast around them.
F64 = {'rtol': 1e-5, 'atol': 1e-6}
# Many steps of sigmoid/tanh accumulate float32 rounding (onnxruntime's own kernels).
RNN = {'rtol': 1e-4, 'atol': 1e-5}


def _x(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.uniform(-1, 1, shape).astype(dtype)


def _steps(sizes: Sequence[int], width: int, dtype: type = np.float32) -> list[np.ndarray]:
    """Time-major inputs: one ``(B_t, width)`` array per time step."""
    return [_x(size, width, dtype=dtype) for size in sizes]


def _sequences(lengths: Sequence[int], width: int) -> list[np.ndarray]:
    """Batch-major inputs: one ``(L_i, width)`` array per sequence."""
    return [_x(length, width) for length in lengths]


class _NStepFunction(catena.Chain):
    """Calls ``F.<name>`` on time-major inputs with the parameters of an NStep link."""

    def __init__(self, name: str, link: Any, dropout: float = 0.0, dtype: Any = None,
                 **kwargs: Any) -> None:
        super().__init__()
        with self.init_scope():
            self.rnn = link
        if dtype is not None:
            for param in link.params():
                param.array = param.array.astype(dtype)
        self.name = name
        self.dropout = dropout
        self.kwargs = kwargs
        self.n_states = 2 if 'lstm' in name else 1

    def forward(self, *inputs: Any) -> tuple[Any, ...]:
        states, xs = inputs[:self.n_states], list(inputs[self.n_states:])
        function = getattr(F, self.name)
        *outputs, ys = function(self.rnn.n_layers, self.dropout, *states, self.rnn.ws,
                                self.rnn.bs, xs, **self.kwargs)
        return (*outputs, *ys)


class _NStepLink(catena.Chain):
    """Calls an NStep link on batch-major sequences; ``states`` are given or None."""

    def __init__(self, link: Any, given: bool) -> None:
        super().__init__()
        with self.init_scope():
            self.rnn = link
        self.given = given
        self.n_states = 2 if isinstance(link, L.NStepLSTM | L.NStepBiLSTM) else 1

    def forward(self, *inputs: Any) -> tuple[Any, ...]:
        if self.given:
            states, xs = list(inputs[:self.n_states]), list(inputs[self.n_states:])
        else:
            states, xs = [None] * self.n_states, list(inputs)
        *outputs, ys = self.rnn(*states, xs)
        return (*outputs, *ys)


class _LanguageModel(catena.Chain):
    """EmbedID, a 2-layer NStepLSTM and a Linear output over a batch of token sequences."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(11, 6)
            self.rnn = L.NStepLSTM(2, 6, 5, 0.3)
            self.out = L.Linear(5, 11)

    def forward(self, *tokens: Any) -> tuple[Any, ...]:
        _, _, ys = self.rnn(None, None, [self.embed(t) for t in tokens])
        return tuple(self.out(y) for y in ys)


def _states(n: int, batch: int, units: int, count: int = 1,
            dtype: type = np.float32) -> list[np.ndarray]:
    return [_x(n, batch, units, dtype=dtype) for _ in range(count)]


def _ids(length: int) -> np.ndarray:
    return rng.integers(0, 11, length).astype(np.int32)


def _fn(name: str, link: Any, states: int, batch: int, sizes: Sequence[int],
        dtype: type = np.float32, **kwargs: Any) -> tuple[Any, list[np.ndarray]]:
    model = _NStepFunction(name, link, dtype=None if dtype is np.float32 else dtype, **kwargs)
    inputs = _states(link.n_layers * link.direction, batch, link.out_size, states, dtype)
    return model, inputs + _steps(sizes, link.in_size, dtype)


def _case(name: str, built: tuple[Any, list[np.ndarray]], converts: tuple[type, ...],
          **kwargs: Any) -> ConverterCase:
    return ConverterCase(name, built[0], built[1], converts, **{**RNN, **kwargs})


# The array FunctionNodes that an NStep link applies around its n-step function
# (_SORTED: sequences already in descending length order, whose states need no Permutate).
_LINK = (Permutate, TransposeSequence)
_SORTED = (TransposeSequence,)

CASES = [
    # the cells
    ConverterCase('lstm', F.lstm, [_x(3, 4), _x(3, 16)], (LSTM,)),
    ConverterCase('lstm_shrinking_batch', F.lstm, [_x(4, 3), _x(2, 12)], (LSTM,),
                  opsets=(12, 13)),
    ConverterCase('lstm_trailing_axes', F.lstm, [_x(2, 3, 5), _x(2, 12, 5)], (LSTM,)),
    ConverterCase('lstm_float64', F.lstm,
                  [_x(3, 2, dtype=np.float64), _x(2, 8, dtype=np.float64)], (LSTM,)),
    ConverterCase('lstm_float16', F.lstm,
                  [_x(3, 2, dtype=np.float16), _x(3, 8, dtype=np.float16)], (LSTM,), **F16),
    ConverterCase('slstm', F.slstm, [_x(3, 4), _x(3, 4), _x(3, 16), _x(3, 16)], (SLSTM,)),
    ConverterCase('slstm_float64', F.slstm,
                  [_x(2, 3, 2, dtype=np.float64), _x(2, 3, 2, dtype=np.float64),
                   _x(2, 12, 2, dtype=np.float64), _x(2, 12, 2, dtype=np.float64)], (SLSTM,)),
    ConverterCase('tree_lstm_binary', F.tree_lstm, [_x(3, 4), _x(3, 4), _x(3, 20)],
                  (TreeLSTM,)),
    ConverterCase('tree_lstm_unary', F.tree_lstm, [_x(2, 3), _x(2, 12)], (TreeLSTM,)),
    ConverterCase('tree_lstm_ternary_float16', F.tree_lstm,
                  [_x(2, 3, dtype=np.float16), _x(2, 3, dtype=np.float16),
                   _x(2, 3, dtype=np.float16), _x(2, 18, dtype=np.float16)], (TreeLSTM,),
                  **F16),
    # n_step_lstm / n_step_bilstm
    _case('n_step_lstm_equal', _fn('n_step_lstm', L.NStepLSTM(1, 5, 4, 0.0), 2, 3,
                                   [3, 3, 3, 3]), (NStepLSTMNode,)),
    _case('n_step_lstm_2_layers_unequal',
          _fn('n_step_lstm', L.NStepLSTM(2, 5, 4, 0.0), 2, 3, [3, 3, 2, 1]), (NStepLSTMNode,),
          opsets=(9, 10, 11, 13)),
    _case('n_step_lstm_empty_sequences',
          _fn('n_step_lstm', L.NStepLSTM(2, 3, 4, 0.0), 2, 4, [2, 1]), (NStepLSTMNode,),
          opsets=(9, 13)),
    _case('n_step_lstm_one_step', _fn('n_step_lstm', L.NStepLSTM(1, 3, 2, 0.0), 2, 2, [2]),
          (NStepLSTMNode,)),
    _case('n_step_lstm_no_steps', _fn('n_step_lstm', L.NStepLSTM(1, 3, 2, 0.0), 2, 2, []),
          (NStepLSTMNode,)),
    _case('n_step_lstm_dropout', _fn('n_step_lstm', L.NStepLSTM(2, 3, 4, 0.0), 2, 2,
                                     [2, 2, 1], dropout=0.5), (NStepLSTMNode,)),
    _case('n_step_lstm_float64', _fn('n_step_lstm', L.NStepLSTM(2, 3, 4, 0.0), 2, 3,
                                     [3, 2, 2], np.float64), (NStepLSTMNode,), **F64),
    _case('n_step_lstm_float16', _fn('n_step_lstm', L.NStepLSTM(1, 3, 4, 0.0), 2, 3,
                                     [3, 3, 1], np.float16), (NStepLSTMNode,), **F16),
    _case('n_step_bilstm_2_layers_unequal',
          _fn('n_step_bilstm', L.NStepBiLSTM(2, 5, 4, 0.0), 2, 3, [3, 2, 2, 1]),
          (NStepLSTMNode,), opsets=(9, 13)),
    _case('n_step_bilstm_equal',
          _fn('n_step_bilstm', L.NStepBiLSTM(1, 3, 2, 0.0), 2, 2, [2, 2, 2]), (NStepLSTMNode,)),
    # n_step_gru / n_step_bigru
    _case('n_step_gru_2_layers_unequal',
          _fn('n_step_gru', L.NStepGRU(2, 5, 4, 0.0), 1, 3, [3, 3, 2, 1]), (NStepGRUNode,)),
    _case('n_step_gru_equal', _fn('n_step_gru', L.NStepGRU(1, 3, 4, 0.0), 1, 2, [2, 2]),
          (NStepGRUNode,)),
    _case('n_step_bigru_unequal',
          _fn('n_step_bigru', L.NStepBiGRU(2, 3, 4, 0.0), 1, 3, [3, 1, 1]), (NStepGRUNode,)),
    _case('n_step_gru_float64', _fn('n_step_gru', L.NStepGRU(1, 3, 4, 0.0), 1, 2, [2, 1],
                                    np.float64), (NStepGRUNode,), **F64),
    # n_step_rnn / n_step_birnn
    _case('n_step_rnn_tanh_2_layers_unequal',
          _fn('n_step_rnn', L.NStepRNNTanh(2, 5, 4, 0.0), 1, 3, [3, 2, 2]), (NStepRNNNode,)),
    _case('n_step_rnn_relu', _fn('n_step_rnn', L.NStepRNNReLU(1, 3, 4, 0.0), 1, 2, [2, 2, 2],
                                 activation='relu'), (NStepRNNNode,)),
    _case('n_step_birnn_relu_2_layers_unequal',
          _fn('n_step_birnn', L.NStepBiRNNReLU(2, 3, 4, 0.0), 1, 3, [3, 3, 1],
              activation='relu'), (NStepRNNNode,)),
    _case('n_step_birnn_tanh_float16',
          _fn('n_step_birnn', L.NStepBiRNNTanh(1, 3, 4, 0.0), 1, 2, [2, 1], np.float16),
          (NStepRNNNode,), **F16),
    # the NStep links sort, transpose and permute the sequences around the n-step function
    ConverterCase('NStepLSTM_none', _NStepLink(L.NStepLSTM(1, 5, 4, 0.0), False),
                  _sequences([3, 3, 3], 5), (NStepLSTMNode, *_SORTED), **RNN),
    ConverterCase('NStepLSTM_2_layers_given', _NStepLink(L.NStepLSTM(2, 5, 4, 0.5), True),
                  _states(2, 3, 4, 2) + _sequences([2, 4, 3], 5), (NStepLSTMNode, *_LINK),
                  **RNN),
    ConverterCase('NStepBiLSTM_2_layers_none', _NStepLink(L.NStepBiLSTM(2, 3, 4, 0.0), False),
                  _sequences([1, 3, 2], 3), (NStepLSTMNode, *_LINK), **RNN),
    ConverterCase('NStepBiLSTM_given', _NStepLink(L.NStepBiLSTM(1, 3, 2, 0.0), True),
                  _states(2, 2, 2, 2) + _sequences([2, 2], 3), (NStepLSTMNode, *_SORTED), **RNN),
    ConverterCase('NStepGRU_2_layers_given', _NStepLink(L.NStepGRU(2, 3, 4, 0.0), True),
                  _states(2, 3, 4) + _sequences([2, 3, 1], 3), (NStepGRUNode, *_LINK), **RNN),
    ConverterCase('NStepBiGRU_none', _NStepLink(L.NStepBiGRU(1, 3, 4, 0.0), False),
                  _sequences([3, 3], 3), (NStepGRUNode, *_SORTED), **RNN),
    ConverterCase('NStepRNNTanh_2_layers_none', _NStepLink(L.NStepRNNTanh(2, 3, 4, 0.0), False),
                  _sequences([2, 3], 3), (NStepRNNNode, *_LINK), **RNN),
    ConverterCase('NStepRNNReLU_given', _NStepLink(L.NStepRNNReLU(1, 3, 4, 0.0), True),
                  _states(1, 2, 4) + _sequences([3, 3], 3), (NStepRNNNode, *_SORTED), **RNN),
    ConverterCase('NStepBiRNNTanh_given', _NStepLink(L.NStepBiRNNTanh(1, 3, 4, 0.0), True),
                  _states(2, 3, 4) + _sequences([1, 2, 3], 3), (NStepRNNNode, *_LINK), **RNN),
    ConverterCase('NStepBiRNNReLU_2_layers_none',
                  _NStepLink(L.NStepBiRNNReLU(2, 3, 4, 0.0), False),
                  _sequences([2, 2, 2], 3), (NStepRNNNode, *_SORTED), **RNN),
    ConverterCase('language_model', _LanguageModel(), [_ids(4), _ids(2), _ids(3)],
                  (EmbedIDFunction, NStepLSTMNode, LinearFunction, TransposeSequence), **RNN),
]


def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


def test_one_onnx_operator_per_layer() -> None:
    import catena_onnx

    model, inputs = _fn('n_step_bilstm', L.NStepBiLSTM(2, 3, 4, 0.0), 2, 2, [2, 1])
    onnx_model = catena_onnx.export(model, inputs)
    ops = [node.op_type for node in onnx_model.graph.node]
    assert ops.count('LSTM') == 2
    assert not {'Sigmoid', 'Tanh', 'MatMul', 'Gemm'} & set(ops)


def test_substitutions_end_with_the_export() -> None:
    import catena.functions.rnn.n_step_gru as gru_module
    import catena.links.rnn.n_step_gru as gru_links
    import catena_onnx

    originals = (F.n_step_gru, gru_module.n_step_gru, gru_links.n_step_gru)
    model, inputs = _fn('n_step_gru', L.NStepGRU(1, 3, 4, 0.0), 1, 2, [2, 1])
    catena_onnx.export(model, inputs)
    assert (F.n_step_gru, gru_module.n_step_gru, gru_links.n_step_gru) == originals


def test_dynamic_batch() -> None:
    """Equal lengths bake no batch size into the graph."""
    import catena_onnx
    from catena_onnx.verification import run_onnxruntime

    model, inputs = _fn('n_step_lstm', L.NStepLSTM(2, 3, 4, 0.0), 2, 2, [2, 2, 2])
    names = [f'in{i}' for i in range(len(inputs))]
    axes = {name: {1 if i < 2 else 0: 'batch'} for i, name in enumerate(names)}
    onnx_model = catena_onnx.export(model, inputs, input_names=names, dynamic_axes=axes)
    bigger = [_x(2, 5, 4), _x(2, 5, 4)] + _steps([5, 5, 5], 3)
    with catena.using_config('train', False):
        expected = [y.array for y in model(*bigger)]
    got = run_onnxruntime(onnx_model, dict(zip(names, bigger)))
    for y, name in zip(expected, [o.name for o in onnx_model.graph.output]):
        np.testing.assert_allclose(got[name], y, **RNN)


def test_dropout_in_train_mode_is_refused() -> None:
    import catena_onnx

    model, inputs = _fn('n_step_gru', L.NStepGRU(2, 3, 4, 0.0), 1, 2, [2, 1], dropout=0.5)
    with pytest.raises(ValueError, match='dropout'):
        catena_onnx.export(model, inputs, train=True)


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []

"""oneDNN kernels of local_response_normalization: agreement, gradients, the deferred state."""

from __future__ import annotations

import collections
import math
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.functions.normalization import local_response_normalization as nodes

pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402
from catena_intel64.kernels.normalization import (  # noqa: E402
    local_response_normalization as kernels,
)

pytestmark = pytest.mark.ideep

NAMES = ('local_response_normalization', 'local_response_normalization_grad')
TOL = {'atol': 1e-5, 'rtol': 1e-5}



def _calls() -> collections.Counter[str]:
    return collections.Counter({name: _primitive.calls[name] for name in NAMES})


def _delta(before: collections.Counter[str]) -> dict[str, int]:
    return {name: _primitive.calls[name] - before[name] for name in NAMES}


def _runs(shape: tuple[int, ...], n: int = 5, k: float = 2, alpha: float = 1e-4,
          beta: float = .75) -> bool:
    """Whether the kernels run this float32 LRN on this CPU under ``use_ideep='always'``.

    Where they decline, oneDNN has only its reference code in every layout it
    is asked about: that is the reason they declare.
    """
    runs = kernels.kernel_layout(shape, n, k, alpha, beta) is not None
    if not runs:
        for layout, names in kernels.implementations(shape, n, k, alpha, beta).items():
            assert names is None or any(name.startswith('ref') for name in names), layout
    return runs


def _inputs(shape: tuple[int, ...], dtype: Any = numpy.float32, seed: int = 0) -> Any:
    return numpy.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


def _run(config: str, x: Any, gy: Any = None, **kwargs: Any) -> tuple[Any, ...]:
    """Forward and (with ``gy``) backward under ``use_ideep=config``: y, gx, node."""
    with catena.using_config('use_ideep', config):
        xv = catena.Variable(x.copy())
        y = F.local_response_normalization(xv, **kwargs)
        if gy is not None:
            y.grad = gy
            y.backward()
    return y.array, xv.grad, y.creator


CASES = [
    # (shape, n, k, alpha, beta)
    ((2, 16, 5, 6), 5, 2, 1e-4, .75),     # Chainer's defaults, nChw16c
    ((2, 32, 5, 6), 5, 1, 0.3, .75),
    ((2, 20, 5, 6), 5, 2, 0.3, .75),      # channels not a multiple of 16: nhwc
    ((2, 16, 4, 4), 3, 2, 0.5, .75),
    ((2, 16, 4, 4), 4, 2, 0.5, .75),      # even n: Chainer sums n + 1 channels
    ((2, 3, 4, 4), 11, 2, 0.5, .75),      # a window wider than the channels
    ((2, 16, 4, 4), 5, 0.5, 0.5, 1.0),
    ((3, 20), 5, 2, 0.3, .75),            # other ranks are seen as (n, c, rest, 1)
    ((2, 16, 7), 5, 2, 0.3, .75),
    ((2, 16, 3, 2, 2), 5, 2, 0.3, .75),
]
IDS = [f'{shape}-n{n}-k{k}-a{alpha}-b{beta}' for shape, n, k, alpha, beta in CASES]


@pytest.mark.parametrize('shape, n, k, alpha, beta', CASES, ids=IDS)
def test_agrees_with_the_generic_path(shape: tuple[int, ...], n: int, k: float, alpha: float,
                                      beta: float) -> None:
    x = _inputs(shape)
    gy = _inputs(shape, seed=1)
    kwargs = {'n': n, 'k': k, 'alpha': alpha, 'beta': beta}
    runs = _runs(shape, **kwargs)
    before = _calls()
    y, gx, node = _run('always', x, gy, **kwargs)
    assert _delta(before) == {name: int(runs) for name in NAMES}
    if runs:
        assert node.implementation.startswith('oneDNN local_response_normalization (')
    else:
        assert not hasattr(node, 'implementation')
    before = _calls()
    y_ref, gx_ref, node_ref = _run('never', x, gy, **kwargs)
    assert _delta(before) == {name: 0 for name in NAMES}
    assert y.dtype == gx.dtype == numpy.float32
    numpy.testing.assert_allclose(y, y_ref, **TOL)
    numpy.testing.assert_allclose(gx, gx_ref, **TOL)
    # What the node keeps for generic code reads as the generic arrays.
    for name in ('unit', 'scale'):
        kept = getattr(node, name)
        assert isinstance(kept, kernels.Deferred if runs else numpy.ndarray)
        assert kept.dtype == numpy.float32 and kept.shape == shape
        numpy.testing.assert_allclose(numpy.asarray(kept), getattr(node_ref, name), **TOL)


@pytest.mark.parametrize('forward, backward', [('always', 'never'), ('never', 'always')])
def test_mixed_paths(forward: str, backward: str) -> None:
    # A generic gradient reads the deferred unit and scale; a oneDNN gradient after a generic
    # forward makes oneDNN's workspace again.
    x = _inputs((2, 32, 5, 5))
    gy = _inputs(x.shape, seed=2)
    runs = _runs(x.shape, 5, 1, 0.2, .75)
    with catena.using_config('use_ideep', forward):
        xv = catena.Variable(x)
        y = F.local_response_normalization(xv, 5, 1, 0.2, .75)
    deferred = isinstance(y.creator.unit, kernels.Deferred)
    assert deferred == (forward == 'always' and runs)
    before = _calls()
    with catena.using_config('use_ideep', backward):
        gx, = catena.grad([y], [xv], grad_outputs=[gy])
    backward_runs = backward == 'always' and runs
    assert _delta(before) == {'local_response_normalization': backward_runs,
                              'local_response_normalization_grad': backward_runs}
    _, gx_ref, _ = _run('never', x, gy, n=5, k=1, alpha=0.2, beta=.75)
    numpy.testing.assert_allclose(gx.array, gx_ref, **TOL)


def test_double_backward_with_the_kernels() -> None:
    x = _inputs((2, 16, 3, 3))
    gy = _inputs(x.shape, seed=3)
    ggx = _inputs(x.shape, seed=4)
    runs = _runs(x.shape, 5, 1, 0.3, .75)
    results = {}
    for config in ('always', 'never'):
        before = _calls()
        with catena.using_config('use_ideep', config):
            xv, gyv = catena.Variable(x), catena.Variable(gy)
            y = F.local_response_normalization(xv, 5, 1, 0.3, .75)
            gx, = catena.grad([y], [xv], grad_outputs=[gyv], enable_double_backprop=True)
            assert type(gx.creator) is nodes.LocalResponseNormalizationGrad
            g2x, g2gy = catena.grad([gx], [xv, gyv], grad_outputs=[catena.Variable(ggx)])
        # The second order reaches x through y as well: LRN's gradient once more.
        expected = (1, 2) if config == 'always' and runs else (0, 0)
        assert _delta(before) == dict(zip(NAMES, expected))
        results[config] = gx.array, g2x.array, g2gy.array
    for got, want in zip(results['always'], results['never']):
        numpy.testing.assert_allclose(got, want, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('shape, n', [((2, 16, 3, 4), 5), ((2, 6, 3, 3), 3), ((2, 16, 5), 4)])
def test_gradient_check(shape: tuple[int, ...], n: int) -> None:
    x = _inputs(shape, seed=5)
    gy = _inputs(shape, seed=6)
    ggx = _inputs(shape, seed=7)
    runs = _runs(shape, n, 1, 0.3, .75)
    before = _calls()

    def lrn(x: Any) -> Any:
        return F.local_response_normalization(x, n, 1, 0.3, .75)

    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(lrn, x, gy, eps=1e-2, atol=2e-3, rtol=2e-3)
        gradient_check.check_double_backward(lrn, x, gy, ggx, eps=1e-2, atol=2e-3, rtol=2e-3)
    assert all((count > 0) == runs for count in _delta(before).values())


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float64])
def test_other_dtypes_fall_back(dtype: Any) -> None:
    x = _inputs((2, 16, 4, 4), dtype)
    gy = _inputs(x.shape, dtype, seed=1)
    before = _calls()
    y, gx, node = _run('always', x, gy)
    assert _delta(before) == {name: 0 for name in NAMES}
    assert not hasattr(node, 'implementation')
    assert isinstance(node.unit, numpy.ndarray)
    y_ref, gx_ref, _ = _run('never', x, gy)
    assert y.dtype == gx.dtype == dtype
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_array_equal(gx, gx_ref)


@pytest.mark.parametrize('kwargs', [
    # oneDNN 3.2 has only its reference code (slower than NumPy) for a beta other than
    # 0.75 or 1, and crashes on a one-channel window in nhwc.
    {'beta': 0.6},
    {'n': 1},
])
def test_unsupported_parameters_fall_back(kwargs: dict[str, Any]) -> None:
    x = _inputs((2, 16, 4, 4))
    gy = _inputs(x.shape, seed=1)
    assert kernels.kernel_layout(x.shape, **kwargs) is None
    if 'beta' in kwargs:
        assert not _runs(x.shape, **kwargs)   # for the declared reason: reference code only
    before = _calls()
    y, gx, _ = _run('always', x, gy, **kwargs)
    assert _delta(before) == {name: 0 for name in NAMES}
    y_ref, gx_ref, _ = _run('never', x, gy, **kwargs)
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_array_equal(gx, gx_ref)


@pytest.mark.parametrize('shape, large', [
    ((1, 16, 8, 8), False),               # below THRESHOLD
    ((2, 32, 16, 16), True),
    ((2, 40, 16, 16), True),              # not a multiple of 16 channels: nhwc at best
])
def test_auto(shape: tuple[int, ...], large: bool) -> None:
    # Under 'auto' the kernels run large arrays only, and only in nChw16c (in nhwc the
    # reorders make them slower than NumPy).
    assert (math.prod(shape) >= kernels.THRESHOLD) == large
    runs = _runs(shape) and large and kernels.kernel_layout(shape) == 'nChw16c'
    x = _inputs(shape)
    before = _calls()
    _run('auto', x, _inputs(shape, seed=1))
    assert _delta(before) == {name: int(runs) for name in NAMES}


def test_the_query_names_onednn_implementations() -> None:
    # oneDNN has some LRN code (reference code at least) in every layout the kernels ask
    # about; a window of one channel is not asked about.
    for names in kernels.implementations((2, 16, 4, 4), 3).values():
        assert names is not None and all(isinstance(name, str) and name for name in names)
    assert kernels.kernel_layout((2, 16, 4, 4), n=1) is None
    with pytest.raises(ValueError, match='one channel'):
        kernels.implementations((2, 16, 4, 4), n=1)


def test_non_contiguous_input() -> None:
    x = _inputs((2, 16, 10, 8))[:, :, ::2].transpose(0, 1, 3, 2)
    assert not x.flags.c_contiguous
    y, _, _ = _run('always', x)
    y_ref, _, _ = _run('never', numpy.ascontiguousarray(x))
    numpy.testing.assert_allclose(y, y_ref, **TOL)

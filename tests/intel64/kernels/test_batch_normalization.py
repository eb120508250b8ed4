"""oneDNN kernels of batch_normalization and fixed_batch_normalization against the generic path.

Every case runs twice, with ``use_ideep='never'`` (the generic NumPy code)
and ``'always'`` (the kernels), and compares outputs, gradients of every
input, the running averages and the state each node keeps for its backward.
"""

from __future__ import annotations

import collections
import importlib
import warnings
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import gradient_check
from catena.functions.normalization import batch_normalization as nodes

pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402

pytestmark = pytest.mark.ideep

MODULE = 'catena_intel64.kernels.normalization.batch_normalization'
NAMES = ('batch_normalization', 'batch_normalization_grad', 'fixed_batch_normalization',
         'fixed_batch_normalization_grad')
TOL = {'atol': 1e-4, 'rtol': 1e-4}



def _calls() -> collections.Counter[str]:
    return collections.Counter({name: _primitive.calls[name] for name in NAMES})


def _delta(before: collections.Counter[str]) -> dict[str, int]:
    return {name: _primitive.calls[name] - before[name] for name in NAMES
            if _primitive.calls[name] != before[name]}


def _uniform(shape: tuple[int, ...], seed: int, low: float = -1.0, high: float = 1.0,
             dtype: Any = numpy.float32) -> Any:
    return numpy.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def _params(x_shape: tuple[int, ...], gamma_shape: tuple[int, ...], dtype: Any = numpy.float32,
            seed: int = 0) -> dict[str, Any]:
    """Inputs with a per-channel offset and scale, so that statistics differ by channel."""
    x = _uniform(x_shape, seed, dtype=numpy.float64) * 3.0
    if len(gamma_shape) == 1 and len(x_shape) > 1:
        c = gamma_shape[0]
        x += numpy.linspace(-2, 5, c).reshape((1, c) + (1,) * (len(x_shape) - 2))
    return {'x': x.astype(dtype), 'gamma': _uniform(gamma_shape, seed + 1, 0.5, 1.5, dtype),
            'beta': _uniform(gamma_shape, seed + 2, dtype=dtype),
            'mean': _uniform(gamma_shape, seed + 3, dtype=dtype),
            'var': _uniform(gamma_shape, seed + 4, 0.5, 2.0, dtype),
            'gy': _uniform(x_shape, seed + 5, dtype=dtype)}


def _train(config: str, p: dict[str, Any], eps: float = 2e-5, axis: Any = None,
           decay: float = 0.9, running: bool = True) -> dict[str, Any]:
    """batch_normalization forward and backward; everything worth comparing."""
    running_mean = numpy.full(p['gamma'].shape, 0.25, p['gamma'].dtype) if running else None
    running_var = numpy.full(p['gamma'].shape, 1.5, p['gamma'].dtype) if running else None
    x, gamma, beta = (catena.Variable(p[k].copy()) for k in ('x', 'gamma', 'beta'))
    with catena.using_config('use_ideep', config):
        y = F.batch_normalization(x, gamma, beta, eps=eps, running_mean=running_mean,
                                  running_var=running_var, decay=decay, axis=axis)
        node = y.creator
        y.grad = p['gy'].copy()
        y.backward()
    return {'y': y.array, 'gx': x.grad, 'ggamma': gamma.grad, 'gbeta': beta.grad,
            'running_mean': running_mean, 'running_var': running_var, 'mean': node.mean,
            'inv_std': node.inv_std, 'node': node}


def _fixed(config: str, p: dict[str, Any], eps: float = 2e-5, axis: Any = None) -> dict[str, Any]:
    """fixed_batch_normalization forward and backward; everything worth comparing."""
    names = ('x', 'gamma', 'beta', 'mean', 'var')
    variables = [catena.Variable(p[k].copy()) for k in names]
    with catena.using_config('use_ideep', config):
        y = F.fixed_batch_normalization(*variables, eps=eps, axis=axis)
        node = y.creator
        y.grad = p['gy'].copy()
        y.backward()
    out = {'y': y.array, 'inv_std': node.inv_std, 'node': node}
    out.update({'g' + name: v.grad for name, v in zip(names, variables)})
    return out


def _assert_same(generic: dict[str, Any], kernel: dict[str, Any], **tol: float) -> None:
    tol = tol or TOL
    for key, expected in generic.items():
        if key == 'node':
            continue
        actual = kernel[key]
        if expected is None:
            assert actual is None, key
            continue
        assert actual.dtype == expected.dtype, key
        assert actual.shape == expected.shape, key
        numpy.testing.assert_allclose(actual, expected, err_msg=key, **tol)
    for attribute in ('axis', 'key_axis', 'view', 'eps'):
        assert getattr(kernel['node'], attribute) == getattr(generic['node'], attribute), \
            attribute


# (x shape, gamma shape, axis): the default channel axis, odd sizes, 2-d to 5-d inputs,
# channel counts below, at and above oneDNN's block of 16, several kept axes.
CASES = [
    ((5, 3), (3,), None),
    ((7, 40), (40,), None),
    ((4, 3, 5, 7), (3,), None),
    ((2, 17, 3, 3), (17,), None),
    ((3, 32, 4, 4), (32,), None),
    ((1, 16, 3, 5), (16,), None),
    ((2, 6, 9), (6,), None),
    ((2, 20, 3, 2, 2), (20,), None),
    ((3, 4, 5, 2), (4, 5), None),
    ((4, 18, 2, 3), (18,), (0, 2, 3)),
    ((6, 18), (18,), 0),
    ((6, 18), (18,), (-2,)),
]
CASE_IDS = ['x{}-g{}-axis{}'.format('x'.join(map(str, s)), 'x'.join(map(str, g)), a)
            for s, g, a in CASES]


@pytest.mark.parametrize(('x_shape', 'gamma_shape', 'axis'), CASES, ids=CASE_IDS)
def test_batch_normalization_matches_generic(x_shape, gamma_shape, axis) -> None:
    p = _params(x_shape, gamma_shape)
    generic = _train('never', p, axis=axis)
    before = _calls()
    kernel = _train('always', p, axis=axis)
    assert _delta(before) == {'batch_normalization': 1, 'batch_normalization_grad': 1}
    assert kernel['node'].implementation.startswith('oneDNN batch_normalization')
    _assert_same(generic, kernel)


@pytest.mark.parametrize(('x_shape', 'gamma_shape', 'axis'),
                         CASES + [((1, 5), (5,), None), ((1, 24, 1, 1), (24,), None)],
                         ids=CASE_IDS + ['batch1-2d', 'batch1-1x1'])
def test_fixed_batch_normalization_matches_generic(x_shape, gamma_shape, axis) -> None:
    p = _params(x_shape, gamma_shape)
    generic = _fixed('never', p, axis=axis)
    before = _calls()
    kernel = _fixed('always', p, axis=axis)
    assert _delta(before) == {'fixed_batch_normalization': 1,
                              'fixed_batch_normalization_grad': 1}
    assert kernel['node'].implementation.startswith('oneDNN fixed_batch_normalization')
    _assert_same(generic, kernel)


@pytest.mark.parametrize('eps', [0.0, 1e-5, 2e-5, 1e-2, 0.5])
def test_eps_is_added_to_the_variance_as_in_chainer(eps) -> None:
    # A channel with (almost) no variance shows whether eps enters sqrt(var + eps).
    p = _params((4, 16, 3, 3), (16,))
    p['x'][:, 0] = 0.5
    p['x'][:, 1] = 0.5 + numpy.float32(1e-3) * _uniform((4, 3, 3), 9)
    if eps == 0.0:
        p['x'][:, 0] += _uniform((4, 3, 3), 8)  # no division by zero
    _assert_same(_train('never', p, eps=eps), _train('always', p, eps=eps), atol=2e-4,
                 rtol=2e-4)
    _assert_same(_fixed('never', p, eps=eps), _fixed('always', p, eps=eps))


@pytest.mark.parametrize('decay', [0.0, 0.5, 0.9, 0.999])
def test_running_averages_use_the_unbiased_variance(decay) -> None:
    p = _params((3, 16, 2, 2), (16,))
    kernel = _train('always', p, decay=decay)
    m = 3 * 2 * 2
    x3 = p['x'].astype(numpy.float64).transpose(1, 0, 2, 3).reshape(16, -1)
    numpy.testing.assert_allclose(
        kernel['running_mean'], decay * 0.25 + (1 - decay) * x3.mean(axis=1), rtol=1e-5,
        atol=1e-6)
    numpy.testing.assert_allclose(
        kernel['running_var'], decay * 1.5 + (1 - decay) * x3.var(axis=1) * m / (m - 1),
        rtol=1e-5)
    _assert_same(_train('never', p, decay=decay), kernel)


def test_without_running_averages() -> None:
    p = _params((4, 16, 3, 3), (16,))
    generic = _train('never', p, running=False)
    kernel = _train('always', p, running=False)
    assert kernel['node'].running_mean is None
    _assert_same(generic, kernel)


def test_running_average_shape_mismatch_raises_like_the_generic_code() -> None:
    p = _params((4, 16, 3, 3), (16,))
    for config in ('never', 'always'):
        with catena.using_config('use_ideep', config), \
                pytest.raises(ValueError, match='running_mean has shape'):
            F.batch_normalization(p['x'], p['gamma'], p['beta'],
                                  running_mean=numpy.zeros(15, numpy.float32),
                                  running_var=numpy.ones(15, numpy.float32))


def test_non_contiguous_inputs() -> None:
    p = _params((4, 16, 6, 5), (16,))
    q = dict(p)
    q['x'] = numpy.asfortranarray(p['x'])
    q['gy'] = p['gy'][..., ::-1].copy()[..., ::-1]
    wide = numpy.zeros((4, 16, 6, 10), numpy.float32)
    wide[..., ::2] = p['x']
    q['x'] = wide[..., ::2]
    assert not q['x'].flags.c_contiguous
    _assert_same(_train('never', p), _train('always', q))
    _assert_same(_fixed('never', p), _fixed('always', q))


# ---------------------------------------------------------------------------
# What the kernels decline: the generic code runs, and gives its result.
# ---------------------------------------------------------------------------

FALLBACKS = [
    pytest.param((4, 16, 3, 3), (16,), None, numpy.float64, id='float64'),
    pytest.param((4, 16, 3, 3), (16,), None, numpy.float16, id='float16'),
    pytest.param((3, 4, 5, 2), (4, 2), (0, 2), numpy.float32, id='kept-axes-not-adjacent'),
    pytest.param((0, 16, 3, 3), (16,), None, numpy.float32, id='empty'),
]


@pytest.mark.parametrize(('x_shape', 'gamma_shape', 'axis', 'dtype'), FALLBACKS)
def test_unsupported_cases_fall_back(x_shape, gamma_shape, axis, dtype) -> None:
    p = _params(x_shape, gamma_shape, dtype)
    tol = {'atol': 1e-2, 'rtol': 1e-2} if dtype == numpy.float16 else TOL
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # the empty batch warns in both paths
        for run in (_train, _fixed):
            generic = run('never', p, axis=axis)
            before = _calls()
            kernel = run('always', p, axis=axis)
            assert _delta(before) == {}
            assert not hasattr(kernel['node'], 'implementation')
            _assert_same(generic, kernel, **tol)


def test_mixed_dtypes_fall_back() -> None:
    p = _params((4, 16, 3, 3), (16,))
    for key in ('gamma', 'beta', 'mean', 'var'):
        p[key] = p[key].astype(numpy.float64)
    before = _calls()
    for run in (_train, _fixed):
        _assert_same(run('never', p), run('always', p))
    assert _delta(before) == {}


def test_single_element_per_channel_falls_back_and_warns() -> None:
    p = _params((1, 16), (16,))
    before = _calls()
    for config in ('never', 'always'):
        with pytest.warns(UserWarning, match='single element'):
            result = _train(config, p)
        numpy.testing.assert_allclose(result['y'], numpy.broadcast_to(p['beta'], (1, 16)),
                                      atol=1e-6)
    assert 'batch_normalization' not in _delta(before)


def test_never_runs_no_kernel() -> None:
    p = _params((16, 64, 2, 2), (64,))
    before = _calls()
    _train('never', p)
    _fixed('never', p)
    assert _delta(before) == {}


def test_auto_runs_the_kernels_only_where_they_pay() -> None:
    from catena_intel64.kernels.normalization import batch_normalization as kernels

    small = _params((2, 8, 4, 4), (8,))
    few_positions = _params((16, 256, 2, 2), (256,))
    many_positions = _params((4, 16, 32, 32), (16,))
    assert small['x'].size < kernels.AUTO_MIN_SIZE <= few_positions['x'].size
    before = _calls()
    _train('auto', small)
    _train('auto', many_positions)
    _fixed('auto', small)
    assert _delta(before) == {}
    # The inference forward never pays (NumPy's two passes win); its gradient does.
    _fixed('auto', few_positions)
    assert _delta(before) == {'fixed_batch_normalization_grad': 1}
    _train('auto', few_positions)
    assert _delta(before) == {'fixed_batch_normalization_grad': 1, 'batch_normalization': 1,
                              'batch_normalization_grad': 1}


# ---------------------------------------------------------------------------
# Gradients (float32 throughout: the kernels do not run on float64)
# ---------------------------------------------------------------------------

GRAD_CASES = [((5, 3), (3,)), ((3, 17, 2, 3), (17,)), ((2, 4, 3), (4,))]


@pytest.mark.parametrize(('x_shape', 'gamma_shape'), GRAD_CASES)
def test_batch_normalization_check_backward(x_shape, gamma_shape) -> None:
    p = _params(x_shape, gamma_shape, seed=3)
    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(
            lambda x, g, b: F.batch_normalization(x, g, b), (p['x'], p['gamma'], p['beta']),
            p['gy'], eps=1e-2, atol=1e-2, rtol=1e-2)
    assert _delta(before).keys() == {'batch_normalization', 'batch_normalization_grad'}


@pytest.mark.parametrize(('x_shape', 'gamma_shape'), GRAD_CASES)
def test_batch_normalization_check_double_backward(x_shape, gamma_shape) -> None:
    p = _params(x_shape, gamma_shape, seed=4)
    ggx = _uniform(x_shape, 11)
    ggg, ggb = _uniform(gamma_shape, 12), _uniform(gamma_shape, 13)
    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_double_backward(
            lambda x, g, b: F.batch_normalization(x, g, b), (p['x'], p['gamma'], p['beta']),
            p['gy'], (ggx, ggg, ggb), eps=1e-2, atol=2e-2, rtol=2e-2)
    assert _delta(before).keys() >= {'batch_normalization', 'batch_normalization_grad'}


@pytest.mark.parametrize(('x_shape', 'gamma_shape'), GRAD_CASES + [((1, 6), (6,))])
def test_fixed_batch_normalization_check_backward(x_shape, gamma_shape) -> None:
    p = _params(x_shape, gamma_shape, seed=5)
    inputs = tuple(p[k] for k in ('x', 'gamma', 'beta', 'mean', 'var'))
    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(F.fixed_batch_normalization, inputs, p['gy'],
                                      eps=1e-2, atol=1e-2, rtol=1e-2)
    assert _delta(before).keys() == {'fixed_batch_normalization',
                                     'fixed_batch_normalization_grad'}


@pytest.mark.parametrize(('x_shape', 'gamma_shape'), GRAD_CASES)
def test_fixed_batch_normalization_check_double_backward(x_shape, gamma_shape) -> None:
    p = _params(x_shape, gamma_shape, seed=6)
    inputs = tuple(p[k] for k in ('x', 'gamma', 'beta', 'mean', 'var'))
    grad_grads = (_uniform(x_shape, 21),) + tuple(
        _uniform(gamma_shape, 22 + i) for i in range(4))
    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_double_backward(F.fixed_batch_normalization, inputs, p['gy'],
                                             grad_grads, eps=1e-2, atol=2e-2, rtol=2e-2)
    assert _delta(before).keys() >= {'fixed_batch_normalization',
                                     'fixed_batch_normalization_grad'}


def test_grad_node_after_a_generic_forward() -> None:
    # The forward declines (use_ideep='never'), the gradient node's kernel runs.
    p = _params((4, 16, 3, 3), (16,))
    generic = _train('never', p)
    x, gamma, beta = (catena.Variable(p[k].copy()) for k in ('x', 'gamma', 'beta'))
    with catena.using_config('use_ideep', 'never'):
        y = F.batch_normalization(x, gamma, beta)
    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        y.grad = p['gy'].copy()
        y.backward()
    assert _delta(before) == {'batch_normalization_grad': 1}
    for key, variable in (('gx', x), ('ggamma', gamma), ('gbeta', beta)):
        numpy.testing.assert_allclose(variable.grad, generic[key], err_msg=key, **TOL)


# ---------------------------------------------------------------------------
# The link: running statistics in training, then test mode
# ---------------------------------------------------------------------------

def _link_run(config: str, x_batches: list[Any], gy: Any) -> dict[str, Any]:
    link = L.BatchNormalization(16)
    link.gamma.array[...] = _uniform((16,), 31, 0.5, 1.5)
    link.beta.array[...] = _uniform((16,), 32)
    out: dict[str, Any] = {}
    with catena.using_config('use_ideep', config):
        for i, x in enumerate(x_batches):
            link.cleargrads()
            y = link(catena.Variable(x.copy()))
            y.grad = gy.copy()
            y.backward()
            out[f'y{i}'] = y.array
        out['ggamma'], out['gbeta'] = link.gamma.grad, link.beta.grad
        out['avg_mean'], out['avg_var'] = link.avg_mean.copy(), link.avg_var.copy()
        with catena.using_config('train', False):
            out['test'] = link(x_batches[0]).array
    return out


def test_link_training_then_test_mode_matches_generic() -> None:
    batches = [_params((4, 16, 3, 3), (16,), seed=s)['x'] for s in (40, 50, 60)]
    gy = _uniform((4, 16, 3, 3), 70)
    generic = _link_run('never', batches, gy)
    before = _calls()
    kernel = _link_run('always', batches, gy)
    assert _delta(before) == {'batch_normalization': 3, 'batch_normalization_grad': 3,
                              'fixed_batch_normalization': 1}
    for key, expected in generic.items():
        numpy.testing.assert_allclose(kernel[key], expected, err_msg=key, **TOL)


def test_nodes_are_the_core_classes() -> None:
    registered = dict(importlib.import_module(MODULE).registrations())
    assert set(registered) == {nodes.BatchNormalization, nodes.BatchNormalizationGrad,
                               nodes.FixedBatchNormalization,
                               nodes.FixedBatchNormalizationGrad}

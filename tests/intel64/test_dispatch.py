"""When oneDNN runs: use_ideep='never' keeps it out, and a broken oneDNN leaves catena generic.

tests/intel64/test_plugin.py checks how a missing oneDNN is reported by the
plugin's hooks and the '@intel64' device; this file checks that computation
goes on without it, with no kernel registered, and what ``python -m catena
info`` says.
"""

# ruff: noqa: NPY002

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L

pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402

pytestmark = pytest.mark.ideep


def _model() -> Any:
    rng = numpy.random.default_rng(1)
    conv = L.Convolution2D(3, 4, 3, pad=1, initialW=rng.standard_normal((4, 3, 3, 3)),
                           initial_bias=rng.standard_normal(4))
    deconv = L.Deconvolution2D(4, 2, 4, stride=2, pad=1,
                               initialW=rng.standard_normal((4, 2, 4, 4)),
                               initial_bias=rng.standard_normal(2))
    conv.cleargrads()
    deconv.cleargrads()
    return lambda x: F.sum(deconv(F.relu(conv(x))) ** 2), conv, deconv


def _forward_backward(config: str) -> list[numpy.ndarray]:
    model, conv, deconv = _model()
    x = catena.Variable(numpy.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(
        numpy.float32))
    with catena.using_config('use_ideep', config):
        loss = model(x)
        loss.backward()
    return [loss.array, x.grad, conv.W.grad, conv.b.grad, deconv.W.grad, deconv.b.grad]


@pytest.fixture
def onednn_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the oneDNN operations run (and built) while the test runs."""
    ran: list[str] = []
    call, cached = _primitive.Operation.__call__, _primitive.cached

    def counting_call(self: Any, *arrays: Any) -> None:
        ran.append(self.name)
        call(self, *arrays)

    def counting_cached(key: Any, build: Any) -> Any:
        ran.append(f'lookup {key[0]}')
        return cached(key, build)

    monkeypatch.setattr(_primitive.Operation, '__call__', counting_call)
    monkeypatch.setattr(_primitive, 'cached', counting_cached)
    return ran


def test_never_calls_no_onednn_operation(onednn_runs: list[str]) -> None:
    before = sum(_primitive.calls.values())
    grads = _forward_backward('never')
    assert onednn_runs == []
    assert sum(_primitive.calls.values()) == before
    assert all(g is not None and numpy.isfinite(g).all() for g in grads)


def test_always_calls_onednn_for_the_same_model(onednn_runs: list[str]) -> None:
    # The control for the test above: the patched counters do see oneDNN.
    _forward_backward('always')
    ran = {name for name in onednn_runs if not name.startswith('lookup')}
    assert ran == {'convolution_2d', 'convolution_2d_grad_w', 'deconvolution_2d', 'relu',
                   'relu_grad'}


def test_never_and_always_agree_on_the_model() -> None:
    for expected, actual in zip(_forward_backward('never'), _forward_backward('always')):
        numpy.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


def test_never_in_one_thread_leaves_other_threads_alone(onednn_runs: list[str]) -> None:
    import threading

    def worker() -> None:
        with catena.using_config('use_ideep', 'always'):
            F.convolution_2d(numpy.ones((1, 2, 5, 5), numpy.float32),
                             numpy.ones((3, 2, 3, 3), numpy.float32))

    with catena.using_config('use_ideep', 'never'):
        F.convolution_2d(numpy.ones((1, 2, 5, 5), numpy.float32),
                         numpy.ones((3, 2, 3, 3), numpy.float32))
        assert 'convolution_2d' not in onednn_runs
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert onednn_runs.count('convolution_2d') == 1


# ---------------------------------------------------------------------------
# oneDNN's library is broken
# ---------------------------------------------------------------------------

BROKEN_RUN = '''
    import sys
    import numpy
    import catena
    import catena.functions as F
    from catena.backends import _registry

    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((2, 3, 9, 8)).astype(numpy.float32)
    W = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)
    b = rng.standard_normal(4).astype(numpy.float32)
    gy = rng.standard_normal((2, 4, 5, 4)).astype(numpy.float32)
    results = {}
    for config in ('always', 'auto'):
        with catena.using_config('use_ideep', config):
            xv, Wv = catena.Variable(x), catena.Variable(W)
            y = F.convolution_2d(xv, Wv, b, stride=2, pad=1)
            assert not hasattr(y.creator_node, 'implementation'), y.creator_node.implementation
            y.grad = gy
            y.backward()
        results[config + '_y'], results[config + '_gx'] = y.array, xv.grad
        results[config + '_gW'] = Wv.grad
    numpy.savez(sys.argv[1], **results)
    from_plugin = [k for k in _registry.kernels.values()
                   if k.forward.__module__.startswith('catena_intel64')]
    print('intel64 kernels:', len(from_plugin))
    print('conv has a kernel:', F.connection.convolution_2d.Convolution2DFunction
          in _registry.kernel_node_classes)
'''


def _broken_library(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / 'libdnnl.so.3'
    path.write_text('this is not a shared library\n')
    return path


def _run(args: list[str], library: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CATENA_ONEDNN_LIBRARY=str(library))
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                          timeout=120)


def test_broken_onednn_leaves_convolution_generic(tmp_path: pathlib.Path) -> None:
    library = _broken_library(tmp_path)
    out = tmp_path / 'results.npz'
    result = _run(['-c', textwrap.dedent(BROKEN_RUN), str(out)], library)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ['intel64 kernels: 0', 'conv has a kernel: False']

    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((2, 3, 9, 8)).astype(numpy.float32)
    W = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)
    b = rng.standard_normal(4).astype(numpy.float32)
    gy = rng.standard_normal((2, 4, 5, 4)).astype(numpy.float32)
    with catena.using_config('use_ideep', 'never'):
        xv, Wv = catena.Variable(x), catena.Variable(W)
        y = F.convolution_2d(xv, Wv, b, stride=2, pad=1)
        y.grad = gy
        y.backward()
    with numpy.load(out) as results:
        for config in ('always', 'auto'):
            for name, expected in (('y', y.array), ('gx', xv.grad), ('gW', Wv.grad)):
                numpy.testing.assert_allclose(results[f'{config}_{name}'], expected,
                                              rtol=1e-6, atol=1e-6,
                                              err_msg=f'{config} {name}')


def test_catena_info_says_why_onednn_is_unavailable(tmp_path: pathlib.Path) -> None:
    library = _broken_library(tmp_path)
    result = _run(['-m', 'catena', 'info'], library)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # The plugin itself loads; only its library is missing.
    assert any(line.strip().startswith('intel64 (catena-intel64 ') and
               line.endswith(': loaded') for line in lines), result.stdout
    section = lines.index('intel64:')
    reason = lines[section + 1].strip()
    assert reason.startswith(f'oneDNN: unavailable (oneDNN could not be loaded from {library}: ')
    device = next(line.strip() for line in lines if line.strip().startswith('@intel64:'))
    assert device.startswith(f'@intel64: unavailable: oneDNN could not be loaded from {library}')


def test_every_kernel_module_is_registered_by_the_plugin() -> None:
    import importlib

    from catena.backends import _registry
    from catena_intel64 import kernels

    _registry.kernels.get((None, None))  # loads the plugins and builds the tables
    for name in kernels.MODULES:
        module = importlib.import_module(f'catena_intel64.kernels.{name}')
        for node_class, forward, *auto_min_size in module.registrations():
            kernel = _registry.kernels[(node_class, numpy.ndarray)]
            # Registered behind the calibration wrapper (catena_intel64._calibration).
            assert kernel.forward.__wrapped__ is forward, name
            assert kernel.auto_min_size == (auto_min_size or [0])[0], name

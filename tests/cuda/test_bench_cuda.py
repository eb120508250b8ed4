"""The CPU side of benchmarks/bench_cuda.py: networks, steps, arguments and the table.

The benchmark itself needs a GPU; here its networks run at the ``tiny`` size
on NumPy (and in torch on the CPU where torch is installed), so that what
the GPU run relies on is checked everywhere.
"""

from __future__ import annotations

import importlib.util
import io
import math
import pathlib

import numpy as np
import pytest

import catena

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load_bench():
    spec = importlib.util.spec_from_file_location(
        '_catena_bench_cuda', ROOT / 'benchmarks' / 'bench_cuda.py')
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load_bench()
TINY = bench.SIZES['tiny']


def _gpu_available():
    try:
        import catena_cuda
    except ImportError:
        return False
    return catena_cuda.available


needs_no_gpu = pytest.mark.skipif(_gpu_available(), reason='checks the run without a GPU')


def test_gives_run_py_no_cases():
    assert bench.cases() == []


def test_full_size_is_the_benchmarked_one():
    full = bench.SIZES['full']
    assert (full.batch, full.image, full.width, full.classes, full.hidden) == (
        64, 224, 64, 1000, 4096)
    assert set(bench.CASES) == {'resnet50/train/float32', 'resnet50/train/mixed16',
                                'vgg16/inference/float32'}
    assert bench.TARGET == 1.5


# ------------------------------------------------------------------ networks


def _shapes(pairs):
    return sorted(tuple(shape) for shape in pairs)


@pytest.mark.parametrize('name', ['resnet50', 'vgg16'])
def test_catena_network_runs_at_tiny_size(name):
    model = bench.catena_model(name, TINY)
    x, t = bench.inputs(TINY)
    assert x.shape == (4, 3, 64, 64) and t.dtype == np.int32 and t.max() < TINY.classes
    with catena.using_config('train', False), catena.no_backprop_mode():
        y = model(x)
    assert y.shape == (TINY.batch, TINY.classes) and y.dtype == np.float32
    assert np.isfinite(y.array).all()


def test_resnet50_layout():
    model = bench.catena_model('resnet50', TINY)
    convs = [link for _, link in model.namedlinks()
             if isinstance(link, catena.links.Convolution2D)]
    norms = [link for _, link in model.namedlinks()
             if isinstance(link, catena.links.BatchNormalization)]
    assert len(convs) == 53 and len(norms) == 53  # 1 + 16 x 3 + 4 projections
    assert len(model.blocks) == 16
    assert model.fc.W.shape == (TINY.classes, TINY.width * 8 * 4)


@pytest.mark.parametrize('name', ['resnet50', 'vgg16'])
def test_torch_network_has_the_same_parameters(name):
    torch = pytest.importorskip('torch')
    catena_shapes = _shapes(param.shape for _, param in
                            bench.catena_model(name, TINY).namedparams())
    model = bench.torch_model(name, TINY)
    assert _shapes(p.shape for p in model.parameters()) == catena_shapes
    model.eval()
    with torch.no_grad():
        y = model(torch.from_numpy(bench.inputs(TINY)[0]))
    assert tuple(y.shape) == (TINY.batch, TINY.classes)


def test_mixed16_network_has_float16_weights_and_float32_statistics():
    with catena.using_config('dtype', catena.mixed16):
        model = bench.catena_model('resnet50', TINY)
    assert model.conv1.W.dtype == np.float16 and model.fc.W.dtype == np.float16
    assert model.bn1.gamma.dtype == np.float32 and model.bn1.avg_mean.dtype == np.float32


# ------------------------------------------------------------------ runners on NumPy


def _params(model):
    return {path: np.array(param.array) for path, param in model.namedparams()}


def test_catena_float32_training_step_updates_the_weights():
    runner = bench.CatenaRunner('resnet50/train/float32', TINY, '@numpy')
    before = _params(runner.model)
    loss = runner.step()
    runner.synchronize()
    assert loss.shape == () and math.isfinite(float(loss))
    after = _params(runner.model)
    assert all(not np.array_equal(before[k], after[k]) for k in before)
    assert runner.optimizer.t == 1


@pytest.mark.filterwarnings('error::RuntimeWarning')  # no float16 overflow
def test_catena_mixed16_training_step_scales_the_loss():
    runner = bench.CatenaRunner('resnet50/train/mixed16', TINY, '@numpy', loss_scale='128')
    assert runner.x.dtype == np.float16
    assert runner.optimizer._loss_scale == 128.0
    assert not runner.optimizer._loss_scaling_is_dynamic
    before = _params(runner.model)
    loss = runner.step()
    assert loss.dtype == np.float16 and math.isfinite(float(loss))
    assert runner.model.conv1.W.dtype == np.float16
    rule = runner.model.conv1.W.update_rule
    assert rule._fp32_param is not None and rule._fp32_param.dtype == np.float32
    after = _params(runner.model)
    assert all(np.isfinite(value).all() for value in after.values())
    changed = [k for k, v in after.items() if not np.array_equal(before[k], v)]
    assert len(changed) > len(before) // 2


def test_catena_dynamic_loss_scaling():
    runner = bench.CatenaRunner('resnet50/train/mixed16', TINY, '@numpy', loss_scale='dynamic')
    assert runner.optimizer._loss_scaling_is_dynamic


def test_catena_inference_returns_outputs_without_a_graph():
    runner = bench.CatenaRunner('vgg16/inference/float32', TINY, '@numpy')
    out = runner.step()
    assert type(out) is np.ndarray and out.shape == (TINY.batch, TINY.classes)
    assert catena.config.train  # the step's configuration did not leak


def test_kernel_calls_is_empty_on_numpy():
    pytest.importorskip('catena_cuda')
    runner = bench.CatenaRunner('vgg16/inference/float32', TINY, '@numpy')
    assert bench.kernel_calls(runner) == {}


@pytest.mark.parametrize('case', list(bench.CASES))
def test_torch_step_on_the_cpu(case):
    pytest.importorskip('torch')
    runner = bench.TorchRunner(case, TINY, 'cpu')
    result = runner.step()
    runner.synchronize()
    assert math.isfinite(bench._first_value(result))
    if case.endswith('mixed16'):
        assert runner.scale == 256.0 and runner.scaler is None


def test_torch_dynamic_loss_scaling_uses_a_grad_scaler():
    torch = pytest.importorskip('torch')
    runner = bench.TorchRunner('resnet50/train/mixed16', TINY, 'cpu', loss_scale='dynamic')
    assert isinstance(runner.scaler, torch.amp.GradScaler) and runner.scale is None


# ------------------------------------------------------------------ timing and report


def test_measure_synchronizes_around_every_timed_step():
    events = []
    result = bench.measure(lambda: events.append('step'), lambda: events.append('sync'),
                           (2, 3))
    assert events == ['step', 'step', 'sync'] + ['step', 'sync'] * 3
    assert result['steps'] == 3 and 0 <= result['best_s'] <= result['median_s']


def test_parse_args_defaults_and_options():
    args = bench.parse_args([])
    assert (args.quick, args.json, args.k, args.device, args.size) == (
        False, None, None, 0, 'full')
    assert args.loss_scale == '256' and not args.cudnn_benchmark
    args = bench.parse_args(['--quick', '--json', 'out.json', '-k', 'vgg', '--device', '1',
                             '--loss-scale', 'dynamic', '--cudnn-benchmark', '--size',
                             'tiny', '--steps', '4', '--warmup', '1'])
    assert (args.quick, args.json, args.k, args.device, args.loss_scale, args.size) == (
        True, 'out.json', 'vgg', 1, 'dynamic', 'tiny')
    assert args.cudnn_benchmark and (args.steps, args.warmup) == (4, 1)


@pytest.mark.parametrize('value', ['0', '-2', 'big'])
def test_parse_args_rejects_a_bad_loss_scale(value, capsys):
    with pytest.raises(SystemExit):
        bench.parse_args(['--loss-scale', value])
    assert "--loss-scale must be a positive number or 'dynamic'" in capsys.readouterr().err


def test_print_table():
    rows = [
        {'case': 'resnet50/train/float32', 'catena': {'median_s': 0.12},
         'torch': {'median_s': 0.1}},
        {'case': 'resnet50/train/mixed16', 'catena': {'median_s': 0.2},
         'torch': {'median_s': 0.1}},
        {'case': 'vgg16/inference/float32', 'catena': {'error': 'RuntimeError: no'},
         'torch': None},
    ]
    out = io.StringIO()
    bench.print_table(rows, 64, file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['case', 'catena', 'ms', 'torch', 'ms', 'catena', 'img/s',
                                'torch', 'img/s', 'catena/torch', 'target']
    assert set(lines[1]) == {'-'}
    assert lines[2].split() == ['resnet50/train/float32', '120.00', '100.00', '533.3',
                                '640.0', '1.20x', '<=', '1.5x', 'met']
    assert lines[3].split()[-3:] == ['<=', '1.5x', 'MISSED'] and '2.00x' in lines[3]
    assert lines[4].split() == ['vgg16/inference/float32', 'error', '-', '-', '-', '-', '<=',
                                '1.5x']
    assert lines[5] == '  vgg16/inference/float32 [catena]: RuntimeError: no'


def test_ratio():
    assert bench.ratio({'catena': {'median_s': 3.0}, 'torch': {'median_s': 2.0}}) == 1.5
    assert bench.ratio({'catena': {'median_s': 3.0}, 'torch': None}) is None
    assert bench.ratio({'catena': {'error': 'x'}, 'torch': {'median_s': 1.0}}) is None


@needs_no_gpu
def test_main_without_a_gpu_runs_nothing_and_exits_0(tmp_path, capsys):
    path = tmp_path / 'out.json'
    assert bench.main(['--quick', '--json', str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith('nothing ran: this benchmark needs catena-cuda on a GPU.')
    assert ('CuPy' in out or 'catena-cuda is not installed' in out
            or 'no CUDA GPU' in out)
    assert not path.exists()


def test_main_with_an_unknown_case_exits_1(capsys):
    assert bench.main(['-k', 'lenet']) == 1
    assert 'no case matches' in capsys.readouterr().out

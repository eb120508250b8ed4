#!/usr/bin/env python
"""catena-cuda on whole networks against PyTorch eager, on one GPU in one run.

Usage::

    python benchmarks/bench_cuda.py                    # every case, full timing
    python benchmarks/bench_cuda.py --quick            # smoke run
    python benchmarks/bench_cuda.py -k resnet50 --json out.json
    python benchmarks/bench_cuda.py --device 1 --cudnn-benchmark

Cases (networks defined in this file, random weights, batch 64 at 3x224x224,
1000 classes):

``resnet50/train/float32``
    one training step of ResNet-50 (the v1.5 layout: the 3x3 convolution of
    a bottleneck strides, batch normalization after every convolution):
    forward, softmax cross entropy, backward, MomentumSGD update (lr 0.01,
    momentum 0.9);
``resnet50/train/mixed16``
    the same in float16 with loss scaling. catena builds and runs the model
    under ``catena.config.dtype = catena.mixed16`` (float16 weights and
    activations, float32 batch-normalization parameters and statistics),
    updates through float32 master weights (``optimizer.use_fp32_update()``)
    and scales the loss in the optimizer (``optimizer.loss_scaling``). torch
    runs its standard mixed precision, ``torch.autocast('cuda', float16)``
    with float32 weights. ``--loss-scale S`` (default 256) gives both a static
    scale (torch: the loss times S, the gradients times 1/S before the step);
    ``--loss-scale dynamic`` uses catena's dynamic scaling and
    ``torch.amp.GradScaler``;
``vgg16/inference/float32``
    VGG-16 in test mode under ``catena.no_backprop_mode()`` (torch:
    ``eval()`` and ``torch.no_grad()``).

Each step is timed on its own, between two synchronizations of the GPU,
after warm-up steps; the table shows the median ms per step of each
framework and catena/torch. The target (the catena-cuda issue) is catena at
most 1.5x torch's time on every case. Both frameworks run in this process on
the same GPU, one after the other; after each, its memory is released
(CuPy's pool, torch's cache). Both keep their default cuDNN settings unless
``--cudnn-benchmark`` turns on algorithm search in both
(``catena.config.autotune``, ``torch.backends.cudnn.benchmark``). One step
of catena runs first with catena-cuda's kernel counters read before and
after: the output lists which catena-cuda kernels ran (the others ran the
generic CuPy code).

Without catena-cuda, CuPy or a GPU the script prints why nothing ran and
exits with 0. A catena case that raises makes the exit status 1; a missed
target does not. ``--size tiny`` runs the same networks at a toy size (for
smoke tests). ``benchmarks/run.py`` times CPU work in-process without
synchronizing a device, so this file gives it no cases.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import datetime
import gc
import importlib.util
import json
import math
import pathlib
import platform
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np


class Size(NamedTuple):
    """The batch, the image side, the first stage's width and the classifier's sizes."""

    batch: int
    image: int
    width: int  # channels of the first stage: 64 in the real networks
    classes: int
    hidden: int  # VGG-16's fc6 and fc7: 4096 in the real network


SIZES = {'full': Size(64, 224, 64, 1000, 4096), 'tiny': Size(4, 64, 4, 10, 32)}
CASES = {  # name -> (network, training step?, precision)
    'resnet50/train/float32': ('resnet50', True, 'float32'),
    'resnet50/train/mixed16': ('resnet50', True, 'mixed16'),
    'vgg16/inference/float32': ('vgg16', False, 'float32'),
}
TARGET = 1.5  # catena / torch at most
LR = 0.01
MOMENTUM = 0.9
BN_EPS = 2e-5  # Chainer's default; torch's models are given the same
DEFAULT_LOSS_SCALE = '256'
SEED = 0

# (warm-up steps, timed steps)
FULL = (5, 30)
QUICK = (2, 5)

_RESNET50_STAGES = (3, 4, 6, 3)
_VGG16_BLOCKS = (2, 2, 3, 3, 3)
_VGG16_WIDTHS = (1, 2, 4, 8, 8)  # times Size.width


def cases() -> list[dict[str, Any]]:
    """No in-process cases for ``run.py``: this benchmark needs a GPU; run it as a script."""
    return []


def inputs(size: Size, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """A fixed batch ``(x, t)``: float32 images in [-1, 1) and int32 labels."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (size.batch, 3, size.image, size.image)).astype(np.float32)
    t = rng.integers(0, size.classes, size.batch).astype(np.int32)
    return x, t


# ------------------------------------------------------------------ catena networks


def catena_model(name: str, size: Size) -> Any:
    """Builds ``name`` (``'resnet50'`` or ``'vgg16'``) from catena links, on the CPU.

    The parameters take ``catena.config.dtype`` (build under ``mixed16`` for
    float16 weights).
    """
    import catena
    import catena.functions as F
    import catena.links as L

    class Bottleneck(catena.Chain):
        def __init__(self, n_in: int, mid: int, n_out: int, stride: int) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = L.Convolution2D(n_in, mid, 1, nobias=True)
                self.bn1 = L.BatchNormalization(mid, eps=BN_EPS)
                self.conv2 = L.Convolution2D(mid, mid, 3, stride, 1, nobias=True)
                self.bn2 = L.BatchNormalization(mid, eps=BN_EPS)
                self.conv3 = L.Convolution2D(mid, n_out, 1, nobias=True)
                self.bn3 = L.BatchNormalization(n_out, eps=BN_EPS)
                self.project = stride != 1 or n_in != n_out
                if self.project:
                    self.shortcut = L.Convolution2D(n_in, n_out, 1, stride, nobias=True)
                    self.bn_shortcut = L.BatchNormalization(n_out, eps=BN_EPS)

        def forward(self, x: Any) -> Any:
            h = F.relu(self.bn1(self.conv1(x)))
            h = F.relu(self.bn2(self.conv2(h)))
            h = self.bn3(self.conv3(h))
            shortcut = self.bn_shortcut(self.shortcut(x)) if self.project else x
            return F.relu(h + shortcut)

    class ResNet50(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = L.Convolution2D(3, size.width, 7, 2, 3, nobias=True)
                self.bn1 = L.BatchNormalization(size.width, eps=BN_EPS)
                self.blocks = catena.ChainList()
                n_in = size.width
                for stage, count in enumerate(_RESNET50_STAGES):
                    mid = size.width * 2 ** stage
                    for index in range(count):
                        stride = 2 if index == 0 and stage > 0 else 1
                        self.blocks.append(Bottleneck(n_in, mid, mid * 4, stride))
                        n_in = mid * 4
                self.fc = L.Linear(n_in, size.classes)

        def forward(self, x: Any) -> Any:
            h: Any = F.relu(self.bn1(self.conv1(x)))
            h = F.max_pooling_2d(h, 3, 2, 1, cover_all=False)
            for block in self.blocks:
                h = block(h)
            return self.fc(F.mean(h, axis=(2, 3)))

    class VGG16(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            self.block_sizes = _VGG16_BLOCKS
            n_in = 3
            with self.init_scope():
                self.convs = catena.ChainList()
                for count, factor in zip(_VGG16_BLOCKS, _VGG16_WIDTHS):
                    for _ in range(count):
                        self.convs.append(L.Convolution2D(n_in, size.width * factor, 3, 1, 1))
                        n_in = size.width * factor
                side = size.image // 2 ** len(_VGG16_BLOCKS)
                self.fc6 = L.Linear(n_in * side * side, size.hidden)
                self.fc7 = L.Linear(size.hidden, size.hidden)
                self.fc8 = L.Linear(size.hidden, size.classes)

        def forward(self, x: Any) -> Any:
            h = x
            layers = iter(self.convs)
            for count in self.block_sizes:
                for _ in range(count):
                    h = F.relu(next(layers)(h))
                h = F.max_pooling_2d(h, 2, 2, cover_all=False)
            h = F.dropout(F.relu(self.fc6(h)), 0.5)
            h = F.dropout(F.relu(self.fc7(h)), 0.5)
            return self.fc8(h)

    networks = {'resnet50': ResNet50, 'vgg16': VGG16}
    if name not in networks:
        raise ValueError(f'unknown network {name!r}; expected one of {sorted(networks)}')
    return networks[name]()


# ------------------------------------------------------------------ torch networks


def torch_model(name: str, size: Size) -> Any:
    """Builds ``name`` in ``torch.nn`` with the layout of :func:`catena_model`."""
    import torch
    from torch import nn

    def conv_bn(n_in: int, n_out: int, ksize: int, stride: int, pad: int) -> list[nn.Module]:
        return [nn.Conv2d(n_in, n_out, ksize, stride, pad, bias=False),
                nn.BatchNorm2d(n_out, eps=BN_EPS)]

    class Bottleneck(nn.Module):
        def __init__(self, n_in: int, mid: int, n_out: int, stride: int) -> None:
            super().__init__()
            self.conv1, self.bn1 = conv_bn(n_in, mid, 1, 1, 0)
            self.conv2, self.bn2 = conv_bn(mid, mid, 3, stride, 1)
            self.conv3, self.bn3 = conv_bn(mid, n_out, 1, 1, 0)
            self.shortcut: nn.Module | None = None
            if stride != 1 or n_in != n_out:
                self.shortcut = nn.Sequential(*conv_bn(n_in, n_out, 1, stride, 0))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = torch.relu(self.bn1(self.conv1(x)))
            h = torch.relu(self.bn2(self.conv2(h)))
            h = self.bn3(self.conv3(h))
            shortcut = x if self.shortcut is None else self.shortcut(x)
            return torch.relu(h + shortcut)

    class ResNet50(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1, self.bn1 = conv_bn(3, size.width, 7, 2, 3)
            blocks: list[nn.Module] = []
            n_in = size.width
            for stage, count in enumerate(_RESNET50_STAGES):
                mid = size.width * 2 ** stage
                for index in range(count):
                    stride = 2 if index == 0 and stage > 0 else 1
                    blocks.append(Bottleneck(n_in, mid, mid * 4, stride))
                    n_in = mid * 4
            self.blocks = nn.Sequential(*blocks)
            self.fc = nn.Linear(n_in, size.classes)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = torch.relu(self.bn1(self.conv1(x)))
            h = nn.functional.max_pool2d(h, 3, 2, 1)
            return self.fc(self.blocks(h).mean(dim=(2, 3)))

    class VGG16(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layers: list[nn.Module] = []
            n_in = 3
            for count, factor in zip(_VGG16_BLOCKS, _VGG16_WIDTHS):
                for _ in range(count):
                    layers += [nn.Conv2d(n_in, size.width * factor, 3, 1, 1), nn.ReLU()]
                    n_in = size.width * factor
                layers.append(nn.MaxPool2d(2, 2))
            self.features = nn.Sequential(*layers)
            side = size.image // 2 ** len(_VGG16_BLOCKS)
            self.classifier = nn.Sequential(
                nn.Linear(n_in * side * side, size.hidden), nn.ReLU(), nn.Dropout(0.5),
                nn.Linear(size.hidden, size.hidden), nn.ReLU(), nn.Dropout(0.5),
                nn.Linear(size.hidden, size.classes))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.classifier(self.features(x).flatten(1))  # type: ignore[no-any-return]

    networks = {'resnet50': ResNet50, 'vgg16': VGG16}
    if name not in networks:
        raise ValueError(f'unknown network {name!r}; expected one of {sorted(networks)}')
    return networks[name]()


# ------------------------------------------------------------------ runners


def _loss_scale(text: str) -> float | None:
    """The static scale of ``--loss-scale``, or None for ``'dynamic'``."""
    return None if text == 'dynamic' else float(text)


class CatenaRunner:
    """One case in catena on ``device`` (a spec: ``'@cupy:0'``; ``'@numpy'`` in tests)."""

    def __init__(self, case: str, size: Size, device: str, loss_scale: str = DEFAULT_LOSS_SCALE,
                 autotune: bool = False) -> None:
        import catena
        import catena.optimizers

        name, self.train, precision = CASES[case]
        self.dtype = catena.mixed16 if precision == 'mixed16' else np.float32
        self.autotune = autotune
        with catena.using_config('dtype', self.dtype):
            self.model = catena_model(name, size)
        self.device = catena.get_device(device)
        self.device.use()
        self.model.to_device(self.device)
        x, t = inputs(size)
        self.x = self.device.send(x.astype(np.float16) if precision == 'mixed16' else x)
        self.t = self.device.send(t)
        self.loss: Any = None
        if self.train:
            self.optimizer = catena.optimizers.MomentumSGD(lr=LR, momentum=MOMENTUM)
            self.optimizer.setup(self.model)
            if precision == 'mixed16':
                self.optimizer.use_fp32_update()
                scale = _loss_scale(loss_scale)
                if scale is None:
                    self.optimizer.loss_scaling()
                else:
                    self.optimizer.loss_scaling(scale=scale)

    def _config(self) -> contextlib.ExitStack:
        import catena

        stack = contextlib.ExitStack()
        stack.enter_context(catena.using_config('dtype', self.dtype))
        if self.autotune:
            stack.enter_context(catena.using_config('autotune', True))
        if not self.train:
            stack.enter_context(catena.using_config('train', False))
            stack.enter_context(catena.no_backprop_mode())
        return stack

    def _lossfun(self) -> Any:
        import catena.functions as F

        loss = F.softmax_cross_entropy(self.model(self.x), self.t)
        self.loss = loss.array  # the array only: the graph goes after backward
        return loss

    def step(self) -> Any:
        """One training step (its loss array returned) or one inference (the outputs)."""
        with self._config():
            if not self.train:
                return self.model(self.x).array
            self.optimizer.update(self._lossfun)
            return self.loss

    def synchronize(self) -> None:
        native = getattr(self.device, 'device', None)  # cupy.cuda.Device on a GPU
        if native is not None:
            native.synchronize()


class TorchRunner:
    """One case in PyTorch eager on ``device`` (``'cuda:0'``; ``'cpu'`` in tests)."""

    def __init__(self, case: str, size: Size, device: str, loss_scale: str = DEFAULT_LOSS_SCALE,
                 cudnn_benchmark: bool = False) -> None:
        import torch

        self.torch = torch
        name, self.train, precision = CASES[case]
        self.device = torch.device(device)
        if self.device.type == 'cuda':
            torch.cuda.set_device(self.device)
            torch.backends.cudnn.benchmark = cudnn_benchmark
        self.model = torch_model(name, size).to(self.device).train(self.train)
        x, t = inputs(size)
        self.x = torch.from_numpy(x).to(self.device)
        self.t = torch.from_numpy(t.astype(np.int64)).to(self.device)
        self.mixed = precision == 'mixed16'
        self.scale = _loss_scale(loss_scale) if self.mixed else None
        self.scaler = None
        if self.mixed and self.scale is None:
            self.scaler = torch.amp.GradScaler(self.device.type)
        if self.train:
            self.optimizer = torch.optim.SGD(self.model.parameters(), lr=LR, momentum=MOMENTUM)

    def _autocast(self) -> Any:
        if not self.mixed:
            return contextlib.nullcontext()
        return self.torch.autocast(self.device.type, dtype=self.torch.float16)

    def step(self) -> Any:
        torch = self.torch
        if not self.train:
            with torch.no_grad():
                return self.model(self.x)
        self.optimizer.zero_grad(set_to_none=True)
        with self._autocast():
            loss = torch.nn.functional.cross_entropy(self.model(self.x), self.t)
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        elif self.scale is not None:
            (loss * self.scale).backward()
            grads = [p.grad for p in self.model.parameters() if p.grad is not None]
            torch._foreach_mul_(grads, 1.0 / self.scale)
            self.optimizer.step()
        else:
            loss.backward()
            self.optimizer.step()
        return loss.detach()

    def synchronize(self) -> None:
        if self.device.type == 'cuda':
            self.torch.cuda.synchronize(self.device)


# ------------------------------------------------------------------ timing


def measure(step: Callable[[], object], synchronize: Callable[[], None],
            settings: tuple[int, int]) -> dict[str, Any]:
    """Times ``steps`` single steps, each between two synchronizations, after warm-up."""
    warmup, steps = settings
    for _ in range(warmup):
        step()
    synchronize()
    gc.collect()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        synchronize()
        times.append(time.perf_counter() - start)
    return {'median_s': statistics.median(times), 'best_s': min(times), 'steps': steps}


def kernel_calls(runner: CatenaRunner) -> dict[str, int]:
    """catena-cuda's kernels that ran in one step of ``runner``, with their counts."""
    from catena_cuda.kernels import _common

    before = collections.Counter(_common.calls)
    runner.step()
    runner.synchronize()
    return dict(sorted((collections.Counter(_common.calls) - before).items()))


def _first_value(result: Any) -> float:
    array = result.detach().cpu().numpy() if hasattr(result, 'detach') else result
    if hasattr(array, 'get'):
        array = array.get()
    return float(np.asarray(array, dtype=np.float64).ravel()[0])


# ------------------------------------------------------------------ environment


def gpu_unavailable_reason(device: int) -> str | None:
    """Why catena cannot use GPU ``device`` here, or None when it can."""
    if importlib.util.find_spec('catena_cuda') is None:
        return "catena-cuda is not installed (pip install './packages/backend-cuda[cuda12]')"
    import catena
    import catena_cuda

    try:
        catena_cuda.check_cuda_available()
        catena.get_device(f'@cupy:{device}')
    except (RuntimeError, ValueError) as error:
        return str(error)
    return None


def torch_unavailable_reason() -> str | None:
    """Why torch cannot run on the GPU here, or None when it can."""
    if importlib.util.find_spec('torch') is None:
        return 'torch is not importable (pip install torch with CUDA)'
    import torch

    if not torch.cuda.is_available():
        return f'torch {torch.__version__} sees no CUDA GPU (a CPU-only build?)'
    return None


def environment(device: int, with_torch: bool) -> dict[str, Any]:
    """Versions and the GPU, for the header and the JSON file."""
    import cupy

    import catena
    import catena_cuda

    runtime = cupy.cuda.runtime
    name = runtime.getDeviceProperties(device)['name']
    info: dict[str, Any] = {
        'python': platform.python_version(), 'numpy': np.__version__,
        'catena': getattr(catena, '__version__', '?'),
        'catena_cuda': getattr(catena_cuda, '__version__', '?'), 'cupy': cupy.__version__,
        'cuda_runtime': runtime.runtimeGetVersion(), 'cuda_driver': runtime.driverGetVersion(),
        'gpu': name.decode(errors='replace') if isinstance(name, bytes) else str(name),
        'use_cudnn': getattr(catena.config, 'use_cudnn', '?'),
    }
    if with_torch:
        import torch

        info.update({'torch': torch.__version__, 'torch_cuda': torch.version.cuda,
                     'torch_cudnn': torch.backends.cudnn.version()})
    return info


def release_memory() -> None:
    """Returns the memory cached by CuPy's pools and torch's allocator to the GPU."""
    gc.collect()
    with contextlib.suppress(ImportError):
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    if 'torch' in sys.modules:
        torch = sys.modules['torch']
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


# ------------------------------------------------------------------ reporting


def _short_error(exc: BaseException) -> str:
    return f'{type(exc).__name__}: {exc}'.splitlines()[0][:200]


def ratio(row: dict[str, Any]) -> float | None:
    """catena's median over torch's, when both sides were timed."""
    sides = row.get('catena'), row.get('torch')
    if any(side is None or 'error' in side for side in sides):
        return None
    return float(sides[0]['median_s'] / sides[1]['median_s'])  # type: ignore[index]


def _cell(side: dict[str, Any] | None) -> str:
    if side is None:
        return '-'
    if 'error' in side:
        return 'error'
    return f"{side['median_s'] * 1e3:.2f}"


def print_table(rows: list[dict[str, Any]], batch: int, file: Any = None) -> None:
    """Prints ms per step, images per second and catena/torch for each case."""
    out = sys.stdout if file is None else file
    width = max([len('case')] + [len(row['case']) for row in rows])
    header = (f"{'case':<{width}}  {'catena ms':>9}  {'torch ms':>9}  {'catena img/s':>12}  "
              f"{'torch img/s':>11}  {'catena/torch':>12}  {'target':>7}")
    print(header, file=out)
    print('-' * len(header), file=out)
    for row in rows:
        value = ratio(row)
        throughput = []
        for side in ('catena', 'torch'):
            timed = row.get(side)
            throughput.append('-' if timed is None or 'error' in timed
                              else f"{batch / timed['median_s']:.1f}")
        verdict = '' if value is None else ('met' if value <= TARGET else 'MISSED')
        print(f"{row['case']:<{width}}  {_cell(row.get('catena')):>9}  "
              f"{_cell(row.get('torch')):>9}  {throughput[0]:>12}  {throughput[1]:>11}  "
              f"{'-' if value is None else f'{value:.2f}x':>12}  {f'<= {TARGET:g}x':>7}  "
              f"{verdict}".rstrip(), file=out)
    for row in rows:
        for side in ('catena', 'torch'):
            timed = row.get(side)
            if timed is not None and 'error' in timed:
                print(f"  {row['case']} [{side}]: {timed['error']}", file=out)


# ------------------------------------------------------------------ main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or '').splitlines()[0])
    parser.add_argument('--quick', action='store_true',
                        help=f'smoke run: {QUICK[0]} warm-up and {QUICK[1]} timed steps')
    parser.add_argument('--json', metavar='PATH', help='write the results as JSON')
    parser.add_argument('-k', metavar='TEXT', help='only cases whose name contains TEXT')
    parser.add_argument('--no-torch', action='store_true', help='time catena only')
    parser.add_argument('--device', type=int, default=0, help='the GPU index (default 0)')
    parser.add_argument('--steps', type=int, help='timed steps per side')
    parser.add_argument('--warmup', type=int, help='warm-up steps per side')
    parser.add_argument('--loss-scale', default=DEFAULT_LOSS_SCALE,
                        help="the mixed16 case's loss scale: a number (static) or 'dynamic' "
                             f'(default {DEFAULT_LOSS_SCALE})')
    parser.add_argument('--cudnn-benchmark', action='store_true',
                        help='let both frameworks search cuDNN algorithms (catena autotune, '
                             'torch.backends.cudnn.benchmark)')
    parser.add_argument('--size', choices=sorted(SIZES), default='full',
                        help="network and batch size ('tiny' for smoke tests)")
    parser.add_argument('-v', '--verbose', action='store_true', help='print tracebacks')
    args = parser.parse_args(argv)
    if args.loss_scale != 'dynamic':
        try:
            scale = float(args.loss_scale)
        except ValueError:
            scale = math.nan
        if not scale > 0:
            parser.error(f"--loss-scale must be a positive number or 'dynamic', "
                         f'got {args.loss_scale!r}')
    return args


def run_side(case: str, side: str, args: argparse.Namespace,
             settings: tuple[int, int]) -> dict[str, Any]:
    """Times one framework's side of ``case``; the row records an error instead of raising."""
    size = SIZES[args.size]
    result: dict[str, Any] = {}
    runner: Any = None
    try:
        if side == 'catena':
            runner = CatenaRunner(case, size, f'@cupy:{args.device}', args.loss_scale,
                                  args.cudnn_benchmark)
            result['kernels'] = kernel_calls(runner)
        else:
            runner = TorchRunner(case, size, f'cuda:{args.device}', args.loss_scale,
                                 args.cudnn_benchmark)
        result.update(measure(runner.step, runner.synchronize, settings))
        value = _first_value(runner.step())
        if not math.isfinite(value):
            print(f'  warning: {case} [{side}] produced a non-finite value ({value}); '
                  f'its timing may not be representative')
        print(f"  {side:<6} {result['median_s'] * 1e3:9.2f} ms/step (median of "
              f"{result['steps']})", flush=True)
    except Exception as exc:  # report it in the table, keep going
        if args.verbose:
            traceback.print_exc()
        result = {'error': _short_error(exc)}
        print(f'  {side:<6} error: {result["error"]}', flush=True)
    del runner
    release_memory()
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    selected = [case for case in CASES if args.k is None or args.k in case]
    if not selected:
        print(f'no case matches {args.k!r}; cases: {", ".join(CASES)}')
        return 1
    reason = gpu_unavailable_reason(args.device)
    if reason is not None:
        print(f'nothing ran: this benchmark needs catena-cuda on a GPU. {reason}')
        return 0
    with_torch = not args.no_torch
    if with_torch:
        torch_reason = torch_unavailable_reason()
        if torch_reason is not None:
            print(f'timing catena only: {torch_reason}')
            with_torch = False

    settings = QUICK if args.quick else FULL
    settings = (settings[0] if args.warmup is None else args.warmup,
                settings[1] if args.steps is None else args.steps)
    size = SIZES[args.size]
    meta = environment(args.device, with_torch)
    print('  '.join(f'{key} {value}' for key, value in meta.items()))
    print(f'size {args.size} (batch {size.batch}, {size.image}x{size.image}); median of '
          f'{settings[1]} steps after {settings[0]} warm-up steps; loss scale '
          f'{args.loss_scale}; cuDNN algorithm search '
          f'{"on" if args.cudnn_benchmark else "off"}\n')

    rows: list[dict[str, Any]] = []
    for case in selected:
        print(case, flush=True)
        row: dict[str, Any] = {'case': case, 'catena': run_side(case, 'catena', args, settings),
                               'torch': None}
        kernels = row['catena'].get('kernels')
        if kernels is not None:
            listed = ', '.join(f'{name} x{count}' for name, count in kernels.items())
            print(f"  catena-cuda kernels in one step: {listed or 'none (generic CuPy code)'}")
        if with_torch:
            row['torch'] = run_side(case, 'torch', args, settings)
        row['ratio'] = ratio(row)
        row['target'] = TARGET
        rows.append(row)

    print()
    print_table(rows, size.batch)
    if args.json:
        payload = {
            'meta': {**meta, 'date': datetime.datetime.now(datetime.timezone.utc).isoformat(),
                     'platform': platform.platform(), 'size': size._asdict(),
                     'quick': args.quick, 'warmup': settings[0], 'steps': settings[1],
                     'loss_scale': args.loss_scale, 'cudnn_benchmark': args.cudnn_benchmark,
                     'target_ratio': TARGET},
            'results': rows,
        }
        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload, indent=2) + '\n')
        print(f'\nresults written to {path}')
    return 1 if any('error' in row['catena'] for row in rows) else 0


if __name__ == '__main__':
    sys.exit(main())

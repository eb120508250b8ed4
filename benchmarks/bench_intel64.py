#!/usr/bin/env python
"""catena-intel64 on whole networks at 2 threads: oneDNN against generic catena and torch.

Usage::

    python benchmarks/bench_intel64.py                 # every case, full timing
    python benchmarks/bench_intel64.py --quick         # smoke run
    python benchmarks/bench_intel64.py --check         # also compare results across variants
    python benchmarks/bench_intel64.py -k resnet18 --json out.json

Cases (networks in ``_intel64_models.py``, random weights from a fixed seed):

``lenet/train``
    one training step of MNIST's LeNet, batch 64 of 1x28x28: forward,
    softmax cross entropy, backward, SGD update;
``resnet18/train``
    the same for ResNet-18's layout (batch normalization in training mode) on
    a batch of 16 at 3x64x64, 1000 classes;
``vgg16/inference``
    VGG-16 at 224x224, batch 1, in test mode under ``no_backprop_mode()``
    (torch: eval mode under ``torch.no_grad()``);
``mlp/train``
    Chainer's MNIST MLP (784-1000-1000-10, ReLU), batch 100, MomentumSGD
    (lr 0.01, momentum 0.9); like every case here it runs on 2 threads (the
    catena-intel64 issue measured it on 1);
``ptb-lstm/train``
    Chainer's PTB language model (embedding 10000 -> 650, two LSTMs of 650
    units, linear 650 -> 10000, dropout 0.5), batch 20: one truncated
    backpropagation step over 35 time steps (the summed softmax cross
    entropy of each, one backward, the state unchained), SGD (lr 1) with
    gradient clipping at norm 5 as in Chainer's example; torch steps
    ``nn.LSTMCell`` the same way.

Variants: ``generic`` (``use_ideep='never'``: catena's NumPy code),
``onednn`` (``use_ideep='auto'``, catena's default: each op runs its oneDNN
kernel where that measured faster than NumPy *on this machine*: the kernels'
size rules, then calibration), ``onednn-fixed`` (``--fixed-rules``: the same
with ``catena.config.ideep_calibration = False``, the size rules alone),
``onednn-bf16`` (``onednn`` with ``catena.config.ideep_fpmath_mode = 'bf16'``:
bfloat16 compute with float32 accumulation in convolutions; ResNet-18 and
VGG-16 only; on by default when oneDNN's ISA has bfloat16 instructions) and
``torch`` (PyTorch's eager CPU path). Every variant starts from the same
weights (catena's, copied into torch).

Before the calibrated variants are timed, their steps run until calibration
has decided every call signature (at most ``SETTLE_STEPS``); the number of
steps that took is printed, with where the decisions are cached
(``CATENA_IDEEP_CALIBRATION_CACHE`` chooses the folder; a second run reads
them back and needs none).

Everything runs on ``THREADS`` (2) threads: ``OMP_NUM_THREADS`` (oneDNN's
and torch's OpenMP), ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS`` are
set at the top of this script, before NumPy or any OpenMP runtime loads, and
torch gets ``torch.set_num_threads``. Each variant is warmed up, then timed
as the median of several repeats (each repeat loops until it lasts at least
the minimum time).

The table shows ms per step, the GFLOP/s reached and its share of the
machine's peak. FLOPs count convolutions and linear layers analytically
(2 per multiply-accumulate); a training step counts 3x the forward pass.
The peak is ``threads x GHz x FLOP/cycle``: the clock from
``/proc/cpuinfo`` and FLOP/cycle from the ISA oneDNN reports
(``effective_cpu_isa()``): fp32 lanes per vector (16 for AVX-512, 8 for
AVX2, 4 for SSE4.1) x 2 (a fused multiply-add) x ``--fma-units`` (2 by
default: two FMA ports, so 64 FLOP/cycle with AVX-512; pass 1 for CPUs with
one 512-bit FMA unit or AMD Zen 4, whose 512-bit FMAs take two passes).
``--peak-gflops`` overrides the whole computation. The bf16 row is shown
against the same fp32 peak.

Targets (the catena-intel64 issue): ``onednn`` at most 1.25x torch's time,
and ``generic`` at least 3x ``onednn``'s time, on every case (all three are
convolution networks).

Before timing (after calibration), one step of each oneDNN variant runs
under a :class:`catena.FunctionHook` that reads ``node.implementation`` (set
by catena-intel64's kernels): the table lists, per phase and FunctionNode
class, which oneDNN implementation ran or that the generic code did.

``--check`` runs each variant once from the same weights and data (no
update, no dropout, a fresh LSTM state) and compares the loss and every
parameter gradient (training) or the outputs (inference) between pairs of
variants: the loss or outputs as max |a - b| over max |b|, the gradients as
||a - b|| over ||b|| per array (the largest over arrays; the max-based
figure is shown too), within
``TOLERANCES`` (fp32) or ``BF16_TOLERANCES`` (bf16: the loss or outputs
only). A failed check or a catena variant that raises makes the exit status
1; a missed target does not.

``benchmarks/run.py`` times in-process cases on one thread; this benchmark
sets its own thread count, so it is a script of its own and gives run.py no
cases.
"""

from __future__ import annotations

import argparse
import collections
import copy
import datetime
import gc
import importlib.util
import json
import math
import os
import pathlib
import platform
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

THREADS = 2
THREAD_VARIABLES = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')

if __name__ == '__main__':
    # Before NumPy (OpenBLAS reads its variable when it loads) and before oneDNN or torch
    # load libgomp, which reads OMP_NUM_THREADS once.
    for _variable in THREAD_VARIABLES:
        os.environ[_variable] = str(THREADS)

import numpy as np  # noqa: E402

import _intel64_models as models  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent

CASES = {  # name -> (model, training step?)
    'lenet/train': ('lenet', True),
    'resnet18/train': ('resnet18', True),
    'vgg16/inference': ('vgg16', False),
    'mlp/train': ('mlp', True),
    'ptb-lstm/train': ('ptb-lstm', True),
}
BF16_MODELS = ('resnet18', 'vgg16')
LR = 0.01
# model -> (optimizer, its arguments, gradient clipping norm or None); default SGD(lr=LR)
OPTIMIZERS: dict[str, tuple[str, dict[str, float], float | None]] = {
    'mlp': ('MomentumSGD', {'lr': 0.01, 'momentum': 0.9}, None),
    'ptb-lstm': ('SGD', {'lr': 1.0}, 5.0),
}
SETTLE_STEPS = 40
TORCH_TARGET = 1.25  # onednn / torch at most
GENERIC_TARGET = 3.0  # generic / onednn at least
TRAIN_FLOPS_FACTOR = 3  # forward, backward to the inputs, backward to the weights
# kind of difference (see compare) -> tolerance; None: shown, not judged
TOLERANCES: dict[str, float | None] = {'value': 1e-4, 'grads': 1e-2, 'grads max': None}
BF16_TOLERANCES: dict[str, float | None] = {'value': 2e-2, 'grads': None, 'grads max': None}

# (warm-up calls, minimum seconds per repeat, repeats)
FULL = (3, 0.3, 7)
QUICK = (1, 0.0, 3)

# variant -> (use_ideep, ideep_fpmath_mode, ideep_calibration); torch is separate
CATENA_VARIANTS = {
    'generic': ('never', 'strict', True),
    'onednn': ('auto', 'strict', True),
    'onednn-fixed': ('auto', 'strict', False),
    'onednn-bf16': ('auto', 'bf16', True),
}


def cases() -> list[dict[str, Any]]:
    """No in-process cases for ``run.py``: run this file as a script."""
    return []


# ------------------------------------------------------------------ machine


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cpu_mhz() -> float | None:
    """The mean ``cpu MHz`` of /proc/cpuinfo, or None where it cannot be read."""
    try:
        text = pathlib.Path('/proc/cpuinfo').read_text()
    except OSError:
        return None
    values = [float(line.split(':')[1]) for line in text.splitlines()
              if line.startswith('cpu MHz')]
    return statistics.mean(values) if values else None


def cpu_flags() -> set[str]:
    try:
        text = pathlib.Path('/proc/cpuinfo').read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith('flags'):
            return set(line.split(':')[1].split())
    return set()


def ideep_unavailable_reason() -> str | None:
    """Why the oneDNN variants cannot run here, or None when they can (loads oneDNN)."""
    if importlib.util.find_spec('catena_intel64') is None:
        return 'catena-intel64 is not installed (pip install ./packages/backend-intel64)'
    import catena.backends.intel64

    try:
        catena.backends.intel64.check_ideep_available()
    except RuntimeError as error:
        return str(error)
    return None


def effective_isa() -> tuple[str, str]:
    """oneDNN's effective ISA (or one read from /proc/cpuinfo's flags) and where it came from."""
    try:
        from catena_intel64 import _dnnl

        return _dnnl.effective_cpu_isa(), 'oneDNN'
    except Exception:  # oneDNN missing: guess from the CPU flags
        flags = cpu_flags()
        if 'avx512f' in flags:
            return ('avx512_core_bf16' if 'avx512_bf16' in flags else 'avx512_core'), 'cpuinfo'
        if 'avx2' in flags:
            return 'avx2', 'cpuinfo'
        return 'sse41', 'cpuinfo'


def flops_per_cycle(isa: str, fma_units: int) -> int:
    """fp32 FLOP/cycle per core: vector lanes x 2 (multiply-add) x FMA units."""
    if isa.startswith('avx512'):
        lanes = 16
    elif isa.startswith('avx'):
        lanes = 8
    else:
        lanes = 4
    return lanes * 2 * fma_units


def has_bf16(isa: str) -> bool:
    return isa.startswith('avx512_core') and any(
        part in isa for part in ('bf16', 'fp16', 'amx'))


# ------------------------------------------------------------------ timing


def measure(fn: Callable[[], object], settings: tuple[int, float, int]) -> dict[str, Any]:
    """Warm up, loop until a repeat lasts ``min_time``, then take the median over repeats."""
    warmup, min_time, repeats = settings
    for _ in range(warmup):
        fn()
    gc.enable()
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    number = max(1, math.ceil(min_time / max(once, 1e-9)))
    per_call = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        per_call.append((time.perf_counter() - start) / number)
    return {'median_s': statistics.median(per_call), 'best_s': min(per_call),
            'loops': number, 'repeats': repeats}


# ------------------------------------------------------------------ catena side


class ImplementationRecorder:
    """Counts, per phase and FunctionNode class, which implementation ran (see ``hook``)."""

    def __init__(self) -> None:
        self.phase = 'forward'
        self.seen: collections.Counter[tuple[str, str, str]] = collections.Counter()
        # (phase, class) -> input shapes of the nodes that ran the generic code
        self.generic_shapes: dict[tuple[str, str], collections.Counter[str]] = {}

    def fallbacks(self) -> dict[tuple[str, str], collections.Counter[str]]:
        """Input shapes of generic nodes whose class ran on oneDNN elsewhere in the step."""
        on_onednn = {(p, c) for p, c, i in self.seen if i != 'generic'}
        return {key: shapes for key, shapes in self.generic_shapes.items()
                if key in on_onednn}

    def hook(self) -> Any:
        import catena

        recorder = self

        class Hook(catena.FunctionHook):
            name = 'bench_intel64_implementations'

            def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
                implementation = getattr(function, 'implementation', None) or 'generic'
                key = (recorder.phase, type(function).__name__)
                recorder.seen[(*key, implementation)] += 1
                if implementation == 'generic':
                    shapes = 'x'.join(str(tuple(getattr(a, 'shape', ()))) for a in in_data)
                    recorder.generic_shapes.setdefault(key, collections.Counter())[shapes] += 1

        return Hook()


class CatenaRunner:
    """One network in catena: a training step or an inference, under a variant's config."""

    def __init__(self, base: Any, name: str, train: bool, variant: str) -> None:
        import catena

        self.use_ideep, self.fpmath, self.calibration = CATENA_VARIANTS[variant]
        self.train = train
        self.x, self.t = models.inputs(name)
        if train:
            self.model = copy.deepcopy(base)
            optimizer, arguments, clip = OPTIMIZERS.get(name, ('SGD', {'lr': LR}, None))
            self.optimizer = getattr(catena.optimizers, optimizer)(**arguments)
            self.optimizer.setup(self.model)
            if clip is not None:
                self.optimizer.add_hook(catena.optimizer_hooks.GradientClipping(clip))
        else:
            self.model = base  # inference leaves the weights alone: share them

    def _config(self) -> Any:
        import contextlib

        import catena

        stack = contextlib.ExitStack()
        stack.enter_context(catena.using_config('use_ideep', self.use_ideep))
        stack.enter_context(catena.using_config('ideep_fpmath_mode', self.fpmath))
        stack.enter_context(catena.using_config('ideep_calibration', self.calibration))
        if not self.train:
            stack.enter_context(catena.using_config('train', False))
            stack.enter_context(catena.no_backprop_mode())
        return stack

    def step(self, recorder: ImplementationRecorder | None = None,
             update: bool = True) -> Any:
        """One training step (loss returned) or one inference (outputs returned)."""
        with self._config():
            if not self.train:
                return self.model(self.x)
            self.model.cleargrads()
            loss = models.catena_loss(self.model, self.x, self.t)
            if recorder is not None:
                recorder.phase = 'backward'
            loss.backward()
            loss.unchain_backward()  # a sequence model's state keeps no graph behind it
            if update:
                self.optimizer.update()
            return loss

    def settle(self) -> tuple[int, Any]:
        """Runs steps until calibration decided every signature; returns their count, status."""
        from catena_intel64 import calibration

        steps = 0
        while steps < SETTLE_STEPS:
            self.step(update=False)  # the weights stay those of the other variants
            steps += 1
            if calibration.status().pending == 0:
                break
        return steps, calibration.status()

    def step_recorded(self) -> ImplementationRecorder:
        recorder = ImplementationRecorder()
        with recorder.hook():
            self.step(recorder, update=False)
        return recorder


def _deterministic(model: Any) -> Any:
    """A context without dropout and with a fresh state (a sequence model's): for --check."""
    import contextlib

    @contextlib.contextmanager
    def scope() -> Any:
        ratio = getattr(model, 'ratio', None)
        if ratio is not None:
            model.ratio = 0.0
        if hasattr(model, 'reset_state'):
            model.reset_state()
        try:
            yield
        finally:
            if ratio is not None:
                model.ratio = ratio
            if hasattr(model, 'reset_state'):
                model.reset_state()

    return scope()


def catena_result(runner: CatenaRunner) -> dict[str, np.ndarray]:
    """Outputs (inference) or loss and gradients (training) of one un-updated step."""
    with _deterministic(runner.model):
        out = runner.step(update=False)
    if not runner.train:
        return {'output': np.array(out.array)}
    result = {'loss': np.array(out.array)}
    result.update({f'grad {k}': v.copy() for k, v in models.catena_grads(runner.model).items()})
    return result


# ------------------------------------------------------------------ torch side


def torch_setup() -> Any:
    import torch

    torch.set_num_threads(THREADS)
    return torch


class TorchRunner:
    def __init__(self, base: Any, name: str, train: bool) -> None:
        torch = torch_setup()
        self.torch = torch
        self.train = train
        self.model = models.copy_to_torch(base, models.torch_model(name))
        self.model.train(train)
        x, t = models.inputs(name)
        self.x = torch.from_numpy(x)
        self.t = torch.from_numpy(t.astype(np.int64))
        self.clip = None
        if train:
            optimizer, arguments, self.clip = OPTIMIZERS.get(name, ('SGD', {'lr': LR}, None))
            self.optimizer = torch.optim.SGD(self.model.parameters(), **arguments)

    def step(self, update: bool = True) -> Any:
        torch = self.torch
        if not self.train:
            with torch.no_grad():
                return self.model(self.x)
        self.optimizer.zero_grad()
        loss = models.torch_loss(self.model, self.x, self.t)
        loss.backward()
        if hasattr(self.model, 'unchain'):
            self.model.unchain()
        if update:
            if self.clip is not None:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            self.optimizer.step()
        return loss

    def result(self) -> dict[str, np.ndarray]:
        with _deterministic(self.model):
            out = self.step(update=False)
        if not self.train:
            return {'output': out.numpy().copy()}
        result = {'loss': out.detach().numpy().copy()}
        for key, param in self.model.named_parameters():
            if param.grad is not None:
                result[f'grad {key}'] = param.grad.numpy().copy()
        return result


# ------------------------------------------------------------------ checks


def _worst(a: dict[str, np.ndarray], b: dict[str, np.ndarray], keys: list[str],
           metric: Callable[[np.ndarray, np.ndarray], float]) -> tuple[float, str]:
    worst, where = 0.0, ''
    for key in keys:
        value = metric(a[key].astype(np.float64), b[key].astype(np.float64))
        if not value <= worst:  # NaN counts as worst
            worst, where = value, key
    return worst, where


def _max_relative(a: np.ndarray, b: np.ndarray) -> float:
    scale = float(np.abs(b).max())
    diff = float(np.abs(a - b).max())
    return diff / scale if scale > 0 else diff


def _l2_relative(a: np.ndarray, b: np.ndarray) -> float:
    scale = float(np.linalg.norm(b))
    diff = float(np.linalg.norm(a - b))
    return diff / scale if scale > 0 else diff


def compare(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, tuple[float, str]]:
    """The differences that the check judges, by kind, each with the array where it is worst.

    ``value``: the loss or the outputs, max |a - b| / max |b|. ``grads``: the
    parameter gradients, ||a - b|| / ||b|| per array (the largest), and
    ``grads max``: max |a - b| / max |b| per array, shown only: one ReLU
    whose input lies within rounding of zero flips its mask between two
    correct float32 computations and moves single gradient entries by their
    full size, which the norm absorbs.
    """
    if a.keys() != b.keys():
        raise AssertionError(f'different arrays: {sorted(a.keys() ^ b.keys())[:5]}')
    values = [k for k in a if not k.startswith('grad ')]
    grads = [k for k in a if k.startswith('grad ')]
    out = {'value': _worst(a, b, values, _max_relative)}
    if grads:
        out['grads'] = _worst(a, b, grads, _l2_relative)
        out['grads max'] = _worst(a, b, grads, _max_relative)
    return out


def run_check(results: dict[str, dict[str, np.ndarray]]) -> tuple[bool, list[str]]:
    lines, ok = [], True
    pairs = [('onednn', 'generic'), ('onednn', 'torch'), ('generic', 'torch'),
             ('onednn-bf16', 'torch'), ('onednn-bf16', 'onednn')]
    for first, second in pairs:
        if first not in results or second not in results:
            continue
        differences = compare(results[first], results[second])
        tolerances = BF16_TOLERANCES if 'bf16' in first else TOLERANCES
        if (first, second) == ('onednn-bf16', 'onednn') and all(
                value == 0 for value, _ in differences.values()):
            lines.append('onednn-bf16 gave exactly the fp32 results: oneDNN ran no bf16 '
                         'computation (fpmath_mode only allows it; see the implementations)')
        cells = []
        for kind, (value, where) in differences.items():
            tolerance = tolerances.get(kind)
            if tolerance is None:
                cells.append(f'{kind} {value:.1e} ({where}, shown only)')
                continue
            good = value <= tolerance
            ok &= good
            cells.append(f'{kind} {value:.1e} ({where or "-"}; <= {tolerance:g} '
                         f'{"OK" if good else "FAILED"})')
        lines.append(f'{first} vs {second}: ' + '; '.join(cells))
    return ok, lines


# ------------------------------------------------------------------ reporting


def print_implementations(case: str, variant: str, recorder: ImplementationRecorder) -> None:
    print(f'\n{case} [{variant}]: implementation per op for one step')
    width = max([4] + [len(cls) for _, cls, _ in recorder.seen])
    for (phase, cls, implementation), count in sorted(recorder.seen.items()):
        print(f'  {phase:<8}  {cls:<{width}}  x{count:<3}  {implementation}')
    for (phase, cls), shapes in sorted(recorder.fallbacks().items()):
        listed = ', '.join(f'{shape} x{n}' for shape, n in sorted(shapes.items()))
        print(f'  fell back: {phase} {cls} on inputs {listed}')


def print_table(rows: list[dict[str, Any]], peak_gflops: float | None) -> None:
    print()
    header = (f"{'case':<16}  {'variant':<12}  {'ms/step':>9}  {'best ms':>9}  "
              f"{'GFLOP/s':>8}  {'% peak':>7}")
    print(header)
    print('-' * len(header))
    for row in rows:
        if 'error' in row:
            print(f"{row['case']:<16}  {row['variant']:<12}  error: {row['error']}")
            continue
        gflops = row['gflop'] / row['median_s']
        share = f'{gflops / peak_gflops:.1%}' if peak_gflops else '-'
        print(f"{row['case']:<16}  {row['variant']:<12}  {row['median_s'] * 1e3:>9.2f}  "
              f"{row['best_s'] * 1e3:>9.2f}  {gflops:>8.1f}  {share:>7}")


def ratio_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    timed = {(r['case'], r['variant']): r['median_s'] for r in rows if 'error' not in r}
    out = []
    for case in dict.fromkeys(r['case'] for r in rows):
        for fast in ('onednn', 'onednn-fixed', 'onednn-bf16'):
            if (case, fast) not in timed:
                continue
            row: dict[str, Any] = {'case': case, 'variant': fast}
            if (case, 'torch') in timed:
                row['vs_torch'] = timed[(case, fast)] / timed[(case, 'torch')]
            if (case, 'generic') in timed:
                row['generic_over'] = timed[(case, 'generic')] / timed[(case, fast)]
            if fast == 'onednn-bf16' and (case, 'onednn') in timed:
                row['fp32_over'] = timed[(case, 'onednn')] / timed[(case, fast)]
            out.append(row)
    return out


def print_ratios(rows: list[dict[str, Any]]) -> None:
    print()
    header = (f"{'case':<16}  {'variant':<12}  {'/torch':>7}  {'target':>8}  {'':<6}  "
              f"{'generic/':>8}  {'target':>7}  {'':<6}  {'fp32/bf16':>9}")
    print(header)
    print('-' * len(header))
    for row in rows:
        judged = row['variant'] == 'onednn'
        vs_torch = row.get('vs_torch')
        generic_over = row.get('generic_over')
        torch_cell = '-' if vs_torch is None else f'{vs_torch:.2f}x'
        torch_verdict = ('met' if vs_torch <= TORCH_TARGET else 'MISSED') if (
            judged and vs_torch is not None) else ''
        generic_cell = '-' if generic_over is None else f'{generic_over:.2f}x'
        generic_verdict = ('met' if generic_over >= GENERIC_TARGET else 'MISSED') if (
            judged and generic_over is not None) else ''
        fp32 = row.get('fp32_over')
        print(f"{row['case']:<16}  {row['variant']:<12}  {torch_cell:>7}  "
              f"{f'<= {TORCH_TARGET:g}x' if judged else '':>8}  {torch_verdict:<6}  "
              f"{generic_cell:>8}  {f'>= {GENERIC_TARGET:g}x' if judged else '':>7}  "
              f"{generic_verdict:<6}  {'-' if fp32 is None else f'{fp32:.2f}x':>9}")
    print("(/torch: the variant's time over torch's; generic/: generic catena's time over "
          "the variant's; fp32/bf16: onednn's time over onednn-bf16's)")


def threadpools() -> list[dict[str, Any]]:
    try:
        import threadpoolctl  # type: ignore[import-untyped]
    except ImportError:
        return []
    return [{k: info.get(k) for k in ('user_api', 'internal_api', 'num_threads', 'filepath')}
            for info in threadpoolctl.threadpool_info()]


# ------------------------------------------------------------------ main


def _short_error(exc: BaseException) -> str:
    return f'{type(exc).__name__}: {exc}'.splitlines()[0][:200]


def run_case(case: str, variants: list[str], settings: tuple[int, float, int], check: bool,
             verbose: bool) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Times every variant of ``case``; returns the rows and the check's outcome."""
    name, train = CASES[case]
    if 'onednn' in variants:
        from catena_intel64 import calibration

        # Forget the previous case's signatures: calibration decides the BLAS-backed
        # functions of the signatures a process runs together (the file keeps them all).
        calibration.clear()
    started = time.perf_counter()
    base = models.catena_model(name)
    print(f'{case}: model built in {time.perf_counter() - started:.1f} s', flush=True)
    gflop = models.forward_flops(name) * (TRAIN_FLOPS_FACTOR if train else 1) / 1e9
    rows: list[dict[str, Any]] = []
    results: dict[str, dict[str, np.ndarray]] = {}
    check_outcome: dict[str, Any] = {}
    for variant in variants:
        row: dict[str, Any] = {'case': case, 'variant': variant, 'gflop': gflop}
        runner: Any = None
        try:
            if variant == 'torch':
                runner = TorchRunner(base, name, train)
            else:
                runner = CatenaRunner(base, name, train, variant)
                if variant != 'generic' and runner.calibration:
                    steps, status = runner.settle()
                    row['calibration_steps'] = steps
                    row['calibration'] = status._asdict()
                    print(f'{case} [{variant}]: calibration settled after {steps} steps: '
                          f'{status.describe()}', flush=True)
                if variant != 'generic':
                    recorder = runner.step_recorded()
                    print_implementations(case, variant, recorder)
                    row['implementations'] = [
                        {'phase': p, 'node': c, 'implementation': i, 'count': n}
                        for (p, c, i), n in sorted(recorder.seen.items())]
                    row['fallbacks'] = [
                        {'phase': p, 'node': c, 'inputs': shape, 'count': n}
                        for (p, c), shapes in sorted(recorder.fallbacks().items())
                        for shape, n in sorted(shapes.items())]
            if check:
                results[variant] = (runner.result() if variant == 'torch'
                                    else catena_result(runner))
            row.update(measure(runner.step, settings))
            last = runner.step()
            value = float((last.detach().numpy() if variant == 'torch'
                           else np.asarray(last.array)).ravel()[0])
            if not math.isfinite(value):
                print(f'  warning: {case} [{variant}] produced a non-finite value ({value}); '
                      f'its timing may not be representative')
            print(f"  {variant:<12} {row['median_s'] * 1e3:9.2f} ms/step "
                  f"({row['loops']} loops x {row['repeats']} repeats)", flush=True)
        except Exception as exc:  # report it in the table, keep going
            if verbose:
                traceback.print_exc()
            row['error'] = _short_error(exc)
            print(f'  {variant:<12} error: {row["error"]}', flush=True)
        rows.append(row)
        del runner
        gc.collect()
    if check:
        try:
            ok, lines = run_check(results)
        except Exception as exc:
            if verbose:
                traceback.print_exc()
            ok, lines = False, [_short_error(exc)]
        check_outcome = {'ok': ok, 'lines': lines}
    return rows, check_outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true',
                        help=f'smoke run: {QUICK[0]} warm-up call, {QUICK[2]} single-call '
                             f'repeats')
    parser.add_argument('--check', action='store_true',
                        help='compare losses/gradients/outputs across the variants')
    parser.add_argument('--json', metavar='PATH', help='write the results as JSON')
    parser.add_argument('-k', metavar='TEXT', help='only cases whose name contains TEXT')
    parser.add_argument('--no-torch', action='store_true', help='leave the torch variant out')
    parser.add_argument('--fixed-rules', action='store_true',
                        help='also time onednn-fixed: use_ideep=auto without calibration')
    parser.add_argument('--bf16', action=argparse.BooleanOptionalAction, default=None,
                        help='time the onednn-bf16 variant (default: when the ISA has bf16)')
    parser.add_argument('--repeats', type=int, help='timed repeats per variant')
    parser.add_argument('--peak-gflops', type=float,
                        help='the peak fp32 GFLOP/s of THREADS cores (default: computed)')
    parser.add_argument('--fma-units', type=int, default=2,
                        help='FMA units per core for the computed peak (default 2)')
    parser.add_argument('-v', '--verbose', action='store_true', help='print tracebacks')
    args = parser.parse_args(argv)

    settings = QUICK if args.quick else FULL
    if args.repeats is not None:
        settings = (settings[0], settings[1], args.repeats)
    selected = [case for case in CASES if args.k is None or args.k in case]
    if not selected:
        print(f'no case matches {args.k!r}; cases: {", ".join(CASES)}')
        return 1

    reason = ideep_unavailable_reason()
    isa, isa_source = effective_isa()
    with_bf16 = has_bf16(isa) if args.bf16 is None else args.bf16
    with_torch = not args.no_torch
    if with_torch and importlib.util.find_spec('torch') is None:
        print('torch is not importable: leaving the torch variant out (pip install torch)')
        with_torch = False

    cores = min(THREADS, usable_cores())
    mhz = cpu_mhz()
    per_cycle = flops_per_cycle(isa, args.fma_units)
    if args.peak_gflops is not None:
        peak: float | None = args.peak_gflops
        peak_text = f'{peak:g} GFLOP/s (--peak-gflops)'
    elif mhz is not None:
        peak = cores * mhz / 1e3 * per_cycle
        peak_text = (f'{peak:.1f} GFLOP/s = {cores} cores x {mhz / 1e3:.2f} GHz x '
                     f'{per_cycle} FLOP/cycle ({isa} from {isa_source}: '
                     f'{per_cycle // (2 * args.fma_units)} fp32 lanes x 2 x {args.fma_units} '
                     f'FMA units)')
    else:
        peak, peak_text = None, 'unknown (no cpu MHz in /proc/cpuinfo; pass --peak-gflops)'

    import catena

    versions = {'python': platform.python_version(), 'numpy': np.__version__,
                'catena': getattr(catena, '__version__', '?')}
    if reason is None:
        from catena_intel64 import _dnnl

        versions['onednn'] = f'{_dnnl.dnnl_version()} ({_dnnl.dnnl_version().cpu_runtime})'
    if with_torch:
        versions['torch'] = torch_setup().__version__
    print('  '.join(f'{k} {v}' for k, v in versions.items()))
    print(f'{THREADS} threads ({", ".join(f"{v}={os.environ.get(v)}" for v in THREAD_VARIABLES)}'
          f'{", torch.set_num_threads" if with_torch else ""}); {usable_cores()} usable cores')
    print(f'peak: {peak_text}')
    warmup, min_time, repeats = settings
    print(f'median of {repeats} repeats of >= {min_time * 1e3:g} ms each, after {warmup} '
          f'warm-up calls\n')
    if reason is not None:
        print(f'the onednn variants are left out: {reason}\n')

    all_rows: list[dict[str, Any]] = []
    checks: dict[str, dict[str, Any]] = {}
    for case in selected:
        name = CASES[case][0]
        variants = ['generic']
        if reason is None:
            variants.append('onednn')
            if args.fixed_rules:
                variants.append('onednn-fixed')
            if with_bf16 and name in BF16_MODELS:
                variants.append('onednn-bf16')
        if with_torch:
            variants.append('torch')
        rows, outcome = run_case(case, variants, settings, args.check, args.verbose)
        all_rows.extend(rows)
        if outcome:
            checks[case] = outcome

    pools = threadpools()
    print_table(all_rows, peak)
    ratios = ratio_rows(all_rows)
    if ratios:
        print_ratios(ratios)
    print('\nthread pools loaded (threadpoolctl):')
    for pool in pools:
        print(f"  {pool['user_api']:<7} {pool['internal_api']:<9} {pool['num_threads']} threads  "
              f"{pool['filepath']}")

    failed = any('error' in r and r['variant'] != 'torch' for r in all_rows)
    if args.check:
        print()
        for case, outcome in checks.items():
            for line in outcome['lines']:
                print(f'check {case}: {line}')
            failed |= not outcome['ok']

    if args.json:
        payload = {
            'meta': {**versions, 'date': datetime.datetime.now(datetime.timezone.utc).isoformat(),
                     'platform': platform.platform(), 'threads': THREADS, 'quick': args.quick,
                     'warmup': warmup, 'min_time_s': min_time, 'repeats': repeats,
                     'isa': isa, 'isa_source': isa_source, 'cpu_mhz': mhz,
                     'flops_per_cycle': per_cycle, 'peak_gflops': peak, 'threadpools': pools},
            'results': all_rows,
            'ratios': ratios,
            'checks': checks,
        }
        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload, indent=2) + '\n')
        print(f'\nresults written to {path}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python
"""Peak memory (resident set size) of inference and training: catena against PyTorch.

Each side of each case runs in a fresh interpreter (``python bench_memory.py
--child CASE SIDE``), which imports its framework, builds the model, runs it
and reports its peak RSS (``VmHWM``; see :func:`peak_rss_mib`), so that
nothing one case allocated counts in another. Peak RSS is what the operating
system must provide: the interpreter, the framework's libraries, the weights,
every temporary made while building the model, and the activations.

Cases (``memory/<model>/<variant>``, variants ``generic``: ``use_ideep='never'``,
``intel64``: ``use_ideep='always'``, left out with the reason printed when
catena-intel64 cannot run):

``memory/vgg16-inference-b1``
    VGG-16 (13 3x3 convolutions, ``fc6`` 25088x4096, ``fc7``, ``fc8``; 138M
    parameters, 528 MiB of float32) built as ``VGG16Layers(None)`` builds it,
    from ``catena.links`` with ``Normal(0.01)`` weights and zero biases,
    then two forward passes of a 1x3x224x224 batch in test mode under
    ``no_backprop_mode()``. PyTorch: ``_zoo_torch.VGG16`` built on the CPU
    with torch's own initialisation, in eval mode under ``torch.no_grad()``.
    Target: at most 1.1x PyTorch's peak.
``memory/mlp-784-1000-1000-10-train-b100``
    Three MomentumSGD steps of the MLP of ``bench_mlp_train.py`` (default
    initialisers on both sides). Target: at most PyTorch's peak.
``memory/lenet-train-b64``
    Three Adam steps of MNIST LeNet (``_intel64_models.py``'s layout) on a
    batch of 64. Target: at most PyTorch's peak.
``memory/resnet18-train-b16``
    Three MomentumSGD steps of ``_intel64_models.py``'s ResNet-18 layout on
    3x64x64 inputs, batch 16 (catena's weights given as arrays, torch's own
    initialisation). Target: at most PyTorch's peak.

Both frameworks run with the same thread count (``--threads``, default 2:
OpenMP, OpenBLAS and MKL through the environment, ``torch.set_num_threads``).

Usage::

    python benchmarks/bench_memory.py               # every case, table and CPU
    python benchmarks/bench_memory.py -k vgg16 --rounds 3 --json out.json

``run.py`` runs these cases too (through :func:`report`), after its timings.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent

SEED = 0
THREADS = 2
STEPS = 3
INFERENCE_PASSES = 2
VGG_BLOCKS = ((2, 64), (2, 128), (3, 256), (3, 512), (3, 512))

# case -> (model, train, target peak ratio catena/torch)
CASES: dict[str, tuple[str, bool, float]] = {
    'memory/vgg16-inference-b1': ('vgg16', False, 1.1),
    'memory/mlp-784-1000-1000-10-train-b100': ('mlp', True, 1.0),
    'memory/lenet-train-b64': ('lenet', True, 1.0),
    'memory/resnet18-train-b16': ('resnet18', True, 1.0),
}
VARIANTS = {'generic': 'never', 'intel64': 'always'}


def cases() -> list[dict[str, Any]]:
    """No timed cases: ``run.py`` calls :func:`report` for these."""
    return []


# ------------------------------------------------------------------ in the child


def _mib(kib_or_bytes: int) -> float:
    # ru_maxrss is in KiB on Linux, in bytes on macOS.
    return kib_or_bytes / (1 << 20 if sys.platform == 'darwin' else 1 << 10)


def peak_rss_mib() -> float:
    """The peak resident set size of this process so far, in MiB.

    Linux's ``VmHWM``, the high-water mark of this program's own memory:
    ``ru_maxrss`` also keeps the peak of the parent that forked this process
    before ``exec`` (``run.py``, with torch imported), so it serves only
    where ``/proc`` does not exist.
    """
    try:
        with open('/proc/self/status') as status:
            for line in status:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource  # Unix only

    return _mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _inputs(model: str) -> tuple[Any, Any]:
    import numpy as np

    rng = np.random.default_rng(SEED + 1)
    shape, classes = {'vgg16': ((1, 3, 224, 224), 1000), 'mlp': ((100, 784), 10),
                      'lenet': ((64, 1, 28, 28), 10),
                      'resnet18': ((16, 3, 64, 64), 1000)}[model]
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    return x, rng.integers(0, classes, shape[0]).astype(np.int32)


def _catena_model(model: str) -> Any:
    import catena
    import catena.functions as F
    import catena.initializers as I
    import catena.links as L

    # Not _intel64_models' VGG16: that one takes precomputed arrays (its twin in
    # torch gets the same values), which would skip the initializers measured here.
    class VGG16(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            init: dict[str, Any] = {'initialW': I.Normal(0.01), 'initial_bias': I.Zero()}
            self._blocks: list[list[str]] = []
            n_in = 3
            with self.init_scope():
                for block, (count, width) in enumerate(VGG_BLOCKS, 1):
                    names = [f'conv{block}_{i}' for i in range(1, count + 1)]
                    for name in names:
                        setattr(self, name, L.Convolution2D(n_in, width, 3, 1, 1, **init))
                        n_in = width
                    self._blocks.append(names)
                self.fc6 = L.Linear(n_in * 7 * 7, 4096, **init)
                self.fc7 = L.Linear(4096, 4096, **init)
                self.fc8 = L.Linear(4096, 1000, **init)

        def forward(self, x: Any) -> Any:
            h = x
            for names in self._blocks:
                for name in names:
                    h = F.relu(getattr(self, name)(h))
                h = F.max_pooling_2d(h, 2, 2)
            h = F.dropout(F.relu(self.fc6(h)))
            h = F.dropout(F.relu(self.fc7(h)))
            return F.softmax(self.fc8(h))

    class LeNet(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = L.Convolution2D(1, 20, 5)
                self.conv2 = L.Convolution2D(20, 50, 5)
                self.fc1 = L.Linear(800, 500)
                self.fc2 = L.Linear(500, 10)

        def forward(self, x: Any) -> Any:
            h = F.max_pooling_2d(self.conv1(x), 2, 2, cover_all=False)
            h = F.max_pooling_2d(self.conv2(h), 2, 2, cover_all=False)
            return self.fc2(F.relu(self.fc1(h)))

    if model == 'resnet18':
        sys.path.insert(0, str(HERE))
        import _intel64_models

        return _intel64_models.catena_model(model)
    if model == 'mlp':
        return catena.Sequential(L.Linear(784, 1000), F.relu, L.Linear(1000, 1000), F.relu,
                                 L.Linear(1000, 10))
    return {'vgg16': VGG16, 'lenet': LeNet}[model]()


def _catena_run(model_name: str, train: bool, use_ideep: str) -> Callable[[], Any]:
    import numpy as np

    import catena
    import catena.functions as F
    import catena.optimizers as O

    if use_ideep != 'never':
        import catena.backends.intel64

        catena.backends.intel64.check_ideep_available()
    np.random.seed(SEED)  # noqa: NPY002 - catena's initializers draw from it
    model = _catena_model(model_name)
    x, t = _inputs(model_name)
    if not train:
        def infer() -> Any:
            with catena.using_config('train', False), catena.no_backprop_mode(), \
                    catena.using_config('use_ideep', use_ideep):
                for _ in range(INFERENCE_PASSES):
                    y = model(x)
            return y

        return infer
    optimizer = (O.Adam() if model_name == 'lenet'
                 else O.MomentumSGD(lr=0.01, momentum=0.9)).setup(model)

    def lossfun(x: Any, t: Any) -> Any:
        return F.softmax_cross_entropy(model(x), t)

    def fit() -> Any:
        with catena.using_config('use_ideep', use_ideep):
            for _ in range(STEPS):
                optimizer.update(lossfun, x, t)

    return fit


def _torch_run(model_name: str, train: bool, threads: int) -> Callable[[], Any]:
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(SEED)
    sys.path.insert(0, str(HERE))
    if model_name == 'vgg16':
        import _zoo_torch

        model: nn.Module = _zoo_torch.VGG16()
    elif model_name == 'mlp':
        model = nn.Sequential(nn.Linear(784, 1000), nn.ReLU(), nn.Linear(1000, 1000),
                              nn.ReLU(), nn.Linear(1000, 10))
    else:
        import _intel64_models

        model = _intel64_models.torch_model(model_name).to_empty(device='cpu')
        for module in model.modules():
            if hasattr(module, 'reset_parameters'):
                module.reset_parameters()
    x_array, t_array = _inputs(model_name)
    x, t = torch.from_numpy(x_array), torch.from_numpy(t_array).long()
    if not train:
        model.eval()

        def infer() -> Any:
            with torch.no_grad():
                for _ in range(INFERENCE_PASSES):
                    y = model(x)
            return y

        return infer
    optimizer = (torch.optim.Adam(model.parameters()) if model_name == 'lenet'
                 else torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))

    def fit() -> Any:
        for _ in range(STEPS):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), t).backward()
            optimizer.step()

    return fit


def child(case: str, side: str, threads: int) -> dict[str, Any]:
    """Runs one side of ``case`` in this (fresh) process; returns its peak RSS."""
    model, train, _ = CASES[case.rsplit('/', 1)[0]]
    variant = case.rsplit('/', 1)[1]
    start = peak_rss_mib()
    if side == 'torch':
        run = _torch_run(model, train, threads)
    else:
        try:
            run = _catena_run(model, train, VARIANTS[variant])
        except RuntimeError as error:  # catena-intel64 cannot run here
            return {'skipped': str(error).splitlines()[0]}
    built = peak_rss_mib()
    run()
    return {'start_mib': start, 'built_mib': built, 'peak_mib': peak_rss_mib()}


# ------------------------------------------------------------------ in the parent


def _spawn(case: str, side: str, threads: int) -> dict[str, Any]:
    env = dict(os.environ)
    for variable in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'):
        env[variable] = str(threads)
    command = [sys.executable, str(pathlib.Path(__file__).resolve()), '--child', case, side,
               '--threads', str(threads)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ['no output']
        return {'error': f'exit status {done.returncode}: {lines[-1][:200]}'}
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    for run in runs:
        if 'peak_mib' not in run:
            return run
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def measure(only: str | None = None, with_torch: bool = True, rounds: int = 1,
            threads: int = THREADS) -> list[dict[str, Any]]:
    """Runs every case (whose name contains ``only``), each side ``rounds`` times.

    The rounds interleave the sides; each side's figures are the medians.
    """
    rows = []
    for name, (_, _, target) in CASES.items():
        for variant in VARIANTS:
            case = f'{name}/{variant}'
            if only is not None and only not in case:
                continue
            sides = ['catena', 'torch'] if with_torch else ['catena']
            runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
            for _ in range(rounds):
                for side in sides:
                    runs[side].append(_spawn(case, side, threads))
                    if 'skipped' in runs[side][-1]:
                        break
                if 'skipped' in runs['catena'][-1]:
                    break
            result = {side: _median(found) for side, found in runs.items()}
            if 'skipped' in result['catena']:
                print(f'{case}: left out: {result["catena"]["skipped"]}')
                continue
            ratio = None
            torch_side = result.get('torch', {})
            if 'peak_mib' in result['catena'] and 'peak_mib' in torch_side:
                ratio = result['catena']['peak_mib'] / torch_side['peak_mib']
            rows.append({'case': case, 'catena': result['catena'],
                         'torch': result.get('torch'), 'ratio': ratio, 'target': target,
                         'rounds': rounds, 'threads': threads})
    return rows


def _cell(side: dict[str, Any] | None) -> str:
    if side is None:
        return '-'
    return 'error' if 'peak_mib' not in side else f'{side["peak_mib"]:.0f}'


def print_table(rows: list[dict[str, Any]]) -> None:
    """Prints peak RSS per case (MiB) and the ratio to torch against its target."""
    width = max([len('case')] + [len(row['case']) for row in rows])
    header = (f'{"case":<{width}}  {"catena MiB":>10}  {"torch MiB":>9}  '
              f'{"catena/torch":>12}  {"target":>7}')
    print(header)
    print('-' * len(header))
    for row in rows:
        ratio, target = row['ratio'], row['target']
        verdict = '' if ratio is None else ('met' if ratio <= target else 'MISSED')
        ratio_cell = '-' if ratio is None else f'{ratio:.2f}x'
        print(f'{row["case"]:<{width}}  {_cell(row["catena"]):>10}  {_cell(row["torch"]):>9}  '
              f'{ratio_cell:>12}  {f"<= {target:g}x":>7}  {verdict}')
    for row in rows:
        for side in ('catena', 'torch'):
            if row[side] is not None and 'error' in row[side]:
                print(f'  {row["case"]} [{side}]: {row[side]["error"]}')


def report(only: str | None = None, with_torch: bool = True,
           quick: bool = False) -> list[dict[str, Any]]:
    """``run.py``'s entry: measures the cases once each and prints their table."""
    del quick  # one round is what a quick run would do; memory barely varies
    rows = measure(only, with_torch)
    if rows:
        print(f'\npeak RSS, a fresh process per side, {THREADS} threads, '
              f'CPU: {_machine.cpu_model()}')
        print_table(rows)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('-k', metavar='TEXT', help='only cases whose name contains TEXT')
    parser.add_argument('--rounds', type=int, default=1, help='fresh processes per side')
    parser.add_argument('--threads', type=int, default=THREADS)
    parser.add_argument('--no-torch', action='store_true', help='measure catena only')
    parser.add_argument('--json', metavar='PATH', help='write the results as JSON')
    parser.add_argument('--child', nargs=2, metavar=('CASE', 'SIDE'), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.threads)))
        return 0
    print(f'CPU: {_machine.cpu_model()}  python {platform.python_version()}')
    print(f'peak RSS (MiB), median of {args.rounds} fresh process(es) per side, '
          f'{args.threads} threads\n')
    rows = measure(args.k, not args.no_torch, args.rounds, args.threads)
    if not rows:
        print('no case matches' if args.k else 'no case could run')
        return 1
    print_table(rows)
    if args.json:
        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        summary = {'cpu': _machine.cpu_model(), 'results': rows}
        path.write_text(json.dumps(summary, indent=2) + '\n')
        print(f'\nresults written to {path}')
    return 1 if any('error' in (row['catena'] or {}) for row in rows) else 0


if __name__ == '__main__':
    sys.exit(main())

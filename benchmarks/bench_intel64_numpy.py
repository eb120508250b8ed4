#!/usr/bin/env python
"""Does installing catena-intel64 slow NumPy-only code? Plain NumPy against NumPy beside oneDNN.

Usage::

    python benchmarks/bench_intel64_numpy.py             # full: 3 rounds of every process
    python benchmarks/bench_intel64_numpy.py --quick     # smoke run: 1 round, short timings
    python benchmarks/bench_intel64_numpy.py --json out.json

Every measurement runs in a fresh subprocess of this script (``--worker``),
so that import state is clean, and prints one JSON line:

``plain``
    NumPy alone: a float32 matmul 1024x1024, 100 matmuls 256x256, and
    ``numpy.exp(x) * w + c`` over 4M float32 elements.
``loaded``
    the same after ``import catena, catena_intel64``, once oneDNN is loaded
    and has run one convolution (so its OpenMP threads exist).
``interleaved``
    a catena convolution on oneDNN (batch 16, 64 -> 64 channels, 16x16, 3x3,
    ``use_ideep='always'``) followed at once by a short NumPy op, in a loop,
    each part timed on its own: against the NumPy op alone and the
    convolution alone in the same process. The NumPy ops: one
    ``numpy.dot`` of 256x256 float32 (OpenBLAS's threads) and
    ``numpy.exp(x) * w + c`` over 256K elements (one thread).

oneDNN's OpenMP runtime (libgomp) spins after each parallel region before
its threads sleep (``GOMP_SPINCOUNT``, ``OMP_WAIT_POLICY``); OpenBLAS's
threads spin too. On few cores a spinning thread takes the CPU from the
next library's work. So ``loaded`` and ``interleaved`` run under each
setting of ``ENVIRONMENTS`` (``default`` sets nothing), and the summary
says which setting removes the slowdown without slowing the convolution.
Thread counts are left at the libraries' defaults unless ``--threads N``
sets ``OMP_NUM_THREADS`` and ``OPENBLAS_NUM_THREADS``; each worker reports
what threadpoolctl sees.

Each timing is the median of several repeats; with several rounds, the
median over rounds. Ratios above 1 mean slower than the reference. Noise
on a busy machine easily reaches 10%: run it on an idle one.

``benchmarks/run.py`` times in-process cases; this benchmark needs fresh
processes, so it is a script of its own and gives run.py no cases.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
RESULT_PREFIX = 'CATENA_INTEL64_NUMPY_BENCH '

# name -> the variables set in the worker's environment (on top of the parent's, with
# every variable named in any entry removed first)
ENVIRONMENTS: dict[str, dict[str, str]] = {
    'default': {},
    'OMP_WAIT_POLICY=PASSIVE': {'OMP_WAIT_POLICY': 'PASSIVE'},
    'GOMP_SPINCOUNT=0': {'GOMP_SPINCOUNT': '0'},
    'GOMP_SPINCOUNT=10000': {'GOMP_SPINCOUNT': '10000'},
}
WORKLOADS = ('matmul 1024', 'matmul 256 x100', 'exp-muladd 4M')
SHORT_OPS = ('dot 256', 'exp-muladd 256K')
CONV_SHAPE = (16, 64, 16, 16)  # x of the convolution; W is (64, 64, 3, 3), pad 1
SLOWDOWN = 1.05  # a ratio above this counts as a slowdown in the summary

# (warm-up calls, minimum seconds per repeat, repeats, interleaved iterations)
FULL = (3, 0.2, 7, 300)
QUICK = (1, 0.02, 3, 30)


def cases() -> list[dict[str, Any]]:
    """No in-process cases for ``run.py``: run this file as a script."""
    return []


# ------------------------------------------------------------------ worker


def _measure(fn: Callable[[], object], warmup: int, min_time: float, repeats: int) -> float:
    for _ in range(warmup):
        fn()
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    number = max(1, int(min_time / max(once, 1e-9)) + 1)
    per_call = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        per_call.append((time.perf_counter() - start) / number)
    return statistics.median(per_call)


def _workloads() -> dict[str, Callable[[], object]]:
    import numpy as np

    rng = np.random.default_rng(0)
    a1024 = rng.standard_normal((1024, 1024), dtype=np.float32)
    b1024 = rng.standard_normal((1024, 1024), dtype=np.float32)
    a256 = rng.standard_normal((256, 256), dtype=np.float32)
    b256 = rng.standard_normal((256, 256), dtype=np.float32)
    x4m = rng.uniform(-1, 1, 4 * 2**20).astype(np.float32)
    w4m = rng.uniform(-1, 1, 4 * 2**20).astype(np.float32)
    x256k = x4m[:256 * 1024].copy()
    w256k = w4m[:256 * 1024].copy()

    def matmul_1024() -> object:
        return np.dot(a1024, b1024)

    def matmul_256_x100() -> object:
        for _ in range(100):
            out = np.dot(a256, b256)
        return out

    def exp_muladd_4m() -> object:
        return np.exp(x4m) * w4m + np.float32(0.5)

    def dot_256() -> object:
        return np.dot(a256, b256)

    def exp_muladd_256k() -> object:
        return np.exp(x256k) * w256k + np.float32(0.5)

    return {'matmul 1024': matmul_1024, 'matmul 256 x100': matmul_256_x100,
            'exp-muladd 4M': exp_muladd_4m, 'dot 256': dot_256,
            'exp-muladd 256K': exp_muladd_256k}


def _catena_conv() -> tuple[Callable[[], object], Callable[[], int]]:
    """A oneDNN convolution through catena, and a counter of oneDNN primitive runs."""
    import numpy as np

    import catena
    import catena.functions as F
    import catena_intel64  # noqa: F401 - what a user has installed
    from catena_intel64 import _primitive

    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, CONV_SHAPE).astype(np.float32)
    w = (rng.standard_normal((64, CONV_SHAPE[1], 3, 3), dtype=np.float32) * 0.05)
    b = np.zeros(64, np.float32)

    def conv() -> object:
        with catena.using_config('use_ideep', 'always'), catena.no_backprop_mode():
            return F.convolution_2d(x, w, b, 1, 1)

    return conv, lambda: sum(_primitive.calls.values())


def _threadpools() -> list[dict[str, Any]]:
    try:
        import threadpoolctl  # type: ignore[import-untyped]
    except ImportError:
        return [{'error': 'threadpoolctl is not importable'}]
    return [{k: info.get(k) for k in ('user_api', 'internal_api', 'num_threads', 'filepath')}
            for info in threadpoolctl.threadpool_info()]


def worker(mode: str, settings: tuple[int, float, int, int]) -> dict[str, Any]:
    warmup, min_time, repeats, iterations = settings
    result: dict[str, Any] = {'mode': mode}
    if mode == 'plain':
        workloads = _workloads()
        result['times'] = {name: _measure(workloads[name], warmup, min_time, repeats)
                           for name in WORKLOADS}
        result['threadpools'] = _threadpools()
        return result

    conv, calls = _catena_conv()
    before = calls()
    conv()  # loads oneDNN, starts its OpenMP threads
    result['onednn_ran'] = calls() > before
    workloads = _workloads()
    if mode == 'loaded':
        result['times'] = {name: _measure(workloads[name], warmup, min_time, repeats)
                           for name in WORKLOADS}
    elif mode == 'interleaved':
        times: dict[str, float] = {'conv alone': _measure(conv, warmup, min_time, repeats)}
        for name in SHORT_OPS:
            op = workloads[name]
            times[f'{name} alone'] = _measure(op, warmup, min_time, repeats)
            for _ in range(warmup):
                conv()
                op()
            conv_times, op_times = [], []
            for _ in range(iterations):
                start = time.perf_counter()
                conv()
                middle = time.perf_counter()
                op()
                op_times.append(time.perf_counter() - middle)
                conv_times.append(middle - start)
            times[f'{name} after conv'] = statistics.median(op_times)
            times[f'conv before {name}'] = statistics.median(conv_times)
            # Once more alone, after the loop, so that drift shows.
            times[f'{name} alone, after'] = _measure(op, warmup, min_time, repeats)
        result['times'] = times
    else:
        raise ValueError(f'unknown worker mode {mode!r}')
    result['threadpools'] = _threadpools()
    return result


# ------------------------------------------------------------------ parent


def _environment(name: str, threads: int | None) -> dict[str, str]:
    env = dict(os.environ)
    for variables in ENVIRONMENTS.values():
        for key in variables:
            env.pop(key, None)
    env.update(ENVIRONMENTS[name])
    if threads is not None:
        env['OMP_NUM_THREADS'] = env['OPENBLAS_NUM_THREADS'] = str(threads)
    return env


def run_worker(mode: str, env_name: str, quick: bool, threads: int | None,
               timeout: float) -> dict[str, Any]:
    command = [sys.executable, str(pathlib.Path(__file__).resolve()), '--worker', mode]
    if quick:
        command.append('--quick')
    try:
        done = subprocess.run(command, env=_environment(env_name, threads), capture_output=True,
                              text=True, timeout=timeout, cwd=HERE)
    except subprocess.TimeoutExpired:
        return {'error': f'timed out after {timeout:g} s'}
    for line in done.stdout.splitlines():
        if line.startswith(RESULT_PREFIX) and done.returncode == 0:
            result: dict[str, Any] = json.loads(line[len(RESULT_PREFIX):])
            return result
    lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
    return {'error': f'exit status {done.returncode}: ' + ' | '.join(lines[-3:])[:400]}


def _median_times(runs: list[dict[str, Any]]) -> dict[str, float]:
    good = [run['times'] for run in runs if 'times' in run]
    if not good:
        return {}
    return {key: statistics.median(times[key] for times in good) for key in good[0]}


def _fmt(seconds: float) -> str:
    return f'{seconds * 1e3:9.3f}'


def print_pools(label: str, run: dict[str, Any]) -> None:
    pools = run.get('threadpools', [])
    text = '; '.join(f"{p.get('internal_api')} {p.get('num_threads')} threads "
                     f"({pathlib.Path(str(p.get('filepath'))).name})" for p in pools)
    print(f'  {label:<32} {text or "-"}')


def summarise(plain: dict[str, float], loaded: dict[str, dict[str, float]],
              interleaved: dict[str, dict[str, float]]) -> dict[str, Any]:
    print('\n(a)/(b) NumPy workloads, ms per call, and loaded/plain:')
    header = f"{'workload':<18}  {'plain':>9}" + ''.join(
        f'  {name[:22]:>22}' for name in loaded)
    print(header)
    print('-' * len(header))
    summary: dict[str, Any] = {'loaded_over_plain': {}, 'interleaved': {}}
    for workload in WORKLOADS:
        cells = []
        for env_name, times in loaded.items():
            if workload in times and workload in plain:
                ratio = times[workload] / plain[workload]
                summary['loaded_over_plain'].setdefault(env_name, {})[workload] = ratio
                cells.append(f'{_fmt(times[workload])} {ratio:5.2f}x')
            else:
                cells.append('-')
        plain_cell = _fmt(plain[workload]) if workload in plain else '-'
        print(f'{workload:<18}  {plain_cell:>9}' + ''.join(f'  {c:>22}' for c in cells))

    if not interleaved:
        return summary
    print('\n(c) a oneDNN convolution followed at once by a NumPy op, ms (median per '
          'iteration):')
    header = (f"{'setting':<24}  {'conv':>9}  {'conv/dflt':>9}  {'op':<15}  {'op alone':>9}  "
              f"{'after conv':>10}  {'after/alone':>11}  {'conv before':>11}  {'/conv':>6}")
    print(header)
    print('-' * len(header))
    default_conv = interleaved.get('default', {}).get('conv alone')
    for env_name, times in interleaved.items():
        if 'conv alone' not in times:
            continue
        conv = times['conv alone']
        conv_ratio = conv / default_conv if default_conv else float('nan')
        entry: dict[str, Any] = {'conv_ms': conv * 1e3, 'conv_over_default': conv_ratio}
        for op in SHORT_OPS:
            alone = min(times[f'{op} alone'], times[f'{op} alone, after'])
            after = times[f'{op} after conv']
            conv_before = times[f'conv before {op}']
            entry[op] = {'alone_ms': alone * 1e3, 'after_conv_ms': after * 1e3,
                         'after_over_alone': after / alone,
                         'conv_before_over_conv': conv_before / conv}
            print(f'{env_name[:24]:<24}  {_fmt(conv)}  {conv_ratio:8.2f}x  {op:<15}  '
                  f'{_fmt(alone)}  {_fmt(after):>10}  {after / alone:10.2f}x  '
                  f'{_fmt(conv_before):>11}  {conv_before / conv:5.2f}x')
        summary['interleaved'][env_name] = entry

    default = summary['interleaved'].get('default')
    if default is not None:
        slowed = [op for op in SHORT_OPS if default[op]['after_over_alone'] > SLOWDOWN]
        if not slowed:
            print(f'\nthe default setting shows no slowdown above {SLOWDOWN:g}x after the '
                  f'convolution')
        else:
            shown = ', '.join(f"{op} {default[op]['after_over_alone']:.2f}x" for op in slowed)
            print(f'\nslower right after the convolution by default: {shown}')
            fixes = [name for name, entry in summary['interleaved'].items()
                     if name != 'default'
                     and all(entry[op]['after_over_alone'] <= SLOWDOWN for op in SHORT_OPS)
                     and entry['conv_over_default'] <= SLOWDOWN]
            print('settings that remove it without slowing the convolution by more than '
                  f"{SLOWDOWN:g}x: {', '.join(fixes) if fixes else 'none'}")
            summary['fixes'] = fixes
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='smoke run: 1 round, short timings')
    parser.add_argument('--json', metavar='PATH', help='write the results as JSON')
    parser.add_argument('--rounds', type=int, help='rounds of every process (default 3; 1 '
                                                   'with --quick)')
    parser.add_argument('--threads', type=int,
                        help='set OMP_NUM_THREADS and OPENBLAS_NUM_THREADS in the workers')
    parser.add_argument('--environments', default=','.join(ENVIRONMENTS),
                        help=f"comma-separated, from {','.join(ENVIRONMENTS)} (default: all)")
    parser.add_argument('--timeout', type=float, default=300.0,
                        help='seconds allowed per worker (default 300)')
    parser.add_argument('--worker', choices=('plain', 'loaded', 'interleaved'),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker is not None:
        result = worker(args.worker, QUICK if args.quick else FULL)
        print(RESULT_PREFIX + json.dumps(result), flush=True)
        return 0

    env_names = [name for name in args.environments.split(',') if name]
    unknown = [name for name in env_names if name not in ENVIRONMENTS]
    if unknown or not env_names:
        print(f"unknown settings {unknown}; choose from {', '.join(ENVIRONMENTS)}")
        return 1
    if 'default' not in env_names:
        env_names.insert(0, 'default')
    rounds = args.rounds or (1 if args.quick else 3)
    settings = QUICK if args.quick else FULL
    print(f'python {platform.python_version()}  {os.cpu_count()} CPUs; {rounds} round(s); '
          f'median of {settings[2]} repeats of >= {settings[1] * 1e3:g} ms, '
          f'{settings[3]} interleaved iterations; threads: '
          f"{args.threads if args.threads is not None else 'library defaults'}")

    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    plan = [('plain', 'default')] + [(mode, env) for env in env_names
                                     for mode in ('loaded', 'interleaved')]
    failed = False
    for round_index in range(rounds):
        for mode, env_name in plan:
            started = time.perf_counter()
            result = run_worker(mode, env_name, args.quick, args.threads, args.timeout)
            runs.setdefault((mode, env_name), []).append(result)
            status = result.get('error') or f'{time.perf_counter() - started:.1f} s'
            if 'error' in result:
                failed = True
            elif mode != 'plain' and not result.get('onednn_ran'):
                status += ' (WARNING: the convolution did not run on oneDNN)'
            print(f'  round {round_index + 1}: {mode:<11} {env_name:<24} {status}', flush=True)

    print('\nthread pools seen by threadpoolctl (first round):')
    for (mode, env_name), results in runs.items():
        print_pools(f'{mode} [{env_name}]', results[0])

    plain = _median_times(runs[('plain', 'default')])
    loaded = {env: _median_times(runs[('loaded', env)]) for env in env_names}
    interleaved = {env: _median_times(runs[('interleaved', env)]) for env in env_names}
    summary = summarise(plain, loaded, {k: v for k, v in interleaved.items() if v})

    if args.json:
        payload = {
            'meta': {'date': datetime.datetime.now(datetime.timezone.utc).isoformat(),
                     'python': platform.python_version(), 'platform': platform.platform(),
                     'cpus': os.cpu_count(), 'rounds': rounds, 'quick': args.quick,
                     'threads': args.threads, 'environments': {
                         name: ENVIRONMENTS[name] for name in env_names}},
            'runs': [{'mode': mode, 'environment': env, 'results': results}
                     for (mode, env), results in runs.items()],
            'summary': summary,
        }
        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload, indent=2) + '\n')
        print(f'\nresults written to {path}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

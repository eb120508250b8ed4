#!/usr/bin/env python
"""Weak scaling of data-parallel training over MPI ranks on one machine (catena.distributed).

Usage (in an environment with ``catena[mpi]``: mpi4py and the Open MPI wheel)::

    python benchmarks/bench_distributed.py                # every model, shm and tcp, 1, 2, 4 ranks
    python benchmarks/bench_distributed.py --quick        # few steps
    python benchmarks/bench_distributed.py --json out.json

For each model, number of ranks and communicator, this starts
``mpiexec --oversubscribe -n RANKS python benchmarks/_distributed_worker.py``
(``mpiexec`` from beside this Python, as the Open MPI wheel installs it), with
BLAS and OpenMP held to one thread per rank, and reads rank 0's JSON result.
Each rank keeps its batch (weak scaling). The table shows the median step
time, the throughput over all ranks, the all-reduce time
(``multi_node_mean_grad``, packing included) and its share of the step, then
the naive/flat ratio of all-reduce times: how much packing the gradients
into one buffer per dtype saves over one all-reduce per array.

Each configuration runs over two transports: ``shm``, Open MPI's own choice
on one machine (shared memory), and ``tcp``, its TCP transport over the
loopback interface, where every message pays a network stack's cost as it
would between machines.

Target (the distributed issue): packing cuts the all-reduce time at least 3x
for a model with 100+ parameter arrays. It is judged at 2 and 4 ranks on
every model but the MLP (6 arrays, where packing cannot save much).

``benchmarks/run.py`` times in-process cases; this benchmark needs separate
MPI processes, so it is a script of its own and gives run.py no cases.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
WORKER = HERE / "_distributed_worker.py"
RESULT_PREFIX = "CATENA_DISTRIBUTED_BENCH "  # the worker's, repeated: it is not importable here

MODELS = ("mlp", "resnet18", "resnet34", "many-small")
RANKS = (1, 2, 4)
COMMUNICATORS = ("naive", "flat")
# How the ranks' messages travel: Open MPI's choice on one machine (shared memory),
# or its TCP transport over the loopback interface, which has a network's
# per-message cost and stands in for ranks on several machines.
TRANSPORTS = {"shm": (), "tcp": ("--mca", "pml", "ob1", "--mca", "btl", "tcp,self")}
TARGET_RATIO = 3.0
TARGET_RANKS = (2, 4)
UNTARGETED_MODELS = ("mlp",)

# (warm-up steps, timed steps) per model
FULL_STEPS = {"mlp": (3, 20), "resnet18": (3, 10), "resnet34": (3, 10), "many-small": (3, 20)}
QUICK_STEPS = (1, 3)

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
ALLOW_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def cases() -> list[dict[str, Any]]:
    """No in-process cases for ``run.py``: run this file as a script."""
    return []


def find_mpiexec() -> pathlib.Path:
    """``mpiexec`` beside this interpreter (the venv with the Open MPI wheel), else on PATH."""
    beside = pathlib.Path(sys.executable).parent / "mpiexec"
    if beside.is_file():
        return beside
    found = shutil.which("mpiexec")
    if found is None:
        raise FileNotFoundError(
            f"no mpiexec beside {sys.executable} nor on PATH: run this benchmark with the "
            f"Python of an environment that has catena[mpi] (pip install './packages/core[mpi]')")
    return pathlib.Path(found)


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_one(mpiexec: pathlib.Path, model: str, ranks: int, communicator: str, warmup: int,
            steps: int, timeout: float, transport: str = "shm") -> dict[str, Any]:
    """Runs one configuration; returns rank 0's result, or {"error": ...}."""
    command = [str(mpiexec), "--oversubscribe", "--bind-to", "none", *TRANSPORTS[transport],
               "-n", str(ranks), sys.executable, str(WORKER), "--model", model,
               "--communicator", communicator, "--warmup", str(warmup), "--steps", str(steps)]
    env = {**os.environ, **ONE_THREAD, **ALLOW_ROOT}
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True,
                              timeout=timeout, cwd=HERE.parent)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:g} s"}
    for line in done.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            if done.returncode != 0:
                break
            result: dict[str, Any] = json.loads(line[len(RESULT_PREFIX):])
            return result
    lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
    # mpiexec ends with its own banner: show the ranks' error lines when there are any.
    errors = [line.strip() for line in lines if "Error" in line or "error:" in line]
    shown = list(dict.fromkeys(errors))[-2:] or lines[-3:]
    return {"error": f"exit status {done.returncode}: " + " | ".join(shown)[:400]}


def ratios(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """naive/packed all-reduce time per model, rank count and packed communicator.

    The target is judged on ``flat`` (one buffer per dtype) only; ``flat-4mb``
    is shown for reference.
    """
    by_key = {(r["model"], r["ranks"], r["transport"], r["communicator"]): r
              for r in results if "error" not in r}
    rows = []
    for model in dict.fromkeys(r["model"] for r in results):
        for transport in dict.fromkeys(r["transport"] for r in results):
            for ranks in sorted({r["ranks"] for r in results if r["model"] == model}):
                rows += _ratio_rows(by_key, model, transport, ranks)
    return rows


def _ratio_rows(by_key: dict[tuple[Any, ...], dict[str, Any]], model: str, transport: str,
                ranks: int) -> list[dict[str, Any]]:
    rows = []
    naive = by_key.get((model, ranks, transport, "naive"))
    for packed_name in ("flat", "flat-4mb"):
        packed = by_key.get((model, ranks, transport, packed_name))
        if naive is None or packed is None:
            continue
        ratio = naive["median_ms"]["allreduce"] / packed["median_ms"]["allreduce"]
        judged = (packed_name == "flat" and ranks in TARGET_RANKS
                  and model not in UNTARGETED_MODELS)
        rows.append({"model": model, "ranks": ranks, "transport": transport,
                     "packed": packed_name,
                     "param_arrays": naive["param_arrays"],
                     "naive_ms": naive["median_ms"]["allreduce"],
                     "packed_ms": packed["median_ms"]["allreduce"], "ratio": ratio,
                     "target": TARGET_RATIO if judged else None,
                     "met": (ratio >= TARGET_RATIO) if judged else None})
    return rows


def print_results(results: list[dict[str, Any]]) -> None:
    one_rank = {(r["model"], r["transport"], r["communicator"]): r for r in results
                if "error" not in r and r["ranks"] == 1}
    header = (f"{'model':<10}  {'arrays':>6}  {'grad MiB':>8}  {'ranks':>5}  {'net':<3}  "
              f"{'comm':<8}  "
              f"{'step ms':>8}  {'examples/s':>10}  {'vs 1 rank':>9}  {'fwd+bwd ms':>10}  "
              f"{'all-reduce ms':>13}  {'share':>6}")
    print(header)
    print("-" * len(header))
    for r in results:
        if "error" in r:
            print(f"{r['model']:<10}  {'':>6}  {'':>8}  {r['ranks']:>5}  {r['transport']:<3}  "
                  f"{r['communicator']:<8}  error: {r['error']}")
            continue
        ms = r["median_ms"]
        throughput = r["ranks"] * r["batch_per_rank"] / (ms["step"] / 1e3)
        base = one_rank.get((r["model"], r["transport"], r["communicator"]))
        speedup = "-"
        if base is not None:
            base_throughput = base["batch_per_rank"] / (base["median_ms"]["step"] / 1e3)
            speedup = f"{throughput / base_throughput:.2f}x"
        print(f"{r['model']:<10}  {r['param_arrays']:>6}  {r['grad_bytes'] / 2**20:>8.1f}  "
              f"{r['ranks']:>5}  {r['transport']:<3}  {r['communicator']:<8}  "
              f"{ms['step']:>8.1f}  "
              f"{throughput:>10.0f}  {speedup:>9}  {ms['fwd_bwd']:>10.1f}  "
              f"{ms['allreduce']:>13.2f}  {ms['allreduce'] / ms['step']:>6.1%}")


def print_ratios(rows: list[dict[str, Any]]) -> None:
    print("\nall-reduce time, naive (one call per array) / packed (flat: one buffer per "
          "dtype; flat-4mb: 4 MiB buckets):")
    header = (f"{'model':<10}  {'arrays':>6}  {'ranks':>5}  {'net':<3}  {'packed':<8}  "
              f"{'naive ms':>9}  "
              f"{'packed ms':>9}  {'naive/packed':>12}  {'target':>7}")
    print(header)
    print("-" * len(header))
    for row in rows:
        if row["target"] is None:
            target, verdict = "-", ""
        else:
            target, verdict = f">= {row['target']:g}x", "met" if row["met"] else "MISSED"
        print(f"{row['model']:<10}  {row['param_arrays']:>6}  {row['ranks']:>5}  "
              f"{row['transport']:<3}  {row['packed']:<8}  {row['naive_ms']:>9.2f}  "
              f"{row['packed_ms']:>9.2f}  "
              f"{row['ratio']:>11.2f}x  {target:>7}  {verdict}")


def _csv(text: str, allowed: tuple[Any, ...], cast: type = str) -> list[Any]:
    values = [cast(part) for part in text.split(",") if part]
    bad = [v for v in values if v not in allowed]
    if bad or not values:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of {allowed}, "
                                         f"got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {QUICK_STEPS[0]} warm-up and {QUICK_STEPS[1]} timed "
                             f"steps")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--models", type=lambda s: _csv(s, MODELS), default=list(MODELS),
                        help=f"comma-separated, from {','.join(MODELS)} (default: all)")
    parser.add_argument("--ranks", type=lambda s: _csv(s, (1, 2, 3, 4, 5, 6, 7, 8), int),
                        default=list(RANKS), help="comma-separated (default: 1,2,4)")
    parser.add_argument("--communicators",
                        type=lambda s: _csv(s, ("naive", "flat", "flat-4mb")),
                        default=list(COMMUNICATORS),
                        help="comma-separated, from naive,flat,flat-4mb (default: naive,flat)")
    parser.add_argument("--transports", type=lambda s: _csv(s, tuple(TRANSPORTS)),
                        default=list(TRANSPORTS),
                        help="comma-separated, from shm (Open MPI's choice on one machine: "
                             "shared memory) and tcp (TCP over loopback, a network's "
                             "per-message cost) (default: both)")
    parser.add_argument("--steps", type=int, help="timed steps for every model")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds allowed per mpiexec run (default 900)")
    args = parser.parse_args(argv)

    try:
        mpiexec = find_mpiexec()
    except FileNotFoundError as error:
        print(error)
        return 1
    cores = usable_cores()
    print(f"python {platform.python_version()}  {mpiexec}  {cores} usable cores; one BLAS/"
          f"OpenMP thread per rank, so {max(args.ranks)} ranks"
          f"{' oversubscribe the cores' if max(args.ranks) > cores else ' fit'}")
    print("weak scaling: each rank keeps its batch (MLP 100, ResNets 16 at 3x64x64, "
          "many-small 100)\n")

    results: list[dict[str, Any]] = []
    for model in args.models:
        warmup, steps = QUICK_STEPS if args.quick else FULL_STEPS[model]
        if args.steps is not None:
            steps = args.steps
        for transport in args.transports:
            for ranks in args.ranks:
                for communicator in args.communicators:
                    result = run_one(mpiexec, model, ranks, communicator, warmup, steps,
                                     args.timeout, transport)
                    result.update(model=model, ranks=ranks, communicator=communicator,
                                  transport=transport)
                    results.append(result)
                    status = result["error"] if "error" in result else (
                        f"step {result['median_ms']['step']:.1f} ms, all-reduce "
                        f"{result['median_ms']['allreduce']:.2f} ms")
                    print(f"  {model} x{ranks} {transport} {communicator}: {status}",
                          flush=True)
    print()
    print_results(results)
    rows = ratios(results)
    if rows:
        print_ratios(rows)

    if args.json:
        payload = {
            "meta": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                     "python": platform.python_version(), "platform": platform.platform(),
                     "usable_cores": cores, "mpiexec": str(mpiexec), "quick": args.quick,
                     "threads_per_rank": 1, "target_ratio": TARGET_RATIO},
            "results": results,
            "ratios": rows,
        }
        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(payload, indent=2) + "\n")
        os.replace(temporary, path)
        print(f"\nresults written to {path}")
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

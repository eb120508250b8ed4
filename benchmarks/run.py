#!/usr/bin/env python
"""Run catena's benchmarks, with PyTorch (CPU) as the yardstick when importable.

Usage::

    python benchmarks/run.py                 # every case, full timing
    python benchmarks/run.py --quick         # fast smoke run (few, short repeats)
    python benchmarks/run.py -k forward      # cases whose name contains 'forward'
    python benchmarks/run.py --check         # also compare catena's results with torch's
    python benchmarks/run.py --json out.json # save the results

Cases are discovered in ``benchmarks/bench_*.py``; see ``benchmarks/README.md``
for the protocol a benchmark module follows. Times are wall-clock, per op
(the time of one call divided by the case's ``ops``), with the garbage
collector enabled as in a real program. The table shows the median over the
repeats; the JSON file also holds the best.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib
import importlib.util
import json
import pathlib
import platform
import statistics
import sys
import timeit
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent

# The default target: at most this many times PyTorch's time per op. A case may
# state its own with a "target" key (its issue's target), or None when the ratio is
# only reported.
TARGET_RATIO = 2.0

# (warm-up calls, minimum seconds per repeat, repeats)
FULL = (10, 0.2, 7)
QUICK = (2, 0.01, 3)


def discover(only: str | None) -> list[tuple[str, dict[str, Any]]]:
    """Import every ``bench_*.py`` beside this file and collect its cases."""
    found: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(HERE.glob("bench_*.py")):
        module = _load(path)
        for case in module.cases():
            if only is None or only in case["name"]:
                found.append((path.stem, case))
    return found


def run_reports(only: str | None, with_torch: bool, quick: bool) -> dict[str, Any]:
    """Run the ``report()`` of each ``bench_*.py`` that has one: measures other
    than time (``bench_memory.py``: peak RSS), which print their own tables."""
    reports: dict[str, Any] = {}
    for path in sorted(HERE.glob("bench_*.py")):
        report = getattr(_load(path), "report", None)
        if report is not None:
            reports[path.stem] = report(only=only, with_torch=with_torch, quick=quick)
    return reports


def _load(path: pathlib.Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_catena_bench.{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load benchmark module {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(fn: Callable[[], object], settings: tuple[int, float, int]) -> dict[str, Any]:
    """Time ``fn`` like ``timeit``: warm up, calibrate the loop count, repeat.

    Returns seconds per call (median and best over the repeats).
    """
    warmup, min_time, repeats = settings
    for _ in range(warmup):
        fn()
    timer = timeit.Timer(fn, setup=gc.enable)
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= min_time:
            break
        # Aim a little above min_time from the rate seen so far.
        number = max(number * 2, int(number * 1.2 * min_time / max(elapsed, 1e-9)))
    per_call = [t / number for t in timer.repeat(repeat=repeats, number=number)]
    return {
        "median_s": statistics.median(per_call),
        "best_s": min(per_call),
        "loops": number,
        "repeats": repeats,
    }


def _short_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:200]


def run_side(
    case: dict[str, Any], side: str, settings: tuple[int, float, int], verbose: bool
) -> dict[str, Any] | None:
    """Set up and time one framework's side of a case; None if it has none."""
    factory = case.get(side)
    if factory is None:
        return None
    try:
        fn = factory()
        result = measure(fn, settings)
    except Exception as exc:  # report it in the table, keep going
        if verbose:
            traceback.print_exc()
        return {"error": _short_error(exc)}
    ops = case["ops"]
    result["median_us_per_op"] = result["median_s"] / ops * 1e6
    result["best_us_per_op"] = result["best_s"] / ops * 1e6
    return result


def run_check(case: dict[str, Any], verbose: bool) -> dict[str, Any] | None:
    check = case.get("check")
    if check is None:
        return None
    try:
        return {"ok": True, "detail": check()}
    except Exception as exc:
        if verbose:
            traceback.print_exc()
        return {"ok": False, "detail": _short_error(exc)}


def versions(with_torch: bool) -> dict[str, str]:
    info = {"cpu": _load(HERE / "_machine.py").cpu_model(),
            "python": platform.python_version(), "platform": platform.platform()}
    modules = ["numpy", "catena"] + (["torch"] if with_torch else [])
    for name in modules:
        try:
            info[name] = str(getattr(importlib.import_module(name), "__version__", "?"))
        except Exception as exc:
            info[name] = f"unavailable ({_short_error(exc)})"
    return info


def _timed(side: dict[str, Any] | None) -> bool:
    return side is not None and "error" not in side


def _cell(side: dict[str, Any] | None) -> str:
    if side is None:
        return "-"
    if "error" in side:
        return "error"
    return f"{side['median_us_per_op']:.2f}"


def print_table(results: list[dict[str, Any]]) -> None:
    width = max([len("case")] + [len(r["case"]) for r in results])
    header = (
        f"{'case':<{width}}  {'catena us/op':>12}  {'torch us/op':>11}  "
        f"{'catena/torch':>12}  {'target':>6}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        ratio = r["ratio"]
        ratio_cell = "-" if ratio is None else f"{ratio:.2f}x"
        target = r["target"]
        if target is None:  # a reference for users: nothing to meet
            verdict = ""
        else:
            verdict = "" if ratio is None else ("met" if ratio <= target else "MISSED")
        print(
            f"{r['case']:<{width}}  {_cell(r['catena']):>12}  {_cell(r['torch']):>11}  "
            f"{ratio_cell:>12}  {'-' if target is None else f'<= {target:g}x':>6}  {verdict}"
        )
    for r in results:
        for side in ("catena", "torch"):
            if r[side] is not None and "error" in r[side]:
                print(f"  {r['case']} [{side}]: {r[side]['error']}")


def _limit_blas_threads() -> str:
    """Holds NumPy's BLAS to one thread, as every torch side sets for itself."""
    try:
        import threadpoolctl
    except ImportError:
        print("threadpoolctl is not importable: NumPy's BLAS runs with its default "
              "thread count while torch uses one (pip install threadpoolctl)")
        return "default"
    threadpoolctl.threadpool_limits(1)
    return "1"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument(
        "--check", action="store_true", help="also check catena's results against torch's"
    )
    parser.add_argument("--no-torch", action="store_true", help="time catena only")
    parser.add_argument("-k", metavar="TEXT", help="only cases whose name contains TEXT")
    parser.add_argument("-v", "--verbose", action="store_true", help="print tracebacks")
    args = parser.parse_args(argv)

    settings = QUICK if args.quick else FULL
    with_torch = not args.no_torch
    if with_torch and importlib.util.find_spec("torch") is None:
        print("torch is not importable: timing catena only (pip install torch==2.13.0)")
        with_torch = False

    meta = versions(with_torch)
    meta["blas_threads"] = _limit_blas_threads()
    print("  ".join(f"{k} {v}" for k, v in meta.items()))
    warmup, min_time, repeats = settings
    print(
        f"median of {repeats} repeats of >= {min_time * 1e3:g} ms each, "
        f"after {warmup} warm-up calls\n"
    )

    results: list[dict[str, Any]] = []
    for module_name, case in discover(args.k):
        catena_side = run_side(case, "catena", settings, args.verbose)
        torch_side = run_side(case, "torch", settings, args.verbose) if with_torch else None
        ratio = None
        if _timed(catena_side) and _timed(torch_side):
            ratio = catena_side["median_s"] / torch_side["median_s"]  # type: ignore[index]
        results.append(
            {
                "module": module_name,
                "case": case["name"],
                "ops": case["ops"],
                "catena": catena_side,
                "torch": torch_side,
                "ratio": ratio,
                "target": case.get("target", TARGET_RATIO),
                "check": run_check(case, args.verbose) if args.check and with_torch else None,
            }
        )

    if results:
        print_table(results)
    reports = run_reports(args.k, with_torch, args.quick)
    if not results and not any(reports.values()):
        print(f"no benchmark case matches {args.k!r}" if args.k else "no benchmark cases found")
        return 1

    failed = False
    if args.check:
        print()
        if not with_torch:
            print("check: skipped, torch is not importable")
        for r in results:
            if r["check"] is not None:
                status = "OK" if r["check"]["ok"] else "FAILED"
                print(f"check {r['case']}: {status}: {r['check']['detail']}")
                failed |= not r["check"]["ok"]
    failed |= any(r["catena"] is not None and "error" in r["catena"] for r in results)
    failed |= any("error" in (row["catena"] or {}) for rows in reports.values() for row in rows)

    if args.json:
        payload = {
            "meta": {
                **meta,
                "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "quick": args.quick,
                "warmup": warmup,
                "min_time_s": min_time,
                "repeats": repeats,
                "default_target_ratio": TARGET_RATIO,
            },
            "results": results,
            "reports": reports,
        }
        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload, indent=2) + "\n")
        print(f"\nresults written to {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

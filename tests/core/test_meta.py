"""Meta-tests that keep the architecture honest.

(a) ``import catena`` is cheap: it loads no plugin and imports no backend or
    optional library (its time is watched in ``benchmarks/bench_import.py``).
(b) Every module of the core imports cleanly with warnings as errors.
(c) No source file uses pkg_resources, distutils or a NumPy name removed in
    NumPy 2.
"""

import functools
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import tokenize

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
CORE_SRC = REPO / 'packages' / 'core' / 'src'
ALL_SRC = sorted(REPO.glob('packages/*/src'))

HEAVY_MODULES = ('cupy', 'onnx', 'onnxruntime', 'catena_cuda', 'catena_intel64', 'catena_zoo',
                 'catena_onnx', 'ideep4py', 'scipy', 'h5py', 'matplotlib', 'torch')

# Optional third-party modules (extras) whose absence skips a module's import test.
OPTIONAL_MODULES = ('h5py', 'mpi4py', 'matplotlib', 'scipy', 'PIL', 'tqdm', 'pytest')


def run_python(code, *flags, args=()):
    env = dict(os.environ)
    env.pop('PYTHONWARNINGS', None)
    return subprocess.run([sys.executable, *flags, '-c', textwrap.dedent(code), *args],
                          capture_output=True, text=True, env=env, timeout=300)


# ---------------------------------------------------------------------------
# (a) import catena
# ---------------------------------------------------------------------------

IMPORT_PROBE = f'HEAVY = {HEAVY_MODULES!r}\n' + textwrap.dedent('''
    import json, sys, time
    start = time.perf_counter()
    import catena
    elapsed = time.perf_counter() - start
    from catena.plugins import _manager
    print(json.dumps({
        'elapsed': elapsed,
        'loaded': _manager.is_loaded(),
        'heavy': sorted(name for name in sys.modules if name.split('.')[0] in HEAVY),
    }))
''')


def probe_import():
    result = run_python(IMPORT_PROBE)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_import_catena_loads_no_plugin_and_no_backend():
    report = probe_import()
    assert report['loaded'] is False, 'import catena loaded the plugins'
    assert report['heavy'] == [], f'import catena imported {report["heavy"]}'


def test_probe_detects_heavy_modules():
    """The probe itself works: a module imported on purpose is reported."""
    result = run_python("import sys, types\n"
                        "sys.modules['catena_zoo'] = types.ModuleType('catena_zoo')\n"
                        + IMPORT_PROBE)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1])['heavy'] == ['catena_zoo']


# ---------------------------------------------------------------------------
# (b) every core module imports cleanly under -W error
# ---------------------------------------------------------------------------


def core_modules():
    names = []
    for path in sorted((CORE_SRC / 'catena').rglob('*.py')):
        parts = list(path.relative_to(CORE_SRC).with_suffix('').parts)
        if parts[-1] == '__init__':
            parts.pop()
        names.append('.'.join(parts))
    return names


CORE_MODULES = core_modules()


def test_core_modules_are_found():
    assert 'catena' in CORE_MODULES
    assert 'catena.plugins.hookspecs' in CORE_MODULES
    assert len(CORE_MODULES) > 20


IMPORT_EACH = """
import importlib, json, sys, traceback
failures = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except BaseException:
        failures[name] = traceback.format_exc()
print(json.dumps(failures))
"""


@functools.lru_cache(maxsize=1)
def import_failures():
    """Imports every core module under -W error in one fresh interpreter.

    One process serves them all: importing any submodule imports ``catena``
    first, so a process per module would check nothing more, at a second each.
    """
    result = run_python(IMPORT_EACH, '-W', 'error', args=[json.dumps(CORE_MODULES)])
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.parametrize('module', CORE_MODULES)
def test_module_imports_cleanly_with_warnings_as_errors(module):
    error = import_failures().get(module)
    if error is not None:
        missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", error)
        if missing and missing.group(1).split('.')[0] in OPTIONAL_MODULES:
            pytest.skip(f'{module} needs the optional module {missing.group(1)}')
        if 'ImportError: no installed plugin provides' in error:
            pytest.skip(f'{module} forwards to a plugin that is not installed')
    assert error is None, f'import {module} under -W error failed:\n{error}'


# ---------------------------------------------------------------------------
# (c) no pkg_resources, no distutils, no NumPy names removed in NumPy 2
# ---------------------------------------------------------------------------

# Names removed from the main NumPy namespace in NumPy 2.0 (NEP 52), or
# deprecated there and spelled differently now.
REMOVED_NUMPY_NAMES = (
    'float_', 'complex_', 'cfloat', 'longfloat', 'singlecomplex', 'longcomplex', 'clongfloat',
    'string_', 'unicode_', 'int0', 'uint0', 'bool8', 'object0', 'str0', 'bytes0', 'void0',
    'NaN', 'Inf', 'Infinity', 'infty', 'NINF', 'PINF', 'NZERO', 'PZERO',
    'sctypes', 'sctype2char', 'obj2sctype', 'maximum_sctype', 'issctype', 'issubsctype',
    'issubclass_', 'find_common_type', 'cast', 'mat', 'asfarray', 'round_', 'product',
    'cumproduct', 'alltrue', 'sometrue', 'in1d', 'row_stack', 'trapz', 'msort',
    'set_string_function', 'byte_bounds', 'compare_chararrays', 'format_parser', 'safe_eval',
    'deprecate', 'deprecate_with_doc', 'disp', 'who', 'recfromcsv', 'recfromtxt', 'lookfor',
    'source', 'fastCopyAndTranspose', 'add_newdoc_ufunc', 'tracemalloc_domain', 'nbytes',
    'geterrobj', 'seterrobj', 'compat', 'core',
)
# `xp` is how array-module-generic code spells NumPy (and CuPy follows NumPy 2).
REMOVED_NUMPY_RE = re.compile(
    r'(?<![\w.])(?:np|numpy|xp)\.(' + '|'.join(map(re.escape, REMOVED_NUMPY_NAMES)) + r')\b')
FROM_NUMPY_IMPORT_RE = re.compile(r'^\s*from\s+numpy\s+import\s+\(?([^)\n]*)', re.M)
LEGACY_PACKAGING_RE = re.compile(
    r'^\s*(?:import|from)\s+(?:pkg_resources|distutils|setuptools\._distutils)\b'
    r"|\bimport_module\(\s*['\"](?:pkg_resources|distutils)\b"
    r"|\b__import__\(\s*['\"](?:pkg_resources|distutils)\b", re.M)


def code_only(source):
    """The source with comments and docstrings blanked out (line numbers kept).

    Prose may explain that a name was removed; only code must not use it.
    String literals other than docstrings are kept (``import_module('x')``).
    """
    lines = source.splitlines(keepends=True)
    blank = []
    previous = None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            blank.append((token.start, token.end))
        elif token.type == tokenize.STRING and previous in (
                None, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, tokenize.NL):
            blank.append((token.start, token.end))  # a docstring or a bare string statement
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token.type
    for (start_row, start_col), (end_row, end_col) in reversed(blank):
        for row in range(start_row, end_row + 1):
            line = lines[row - 1]
            begin = start_col if row == start_row else 0
            end = end_col if row == end_row else len(line.rstrip('\r\n'))
            lines[row - 1] = line[:begin] + ' ' * (end - begin) + line[end:]
    return ''.join(lines)


def problems_in(source):
    code = code_only(source)
    found = []
    for match in REMOVED_NUMPY_RE.finditer(code):
        line = code.count('\n', 0, match.start()) + 1
        found.append(f'line {line}: {match.group(0)} (removed in NumPy 2)')
    for match in FROM_NUMPY_IMPORT_RE.finditer(code):
        names = {name.split(' as ')[0].strip() for name in match.group(1).split(',')}
        for name in sorted(names & set(REMOVED_NUMPY_NAMES)):
            line = code.count('\n', 0, match.start()) + 1
            found.append(f'line {line}: from numpy import {name} (removed in NumPy 2)')
    for match in LEGACY_PACKAGING_RE.finditer(code):
        line = code.count('\n', 0, match.start()) + 1
        found.append(f'line {line}: {match.group(0).strip()} (use importlib.metadata / '
                     'packaging instead)')
    return found


def source_files():
    files = []
    for src in ALL_SRC:
        for path in sorted(src.rglob('*.py')):
            if '_proto' in path.parts:  # protoc output
                continue
            files.append(path)
    return files


def test_sources_are_found():
    files = source_files()
    assert any(path.name == 'function_node.py' for path in files)
    assert len(files) > 40


def test_no_legacy_packaging_or_removed_numpy_names():
    report = []
    for path in source_files():
        for problem in problems_in(path.read_text(encoding='utf-8')):
            report.append(f'{path.relative_to(REPO)}: {problem}')
    assert report == [], '\n'.join(report)


@pytest.mark.parametrize('source', [
    'x = np.float_(1)',
    'y = numpy.complex_',
    'for t in np.sctypes["float"]: pass',
    'z = np.NaN + np.Inf',
    'b = numpy.bool8',
    'p = np.product(s)',
    'c = np.cumproduct(s)',
    'a = np.alltrue(m) or np.sometrue(m)',
    'i = np.in1d(a, b)',
    'r = np.row_stack(xs)',
    'area = xp.trapz(y)',
    'f = np.asfarray(a)',
    'from numpy import float_, int64',
    'import pkg_resources',
    'from distutils.version import LooseVersion',
    "m = importlib.import_module('pkg_resources')",
])
def test_checker_finds(source):
    assert problems_in(source + '\n'), source


@pytest.mark.parametrize('source', [
    'x = np.float64(1)',
    'y = np.complex128',
    'z = np.nan + np.inf',
    'p = np.prod(s)',
    'i = np.isin(a, b)',
    'r = np.vstack(xs)',
    'area = np.trapezoid(y)',
    'b = np.bool_',
    'k = np.infinity_norm',  # not a removed name: the word boundary matters
    'n = np.Inference',
    'v = my.np.float_',  # an attribute of something else
    '# np.float_ was removed in NumPy 2\n',
    'def f():\n    """Use np.float64, not np.float_."""\n',
    'from numpy import float64',
])
def test_checker_allows(source):
    assert problems_in(source + '\n') == [], source


def test_warnings_are_errors_in_the_probe():
    result = run_python('import warnings; warnings.warn("old", DeprecationWarning)', '-W', 'error')
    assert result.returncode != 0 and 'DeprecationWarning: old' in result.stderr

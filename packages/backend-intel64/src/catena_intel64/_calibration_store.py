"""Where calibration decisions are kept between processes: one small JSON file per machine.

A decision is only valid for the machine that measured it, so a file belongs
to one *context*: the CPU model, the oneDNN version and the instruction set
it uses, the thread counts, and the NumPy, catena and catena-intel64
versions (the generic side of each comparison). The file's name is a hash of
the context, and the context is written inside too; a file whose context is
not this process's is ignored.

The file is untrusted input: it is read as JSON only (no pickle, nothing
executed), at most :data:`MAX_BYTES` long with at most :data:`MAX_ENTRIES`
decisions, and every entry must have the expected form. A file that breaks
any rule is ignored with a :class:`RuntimeWarning` (and replaced at the next
save). Files are written atomically (:func:`catena._atomic.atomic_path`).

The folder is ``$CATENA_IDEEP_CALIBRATION_CACHE`` if set, else
``$XDG_CACHE_HOME/catena/intel64-calibration`` (``~/.cache/...`` without
``XDG_CACHE_HOME``). ``CATENA_IDEEP_CALIBRATION_CACHE=0`` (or ``off``,
``false``, ``no``) keeps decisions in memory only.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import platform
import warnings
from typing import Any

FORMAT = 'catena-intel64-calibration'
VERSION = 1
"""Bumped when the kernels change enough that old decisions no longer hold."""

ENV_CACHE = 'CATENA_IDEEP_CALIBRATION_CACHE'
OFF_VALUES = ('0', 'off', 'false', 'no')

MAX_BYTES = 1 << 20
MAX_ENTRIES = 4096
MAX_DEPTH = 4
MAX_ITEMS = 64
"""The most elements of one list inside a signature (input shapes, parameters)."""

CHOICES = ('onednn', 'generic', 'tie')

Entry = tuple[str, float, float]
"""A stored decision: the choice and the median seconds of oneDNN and generic."""


def cache_folder() -> pathlib.Path | None:
    """The folder of the calibration files, or None when the disk cache is off."""
    value = os.environ.get(ENV_CACHE)
    if value is not None and value.strip().lower() in OFF_VALUES:
        return None
    if value:
        return pathlib.Path(value).expanduser()
    base = os.environ.get('XDG_CACHE_HOME')
    root = pathlib.Path(base) if base and os.path.isabs(base) else pathlib.Path.home() / '.cache'
    return root / 'catena' / 'intel64-calibration'


def _cpu_model() -> str:
    try:
        with open('/proc/cpuinfo', encoding='utf-8', errors='replace') as cpuinfo:
            for line in cpuinfo:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or 'unknown'


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _openmp_threads() -> int:
    """The thread count oneDNN's OpenMP runtime uses (``omp_get_max_threads``)."""
    import ctypes

    try:
        gomp = ctypes.CDLL('libgomp.so.1')
        return int(gomp.omp_get_max_threads())
    except (OSError, AttributeError):
        return _usable_cores()


def context() -> dict[str, Any]:
    """What a decision depends on besides the call itself (loads oneDNN).

    Returns:
        dict: ``cpu``, ``onednn`` (version and commit), ``isa``,
        ``threads`` (OpenMP), ``blas_threads`` (the variables NumPy's BLAS
        reads), ``cores``, ``numpy``, ``catena`` and ``catena_intel64``.
    """
    import numpy

    import catena
    import catena_intel64
    from catena_intel64 import _dnnl

    version = _dnnl.dnnl_version()
    blas = ','.join(f'{name}={os.environ[name]}' for name in
                    ('OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS')
                    if name in os.environ)
    return {
        'cpu': _cpu_model(),
        'onednn': f'{version} {version.hash}'.strip(),
        'isa': _dnnl.effective_cpu_isa(),
        'threads': _openmp_threads(),
        'blas_threads': blas or 'default',
        'cores': _usable_cores(),
        'numpy': numpy.__version__,
        'catena': getattr(catena, '__version__', '?'),
        'catena_intel64': catena_intel64.__version__,
    }


def file_name(ctx: dict[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps(ctx, sort_keys=True).encode()).hexdigest()
    return f'{digest[:16]}.json'


def freeze(value: Any, depth: int = 0) -> Any:
    """A signature read from JSON as the hashable value calls build (lists become tuples).

    Raises:
        ValueError: The value holds something a signature cannot (a dict,
            a list too long or too deep).
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, list) and depth < MAX_DEPTH and len(value) <= MAX_ITEMS:
        return tuple(freeze(item, depth + 1) for item in value)
    raise ValueError(f'not a signature element: {type(value).__name__}')


def _plain(value: Any) -> Any:
    """A signature element as JSON can hold it (NumPy scalars become Python numbers)."""
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    import numpy

    if isinstance(value, numpy.bool_):
        return bool(value)
    if isinstance(value, numpy.integer):
        return int(value)
    if isinstance(value, numpy.floating):
        return float(value)
    raise TypeError(f'cannot store a {type(value).__name__} in a signature')


def _entry(raw: Any) -> tuple[tuple[Any, ...], Entry]:
    if not isinstance(raw, dict) or set(raw) != {'signature', 'choice', 'onednn_s', 'generic_s'}:
        raise ValueError('an entry is not {signature, choice, onednn_s, generic_s}')
    signature = freeze(raw['signature'])
    if not isinstance(signature, tuple) or not signature or not isinstance(signature[0], str):
        raise ValueError('a signature does not start with a function name')
    choice = raw['choice']
    if choice not in CHOICES:
        raise ValueError(f'unknown choice {choice!r}')
    times = raw['onednn_s'], raw['generic_s']
    for time in times:
        if isinstance(time, bool) or not isinstance(time, (int, float)) or not 0 <= time < 1e6:
            raise ValueError(f'not a duration: {time!r}')
    return signature, (CHOICES[CHOICES.index(choice)], float(times[0]), float(times[1]))


def parse(text: str, ctx: dict[str, Any]) -> dict[tuple[Any, ...], Entry]:
    """The decisions in a calibration file's text, for the context ``ctx``.

    Raises:
        ValueError: The text is not a calibration file of ``ctx`` in this
            format (the message says what is wrong).
    """
    data = json.loads(text)
    if not isinstance(data, dict) or data.get('format') != FORMAT:
        raise ValueError('not a catena-intel64 calibration file')
    if data.get('version') != VERSION:
        raise ValueError(f'format version {data.get("version")!r}, expected {VERSION}')
    if data.get('context') != ctx:
        raise ValueError('it was measured on another machine or configuration')
    entries = data.get('decisions')
    if not isinstance(entries, list) or len(entries) > MAX_ENTRIES:
        raise ValueError(f'decisions is not a list of at most {MAX_ENTRIES} entries')
    return dict(_entry(raw) for raw in entries)


def render(decisions: dict[tuple[Any, ...], Entry], ctx: dict[str, Any]) -> str:
    """The text of a calibration file holding ``decisions`` (those JSON can hold)."""
    entries = []
    for signature, (choice, onednn_s, generic_s) in decisions.items():
        try:
            plain = _plain(signature)
        except TypeError:
            continue
        entries.append({'signature': plain, 'choice': choice, 'onednn_s': onednn_s,
                        'generic_s': generic_s})
    header = json.dumps({'format': FORMAT, 'version': VERSION, 'context': ctx})
    lines = [json.dumps(entry, separators=(',', ':')) for entry in entries[-MAX_ENTRIES:]]
    body = '[\n  ' + ',\n  '.join(lines) + '\n ]' if lines else '[]'
    return f'{header[:-1]},\n "decisions": {body}\n}}\n'


class Store:
    """The calibration file of one context, in one folder.

    Args:
        folder: Where the file lives (created on the first save).
        ctx: The context (see :func:`context`).
    """

    def __init__(self, folder: pathlib.Path, ctx: dict[str, Any]) -> None:
        self.ctx = ctx
        self.path = folder / file_name(ctx)
        self.failed = False

    def load(self) -> dict[tuple[Any, ...], Entry]:
        """The stored decisions; none (with a warning) if the file is unusable."""
        try:
            with open(self.path, 'rb') as file:
                raw = file.read(MAX_BYTES + 1)
        except FileNotFoundError:
            return {}
        except OSError as error:
            self._warn(f'could not read it ({error})')
            return {}
        if len(raw) > MAX_BYTES:
            self._warn(f'it is larger than {MAX_BYTES} bytes')
            return {}
        try:
            return parse(raw.decode('utf-8'), self.ctx)
        except (ValueError, UnicodeDecodeError, RecursionError) as error:
            self._warn(str(error))
            return {}

    def save(self, decisions: dict[tuple[Any, ...], Entry]) -> None:
        """Writes ``decisions`` merged over those on disk; warns once and stops on failure."""
        if self.failed:
            return
        from catena import _atomic

        merged = self._quiet_load()
        merged.update(decisions)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _atomic.atomic_path(self.path) as temporary:
                pathlib.Path(temporary).write_text(render(merged, self.ctx), encoding='utf-8')
        except OSError as error:
            self.failed = True
            warnings.warn(f'catena-intel64 could not save its calibration to {self.path} '
                          f'({error}); decisions stay in memory', RuntimeWarning, stacklevel=2)

    def _quiet_load(self) -> dict[tuple[Any, ...], Entry]:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return self.load()

    def _warn(self, why: str) -> None:
        warnings.warn(f'catena-intel64 ignores its calibration file {self.path}: {why}; '
                      'calibration starts afresh', RuntimeWarning, stacklevel=3)


def open_store(folder: pathlib.Path | None = None) -> Store | None:
    """The store of this process's context in ``folder`` (default :func:`cache_folder`).

    None when the disk cache is off, or when oneDNN cannot be loaded (then
    no kernel runs, and there is no context to name the file by).
    """
    from catena_intel64 import _dnnl

    folder = cache_folder() if folder is None else folder
    if folder is None or _dnnl.load_error() is not None:
        return None
    return Store(folder, context())

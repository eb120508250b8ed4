"""The runtime report: versions, plugins, devices (``python -m catena info``)."""

from __future__ import annotations

import platform
import sys
from typing import Any, TextIO

import catena
from catena import _engine, _memory_pool


def _device_lines(verbose: bool) -> list[str]:
    from catena.backends import _registry

    lines = []
    for prefix, device_type in sorted(_registry.device_types_by_prefix.items()):
        if device_type.test_only and not verbose:
            continue
        try:
            reason = device_type.unavailable_reason()
        except Exception as error:  # noqa: BLE001 - the report must not fail
            reason = f'{type(error).__name__} while checking: {error}'
        status = 'available' if reason is None else f'unavailable: {reason}'
        if device_type.test_only:
            status += ' (for tests)'
        lines.append(f'  {prefix}: {status}')
    return lines or ['  (none)']


def _plugin_line(record: Any, verbose: bool) -> str:
    origin = record.source if not record.version else f'{record.source} {record.version}'
    status = 'loaded' if record.error is None else f'FAILED: {record.error}'
    line = f'  {record.name} ({origin}): {status}'
    if verbose and record.error is None and record.hooks:
        line += f' [hooks: {", ".join(record.hooks)}]'
    return line


def runtime_info_lines(verbose: bool = False) -> list[str]:
    """Returns the lines of the runtime report.

    The report loads the plugins (if they were not loaded yet) and lists:
    catena's version, Python's version and platform, the engine that runs
    the graph (compiled or pure Python, and why), the lines of the
    built-in plugins' ``catena_runtime_info`` (NumPy and its BLAS), every
    plugin with its source and "loaded" or "FAILED: <reason>", the
    ``catena_runtime_info`` lines of the other plugins, each registered device
    type with "available" or "unavailable: <reason>", and the configuration
    problems found while building the plugin tables.

    Args:
        verbose: Also list the hooks that each plugin implements.
    """
    from catena.backends import _registry
    from catena.plugins import _manager

    _manager.load()
    # Called before the plugin list: a plugin whose hook raises is marked failed.
    info = _manager.call_each('catena_runtime_info')
    records = _manager.records()
    builtin = {r.name for r in records if r.source == 'builtin'}
    order = {r.name: index for index, r in enumerate(records)}
    info.sort(key=lambda item: order.get(item[0], len(order)))

    lines = [
        f'catena: {catena.__version__}',
        f'Python: {platform.python_version()} ({platform.python_implementation()}) '
        f'on {platform.platform()}',
        f'Engine: {_engine.description()}',
        f'CPU memory pool: {_memory_pool.description()}',
    ]
    for name, plugin_lines in info:
        if name in builtin:
            lines.extend(str(line) for line in plugin_lines or ())
    lines.append('Plugins:')
    lines.extend(_plugin_line(record, verbose) for record in records)
    for name, plugin_lines in info:
        if name not in builtin and plugin_lines:
            lines.append(f'{name}:')
            lines.extend(f'  {line}' for line in plugin_lines)
    lines.append('Devices:')
    lines.extend(_device_lines(verbose))
    lines.append('Problems:')
    lines.extend(f'  {problem}' for problem in _registry.problems)
    if not _registry.problems:
        lines.append('  (none)')
    return lines


class _RuntimeInfo:
    """The runtime report as an object; ``str()`` gives the printed text."""

    def __init__(self, verbose: bool = False) -> None:
        self.lines = runtime_info_lines(verbose)

    def __str__(self) -> str:
        return '\n'.join(self.lines) + '\n'


def _get_runtime_info(verbose: bool = False) -> _RuntimeInfo:
    """Collects the runtime report (Chainer's internal name)."""
    return _RuntimeInfo(verbose)


def print_runtime_info(out: TextIO | None = None, verbose: bool = False) -> None:
    """Prints the runtime report (see :func:`runtime_info_lines`).

    Args:
        out: A writable text stream (default: standard output).
        verbose: Also list the hooks that each plugin implements.
    """
    out = sys.stdout if out is None else out
    out.write(str(_get_runtime_info(verbose)))
    flush = getattr(out, 'flush', None)
    if flush is not None:
        flush()


__all__ = ['print_runtime_info', 'runtime_info_lines']

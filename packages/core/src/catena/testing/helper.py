"""Skipping tests by installed versions, ``mock.patch`` with autospec and ``assert_warns``."""

from __future__ import annotations

import contextlib
import importlib.metadata
import pkgutil
import re
import unittest
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

try:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version
except ImportError:  # pragma: no cover - exercised through _simple_* in the tests
    Requirement = None  # type: ignore[assignment,misc]

_REQUIREMENT = re.compile(r'^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$')
_SPECIFIER = re.compile(r'^\s*(~=|===|==|!=|<=|>=|<|>)\s*([^\s,;]+)\s*$')


def _simple_version_key(text: str) -> tuple[Any, ...]:
    """A sort key for versions such as ``1.26.4``, ``2.0rc1`` or ``3.1.post2``.

    Release numbers compare numerically; a pre-release (a, b, rc, dev) sorts
    before its release and a post-release after it. Used only when the
    ``packaging`` distribution is not installed.
    """
    text = text.strip().lower().lstrip('v').split('+')[0]
    match = re.match(r'^(\d+(?:\.\d+)*)(.*)$', text)
    if match is None:
        raise ValueError(f'cannot parse the version {text!r}')
    release = [int(part) for part in match.group(1).split('.')]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    rest = match.group(2).lstrip('.-_')
    phase, number = 0, 0
    tag = re.match(r'^(dev|a|alpha|b|beta|rc|c|post)\.?(\d*)', rest)
    if tag is not None:
        phase = {'dev': -4, 'a': -3, 'alpha': -3, 'b': -2, 'beta': -2, 'rc': -1, 'c': -1,
                 'post': 1}[tag.group(1)]
        number = int(tag.group(2) or 0)
    return (tuple(release), phase, number)


def _simple_satisfies(version: str, operator: str, wanted: str) -> bool:
    if operator == '===':
        return version == wanted
    if operator in ('==', '!=') and wanted.endswith('.*'):
        prefix = wanted[:-2].split('.')
        matches = version.split('.')[:len(prefix)] == prefix
        return matches if operator == '==' else not matches
    have, need = _simple_version_key(version), _simple_version_key(wanted)
    if operator == '~=':
        # ~=X.Y means >=X.Y and ==X.*: bump the second-to-last release number.
        match = re.match(r'^v?(\d+(?:\.\d+)*)', wanted.strip())
        release = [int(n) for n in match.group(1).split('.')] if match else []
        if len(release) < 2:
            raise ValueError(f'~= needs at least two release numbers; got {wanted!r}')
        upper = '.'.join(str(n) for n in release[:-2] + [release[-2] + 1])
        return have >= need and have < _simple_version_key(upper)
    return {'==': have == need, '!=': have != need, '<=': have <= need, '>=': have >= need,
            '<': have < need, '>': have > need}[operator]


def _simple_check(requirement: str) -> bool:
    match = _REQUIREMENT.match(requirement)
    if match is None:
        raise ValueError(f'cannot parse the requirement {requirement!r}')
    name, specifiers = match.group(1), match.group(3).split(';')[0].strip()
    try:
        installed = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    for specifier in filter(None, (s.strip() for s in specifiers.split(','))):
        parsed = _SPECIFIER.match(specifier)
        if parsed is None:
            raise ValueError(f'cannot parse {specifier!r} in the requirement {requirement!r}')
        if not _simple_satisfies(installed, parsed.group(1), parsed.group(2)):
            return False
    return True


def is_satisfied(requirement: str) -> bool:
    """Whether the installed distributions satisfy a PEP 508 requirement string.

    Args:
        requirement: For example ``'numpy>=1.26'`` or ``'scipy'``.

    Returns:
        bool: False when the distribution is missing or of another version.
    """
    if Requirement is None:  # pragma: no cover
        return _simple_check(requirement)
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement as error:
        raise ValueError(f'cannot parse the requirement {requirement!r}: {error}') from None
    try:
        installed = importlib.metadata.version(parsed.name)
    except importlib.metadata.PackageNotFoundError:
        return False
    try:
        return parsed.specifier.contains(Version(installed), prereleases=True)
    except InvalidVersion:
        return _simple_check(requirement)


def _skip_decorator(skip: bool, reason: str) -> Callable[[Any], Any]:
    def decorator(target: Any) -> Any:
        target = unittest.skipIf(skip, reason)(target)
        try:
            import pytest
        except ImportError:  # pragma: no cover - catena does not depend on pytest
            return target
        return pytest.mark.skipif(skip, reason=reason)(target)

    return decorator


def with_requires(*requirements: str) -> Callable[[Any], Any]:
    """Skips a test function or class unless every requirement is installed.

    Args:
        requirements: PEP 508 strings such as ``'numpy>=1.26'`` or ``'h5py'``.

    .. admonition:: Example

        >>> @testing.with_requires('scipy>=1.10')
        ... def test_with_scipy():
        ...     import scipy.special
    """
    missing = [r for r in requirements if not is_satisfied(r)]
    return _skip_decorator(bool(missing), f'requires: {", ".join(requirements)} '
                                          f'(not satisfied: {", ".join(missing)})')


def without_requires(*requirements: str) -> Callable[[Any], Any]:
    """Skips a test function or class when every requirement is installed.

    Use it to test the behaviour when an optional dependency is absent.

    Args:
        requirements: PEP 508 strings.
    """
    satisfied = all(is_satisfied(r) for r in requirements)
    return _skip_decorator(satisfied, f'requires the absence of: {", ".join(requirements)}')


def patch(target: str, *args: Any, **kwargs: Any) -> Any:
    """:func:`unittest.mock.patch` with a mock that calls through, as Chainer's.

    The mock wraps ``wraps`` (default: the patched object itself), so calls
    still run the real code while the mock records them; ``return_value`` or
    ``side_effect`` replace the call instead. ``autospec=True`` is the
    default: the mock checks call signatures, so that a test fails when the
    patched function's signature changes.
    """
    autospec = kwargs.setdefault('autospec', True)
    wraps = kwargs.pop('wraps', None)
    if 'return_value' not in kwargs and 'side_effect' not in kwargs:
        if wraps is None:
            wraps = pkgutil.resolve_name(target)
        if autospec:
            # An autospecced mock ignores wraps; side_effect calls through.
            kwargs['side_effect'] = wraps
        else:
            kwargs['wraps'] = wraps
    elif wraps is not None:
        kwargs['wraps'] = wraps
    return mock.patch(target, *args, **kwargs)


@contextlib.contextmanager
def assert_warns(expected: type[Warning]) -> Iterator[list[warnings.WarningMessage]]:
    """Asserts that the ``with`` block issues a warning of category ``expected``.

    Every warning is recorded inside the block (filters that would hide or
    turn it into an error do not apply there).

    Args:
        expected: The warning class; subclasses count too.

    Yields:
        list: The recorded :class:`warnings.WarningMessage` objects.

    Raises:
        AssertionError: When no such warning was issued.

    .. admonition:: Example

        >>> with testing.assert_warns(DeprecationWarning):
        ...     warnings.warn('old', DeprecationWarning)
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        yield caught
    if not any(issubclass(w.category, expected) for w in caught):
        seen = ', '.join(sorted({w.category.__name__ for w in caught})) or 'none'
        raise AssertionError(f'{expected.__name__} was not issued (warnings issued: {seen})')


def run_module(name: str, file: str) -> None:
    """Runs the tests of one file with pytest when that file is executed as a script.

    Put ``testing.run_module(__name__, __file__)`` at the end of a test file:
    importing the file (as pytest does) does nothing, and ``python
    test_foo.py`` runs its tests and exits with pytest's status.

    Args:
        name: The file's ``__name__``.
        file: The file's ``__file__``.
    """
    if name != '__main__':
        return
    import sys

    import pytest

    sys.exit(pytest.main([file, '-v']))


__all__ = ['assert_warns', 'is_satisfied', 'patch', 'run_module', 'with_requires',
           'without_requires']

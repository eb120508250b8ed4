"""``--shard K/N``: collect only the K-th of N shares of the test files.

The noxfile runs the shares of a session side by side, one pytest process
per core, so that no process collects a test twice (as pytest-xdist's
workers each do). Every process computes the same split on its own: the test
files under ``tests/``, largest first, each to the share with the fewest bytes
so far. Files outside ``tests/`` (doctest modules) belong to share 1.
"""

from __future__ import annotations

import pathlib

import pytest

_TESTS = pathlib.Path(__file__).resolve().parent
# This process's share and every test file's share.
_SHARE = pytest.StashKey[tuple[int, dict[pathlib.Path, int]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        '--shard', metavar='K/N', default=None,
        help='collect only the K-th (from 1) of N shares of the test files, split by size')


def _parse(value: str) -> tuple[int, int]:
    try:
        index, count = (int(part) for part in value.split('/'))
    except ValueError:
        raise pytest.UsageError(f'--shard must be K/N, such as 1/2; got {value!r}') from None
    if not 1 <= index <= count:
        raise pytest.UsageError(f'--shard K/N needs 1 <= K <= N; got {value!r}')
    return index, count


def split(files: list[pathlib.Path], count: int) -> dict[pathlib.Path, int]:
    """Each file's share (1 to ``count``): largest first, to the lightest share so far."""
    sizes = {path: path.stat().st_size for path in files}
    loads = [0] * count
    share = {}
    for path in sorted(files, key=lambda p: (-sizes[p], str(p))):
        lightest = loads.index(min(loads))
        share[path] = lightest + 1
        loads[lightest] += sizes[path]
    return share


def pytest_configure(config: pytest.Config) -> None:
    value = config.getoption('shard')
    if value:
        index, count = _parse(value)
        files = [p.resolve() for p in _TESTS.rglob('test_*.py')]
        config.stash[_SHARE] = (index, split(files, count))


def pytest_ignore_collect(collection_path: pathlib.Path, config: pytest.Config) -> bool | None:
    mine = config.stash.get(_SHARE, None)
    if mine is None or collection_path.suffix != '.py':
        return None
    index, share = mine
    if share.get(collection_path.resolve(), 1) != index:
        return True
    return None

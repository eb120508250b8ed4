"""Decorators that run a test several times (``catena.testing.condition``).

They are meant for tests of random behaviour. Each trial after the first
gets a fresh fixture: the decorated method's ``tearDown``/``setUp`` (unittest)
or ``teardown_method``/``setup_method`` (pytest classes) run between trials.
A skip in any trial skips the test (``pytest.skip`` is re-raised as
:class:`unittest.SkipTest`).
"""

from __future__ import annotations

import functools
import traceback
import unittest
from collections.abc import Callable
from typing import Any


def _refresh(instance: Any, method: Callable[..., Any]) -> None:
    """Gives ``instance`` a fresh fixture between two trials."""
    if isinstance(instance, unittest.TestCase):
        instance.tearDown()
        instance.setUp()
        return
    teardown = getattr(instance, 'teardown_method', None)
    setup = getattr(instance, 'setup_method', None)
    if teardown is not None:
        teardown(method)
    if setup is not None:
        setup(method)


def _skip_exceptions() -> tuple[type[BaseException], ...]:
    try:
        import pytest
    except ImportError:  # pragma: no cover
        return (unittest.SkipTest,)
    return (unittest.SkipTest, pytest.skip.Exception)


def _has_fixture(obj: Any) -> bool:
    return isinstance(obj, unittest.TestCase) or hasattr(obj, 'setup_method') or \
        hasattr(obj, 'teardown_method')


class InvalidTrialsError(ValueError, AssertionError):
    """Raised for impossible trial counts.

    It is a :class:`ValueError` and, as in Chainer, an :class:`AssertionError`.
    """


def repeat_with_success_at_least(times: int, min_success: int) -> Callable[[Any], Any]:
    """Runs a test up to ``times`` times; it passes if ``min_success`` trials pass.

    The trials stop as soon as the outcome is decided.

    Args:
        times: The maximum number of trials.
        min_success: The number of successful trials needed.

    Raises:
        InvalidTrialsError: Unless ``0 <= min_success <= times`` (a
            :class:`ValueError` and an :class:`AssertionError`).
        AssertionError: From the decorated test, when too few trials pass;
            the message includes the first failure after
            ``first error message:``.

    .. admonition:: Example

        >>> @testing.condition.repeat_with_success_at_least(10, 8)
        ... def test_mostly():
        ...     assert np.random.uniform() < 0.99
    """
    if not 0 <= min_success <= times:
        raise InvalidTrialsError(f'need 0 <= min_success <= times; got '
                                 f'min_success={min_success}, times={times}')

    def decorator(test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(test)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            instance = args[0] if args and _has_fixture(args[0]) else None
            successes = 0
            failures: list[str] = []
            for trial in range(times):
                if successes >= min_success:
                    return None
                if times - trial < min_success - successes:
                    break
                if trial > 0 and instance is not None:
                    _refresh(instance, test)
                try:
                    test(*args, **kwargs)
                except (KeyboardInterrupt, SystemExit, GeneratorExit):
                    raise
                except BaseException as error:  # noqa: BLE001 - pytest.fail is a BaseException
                    if isinstance(error, unittest.SkipTest):
                        raise
                    if isinstance(error, _skip_exceptions()):
                        # pytest.skip becomes unittest.SkipTest, which both runners know.
                        raise unittest.SkipTest(str(error)) from error
                    failures.append(traceback.format_exc())
                    continue
                successes += 1
            if successes >= min_success:
                return None
            ran = successes + len(failures)
            name = getattr(test, '__qualname__', type(test).__qualname__)
            raise AssertionError(
                f'{name} passed {successes} of {ran} trials; it needs {min_success} '
                f'successes in at most {times} trials.\n\nfirst error message:\n'
                f'{failures[0] if failures else "(none)"}')

        return wrapper

    return decorator


def repeat(times: int) -> Callable[[Any], Any]:
    """Runs a test ``times`` times; every trial must pass.

    Args:
        times: The number of trials.
    """
    return repeat_with_success_at_least(times, times)


def retry(times: int) -> Callable[[Any], Any]:
    """Runs a test up to ``times`` times until one trial passes.

    Args:
        times: The maximum number of trials.
    """
    return repeat_with_success_at_least(times, 1)


__all__ = ['InvalidTrialsError', 'repeat', 'repeat_with_success_at_least', 'retry']

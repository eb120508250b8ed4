"""A base class that checks a distribution against SciPy (``testing.distribution_unittest``)."""

from __future__ import annotations

import functools
import math
import unittest
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy

from catena.testing import attr
from catena.testing.array import assert_allclose

#: Every name a subclass may put in ``test_targets``.
TARGETS = frozenset({
    'batch_shape', 'cdf', 'entropy', 'event_shape', 'icdf', 'log_cdf', 'log_prob',
    'log_survival', 'mean', 'prob', 'sample', 'stddev', 'support', 'survival', 'variance'})

# Enough draws that the moments of a sample are close to the true ones.
_SAMPLES = 100000


def _targeted(target: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Skips the decorated test unless ``target`` is in the instance's ``test_targets``."""

    def decorator(test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(test)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if target not in self.test_targets:
                self.skipTest(f'{target!r} is not in test_targets')
            return test(self, *args, **kwargs)

        return wrapper

    return decorator


def _to_gpu(array: Any) -> Any:
    from catena.backends import cuda

    return cuda.to_gpu(array)


def _to_cpu(array: Any) -> Any:
    from catena.backends import cuda

    return cuda.to_cpu(array)


def _size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


class distribution_unittest(unittest.TestCase):  # noqa: N801 - Chainer's public name
    """Compares a :class:`~catena.distributions.Distribution` with its SciPy counterpart.

    A subclass is usually parameterized with ``shape`` (the batch shape),
    ``is_variable`` (pass the parameters as Variables) and ``sample_shape``,
    and implements:

    * ``setUp_configure()``: sets ``self.dist`` (the distribution class, or
      any callable taking the parameters as keywords), ``self.scipy_dist``
      (a ``scipy.stats`` distribution), ``self.params`` and
      ``self.scipy_params`` (dicts of NumPy arrays) and ``self.test_targets``
      (the names of :data:`TARGETS` to check); it may also change
      ``self.support`` (default ``'real'``), ``self.event_shape`` (default
      ``()``), ``self.continuous`` (default True: compare with ``pdf``,
      otherwise ``pmf``) and ``self.options`` (extra keywords for
      ``self.dist``);
    * ``sample_for_test()``: returns a NumPy array of shape
      ``sample_shape + shape + event_shape`` at which to evaluate densities
      and distribution functions.

    With ``scipy_onebyone = True`` the SciPy distribution is evaluated once
    per batch element (for SciPy distributions that do not broadcast).

    Every target has ``test_<target>_cpu`` and ``test_<target>_gpu`` (marked
    :func:`~catena.testing.attr.gpu`); those of targets not listed are
    skipped.
    """

    scipy_onebyone = False

    # Set by the parameterization (``shape``, ``sample_shape``, and optionally
    # ``event_shape``) or by ``setUp_configure()`` (the rest); declared here
    # for the type checker only, so ``hasattr`` still sees them as unset.
    shape: Sequence[int]
    sample_shape: Sequence[int]
    event_shape: Sequence[int]
    support: str
    continuous: bool
    dist: Callable[..., Any]
    scipy_dist: Any
    params: dict[str, Any]
    scipy_params: dict[str, Any]

    def setUp(self) -> None:
        self.support = 'real'
        if not hasattr(self, 'event_shape'):
            self.event_shape = ()
        self.continuous = True
        self.test_targets: set[str] = set()
        self.options: dict[str, Any] = {}
        self.setUp_configure()
        unknown = set(self.test_targets) - TARGETS
        if unknown:
            raise ValueError(f'test_targets names unknown targets {sorted(unknown)}; the '
                             f'targets are {sorted(TARGETS)}')
        if getattr(self, 'is_variable', False):
            from catena.variable import Variable

            self.params = {key: Variable(value) for key, value in self.params.items()}

    def setUp_configure(self) -> None:  # noqa: N802 - Chainer's hook name
        """Sets the distribution, its parameters and the targets (must be implemented)."""
        raise NotImplementedError(f'{type(self).__name__} must implement setUp_configure()')

    def sample_for_test(self) -> numpy.ndarray:
        """Returns the points at which densities are compared (must be implemented)."""
        raise NotImplementedError(f'{type(self).__name__} must implement sample_for_test()')

    # ------------------------------------------------------------ helpers

    def scipy_onebyone_params_iter(self) -> Iterator[dict[str, Any]]:
        """Yields ``scipy_params`` for each batch element (indexed over ``self.shape``)."""
        for index in numpy.ndindex(*self.shape):
            yield {key: value if numpy.isscalar(value) else value[index]
                   for key, value in self.scipy_params.items()}

    @property
    def cpu_dist(self) -> Any:
        """The distribution built from ``params`` and ``options`` on the CPU."""
        return self.dist(**self.params, **self.options)

    @property
    def gpu_dist(self) -> Any:
        """The distribution built from ``params`` (sent to the GPU) and ``options``."""
        from catena.variable import Variable

        params: dict[str, Any] = {}
        for key, value in self.params.items():
            if isinstance(value, Variable):
                params[key] = Variable(_to_gpu(value.array))
            else:
                params[key] = _to_gpu(value)
        return self.dist(**params, **self.options)

    def _dist(self, is_gpu: bool) -> Any:
        return self.gpu_dist if is_gpu else self.cpu_dist

    def _sample(self, is_gpu: bool) -> Any:
        sample = self.sample_for_test()
        return _to_gpu(sample) if is_gpu else sample

    def _per_element(self, method: Callable[..., Any], shape: tuple[int, ...]) -> numpy.ndarray:
        values = [method(**params) for params in self.scipy_onebyone_params_iter()]
        return numpy.vstack(values).reshape(shape)

    def _moment(self, is_gpu: bool, name: str, scipy_name: str) -> None:
        dist = self._dist(is_gpu)
        actual = getattr(dist, name).array
        method = getattr(self.scipy_dist, scipy_name)
        if self.scipy_onebyone:
            expected = self._per_element(method, tuple(self.shape) + tuple(dist.event_shape))
        else:
            expected = method(**self.scipy_params)
        assert_allclose(actual, expected)

    def _pointwise(self, is_gpu: bool, name: str, scipy_name: str) -> None:
        sample = self.sample_for_test()
        dist = self._dist(is_gpu)
        actual = getattr(dist, name)(_to_gpu(sample) if is_gpu else sample).array
        expected = getattr(self.scipy_dist, scipy_name)(sample, **self.scipy_params)
        assert_allclose(actual, expected)

    # ------------------------------------------------------------- checks

    def check_batch_shape(self, is_gpu: bool) -> None:
        """Checks ``batch_shape`` against ``self.shape``."""
        self.assertEqual(self._dist(is_gpu).batch_shape, tuple(self.shape))

    def check_cdf(self, is_gpu: bool) -> None:
        """Checks ``cdf`` against SciPy's ``cdf``."""
        self._pointwise(is_gpu, 'cdf', 'cdf')

    def check_entropy(self, is_gpu: bool) -> None:
        """Checks ``entropy`` against SciPy's ``entropy``."""
        actual = self._dist(is_gpu).entropy.array
        if self.scipy_onebyone:
            expected = self._per_element(self.scipy_dist.entropy, tuple(self.shape))
        else:
            expected = self.scipy_dist.entropy(**self.scipy_params)
        assert_allclose(actual, expected)

    def check_event_shape(self, is_gpu: bool) -> None:
        """Checks ``event_shape`` against ``self.event_shape``."""
        self.assertEqual(self._dist(is_gpu).event_shape, tuple(self.event_shape))

    def check_icdf(self, is_gpu: bool) -> None:
        """Checks ``icdf`` against SciPy's ``ppf`` at uniform points of (0, 1)."""
        points = numpy.random.uniform(  # noqa: NPY002 - seeded by fix_random
            1e-5, 1 - 1e-5, tuple(self.sample_shape) + tuple(self.shape)).astype(numpy.float32)
        dist = self._dist(is_gpu)
        actual = dist.icdf(_to_gpu(points) if is_gpu else points).array
        expected = self.scipy_dist.ppf(points, **self.scipy_params)
        assert_allclose(actual, expected)

    def check_log_cdf(self, is_gpu: bool) -> None:
        """Checks ``log_cdf`` against SciPy's ``logcdf``."""
        self._pointwise(is_gpu, 'log_cdf', 'logcdf')

    def check_log_prob(self, is_gpu: bool) -> None:
        """Checks ``log_prob`` against SciPy's ``logpdf`` (or ``logpmf``)."""
        sample = self.sample_for_test()
        dist = self._dist(is_gpu)
        actual = dist.log_prob(_to_gpu(sample) if is_gpu else sample).array
        method = self.scipy_dist.logpdf if self.continuous else self.scipy_dist.logpmf
        if not self.scipy_onebyone:
            expected = method(sample, **self.scipy_params)
            assert_allclose(actual, expected)
            return
        sample_shape, shape = tuple(self.sample_shape), tuple(self.shape)
        event_shape = tuple(self.event_shape)
        # (sample, batch, event) -> one block of samples per batch element.
        per_element: numpy.ndarray = sample.reshape(
            _size(sample_shape), _size(shape), _size(event_shape))
        per_element = numpy.swapaxes(per_element, 0, 1)
        per_element = per_element.reshape((-1,) + sample_shape + event_shape)
        values = [method(points, **params)
                  for params, points in zip(self.scipy_onebyone_params_iter(), per_element)]
        expected = numpy.vstack(values).reshape(_size(shape), -1).T
        assert_allclose(actual, expected.reshape(sample_shape + shape))

    def check_log_survival(self, is_gpu: bool) -> None:
        """Checks ``log_survival_function`` against SciPy's ``logsf``."""
        self._pointwise(is_gpu, 'log_survival_function', 'logsf')

    def check_mean(self, is_gpu: bool) -> None:
        """Checks ``mean`` against SciPy's ``mean``."""
        self._moment(is_gpu, 'mean', 'mean')

    def check_prob(self, is_gpu: bool) -> None:
        """Checks ``prob`` against SciPy's ``pdf`` (or ``pmf``)."""
        self._pointwise(is_gpu, 'prob', 'pdf' if self.continuous else 'pmf')

    def check_sample(self, is_gpu: bool) -> None:
        """Compares the mean and standard deviation of many samples with SciPy's."""
        dist = self._dist(is_gpu)
        sample_shape, shape = tuple(self.sample_shape), tuple(self.shape)
        event_shape = tuple(dist.event_shape)
        drawn = _to_cpu(dist.sample(sample_shape=(_SAMPLES,) + sample_shape).array)
        if self.scipy_onebyone:
            blocks = [self.scipy_dist.rvs(size=(_SAMPLES,) + sample_shape, **params)
                      for params in self.scipy_onebyone_params_iter()]
            reference: Any = numpy.vstack(blocks).reshape(
                (_size(shape), _SAMPLES) + sample_shape + event_shape)
            reference = numpy.rollaxis(reference, 0, reference.ndim - len(event_shape))
            reference = reference.reshape((_SAMPLES,) + sample_shape + shape + event_shape)
        else:
            reference = self.scipy_dist.rvs(size=(_SAMPLES,) + sample_shape + shape,
                                            **self.scipy_params)
        assert_allclose(drawn.mean(axis=0), reference.mean(axis=0), atol=3e-2, rtol=3e-2)
        assert_allclose(drawn.std(axis=0), reference.std(axis=0), atol=3e-2, rtol=3e-2)

    def check_stddev(self, is_gpu: bool) -> None:
        """Checks ``stddev`` against SciPy's ``std``."""
        self._moment(is_gpu, 'stddev', 'std')

    def check_support(self, is_gpu: bool) -> None:
        """Checks ``support`` against ``self.support``."""
        self.assertEqual(self._dist(is_gpu).support, self.support)

    def check_survival(self, is_gpu: bool) -> None:
        """Checks ``survival_function`` against SciPy's ``sf``."""
        self._pointwise(is_gpu, 'survival_function', 'sf')

    def check_variance(self, is_gpu: bool) -> None:
        """Checks ``variance`` against SciPy's ``var``."""
        self._moment(is_gpu, 'variance', 'var')


def _add_tests(cls: type) -> None:
    for target in sorted(TARGETS):
        def cpu(self: Any, _check: str = f'check_{target}') -> None:
            getattr(self, _check)(False)

        def gpu(self: Any, _check: str = f'check_{target}') -> None:
            attr._require_gpu()
            getattr(self, _check)(True)

        for device, test in (('cpu', cpu), ('gpu', gpu)):
            name = f'test_{target}_{device}'
            test.__name__ = test.__qualname__ = name
            test.__doc__ = f'Runs check_{target} on the {device.upper()}.'
            test = _targeted(target)(test)
            if device == 'gpu':
                test = attr.gpu(test)
            setattr(cls, name, test)


_add_tests(distribution_unittest)


__all__ = ['TARGETS', 'distribution_unittest']

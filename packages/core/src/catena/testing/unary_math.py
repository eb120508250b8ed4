"""A class decorator testing a unary math function (``testing.unary_math_function_unittest``)."""

from __future__ import annotations

import unittest
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

import numpy

from catena.testing import attr
from catena.testing.array import assert_allclose
from catena.testing.parameterized import parameterize, product

if TYPE_CHECKING:
    from catena.function import Function

_SHAPES: list[tuple[int, ...]] = [(3, 2), ()]
_DTYPES: list[type[numpy.floating[Any]]] = [numpy.float16, numpy.float32, numpy.float64]


def _default_make_data(shape: tuple[int, ...], dtype: Any) -> tuple[numpy.ndarray, ...]:
    def uniform() -> numpy.ndarray:
        return numpy.random.uniform(-1, 1, shape).astype(dtype)  # noqa: NPY002

    return uniform(), uniform(), uniform()


def _tolerances(dtype: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The default forward and (double) backward options for ``dtype``.

    Numerical gradients are taken in float64, so that small ``eps`` work.
    """
    if numpy.dtype(dtype) == numpy.float16:
        return ({'atol': 1e-3, 'rtol': 1e-3},
                {'eps': 2 ** -4, 'atol': 2 ** -4, 'rtol': 2 ** -4, 'dtype': numpy.float64})
    return {'atol': 1e-4, 'rtol': 1e-4}, {'atol': 1e-4, 'rtol': 1e-4, 'dtype': numpy.float64}


def _is_old_style(func: Any) -> bool:
    from catena.function import Function

    return isinstance(func, Function)


def unary_math_function_unittest(
        func: Callable[..., Any], func_expected: Callable[..., Any] | None = None,
        label_expected: str | None = None,
        make_data: Callable[[tuple[int, ...], Any], tuple[Any, ...]] | None = None,
        is_linear: bool | None = None, forward_options: dict[str, Any] | None = None,
        backward_options: dict[str, Any] | None = None,
        double_backward_options: dict[str, Any] | None = None) -> Callable[[type], type]:
    """Turns an empty :class:`unittest.TestCase` into the tests of a unary math function.

    The decorated class is parameterized over the shapes ``(3, 2)`` and
    ``()`` and the dtypes float16, float32 and float64, and gets
    ``test_forward_cpu``, ``test_backward_cpu`` and
    ``test_double_backward_cpu`` (and ``_gpu`` variants marked
    :func:`~catena.testing.attr.gpu`). For an old-style
    :class:`~catena.Function` it gets ``test_label`` instead of the
    double-backward tests.

    Args:
        func: The function under test, taking one Variable.
        func_expected: ``func_expected(x, dtype=dtype)`` computes the expected
            output from a NumPy array. Default: the NumPy function of the same
            name as ``func``.
        label_expected: The label the function node should have (checked for
            old-style functions only). Default: ``func.__name__``.
        make_data: ``make_data(shape, dtype)`` returns ``(x, gy)`` or
            ``(x, gy, ggx)``. Default: uniform values in [-1, 1].
        is_linear: Deprecated and ignored.
        forward_options: Options of :func:`~catena.testing.assert_allclose`
            for the forward check.
        backward_options: Options of
            :func:`~catena.gradient_check.check_backward`.
        double_backward_options: Options of
            :func:`~catena.gradient_check.check_double_backward`.

    Raises:
        ValueError: When ``func_expected`` is omitted and NumPy has no
            function named like ``func``.

    .. admonition:: Example

        >>> import unittest
        >>> def positive_data(shape, dtype):
        ...     x = numpy.random.uniform(0.5, 2, shape).astype(dtype)
        ...     gy = numpy.random.uniform(-1, 1, shape).astype(dtype)
        ...     return x, gy
        >>> @testing.unary_math_function_unittest(F.sqrt, make_data=positive_data)
        ... class TestSqrt(unittest.TestCase):
        ...     pass
    """
    name = getattr(func, '__name__', type(func).__name__)
    if func_expected is None:
        func_expected = getattr(numpy, name, None)
        if func_expected is None:
            raise ValueError(f'NumPy has no function named {name!r} to compare {name} with; '
                             'pass func_expected')
    if label_expected is None:
        label_expected = name
    if make_data is None:
        make_data = _default_make_data
    if is_linear is not None:
        warnings.warn('the is_linear option of unary_math_function_unittest is deprecated '
                      'and ignored', DeprecationWarning, stacklevel=2)
    old_style = _is_old_style(func)
    expected_function = func_expected
    data_maker = make_data
    label = label_expected

    def decorator(klass: type) -> type:
        if not (isinstance(klass, type) and issubclass(klass, unittest.TestCase)):
            raise TypeError(f'unary_math_function_unittest decorates unittest.TestCase '
                            f'classes; got {klass!r}')
        original_setup = klass.setUp

        def setUp(self: Any) -> None:  # noqa: N802 - unittest's name
            original_setup(self)
            data = tuple(data_maker(self.shape, self.dtype))
            if len(data) == 2:
                data += (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)  # noqa: NPY002
            if len(data) != 3:
                raise ValueError(f'make_data must return (x, gy) or (x, gy, ggx); got '
                                 f'{len(data)} values')
            self.x, self.gy, self.ggx = data
            forward, backward = _tolerances(self.dtype)
            self.forward_options = {**forward, **(forward_options or {})}
            self.backward_options = {**backward, **(backward_options or {})}
            self.double_backward_options = {**backward, **(double_backward_options or {})}

        def check_forward(self: Any, x_data: Any) -> None:
            from catena.backends import cuda
            from catena.variable import Variable

            y = func(Variable(x_data))
            self.assertEqual(y.array.dtype, x_data.dtype)
            expected = expected_function(cuda.to_cpu(x_data), dtype=x_data.dtype)
            assert_allclose(expected, y.array, **self.forward_options)

        def check_backward(self: Any, x_data: Any, y_grad: Any) -> None:
            from catena import gradient_check

            gradient_check.check_backward(func, x_data, y_grad, **self.backward_options)

        def check_double_backward(self: Any, x_data: Any, y_grad: Any,
                                  x_grad_grad: Any) -> None:
            from catena import gradient_check

            gradient_check.check_double_backward(func, x_data, y_grad, x_grad_grad,
                                                 **self.double_backward_options)

        def to_gpu(*arrays: Any) -> tuple[Any, ...]:
            from catena.backends import cuda

            attr._require_gpu()
            return tuple(cuda.to_gpu(a) for a in arrays)

        def test_forward_cpu(self: Any) -> None:
            self.check_forward(self.x)

        @attr.gpu
        def test_forward_gpu(self: Any) -> None:
            self.check_forward(*to_gpu(self.x))

        def test_backward_cpu(self: Any) -> None:
            self.check_backward(self.x, self.gy)

        @attr.gpu
        def test_backward_gpu(self: Any) -> None:
            self.check_backward(*to_gpu(self.x, self.gy))

        def test_double_backward_cpu(self: Any) -> None:
            self.check_double_backward(self.x, self.gy, self.ggx)

        @attr.gpu
        def test_double_backward_gpu(self: Any) -> None:
            self.check_double_backward(*to_gpu(self.x, self.gy, self.ggx))

        def test_label(self: Any) -> None:
            self.assertEqual(cast('Function', func).label, label)

        members: dict[str, Any] = {
            'setUp': setUp, 'check_forward': check_forward, 'check_backward': check_backward,
            'test_forward_cpu': test_forward_cpu, 'test_forward_gpu': test_forward_gpu,
            'test_backward_cpu': test_backward_cpu, 'test_backward_gpu': test_backward_gpu}
        if old_style:
            members['test_label'] = test_label
        else:
            members.update({'check_double_backward': check_double_backward,
                            'test_double_backward_cpu': test_double_backward_cpu,
                            'test_double_backward_gpu': test_double_backward_gpu})
        for member, value in members.items():
            value.__qualname__ = f'{klass.__qualname__}.{member}'
            setattr(klass, member, value)
        grid: dict[str, Iterable[Any]] = {'shape': _SHAPES, 'dtype': _DTYPES}
        return parameterize(*product(grid))(klass)

    return decorator


__all__ = ['unary_math_function_unittest']

"""Declarative tests of functions and links on every device.

:class:`FunctionTestCase`, :class:`LinkTestCase` and
:class:`LinkInitializersTestCase` live here; a failed check raises
:class:`FunctionTestError` or :class:`LinkTestError`.

A test states how to make inputs and what the outputs should be; the base
class runs the forward, backward and double-backward checks once per entry
of the device matrix (see :mod:`catena.testing.backend`)::

    @testing.parameterize(*testing.product({'dtype': [np.float16, np.float32, np.float64]}))
    class TestTanh(testing.FunctionTestCase):
        def generate_inputs(self):
            return np.random.uniform(-1, 1, (3, 2)).astype(self.dtype),

        def forward(self, inputs, device):
            x, = inputs
            return F.tanh(x),

        def forward_expected(self, inputs):
            x, = inputs
            return np.tanh(x),

pytest then shows ``TestTanh_param_0_dtype_float16::test_forward__numpy``,
``...::test_forward__fake``, ``...::test_backward__numpy`` and so on.
"""

from __future__ import annotations

import unittest
from collections.abc import Callable
from typing import Any

import numpy

from catena import backend, configuration, gradient_check
from catena.testing import random as _random
from catena.testing.array import assert_allclose
from catena.testing.backend import BackendConfig, expand_backend_tests
from catena.testing.tolerance import tolerances
from catena.variable import Variable

_DODGE_TRIALS = 10


class _TestError(AssertionError):
    """A check of a declarative device test failed."""


class FunctionTestError(_TestError):
    """A check of :class:`FunctionTestCase` failed (an :class:`AssertionError`)."""


class LinkTestError(_TestError):
    """A check of :class:`LinkTestCase` or :class:`LinkInitializersTestCase` failed.

    It is an :class:`AssertionError`.
    """


def _contiguousness(array: Any) -> tuple[bool, bool]:
    flags = getattr(array, 'flags', None)
    if flags is not None:
        return bool(flags.c_contiguous), bool(flags.f_contiguous)
    host = numpy.asarray(array)
    return bool(host.flags.c_contiguous), bool(host.flags.f_contiguous)


def _check_contiguousness(array: Any, expected: str | None) -> None:
    """Asserts that ``array`` (or a Variable's array) is laid out as ``contiguous`` asks.

    Args:
        array: An array or a :class:`~catena.Variable`.
        expected: None: neither C- nor F-contiguous; ``'C'``: C-contiguous.
            Arrays of at most one element pass either way.
    """
    if isinstance(array, Variable):
        array = array.array
    if array is None or int(numpy.prod(array.shape)) <= 1:
        return
    c_contiguous, f_contiguous = _contiguousness(array)
    if expected is None:
        if c_contiguous or f_contiguous:
            raise AssertionError(f'expected a non-contiguous array; got a '
                                 f'{"C" if c_contiguous else "F"}-contiguous one of shape '
                                 f'{array.shape}')
    elif expected == 'C':
        if not c_contiguous:
            raise AssertionError(f'expected a C-contiguous array of shape {array.shape}')
    else:
        raise ValueError(f'contiguous must be None or "C"; got {expected!r}')


def _check_initializer_type(value: Any, what: str) -> None:
    """Rejects Variables and Parameters where an initializer or array is expected."""
    if isinstance(value, InitializerArgument):
        value = value.argument_value
    if isinstance(value, Variable):
        raise TypeError(f'{what} must be an array, a scalar, an initializer or None; got a '
                        f'{type(value).__name__} (pass its .array instead)')


def _numpy_tuple(value: Any, what: str, allow_none: bool = False) -> tuple[Any, ...]:
    if not isinstance(value, tuple):
        raise TypeError(f'{what} must return a tuple of numpy.ndarray; got '
                        f'{type(value).__name__} (a one-element tuple is spelled "x,")')
    arrays: list[Any] = []
    for index, array in enumerate(value):
        if array is None and allow_none:
            arrays.append(None)
            continue
        if isinstance(array, numpy.generic):
            array = numpy.asarray(array)
        if not isinstance(array, numpy.ndarray) or type(array) is not numpy.ndarray:
            raise TypeError(f'{what} must return a tuple of numpy.ndarray; element {index} is '
                            f'a {type(array).__module__}.{type(array).__qualname__}')
        arrays.append(array)
    return tuple(arrays)


def _copy(arrays: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(None if a is None else a.copy() for a in arrays)


def _host(array: Any) -> numpy.ndarray:
    return numpy.asarray(backend.get_device_from_array(array).to_numpy(array))


def _first_difference(now: numpy.ndarray, before: numpy.ndarray) -> str:
    if now.shape != before.shape:
        return f'its shape changed from {before.shape} to {now.shape}'
    if now.dtype != before.dtype:
        return f'its dtype changed from {before.dtype} to {now.dtype}'
    with numpy.errstate(invalid='ignore'):
        differs = now != before
        if before.dtype.kind in 'fc':
            differs &= ~(numpy.isnan(now) & numpy.isnan(before))
    index = tuple(int(i) for i in numpy.argwhere(differs)[0])
    return (f'{int(differs.sum())} of {before.size} elements changed; at {index} '
            f'it was {before[index]!r} and is now {now[index]!r}')


def _unchanged(now: numpy.ndarray, before: numpy.ndarray) -> bool:
    if now.shape != before.shape or now.dtype != before.dtype:
        return False
    return bool(numpy.array_equal(now, before, equal_nan=before.dtype.kind in 'fc'))


class _DeviceTestCase(unittest.TestCase):
    """What FunctionTestCase and LinkTestCase share: devices, inputs, checks."""

    _catena_base = True
    __test__ = False  # the bases are not tests; their subclasses are

    #: The dtype under test; it selects the row of :func:`catena.testing.tolerances`.
    #: None: the lowest-precision floating dtype among the inputs.
    dtype: Any = None
    skip_forward_test = False
    skip_backward_test = False
    #: Resample the inputs (up to 10 times) while the function is not differentiable there.
    dodge_nondifferentiable = False
    #: The dtype that numerical gradients are computed in.
    numerical_grad_dtype: Any = numpy.float64
    #: None: arrays given to forward are non-contiguous where possible; 'C': C-contiguous.
    contiguous: str | None = None
    check_forward_options: dict[str, Any] = {}
    check_backward_options: dict[str, Any] = {}

    _option_names: tuple[str, ...] = ('check_forward_options', 'check_backward_options')
    #: What a failed check raises.
    _error: type[AssertionError] = AssertionError

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get('_catena_base', False):
            return
        if '__test__' not in cls.__dict__:
            cls.__test__ = True
        expand_backend_tests(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Each test gets its own option dicts: setUp may update them freely.
        for name in self._option_names:
            setattr(self, name, dict(getattr(self, name) or {}))

    # --------------------------------------------------------------- hooks

    def before_test(self, test_name: str) -> None:
        """Called before each test with its name ('test_forward', ...); may set options."""

    def generate_inputs(self) -> tuple[numpy.ndarray, ...]:
        """Returns the inputs as a tuple of NumPy arrays (must be implemented)."""
        raise NotImplementedError(f'{type(self).__name__} must implement generate_inputs()')

    def generate_grad_outputs(self, outputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        """Returns the output gradients (default: uniform in [-1, 1], None for non-floats).

        Args:
            outputs_template: The expected outputs (NumPy arrays) to match.
        """
        return tuple(None if t.dtype.kind != 'f' else
                     numpy.random.uniform(-1, 1, t.shape).astype(t.dtype)  # noqa: NPY002
                     for t in outputs_template)

    # ----------------------------------------------------------- machinery

    def _run(self, backend_config: BackendConfig, test_name: str, skip_flag: str,
             body: Callable[[BackendConfig], None]) -> None:
        self.backend_config = backend_config
        context = _random._fixed(0) if not _random.is_fixed() else None
        if context is not None:
            context.__enter__()
        try:
            self.test_name = test_name  # as in Chainer: generate_inputs may read it
            self.before_test(test_name)
            if skip_flag and getattr(self, skip_flag):
                raise unittest.SkipTest(f'{skip_flag} is True')
            try:
                body(backend_config)
            except _TestError:
                raise
            except AssertionError as error:
                raise self._error(f'{type(self).__name__}.{test_name} on '
                                  f'{backend_config.name}: {error}') from error
        finally:
            if context is not None:
                context.__exit__(None, None, None)

    def _inputs(self) -> tuple[numpy.ndarray, ...]:
        return _numpy_tuple(self.generate_inputs(), f'{type(self).__name__}.generate_inputs()')

    def _table_dtype(self, inputs: tuple[Any, ...]) -> Any:
        if self.dtype is not None:
            return self.dtype
        floats = [a.dtype for a in inputs if a is not None and a.dtype.kind == 'f']
        if not floats:
            return numpy.float64
        return min(floats, key=lambda d: d.itemsize)

    def _options(self, inputs: tuple[Any, ...], kind: str, given: dict[str, Any]
                 ) -> dict[str, Any]:
        return {**tolerances(self._table_dtype(inputs), kind), **given}

    def _send(self, arrays: tuple[Any, ...], backend_config: BackendConfig) -> tuple[Any, ...]:
        device = backend_config.device
        sent: list[Any] = []
        for array in arrays:
            if array is None:
                sent.append(None)
                continue
            on_device = device.send_array(array.copy())
            if self.contiguous is None:
                on_device = _non_contiguous(on_device, device)
            elif self.contiguous == 'C':
                # (NumPy 1 makes a 0-d array 1-d here: keep the shape)
                on_device = device.xp.ascontiguousarray(on_device).reshape(on_device.shape)
            else:
                raise ValueError(f'contiguous must be None or "C"; got {self.contiguous!r}')
            sent.append(on_device)
        return tuple(sent)

    def _check_outputs(self, outputs: Any, expected: tuple[numpy.ndarray, ...],
                       backend_config: BackendConfig, options: dict[str, Any],
                       what: str, inputs: tuple[Any, ...]) -> None:
        # Where the inputs actually live: a device may keep its arrays as another
        # device's type ('@intel64' uses NumPy arrays, which map back to '@numpy').
        arrays = [x for x in inputs if x is not None]
        device = backend.get_device_from_array(arrays[0]) if arrays else backend_config.device
        if len(outputs) != len(expected):
            raise AssertionError(f'{what} returned {len(outputs)} outputs, but '
                                 f'forward_expected returned {len(expected)}')
        for index, (y, e) in enumerate(zip(outputs, expected)):
            where = backend.get_device_from_array(y.array)
            if where != device:
                raise AssertionError(f'output {index} of {what} is on {where}, but the inputs '
                                     f'are on {device} ({backend_config.name})')
            if y.shape != e.shape:
                raise AssertionError(f'output {index} of {what} has shape {y.shape}; '
                                     f'forward_expected says {e.shape}')
            if y.dtype != e.dtype:
                raise AssertionError(f'output {index} of {what} has dtype {y.dtype}; '
                                     f'forward_expected says {e.dtype}')
            try:
                assert_allclose(y.array, e, **options)
            except AssertionError as error:
                raise AssertionError(f'output {index} of {what} on {backend_config.name} '
                                     f'differs from forward_expected (options {options}):\n'
                                     f'{error}') from None

    def _check_unmodified(self, arrays: tuple[Any, ...], originals: tuple[Any, ...],
                          stage: str, what: str) -> None:
        for index, (array, original) in enumerate(zip(arrays, originals)):
            if array is None:
                continue
            now = _host(array)
            if not _unchanged(now, original):
                raise AssertionError(
                    f'{stage} modified {what} {index} (shape {original.shape}, dtype '
                    f'{original.dtype}) in place: {_first_difference(now, original)}. '
                    'Functions must not write into their inputs; compute into a new array.')

    def _dodging(self, attempt: Callable[[bool], None]) -> None:
        """Runs ``attempt`` until it meets differentiable inputs (with dodge_nondifferentiable)."""
        if not self.dodge_nondifferentiable:
            attempt(False)
            return
        last: Exception | None = None
        for _ in range(_DODGE_TRIALS):
            try:
                attempt(True)
                return
            except gradient_check.NondifferentiableError as error:
                last = error
        raise AssertionError(
            f'{type(self).__name__}: generate_inputs() gave non-differentiable inputs '
            f'{_DODGE_TRIALS} times in a row; the last time: {last}')


def _non_contiguous(array: Any, device: Any) -> Any:
    """Returns a non-contiguous copy of ``array`` (a strided view into a wider buffer)."""
    if array.ndim == 0 or array.size <= 1:
        return array
    buffer = device.xp.empty(array.shape + (2,), dtype=array.dtype)
    view = buffer[..., 0]
    view[...] = array
    return view


class FunctionTestCase(_DeviceTestCase):
    """A declarative test of a function on every device of the matrix.

    Implement :meth:`generate_inputs`, :meth:`forward` and
    :meth:`forward_expected`; optionally :meth:`generate_grad_outputs`,
    :meth:`generate_grad_grad_inputs` and :meth:`before_test`. The class then
    has ``test_forward__<device>``, ``test_backward__<device>`` and
    ``test_double_backward__<device>`` for every device the
    ``catena_test_backend_params`` hooks return (or those given with
    :func:`~catena.testing.inject_backend_tests`). Each test:

    * sends the inputs to the device (non-contiguous unless
      ``contiguous = 'C'``) and checks that the outputs live there too;
    * compares the outputs with :meth:`forward_expected`, which must compute
      them independently with NumPy (or SciPy);
    * checks that neither forward nor backward modified the inputs;
    * runs :func:`~catena.gradient_check.check_backward` and
      :func:`~catena.gradient_check.check_double_backward` with numerical
      gradients in ``numerical_grad_dtype`` (float64) along a seeded random
      direction.

    Tolerances come from :func:`catena.testing.tolerances` for ``dtype``
    (or the inputs' lowest floating precision); ``check_forward_options``,
    ``check_backward_options`` and ``check_double_backward_options`` override
    them (and may pass ``eps`` or ``no_grads``). Unless the class uses
    :func:`~catena.testing.fix_random`, every test runs with NumPy seeded to 0.

    Attributes:
        dtype: The dtype under test, usually set with
            :func:`~catena.testing.parameterize`.
        skip_forward_test: Skip ``test_forward``.
        skip_backward_test: Skip ``test_backward``.
        skip_double_backward_test: Skip ``test_double_backward``.
        dodge_nondifferentiable: Detect non-differentiable inputs and draw new
            ones (up to 10 times).
        backend_config: The :class:`~catena.testing.BackendConfig` of the
            running test (set before :meth:`before_test`).
    """

    _catena_base = True
    _error = FunctionTestError
    skip_double_backward_test = False
    check_double_backward_options: dict[str, Any] = {}
    _option_names = ('check_forward_options', 'check_backward_options',
                     'check_double_backward_options')

    def forward(self, inputs: tuple[Variable, ...], device: Any) -> tuple[Variable, ...]:
        """Applies the function under test (must be implemented).

        Args:
            inputs: The inputs as Variables on ``device``.
            device: The :class:`~catena.backend.Device` under test.

        Returns:
            tuple: The output Variables.
        """
        raise NotImplementedError(f'{type(self).__name__} must implement forward()')

    def forward_expected(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        """Returns the expected outputs, computed with NumPy (must be implemented).

        Args:
            inputs: Copies of the NumPy inputs.
        """
        raise NotImplementedError(f'{type(self).__name__} must implement forward_expected()')

    def generate_grad_grad_inputs(self, inputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        """Returns the gradients of the input gradients for the double-backward check.

        Default: uniform in [-1, 1] for floating inputs, None for the others.

        Args:
            inputs_template: The inputs (NumPy arrays) to match.
        """
        return tuple(None if t.dtype.kind != 'f' else
                     numpy.random.uniform(-1, 1, t.shape).astype(t.dtype)  # noqa: NPY002
                     for t in inputs_template)

    # ------------------------------------------------------------- the tests

    def test_forward(self, backend_config: BackendConfig) -> None:
        """Checks the outputs against forward_expected on the device."""
        self._run(backend_config, 'test_forward', 'skip_forward_test', self._test_forward)

    def test_backward(self, backend_config: BackendConfig) -> None:
        """Checks the gradients with check_backward on the device."""
        self._run(backend_config, 'test_backward', 'skip_backward_test', self._test_backward)

    def test_double_backward(self, backend_config: BackendConfig) -> None:
        """Checks the second-order gradients with check_double_backward on the device."""
        self._run(backend_config, 'test_double_backward', 'skip_double_backward_test',
                  self._test_double_backward)

    # ------------------------------------------------------------ internals

    def _apply(self, inputs: tuple[Variable, ...], device: Any) -> tuple[Variable, ...]:
        outputs = self.forward(inputs, device)
        what = f'{type(self).__name__}.forward()'
        if not isinstance(outputs, tuple):
            raise TypeError(f'{what} must return a tuple of Variables; got '
                            f'{type(outputs).__name__} (a one-element tuple is spelled "y,")')
        for index, y in enumerate(outputs):
            if not isinstance(y, Variable):
                raise TypeError(f'{what} must return a tuple of Variables; output {index} is '
                                f'a {type(y).__name__}')
        return outputs

    def _expected(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        return _numpy_tuple(self.forward_expected(_copy(inputs)),
                            f'{type(self).__name__}.forward_expected()')

    def _test_forward(self, backend_config: BackendConfig) -> None:
        inputs = self._inputs()
        expected = self._expected(inputs)
        device = backend_config.device
        on_device = self._send(inputs, backend_config)
        with backend_config:
            outputs = self._apply(tuple(Variable(x) for x in on_device), device)
        self._check_unmodified(on_device, inputs, 'forward', 'input')
        self._check_outputs(outputs, expected, backend_config,
                            self._options(inputs, 'forward', self.check_forward_options),
                            f'{type(self).__name__}.forward()', on_device)

    def _test_backward(self, backend_config: BackendConfig) -> None:
        device = backend_config.device

        def attempt(detect: bool) -> None:
            inputs = self._inputs()
            grads = _numpy_tuple(self.generate_grad_outputs(self._expected(inputs)),
                                 f'{type(self).__name__}.generate_grad_outputs()', True)
            xs = self._send(inputs, backend_config)
            gys = self._send(grads, backend_config)
            options = self._options(inputs, 'backward', self.check_backward_options)
            options.setdefault('dtype', self.numerical_grad_dtype)
            options.setdefault('detect_nondifferentiable', detect)
            try:
                with backend_config:
                    gradient_check.check_backward(lambda *x: self._apply(x, device), xs, gys,
                                                  **options)
            finally:
                # A function that writes into its inputs also spoils the gradient
                # check: name the cause rather than the symptom.
                self._check_unmodified(xs, inputs, 'forward or backward', 'input')
                self._check_unmodified(gys, grads, 'backward', 'output gradient')

        self._dodging(attempt)

    def _test_double_backward(self, backend_config: BackendConfig) -> None:
        device = backend_config.device

        def attempt(detect: bool) -> None:
            inputs = self._inputs()
            grads = _numpy_tuple(self.generate_grad_outputs(self._expected(inputs)),
                                 f'{type(self).__name__}.generate_grad_outputs()', True)
            grad_grads = _numpy_tuple(self.generate_grad_grad_inputs(_copy(inputs)),
                                      f'{type(self).__name__}.generate_grad_grad_inputs()',
                                      True)
            xs = self._send(inputs, backend_config)
            gys = self._send(grads, backend_config)
            ggxs = self._send(grad_grads, backend_config)
            options = self._options(inputs, 'double_backward',
                                    self.check_double_backward_options)
            options.setdefault('dtype', self.numerical_grad_dtype)
            options.setdefault('detect_nondifferentiable', detect)
            try:
                with backend_config:
                    gradient_check.check_double_backward(lambda *x: self._apply(x, device), xs,
                                                         gys, ggxs, **options)
            finally:
                self._check_unmodified(xs, inputs, 'forward or backward', 'input')
                self._check_unmodified(gys, grads, 'backward', 'output gradient')
                self._check_unmodified(ggxs, grad_grads, 'double backward', 'input grad-grad')

        self._dodging(attempt)


class _LinkTestBase(_DeviceTestCase):
    """What LinkTestCase and LinkInitializersTestCase share: building the link."""

    _catena_base = True
    _error = LinkTestError
    param_names: Any = None

    def generate_params(self) -> tuple[Any, ...]:
        """Returns the initializers (arrays, scalars or Initializers) for create_link."""
        return ()

    def create_link(self, initializers: tuple[Any, ...]) -> Any:
        """Returns a new link on the CPU, built from ``initializers`` (must be implemented)."""
        raise NotImplementedError(f'{type(self).__name__} must implement create_link()')

    def _link(self, initializers: tuple[Any, ...] | None = None) -> Any:
        if initializers is None:
            initializers = self.generate_params()
            if not isinstance(initializers, (tuple, list)):
                raise TypeError(f'{type(self).__name__}.generate_params() must return a tuple '
                                f'or a list; got {type(initializers).__name__}')
            initializers = tuple(initializers)
            for index, value in enumerate(initializers):
                _check_initializer_type(value, f'{type(self).__name__}.generate_params()'
                                               f'[{index}]')
        dtype = next((array.dtype for array in initializers
                      if getattr(array, 'dtype', None) is not None and array.dtype.kind == 'f'),
                     self.dtype)
        # As in Chainer, an array given as an initializer fills a parameter of
        # the default dtype, so the parameters take the arrays' dtype from it.
        if dtype is None:
            link = self.create_link(initializers)
        else:
            with configuration.using_config('dtype', numpy.dtype(dtype)):
                link = self.create_link(initializers)
        for attribute in ('namedparams', 'params', 'to_device'):
            if not callable(getattr(link, attribute, None)):
                raise TypeError(f'{type(self).__name__}.create_link() must return a link with '
                                f'{attribute}(); got {type(link).__name__}')
        if any(param.array is None for _, param in link.namedparams()):
            self._initialize_lazily(link)
        for name, param in link.namedparams():
            if param.array is None:
                raise ValueError(f'parameter {name!r} of the link is not initialized; '
                                 'create_link must give every parameter its shape')
        return link

    def _initialize_lazily(self, link: Any) -> None:
        # As in Chainer, parameters whose shape comes from the first input
        # are initialized by one forward pass on the CPU (with forward() if
        # the test defines one, else link(*inputs)).
        inputs = tuple(Variable(x) for x in self._inputs())
        forward = getattr(self, 'forward', None)
        if forward is None:
            link(*inputs)
        else:
            forward(link, inputs, backend.CpuDevice())
        link.cleargrads()

    def _selected_params(self, link: Any) -> list[Any]:
        named = [(name.lstrip('/'), param) for name, param in link.namedparams()]
        if self.param_names is None:
            return [param for _, param in named]
        wanted = [name.lstrip('/') for name in self.param_names]
        table = dict(named)
        missing = [name for name in wanted if name not in table]
        if missing:
            raise ValueError(f'param_names names {missing}, but the link has the parameters '
                             f'{sorted(table)}')
        return [table[name] for name in wanted]


class LinkTestCase(_LinkTestBase):
    """A declarative test of a link's forward and backward on every device.

    Links are checked through a small duck-typed protocol, so that this class
    does not depend on :class:`catena.Link`: the object that
    :meth:`create_link` returns must have ``namedparams()`` (yielding
    ``(name, Parameter)`` pairs, names like ``'/W'``), ``params()`` and
    ``to_device(device)``, and its parameters must be initialized.

    Implement :meth:`create_link`, :meth:`generate_inputs` and
    :meth:`forward_expected` (with NumPy, from the link's CPU parameter
    arrays); optionally :meth:`generate_params`, :meth:`forward` and
    :meth:`generate_grad_outputs`. The class gets ``test_forward__<device>``
    and ``test_backward__<device>``. The backward check covers the inputs
    and the parameters named in ``param_names`` (None: every parameter).

    Attributes:
        param_names: Names of the parameters whose gradients are checked
            (``'W'`` or ``'/W'``), or None for all of them.
    """

    _catena_base = True

    def forward(self, link: Any, inputs: tuple[Variable, ...], device: Any
                ) -> tuple[Variable, ...]:
        """Applies the link (default: ``link(*inputs)``, made a tuple)."""
        outputs = link(*inputs)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def forward_expected(self, link: Any, inputs: tuple[numpy.ndarray, ...]
                         ) -> tuple[numpy.ndarray, ...]:
        """Returns the expected outputs with NumPy; ``link`` is still on the CPU."""
        raise NotImplementedError(f'{type(self).__name__} must implement forward_expected()')

    def test_forward(self, backend_config: BackendConfig) -> None:
        """Checks the outputs against forward_expected on the device."""
        self._run(backend_config, 'test_forward', 'skip_forward_test', self._test_forward)

    def test_backward(self, backend_config: BackendConfig) -> None:
        """Checks the gradients of the inputs and parameters with check_backward."""
        self._run(backend_config, 'test_backward', 'skip_backward_test', self._test_backward)

    # ------------------------------------------------------------ internals

    def _apply(self, link: Any, inputs: tuple[Variable, ...], device: Any
               ) -> tuple[Variable, ...]:
        outputs = self.forward(link, inputs, device)
        what = f'{type(self).__name__}.forward()'
        if not isinstance(outputs, tuple) or not all(isinstance(y, Variable) for y in outputs):
            raise TypeError(f'{what} must return a tuple of Variables; got {outputs!r}')
        return outputs

    def _test_forward(self, backend_config: BackendConfig) -> None:
        link = self._link()
        inputs = self._inputs()
        expected = _numpy_tuple(self.forward_expected(link, _copy(inputs)),
                                f'{type(self).__name__}.forward_expected()')
        names = [name for name, _ in link.namedparams()]
        before = tuple(_host(param.array).copy() for _, param in link.namedparams())
        device = backend_config.device
        link.to_device(device)
        on_device = self._send(inputs, backend_config)
        with backend_config:
            outputs = self._apply(link, tuple(Variable(x) for x in on_device), device)
        self._check_unmodified(on_device, inputs, 'forward', 'input')
        self._check_unmodified(tuple(param.array for _, param in link.namedparams()), before,
                               'forward', f'parameter (of {names})')
        self._check_outputs(outputs, expected, backend_config,
                            self._options(inputs, 'forward', self.check_forward_options),
                            f'{type(self).__name__}.forward()', on_device)

    def _test_backward(self, backend_config: BackendConfig) -> None:
        device = backend_config.device

        def attempt(detect: bool) -> None:
            link = self._link()
            link.to_device(device)
            inputs = self._inputs()
            xs = self._send(inputs, backend_config)
            with backend_config:
                template = tuple(_host(y.array) for y in
                                 self._apply(link, tuple(Variable(x) for x in xs), device))
            grads = _numpy_tuple(self.generate_grad_outputs(template),
                                 f'{type(self).__name__}.generate_grad_outputs()', True)
            gys = self._send(grads, backend_config)
            options = self._options(inputs, 'backward', self.check_backward_options)
            options.setdefault('dtype', self.numerical_grad_dtype)
            options.setdefault('detect_nondifferentiable', detect)
            try:
                with backend_config:
                    gradient_check.check_backward(lambda *x: self._apply(link, x, device), xs,
                                                  gys, params=self._selected_params(link),
                                                  **options)
            finally:
                self._check_unmodified(xs, inputs, 'forward or backward', 'input')

        self._dodging(attempt)


class InitializerArgument:
    """A link argument and the initializer it stands for (:class:`LinkInitializersTestCase`).

    Use it when the value passed to the link is not an initializer of its
    own, such as None meaning "the link's default".

    Args:
        argument_value: What is passed to :meth:`~LinkInitializersTestCase.create_link`.
        expected_initializer: The initializer (array, scalar or
            :class:`~catena.initializer.Initializer`) the parameter should
            then have been filled with.
    """

    def __init__(self, argument_value: Any, expected_initializer: Any) -> None:
        if expected_initializer is None:
            raise ValueError('expected_initializer of InitializerArgument must not be None')
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer

    def __repr__(self) -> str:
        return (f'InitializerArgument({self.argument_value!r}, '
                f'{self.expected_initializer!r})')


def _expected_parameter(initializer: Any, shape: tuple[int, ...], dtype: Any) -> numpy.ndarray:
    """The array a parameter of ``shape`` and ``dtype`` should hold after ``initializer``."""
    if initializer is None:
        raise ValueError('cannot tell what None initializes a parameter to; give '
                         'InitializerArgument(None, expected_initializer)')
    if isinstance(initializer, (int, float, numpy.number, numpy.bool_)):
        return numpy.full(shape, initializer, dtype=dtype)
    if hasattr(initializer, 'shape') and hasattr(initializer, 'dtype'):
        return numpy.broadcast_to(_host(initializer), shape).astype(dtype)
    if callable(initializer):
        array = numpy.empty(shape, dtype=dtype)
        initializer(array)
        return array
    raise TypeError(f'an initializer must be an array, a scalar or a callable initializer; '
                    f'got {type(initializer).__name__}')


class LinkInitializersTestCase(_LinkTestBase):
    """A declarative test that a link fills its parameters as its initializers say.

    Implement :meth:`create_link`, :meth:`generate_params` (one value per
    name in ``param_names``) and :meth:`get_initializers`. The class gets
    ``test_initializers__<device>``: for each parameter and each of its
    initializers, the link is built with that initializer (the other
    parameters take :meth:`generate_params`' values), sent to the device,
    and the parameter is compared with what the initializer gives on the
    CPU. Initializers should be deterministic (constants, arrays); use
    :class:`InitializerArgument` for arguments such as None whose effect
    is another initializer. A mismatch raises :class:`LinkTestError`;
    Variables or Parameters given as initializers raise :exc:`TypeError`.

    Attributes:
        param_names: The names of the initialized parameters, in the order
            of :meth:`generate_params` (required).
        check_initializers_options: Options of
            :func:`~catena.testing.assert_allclose`.
    """

    _catena_base = True
    check_initializers_options: dict[str, Any] = {}
    _option_names = ('check_forward_options', 'check_backward_options',
                     'check_initializers_options')

    def get_initializers(self) -> tuple[Any, ...]:
        """Returns, for each name in ``param_names``, an iterable of initializers to try."""
        raise NotImplementedError(f'{type(self).__name__} must implement get_initializers()')

    def test_initializers(self, backend_config: BackendConfig) -> None:
        """Checks every initializer of every parameter on the device."""
        self._run(backend_config, 'test_initializers', '', self._test_initializers)

    def _test_initializers(self, backend_config: BackendConfig) -> None:
        if self.param_names is None:
            raise ValueError(f'{type(self).__name__} must set param_names')
        names = list(self.param_names)
        per_param = [list(initializers) for initializers in self.get_initializers()]
        if len(per_param) != len(names):
            raise ValueError(f'get_initializers() gave {len(per_param)} lists of initializers '
                             f'for the {len(names)} parameters {names}')
        for index, initializers in enumerate(per_param):
            for initializer in initializers:
                _check_initializer_type(initializer, f'get_initializers()[{index}] entry')
                self._check_one(backend_config, index, initializer)

    def _check_one(self, backend_config: BackendConfig, index: int, initializer: Any) -> None:
        if isinstance(initializer, InitializerArgument):
            argument, expected_initializer = (initializer.argument_value,
                                              initializer.expected_initializer)
        else:
            argument = expected_initializer = initializer
        values = list(self.generate_params())
        for position, value in enumerate(values):
            _check_initializer_type(value, f'generate_params()[{position}]')
        values[index] = argument
        link = self._link(tuple(values))
        link.to_device(backend_config.device)
        parameter = self._selected_params(link)[index]
        actual = _host(parameter.array)
        expected = _expected_parameter(expected_initializer, actual.shape, actual.dtype)
        try:
            assert_allclose(actual, expected, **self.check_initializers_options)
        except AssertionError as error:
            raise AssertionError(f'parameter {self.param_names[index]!r} initialized with '
                                 f'{initializer!r} on {backend_config.name} differs from what '
                                 f'the initializer gives:\n{error}') from None


__all__ = ['FunctionTestCase', 'FunctionTestError', 'InitializerArgument',
           'LinkInitializersTestCase', 'LinkTestCase', 'LinkTestError']

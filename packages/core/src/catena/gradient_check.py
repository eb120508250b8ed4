"""Numerical gradient checks (``catena.gradient_check``).

:func:`check_backward` compares the gradients that a function's backward
computes with finite differences of its forward pass, and
:func:`check_double_backward` does the same for the gradients of gradients.
Both work on arrays of any device. They compare *directional* derivatives:
one random unit direction over all checked inputs (drawn from
:mod:`numpy.random`, so :func:`catena.testing.fix_random` makes it
reproducible) needs only two (five with ``detect_nondifferentiable``)
forward evaluations, whatever the input sizes. Only when the check fails are
the inputs examined one by one, so that the error names the culprit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from catena import backend, configuration
from catena.function_node import FunctionNode
from catena.testing.array import assert_allclose
from catena.utils import force_array
from catena.variable import Variable


class NondifferentiableError(Exception):
    """Raised when a function turns out not to be differentiable at the given point.

    :func:`numerical_grad` raises it with ``detect_nondifferentiable=True``
    when the finite differences around an input element do not lie on a
    smooth curve (a kink, a jump, or a value that is not finite).

    Attributes:
        detail: What was seen: the output element and its values around the
            point.
    """

    detail: str = ''


# --------------------------------------------------------------------------- helpers

def _host(array: Any) -> numpy.ndarray:
    """Returns a NumPy copy (or view) of an array of any device."""
    if isinstance(array, Variable):
        array = array.array
    if type(array) is numpy.ndarray:
        return array
    if isinstance(array, (numpy.generic, int, float)):
        return numpy.asarray(array)
    return numpy.asarray(backend.get_device_from_array(array).to_numpy(array))


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def _array_of(value: Any, what: str) -> Any:
    if isinstance(value, Variable):
        return value.array
    if not hasattr(value, 'dtype') or not hasattr(value, 'shape'):
        raise TypeError(f'{what} must be an array (numpy.ndarray, an array of another '
                        f'device) or a Variable; got {type(value).__name__}')
    return value


def _outputs_of(result: Any, func: Any) -> tuple[Variable, ...]:
    outputs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    for index, y in enumerate(outputs):
        if not isinstance(y, Variable):
            raise TypeError(
                f'func must return a Variable or a tuple of Variables; output {index} of '
                f'{_name(func)} is a {type(y).__name__}')
    return outputs


class _PassThrough(FunctionNode):
    """Identity; makes an output that is one of func's inputs a node's output."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return grad_outputs


def _through_node(ys: tuple[Variable, ...]) -> tuple[Variable, ...]:
    """Returns ``ys`` with the leaves and repeated outputs passed through an identity node.

    A function may return its input unchanged (a reshape to the same shape, a
    gradient that is ``gy`` itself); backprop does not set the gradient of a
    leaf it starts from, so such an output is given a creator first. An output
    returned twice gets a node of its own the second time, so that each
    occurrence contributes its own ``y_grad``.
    """
    seen: set[int] = set()
    ret = []
    for y in ys:
        if y.creator_node is None or id(y) in seen:
            ret.append(_PassThrough().apply((y,))[0])
        else:
            ret.append(y)
        seen.add(id(y))
    return tuple(ret)


def _name(func: Any) -> str:
    return getattr(func, '__qualname__', None) or repr(func)


def _float_dtype(dtype: Any) -> numpy.dtype | None:
    if dtype is None:
        return None
    dtype = numpy.dtype(dtype)
    if dtype.kind != 'f':
        raise ValueError(f'dtype must be a floating point type or None; got {dtype}')
    return dtype


def _format(array: numpy.ndarray) -> str:
    with numpy.printoptions(threshold=64, edgeitems=4, precision=6):
        return numpy.array2string(numpy.asarray(array), separator=', ', prefix='    ')


# ------------------------------------------------------------------- numerical_grad

def _evaluate(f: Callable[[], Any]) -> list[tuple[numpy.ndarray, numpy.dtype] | None]:
    # As in Chainer, type checks are off here: the inputs may have been cast
    # to a wider dtype than the parameters that ``f`` closes over.
    with configuration.using_config('type_check', False):
        result = f()
    outputs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    values: list[tuple[numpy.ndarray, numpy.dtype] | None] = []
    for y in outputs:
        if y is None:
            values.append(None)
            continue
        host = _host(y)
        values.append((host.astype(numpy.float64), host.dtype))
    return values


def _check_smooth(points: list[float], values: list[numpy.ndarray], dtype: numpy.dtype,
                  diff_atol: float, diff_rtol: float) -> numpy.ndarray | None:
    """Returns a mask of the output elements that are not smooth across ``points``.

    The slopes between consecutive points estimate the derivative at the
    midpoints; for a smooth function they lie on a line (up to the
    truncation and rounding errors that the tolerances absorb). A kink or a
    jump puts them off it.
    """
    stacked = numpy.stack(values)  # (5, *output shape)
    t = numpy.asarray(points, dtype=numpy.float64)
    steps = numpy.diff(t)
    with numpy.errstate(invalid='ignore', over='ignore'):
        finite = numpy.isfinite(stacked)
        center_finite = finite[2]
        # Finite at some points and not at others: a pole or a domain edge.
        not_finite = finite.any(axis=0) & ~finite.all(axis=0)
        shape = (len(steps),) + (1,) * (stacked.ndim - 1)
        slopes = numpy.diff(stacked, axis=0) / steps.reshape(shape)
        mids = (t[1:] + t[:-1]) / 2
        centered = mids - mids.mean()
        scale = (centered ** 2).sum()
        mean = slopes.mean(axis=0)
        slope2 = (slopes * centered.reshape(shape)).sum(axis=0) / scale
        residual = numpy.abs(slopes - mean - slope2 * centered.reshape(shape)).max(axis=0)
        # The function's own rounding error at its precision, amplified by the
        # division by the step: without it, flat outputs of large magnitude
        # would be reported as non-smooth.
        noise = 4 * numpy.finfo(dtype if dtype.kind == 'f' else numpy.float64).eps * \
            numpy.abs(stacked).max(axis=0) / numpy.min(steps)
        allowed = diff_atol + diff_rtol * numpy.abs(slopes).max(axis=0) + noise
        rough = center_finite & finite.all(axis=0) & (residual > allowed)
    bad = not_finite | rough
    return bad if bad.any() else None


class _InvalidEps(ValueError, AssertionError):
    """A non-positive ``eps`` (an AssertionError too, as Chainer asserts it)."""


def numerical_grad(f: Callable[[], Any], inputs: Sequence[Any], grad_outputs: Sequence[Any],
                   eps: float = 1e-3, detect_nondifferentiable: bool = False,
                   diff_atol: float = 0, diff_rtol: float = 1e-2,
                   center_outputs: Sequence[Any] | None = None) -> tuple[Any, ...]:
    """Computes the gradient of ``sum(f() * grad_outputs)`` by central differences.

    Each element of each input array is moved by ``+eps`` and ``-eps`` in
    place, ``f`` is evaluated, and the element is restored. The step actually
    taken (after rounding to the input's dtype) is used in the quotient.

    Args:
        f: A callable without arguments that returns a tuple of arrays (or
            Variables) computed from ``inputs``.
        inputs: Floating point arrays (of any one device) that ``f`` reads;
            they are perturbed in place and restored.
        grad_outputs: One array (or None to ignore that output) per output of
            ``f``: the weights of the sum.
        eps: The finite-difference step.
        detect_nondifferentiable: Also evaluate at ``±eps/2`` and raise
            :class:`NondifferentiableError` when the four slopes between the
            five points do not lie on a line within ``diff_atol + diff_rtol *
            max |slope|`` (plus the rounding noise of the outputs' dtype), or
            when an output stops being finite near the point.
        diff_atol: Absolute tolerance of that line fit.
        diff_rtol: Relative tolerance of that line fit.
        center_outputs: The outputs of ``f`` at the unperturbed inputs, if
            known (saves one evaluation with ``detect_nondifferentiable``).

    Returns:
        tuple: One gradient array per input, of its shape, dtype and device.

    Raises:
        NondifferentiableError: With ``detect_nondifferentiable``, see above.

    .. admonition:: Example

        >>> x = np.random.randn(4, 3)
        >>> gy = np.ones((4, 3))
        >>> gx, = gradient_check.numerical_grad(lambda: (x * x,), (x,), (gy,))
        >>> np.allclose(gx, 2 * x)
        True
    """
    if not eps > 0:
        raise _InvalidEps(f'eps must be positive; got {eps}')
    inputs = tuple(_array_of(x, f'inputs[{i}]') for i, x in enumerate(inputs))
    for index, x in enumerate(inputs):
        if x.dtype.kind != 'f':
            raise TypeError(f'numerical_grad differentiates floating point inputs only; '
                            f'inputs[{index}] has dtype {x.dtype}')
    weights = [None if gy is None else _host(gy).astype(numpy.float64) for gy in grad_outputs]
    # Detection samples two more points, half-way to +-eps, so that it looks
    # at the same interval [x - eps, x + eps] as the difference quotient.
    offsets: tuple[float, ...] = (-1, -0.5, 0.5, 1) if detect_nondifferentiable else (-1, 1)
    center = None
    if detect_nondifferentiable:
        if center_outputs is not None:
            center = [None if y is None else (_host(y).astype(numpy.float64), _host(y).dtype)
                      for y in center_outputs]
        else:
            center = _evaluate(f)

    grads = []
    for input_index, x in enumerate(inputs):
        grad = numpy.zeros(x.shape, dtype=numpy.float64)
        for element in numpy.ndindex(*x.shape):
            original = x[element].copy()
            base = float(original)
            positions: dict[float, float] = {}
            values: dict[float, list[Any]] = {}
            try:
                for k in offsets:
                    x[element] = base + k * eps
                    positions[k] = float(x[element]) - base
                    values[k] = _evaluate(f)
            finally:
                x[element] = original
            step = positions[1] - positions[-1]
            if step == 0:
                raise ValueError(
                    f'eps={eps} is too small for inputs[{input_index}] ({x.dtype}): the '
                    f'perturbed element {element} rounds back to {base}. Use a larger eps '
                    'or check in a wider dtype.')
            total = 0.0
            for out_index, gy in enumerate(weights):
                if gy is None:
                    continue
                plus, minus = values[1][out_index], values[-1][out_index]
                if plus is None or minus is None:
                    continue
                if plus[0].shape != gy.shape and gy.ndim != 0:
                    raise ValueError(
                        f'grad_outputs[{out_index}] has shape {gy.shape}, but output '
                        f'{out_index} of f has shape {plus[0].shape}')
                total += float(((plus[0] - minus[0]) * gy).sum())
            grad[element] = total / step
            if center is not None:
                _detect(input_index, element, positions, values, center, weights,
                        diff_atol, diff_rtol)
        device = backend.get_device_from_array(x)
        grads.append(device.send_array(grad.astype(x.dtype)))
    return tuple(grads)


def _detect(input_index: int, element: tuple[int, ...], positions: dict[float, float],
            values: dict[float, list[Any]], center: list[Any], weights: list[Any],
            diff_atol: float, diff_rtol: float) -> None:
    points = [positions[-1], positions[-0.5], 0.0, positions[0.5], positions[1]]
    for out_index, gy in enumerate(weights):
        if gy is None or center[out_index] is None:
            continue
        series = [values[-1][out_index], values[-0.5][out_index], center[out_index],
                  values[0.5][out_index], values[1][out_index]]
        if any(v is None for v in series):
            continue
        arrays = [v[0] for v in series]
        bad = _check_smooth(points, arrays, center[out_index][1], diff_atol, diff_rtol)
        if bad is None:
            continue
        where = tuple(int(i) for i in numpy.argwhere(bad)[0])
        seen = [float(a[where]) for a in arrays]
        detail = (f'element {list(where)} of output {out_index} takes the values {seen} at '
                  f'offsets {points}, which do not lie on a smooth curve '
                  f'(diff_atol={diff_atol}, diff_rtol={diff_rtol})')
        at = f'inputs[{input_index}]' + (f'[{", ".join(map(str, element))}]' if element else '')
        error = NondifferentiableError(
            f'the function is not differentiable at {at}: {detail}. Move the input away from '
            'the non-differentiable point, or use a smaller eps.')
        error.detail = detail
        raise error


# ------------------------------------------------------------------- check_backward

class _Item:
    """One checked array: an input of ``func`` or a parameter it uses."""

    def __init__(self, label: str, array: Any, input_index: int | None,
                 param: Variable | None) -> None:
        self.label = label
        self.array = array
        self.input_index = input_index
        self.param = param
        self.direction: Any = None  # on the array's device, float64
        self.host_direction: Any = None  # the same on the host


class _BackwardCheck:
    def __init__(self, func: Callable[..., Any], x_data: Any, y_grad: Any, params: Any,
                 eps: float, atol: float, rtol: float, no_grads: Any, dtype: Any,
                 detect_nondifferentiable: bool) -> None:
        self.func = func
        self.xs = tuple(_array_of(x, f'x_data[{i}]') for i, x in enumerate(_as_tuple(x_data)))
        self.y_grad = None if y_grad is None else tuple(
            None if gy is None else _array_of(gy, f'y_grad[{i}]')
            for i, gy in enumerate(_as_tuple(y_grad)))
        self.params = _as_tuple(params)
        for index, p in enumerate(self.params):
            if not isinstance(p, Variable):
                raise TypeError(f'params[{index}] must be a Variable or Parameter; '
                                f'got {type(p).__name__}')
        if no_grads is None:
            no_grads = [x.dtype.kind != 'f' for x in self.xs]
        elif len(no_grads) != len(self.xs):
            raise ValueError(f'no_grads has {len(no_grads)} entries but there are '
                             f'{len(self.xs)} inputs')
        self.no_grads = [bool(flag) for flag in no_grads]
        self.eps = eps
        self.atol = atol
        self.rtol = rtol
        self.dtype = _float_dtype(dtype)
        self.detect = detect_nondifferentiable

    # ------------------------------------------------------------------ analytic

    def _analytic(self) -> tuple[list[Any], tuple[Variable, ...]]:
        # Every input requires grad, so that a gradient computed for an input
        # marked in no_grads is noticed (the function would be wrong about it).
        x_vars = [Variable(x) for x in self.xs]
        ys = _through_node(_outputs_of(self.func(*x_vars), self.func))
        # Cleared after the forward pass, as in Chainer: it may have
        # initialized a parameter (with a NaN gradient) or run a backward.
        for p in self.params:
            p.grad_var = None
        gys = self._grad_outputs(ys)
        roots = [(y, gy) for y, gy in zip(ys, gys) if gy is not None]
        if roots:
            from catena import _backprop

            _backprop.backward([y for y, _ in roots],
                               [Variable(gy, requires_grad=False) for _, gy in roots])
        for index, (x, no_grad) in enumerate(zip(x_vars, self.no_grads)):
            if no_grad and x.grad is not None:
                raise RuntimeError(
                    f'backward computed a gradient of input {index} (x_data[{index}]), which '
                    'no_grads marks as having none; set its no_grads entry to False')
        grads = [x.grad for x, no_grad in zip(x_vars, self.no_grads) if not no_grad]
        grads += [p.grad for p in self.params]
        return grads, ys

    def _grad_outputs(self, ys: tuple[Variable, ...]) -> tuple[Any, ...]:
        if self.y_grad is None:
            for index, y in enumerate(ys):
                if y.array is not None and y.size != 1:
                    raise ValueError(
                        f'y_grad is None, so every output of func must have one element; '
                        f'output {index} has shape {y.shape}. Pass y_grad.')
            self.y_grad = tuple(y.xp.ones_like(y.array) for y in ys)
            return self.y_grad
        if len(self.y_grad) != len(ys):
            raise ValueError(f'y_grad has {len(self.y_grad)} entries but func returned '
                             f'{len(ys)} outputs')
        for index, (y, gy) in enumerate(zip(ys, self.y_grad)):
            if gy is not None and (gy.shape != y.shape or gy.dtype != y.dtype):
                raise ValueError(
                    f'y_grad[{index}] has shape {gy.shape} and dtype {gy.dtype}, but output '
                    f'{index} of func has shape {y.shape} and dtype {y.dtype}')
        return self.y_grad

    # ----------------------------------------------------------------- numerical

    def _items(self) -> list[_Item]:
        items = []
        for index, (x, no_grad) in enumerate(zip(self.xs, self.no_grads)):
            if not no_grad:
                items.append(_Item(f'input {index} (x_data[{index}])', x, index, None))
        for index, p in enumerate(self.params):
            name = f' {p.name!r}' if p.name else ''
            items.append(_Item(f'param {index}{name} (params[{index}])', p.array, None, p))
        return items

    def _cast(self, array: Any) -> Any:
        if self.dtype is None or array.dtype.kind != 'f' or array.dtype == self.dtype:
            return array
        return array.astype(self.dtype)

    def _evaluate(self, x_arrays: list[Any], p_arrays: list[Any]) -> tuple[Any, ...]:
        """Runs ``func`` on the given input arrays with the params set to ``p_arrays``."""
        saved = [p.array for p in self.params]
        try:
            for p, array in zip(self.params, p_arrays):
                p.array = array
            x_vars = [Variable(x, requires_grad=not no_grad)
                      for x, no_grad in zip(x_arrays, self.no_grads)]
            ys = _outputs_of(self.func(*x_vars), self.func)
            return tuple(y.array for y in ys)
        finally:
            for p, array in zip(self.params, saved):
                p.array = array

    def _numeric(self, selected: list[_Item]) -> float:
        """The numerical derivative of sum(func * y_grad) along the selected directions."""
        delta = numpy.zeros((), dtype=numpy.float64)
        casted_x = [self._cast(x) for x in self.xs]
        casted_p = [self._cast(p.array) for p in self.params]
        x_items = {item.input_index: item for item in selected if item.param is None}
        p_items = {id(item.param): item for item in selected if item.param is not None}

        def moved(base: Any, item: _Item | None) -> Any:
            if item is None:
                return base
            shift = float(delta[()]) * item.direction
            # NumPy turns 0-d results into scalars; force_array keeps arrays.
            return force_array(base.astype(numpy.float64) + shift).astype(base.dtype)

        def evaluate() -> tuple[Any, ...]:
            return self._evaluate(
                [moved(x, x_items.get(i)) for i, x in enumerate(casted_x)],
                [moved(a, p_items.get(id(p))) for p, a in zip(self.params, casted_p)])

        grad, = numerical_grad(evaluate, (delta,), self.y_grad or (), eps=self.eps,
                               detect_nondifferentiable=self.detect)
        return float(grad)

    def _numeric_elementwise(self, item: _Item) -> numpy.ndarray:
        """The full numerical gradient of one item (only used to explain a failure)."""
        target = self._cast(item.array).copy()
        casted_x = [self._cast(x) for x in self.xs]
        casted_p = [self._cast(p.array) for p in self.params]
        if item.input_index is not None:
            casted_x[item.input_index] = target
        else:
            casted_p = [target if p is item.param else a
                        for p, a in zip(self.params, casted_p)]
        grad, = numerical_grad(lambda: self._evaluate(casted_x, casted_p), (target,),
                               self.y_grad or (), eps=self.eps)
        return _host(grad)

    # ----------------------------------------------------------------------- run

    def run(self) -> None:
        saved_grads = [p.grad_var for p in self.params]
        try:
            grads, _ = self._analytic()
            items = self._items()
            if not items:
                return
            self._sample_directions(items)
            if not any(item.host_direction.size for item in items):
                return
            contributions = [0.0 if g is None else
                             float((_host(g).astype(numpy.float64) * item.host_direction).sum())
                             for g, item in zip(grads, items)]
            analytic = sum(contributions)
            try:
                numeric = self._numeric(items)
            except NondifferentiableError as error:
                detail = getattr(error, 'detail', str(error))
                raise NondifferentiableError(
                    f'check_backward of {_name(self.func)}: func is not differentiable at '
                    f'the given inputs (seen along the random direction): {detail}. Move the '
                    'inputs away from the non-differentiable point.') from error
            if abs(analytic - numeric) <= self.atol + self.rtol * abs(numeric):
                return
            self._fail(items, grads, contributions, analytic, numeric)
        finally:
            for p, grad_var in zip(self.params, saved_grads):
                p.grad_var = grad_var

    @staticmethod
    def _sample_unit_vector(size: int, xp: Any) -> Any:
        """A random unit vector of ``size`` elements, none close to zero (Chainer API).

        Each element's magnitude before normalization is in [0.1, 1], so every
        element is at least ``0.1 / sqrt(size)`` in magnitude; signs are random.
        """
        magnitudes = numpy.random.uniform(0.1, 1, size)  # noqa: NPY002
        signs = numpy.where(numpy.random.uniform(size=size) < 0.5, -1.0, 1.0)  # noqa: NPY002
        vector = magnitudes * signs
        if size:
            vector /= numpy.sqrt(numpy.square(vector).sum())
        return xp.asarray(vector)

    def _sample_directions(self, items: list[_Item]) -> None:
        for item in items:
            # The global generator, so that testing.fix_random makes it reproducible.
            item.host_direction = numpy.random.normal(size=item.array.shape)  # noqa: NPY002
        norm = numpy.sqrt(sum(float((item.host_direction ** 2).sum()) for item in items))
        for item in items:
            if norm > 0:
                item.host_direction = item.host_direction / norm
            device = backend.get_device_from_array(item.array)
            item.direction = device.send_array(item.host_direction)

    def _fail(self, items: list[_Item], grads: list[Any], contributions: list[float],
              analytic: float, numeric: float) -> None:
        lines = [
            f'check_backward of {_name(self.func)} failed: the gradients that backward '
            'computes do not match the numerical gradients.',
            'Directional derivative of sum(func(x) * y_grad) along a random unit direction '
            '(drawn from numpy.random):',
            f'  backward:  {analytic!r}',
            f'  numerical: {numeric!r}',
            f'  |difference| = {abs(analytic - numeric):.6g} > atol + rtol * |numerical| = '
            f'{self.atol:g} + {self.rtol:g} * {abs(numeric):.6g}',
            'Per input (each checked alone along its part of the direction):',
        ]
        culprits = []
        for item, grad, contribution in zip(items, grads, contributions):
            alone = self._numeric([item])
            ok = abs(contribution - alone) <= self.atol + self.rtol * abs(alone)
            shape = tuple(item.array.shape)
            mark = '' if ok else '   <-- mismatch'
            missing = ' (backward returned no gradient)' if grad is None else ''
            lines.append(f'  {item.label}, shape {shape}, dtype {item.array.dtype}: backward '
                         f'{contribution!r}, numerical {alone!r}{missing}{mark}')
            if not ok:
                culprits.append((item, grad))
        if culprits:
            lines.insert(0, 'culprit: ' + ', '.join(item.label for item, _ in culprits))
        for item, grad in culprits:
            if item.array.size <= 64:
                lines.append(f'{item.label}: gradient from backward:')
                lines.append('    ' + ('None' if grad is None else _format(_host(grad))))
                lines.append(f'{item.label}: numerical gradient:')
                lines.append('    ' + _format(self._numeric_elementwise(item)))
        raise AssertionError('\n'.join(lines))


def check_backward(func: Callable[..., Any], x_data: Any, y_grad: Any, params: Any = (),
                   eps: float = 1e-3, atol: float = 1e-5, rtol: float = 1e-4,
                   no_grads: Sequence[bool] | None = None, dtype: Any = None,
                   detect_nondifferentiable: bool = False) -> None:
    """Checks the backward of ``func`` against numerical gradients.

    ``func`` is called on Variables wrapping ``x_data`` and its outputs are
    backpropagated with ``y_grad``. The gradients of the inputs (and of
    ``params``) are projected on one random unit direction and compared with
    the numerical derivative of ``sum(func(x + t * direction) * y_grad)`` at
    ``t = 0``. On failure the error names the inputs whose gradients are
    wrong and prints both values (and both gradient arrays when small).

    Args:
        func: Takes Variables (one per entry of ``x_data``) and returns a
            Variable or a tuple of Variables.
        x_data: An array or a tuple of arrays (any one device).
        y_grad: An array or a tuple of arrays (None entries for outputs that
            take no gradient), one per output; None when ``func`` returns
            outputs of one element (their gradient is then one).
        params: Variables or Parameters that ``func`` uses; their gradients
            are checked too (their ``grad`` is restored afterwards).
        eps: The step of the finite differences (along the unit direction).
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        no_grads: One flag per input: True skips that input's gradient. The
            default skips the inputs that are not of a floating point type.
        dtype: When given, ``x_data``, ``y_grad`` and ``params`` are cast to
            this floating point dtype for the numerical gradient, which is
            then computed in it (``numpy.float64`` makes it accurate).
        detect_nondifferentiable: Raise :class:`NondifferentiableError` when
            ``func`` is not differentiable near ``x_data`` along the direction.

    Raises:
        AssertionError: When the gradients do not match.
        NondifferentiableError: See ``detect_nondifferentiable``.

    .. admonition:: Example

        >>> x = np.random.uniform(-1, 1, (3, 2))
        >>> gy = np.random.uniform(-1, 1, (3, 2))
        >>> gradient_check.check_backward(F.tanh, x, gy, dtype=np.float64)
    """
    _BackwardCheck(func, x_data, y_grad, params, eps, atol, rtol, no_grads, dtype,
                   detect_nondifferentiable).run()


def check_double_backward(func: Callable[..., Any], x_data: Any, y_grad: Any,
                          x_grad_grad: Any, params: Any = (), params_grad_grad: Any = (),
                          eps: float = 1e-3, atol: float = 1e-4, rtol: float = 1e-3,
                          no_grads: Sequence[bool] | None = None, dtype: Any = None,
                          detect_nondifferentiable: bool = False) -> None:
    """Checks the second-order gradients of ``func`` against numerical ones.

    The first-order gradients of ``func`` (computed with double backprop
    enabled) are a function of ``x_data``, ``y_grad`` and ``params``;
    :func:`check_backward` is run on that function with ``x_grad_grad`` and
    ``params_grad_grad`` as its output gradients.

    Args:
        func: As in :func:`check_backward`.
        x_data: As in :func:`check_backward`.
        y_grad: An array or a tuple of arrays, one per output of ``func``.
        x_grad_grad: The gradients of the first-order gradients: one array per
            input (None or absent for inputs skipped by ``no_grads``).
        params: As in :func:`check_backward`.
        params_grad_grad: One array per parameter.
        eps: As in :func:`check_backward`.
        atol: As in :func:`check_backward`.
        rtol: As in :func:`check_backward`.
        no_grads: As in :func:`check_backward` (for ``x_data``).
        dtype: As in :func:`check_backward`.
        detect_nondifferentiable: As in :func:`check_backward`.

    Raises:
        AssertionError: When the gradients do not match.
    """
    from catena import _backprop

    xs = tuple(_array_of(x, f'x_data[{i}]') for i, x in enumerate(_as_tuple(x_data)))
    gys = tuple(None if gy is None else _array_of(gy, f'y_grad[{i}]')
                for i, gy in enumerate(_as_tuple(y_grad)))
    params = _as_tuple(params)
    ggxs = _as_tuple(x_grad_grad)
    ggps = _as_tuple(params_grad_grad)
    if no_grads is None:
        no_grads = [x.dtype.kind != 'f' for x in xs]
    elif len(no_grads) != len(xs):
        raise ValueError(f'no_grads has {len(no_grads)} entries but there are {len(xs)} inputs')
    n_targets = sum(1 for flag in no_grads if not flag)
    if len(ggxs) == len(xs) and len(xs) != n_targets:
        ggxs = tuple(g for g, flag in zip(ggxs, no_grads) if not flag)
    if len(ggxs) != n_targets:
        raise ValueError(f'x_grad_grad has {len(ggxs)} entries; expected one per input '
                         f'({len(xs)}) or one per input that takes a gradient ({n_targets})')
    if len(ggps) != len(params):
        raise ValueError(f'params_grad_grad has {len(ggps)} entries but there are '
                         f'{len(params)} params')
    given = [index for index, gy in enumerate(gys) if gy is not None]

    def first_order_grads(*inputs: Variable) -> tuple[Variable, ...]:
        x_vars = inputs[:len(xs)]
        gy_vars = list(inputs[len(xs):])
        ys = _outputs_of(func(*x_vars), func)
        if gys and len(gys) != len(ys):
            raise ValueError(f'y_grad has {len(gys)} entries but func returned {len(ys)} '
                             'outputs')
        outputs = [ys[index] for index in given] if gys else list(ys)
        targets = [x for x, flag in zip(x_vars, no_grads) if not flag] + list(params)
        grads = _backprop.grad(outputs, targets, gy_vars if gys else None,
                               enable_double_backprop=True)
        return tuple(Variable(t.xp.zeros_like(t.array), requires_grad=False) if g is None
                     else g for g, t in zip(grads, targets))

    check_backward(first_order_grads, xs + tuple(gys[i] for i in given), ggxs + ggps,
                   params=params, eps=eps, atol=atol, rtol=rtol,
                   no_grads=list(no_grads) + [False] * len(given), dtype=dtype,
                   detect_nondifferentiable=detect_nondifferentiable)


__all__ = ['NondifferentiableError', 'assert_allclose', 'check_backward',
           'check_double_backward', 'numerical_grad']


# Chainer's name of the class behind check_backward.
_CheckBackward = _BackwardCheck

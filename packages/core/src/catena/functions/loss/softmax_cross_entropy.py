"""``softmax_cross_entropy``: the cross entropy of a softmax and labels (or soft targets)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.activation import _along_axis
from catena.functions.activation.softmax import softmax
from catena.functions.array.broadcast import broadcast_to
from catena.functions.loss import _argcheck
from catena.functions.math.sum import sum as _sum
from catena.utils import force_array, type_check
from catena.variable import Variable

_SOFT_TARGET_LOSSES = ('cross-entropy', 'kl-divergence')


def _take(xp: Any, a: Any, t: Any, axis: int) -> Any:
    """``a`` at the labels ``t`` along ``axis``: an array of ``t``'s shape."""
    if axis == 1 and a.ndim == 2:
        return a[xp.arange(a.shape[0]), t]
    return xp.take_along_axis(a, xp.expand_dims(t, axis), axis).squeeze(axis)


def _subtract_at(xp: Any, a: Any, t: Any, axis: int, v: Any) -> None:
    """``a[label positions] -= v`` in place (each position holds one label)."""
    if axis == 1 and a.ndim == 2:
        a[xp.arange(a.shape[0]), t] -= v
        return
    index = xp.expand_dims(t, axis)
    at = xp.take_along_axis(a, index, axis)
    at -= v.reshape(index.shape) if v.ndim else v
    xp.put_along_axis(a, index, at, axis)


def _mean(a: Any, count: int) -> Any:
    """``a.sum() / count`` (1 for a zero count); float16 is summed in float32."""
    if a.dtype.itemsize < 4:
        return a.sum(dtype='f') * (1.0 / max(count, 1))
    return a.sum() * a.dtype.type(1.0 / max(count, 1))


class SoftmaxCrossEntropy(FunctionNode):
    """The softmax cross entropy of scores ``x`` and labels (or soft targets) ``t``."""

    def __init__(self, normalize: bool = True, cache_score: bool = True,
                 class_weight: Any = None, ignore_label: int = -1, reduce: str = 'mean',
                 soft_target_loss: str = 'cross-entropy', axis: int = 1) -> None:
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce
        self.soft_target_loss = soft_target_loss
        self.axis = axis
        self._cache: Any = None

    @property
    def y(self) -> Any:
        """The softmax of the scores kept for backward (``cache_score``), or None."""
        if self._cache is None:
            return None
        e, s = self._cache
        return e / s

    def check_type_forward(self, in_types: Any) -> None:
        if type_check.in_light_mode() and self._light_check(*in_types):
            return
        type_check._argname(in_types, ('x', 't'))
        x_type, t_type = in_types
        _argcheck.expect_float('x', x_type)
        _along_axis.expect_axis_in_range(x_type, self.axis)
        x_shape = _argcheck.shape_of(x_type)
        axis = self.axis % len(x_shape)
        t_kind = type_check.eval(t_type.dtype).kind
        if t_kind == 'f':
            if _argcheck.shape_of(t_type) != x_shape:
                raise type_check.InvalidType(
                    't.shape == x.shape (soft targets)',
                    f'x.shape={x_shape}, x.dtype={type_check.eval(x_type.dtype)}; '
                    f't.shape={_argcheck.shape_of(t_type)}, '
                    f't.dtype={type_check.eval(t_type.dtype)}')
        else:
            rule = 'x.shape without axis 1' if axis == 1 else f'x.shape without axis {axis}'
            _argcheck.expect_labels('x', x_type, 't', t_type,
                                    x_shape[:axis] + x_shape[axis + 1:], rule)
        if self.class_weight is not None:
            w_shape = tuple(self.class_weight.shape)
            if w_shape != (x_shape[axis],):
                raise type_check.InvalidType(
                    f'class_weight.shape == (x.shape[{axis}],)',
                    f'class_weight.shape={w_shape}, x.shape={x_shape}')

    def _light_check(self, x: Any, t: Any) -> bool:
        """Whether the inputs pass (a fast check; a failure is explained in full mode)."""
        ndim = x.ndim
        if x.dtype.kind != 'f' or not -ndim <= self.axis < ndim:
            return False
        axis = self.axis % ndim
        if t.dtype.kind == 'f':
            ok = t.shape == x.shape
        else:
            ok = t.dtype.kind == 'i' and t.shape == x.shape[:axis] + x.shape[axis + 1:]
        w = self.class_weight
        return ok and (w is None or w.shape == (x.shape[axis],))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t = inputs
        xp = backend.get_array_module(x)
        axis = self.axis % x.ndim
        self._axis = axis
        self.retain_inputs((0,))
        e, s, shift = _along_axis.exp_and_sum(xp, x, axis)
        if t.dtype.kind == 'f':
            loss = self._soft_target_forward(xp, x, t, e, s, shift)
        else:
            loss = self._label_forward(xp, x, t, s, shift)
        self._cache = (e, s) if self.cache_score else None
        return force_array(loss, x.dtype),

    def _weight(self, xp: Any, dtype: Any) -> Any:
        w = self.class_weight
        return None if w is None else xp.asarray(w, dtype=dtype)

    def _label_forward(self, xp: Any, x: Any, t: Any, s: Any, shift: Any) -> Any:
        axis = self._axis
        dtype = x.dtype
        n_class = x.shape[axis]
        ignore = self.ignore_label
        weight: Any = None  # the weight of every position; None: all one
        if t.size:
            low, high = int(t.min()), int(t.max())
            all_valid = 0 <= low and high < n_class and not low <= ignore <= high
        else:
            all_valid = True
        if all_valid:
            labels = t
            count = t.size
        else:
            valid = t != ignore
            labels = t * valid
            _argcheck.check_label_range('softmax_cross_entropy', labels, 0, n_class, x.shape,
                                        ignore)
            weight = valid.astype(dtype)
            count = int(valid.sum())
        class_weight = self._weight(xp, dtype)
        if class_weight is not None:
            weight = class_weight[labels] if weight is None else weight * class_weight[labels]
        # loss = log(s) - (x_t - shift): the shift cancels before it can cost precision
        lse = xp.log(s.squeeze(axis))
        x_t = _take(xp, x, labels, axis)
        if shift is not None:
            x_t -= shift.squeeze(axis)
        self._labels = labels
        self._target = None
        if self.reduce == 'mean':
            coeff = dtype.type(1.0 / max(count if self.normalize else x.shape[0], 1))
            lse -= x_t
            if weight is None:
                self._scale = coeff
                return _mean(lse, count if self.normalize else x.shape[0])
            lse *= weight
            self._scale = weight * coeff
            return _mean(lse, count if self.normalize else x.shape[0])
        lse -= x_t
        if weight is None:
            self._scale = dtype.type(1)
            return lse
        self._scale = weight
        lse *= weight
        return lse

    def _soft_target_forward(self, xp: Any, x: Any, t: Any, e: Any, s: Any, shift: Any) -> Any:
        axis = self._axis
        dtype = x.dtype
        t = t.astype(dtype, copy=False)
        if shift is None:
            log_y = xp.subtract(x, xp.log(s))
        else:
            log_y = x - shift
            log_y -= xp.log(s)
        class_weight = self._weight(xp, dtype)
        if class_weight is not None:
            shape = [1] * x.ndim
            shape[axis] = -1
            t_weighted = t * class_weight.reshape(shape)
        else:
            t_weighted = t
        log_y *= t_weighted
        loss = -log_y.sum(axis=axis)
        if self.soft_target_loss == 'kl-divergence':
            positive = t > 0
            loss += (t * xp.log(xp.where(positive, t, dtype.type(1)))).sum(axis=axis)
        mass = t_weighted.sum(axis=axis)
        self._labels = None
        if self.reduce == 'mean':
            coeff = dtype.type(1.0 / max(x.size // max(x.shape[axis], 1), 1))
            self._scale = mass * coeff
            self._target = t_weighted * coeff
            return _mean(loss, x.size // max(x.shape[axis], 1))
        self._scale = mass
        self._target = t_weighted
        return loss

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        grad = _SoftmaxCrossEntropyGrad(self._axis, self._scale, self._labels, self._target,
                                        self._cache, self.reduce == 'mean')
        return grad.apply((x, grad_outputs[0]))[0], None


class _SoftmaxCrossEntropyGrad(FunctionNode):
    """``gx = gloss * (scale * softmax(x) - T)`` with the (weighted, scaled) target ``T``.

    ``T`` is ``scale`` at the label positions (hard labels, never
    materialized in forward) or the ``target`` array (soft targets).
    """

    def __init__(self, axis: int, scale: Any, labels: Any, target: Any, cache: Any,
                 mean: bool) -> None:
        self.axis = axis
        self.scale = scale
        self.labels = labels
        self.target = target
        self.cache = cache
        self.mean = mean

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gloss = inputs
        xp = backend.get_array_module(x)
        axis = self.axis
        if self.cache is None:
            e, s, _ = _along_axis.exp_and_sum(xp, x, axis)
            fresh = True
        else:
            e, s = self.cache
            fresh = False
        factor = self.scale * gloss
        ratio = (factor.reshape(s.shape) if factor.ndim else factor) / s
        if fresh:
            e *= ratio
            gx = e
        else:
            gx = e * ratio
        if self.labels is not None:
            _subtract_at(xp, gx, self.labels, axis, factor)
        else:
            gx -= self.target * (gloss.reshape(s.shape) if gloss.ndim else gloss)
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gloss = self.get_retained_inputs()
        ggx, = grad_outputs
        axis = self.axis
        xp = backend.get_array_module(x.array)
        keep_shape = x.shape[:axis] + (1,) + x.shape[axis + 1:]
        scale = xp.asarray(self.scale, x.dtype)
        scale = scale.reshape(keep_shape) if scale.ndim else xp.broadcast_to(scale, keep_shape)
        if self.labels is None:
            target = self.target
        else:
            target = xp.zeros(x.shape, x.dtype)
            xp.put_along_axis(target, xp.expand_dims(self.labels, axis), scale, axis)
        y = softmax(x, axis)
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                factor = gloss.reshape(keep_shape) if gloss.ndim else gloss
                h = ggx * broadcast_to(factor * scale, x.shape)
                ret.append(y * (h - _sum(y * h, axis=axis, keepdims=True)))
            else:
                inner = _sum(ggx * (y * scale - target), axis=axis)
                ret.append(_sum(inner) if self.mean else inner)
        return tuple(ret)


def _check_class_weight(class_weight: Any) -> None:
    """Raises a ValueError unless ``class_weight`` is None or a 1-d floating point array."""
    if class_weight is None:
        return
    if isinstance(class_weight, Variable):
        raise ValueError('softmax_cross_entropy: class_weight must be an array, not a '
                         'Variable (no gradient flows to it)')
    if _arguments.array('softmax_cross_entropy', 'class_weight', class_weight).ndim != 1:
        raise ValueError('softmax_cross_entropy: class_weight must be 1-dimensional; got '
                         f'shape {tuple(class_weight.shape)}')
    if class_weight.dtype.kind != 'f':
        raise ValueError('softmax_cross_entropy: class_weight must be of a floating point '
                         f'dtype; got {class_weight.dtype}')


def softmax_cross_entropy(x: Any, t: Any, normalize: bool = True, cache_score: bool = True,
                          class_weight: Any = None, ignore_label: int = -1,
                          reduce: str = 'mean', enable_double_backprop: bool = False,
                          soft_target_loss: str = 'cross-entropy', *,
                          axis: int = 1) -> Variable:
    """The cross entropy between the softmax of ``x`` and labels (or soft targets) ``t``.

    With integer labels the loss of a position is
    :math:`-w_{t} \\log \\mathrm{softmax}(x)_{t}` (``w`` is ``class_weight``,
    one by default); positions labelled ``ignore_label`` contribute nothing.
    With floating point ``t`` of ``x``'s shape (soft targets) it is
    :math:`-\\sum_c w_c t_c \\log \\mathrm{softmax}(x)_c`, plus
    :math:`\\sum_c t_c \\log t_c` for ``soft_target_loss='kl-divergence'``.

    Args:
        x: Scores of floating point type, of shape ``(N, C, ...)`` with the
            classes along ``axis``.
        t: Integer labels of ``x``'s shape without the class axis, each in
            ``[0, C)`` or ``ignore_label``; or soft targets of ``x``'s shape.
        normalize: With ``reduce='mean'`` and labels, divide the summed loss
            by the number of labels that are not ``ignore_label`` (True) or by
            the batch size ``x.shape[0]`` (False). Soft-target losses are
            averaged over all positions.
        cache_score: Keep the exponentials of the scores from the forward
            pass for the backward pass (faster, more memory) instead of
            recomputing them.
        class_weight: A 1-d floating point array of ``C`` weights, one per
            class, or None.
        ignore_label: The label of the positions to ignore.
        reduce: ``'mean'`` for the (normalized) sum as a scalar, ``'no'`` for
            the loss of every position (of ``t``'s shape; zero where ignored).
        enable_double_backprop: Accepted for compatibility: the gradient is
            always differentiable in catena.
        soft_target_loss: ``'cross-entropy'`` or ``'kl-divergence'`` (soft
            targets only).
        axis: The class axis (a catena extension; Chainer uses axis 1).

    Returns:
        Variable: The loss, a scalar for ``reduce='mean'``.

    Raises:
        ValueError: If ``reduce`` or ``soft_target_loss`` is unknown, a
            label is out of range, or ``class_weight`` is a Variable, not 1-d
            or not of a floating point dtype.

    .. admonition:: Example

        >>> x = np.array([[-1.0, 0.0, 1.0], [2.0, 0.0, 0.0]], dtype=np.float32)
        >>> t = np.array([2, -1], dtype=np.int32)
        >>> round(float(F.softmax_cross_entropy(x, t).array), 4)
        0.4076
        >>> F.softmax_cross_entropy(x, t, reduce='no').array.round(4)
        array([0.4076, 0.    ], dtype=float32)
    """
    _argcheck.check_reduce('softmax_cross_entropy', reduce, _argcheck.REDUCE_MEAN_NO)
    if soft_target_loss not in _SOFT_TARGET_LOSSES:
        raise ValueError("softmax_cross_entropy: soft_target_loss must be 'cross-entropy' or "
                         f"'kl-divergence'; got {soft_target_loss!r}")
    axis = _along_axis.check_axis_argument(axis, 'softmax_cross_entropy')
    _check_class_weight(class_weight)
    node = SoftmaxCrossEntropy(normalize, cache_score, class_weight, ignore_label, reduce,
                               soft_target_loss, axis)
    return node.apply((x, t))[0]

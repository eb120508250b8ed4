"""``SpectralNormalization``: divides a link's weight by its largest singular value."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from catena import backend, configuration, variable
from catena.functions.math.sum import sum as _sum
from catena.link_hooks import _weight_hook


def _l2_normalize(xp: Any, x: Any, eps: float) -> Any:
    return x / (xp.sqrt(xp.sum(x * x)) + eps)


def _as_matrix(xp: Any, array: Any, axis: int) -> Any:
    """``array`` with ``axis`` moved first and the other axes flattened."""
    if axis != 0:
        array = xp.moveaxis(array, axis, 0)
    return array.reshape(array.shape[0], -1)


def _compute_dtype(dtype: Any) -> numpy.dtype:
    # Half precision is too coarse for the power iteration; it runs in float32.
    dtype = numpy.dtype(dtype)
    return numpy.dtype(numpy.float32) if dtype.itemsize < 4 else dtype


class SpectralNormalization(_weight_hook.WeightReplacingHook):
    """Normalizes a link's weight by its spectral norm (largest singular value).

    While the hooked link runs forward, its weight ``W`` is replaced by
    ``W / sigma``, where ``sigma = u^T W v`` estimates the largest singular
    value of ``W`` seen as a matrix (the output-channel axis against all the
    others). ``u`` and ``v`` are the left and right singular vectors found by
    the power iteration; they are constants of the graph, so the gradient
    reaches the original ``W`` through both ``W`` and ``sigma``.

    The hook registers on the link a persistent vector named
    ``<weight_name>_u`` (saved and loaded with the link) and, with
    ``use_gamma``, a scalar parameter ``gamma``, when it is added (or at the
    first call if the weight is initialized lazily). In train mode each
    forward runs ``n_power_iteration`` steps of the power iteration and stores
    the new ``u`` in place; in test mode (and while recomputing for
    :func:`catena.functions.forget`) ``u`` is used as it is. Either way ``v``
    is ``W^T u`` normalized, so a forward in test mode right after one in
    train mode gives the same output.

    The output-channel axis is 1 for
    :class:`~catena.links.Deconvolution2D` and
    :class:`~catena.links.DeconvolutionND`, 0 for other links (Linear,
    convolutions, EmbedID). The hook applies to one link at a time and cannot
    be used as a ``with`` block.

    Args:
        n_power_iteration: The number of power-iteration steps per forward in
            train mode (0 keeps ``u`` fixed).
        eps: Added to norms before dividing by them.
        use_gamma: If True, the normalized weight is scaled by a learned
            scalar ``gamma``, initialized to the largest singular value of
            the initial weight.
        factor: If given, the weight is divided by ``sigma / factor``, so
            that its spectral norm is ``factor`` instead of 1.
        weight_name: The attribute name of the weight to normalize.
        name: The name of the hook (default ``'SpectralNormalization'``).

    Attributes:
        vector_name (str): The name of the persistent vector ``u``.
        axis (int): The output-channel axis of the last link the hook was
            added to.
        v: The right singular vector used by the last forward (an array on
            the link's device), or None before the first forward.

    .. admonition:: Example

        >>> layer = L.Linear(3, 4).add_hook(
        ...     catena.link_hooks.SpectralNormalization())
        >>> layer.W_u.shape
        (4,)
        >>> layer(np.ones((2, 3), np.float32)).shape
        (2, 4)
    """

    name = 'SpectralNormalization'

    def __init__(self, n_power_iteration: int = 1, eps: float = 1e-6, use_gamma: bool = False,
                 factor: float | None = None, weight_name: str = 'W',
                 name: str | None = None) -> None:
        if isinstance(n_power_iteration, bool) or \
                not isinstance(n_power_iteration, numbers.Integral) or n_power_iteration < 0:
            raise ValueError('n_power_iteration must be a non-negative int; got '
                             f'{n_power_iteration!r}')
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or eps < 0:
            raise ValueError(f'eps must be a non-negative number; got {eps!r}')
        if factor is not None and (isinstance(factor, bool) or
                                   not isinstance(factor, numbers.Real) or factor <= 0):
            raise ValueError(f'factor must be None or a positive number; got {factor!r}')
        super().__init__(weight_name, name)
        self.n_power_iteration: int = int(n_power_iteration)
        self.eps: float = float(eps)
        self.use_gamma: bool = bool(use_gamma)
        self.factor: float | None = factor
        self.vector_name: str = weight_name + '_u'
        self.axis: int = 0
        self.v: Any = None

    def added(self, link: Any) -> None:
        if link is not None:
            self._weight(link)
            taken = [attr for attr in self._registered_names()
                     if attr in link.__dict__]
            if taken:
                raise ValueError(
                    f'{self.name}: {type(link).__name__} already has an attribute '
                    f'{taken[0]!r}, which the hook would register (is another '
                    f'{type(self).__name__} on {self.weight_name!r} added?)')
            self.axis = _weight_hook.output_axis(link)
        super().added(link)

    def deleted(self, link: Any) -> None:
        super().deleted(link)
        if link is None:
            return
        for attr in self._registered_names():
            if attr in link.__dict__:
                delattr(link, attr)

    def _registered_names(self) -> tuple[str, ...]:
        return (self.vector_name, 'gamma') if self.use_gamma else (self.vector_name,)

    def _ensure_prepared(self, link: Any) -> None:
        if self.vector_name in link.__dict__:
            return
        weight = self._weight(link)
        axis = _weight_hook.output_axis(link)
        if weight.size == 0:
            raise ValueError(f'{self.name}: the weight {self.weight_name!r} of '
                             f'{type(link).__name__} is empty (shape {weight.shape})')
        device = backend.get_device_from_array(weight.array)
        # The global generator, so that numpy.random.seed makes u reproducible.
        u = numpy.random.standard_normal(weight.shape[axis])  # noqa: NPY002
        u = _l2_normalize(numpy, u, self.eps).astype(weight.dtype)
        link.add_persistent(self.vector_name, device.send(u))
        if self.use_gamma:
            xp = device.xp
            matrix = _as_matrix(xp, weight.array, axis).astype(_compute_dtype(weight.dtype))
            largest = xp.linalg.svd(matrix, compute_uv=False)[0]
            with link.init_scope():
                link.gamma = variable.Parameter(xp.asarray(largest, dtype=weight.dtype))

    def _singular_vectors(self, link: Any, weight: Any) -> tuple[Any, Any]:
        """Returns ``(u, v)`` in the compute dtype; updates the stored ``u`` in train mode."""
        xp = backend.get_array_module(weight)
        axis = _weight_hook.output_axis(link)
        matrix = _as_matrix(xp, weight, axis).astype(_compute_dtype(weight.dtype), copy=False)
        stored = link.__dict__[self.vector_name]
        u = _l2_normalize(xp, stored.astype(matrix.dtype), self.eps)
        config = configuration.config
        if config.train and not config.in_recomputing and self.n_power_iteration:
            for _ in range(self.n_power_iteration):
                v = _l2_normalize(xp, u @ matrix, self.eps)
                u = _l2_normalize(xp, matrix @ v, self.eps)
            backend.copyto(stored, u.astype(stored.dtype))
            # u and v come from the stored u exactly as in test mode, so that
            # recomputing (or a test-mode forward) reproduces them bit for bit.
            u = _l2_normalize(xp, stored.astype(matrix.dtype), self.eps)
        v = _l2_normalize(xp, u @ matrix, self.eps)
        self.v = v
        return u, v

    def _replacement(self, link: Any, weight: variable.Parameter) -> variable.Variable:
        u, v = self._singular_vectors(link, weight.array)
        xp = backend.get_array_module(weight.array)
        axis = _weight_hook.output_axis(link)
        # sigma = u^T W v = sum(W * (u v^T laid out like W)).
        moved_shape = (weight.shape[axis],) + tuple(
            size for i, size in enumerate(weight.shape) if i != axis)
        outer = xp.outer(u, v).reshape(moved_shape)
        if axis != 0:
            outer = xp.moveaxis(outer, 0, axis)
        sigma = _sum(weight * outer.astype(weight.dtype, copy=False))
        if self.factor is not None:
            sigma = sigma / self.factor
        if self.use_gamma:
            return link.gamma * weight / sigma
        return weight / sigma

    def normalize_weight(self, link: Any) -> variable.Variable:
        """Returns the normalized weight of ``link`` (a Variable), as the forward uses it.

        In train mode this runs the power iteration and updates ``u``.
        """
        self._ensure_prepared(link)
        return self._replacement(link, self._weight(link))


__all__ = ['SpectralNormalization']

"""``kl_divergence``, ``cross_entropy`` and the ``register_kl`` registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.distributions.distribution import Distribution
from catena.variable import Variable

KLFunction = Callable[[Any, Any], Variable]

_KL_REGISTRY: dict[tuple[type, type], KLFunction] = {}


def register_kl(Dist1: type, Dist2: type) -> Callable[[KLFunction], KLFunction]:  # noqa: N803
    """A decorator that registers the KL divergence of ``Dist1`` from ``Dist2``.

    The decorated function takes an instance of ``Dist1`` and one of
    ``Dist2`` and returns their KL divergence, of the batch shape. It is
    returned unchanged, so it can be called directly too.

    Args:
        Dist1: A subclass of :class:`~catena.distributions.Distribution`.
        Dist2: A subclass of :class:`~catena.distributions.Distribution`.

    .. admonition:: Example

        >>> @register_kl(MyNormal, MyNormal)   # doctest: +SKIP
        ... def _kl_mynormal_mynormal(dist1, dist2):
        ...     return ...
    """
    for name, cls in (('Dist1', Dist1), ('Dist2', Dist2)):
        if not (isinstance(cls, type) and issubclass(cls, Distribution)):
            raise TypeError(f'register_kl: {name} must be a subclass of Distribution; '
                            f'got {cls!r}')

    def register(kl: KLFunction) -> KLFunction:
        _KL_REGISTRY[Dist1, Dist2] = kl
        return kl

    return register


def _find_kl(type1: type, type2: type) -> KLFunction | None:
    exact = _KL_REGISTRY.get((type1, type2))
    if exact is not None:
        return exact
    # The nearest registered pair of ancestors: the smallest total distance
    # along both method resolution orders, the first type's nearer first.
    best: tuple[int, int] | None = None
    found = None
    for i, base1 in enumerate(type1.__mro__):
        for j, base2 in enumerate(type2.__mro__):
            kl = _KL_REGISTRY.get((base1, base2))
            if kl is not None and (best is None or (i + j, i) < best):
                best, found = (i + j, i), kl
    return found


def kl_divergence(dist1: Distribution, dist2: Distribution) -> Variable:
    """The Kullback-Leibler divergence :math:`D_{KL}(p \\| q)` of ``dist1`` from ``dist2``.

    :math:`D_{KL}(p \\| q) = \\mathbb{E}_{x \\sim p}[\\log p(x) - \\log q(x)]`,
    computed by the function registered with :func:`register_kl` for the
    pair of types, or else for the nearest pair of their base classes.

    Args:
        dist1: The distribution :math:`p`.
        dist2: The distribution :math:`q`.

    Returns:
        Variable: The divergence, of the batch shape of the distributions.

    Raises:
        NotImplementedError: No function is registered for the pair.
    """
    kl = _find_kl(type(dist1), type(dist2))
    if kl is None:
        raise NotImplementedError(
            f'no KL divergence is registered for {type(dist1).__name__} and '
            f'{type(dist2).__name__}; register one with '
            f'@register_kl({type(dist1).__name__}, {type(dist2).__name__})')
    return kl(dist1, dist2)


def cross_entropy(dist1: Distribution, dist2: Distribution) -> Variable:
    """The cross entropy :math:`H(p, q) = H(p) + D_{KL}(p \\| q)`.

    Args:
        dist1: The distribution :math:`p`.
        dist2: The distribution :math:`q`.

    Returns:
        Variable: The cross entropy, of the batch shape of the distributions.
    """
    return dist1.entropy + kl_divergence(dist1, dist2)

"""Walker's alias method: O(1) sampling from a fixed discrete distribution."""

from __future__ import annotations

from typing import Any

import numpy

from catena.device_resident import DeviceResident, DeviceResidentsVisitor


class WalkerAlias(DeviceResident):
    """Draws integers ``i`` with probability ``probs[i] / sum(probs)``.

    The table is built once (Vose's variant of Walker's alias method); each
    draw then costs one uniform number and two lookups. The tables live on
    the object's device (move them with :meth:`to_device`, :meth:`to_gpu`
    or :meth:`to_cpu`) and :meth:`sample` draws with that device's array
    module (``numpy.random`` on the CPU).

    Args:
        probs: Non-negative weights of the ``n`` outcomes (not necessarily
            normalized), a 1-D sequence or array with a positive sum.

    Attributes:
        threshold: ``(n,)`` float32: the probability of keeping bucket ``i``
            rather than taking its alias.
        values: ``(2 * n,)`` int32: ``values[2 * i]`` is ``i`` and
            ``values[2 * i + 1]`` its alias.
    """

    def __init__(self, probs: Any) -> None:
        super().__init__()
        weights = numpy.asarray(probs, dtype=numpy.float64)
        if weights.ndim != 1 or weights.size == 0:
            raise ValueError('WalkerAlias: probs must be a non-empty 1-D sequence; got shape '
                             f'{weights.shape}')
        total = weights.sum()
        if not numpy.isfinite(weights).all() or (weights < 0).any() or not total > 0:
            raise ValueError('WalkerAlias: probs must be finite, non-negative and have a '
                             'positive sum')
        n = weights.size
        scaled = weights * (n / total)
        threshold = numpy.ones(n, dtype=numpy.float64)
        alias = numpy.arange(n)
        small = [i for i in range(n) if scaled[i] < 1]
        large = [i for i in range(n) if scaled[i] >= 1]
        while small and large:
            s, big = small.pop(), large.pop()
            threshold[s] = scaled[s]
            alias[s] = big
            scaled[big] -= 1 - scaled[s]
            (small if scaled[big] < 1 else large).append(big)
        # What is left (rounding residue) keeps its own bucket: threshold 1.
        values = numpy.empty(2 * n, dtype=numpy.int32)
        values[0::2] = numpy.arange(n)
        values[1::2] = alias
        self.threshold = threshold.astype(numpy.float32)
        self.values = values

    @property
    def use_gpu(self) -> bool:
        """Whether the tables live on a CuPy device."""
        return self.device.name.startswith('@cupy')

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        self.threshold = visitor.visit_array(self.threshold)
        self.values = visitor.visit_array(self.values)

    def sample(self, shape: Any) -> Any:
        """Draws samples.

        Args:
            shape: The shape of the result (an int or a tuple).

        Returns:
            An int32 array of ``shape`` on the object's device.
        """
        xp = self.xp
        n = len(self.threshold)
        position = xp.random.uniform(0, 1, shape) * n
        index = xp.minimum(position.astype(numpy.int32), n - 1)
        use_alias = (self.threshold[index] < position - index).astype(numpy.int32)
        return self.values[index * 2 + use_alias]

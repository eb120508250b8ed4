"""Ready-made link hooks (``catena.link_hooks``).

* :class:`SpectralNormalization` divides a link's weight by its largest
  singular value, estimated by the power iteration.
* :class:`WeightStandardization` standardizes a link's weight per output
  channel.
* :class:`TimerHook` measures the time each link's forward takes.

The two weight hooks are added to one link with :meth:`catena.Link.add_hook`;
the timer also works for every link called in a ``with`` block.
"""

from __future__ import annotations

from catena.link_hooks.spectral_normalization import SpectralNormalization
from catena.link_hooks.timer import TimerHook
from catena.link_hooks.weight_standardization import WeightStandardization

__all__ = ['SpectralNormalization', 'TimerHook', 'WeightStandardization']

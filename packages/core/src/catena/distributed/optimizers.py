"""The multi-node optimizer: any optimizer, with gradients averaged over all ranks."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from catena.distributed.communicators.base import CommunicatorBase
from catena.link import Link
from catena.optimizer import Optimizer


class _MultiNodeOptimizer:
    """Wraps an optimizer so that every rank takes the same step.

    Attribute reads and writes that the wrapper does not define go to the
    wrapped optimizer (``optimizer.lr = 0.01``, ``optimizer.add_hook(...)``,
    ``optimizer.target``, serialization).
    """

    def __init__(self, actual_optimizer: Optimizer, communicator: CommunicatorBase,
                 zero_fill: bool) -> None:
        object.__setattr__(self, 'actual_optimizer', actual_optimizer)
        object.__setattr__(self, 'communicator', communicator)
        object.__setattr__(self, 'zero_fill', zero_fill)
        object.__setattr__(self, '_param_layout', None)

    def __getattr__(self, name: str) -> Any:
        if name == 'actual_optimizer':  # not set yet (for example while unpickling)
            raise AttributeError(name)
        return getattr(self.actual_optimizer, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_optimizer, name, value)

    def setup(self, link: Link) -> _MultiNodeOptimizer:
        """Sets up the wrapped optimizer on ``link``; returns the wrapper."""
        self.actual_optimizer.setup(link)
        return self

    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any,
               **kwds: Any) -> None:
        """Computes the gradients (with ``lossfun``), averages them over the ranks, and updates.

        When the set of initialized parameters differs from the previous call
        (on the first call, and after lazily initialized parameters appear),
        the call instead copies rank 0's parameters to every rank and takes no
        step, as in ChainerMN: the gradients were computed from parameters
        that differed between the ranks.

        Args:
            lossfun: A callable returning the loss Variable, or None to use
                the gradients already computed.
            args: Positional arguments of ``lossfun``.
            kwds: Keyword arguments of ``lossfun``.
        """
        actual = self.actual_optimizer
        target = actual.target
        if target is None:
            raise RuntimeError('the multi-node optimizer has no target: call setup(link) first')
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(actual, '_use_cleargrads', True):
                target.cleargrads()
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore', DeprecationWarning)
                    target.zerograds()
            loss.backward(loss_scale=actual._loss_scale)
            del loss
        if self._params_changed(target):
            self.communicator.bcast_data(target)
            return
        self.communicator.multi_node_mean_grad(target, self.zero_fill)
        actual.update()

    def _params_changed(self, target: Link) -> bool:
        layout = tuple((name, param.array is not None)
                       for name, param in sorted(target.namedparams(), key=lambda p: p[0]))
        changed = layout != self._param_layout
        object.__setattr__(self, '_param_layout', layout)
        return changed


def create_multi_node_optimizer(actual_optimizer: Optimizer, communicator: CommunicatorBase,
                                double_buffering: bool = False,
                                zero_fill: bool = True) -> Any:
    """Wraps an optimizer for data-parallel training over a communicator.

    Each :meth:`update` computes the gradients locally, replaces them by their
    mean over all ranks (``communicator.multi_node_mean_grad``), then lets
    ``actual_optimizer`` update the parameters, so every rank keeps the same
    parameters. The first update (and any update after the set of
    initialized parameters changed) only copies rank 0's parameters to all
    ranks (``communicator.bcast_data``) and takes no step.

    Args:
        actual_optimizer: The optimizer to wrap (a :class:`catena.Optimizer`).
        communicator: The communicator of the ranks that train together.
        double_buffering: Overlapping the all-reduce of one step with the
            next step's computation. Not available in catena: ChainerMN
            offers it only with its NCCL communicator, and no catena
            communicator has a second stream to overlap on; True raises
            NotImplementedError.
        zero_fill: Whether a parameter without a gradient takes part in the
            mean with a zero gradient.

    Returns:
        The wrapping optimizer.
    """
    if not isinstance(actual_optimizer, Optimizer):
        raise TypeError(f'actual_optimizer must be a catena.Optimizer, got '
                        f'{type(actual_optimizer).__name__}')
    if not isinstance(communicator, CommunicatorBase):
        raise TypeError(f'communicator must be a catena.distributed communicator, got '
                        f'{type(communicator).__name__}')
    if double_buffering:
        raise NotImplementedError(
            'double_buffering=True is not available in catena: it needs a communicator that '
            'all-reduces on a separate GPU stream (ChainerMN offers it only with pure_nccl), '
            'and none does yet; use double_buffering=False')
    return _MultiNodeOptimizer(actual_optimizer, communicator, bool(zero_fill))

"""The multi-node optimizer: any optimizer, with gradients averaged over all ranks."""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from catena.distributed import _mpi
from catena.distributed.communicators.base import CommunicatorBase, params_with_grads
from catena.distributed.communicators.mpi_base import MpiCommunicatorBase
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
        target = self._backward(lossfun, args, kwds)
        if self._params_changed(target):
            self.communicator.bcast_data(target)
            return
        self.communicator.multi_node_mean_grad(target, self.zero_fill)
        self.actual_optimizer.update()

    def _backward(self, lossfun: Callable[..., Any] | None, args: tuple[Any, ...],
                  kwds: dict[str, Any]) -> Link:
        """Computes the gradients with ``lossfun`` (when given); returns the target link."""
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
        return target

    def _params_changed(self, target: Link) -> bool:
        layout = tuple((name, param.array is not None)
                       for name, param in sorted(target.namedparams(), key=lambda p: p[0]))
        changed = layout != self._param_layout
        object.__setattr__(self, '_param_layout', layout)
        return changed


class _DoubleBufferingOptimizer(_MultiNodeOptimizer):
    """A multi-node optimizer that averages one step's gradients during the next step.

    Each update hands the fresh gradients to a :class:`BackgroundMean` and
    steps with the mean of the previous update's gradients, which was computed
    meanwhile: one step stale, as ChainerMN's double buffering.
    """

    def __init__(self, actual_optimizer: Optimizer, communicator: CommunicatorBase,
                 zero_fill: bool) -> None:
        super().__init__(actual_optimizer, communicator, zero_fill)
        object.__setattr__(self, '_background', None)

    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any,
               **kwds: Any) -> None:
        """Computes the gradients, starts averaging them, and steps with the previous mean.

        The first update (and one whose set of initialized parameters changed)
        broadcasts rank 0's parameters; the one after it only starts averaging,
        since no earlier mean exists; each later one steps with the mean of the
        gradients of the update before it. While the mean is computed the
        parameters keep the previous step's averaged gradients (None after an
        update that took no step).

        Args:
            lossfun: A callable returning the loss Variable, or None to use
                the gradients already computed.
            args: Positional arguments of ``lossfun``.
            kwds: Keyword arguments of ``lossfun``.
        """
        target = self._backward(lossfun, args, kwds)
        background = self._background
        if background is None:
            background = BackgroundMean(self.communicator)
            object.__setattr__(self, '_background', background)
        if self._params_changed(target):
            background.finish()  # every rank started it: let it end, then drop it
            self.communicator.bcast_data(target)
            return
        params = params_with_grads(target, self.zero_fill)
        fresh = [param.grad for param in params]
        for param in params:
            param.grad = None  # the arrays now belong to the exchange
        previous = background.finish()
        background.start(params, fresh)
        if previous is None:
            return
        for param, grad in zip(*previous, strict=True):
            param.grad = grad
        self.actual_optimizer.update()


class BackgroundMean:
    """Averages lists of gradients over the ranks on a worker thread, one list at a time.

    The exchange runs on a communicator split off from ``communicator`` (the
    same ranks and settings), so its collectives never interleave with those
    of the main thread. When the MPI library is not thread-safe
    (``MPI.Query_thread() < MPI.THREAD_MULTIPLE``), and for the dummy
    communicator, :meth:`start` averages at once instead: the same numbers,
    without the overlap.

    Args:
        communicator: The communicator of the ranks that train together.
    """

    def __init__(self, communicator: CommunicatorBase) -> None:
        self._comm = communicator.split(0, communicator.rank)
        self._executor: ThreadPoolExecutor | None = None
        if _mpi_allows_threads(self._comm):
            self._executor = ThreadPoolExecutor(max_workers=1,
                                                thread_name_prefix='catena-mean-grad')
            weakref.finalize(self, self._executor.shutdown, wait=False)
        self._pending: Future[None] | None = None
        self._job: tuple[list[Any], list[Any]] | None = None

    def start(self, owners: Sequence[Any], grads: Sequence[Any]) -> None:
        """Starts averaging ``grads`` (collective); ``owners`` come back with them."""
        if self._job is not None:
            raise RuntimeError('the previous mean has not been finished')
        self._job = (list(owners), list(grads))
        if self._executor is None:
            self._comm._mean_grad_arrays(self._job[1])
        else:
            self._pending = self._executor.submit(self._comm._mean_grad_arrays, self._job[1])

    def finish(self) -> tuple[list[Any], list[Any]] | None:
        """Waits for the mean started last; returns ``(owners, averaged grads)``, or None."""
        job, pending = self._job, self._pending
        self._job = self._pending = None
        if pending is not None:
            pending.result()  # re-raises what the exchange raised
        return job


def _mpi_allows_threads(communicator: CommunicatorBase) -> bool:
    if not isinstance(communicator, MpiCommunicatorBase):
        return False
    MPI = _mpi.get_mpi()
    return bool(MPI.Query_thread() >= MPI.THREAD_MULTIPLE)


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
        double_buffering: Whether the gradients of one update are averaged
            on a worker thread during the next update, which steps with
            them: the communication overlaps the next forward and backward,
            and each step uses gradients one step stale, which can change
            the accuracy reached. Works with every communicator that comes
            with catena (ChainerMN: ``pure_nccl`` only); the overlap needs an
            MPI library that provides ``MPI.THREAD_MULTIPLE`` (see
            :class:`BackgroundMean`).
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
    wrapper = _DoubleBufferingOptimizer if double_buffering else _MultiNodeOptimizer
    return wrapper(actual_optimizer, communicator, bool(zero_fill))

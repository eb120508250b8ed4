"""The interface every communicator implements (ChainerMN's ``CommunicatorBase``)."""

from __future__ import annotations

import abc
import contextlib
import warnings
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import numpy

from catena import backend, config
from catena.link import Link
from catena.parameter import Parameter

MAX_BUF_LEN = 256 * 1024 * 1024


class CommunicatorBase(abc.ABC):
    """A group of processes that train together, and the ways they exchange data.

    Array methods (``send``, ``bcast``, ``gather``...) move NumPy arrays (and
    device arrays) without pickling. The ``*_obj`` methods move any picklable
    Python object: they pickle it and the receivers unpickle it, so use them
    only between the ranks of one job, which trust each other (as ChainerMN
    does); never connect a communicator to processes you do not control.

    Every collective method must be called by all ranks of the communicator,
    in the same order.

    Args:
        allreduce_grad_dtype: The dtype in which :meth:`multi_node_mean_grad`
            transfers gradients (for example ``numpy.float16`` to halve the
            traffic; the result is cast back to each gradient's dtype), or
            None to transfer them in their own dtype.
        batched_copy: Accepted for ChainerMN compatibility (a GPU copy
            optimization); the CPU communicators ignore it.
    """

    def __init__(self, *, allreduce_grad_dtype: Any = None, batched_copy: bool = True) -> None:
        self.allreduce_grad_dtype = allreduce_grad_dtype
        self.batched_copy = bool(batched_copy)

    # ------------------------------------------------------------- settings

    @property
    def allreduce_grad_dtype(self) -> numpy.dtype | None:
        """The dtype gradients travel in, or None for their own dtype."""
        return self._allreduce_grad_dtype

    @allreduce_grad_dtype.setter
    def allreduce_grad_dtype(self, dtype: Any) -> None:
        self._allreduce_grad_dtype = _check_grad_dtype(dtype)

    def _config_names(self) -> tuple[str, ...]:
        return ('allreduce_grad_dtype', 'batched_copy')

    def set_config(self, name: str, value: Any = True) -> None:
        """Changes a setting by name (ChainerMN's ``set_config``).

        Args:
            name: One of :meth:`get_config`'s keys that is settable:
                ``'allreduce_grad_dtype'``, ``'batched_copy'``, and for the
                flat communicator ``'bucket_size_mb'``.
            value: The new value.
        """
        if name not in self._config_names():
            raise ValueError(f'unknown setting {name!r} for {type(self).__name__}; expected one '
                             f'of {", ".join(self._config_names())}')
        setattr(self, name, value)

    def get_config(self, name: str | None = None) -> Any:
        """Returns the setting ``name``, or a dict of all settings when ``name`` is None."""
        if name is None:
            return {key: getattr(self, key) for key in self._config_names()}
        if name not in self._config_names():
            raise ValueError(f'unknown setting {name!r} for {type(self).__name__}; expected one '
                             f'of {", ".join(self._config_names())}')
        return getattr(self, name)

    @contextlib.contextmanager
    def config_scope(self) -> Iterator[None]:
        """Within the block, attributes set on the communicator are also recorded in
        ``_configs`` (ChainerMN's internal ``config_scope``)."""
        previous = self.__dict__.get('_in_config_scope', False)
        object.__setattr__(self, '_in_config_scope', True)
        try:
            yield
        finally:
            object.__setattr__(self, '_in_config_scope', previous)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get('_in_config_scope'):
            self.__dict__.setdefault('_configs', {})[name] = value
        super().__setattr__(name, value)

    # ------------------------------------------------------------- topology

    @property
    @abc.abstractmethod
    def rank(self) -> int:
        """The rank of this process in the communicator."""

    @property
    @abc.abstractmethod
    def size(self) -> int:
        """The number of processes in the communicator."""

    @property
    @abc.abstractmethod
    def intra_rank(self) -> int:
        """The rank of this process among the processes of its node."""

    @property
    @abc.abstractmethod
    def intra_size(self) -> int:
        """The number of processes on this process's node."""

    @property
    @abc.abstractmethod
    def inter_rank(self) -> int:
        """The index of this process's node among the nodes."""

    @property
    @abc.abstractmethod
    def inter_size(self) -> int:
        """The number of nodes."""

    @abc.abstractmethod
    def split(self, color: int, key: int) -> CommunicatorBase:
        """Splits the communicator (collective), like ``MPI_Comm_split``.

        Args:
            color: Processes with the same color end up in the same new communicator.
            key: Orders the ranks within a new communicator.

        Returns:
            A communicator of the same kind and settings over this process's group.
        """

    # ------------------------------------------------------------- arrays

    @abc.abstractmethod
    def send(self, data: Any, dest: int, tag: int = 0) -> None:
        """Sends an array, or a tuple/list of arrays, to rank ``dest``."""

    @abc.abstractmethod
    def recv(self, source: int, tag: int = 0) -> Any:
        """Receives what :meth:`send` sent: an array, or a tuple of arrays."""

    @abc.abstractmethod
    def bcast(self, x: Any, root: int = 0) -> Any:
        """Returns ``root``'s array on every rank (the others may pass None)."""

    @abc.abstractmethod
    def gather(self, x: Any, root: int = 0) -> tuple[Any, ...] | None:
        """Returns every rank's array, in rank order, on ``root``; None elsewhere."""

    @abc.abstractmethod
    def allgather(self, x: Any) -> tuple[Any, ...]:
        """Returns every rank's array, in rank order, on every rank."""

    @abc.abstractmethod
    def allreduce(self, x: Any) -> Any:
        """Returns the elementwise sum of every rank's array (same shape and dtype on all)."""

    @abc.abstractmethod
    def alltoall(self, xs: Sequence[Any]) -> tuple[Any, ...]:
        """Sends ``xs[i]`` to rank ``i``; returns the arrays received, in rank order."""

    @abc.abstractmethod
    def scatter(self, xs: Any, root: int = 0) -> Any:
        """Returns ``xs[rank]`` of ``root`` (``size`` arrays there; None elsewhere)."""

    # ------------------------------------------------------------- objects

    @abc.abstractmethod
    def send_obj(self, obj: Any, dest: int, tag: int = 0) -> None:
        """Sends a picklable object to rank ``dest`` (pickled: same-job ranks only)."""

    @abc.abstractmethod
    def recv_obj(self, source: int, status: Any = None, tag: int | None = None) -> Any:
        """Receives and unpickles an object from ``source`` (``tag`` None: any tag)."""

    @abc.abstractmethod
    def bcast_obj(self, obj: Any, max_buf_len: int = MAX_BUF_LEN, root: int = 0) -> Any:
        """Returns ``root``'s object on every rank (pickled, sent in chunks of ``max_buf_len``)."""

    @abc.abstractmethod
    def gather_obj(self, obj: Any, root: int = 0) -> list[Any] | None:
        """Returns every rank's object, in rank order, on ``root``; None elsewhere."""

    @abc.abstractmethod
    def allgather_obj(self, obj: Any) -> list[Any]:
        """Returns every rank's object, in rank order, on every rank."""

    @abc.abstractmethod
    def allreduce_obj(self, obj: Any) -> Any:
        """Returns the sum (``+``) of every rank's object on every rank."""

    @abc.abstractmethod
    def scatter_obj(self, objs: Any, root: int = 0) -> Any:
        """Returns ``objs[rank]`` of ``root`` (a sequence of ``size`` objects there)."""

    # ------------------------------------------------------------- models

    @abc.abstractmethod
    def bcast_data(self, model: Link) -> None:
        """Overwrites every rank's parameters of ``model`` with rank 0's (collective)."""

    @abc.abstractmethod
    def multi_node_mean_grad(self, model: Link, zero_fill: bool = False) -> None:
        """Replaces each gradient of ``model`` by its mean over all ranks (collective).

        Args:
            model: The link whose gradients are averaged. Every rank must
                hold gradients for the same parameters.
            zero_fill: Whether a parameter without a gradient takes part with
                a zero gradient (and gets the averaged one). Without it, such
                parameters are left out, which requires that every rank lacks
                the same ones.
        """

    def _mean_grad_arrays(self, grads: Sequence[Any]) -> None:
        """Replaces each array of ``grads`` by its mean over all ranks (collective).

        What :meth:`multi_node_mean_grad` does once it has the gradients, and
        what the double-buffering optimizer calls on gradients that no longer
        belong to the model. Every rank passes arrays of the same shapes and
        dtypes in the same order.
        """
        raise NotImplementedError(
            f'{type(self).__name__} cannot average a list of arrays, which double buffering '
            'needs; use the naive, flat, dummy or pure_nccl communicator')

    def allreduce_grad(self, model: Link, zero_fill: bool = False) -> None:
        """Deprecated name of :meth:`multi_node_mean_grad` (Chainer's older API)."""
        warnings.warn('allreduce_grad is deprecated; use multi_node_mean_grad',
                      DeprecationWarning, stacklevel=2)
        self.multi_node_mean_grad(model, zero_fill)

    def finalize(self) -> None:  # noqa: B027 - optional: most communicators hold nothing
        """Frees the resources the communicator holds (collective). It is unusable afterwards."""


# ---------------------------------------------------------------------------
# Helpers shared by the implementations
# ---------------------------------------------------------------------------

def check_not_diverged(grads: Sequence[Any]) -> None:
    """In debug mode (``catena.config.debug``), raises ``ValueError`` when an averaged
    gradient holds NaN or Inf, as ChainerMN does."""
    if not config.debug:
        return
    for index, grad in enumerate(grads):
        host = backend.get_device_from_array(grad).to_numpy(grad) \
            if not isinstance(grad, numpy.ndarray) else grad
        if host.dtype.kind in 'fc' and not numpy.isfinite(host).all():
            raise ValueError(f'multi_node_mean_grad: the gradients diverged (gradient {index} '
                             'holds NaN or Inf after averaging); debug mode checks them')


def _check_grad_dtype(dtype: Any) -> numpy.dtype | None:
    if dtype is None:
        return None
    try:
        checked = numpy.dtype(dtype)
    except TypeError as error:
        raise TypeError(f'allreduce_grad_dtype must be a floating dtype or None, got '
                        f'{dtype!r}') from error
    if checked.kind != 'f':
        raise ValueError(f'allreduce_grad_dtype must be a floating dtype or None, got {checked}')
    return checked


def checked_size(name: str, value: float | None) -> float | None:
    """Returns a size setting (``bucket_size_mb``, ``pack_max_kb``) after checking it.

    Raises:
        ValueError: ``value`` is neither None nor a non-negative number.
    """
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not value >= 0):
        raise ValueError(f'{name} must be a non-negative number or None, got {value!r}')
    return value


def _check_model(model: Any) -> Link:
    if not isinstance(model, Link):
        raise TypeError(f'model must be a catena.Link, got {type(model).__name__}')
    return model


_name_orders: weakref.WeakKeyDictionary[Link, tuple[tuple[int, ...], list[Parameter]]] = \
    weakref.WeakKeyDictionary()


def _params_by_name(model: Any) -> list[Parameter]:
    """Every parameter of ``model`` (initialized or not), sorted by name.

    The order by name is remembered for each model while its parameters stay
    the same objects in the same places: building the names costs more than
    the rest of a gradient all-reduce on a model with many small parameters.
    """
    _check_model(model)
    params = tuple(model.params())
    identity = tuple(map(id, params))
    remembered = _name_orders.get(model)
    if remembered is None or remembered[0] != identity:
        ordered = [param for _, param in sorted(model.namedparams(), key=lambda item: item[0])]
        _name_orders[model] = remembered = (identity, ordered)
    return remembered[1]


def initialized_params(model: Any) -> list[Parameter]:
    """The initialized parameters of ``model``, sorted by name (the same order on every rank)."""
    return [param for param in _params_by_name(model) if param.array is not None]


def _with_grads(model: Any, zero_fill: bool) -> Iterator[tuple[Parameter, Any]]:
    for param in _params_by_name(model):
        array = param.array
        if array is None:
            continue
        grad = param.grad
        if grad is None:
            if not zero_fill:
                continue
            grad = param.grad = backend.get_array_module(array).zeros_like(array)
        yield param, grad


def params_with_grads(model: Any, zero_fill: bool) -> list[Parameter]:
    """The parameters whose gradients take part in a mean, sorted by name.

    With ``zero_fill``, an initialized parameter without a gradient first gets
    a zero gradient.
    """
    return [param for param, _ in _with_grads(model, zero_fill)]


def grads_to_average(model: Any, zero_fill: bool) -> list[Any]:
    """The gradients of :func:`params_with_grads`, in its order."""
    return [grad for _, grad in _with_grads(model, zero_fill)]

"""The updater of one model on one device (:class:`StandardUpdater`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena import backend
from catena.dataset import convert
from catena.dataset.iterator import Iterator
from catena.training.updater import Updater
from catena.utils import _validate


def _named(who: str, what: str, value: Any, kind: type | None,
           need_main: bool) -> dict[str, Any]:
    if isinstance(value, dict):
        if need_main and 'main' not in value:
            raise ValueError(f"{who}: {what} must have a 'main' entry; got the names "
                             f'{sorted(value)}')
        named = dict(value)
    else:
        named = {'main': value}
    for item in named.values():
        wrong = (not isinstance(item, kind) if kind is not None
                 else not callable(getattr(item, 'update', None)) or
                 not hasattr(item, 'target'))
        if wrong:
            expected = (f'a catena.dataset.{kind.__name__}' if kind is not None
                        else 'an optimizer set up with a link')
            raise TypeError(f'{who}: {what} must be {expected} or a dict of them; '
                            f'got {_validate.show(item)}')
    return named


def call_with_batch(func: Callable[..., Any], in_arrays: Any, *leading: Any) -> Any:
    """Calls ``func(*leading, ...)`` with a converted batch: a tuple as positional
    arguments, a dict as keyword arguments, anything else as one argument."""
    if isinstance(in_arrays, tuple):
        return func(*leading, *in_arrays)
    if isinstance(in_arrays, dict):
        return func(*leading, **in_arrays)
    return func(*leading, in_arrays)


class StandardUpdater(Updater):
    """Takes a batch from an iterator, converts it and updates the optimizer with it.

    Each step calls ``optimizer.update(loss_func, *in_arrays)`` (keyword
    arguments for a dict batch), where ``loss_func`` is the optimizer's
    target link unless given.

    Args:
        iterator: The iterator of training batches, or a dict of iterators
            with a ``'main'`` entry.
        optimizer: The optimizer, or a dict of optimizers with ``'main'``.
        converter: Turns a batch into arrays on the input device
            (:func:`catena.dataset.concat_examples` by default).
        device: The device to move the models to and to convert the batches
            for (a device specifier), or None to leave them where they are.
        loss_func: The loss function, or None for the main optimizer's target.
        loss_scale: A fixed loss scale given to every optimizer, or None.
        auto_new_epoch: Whether to call ``optimizer.new_epoch(auto=True)``
            when the main iterator starts a new epoch.
        input_device: The device for the batches, when other than ``device``.

    Attributes:
        iteration (int): The number of steps done.
        converter: The converter.
        loss_func: The loss function, or None.
    """

    def __init__(self, iterator: Any, optimizer: Any,
                 converter: Callable[..., Any] = convert.concat_examples, device: Any = None,
                 loss_func: Callable[..., Any] | None = None, loss_scale: float | None = None,
                 auto_new_epoch: bool = True, *, input_device: Any = None) -> None:
        who = type(self).__name__
        self._iterators = _named(who, 'iterator', iterator, Iterator, need_main=True)
        self._optimizers = _named(who, 'optimizer', optimizer, None, need_main=False)
        _validate.function(who, 'converter', converter)
        _validate.function(who, 'loss_func', loss_func, optional=True)
        if device is not None:
            device = backend.get_device(device)
            for opt in self._optimizers.values():
                opt.target.to_device(device)
        self.device = device
        self.input_device = device if input_device is None else backend.get_device(input_device)
        self.converter = converter
        self.loss_func = loss_func
        self.loss_scale = loss_scale
        if loss_scale is not None:
            for opt in self._optimizers.values():
                opt.set_loss_scale(loss_scale)
        self.auto_new_epoch = auto_new_epoch
        if auto_new_epoch:
            for opt in self._optimizers.values():
                opt.use_auto_new_epoch = True
        self.iteration = 0

    @property
    def epoch(self) -> int:
        """The main iterator's epoch."""
        return int(self._iterators['main'].epoch)

    @property
    def epoch_detail(self) -> float:
        """The main iterator's epoch as a fraction."""
        return float(self._iterators['main'].epoch_detail)

    @property
    def previous_epoch_detail(self) -> float | None:
        """The main iterator's epoch_detail before the last batch."""
        return self._iterators['main'].previous_epoch_detail  # type: ignore[no-any-return]

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last batch started a new epoch."""
        return bool(self._iterators['main'].is_new_epoch)

    def finalize(self) -> None:
        for iterator in self._iterators.values():
            iterator.finalize()

    def get_optimizer(self, name: str) -> Any:
        return self._optimizers[name]

    def get_all_optimizers(self) -> dict[str, Any]:
        return dict(self._optimizers)

    def get_iterator(self, name: str) -> Any:
        """Returns the iterator registered as ``name``."""
        return self._iterators[name]

    def update(self) -> None:
        """Runs :meth:`update_core` and counts the iteration."""
        self.update_core()
        self.iteration += 1

    def update_core(self) -> None:
        """Takes the next batch of the main iterator and updates the main optimizer."""
        iterator = self._iterators['main']
        batch = iterator.next()
        in_arrays = convert._call_converter(self.converter, batch, self.input_device)
        optimizer = self._optimizers['main']
        call_with_batch(optimizer.update, in_arrays, self.loss_func or optimizer.target)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the iterators, optimizers, models and the iteration count.

        The keys are Chainer's: ``iterator:<name>/...``,
        ``optimizer:<name>/...``, ``model:<name>/...`` and ``iteration``.
        """
        for name, iterator in self._iterators.items():
            iterator.serialize(serializer['iterator:' + name])
        for name, optimizer in self._optimizers.items():
            optimizer.serialize(serializer['optimizer:' + name])
            optimizer.target.serialize(serializer['model:' + name])
        self.iteration = serializer('iteration', self.iteration)

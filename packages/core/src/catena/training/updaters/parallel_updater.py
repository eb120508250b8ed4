"""Data parallelism inside one process (:class:`ParallelUpdater`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena import _batch_split, backend
from catena.dataset import convert
from catena.training.updaters.standard_updater import StandardUpdater, call_with_batch


class ParallelUpdater(StandardUpdater):
    """Splits each batch over several copies of the model and sums their gradients.

    Synchronous data-parallel SGD: the batch of the main iterator is dealt
    out to the models (example ``i`` goes to model ``i % n``), each model
    computes its loss and gradients on its device, the other models'
    gradients are added to the main model's, the main optimizer updates,
    and the other models copy the new parameters back. As in Chainer, the
    gradient is the sum of the models' mean-loss gradients.

    With ``weights`` (catena's addition) the batch is instead cut into
    contiguous chunks, one per model in the order of ``models`` (built
    from ``devices`` with ``'main'`` first), with sizes proportional to the
    weights (largest-remainder rounding, see
    :func:`catena._batch_split.split_sizes`); a model with an empty chunk
    sits the step out. Each model's loss is multiplied by
    ``n_models * chunk_size / batch_size`` before backprop, so every example
    counts equally and, for chunks of equal size, the update is the same as
    without weights (the sum of the models' mean-loss gradients).

    Args:
        iterator: The training iterator (or a dict with ``'main'``).
        optimizer: The optimizer of the main model (or a dict with ``'main'``).
        converter: Converts a sub-batch for a model's device.
        models: A dict of models with ``'main'`` (the main optimizer's
            target); or None to copy the main model for each device.
        devices: A dict of device specifiers with the same keys as
            ``models`` (required when ``models`` is None).
        loss_func: The loss function, or None to call each model.
        loss_scale: A fixed loss scale, or None.
        auto_new_epoch: Whether to count epochs on the optimizer.
        weights: Workload weights, a dict with the same keys as ``models``
            (or ``devices``) of non-negative numbers with a positive sum;
            None deals the examples out round-robin.
    """

    def __init__(self, iterator: Any, optimizer: Any,
                 converter: Callable[..., Any] = convert.concat_examples,
                 models: dict[str, Any] | None = None, devices: dict[str, Any] | None = None,
                 loss_func: Callable[..., Any] | None = None, loss_scale: float | None = None,
                 auto_new_epoch: bool = True, weights: dict[str, float] | None = None) -> None:
        super().__init__(iterator, optimizer, converter=converter, loss_func=loss_func,
                         loss_scale=loss_scale, auto_new_epoch=auto_new_epoch)
        main_model = self.get_optimizer('main').target
        if models is None:
            if devices is None:
                raise ValueError('ParallelUpdater: give models or devices (a dict of device '
                                 "specifiers with a 'main' entry); got neither")
            if not isinstance(devices, dict):
                raise TypeError('ParallelUpdater: devices must be a dict of device specifiers '
                                f"with a 'main' entry; got {type(devices).__name__}")
            if 'main' not in devices:
                raise KeyError(f"ParallelUpdater: devices must have a 'main' entry; got "
                               f'{sorted(devices)}')
            devices = {name: backend.get_device(spec) for name, spec in devices.items()}
            models = {'main': main_model}
            for name, device in devices.items():
                if name != 'main':
                    models[name] = main_model.copy(mode='copy').to_device(device)
            main_model.to_device(devices['main'])
        else:
            if not isinstance(models, dict):
                raise TypeError('ParallelUpdater: models must be a dict of links with a '
                                f"'main' entry; got {type(models).__name__}")
            if models.get('main') is not main_model:
                raise ValueError("ParallelUpdater: models['main'] must be the target of the main "
                                 'optimizer')
            if devices is None:
                devices = {name: None for name in models}
            elif set(devices) != set(models):
                raise ValueError(f'ParallelUpdater: devices has the names {sorted(devices)} but '
                                 f'models has {sorted(models)}')
            devices = {name: None if spec is None else backend.get_device(spec)
                       for name, spec in devices.items()}
        self._models = models
        self._devices = devices
        self._weights = _checked_weights(weights, models)

    def connect_trainer(self, trainer: Any) -> None:
        """Registers the other models as observers under their names."""
        main_model = self.get_optimizer('main').target
        for name, model in self._models.items():
            if model is not main_model:
                trainer.reporter.add_observer(name, model)

    def update_core(self) -> None:
        optimizer = self.get_optimizer('main')
        main_model = optimizer.target
        others = [model for model in self._models.values() if model is not main_model]
        iterator = self.get_iterator('main')
        batch = iterator.next()
        if self._weights is None:
            losses = self._dealt_losses(batch)
        else:
            losses = self._weighted_losses(batch, self._weights)
        for model in self._models.values():
            model.cleargrads()
        for loss in losses:
            loss.backward(loss_scale=self.loss_scale)
        del losses
        for model in others:
            main_model.addgrads(model)
        optimizer.update()
        for model in others:
            model.copyparams(main_model)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def _dealt_losses(self, batch: Any) -> list[Any]:
        """Example ``i`` to model ``i % n``, as in Chainer."""
        count = len(self._models)
        losses = []
        for index, (name, model) in enumerate(self._models.items()):
            in_arrays = convert._call_converter(self.converter, batch[index::count],
                                                self._devices[name])
            losses.append(call_with_batch(self.loss_func or model, in_arrays))
        return losses

    def _weighted_losses(self, batch: Any, weights: dict[str, float]) -> list[Any]:
        """Contiguous chunks sized by the weights; each loss scaled by its share."""
        names = list(self._models)
        bounds = _batch_split.split_bounds(len(batch), [weights[name] for name in names])
        losses = []
        for name, (start, stop) in zip(names, bounds, strict=True):
            if stop == start:
                continue
            in_arrays = convert._call_converter(self.converter, batch[start:stop],
                                                self._devices[name])
            loss = call_with_batch(self.loss_func or self._models[name], in_arrays)
            share = len(names) * (stop - start) / len(batch)
            losses.append(loss if share == 1 else loss * share)
        return losses


def _checked_weights(weights: Any, models: dict[str, Any]) -> dict[str, float] | None:
    if weights is None:
        return None
    if not isinstance(weights, dict):
        raise TypeError(f'weights must be a dict with the keys of models, got '
                        f'{type(weights).__name__}')
    if set(weights) != set(models):
        raise ValueError(f'weights has the names {sorted(weights)} but models has '
                         f'{sorted(models)}')
    _batch_split.split_sizes(0, [weights[name] for name in models])  # validates the values
    return dict(weights)

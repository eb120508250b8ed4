"""The :class:`DataParallel` link and the optimizer hooks that train it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import _batch_split, backend
from catena.backends._device import Device
from catena.link import Chain, Link
from catena.serializer import Deserializer


class DataParallel(Chain):
    """Runs one module on several devices, each on a part of the batch.

    The wrapped module is the *main module*: it is moved to ``devices[0]``
    and holds the parameters an optimizer updates (it is this chain's only
    child, ``module``, so :meth:`params`, serialization and
    :meth:`namedparams` see only its parameters). For each further device a
    replica (an independent copy) is made and moved there.

    A call ``dp(*args, **kwargs)``:

    1. **scatters** the arguments: every Variable or array with more than
       ``batch_dim`` axes, also inside tuples, lists and dicts, is cut along
       ``batch_dim`` into contiguous chunks, one per device, sized by the
       workload ``weights`` (equal by default, rounded by largest
       remainder; see :func:`catena._batch_split.split_sizes`), and sent to
       that device. All batched arguments must have the same length along
       ``batch_dim``. Other arguments (0-d arrays, Python scalars, strings,
       None, any other object) go whole to every device;
    2. calls each replica on its chunk, with its device current. A replica
       whose chunk is empty (a batch smaller than the device count, or a
       weight of 0) is skipped;
    3. **gathers** the results on ``output_device``, keeping their nesting:
       a Variable or array with more than ``batch_dim`` axes is concatenated
       along ``batch_dim``; a 0-d one or a Python int or float (a loss, say)
       is combined by ``scalar_reduce``: ``'mean'`` (default) weights each
       chunk's value by its share of the examples, so a per-chunk mean loss
       becomes the mean loss of the whole batch, exactly what the unsplit
       module returns; ``'sum'`` adds them (for summed losses). None stays
       None; any other object is taken from the first replica that ran.

    Cutting, moving and joining Variables are differentiable, so
    backpropagating from the result reaches every replica's parameters (and
    the inputs). The replicas' gradients then have to be added to the main
    module's, and after the update the replicas need the new parameters:
    register the two optimizer hooks :class:`DataParallelAccumulateGrads`
    (before the update) and :class:`DataParallelBroadcastParams` (after it),
    most simply with :meth:`add_optimizer_hooks`, before any other hook, so
    that hooks such as gradient clipping see the summed gradients. The
    hooks find every DataParallel link inside the optimizer's target, so
    ``L.Classifier(DataParallel(predictor, ...))`` works as well.

    Wrap the predictor rather than a link that reports values (such as a
    :class:`~catena.links.Classifier`) when training under a
    :class:`~catena.training.Trainer`: the replicas are not registered with
    the reporter, so a replica that calls :func:`catena.report` fails.

    Args:
        module: The link to run in parallel (the main module).
        devices: The devices to run on (specifiers or devices), one replica
            each; the same device may appear more than once.
        output_device: Where results are gathered; None for ``devices[0]``.
        batch_dim: The batch axis of the arguments and results.
        weights: Non-negative workload weights, one per device, with a
            positive sum; None for equal shares.
        scalar_reduce: How scalar results are combined: ``'mean'`` or ``'sum'``.

    Attributes:
        module: The main module.
        batch_dim (int): The batch axis.
        scalar_reduce (str): How scalar results are combined.

    .. admonition:: Example

        >>> model = L.Linear(3, 2)
        >>> dp = L.DataParallel(model, devices=['@numpy', '@numpy'], weights=[3, 1])
        >>> optimizer = catena.optimizers.SGD(lr=0.1).setup(dp)
        >>> _ = dp.add_optimizer_hooks(optimizer)
        >>> x = np.ones((8, 3), dtype=np.float32)
        >>> optimizer.update(lambda x: F.mean(dp(x) ** 2), x)
        >>> bool((dp.replicas[1].W.array == model.W.array).all())
        True
    """

    _weights: tuple[float, ...] | None = None

    def __init__(self, module: Link, devices: Sequence[Any], output_device: Any = None,
                 batch_dim: int = 0, weights: Sequence[float] | None = None,
                 scalar_reduce: str = 'mean') -> None:
        if not isinstance(module, Link):
            raise TypeError('DataParallel: module must be a catena.Link; got '
                            f'{type(module).__name__}')
        resolved = _resolve_devices(devices)
        if isinstance(batch_dim, bool) or not isinstance(batch_dim, int) or batch_dim < 0:
            raise ValueError('DataParallel: batch_dim must be an int of at least 0; got '
                             f'{batch_dim!r}')
        if scalar_reduce not in ('mean', 'sum'):
            raise ValueError(f"DataParallel: scalar_reduce must be 'mean' or 'sum'; "
                             f'got {scalar_reduce!r}')
        super().__init__()
        self._devices = resolved
        self._output_device = resolved[0] if output_device is None else \
            backend.get_device(output_device)
        self.weights = weights
        self.batch_dim = batch_dim
        self.scalar_reduce = scalar_reduce
        module.to_device(resolved[0])
        with self.init_scope():
            self.module = module
        others = []
        for device in resolved[1:]:
            replica = module.copy(mode='copy').to_device(device)
            replica.cleargrads()  # a copy carries the module's (possibly NaN) gradients
            others.append(replica)
        self._others: tuple[Link, ...] = tuple(others)

    @property
    def devices(self) -> tuple[Device, ...]:
        """The device of each replica (the first is the main module's at construction)."""
        return self._devices

    @property
    def output_device(self) -> Device:
        """The device results are gathered on."""
        return self._output_device

    @property
    def replicas(self) -> tuple[Link, ...]:
        """The main module followed by its copies on the other devices."""
        return (self.module, *self._others)

    @property
    def weights(self) -> tuple[float, ...] | None:
        """The workload weight of each device, or None for equal shares."""
        return self._weights

    @weights.setter
    def weights(self, weights: Sequence[float] | None) -> None:
        if weights is not None:
            _batch_split.split_sizes(0, weights, len(self._devices))  # validates
            weights = tuple(weights)
        object.__setattr__(self, '_weights', weights)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Scatters the arguments, runs the replicas and gathers their results.

        Args:
            args: Positional arguments of the module (nested structures allowed).
            kwargs: Keyword arguments of the module.

        Returns:
            The gathered result on :attr:`output_device` (see the class docstring).
        """
        replicas = self.replicas
        devices = [self.module.device, *self._devices[1:]]
        batch_size = _batch_split.find_batch_size(args, kwargs, self.batch_dim)
        bounds = _batch_split.split_bounds(batch_size, self._weights, len(replicas))
        pieces = _batch_split.scatter(args, kwargs, devices, bounds, self.batch_dim)
        # Parameters the main module initializes on its first call must reach the
        # replicas before they run, or each replica would initialize its own.
        lazy = any(param.array is None for param in self.module.params())
        if lazy and pieces[0] is None:
            raise RuntimeError(
                'the main module has uninitialized parameters and gets no examples in this '
                f'call (chunk sizes {[stop - start for start, stop in bounds]}); call it once '
                'with a batch it gets examples from (or initialize its parameters) first')
        outputs, sizes = [], []
        for index, (replica, device, piece, (start, stop)) in enumerate(
                zip(replicas, devices, pieces, bounds, strict=True)):
            if piece is None:
                continue
            piece_args, piece_kwargs = piece
            with backend.using_device(device):
                outputs.append(replica(*piece_args, **piece_kwargs))
            sizes.append(stop - start)
            if index == 0 and lazy:
                self.broadcast_params()
        return _batch_split.gather(outputs, sizes, self._output_device, self.batch_dim,
                                   self.scalar_reduce)

    def cleargrads(self) -> None:
        """Clears the gradients of the main module and of every replica."""
        super().cleargrads()
        for replica in self._others:
            replica.cleargrads()

    def accumulate_grads(self) -> None:
        """Adds each replica's gradients to the main module's, then clears the replica's."""
        for replica in self._others:
            self.module.addgrads(replica)
            replica.cleargrads()

    def broadcast_params(self) -> None:
        """Copies the main module's parameters (and persistent values) to every replica."""
        for replica in self._others:
            replica.copyparams(self.module)

    def add_optimizer_hooks(self, optimizer: Any) -> Any:
        """Registers :class:`DataParallelAccumulateGrads` and :class:`DataParallelBroadcastParams`.

        Call it right after ``optimizer.setup(...)``, before adding other hooks.

        Args:
            optimizer: An optimizer set up on this link or on a link containing it.

        Returns:
            The optimizer.
        """
        optimizer.add_hook(DataParallelAccumulateGrads())
        optimizer.add_hook(DataParallelBroadcastParams())
        return optimizer

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the main module; after loading, the replicas get its values."""
        super().serialize(serializer)
        if isinstance(serializer, Deserializer):
            self.broadcast_params()


def _resolve_devices(devices: Any) -> tuple[Device, ...]:
    if isinstance(devices, (str, bytes, Device)) or not isinstance(devices, Sequence):
        raise TypeError('DataParallel: devices must be a sequence of devices or specifiers; got '
                        f'{type(devices).__name__}')
    if not devices:
        raise ValueError('DataParallel: devices must name at least one device; got an empty '
                         'sequence')
    resolved = []
    for index, spec in enumerate(devices):
        try:
            resolved.append(backend.get_device(spec))
        except (TypeError, ValueError, RuntimeError) as error:
            raise type(error)(f'DataParallel: devices[{index}]: {error}') from error
    return tuple(resolved)


def _data_parallel_links(optimizer: Any, hook_name: str) -> list[DataParallel]:
    target = getattr(optimizer, 'target', None)
    if target is None:
        raise RuntimeError(f'{hook_name} needs an optimizer set up on a link; call '
                           'optimizer.setup(link) before the update')
    return [link for link in target.links() if isinstance(link, DataParallel)]


class DataParallelAccumulateGrads:
    """Optimizer hook that sums the replicas' gradients into the main modules.

    Before the update (timing ``'pre'``) it calls
    :meth:`DataParallel.accumulate_grads` on every :class:`DataParallel`
    link in the optimizer's target. With dynamic loss scaling it then checks
    the summed gradients for non-finite values again, so that the update is
    skipped when only a replica overflowed. Register it before other hooks.

    Attributes:
        name (str): ``'DataParallelAccumulateGrads'``.
        timing (str): ``'pre'``.
        call_for_each_param (bool): False: called as ``hook(optimizer)``.
    """

    name = 'DataParallelAccumulateGrads'
    call_for_each_param = False
    timing = 'pre'

    def __call__(self, optimizer: Any) -> None:
        """Sums the gradients for ``optimizer``'s target."""
        links = _data_parallel_links(optimizer, self.name)
        for link in links:
            link.accumulate_grads()
        if links and optimizer.is_safe_to_update():
            optimizer.check_nan_in_grads()


class DataParallelBroadcastParams:
    """Optimizer hook that copies the updated parameters to the replicas.

    After the update (timing ``'post'``) it calls
    :meth:`DataParallel.broadcast_params` on every :class:`DataParallel`
    link in the optimizer's target.

    Attributes:
        name (str): ``'DataParallelBroadcastParams'``.
        timing (str): ``'post'``.
        call_for_each_param (bool): False: called as ``hook(optimizer)``.
    """

    name = 'DataParallelBroadcastParams'
    call_for_each_param = False
    timing = 'post'

    def __call__(self, optimizer: Any) -> None:
        """Sends the main modules' parameters to their replicas."""
        for link in _data_parallel_links(optimizer, self.name):
            link.broadcast_params()

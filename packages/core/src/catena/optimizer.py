"""Optimizers and per-parameter update rules.

An :class:`Optimizer` is set up on a link and updates its parameters. A
:class:`GradientMethod` gives every parameter its own :class:`UpdateRule`,
whose :class:`Hyperparameter` falls back to the optimizer's, so one
parameter can have its own learning rate while the rest follow the
optimizer::

    optimizer = catena.optimizers.MomentumSGD(lr=0.1).setup(model)
    model.l1.W.update_rule.hyperparam.lr = 0.01
"""

from __future__ import annotations

import copy
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from catena import backend
from catena.backends import _registry
from catena.backends._kernel import Fallback
from catena.configuration import config
from catena.link import Link
from catena.variable import Variable

_TIMINGS = ('pre', 'post', 'auto')
_LOSS_SCALE_MAX = 65504.0


class Hyperparameter:
    """A set of hyperparameters that falls back to a parent set.

    Reading an attribute that is not set here reads the parent's; setting
    one sets it here only.

    Args:
        parent: The hyperparameter to fall back to, or None.
    """

    def __init__(self, parent: Hyperparameter | None = None) -> None:
        self._parent = parent

    def __getattr__(self, name: str) -> Any:
        if name.startswith('__') or '_parent' not in self.__dict__:
            raise AttributeError(name)
        parent = self._parent
        if parent is None:
            raise AttributeError(f'hyperparameter {name!r} is not set')
        return getattr(parent, name)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        entries = ', '.join(f'{key}={value!r}' for key, value in self.get_dict().items())
        return f'Hyperparameter({entries})'

    @property
    def parent(self) -> Hyperparameter | None:
        """The hyperparameter this one falls back to."""
        return self._parent

    def get_dict(self) -> dict[str, Any]:
        """Returns every visible hyperparameter (own values over the parent's).

        Returns:
            dict: Names to values.
        """
        values = {} if self._parent is None else self._parent.get_dict()
        values.update((key, value) for key, value in self.__dict__.items()
                      if not key.startswith('_'))
        return values


class HyperparameterProxy:
    """An attribute of an optimizer that reads and writes ``self.hyperparam.<name>``.

    Args:
        attr_name: The hyperparameter's name.
    """

    def __init__(self, attr_name: str) -> None:
        self._attr_name = attr_name
        self.__doc__ = f'Alias of ``self.hyperparam.{attr_name}``.'

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.hyperparam, self._attr_name, value)


def make_deprecation_message(name: str) -> str:
    """The warning text for the hooks that moved to :mod:`catena.optimizer_hooks`."""
    return (f'catena.optimizer.{name} is deprecated; '
            f'use catena.optimizer_hooks.{name} instead')


def _resolve_timing(hook: Any, timing: str) -> str:
    if timing not in _TIMINGS:
        raise ValueError(f"timing must be one of {_TIMINGS}, got {timing!r}")
    if timing != 'auto':
        return timing
    declared = getattr(hook, 'timing', None)
    if not isinstance(declared, str):  # absent, or not a timing declaration
        warnings.warn(f'the hook {hook!r} has no timing attribute; it runs before the update '
                      "('pre')", FutureWarning, stacklevel=3)
        return 'pre'
    if declared not in ('pre', 'post'):
        raise ValueError(f"the hook's timing attribute must be 'pre' or 'post', got {declared!r}")
    return str(declared)


def _hook_name(hook: Any, name: str | None) -> str:
    if name is None:
        name = getattr(hook, 'name', None) or getattr(hook, '__name__', None)
    if not name:
        raise ValueError(f'the hook {hook!r} has no name: pass name=')
    return str(name)


class _HookTable:
    """Hooks registered under unique names, in 'pre' and 'post' order."""

    def __init__(self) -> None:
        self.pre: OrderedDict[str, Any] = OrderedDict()
        self.post: OrderedDict[str, Any] = OrderedDict()

    def add(self, hook: Any, name: str | None, timing: str) -> None:
        if not callable(hook):
            raise TypeError(f'hook must be callable, got {type(hook).__name__}')
        timing = _resolve_timing(hook, timing)
        name = _hook_name(hook, name)
        if name in self.pre or name in self.post:
            raise KeyError(f'a hook named {name!r} already exists')
        (self.pre if timing == 'pre' else self.post)[name] = hook

    def remove(self, name: str) -> None:
        for table in (self.pre, self.post):
            if name in table:
                del table[name]
                return
        raise KeyError(f'no hook named {name!r}')


class UpdateRule:
    """How one parameter is updated: its hyperparameters, state and hooks.

    Subclasses implement :meth:`init_state` (creating the arrays in
    :attr:`state`) and :meth:`update_core_cpu`, written against the array
    module of the parameter so that it also serves other devices
    (:meth:`update_core_gpu` calls it unless a subclass overrides it).

    Args:
        parent_hyperparam: The optimizer's hyperparameters to fall back to.

    Attributes:
        enabled (bool): Whether :meth:`update` changes the parameter.
        hyperparam (Hyperparameter): This parameter's hyperparameters.
        t (int): The number of updates done.
    """

    is_elementwise = False

    def __init__(self, parent_hyperparam: Hyperparameter | None = None) -> None:
        self._hooks = _HookTable()
        self._state: dict[str, Any] | None = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param: Variable | None = None

    @property
    def state(self) -> dict[str, Any] | None:
        """The state arrays, created on the first update (None before)."""
        return self._state

    def add_hook(self, hook: Callable[[UpdateRule, Any], Any], name: str | None = None,
                 timing: str = 'auto') -> None:
        """Adds a hook called as ``hook(rule, param)`` around each update.

        Args:
            hook: The callable.
            name: Its name (default: its ``name`` or ``__name__``).
            timing: ``'pre'``, ``'post'``, or ``'auto'`` for the hook's ``timing``
                attribute.
        """
        self._hooks.add(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Removes the hook registered as ``name``."""
        self._hooks.remove(name)

    def update(self, param: Variable) -> None:
        """Updates ``param`` in place from its gradient, unless the rule is disabled.

        Args:
            param: The parameter.
        """
        if not self.enabled:
            return
        self.t += 1
        if self._use_fp32_update and _dtype_or_none(param) == numpy.float16:
            self._update_through_fp32(param)
        else:
            self._update(param)

    def _update(self, param: Variable) -> None:
        if param._data is not None:
            self._prepare(param)
        loss_scale = param._loss_scale
        if loss_scale is not None:
            grad = param.grad
            if grad is not None:
                grad *= grad.dtype.type(1 / loss_scale)
            param._loss_scale = None
        for hook in self._hooks.pre.values():
            hook(self, param)
        self.update_core(param)
        for hook in self._hooks.post.values():
            hook(self, param)

    def _update_through_fp32(self, param: Variable) -> None:
        master = self._fp32_param
        if param.array is None:
            # An uninitialized parameter: its master copy is an uninitialized
            # float32 parameter, and the parameter itself stays as it is.
            from catena.initializers.constant import NaN
            from catena.parameter import Parameter

            self._update(Parameter(NaN(numpy.float32), name=param.name))
            return
        if master is None:
            master = self._fp32_param = Variable(param.array.astype(numpy.float32),
                                                 name=param.name)
        grad = param.grad
        master.grad = None if grad is None else grad.astype(numpy.float32)
        master._loss_scale = param._loss_scale
        param._loss_scale = None
        self._update(master)
        backend.copyto(param.array, master.array)
        master.grad = None

    def update_core(self, param: Variable) -> None:
        """Updates ``param`` on its device.

        A kernel that a plugin registered for this exact rule class and the
        parameter's array type (a fused update, see :class:`catena.backends.Kernel`)
        runs first; when there is none, or it declines, the ``update_core_*``
        method of the parameter's device runs.
        """
        data = param._data
        if self.__class__ in _registry.kernel_node_classes and data is not None \
                and self._update_with_kernel(param):
            return
        if data is None or isinstance(data, numpy.ndarray):
            if data is not None and data.ndim == 0:
                self._update_scalar_cpu(param)
            else:
                self.update_core_cpu(param)
            return
        with backend.using_device(param.device):
            self.update_core_gpu(param)

    def _update_scalar_cpu(self, param: Variable) -> None:
        # NumPy ufuncs return scalars for 0-d operands, and the in-place steps
        # of the rules (``out=`` buffers) need arrays: the rule updates
        # 1-element views of the parameter, its gradient and its state.
        data = param._data
        flat = data.reshape(1)
        view = Variable(flat, name=param.name)
        grad = param.grad
        if grad is not None:
            view.grad = grad.reshape(1)
        state = self._state
        scalars: set[str] = set()
        known: set[str] = set()
        if state is not None:
            for key, value in state.items():
                if isinstance(value, numpy.ndarray) and value.ndim == 0:
                    state[key] = value.reshape(1)
                    scalars.add(key)
            known.update(state)
        try:
            self.update_core_cpu(view)
        finally:
            state = self._state
            if state is not None:
                for key, value in state.items():
                    if (isinstance(value, numpy.ndarray) and value.shape == (1,)
                            and (key in scalars or key not in known)):
                        state[key] = value.reshape(())
        if view._data is not flat:
            numpy.copyto(data, view._data.reshape(()))

    def _update_with_kernel(self, param: Variable) -> bool:
        kernel = _registry.kernels.get((self.__class__, param._data.__class__))
        if kernel is None or (kernel.config_key is not None
                              and getattr(config, kernel.config_key) == 'never'):
            return False
        with backend.using_device(param.device):
            return kernel.forward(self, (param,)) is not Fallback

    def update_core_cpu(self, param: Variable) -> None:
        """Updates a parameter held in a NumPy (or device-generic) array."""
        raise NotImplementedError(f'{type(self).__name__} does not implement update_core_cpu')

    def update_core_gpu(self, param: Variable) -> None:
        """Updates a parameter held on a GPU (by default the generic implementation)."""
        self.update_core_cpu(param)

    def update_core_chainerx(self, param: Variable) -> None:
        """Updates a parameter held in a ChainerX array (Chainer API).

        catena never holds ChainerX arrays, so :meth:`update_core` never calls
        it; called directly, it runs the generic :meth:`update_core`.
        """
        self.update_core(param)

    def init_state(self, param: Variable) -> None:
        """Creates the state arrays in :attr:`state` for ``param`` (none by default)."""

    def set_hyperparams(self, **values: Any) -> None:
        """Sets this rule's own hyperparameters; None leaves one to the parent."""
        _assign(self.hyperparam, values)

    def init_zero_state(self, param: Variable, *names: str) -> dict[str, Any]:
        """Creates state arrays of zeros like ``param`` under ``names``; returns the state."""
        state = self._state
        if state is None:
            state = self._state = {}
        xp = backend.get_array_module(param.array)
        for name in names:
            state[name] = xp.zeros_like(param.array)
        return state

    def use_fp32_update(self, flag: bool = True) -> None:
        """Keeps a float32 master copy of a float16 parameter and updates that.

        Args:
            flag: Whether to use the float32 copy.
        """
        self._use_fp32_update = flag

    def _prepare(self, param: Variable) -> None:
        state = self._state
        if state is None:
            state = self._state = {}
            with backend.using_device(param.device):
                self.init_state(param)
            return
        on_cpu = isinstance(param._data, numpy.ndarray)
        device = None
        for name, value in state.items():
            if on_cpu:
                if isinstance(value, numpy.ndarray) or not hasattr(value, 'shape'):
                    continue
            elif not hasattr(value, 'shape') or isinstance(value, numpy.generic):
                continue
            device = device or param.device
            if backend.get_device_from_array(value) != device:
                state[name] = device.send(value)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the update count ``t`` and the state arrays.

        A rule whose state does not exist yet loads the state the file holds,
        if any; a disabled rule (a frozen parameter) may have none.
        """
        self.t = serializer('t', self.t)
        state = self._state
        if state is not None:
            for key in state:
                state[key] = serializer(key, state[key])
            return
        from catena import serializer as serializer_module

        if not isinstance(serializer, serializer_module.Deserializer):
            return
        loaded: dict[str, Any] = {}
        for key in self._state_keys():
            try:
                loaded[key] = serializer(key, None)
            except KeyError:
                if self.enabled:
                    raise
                loaded[key] = None
        complete = all(value is not None for value in loaded.values())
        self._state = loaded if complete else None

    def _state_keys(self) -> list[str]:
        """The names :meth:`init_state` creates, found on a one-element probe."""
        probe = copy.copy(self)
        # The probe and this rule share the dict while init_state runs, so an
        # init_state that reaches the rule through a closure fills it too.
        state: dict[str, Any] = {}
        probe._state = self._state = state
        array = numpy.zeros(1, dtype=numpy.float32)
        try:
            probe.init_state(Variable(array, grad=array.copy()))
        finally:
            self._state = None
        return list(state)


class Optimizer:
    """The base of all optimizers.

    Call :meth:`setup` with the link to optimize, then :meth:`update` once
    per step.

    Attributes:
        target (Link): The link being optimized.
        t (int): The number of updates done.
        epoch (int): The number of epochs counted by :meth:`new_epoch`.
        use_auto_new_epoch (bool): Whether an updater calls :meth:`new_epoch`.
    """

    target: Link | None = None
    t = 0
    epoch = 0
    use_auto_new_epoch = False
    _hooks: _HookTable | None = None
    _loss_scale: float | None = None
    _loss_scaling_is_dynamic = False
    _loss_scaling_multiplier = 1.0
    _loss_scaling_overflow_seen = False
    _found_non_finite = False

    def setup(self, link: Link) -> Optimizer:
        """Sets the link to optimize and resets the counters and hooks.

        Args:
            link: The target link.

        Returns:
            The optimizer itself.
        """
        if not isinstance(link, Link):
            raise TypeError('optimization target must be a link (a catena.Link), '
                            f'got {type(link).__name__}')
        self.target = link
        self.t = 0
        self.epoch = 0
        self._hooks = _HookTable()
        return self

    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any,
               **kwds: Any) -> None:
        """Updates the parameters (see :meth:`GradientMethod.update`)."""
        raise NotImplementedError

    def new_epoch(self, auto: bool = False) -> None:
        """Counts a new epoch.

        Args:
            auto: True when an updater calls it (``use_auto_new_epoch``).
        """
        if self.use_auto_new_epoch and not auto:
            raise RuntimeError('new_epoch(auto=False) was called, but an updater counts the '
                               'epochs (use_auto_new_epoch is True)')
        if auto and not self.use_auto_new_epoch:
            raise RuntimeError('new_epoch(auto=True) was called, but use_auto_new_epoch is '
                               'False')
        self.epoch += 1

    # ----------------------------------------------------------------- hooks

    def _hook_table(self) -> _HookTable:
        if self._hooks is None:
            raise RuntimeError('call setup() before adding or removing hooks')
        return self._hooks

    def add_hook(self, hook: Callable[..., Any], name: str | None = None,
                 timing: str = 'auto') -> None:
        """Adds a hook called around each update.

        A hook is called as ``hook(optimizer)``, or, when its
        ``call_for_each_param`` attribute is true, as ``hook(rule, param)``
        for every parameter.

        Args:
            hook: The callable.
            name: Its name (default: its ``name`` or ``__name__``).
            timing: ``'pre'``, ``'post'``, or ``'auto'`` for the hook's ``timing``.
        """
        self._hook_table().add(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Removes the hook registered as ``name``."""
        self._hook_table().remove(name)

    def call_hooks(self, timing: str = 'pre') -> None:
        """Calls the hooks of ``timing`` (``'pre'`` or ``'post'``)."""
        if timing not in ('pre', 'post'):
            raise ValueError(f"timing must be 'pre' or 'post', got {timing!r}")
        table = self._hook_table()
        for hook in list((table.pre if timing == 'pre' else table.post).values()):
            self._call_hook(hook)

    def _call_hook(self, hook: Callable[..., Any]) -> None:
        if getattr(hook, 'call_for_each_param', False):
            for param in self._target().params(False):
                hook(param.update_rule, param)
        else:
            hook(self)

    def _target(self) -> Link:
        if self.target is None:
            raise RuntimeError(f'{type(self).__name__} has no target: call setup(link) first')
        return self.target

    # ---------------------------------------------------------- loss scaling

    def loss_scaling(self, interval: int = 1000, scale: float | None = None) -> None:
        """Multiplies the loss before backprop to keep float16 gradients representable.

        The update rules divide the gradients by the same factor.

        Args:
            interval: With dynamic scaling, the number of steps over which the
                factor doubles once an overflow has been seen.
            scale: A fixed factor (static scaling), or None for dynamic
                scaling: the factor starts at 1 and doubles every step until a
                gradient is not finite; then each non-finite step is skipped
                and halves the factor, and each good step multiplies it by
                ``2 ** (1 / interval)``. It stays within [1, 65504].
        """
        if scale is None:
            if not isinstance(interval, int) or interval < 1:
                raise ValueError(f'interval must be an int of at least 1, got {interval!r}')
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = 2.0 ** (1.0 / interval)
            self._loss_scaling_overflow_seen = False
            return
        if not scale > 0:
            raise ValueError(f'scale must be a positive number, got {scale!r}')
        self._loss_scaling_is_dynamic = False
        self._loss_scale = scale

    def set_loss_scale(self, loss_scale: float) -> None:
        """Sets a fixed loss scale (static loss scaling)."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> bool:
        """With dynamic loss scaling, checks the gradients for NaN or infinity.

        Returns:
            bool: Whether a non-finite gradient was found (always False
            without dynamic loss scaling).
        """
        self._found_non_finite = False
        if not self._loss_scaling_is_dynamic:
            return False
        bad = [name for name, param in self._target().namedparams(False)
               if param.grad is not None
               and not bool(backend.get_array_module(param.grad).isfinite(param.grad).all())]
        if bad:
            self._found_non_finite = True
            self._loss_scaling_overflow_seen = True
            warnings.warn(f'non-finite gradients in {", ".join(bad)} (update {self.t}, '
                          f'loss scale {self._loss_scale}); the update is skipped',
                          RuntimeWarning, stacklevel=2)
        return self._found_non_finite

    def is_safe_to_update(self) -> bool:
        """Whether the last :meth:`check_nan_in_grads` found only finite gradients."""
        return not self._found_non_finite

    def update_loss_scale(self) -> None:
        """Adjusts a dynamic loss scale after a step (see :meth:`loss_scaling`)."""
        if not self._loss_scaling_is_dynamic or self._loss_scale is None:
            return
        if self._found_non_finite:
            multiplier = 0.5
        elif self._loss_scaling_overflow_seen:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        self._loss_scale = min(max(self._loss_scale * multiplier, 1.0), _LOSS_SCALE_MAX)

    # --------------------------------------------------------- serialization

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``t``, ``epoch`` and every update rule's state."""
        self.t = serializer('t', self.t)
        self.epoch = serializer('epoch', self.epoch)
        for name, param in self._target().namedparams():
            rule = getattr(param, 'update_rule', None)
            if rule is not None:
                rule.serialize(serializer[name[1:]])


class GradientMethod(Optimizer):
    """The base of optimizers that update each parameter from its gradient.

    Subclasses implement :meth:`create_update_rule`.

    Attributes:
        hyperparam (Hyperparameter): The hyperparameters every rule falls back to.
    """

    def __init__(self) -> None:
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False
        self._use_cleargrads = True

    def setup(self, link: Link) -> GradientMethod:
        """Sets the link and gives each of its parameters a fresh update rule.

        Args:
            link: The target link.

        Returns:
            The optimizer itself.
        """
        super().setup(link)
        for param in link.params():
            rule = self.create_update_rule()
            if self._use_fp32_update:
                rule.use_fp32_update()
            param.update_rule = rule
        return self

    def create_update_rule(self) -> UpdateRule:
        """Returns a new update rule for one parameter."""
        raise NotImplementedError

    def set_hyperparams(self, **values: Any) -> None:
        """Sets the optimizer's hyperparameters (None values are skipped)."""
        _assign(self.hyperparam, values)

    def _call_hook(self, hook: Callable[..., Any]) -> None:
        super()._call_hook(hook)
        self.reallocate_cleared_grads()  # a hook may have cleared gradients

    def reallocate_cleared_grads(self) -> None:
        """Gives initialized parameters without a gradient a zero gradient."""
        for param in self._target().params(False):
            if param._grad_var is None:
                param.grad = backend.get_array_module(param.array).zeros_like(param.array)

    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any,
               **kwds: Any) -> None:
        """Updates every parameter with its rule.

        With ``lossfun``, first computes ``loss = lossfun(*args, **kwds)``,
        clears the gradients and backpropagates (scaled when loss scaling is
        on). Without it, the gradients already present are used.

        Args:
            lossfun: A callable returning a loss Variable, or None.
            args: Positional arguments of ``lossfun``.
            kwds: Keyword arguments of ``lossfun``.
        """
        target = self._target()
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if self._use_cleargrads:
                target.cleargrads()
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore', DeprecationWarning)
                    target.zerograds()
            loss.backward(loss_scale=self._loss_scale)
            del loss
        self.reallocate_cleared_grads()
        self.check_nan_in_grads()
        self.call_hooks('pre')
        self.t += 1
        if self._found_non_finite:
            for param in target.params(False):
                param._loss_scale = None
        else:
            for param in target.params():
                rule = param.update_rule
                if rule is not None:
                    rule.update(param)
        self.reallocate_cleared_grads()
        self.call_hooks('post')
        self.update_loss_scale()

    def use_cleargrads(self, use: bool = True) -> None:
        """Chooses cleargrads (default) or the deprecated zerograds before backprop."""
        warnings.warn('GradientMethod.use_cleargrads is deprecated', DeprecationWarning,
                      stacklevel=2)
        self._use_cleargrads = use

    def use_fp32_update(self, flag: bool = True) -> None:
        """Updates float16 parameters through float32 master copies.

        Args:
            flag: Whether to use the float32 copies.
        """
        self._use_fp32_update = flag
        if self.target is not None:
            for param in self.target.params():
                if param.update_rule is not None:
                    param.update_rule.use_fp32_update(flag)


def _assign(hyperparam: Hyperparameter, values: dict[str, Any]) -> None:
    for name, value in values.items():
        if value is not None:
            setattr(hyperparam, name, value)


def _sum_sqnorm(arrays: Iterable[Any]) -> float:
    """The sum of squared elements of ``arrays``, accumulated in float64 on the host."""
    total = 0.0
    for array in arrays:
        if array is None:
            continue
        flat = array.ravel()
        total += float(flat.dot(flat)) if flat.dtype.kind == 'f' and flat.dtype.itemsize >= 4 \
            else float((flat.astype(numpy.float64) ** 2).sum())
    return total



_MOVED_HOOKS = ('WeightDecay', 'Lasso', 'GradientClipping', 'GradientNoise',
                'GradientHardClipping')


def __getattr__(name: str) -> Any:
    """The hooks that moved to :mod:`catena.optimizer_hooks`, with a warning."""
    if name in _MOVED_HOOKS:
        import catena.optimizer_hooks

        warnings.warn(make_deprecation_message(name), DeprecationWarning, stacklevel=2)
        return getattr(catena.optimizer_hooks, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def _dtype_or_none(param: Variable) -> Any:
    """The dtype of ``param``, or None for an uninitialized one that has no dtype yet."""
    try:
        return param.dtype
    except (RuntimeError, AttributeError):
        return None

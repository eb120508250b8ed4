"""Trainable variables (:class:`Parameter`), possibly initialized lazily."""

from __future__ import annotations

import weakref
from typing import Any

import numpy

from catena import _dtype
from catena.initializers import _base as _initializers
from catena.initializers.constant import Constant, NaN
from catena.variable import Variable


class Parameter(Variable):
    """A variable that an optimizer updates.

    A parameter may be created without an array: it then keeps its
    initializer and gets its array on :meth:`initialize` (links call it once
    they know the input size).

    Args:
        initializer: An initializer, a scalar, an array, or None (NaN). An
            array with no ``shape`` given becomes the parameter's array.
        shape: The shape to initialize now, or None to defer.
        name: The name of the parameter.
    """

    __slots__ = ('initializer', '_grad_initializer', 'update_rule', '_initial_device',
                 '_peers', '_nan_grad')

    _grad_initializer: Any

    def __init__(self, initializer: Any = None, shape: Any = None,
                 name: str | None = None) -> None:
        self.update_rule: Any = None
        self._initial_device: Any = None
        # Weak references to the parameters sharing this one's array (shallow
        # copies); one list object shared by the whole group, or None.
        self._peers: list[weakref.ref[Parameter]] | None = None
        # The NaN gradient's stand-in until it is first read (see _set_nan_grad).
        self._nan_grad: numpy.ndarray | None = None
        if initializer is None:
            initializer = NaN()
        elif numpy.isscalar(initializer):
            initializer = Constant(initializer)
        if shape is None:
            if hasattr(initializer, 'shape') and hasattr(initializer, 'dtype'):
                super().__init__(initializer, name=name)
                self.initializer = Constant(initializer)
                self._grad_initializer = None
                return
            super().__init__(None, name=name)
            self.initializer = initializer
            self._grad_initializer = NaN(getattr(initializer, 'dtype', None))
            return
        if hasattr(initializer, 'shape') and hasattr(initializer, 'dtype'):
            from catena import backend

            device = backend.get_device_from_array(initializer)
            initializer = Constant(initializer)
        else:
            device = None
        self.initializer = initializer
        data = _initializers.generate_array(initializer, shape, numpy, device=device)
        super().__init__(data, name=name)
        self._set_nan_grad(data, device)
        # As in Chainer, a later initialize() gives no gradient.
        self._grad_initializer = None

    @property
    def array(self) -> Any:
        """The underlying array (shared with the parameter's shallow copies)."""
        return self._data

    @array.setter
    def array(self, array: Any) -> None:
        Variable.array.fset(self, array)  # type: ignore[attr-defined]
        for ref in self._peers or ():
            peer = ref()
            if peer is not None and peer is not self:
                Variable.array.fset(peer, array)  # type: ignore[attr-defined]

    data = array

    @property
    def grad(self) -> Any:
        """The gradient array, or None.

        Raises:
            RuntimeError: For an uninitialized parameter whose gradient is
                still to be made when it is initialized (until
                :meth:`cleargrad` says there is none).
        """
        if self._nan_grad is not None:
            self._materialize_grad()
        if self._data is None and self._grad_initializer is not None:
            name = f' {self._name!r}' if self._name else ''
            raise RuntimeError(
                f'the gradient of the uninitialized parameter{name} does not exist yet: '
                'it is made when the parameter '
                'is initialized (initialize(shape), or a first forward pass of its link); '
                'call cleargrad() first to read None instead')
        grad_var = self._grad_var
        return None if grad_var is None else grad_var._data

    @grad.setter
    def grad(self, grad: Any) -> None:
        Variable.grad.fset(self, grad)  # type: ignore[attr-defined]

    @property
    def grad_var(self) -> Variable | None:
        """The gradient as a Variable (part of a graph after double backprop)."""
        if self._nan_grad is not None:
            self._materialize_grad()
        return self._grad_var

    @grad_var.setter
    def grad_var(self, grad_var: Variable | None) -> None:
        Variable.grad_var.fset(self, grad_var)  # type: ignore[attr-defined]

    def _set_nan_grad(self, data: Any, device: Any) -> None:
        """Gives the new array ``data`` a gradient of NaN.

        Where ``data`` is a NumPy array (on a device whose ``xp`` is NumPy),
        the gradient is first a read-only NaN view that takes no memory, made
        a real array when it is first read through :attr:`grad`,
        :attr:`grad_var` or :meth:`zerograd`, or moved to another array
        module: a model that only runs inference never allocates its
        gradients. Code inside catena that reads ``_grad_var`` directly gets
        NaN values, as from the real array, but must not write into them.
        """
        if (type(data) is numpy.ndarray and data.dtype.kind == 'f'
                and (device is None or device.xp is numpy)):
            nan = numpy.broadcast_to(numpy.array(numpy.nan, dtype=data.dtype), data.shape)
            self._grad_var = Variable(nan)
            self._nan_grad = nan
            return
        self.grad = _initializers.generate_array(
            NaN(), data.shape, numpy, dtype=data.dtype, device=device)

    def _materialize_grad(self) -> None:
        """Replaces the NaN stand-in of :meth:`_set_nan_grad`, if still held, by a real array."""
        nan = self._nan_grad
        self._nan_grad = None
        grad_var = self._grad_var
        # The gradient variable may be shared with shallow copies: they see the array too.
        if nan is not None and grad_var is not None and grad_var._data is nan:
            grad_var._data = numpy.full(nan.shape, numpy.nan, dtype=nan.dtype)

    def __copy__(self) -> Parameter:
        """A shallow copy: a new Parameter that shares the array, even one set later."""
        new = Parameter(self.initializer, name=self._name)
        Variable.array.fset(new, self._data)  # type: ignore[attr-defined]
        new._grad_var = self._grad_var
        new._nan_grad = self._nan_grad
        new._grad_initializer = self._grad_initializer
        new._requires_grad = self._requires_grad
        new.update_rule = self.update_rule
        new._initial_device = self._initial_device
        peers = self._peers
        if peers is None:
            peers = self._peers = [weakref.ref(self)]
        peers.append(weakref.ref(new))
        new._peers = peers
        return new

    @property
    def is_initialized(self) -> bool:
        """Whether the parameter has an array."""
        return self._data is not None

    @property
    def dtype(self) -> numpy.dtype:
        if self._data is not None:
            return self._data.dtype
        if not hasattr(self.initializer, 'dtype'):
            raise RuntimeError(
                'the dtype of an uninitialized parameter is not determined yet: its '
                'initializer has no dtype attribute')
        return _dtype.get_dtype(self.initializer.dtype)

    def initialize(self, shape: Any) -> None:
        """Creates the array of ``shape`` with the initializer.

        Args:
            shape: The shape of the parameter.
        """
        device = self._initial_device
        data = _initializers.generate_array(self.initializer, shape, numpy, device=device)
        grad_initializer = self._grad_initializer
        if type(grad_initializer) is NaN:
            self.array = data
            self._set_nan_grad(data, device)
            return
        grad = None
        if grad_initializer is not None:
            grad = _initializers.generate_array(
                grad_initializer, shape, numpy, dtype=data.dtype, device=device)
        self.array = data
        self.grad = grad

    def cleargrad(self) -> None:
        super().cleargrad()
        if self._data is None:
            self._grad_initializer = None

    def zerograd(self) -> None:
        if self._nan_grad is not None:
            self._materialize_grad()
        super().zerograd()
        if self._data is None:
            self._grad_initializer = Constant(0, getattr(self.initializer, 'dtype', None))

    def addgrad(self, var: Variable) -> None:
        """Adds the gradient of ``var``; an uninitialized parameter is first
        initialized to ``var``'s shape on ``var``'s device, and an
        uninitialized ``var`` adds nothing.

        Args:
            var: The variable whose gradient is added.
        """
        if var._data is None:
            return  # an uninitialized parameter has no gradient to add
        if self._data is None:
            self._initial_device = var.device
            self.initialize(var.shape)
        super().addgrad(var)

    def update(self) -> None:
        """Updates the array with the update rule, when one is set and enabled."""
        if self.update_rule is not None:
            self.update_rule.update(self)

    def to_device(self, device: Any) -> Parameter:
        from catena import backend

        target = backend.get_device(device)
        if self._data is None:
            self._initial_device = target
            return self
        if self._nan_grad is not None and target.xp is not numpy:
            self._materialize_grad()
        super().to_device(target)
        return self

    def __reduce__(self) -> Any:
        grad = None if self._grad_var is None else self._grad_var._data
        return _recover_parameter, (self._data, self._name, grad, self.initializer,
                                    self.update_rule)

    def __repr__(self) -> str:
        if self._data is None:
            return f'parameter({self._name or ""} uninitialized)'
        return 'parameter' + super().__repr__()[len('variable'):]


def _recover_parameter(data: Any, name: str | None, grad: Any, initializer: Any,
                       update_rule: Any) -> Parameter:
    # Rebuilt as an uninitialized parameter that is then given its arrays, so
    # that a copy gets a NaN gradient whenever it is initialized again.
    parameter = Parameter(initializer, name=name)
    if data is not None:
        parameter.array = data
        parameter.grad = grad
    parameter.update_rule = update_rule
    return parameter

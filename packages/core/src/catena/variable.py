"""The user-facing array wrapper of the graph (:class:`Variable`)."""

from __future__ import annotations

import warnings
import weakref
from typing import TYPE_CHECKING, Any

import numpy

from catena import variable_node as _variable_node
from catena.backends import _registry
from catena.variable_node import VariableNode

if TYPE_CHECKING:
    import types

    from catena.backends._device import Device
    from catena.function_node import FunctionNode


def _check_array(array: Any, what: str) -> None:
    if array is None:
        return
    if isinstance(array, numpy.ndarray):
        return
    if _registry.device_type_of(array) is None or isinstance(array, numpy.generic):
        raise TypeError(
            f'{what} must be an array of a registered device (numpy.ndarray, a CuPy array, ...) '
            f'or None; got {type(array).__module__}.{type(array).__qualname__}')


def _check_grad(variable: Variable, grad: Any) -> None:
    """Raises if ``grad`` cannot be the gradient of ``variable``.

    A gradient of another array type or dtype is a TypeError, one of another
    shape a ValueError (as in Chainer).
    """
    if grad is None:
        return
    if not isinstance(grad, numpy.ndarray) and (
            isinstance(grad, numpy.generic) or _registry.device_type_of(grad) is None):
        raise TypeError(
            f'the gradient of variable {variable.name or ""!s} must be an array; '
            f'got {type(grad).__module__}.{type(grad).__qualname__}')
    array = variable._data
    if array is None:
        return
    name = variable.name or ''
    if type(grad) is not type(array) and \
            _registry.device_type_of(grad) is not _registry.device_type_of(array):
        raise TypeError(
            f'Type of data and grad mismatch in variable {name}\n'
            f'grad: {type(grad).__qualname__} != data: {type(array).__qualname__}')
    if grad.dtype != array.dtype:
        raise TypeError(
            f'Dtype of data and grad mismatch in variable {name}\n'
            f'grad: {grad.dtype} != data: {array.dtype}')
    if grad.shape != array.shape:
        raise ValueError(
            f'Shape of data and grad mismatch in variable {name}\n'
            f'grad: {grad.shape} != data: {array.shape}')


def _refuse_comparison(operator: str) -> Any:
    def compare(self: Variable, other: object) -> bool:
        raise TypeError(
            f'Variables cannot be compared with {operator}; compare their arrays '
            f'(x.array {operator} y.array)')

    return compare


class Variable:
    """An array with a place in the computational graph.

    A variable holds an array (``array``, also ``data``), its gradient
    (``grad``, also as a variable in ``grad_var``) and a reference to the
    :class:`~catena.FunctionNode` that created it, through which
    :meth:`backward` propagates gradients.

    Args:
        data: The initial array, or None for an empty variable.
        name: A name shown in graph dumps and messages.
        grad: The initial gradient array.
        requires_grad: Whether :meth:`backward` computes a gradient for it.
    """

    __slots__ = ('_data', '_vnode', '_grad_var', '_requires_grad', '_name', '_loss_scale',
                 '__weakref__')

    # NumPy defers binary operators with a Variable to the Variable's methods.
    __array_ufunc__ = None
    # Chainer's flag for ChainerX arrays, which catena never holds.
    _has_chainerx_array = False

    def __init__(self, data: Any = None, *, name: str | None = None, grad: Any = None,
                 requires_grad: bool = True) -> None:
        _check_array(data, 'Variable data')
        self._data = data
        self._vnode: VariableNode | None = None
        self._grad_var: Variable | None = None
        self._requires_grad = requires_grad
        self._name = name
        self._loss_scale: float | None = None
        if grad is not None:
            self.grad = grad

    @classmethod
    def _init_unchecked(cls, data: Any = None, name: str | None = None, grad: Any = None,
                        requires_grad: bool = True, is_chainerx_array: bool | None = None,
                        node: VariableNode | None = None, device: Any = None) -> Variable:
        """Builds a variable without checking ``data`` (Chainer's internal constructor).

        ``is_chainerx_array`` and ``device`` are accepted for compatibility;
        catena holds no ChainerX arrays, so a true ``is_chainerx_array`` is an
        error.
        """
        if is_chainerx_array:
            raise RuntimeError('ChainerX arrays are not supported by catena')
        variable = cls.__new__(cls)
        variable._data = data
        variable._vnode = None
        variable._grad_var = None if grad is None else Variable(grad)
        variable._requires_grad = requires_grad
        variable._name = name
        variable._loss_scale = None
        if node is not None:
            variable._vnode = node
            node._variable = weakref.ref(variable)
        return variable

    @classmethod
    def _from_node(cls, node: VariableNode) -> Variable:
        """Builds a variable that stands for an existing node (whose variable died)."""
        variable = cls.__new__(cls)
        variable._data = node.data
        variable._grad_var = None
        variable._requires_grad = node.requires_grad
        variable._name = node.name
        variable._loss_scale = None
        variable._vnode = node
        node._variable = weakref.ref(variable)
        return variable

    # ----------------------------------------------------------------- arrays

    @property
    def array(self) -> Any:
        """The underlying array."""
        return self._data

    @array.setter
    def array(self, array: Any) -> None:
        _check_array(array, 'Variable.array')
        self._data = array
        node = self._vnode
        if node is not None:
            node._set_data_type(array)
            if node.data is not None:
                node.data = array

    data = array

    @property
    def grad(self) -> Any:
        """The gradient array, or None."""
        grad_var = self._grad_var
        return None if grad_var is None else grad_var._data

    @grad.setter
    def grad(self, grad: Any) -> None:
        if grad is None:
            self._grad_var = None
            return
        _check_grad(self, grad)
        self._grad_var = Variable(grad)

    @property
    def _grad(self) -> Any:
        # Chainer's internal name of the gradient array.
        return self.grad

    @property
    def grad_var(self) -> Variable | None:
        """The gradient as a Variable (part of a graph after double backprop)."""
        return self._grad_var

    @grad_var.setter
    def grad_var(self, grad_var: Variable | None) -> None:
        if grad_var is not None:
            _check_grad(self, grad_var._data)
        self._grad_var = grad_var

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        return self._data.ndim  # type: ignore[no-any-return]

    @property
    def size(self) -> int:
        return self._data.size  # type: ignore[no-any-return]

    @property
    def dtype(self) -> numpy.dtype:
        return self._data.dtype

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError('len() of a 0-dimensional Variable')
        return len(self._data)

    @property
    def xp(self) -> types.ModuleType:
        """The array module of the array (NumPy, CuPy, ...)."""
        return self.device.xp

    @property
    def device(self) -> Device:
        """The device that holds the array."""
        from catena import backend

        return backend.get_device_from_array(self._data)

    def item(self) -> Any:
        """Returns the single element of the array as a Python scalar."""
        if self._data.size != 1:
            raise ValueError(
                f'Variable.item() needs an array of size 1; this one has shape {self.shape}')
        return self._data.item()

    # ------------------------------------------------------------------ graph

    @property
    def node(self) -> VariableNode:
        """The :class:`VariableNode` of this variable in the graph."""
        node = self._vnode
        if node is None:
            node = self._vnode = VariableNode(self, self._name)
        return node

    @property
    def _node(self) -> VariableNode:
        # Chainer's attribute name; catena creates the node on first use.
        return self.node

    @property
    def name(self) -> str | None:
        return self._name

    @name.setter
    def name(self, name: str | None) -> None:
        self._name = name
        if self._vnode is not None:
            self._vnode.name = name

    @property
    def label(self) -> str:
        """A short description of the array (shape and dtype)."""
        return self.node.label

    @property
    def requires_grad(self) -> bool:
        """Whether backprop computes a gradient for this variable."""
        return self._requires_grad

    @property
    def rank(self) -> int:
        node = self._vnode
        return 0 if node is None else node.rank

    @property
    def creator(self) -> Any:
        """The function that created this variable (a legacy Function if one did)."""
        node = self._vnode
        return None if node is None else node.creator

    @creator.setter
    def creator(self, func: Any) -> None:
        self.node.set_creator(func)

    @property
    def creator_node(self) -> FunctionNode | None:
        """The :class:`~catena.FunctionNode` that created this variable."""
        node = self._vnode
        return None if node is None else node.creator_node

    @creator_node.setter
    def creator_node(self, func: FunctionNode) -> None:
        self.node.set_creator_node(func)

    def set_creator(self, gen_func: Any) -> None:
        """Notifies the variable that ``gen_func`` created it."""
        self.node.set_creator(gen_func)

    def set_creator_node(self, fnode: FunctionNode) -> None:
        """Notifies the variable that ``fnode`` created it."""
        self.node.set_creator_node(fnode)

    def retain_data(self) -> None:
        """Lets the graph node keep a reference to the array."""
        self.node.data = self._data

    def unchain(self) -> None:
        """Removes the reference to the creator: this variable becomes a leaf."""
        if self._vnode is not None:
            self._vnode.creator_node = None

    def unchain_backward(self) -> None:
        """Cuts every reference from this variable backwards through the graph."""
        from catena import _backprop

        _backprop.unchain_backward(self)

    # ------------------------------------------------------------- gradients

    def cleargrad(self) -> None:
        """Clears the gradient (sets it to None)."""
        self._grad_var = None

    def zerograd(self) -> None:
        """Fills the gradient with zeros (deprecated: use :meth:`cleargrad`)."""
        warnings.warn('Variable.zerograd is deprecated; use Variable.cleargrad instead',
                      DeprecationWarning, stacklevel=2)
        if self._data is None:
            return
        grad_var = self._grad_var
        if grad_var is None:
            self.grad = self.xp.zeros_like(self._data)
        else:
            grad_var.unchain()
            grad_var._data.fill(0)

    def addgrad(self, var: Variable) -> None:
        """Adds the gradient of ``var`` (possibly on another device) to this one.

        Args:
            var: The variable whose gradient is added.
        """
        from catena import backend

        src = var.grad
        if src is None:
            return
        if self._data is None:
            raise RuntimeError('cannot add a gradient to a variable without an array')
        device = backend.get_device_from_array(self._data)
        src = device.send_array(src)
        dst = self.grad
        if dst is None:
            self.grad = src.copy()
        else:
            self._grad_var = Variable(dst + src)

    def backward(self, retain_grad: bool = False, enable_double_backprop: bool = False,
                 loss_scale: float | None = None) -> None:
        """Runs backpropagation from this variable.

        The gradient of every leaf variable reachable backwards through the
        graph (with ``requires_grad``) is added to its ``grad``.

        Args:
            retain_grad: Keep the gradients of intermediate variables too.
            enable_double_backprop: Record the backward computation as a graph,
                so that the gradients can be differentiated again.
            loss_scale: Multiplies the initial gradient; the leaves remember it
                so that optimizers divide it out.
        """
        from catena import _backprop

        _backprop.backward_from_variable(self, retain_grad, enable_double_backprop,
                                         loss_scale)

    # --------------------------------------------------------------- devices

    def to_device(self, device: Any) -> Variable:
        """Moves the array and the gradient to a device, in place.

        Args:
            device: A device or anything :func:`catena.get_device` accepts.

        Returns:
            This variable.
        """
        from catena import backend

        target = backend.get_device(device)
        if self._data is not None:
            self._set_array_moved(target.send_array(self._data))
        grad_var = self._grad_var
        if grad_var is not None:
            grad_var._set_array_moved(target.send_array(grad_var._data))
        return self

    def _set_array_moved(self, array: Any) -> None:
        self._data = array
        node = self._vnode
        if node is not None and node.data is not None:
            node.data = array

    def to_cpu(self) -> Variable:
        """Moves the array to the NumPy CPU device, in place."""
        return self.to_device('@numpy')

    def to_gpu(self, device: Any = None) -> Variable:
        """Moves the array to a GPU (``device``: an id, a spec, or None for the current)."""
        from catena.device_resident import _gpu_device

        return self.to_device(_gpu_device(device))

    def to_intel64(self) -> Variable:
        """Moves the array to the ``'@intel64'`` device (needs catena-intel64)."""
        return self.to_device('@intel64')

    def copydata(self, var: Variable) -> None:
        """Copies the array of ``var`` into this variable's array (across devices)."""
        from catena import backend

        if var._data is None:
            if self._data is None:
                return  # nothing to copy between two uninitialized variables
            initialize = getattr(var, 'initialize', None)  # a Parameter initializes itself
            if initialize is None:
                raise ValueError(f'copydata: the source variable {var.name!r} has no array; '
                                 f'this one has shape {self.shape}')
            initialize(self.shape)
        if self._data is None:
            self._data = backend.get_device('@numpy').send_array(var._data).copy()
            return
        backend.copyto(self._data, var._data)

    # ---------------------------------------------------------- descriptions

    def summary(self) -> str:
        """Returns a short identification: ``<variable NAME>`` or ``<variable at 0x...>``."""
        if self._name:
            return f'<variable {self._name}>'
        return f'<variable at 0x{id(self):x}>'

    def debug_print(self) -> str:
        """Returns a multi-line description with statistics of the array and grad."""
        array = self._data
        if array is None:
            device = backend_name = shape = dtype = statistics = None
        else:
            device = _device_description(array)
            kind = type(array)
            backend_name = f'{kind.__module__}.{kind.__qualname__}'
            shape, dtype = array.shape, array.dtype
            statistics = _statistics(array)
        grad = self.grad
        if grad is None:
            grad_text = 'None'
        elif not _to_numpy(grad).any():
            grad_text = '0'
        else:
            grad_text = _statistics(grad)
        return '\n'.join([
            self.summary(), f'- device: {device}', f'- backend: {backend_name}',
            f'- shape: {shape}', f'- dtype: {dtype}', f'- statistics: {statistics}',
            f'- grad: {grad_text}'])

    def __repr__(self) -> str:
        return _to_string(self, 'variable', ', ')

    def __str__(self) -> str:
        return _to_string(self, 'variable', ' ')

    # ------------------------------------------------------------- operators

    def reshape(self, *shape: Any) -> Variable:
        """Returns a reshaped variable (see :func:`catena.functions.reshape`)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        from catena.functions.array.reshape import reshape

        return reshape(self, shape)

    def transpose(self, *axes: Any) -> Variable:
        """Returns a variable with permuted axes (see :func:`catena.functions.transpose`)."""
        permutation: Any = axes or None
        if len(axes) == 1 and (isinstance(axes[0], (tuple, list)) or axes[0] is None):
            permutation = axes[0]
        from catena.functions.array.transpose import transpose

        return transpose(self, permutation)

    @property
    def T(self) -> Variable:  # noqa: N802 - NumPy's spelling
        """The variable with its axes reversed."""
        return self.transpose()

    def mean(self, axis: Any = None, *, weights: Any = None,
             keepdims: bool = False) -> Variable:
        """Returns the (weighted) average (see :func:`catena.functions.average`)."""
        from catena.functions.math.average import average

        return average(self, axis=axis, weights=weights, keepdims=keepdims)

    def __getitem__(self, slices: Any) -> Variable:
        from catena.functions.array.get_item import get_item

        return get_item(self, slices)

    __eq__ = _refuse_comparison('==')
    __ne__ = _refuse_comparison('!=')
    __lt__ = _refuse_comparison('<')
    __le__ = _refuse_comparison('<=')
    __gt__ = _refuse_comparison('>')
    __ge__ = _refuse_comparison('>=')

    def __bool__(self) -> bool:
        raise TypeError(
            'the truth value of a Variable is ambiguous; use its array (bool(x.array))')

    def __hash__(self) -> int:
        raise TypeError(f'unhashable type: {type(self).__name__!r}')

    def __pos__(self) -> Variable:
        """``+x``: the variable itself, as in Chainer (no node is added to the graph)."""
        return self

    if TYPE_CHECKING:
        # Defined by catena.functions.math.basic_math when catena is imported.
        def __neg__(self) -> Variable: ...
        def __abs__(self) -> Variable: ...
        def __add__(self, other: Any) -> Variable: ...
        def __radd__(self, other: Any) -> Variable: ...
        def __sub__(self, other: Any) -> Variable: ...
        def __rsub__(self, other: Any) -> Variable: ...
        def __mul__(self, other: Any) -> Variable: ...
        def __rmul__(self, other: Any) -> Variable: ...
        def __truediv__(self, other: Any) -> Variable: ...
        def __rtruediv__(self, other: Any) -> Variable: ...
        def __floordiv__(self, other: Any) -> Variable: ...
        def __rfloordiv__(self, other: Any) -> Variable: ...
        def __pow__(self, other: Any) -> Variable: ...
        def __rpow__(self, other: Any) -> Variable: ...
        def __matmul__(self, other: Any) -> Variable: ...
        def __rmatmul__(self, other: Any) -> Variable: ...


def _statistics(array: Any) -> str:
    host = numpy.asarray(_to_numpy(array))
    if host.size == 0 or host.dtype.kind not in 'fiub':
        return f'size {host.size}'
    return f'mean={float(host.mean()):.8f}, std={float(host.std()):.8f}'


def _device_description(array: Any) -> str:
    from catena import backend

    device = backend.get_device_from_array(array)
    return 'CPU' if device.xp is numpy else str(device)


def _to_string(variable: Variable, kind: str, separator: str) -> str:
    """``kind(...)`` or ``kind NAME(...)`` around the array as NumPy prints it."""
    prefix = kind if not variable.name else f'{kind} {variable.name}'
    array = variable.array
    if array is None:
        return f'{prefix}(None)'
    host = numpy.asarray(_to_numpy(array))
    if host.size == 0 and host.shape != (0,) and separator == ', ':
        return f'{prefix}([], shape={host.shape!r})'
    body = numpy.array2string(host, separator=separator, prefix=prefix + '(')
    return f'{prefix}({body})'


def _to_numpy(array: Any) -> Any:
    from catena import backend

    return backend.get_device_from_array(array).to_numpy(array)


def as_variable(obj: Any) -> Variable:
    """Returns ``obj`` if it is a Variable, else a Variable that does not require grad.

    Args:
        obj: A Variable or an array.
    """
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


def as_array(obj: Any) -> Any:
    """Returns the array of a Variable, or ``obj`` itself if it is an array."""
    if isinstance(obj, Variable):
        return obj.array
    return obj


_variable_node._variable_class = Variable

# `Parameter` lives in its own module; keep `catena.variable.Parameter` working.
from catena.parameter import Parameter  # noqa: E402

__all__ = ['Parameter', 'Variable', 'VariableNode', 'as_array', 'as_variable']

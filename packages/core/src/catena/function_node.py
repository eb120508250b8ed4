"""Differentiable operations (:class:`FunctionNode`)."""

from __future__ import annotations

import traceback
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import numpy

from catena import _engine, _function_hooks
from catena.backends import _registry
from catena.backends._kernel import Fallback
from catena.configuration import config, flags
from catena.utils import type_check
from catena.variable import Variable
from catena.variable_node import VariableNode, _bare_node, _dead_reference

_new_variable = object.__new__


def _new_output(array: Any, requires_grad: bool) -> Variable:
    variable = _new_variable(Variable)
    variable._data = array
    variable._vnode = None
    variable._grad_var = None
    variable._requires_grad = requires_grad
    variable._name = None
    variable._loss_scale = None
    return variable


def _config_value(key: str) -> Any:
    try:
        return getattr(flags, key)
    except AttributeError:  # a key not defined yet: config loads the plugins' defaults
        return getattr(config, key)


def _as_input_variable(x: Any) -> Variable:
    if isinstance(x, Variable):
        return x
    # None stands for an absent input (a Variable without an array), as in Chainer.
    return Variable(x, requires_grad=False)


class FunctionNode:
    """A differentiable operation: a node of the computational graph.

    A subclass implements :meth:`forward` on arrays and :meth:`backward` on
    Variables (built from other FunctionNodes, so that double backprop works),
    and optionally :meth:`check_type_forward`. Call :meth:`apply` to run it.

    Attributes:
        inputs: The input :class:`VariableNode` objects (after ``apply``).
        outputs: Weak references to the output VariableNodes.
        rank: The topological order of the node in the graph.
    """

    inputs: tuple[VariableNode, ...] | None = None
    outputs: tuple[weakref.ref, ...] | None = None
    rank = 0
    stack: Any = None
    lazy_grad_sum = False
    _input_indexes_to_retain: Sequence[int] | None = None
    _output_indexes_to_retain: Sequence[int] | None = None
    _retained_output_data: tuple[Any, ...] | None = None
    _local_function_hooks: dict[str, Any] | None = None
    _checks_types = False  # whether the class overrides check_type_forward
    # A quick test on the input arrays that is true only when check_type_forward
    # would pass, or None. A class may define it as a staticmethod named
    # _accepts_types beside its check_type_forward; a subclass that overrides
    # check_type_forward without it gets None.
    _accepts_types: Any = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._checks_types = cls.check_type_forward is not FunctionNode.check_type_forward
        owner = next(k for k in cls.__mro__ if 'check_type_forward' in k.__dict__)
        accepts = owner.__dict__.get('_accepts_types')
        cls._accepts_types = accepts if isinstance(accepts, staticmethod) else None

    # ------------------------------------------------------------------ apply

    def apply(self, inputs: Iterable[Any]) -> tuple[Variable, ...]:
        """Computes the outputs and, when backprop is enabled, records the node.

        Args:
            inputs: Variables or arrays. Arrays are treated as variables that
                do not require grad.

        Returns:
            tuple: The output Variables.
        """
        given = inputs
        if inputs.__class__ is not tuple:
            try:
                inputs = tuple(inputs)
            except TypeError as error:
                raise type_check.non_array_input(self, given, error) from None
        arrays = []
        requires_grad = False
        for x in inputs:
            if x.__class__ is Variable:
                arrays.append(x._data)
                if x._requires_grad:
                    requires_grad = True
            elif x.__class__ is numpy.ndarray:
                arrays.append(x)  # a constant: it gets a node only if the graph is recorded
            else:
                try:
                    x = _as_input_variable(x)
                except TypeError as error:
                    raise type_check.non_array_input(self, given, error) from None
                arrays.append(x._data)
                if x._requires_grad:
                    requires_grad = True
        in_data = tuple(arrays)

        # A class's quick type test, when it accepts the inputs, vouches for the
        # device check too (it accepts arrays of one kind only).
        accepts = self._accepts_types
        if accepts is None or not flags.type_check or not accepts(in_data) \
                or 'check_type_forward' in self.__dict__:
            if len(in_data) > 1:
                first_type = in_data[0].__class__
                for array in in_data:
                    if array.__class__ is not first_type:
                        self._check_same_device(in_data)
                        break
            if flags.type_check and (self._checks_types or 'check_type_forward' in self.__dict__):
                self._check_types(in_data)

        if _function_hooks.n_registered or self._local_function_hooks:
            hooks = _function_hooks.active_hooks(self)
            for hook in hooks:
                hook.forward_preprocess(self, in_data)
        else:
            hooks = ()

        if self.__class__ in _registry.kernel_node_classes and in_data:
            outputs = self._forward_with_kernel(in_data)
        else:
            outputs = self.forward(in_data)
        if outputs.__class__ is not tuple:
            raise TypeError(f'forward output must be a tuple ({self.label})\n'
                            f'Actual: {type(outputs)}')
        for y in outputs:
            if y.__class__ is not numpy.ndarray:
                self._check_output_types(outputs)
                break
        if flags.debug:
            self._check_finite('Forward', outputs)
            self.stack = traceback.extract_stack()[:-1]
        for hook in hooks:
            hook.forward_postprocess(self, in_data)

        if len(outputs) == 1:  # the common case, without a call per output
            y = _new_variable(Variable)
            y._data = outputs[0]
            y._vnode = y._grad_var = y._name = y._loss_scale = None
            y._requires_grad = requires_grad
            ret: tuple[Variable, ...] = (y,)
        else:
            ret = tuple([_new_output(y, requires_grad) for y in outputs])
        if requires_grad and flags.enable_backprop:
            self._record(inputs, ret, in_data, outputs)
        return ret

    def _check_types(self, in_data: tuple[Any, ...]) -> None:
        """Runs :meth:`check_type_forward` in light mode; explains a failure in full mode."""
        try:
            self.check_type_forward(type_check.LightTypeInfoTuple(in_data))
        except Exception as error:  # noqa: BLE001 - diagnose re-raises with a message
            type_check.diagnose(self.check_type_forward, in_data, self.label, 'Forward', error)

    def _check_output_types(self, outputs: tuple[Any, ...]) -> None:
        for y in outputs:
            if y is not None and y.__class__ is not numpy.ndarray and (
                    _registry.device_type_of(y) is None or isinstance(y, numpy.generic)):
                raise TypeError(f'forward output must be a tuple of ndarrays ({self.label})\n'
                                f'Actual: an output of type {type(y).__name__}')

    def _record(self, inputs: tuple[Any, ...], ret: tuple[Variable, ...],
                in_data: tuple[Any, ...], outputs: tuple[Any, ...]) -> None:
        """Wires this node into the graph between its inputs and outputs."""
        nodes = []
        rank = 0
        for x in inputs:
            if x.__class__ is Variable:
                node = x._vnode
                if node is None:
                    node = x.node
            elif x.__class__ is numpy.ndarray:
                node = _bare_node(_dead_reference, None, 0, False, x)
            else:
                node = _as_input_variable(x).node
            if node._rank > rank:
                rank = node._rank
            nodes.append(node)
        self.rank = rank
        self.inputs = tuple(nodes)
        rank += 1
        if len(ret) == 1:  # the common case, without the loop's list
            y = ret[0]
            node = y._vnode = _bare_node(weakref.ref(y), self, rank, y._requires_grad, outputs[0])
            self.outputs = (weakref.ref(node),)
        else:
            output_refs = []
            for y, array in zip(ret, outputs):
                node = y._vnode = _bare_node(weakref.ref(y), self, rank, y._requires_grad,
                                             array)
                output_refs.append(weakref.ref(node))
            self.outputs = tuple(output_refs)

        retain = self._input_indexes_to_retain
        if retain is not None:
            for index in retain:
                nodes[index].data = in_data[index]
        retain = self._output_indexes_to_retain
        if retain is not None:
            self._retained_output_data = tuple([outputs[index] for index in retain])
            for index in retain:
                ret[index].node.data = outputs[index]

    def _forward_with_kernel(self, in_data: tuple[Any, ...]) -> Any:
        """Runs the kernel registered for the inputs' device type, if any, unless
        its configuration says 'never' or it declines."""
        kernel = _registry.kernels.get((self.__class__, in_data[0].__class__))
        if kernel is not None and self._kernel_wanted(kernel, in_data[0]):
            outputs = kernel.forward(self, in_data)
            if outputs is not Fallback:
                return outputs
            self._input_indexes_to_retain = None
            self._output_indexes_to_retain = None
        return self.forward(in_data)

    @staticmethod
    def _kernel_wanted(kernel: Any, first: Any) -> bool:
        """Whether ``kernel``'s level lets it run on inputs led by the array ``first``."""
        if kernel.config_key is None:
            return True
        level = _config_value(kernel.config_key)
        if level == 'auto':
            return bool(first.size >= kernel.auto_min_size)
        return bool(level != 'never')

    def _check_same_device(self, in_data: tuple[Any, ...]) -> None:
        from catena import backend

        devices = [backend.get_device_from_array(array) for array in in_data
                   if array is not None]
        if any(device != devices[0] for device in devices):
            where = ', '.join(f'input {i} on {device}' for i, device in enumerate(devices))
            raise ValueError(
                f'{self.label} (Forward): the inputs live on different devices: {where}. '
                'Move them to one device first (Variable.to_device or catena.backend.copyto).')

    def _check_finite(self, stage: str, arrays: Iterable[Any]) -> None:
        from catena import backend

        for index, array in enumerate(arrays):
            if array is None or getattr(array, 'dtype', None) is None:
                continue
            if array.dtype.kind != 'f' and array.dtype.kind != 'c':
                continue
            host = backend.get_device_from_array(array).to_numpy(array)
            if not numpy.isfinite(host).all():
                what = 'NaN' if numpy.isnan(host).any() else 'Inf'
                raise RuntimeError(
                    f'{what} is detected on {stage.lower()} computation of {self.label} '
                    f'(result {index}). Debug mode (catena.config.debug) checks every '
                    'result; the inputs may be out of the function\'s domain.')

    # --------------------------------------------------- methods to implement

    @property
    def label(self) -> str:
        """A short name of the function (the class name by default)."""
        return self.__class__.__name__

    @property
    def _impl_name(self) -> str:
        # The name hooks report (Chainer's attribute): the implementing class.
        return self.__class__.__name__

    def check_type_forward(self, in_types: Any) -> None:
        """Checks the input types with :mod:`catena.utils.type_check` (default: none)."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the output arrays from the input arrays.

        The default calls the legacy method that the inputs' device type names
        (``forward_cpu`` for NumPy arrays, ``forward_gpu`` for CuPy arrays).

        Args:
            inputs: The input arrays.

        Returns:
            tuple: The output arrays.
        """
        arrays = [x for x in inputs if x is not None]
        device_type = _registry.device_type_of(arrays[0]) if arrays else None
        method = device_type.legacy_forward if device_type is not None else 'forward_cpu'
        return getattr(self, method)(inputs)  # type: ignore[no-any-return]

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the outputs for CPU arrays (legacy API)."""
        raise NotImplementedError(f'{self.label} implements neither forward nor forward_cpu')

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the outputs for GPU arrays (legacy API)."""
        raise NotImplementedError(f'{self.label} implements neither forward nor forward_gpu')

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Variable | None, ...]) -> tuple[Variable | None, ...]:
        """Computes gradients of the inputs from gradients of the outputs.

        Args:
            target_input_indexes: The indexes of the inputs whose gradients
                are needed, in increasing order.
            grad_outputs: One Variable (or None for zero) per output.

        Returns:
            tuple: Gradient Variables (or None), either one per input or one
            per target index.
        """
        return (None,) * len(target_input_indexes)

    def backward_accumulate(self, target_input_indexes: tuple[int, ...],
                            grad_outputs: tuple[Variable | None, ...],
                            grad_inputs: tuple[Variable | None, ...]
                            ) -> tuple[Variable | None, ...]:
        """Computes gradients and adds them to ``grad_inputs``.

        Override it only to fuse the addition into the computation.

        Args:
            target_input_indexes: As in :meth:`backward`.
            grad_outputs: As in :meth:`backward`.
            grad_inputs: The gradients accumulated so far, one per target.

        Returns:
            tuple: The accumulated gradients, one per target.
        """
        gxs = self._targets_only(target_input_indexes,
                                 self.backward(target_input_indexes, grad_outputs))
        return tuple([gx if g is None else g if gx is None else gx + g
                      for gx, g in zip(gxs, grad_inputs)])

    def _targets_only(self, target_input_indexes: tuple[int, ...],
                      gxs: Any) -> tuple[Any, ...]:
        if not isinstance(gxs, tuple):
            gxs = tuple(gxs)
        n_inputs = len(self.inputs) if self.inputs is not None else len(gxs)
        if len(gxs) == n_inputs and len(gxs) != len(target_input_indexes):
            return tuple([gxs[i] for i in target_input_indexes])
        if len(gxs) != len(target_input_indexes):
            raise ValueError(
                f'number of gradients returned from backward is incorrect: '
                f'{self.label}.backward returned {len(gxs)} gradients; expected one per input '
                f'({n_inputs}) or one per target index ({len(target_input_indexes)})')
        return gxs

    # ---------------------------------------------------- retained variables

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Keeps the given inputs' arrays for :meth:`backward` (call in forward)."""
        self._input_indexes_to_retain = indexes if indexes.__class__ is tuple \
            else tuple(indexes)

    def retain_outputs(self, indexes: Iterable[int]) -> None:
        """Keeps the given outputs' arrays for :meth:`backward` (call in forward)."""
        self._output_indexes_to_retain = indexes if indexes.__class__ is tuple \
            else tuple(indexes)

    def get_retained_inputs(self) -> tuple[Variable, ...]:
        """Returns the retained inputs as Variables, in the order they were retained."""
        if self._input_indexes_to_retain is None or self.inputs is None:
            return ()
        inputs = self.inputs
        # An input without an array (None) stays None.
        ret: list[Any] = [None if inputs[index].data is None else inputs[index].get_variable()
                          for index in self._input_indexes_to_retain]
        return tuple(ret)

    def get_retained_outputs(self) -> tuple[Variable, ...]:
        """Returns the retained outputs as Variables connected to this node."""
        indexes = self._output_indexes_to_retain
        if indexes is None or self.outputs is None:
            return ()
        retained = self._retained_output_data
        if len(indexes) == 1 and retained[0] is not None:  # type: ignore[index]
            node = self.outputs[indexes[0]]()
            if node is not None and node.data is not None:
                return node.get_variable(),
        ret: list[Any] = []  # None stands for an output without an array
        for position, index in enumerate(indexes):
            if retained[position] is None:  # type: ignore[index]
                ret.append(None)  # an output without an array
                continue
            node = self.outputs[index]()
            if node is None:
                variable = _new_output(retained[position], True)  # type: ignore[index]
                new_node = variable.node
                new_node.set_creator_node(self)
                new_node.data = retained[position]  # type: ignore[index]
                outputs = list(self.outputs)
                outputs[index] = weakref.ref(new_node)
                self.outputs = tuple(outputs)
                ret.append(variable)
                continue
            if node.data is None:
                node.data = retained[position]  # type: ignore[index]
            ret.append(node.get_variable())
        return tuple(ret)

    def output_data(self) -> tuple[Any, ...]:  # pragma: no cover - Chainer compat
        """Returns the retained output arrays (None where not retained)."""
        data: list[Any] = [None] * len(self.outputs or ())
        for position, index in enumerate(self._output_indexes_to_retain or ()):
            data[index] = self._retained_output_data[position]  # type: ignore[index]
        return tuple(data)

    # ----------------------------------------------------------- graph edits

    def unchain(self) -> None:
        """Cuts the references to the inputs and from the outputs."""
        for ref in self.outputs or ():
            node = ref()
            if node is not None:
                node.unchain()
        self.inputs = None

    # ------------------------------------------------------------------ hooks

    @property
    def local_function_hooks(self) -> dict[str, Any]:
        """The hooks registered on this node only (name to hook)."""
        if self._local_function_hooks is None:
            self._local_function_hooks = {}
        return self._local_function_hooks

    def add_hook(self, hook: Any, name: str | None = None) -> None:
        """Registers a :class:`~catena.FunctionHook` on this node only.

        Args:
            hook: The hook.
            name: Its name (default: ``hook.name``).
        """
        name = hook.name if name is None else name
        hooks = self.local_function_hooks
        if name in hooks:
            raise KeyError(f'a hook named {name!r} is already registered on {self.label}')
        hooks[name] = hook
        hook.added(self)

    def delete_hook(self, name: str) -> None:
        """Removes the local hook named ``name``."""
        if self._local_function_hooks is None or name not in self._local_function_hooks:
            raise KeyError(f'no hook named {name!r} is registered on {self.label}')
        hook = self._local_function_hooks.pop(name)
        hook.deleted(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f'{self.label} is a FunctionNode and cannot be called directly; '
            f'use {self.label}().apply(inputs) (it returns a tuple of outputs), or the '
            'function wrapper in catena.functions.')


_python_apply = FunctionNode.apply  # the pure-Python engine's (the compiled one falls back to it)
_engine.install(FunctionNode, _python_apply)

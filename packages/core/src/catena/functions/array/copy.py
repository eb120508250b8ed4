"""``copy``: transfer a variable to another device, differentiably."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.backends._device import Device
from catena.backends.cuda import DummyDeviceType
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.utils import type_check
from catena.variable import Variable


class Copy(FunctionNode):
    """Sends an array from ``in_device`` to ``out_device``; the gradient goes back."""

    def __init__(self, in_device: Any, out_device: Any) -> None:
        self.in_device: Device = backend.get_device(in_device)
        self.out_device: Device = backend.get_device(out_device)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        y = self.out_device.send_array(x)
        if y is x:
            # Already there: the output is a view of the input, not the same object.
            y = x.view()
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Copy(self.out_device, self.in_device).apply(grad_outputs)


def copy(x: Any, dst: Any) -> Variable:
    """Copies a variable onto the device ``dst``.

    When ``x`` already lives on ``dst`` nothing is copied: the output holds a
    view of the input array. The gradient is sent back to ``x``'s device.

    Args:
        x: A Variable or array.
        dst: The target device: a :class:`~catena.backend.Device`, a spec
            string such as ``'@numpy'`` or ``'@cupy:0'``, a Chainer-style
            integer id (``-1`` for the CPU, ``n >= 0`` for GPU ``n``), or
            ``catena.backends.cuda.DummyDevice`` (the CPU).

    Returns:
        Variable: A variable on ``dst`` that holds the data of ``x``.

    .. admonition:: Example

        >>> x = catena.Variable(np.array([1.0, 2.0], dtype=np.float32))
        >>> y = F.copy(x, -1)
        >>> y.device
        <CpuDevice (numpy)>
    """
    in_device = backend.get_device_from_array(_arguments.array('copy', 'x', x))
    if isinstance(dst, DummyDeviceType):
        dst = '@numpy'  # Chainer's stand-in device for "no GPU" means the host
    return Copy(in_device, dst).apply((x,))[0]

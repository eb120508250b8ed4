"""catena-cuda's kernels, one module per op under the core's category path.

:func:`all_kernels` lists them for the ``catena_register_kernels`` hook. Every
module named in :data:`MODULES` has ``registrations()``: ``(class, kernel)``
pairs, where the class is a core :class:`~catena.FunctionNode` (or an
optimizer's :class:`~catena.optimizer.UpdateRule`) subclass. A module's
``CONFIG_KEY`` names the configuration key that gates its kernels:
``'use_cudnn'`` (the default) for the cuDNN kernels, ``'use_cupy_kernels'``
for catena-cuda's own CuPy elementwise and reduction kernels. Each kernel
returns :data:`catena.Fallback` for what it does not cover, so that the
generic code runs instead.
"""

from __future__ import annotations

import importlib

from catena.backends import Kernel

MODULES: tuple[str, ...] = (
    'activation.clipped_relu',
    'activation.elu',
    'activation.leaky_relu',
    'activation.relu',
    'activation.sigmoid',
    'activation.tanh',
    'connection.convolution_2d',
    'connection.convolution_nd',
    'connection.deconvolution_2d',
    'connection.deconvolution_nd',
    'normalization.batch_normalization',
    'optimizers.ada_delta',
    'optimizers.ada_grad',
    'optimizers.adam',
    'optimizers.corrected_momentum_sgd',
    'optimizers.momentum_sgd',
    'optimizers.msvag',
    'optimizers.nesterov_ag',
    'optimizers.rmsprop',
    'optimizers.rmsprop_graves',
    'optimizers.sgd',
    'optimizers.smorms3',
)


def all_kernels() -> list[Kernel]:
    """Returns every kernel as a :class:`catena.backends.Kernel` record."""
    from catena_cuda.device import GpuDevice

    kernels = []
    for name in MODULES:
        module = importlib.import_module(f'{__name__}.{name}')
        config_key = getattr(module, 'CONFIG_KEY', 'use_cudnn')
        for node_class, forward in module.registrations():
            kernels.append(Kernel(node_class, GpuDevice, forward, config_key))
    return kernels

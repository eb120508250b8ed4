"""catena-cuda's configuration keys and their defaults.

The core already defines Chainer's GPU keys (so that Chainer programs that set
them run unchanged without catena-cuda); the plugin contributes the same
defaults, read from the environment, plus its own ``use_cupy_kernels``.
"""

from __future__ import annotations

import os
from typing import Any

LEVELS = ('always', 'auto', 'never')


def _level(name: str, default: str) -> str:
    text = os.environ.get('CATENA_' + name, os.environ.get('CHAINER_' + name))
    if text is None:
        return default
    value = text.strip().lower()
    if value not in LEVELS:
        raise ValueError(f"invalid environment variable CATENA_{name} (or CHAINER_{name}): "
                         f"expected 'always', 'auto' or 'never', got {text!r}")
    return value


def defaults() -> dict[str, Any]:
    """Returns catena-cuda's configuration keys with their default values.

    * ``use_cudnn`` (``'auto'``): whether cuDNN kernels run.
    * ``cudnn_deterministic`` (False): only deterministic cuDNN algorithms.
    * ``autotune`` (False): time every cuDNN plan on first use of a shape and
      keep the fastest.
    * ``use_cudnn_tensor_core`` (``'auto'``): Tensor Core math in cuDNN.
    * ``cudnn_fast_batch_normalization`` (False): cuDNN's faster, less
      precise batch normalization.
    * ``use_cupy_kernels`` (``'auto'``, environment ``CATENA_USE_CUPY_KERNELS``):
      catena-cuda's fused CuPy kernels (activations, optimizer updates);
      ``'never'`` runs the generic array code instead.
    """
    return {
        'use_cudnn': _level('USE_CUDNN', 'auto'),
        'cudnn_deterministic': False,
        'autotune': False,
        'use_cudnn_tensor_core': 'auto',
        'cudnn_fast_batch_normalization': False,
        'use_cupy_kernels': _level('USE_CUPY_KERNELS', 'auto'),
    }

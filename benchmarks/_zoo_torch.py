"""VGG-16 and ResNet-50 in plain ``torch.nn``, laid out like catena-zoo's models.

torchvision has no CPU build here, so the yardstick models are defined in
this file. Their module names follow catena-zoo's link names (``conv1_1``
... ``fc8``; ``conv1``, ``bn1``, ``res2.a.conv1`` ... ``fc6``), so that
catena's weights can be copied over by name (:func:`load_arrays`):

* :class:`VGG16`: 13 3x3 convolutions with ReLU, 2x2 max pooling after
  each block, ``fc6`` and ``fc7`` (ReLU, dropout), ``fc8``, softmax.
* :class:`ResNet50`: MSRA's Caffe layout, as ``ResNet50Layers`` with
  ``downsample_fb=False``: 7x7/2 convolution (with bias), batch
  normalization, ReLU, 3x3/2 max pooling rounding up (Chainer's
  ``cover_all``), stages of 3, 4, 6 and 3 bottlenecks whose first one
  strides in its first 1x1 convolution and projects the shortcut (``conv4``),
  global average pooling, ``fc6``, softmax. Batch normalization uses
  catena's eps of 2e-5.

Both return ``{'logits': ..., 'prob': ...}`` from :meth:`forward_layers`
and the probabilities from ``__call__``. Build them on the ``meta`` device
and fill every tensor with :func:`load_arrays` (random initialisation of
VGG-16's 138M parameters would only be thrown away).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch
from torch import nn

_VGG16_CONVS = (2, 2, 3, 3, 3)
_VGG_CHANNELS = (64, 128, 256, 512, 512)
_RESNET50_BLOCKS = (3, 4, 6, 3)
BN_EPS = 2e-5


class VGG16(nn.Module):
    """VGG-16 with the VGG team's layer names (``conv1_1`` ... ``fc8``)."""

    def __init__(self) -> None:
        super().__init__()
        self._conv_names: list[list[str]] = []
        in_channels = 3
        for block, (channels, n_convs) in enumerate(zip(_VGG_CHANNELS, _VGG16_CONVS), 1):
            names = [f'conv{block}_{i}' for i in range(1, n_convs + 1)]
            for name in names:
                self.add_module(name, nn.Conv2d(in_channels, channels, 3, 1, 1))
                in_channels = channels
            self._conv_names.append(names)
        self.fc6 = nn.Linear(512 * 7 * 7, 4096)
        self.fc7 = nn.Linear(4096, 4096)
        self.fc8 = nn.Linear(4096, 1000)
        self.dropout = nn.Dropout(0.5)

    def forward_layers(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """Returns the ``fc8`` outputs (``'logits'``) and their softmax (``'prob'``)."""
        h = x
        for names in self._conv_names:
            for name in names:
                h = torch.relu(getattr(self, name)(h))
            h = nn.functional.max_pool2d(h, 2, 2)
        h = h.flatten(1)
        h = self.dropout(torch.relu(self.fc6(h)))
        h = self.dropout(torch.relu(self.fc7(h)))
        logits = self.fc8(h)
        return {'logits': logits, 'prob': torch.softmax(logits, dim=1)}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_layers(x)['prob']


def _conv_bn(in_channels: int, out_channels: int, ksize: int, stride: int,
             pad: int) -> tuple[nn.Conv2d, nn.BatchNorm2d]:
    conv = nn.Conv2d(in_channels, out_channels, ksize, stride, pad, bias=False)
    return conv, nn.BatchNorm2d(out_channels, eps=BN_EPS)


class _Bottleneck(nn.Module):
    """1x1, 3x3, 1x1 convolutions; ``project`` adds the strided 1x1 shortcut ``conv4``."""

    def __init__(self, in_channels: int, mid: int, out: int, stride: int,
                 project: bool) -> None:
        super().__init__()
        self.conv1, self.bn1 = _conv_bn(in_channels, mid, 1, stride, 0)
        self.conv2, self.bn2 = _conv_bn(mid, mid, 3, 1, 1)
        self.conv3, self.bn3 = _conv_bn(mid, out, 1, 1, 0)
        self.project = project
        if project:
            self.conv4, self.bn4 = _conv_bn(in_channels, out, 1, stride, 0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.bn1(self.conv1(x)))
        h = torch.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        shortcut = self.bn4(self.conv4(x)) if self.project else x
        return torch.relu(h + shortcut)


class _Stage(nn.Module):
    """A bottleneck ``a`` (projecting, strided), then ``b1``, ``b2``, ..."""

    def __init__(self, n_blocks: int, in_channels: int, mid: int, out: int,
                 stride: int) -> None:
        super().__init__()
        self.a = _Bottleneck(in_channels, mid, out, stride, project=True)
        self._names = ['a']
        for i in range(1, n_blocks):
            self.add_module(f'b{i}', _Bottleneck(out, mid, out, 1, project=False))
            self._names.append(f'b{i}')

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for name in self._names:
            x = getattr(self, name)(x)
        return x


class ResNet50(nn.Module):
    """ResNet-50 with MSRA's layer names (``conv1``, ``res2`` ... ``res5``, ``fc6``)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3)
        self.bn1 = nn.BatchNorm2d(64, eps=BN_EPS)
        blocks = _RESNET50_BLOCKS
        self.res2 = _Stage(blocks[0], 64, 64, 256, 1)
        self.res3 = _Stage(blocks[1], 256, 128, 512, 2)
        self.res4 = _Stage(blocks[2], 512, 256, 1024, 2)
        self.res5 = _Stage(blocks[3], 1024, 512, 2048, 2)
        self.fc6 = nn.Linear(2048, 1000)

    def forward_layers(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """Returns the ``fc6`` outputs (``'logits'``) and their softmax (``'prob'``)."""
        h = torch.relu(self.bn1(self.conv1(x)))
        h = nn.functional.max_pool2d(h, 3, 2, ceil_mode=True)
        h = self.res5(self.res4(self.res3(self.res2(h))))
        h = h.mean(dim=(2, 3))
        logits = self.fc6(h)
        return {'logits': logits, 'prob': torch.softmax(logits, dim=1)}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_layers(x)['prob']


def build(name: str) -> nn.Module:
    """Builds ``'vgg16'`` or ``'resnet50'`` on the meta device (no storage, no init)."""
    classes = {'vgg16': VGG16, 'resnet50': ResNet50}
    if name not in classes:
        raise ValueError(f'name must be one of {sorted(classes)}; got {name!r}')
    with torch.device('meta'):
        return classes[name]()


def load_arrays(model: nn.Module, arrays: Mapping[str, np.ndarray]) -> nn.Module:
    """Moves ``model`` to the CPU, filled with ``arrays``, in eval mode.

    Args:
        model: A model from :func:`build`.
        arrays: Every parameter and batch-normalization statistic of the
            model by its ``state_dict`` name (``num_batches_tracked`` aside,
            which eval mode does not read).

    Returns:
        nn.Module: ``model`` itself, on the CPU and in eval mode.

    Raises:
        KeyError: ``arrays`` misses one of the model's tensors or names one
            it does not have.
        ValueError: An array's shape differs from its tensor's.
    """
    state = model.state_dict(keep_vars=True)
    needed = {key for key in state if not key.endswith('num_batches_tracked')}
    missing, unknown = needed - arrays.keys(), arrays.keys() - needed
    if missing or unknown:
        raise KeyError(f'arrays do not match the model: missing {sorted(missing)}, '
                       f'unknown {sorted(unknown)}')
    model.to_empty(device='cpu')
    state = model.state_dict()
    with torch.no_grad():
        for key, tensor in state.items():
            if key.endswith('num_batches_tracked'):
                tensor.zero_()
                continue
            array = arrays[key]
            if tuple(array.shape) != tuple(tensor.shape):
                raise ValueError(f'{key}: the model has shape {tuple(tensor.shape)}, '
                                 f'the array {tuple(array.shape)}')
            tensor.copy_(torch.from_numpy(np.ascontiguousarray(array)))
    return model.eval()

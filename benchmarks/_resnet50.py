"""ResNet-50 (He et al., 2015) built from catena links, with random weights.

The layout of the ImageNet model: a 7x7/2 convolution, 3x3/2 max pooling,
bottleneck stages of 3, 4, 6 and 3 blocks (stride 2 in the 1x1 convolution
that opens stages 2 to 4, as Caffe's model has it), global average pooling
and a 1000-way linear layer. Batch normalization everywhere, in test mode
when exported.
"""

from __future__ import annotations

from typing import Any

import catena
import catena.functions as F
import catena.links as L


class _Bottleneck(catena.Chain):
    def __init__(self, in_channels: int, mid: int, out: int, stride: int) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(in_channels, mid, 1, stride, nobias=True)
            self.bn1 = L.BatchNormalization(mid)
            self.conv2 = L.Convolution2D(mid, mid, 3, 1, 1, nobias=True)
            self.bn2 = L.BatchNormalization(mid)
            self.conv3 = L.Convolution2D(mid, out, 1, nobias=True)
            self.bn3 = L.BatchNormalization(out)
            if stride != 1 or in_channels != out:
                self.shortcut = L.Convolution2D(in_channels, out, 1, stride, nobias=True)
                self.bn_shortcut = L.BatchNormalization(out)

    def forward(self, x: Any) -> Any:
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        shortcut = self.bn_shortcut(self.shortcut(x)) if hasattr(self, 'shortcut') else x
        return F.relu(h + shortcut)


class ResNet50(catena.Chain):
    """ResNet-50 returning the 1000 class scores."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 64, 7, 2, 3)
            self.bn1 = L.BatchNormalization(64)
            self.stages = catena.ChainList()
            in_channels = 64
            for index, (blocks, mid) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)]):
                stage = catena.ChainList()
                for block in range(blocks):
                    stride = 2 if block == 0 and index > 0 else 1
                    stage.append(_Bottleneck(in_channels, mid, mid * 4, stride))
                    in_channels = mid * 4
                self.stages.append(stage)
            self.fc = L.Linear(2048, 1000)

    def forward(self, x: Any) -> Any:
        h = F.max_pooling_2d(F.relu(self.bn1(self.conv1(x))), 3, 2)
        for stage in self.stages:
            for block in stage:
                h = block(h)
        h = F.average_pooling_2d(h, h.shape[2:])
        return self.fc(h)

"""The networks of ``bench_intel64.py``: catena definitions, matching ``torch.nn`` ones, FLOPs.

Five networks, each built from ``catena.links`` and ``catena.functions`` as
a user program would write it, and again in plain ``torch.nn`` with the same
parameter names (``conv1.weight`` for catena's ``/conv1/W``), so that
:func:`copy_to_torch` can give torch catena's weights:

* ``lenet``: MNIST LeNet (1x28x28): 5x5 convolution to 20 channels, 2x2 max
  pooling, 5x5 convolution to 50, 2x2 max pooling, linear to 500, ReLU,
  linear to 10.
* ``resnet18``: ResNet-18's layout (basic blocks 2-2-2-2, 64-128-256-512
  channels, convolutions without bias followed by batch normalization, a
  7x7/2 stem convolution and 3x3/2 max pooling, global average pooling,
  linear to 1000 classes) on 3x64x64 inputs.
* ``vgg16``: VGG-16 (13 3x3 convolutions with ReLU in 5 blocks closed by 2x2
  max pooling, ``fc6``, ``fc7`` with ReLU and dropout, ``fc8``) on 3x224x224,
  with the VGG team's layer names, so ``_zoo_torch.VGG16`` is its torch twin.
* ``mlp``: Chainer's MNIST MLP, 784-1000-1000-10 with ReLU, on a batch of 100.
* ``ptb-lstm``: Chainer's PTB language model (``examples/ptb``): ``EmbedID``
  10000 -> 650, two ``L.LSTM`` of 650 units, ``Linear`` 650 -> 10000, dropout
  0.5 before each of the last three, on 35 time steps of a batch of 20 token
  ids (:data:`STEPS`); its loss is the softmax cross entropy summed over the
  steps (:func:`catena_loss`). The torch twin runs ``nn.LSTMCell`` step by
  step, so that both sides compute the same per-step products; catena's
  LSTM weights are interleaved per unit (``a, i, f, o`` for each unit) where
  torch's come in gate blocks (``i, f, g, o``), so :func:`catena_arrays`
  reorders their rows (and gives torch's second LSTM bias, which catena
  lacks, zeros; its gradient is the first bias's). All its parameters start
  uniform in [-0.1, 0.1], as in Chainer's example.

Weights are He-normal draws from a seeded ``numpy.random.Generator`` handed
to the links as arrays (fast, and the same on every run); biases are small
random values so that the checks cover them. Max pooling uses
``cover_all=False`` (torch's floor rounding); batch normalization uses
catena's eps (2e-5) on both sides.

:func:`forward_flops` counts the convolutions' and linear layers' FLOPs
analytically (2 per multiply-accumulate) for one forward pass of a batch.

torch is imported only inside the ``torch_*`` functions: this module loads
without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

SEED = 0
BN_EPS = 2e-5

# name -> (batch, input shape without the batch, classes)
SHAPES = {
    'lenet': (64, (1, 28, 28), 10),
    'resnet18': (16, (3, 64, 64), 1000),
    'vgg16': (1, (3, 224, 224), 1000),
    'mlp': (100, (784,), 10),
    'ptb-lstm': (20, (), 10000),  # token ids in, a vocabulary of 10000 out
}
STEPS = {'ptb-lstm': 35}
"""Time steps per training step (truncated backpropagation through this many steps)."""
PTB_UNITS = 650
PTB_DROPOUT = 0.5

_RESNET18_STAGES = ((2, 64), (2, 128), (2, 256), (2, 512))
_VGG16_BLOCKS = ((2, 64), (2, 128), (3, 256), (3, 512), (3, 512))


# ------------------------------------------------------------------ layer specs


def _conv_out(size: int, ksize: int, stride: int, pad: int) -> int:
    return (size + 2 * pad - ksize) // stride + 1


def _layers(name: str) -> Iterator[tuple[str, int, int, int, int, int, int]]:
    """Yields ``(kind, in, out, ksize, stride, pad, output side)`` per conv/linear layer.

    ``kind`` is ``'conv'`` or ``'linear'`` (for a linear layer ksize, stride
    and pad are 1, 1, 0 and the output side is 1). The walk follows the
    models below, pooling included, for square inputs.
    """
    if name == 'mlp':
        yield 'linear', 784, 1000, 1, 1, 0, 1
        yield 'linear', 1000, 1000, 1, 1, 0, 1
        yield 'linear', 1000, SHAPES[name][2], 1, 1, 0, 1
        return
    if name == 'ptb-lstm':
        for _ in range(2):  # each LSTM: upward and lateral products to 4 x units
            yield 'linear', PTB_UNITS, 4 * PTB_UNITS, 1, 1, 0, 1
            yield 'linear', PTB_UNITS, 4 * PTB_UNITS, 1, 1, 0, 1
        yield 'linear', PTB_UNITS, SHAPES[name][2], 1, 1, 0, 1
        return
    _, (channels, side, _), classes = SHAPES[name]
    if name == 'lenet':
        side = _conv_out(side, 5, 1, 0)
        yield 'conv', channels, 20, 5, 1, 0, side
        side //= 2
        side = _conv_out(side, 5, 1, 0)
        yield 'conv', 20, 50, 5, 1, 0, side
        side //= 2
        yield 'linear', 50 * side * side, 500, 1, 1, 0, 1
        yield 'linear', 500, classes, 1, 1, 0, 1
    elif name == 'resnet18':
        side = _conv_out(side, 7, 2, 3)
        yield 'conv', channels, 64, 7, 2, 3, side
        side = _conv_out(side, 3, 2, 1)
        in_channels = 64
        for stage, (count, width) in enumerate(_RESNET18_STAGES):
            for index in range(count):
                stride = 2 if index == 0 and stage > 0 else 1
                out_side = _conv_out(side, 3, stride, 1)
                yield 'conv', in_channels, width, 3, stride, 1, out_side
                yield 'conv', width, width, 3, 1, 1, out_side
                if stride != 1 or in_channels != width:
                    yield 'conv', in_channels, width, 1, stride, 0, out_side
                side, in_channels = out_side, width
        yield 'linear', in_channels, classes, 1, 1, 0, 1
    elif name == 'vgg16':
        in_channels = channels
        for count, width in _VGG16_BLOCKS:
            for _ in range(count):
                yield 'conv', in_channels, width, 3, 1, 1, side
                in_channels = width
            side //= 2
        yield 'linear', in_channels * side * side, 4096, 1, 1, 0, 1
        yield 'linear', 4096, 4096, 1, 1, 0, 1
        yield 'linear', 4096, classes, 1, 1, 0, 1
    else:
        raise ValueError(f'unknown model {name!r}; expected one of {sorted(SHAPES)}')


def forward_flops(name: str) -> int:
    """FLOPs of one forward pass of the batch: 2 per multiply-accumulate of convs and linears.

    Pooling, normalization, activations and the loss are left out (they are
    a small share and memory-bound).
    """
    batch = SHAPES[name][0]
    total = 0
    for _, n_in, n_out, ksize, _, _, side in _layers(name):
        total += 2 * batch * n_out * side * side * n_in * ksize * ksize
    return total * STEPS.get(name, 1)


# ------------------------------------------------------------------ weights


def _he(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    fan_in = int(np.prod(shape[1:]))
    scale = np.float32(np.sqrt(2.0 / fan_in))
    return rng.standard_normal(shape, dtype=np.float32) * scale


def _bias(rng: np.random.Generator, size: int) -> np.ndarray:
    return rng.uniform(-0.05, 0.05, size).astype(np.float32)


def inputs(name: str, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """A fixed batch ``(x, t)`` for ``name``: uniform images and int32 labels.

    For ``ptb-lstm``, ``x`` and ``t`` are ``(steps, batch)`` int32 token ids,
    ``t`` being ``x`` one token on.
    """
    batch, shape, classes = SHAPES[name]
    rng = np.random.default_rng(seed + 1)
    if name in STEPS:
        tokens = rng.integers(0, classes, (STEPS[name] + 1, batch)).astype(np.int32)
        return tokens[:-1], tokens[1:]
    x = rng.uniform(-1, 1, (batch, *shape)).astype(np.float32)
    t = rng.integers(0, classes, batch).astype(np.int32)
    return x, t


# ------------------------------------------------------------------ catena


def catena_model(name: str, seed: int = SEED) -> Any:
    """Builds ``name`` from ``catena.links``, with weights drawn from ``seed``."""
    import catena
    import catena.functions as F
    import catena.links as L

    rng = np.random.default_rng(seed)

    def conv(n_in: int, n_out: int, ksize: int, stride: int = 1, pad: int = 0,
             nobias: bool = False) -> Any:
        bias = None if nobias else _bias(rng, n_out)
        return L.Convolution2D(n_in, n_out, ksize, stride, pad, nobias=nobias,
                               initialW=_he(rng, (n_out, n_in, ksize, ksize)),
                               initial_bias=bias)

    def linear(n_in: int, n_out: int) -> Any:
        return L.Linear(n_in, n_out, initialW=_he(rng, (n_out, n_in)),
                        initial_bias=_bias(rng, n_out))

    def batch_norm(size: int) -> Any:
        bn = L.BatchNormalization(size, eps=BN_EPS)
        bn.gamma.array[...] = rng.uniform(0.5, 1.5, size)
        bn.beta.array[...] = rng.uniform(-0.1, 0.1, size)
        return bn

    class LeNet(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = conv(1, 20, 5)
                self.conv2 = conv(20, 50, 5)
                self.fc1 = linear(800, 500)
                self.fc2 = linear(500, 10)

        def forward(self, x: Any) -> Any:
            h = F.max_pooling_2d(self.conv1(x), 2, 2, cover_all=False)
            h = F.max_pooling_2d(self.conv2(h), 2, 2, cover_all=False)
            return self.fc2(F.relu(self.fc1(h)))

    class BasicBlock(catena.Chain):
        def __init__(self, n_in: int, n_out: int, stride: int) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = conv(n_in, n_out, 3, stride, 1, nobias=True)
                self.bn1 = batch_norm(n_out)
                self.conv2 = conv(n_out, n_out, 3, 1, 1, nobias=True)
                self.bn2 = batch_norm(n_out)
                self.project = stride != 1 or n_in != n_out
                if self.project:
                    self.shortcut = conv(n_in, n_out, 1, stride, 0, nobias=True)
                    self.bn_shortcut = batch_norm(n_out)

        def forward(self, x: Any) -> Any:
            h = F.relu(self.bn1(self.conv1(x)))
            h = self.bn2(self.conv2(h))
            if self.project:
                x = self.bn_shortcut(self.shortcut(x))
            return F.relu(h + x)

    class ResNet18(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = conv(3, 64, 7, 2, 3, nobias=True)
                self.bn1 = batch_norm(64)
                self.blocks = catena.ChainList()
                n_in = 64
                for stage, (count, width) in enumerate(_RESNET18_STAGES):
                    for index in range(count):
                        stride = 2 if index == 0 and stage > 0 else 1
                        self.blocks.append(BasicBlock(n_in, width, stride))
                        n_in = width
                self.fc = linear(512, SHAPES['resnet18'][2])

        def forward(self, x: Any) -> Any:
            h = F.relu(self.bn1(self.conv1(x)))
            h = F.max_pooling_2d(h, 3, 2, 1, cover_all=False)
            for block in self.blocks:
                h = block(h)
            h = F.average_pooling_2d(h, h.shape[2:])  # global average pooling
            return self.fc(h)

    class VGG16(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            self._blocks: list[list[str]] = []
            n_in = 3
            with self.init_scope():
                for block, (count, width) in enumerate(_VGG16_BLOCKS, 1):
                    names = [f'conv{block}_{i}' for i in range(1, count + 1)]
                    for layer in names:
                        setattr(self, layer, conv(n_in, width, 3, 1, 1))
                        n_in = width
                    self._blocks.append(names)
                self.fc6 = linear(512 * 7 * 7, 4096)
                self.fc7 = linear(4096, 4096)
                self.fc8 = linear(4096, SHAPES['vgg16'][2])

        def forward(self, x: Any) -> Any:
            h = x
            for names in self._blocks:
                for layer in names:
                    h = F.relu(getattr(self, layer)(h))
                h = F.max_pooling_2d(h, 2, 2, cover_all=False)
            h = F.dropout(F.relu(self.fc6(h)), 0.5)
            h = F.dropout(F.relu(self.fc7(h)), 0.5)
            return self.fc8(h)

    class MLP(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.l1 = linear(784, 1000)
                self.l2 = linear(1000, 1000)
                self.l3 = linear(1000, SHAPES['mlp'][2])

        def forward(self, x: Any) -> Any:
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    class PTBLSTM(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            vocabulary, units = SHAPES['ptb-lstm'][2], PTB_UNITS
            self.ratio = PTB_DROPOUT
            with self.init_scope():
                self.embed = L.EmbedID(vocabulary, units)
                self.l1 = L.LSTM(units, units)
                self.l2 = L.LSTM(units, units)
                self.l3 = L.Linear(units, vocabulary)
            for param in self.params():
                param.array[...] = rng.uniform(-0.1, 0.1, param.shape)

        def reset_state(self) -> None:
            self.l1.reset_state()
            self.l2.reset_state()

        def forward(self, x: Any) -> Any:
            h = self.l1(F.dropout(self.embed(x), self.ratio))
            h = self.l2(F.dropout(h, self.ratio))
            return self.l3(F.dropout(h, self.ratio))

    classes = {'lenet': LeNet, 'resnet18': ResNet18, 'vgg16': VGG16, 'mlp': MLP,
               'ptb-lstm': PTBLSTM}
    if name not in classes:
        raise ValueError(f'unknown model {name!r}; expected one of {sorted(classes)}')
    return classes[name]()


def catena_loss(model: Any, x: Any, t: Any) -> Any:
    """The training loss: softmax cross entropy, summed over the time steps of a sequence."""
    import catena.functions as F

    if not hasattr(model, 'reset_state'):
        return F.softmax_cross_entropy(model(x), t)
    loss: Any = 0
    for x_step, t_step in zip(x, t):
        loss += F.softmax_cross_entropy(model(x_step), t_step)
    return loss


def torch_loss(model: Any, x: Any, t: Any) -> Any:
    """:func:`catena_loss` for the torch twins."""
    import torch

    if not hasattr(model, 'reset_state'):
        return torch.nn.functional.cross_entropy(model(x), t)
    loss: Any = 0
    for x_step, t_step in zip(x, t):
        loss = loss + torch.nn.functional.cross_entropy(model(x_step), t_step)
    return loss


_RENAMED = {'W': 'weight', 'b': 'bias', 'gamma': 'weight', 'beta': 'bias'}
# catena's L.LSTM (interleaved gates) -> torch's nn.LSTMCell (gate blocks)
_LSTM_RENAMED = {'upward/W': 'weight_ih', 'upward/b': 'bias_ih', 'lateral/W': 'weight_hh'}
_GATE_ORDER = (1, 2, 0, 3)  # torch's i, f, g, o among catena's a, i, f, o


def _gate_blocks(array: np.ndarray) -> np.ndarray:
    """An LSTM weight or bias with rows interleaved per unit, in torch's gate blocks."""
    units = array.shape[0] // 4
    gates = array.reshape(units, 4, *array.shape[1:])
    return np.ascontiguousarray(
        np.concatenate([gates[:, gate] for gate in _GATE_ORDER], axis=0))


def _lstm_arrays(path: str, array: np.ndarray) -> dict[str, np.ndarray] | None:
    """torch's arrays for an L.LSTM parameter of catena, or None for another parameter."""
    *links, sub, leaf = path.strip('/').split('/')
    name = _LSTM_RENAMED.get(f'{sub}/{leaf}')
    if name is None:
        return None
    prefix = '.'.join(links)
    out = {f'{prefix}.{name}': _gate_blocks(array)}
    if name == 'bias_ih':  # torch adds a second bias; its gradient equals the first's
        out[f'{prefix}.bias_hh'] = out[f'{prefix}.bias_ih']
    return out


def torch_name(path: str) -> str:
    """The torch ``state_dict`` name of catena's parameter ``path`` (``/blocks/0/bn1/gamma``)."""
    *links, leaf = path.strip('/').split('/')
    return '.'.join([*links, _RENAMED[leaf]])


def catena_arrays(model: Any) -> dict[str, np.ndarray]:
    """catena's parameters and batch-normalization statistics under torch's names."""
    import catena.links as L

    arrays = {}
    for path, param in model.namedparams():
        lstm = _lstm_arrays(path, param.array)
        if lstm is not None:
            if 'bias_ih' in next(iter(lstm)):
                lstm = {k: v if k.endswith('bias_ih') else np.zeros_like(v)
                        for k, v in lstm.items()}
            arrays.update(lstm)
        else:
            arrays[torch_name(path)] = param.array
    for path, link in model.namedlinks(skipself=True):
        if isinstance(link, L.BatchNormalization):
            prefix = path.strip('/').replace('/', '.')
            arrays[f'{prefix}.running_mean'] = link.avg_mean
            arrays[f'{prefix}.running_var'] = link.avg_var
    return arrays


def catena_grads(model: Any) -> dict[str, np.ndarray]:
    """catena's parameter gradients under torch's names."""
    grads = {}
    for path, param in model.namedparams():
        if param.grad is None:
            continue
        lstm = _lstm_arrays(path, np.asarray(param.grad))
        grads.update(lstm if lstm is not None else {torch_name(path): np.asarray(param.grad)})
    return grads


# ------------------------------------------------------------------ torch


def torch_model(name: str) -> Any:
    """Builds ``name`` in ``torch.nn`` on the ``meta`` device (fill it with copy_to_torch)."""
    import torch
    from torch import nn

    classes = SHAPES[name][2]

    class LeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 20, 5)
            self.conv2 = nn.Conv2d(20, 50, 5)
            self.fc1 = nn.Linear(800, 500)
            self.fc2 = nn.Linear(500, classes)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = nn.functional.max_pool2d(self.conv1(x), 2, 2)
            h = nn.functional.max_pool2d(self.conv2(h), 2, 2)
            return self.fc2(torch.relu(self.fc1(h.flatten(1))))

    class BasicBlock(nn.Module):
        def __init__(self, n_in: int, n_out: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(n_in, n_out, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(n_out, eps=BN_EPS)
            self.conv2 = nn.Conv2d(n_out, n_out, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(n_out, eps=BN_EPS)
            self.project = stride != 1 or n_in != n_out
            if self.project:
                self.shortcut = nn.Conv2d(n_in, n_out, 1, stride, 0, bias=False)
                self.bn_shortcut = nn.BatchNorm2d(n_out, eps=BN_EPS)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = torch.relu(self.bn1(self.conv1(x)))
            h = self.bn2(self.conv2(h))
            if self.project:
                x = self.bn_shortcut(self.shortcut(x))
            return torch.relu(h + x)

    class ResNet18(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64, eps=BN_EPS)
            blocks = []
            n_in = 64
            for stage, (count, width) in enumerate(_RESNET18_STAGES):
                for index in range(count):
                    stride = 2 if index == 0 and stage > 0 else 1
                    blocks.append(BasicBlock(n_in, width, stride))
                    n_in = width
            self.blocks = nn.ModuleList(blocks)
            self.fc = nn.Linear(512, classes)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = torch.relu(self.bn1(self.conv1(x)))
            h = nn.functional.max_pool2d(h, 3, 2, 1)
            for block in self.blocks:
                h = block(h)
            return self.fc(h.mean(dim=(2, 3)))

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = nn.Linear(784, 1000)
            self.l2 = nn.Linear(1000, 1000)
            self.l3 = nn.Linear(1000, classes)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))

    class PTBLSTM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ratio = PTB_DROPOUT
            self.embed = nn.Embedding(classes, PTB_UNITS)
            self.l1 = nn.LSTMCell(PTB_UNITS, PTB_UNITS)
            self.l2 = nn.LSTMCell(PTB_UNITS, PTB_UNITS)
            self.l3 = nn.Linear(PTB_UNITS, classes)
            self.state: list[Any] = [None, None]

        def reset_state(self) -> None:
            self.state = [None, None]

        def unchain(self) -> None:
            """Truncates backpropagation: the state no longer leads to the past steps."""
            self.state = [None if s is None else tuple(v.detach() for v in s)
                          for s in self.state]

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            dropout = nn.functional.dropout
            h = dropout(self.embed(x), self.ratio, self.training)
            self.state[0] = self.l1(h, self.state[0])
            h = dropout(self.state[0][0], self.ratio, self.training)
            self.state[1] = self.l2(h, self.state[1])
            return self.l3(dropout(self.state[1][0], self.ratio, self.training))

    if name == 'vgg16':
        import _zoo_torch

        class VGG16(_zoo_torch.VGG16):  # type: ignore[misc]
            """``_zoo_torch.VGG16`` returning the ``fc8`` outputs, as the catena model does."""

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                h = x
                for names in self._conv_names:
                    for layer in names:
                        h = torch.relu(getattr(self, layer)(h))
                    h = nn.functional.max_pool2d(h, 2, 2)
                h = h.flatten(1)
                h = self.dropout(torch.relu(self.fc6(h)))
                h = self.dropout(torch.relu(self.fc7(h)))
                return self.fc8(h)  # type: ignore[no-any-return]

        model_class: type[nn.Module] = VGG16
    else:
        model_class = {'lenet': LeNet, 'resnet18': ResNet18, 'mlp': MLP,
                       'ptb-lstm': PTBLSTM}[name]
    with torch.device('meta'):
        return model_class()


def copy_to_torch(catena_model_: Any, model: Any) -> Any:
    """Gives the torch ``model`` (from :func:`torch_model`) catena's weights; returns it.

    Raises:
        KeyError: The two models' tensors do not match by name.
        ValueError: A shape differs.
    """
    import torch

    arrays = catena_arrays(catena_model_)
    state = model.state_dict(keep_vars=True)
    needed = {key for key in state if not key.endswith('num_batches_tracked')}
    missing, unknown = needed - arrays.keys(), arrays.keys() - needed
    if missing or unknown:
        raise KeyError(f'the catena and torch models differ: torch has {sorted(missing)} '
                       f'that catena lacks, catena has {sorted(unknown)} that torch lacks')
    model.to_empty(device='cpu')
    with torch.no_grad():
        for key, tensor in model.state_dict().items():
            if key.endswith('num_batches_tracked'):
                tensor.zero_()
                continue
            array = arrays[key]
            if tuple(array.shape) != tuple(tensor.shape):
                raise ValueError(f'{key}: torch has shape {tuple(tensor.shape)}, catena '
                                 f'{tuple(array.shape)}')
            tensor.copy_(torch.from_numpy(np.ascontiguousarray(array)))
    return model

"""Train a deep convolutional generative adversarial network (DCGAN).

The documentation's DCGAN example, scaled down to 16x16 grey images: a
``Generator`` turns uniform noise into an image with a Linear layer and
``L.Deconvolution2D`` layers with ``L.BatchNormalization``; a
``Discriminator`` of ``L.Convolution2D`` layers (with noise added to every
hidden output while training) scores images as real or generated. A custom
``DCGANUpdater`` (a StandardUpdater subclass) updates the two models in
turn with their own Adam optimizers, registered as ``'gen'`` and ``'dis'``.

The training images are generated: one bright Gaussian blob at a random
place on a dark background, with pixel values in [0, 255] like
``get_cifar10(withlabel=False, scale=255.)``. The log, the snapshots and, when
matplotlib is installed, a grid of generated samples (``samples.png``) are
written to ``--out``.

    python examples/dcgan/train_dcgan.py [--epoch 5] [--n-images 2000] [--out result/dcgan]
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import Any

import numpy as np

import catena
import catena.functions as F
import catena.links as L
from catena import Variable, training
from catena.training import extensions


class Generator(catena.Chain):
    """Noise ``(B, n_hidden)`` to images ``(B, 1, 4 * bottom_width, 4 * bottom_width)``."""

    def __init__(self, n_hidden: int, bottom_width: int = 4, ch: int = 64,
                 wscale: float = 0.02) -> None:
        super().__init__()
        self.n_hidden = n_hidden
        self.ch = ch
        self.bottom_width = bottom_width
        with self.init_scope():
            w = catena.initializers.Normal(wscale)
            self.l0 = L.Linear(n_hidden, bottom_width * bottom_width * ch, initialW=w)
            self.dc1 = L.Deconvolution2D(ch, ch // 2, 4, 2, 1, initialW=w)
            self.dc2 = L.Deconvolution2D(ch // 2, ch // 4, 4, 2, 1, initialW=w)
            self.dc3 = L.Deconvolution2D(ch // 4, 1, 3, 1, 1, initialW=w)
            self.bn0 = L.BatchNormalization(bottom_width * bottom_width * ch)
            self.bn1 = L.BatchNormalization(ch // 2)
            self.bn2 = L.BatchNormalization(ch // 4)

    def make_hidden(self, batchsize: int) -> np.ndarray:
        """Noise vectors drawn uniformly from [-1, 1], ``(batchsize, n_hidden, 1, 1)``."""
        dtype = catena.get_dtype()
        shape = (batchsize, self.n_hidden, 1, 1)
        return np.random.uniform(-1, 1, shape).astype(dtype)  # noqa: NPY002

    def forward(self, z: Any) -> Any:
        h = F.reshape(F.relu(self.bn0(self.l0(z))),
                      (len(z), self.ch, self.bottom_width, self.bottom_width))
        h = F.relu(self.bn1(self.dc1(h)))
        h = F.relu(self.bn2(self.dc2(h)))
        return F.sigmoid(self.dc3(h))


def add_noise(device: Any, h: Any, sigma: float = 0.2) -> Any:
    """Adds Gaussian noise to ``h`` while training; returns ``h`` unchanged in test mode."""
    if not catena.config.train:
        return h
    randn = device.xp.random.randn(*h.shape).astype(h.dtype)
    return h + sigma * randn


class Discriminator(catena.Chain):
    """Images to one real-or-generated score each (a logit)."""

    def __init__(self, bottom_width: int = 4, ch: int = 64, wscale: float = 0.02) -> None:
        super().__init__()
        w = catena.initializers.Normal(wscale)
        with self.init_scope():
            self.c0 = L.Convolution2D(1, ch // 4, 3, 1, 1, initialW=w)
            self.c1 = L.Convolution2D(ch // 4, ch // 2, 4, 2, 1, initialW=w)
            self.c2 = L.Convolution2D(ch // 2, ch, 4, 2, 1, initialW=w)
            self.l3 = L.Linear(bottom_width * bottom_width * ch, 1, initialW=w)
            self.bn1 = L.BatchNormalization(ch // 2, use_gamma=False)
            self.bn2 = L.BatchNormalization(ch, use_gamma=False)

    def forward(self, x: Any) -> Any:
        device = self.device
        h = add_noise(device, x)
        h = F.leaky_relu(add_noise(device, self.c0(h)))
        h = F.leaky_relu(add_noise(device, self.bn1(self.c1(h))))
        h = F.leaky_relu(add_noise(device, self.bn2(self.c2(h))))
        return self.l3(h)


class DCGANUpdater(training.updaters.StandardUpdater):
    """Updates the discriminator, then the generator, on each batch of real images."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.gen, self.dis = kwargs.pop('models')
        super().__init__(*args, **kwargs)

    def loss_dis(self, dis: Discriminator, y_fake: Any, y_real: Any) -> Any:
        batchsize = len(y_fake)
        L1 = F.sum(F.softplus(-y_real)) / batchsize
        L2 = F.sum(F.softplus(y_fake)) / batchsize
        loss = L1 + L2
        catena.report({'loss': loss}, dis)
        return loss

    def loss_gen(self, gen: Generator, y_fake: Any) -> Any:
        batchsize = len(y_fake)
        loss = F.sum(F.softplus(-y_fake)) / batchsize
        catena.report({'loss': loss}, gen)
        return loss

    def update_core(self) -> None:
        gen_optimizer = self.get_optimizer('gen')
        dis_optimizer = self.get_optimizer('dis')
        batch = self.get_iterator('main').next()
        device = self.device
        x_real = Variable(self.converter(batch, device)) / 255.
        gen, dis = self.gen, self.dis
        batchsize = len(batch)

        y_real = dis(x_real)
        z = Variable(device.xp.asarray(gen.make_hidden(batchsize)))
        x_fake = gen(z)
        y_fake = dis(x_fake)

        dis_optimizer.update(self.loss_dis, dis, y_fake, y_real)
        gen_optimizer.update(self.loss_gen, gen, y_fake)


def make_blob_images(n: int, size: int = 16, seed: int = 0) -> np.ndarray:
    """``n`` images ``(1, size, size)`` of one Gaussian blob each, float32 in [0, 255]."""
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[0:size, 0:size]
    centres = rng.uniform(size * 0.25, size * 0.75, (n, 2))
    radii = rng.uniform(1.5, 3.0, n)
    dist2 = ((rows[None] - centres[:, 0, None, None]) ** 2
             + (cols[None] - centres[:, 1, None, None]) ** 2)
    images = 255. * np.exp(-dist2 / (2 * radii[:, None, None] ** 2))
    return images[:, None].astype(np.float32)


@functools.cache
def _matplotlib_image() -> Any:
    """matplotlib.image, or None when matplotlib is not installed."""
    try:
        import matplotlib.image
    except ImportError:
        return None
    return matplotlib.image


def out_generated_image(gen: Generator, rows: int, cols: int, seed: int, dst: str) -> Any:
    """An extension saving a ``rows`` x ``cols`` grid of generated images to dst/samples.png.

    Without matplotlib it prints a note instead.
    """
    @training.make_extension()
    def make_image(trainer: Any) -> None:
        image_module = _matplotlib_image()
        if image_module is None:
            print('matplotlib is not installed: no sample image is saved')
            return
        # The same noise every time, so that successive grids are comparable.
        state = np.random.get_state()  # noqa: NPY002
        np.random.seed(seed)  # noqa: NPY002
        z = Variable(gen.device.xp.asarray(gen.make_hidden(rows * cols)))
        with catena.using_config('train', False), catena.no_backprop_mode():
            x = gen(z)
        x = catena.get_device('@numpy').send(x.array)
        np.random.set_state(state)  # noqa: NPY002
        _, _, height, width = x.shape
        grid = x.reshape(rows, cols, height, width).transpose(0, 2, 1, 3)
        path = os.path.join(dst, 'samples.png')
        image_module.imsave(path, grid.reshape(rows * height, cols * width),
                            cmap='gray', vmin=0.0, vmax=1.0)

    return make_image


def make_optimizer(model: catena.Link, alpha: float = 0.0002, beta1: float = 0.5) -> Any:
    optimizer = catena.optimizers.Adam(alpha=alpha, beta1=beta1)
    optimizer.setup(model)
    optimizer.add_hook(catena.optimizer_hooks.WeightDecay(0.0001), 'hook_dec')
    return optimizer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='catena example: DCGAN')
    parser.add_argument('--batchsize', '-b', type=int, default=50)
    parser.add_argument('--epoch', '-e', type=int, default=5)
    parser.add_argument('--n-images', type=int, default=2000, help='generated training images')
    parser.add_argument('--n-hidden', '-n', type=int, default=32,
                        help='number of the generator\'s noise inputs')
    parser.add_argument('--ch', type=int, default=64, help='channels of the widest layer')
    parser.add_argument('--display-interval', type=int, default=20,
                        help='iterations between log entries')
    parser.add_argument('--device', '-d', default='@numpy')
    parser.add_argument('--out', '-o', default='result/dcgan')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    # catena's initializers and dropout draw from NumPy's global generator.
    np.random.seed(args.seed)  # noqa: NPY002
    device = catena.get_device(args.device)
    device.use()

    gen = Generator(n_hidden=args.n_hidden, ch=args.ch)
    dis = Discriminator(ch=args.ch)
    gen.to_device(device)
    dis.to_device(device)
    opt_gen = make_optimizer(gen)
    opt_dis = make_optimizer(dis)

    train = make_blob_images(args.n_images, seed=args.seed)
    train_iter = catena.iterators.SerialIterator(train, args.batchsize)

    updater = DCGANUpdater(models=(gen, dis), iterator=train_iter,
                           optimizer={'gen': opt_gen, 'dis': opt_dis}, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)

    display_interval = (args.display_interval, 'iteration')
    end = (args.epoch, 'epoch')
    trainer.extend(extensions.snapshot(filename='snapshot_iter_{.updater.iteration}.npz'),
                   trigger=end)
    trainer.extend(extensions.snapshot_object(gen, 'gen_iter_{.updater.iteration}.npz'),
                   trigger=end)
    trainer.extend(extensions.LogReport(trigger=display_interval))
    trainer.extend(extensions.PrintReport(['epoch', 'iteration', 'gen/loss', 'dis/loss']),
                   trigger=display_interval)
    trainer.extend(extensions.ProgressBar(update_interval=10))
    trainer.extend(out_generated_image(gen, 8, 8, args.seed, args.out), trigger=end)
    trainer.run()
    return 0


if __name__ == '__main__':
    sys.exit(main())

"""Train a small convolutional network on real handwritten digits, then export it.

The main job of the project (README command 1). The data are the 1,797
8x8 handwritten digits that ship with scikit-learn (no network needed); 20%
are held out for validation. The Trainer runs with an Evaluator, LogReport,
PrintReport, ProgressBar, PlotReport (``loss.png``, ``accuracy.png``) and a
snapshot; the job fails (exit status 1) below 95% validation accuracy. The
trained model is then exported to ``model.onnx`` (any batch size) and checked
with onnxruntime, when catena-onnx is installed.

    python examples/train_digits.py [--epochs 15] [--batchsize 32] [--out result/digits]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any

import numpy as np

import catena
import catena.functions as F
import catena.links as L
from catena import training
from catena.training import extensions

REQUIRED_ACCURACY = 0.95


class ConvNet(catena.Chain):
    """Two 3x3 convolutions, a 2x2 max pooling and two fully connected layers."""

    def __init__(self, n_classes: int = 10) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, 16, 3, pad=1)
            self.conv2 = L.Convolution2D(16, 32, 3, pad=1)
            self.fc1 = L.Linear(None, 64)
            self.fc2 = L.Linear(64, n_classes)

    def forward(self, x: Any) -> Any:
        h = F.relu(self.conv1(x))
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)
        return self.fc2(F.relu(self.fc1(h)))


def load_digits(seed: int) -> tuple[Any, Any]:
    """The scikit-learn digits as (train, validation) TupleDatasets of (1, 8, 8) images."""
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError:
        sys.exit('this job reads the digits bundled with scikit-learn: '
                 'python3 -m pip install scikit-learn')
    digits = sklearn_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_train = int(0.8 * len(labels))
    train, valid = order[:n_train], order[n_train:]
    return (catena.datasets.TupleDataset(images[train], labels[train]),
            catena.datasets.TupleDataset(images[valid], labels[valid]))


def export_onnx(model: Any, sample: np.ndarray, images: np.ndarray, out: pathlib.Path) -> str:
    """Exports ``model`` to ONNX with a dynamic batch axis and checks it with onnxruntime.

    The export itself is verified on ``sample`` (its report is printed); the
    saved file is then run on every image of ``images``, a different batch
    size, and must agree with catena there too.
    """
    try:
        import catena_onnx
        from catena_onnx.verification import run_onnxruntime
    except ImportError:
        return ('ONNX export skipped: catena-onnx is not installed '
                '(python3 -m pip install ./packages/onnx-export onnxruntime)')
    path = out / 'model.onnx'
    catena_onnx.export(model, sample, filename=str(path), input_names='image',
                       output_names='logits', dynamic_axes={'image': [0], 'logits': [0]},
                       verify=True)
    logits = run_onnxruntime(str(path), {'image': images})['logits']
    with catena.using_config('train', False), catena.no_backprop_mode():
        expected = model(images).array
    np.testing.assert_allclose(logits, expected, rtol=1e-4, atol=1e-4)
    agree = float((logits.argmax(axis=1) == expected.argmax(axis=1)).mean())
    return (f'ONNX model: {path} (onnxruntime agrees with catena on {len(images)} validation '
            f'images; same class for {agree:.1%})')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--epochs', type=int, default=15)
    parser.add_argument('--batchsize', type=int, default=32)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--out', default='result/digits')
    args = parser.parse_args(argv)

    np.random.seed(args.seed)  # noqa: NPY002 - catena's initializers draw from it
    train, valid = load_digits(args.seed)
    model = L.Classifier(ConvNet())
    optimizer = catena.optimizers.Adam().setup(model)
    train_iter = catena.iterators.SerialIterator(train, args.batchsize)
    valid_iter = catena.iterators.SerialIterator(valid, 256, repeat=False, shuffle=False)
    updater = training.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.epochs, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(valid_iter, model))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss', 'main/accuracy',
         'validation/main/accuracy', 'elapsed_time']))
    trainer.extend(extensions.ProgressBar(update_interval=10))
    if extensions.PlotReport.available():
        trainer.extend(extensions.PlotReport(['main/loss', 'validation/main/loss'],
                                             'epoch', filename='loss.png'))
        trainer.extend(extensions.PlotReport(['main/accuracy', 'validation/main/accuracy'],
                                             'epoch', filename='accuracy.png'))
    trainer.extend(extensions.snapshot(n_retains=1), trigger=(args.epochs, 'epoch'))
    trainer.run()

    out = pathlib.Path(args.out)
    accuracy = float(trainer.get_extension('LogReport').log[-1]['validation/main/accuracy'])
    print(f'\nvalidation accuracy: {accuracy:.4f} (required: {REQUIRED_ACCURACY})')
    print(f'results in {out.resolve()}: log, loss.png, accuracy.png, snapshot_iter_*')
    sample, _ = catena.dataset.concat_examples(valid[:8])
    images, _ = catena.dataset.concat_examples(valid[:])
    print(export_onnx(model.predictor, sample, images, out))
    if accuracy < REQUIRED_ACCURACY:
        print('FAILED: the validation accuracy is below the requirement', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())

"""Sequence to sequence learning with an NStepLSTM encoder-decoder.

The documentation's seq2seq example: ``Seq2seq`` embeds the source words,
encodes them (reversed) with an ``L.NStepLSTM``, and a second
``L.NStepLSTM`` decodes the target words from the encoder's final state;
``translate()`` decodes greedily until ``<EOS>``. A custom converter sends
the variable-length sequences of a batch to the device as lists.

Instead of a parallel corpus the task is generated: the target is the
source sequence of token IDs reversed, with every ID shifted into the
target vocabulary (``y = x[::-1] + 1``). An extension translates the
held-out sources after every epoch and reports the share of exactly right
translations and of right tokens (``validation/main/accuracy`` and
``validation/main/token_accuracy``); no BLEU is needed for this task.

    python examples/seq2seq/seq2seq.py [--epoch 10] [--unit 64] [--out result/seq2seq]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

import catena
import catena.functions as F
import catena.links as L
from catena import training
from catena.training import extensions

UNK = 0
EOS = 1
FIRST_WORD = 2  # IDs 0 and 1 are reserved for <UNK> and <EOS>


def sequence_embed(embed: Any, xs: list[Any]) -> Any:
    """Embeds a list of ID sequences with one call of ``embed``, then splits them again."""
    x_len = [len(x) for x in xs]
    x_section = np.cumsum(x_len[:-1])
    ex = embed(F.concat(xs, axis=0))
    return F.split_axis(ex, x_section, 0)


class Seq2seq(catena.Chain):
    """An encoder and a decoder, each a stack of ``n_layers`` LSTMs."""

    def __init__(self, n_layers: int, n_source_vocab: int, n_target_vocab: int,
                 n_units: int) -> None:
        super().__init__()
        with self.init_scope():
            self.embed_x = L.EmbedID(n_source_vocab, n_units)
            self.embed_y = L.EmbedID(n_target_vocab, n_units)
            self.encoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.decoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.W = L.Linear(n_units, n_target_vocab)
        self.n_layers = n_layers
        self.n_units = n_units

    def forward(self, xs: list[Any], ys: list[Any]) -> Any:
        # Reading the source backwards makes the first words close to the decoder.
        xs = [x[::-1] for x in xs]
        eos = self.xp.array([EOS], np.int32)
        ys_in = [F.concat([eos, y], axis=0) for y in ys]
        ys_out = [F.concat([y, eos], axis=0) for y in ys]

        exs = sequence_embed(self.embed_x, xs)
        eys = sequence_embed(self.embed_y, ys_in)
        batch = len(xs)
        # None as the initial state means zeros.
        hx, cx, _ = self.encoder(None, None, exs)
        _, _, os = self.decoder(hx, cx, eys)

        # One matrix product for the whole batch.
        concat_os = F.concat(os, axis=0)
        concat_ys_out = F.concat(ys_out, axis=0)
        loss = F.sum(F.softmax_cross_entropy(
            self.W(concat_os), concat_ys_out, reduce='no')) / batch
        catena.report({'loss': loss}, self)
        n_words = concat_ys_out.shape[0]
        perp = self.xp.exp(loss.array * batch / n_words)
        catena.report({'perp': perp}, self)
        return loss

    def translate(self, xs: list[Any], max_length: int = 100) -> list[np.ndarray]:
        """Greedy decoding: the most probable word at each step, until ``<EOS>``.

        Returns:
            One NumPy int32 array of target IDs per source, without ``<EOS>``.
        """
        batch = len(xs)
        with catena.no_backprop_mode(), catena.using_config('train', False):
            xs = [x[::-1] for x in xs]
            exs = sequence_embed(self.embed_x, xs)
            h, c, _ = self.encoder(None, None, exs)
            ys = self.xp.full(batch, EOS, np.int32)
            result = []
            for _ in range(max_length):
                eys = self.embed_y(ys)
                eys = F.split_axis(eys, batch, 0)
                h, c, ys = self.decoder(h, c, eys)
                wy = self.W(F.concat(ys, axis=0))
                ys = self.xp.argmax(wy.array, axis=1).astype(np.int32)
                result.append(ys)
        result = catena.get_device('@numpy').send(self.xp.stack(result, axis=1))

        outs = []
        for y in result:
            eos_at = np.flatnonzero(y == EOS)
            outs.append(y[:eos_at[0]] if len(eos_at) else y)
        return outs


@catena.dataset.converter()
def convert(batch: list[tuple[np.ndarray, np.ndarray]], device: Any) -> dict[str, Any]:
    """Sends the source and target sequences of a batch to ``device``, as two lists."""
    def to_device_batch(sequences: list[np.ndarray]) -> list[Any]:
        if device is None:
            return list(sequences)
        # One transfer for the whole batch, then views of it.
        concat = device.send(np.concatenate(sequences))
        sections = np.cumsum([len(x) for x in sequences[:-1]])
        return list(device.xp.split(concat, sections))

    return {'xs': to_device_batch([x for x, _ in batch]),
            'ys': to_device_batch([y for _, y in batch])}


class CalculateAccuracy(training.Extension):
    """Translates held-out sources and reports the exact-match and token accuracies."""

    trigger = 1, 'epoch'
    priority = training.PRIORITY_WRITER

    def __init__(self, model: Seq2seq, test_data: list[tuple[np.ndarray, np.ndarray]],
                 key: str, token_key: str, device: Any, batch: int = 100) -> None:
        self.model = model
        self.test_data = test_data
        self.key = key
        self.token_key = token_key
        self.device = device
        self.batch = batch

    def __call__(self, trainer: Any = None) -> None:
        exact = right_tokens = total_tokens = 0
        for i in range(0, len(self.test_data), self.batch):
            sources, targets = zip(*self.test_data[i:i + self.batch])
            max_length = max(len(t) for t in targets) + 1
            outputs = self.model.translate(
                [self.device.send(x) for x in sources], max_length=max_length)
            for output, target in zip(outputs, targets):
                exact += int(len(output) == len(target) and bool(np.all(output == target)))
                n = min(len(output), len(target))
                right_tokens += int(np.sum(output[:n] == target[:n]))
                total_tokens += len(target)
        catena.report({self.key: exact / len(self.test_data),
                       self.token_key: right_tokens / total_tokens})


def make_reversal_data(n: int, n_source_words: int, min_length: int, max_length: int,
                       rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pairs ``(x, x[::-1] + 1)`` of random int32 ID sequences (IDs from FIRST_WORD)."""
    pairs = []
    for _ in range(n):
        length = int(rng.integers(min_length, max_length + 1))
        x = rng.integers(FIRST_WORD, FIRST_WORD + n_source_words, length).astype(np.int32)
        pairs.append((x, (x[::-1] + 1).astype(np.int32)))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='catena example: seq2seq')
    parser.add_argument('--n-train', type=int, default=5000, help='training pairs')
    parser.add_argument('--n-test', type=int, default=200, help='held-out pairs')
    parser.add_argument('--vocab', type=int, default=10, help='source words (besides UNK, EOS)')
    parser.add_argument('--min-length', type=int, default=3)
    parser.add_argument('--max-length', type=int, default=6)
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--epoch', '-e', type=int, default=10)
    parser.add_argument('--unit', '-u', type=int, default=64)
    parser.add_argument('--layer', '-l', type=int, default=1, help='stacked LSTMs')
    parser.add_argument('--device', '-d', default='@numpy')
    parser.add_argument('--out', '-o', default='result/seq2seq')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    # catena's initializers and dropout draw from NumPy's global generator.
    np.random.seed(args.seed)  # noqa: NPY002
    rng = np.random.default_rng(args.seed)
    device = catena.get_device(args.device)
    device.use()

    train_data = make_reversal_data(args.n_train, args.vocab, args.min_length,
                                    args.max_length, rng)
    test_data = make_reversal_data(args.n_test, args.vocab, args.min_length,
                                   args.max_length, rng)
    n_source_vocab = FIRST_WORD + args.vocab
    n_target_vocab = n_source_vocab + 1

    model = Seq2seq(args.layer, n_source_vocab, n_target_vocab, args.unit)
    model.to_device(device)
    optimizer = catena.optimizers.Adam()
    optimizer.setup(model)

    train_iter = catena.iterators.SerialIterator(train_data, args.batchsize)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, converter=convert, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(CalculateAccuracy(model, test_data, 'validation/main/accuracy',
                                     'validation/main/token_accuracy', device))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'iteration', 'main/loss', 'main/perp', 'validation/main/token_accuracy',
         'validation/main/accuracy', 'elapsed_time']))
    trainer.extend(extensions.ProgressBar())
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, 'epoch'))
    trainer.run()

    source, target = test_data[0]
    output = model.translate([device.send(source)])[0]
    print(f'source: {source.tolist()}  expected: {target.tolist()}  '
          f'translated: {output.tolist()}')
    return 0


if __name__ == '__main__':
    sys.exit(main())

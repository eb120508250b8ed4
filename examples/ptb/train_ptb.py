"""Train a recurrent neural network language model (the PTB example).

The documentation's RNN language model: word embeddings (``L.EmbedID``),
two stacked ``L.LSTM`` layers and a ``L.Linear`` output, trained with
truncated backpropagation through time by a custom ``BPTTUpdater`` (a
StandardUpdater subclass) over a ``ParallelSequentialIterator``, which reads
the corpus at ``batchsize`` evenly spaced positions at once. The perplexity
(``exp`` of the mean cross entropy) is added to the log by a LogReport
postprocess; the test perplexity is printed at the end.

By default the corpus is generated (``--data synthetic``): sentences of a
small grammar ("the big dog sees a cat <eos>"), so the perplexity falls
quickly from about the vocabulary size. ``--data ptb`` reads the Penn
Treebank through ``catena.datasets.get_ptb_words()`` (downloaded once).

    python examples/ptb/train_ptb.py [--epoch 5] [--unit 64] [--out result/ptb]
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

DETERMINERS = ['the', 'a', 'every', 'no']
ADJECTIVES = ['big', 'small', 'red', 'old', 'quick']
NOUNS = ['dog', 'cat', 'bird', 'fish', 'horse', 'man', 'woman', 'child']
VERBS = ['sees', 'likes', 'chases', 'feeds', 'hears']


def generate_corpus(n_words: int, seed: int = 0) -> tuple[np.ndarray, dict[str, int]]:
    """Words of a tiny grammar as one long int32 sequence, ``<eos>`` ending each sentence.

    A sentence is ``DET [ADJ] NOUN VERB DET [ADJ] NOUN <eos>``. IDs follow the
    order in which words first appear, as in ``get_ptb_words()``.

    Returns:
        The word IDs and the vocabulary (word to ID).
    """
    rng = np.random.default_rng(seed)
    words: list[str] = []
    while len(words) < n_words:
        for part in ('subject', 'object'):
            words.append(str(rng.choice(DETERMINERS)))
            if rng.random() < 0.5:
                words.append(str(rng.choice(ADJECTIVES)))
            words.append(str(rng.choice(NOUNS)))
            if part == 'subject':
                words.append(str(rng.choice(VERBS)))
        words.append('<eos>')
    vocab: dict[str, int] = {}
    for word in DETERMINERS + ADJECTIVES + NOUNS + VERBS + ['<eos>']:
        vocab.setdefault(word, len(vocab))
    return np.array([vocab[w] for w in words[:n_words]], np.int32), vocab


class RNNForLM(catena.Chain):
    """Embedding, two LSTMs and a linear output, with dropout between them."""

    def __init__(self, n_vocab: int, n_units: int) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l1 = L.LSTM(n_units, n_units)
            self.l2 = L.LSTM(n_units, n_units)
            self.l3 = L.Linear(n_units, n_vocab)
        initializer = catena.initializers.Uniform(0.1)
        for param in self.params():
            initializer(param.array)

    def reset_state(self) -> None:
        self.l1.reset_state()
        self.l2.reset_state()

    def forward(self, x: Any) -> Any:
        h0 = self.embed(x)
        h1 = self.l1(F.dropout(h0))
        h2 = self.l2(F.dropout(h1))
        return self.l3(F.dropout(h2))


class ParallelSequentialIterator(catena.dataset.Iterator):
    """Reads one sequence at ``batch_size`` evenly spaced offsets at once.

    Each batch is a list of ``(current word, next word)`` pairs, one per
    offset; every call moves all offsets one word forward. An epoch is over
    when ``batch_size`` times the number of calls reaches the length.
    """

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True) -> None:
        self.dataset = dataset
        self.batch_size = batch_size
        self.repeat = repeat
        length = len(dataset)
        self.offsets = [i * length // batch_size for i in range(batch_size)]
        self.reset()

    def reset(self) -> None:
        self.epoch = 0
        self.is_new_epoch = False
        # The number of calls of __next__ (not of parameter updates).
        self.iteration = 0
        self._previous_epoch_detail = -1.0

    def __next__(self) -> list[tuple[Any, Any]]:
        length = len(self.dataset)
        if not self.repeat and self.iteration * self.batch_size >= length:
            raise StopIteration
        current_words = self.get_words()
        self._previous_epoch_detail = self.epoch_detail
        self.iteration += 1
        next_words = self.get_words()
        epoch = self.iteration * self.batch_size // length
        self.is_new_epoch = self.epoch < epoch
        if self.is_new_epoch:
            self.epoch = epoch
        return list(zip(current_words, next_words))

    @property
    def epoch_detail(self) -> float:
        return self.iteration * self.batch_size / len(self.dataset)

    @property
    def previous_epoch_detail(self) -> float | None:
        return None if self._previous_epoch_detail < 0 else self._previous_epoch_detail

    def get_words(self) -> list[Any]:
        length = len(self.dataset)
        return [self.dataset[(offset + self.iteration) % length] for offset in self.offsets]

    def serialize(self, serializer: Any) -> None:
        # The position must be saved in snapshots, or a resumed run rereads.
        self.iteration = serializer('iteration', self.iteration)
        self.epoch = serializer('epoch', self.epoch)
        self._previous_epoch_detail = serializer(
            'previous_epoch_detail', self._previous_epoch_detail)


class BPTTUpdater(training.updaters.StandardUpdater):
    """Accumulates the loss over ``bprop_len`` steps, then backpropagates and updates."""

    def __init__(self, train_iter: Any, optimizer: Any, bprop_len: int, device: Any) -> None:
        super().__init__(train_iter, optimizer, device=device)
        self.bprop_len = bprop_len

    def update_core(self) -> None:
        loss: Any = 0
        train_iter = self.get_iterator('main')
        optimizer = self.get_optimizer('main')
        for _ in range(self.bprop_len):
            batch = train_iter.__next__()
            x, t = self.converter(batch, self.device)
            loss += optimizer.target(x, t)
        optimizer.target.cleargrads()
        loss.backward()
        # Cut the graph here: the next update backpropagates no further back.
        loss.unchain_backward()
        optimizer.update()


def compute_perplexity(result: dict[str, Any]) -> None:
    """LogReport postprocess: the perplexities from the mean cross entropies."""
    result['perplexity'] = np.exp(result['main/loss'])
    if 'validation/main/loss' in result:
        result['val_perplexity'] = np.exp(result['validation/main/loss'])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='catena example: RNN language model')
    parser.add_argument('--data', choices=('synthetic', 'ptb'), default='synthetic',
                        help='a generated corpus (default) or Penn Treebank (downloads)')
    parser.add_argument('--n-words', type=int, default=20000,
                        help='words in the generated training corpus')
    parser.add_argument('--batchsize', '-b', type=int, default=20,
                        help='number of sequences read in parallel')
    parser.add_argument('--bproplen', '-l', type=int, default=35,
                        help='number of words in each truncated BPTT segment')
    parser.add_argument('--epoch', '-e', type=int, default=5)
    parser.add_argument('--gradclip', '-c', type=float, default=5,
                        help='the L2 norm the gradient is clipped to')
    parser.add_argument('--unit', '-u', type=int, default=64, help='units in each layer')
    parser.add_argument('--interval', type=int, default=20,
                        help='iterations between log entries')
    parser.add_argument('--device', '-d', default='@numpy')
    parser.add_argument('--out', '-o', default='result/ptb')
    parser.add_argument('--resume', '-r', default=None, help='a snapshot to resume from')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    # catena's initializers and dropout draw from NumPy's global generator.
    np.random.seed(args.seed)  # noqa: NPY002
    device = catena.get_device(args.device)
    device.use()

    if args.data == 'ptb':
        train, val, test = catena.datasets.get_ptb_words()
        n_vocab = max(train) + 1
    else:
        # Validation and test sets of 5% of the training length each.
        corpus, vocab = generate_corpus(args.n_words * 11 // 10, args.seed)
        n_vocab = len(vocab)
        cut1, cut2 = args.n_words, args.n_words * 21 // 20
        train, val, test = corpus[:cut1], corpus[cut1:cut2], corpus[cut2:]
    print(f'# vocabulary: {n_vocab}  # train words: {len(train)}')

    train_iter = ParallelSequentialIterator(train, args.batchsize)
    val_iter = ParallelSequentialIterator(val, 1, repeat=False)
    test_iter = ParallelSequentialIterator(test, 1, repeat=False)

    rnn = RNNForLM(n_vocab, args.unit)
    model = L.Classifier(rnn)
    model.compute_accuracy = False  # only the perplexity is of interest
    model.to_device(device)

    optimizer = catena.optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(catena.optimizer_hooks.GradientClipping(args.gradclip))

    updater = BPTTUpdater(train_iter, optimizer, args.bproplen, device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)

    # The evaluation model shares the parameters but keeps its own LSTM
    # states, reset before each evaluation.
    eval_model: Any = model.copy()
    eval_rnn = eval_model.predictor
    trainer.extend(extensions.Evaluator(
        val_iter, eval_model, device=device, eval_hook=lambda _: eval_rnn.reset_state()))

    interval = (args.interval, 'iteration')
    trainer.extend(extensions.LogReport(postprocess=compute_perplexity, trigger=interval))
    trainer.extend(extensions.PrintReport(
        ['epoch', 'iteration', 'perplexity', 'val_perplexity']), trigger=interval)
    trainer.extend(extensions.ProgressBar(update_interval=10))
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, 'epoch'))
    trainer.extend(extensions.snapshot_object(model, 'model_iter_{.updater.iteration}'),
                   trigger=(args.epoch, 'epoch'))
    if args.resume is not None:
        catena.serializers.load_npz(args.resume, trainer)

    trainer.run()

    # An Evaluator is also an ordinary function: use it once on the test set.
    eval_rnn.reset_state()
    evaluator = extensions.Evaluator(test_iter, eval_model, device=device)
    result = evaluator()
    print(f"test perplexity: {np.exp(float(result['main/loss'])):.3f}")
    return 0


if __name__ == '__main__':
    sys.exit(main())

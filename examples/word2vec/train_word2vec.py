"""Learn word embeddings with word2vec: skip-gram or continuous bag of words.

The documentation's word2vec example. ``--model skipgram`` predicts each
context word from the centre word, ``--model cbow`` the centre word from the
mean of its context. The output layer is chosen with ``--out-type``:
``ns`` (``L.NegativeSampling``), ``hsm`` (``L.BinaryHierarchicalSoftmax``)
or ``original`` (a full softmax). A ``WindowIterator`` draws centre words at
random positions with their surrounding windows.

By default the corpus is generated: sentences on a few topics, each topic
using its own words (``t0_w0``, ``t0_w1``, ...; 10% of the words are noise
from any topic), so words of one topic should end up close together. The
script prints the nearest neighbours of a few words and the share of words
whose nearest neighbour is of the same topic, and writes the embeddings in
word2vec's text format to ``--out``/word2vec.model.

    python examples/word2vec/train_word2vec.py [--model skipgram|cbow] [--out-type ns|hsm|original]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from typing import Any

import numpy as np

import catena
import catena.functions as F
import catena.initializers as I
import catena.links as L
from catena import reporter, training
from catena.training import extensions


def generate_corpus(n_words: int, n_topics: int, words_per_topic: int,
                    seed: int = 0) -> tuple[np.ndarray, list[str]]:
    """A sequence of word IDs made of 8-word sentences, each on one topic.

    Returns:
        The int32 word IDs and the words (``words[i]`` is the word of ID ``i``).
    """
    rng = np.random.default_rng(seed)
    words = [f't{t}_w{i}' for t in range(n_topics) for i in range(words_per_topic)]
    n_sentences = -(-n_words // 8)
    topics = rng.integers(0, n_topics, n_sentences)
    ids = topics[:, None] * words_per_topic + rng.integers(0, words_per_topic, (n_sentences, 8))
    noise = rng.random(ids.shape) < 0.1
    ids[noise] = rng.integers(0, len(words), int(noise.sum()))
    return ids.reshape(-1)[:n_words].astype(np.int32), words


class ContinuousBoW(catena.Chain):
    """Predicts the centre word from the mean of its context words' embeddings."""

    def __init__(self, n_vocab: int, n_units: int, loss_func: Any) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units, initialW=I.Uniform(1. / n_units))
            self.loss_func = loss_func

    def forward(self, x: Any, contexts: Any) -> Any:
        e = self.embed(contexts)
        h = F.sum(e, axis=1) * (1. / contexts.shape[1])
        loss = self.loss_func(h, x)
        reporter.report({'loss': loss}, self)
        return loss


class SkipGram(catena.Chain):
    """Predicts the centre word from each context word's embedding.

    Predicting the centre from a context word is the same task as predicting
    the context from the centre, with the roles of the pairs swapped.
    """

    def __init__(self, n_vocab: int, n_units: int, loss_func: Any) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units, initialW=I.Uniform(1. / n_units))
            self.loss_func = loss_func

    def forward(self, x: Any, contexts: Any) -> Any:
        e = self.embed(contexts)
        batch_size, n_context, n_units = e.shape
        x = F.broadcast_to(x[:, None], (batch_size, n_context))
        e = F.reshape(e, (batch_size * n_context, n_units))
        x = F.reshape(x, (batch_size * n_context,))
        loss = self.loss_func(e, x)
        reporter.report({'loss': loss}, self)
        return loss


class SoftmaxCrossEntropyLoss(catena.Chain):
    """A linear layer followed by the softmax cross entropy (the ``original`` output)."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        with self.init_scope():
            self.out = L.Linear(n_in, n_out, initialW=0)

    def forward(self, x: Any, t: Any) -> Any:
        return F.softmax_cross_entropy(self.out(x), t)


class WindowIterator(catena.dataset.Iterator):
    """Batches of centre words at random positions with the words around them.

    Each batch is ``(centre, contexts)``: ``centre`` of shape ``(B,)`` and
    ``contexts`` of shape ``(B, 2 * w)``, where the half-width ``w`` is drawn
    from ``[1, window]`` once per batch. ``seed`` seeds the order and the widths.
    """

    def __init__(self, dataset: Any, window: int, batch_size: int, repeat: bool = True,
                 seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.dataset = np.array(dataset, np.int32)
        self.window = window
        self.batch_size = batch_size
        self.repeat = repeat
        # The positions that have a whole window on both sides, shuffled.
        self.order = self.rng.permutation(len(dataset) - window * 2).astype(np.int32)
        self.order += window
        self.reset()

    def reset(self) -> None:
        self.current_position = 0
        self.epoch = 0
        self.is_new_epoch = False

    def __next__(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.repeat and self.epoch > 0:
            raise StopIteration
        i = self.current_position
        i_end = i + self.batch_size
        position = self.order[i:i_end]
        w = int(self.rng.integers(1, self.window + 1))
        offset = np.concatenate([np.arange(-w, 0), np.arange(1, w + 1)])
        contexts = self.dataset.take(position[:, None] + offset[None, :])
        center = self.dataset.take(position)
        if i_end >= len(self.order):
            self.rng.shuffle(self.order)
            self.epoch += 1
            self.is_new_epoch = True
            self.current_position = 0
        else:
            self.is_new_epoch = False
            self.current_position = i_end
        return center, contexts

    @property
    def epoch_detail(self) -> float:
        return self.epoch + float(self.current_position) / len(self.order)

    def serialize(self, serializer: Any) -> None:
        self.current_position = serializer('current_position', self.current_position)
        self.epoch = serializer('epoch', self.epoch)
        self.is_new_epoch = serializer('is_new_epoch', self.is_new_epoch)
        serializer('order', self.order)


@catena.dataset.converter()
def convert(batch: tuple[np.ndarray, np.ndarray], device: Any) -> tuple[Any, Any]:
    """Sends the ``(centre, contexts)`` arrays of a WindowIterator batch to ``device``."""
    center, contexts = batch
    if device is not None:
        center = device.send(center)
        contexts = device.send(contexts)
    return center, contexts


def nearest_neighbours(embeddings: np.ndarray, query: int, k: int) -> list[tuple[int, float]]:
    """The ``k`` words most similar to word ``query`` (cosine similarity), best first."""
    unit = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    similarity = unit @ unit[query]
    order = [int(i) for i in np.argsort(-similarity) if i != query][:k]
    return [(i, float(similarity[i])) for i in order]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='catena example: word2vec')
    parser.add_argument('--model', '-m', choices=('skipgram', 'cbow'), default='skipgram')
    parser.add_argument('--out-type', '-o', choices=('ns', 'hsm', 'original'), default='ns',
                        help='output layer: negative sampling, hierarchical softmax or softmax')
    parser.add_argument('--unit', '-u', type=int, default=32, help='embedding size')
    parser.add_argument('--window', '-w', type=int, default=3, help='context half-width')
    parser.add_argument('--negative-size', type=int, default=5,
                        help='number of negative samples')
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--epoch', '-e', type=int, default=10)
    parser.add_argument('--n-words', type=int, default=20000,
                        help='words in the generated training corpus')
    parser.add_argument('--n-topics', type=int, default=5)
    parser.add_argument('--words-per-topic', type=int, default=10)
    parser.add_argument('--device', '-d', default='@numpy')
    parser.add_argument('--out', default='result/word2vec')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    # catena's initializers and dropout draw from NumPy's global generator.
    np.random.seed(args.seed)  # noqa: NPY002
    device = catena.get_device(args.device)
    device.use()

    corpus, words = generate_corpus(args.n_words * 11 // 10, args.n_topics,
                                    args.words_per_topic, args.seed)
    train, val = corpus[:args.n_words], corpus[args.n_words:]
    n_vocab = len(words)
    counts = collections.Counter(train.tolist())
    print(f'model: {args.model}  output: {args.out_type}  # vocabulary: {n_vocab}  '
          f'# train words: {len(train)}')

    loss_func: catena.Link
    if args.out_type == 'hsm':
        tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(
            {w: counts.get(w, 0) + 1 for w in range(n_vocab)})
        loss_func = L.BinaryHierarchicalSoftmax(args.unit, tree)
        loss_func.W.array[...] = 0
    elif args.out_type == 'ns':
        frequencies = [counts.get(w, 0) + 1 for w in range(n_vocab)]
        loss_func = L.NegativeSampling(args.unit, frequencies, args.negative_size)
        loss_func.W.array[...] = 0
    else:
        loss_func = SoftmaxCrossEntropyLoss(args.unit, n_vocab)

    model_class = SkipGram if args.model == 'skipgram' else ContinuousBoW
    model = model_class(n_vocab, args.unit, loss_func)
    model.to_device(device)

    optimizer = catena.optimizers.Adam()
    optimizer.setup(model)

    train_iter = WindowIterator(train, args.window, args.batchsize, seed=args.seed)
    val_iter = WindowIterator(val, args.window, args.batchsize, repeat=False,
                              seed=args.seed + 1)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, converter=convert, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(val_iter, model, converter=convert, device=device))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(['epoch', 'main/loss', 'validation/main/loss']))
    trainer.extend(extensions.ProgressBar())
    trainer.extend(extensions.snapshot(filename='snapshot_epoch_{.updater.epoch}'),
                   trigger=(args.epoch, 'epoch'))
    trainer.run()

    embeddings = catena.get_device('@numpy').send(model.embed.W.array)
    for query in range(0, n_vocab, max(1, n_vocab // 3)):
        similar = ', '.join(f'{words[i]} ({s:.2f})'
                            for i, s in nearest_neighbours(embeddings, query, 3))
        print(f'{words[query]}: {similar}')
    same_topic = [nearest_neighbours(embeddings, w, 1)[0][0] // args.words_per_topic
                  == w // args.words_per_topic for w in range(n_vocab)]
    print(f'nearest neighbour of the same topic: {np.mean(same_topic):.2f} of the words '
          f'(chance: {1 / args.n_topics:.2f})')

    # Save the embeddings in word2vec's text format.
    with open(os.path.join(args.out, 'word2vec.model'), 'w') as f:
        f.write(f'{n_vocab} {args.unit}\n')
        for i, word in enumerate(words):
            f.write(word + ' ' + ' '.join(f'{v:.6f}' for v in embeddings[i]) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())

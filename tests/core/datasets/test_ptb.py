import numpy
import pytest

from catena.datasets import ptb

TRAIN = 'the cat sat\n the dog <unk> sat \n\na cat\n'
VALID = 'a dog sat\n'
TEST = 'the <unk>\n'


@pytest.fixture
def served(serve_known):
    for split, text in (('train', TRAIN), ('valid', VALID), ('test', TEST)):
        serve_known(f'{ptb._BASE}ptb.{split}.txt', text.encode())


def test_get_ptb_words(served, server):
    train, valid, test = ptb.get_ptb_words()
    vocab = ptb.get_ptb_words_vocabulary()
    assert vocab == {'the': 0, 'cat': 1, 'sat': 2, '<eos>': 3, 'dog': 4, '<unk>': 5, 'a': 6}
    for arr, text in ((train, TRAIN), (valid, VALID), (test, TEST)):
        assert arr.dtype == numpy.int32
        words = []
        for line in text.splitlines(keepends=True):
            words += line.split() + ['<eos>']
        numpy.testing.assert_array_equal(arr, [vocab[w] for w in words])
    hits = sum(server.hits.values())
    ptb.get_ptb_words()
    assert sum(server.hits.values()) == hits


def test_unknown_word_in_valid(serve_known):
    for split, text in (('train', 'a b\n'), ('valid', 'c\n'), ('test', 'a\n')):
        serve_known(f'{ptb._BASE}ptb.{split}.txt', text.encode())
    with pytest.raises(ValueError, match='vocabulary'):
        ptb.get_ptb_words()

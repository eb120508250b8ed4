"""Smoke tests of examples/word2vec/train_word2vec.py: CBoW and skip-gram."""

from __future__ import annotations

import re

import numpy as np

SMALL = ['--n-words', '3000', '--batchsize', '50', '--unit', '16']


def test_cbow_with_negative_sampling_lowers_the_loss(run_example, load_log, tmp_path):
    out = tmp_path / 'result'
    run_example('word2vec/train_word2vec.py', '--model', 'cbow', '--out-type', 'ns',
                '--epoch', '4', '--out', str(out), *SMALL)

    # CBoW's loss does not depend on the random window width, so it is steady.
    log = load_log(out / 'log')
    assert len(log) == 4
    assert log[-1]['validation/main/loss'] < 0.9 * log[0]['validation/main/loss']
    assert (out / 'snapshot_epoch_4').is_file()


def test_skipgram_with_hierarchical_softmax_groups_the_topics(run_example, tmp_path):
    out = tmp_path / 'result'
    completed = run_example('word2vec/train_word2vec.py', '--model', 'skipgram',
                            '--out-type', 'hsm', '--epoch', '2', '--out', str(out), *SMALL)

    # 5 topics: a random embedding finds a same-topic neighbour for ~20% of words.
    share = float(re.search(r'same topic: ([\d.]+) of the words', completed.stdout)[1])
    assert share > 0.5
    lines = (out / 'word2vec.model').read_text().splitlines()
    assert lines[0] == '50 16'
    word, *vector = lines[1].split()
    assert word == 't0_w0' and np.isfinite([float(v) for v in vector]).all()
    assert len(vector) == 16 and len(lines) == 51


def test_skipgram_with_a_full_softmax_runs(run_example, load_log, tmp_path):
    out = tmp_path / 'result'
    run_example('word2vec/train_word2vec.py', '--out-type', 'original', '--epoch', '1',
                '--out', str(out), *SMALL)
    assert np.isfinite(load_log(out / 'log')[0]['validation/main/loss'])

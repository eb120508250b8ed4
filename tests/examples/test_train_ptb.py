"""Smoke test of examples/ptb/train_ptb.py: the RNN language model with truncated BPTT."""

from __future__ import annotations

import re


def test_perplexity_falls_on_the_generated_grammar(run_example, load_log, tmp_path):
    out = tmp_path / 'result'
    completed = run_example('ptb/train_ptb.py', '--epoch', '10', '--n-words', '4000',
                            '--batchsize', '20', '--bproplen', '10', '--interval', '20',
                            '--unit', '32', '--out', str(out))

    log = load_log(out / 'log')
    assert len(log) == 10
    assert all('perplexity' in entry and 'val_perplexity' in entry for entry in log)
    # 23 words: a model that knows nothing scores a perplexity of about 20;
    # the grammar leaves about 5 choices per word.
    assert log[0]['val_perplexity'] > 15
    assert log[-1]['val_perplexity'] < 0.75 * log[0]['val_perplexity']
    test_perplexity = float(re.search(r'test perplexity: ([\d.]+)', completed.stdout)[1])
    assert test_perplexity < 0.75 * log[0]['val_perplexity']
    assert (out / 'snapshot_iter_200').is_file()
    assert (out / 'model_iter_200').is_file()

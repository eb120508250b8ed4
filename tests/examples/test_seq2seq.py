"""Smoke test of examples/seq2seq/seq2seq.py: learning to reverse token sequences."""

from __future__ import annotations

import json
import re


def test_loss_falls_and_translations_beat_chance(run_example, load_log, tmp_path):
    out = tmp_path / 'result'
    completed = run_example('seq2seq/seq2seq.py', '--n-train', '1000', '--n-test', '50',
                            '--epoch', '4', '--batchsize', '32', '--out', str(out))

    log = load_log(out / 'log')
    assert [entry['epoch'] for entry in log] == [1, 2, 3, 4]
    assert log[-1]['main/loss'] < log[0]['main/loss']
    assert log[-1]['main/perp'] < log[0]['main/perp']
    # 10 possible target words (plus <EOS>): guessing gets about 10% of the
    # tokens right and practically no sequence of 3 to 6 tokens.
    assert log[-1]['validation/main/token_accuracy'] > 0.3
    assert log[-1]['validation/main/accuracy'] > 0.05
    source, expected, translated = (json.loads(text) for text in re.search(
        r'source: (\[.*?\])  expected: (\[.*?\])  translated: (\[.*?\])', completed.stdout
    ).groups())
    assert expected == [x + 1 for x in reversed(source)]
    assert all(isinstance(x, int) for x in translated)
    assert (out / 'snapshot_iter_125').is_file()

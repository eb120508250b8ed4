"""Smoke test of examples/mushroom/train_mushroom.py: the tabular classifier."""

from __future__ import annotations

import importlib.util


def test_writes_the_table_and_learns_the_class(run_example, load_log, tmp_path):
    out = tmp_path / 'result'
    completed = run_example('mushroom/train_mushroom.py', '--epoch', '8', '--rows', '600',
                            '--lr', '0.3', '--out', str(out))

    header, first_row = (out / 'mushrooms.csv').read_text().splitlines()[:2]
    assert header.split(',')[0] == 'class' and len(header.split(',')) == 23
    assert first_row[0] in 'ep' and len(first_row.split(',')) == 23

    log = load_log(out / 'log')
    assert len(log) == 8
    assert log[-1]['validation/main/loss'] < log[0]['validation/main/loss']
    assert 0.0 <= log[-1]['validation/main/accuracy'] <= 1.0
    assert (out / 'cg.dot').read_text().startswith('digraph')
    # 420 training rows in batches of 100: the 8th epoch ends at iteration 34.
    assert (out / 'snapshot_iter_34').is_file()
    if importlib.util.find_spec('matplotlib') is not None:
        assert (out / 'loss.png').stat().st_size > 0
        assert (out / 'accuracy.png').stat().st_size > 0
    assert 'P(poisonous)' in completed.stdout


def test_reads_a_given_csv(run_example, load_log, tmp_path):
    csv = tmp_path / 'mushrooms.csv'
    rows = ['class,odor,habitat'] + [f'{c},{o},{h}' for c, o, h in
                                     zip('epep' * 25, 'anpf' * 25, 'gdgu' * 25)]
    csv.write_text('\n'.join(rows) + '\n')
    out = tmp_path / 'result'
    run_example('mushroom/train_mushroom.py', '--csv', str(csv), '--epoch', '2',
                '--out', str(out))
    assert len(load_log(out / 'log')) == 2
    assert not (out / 'mushrooms.csv').exists()


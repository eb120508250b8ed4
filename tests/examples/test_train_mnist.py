"""Smoke test of examples/mnist/train_mnist.py: Trainer on generated digits, then a resume."""

from __future__ import annotations


def test_trains_logs_snapshots_and_resumes(run_example, load_log, tmp_path):
    out = tmp_path / 'result'
    common = ['--n-train', '600', '--n-test', '200', '--unit', '50', '--batchsize', '50',
              '--out', str(out)]
    completed = run_example('mnist/train_mnist.py', '--epoch', '2', *common)

    log = load_log(out / 'log')
    assert [entry['epoch'] for entry in log] == [1, 2]
    assert log[-1]['iteration'] == 24
    assert log[-1]['validation/main/loss'] < log[0]['validation/main/loss']
    # Ten classes: chance is 0.1.
    assert log[-1]['validation/main/accuracy'] > 0.3
    assert 'validation/main/accuracy' in completed.stdout
    snapshot = out / 'snapshot_iter_24'
    assert snapshot.is_file()

    # Resuming from the snapshot continues at iteration 24, with the log kept.
    run_example('mnist/train_mnist.py', '--epoch', '3', '--resume', str(snapshot), *common)
    log = load_log(out / 'log')
    assert [entry['epoch'] for entry in log] == [1, 2, 3]
    assert log[-1]['iteration'] == 36

"""The main job: the digits classifier reaches 95%, writes its log, plots and snapshot,
and exports an ONNX model that onnxruntime runs at any batch size."""

from __future__ import annotations

import importlib.util

import pytest


def test_the_main_job_trains_to_the_required_accuracy(run_example, tmp_path, load_log):
    pytest.importorskip('sklearn')
    completed = run_example('train_digits.py', '--out', 'out')
    out = tmp_path / 'out'
    log = load_log(out / 'log')
    assert log[-1]['epoch'] == 15
    assert log[-1]['validation/main/accuracy'] >= 0.95
    assert log[-1]['main/loss'] < log[0]['main/loss']
    assert list(out.glob('snapshot_iter_*'))
    if importlib.util.find_spec('matplotlib') is not None:
        for name in ('loss.png', 'accuracy.png'):
            assert (out / name).read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert 'validation accuracy' in completed.stdout
    assert 'results in' in completed.stdout
    if importlib.util.find_spec('catena_onnx') and importlib.util.find_spec('onnxruntime'):
        import onnxruntime

        assert 'logits: max abs diff' in completed.stdout
        assert 'onnxruntime agrees with catena on 360 validation images' in completed.stdout
        session = onnxruntime.InferenceSession(str(out / 'model.onnx'),
                                               providers=['CPUExecutionProvider'])
        (batch,) = session.get_inputs()[0].shape[:1]
        assert isinstance(batch, str)  # a dynamic batch axis


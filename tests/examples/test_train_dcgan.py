"""Smoke test of examples/dcgan/train_dcgan.py: the two-optimizer GAN updater."""

from __future__ import annotations

import importlib.util

import numpy as np


def test_gan_trains_both_models_and_saves_samples(run_example, load_log, tmp_path):
    out = tmp_path / 'result'
    run_example('dcgan/train_dcgan.py', '--epoch', '1', '--n-images', '200',
                '--batchsize', '20', '--ch', '16', '--n-hidden', '8',
                '--display-interval', '5', '--out', str(out))

    log = load_log(out / 'log')
    assert [entry['iteration'] for entry in log] == [5, 10]
    for entry in log:
        assert np.isfinite(entry['gen/loss']) and np.isfinite(entry['dis/loss'])
        # softplus losses are positive: the discriminator's is the sum of two.
        assert entry['gen/loss'] > 0 and entry['dis/loss'] > 0
    assert (out / 'snapshot_iter_10.npz').is_file()
    with np.load(out / 'gen_iter_10.npz') as gen:
        assert gen['dc3/W'].shape == (4, 1, 3, 3)
    if importlib.util.find_spec('matplotlib') is not None:
        import matplotlib.image

        samples = matplotlib.image.imread(out / 'samples.png')
        assert samples.shape[:2] == (8 * 16, 8 * 16)

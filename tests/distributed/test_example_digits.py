"""examples/distributed/train_digits.py on the ranks of this MPI job."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / 'examples' / 'distributed' / \
    'train_digits.py'


def _load_example():
    spec = importlib.util.spec_from_file_location('train_digits_mpi', EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_rank_trains_the_same_model(mpi_world, tmp_path, capsys):
    pytest.importorskip('sklearn')
    example = _load_example()
    status = example.main(['--epochs', '2', '--min-accuracy', '0.5', '--out', str(tmp_path)])
    assert status == 0
    if mpi_world.rank == 0:
        log = json.loads((tmp_path / 'log').read_text())
        assert [entry['epoch'] for entry in log] == [1, 2]
        assert log[-1]['main/loss'] < log[0]['main/loss']
        out = capsys.readouterr().out
        assert f'parameters identical on all {mpi_world.size} processes: True' in out

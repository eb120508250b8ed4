"""Atomic writes (catena._atomic): the destination is old or complete, never partial."""

from __future__ import annotations

import os

import pytest

from catena import _atomic


def test_atomic_path_removes_the_temporary_file_when_writing_fails(tmp_path):
    path = tmp_path / 'out.bin'
    path.write_bytes(b'old')
    with pytest.raises(OSError, match='disk full'):
        with _atomic.atomic_path(path) as temporary:
            with open(temporary, 'wb') as f:
                f.write(b'partial')
            raise OSError('disk full')
    assert path.read_bytes() == b'old'
    assert os.listdir(tmp_path) == ['out.bin']


def test_atomic_named_path_gives_the_destination_name_and_cleans_up(tmp_path):
    path = tmp_path / 'snapshot.npz'
    with _atomic.atomic_named_path(path) as temporary:
        assert os.path.basename(temporary) == 'snapshot.npz'
        assert os.path.dirname(temporary) != str(tmp_path)
        with open(temporary, 'wb') as f:
            f.write(b'new')
    assert path.read_bytes() == b'new'
    assert os.listdir(tmp_path) == ['snapshot.npz']


def test_atomic_named_path_keeps_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / 'snapshot.npz'
    path.write_bytes(b'old')
    with pytest.raises(OSError, match='disk full'):
        with _atomic.atomic_named_path(path) as temporary:
            with open(temporary, 'wb') as f:
                f.write(b'partial')
            raise OSError('disk full')
    with pytest.raises(FileNotFoundError, match='wrote no file'):
        with _atomic.atomic_named_path(path):
            pass
    assert path.read_bytes() == b'old'
    assert os.listdir(tmp_path) == ['snapshot.npz']

import pickle

import pytest

from catena.datasets import text_dataset


def test_single_file(tmp_path):
    path = tmp_path / 'a.txt'
    path.write_text('first\nsecond line\n\nlast')
    ds = text_dataset.TextDataset(str(path))
    assert len(ds) == 4
    assert ds[0] == 'first\n' and ds[1] == 'second line\n' and ds[2] == '\n'
    assert ds[3] == 'last'
    assert ds[1:3] == ['second line\n', '\n']
    assert ds[-1] == 'last'
    ds.close()
    with pytest.raises(ValueError, match='closed'):
        ds[0]


def test_per_file_options_and_close_errors(tmp_path):
    (tmp_path / 'a.txt').write_text('plain\n', encoding='ascii')
    (tmp_path / 'u.txt').write_text('caf\u00e9\n', encoding='utf-16')
    paths = [str(tmp_path / 'a.txt'), str(tmp_path / 'u.txt')]
    ds = text_dataset.TextDataset(paths, encoding=['ascii', 'utf-16'])
    assert ds[0] == ('plain\n', 'caf\u00e9\n')
    with pytest.raises(ValueError, match='lists 1 values for 2'):
        text_dataset.TextDataset(paths, encoding=['ascii'])

    class Broken:
        def close(self):
            raise OSError('cannot close')

    first, second = ds._fps
    ds._fps[0] = Broken()
    with pytest.raises(OSError, match='cannot close'):
        ds.close()
    assert second.closed
    first.close()


def test_several_files_and_filter(tmp_path):
    (tmp_path / 's.txt').write_text('a b\nc\nd e f\n', encoding='utf-8')
    (tmp_path / 't.txt').write_text('x\ny z\nw\n', encoding='utf-8')
    paths = [str(tmp_path / 's.txt'), str(tmp_path / 't.txt')]
    ds = text_dataset.TextDataset(paths, encoding='utf-8')
    assert len(ds) == 3 and ds[1] == ('c\n', 'y z\n')

    def keep(s, t):
        return len(s.split()) >= 2

    ds = text_dataset.TextDataset(paths, filter_func=keep)
    assert [ds[i] for i in range(len(ds))] == [('a b\n', 'x\n'), ('d e f\n', 'w\n')]
    restored = pickle.loads(pickle.dumps(ds))
    assert restored[1] == ('d e f\n', 'w\n')


def test_non_ascii_offsets(tmp_path):
    path = tmp_path / 'u.txt'
    path.write_text('héllo\nwörld\n', encoding='utf-8')
    ds = text_dataset.TextDataset(str(path), encoding='utf-8')
    assert ds[1] == 'wörld\n' and ds[0] == 'héllo\n'


def test_errors(tmp_path):
    (tmp_path / 's.txt').write_text('a\nb\n')
    (tmp_path / 't.txt').write_text('x\n')
    with pytest.raises(ValueError, match='same number of lines'):
        text_dataset.TextDataset([str(tmp_path / 's.txt'), str(tmp_path / 't.txt')])
    with pytest.raises(ValueError, match='at least one'):
        text_dataset.TextDataset([])

import pytest

from catena.datasets import (
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)

BASE = list(range(10, 20))


def test_sub_dataset_indexing_and_order():
    s = SubDataset(BASE, 2, 6)
    assert len(s) == 4
    assert s[0] == 12 and s[-1] == 15 and s[:] == [12, 13, 14, 15]
    with pytest.raises(IndexError):
        s[4]
    with pytest.raises(IndexError):
        s[-5]
    order = list(reversed(range(10)))
    s = SubDataset(BASE, 0, 3, order)
    assert s[:] == [19, 18, 17]
    with pytest.raises(ValueError, match='len\\(order\\) = 2'):
        SubDataset(BASE, 0, 3, [0, 1])
    with pytest.raises(ValueError, match='does not fit'):
        SubDataset(BASE, 0, 11)


def test_split_dataset():
    a, b = split_dataset(BASE, 3)
    assert a[:] == BASE[:3] and b[:] == BASE[3:]
    with pytest.raises(TypeError, match='split_at'):
        split_dataset(BASE, 2.5)
    with pytest.raises(ValueError, match='exceeds'):
        split_dataset(BASE, 11)
    with pytest.raises(ValueError, match='non-negative'):
        split_dataset(BASE, -1)


def test_split_dataset_random_is_seeded_partition():
    a, b = split_dataset_random(BASE, 4, seed=0)
    a2, _ = split_dataset_random(BASE, 4, seed=0)
    assert len(a) == 4 and len(b) == 6
    assert sorted(a[:] + b[:]) == BASE
    assert a[:] == a2[:]


def test_split_dataset_n():
    parts = split_dataset_n(BASE, 3)
    assert [p[:] for p in parts] == [BASE[0:3], BASE[3:6], BASE[6:9]]
    parts = split_dataset_n_random(BASE, 2, seed=1)
    assert sorted(parts[0][:] + parts[1][:]) == BASE
    with pytest.raises(ValueError, match='n must be positive'):
        split_dataset_n(BASE, 0)


def test_cross_validation():
    splits = get_cross_validation_datasets(BASE, 3)
    assert len(splits) == 3
    tests = []
    for train, test in splits:
        assert sorted(train[:] + test[:]) == BASE
        assert not set(train[:]) & set(test[:])
        tests.extend(test[:])
    assert sorted(tests) == BASE
    assert sorted(len(t) for _, t in splits) == [3, 3, 4]
    splits = get_cross_validation_datasets([1, 2, 3, 4, 5, 6, 7], 3)
    assert [(train[:], test[:]) for train, test in splits] == [
        ([1, 2, 3, 4], [5, 6, 7]), ([5, 6, 7, 1, 2], [3, 4]), ([3, 4, 5, 6, 7], [1, 2])]
    splits = get_cross_validation_datasets_random(BASE, 2, seed=3)
    assert sorted(splits[0][1][:] + splits[1][1][:]) == BASE
    with pytest.warns(DeprecationWarning):
        assert len(get_cross_validation_datasets(BASE, n_fold=2)) == 2
    with pytest.raises(ValueError, match='n_folds'):
        get_cross_validation_datasets(BASE, 0)

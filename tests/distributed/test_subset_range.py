"""How scatter_dataset divides positions among ranks (no MPI needed)."""

import pytest

from catena.distributed.datasets import subset_range
from catena.distributed.datasets.scatter import _scatter_index


@pytest.mark.parametrize('size', range(1, 8))
def test_exact_parts_tile_the_positions(size):
    for n in range(0, 40):
        ranges = [subset_range(n, size, rank, force_equal_length=False) for rank in range(size)]
        positions = [i for begin, end in ranges for i in range(begin, end)]
        assert positions == list(range(n))
        assert max(e - b for b, e in ranges) - min(e - b for b, e in ranges) <= 1


@pytest.mark.parametrize('size', range(1, 8))
def test_equal_parts_cover_everything_and_stay_inside(size):
    for n in range(0, 40):
        ranges = [subset_range(n, size, rank) for rank in range(size)]
        length = -(-n // size)
        assert all(end - begin == length and 0 <= begin <= end <= n for begin, end in ranges)
        covered = {i for begin, end in ranges for i in range(begin, end)}
        assert covered == set(range(n))


def test_a_known_case():
    # 10 examples over 4 ranks: 3 each, starting at 0, 2, 5, 7.
    assert [subset_range(10, 4, r) for r in range(4)] == [(0, 3), (2, 5), (5, 8), (7, 10)]
    # Exact parts: the first 10 % 4 ranks take one more, as in ChainerMN.
    assert [subset_range(10, 4, r, False) for r in range(4)] == [(0, 3), (3, 6), (6, 8), (8, 10)]
    assert list(_scatter_index(10, 3, False)) == [(0, 0, 4), (1, 4, 7), (2, 7, 10)]

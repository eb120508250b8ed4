"""catena.utils.cache.cached_property: one cached value per backprop mode."""

import numpy as np

import catena
from catena.utils import cache


class Box:
    def __init__(self, x):
        self.x = x
        self.calls = 0

    @cache.cached_property
    def doubled(self):
        """Twice x."""
        self.calls += 1
        return self.x * 2


def test_computed_once_and_named_like_the_method():
    box = Box(catena.Variable(np.array([1.0])))
    assert box.doubled is box.doubled
    assert box.calls == 1
    assert Box.doubled.__name__ == 'doubled'
    assert Box.doubled.__doc__ == 'Twice x.'


def test_one_value_per_backprop_mode():
    box = Box(catena.Variable(np.array([1.0])))
    with_graph = box.doubled
    with catena.no_backprop_mode():
        without_graph = box.doubled
        assert box.doubled is without_graph
    assert box.doubled is with_graph
    assert without_graph is not with_graph
    assert with_graph.creator is not None and without_graph.creator is None
    assert box.calls == 2


def test_instances_do_not_share_values():
    a, b = Box(np.array(1.0)), Box(np.array(10.0))
    assert (a.doubled, b.doubled) == (2.0, 20.0)

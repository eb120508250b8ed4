"""catena.memory_layouts: layout names and shape/array conversions."""

import numpy as np
import pytest

import catena
from catena import memory_layouts as ml


def test_names_are_distinct():
    names = {ml.CUDNN_CHANNEL_FIRST_X, ml.CUDNN_CHANNEL_LAST_X, ml.CUDNN_CHANNEL_FIRST_W,
             ml.CUDNN_CHANNEL_LAST_W}
    assert len(names) == 4
    assert catena.memory_layouts is ml


@pytest.mark.parametrize('layout', [ml.CUDNN_CHANNEL_LAST_X, ml.CUDNN_CHANNEL_LAST_W])
def test_channel_last_shapes_round_trip(layout):
    assert ml.get_raw_shape((2, 3, 4, 5), layout) == (2, 4, 5, 3)
    assert ml.get_semantic_shape((2, 4, 5, 3), layout) == (2, 3, 4, 5)


@pytest.mark.parametrize('layout', [None, ml.CUDNN_CHANNEL_FIRST_X])
def test_standard_layout_keeps_shapes(layout):
    assert ml.get_raw_shape((2, 3, 4), layout) == (2, 3, 4)


def test_transpose_array_between_layouts():
    x = np.arange(24).reshape(1, 2, 3, 4)
    raw = ml._transpose_array(x, None, ml.CUDNN_CHANNEL_LAST_X)
    assert raw.shape == (1, 3, 4, 2)
    assert raw[0, 1, 2, 1] == x[0, 1, 1, 2]
    np.testing.assert_array_equal(ml._transpose_array(raw, ml.CUDNN_CHANNEL_LAST_X, None), x)


def test_unknown_layout_is_refused():
    with pytest.raises(ValueError, match="unknown memory layout 'NHWC'"):
        ml.get_raw_shape((1, 2), 'NHWC')

"""The shared constructor-argument checks (``catena.utils._validate``)."""

import math

import numpy as np
import pytest

from catena.utils import _validate


@pytest.mark.parametrize('value, minimum, optional, error, expected', [
    (0, 1, False, ValueError, 'a positive int'),
    (-1, 0, False, ValueError, 'a non-negative int'),
    (1, 2, False, ValueError, 'an int >= 2'),
    (True, 0, False, TypeError, 'a non-negative int'),
    (1.0, 0, False, TypeError, 'a non-negative int'),
    ('1', None, False, TypeError, 'an int'),
    (None, 1, False, TypeError, 'a positive int'),
    (np.zeros(()), 0, True, TypeError, 'a non-negative int or None'),
])
def test_integer_refuses(value, minimum, optional, error, expected):
    with pytest.raises(error) as info:
        _validate.integer('Who', 'n', value, minimum, optional=optional)
    assert str(info.value) == f'Who: n must be {expected}; got {_validate.show(value)}'


@pytest.mark.parametrize('value, minimum, result', [
    (np.int64(3), 1, 3), (0, 0, 0), (-5, None, -5),
])
def test_integer_accepts(value, minimum, result):
    got = _validate.integer('Who', 'n', value, minimum)
    assert got == result and type(got) is int
    assert _validate.integer('Who', 'n', None, 1, optional=True) is None


@pytest.mark.parametrize('value, bounds, error, expected', [
    (1.5, {'low': 0, 'high': 1}, ValueError, r'a real number in \[0, 1\]'),
    (1.0, {'low': 0, 'high': 1, 'high_open': True}, ValueError, r'a real number in \[0, 1\)'),
    (0.0, {'low': 0, 'low_open': True}, ValueError, 'a positive real number'),
    (-1, {'low': 0}, ValueError, 'a non-negative real number'),
    (0.5, {'low': 1}, ValueError, 'a real number >= 1'),
    (math.nan, {}, ValueError, 'a real number'),
    ('a', {}, TypeError, 'a real number'),
    (None, {}, TypeError, 'a real number'),
    (np.bool_(True), {}, TypeError, 'a real number'),
    (np.ones(()), {}, TypeError, 'a real number'),
])
def test_real_refuses(value, bounds, error, expected):
    with pytest.raises(error, match=f'^Who: x must be {expected}; got '):
        _validate.real('Who', 'x', value, **bounds)


def test_real_returns_the_value_unchanged():
    value = np.float32(0.5)
    assert _validate.real('Who', 'x', value, 0, 1) is value
    assert _validate.real('Who', 'x', None, optional=True) is None


@pytest.mark.parametrize('value, nd, minimum, error, shown', [
    ((1, 2, 3), 2, 1, ValueError, '(1, 2, 3)'),
    ((1, 0), 2, 1, ValueError, '(1, 0)'),
    ('ab', 2, 1, TypeError, "'ab'"),
    ((1, 1.5), 2, 1, TypeError, '(1, 1.5)'),
    (-1, 3, 0, ValueError, '-1'),
])
def test_int_tuple_refuses(value, nd, minimum, error, shown):
    with pytest.raises(error) as info:
        _validate.int_tuple('Conv', 'ksize', value, nd, minimum)
    assert str(info.value).startswith('Conv: ksize must be a ')
    assert str(info.value).endswith(f' of them; got {shown}')


def test_int_tuple_expands_an_int():
    assert _validate.int_tuple('Conv', 'ksize', np.int32(3), 3) == (3, 3, 3)
    assert _validate.int_tuple('Conv', 'pad', [0, 2], 2, 0) == (0, 2)


def test_shape():
    assert _validate.shape('L', 'shape', 3) == (3,)
    assert _validate.shape('L', 'shape', [2, np.int64(0)]) == (2, 0)
    assert _validate.shape('L', 'shape', None, optional=True) is None
    with pytest.raises(ValueError, match=r'^L: shape must be a shape .*; got \(2, -1\)$'):
        _validate.shape('L', 'shape', (2, -1))
    with pytest.raises(TypeError, match="^L: shape must be a shape .*; got 'ab'$"):
        _validate.shape('L', 'shape', 'ab')


def test_broadcastable():
    _validate.broadcastable('L', 'initialW', np.ones((1, 3)), (4, 3))
    _validate.broadcastable('L', 'initialW', np.float32(1), (4, 3))
    _validate.broadcastable('L', 'initialW', lambda a: None, (4, 3))
    with pytest.raises(ValueError, match=r'^L: initialW must be an array of shape \(4, 3\)'):
        _validate.broadcastable('L', 'initialW', np.ones((3, 4)), (4, 3))


def test_show_abbreviates():
    assert _validate.show(np.zeros((2, 3), np.float32)) == \
        'an array of shape (2, 3) and dtype float32'
    assert _validate.show(np.float32(1.5)) == '1.5'
    assert len(_validate.show('x' * 500)) == 80

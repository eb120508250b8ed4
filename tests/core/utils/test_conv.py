"""catena.utils.conv and conv_nd: output sizes and im2col / col2im against direct loops."""

import itertools

import numpy as np
import pytest

from catena.testing import _fake_device
from catena.utils import conv, conv_nd


@pytest.mark.parametrize('size,k,s,p,d', [
    (5, 3, 1, 0, 1), (5, 3, 2, 1, 1), (6, 3, 2, 0, 1), (7, 2, 3, 1, 1), (9, 3, 2, 1, 2),
    (4, 4, 1, 0, 1), (10, 3, 4, 0, 1), (8, 1, 3, 0, 1),
])
def test_get_conv_outsize(size, k, s, p, d):
    dk = (k - 1) * d + 1
    # The windows that fit: start i * s, end i * s + dk within the padded length.
    fitting = sum(1 for i in range(size + 2 * p) if i * s + dk <= size + 2 * p)
    assert conv.get_conv_outsize(size, k, s, p, d=d) == fitting
    # cover_all: the fewest windows whose union reaches the last padded pixel.
    n = 1
    while (n - 1) * s + dk < size + 2 * p:
        n += 1
    assert conv.get_conv_outsize(size, k, s, p, cover_all=True, d=d) == n


@pytest.mark.parametrize('size,k,s,p,d', [
    (3, 3, 1, 0, 1), (3, 3, 2, 1, 1), (4, 2, 2, 0, 1), (5, 3, 3, 1, 2), (1, 4, 2, 1, 1),
])
@pytest.mark.parametrize('cover_all', [False, True])
def test_get_deconv_outsize_inverts_conv(size, k, s, p, d, cover_all):
    out = conv.get_deconv_outsize(size, k, s, p, cover_all=cover_all, d=d)
    assert conv.get_conv_outsize(out, k, s, p, cover_all=cover_all, d=d) == size
    # It is the smallest such size.
    assert conv.get_conv_outsize(out - 1, k, s, p, cover_all=cover_all, d=d) != size


def _loop_im2col(x, ksize, stride, pad, cover_all, dilate, pval=0.0):
    nd = x.ndim - 2
    dims = x.shape[2:]
    outs = []
    for size, k, s, p, d in zip(dims, ksize, stride, pad, dilate):
        dk = (k - 1) * d + 1
        if cover_all:
            outs.append(-(-(size + 2 * p - dk) // s) + 1)
        else:
            outs.append((size + 2 * p - dk) // s + 1)
    col = np.full(x.shape[:2] + tuple(ksize) + tuple(outs), pval, dtype=x.dtype)
    for tap in itertools.product(*(range(k) for k in ksize)):
        for pos in itertools.product(*(range(o) for o in outs)):
            src = tuple(o * s + t * d - p for o, s, t, d, p
                        in zip(pos, stride, tap, dilate, pad))
            if all(0 <= i < n for i, n in zip(src, dims)):
                col[(Ellipsis,) + tap + pos] = x[(slice(None), slice(None)) + src]
    assert len(outs) == nd
    return col


CASES_2D = [
    # ksize, stride, pad, cover_all, dilate
    ((3, 3), (1, 1), (1, 1), False, (1, 1)),
    ((2, 3), (2, 3), (0, 1), True, (1, 2)),
    ((3, 2), (3, 2), (2, 0), True, (2, 1)),
    ((1, 1), (2, 2), (0, 0), False, (1, 1)),
    ((3, 3), (2, 2), (0, 0), True, (1, 1)),
    ((7, 6), (1, 1), (0, 0), False, (1, 1)),
]


@pytest.mark.parametrize('ksize,stride,pad,cover_all,dilate', CASES_2D)
def test_im2col_matches_loops_and_col2im_is_its_adjoint(ksize, stride, pad, cover_all, dilate):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 6))
    col = conv.im2col(x, *ksize, *stride, *pad, cover_all=cover_all, dy=dilate[0],
                      dx=dilate[1])
    expected = _loop_im2col(x, ksize, stride, pad, cover_all, dilate)
    assert col.shape == expected.shape
    np.testing.assert_array_equal(col, expected)
    assert conv.im2col_cpu is conv.im2col
    np.testing.assert_array_equal(
        conv.im2col_gpu(x, *ksize, *stride, *pad, cover_all, *dilate), expected)

    g = rng.standard_normal(col.shape)
    img = conv.col2im(g, *stride, *pad, 7, 6, *dilate)
    assert img.shape == x.shape
    np.testing.assert_allclose((col * g).sum(), (x * img).sum(), rtol=1e-12)
    # col2im of one-hot columns puts each entry where im2col read it.
    expected_img = np.zeros_like(x)
    for tap in itertools.product(range(ksize[0]), range(ksize[1])):
        for pos in itertools.product(range(col.shape[4]), range(col.shape[5])):
            r = pos[0] * stride[0] + tap[0] * dilate[0] - pad[0]
            q = pos[1] * stride[1] + tap[1] * dilate[1] - pad[1]
            if 0 <= r < 7 and 0 <= q < 6:
                expected_img[:, :, r, q] += g[:, :, tap[0], tap[1], pos[0], pos[1]]
    np.testing.assert_allclose(img, expected_img, rtol=1e-12)


def test_im2col_pval_fills_the_padding():
    x = np.arange(4.0).reshape(1, 1, 2, 2)
    col = conv.im2col(x, 2, 2, 2, 2, 1, 1, pval=-np.inf)
    expected = _loop_im2col(x, (2, 2), (2, 2), (1, 1), False, (1, 1), pval=-np.inf)
    np.testing.assert_array_equal(col, expected)
    assert np.isneginf(col).sum() == 12


def test_im2col_explicit_out_size():
    x = np.arange(25.0).reshape(1, 1, 5, 5)
    col = conv.im2col(x, 3, 3, 2, 2, 0, 0, out_h=3, out_w=2)
    assert col.shape == (1, 1, 3, 3, 3, 2)
    # The third row of windows starts at row 4 and reads the (zero) padding below.
    np.testing.assert_array_equal(col[0, 0, :, 0, 2, 0], [20.0, 0.0, 0.0])


def test_im2col_rejects_kernel_larger_than_the_input():
    x = np.zeros((1, 1, 3, 3))
    with pytest.raises(ValueError, match=r'kernel \(5, 2\).*\(3, 3\)'):
        conv.im2col(x, 5, 2, 1, 1, 0, 0)


def test_im2col_uses_the_array_module_of_its_input():
    x = np.arange(32.0).reshape(1, 2, 4, 4).view(_fake_device.FakeArray)
    col = conv.im2col(x, 3, 3, 1, 1, 1, 1)
    assert type(col) is _fake_device.FakeArray
    img = conv.col2im(col, 1, 1, 1, 1, 4, 4)
    assert type(img) is _fake_device.FakeArray


@pytest.mark.parametrize('ksize,stride,pad,cover_all,dilate', [
    ((3,), (2,), (1,), False, (1,)),
    ((2,), (3,), (0,), True, (2,)),
    ((2, 3, 2), (1, 2, 2), (1, 0, 1), False, (1, 1, 2)),
    ((2, 2, 2), (2, 2, 3), (0, 1, 0), True, (1, 1, 1)),
])
def test_im2col_nd_matches_loops(ksize, stride, pad, cover_all, dilate):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2) + (7, 5, 6)[:len(ksize)])
    col = conv_nd.im2col_nd_cpu(x, ksize, stride, pad, cover_all=cover_all, dilate=dilate)
    np.testing.assert_array_equal(col, _loop_im2col(x, ksize, stride, pad, cover_all, dilate))
    np.testing.assert_array_equal(
        conv_nd.im2col_nd(x, ksize, stride, pad, cover_all, dilate), col)
    g = rng.standard_normal(col.shape)
    img = conv_nd.col2im_nd_cpu(g, stride, pad, x.shape[2:], dilate)
    assert img.shape == x.shape
    np.testing.assert_allclose((col * g).sum(), (x * img).sum(), rtol=1e-12)
    np.testing.assert_array_equal(conv_nd.col2im_nd(g, stride, pad, x.shape[2:], dilate), img)


def test_as_tuple():
    assert conv_nd.as_tuple(3, 2) == (3, 3)
    assert conv_nd.as_tuple((1, 2, 3), 3) == (1, 2, 3)
    with pytest.raises(ValueError, match='length 2'):
        conv_nd.as_tuple((1, 2, 3), 2)


def test_conv_nd_as_tuple_rejects_a_wrong_length():
    assert conv_nd.as_tuple(2, 3) == (2, 2, 2)
    with pytest.raises(ValueError, match='length 3') as info:
        conv_nd.as_tuple((1,), 3)
    assert isinstance(info.value, AssertionError)  # Chainer asserted it


def test_col2im_nd_rejects_parameters_of_another_rank():
    col = np.zeros((2, 3, 2, 2, 3, 2), np.float32)
    assert conv_nd.col2im_nd_cpu(col, (1, 1), (0, 0), (4, 3)).shape == (2, 3, 4, 3)
    for args in [((1,), (0, 0), (4, 3)), ((1, 1), (0,), (4, 3)), ((1, 1), (0, 0), (4,))]:
        with pytest.raises(AssertionError):
            conv_nd.col2im_nd_cpu(col, *args)
    with pytest.raises(ValueError, match='6 dimensions'):
        conv_nd.col2im_nd_cpu(col[:, :, 0], (1, 1), (0, 0), (4, 3))


@pytest.mark.parametrize('ksize,stride,pad,cover_all,dilate', [
    ((3, 3), (1, 1), (1, 1), False, (1, 1)),
    ((3, 2), (2, 3), (0, 1), True, (1, 2)),
    ((2, 3, 2), (1, 2, 2), (1, 0, 1), False, (1, 1, 2)),
])
def test_im2col_channel_major_is_the_batch_moved_inside(ksize, stride, pad, cover_all, dilate):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 2) + (7, 5, 6)[:len(ksize)])
    outs = tuple(conv.get_conv_outsize(size, k, s, p, cover_all, d)
                 for size, k, s, p, d in zip(x.shape[2:], ksize, stride, pad, dilate))
    col = conv.im2col_nd_channel_major(x, ksize, stride, pad, cover_all, dilate, outs)
    nd = len(ksize)
    assert col.flags.c_contiguous
    assert col.shape == (2,) + ksize + (3,) + outs
    expected = _loop_im2col(x, ksize, stride, pad, cover_all, dilate)
    # (n, c, *k, *outs) -> (c, *k, n, *outs)
    order = tuple(range(1, nd + 2)) + (0,) + tuple(range(nd + 2, 2 * nd + 2))
    np.testing.assert_array_equal(col, expected.transpose(order))

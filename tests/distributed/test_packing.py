"""Packing arrays into bucket buffers (no MPI needed)."""

import numpy
import pytest

from catena.distributed import _packing


def arrays():
    rng = numpy.random.default_rng(0)
    return [rng.standard_normal(shape).astype(dtype) for shape, dtype in
            [((10, 10), numpy.float32), ((3,), numpy.float64), ((), numpy.float32),
             ((4, 5), numpy.float32), ((2, 2), numpy.float64)]]


def test_plan_groups_by_dtype_and_respects_the_bucket_size():
    buckets = _packing.plan_buckets(arrays(), bucket_bytes=100 * 4)
    layout = [(b.dtype, [m[0] for m in b.members], b.size) for b in buckets]
    # float32: 100 elements fill a bucket; the scalar and the 20 go together.
    assert layout == [(numpy.dtype('float32'), [0], 100), (numpy.dtype('float32'), [2, 3], 21),
                      (numpy.dtype('float64'), [1, 4], 7)]
    assert [m[1] for m in buckets[1].members] == [0, 1]


@pytest.mark.parametrize('bucket_bytes, count', [(None, 2), (0, 5), (10 ** 6, 2)])
def test_bucket_count(bucket_bytes, count):
    assert len(_packing.plan_buckets(arrays(), bucket_bytes=bucket_bytes)) == count


def test_a_common_dtype_makes_one_group():
    buckets = _packing.plan_buckets(arrays(), dtype=numpy.float16)
    assert len(buckets) == 1 and buckets[0].dtype == numpy.float16 and buckets[0].size == 128


def test_a_scaled_sum_of_the_buffers_unpacks_to_the_scaled_sum():
    source = arrays() + [numpy.array([3e4, 1.0], numpy.float16)]
    packer = _packing.Packer(bucket_bytes=64)
    buffers = packer.pack(source, scale=0.5)
    flat = numpy.concatenate([b.astype(numpy.float64) for b in buffers])
    assert flat.size == sum(a.size for a in source)
    for buffer in buffers:
        buffer += buffer  # what a sum over two equal ranks does
    targets = [numpy.zeros_like(a) for a in source]
    packer.unpack(targets)
    for target, original in zip(targets, source):
        numpy.testing.assert_array_equal(target, original)


def test_the_scale_comes_before_a_float16_sum():
    # 3e4 + 3e4 overflows float16 (largest 65504); the halves do not.
    packer = _packing.Packer()
    (buffer,) = packer.pack([numpy.array([3e4, 1.0], numpy.float16)], scale=0.5)
    numpy.testing.assert_array_equal(buffer, [1.5e4, 0.5])


def test_wider_buffers_are_scaled_while_unpacking():
    source = [numpy.array([1.0, 3.0], numpy.float32)]
    packer = _packing.Packer()
    (buffer,) = packer.pack(source, scale=0.25)
    numpy.testing.assert_array_equal(buffer, [1.0, 3.0])
    packer.unpack(source)
    numpy.testing.assert_array_equal(source[0], [0.25, 0.75])
    packer.pack(source)  # no scale: a plain copy back
    buffer[...] = [5.0, 6.0]
    packer.unpack(source)
    numpy.testing.assert_array_equal(source[0], [5.0, 6.0])


def test_pack_casts_to_the_buffer_dtype():
    source = [numpy.array([1 / 3, 2.0], dtype=numpy.float64)]
    packer = _packing.Packer()
    (buffer,) = packer.pack(source, dtype=numpy.float16)
    packer.unpack(source)
    assert buffer.dtype == numpy.float16
    numpy.testing.assert_array_equal(source[0], [float(numpy.float16(1 / 3)), 2.0])


def test_pack_scales_before_casting():
    # 1e5 does not fit float16 (largest 65504); half of it does.
    source = [numpy.array([1e5, -3.0], numpy.float32), numpy.array([[7.0]], numpy.float64)]
    packer = _packing.Packer()
    (buffer,) = packer.pack(source, dtype=numpy.float16, scale=0.5)
    assert buffer.dtype == numpy.float16
    numpy.testing.assert_array_equal(buffer, numpy.array([5e4, -1.5, 3.5], numpy.float16))
    targets = [numpy.zeros_like(a) for a in source]
    packer.unpack(targets)
    assert [t.dtype for t in targets] == [numpy.float32, numpy.float64]
    numpy.testing.assert_array_equal(targets[1], [[3.5]])


def test_unpack_writes_into_the_given_arrays():
    source = arrays()
    packer = _packing.Packer(bucket_bytes=64)
    packer.pack(source, scale=-1.0)
    targets = [numpy.full_like(a, 9) for a in source]
    before = [id(t) for t in targets]
    packer.unpack(targets)
    assert [id(t) for t in targets] == before
    for target, original in zip(targets, source):
        numpy.testing.assert_array_equal(target, -original)


def test_buffers_are_reused_until_the_layout_changes():
    packer = _packing.Packer()
    first = packer.pack(arrays())
    second = packer.pack(arrays())
    changed = packer.pack(arrays()[:2])
    assert all(a is b for a, b in zip(first, second))
    assert [b.size for b in changed] == [100, 3]
    packer.release()
    assert packer.buckets == []


def test_initialized_params_follow_changes_to_the_model():
    import catena
    import catena.links as L
    from catena.distributed.communicators.base import initialized_params

    model = catena.Chain()
    with model.init_scope():
        model.b = L.Linear(2, 3)
        model.a = L.Linear(None, 4)  # not initialized yet
    names = {id(p): n for n, p in model.namedparams()}
    assert [names[id(p)] for p in initialized_params(model)] == ['/a/b', '/b/W', '/b/b']
    model.a(numpy.zeros((1, 5), numpy.float32))  # initializes /a/W
    assert [names[id(p)] for p in initialized_params(model)] == ['/a/W', '/a/b', '/b/W',
                                                                '/b/b']
    with model.init_scope():
        model.c = L.Linear(1, 1, nobias=True)
    names = {id(p): n for n, p in model.namedparams()}
    assert [names[id(p)] for p in initialized_params(model)] == ['/a/W', '/a/b', '/b/W',
                                                                '/b/b', '/c/W']
    with model.init_scope():
        model.b = L.Linear(2, 3)  # replaces the link: new parameter objects
    assert [p for p in initialized_params(model)][2] is model.b.W

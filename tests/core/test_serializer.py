import pytest

from catena import serializer


class Recorder:
    def __init__(self):
        self.seen = []

    def serialize(self, s):
        self.seen.append(s)


def test_save_and_load_call_serialize_with_the_serializer_itself():
    obj = Recorder()
    saver = serializer.Serializer()
    loader = serializer.Deserializer()
    saver.save(obj)
    loader.load(obj)
    assert obj.seen == [saver, loader]


def test_serializers_are_abstract_serializers():
    assert issubclass(serializer.Serializer, serializer.AbstractSerializer)
    assert issubclass(serializer.Deserializer, serializer.AbstractSerializer)
    assert not issubclass(serializer.Serializer, serializer.Deserializer)


@pytest.mark.parametrize('cls', [serializer.AbstractSerializer, serializer.Serializer,
                                 serializer.Deserializer])
def test_the_protocol_methods_must_be_defined_by_subclasses(cls):
    s = cls()
    with pytest.raises(NotImplementedError, match='__getitem__'):
        s['child']
    with pytest.raises(NotImplementedError, match='__call__'):
        s('key', 1)


class Flat(serializer.Serializer):
    """Records every saved value under its full key."""

    def __init__(self, target=None, path=''):
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key):
        return Flat(self.target, self.path + key + '/')

    def __call__(self, key, value):
        self.target[self.path + key] = value
        return value


def test_save_writes_a_dictionary_item_by_item():
    saver = Flat()
    saver.save({'W': 1, 'child': {'b': 2, 'deeper': {'c': None}}})
    assert saver.target == {'W': 1, 'child/b': 2, 'child/deeper/c': None}
    with pytest.raises(TypeError, match='must be str'):
        Flat().save({1: 2})

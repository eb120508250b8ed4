"""make_extension: the decorator's attributes and its argument checks."""

import pytest

from catena import training


def test_make_extension_sets_the_attributes():
    def initializer(trainer):
        pass

    @training.make_extension(trigger=(2, 'epoch'), priority=7, initializer=initializer)
    def ext(trainer):
        pass

    assert ext.trigger == (2, 'epoch') and ext.priority == 7
    assert ext.default_name == 'ext' and ext.initialize is initializer


def test_make_extension_refuses_removed_and_unknown_arguments():
    with pytest.raises(ValueError, match='invoke_before_training'):
        training.make_extension(invoke_before_training=True)
    with pytest.raises(TypeError, match='foo'):
        training.make_extension(foo=1)

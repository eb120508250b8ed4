"""catena.utils.argument: keyword arguments parsed out of **kwargs."""

import pytest

from catena.utils import argument


def _f(**kwargs):
    return argument.parse_kwargs(kwargs, ('foo', 1), ('bar', 2), train='use config.train')


def test_parse_kwargs_returns_values_in_order_with_defaults():
    assert _f() == (1, 2)
    assert _f(bar=3, foo=4) == (4, 3)


def test_parse_kwargs_names_the_caller_and_sorts_the_leftovers():
    with pytest.raises(TypeError, match=r"^_f\(\) got unexpected keyword argument\(s\) "
                                        r"'ham', 'spam'$"):
        _f(spam=1, ham=2, foo=0)


def test_parse_kwargs_raises_the_message_of_an_unexpected_argument():
    with pytest.raises(ValueError, match='^use config.train$'):
        _f(train=True)


def test_check_unexpected_kwargs():
    argument.check_unexpected_kwargs({'a': 1}, b='no b')
    with pytest.raises(ValueError, match='no a'):
        argument.check_unexpected_kwargs({'a': 1}, a='no a')


def test_assert_kwargs_empty_names_the_caller():
    def g(**kwargs):
        argument.assert_kwargs_empty(kwargs)

    g()
    with pytest.raises(TypeError, match=r"^g\(\) got unexpected keyword argument\(s\) 'x'$"):
        g(x=1)

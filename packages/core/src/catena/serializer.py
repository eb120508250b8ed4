"""Base classes of serializers and deserializers (the serialization protocol).

An object that can be saved and loaded defines ``serialize(serializer)`` and,
for each value it owns, writes ``self.x = serializer('x', self.x)``; for each
child object it calls ``child.serialize(serializer['child'])``. The same method
then works for saving (a :class:`Serializer` stores the value and returns it)
and for loading (a :class:`Deserializer` returns the stored value, filling an
array in place when one is given).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class AbstractSerializer:
    """Base class of every serializer and deserializer.

    A serializer stands for one place in a hierarchy of named values, such as
    a folder of an NPZ archive or a group of an HDF5 file.
    """

    def __getitem__(self, key: str) -> AbstractSerializer:
        """Returns the child serializer for ``key`` (one level down the hierarchy).

        Args:
            key: The name of the child.

        Returns:
            A serializer of the same kind whose keys are prefixed with ``key/``.
        """
        raise NotImplementedError(f'{type(self).__name__} does not define __getitem__')

    def __call__(self, key: str, value: Any) -> Any:
        """Saves or loads one value.

        Args:
            key: The name of the value in this serializer's place.
            value: The value to save, or, when loading, the current value: an
                array is filled in place, a scalar tells the type to return,
                and None asks for whatever is stored.

        Returns:
            The value to assign back (``x = serializer('x', x)``).
        """
        raise NotImplementedError(f'{type(self).__name__} does not define __call__')


class Serializer(AbstractSerializer):
    """Base class of serializers, which save values."""

    def save(self, obj: Any) -> None:
        """Saves ``obj`` by calling ``obj.serialize(self)``.

        A dictionary is saved item by item instead: each value under its key,
        a nested dictionary one level down (``serializer[key]``). This is
        how files in an older layout are written, for example.

        Args:
            obj: An object that defines ``serialize(serializer)``, such as a
                link, an optimizer or a trainer; or a dictionary of values.
        """
        if isinstance(obj, Mapping):
            for key, value in obj.items():
                if not isinstance(key, str):
                    raise TypeError(f'the keys of a saved dictionary must be str; '
                                    f'got {key!r}')
                if isinstance(value, Mapping):
                    self[key].save(value)  # type: ignore[attr-defined]
                else:
                    self(key, value)
            return
        obj.serialize(self)


class Deserializer(AbstractSerializer):
    """Base class of deserializers, which load values."""

    def load(self, obj: Any) -> None:
        """Loads ``obj`` by calling ``obj.serialize(self)``.

        Args:
            obj: An object that defines ``serialize(serializer)``.
        """
        obj.serialize(self)


__all__ = ['AbstractSerializer', 'Deserializer', 'Serializer']

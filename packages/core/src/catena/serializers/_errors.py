"""The errors that loading raises (all of them name the file)."""

from __future__ import annotations

from collections.abc import Sequence


class FileFormatError(ValueError):
    """The file cannot be read as the format asked for.

    Raised for truncated or corrupt files and for files of another format (the
    message then says which function reads that format).
    """


class UnsafeFileError(FileFormatError):
    """The file holds something catena refuses to load.

    catena never unpickles while loading, so an object array or any other
    pickle payload is refused (the one exception is the payload that NumPy
    writes for ``numpy.asarray(None)``, which loads as None). Members whose
    sizes could exhaust memory (a zip bomb, an oversized ``.npy`` header) and
    HDF5 features that reach outside the file (external links and storage,
    filter plugins) are refused too. :func:`catena.serializers.convert_legacy_npz`
    converts a trusted legacy file once.

    Attributes:
        needs_unpickling (bool): Whether the refusal is for a pickle (which
            the legacy converter can read with ``unsafe=True``).
    """

    def __init__(self, message: str, needs_unpickling: bool = False) -> None:
        super().__init__(message)
        self.needs_unpickling = needs_unpickling


class KeyMismatchError(KeyError, ValueError):
    """The stored keys do not match the object being loaded.

    One error lists every problem at once; the object is left unchanged.
    It is both a :class:`KeyError` (as Chainer's error for a missing key) and
    a :class:`ValueError`.

    Attributes:
        missing: Keys the object asked for that the file lacks.
        unexpected: Always empty: keys of the file that the object never asks
            for are ignored, as in Chainer. Kept for code written against
            earlier catena versions, which reported them.
        mismatched: ``(key, description)`` pairs for values whose shape
            differs from the object's, or whose cast to the object's dtype
            would change them (another kind of value, an integer out of
            range, a finite float that overflows to inf).
    """

    def __init__(self, message: str, missing: Sequence[str] = (),
                 unexpected: Sequence[str] = (),
                 mismatched: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.missing = list(missing)
        self.unexpected = list(unexpected)
        self.mismatched = list(mismatched)

    def __str__(self) -> str:
        # KeyError would show the repr of the message; the message is prose.
        return str(self.args[0])


__all__ = ['FileFormatError', 'KeyMismatchError', 'UnsafeFileError']

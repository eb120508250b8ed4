"""Deserializers over stored values, and loading that validates before it changes anything.

A :class:`StoredValueDeserializer` loads one value per ``serializer(key, value)``
call, as Chainer's deserializers do. Its :meth:`~StoredValueDeserializer.load`
adds a transaction around ``obj.serialize``:

1. the stored values under the path are made available: read in full from a
   plain mapping, or, from a file that catena opens (a
   :class:`~catena.serializers._lazy.LazyValues`), each read when first asked
   for, once its declared shape and dtype fit the object's value (a bad
   member fails when it is read, still before anything changes);
2. a dry run calls ``obj.serialize`` with a recording deserializer that checks
   each requested value and returns the object's *current* value, so nothing
   changes; it records missing keys and values that do not fit (a shape, or a
   cast that would change a value: see :func:`_values.cast_problem`); if
   stored keys were never asked for, another dry run on a deep copy answers
   non-array requests with the stored values, since ``serialize`` may choose
   its keys from loaded values (a summary's names), and those keys are
   checked too;
3. in strict mode, if keys are missing, more dry runs raise ``KeyError`` for
   them as a real load would, to learn which ones ``serialize`` tolerates
   (Chainer code catches ``KeyError`` to load older files); these run on a
   deep copy of the object when one can be made, since the object's fallback
   code runs;
4. every problem is reported in one :class:`KeyMismatchError`, or the real load
   runs, from the values the dry run read; if the first dry run found no value
   to load (every key absent or ignored, or none asked for), it answered
   exactly as the real load would, so it was the load and ``serialize`` runs
   once, as in Chainer.

Each run hands ``serialize`` a deserializer of the loader's own class
(:class:`~catena.serializers.NpzDeserializer` for ``load_npz``), reading the
values made available in step 1.

Stored keys that ``serialize`` never asks for are ignored, as Chainer ignores
them: a file may hold more than the object (a pretrained model with more
layers, a whole snapshot).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

import numpy

from catena import link as link_module
from catena.serializer import Deserializer
from catena.serializers import _lazy, _values
from catena.serializers._errors import KeyMismatchError

Stored = numpy.ndarray | None
_MAX_PROBES = 32
IgnorePredicate = Callable[[str], bool]


def make_ignore_predicate(ignore_names: Any) -> IgnorePredicate | None:
    """Turns ``ignore_names`` into a predicate on full keys.

    Args:
        ignore_names: None, a key, a callable ``key -> bool``, or an iterable
            of keys and callables.

    Raises:
        TypeError: For anything else.
    """
    if ignore_names is None:
        return None
    if isinstance(ignore_names, str) or callable(ignore_names):
        ignore_names = [ignore_names]
    try:
        items = list(ignore_names)
    except TypeError:
        raise TypeError('ignore_names must be a key, a callable or a list of them; '
                        f'got {type(ignore_names).__name__}') from None
    names = {item for item in items if isinstance(item, str)}
    tests = [item for item in items if not isinstance(item, str)]
    for test in tests:
        if not callable(test):
            raise TypeError('ignore_names must be a key, a callable or a list of them; '
                            f'the list holds a {type(test).__name__}')

    def ignored(key: str) -> bool:
        return key in names or any(test(key) for test in tests)

    return ignored


class _Recorder:
    """What one dry run saw."""

    def __init__(self, fatal: set[str] | None, follow_values: bool = False) -> None:
        # None: record every missing key; a set: raise KeyError for missing keys
        # except these (known to escape serialize()), which are recorded.
        self.fatal = fatal
        # Whether to answer non-array requests with the stored values (only on a
        # copy of the object), so that keys chosen from loaded values are asked.
        self.follow_values = follow_values
        self.requested: set[str] = set()
        # Whether a request was answered with the object's value where a real
        # load would have loaded the stored one.
        self.held_back = False
        self.missing: list[str] = []
        self.raised_keys: list[str] = []
        self.mismatched: list[tuple[str, str]] = []


class _Context:
    """Settings shared by a deserializer and its children."""

    def __init__(self, strict: bool, ignore_names: Any, source: str) -> None:
        self.strict = bool(strict)
        self.ignore_names = ignore_names
        self.ignored = make_ignore_predicate(ignore_names)
        self.source = source
        self.recorder: _Recorder | None = None


class StoredValueDeserializer(Deserializer):
    """Base of deserializers that read values by full key ('predictor/l1/W').

    Subclasses say whether a key is stored, read one value, read every value
    under a path, and make a child for a longer path.
    """

    path: str
    _context: _Context

    def _init_context(self, path: str, strict: bool, ignore_names: Any, source: str) -> None:
        if not isinstance(path, str):
            raise TypeError(f'path must be a str, not {type(path).__name__}')
        self.path = path
        self._context = _Context(strict, ignore_names, source)

    @property
    def strict(self) -> bool:
        """Whether a missing key is an error (else the value is left as it is)."""
        return self._context.strict

    @property
    def ignore_names(self) -> Any:
        """The keys (or predicates) whose values are never loaded."""
        return self._context.ignore_names

    # Subclasses implement these four.
    def _contains(self, key: str) -> bool:
        raise NotImplementedError

    def _get(self, key: str) -> Stored:
        raise NotImplementedError

    def _read_all(self, path: str) -> Mapping[str, Stored]:
        raise NotImplementedError

    def _get_checked(self, key: str, value: Any) -> tuple[Stored, _values.Problem | None]:
        # The stored value and why it cannot load into ``value``; subclasses
        # that can check a value before reading it override this.
        stored = self._get(key)
        return stored, _values.load_problem(value, stored, self._context.strict)

    def _child(self, path: str) -> StoredValueDeserializer:
        raise NotImplementedError

    def __getitem__(self, key: str) -> StoredValueDeserializer:
        child = self._child(self.path + key.strip('/') + '/')
        child._context = self._context
        return child

    def __call__(self, key: str, value: Any) -> Any:
        full_key = self.path + key.lstrip('/')
        context = self._context
        recorder = context.recorder
        if recorder is not None:
            recorder.requested.add(full_key)
        present = self._contains(full_key)
        if not present and not context.strict:
            return value
        if context.ignored is not None and context.ignored(full_key):
            return value
        if not present:
            return self._missing(full_key, value)
        stored, problem = self._get_checked(full_key, value)
        if recorder is not None:
            recorder.held_back = True
            if problem is not None:
                recorder.mismatched.append((full_key, problem.message))
            elif recorder.follow_values and not hasattr(value, 'shape'):
                return _values.load_value(value, stored)
            return value
        if problem is not None:
            raise problem.error(
                f'{context.source}: cannot load {full_key!r}: {problem.message}')
        return _values.load_value(value, stored)

    def _missing(self, full_key: str, value: Any) -> Any:
        recorder = self._context.recorder
        if recorder is not None:
            if recorder.fatal is None or full_key in recorder.fatal:
                recorder.missing.append(full_key)
                return value
            recorder.raised_keys.append(full_key)
        raise KeyError(f'{full_key!r} is not in {self._context.source}')

    def load(self, obj: Any) -> None:
        """Loads ``obj``, or raises and leaves it unchanged.

        A dry run of ``obj.serialize`` reads and checks every value it asks
        for under this deserializer's path (see the module docstring); only
        then are the values loaded.

        Args:
            obj: An object that defines ``serialize(serializer)``.

        Raises:
            KeyMismatchError: Listing every missing (strict mode) and
                mismatched key.
        """
        entries = self._read_all(self.path)
        context = self._context
        load_transactionally(entries, obj, self.path, context.strict, context.ignore_names,
                             context.source, self._snapshot_type())

    @classmethod
    def _snapshot_type(cls) -> type[MappingDeserializer]:
        """The deserializer class that reads values already read, for this class."""
        return MappingDeserializer


class MappingDeserializer(StoredValueDeserializer):
    """Deserializer over a mapping of full keys to stored values."""

    def __init__(self, npz: Mapping[str, Any], path: str = '', strict: bool = True,
                 ignore_names: Any = None) -> None:
        if not isinstance(npz, Mapping) and not hasattr(npz, '__getitem__'):
            raise TypeError(f'npz must be a mapping of keys to arrays (such as the result of '
                            f'numpy.load), not {type(npz).__name__}')
        self.npz = npz
        self._init_context(path, strict, ignore_names, _describe_mapping(npz))

    def _contains(self, key: str) -> bool:
        return key in self.npz

    def _get(self, key: str) -> Stored:
        return _values.from_stored(key, self.npz[key])

    def _get_checked(self, key: str, value: Any) -> tuple[Stored, _values.Problem | None]:
        load_for = getattr(self.npz, 'load_for', None)
        if load_for is None:
            return super()._get_checked(key, value)
        stored, problem = load_for(key, value, self._context.strict)
        return _values.from_stored(key, stored), problem

    def _read_all(self, path: str) -> Mapping[str, Stored]:
        if isinstance(self.npz, _lazy.LazyValues):
            return self.npz  # read on demand, checked against the object first
        return {key: self._get(key) for key in _keys_of(self.npz) if key.startswith(path)}

    def _child(self, path: str) -> StoredValueDeserializer:
        child = object.__new__(type(self))
        child.npz = self.npz
        child.path = path
        return child

    @classmethod
    def _snapshot_type(cls) -> type[MappingDeserializer]:
        return cls


def _keys_of(npz: Any) -> Iterable[str]:
    files = getattr(npz, 'files', None)  # numpy.lib.npyio.NpzFile
    return list(files) if files is not None else list(npz)


def _describe_mapping(npz: Any) -> str:
    if isinstance(npz, _lazy.LazyValues):
        return npz.source
    name = getattr(getattr(npz, 'fid', None), 'name', None)
    return repr(name) if isinstance(name, str) else f'the {type(npz).__name__}'


class _Load(NamedTuple):
    """One load: the values read, where they go, and how to hand them to ``serialize``."""

    entries: Mapping[str, Stored]
    obj: Any
    path: str
    strict: bool
    ignore_names: Any
    source: str
    deserializer_type: type[MappingDeserializer]

    def deserializer(self, strict: bool | None = None) -> MappingDeserializer:
        deserializer = self.deserializer_type(
            self.entries, self.path, self.strict if strict is None else strict,
            self.ignore_names)
        deserializer._context.source = self.source
        return deserializer

    def dry_run(self, recorder: _Recorder, obj: Any = None,
                strict: bool | None = None) -> _Recorder:
        deserializer = self.deserializer(strict)
        deserializer._context.recorder = recorder
        (self.obj if obj is None else obj).serialize(deserializer)
        return recorder


def _probe_missing(load: _Load, obj: Any, first: _Recorder) -> tuple[_Recorder, list[str]]:
    """Finds which missing keys ``obj.serialize`` cannot do without.

    Each probe raises ``KeyError`` for a missing key, as a real load does. A
    key whose error escapes ``serialize`` is fatal; the next probe records it
    instead of raising, to see past it. Keys raised and caught are tolerated.

    Returns:
        The recorder of the last complete dry run and the fatal missing keys.
    """
    fatal: set[str] = set()
    tolerated: set[str] = set()
    for _ in range(_MAX_PROBES):
        probe = _Recorder(fatal)
        try:
            load.dry_run(probe, obj, strict=True)
        except KeyError:
            if not probe.raised_keys:
                raise  # not ours: a bug in serialize()
            fatal.add(probe.raised_keys[-1])
            tolerated.update(probe.raised_keys[:-1])
            continue
        return probe, probe.missing
    # Too many fatal keys to pin down one by one: report what the first run saw.
    return first, [key for key in first.missing if key not in tolerated]


def _never_requested(entries: Mapping[str, Stored], path: str, ignore_names: Any,
                     requested: set[str]) -> bool:
    """Whether some stored key under ``path`` (not ignored) was never asked for."""
    ignored = make_ignore_predicate(ignore_names)
    return any(key.startswith(path) and key not in requested
               and not (ignored is not None and ignored(key)) for key in entries)


_PLAIN_SERIALIZE = (link_module.Link.serialize, link_module.Chain.serialize,
                    link_module.ChainList.serialize)


def _copy_for_probing(obj: Any) -> Any:
    # Probes run the object's own ``except KeyError`` fallbacks, which may change
    # it; they run on a copy when one can be made. Links that keep the built-in
    # serialize() have no fallbacks, so big models are not copied.
    if isinstance(obj, link_module.Link) and all(
            type(link).serialize in _PLAIN_SERIALIZE for link in obj.links()):
        return obj
    try:
        return copy.deepcopy(obj)
    except Exception:
        return obj


def _check(load: _Load) -> tuple[list[str], list[tuple[str, str]], bool]:
    """Dry-runs the load.

    Returns:
        The missing and the mismatched keys, and whether the real load must
        still run: the first dry run held back a value, or a missing key that
        the real load raises ``KeyError`` for (``serialize`` may catch it).
    """
    first = seen = load.dry_run(_Recorder(None))
    must_load = first.held_back or (load.strict and bool(first.missing))
    if first.held_back and _never_requested(load.entries, load.path, load.ignore_names,
                                            seen.requested):
        # serialize() may choose keys from loaded values (a summary's names):
        # follow the stored values on a copy, so that those keys are checked too.
        probe_obj = _copy_for_probing(load.obj)
        if probe_obj is not load.obj:
            seen = load.dry_run(_Recorder(None, follow_values=True), probe_obj)
    if not (load.strict and seen.missing):
        return [], seen.mismatched, must_load
    # serialize() may tolerate some of the missing keys.
    seen, missing = _probe_missing(load, _copy_for_probing(load.obj), seen)
    return missing, seen.mismatched, must_load


def _message(obj: Any, source: str, path: str, strict: bool, entries: Mapping[str, Stored],
             missing: list[str], mismatched: list[tuple[str, str]]) -> str:
    lines = [f'cannot load {source} into {type(obj).__name__} (path={path!r}, '
             f'strict={strict}); nothing was loaded and the object is unchanged:']
    if missing:
        lines.append(f'  missing from the file ({len(missing)}):')
        lines.extend(f'    {key}' for key in missing)
        if path and not any(key.startswith(path) for key in entries):
            lines.append(f'    (the file has no keys under path {path!r})')
    if mismatched:
        lines.append(f'  mismatched ({len(mismatched)}):')
        lines.extend(f'    {key}: {problem}' for key, problem in mismatched)
    if missing:
        lines.append('strict=False skips missing keys; ignore_names skips the keys it names.')
    return '\n'.join(lines)


def load_transactionally(entries: Mapping[str, Stored], obj: Any, path: str, strict: bool,
                         ignore_names: Any, source: str,
                         deserializer_type: type[MappingDeserializer] = MappingDeserializer,
                         ) -> None:
    """Checks that ``entries`` fit ``obj`` (a dry run), then loads them.

    Args:
        entries: Full keys mapped to the values read from the file.
        obj: The object to load into.
        path: The prefix of the keys to load.
        strict: Whether a key the object asks for must be in ``entries``.
        ignore_names: Keys or predicates of keys never to load.
        source: The file's name, for messages.
        deserializer_type: The class of the deserializers handed to
            ``obj.serialize``; built as ``deserializer_type(entries, path,
            strict, ignore_names)``.

    Raises:
        KeyMismatchError: If anything does not fit; ``obj`` is then unchanged.
    """
    load = _Load(entries, obj, path, bool(strict), ignore_names, source, deserializer_type)
    missing, mismatched, must_load = _check(load)
    if missing or mismatched:
        raise KeyMismatchError(
            _message(obj, source, path, strict, entries, missing, mismatched),
            missing, (), mismatched)
    if must_load:
        obj.serialize(load.deserializer())


__all__ = ['MappingDeserializer', 'StoredValueDeserializer', 'load_transactionally',
           'make_ignore_predicate']

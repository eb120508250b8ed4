"""Building blocks of models: :class:`Link`, :class:`Chain` and :class:`ChainList`.

A link holds parameters (:class:`catena.Parameter`) and persistent values; a
chain holds named child links, a chain list an ordered list of them. Attributes
assigned inside ``with link.init_scope():`` are registered as parameters or
children.
"""

from __future__ import annotations

import contextlib
import copy as _copy
import warnings
from collections.abc import Callable, Iterator, MutableSequence
from typing import Any, NoReturn

import numpy

from catena import _link_hooks, backend
from catena.backends._numpy import CpuDevice
from catena.device_resident import DeviceResident, DeviceResidentsVisitor
from catena.initializers.constant import NaN
from catena.link_hook import (
    LinkHook,
    _ForwardPostprocessCallbackArgs,
    _ForwardPreprocessCallbackArgs,
)
from catena.parameter import Parameter

_COPY_MODES = ('share', 'copy', 'init')
def _init_not_called() -> NoReturn:
    raise RuntimeError('Link.__init__() has not been called.')


def _check_copy_mode(mode: str) -> None:
    if mode not in _COPY_MODES:
        raise ValueError(f"mode must be one of 'share', 'copy' or 'init'; got {mode!r}")


def _is_array(value: Any) -> bool:
    # NumPy scalars stay as they are (as Python scalars do).
    return isinstance(value, backend.get_array_types()) and not isinstance(value, numpy.generic)


class Link(DeviceResident):
    """A building block of models: a set of parameters and persistent values.

    Parameters are :class:`catena.Parameter` attributes registered by
    assigning them inside ``with self.init_scope():`` or with
    :meth:`add_param`; persistent values (arrays or scalars that are saved and
    moved with the link but not trained) are registered with
    :meth:`add_persistent`. Calling a link runs its ``forward`` method, with
    the link hooks around it.

    Args:
        params: (Legacy) ``name=shape`` or ``name=(shape, dtype)`` pairs, each
            added with :meth:`add_param`.
    """

    _local_link_hooks: dict[str, LinkHook] | None

    def __init__(self, **params: Any) -> None:
        super().__init__()
        object.__setattr__(self, '_within_init_scope', False)
        self._params: set[str] = set()
        self._persistent: set[str] = set()
        self._local_link_hooks = None
        self.name: str | None = None
        for name, value in params.items():
            if isinstance(value, tuple) and len(value) == 2 and not isinstance(value[0], int):
                self.add_param(name, value[0], dtype=value[1])
            else:
                self.add_param(name, value)

    # ------------------------------------------------------------ registration

    @property
    def within_init_scope(self) -> bool:
        """Whether the link is inside ``with self.init_scope():``."""
        return bool(getattr(self, '_within_init_scope', False))

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """A scope in which assigned Parameters (and links, for chains) are registered."""
        if '_params' not in self.__dict__:
            _init_not_called()
        old = self.within_init_scope
        object.__setattr__(self, '_within_init_scope', True)
        try:
            yield
        finally:
            object.__setattr__(self, '_within_init_scope', old)

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Parameter):
            if self.within_init_scope:
                value.name = name
                if name not in self._params:
                    self._forget(name)
                    self._params.add(name)
        elif name in self.__dict__.get('_params', ()):
            self._params.discard(name)  # a non-parameter replaces a parameter
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._forget(name)
        object.__delattr__(self, name)

    def _forget(self, name: str) -> None:
        """Unregisters ``name`` as a parameter or persistent (chains: as a child too)."""
        if name in self._params:
            self._params.discard(name)
        elif name in self._persistent:
            self._persistent.discard(name)

    def add_param(self, name: str, shape: Any = None, dtype: Any = numpy.float32,
                  initializer: Any = None) -> None:
        """Registers a new parameter.

        Args:
            name: The attribute name of the parameter.
            shape: Its shape, or None to initialize it later.
            dtype: Its dtype when ``initializer`` is None (it is then NaN-filled).
            initializer: An initializer, scalar or array for the values.

        Raises:
            AttributeError: If the link already has an attribute ``name``.
        """
        if '_params' not in self.__dict__:
            _init_not_called()
        if name in self.__dict__:
            raise AttributeError(
                f'cannot register a new parameter {name!r}: {type(self).__name__} already '
                'has an attribute of that name')
        if initializer is None:
            initializer = NaN(dtype)
        param = Parameter(initializer, shape)
        if type(self._device) is not CpuDevice:
            param.to_device(self._device)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Registers a persistent value (an array or a scalar, saved and moved, not trained).

        Args:
            name: The attribute name.
            value: The value.

        Raises:
            AttributeError: If the link already has an attribute ``name``.
        """
        if name in self.__dict__:
            raise AttributeError(
                f'cannot register a new persistent value {name!r}: {type(self).__name__} '
                'already has an attribute of that name')
        self._persistent.add(name)
        object.__setattr__(self, name, value)

    def register_persistent(self, name: str) -> None:
        """Registers the existing attribute ``name`` as a persistent value.

        Raises:
            AttributeError: If the link has no attribute ``name``, or it is a
                parameter.
        """
        if not hasattr(self, name):
            raise AttributeError(
                f'cannot register {name!r} as persistent: {type(self).__name__} has no such '
                'attribute')
        if name in self._params:
            raise AttributeError(f'cannot register the parameter {name!r} as persistent')
        if name not in self._persistent:
            self._persistent.add(name)

    # --------------------------------------------------------------- calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            local = self._local_link_hooks
        except AttributeError:
            _init_not_called()
        forward = getattr(self, 'forward', None)
        if forward is None:
            forward = self._inherited_call()
        if not local and not _link_hooks.n_registered:
            return forward(*args, **kwargs)
        hooks = _link_hooks.active_hooks(local)
        pre = _ForwardPreprocessCallbackArgs(self, 'forward', args, kwargs)
        for hook in hooks:
            hook.forward_preprocess(pre)
        out = forward(*args, **kwargs)
        post = _ForwardPostprocessCallbackArgs(self, 'forward', args, kwargs, out)
        for hook in hooks:
            hook.forward_postprocess(post)
        return out

    # A subclass defines ``forward``, the computation of the link; calling
    # the link runs it (with the link hooks).

    def _inherited_call(self) -> Callable[..., Any]:
        """The ``__call__`` of a class after Link in the MRO (a mixin), bound to self."""
        try:
            return super().__call__  # type: ignore[misc, no-any-return]
        except AttributeError:
            raise AttributeError(f'{type(self).__name__} has no forward method: define '
                                 'forward() to make the link callable') from None

    @property
    def local_link_hooks(self) -> dict[str, LinkHook]:
        """The ordered dict of hooks registered on this link only."""
        if self._local_link_hooks is None:
            self._local_link_hooks = {}
        return self._local_link_hooks

    def add_hook(self, hook: LinkHook, name: str | None = None) -> Link:
        """Registers a link hook on this link.

        Args:
            hook: The hook.
            name: The name to register it under (default: ``hook.name``).

        Returns:
            This link.
        """
        if not isinstance(hook, LinkHook):
            raise TypeError(f'hook must be a catena.LinkHook; got {type(hook).__name__}')
        if name is None:
            name = hook.name
        hooks = self.local_link_hooks
        if name in hooks:
            raise KeyError(f'a link hook named {name!r} is already registered on this link')
        hook.added(self)
        hooks[name] = hook
        return self

    def delete_hook(self, name: str) -> None:
        """Unregisters the hook registered under ``name`` on this link."""
        hooks = self.local_link_hooks
        if name not in hooks:
            raise KeyError(f'no link hook named {name!r} is registered on this link')
        hooks[name].deleted(self)
        del hooks[name]

    # ------------------------------------------------------------- traversal

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        """Yields every parameter of the link and its descendants.

        Args:
            include_uninit: Also yield parameters that have no array yet.
        """
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            if include_uninit or param.array is not None:
                yield param

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yields ``(path, parameter)`` pairs, with paths such as ``'/child/W'``."""
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            if include_uninit or param.array is not None:
                yield '/' + name, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        """Yields this link (unless ``skipself``) and all its descendants."""
        if not skipself:
            yield self

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """Yields ``(path, link)`` pairs; this link's path is ``'/'``."""
        if not skipself:
            yield '/', self

    def children(self) -> Iterator[Link]:
        """Yields the direct child links."""
        return iter(())

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        return iter(())

    # ------------------------------------------------------------- gradients

    def cleargrads(self) -> None:
        """Clears the gradients of all parameters (sets them to None)."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Fills the gradients of all parameters with zeros (deprecated: use cleargrads)."""
        warnings.warn('Link.zerograds is deprecated; use Link.cleargrads instead',
                      DeprecationWarning, stacklevel=2)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            for param in self.params():
                param.zerograd()

    def addgrads(self, link: Link) -> None:
        """Adds the gradients of ``link``'s parameters (same structure) to this link's."""
        self._check_same_type(link, 'addgrads')
        src = link.__dict__
        dst = self.__dict__
        for name in sorted(self._params):
            dst[name].addgrad(src[name])

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copies the parameter (and persistent) values of ``link`` into this link.

        The two links must have the same structure; they may live on different
        devices.

        Args:
            link: The source link.
            copy_persistent: Also copy the persistent values.
        """
        self._check_same_type(link, 'copyparams')
        src = link.__dict__
        dst = self.__dict__
        for name in sorted(self._params):
            _copy_param(dst[name], src[name])
        if not copy_persistent:
            return
        for name in sorted(self._persistent):
            value = src[name]
            target = dst[name]
            if _is_array(target) and _is_array(value):
                backend.copyto(target, value)
            else:
                dst[name] = _copy.deepcopy(value)

    def _check_same_type(self, link: Any, what: str) -> None:
        if not isinstance(link, Link):
            raise TypeError(f'{what} needs a catena.Link; got {type(link).__name__}')
        missing = [name for name in sorted(self._params) if name not in link.__dict__]
        if missing:
            raise ValueError(f'{what}: the link {type(link).__name__} has no parameter(s) '
                             f'{missing} of {type(self).__name__}')

    # --------------------------------------------------------------- updates

    def enable_update(self) -> None:
        """Lets optimizers update all parameters (the update rules' ``enabled``)."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None:
                rule.enabled = True

    def disable_update(self) -> None:
        """Stops optimizers from updating any parameter (the update rules' ``enabled``)."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None:
                rule.enabled = False

    @property
    def update_enabled(self) -> bool:
        """Whether any parameter has an enabled update rule."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None and rule.enabled:
                return True
        return False

    def count_params(self) -> int:
        """Returns the total number of elements of the initialized parameters.

        Uninitialized parameters are not counted (a warning names them).
        """
        size = 0
        for name, param in self.namedparams():
            if param.array is None:
                warnings.warn(f'parameter {name!r} is not initialized; count_params() does '
                              'not count it', stacklevel=2)
            else:
                size += param.size
        return size

    # ------------------------------------------------------------ copies

    def copy(self, mode: str = 'share') -> Link:
        """Returns a copy of the link (and its descendants).

        Args:
            mode: ``'share'``: the copy's parameters are new Parameter objects
                sharing the arrays (gradients are not shared); ``'copy'``: deep
                copies of the arrays; ``'init'``: deep copies re-initialized with
                each parameter's initializer.

        Returns:
            The copy; in ``'share'`` mode its ``name`` is None.
        """
        _check_copy_mode(mode)
        if mode == 'share':
            ret = self._shallow_copy()
            object.__setattr__(ret, 'name', None)
        else:
            memo: dict[int, Any] = {id(link._device): link._device for link in self.links()}
            ret = _copy.deepcopy(self, memo)
            for src, param in zip(self.params(), ret.params(), strict=True):
                # Parameter's pickling keeps only the array; restore what it drops.
                param.initializer = _copy.deepcopy(src.initializer, memo)
                param._initial_device = src._initial_device
                if mode == 'init' and param.array is not None:
                    device = param.device
                    param.initialize(param.shape)
                    param.to_device(device)
        return ret

    def _shallow_copy(self) -> Link:
        ret = _copy.copy(self)
        d = ret.__dict__
        d['_params'] = set(self._params)
        d['_persistent'] = set(self._persistent)
        d['_local_link_hooks'] = (None if self._local_link_hooks is None
                                  else dict(self._local_link_hooks))
        for name in sorted(self._params):
            param = d[name]
            # A shallow copy shares the array, even one assigned later.
            shared = _copy.copy(param)
            shared.cleargrad()  # its gradient is its own (none yet, none to make)
            shared.update_rule = None
            d[name] = shared
        return ret

    def repeat(self, n_repeat: int, mode: str = 'init') -> Any:
        """Returns a :class:`~catena.Sequential` of ``n_repeat`` copies of the link.

        Args:
            n_repeat: The number of copies (0 or less gives an empty Sequential).
            mode: The :meth:`copy` mode of each copy (default ``'init'``:
                independent, re-initialized parameters).
        """
        _check_copy_mode(mode)
        ret = _sequential.Sequential()
        for _ in range(n_repeat):
            ret.append(self.copy(mode))
        return ret

    # --------------------------------------------------------- serialization

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the parameters and persistent values with ``serializer``.

        ``serializer(key, value)`` returns the value to store back (a loader
        fills the given array in place, or returns a new value); an
        uninitialized parameter is initialized with the loaded array's shape.
        """
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            data = serializer(name, param.array)
            if param.array is None and data is not None:
                param.initialize(data.shape)
                backend.copyto(param.array, data)
        for name in sorted(self._persistent):
            d[name] = serializer(name, d[name])

    # --------------------------------------------------------------- devices

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        d = self.__dict__
        for name in sorted(self._params):
            visitor.visit_variable(d[name])
        for name in sorted(self._persistent):
            value = d[name]
            if _is_array(value):
                d[name] = visitor.visit_array(value)

    # ----------------------------------------------------------- description

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """``(name, value)`` pairs shown in ``repr`` (subclasses override it)."""
        return iter(())

    @classmethod
    def from_params(cls, *args: Any, **kwargs: Any) -> Link:
        """Builds a link from existing parameter arrays (links that support it override it)."""
        raise NotImplementedError(f'{cls.__name__} does not support from_params()')

    def __repr__(self) -> str:
        specs = ', '.join(f'{name}={value!r}' for name, value in self.printable_specs)
        return f'{type(self).__name__}({specs})'


class Chain(Link):
    """A link with named child links (registered in ``init_scope`` or :meth:`add_link`).

    Args:
        links: (Legacy) ``name=link`` pairs, each added with :meth:`add_link`.
    """

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self._children: set[str] = set()
        for name, link in links.items():
            self.add_link(name, link)

    def __getitem__(self, name: str) -> Any:
        """Returns the attribute ``name`` (a child link, usually)."""
        return getattr(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            if hasattr(self, name) and name not in self._children:
                raise AttributeError(
                    f'cannot register a new link {name!r}: {type(self).__name__} already has '
                    'an attribute of that name')
            value.name = name
            if name not in self._children:
                self._forget(name)
                self._children.add(name)
        elif not isinstance(value, Link) and name in self.__dict__.get('_children', ()):
            self._children.discard(name)  # a non-link replaces a child
        super().__setattr__(name, value)

    def _forget(self, name: str) -> None:
        super()._forget(name)
        children = self.__dict__.get('_children')
        if children is not None and name in children:
            children.remove(name)

    def add_link(self, name: str, link: Link) -> None:
        """Registers ``link`` as the child ``name``.

        Raises:
            AttributeError: If the chain already has an attribute ``name``.
            TypeError: If ``link`` is not a Link.
        """
        if name in self.__dict__:
            raise AttributeError(
                f'cannot register a new link {name!r}: {type(self).__name__} already has an '
                'attribute of that name')
        if not isinstance(link, Link):
            raise TypeError(f'cannot register a non-link object as a child: {name!r} is a '
                            f'{type(link).__name__}')
        with self.init_scope():
            setattr(self, name, link)

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        d = self.__dict__
        for name in sorted(self._children):
            yield name, d[name]

    def children(self) -> Iterator[Link]:
        d = self.__dict__
        for name in sorted(self._children):
            yield d[name]

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        yield from super().params(include_uninit)
        for child in self.children():
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from super().namedparams(include_uninit)
        for name, child in self._named_children():
            prefix = '/' + name
            for path, param in child.namedparams(include_uninit):
                yield prefix + path, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        if not skipself:
            yield self
        for child in self.children():
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        if not skipself:
            yield '/', self
        for name, child in self._named_children():
            prefix = '/' + name
            yield prefix, child
            for path, link in child.namedlinks(skipself=True):
                yield prefix + path, link

    def copy(self, mode: str = 'share') -> Chain:
        ret = super().copy(mode)
        if mode == 'share':
            d = ret.__dict__
            d['_children'] = set(self._children)
            for name in sorted(self._children):
                child = d[name].copy(mode)
                object.__setattr__(child, 'name', name)
                d[name] = child
        return ret  # type: ignore[return-value]

    def _other_children(self, link: Link, what: str) -> dict[str, Any]:
        other = link.__dict__
        missing = [name for name in sorted(self._children) if name not in other]
        if missing:
            raise ValueError(f'{what}: the link {type(link).__name__} has no child link(s) '
                             f'{missing} of {type(self).__name__}')
        return other

    def addgrads(self, link: Link) -> None:
        super().addgrads(link)
        other = self._other_children(link, 'addgrads')
        for name, child in self._named_children():
            child.addgrads(other[name])

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        other = self._other_children(link, 'copyparams')
        for name, child in self._named_children():
            child.copyparams(other[name], copy_persistent)

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for name, child in self._named_children():
            child.serialize(serializer[name])

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        for child in self.children():
            child.device_resident_accept(visitor)

    def __repr__(self) -> str:
        lines = [f'{type(self).__name__}(']
        for name, child in self._named_children():
            body = repr(child).replace('\n', '\n  ')
            lines.append(f'  ({name}): {body},')
        lines.append(')')
        return '\n'.join(lines) if len(lines) > 2 else f'{type(self).__name__}()'


class ChainList(Link, MutableSequence):  # type: ignore[type-arg]
    """A link with an ordered list of child links (named ``'0'``, ``'1'``, ...).

    Args:
        links: The initial child links.
    """

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self._children: list[Link] = []
        for link in links:
            self.add_link(link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            raise TypeError(
                f'cannot register the link {name!r} inside "with chainlist.init_scope():"; '
                'use ChainList.append() or add_link()')
        super().__setattr__(name, value)

    def __getitem__(self, index: Any) -> Any:
        """Returns the child at ``index`` (a list for a slice)."""
        return self._children[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            links = list(value)
            for link in links:
                _check_link(link)
            self._children[index] = links
        else:
            _check_link(value)
            self._children[index] = value
        self._rename_children()

    def __delitem__(self, index: Any) -> None:
        del self._children[index]
        self._rename_children()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._children)

    def __len__(self) -> int:
        return len(self._children)

    def insert(self, index: int, link: Link) -> None:
        """Inserts ``link`` before position ``index``."""
        _check_link(link)
        self._children.insert(index, link)
        self._rename_children()

    def _rename_children(self) -> None:
        for i, link in enumerate(self._children):
            object.__setattr__(link, 'name', str(i))

    def add_link(self, link: Link) -> None:
        """Appends ``link`` (same as :meth:`append`)."""
        self.append(link)

    def append(self, link: Link) -> None:
        """Appends ``link`` as the last child."""
        _check_link(link)
        object.__setattr__(link, 'name', str(len(self._children)))
        self._children.append(link)

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        for i, link in enumerate(self._children):
            yield str(i), link

    def children(self) -> Iterator[Link]:
        return iter(list(self._children))

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        yield from super().params(include_uninit)
        for child in self._children:
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from super().namedparams(include_uninit)
        for name, child in self._named_children():
            prefix = '/' + name
            for path, param in child.namedparams(include_uninit):
                yield prefix + path, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        if not skipself:
            yield self
        for child in self._children:
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        if not skipself:
            yield '/', self
        for name, child in self._named_children():
            prefix = '/' + name
            yield prefix, child
            for path, link in child.namedlinks(skipself=True):
                yield prefix + path, link

    def copy(self, mode: str = 'share') -> ChainList:
        ret = super().copy(mode)
        if mode == 'share':
            children = [child.copy(mode) for child in self._children]
            for i, child in enumerate(children):
                object.__setattr__(child, 'name', str(i))
            ret.__dict__['_children'] = children
        return ret  # type: ignore[return-value]

    def _other_children(self, link: Link, what: str) -> list[Link]:
        other = link.__dict__.get('_children')
        if not isinstance(other, list) or len(other) != len(self._children):
            raise ValueError(f'{what}: the link {type(link).__name__} does not have the '
                             f'{len(self._children)} children of {type(self).__name__}')
        return other

    def addgrads(self, link: Link) -> None:
        super().addgrads(link)
        for child, other in zip(self._children, self._other_children(link, 'addgrads'),
                                strict=True):
            child.addgrads(other)

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        for child, other in zip(self._children, self._other_children(link, 'copyparams'),
                                strict=True):
            child.copyparams(other, copy_persistent)

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for name, child in self._named_children():
            child.serialize(serializer[name])

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        for child in self._children:
            child.device_resident_accept(visitor)

    def __repr__(self) -> str:
        if not self._children:
            return f'{type(self).__name__}()'
        lines = [f'{type(self).__name__}(']
        for name, child in self._named_children():
            body = repr(child).replace('\n', '\n  ')
            lines.append(f'  ({name}): {body},')
        lines.append(')')
        return '\n'.join(lines)


def _copy_param(dst: Parameter, src: Parameter) -> None:
    """Copies ``src``'s array into ``dst``, initializing whichever has no array yet."""
    if src.array is None:
        if dst.array is None:
            return
        src.initialize(dst.shape)
    elif dst.array is None:
        dst.initialize(src.shape)
    backend.copyto(dst.array, src.array)


def _check_link(link: Any) -> None:
    if not isinstance(link, Link):
        raise TypeError(f'a ChainList holds links only; got {type(link).__name__}')


from catena import sequential as _sequential  # noqa: E402  (Sequential subclasses ChainList)

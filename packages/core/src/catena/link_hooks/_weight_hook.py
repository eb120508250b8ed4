"""The shared body of link hooks that replace a weight by a function of it.

During the forward computation of a hooked link, its weight attribute holds a
:class:`~catena.Variable` computed from the :class:`~catena.Parameter` (so
gradients flow back to the parameter); afterwards the parameter is put back.
"""

from __future__ import annotations

import math
from typing import Any

from catena import link_hook, variable
from catena.links.connection import deconvolution_2d, deconvolution_nd, linear

_TRANSPOSED_LINKS = (deconvolution_2d.Deconvolution2D, deconvolution_nd.DeconvolutionND)


def output_axis(link: Any) -> int:
    """The axis of the output channels in the link's weight.

    It is 1 for deconvolutions (whose filters are laid out
    ``(c_in, c_out, ...)``) and 0 for every other link.
    """
    return 1 if isinstance(link, _TRANSPOSED_LINKS) else 0


def _initialize_from_input(hook_name: str, link: Any, weight_name: str,
                           args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Gives an uninitialized weight its shape from the first input, as the link would."""
    who = f'{hook_name} on {type(link).__name__}'
    if not args:
        raise ValueError(f'{who}: the weight {weight_name!r} is not initialized and the link '
                         'was called without a positional input to infer its shape from')
    x = args[0]
    if isinstance(link, linear.Linear):
        n_batch_axes = kwargs.get('n_batch_axes', args[1] if len(args) > 1 else 1)
        in_size = math.prod(x.shape[n_batch_axes:])
        if x.ndim <= n_batch_axes or in_size == 0:
            raise ValueError(f'{who}: cannot infer the input size from x.shape={x.shape} with '
                             f'n_batch_axes={n_batch_axes}')
        link._initialize_params(in_size)
    elif callable(getattr(link, '_prepare', None)):
        link._prepare(x)
    elif callable(getattr(link, '_initialize_params', None)) and x.ndim >= 2:
        link._initialize_params(x.shape[1])
    else:
        raise ValueError(f'{who}: the weight {weight_name!r} is not initialized and the hook '
                         'does not know how to initialize it; initialize it before the call')


class WeightReplacingHook(link_hook.LinkHook):
    """A link hook that substitutes a differentiable function of a weight.

    Subclasses implement :meth:`_replacement` and may extend :meth:`added`
    and :meth:`deleted`; :meth:`_ensure_prepared` runs whenever the weight has
    a value (when the hook is added, and before each forward).

    Args:
        weight_name: The attribute name of the weight (a Parameter).
        name: The name of the hook (default: the class's ``name``).
    """

    def __init__(self, weight_name: str = 'W', name: str | None = None) -> None:
        if not isinstance(weight_name, str) or not weight_name.isidentifier():
            raise ValueError(f'weight_name must be an attribute name; got {weight_name!r}')
        if name is not None:
            if not isinstance(name, str):
                raise TypeError(f'name must be a str or None; got {type(name).__name__}')
            self.name = name
        self.weight_name = weight_name
        # The parameter of each link whose forward is running, by id(link).
        self._originals: dict[int, variable.Parameter] = {}

    def __enter__(self) -> Any:
        raise NotImplementedError(
            f'{type(self).__name__} changes the weight of one link: register it with '
            'link.add_hook(hook), not with a `with` block')

    def _weight(self, link: Any) -> variable.Parameter:
        weight = link.__dict__.get(self.weight_name)
        if not isinstance(weight, variable.Parameter):
            raise ValueError(
                f'{self.name}: {type(link).__name__} has no parameter {self.weight_name!r} '
                f'(found {type(weight).__name__})')
        return weight

    def added(self, link: Any) -> None:
        if link is None:
            raise NotImplementedError(f'{type(self).__name__} needs a link: use link.add_hook')
        weight = self._weight(link)
        if weight.array is not None:
            self._ensure_prepared(link)

    def deleted(self, link: Any) -> None:
        if link is not None:
            self._restore(link)

    def forward_preprocess(self, args: Any) -> None:
        link = args.link
        self._restore(link)  # in case a previous forward raised before postprocess
        weight = self._weight(link)
        if weight.array is None:
            _initialize_from_input(self.name, link, self.weight_name, args.args, args.kwargs)
        self._ensure_prepared(link)
        replacement = self._replacement(link, weight)
        self._originals[id(link)] = weight
        # object.__setattr__: Link.__setattr__ would unregister the parameter.
        object.__setattr__(link, self.weight_name, replacement)

    def forward_postprocess(self, args: Any) -> None:
        self._restore(args.link)

    def _restore(self, link: Any) -> None:
        original = self._originals.pop(id(link), None)
        if original is not None:
            object.__setattr__(link, self.weight_name, original)

    def _ensure_prepared(self, link: Any) -> None:
        """Registers on ``link`` what the hook needs, unless it is there already."""

    def _replacement(self, link: Any, weight: variable.Parameter) -> variable.Variable:
        raise NotImplementedError

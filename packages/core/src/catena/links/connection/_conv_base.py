"""The shared body of the (de)convolution links: parameters and lazy shapes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from catena import link, variable
from catena.links.connection import _util


class _ConvolutionLinkBase(link.Link):
    """A link holding an n-d (de)convolution filter ``W`` and a bias ``b``.

    Subclasses set ``_transposed`` (the filter layout of a deconvolution,
    ``(c_in, c_out / groups, *ksize)``, instead of
    ``(c_out, c_in / groups, *ksize)``) and implement ``forward``.
    """

    _transposed = False

    def _setup(self, ndim: int, in_channels: int | None, out_channels: int, ksize: Any,
               stride: Any, pad: Any, nobias: bool, initialW: Any, initial_bias: Any,
               dilate: Any, groups: Any) -> None:
        who = type(self).__name__
        in_channels = _util.channels(who, 'in_channels', in_channels, optional=True)
        out_channels = _util.channels(who, 'out_channels', out_channels)
        self.ndim = ndim
        self.ksize = _util.as_tuple(ksize, ndim, 'ksize', who=who)
        self.stride = _util.as_tuple(stride, ndim, 'stride', who=who)
        self.pad = _util.as_tuple(pad, ndim, 'pad', 0, who=who)
        self.dilate = _util.as_tuple(dilate, ndim, 'dilate', who=who)
        self.groups = _util.as_groups(groups, who)
        if out_channels % self.groups:
            raise ValueError(f'{who}: the number of output channels ({out_channels}) must be '
                             f'divisible by the number of groups ({self.groups})')
        self.in_channels = in_channels
        self.out_channels = out_channels
        with self.init_scope():
            self.W = variable.Parameter(_util.get_initializer(initialW, who=who))
            if in_channels is not None:
                self._initialize_params(in_channels)
            if nobias:
                self.b = None
            else:
                self.b = _util.parameter(who, 'initial_bias',
                                         _util.get_bias_initializer(initial_bias, who),
                                         out_channels)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        for name in ('in_channels', 'out_channels', 'ksize', 'stride', 'pad'):
            yield name, getattr(self, name)
        yield 'nobias', self.b is None
        yield 'dilate', self.dilate
        yield 'groups', self.groups

    def _initialize_params(self, in_channels: int) -> None:
        if in_channels % self.groups:
            raise ValueError(f'{type(self).__name__}: the number of input channels '
                             f'({in_channels}) must be divisible by the number of groups '
                             f'({self.groups})')
        if self._transposed:
            shape = (in_channels, self.out_channels // self.groups) + self.ksize
        else:
            shape = (self.out_channels, in_channels // self.groups) + self.ksize
        _util.initialize(type(self).__name__, 'initialW', self.W, shape)
        self.in_channels = in_channels

    def _prepare(self, x: Any) -> None:
        """Initializes ``W`` from the first input, checking its rank."""
        self._initialize_params(
            _util.check_channels(type(self).__name__, x, self.ndim, None))

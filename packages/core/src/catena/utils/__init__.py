"""Utilities shared by functions, links and users (``catena.utils``)."""

from __future__ import annotations

from catena.utils import argument, collections_abc, conv, conv_nd, type_check
from catena.utils._tempdir import tempdir
from catena.utils.array import force_array, force_type, size_of_shape, sum_to
from catena.utils.conv import get_conv_outsize, get_deconv_outsize
from catena.utils.experimental import experimental
from catena.utils.sparse import CooMatrix, get_order, to_coo
from catena.utils.walker_alias import WalkerAlias

__all__ = ['CooMatrix', 'WalkerAlias', 'argument', 'collections_abc', 'conv', 'conv_nd',
           'experimental', 'force_array', 'force_type', 'get_conv_outsize', 'get_deconv_outsize',
           'get_order', 'size_of_shape', 'sum_to', 'tempdir', 'to_coo', 'type_check']

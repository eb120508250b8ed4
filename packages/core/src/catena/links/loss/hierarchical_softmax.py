"""The :class:`BinaryHierarchicalSoftmax` link and its function.

A binary tree has the words at its leaves; every internal node ``k`` has a
weight row ``W[k]``. The probability of a word is the product, along the
path from the root, of ``sigmoid(code * W[k] . x)``, with ``code`` ``+1``
for a step to the left child and ``-1`` to the right one.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Mapping
from typing import Any

import numpy

from catena import _dtype, backend, initializers, utils
from catena.function_node import FunctionNode
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.expand_dims import expand_dims
from catena.functions.array.reshape import reshape
from catena.functions.array.scatter_add import scatter_add
from catena.functions.connection.embed_id import embed_id
from catena.functions.math.sum import sum as _sum
from catena.link import Link
from catena.links.connection._util import size_argument
from catena.parameter import Parameter
from catena.utils import type_check
from catena.variable import Variable


def _parse_tree(tree: Any) -> tuple[numpy.ndarray, numpy.ndarray, int]:
    """Numbers the internal nodes of ``tree`` in pre-order and lists each leaf's path.

    Returns:
        ``(paths, codes, n_internal)``: ``paths[w]`` holds the internal nodes
        from the root to leaf ``w`` (padded with 0), ``codes[w]`` the
        matching ``+1``/``-1`` steps (padded with 0).
    """
    found: dict[int, tuple[list[int], list[float]]] = {}
    next_id = 0
    # Depth-first with an explicit stack: Huffman trees can be very deep.
    stack: list[tuple[Any, list[int], list[float]]] = [(tree, [], [])]
    while stack:
        node, path, code = stack.pop()
        if isinstance(node, tuple):
            if len(node) != 2:
                raise ValueError('BinaryHierarchicalSoftmax: every internal node of the tree must '
                                 f'have two children; got {len(node)}')
            left, right = node
            own = path + [next_id]
            next_id += 1
            stack.append((right, own, code + [-1.0]))
            stack.append((left, own, code + [1.0]))
            continue
        if isinstance(node, bool) or not isinstance(node, (int, numpy.integer)) or node < 0:
            raise ValueError('BinaryHierarchicalSoftmax: the leaves of the tree must be '
                             f'non-negative int word ids; got {node!r}')
        if int(node) in found:
            raise ValueError(f'BinaryHierarchicalSoftmax: the word {node} appears twice in the '
                             'tree')
        found[int(node)] = (path, code)
    n_words = len(found)
    if sorted(found) != list(range(n_words)):
        raise ValueError('BinaryHierarchicalSoftmax: the leaves of the tree must be the word ids '
                         f'0 to {n_words - 1}, each once')
    depth = max(len(path) for path, _ in found.values())
    paths = numpy.zeros((n_words, depth), dtype=numpy.int32)
    codes = numpy.zeros((n_words, depth), dtype=numpy.float32)
    for word, (path, code) in found.items():
        paths[word, :len(path)] = path
        codes[word, :len(code)] = code
    return paths, codes, next_id


class BinaryHierarchicalSoftmaxFunction(FunctionNode):
    """The hierarchical softmax loss, summed over the batch.

    Args:
        tree: The binary tree: nested 2-tuples whose leaves are the word ids
            ``0 .. n - 1``.

    Attributes:
        paths: ``(n_words, depth)`` int32: the internal nodes on each word's path.
        codes: ``(n_words, depth)`` float32: the ``+1``/``-1`` steps (0: padding).
        parser_size: The number of internal nodes (rows of ``W``).
    """

    def __init__(self, tree: Any) -> None:
        self.paths, self.codes, self.parser_size = _parse_tree(tree)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't', 'W'))
        x_type, t_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 2,
            t_type.dtype.kind == 'i',
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
            w_type.dtype == x_type.dtype,
            w_type.ndim == 2,
            w_type.shape[0] == self.parser_size,
            w_type.shape[1] == x_type.shape[1],
        )

    def _tables(self, x: Any, t: Any) -> tuple[Any, Any]:
        """The paths and codes of the labels ``t``, on x's device and in x's dtype."""
        if t.size and (int(t.min()) < 0 or int(t.max()) >= len(self.paths)):
            raise ValueError('binary_hierarchical_softmax: t must hold word ids in '
                             f'[0, {len(self.paths)}); got values from {int(t.min())} to '
                             f'{int(t.max())}')
        device = backend.get_device_from_array(x)
        index = backend.get_device_from_array(t).to_numpy(t)
        nodes = device.send_array(self.paths[index])
        codes = device.send_array(self.codes[index].astype(x.dtype, copy=False))
        return nodes, codes

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, t, w = inputs
        xp = backend.get_array_module(x)
        nodes, codes = self._tables(x, t)
        z = codes * xp.einsum('nld,nd->nl', w[nodes], x)
        # -log sigmoid(z) = log(1 + exp(-z)); padded steps have code 0.
        loss = (xp.logaddexp(x.dtype.type(0), -z) * xp.abs(codes)).sum()
        return utils.force_array(loss, x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]
                 ) -> tuple[Any, ...]:
        x, t, w = self.get_retained_inputs()
        gy, = grad_outputs
        nodes, codes = self._tables(x.array, t.array)
        n, depth = nodes.shape
        rows = embed_id(nodes, w)  # (n, depth, d)
        x3 = broadcast_to(expand_dims(x, 1), rows.shape)
        z = codes * _sum(rows * x3, axis=2)
        coef = -codes * sigmoid(-z) * broadcast_to(gy, z.shape)
        coef3 = broadcast_to(expand_dims(coef, 2), rows.shape)
        gx = _sum(coef3 * rows, axis=1) if 0 in indexes else None
        gw = None
        if 2 in indexes:
            xp = backend.get_array_module(x.array)
            contributions = reshape(coef3 * x3, (n * depth, x.shape[1]))
            gw = scatter_add(xp.zeros_like(w.array), nodes.reshape(-1), contributions)
        return gx, None, gw


def _huffman(word_counts: Mapping[Any, Any]) -> Any:
    if len(word_counts) == 0:
        raise ValueError('create_huffman_tree: the vocabulary is empty')
    # The unique id breaks ties between equal counts (trees are not comparable).
    heap = [(count, uid, word) for uid, (word, count) in enumerate(word_counts.items())]
    heapq.heapify(heap)
    while len(heap) > 1:
        count1, id1, node1 = heapq.heappop(heap)
        count2, id2, node2 = heapq.heappop(heap)
        heapq.heappush(heap, (count1 + count2, min(id1, id2), (node1, node2)))
    return heap[0][2]


class BinaryHierarchicalSoftmax(Link):
    """Hierarchical softmax layer over a binary tree of words.

    The loss of ``x`` for the word ``t`` is ``-log p(t | x)``, where
    ``p(t | x)`` is the product over the internal nodes ``k`` on the path
    from the root to leaf ``t`` of ``sigmoid(code_k * W[k] . x)`` (``code_k``
    is ``+1`` when the path turns left there, ``-1`` when it turns right).
    The call returns the loss summed over the batch. A Huffman tree of word
    counts (:meth:`create_huffman_tree`) makes frequent words cheap.

    Args:
        in_size: The dimension of the input vectors.
        tree: The tree: nested 2-tuples whose leaves are the word ids
            ``0 .. n - 1`` (each once).
        dtype: The dtype of ``W`` (None: ``catena.config.dtype``).

    Attributes:
        W: The weight :class:`~catena.Parameter`, one row per internal node,
            uniform in ``[-1, 1)`` at first.
    """

    def __init__(self, in_size: int, tree: Any, dtype: Any = None) -> None:
        super().__init__()
        in_size = size_argument('BinaryHierarchicalSoftmax', 'in_size', in_size)
        dtype = _dtype.get_dtype(dtype)
        self._func = BinaryHierarchicalSoftmaxFunction(tree)
        with self.init_scope():
            self.W = Parameter(initializers.Uniform(1, dtype), (self._func.parser_size, in_size))

    def forward(self, x: Any, t: Any) -> Variable:
        """Computes the loss of the words ``t`` given ``x``, summed over the batch.

        Args:
            x: The input vectors, ``(batch, in_size)``.
            t: The word ids, ``(batch,)``.

        Returns:
            Variable: The loss (a scalar).
        """
        return copy.copy(self._func).apply((x, t, self.W))[0]

    @staticmethod
    def create_huffman_tree(word_counts: Mapping[Any, Any]) -> Any:
        """Builds a Huffman tree from word counts.

        Repeatedly joins the two least frequent subtrees into a pair, so
        that frequent words get short paths.

        Args:
            word_counts: A mapping from each word (a leaf) to its count.

        Returns:
            The tree: nested 2-tuples with the words as leaves (a single
            word when the vocabulary has one).

        .. admonition:: Example

            >>> BinaryHierarchicalSoftmax.create_huffman_tree({0: 8, 1: 5, 2: 2})
            ((2, 1), 0)
        """
        return _huffman(word_counts)

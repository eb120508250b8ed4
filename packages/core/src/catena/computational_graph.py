"""Graphs of functions and variables, dumped in the DOT language (Graphviz).

:func:`build_computational_graph` walks backwards from some outputs through
``VariableNode.creator_node`` and ``FunctionNode.inputs`` and returns a
:class:`ComputationalGraph`, whose :meth:`~ComputationalGraph.dump` gives DOT
text::

    import catena.computational_graph as c

    g = c.build_computational_graph([loss])
    with open('graph.dot', 'w') as f:
        f.write(g.dump())

The walk needs only the graph nodes, so it works after the intermediate
Variables have been garbage collected.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import Any

from catena.function_node import FunctionNode
from catena.variable import Variable
from catena.variable_node import VariableNode

# The styles that 'default' stands for (the docstrings below repeat them).
_DEFAULT_VARIABLE_STYLE = {'shape': 'octagon', 'fillcolor': '#E0E0E0', 'style': 'filled'}
_DEFAULT_FUNCTION_STYLE = {'shape': 'record', 'fillcolor': '#6495ED', 'style': 'filled'}
_RANKDIRS = ('TB', 'BT', 'LR', 'RL')

Style = dict[str, Any] | str | None | Callable[[Any], Any]
Node = VariableNode | FunctionNode


def _escape(value: Any, record: bool) -> str:
    text = str(value).replace('\\', '\\\\').replace('"', '\\"')
    if record:
        # In a 'record' node these characters delimit fields.
        for char in '{}|<>':
            text = text.replace(char, '\\' + char)
    return text


class DotNode:
    """A node of a :class:`ComputationalGraph` with its DOT attributes.

    A variable node is drawn as an oval labelled with its name (when
    ``show_name``), shape and dtype; a function node as a box labelled with
    :attr:`FunctionNode.label`. ``attribute`` overrides or adds attributes.

    Args:
        node: A :class:`~catena.variable_node.VariableNode` or a
            :class:`~catena.FunctionNode`.
        attribute: Extra DOT attributes (``{'shape': ..., 'color': ...}``).
        show_name: Whether a variable's name is prepended to its label.

    Attributes:
        node: The graph node.
        id_: The node's identifier in the DOT text (``id(node)``).
        attribute: The DOT attributes, ``'label'`` and ``'shape'`` included.
    """

    def __init__(self, node: Node, attribute: dict[str, Any] | None = None,
                 show_name: bool = True) -> None:
        if not isinstance(node, (VariableNode, FunctionNode)):
            raise TypeError('a DotNode stands for a VariableNode or a FunctionNode; got '
                            f'{type(node).__module__}.{type(node).__qualname__}')
        self.node = node
        self.id_ = id(node)
        label = node.label
        if isinstance(node, VariableNode):
            if show_name and node.name is not None:
                label = f'{node.name}: {label}'
            shape = 'oval'
        else:
            shape = 'box'
        self.attribute: dict[str, Any] = {'label': label, 'shape': shape}
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self) -> str:
        """The node's DOT statement: ``<id> [key="value",...];`` (keys sorted)."""
        record = self.attribute.get('shape') == 'record'
        attributes = ','.join(f'{key}="{_escape(value, record and key == "label")}"'
                              for key, value in sorted(self.attribute.items()))
        return f'{self.id_} [{attributes}];'


def _resolve_style(style: Style, default: dict[str, Any], node: Node) -> dict[str, Any] | None:
    if isinstance(style, str):
        if style != 'default':
            raise ValueError(f"a node style must be a dict, a callable, None or 'default'; "
                             f'got {style!r}')
        return default
    if callable(style):
        return style(node)  # type: ignore[no-any-return]
    return style


class ComputationalGraph:
    """A graph of variable and function nodes that can be dumped as DOT text.

    Usually built by :func:`build_computational_graph`.

    Args:
        nodes: The :class:`~catena.variable_node.VariableNode` and
            :class:`~catena.FunctionNode` objects of the graph.
        edges: ``(head, tail)`` pairs of nodes, in the direction of the
            forward computation (input variable to function, function to
            output variable).
        variable_style: DOT attributes of variable nodes: a dict, a callable
            that takes the node and returns a dict, None for the plain oval,
            or ``'default'``: ``{'shape': 'octagon', 'fillcolor': '#E0E0E0',
            'style': 'filled'}``.
        function_style: DOT attributes of function nodes, as above;
            ``'default'`` is ``{'shape': 'record', 'fillcolor': '#6495ED',
            'style': 'filled'}`` (None gives a plain box).
        rankdir: The direction of the drawing: ``'TB'`` (top to bottom),
            ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable: Draw only the function nodes, with an edge from a
            function to each function that consumes one of its outputs.
        show_name: Prepend variable names to their labels.

    Attributes:
        nodes: The list of nodes.
        edges: The list of ``(head, tail)`` edges (between functions only
            when ``remove_variable`` is True).
    """

    def __init__(self, nodes: Iterable[Node], edges: Iterable[tuple[Node, Node]],
                 variable_style: Style = 'default', function_style: Style = 'default',
                 rankdir: str = 'TB', remove_variable: bool = False,
                 show_name: bool = True) -> None:
        if rankdir not in _RANKDIRS:
            raise ValueError(f'rankdir must be one of {", ".join(_RANKDIRS)}; got {rankdir!r}')
        self.nodes = list(nodes)
        self.edges = list(edges)
        self.variable_style = variable_style
        self.function_style = function_style
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name
        if remove_variable:
            self.edges = _function_edges(self.nodes, self.edges)

    def _dot_node(self, node: Node) -> DotNode:
        if isinstance(node, VariableNode):
            attribute = _resolve_style(self.variable_style, _DEFAULT_VARIABLE_STYLE, node)
        else:
            attribute = _resolve_style(self.function_style, _DEFAULT_FUNCTION_STYLE, node)
        return DotNode(node, attribute, self.show_name)

    def _to_dot(self) -> str:
        lines = ['digraph graphname {', f'  rankdir={self.rankdir};']
        for node in self.nodes:
            if not isinstance(node, (VariableNode, FunctionNode)):
                raise TypeError('a computational graph holds VariableNodes and FunctionNodes; '
                                f'got {type(node).__qualname__}')
            if isinstance(node, VariableNode) and self.remove_variable:
                continue
            lines.append('  ' + self._dot_node(node).label)
        for head, tail in self.edges:
            lines.append(f'  {id(head)} -> {id(tail)};')
        lines.append('}')
        return '\n'.join(lines) + '\n'

    def dump(self, format: str = 'dot') -> str:  # noqa: A002 - Chainer's argument name
        """Returns the graph as text in ``format`` (only ``'dot'`` is supported).

        Args:
            format: The output format.

        Returns:
            str: The DOT text, ``digraph graphname { ... }``.
        """
        if format == 'dot':
            return self._to_dot()
        raise NotImplementedError(f"format {format!r} is not supported; use format='dot'")


def _function_edges(nodes: list[Node], edges: list[tuple[Node, Node]]
                    ) -> list[tuple[Node, Node]]:
    """Replaces variable nodes by the functions on either side of them."""
    present = {id(node) for node in nodes}
    consumers: dict[int, list[FunctionNode]] = {}
    for node in nodes:
        if isinstance(node, FunctionNode):
            for x in node.inputs or ():
                consumers.setdefault(id(x), []).append(node)
    result: list[tuple[Node, Node]] = []
    seen: set[tuple[int, int]] = set()

    def add(head: Node, tail: Node) -> None:
        key = (id(head), id(tail))
        if key not in seen and id(head) in present and id(tail) in present:
            seen.add(key)
            result.append((head, tail))

    for head, tail in edges:
        if isinstance(head, FunctionNode) and isinstance(tail, FunctionNode):
            add(head, tail)
        elif isinstance(head, FunctionNode):  # function -> output variable
            for consumer in consumers.get(id(tail), ()):
                add(head, consumer)
    return result


def build_computational_graph(outputs: Iterable[Any], remove_split: bool = True,
                              variable_style: Style = 'default',
                              function_style: Style = 'default', rankdir: str = 'TB',
                              remove_variable: bool = False,
                              show_name: bool = True) -> ComputationalGraph:
    """Builds the graph of functions and variables backward-reachable from ``outputs``.

    Args:
        outputs: The nodes to start from: :class:`~catena.Variable`,
            :class:`~catena.variable_node.VariableNode` or
            :class:`~catena.FunctionNode` objects.
        remove_split: Must be True (kept for compatibility: catena's graphs
            have no split nodes).
        variable_style: DOT attributes of variable nodes (see
            :class:`ComputationalGraph`); ``'default'`` draws grey octagons.
        function_style: DOT attributes of function nodes; ``'default'``
            draws blue records.
        rankdir: ``'TB'``, ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable: Draw functions only.
        show_name: Prepend variable names to their labels.

    Returns:
        ComputationalGraph: The graph; ``graph.dump()`` gives DOT text.

    .. admonition:: Example

        >>> x = catena.Variable(numpy.ones((2, 3), numpy.float32), name='x')
        >>> y = F.tanh(x) * x
        >>> g = build_computational_graph([y])
        >>> text = g.dump()
    """
    if not remove_split:
        raise ValueError('remove_split=False is not supported: catena graphs have no split '
                         'nodes; leave remove_split at True')
    if isinstance(outputs, (Variable, VariableNode, FunctionNode)):
        outputs = [outputs]
    # Nodes in order of first discovery (a dict keeps the dump deterministic),
    # edges as (head, tail) in the forward direction.
    nodes: dict[int, Node] = {}
    edges: dict[tuple[int, int], tuple[Node, Node]] = {}
    heap: list[tuple[int, int, Node]] = []
    counter = 0

    def push(node: Node) -> None:
        nonlocal counter
        heapq.heappush(heap, (-node.rank, counter, node))
        counter += 1

    def add_edge(head: Node, tail: Node) -> bool:
        key = (id(head), id(tail))
        if key in edges:
            return False
        edges[key] = (head, tail)
        nodes.setdefault(id(head), head)
        nodes.setdefault(id(tail), tail)
        return True

    for output in outputs:
        if isinstance(output, Variable):
            output = output.node
        elif not isinstance(output, (VariableNode, FunctionNode)):
            raise TypeError('outputs must hold Variables, VariableNodes or FunctionNodes; got '
                            f'{type(output).__module__}.{type(output).__qualname__}')
        if id(output) not in nodes:
            nodes[id(output)] = output
            push(output)

    while heap:
        node = heapq.heappop(heap)[2]
        if isinstance(node, VariableNode):
            creator = node.creator_node
            if creator is not None and add_edge(creator, node):
                push(creator)
        else:
            for x in node.inputs or ():
                if add_edge(x, node):
                    push(x)
    return ComputationalGraph(list(nodes.values()), list(edges.values()), variable_style,
                              function_style, rankdir, remove_variable, show_name)


__all__ = ['ComputationalGraph', 'DotNode', 'build_computational_graph']

import gc
import re

import numpy as np
import pytest

import catena
import catena.computational_graph as c
from catena import FunctionNode, Variable


class Twice(FunctionNode):
    """y = 2x: one input, one output."""

    def forward(self, inputs):
        x, = inputs
        # A NumPy scalar of x's dtype: NumPy 1.x would promote a 0-d float32 times
        # a Python int to float64.
        return np.asarray(x * x.dtype.type(2)),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


class Plus(FunctionNode):
    """y = a + b: a function with two inputs."""

    @property
    def label(self):
        return 'a + b'

    def forward(self, inputs):
        return inputs[0] + inputs[1],

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0], grad_outputs[0]


def f32(*shape):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


@pytest.fixture
def graph_parts():
    """x -> Twice -> h; (h, w) -> Plus -> y."""
    x = Variable(f32(2, 3), name='x')
    w = Variable(f32(2, 3), name='w')
    twice = Twice()
    h, = twice.apply((x,))
    plus = Plus()
    y, = plus.apply((h, w))
    y.name = 'y'
    return {'x': x, 'w': w, 'h': h, 'y': y, 'twice': twice, 'plus': plus}


def statements(dot):
    """The node statements {id: {attr: value}} and the edges [(head, tail)] of DOT text."""
    nodes = {}
    for node_id, body in re.findall(r'^\s*(\d+) \[(.*)\];$', dot, re.M):
        nodes[int(node_id)] = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', body))
    edges = [(int(a), int(b)) for a, b in re.findall(r'^\s*(\d+) -> (\d+);$', dot, re.M)]
    return nodes, edges


class TestBuild:

    def test_nodes_and_edges(self, graph_parts):
        p = graph_parts
        g = c.build_computational_graph([p['y']])
        x, w, h, y = (p[k].node for k in 'xwhy')
        twice, plus = p['twice'], p['plus']
        assert {id(n) for n in g.nodes} == {id(n) for n in (x, w, h, y, twice, plus)}
        assert len(g.nodes) == 6
        assert {(id(a), id(b)) for a, b in g.edges} == {
            (id(x), id(twice)), (id(twice), id(h)), (id(h), id(plus)), (id(w), id(plus)),
            (id(plus), id(y))}
        assert len(g.edges) == 5

    def test_dot_structure(self, graph_parts):
        p = graph_parts
        dot = c.build_computational_graph([p['y']]).dump()
        assert dot.startswith('digraph graphname {')
        assert dot.rstrip().endswith('}')
        assert 'rankdir=TB;' in dot
        nodes, edges = statements(dot)
        plus_id, twice_id = id(p['plus']), id(p['twice'])
        # The function with two inputs has two incoming edges and one outgoing one.
        assert sorted(head for head, tail in edges if tail == plus_id) == sorted(
            [id(p['h'].node), id(p['w'].node)])
        assert [tail for head, tail in edges if head == plus_id] == [id(p['y'].node)]
        assert (id(p['x'].node), twice_id) in edges
        # Labels: function label; variable name + shape and dtype (VariableNode.label).
        assert nodes[plus_id]['label'] == 'a + b'
        assert nodes[twice_id]['label'] == 'Twice'
        assert nodes[id(p['x'].node)]['label'] == 'x: (2, 3), float32'
        assert nodes[id(p['h'].node)]['label'] == '(2, 3), float32'
        assert nodes[id(p['y'].node)]['label'] == 'y: (2, 3), float32'

    def test_default_styles(self, graph_parts):
        p = graph_parts
        nodes, _ = statements(c.build_computational_graph([p['y']]).dump())
        variable = nodes[id(p['x'].node)]
        function = nodes[id(p['plus'])]
        assert (variable['shape'], variable['fillcolor'], variable['style']) == (
            'octagon', '#E0E0E0', 'filled')
        assert (function['shape'], function['fillcolor'], function['style']) == (
            'record', '#6495ED', 'filled')

    def test_plain_styles_are_ovals_and_boxes(self, graph_parts):
        p = graph_parts
        g = c.build_computational_graph([p['y']], variable_style=None, function_style=None)
        nodes, _ = statements(g.dump())
        assert nodes[id(p['x'].node)] == {'label': 'x: (2, 3), float32', 'shape': 'oval'}
        assert nodes[id(p['twice'])] == {'label': 'Twice', 'shape': 'box'}

    def test_custom_styles(self, graph_parts):
        p = graph_parts
        g = c.build_computational_graph(
            [p['y']], variable_style={'color': 'red', 'shape': 'circle'},
            function_style=lambda node: {'color': 'blue' if node.label == 'Twice' else 'green'})
        nodes, _ = statements(g.dump())
        assert nodes[id(p['x'].node)]['color'] == 'red'
        assert nodes[id(p['x'].node)]['shape'] == 'circle'
        assert nodes[id(p['twice'])]['color'] == 'blue'
        assert nodes[id(p['plus'])]['color'] == 'green'
        with pytest.raises(ValueError, match='style'):
            c.build_computational_graph([p['y']], variable_style='fancy').dump()

    def test_rankdir(self, graph_parts):
        for rankdir in ('TB', 'BT', 'LR', 'RL'):
            dot = c.build_computational_graph([graph_parts['y']], rankdir=rankdir).dump()
            assert f'rankdir={rankdir};' in dot
        with pytest.raises(ValueError, match='rankdir'):
            c.build_computational_graph([graph_parts['y']], rankdir='XY')

    def test_show_name(self, graph_parts):
        p = graph_parts
        nodes, _ = statements(c.build_computational_graph([p['y']], show_name=False).dump())
        assert nodes[id(p['x'].node)]['label'] == '(2, 3), float32'
        assert nodes[id(p['y'].node)]['label'] == '(2, 3), float32'

    def test_remove_variable(self, graph_parts):
        p = graph_parts
        g = c.build_computational_graph([p['y']], remove_variable=True)
        assert [(a, b) for a, b in g.edges] == [(p['twice'], p['plus'])]
        nodes, edges = statements(g.dump())
        assert set(nodes) == {id(p['twice']), id(p['plus'])}
        assert edges == [(id(p['twice']), id(p['plus']))]

    def test_remove_split_false_is_rejected(self, graph_parts):
        with pytest.raises(ValueError, match='remove_split'):
            c.build_computational_graph([graph_parts['y']], remove_split=False)

    def test_unsupported_format(self, graph_parts):
        g = c.build_computational_graph([graph_parts['y']])
        with pytest.raises(NotImplementedError, match='dot'):
            g.dump('png')
        assert g.dump('dot') == g.dump()

    def test_dump_is_deterministic(self, graph_parts):
        g = c.build_computational_graph([graph_parts['y']])
        assert g.dump() == g.dump()
        assert c.build_computational_graph([graph_parts['y']]).dump() == g.dump()


class TestStartingPoints:

    def test_accepts_nodes_and_functions(self, graph_parts):
        p = graph_parts
        from_variable = c.build_computational_graph([p['y']])
        from_node = c.build_computational_graph([p['y'].node])
        assert from_node.dump() == from_variable.dump()
        from_function = c.build_computational_graph([p['plus']])
        assert {id(n) for n in from_function.nodes} == \
            {id(n) for n in from_variable.nodes} - {id(p['y'].node)}

    def test_several_outputs_share_nodes(self):
        x = Variable(f32(3), name='x')
        a, = Twice().apply((x,))
        b, = Twice().apply((x,))
        g = c.build_computational_graph([a, b])
        assert len(g.nodes) == 5  # x, two functions, two outputs
        assert len(g.edges) == 4
        assert sum(1 for n in g.nodes if n is x.node) == 1

    def test_leaf_output(self):
        x = Variable(f32(2), name='x')
        g = c.build_computational_graph([x])
        assert g.nodes == [x.node] and g.edges == []
        nodes, edges = statements(g.dump())
        assert nodes[id(x.node)]['label'] == 'x: (2), float32'
        assert edges == []

    def test_scalar_label(self):
        x = Variable(np.array(2.0, np.float32))
        y, = Twice().apply((x,))
        nodes, _ = statements(c.build_computational_graph([y]).dump())
        assert nodes[id(y.node)]['label'] == 'float32'

    def test_rejects_other_objects(self):
        with pytest.raises(TypeError, match='Variables'):
            c.build_computational_graph([np.ones(2)])

    def test_built_in_functions(self):
        x = Variable(f32(2, 2), name='x')
        y = catena.functions.tanh(x) * x
        nodes, edges = statements(c.build_computational_graph([y]).dump())
        labels = sorted(n['label'] for n in nodes.values())
        assert 'Tanh' in labels and '_ * _' in labels
        assert len(edges) == 5


def test_works_after_intermediate_variables_are_collected():
    x = Variable(f32(2, 3), name='x')
    y = x
    for _ in range(3):
        y, = Twice().apply((y,))
    gc.collect()  # the two intermediate Variables are gone; their nodes remain
    g = c.build_computational_graph([y])
    functions = [n for n in g.nodes if isinstance(n, FunctionNode)]
    assert len(functions) == 3
    assert len(g.nodes) == 7 and len(g.edges) == 6
    nodes, edges = statements(g.dump())
    assert len(nodes) == 7 and len(edges) == 6


def test_dot_node():
    x = Variable(f32(1, 2), name='x')
    node = c.DotNode(x.node, {'color': 'red'})
    assert node.id_ == id(x.node)
    assert node.attribute == {'label': 'x: (1, 2), float32', 'shape': 'oval', 'color': 'red'}
    assert node.label == f'{id(x.node)} [color="red",label="x: (1, 2), float32",shape="oval"];'
    assert 'x:' not in c.DotNode(x.node, show_name=False).label
    f = Twice()
    assert c.DotNode(f).attribute == {'label': 'Twice', 'shape': 'box'}
    with pytest.raises(TypeError):
        c.DotNode(x)


def test_labels_are_escaped():
    class Odd(Twice):
        @property
        def label(self):
            return 'say "hi" {a|b}'

    x = Variable(f32(2))
    y, = Odd().apply((x,))
    dot = c.build_computational_graph([y]).dump()
    assert r'label="say \"hi\" \{a\|b\}"' in dot  # record fields escaped for Graphviz
    dot = c.build_computational_graph([y], function_style=None).dump()
    assert r'label="say \"hi\" {a|b}"' in dot

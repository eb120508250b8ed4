"""DumpGraph: a DOT file of the first iteration's graph; the report flag restored after it."""

from __future__ import annotations

import re

import numpy
import pytest

import catena
import catena.links as L
from catena import datasets, iterators, optimizers, serializers, training
from catena.training import extensions

_NODE = re.compile(r'^  (\d+) \[((?:\w+="(?:[^"\\]|\\.)*",?)+)\];$')
_EDGE = re.compile(r'^  (\d+) -> (\d+);$')
_ATTRIBUTE = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def _parse_dot(text):
    """Parses the DOT that catena writes: returns {id: attributes} and the edges."""
    lines = text.splitlines()
    assert lines[0] == 'digraph graphname {' and lines[-1] == '}'
    assert lines[1] == '  rankdir=TB;'
    nodes, edges = {}, []
    for line in lines[2:-1]:
        if match := _NODE.match(line):
            nodes[int(match[1])] = dict(_ATTRIBUTE.findall(match[2]))
        elif match := _EDGE.match(line):
            edges.append((int(match[1]), int(match[2])))
        else:
            raise AssertionError(f'not a DOT statement: {line!r}')
    assert all(head in nodes and tail in nodes for head, tail in edges)
    return nodes, edges


def _trainer(tmp_path, stop=(3, 'iteration')):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((12, 3)).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'out'))


def test_dumps_the_first_iterations_graph_and_restores_the_flag(tmp_path):
    trainer = _trainer(tmp_path)
    extension = extensions.DumpGraph('main/loss')
    trainer.extend(extension)
    losses = []
    trainer.extend(lambda tr: losses.append(tr.observation['main/loss']), name='keep',
                   priority=training.PRIORITY_WRITER)
    trainer.run()
    assert extension.name == 'dump_graph'

    nodes, edges = _parse_dot((tmp_path / 'out' / 'cg.dot').read_text())
    loss_node = id(losses[0].node)
    assert loss_node in nodes
    assert nodes[loss_node]['shape'] == 'octagon'
    assert 'float32' in nodes[loss_node]['label']
    creator = [head for head, tail in edges if tail == loss_node]
    assert len(creator) == 1
    assert 'SoftmaxCrossEntropy' in nodes[creator[0]]['label']
    assert nodes[creator[0]]['shape'] == 'record'
    labels = ' '.join(node['label'] for node in nodes.values())
    assert 'Linear' in labels
    # Only the first iteration kept its graph; the flag is as it was.
    assert [loss.creator is not None for loss in losses] == [True, False, False]
    assert catena.config.keep_graph_on_report is False
    assert 'keep_graph_on_report' not in catena.config.__dict__
    assert not list((tmp_path / 'out').glob('.*.tmp'))


def test_alias_out_name_and_styles(tmp_path):
    trainer = _trainer(tmp_path, (1, 'iteration'))
    trainer.extend(extensions.dump_graph('main/loss', out_name='graph.dot',
                                         variable_style={'shape': 'box', 'color': 'red'},
                                         function_style={'shape': 'ellipse'}))
    trainer.run()
    nodes, _ = _parse_dot((tmp_path / 'out' / 'graph.dot').read_text())
    shapes = {node['shape'] for node in nodes.values()}
    assert shapes == {'box', 'ellipse'}
    assert extensions.dump_graph is extensions.DumpGraph


def test_a_missing_root_raises_and_still_restores_the_flag(tmp_path):
    trainer = _trainer(tmp_path)
    trainer.extend(extensions.DumpGraph('main/nothing'))
    with pytest.raises(KeyError, match="nothing was reported as 'main/nothing'"):
        trainer.run(show_loop_exception_msg=False)
    assert catena.config.keep_graph_on_report is False
    assert not (tmp_path / 'out' / 'cg.dot').exists()


def test_a_root_that_is_not_a_variable_is_refused(tmp_path):
    trainer = _trainer(tmp_path)
    trainer.extend(lambda tr: tr.observation.update({'n': 1.0}), name='n',
                   priority=training.PRIORITY_WRITER)
    trainer.extend(extensions.DumpGraph('n'))
    with pytest.raises(TypeError, match="root 'n' must be a Variable, got float"):
        trainer.run(show_loop_exception_msg=False)
    assert catena.config.keep_graph_on_report is False


def test_a_locally_set_flag_is_kept(tmp_path):
    trainer = _trainer(tmp_path, (2, 'iteration'))
    trainer.extend(extensions.DumpGraph('main/loss'))
    with catena.using_config('keep_graph_on_report', True):
        trainer.run()
        assert catena.config.keep_graph_on_report is True


def test_save_and_load_the_state_with_chainers_keys(tmp_path):
    trainer = _trainer(tmp_path, (1, 'iteration'))
    extension = extensions.DumpGraph('main/loss')
    trainer.extend(extension)
    trainer.run()
    path = tmp_path / 'dump.npz'
    serializers.save_npz(str(path), extension)
    with numpy.load(path) as stored:
        assert sorted(stored.files) == ['_flag_called', '_original_flag']
        assert bool(stored['_flag_called']) is True
    resumed = extensions.DumpGraph('main/loss')
    serializers.load_npz(str(path), resumed)
    resumed.initialize(None)  # a resumed run must not turn the flag on again
    assert catena.config.keep_graph_on_report is False
    assert resumed.trigger(None) is False


def test_bad_arguments():
    with pytest.raises(TypeError, match='not both'):
        extensions.DumpGraph('main/loss', 'a.dot', out_name='b.dot')
    with pytest.raises(TypeError, match='root_name must be a str'):
        extensions.DumpGraph(None)


def test_renders_a_png_when_graphviz_is_on_the_path(tmp_path, monkeypatch):
    from catena.training.extensions import computational_graph

    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    fake_dot = bin_dir / 'dot'
    # Writes its arguments to the file after -o, as a stand-in for Graphviz.
    fake_dot.write_text('#!/bin/sh\nwhile [ "$1" != "-o" ]; do shift; done\necho png > "$2"\n')
    fake_dot.chmod(0o755)
    monkeypatch.setenv('PATH', str(bin_dir))
    assert computational_graph.is_graphviz_available()
    trainer = _trainer(tmp_path)
    trainer.extend(extensions.DumpGraph('main/loss', filename='graph.dot'))
    trainer.run()
    assert (tmp_path / 'out' / 'graph.dot').exists()
    assert (tmp_path / 'out' / 'graph.png').read_text() == 'png\n'

    monkeypatch.setenv('PATH', str(tmp_path / 'empty'))
    assert not computational_graph.is_graphviz_available()

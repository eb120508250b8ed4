import threading

import numpy as np
import pytest

from catena import Chain, Link, LinkHook, Parameter, Variable
from catena._link_hooks import get_link_hooks


class Recorder(LinkHook):
    name = 'Recorder'

    def __init__(self, log, name=None):
        if name is not None:
            self.name = name
        self.log = log

    def added(self, link):
        self.log.append((self.name, 'added', link))

    def deleted(self, link):
        self.log.append((self.name, 'deleted', link))

    def forward_preprocess(self, args):
        self.log.append((self.name, 'pre', args.link.name, args.forward_name, args.args,
                         args.kwargs))

    def forward_postprocess(self, args):
        self.log.append((self.name, 'post', args.link.name, args.out))


class Double(Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(np.ones(1, np.float32))

    def forward(self, x, scale=1):
        return x * 2 * scale


class Outer(Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.inner = Double()

    def forward(self, x):
        return self.inner(x) + 1


def test_local_hook_order_and_arguments():
    log = []
    link = Double()
    first, second = Recorder(log, 'first'), Recorder(log, 'second')
    assert link.add_hook(first) is link
    link.add_hook(second)
    assert list(link.local_link_hooks) == ['first', 'second']
    assert log == [('first', 'added', link), ('second', 'added', link)]
    log.clear()
    assert link(3, scale=2) == 12
    assert log == [('first', 'pre', None, 'forward', (3,), {'scale': 2}),
                   ('second', 'pre', None, 'forward', (3,), {'scale': 2}),
                   ('first', 'post', None, 12), ('second', 'post', None, 12)]
    log.clear()
    link.delete_hook('first')
    assert log == [('first', 'deleted', link)]
    log.clear()
    link(1)
    assert [entry[:2] for entry in log] == [('second', 'pre'), ('second', 'post')]


def test_add_hook_with_name_and_errors():
    log = []
    link = Double()
    hook = Recorder(log)
    link.add_hook(hook, name='custom')
    assert link.local_link_hooks['custom'] is hook
    with pytest.raises(KeyError, match='custom'):
        link.add_hook(Recorder(log), name='custom')
    with pytest.raises(KeyError, match='missing'):
        link.delete_hook('missing')
    with pytest.raises(TypeError, match='LinkHook'):
        link.add_hook(object())


def test_local_hook_applies_to_that_link_only():
    log = []
    outer = Outer()
    outer.inner.add_hook(Recorder(log))
    assert outer(1) == 3
    assert [entry[1:3] for entry in log[1:]] == [('pre', 'inner'), ('post', 'inner')]


def test_global_hook_applies_to_all_links_and_runs_before_local():
    log = []
    outer = Outer()
    outer.inner.add_hook(Recorder(log, 'local'))
    log.clear()
    hook = Recorder(log, 'global')
    with hook as entered:
        assert entered is hook
        assert get_link_hooks()['global'] is hook
        outer(Variable(np.ones(1, np.float32)))
    assert get_link_hooks() == {}
    events = [entry[:3] for entry in log]
    assert events == [
        ('global', 'added', None),
        ('global', 'pre', None),
        ('global', 'pre', 'inner'), ('local', 'pre', 'inner'),
        ('global', 'post', 'inner'), ('local', 'post', 'inner'),
        ('global', 'post', None),
        ('global', 'deleted', None)]
    log.clear()
    outer(1)
    assert [entry[:2] for entry in log] == [('local', 'pre'), ('local', 'post')]


def test_global_hook_name_clash_and_thread_locality():
    log = []
    with Recorder(log):
        with pytest.raises(KeyError, match='Recorder'):
            Recorder(log).__enter__()
        seen = []
        thread = threading.Thread(target=lambda: seen.append(dict(get_link_hooks())))
        thread.start()
        thread.join()
        assert seen == [{}]
    assert get_link_hooks() == {}


def test_base_hook_callbacks_do_nothing():
    link = Double()
    link.add_hook(LinkHook())
    assert link(2) == 4
    assert LinkHook.name == 'LinkHook'
    link.delete_hook('LinkHook')
    assert link.local_link_hooks == {}

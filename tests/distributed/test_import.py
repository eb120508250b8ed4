"""Importing catena.distributed stays cheap: no mpi4py until a communicator is created."""

import json
import re
import subprocess
import sys
import textwrap

import pytest

from catena.distributed import _mpi


def run_python(code):
    result = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_import_catena_distributed_does_not_import_mpi4py():
    loaded = run_python('''
        import json, sys
        import catena.distributed
        print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'mpi4py')))
    ''')
    assert loaded == []


def test_import_catena_does_not_import_catena_distributed():
    loaded = run_python('''
        import json, sys
        import catena
        print(json.dumps(sorted(m for m in sys.modules if m.startswith('catena.distributed'))))
    ''')
    assert loaded == []


def test_missing_mpi4py_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, 'mpi4py', None)  # makes `import mpi4py` fail
    with pytest.raises(ImportError, match=re.escape(_mpi.INSTALL_HINT)):
        _mpi.get_mpi.__wrapped__()

"""``RetainInputHook``: keeps alive the values functions take from outside the links' inputs."""

from __future__ import annotations

from typing import Any

import catena
from catena.function_hook import FunctionHook
from catena.link_hook import LinkHook


def _variables_in(value: Any, found: dict[int, Any]) -> None:
    if isinstance(value, catena.Variable):
        found[id(value.array)] = value
    elif isinstance(value, (list, tuple)):
        for item in value:
            _variables_in(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _variables_in(item, found)


class _InputWatcher(FunctionHook):
    name = 'catena_onnx_retain_inputs'

    def __init__(self, owner: RetainInputHook) -> None:
        self.owner = owner

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self.owner._function_called(in_data)


class RetainInputHook(LinkHook):
    """Keeps every value a function receives that is not an input of the link being run.

    A value computed inside a link's forward (a temporary Variable, an array
    turned into a Variable) may be freed once the forward returns; while the
    hook is active (``with RetainInputHook() as h:``) each such function input
    is kept in :attr:`retain_inputs` as a Variable holding its array.

    Attributes:
        retain_inputs: The retained Variables, in the order functions ran.
        link_inputs: The ids of the arrays of the Variables passed to the
            link that is running (cleared when a link's forward ends).
    """

    name = 'RetainInputHook'

    def __init__(self) -> None:
        self.link_inputs: set[int] = set()
        self.retain_inputs: list[Any] = []
        self._watcher = _InputWatcher(self)

    def forward_preprocess(self, args: Any) -> None:
        found: dict[int, Any] = {}
        _variables_in(args.args, found)
        _variables_in(args.kwargs, found)
        self.link_inputs.update(found)

    def forward_postprocess(self, args: Any) -> None:
        self.link_inputs.clear()

    def _function_called(self, in_data: tuple[Any, ...]) -> None:
        for array in in_data:
            if id(array) not in self.link_inputs:
                self.retain_inputs.append(catena.Variable(array, requires_grad=False))

    def __enter__(self) -> RetainInputHook:
        super().__enter__()
        self._watcher.__enter__()
        return self

    def __exit__(self, *exc_details: Any) -> None:
        self._watcher.__exit__(*exc_details)
        super().__exit__(*exc_details)

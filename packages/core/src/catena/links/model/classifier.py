"""The :class:`Classifier` link."""

from __future__ import annotations

from typing import Any

from catena.functions.evaluation.accuracy import accuracy
from catena.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from catena.link import Chain
from catena.utils import _validate

# catena.reporter belongs to another part of the project and may not exist
# yet; until it does the Classifier only keeps ``loss`` and ``accuracy`` as
# attributes (which it does in any case).
try:
    import catena.reporter as _reporter  # type: ignore[import-not-found, unused-ignore]
except ModuleNotFoundError as error:  # pragma: no cover - depends on the checkout
    if error.name != 'catena.reporter':
        raise
    _reporter = None  # type: ignore[assignment, unused-ignore]


def _report(values: dict[str, Any], observer: Any) -> None:
    if _reporter is not None:
        _reporter.report(values, observer)


class Classifier(Chain):
    """A chain that computes a classification loss (and accuracy) of a predictor.

    Calling the link with ``(*args, t)`` (the label at ``label_key``) runs
    ``y = predictor(*args)``, then ``loss = lossfun(y, t)`` and, when
    :attr:`compute_accuracy` is true, ``accuracy = accfun(y, t)``. Both are
    reported under the names ``'loss'`` and ``'accuracy'`` through
    ``catena.reporter.report`` when that module exists, and kept as
    attributes. The call returns the loss.

    Args:
        predictor: The link (or callable) that predicts from the inputs.
        lossfun: The loss function, ``lossfun(y, t)``.
        accfun: The accuracy function, ``accfun(y, t)``.
        label_key: Where the label is among the arguments: an int (a
            position among the positional arguments; -1 the last) or a str
            (a keyword argument's name).

    Attributes:
        predictor: The predictor link (a child of this chain).
        lossfun: The loss function.
        accfun: The accuracy function.
        y: The prediction of the last call.
        loss: The loss of the last call.
        accuracy: The accuracy of the last call (None when not computed).
        compute_accuracy: Whether calls compute the accuracy.
        label_key: The position or name of the label argument.
    """

    compute_accuracy = True

    def __init__(self, predictor: Any, lossfun: Any = softmax_cross_entropy,
                 accfun: Any = accuracy, label_key: int | str = -1) -> None:
        if isinstance(label_key, bool) or not isinstance(label_key, (int, str)):
            raise TypeError('Classifier: label_key must be int or str; got '
                            f'{_validate.show(label_key)}')
        _validate.function('Classifier', 'predictor', predictor)
        _validate.function('Classifier', 'lossfun', lossfun)
        _validate.function('Classifier', 'accfun', accfun, optional=True)
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        self.y: Any = None
        self.loss: Any = None
        self.accuracy: Any = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Predicts from the inputs and returns the loss against the label.

        Args:
            args: The predictor's positional inputs, with the label at
                ``label_key`` when it is an int.
            kwargs: The predictor's keyword inputs, with the label under
                ``label_key`` when it is a str.

        Returns:
            Variable: The loss.
        """
        key = self.label_key
        if isinstance(key, int):
            if not -len(args) <= key < len(args):
                raise ValueError(f'Label key {key} is out of bounds for {len(args)} positional '
                                 'arguments')
            t = args[key]
            index = key % len(args)
            args = args[:index] + args[index + 1:]
        else:
            if key not in kwargs:
                raise ValueError(f'Label key {key!r} is not among the keyword arguments '
                                 f'{sorted(kwargs)}')
            kwargs = dict(kwargs)
            t = kwargs.pop(key)
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        _report({'loss': self.loss}, self)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
            _report({'accuracy': self.accuracy}, self)
        return self.loss

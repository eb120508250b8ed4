"""``classification_summary``: per-class precision, recall, F-beta score and support.

``precision``, ``recall``, ``fbeta_score`` and ``f1_score`` pick from it.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.evaluation import _labels
from catena.variable import Variable, as_array


class ClassificationSummary(FunctionNode):
    """Per-class precision, recall, F-beta score and support (not differentiable)."""

    def __init__(self, label_num: int | None, beta: float, ignore_label: int) -> None:
        if label_num is not None and (not isinstance(label_num, numbers.Integral)
                                      or isinstance(label_num, bool) or label_num < 0):
            raise ValueError(f'classification_summary: label_num must be None or a '
                             f'non-negative int; got {label_num!r}')
        if not isinstance(beta, numbers.Real) or isinstance(beta, bool):
            raise TypeError(f'classification_summary: beta must be a real number; got {beta!r}')
        if not isinstance(ignore_label, numbers.Integral) or isinstance(ignore_label, bool):
            raise TypeError(f'classification_summary: ignore_label must be an int; '
                            f'got {ignore_label!r}')
        self.label_num: int | None = None if label_num is None else int(label_num)
        self.beta: float = float(beta)
        self.ignore_label: int = int(ignore_label)

    def check_type_forward(self, in_types: Any) -> None:
        _labels.check_scores_and_labels(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        ignored = (t == self.ignore_label).ravel()
        label_num = self.label_num
        if label_num is None:
            valid = t.ravel()[~ignored]
            label_num = int(valid.max()) + 1 if valid.size else 0
            what = 'label_num is None: the largest label plus one'
        else:
            what = f'label_num is {label_num}'
        _labels.check_label_range('classification_summary', t, label_num, self.ignore_label,
                                  what)
        # Ignored samples go to the extra bin label_num; predictions of classes
        # beyond label_num land past it. Both are cut off below.
        extra = xp.asarray(label_num, dtype=numpy.intp)
        pred = xp.where(ignored, extra, y.argmax(axis=1).ravel())
        true = xp.where(ignored, extra, t.ravel().astype(numpy.intp))
        hit = xp.where(pred == true, true, extra)
        support = xp.bincount(true, minlength=label_num + 1)[:label_num]
        predicted = xp.bincount(pred, minlength=label_num + 1)[:label_num]
        true_positive = xp.bincount(hit, minlength=label_num + 1)[:label_num]
        # The counts are per class (few): the ratios are taken in float64.
        tp = true_positive.astype(numpy.float64)
        beta2 = self.beta * self.beta
        # Classes never predicted (or never present) give 0 / 0 = NaN, as intended.
        with numpy.errstate(divide='ignore', invalid='ignore'):
            precision = tp / predicted
            recall = tp / support
            fbeta = (1 + beta2) * precision * recall / (beta2 * precision + recall)
        return (precision.astype(y.dtype, copy=False), recall.astype(y.dtype, copy=False),
                fbeta.astype(y.dtype, copy=False), support)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return (None,) * len(indexes)


def classification_summary(y: Any, t: Any, label_num: int | None = None, beta: float = 1.0,
                           ignore_label: int = -1) -> tuple[Variable, ...]:
    """Per-class precision, recall, F-beta score and support of a classification.

    The prediction for each sample is the class of the highest score along
    axis 1 of ``y``. For each class :math:`c`, with :math:`TP_c` the samples
    of label :math:`c` predicted :math:`c`:

    - precision :math:`P_c = TP_c / |\\{\\text{predicted } c\\}|`,
    - recall :math:`R_c = TP_c / |\\{\\text{labelled } c\\}|`,
    - F-beta score :math:`(1 + \\beta^2) P_c R_c / (\\beta^2 P_c + R_c)`,
    - support: the number of samples labelled :math:`c`.

    A ratio whose denominator is 0 is NaN. Samples labelled
    ``ignore_label`` are left out. The results take no gradient.

    Args:
        y: A Variable or array of floating point type, shape ``(N, C)`` or
            ``(N, C, d_1, ..., d_k)``: the class scores.
        t: An array of integer type, shape ``(N,)`` or ``(N, d_1, ...,
            d_k)``: the labels.
        label_num: The number of classes; None takes the largest label
            plus one. Predicted classes from ``label_num`` on are dropped.
        beta: The weight :math:`\\beta` of recall in the F-beta score.
        ignore_label: A label value to leave out.

    Returns:
        tuple: ``(precision, recall, fbeta_score, support)``, each of shape
        ``(label_num,)``; the first three of the dtype of ``y``, the support
        of integer type.

    Raises:
        ValueError: A label is negative or at least ``label_num`` (and is not
            ``ignore_label``).

    .. admonition:: Example

        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], dtype=np.float32)
        >>> precision, recall, f1, support = F.classification_summary(
        ...     y, np.array([0, 1, 1], dtype=np.int32))
        >>> precision.array, recall.array, support.array
        (array([0.5, 1. ], dtype=float32), array([1. , 0.5], dtype=float32), array([1, 2]))
    """
    return ClassificationSummary(label_num, beta, ignore_label).apply(
        (as_array(y), as_array(t)))


def precision(y: Any, t: Any, label_num: int | None = None,
              ignore_label: int = -1) -> tuple[Variable, Variable]:
    """Per-class precision: the fraction of the predictions of each class that are right.

    See :func:`classification_summary` for the arguments.

    Returns:
        tuple: ``(precision, support)``.
    """
    summary = classification_summary(y, t, label_num, 1.0, ignore_label)
    return summary[0], summary[3]


def recall(y: Any, t: Any, label_num: int | None = None,
           ignore_label: int = -1) -> tuple[Variable, Variable]:
    """Per-class recall: the fraction of the samples of each class predicted as it.

    See :func:`classification_summary` for the arguments.

    Returns:
        tuple: ``(recall, support)``.
    """
    summary = classification_summary(y, t, label_num, 1.0, ignore_label)
    return summary[1], summary[3]


def fbeta_score(y: Any, t: Any, label_num: int | None = None, beta: float = 1.0,
                ignore_label: int = -1) -> tuple[Variable, Variable]:
    """Per-class F-beta score, the weighted harmonic mean of precision and recall.

    See :func:`classification_summary` for the arguments.

    Returns:
        tuple: ``(fbeta_score, support)``.
    """
    summary = classification_summary(y, t, label_num, beta, ignore_label)
    return summary[2], summary[3]


def f1_score(y: Any, t: Any, label_num: int | None = None,
             ignore_label: int = -1) -> tuple[Variable, Variable]:
    """Per-class F1 score, the harmonic mean of precision and recall.

    See :func:`classification_summary` for the arguments.

    Returns:
        tuple: ``(f1_score, support)``.
    """
    summary = classification_summary(y, t, label_num, 1.0, ignore_label)
    return summary[2], summary[3]

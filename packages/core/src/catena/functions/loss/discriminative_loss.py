"""``discriminative_margin_based_clustering_loss`` (De Brabandere et al., 2017).

Pixel embeddings of one instance are pulled towards their mean (variance
term), the means of different instances are pushed apart (distance term),
and the means are kept small (regularization term).
"""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.functions.activation.relu import relu
from catena.functions.array.expand_dims import expand_dims
from catena.functions.array.get_item import get_item
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.loss import _structured
from catena.functions.math.basic_math import absolute
from catena.functions.math.matmul import matmul
from catena.functions.math.sqrt import sqrt
from catena.functions.math.sum import sum as _sum
from catena.variable import Variable

_NAME = 'discriminative_margin_based_clustering_loss'


class DiscriminativeMarginBasedClusteringLoss:
    """The discriminative margin-based clustering loss as a callable object.

    Calling it with ``(embeddings, labels)`` returns the three weighted
    terms; see :func:`discriminative_margin_based_clustering_loss`.
    """

    def __init__(self, delta_v: float = 0.5, delta_d: float = 1.5,
                 max_embedding_dim: int = 10, norm: int = 1, alpha: float = 1.0,
                 beta: float = 1.0, gamma: float = 0.001) -> None:
        if (isinstance(max_embedding_dim, bool)
                or not isinstance(max_embedding_dim, (int, numpy.integer))
                or max_embedding_dim <= 0):
            raise ValueError(f'{_NAME}: max_embedding_dim must be a positive int; '
                             f'got {max_embedding_dim!r}')
        if norm not in (1, 2):
            raise ValueError(f'{_NAME}: norm must be 1 or 2; got {norm!r}')
        self.delta_v = delta_v
        self.delta_d = delta_d
        self.max_embedding_dim = int(max_embedding_dim)
        self.norm = norm
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma

    def _norm(self, x: Variable, axis: Any) -> Variable:
        if self.norm == 1:
            return _sum(absolute(x), axis=axis)
        squares = _sum(x * x, axis=axis)
        # sqrt has no derivative at 0 (masked-out pixels, absent instances):
        # there the norm is computed as sqrt(1) * 0, whose gradient is 0.
        zero = (squares.array == 0).astype(squares.dtype)
        return sqrt(squares + zero) * (1 - zero)

    def _check(self, embeddings: Any, labels: Any) -> None:
        emb = _structured.array_of(embeddings)
        lab = _structured.array_of(labels)
        if emb.ndim != 4 or emb.dtype.kind != 'f':
            raise _structured.fail(_NAME, 'embeddings is a floating point array of shape '
                                   '(N, max_embedding_dim, H, W)', embeddings=emb)
        if emb.shape[1] != self.max_embedding_dim:
            raise ValueError(f'{_NAME}: embeddings.shape[1] must equal max_embedding_dim='
                             f'{self.max_embedding_dim}; got embeddings.shape='
                             f'{tuple(emb.shape)}')
        if lab.dtype.kind not in 'iu' or lab.shape != emb.shape[:1] + emb.shape[2:]:
            raise _structured.fail(_NAME, 'labels is an integer array of shape (N, H, W) '
                                   '== (embeddings.shape[0],) + embeddings.shape[2:]',
                                   embeddings=emb, labels=lab)

    def __call__(self, embeddings: Any, labels: Any) -> tuple[Variable, Variable, Variable]:
        """Returns ``(alpha * variance, beta * distance, gamma * regularization)``."""
        self._check(embeddings, labels)
        labels = _structured.array_of(labels)
        xp = backend.get_array_module(labels)
        n_instance = self.max_embedding_dim
        batch, dim, height, width = embeddings.shape
        dtype = _structured.array_of(embeddings).dtype
        emb = reshape(embeddings, (batch, dim, height * width))

        # masks[c, n, p]: pixel p of image n belongs to instance c + 1 (0 is background).
        ids = xp.arange(1, n_instance + 1).reshape(n_instance, 1, 1)
        masks = (labels.reshape(1, batch, height * width) == ids).astype(dtype)
        counts = masks.sum(axis=2)
        # means[c, n]: the mean embedding of instance c + 1 in image n (0 if absent).
        sums = transpose(matmul(emb, masks.transpose(1, 2, 0)), (2, 0, 1))
        means = sums * (1 / xp.maximum(counts, 1))[:, :, None]

        l_reg = _sum(self._norm(means, (1, 2))) * (1.0 / (n_instance * batch))

        offsets = (expand_dims(means, 3) - expand_dims(emb, 0)) * masks[:, :, None, :]
        l_var = relu(self._norm(offsets, 2) - self.delta_v) ** 2
        l_var = _sum(l_var, axis=(1, 2)) * (1 / xp.maximum(counts.sum(axis=1), 1))
        l_var = _sum(l_var) * (1.0 / n_instance)

        first, second = numpy.triu_indices(n_instance, 1)
        if first.size:
            between = get_item(means, xp.asarray(first)) - get_item(means, xp.asarray(second))
            l_dist = relu(2 * self.delta_d - self._norm(between, 2)) ** 2
            l_dist = _sum(l_dist) * (1.0 / (first.size * batch))
        else:
            l_dist = Variable(xp.zeros((), dtype=dtype), requires_grad=False)
        return l_var * self.alpha, l_dist * self.beta, l_reg * self.gamma


def discriminative_margin_based_clustering_loss(
        embeddings: Any, labels: Any, delta_v: float, delta_d: float, max_embedding_dim: int,
        norm: int = 1, alpha: float = 1.0, beta: float = 1.0, gamma: float = 0.001
) -> tuple[Variable, Variable, Variable]:
    """Discriminative margin-based clustering loss for instance segmentation.

    From De Brabandere et al., *Semantic Instance Segmentation with a
    Discriminative Loss Function* (2017). ``labels`` numbers the instances
    of each image ``1 .. max_embedding_dim`` (0 is background). With the
    mean embedding :math:`\\mu_{cn}` of instance ``c`` in image ``n``
    (zero when the instance is absent) and the chosen norm
    :math:`\\|\\cdot\\|` (L1 or L2), the three terms are

    * variance (pull): :math:`\\frac{1}{C} \\sum_c \\frac{1}{|c|}
      \\sum_{i \\in c} [\\|\\mu_c - e_i\\| - \\delta_v]_+^2`, where :math:`|c|`
      counts the pixels of instance ``c`` over the batch;
    * distance (push): the mean over image ``n`` and pairs ``c < c'`` of
      :math:`[2 \\delta_d - \\|\\mu_{cn} - \\mu_{c'n}\\|]_+^2`;
    * regularization: :math:`\\frac{1}{C N} \\sum_c \\|\\mu_c\\|`, the
      norm taken over the images and dimensions of instance ``c`` together,

    with ``C = max_embedding_dim`` instances (also the embedding size).

    Args:
        embeddings: The pixel embeddings, a Variable or array of shape
            ``(N, max_embedding_dim, H, W)``.
        labels: The instance of each pixel, an integer array of shape
            ``(N, H, W)``.
        delta_v: The distance from the mean below which a pixel is not
            pulled.
        delta_d: Half the distance between means above which they are not
            pushed.
        max_embedding_dim: The embedding size, which is also the largest
            instance number.
        norm: 1 (L1) or 2 (L2).
        alpha: The weight of the variance term.
        beta: The weight of the distance term.
        gamma: The weight of the regularization term.

    Returns:
        tuple: ``(alpha * variance, beta * distance, gamma * regularization)``,
        three scalar Variables.

    Raises:
        ValueError: If ``norm`` is not 1 or 2, or ``max_embedding_dim`` is
            not positive or differs from ``embeddings.shape[1]``.
        InvalidType: If ``labels`` does not have the shape ``(N, H, W)`` of
            ``embeddings`` or an integer dtype.

    .. admonition:: Example

        >>> embeddings = np.zeros((1, 2, 1, 2), dtype=np.float32)
        >>> embeddings[0, :, 0, 1] = 1.0
        >>> labels = np.array([[[1, 2]]], dtype=np.int32)
        >>> l_var, l_dist, l_reg = F.discriminative_margin_based_clustering_loss(
        ...     embeddings, labels, 0.5, 1.5, 2)
        >>> [round(float(term.array), 4) for term in (l_var, l_dist, l_reg)]
        [0.0, 1.0, 0.001]
    """
    loss = DiscriminativeMarginBasedClusteringLoss(
        delta_v, delta_d, max_embedding_dim, norm, alpha, beta, gamma)
    return loss(embeddings, labels)

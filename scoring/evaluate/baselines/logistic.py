"""The shortcut baselines' classifier: multinomial logistic regression in numpy, fitted
by Newton's method, on features coded as their standardised values plus one-hot
quantile bins.

Why this classifier: a handful of surface features, a few thousand samples and four
labels need no library; scikit-learn (with SciPy, ~150 MB) would add nothing a reader
cannot check in the sixty lines below. Why the bins: a shortcut need not be monotone
(a partially supportive sample has *fewer* citations than a supportive one, an
irrelevant one often *more*), and a linear model over one-hot bins of each feature
learns any step-shaped dependence on it while staying convex.

Deterministic: no random initialisation (the weights start at zero, the loss is convex),
full-batch Newton steps with a backtracking line search, a fixed stopping rule; the
same features give the same weights, bit for bit, on one machine.

The loss is the class-weighted mean cross-entropy plus ``l2 / 2`` times the squared
weights (the bias only ``1e-6`` as much: enough to pin the softmax's free constant).
Classes are weighted inversely to their training frequency (scikit-learn's
``class_weight="balanced"``), so a rare label is not simply never predicted: the
baseline's macro-F1 is then a fair ceiling of what the features tell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["FeatureCoder", "SoftmaxRegression", "fit_coder", "fit_softmax"]

BINS = 5
"""Quantile bins per feature (fewer where the training values have fewer distinct ones)."""


@dataclass(frozen=True)
class FeatureCoder:
    """How raw features become the design matrix: each column standardised by the
    training mean and deviation, then one-hot indicators of its training-quantile bin."""

    means: np.ndarray
    scales: np.ndarray
    edges: tuple[np.ndarray, ...]
    """Per feature, the inner bin edges (bin ``i`` holds values in ``[e[i-1], e[i])``)."""

    def design(self, raw: np.ndarray) -> np.ndarray:
        """``[n, features]`` raw values → ``[n, columns]`` coded values."""
        raw = np.asarray(raw, dtype=np.float64)
        parts = [(raw - self.means) / self.scales]
        for j, edges in enumerate(self.edges):
            bins = np.searchsorted(edges, raw[:, j], side="right")
            parts.append(np.eye(len(edges) + 1)[bins])
        return np.hstack(parts)


def fit_coder(raw: np.ndarray, bins: int = BINS) -> FeatureCoder:
    """The coder of the training features ``raw`` ``[n, features]``: means, deviations
    (1 for a constant column) and up to ``bins`` quantile bins per feature."""
    raw = np.asarray(raw, dtype=np.float64)
    scales = raw.std(axis=0)
    scales[scales == 0] = 1.0
    quantiles = np.linspace(0, 1, bins + 1)[1:-1]
    edges = tuple(np.unique(np.quantile(raw[:, j], quantiles)) for j in range(raw.shape[1]))
    return FeatureCoder(raw.mean(axis=0), scales, edges)


@dataclass(frozen=True)
class SoftmaxRegression:
    """Fitted weights ``[columns + 1, classes]`` (the last row the bias) and the class
    names in column order."""

    weights: np.ndarray
    classes: tuple[str, ...]
    iterations: int
    loss: float

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        return _softmax(_with_bias(x) @ self.weights)

    def predict(self, x: np.ndarray) -> list[str]:
        """The most probable class of each row (ties: the first in :attr:`classes`)."""
        return [self.classes[int(i)] for i in self.probabilities(x).argmax(axis=1)]


def _with_bias(x: np.ndarray) -> np.ndarray:
    return np.hstack([x, np.ones((x.shape[0], 1))])


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out


def fit_softmax(x: np.ndarray, labels: Sequence[str], classes: Sequence[str], *,
                l2: float = 1e-2, max_iter: int = 100, tol: float = 1e-9
                ) -> SoftmaxRegression:
    """Fit the class-weighted, L2-regularised softmax regression of the module docstring
    on ``x`` ``[n, columns]`` and ``labels``. Only the ``classes`` that occur in
    ``labels`` (at least two must) are fitted and ever predicted, in ``classes``' order."""
    seen = set(labels)
    classes = [c for c in classes if c in seen]
    if len(classes) < 2 or len(seen) != len(classes):
        raise ValueError("the training labels need at least two classes, all of them in "
                         "`classes`")
    index = {c: k for k, c in enumerate(classes)}
    y = np.array([index[label] for label in labels])
    n, k = len(y), len(classes)
    counts = np.bincount(y, minlength=k)
    sample_weight = 1.0 / (k * counts[y])   # balanced: every class weighs 1/k in total
    xb = _with_bias(np.asarray(x, dtype=np.float64))
    d = xb.shape[1]
    onehot = np.eye(k)[y]
    penalty = np.full(d, l2)
    penalty[-1] = l2 * 1e-6

    def loss(w: np.ndarray) -> float:
        p = _softmax(xb @ w)
        return float(-(sample_weight * np.log(p[np.arange(n), y] + 1e-300)).sum()
                     + 0.5 * (penalty[:, None] * w * w).sum())

    w = np.zeros((d, k))
    current = loss(w)
    iterations = 0
    for iterations in range(1, max_iter + 1):   # noqa: B007 (reported below)
        p = _softmax(xb @ w)
        grad = xb.T @ (sample_weight[:, None] * (p - onehot)) + penalty[:, None] * w
        hessian = np.zeros((k * d, k * d))
        for a in range(k):
            for b in range(a, k):
                c = sample_weight * p[:, a] * ((a == b) - p[:, b])
                block = xb.T @ (xb * c[:, None])
                if a == b:
                    block += np.diag(penalty)
                hessian[a * d:(a + 1) * d, b * d:(b + 1) * d] = block
                hessian[b * d:(b + 1) * d, a * d:(a + 1) * d] = block.T
        step = np.linalg.solve(hessian + 1e-12 * np.eye(k * d), grad.T.reshape(-1))
        step = step.reshape(k, d).T
        scale = 1.0
        while scale > 1e-6:   # backtracking: a full Newton step may overshoot far from w*
            candidate = w - scale * step
            value = loss(candidate)
            if value <= current:
                break
            scale /= 2
        else:
            break
        w, previous, current = candidate, current, value
        if previous - current < tol:
            break
    return SoftmaxRegression(w, tuple(classes), iterations, current)

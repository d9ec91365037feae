"""Dawid & Skene (1979): one label per item from several annotators of unequal skill, by
EM over each annotator's confusion matrix and the class priors. Pure numpy, vectorised over
the observations.

Fixed settings (docs/meta-evaluation.md#panels): at most MAX_ITER EM rounds, stopping when
no item's class posterior moves by more than TOL; the posteriors start from the
annotators' vote shares, plus a seeded jitter of JITTER (so that runs with one seed are
identical); confusion counts are smoothed by SMOOTH. Each item's label is its most probable
class, ties to the lower class (the lower grade).
"""

from __future__ import annotations

import numpy as np

MAX_ITER = 100
TOL = 1e-6
JITTER = 1e-6
SMOOTH = 0.01


def dawid_skene(item: np.ndarray, annotator: np.ndarray, label: np.ndarray, n_items: int,
                n_annotators: int, n_classes: int, *, seed: int = 0) -> tuple[np.ndarray, int]:
    """(label per item, EM rounds run). `item`, `annotator`, `label`: one entry per
    observation, integer codes (label 0..n_classes-1, ascending with the grade). An item
    without observations gets class 0."""
    item = np.asarray(item, dtype=np.int64)
    annotator = np.asarray(annotator, dtype=np.int64)
    label = np.asarray(label, dtype=np.int64)
    k = n_classes
    votes = np.zeros((n_items, k))
    np.add.at(votes, (item, label), 1.0)
    rng = np.random.default_rng(seed)
    post = votes + JITTER * rng.random((n_items, k))
    post /= post.sum(axis=1, keepdims=True)
    pair = annotator * k + label  # (annotator, observed class)
    rounds = 0
    for rounds in range(1, MAX_ITER + 1):
        # M-step: priors and confusion[a, true, observed]
        prior = post.mean(axis=0) + 1e-12
        weights = post[item]  # observations x true class
        conf = np.stack([np.bincount(pair, weights=weights[:, c], minlength=n_annotators * k)
                         for c in range(k)], axis=1).reshape(n_annotators, k, k)  # a, observed, true
        conf = conf.transpose(0, 2, 1) + SMOOTH  # a, true, observed
        conf /= conf.sum(axis=2, keepdims=True)
        # E-step
        logc = np.log(conf[annotator, :, label])  # observations x true class
        loglik = np.stack([np.bincount(item, weights=logc[:, c], minlength=n_items) for c in range(k)], axis=1)
        loglik += np.log(prior)
        loglik -= loglik.max(axis=1, keepdims=True)
        new = np.exp(loglik)
        new /= new.sum(axis=1, keepdims=True)
        moved = float(np.abs(new - post).max()) if n_items else 0.0
        post = new
        if moved <= TOL:
            break
    return np.argmax(post, axis=1), rounds

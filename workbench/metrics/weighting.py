"""Inverse-probability weighting of a probability sample: the one owner of the weights that
`calibrate`'s weighted agreement and `score --ci ppi` use.

An item drawn with inclusion probability pi stands for 1 / pi items of the population
(Horvitz & Thompson 1952). Means are Hajek's ratio estimator, sum(w y) / sum(w) (Hajek
1971): it does not need the population size and is steadier than Horvitz-Thompson's
sum(w y) / N when the realised sample size varies. Its linearised variance under Poisson
sampling is sum((1 - pi) w^2 (y - mean)^2) / (sum w)^2 (Saerndal, Swensson & Wretman,
Model Assisted Survey Sampling, 1992, sec. 5.7).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["inverse_probability_weights", "hajek_mean"]


def inverse_probability_weights(probability) -> np.ndarray:
    """1 / pi for each sampled item (pi in (0, 1]); NaN where pi is not a probability."""
    p = np.asarray(probability, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((p > 0) & (p <= 1), 1.0 / p, np.nan)


def hajek_mean(y, probability) -> tuple[float, float]:
    """(Hajek's weighted mean of y, its linearised variance) over a probability sample."""
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(probability, dtype=np.float64)
    w = inverse_probability_weights(p)
    if y.size == 0 or not np.isfinite(w).all():
        return math.nan, math.nan
    total = w.sum()
    mean = float((w * y).sum() / total)
    var = float(((1.0 - p) * w * w * (y - mean) ** 2).sum() / total ** 2)
    return mean, var

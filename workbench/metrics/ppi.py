"""Prediction-powered inference for a mean (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic,
"Prediction-powered inference", Science 382, 2023; for IR metrics Oosterhuis et al.,
KDD 2024, arXiv 2407.02464), in numpy.

The target is the mean of the true labels y over a population of N items. A machine
labelled every item (yhat); people labelled a probability sample S of them (inclusion
probabilities pi). Then

    theta = mean_N(yhat) + mean_N(y - yhat)

the first term is known exactly (every item has a machine label), and the second, the
rectifier, is estimated from the sample by Hajek's weighted mean of y - yhat
(metrics/weighting.py). The interval is theta_hat +- z * sqrt(var_rectifier): the machine's
bias moves the estimate, not the coverage. With equal probabilities and the unlabelled
items treated as a sample from a larger population (the paper's setting), it is the
paper's classical PPI mean interval, theta_hat = mean(yhat_unlabelled) + mean(y - yhat) with
variance var(yhat_unlabelled) / N + var(y - yhat) / n (`ppi_mean_ci`; with ddof=0 it
equals ppi-python's `ppi_mean_ci`).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.noncentral_t import normal_isf
from workbench.metrics.weighting import hajek_mean

__all__ = ["ppi_mean_ci", "ppi_population_mean"]


def ppi_mean_ci(y, yhat, yhat_unlabelled, alpha: float = 0.05, ddof: int = 1
                ) -> tuple[float, float, float]:
    """(estimate, low, high): the classical PPI mean interval of Angelopoulos et al.
    (labelled y and yhat, n items; unlabelled yhat, N items; normal quantile). Variances
    with `ddof` (ppi-python divides by n: ddof=0)."""
    y, yhat = np.asarray(y, float), np.asarray(yhat, float)
    u = np.asarray(yhat_unlabelled, float)
    n, big_n = y.size, u.size
    if n < 2 or big_n < 2:
        return math.nan, math.nan, math.nan
    rect = y - yhat
    theta = float(u.mean() + rect.mean())
    se = math.sqrt(u.var(ddof=ddof) / big_n + rect.var(ddof=ddof) / n)
    z = normal_isf(alpha / 2)
    return theta, theta - z * se, theta + z * se


def ppi_population_mean(yhat_all, y_sample, yhat_sample, probability,
                        alpha: float = 0.05, in_frame: int | None = None,
                        population: int | None = None) -> tuple[float, float, float]:
    """(estimate, low, high) of the mean of y over the N items of `yhat_all`, from people's
    labels on a probability sample of them (inclusion probabilities `probability`).
    `in_frame`: how many of the N items the sample was drawn from (default all); the others
    have y = yhat known (no label either way), so the rectifier is scaled by in_frame / N.
    `population`: N when it is not len(yhat_all) (the target is then sum(y) / N: items
    outside `yhat_all` contribute 0)."""
    yhat_all = np.asarray(yhat_all, float)
    rect, var = hajek_mean(np.asarray(y_sample, float) - np.asarray(yhat_sample, float), probability)
    big_n = yhat_all.size if population is None else population
    if big_n == 0 or math.isnan(rect):
        return math.nan, math.nan, math.nan
    share = (yhat_all.size if in_frame is None else in_frame) / big_n
    theta = float(yhat_all.sum() / big_n + share * rect)
    half = normal_isf(alpha / 2) * share * math.sqrt(var)
    return theta, theta - half, theta + half

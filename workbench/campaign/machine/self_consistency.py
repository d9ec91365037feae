"""A machine's agreement with itself across the samples of `autojudge --samples N`:
Fleiss' kappa over the samples (each item rated by its N samples) and the share of items
whose samples are unanimous. Reported by `calibrate` and `list assessors`."""

from __future__ import annotations

import numpy as np

from workbench.metrics.agreement import fleiss_kappa_from_counts


def sample_agreement_of(qi: np.ndarray, di: np.ndarray, g: np.ndarray) -> dict | None:
    """{"samples", "items", "fleiss_kappa", "unanimous"} from the labelled sample calls (one
    row each); None when there are none. Items with fewer than two labelled samples are left
    out."""
    if qi.size == 0:
        return None
    keys = np.stack([qi, di], axis=1)
    _, item = np.unique(keys, axis=0, return_inverse=True)
    item = item.ravel()
    cats, code = np.unique(g, return_inverse=True)
    counts = np.zeros((int(item.max()) + 1, cats.size))
    np.add.at(counts, (item, code.ravel()), 1.0)
    n = counts.sum(axis=1)
    keep = n >= 2
    if not keep.any():
        return None
    counts = counts[keep]
    unanimous = float(np.mean(counts.max(axis=1) == counts.sum(axis=1)))
    return {"samples": int(n.max()), "items": int(keep.sum()),
            "fleiss_kappa": fleiss_kappa_from_counts(counts), "unanimous": unanimous}


def sample_agreement(session, assessor_id: int) -> dict | None:
    from workbench.store.machine import sample_grades

    return sample_agreement_of(*sample_grades(session, assessor_id))

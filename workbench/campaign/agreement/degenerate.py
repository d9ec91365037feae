"""What a degenerate agreement figure is, in words (a constant rater or ranking makes kappa
and tau 0/0, never a number to report): one owner for `agree` and
`calibrate`.

- Both raters constant (each gave one value only): Cohen's kappa is 0/0, undefined: the
  value is None (null in JSON) with the reason.
- One rater constant: kappa is 0 by construction (expected agreement equals observed), so the
  value stays, but its interval (of zero width, or from resamples that cannot differ) is no
  information: the interval is None and a warning names the rater.
- A ranking whose systems all score the same: a rank correlation with it is undefined.
"""

from __future__ import annotations

import numpy as np

from workbench.formats.numbers import number

__all__ = ["UNDEFINED", "BY_CONSTRUCTION", "constant_raters", "kappa_warning", "constant_ranking"]

UNDEFINED = "undefined"
BY_CONSTRUCTION = "by construction"


def _constant(values) -> bool:
    v = np.asarray(values)
    return v.size > 0 and bool((v == v.flat[0]).all())


def constant_raters(a, b) -> tuple[bool, bool]:
    """Whether each rater gave one value only (over the items both rated)."""
    return _constant(a), _constant(b)


def kappa_warning(a, b, name_a: str, name_b: str, coefficient: str) -> tuple[str | None, str]:
    """(kind, sentence): kind UNDEFINED, BY_CONSTRUCTION or None (nothing degenerate)."""
    ca, cb = constant_raters(a, b)
    if ca and cb:
        return UNDEFINED, (f"{coefficient} of {name_a} and {name_b} is undefined: both gave one "
                           f"value only ({np.asarray(a).flat[0]} and {np.asarray(b).flat[0]})")
    if ca or cb:
        who, values = (name_a, a) if ca else (name_b, b)
        return BY_CONSTRUCTION, (f"{coefficient} of {name_a} and {name_b} is 0 by construction: "
                                 f"{who} gave one value only ({np.asarray(values).flat[0]}); "
                                 f"its interval carries no information and is left out")
    return None, ""


def constant_ranking(means, label: str) -> str | None:
    """A sentence when every system scores the same under `label` (else None)."""
    m = np.asarray(means, dtype=np.float64)
    if m.size >= 2 and np.nanmax(m) - np.nanmin(m) <= 1e-12 * max(1.0, float(np.nanmax(np.abs(m)))):
        return (f"the ranking under {label} gives every system the same score "
                f"({number(m[0])}): a rank correlation with it is undefined")
    return None

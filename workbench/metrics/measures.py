"""Measures as hashable value objects, and the one registry that parses their names.

A ``Measure`` names what to compute (family + parameters); computing lives in
``workbench.metrics.kernels``. Two spellings parse to the same objects:

- trec_eval names, with trec_eval's parameter syntax and default parameters:
  ``map``, ``P`` (= P_5 … P_1000), ``P.5,10``, ``ndcg_cut.10``, ``iprec_at_recall``
  (the 11 levels), ``set_F.0.5``, ``success``, ``recall.100``, ``official``…;
- ir_measures-style names: ``AP``, ``nDCG@10``, ``P@5``, ``R@100``, ``RR``, ``Bpref``,
  ``P(rel=2)@5``, ``Judged@10``, ``IPrec@0.5``, ``SetF(beta=2)``, and the DCG family
  ``CG@k``, ``DCG@k``, ``IDCG@k``, ``nDCG(gain=exp,discount=jk,base=2)@k``.

``Measure.label`` is the name printed in output: trec_eval's (``P_5``,
``iprec_at_recall_0.10``, ``ndcg_cut_10``) whenever the measure is one of trec_eval's,
so ``workbench eval --format trec`` matches ``trec_eval -q -m`` line for line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from workbench.errors import UsageError

__all__ = [
    "Measure",
    "MeasureError",
    "parse_measure",
    "parse_measures",
    "TREC_FAMILIES",
    "COUNT_FAMILIES",
]


class MeasureError(UsageError, ValueError):
    """A measure name that cannot be parsed: a malformed command line (one line, exit 2)."""


# A cutoff is a rank; ranks are int32 everywhere downstream. Larger ones are refused
# rather than overflowing (a cutoff past every list's end is the same as the end anyway).
MAX_CUTOFF = 2**31 - 1


def _cutoff(value: int, name: str) -> int:
    if value > MAX_CUTOFF:
        raise MeasureError(f"{name}: cutoff {value} is too large (at most {MAX_CUTOFF})")
    return value


# trec_eval's print order (measures.c); families not in trec_eval come after.
TREC_FAMILIES = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
    "bpref", "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "11pt_avg", "dcg",
    "ideal_dcg", "ndcg", "ndcg_cut", "map_cut", "success", "set_P", "set_recall", "set_F",
)
EXTRA_FAMILIES = ("Judged", "F", "CG", "DCG", "IDCG", "nDCG")
COUNT_FAMILIES = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret"})

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_DEFAULT_CUTOFFS = {
    "P": _CUTOFFS, "recall": _CUTOFFS, "ndcg_cut": _CUTOFFS, "map_cut": _CUTOFFS,
    "success": (1, 5, 10),
}
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
             "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")


@dataclass(frozen=True, order=False)
class Measure:
    """One measure with its parameters (hashable; equal measures compute the same thing).

    family: internal family name (trec_eval's where there is one, see TREC_FAMILIES).
    cutoff: rank cutoff k (P@k, ndcg_cut.k, …) or None for the whole ranking.
    level: recall level for iprec_at_recall; levels: the levels 11pt_avg averages.
    rel: relevance threshold for this measure only (``P(rel=2)@5``); None = the
        evaluation's ``rel_level`` (trec_eval's ``-l``).
    beta: F-measure weight (F_beta); for trec_eval's ``set_F.x``, x = beta².
    gain, discount, base: DCG family (``linear``|``exp``; ``log2``|``jk``; base b of
        Järvelin–Kekäläinen).
    label: the printed name (not part of equality).
    """

    family: str
    cutoff: int | None = None
    level: float | None = None
    levels: tuple[float, ...] | None = None
    rel: int | None = None
    beta: float | None = None
    gain: str = "linear"
    discount: str = "log2"
    base: float = 2.0
    label: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.label or self.family

    @property
    def is_count(self) -> bool:
        """Printed as an integer and summed (not averaged) over queries."""
        return self.family in COUNT_FAMILIES

    @property
    def sort_key(self) -> tuple:
        """trec_eval's print order: family table order, then parameter ascending."""
        fams = TREC_FAMILIES + EXTRA_FAMILIES
        return (
            fams.index(self.family) if self.family in fams else len(fams),
            self.cutoff or 0,
            self.level or 0.0,
            self.rel if self.rel is not None else -1,
            self.label,
        )


# ----------------------------------------------------------------------------- labels


def _trec(family: str, **kw) -> Measure:
    m = Measure(family, **kw)
    return replace(m, label=_trec_label(m))


def _trec_label(m: Measure) -> str:
    f = m.family
    if f in ("P", "recall", "ndcg_cut", "map_cut", "success"):
        return f"{f}_{m.cutoff}"
    if f == "iprec_at_recall":
        return f"iprec_at_recall_{m.level:3.2f}"
    return f


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _ir_label(m: Measure) -> str:
    """ir_measures-style spelling for measures outside trec_eval."""
    names = {"Judged": "Judged", "F": "F", "CG": "CG", "DCG": "DCG", "IDCG": "IDCG",
             "nDCG": "nDCG", "P": "P", "recall": "R", "recip_rank": "RR", "map": "AP",
             "success": "Success", "Rprec": "Rprec", "bpref": "Bpref", "set_P": "SetP",
             "set_recall": "SetR", "set_F": "SetF", "map_cut": "AP", "ndcg_cut": "nDCG",
             "infAP": "infAP", "num_rel_ret": "NumRelRet", "iprec_at_recall": "IPrec"}
    params = []
    if m.rel is not None:
        params.append(f"rel={m.rel}")
    if m.beta is not None and m.family in ("F", "set_F"):
        params.append(f"beta={_fmt_num(m.beta)}")
    if m.family in ("CG", "DCG", "IDCG", "nDCG"):
        if m.gain != "linear":
            params.append(f"gain={m.gain}")
        if m.discount != "log2":
            params.append(f"discount={m.discount}")
        if m.base != 2.0:
            params.append(f"base={_fmt_num(m.base)}")
    s = names.get(m.family, m.family)
    if params:
        s += "(" + ",".join(params) + ")"
    if m.cutoff is not None:
        s += f"@{m.cutoff}"
    elif m.level is not None:
        s += f"@{_fmt_num(m.level)}"
    return s


# ----------------------------------------------------------------------------- trec names


def _int_list(text: str, name: str) -> tuple[int, ...]:
    try:
        vals = sorted(int(v) for v in text.split(","))
    except ValueError:
        raise MeasureError(f"{name}: cutoffs must be integers, got {text!r}") from None
    if vals[0] <= 0:
        raise MeasureError(f"{name}: cutoffs must be positive, got {text!r}")
    if len(set(vals)) != len(vals):
        raise MeasureError(f"{name}: duplicate cutoffs in {text!r}")
    return tuple(_cutoff(v, name) for v in vals)


def _float_list(text: str, name: str) -> tuple[float, ...]:
    try:
        vals = sorted(float(v) for v in text.split(","))
    except ValueError:
        raise MeasureError(f"{name}: parameters must be numbers, got {text!r}") from None
    if len(set(vals)) != len(vals):
        raise MeasureError(f"{name}: duplicate parameters in {text!r}")
    return tuple(vals)


def _parse_trec(name: str) -> list[Measure] | None:
    base, dot, params = name.partition(".")
    if base not in TREC_FAMILIES and base != "official":
        return None
    if base == "official":
        return [m for b in _OFFICIAL for m in _parse_trec(b)]
    if dot and not params:
        raise MeasureError(f"{name}: empty parameter after '.'")
    if base in _DEFAULT_CUTOFFS:
        cuts = _int_list(params, base) if dot else _DEFAULT_CUTOFFS[base]
        return [_trec(base, cutoff=k) for k in cuts]
    if base == "iprec_at_recall":
        levels = _float_list(params, base) if dot else _LEVELS
        return [_trec(base, level=p) for p in levels]
    if base == "11pt_avg":
        if not dot:
            return [_trec(base, levels=_LEVELS)]
        levels = _float_list(params, base)
        return [replace(Measure(base, levels=levels), label=f"11pt_avg_{params}")]
    if base == "set_F":
        if not dot:
            return [_trec(base, beta=1.0)]
        x = _float_list(params, base)
        if len(x) != 1 or x[0] < 0:
            raise MeasureError(f"{name}: set_F takes one non-negative parameter")
        return [replace(Measure(base, beta=math.sqrt(x[0])), label=f"set_F_{params}")]
    if dot:
        raise MeasureError(f"{name}: {base} takes no parameters")
    return [_trec(base)]


# ----------------------------------------------------------------------------- ir_measures

_IR_RE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9_\-]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cut>[0-9.]+))?$"
)

# ir_measures-style name -> (family, needs/allows cutoff)
_IR_NAMES = {
    "ap": "map", "map": "map", "gmap": "gm_map", "ndcg": "ndcg", "p": "P", "r": "recall",
    "recall": "recall", "rr": "recip_rank", "mrr": "recip_rank", "bpref": "bpref",
    "rprec": "Rprec", "r-prec": "Rprec", "success": "success", "numret": "num_ret",
    "numrel": "num_rel", "numrelret": "num_rel_ret", "numq": "num_q", "setp": "set_P",
    "setr": "set_recall", "setf": "set_F", "infap": "infAP", "iprec": "iprec_at_recall",
    "judged": "Judged", "f": "F", "cg": "CG", "dcg": "DCG", "idcg": "IDCG",
}


def _parse_params(text: str | None, name: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if not text:
        return out
    for part in text.split(","):
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise MeasureError(f"{name}: parameters are key=value, got {part!r}")
        out[key.strip().lower()] = value.strip()
    return out


def _parse_ir(name: str) -> list[Measure] | None:
    m = _IR_RE.match(name)
    if not m:
        return None
    key = m.group("name").lower()
    if key not in _IR_NAMES:
        return None
    family = _IR_NAMES[key]
    params = _parse_params(m.group("params"), name)
    cut_text = m.group("cut")
    kw: dict = {}
    if "rel" in params:
        try:
            kw["rel"] = int(params.pop("rel"))
        except ValueError:
            raise MeasureError(f"{name}: rel must be an integer") from None
    if "beta" in params:
        try:
            kw["beta"] = float(params.pop("beta"))
        except ValueError:
            raise MeasureError(f"{name}: beta must be a number") from None
        if kw["beta"] < 0:
            raise MeasureError(f"{name}: beta must be non-negative")
    graded = family in ("ndcg", "CG", "DCG", "IDCG")
    if graded:
        gain = params.pop("gain", "linear").lower()
        dcg = params.pop("dcg", None)  # ir_measures: dcg=log2 | exp-log2
        if dcg is not None:
            if dcg not in ("log2", "exp-log2"):
                raise MeasureError(f"{name}: dcg must be log2 or exp-log2")
            gain = "exp" if dcg == "exp-log2" else "linear"
        gain = {"exponential": "exp", "lin": "linear"}.get(gain, gain)
        if gain not in ("linear", "exp"):
            raise MeasureError(f"{name}: gain must be linear or exponential")
        discount = params.pop("discount", "log2").lower()
        discount = {"jarvelin": "jk", "jarvelin-kekalainen": "jk", "j-k": "jk"}.get(discount, discount)
        if discount not in ("log2", "jk"):
            raise MeasureError(f"{name}: discount must be log2 or jk")
        try:
            base = float(params.pop("base", "2"))
        except ValueError:
            raise MeasureError(f"{name}: base must be a number") from None
        if base <= 1:
            raise MeasureError(f"{name}: base must be greater than 1")
        kw.update(gain=gain, discount=discount, base=base)
    if params:
        raise MeasureError(f"{name}: unknown parameter(s) {', '.join(sorted(params))}")
    if family == "iprec_at_recall":
        if cut_text is None:
            return [_finish(Measure(family, level=p, **kw)) for p in _LEVELS]
        try:
            return [_finish(Measure(family, level=float(cut_text), **kw))]
        except ValueError:
            raise MeasureError(f"{name}: recall level must be a number") from None
    cutoff = None
    if cut_text is not None:
        if not cut_text.isdigit() or int(cut_text) <= 0:
            raise MeasureError(f"{name}: cutoff must be a positive integer")
        cutoff = _cutoff(int(cut_text), name)
    if family == "ndcg":
        if kw.get("gain", "linear") == "linear" and kw.get("discount", "log2") == "log2" and kw.get("base", 2.0) == 2.0:
            kw = {k: v for k, v in kw.items() if k not in ("gain", "discount", "base")}
            family = "ndcg_cut" if cutoff is not None else "ndcg"
        else:
            family = "nDCG"
    elif family == "map" and cutoff is not None:
        family = "map_cut"
    elif family in ("P", "success") and cutoff is None:
        raise MeasureError(f"{name}: needs a cutoff, e.g. {m.group('name')}@10")
    elif family == "recall" and cutoff is None:
        family = "set_recall"
    elif family in ("set_F",) and "beta" not in kw:
        kw["beta"] = 1.0
    elif family == "F" and "beta" not in kw:
        kw["beta"] = 1.0
    if family == "F" and cutoff is None:
        family = "set_F"
    if cutoff is not None and family not in (
        "P", "recall", "ndcg_cut", "map_cut", "success", "recip_rank", "Judged", "F",
        "CG", "DCG", "IDCG", "nDCG",
    ):
        raise MeasureError(f"{name}: {m.group('name')} takes no cutoff")
    if kw.get("rel") is not None and family in ("ndcg", "ndcg_cut", "nDCG", "CG", "DCG", "IDCG", "dcg", "ideal_dcg"):
        raise MeasureError(f"{name}: rel= does not apply to graded measures")
    return [_finish(Measure(family, cutoff=cutoff, **kw))]


def _finish(m: Measure) -> Measure:
    """Give a measure its printed name: trec_eval's when trec_eval computes the same thing."""
    trec_like = (
        m.family in TREC_FAMILIES
        and m.rel is None
        and not (m.family == "recip_rank" and m.cutoff is not None)
        and not (m.family == "set_F" and m.beta not in (None, 1.0))
    )
    return replace(m, label=_trec_label(m) if trec_like else _ir_label(m))


# ----------------------------------------------------------------------------- public


def parse_measures(names) -> tuple[Measure, ...]:
    """Parse names (strings; each may expand, e.g. ``P`` or ``official``) into measures.

    Duplicates are dropped (first spelling wins); the order is trec_eval's print order.
    Raises MeasureError for an unknown or malformed name.
    """
    if isinstance(names, str):
        names = [names]
    seen: dict[Measure, Measure] = {}
    for raw in names:
        for name in (n.strip() for n in str(raw).split() if n.strip()):
            found = _parse_trec(name)
            if found is None:
                found = _parse_ir(name)
            if found is None:
                raise MeasureError(f"unknown measure {name!r}")
            for m in found:
                seen.setdefault(m, m)
    return tuple(sorted(seen.values(), key=lambda m: m.sort_key))


def parse_measure(name: str) -> Measure:
    """Parse one name that denotes exactly one measure (``nDCG@10``, ``map``, ``P.5``)."""
    ms = parse_measures([name])
    if len(ms) != 1:
        raise MeasureError(f"{name!r} names {len(ms)} measures; give one (e.g. P.10)")
    return ms[0]

"""Measures as hashable value objects, and the parser of their names (reading the registry).

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

import difflib
import math
import re
from dataclasses import dataclass, field, replace

from workbench.errors import UsageError
from workbench.metrics.registry import ALIASES, BY_NAME, FAMILIES, ORDER, SETS, Family

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


# Derived from the registry, kept for callers: trec_eval's families in print order and
# those printed as integers.
TREC_FAMILIES = tuple(f.name for f in FAMILIES if f.trec)
COUNT_FAMILIES = frozenset(f.name for f in FAMILIES if f.integer)


@dataclass(frozen=True, order=False)
class Measure:
    """One measure with its parameters (hashable; equal measures compute the same thing).

    family: internal family name (trec_eval's where there is one, see TREC_FAMILIES).
    cutoff: rank cutoff k (P@k, ndcg_cut.k, …) or None for the whole ranking.
    level: recall level for iprec_at_recall; levels: the levels 11pt_avg averages.
    rel: relevance threshold for this measure only (``P(rel=2)@5``); None = the
        evaluation's ``rel_level`` (trec_eval's ``-l``).
    beta: F-measure weight (F_beta); for trec_eval's ``set_F.x``, x = beta², and x itself
        is kept in params (``beta_squared``).
    gain, discount, base: DCG family (``linear``|``exp``; ``log2``|``jk``; base b of
        Järvelin–Kekäläinen).
    params: trec_eval's other parameters: name=value pairs (``(("1", 3.0), ("p", 0.8))``
        for gains and rbp's p), utility's coefficients, relstring's length; () = defaults.
    judged_only: only the judged retrieved documents count (ir_measures'
        ``judged_only=True``: trec_eval's -J for this measure alone).
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
    params: tuple = ()
    judged_only: bool = False
    label: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.label or self.family

    @property
    def spec(self) -> Family:
        """The family's registry record (kernel, aggregation, print rules)."""
        return BY_NAME[self.family]

    @property
    def is_count(self) -> bool:
        """Printed as an integer (and summed, not averaged, over queries)."""
        return BY_NAME[self.family].integer

    @property
    def beta_squared(self) -> float:
        """β² of an F measure: trec_eval's set_F.x parameter exactly as given, else β·β."""
        if BY_NAME[self.family].param == "beta_squared" and self.params:
            return float(self.params[0])
        return float(self.beta) * float(self.beta)

    @property
    def aggregation(self) -> str:
        """How per-query values become the 'all' value: ``mean``, ``geometric mean``,
        ``sum``, ``count`` (of queries) or ``runid`` (the tag, not a number)."""
        return BY_NAME[self.family].aggregation

    @property
    def summary_only(self) -> bool:
        """trec_eval prints it on the 'all' line only, not per query."""
        return BY_NAME[self.family].summary_only

    @property
    def is_text(self) -> bool:
        """Its per-query values are strings (relstring): printed per query, no 'all' value."""
        return BY_NAME[self.family].text

    @property
    def sort_key(self) -> tuple:
        """trec_eval's print order: family table order, then parameter ascending."""
        return (
            ORDER.get(self.family, len(ORDER)),
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
    param = BY_NAME[m.family].param
    if param == "cutoffs":
        return f"{m.family}_{m.cutoff}"
    if param == "levels":
        return f"{m.family}_{m.level:3.2f}"
    if param in ("pairs", "coefficients", "length") and m.params:
        return f"{m.family}_{_params_text(m.params)}"
    if param == "beta_squared" and m.params:  # SetF(beta=0.5) is set_F.0.5
        return f"{m.family}_{_fmt_num(m.params[0])}"
    return m.family


def _params_text(params: tuple) -> str:
    """trec_eval's printed parameter text, rebuilt from values (1=3,p=0.8 / 2,-1,0,0)."""
    return ",".join(f"{p[0]}={_fmt_num(p[1])}" if isinstance(p, tuple) else _fmt_num(p)
                    for p in params)


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _ir_label(m: Measure) -> str:
    """ir_measures-style spelling for measures trec_eval cannot name."""
    fam = BY_NAME[m.family]
    params = []
    if m.rel is not None:
        params.append(f"rel={m.rel}")
    if fam.param == "beta_squared" and m.params:  # ir_measures' SetF(beta=x): x is β²
        params.append(f"beta={_fmt_num(m.params[0])}")
    elif m.beta is not None and fam.beta:
        params.append(f"beta={_fmt_num(m.beta)}")
    if fam.ir_params and m.params:
        params.extend(f"{key}={_fmt_num(value)}" for key, value in m.params)
    if fam.formulation and m.params:
        params.append("gains={" + ",".join(f"{key}:{_fmt_num(value)}" for key, value in m.params) + "}")
    if m.judged_only:
        params.append("judged_only=True")
    if fam.formulation:
        if m.gain != "linear":
            params.append(f"gain={m.gain}")
        if m.discount != "log2":
            params.append(f"discount={m.discount}")
        if m.base != 2.0:
            params.append(f"base={_fmt_num(m.base)}")
    s = fam.label_name
    if fam.param == "beta_squared" and not m.params and m.beta not in (None, 1.0):
        # the textbook F_β over the whole ranking: F(beta=2), not SetF(beta=2) (β² there)
        s = next(f.label_name for f in FAMILIES if f.without_cutoff == fam.name and f.beta)
    if params:
        s += "(" + ",".join(params) + ")"
    if m.cutoff is not None:
        s += f"@{m.cutoff}"
    elif m.level is not None:
        s += f"@{_fmt_num(m.level)}"
    return s


# ----------------------------------------------------------------------------- trec names


_ATOL = re.compile(r"\s*([+-]?[0-9]+)")


def _atol(text: str, name: str, whole: str) -> int:
    """C's atol, as trec_eval reads cutoffs: the leading integer (``23.4`` is 23)."""
    m = _ATOL.match(text)
    if not m:
        raise MeasureError(f"{name}: cutoffs must be integers, got {whole!r}")
    return int(m.group(1))


def _int_list(text: str, name: str) -> tuple[int, ...]:
    vals = sorted(_atol(v, name, text) for v in text.split(","))
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


def _number(text: str, name: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise MeasureError(f"{name}: parameters must be numbers, got {text!r}") from None
    if not math.isfinite(v):
        raise MeasureError(f"{name}: parameters must be finite, got {text!r}")
    return v


def _pairs(text: str, name: str) -> tuple[tuple[str, float], ...]:
    """trec_eval's name=value parameters (get_param_pairs), in the order given."""
    out = []
    for part in text.split(","):
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise MeasureError(f"{name}: parameters are name=value, got {part!r}")
        out.append((key, _number(value, name)))
    return tuple(out)


def _check_params(fam: Family, params: tuple, name: str) -> None:
    if fam.param == "coefficients" and len(params) != len(fam.defaults):
        raise MeasureError(f"{name}: {fam.name} takes {len(fam.defaults)} numbers")
    if fam.param == "length" and (len(params) != 1 or params[0] < 0):
        raise MeasureError(f"{name}: {fam.name} takes one non-negative number")
    if fam.param == "pairs":
        for key, value in params:
            if key == "p" and not 0 < value < 1:
                raise MeasureError(f"{name}: p must lie between 0 and 1, got {_fmt_num(value)}")


def _parse_trec(name: str, compat: int = 10) -> list[Measure] | None:
    base, dot, params = name.partition(".")
    if base in SETS and not dot:
        return [m for f in SETS[base] if f.since <= compat for m in _parse_trec(f.name)]
    fam = BY_NAME.get(base)
    if fam is None or not fam.trec:
        return None
    if dot and not params:
        raise MeasureError(f"{name}: empty parameter after '.'")
    kind = fam.param
    if kind is None:
        if dot:
            raise MeasureError(f"{name}: {base} takes no parameters")
        return [_trec(base)]
    if kind == "cutoffs":
        cuts = _int_list(params, base) if dot else fam.defaults
        return [_trec(base, cutoff=k) for k in cuts]
    if kind == "levels":
        levels = _float_list(params, base) if dot else fam.defaults
        return [_trec(base, level=p) for p in levels]
    if kind in ("pairs", "coefficients", "length"):
        if not dot:
            return [_trec(base)]
        if kind == "pairs":
            values = _pairs(params, name)
        else:
            values = tuple(_number(v, name) for v in params.split(","))
        _check_params(fam, values, name)
        return [replace(Measure(base, params=values), label=f"{base}_{params}")]
    if kind == "avg_levels":
        if not dot:
            return [_trec(base, levels=fam.defaults)]
        return [replace(Measure(base, levels=_float_list(params, base)), label=f"{base}_{params}")]
    # beta_squared: trec_eval's set_F.x is F with beta² = x
    if not dot:
        return [_trec(base, beta=1.0)]
    x = _float_list(params, base)
    if len(x) != 1 or x[0] < 0:
        raise MeasureError(f"{name}: {base} takes one non-negative parameter")
    # β² is kept as given (params): √2 squared back is 2.0000000000000004, one digit off
    return [replace(Measure(base, beta=math.sqrt(x[0]), params=(x[0],)), label=f"{base}_{params}")]


# ----------------------------------------------------------------------------- ir_measures

_IR_RE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9_\-]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cut>[0-9.,]+))?$"
)

# ranx's names for ir_measures spellings with parameters (ranx: metrics/__init__.py)
_PRESETS = {"ndcg_burges": "nDCG(gain=exp)"}


def _split_params(text: str) -> list[str]:
    """Split on the commas outside braces (``gains={0:0,1:1},judged_only=True``)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _unquote(value: str) -> str:
    """ir_measures writes string parameters quoted: ``dcg='exp-log2'``."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _parse_params(text: str | None, name: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if not text:
        return out
    for part in _split_params(text):
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise MeasureError(f"{name}: parameters are key=value, got {part!r}")
        out[key.strip().lower()] = _unquote(value.strip())
    return out


def _bool(text: str, name: str, key: str) -> bool:
    value = text.strip().lower()
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no"):
        return False
    raise MeasureError(f"{name}: {key} must be True or False, got {text!r}")


def _gain_pairs(text: str, name: str) -> tuple[tuple[str, float], ...]:
    """ir_measures' ``gains={0:0,1:1,2:3,3:7}``: grade -> gain, as (grade, gain) pairs."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise MeasureError(f"{name}: gains must be written {{grade:gain,...}}, got {text!r}")
    pairs = []
    for item in body[1:-1].split(","):
        if not item.strip():
            continue
        grade, colon, gain = item.partition(":")
        try:
            g = int(grade.strip())
        except ValueError:
            raise MeasureError(f"{name}: gains: a grade must be an integer, got {grade.strip()!r}") from None
        if not colon:
            raise MeasureError(f"{name}: gains are grade:gain pairs, got {item.strip()!r}")
        pairs.append((str(g), _number(gain.strip(), name)))
    if not pairs or len({g for g, _ in pairs}) != len(pairs):
        raise MeasureError(f"{name}: gains must name each grade once")
    return tuple(sorted(pairs, key=lambda p: int(p[0])))


def _formulation(params: dict[str, str], name: str) -> dict:
    """gain=, discount=, base= (and ir_measures' dcg=) of the DCG family."""
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
    return {"gain": gain, "discount": discount, "base": base}


_TREC_FORMULATION = {"gain": "linear", "discount": "log2", "base": 2.0}


def _parse_ir(name: str) -> list[Measure] | None:
    m = _IR_RE.match(name)
    if not m:
        return None
    preset = _PRESETS.get(m.group("name").lower())
    if preset is not None:  # ndcg_burges@10 is nDCG(gain=exp)@10
        if m.group("params"):
            raise MeasureError(f"{name}: {m.group('name')} takes no parameters")
        return _parse_ir(preset + (f"@{m.group('cut')}" if m.group("cut") else ""))
    fam = ALIASES.get(m.group("name").lower())
    if fam is None:
        return None
    cut_text = m.group("cut")
    if cut_text is not None and "," in cut_text:  # P@5,10: one measure per cutoff
        head = name[:m.start("cut") - 1]
        out: list[Measure] = []
        for c in cut_text.split(","):
            out.extend(_parse_ir(f"{head}@{c}") or ())
        return out
    params = _parse_params(m.group("params"), name)
    kw: dict = {}
    if "judged_only" in params:
        if _bool(params.pop("judged_only"), name, "judged_only"):
            kw["judged_only"] = True
    gains = None
    if "gains" in params:
        if fam.name != "ndcg":
            raise MeasureError(f"{name}: gains= applies to nDCG only")
        gains = _gain_pairs(params.pop("gains"), name)
    if "rel" in params:
        try:
            kw["rel"] = int(params.pop("rel"))
        except ValueError:
            raise MeasureError(f"{name}: rel must be an integer") from None
    if "beta" in params and fam.beta:
        try:
            kw["beta"] = float(params.pop("beta"))
        except ValueError:
            raise MeasureError(f"{name}: beta must be a number") from None
        if kw["beta"] < 0:
            raise MeasureError(f"{name}: beta must be non-negative")
    if fam.formulation:
        kw.update(_formulation(params, name))
        if gains is not None:
            if kw["gain"] != "linear" or kw["discount"] != "log2":
                raise MeasureError(f"{name}: gains= takes the log2 discount of linear gains")
            kw["params"] = gains
    pairs = tuple((key, _number(params.pop(key), name)) for key in fam.ir_params if key in params)
    if not pairs and fam.ir_defaults:  # ir_measures' defaults where trec_eval's differ (RBP: p=0.8)
        pairs = fam.ir_defaults
    if pairs:
        _check_params(fam, pairs, name)
        kw["params"] = pairs
    if params:
        raise MeasureError(f"{name}: unknown parameter(s) {', '.join(sorted(params))}")
    if fam.param == "levels":  # IPrec@p: a recall level, not a cutoff
        if cut_text is None:
            return [_finish(Measure(fam.name, level=p, **kw)) for p in fam.defaults]
        try:
            return [_finish(Measure(fam.name, level=float(cut_text), **kw))]
        except ValueError:
            raise MeasureError(f"{name}: recall level must be a number") from None
    cutoff = None
    if cut_text is not None:
        if not cut_text.isdigit() or int(cut_text) <= 0:
            raise MeasureError(f"{name}: cutoff must be a positive integer")
        cutoff = _cutoff(int(cut_text), name)
    target = fam
    if fam.with_formulation and (gains is not None
                                 or any(kw.get(p, v) != v for p, v in _TREC_FORMULATION.items())):
        target = BY_NAME[fam.with_formulation]
    else:
        if fam.with_formulation:  # trec_eval's own formulation: trec_eval's family
            kw = {p: v for p, v in kw.items() if p not in _TREC_FORMULATION}
        if cutoff is not None and fam.with_cutoff:
            target = BY_NAME[fam.with_cutoff]
        elif cutoff is None and fam.without_cutoff:
            target = BY_NAME[fam.without_cutoff]
        if kw.get("rel") is not None and target.with_rel:  # NumRet(rel=1) is num_rel_ret
            target = BY_NAME[target.with_rel]
    if target.cutoff == "required" and cutoff is None:
        raise MeasureError(f"{name}: needs a cutoff, e.g. {m.group('name')}@10")
    if target.beta and "beta" not in kw:
        kw["beta"] = 1.0
    if fam.param == "beta_squared" and kw["beta"] != 1.0:
        # ir_measures passes SetF's beta to trec_eval's set_F.x, whose x is β²
        # (pytrec_eval provider): SetF(beta=0.5) is set_F.0.5, β = √0.5
        kw["params"] = (kw["beta"],)
        kw["beta"] = math.sqrt(kw["beta"])
    if cutoff is not None and target.cutoff == "none":
        raise MeasureError(f"{name}: {m.group('name')} takes no cutoff")
    if kw.get("rel") is not None and target.graded and not target.rel_binarises:
        raise MeasureError(f"{name}: rel= does not apply to graded measures")
    return [_finish(Measure(target.name, cutoff=cutoff, **kw))]


def _finish(m: Measure) -> Measure:
    """Give a measure its printed name: trec_eval's when trec_eval computes the same thing."""
    fam = BY_NAME[m.family]
    trec_like = (
        fam.trec
        and m.rel is None
        and (m.cutoff is None or fam.param == "cutoffs")
        and (m.beta in (None, 1.0) or (fam.param == "beta_squared" and bool(m.params)))
        and not m.judged_only
    )
    return replace(m, label=_trec_label(m) if trec_like else _ir_label(m))


# ----------------------------------------------------------------------------- public


def _names() -> list[str]:
    """Every family name, set name and alias (for suggestions)."""
    return [f.name for f in FAMILIES if f.trec] + list(SETS) + [a for f in FAMILIES for a in f.aliases]


def _suggestion(name: str) -> str | None:
    """The closest known spelling of a mistyped name, parameters kept, if it parses."""
    head = re.match(r"[A-Za-z0-9_\-]*", name).group(0)
    tail = name[len(head):]
    if not head:
        return None
    names = _names()
    lower = {n.lower(): n for n in reversed(names)}
    for guess in difflib.get_close_matches(head, names, n=3, cutoff=0.6) + [
        lower[g] for g in difflib.get_close_matches(head.lower(), list(lower), n=3, cutoff=0.6)
    ]:
        candidate = guess + tail
        if candidate == name:
            continue
        try:
            if (_parse_trec(candidate) or _parse_ir(candidate)) is not None:
                return candidate
        except MeasureError:
            continue
    return None


_PRINTED = re.compile(r"(\w+?)_([0-9-][0-9.,=-]*|[A-Za-z]+=[0-9A-Za-z.,=-]*)")


def _printed(name: str) -> str | None:
    """trec_eval's spelling of a name as trec_eval prints it (``P_10`` -> ``P.10``,
    ``ndcg_cut_10`` -> ``ndcg_cut.10``, ``utility_2,-1,0,0``), or None."""
    m = _PRINTED.fullmatch(name)
    if m and m[1] in BY_NAME and BY_NAME[m[1]].param and BY_NAME[m[1]].trec:
        return f"{m[1]}.{m[2]}"
    return None


def _unknown(name: str) -> MeasureError:
    guess = _suggestion(name)
    if guess is None:
        return MeasureError(f"unknown measure {name!r}")
    return MeasureError(f"unknown measure {name!r} — did you mean {guess}?")


def parse_measures(names, compat: int = 10) -> tuple[Measure, ...]:
    """Parse names (strings; each may expand, e.g. ``P`` or ``official``) into measures.

    Duplicates are dropped (first spelling wins); the order is trec_eval's print order.
    As in trec_eval, a family named with parameters (``relstring.20``, ``P.5``) replaces
    the same family's defaults that a bare name or a set brought (``-m all_trec -m
    relstring.20`` prints relstring_20 only), wherever the bare name or the set comes:
    a measure named explicitly is never dropped (``-m P.5 -m P`` is P_5, ``-m
    ndcg_cut.1,1000 -m all_trec`` keeps ndcg_cut_1000). Unlike trec_eval, which reads
    the first parameter list of a family only, every explicit list counts (``-m P.5 -m
    P.10`` is P_5 and P_10). compat=9: the sets (``all_trec``) leave out the families
    trec_eval 9 lacks. Raises MeasureError for an unknown or malformed name (with the
    closest known spelling when there is one).
    """
    if isinstance(names, str):
        names = [names]
    seen: dict[Measure, Measure] = {}
    explicit: set[Measure] = set()  # named with parameters, in either spelling
    with_params: set[str] = set()  # families named with trec_eval parameters
    for raw in names:
        for name in (n.strip() for n in str(raw).split() if n.strip()):
            found = _parse_trec(name, compat)
            named = True
            if found is None:
                found = _parse_ir(name)
            elif "." in name:
                with_params.add(name.partition(".")[0])
            else:
                named = False  # a bare trec_eval name or a set: the families' defaults
            if found is None:  # a name as printed: P_10, ndcg_cut_10, iprec_at_recall_0.10
                trec = _printed(name)
                if trec is not None:
                    found = _parse_trec(trec, compat)
                    with_params.add(trec.partition(".")[0])
            if found is None:
                raise _unknown(name)
            for m in found:
                seen.setdefault(m, m)
                if named:
                    explicit.add(m)
    kept = [m for m in seen.values() if m in explicit or m.family not in with_params]
    return tuple(sorted(kept, key=lambda m: m.sort_key))


def parse_measure(name: str) -> Measure:
    """Parse one name that denotes exactly one measure (``nDCG@10``, ``map``, ``P.5``)."""
    ms = parse_measures([name])
    if len(ms) != 1:
        raise MeasureError(f"{name!r} names {len(ms)} measures; give one (e.g. P.10)")
    return ms[0]

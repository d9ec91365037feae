"""The measure registry: one record per measure family, read by everything else.

A ``Family`` says what a family is called (trec_eval's name, ir_measures spellings),
which parameters it takes and their defaults, its kernel (``workbench.metrics.kernels``,
whose docstring gives the formula and a citation), how per-query values become the
'all' value, how it prints, which trec_eval source file it follows and which named
sets (``official``) it belongs to. Its position in ``FAMILIES`` is the print order
(trec_eval's, measures.c, then the families trec_eval lacks).

``compute`` (kernels), ``aggregate`` (evaluate), the name parser and labels (measures),
the printers and ``workbench measures`` all read these records: a new measure is one
record here plus its kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from workbench.metrics.kernels import average_precision, counts, gain, precision, rbp
from workbench.metrics.kernels.context import MIN_GEO_MEAN
from workbench.metrics.kernels.precision import RPREC_MULTIPLES, UNJ_CUTOFFS

__all__ = ["Family", "FAMILIES", "BY_NAME", "ALIASES", "SETS", "REFERENCES", "AGGREGATIONS", "family", "sequential_sum",
           "ir_spellings", "TREC_CUTOFFS", "RECALL_LEVELS"]

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# trec_eval's parameter after '.', by kind:
#   cutoffs       "P.5,10": one measure per cutoff (defaults: `defaults`)
#   levels        "iprec_at_recall.0.5": one measure per recall level
#   avg_levels    "11pt_avg.0.2,0.8": one measure averaging over the levels
#   beta_squared  "set_F.0.5": one measure with β = √x
#   pairs         "ndcg.1=3,2=9", "rbp.p=0.8": one measure; name=value pairs (gains of
#                 the grades named by integers, rbp's persistence p)
#   coefficients  "utility.2,-1,0,0": one measure; numbers kept in the order given
#   length        "relstring.20": one measure; one number
# (trec_eval prints the last three, when given, as name_<the parameter text>)
PARAM_KINDS = ("cutoffs", "levels", "avg_levels", "beta_squared", "pairs", "coefficients",
               "length")


def sequential_sum(values: np.ndarray) -> float:
    """The sum in trec_eval's order: one query after the other (its accumulating loop).
    numpy's sum is pairwise, and the last printed digit can differ: P@10 over
    .2 .2 0 0 .3 .3 .2 .2 .4 .5 .3 .8 1 1 .3 .2 is 0.36875 pairwise (prints 0.3688),
    0.36874999... in order (prints 0.3687, as trec_eval)."""
    if values.size == 0:
        return 0.0
    return float(np.cumsum(values, dtype=np.float64)[-1])  # cumsum adds left to right


def _mean(values: np.ndarray) -> float:
    return sequential_sum(values) / values.size if values.size else 0.0


def _geometric_mean(values: np.ndarray) -> float:
    # trec_eval (gm_map): exp(sum of log(max(v, MIN_GEO_MEAN)) in query order / n)
    n = values.size
    if n == 0:
        return 0.0
    return float(np.exp(sequential_sum(np.log(np.maximum(values, MIN_GEO_MEAN))) / n))


def _sum(values: np.ndarray) -> float:
    return float(values.sum())


# how per-query values become the 'all' value; "count" is the sum of the per-query 1s
# (the number of queries), "runid" is not a number (the printers print the run's tag)
AGGREGATIONS: dict[str, Callable[[np.ndarray], float]] = {
    "mean": _mean,
    "geometric mean": _geometric_mean,
    "sum": _sum,
    "count": _sum,
    "runid": _mean,
    "text": lambda values: 0.0,  # relstring: strings per query, no 'all' line
}


@dataclass(frozen=True)
class Family:
    """One measure family.

    name: trec_eval's name (the internal family name for families trec_eval lacks).
    kernel: kernel(ctx, measure) -> per-query float64 values; its docstring has the
        formula and a citation.
    definition: one line for listings.
    source: the trec_eval source file followed (``m_map.c``), or where the family
        comes from when trec_eval lacks it.
    aggregation: a key of AGGREGATIONS.
    aliases: ir_measures-style names selecting this family (case-insensitive).
    ir_name: the ir_measures-style name in labels of measures trec_eval cannot name
        (``P(rel=2)@5``); default ``name``.
    trec: trec_eval computes it (its name parses, and is the printed label).
    param: kind of trec_eval parameter (PARAM_KINDS) or None; defaults: its defaults.
    cutoff: ir_measures ``@k``: "none", "optional" or "required".
    with_cutoff / without_cutoff: the family an alias selects when ``@k`` is given /
        missing (``AP@10`` is map_cut, ``R`` is set_recall).
    with_rel: the family an alias selects when ``rel=`` is given (ir_measures'
        ``NumRet(rel=N)`` counts the retrieved documents of grade >= N: num_rel_ret).
    formulation: takes gain=, discount=, base= (the DCG family); with_formulation: the
        family selected when they differ from trec_eval's (``nDCG(gain=exp)``).
    graded: gains are the grades, so ``rel=`` (and trec_eval's -l) does not apply;
    rel_binarises: except here, where ``rel=`` makes the gains binary (``RBP(rel=2)``).
    beta: takes beta= (F measures; default 1).
    integer: printed as an integer.
    summary_only: trec_eval prints it on the 'all' line only.
    text: its per-query values are strings (relstring), printed per query only.
    ir_params: ir_measures-style parameters passed on as trec_eval pairs (``RBP(p=0.8)``);
        ir_defaults: their values when the ir_measures spelling names none (ir_measures'
        RBP has p = 0.8, trec_eval's rbp 0.9).
    ir_measures, ranx: the spelling the ir_measures / ranx library itself uses for the
        family ("" where it has none; k a cutoff, p a recall level); citation: the paper or
        book that defines it. Both from REFERENCES.
    since: the first trec_eval version with the family (9 or 10); ``--compat 9`` leaves
        the others out of the sets.
    sets: named sets the family's default measures belong to (``official``, ``all_trec``,
        ``set``: trec_eval's nicknames).
    """

    name: str
    kernel: Callable
    definition: str
    source: str
    aggregation: str = "mean"
    aliases: tuple[str, ...] = ()
    ir_name: str = ""
    trec: bool = True
    param: str | None = None
    defaults: tuple = ()
    cutoff: str = "none"
    with_cutoff: str | None = None
    without_cutoff: str | None = None
    with_rel: str | None = None
    formulation: bool = False
    with_formulation: str | None = None
    graded: bool = False
    rel_binarises: bool = False
    beta: bool = False
    integer: bool = False
    summary_only: bool = False
    text: bool = False
    ir_params: tuple[str, ...] = ()
    ir_defaults: tuple = ()
    since: int = 9
    sets: frozenset[str] = frozenset()
    # filled from REFERENCES below (`workbench measures NAME`, docs/measures.md)
    ir_measures: str = ""
    ranx: str = ""
    citation: str = ""

    @property
    def label_name(self) -> str:
        return self.ir_name or self.name


# trec_eval's nicknames (measures.c): official, all_trec, set
_ALL = frozenset({"all_trec"})
_OFF = frozenset({"official"}) | _ALL
_SET = frozenset({"set"})
_ALL_SET = _ALL | _SET
_OFF_SET = _OFF | _SET
_EXTRA = "not in trec_eval"
_GAINS = "gains: ndcg.1=3,2=9 (grade=gain)"

# trec_eval's print order (measures.c te_trec_measures), then the families trec_eval lacks.
FAMILIES: tuple[Family, ...] = (
    Family("runid", counts.runid, "the run's tag (printed, not averaged)", "m_runid.c",
           aggregation="runid", summary_only=True, sets=_OFF_SET),
    Family("num_q", counts.num_q, "number of queries evaluated", "m_num_q.c",
           aggregation="count", aliases=("NumQ",), integer=True, summary_only=True,
           sets=_OFF_SET),
    Family("num_ret", counts.num_ret, "number of documents retrieved", "m_num_ret.c",
           aggregation="sum", aliases=("NumRet",), with_rel="num_rel_ret", integer=True, sets=_OFF_SET),
    Family("num_rel", counts.num_rel, "number of relevant documents (judged, retrieved or not)",
           "m_num_rel.c", aggregation="sum", aliases=("NumRel",), integer=True, sets=_OFF_SET),
    Family("num_rel_ret", counts.num_rel_ret, "number of relevant documents retrieved",
           "m_num_rel_ret.c", aggregation="sum", aliases=("NumRelRet",), ir_name="NumRelRet",
           integer=True, sets=_OFF_SET),
    Family("map", average_precision.average_precision, "mean average precision", "m_map.c",
           aliases=("AP", "MAP"), ir_name="AP", with_cutoff="map_cut", sets=_OFF),
    Family("gm_map", average_precision.average_precision, "geometric mean of average precision (floored at 1e-5)",
           "m_gm_map.c", aggregation="geometric mean", aliases=("GMAP",), summary_only=True,
           sets=_OFF),
    Family("Rprec", precision.r_precision, "precision after R documents (R = relevant documents)",
           "m_Rprec.c", aliases=("Rprec", "R-Prec", "r-precision"), sets=_OFF),
    Family("bpref", average_precision.bpref, "binary preference: relevant ranked above judged non-relevant",
           "m_bpref.c", aliases=("Bpref",), ir_name="Bpref", sets=_OFF),
    Family("recip_rank", average_precision.recip_rank, "reciprocal rank of the first relevant document",
           "m_recip_rank.c", aliases=("RR", "MRR"), ir_name="RR", cutoff="optional", sets=_OFF),
    Family("iprec_at_recall", average_precision.iprec_at_recall, "interpolated precision at a recall level",
           "m_iprec_at_recall.c", aliases=("IPrec",), ir_name="IPrec", param="levels",
           defaults=RECALL_LEVELS, sets=_OFF),
    Family("P", precision.precision, "precision at cutoff k", "m_P.c", aliases=("P", "precision"), param="cutoffs",
           defaults=TREC_CUTOFFS, cutoff="required", sets=_OFF),
    Family("relstring", counts.relstring,
           "grades of the first n retrieved documents as text (per query only)",
           "m_relstring.c", aggregation="text", param="length", defaults=(10,), text=True,
           sets=_ALL),
    Family("recall", precision.recall, "recall at cutoff k", "m_recall.c", aliases=("R", "Recall"),
           ir_name="R", param="cutoffs", defaults=TREC_CUTOFFS, cutoff="optional",
           without_cutoff="set_recall", sets=_ALL),
    Family("infAP", average_precision.infap, "inferred average precision (incomplete judgments)", "m_infAP.c",
           aliases=("infAP",), sets=_ALL),
    Family("gm_bpref", average_precision.bpref, "geometric mean of bpref (floored at 1e-5)", "m_gm_bpref.c",
           aggregation="geometric mean", summary_only=True, sets=_ALL),
    Family("Rprec_mult", precision.Rprec_mult, "precision at rank m·R, for multiples m of R",
           "m_Rprec_mult.c", param="levels", defaults=RPREC_MULTIPLES, sets=_ALL),
    Family("utility", precision.utility,
           "set utility p1·a + p2·b + p3·c + p4·d (a relevant retrieved, b non-relevant "
           "retrieved, c relevant missed, d the rest of -N)", "m_utility.c",
           param="coefficients", defaults=(1.0, -1.0, 0.0, 0.0), sets=_ALL_SET),
    Family("11pt_avg", average_precision.eleven_point_average, "interpolated precision averaged over recall levels",
           "m_11pt_avg.c", param="avg_levels", defaults=RECALL_LEVELS, sets=_ALL),
    Family("binG", gain.binG, "binary G: relevant retrieved discounted by log2(2 + non-relevant above)",
           "m_binG.c", sets=_ALL),
    Family("G", gain.G, f"normalised gain G (Buckley 2008); {_GAINS}", "m_G.c", param="pairs",
           graded=True, sets=_ALL),
    Family("dcg", gain.trec_dcg, f"discounted cumulative gain (log2 discount); {_GAINS}",
           "m_dcg.c", param="pairs", graded=True, since=10),
    Family("ideal_dcg", gain.trec_ideal_dcg, f"DCG of the ideal ordering of the judged documents; "
           f"{_GAINS}", "m_ideal_dcg.c", param="pairs", graded=True, since=10),
    Family("ndcg", gain.trec_ndcg, f"normalized DCG over the whole ranking; {_GAINS}", "m_ndcg.c",
           aliases=("nDCG",), ir_name="nDCG", with_cutoff="ndcg_cut", formulation=True,
           with_formulation="nDCG", graded=True, param="pairs", sets=_ALL),
    Family("ndcg_rel", gain.ndcg_rel, f"nDCG averaged over the relevant documents; {_GAINS}",
           "m_ndcg_rel.c", param="pairs", graded=True, sets=_ALL),
    Family("Rndcg", gain.Rndcg, f"nDCG averaged at the R levels of the gains; {_GAINS}",
           "m_Rndcg.c", param="pairs", graded=True, sets=_ALL),
    Family("ndcg_cut", gain.trec_ndcg, "normalized DCG at cutoff k", "m_ndcg_cut.c",
           ir_name="nDCG", param="cutoffs", defaults=TREC_CUTOFFS, cutoff="required",
           graded=True, sets=_ALL),
    Family("map_cut", average_precision.average_precision, "average precision over the top k", "m_map_cut.c",
           ir_name="AP", param="cutoffs", defaults=TREC_CUTOFFS, cutoff="required", sets=_ALL),
    Family("relative_P", precision.relative_P, "relevant in the top k / min(k, R)", "m_rel_P.c",
           param="cutoffs", defaults=TREC_CUTOFFS, sets=_ALL),
    Family("success", precision.success, "1 if a relevant document is in the top k", "m_success.c",
           aliases=("Success", "hit_rate"), ir_name="Success", param="cutoffs", defaults=(1, 5, 10),
           cutoff="required", sets=_ALL),
    Family("set_P", precision.set_precision, "precision of the retrieved set", "m_set_P.c",
           aliases=("SetP",), ir_name="SetP", sets=_ALL_SET),
    Family("set_relative_P", precision.set_relative_P, "relevant retrieved / min(retrieved, R)",
           "m_set_rel_P.c", aliases=("SetRelP",), ir_name="SetRelP", sets=_ALL_SET),
    Family("set_recall", precision.set_recall, "recall of the retrieved set", "m_set_recall.c",
           aliases=("SetR",), ir_name="SetR", sets=_ALL_SET),
    Family("set_map", precision.set_map, "set precision times set recall (unranked AP)",
           "m_set_map.c", aliases=("SetAP",), ir_name="SetAP", sets=_ALL_SET),
    Family("set_F", precision.f_measure, "F measure of the retrieved set (set_F.x and SetF(beta=x): beta² = x)",
           "m_set_F.c", aliases=("SetF",), ir_name="SetF", param="beta_squared", beta=True,
           sets=_ALL_SET),
    Family("num_nonrel_judged_ret", counts.num_nonrel_judged_ret,
           "number of judged non-relevant documents retrieved", "m_num_nonrel_judged_ret.c",
           aggregation="sum", integer=True, sets=_ALL),
    Family("rbp", rbp.rbp, "rank-biased precision (Moffat & Zobel 2008): rbp.p=0.8, "
           "default p = 0.9; gains grade / top grade", "m_rbp.c",
           aliases=("RBP",), ir_name="RBP", param="pairs", graded=True, ir_params=("p",),
           ir_defaults=(("p", 0.8),),
           rel_binarises=True, since=10, sets=_ALL),
    Family("rbp_resid", rbp.rbp_resid, "RBP residual: the RBP upper bound minus RBP",
           "m_rbp_resid.c", param="pairs", graded=True, since=10, sets=_ALL),
    Family("unj", precision.unj, "fraction of the top k without a judgment", "m_unjudged.c",
           param="cutoffs", defaults=UNJ_CUTOFFS, since=10, sets=_ALL),
    Family("Judged", precision.judged, "fraction of the top k with a qrels line (negative grades "
           "too), over min(k, retrieved)", f"{_EXTRA} (ir_measures Judged)", aliases=("Judged",),
           trec=False, cutoff="optional"),
    Family("JudgedTrec", precision.judged_trec, "fraction of the top k with a grade >= 0, over k "
           "(as trec_eval's unj counts judgments)", f"{_EXTRA} (cf. m_unjudged.c)",
           aliases=("JudgedTrec",), trec=False, cutoff="optional"),
    Family("ERR", gain.expected_reciprocal_rank, "expected reciprocal rank (Chapelle et al. 2009), "
           "grades on gdeval's 0-4 scale", f"{_EXTRA} (gdeval.pl; ir_measures ERR)",
           aliases=("ERR",), trec=False, cutoff="optional", graded=True),
    Family("hits", precision.hits, "number of relevant documents in the top k",
           f"{_EXTRA} (ranx hits)", aliases=("hits",), trec=False, cutoff="optional"),
    Family("F", precision.f_measure, "F measure at cutoff k", f"{_EXTRA} (ir_measures F; cf. m_set_F.c)",
           aliases=("F", "f1"), trec=False, cutoff="optional", without_cutoff="set_F", beta=True),
    Family("CG", gain.cumulative_gain, "cumulative gain at cutoff k (no discount)",
           f"{_EXTRA} (cf. m_ndcg_cut.c)", aliases=("CG",), trec=False, cutoff="optional",
           formulation=True, graded=True),
    Family("DCG", gain.discounted_cumulative_gain, "DCG with a chosen gain and discount",
           f"{_EXTRA} (cf. m_dcg.c)", aliases=("DCG",), trec=False, cutoff="optional",
           formulation=True, graded=True),
    Family("IDCG", gain.ideal_discounted_cumulative_gain, "ideal DCG with a chosen gain and discount",
           f"{_EXTRA} (cf. m_ideal_dcg.c)", aliases=("IDCG",), trec=False, cutoff="optional",
           formulation=True, graded=True),
    Family("nDCG", gain.normalized_dcg, "normalized DCG with a chosen gain and discount",
           f"{_EXTRA} (cf. m_ndcg_cut.c)", trec=False, cutoff="optional", formulation=True,
           graded=True),
)

_TREC_BOOK = ('Buckley & Voorhees (2005), "Retrieval system evaluation", in TREC: Experiment '
              'and Evaluation in Information Retrieval, MIT Press, ch. 3')
_BPREF = 'Buckley & Voorhees (2004), "Retrieval evaluation with incomplete information", SIGIR'
_VAN_RIJSBERGEN = "van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7"
_IIR = "Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, §8.4"
_JK = 'Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4)'
_BUCKLEY_G = "Buckley (2008), trec_eval's experimental measures (m_G.c, m_binG.c)"
_RBP = ('Moffat & Zobel (2008), "Rank-biased precision for measurement of retrieval '
        'effectiveness", ACM TOIS 27(1)')
_MACAVANEY = 'MacAvaney, Macdonald & Ounis (2022), "Streamlining evaluation with ir-measures", ECIR'

# What the other tools call each family and where it is defined: (ir_measures' spelling,
# ranx's spelling, citation); "" where the library has no such measure. Spellings are the
# libraries' own, and -m takes each of them (tests/metrics/test_measure_records.py
# computes them with ir_measures and ranx and compares).
REFERENCES: dict[str, tuple[str, str, str]] = {
    "runid": ("", "", _TREC_BOOK),
    "num_q": ("NumQ", "", _TREC_BOOK),
    "num_ret": ("NumRet", "", _TREC_BOOK),
    "num_rel": ("NumRel", "", _TREC_BOOK),
    "num_rel_ret": ("NumRelRet", "", _TREC_BOOK),
    "map": ("AP", "map", _TREC_BOOK),
    "gm_map": ("", "", 'Robertson (2006), "On GMAP: and other transformations", CIKM'),
    "Rprec": ("Rprec", "r-precision", _TREC_BOOK),
    "bpref": ("Bpref", "bpref", _BPREF),
    "recip_rank": ("RR", "mrr", 'Voorhees (1999), "The TREC-8 Question Answering Track Report", TREC-8'),
    "iprec_at_recall": ("IPrec@p", "", _IIR),
    "P": ("P@k", "precision@k", f"{_VAN_RIJSBERGEN}; Manning et al. (2008), §8.3"),
    "relstring": ("", "", f"{_TREC_BOOK} (trec_eval's m_relstring.c)"),
    "recall": ("R@k", "recall@k", f"{_VAN_RIJSBERGEN}; Manning et al. (2008), §8.3"),
    "infAP": ("infAP", "", 'Yilmaz & Aslam (2006), "Estimating average precision with incomplete '
                           'and imperfect judgments", CIKM'),
    "gm_bpref": ("", "", f"{_BPREF}; the geometric mean: Robertson (2006), CIKM"),
    "Rprec_mult": ("", "", f"{_TREC_BOOK} (R-precision; trec_eval's m_Rprec_mult.c)"),
    "utility": ("", "", 'Hull & Robertson (2000), "The TREC-8 filtering track final report", TREC-8'),
    "11pt_avg": ("", "", _IIR),
    "binG": ("", "", _BUCKLEY_G),
    "G": ("", "", _BUCKLEY_G),
    "dcg": ("", "", f"{_JK}; the log2(i+1) discount: Burges et al. (2005), ICML"),
    "ideal_dcg": ("", "", _JK),
    "ndcg": ("nDCG", "ndcg", _JK),
    "ndcg_rel": ("", "", f"{_JK}; at the relevant documents: Buckley (2008), trec_eval's m_ndcg_rel.c"),
    "Rndcg": ("", "", f"{_JK}; at the R levels: Buckley (2008), trec_eval's m_Rndcg.c"),
    "ndcg_cut": ("nDCG@k", "ndcg@k", _JK),
    "map_cut": ("AP@k", "", _TREC_BOOK),
    "relative_P": ("", "", f"{_TREC_BOOK} (trec_eval's m_rel_P.c)"),
    "success": ("Success@k", "hit_rate@k",
                'Hawking & Craswell (2001), "Overview of the TREC-2001 Web Track", TREC 2001'),
    "set_P": ("SetP", "", _VAN_RIJSBERGEN),
    "set_relative_P": ("SetRelP", "", f"{_TREC_BOOK} (trec_eval's m_set_rel_P.c)"),
    "set_recall": ("SetR", "", _VAN_RIJSBERGEN),
    "set_map": ("SetAP", "", f"{_TREC_BOOK} (trec_eval's m_set_map.c)"),
    "set_F": ("SetF", "", f"{_VAN_RIJSBERGEN} (F = 1 − E)"),
    "num_nonrel_judged_ret": ("", "", f"{_TREC_BOOK} (trec_eval's m_num_nonrel_judged_ret.c)"),
    "rbp": ("RBP(p=0.9)", "", _RBP),
    "rbp_resid": ("", "", _RBP),
    "unj": ("", "", f"{_MACAVANEY} (Judged); trec_eval's m_unjudged.c"),
    "Judged": ("Judged@k", "", _MACAVANEY),
    "JudgedTrec": ("", "", f"{_BPREF} (judged = in the pool); trec_eval's m_unjudged.c"),
    "ERR": ("ERR@k", "", 'Chapelle, Metzler, Zhang & Grinspan (2009), "Expected reciprocal rank '
                         'for graded relevance", CIKM'),
    "hits": ("", "hits@k", 'Bassani (2022), "ranx: a blazing-fast Python library for ranking '
                           'evaluation and comparison", ECIR'),
    "F": ("", "f1@k", f"{_VAN_RIJSBERGEN} (F = 1 − E)"),
    "CG": ("", "", _JK),
    "DCG": ("", "dcg@k", f"{_JK}; exponential gain: Burges et al. (2005), ICML"),
    "IDCG": ("", "", _JK),
    "nDCG": ("nDCG(dcg='exp-log2')@k", "ndcg_burges@k",
             f'{_JK}; exponential gain: Burges et al. (2005), "Learning to rank using gradient '
             'descent", ICML'),
}
FAMILIES = tuple(replace(f, ir_measures=REFERENCES[f.name][0], ranx=REFERENCES[f.name][1],
                         citation=REFERENCES[f.name][2]) for f in FAMILIES)

BY_NAME: dict[str, Family] = {f.name: f for f in FAMILIES}
ORDER: dict[str, int] = {f.name: i for i, f in enumerate(FAMILIES)}
ALIASES: dict[str, Family] = {a.lower(): f for f in FAMILIES for a in f.aliases}
SETS: dict[str, tuple[Family, ...]] = {
    s: tuple(f for f in FAMILIES if s in f.sets) for s in sorted({s for f in FAMILIES for s in f.sets})
}


def family(name: str) -> Family:
    """The record of a family name (KeyError for an unknown one)."""
    return BY_NAME[name]


def ir_spellings(fam: Family) -> tuple[str, ...]:
    """Every ir_measures-style spelling that selects the family: its own aliases, and
    those of families that hand over to it (``AP@k`` for map_cut)."""
    out = list(fam.aliases)
    for f in FAMILIES:
        for a in f.aliases:
            if f.with_cutoff == fam.name:
                out.append(f"{a}@k")
            if f.without_cutoff == fam.name:
                out.append(a)
            if f.with_formulation == fam.name:
                out.append(f"{a}(gain=…,discount=…,base=…)@k")
    return tuple(dict.fromkeys(out))


def _check() -> None:
    """The table's own consistency, checked at import (cheap: a few dozen records)."""
    assert len(BY_NAME) == len(FAMILIES), "duplicate family names"
    assert len(ALIASES) == sum(len(f.aliases) for f in FAMILIES), "an alias names two families"
    for f in FAMILIES:
        assert f.aggregation in AGGREGATIONS, f.name
        assert f.param is None or f.param in PARAM_KINDS, f.name
        assert f.since in (9, 10), f.name
        assert f.cutoff in ("none", "optional", "required"), f.name
        assert f.citation, f.name
        for other in (f.with_cutoff, f.without_cutoff, f.with_formulation, f.with_rel):
            assert other is None or other in BY_NAME, (f.name, other)
    assert set(REFERENCES) == set(BY_NAME), "a family without its REFERENCES entry, or one too many"


_check()

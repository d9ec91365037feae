"""Evaluation measures: pure numpy, no database, no files (docs/architecture.md#layers, #measure-semantics).

Ranking measures (trec_eval-exact), one registry of measure names, array kernels:

- ``workbench.metrics.measures``: ``Measure`` (hashable value object), ``parse_measure``
  (one name -> one measure: ``"nDCG@10"``, ``"map"``, ``"P(rel=2)@5"``) and
  ``parse_measures`` (names -> measures, expanding trec_eval defaults: ``"P"`` -> P_5 …
  P_1000, ``"iprec_at_recall"`` -> 11 levels, ``"official"``; sorted in trec_eval's print
  order). ``Measure.label`` is the printed name (trec_eval's where it is one of
  trec_eval's); ``Measure.is_count`` marks integer-printed, summed measures.
  ``MeasureError`` (a ValueError) for a bad name.
- ``workbench.metrics.registry``: one ``Family`` record per measure family (names,
  ir_measures aliases, parameters and defaults, kernel, aggregation, printing, trec_eval
  source file, print order, sets); everything below reads it.
- ``workbench.metrics.evaluate``:
  ``evaluate(qrels_qid, qrels_docno, qrels_rel, run_qid, run_docno, run_score, measures,
  *, rel_level=1, ties="trec_eval", max_depth=None, complete=False, compat=10,
  run_rank=None, tag="", unjudged_as=None) -> Evaluation`` and
  ``evaluate_many(qrels_qid, qrels_docno, qrels_rel, runs, measures, **same) ->
  list[Evaluation]`` (runs: ``RunArrays(qid, docno, score, tag="", rank=None)`` or
  tuples; the qrels are encoded once; ``index=QrelsIndex(...)`` reuses an encoding
  across calls; ``check_duplicates=False`` skips the run duplicate check when the
  caller's data cannot hold duplicates). Ids may be str, bytes or int arrays.
  A repeated (query, docno) pair raises ``ranking.DuplicatePairError`` (a ValueError
  with ``.which`` = "qrels"|"run" and ``.row`` = index into the arrays given).
  ``Evaluation``: ``measures``, ``qids`` (evaluated query ids, trec_eval order),
  ``per_query[measure]`` (float64 array aligned with qids), ``summary[measure]`` (the
  'all' value: mean; geometric mean for gm_map; sum for counts), ``missing`` (qrels
  queries absent from the run), ``tag``, ``ties``, ``settings``; ``.value(m, qid=None)``.
  ``aggregate(measure, values)`` is trec_eval's averaging on its own.
  Options: rel_level = trec_eval ``-l``; max_depth = ``-M``; complete = ``-c``;
  compat=9 = trec_eval 9 recall-level rounding for iprec_at_recall/11pt_avg;
  ties = ``trec_eval`` (score desc compared as float32, docno desc) | ``input`` (file
  order) | ``rank`` (rank column); unjudged_as = grade given to unjudged retrieved
  documents (the upper value of ``--bounds``).
- ``workbench.metrics.ranking``: ``QrelsIndex`` (qrels encoded once), ``rank_run``
  (trec_eval ordering + grade lookup -> flat ``Ranking``), NONPOOL/UNJUDGED codes.
- ``workbench.metrics.kernels``: ``compute(measure, index, ranking, level, compat)``, and
  one module per measure family (``counts``, ``precision``, ``average_precision``,
  ``gain``, ``rbp``) whose kernels all take ``(ctx, measure)`` (docstring: formula and
  citation); the DCG formula is ``kernels.gain``'s, used by every DCG measure and ``quick``.
- ``workbench.metrics.curves``: ``precision_recall(...)`` -> per-query ``PRPoints``
  (recall and precision at each relevant retrieved document, for plotting) and
  ``interpolated_curve(...)`` (the 11-point interpolated precision averaged over queries).
- ``workbench.metrics.graded``: single-list calculator for ``workbench quick`` (CG, DCG,
  IDCG, nDCG under each formulation, P@k, AP, RR).
- ``workbench.metrics.encode``: strcmp-ordered integer codes and pair hashes for ids.

Agreement, correlation and significance live in their own modules of this package.
Nothing here imports the rest of workbench; importing this package imports nothing.
"""

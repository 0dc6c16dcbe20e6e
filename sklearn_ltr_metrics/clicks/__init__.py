"""Click logs: simulators, position bias, counterfactual evaluation and interleaving.

A click log is a :class:`pandas.DataFrame` with one line per shown document and session and
the columns ``session, qid, row, rank, click`` (``row`` indexes the arrays the ranking came
from, ``rank`` is 1-based); :func:`~sklearn_ltr_metrics.io.read_click_log` and
:func:`~sklearn_ltr_metrics.io.write_click_log` keep it in Parquet or CSV. From such logs:

- :func:`simulate` and :func:`simulate_clicks` draw clicks (position-based, cascade and DBN
  models; RandTop-k and RandPair interventions);
- :func:`estimate_propensity` estimates the examination probability per rank;
- :func:`counterfactual_evaluate` estimates a new ranking's metric (IPS, SNIPS, clipped IPS)
  as a :class:`~sklearn_ltr_metrics.RankingEvaluation`, and
  :func:`counterfactual_evaluate_spark` the same on a log held in Spark;
- :func:`interleave` and :func:`interleaving_outcome` compare two rankers online.

See the user guide's *Click logs* page for the formulas, assumptions and references.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._counterfactual": ("counterfactual_evaluate", "counterfactual_metric_names"),
        "._interleave": ("interleave", "interleaving_method_names"),
        "._outcome": ("interleaving_outcome",),
        "._propensity": ("PropensityEstimate", "estimate_propensity"),
        "._simulate": ("click_model_names", "simulate", "simulate_clicks"),
        "._spark": ("counterfactual_evaluate_spark",),
    },
)

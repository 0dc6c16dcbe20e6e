"""LambdaMART: a scikit-learn ranker around :class:`lightgbm.LGBMRanker` (imported lazily).

LightGBM's ``group`` sizes (rows of each query, contiguous) are made here and nowhere else:
``fit`` takes per-row ``qid`` like every estimator of the package.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._qid import DEFAULT_QID_COLUMN, check_qid_column, is_dataframe, split_qid_column
from .._random import random_seed
from .._validation import (
    check_choice,
    check_consistent_length,
    check_labels,
    check_positive_int,
    short_repr,
)
from ._base import _SPARSE_FORMATS, _RankerMixin, _row_hashes, ranker_doc
from ._lightgbm_data import (
    _LIGHTGBM_NAME_CHARS,
    _OBJECTIVES,
    LIGHTGBM_MAX_QUERY_SIZE,
    _categorical_columns,
    _check_eval_at,
    _check_eval_set,
    _check_integer_labels,
    _check_position,
    _check_sample_weight,
    _eval_data_kwargs,
    _factorize_qid,
    _for_lightgbm,
    _hold_out_queries,
    _label_gain,
    _numeric_view,
    _package_eval_metric,
    _train_with_position,
)

__all__ = ["LIGHTGBM_MAX_QUERY_SIZE", "LambdaMARTRanker"]


# --------------------------------------------------------------------------------------------
# LambdaMART
# --------------------------------------------------------------------------------------------


def _is_lightgbm_ndcg(eval_metric):
    """Whether ``eval_metric`` asks for LightGBM's own NDCG (``"lightgbm"``)."""
    return isinstance(eval_metric, str) and eval_metric == "lightgbm"


@ranker_doc
class LambdaMARTRanker(_RankerMixin, BaseEstimator):
    """LambdaMART: gradient-boosted trees trained with LightGBM's ranking objectives.

    A scikit-learn estimator around :class:`lightgbm.LGBMRanker` (composition; lightgbm is
    imported only when fitting). It takes per-row query ids instead of LightGBM's group
    sizes, accepts rows in any order, and returns scores in the caller's row order.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting rounds (trees).
    learning_rate : float, default=0.1
        Shrinkage of each tree.
    num_leaves : int, default=31
        Maximum leaves per tree.
    max_depth : int, default=-1
        Maximum tree depth; <= 0 means no limit.
    min_child_samples : int, default=20
        Minimum rows in a leaf.
    subsample : float, default=1.0
        Row fraction used per bagging round. As in LightGBM it only takes effect when
        ``subsample_freq > 0``.
    subsample_freq : int, default=0
        Bag every this many rounds; 0 disables bagging.
    colsample_bytree : float, default=1.0
        Feature fraction per tree.
    reg_alpha, reg_lambda : float, default=0.0
        L1 and L2 regularisation of leaf values.
    objective : {"lambdarank", "rank_xendcg"}, default="lambdarank"
        LightGBM ranking objective.
    label_gain : sequence of float, default=None
        Gain of each label 0, 1, 2, ... used by the objective. ``None`` means ``2**label - 1``;
        LightGBM's own default stops at label 30, here it is extended automatically to the
        largest label in ``y`` (up to 1022).
    eval_at : int or sequence of int, default=(10,)
        NDCG cut-offs: the first is the package's NDCG monitored by default
        (``eval_metric=None``); ``eval_metric="lightgbm"`` records LightGBM's NDCG at each and
        early stopping monitors the first.
    lambdarank_truncation_level : int, default=None
        LightGBM's ``lambdarank_truncation_level`` (LightGBM's default when ``None``).
    early_stopping_rounds : int, default=None
        If set, stop when the monitored metric on the validation queries has not improved
        for this many rounds; ``predict`` then uses the best iteration. The validation
        queries are the ``eval_set`` given to ``fit``, else ``validation_fraction`` of the
        training queries held out (whole queries, chosen with ``random_state``).
    validation_fraction : float, default=0.1
        Share of queries held out for early stopping without ``eval_set``; ignored otherwise.
    eval_metric : str or RankingScorer, default=None
        What the validation set is monitored with. ``None``: the package's NDCG at
        ``eval_at[0]``, ``"ndcg@10"`` by default, the metric :meth:`score` reports (queries
        without a relevant row are skipped), one :func:`evaluate` of the validation set per
        round. ``"lightgbm"``: LightGBM's own NDCG at ``eval_at``, computed inside LightGBM
        (faster; its conventions: queries without a relevant row score 1, which moves the
        round where training stops). A metric spec (``"ndcg@10"``,
        ``"capped_recall@adaptive"``, ``"map"``...) or a single-metric
        :func:`make_ranking_scorer` (any conventions, e.g.
        ``make_ranking_scorer("ndcg@10", conventions="trec_eval", ties="stable")``) is
        computed per query by the package, exactly as :func:`evaluate` computes it.
    importance_type : {"split", "gain"}, default="split"
        What ``feature_importances_`` counts.
    n_jobs : int, default=None
        LightGBM threads; ``None`` means 1. Training uses LightGBM's ``deterministic=True``
        and ``force_row_wise=True``, so results do not depend on the thread count.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed for LightGBM (bagging, feature sampling) and for the early-stopping split, with
        the package's random-state policy (a Generator or RandomState gives a seed drawn from
        it). ``None`` uses LightGBM's fixed default seeds, and a fresh split for early
        stopping.
    verbose : int, default=-1
        LightGBM verbosity; -1 is silent.
    lgbm_params : dict, default=None
        Further keyword arguments for :class:`lightgbm.LGBMRanker` (e.g. ``{"sigmoid": 2.0}``).
        They may not repeat a parameter listed above.
    lambdarank_position_bias_regularization : float, default=0.0
        LightGBM's L2 regularisation of the position biases learnt when ``fit`` gets
        ``position`` (unbiased lambdarank); refused when not 0 without ``position``.
    qid_column : str or None, default="qid"
        The column of a DataFrame ``X`` holding the query ids (XGBoost's convention): ``fit``
        and ``score`` read it when no ``qid`` is passed, and every method drops it before
        LightGBM sees ``X`` (never a feature; ``feature_names_in_`` leaves it out). ``None``:
        no column is special.
    position_column : str or None, default=None
        A column of a DataFrame ``X`` holding each row's logged position (``fit``'s
        ``position``): ``fit`` reads it when no ``position`` is passed, and every method drops
        it (never a feature). ``None`` (the default): no column is read as positions.

    Attributes
    ----------
    model_ : lightgbm.LGBMRanker or lightgbm.Booster
        The fitted LightGBM model; with ``position``, the booster ``lightgbm.train`` made
        (``LGBMRanker.fit`` takes no positions).
    booster_ : lightgbm.Booster
        Its booster.
    best_iteration_ : int or None
        The best boosting round (1-based) found by early stopping; ``None`` without it.
    best_score_ : float or None
        The monitored metric on the validation queries at ``best_iteration_``.
    evals_result_ : dict
        Every round's validation value, ``{"valid_0": {name: [...]}}`` (empty without a
        validation set).
    n_iter_ : int
        Number of trees ``predict`` uses.
    feature_importances_ : ndarray of shape (`n_features_in_`,)
        LightGBM's importances (``importance_type``).
    {features_in}

    Notes
    -----
    - Rows are sorted internally by query id, and within a query by a hash of the row's
      feature values (then label, weight and position), before LightGBM sees them. The
      training data LightGBM gets is therefore the same whatever the input row order, so
      shuffling the rows gives the same model. Queries need not be contiguous.
    - Labels must be non-negative integers (``2.0`` is fine, ``2.5`` is not): LightGBM's
      ranking objectives index a gain table by label.
    - A query may hold at most 10000 rows (LightGBM's limit); larger queries raise a
      ``ValueError`` naming the query. Split or pre-filter such candidate lists.
    - ``sample_weight`` is per row: LightGBM multiplies each row's gradient and hessian by
      its weight. To weight a query, give all its rows the same weight.
    - Missing values (NaN) are passed to LightGBM, which learns a direction for them. A
      DataFrame with pandas categorical columns is given to LightGBM as a DataFrame, so those
      columns are split as categories; ``predict`` then needs a DataFrame with the same
      columns and categories. Feature names of a DataFrame are kept in the booster
      (``booster_.feature_name()``) unless one holds a character LightGBM refuses
      (``",:[]{}``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics import LambdaMARTRanker
    >>> X = np.array([[0.0], [1.0], [2.0], [0.5], [1.5], [2.5]])
    >>> y = np.array([0, 1, 2, 0, 1, 2])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LambdaMARTRanker(n_estimators=5, min_child_samples=1).fit(X, y, qid=qid)
    >>> scores = model.predict(X)
    >>> bool(scores[2] > scores[0] and scores[5] > scores[3])
    True

    The query ids as a ``qid`` column of a DataFrame (read, then dropped: never a feature):

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"x": X[:, 0], "qid": qid})
    >>> model = LambdaMARTRanker(n_estimators=5, min_child_samples=1).fit(frame, y)
    >>> list(model.feature_names_in_), bool((model.predict(frame) == scores).all())
    (['x'], True)
    """

    _predict_dtype = (np.float64, np.float32)  # LightGBM takes float32 as it is
    # Metadata routing: position (unbiased lambdarank) is requested with qid by default.
    __metadata_request__fit = {"qid": True, "position": True}  # noqa: RUF012

    def __init__(
        self,
        *,
        n_estimators=100,
        learning_rate=0.1,
        num_leaves=31,
        max_depth=-1,
        min_child_samples=20,
        subsample=1.0,
        subsample_freq=0,
        colsample_bytree=1.0,
        reg_alpha=0.0,
        reg_lambda=0.0,
        objective="lambdarank",
        label_gain=None,
        eval_at=(10,),
        lambdarank_truncation_level=None,
        early_stopping_rounds=None,
        validation_fraction=0.1,
        eval_metric=None,
        importance_type="split",
        n_jobs=None,
        random_state=None,
        verbose=-1,
        lgbm_params=None,
        lambdarank_position_bias_regularization=0.0,
        qid_column=DEFAULT_QID_COLUMN,
        position_column=None,
    ):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.max_depth = max_depth
        self.min_child_samples = min_child_samples
        self.subsample = subsample
        self.subsample_freq = subsample_freq
        self.colsample_bytree = colsample_bytree
        self.reg_alpha = reg_alpha
        self.reg_lambda = reg_lambda
        self.objective = objective
        self.label_gain = label_gain
        self.eval_at = eval_at
        self.lambdarank_truncation_level = lambdarank_truncation_level
        self.early_stopping_rounds = early_stopping_rounds
        self.validation_fraction = validation_fraction
        self.eval_metric = eval_metric
        self.importance_type = importance_type
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.lgbm_params = lgbm_params
        self.lambdarank_position_bias_regularization = lambdarank_position_bias_regularization
        self.qid_column = qid_column
        self.position_column = position_column

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True  # LightGBM treats NaN as missing
        return tags

    def _lgbm_kwargs(self, label_gain):
        """Build the keyword arguments of ``lightgbm.LGBMRanker``."""
        kwargs = {
            "boosting_type": "gbdt",
            "n_estimators": self.n_estimators,
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "max_depth": self.max_depth,
            "min_child_samples": self.min_child_samples,
            "subsample": self.subsample,
            "subsample_freq": self.subsample_freq,
            "colsample_bytree": self.colsample_bytree,
            "reg_alpha": self.reg_alpha,
            "reg_lambda": self.reg_lambda,
            "objective": check_choice(self.objective, "objective", _OBJECTIVES),
            "importance_type": check_choice(
                self.importance_type, "importance_type", ("split", "gain")
            ),
            "n_jobs": 1 if self.n_jobs is None else self.n_jobs,
            "random_state": None if self.random_state is None else random_seed(self.random_state),
            "verbose": self.verbose,
            "deterministic": True,
            "force_row_wise": True,
        }
        if label_gain is not None:
            kwargs["label_gain"] = label_gain
        if self.lambdarank_truncation_level is not None:
            kwargs["lambdarank_truncation_level"] = self.lambdarank_truncation_level
        if self.lgbm_params is not None:
            if not isinstance(self.lgbm_params, dict):
                raise TypeError(
                    f"lgbm_params must be a dict or None, got {short_repr(self.lgbm_params)}."
                )
            clash = sorted(set(self.lgbm_params) & (set(kwargs) | set(self.get_params())))
            if clash:
                raise ValueError(
                    f"lgbm_params repeats {', '.join(map(repr, clash))}; set "
                    "LambdaMARTRanker's own parameter instead."
                )
            kwargs.update(self.lgbm_params)
        return kwargs

    def _check_X(self, X, *, reset):
        """``X`` for LightGBM and a float array of it for hashing rows.

        A DataFrame with categorical columns stays a DataFrame (LightGBM splits them as
        categories); anything else is checked and converted (NaN allowed).
        """
        if _categorical_columns(X) or (not reset and getattr(self, "categorical_", False)):
            if not is_dataframe(X):
                raise TypeError(
                    f"{type(self).__name__} was fitted on a DataFrame with categorical columns "
                    f"{self.categorical_features_}; pass a DataFrame with the same columns."
                )
            validate_data(self, X, skip_check_array=True, reset=reset)
            return X, _numeric_view(X)
        X = validate_data(
            self,
            X,
            accept_sparse=_SPARSE_FORMATS,
            dtype=[np.float64, np.float32],
            ensure_all_finite="allow-nan",
            reset=reset,
        )
        return X, X

    def _feature_name(self):
        names = getattr(self, "feature_names_in_", None)
        if names is None or any(set(str(n)) & _LIGHTGBM_NAME_CHARS for n in names):
            return "auto"
        return [str(n) for n in names]

    def _validation_set(self, eval_set):
        """Rows of the user's validation set, sorted by query: (X, y, codes, sizes)."""
        X_val, y_val, qid_val = _check_eval_set(eval_set)
        X_val, qid_val = self._query_ids(X_val, qid_val, "fit eval_set", required=False)
        X_val, hash_val = self._check_X(X_val, reset=False)
        y_val = check_labels(column_or_1d(y_val), "eval_set y")
        check_consistent_length(X_val=hash_val, y_val=y_val)
        codes, _ = _factorize_qid(qid_val, y_val.shape[0], owner="eval_set")
        order = np.argsort(codes, kind="stable")
        X_val = X_val.iloc[order] if is_dataframe(X_val) else _for_lightgbm(X_val[order])
        return X_val, y_val[order], codes[order], np.bincount(codes)

    def _training_rows(self, X, y, qid, sample_weight, given_X, position=None):
        """Checked training data in the canonical row order: ``(X, y, codes, w, sizes,
        position)`` (``position`` None without it, else carried with the rows).

        Rows are sorted by query, then by a hash of the features (ties: label, weight, input
        position), so LightGBM's data is the same whatever the caller's row order. Without
        ``qid`` (checked after ``X`` and ``y``), :class:`MissingQueryIdsError` about
        ``given_X``, the ``X`` given to ``fit``.
        """
        X, X_hash = self._check_X(X, reset=True)
        self.categorical_features_ = _categorical_columns(X)
        self.categorical_ = bool(self.categorical_features_)
        n_rows = X.shape[0]
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None; "
                "pass the relevance grades of the rows."
            )
        y = check_labels(column_or_1d(y, warn=True), "y")
        check_consistent_length(X=np.empty(n_rows), y=y)
        if qid is None:
            self._query_ids(given_X, qid, "fit")  # raises MissingQueryIdsError
        codes, uniques = _factorize_qid(qid, n_rows, owner=f"{type(self).__name__}.fit")
        w = None if sample_weight is None else _check_sample_weight(sample_weight, n_rows)
        sizes = np.bincount(codes)
        if sizes.max() > LIGHTGBM_MAX_QUERY_SIZE:
            big = int(np.argmax(sizes))
            big_id = uniques[big].item() if isinstance(uniques[big], np.generic) else uniques[big]
            raise ValueError(
                f"qid {big_id!r} has {int(sizes[big])} rows, but LightGBM's ranking "
                f"objectives accept at most {LIGHTGBM_MAX_QUERY_SIZE} rows per query "
                f"({int((sizes > LIGHTGBM_MAX_QUERY_SIZE).sum())} queries are larger). Keep "
                "the top candidates of each query (e.g. by a first-stage score) or split them."
            )
        keys = [np.arange(n_rows), y, _row_hashes(X_hash, 0), codes]
        if w is not None:
            keys.insert(1, w)
        if position is not None:
            check_consistent_length(X=np.empty(n_rows), position=position)
            keys.insert(1, position)
        order = np.lexsort(keys)
        X = X.iloc[order] if is_dataframe(X) else _for_lightgbm(X[order])
        w = None if w is None else w[order]
        return X, y[order], codes[order], w, sizes, None if position is None else position[order]

    def _hold_out(self, train):
        """Split ``validation_fraction`` of the training queries off for early stopping.

        Returns the kept training rows ``(X, y, codes, w, sizes, position)`` and the
        validation rows ``(X, y, codes, sizes, w)``.
        """
        X, y, codes, w, sizes, position = train
        n_queries = sizes.shape[0]
        val_queries = _hold_out_queries(n_queries, self.validation_fraction, self.random_state)
        is_val = val_queries[codes]
        keep = ~is_val
        take = X.iloc if is_dataframe(X) else X
        validation = (
            take[np.flatnonzero(is_val)],
            y[is_val],
            codes[is_val],
            np.bincount(codes[is_val], minlength=n_queries)[val_queries],
            None if w is None else w[is_val],
        )
        kept = (
            take[np.flatnonzero(keep)],
            y[keep],
            codes[keep],
            None if w is None else w[keep],
            np.bincount(codes[keep], minlength=n_queries)[~val_queries],
            None if position is None else position[keep],
        )
        return kept, validation

    def _fit_options(self, lgb, kwargs, train, validation, rounds):
        """LightGBM's ``fit`` keyword arguments and callbacks for the validation set, if any.

        Sets the model's ``metric`` in ``kwargs``: LightGBM's NDCG at ``eval_at[0]``, or none
        when the package's ``eval_metric`` is monitored.
        """
        X, codes = train[0], train[2]
        fit_kwargs = {"feature_name": self._feature_name()} if not is_dataframe(X) else {}
        callbacks = []
        # None: the package's NDCG at eval_at[0], what score() reports (ndcg@10 by default).
        eval_metric = self.eval_metric
        if eval_metric is None:
            eval_metric = f"ndcg@{_check_eval_at(self.eval_at)[0]}"
        if validation is None:
            if not _is_lightgbm_ndcg(eval_metric):
                _package_eval_metric(eval_metric, codes)  # check it even when unused
            return fit_kwargs, callbacks
        X_val, y_val, val_codes, val_sizes, val_w = validation
        fit_kwargs.update(_eval_data_kwargs(lgb, X_val, y_val))
        fit_kwargs["eval_group"] = [val_sizes]
        fit_kwargs["eval_sample_weight"] = None if val_w is None else [val_w]
        if _is_lightgbm_ndcg(eval_metric):
            kwargs["metric"] = "ndcg"
            fit_kwargs["eval_at"] = _check_eval_at(self.eval_at)
        else:
            kwargs["metric"] = "None"  # only the package's metric
            fit_kwargs["eval_metric"] = _package_eval_metric(eval_metric, val_codes)
        if rounds is not None:
            callbacks.append(lgb.early_stopping(rounds, first_metric_only=True, verbose=False))
        return fit_kwargs, callbacks

    def _set_fitted(self, model, rounds):
        """The fitted attributes, read from the fitted LightGBM model."""
        self.model_ = model
        self.booster_ = model.booster_
        best = int(model.booster_.best_iteration)
        self.best_iteration_ = best if rounds is not None and best > 0 else None
        self.n_iter_ = self.best_iteration_ or int(model.booster_.current_iteration())
        self.evals_result_ = dict(getattr(model, "evals_result_", None) or {})
        self.best_score_ = None
        if self.best_iteration_ is not None:
            (values,) = self.evals_result_.values()
            self.best_score_ = float(next(iter(values.values()))[self.best_iteration_ - 1])
        self.feature_importances_ = np.asarray(model.feature_importances_)

    def fit(self, X, y, qid=None, sample_weight=None, eval_set=None, position=None):
        """Fit the model on rows ``X`` with relevance ``y`` grouped by ``qid``.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Features (NaN allowed; pandas categorical columns are split as categories). A
            DataFrame's column ``qid_column`` is dropped (never a feature).
        y : array-like of shape (n_samples,)
            Relevance grades, non-negative integers.
        qid : array-like of shape (n_samples,), default=None
            Query id of each row (any hashable ids, rows in any order); ``None`` reads the
            column ``qid_column`` of ``X``. Without either,
            :class:`~sklearn_ltr_metrics.metrics.MissingQueryIdsError`.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights (see Notes of the class).
        eval_set : tuple (X_val, y_val, qid_val) or list of one such tuple, default=None
            A validation set of whole queries (rows in any order; ``qid_val=None`` reads the
            column ``qid_column`` of ``X_val``). With ``early_stopping_rounds``, training stops
            when ``eval_metric`` on it stops improving; without, its values are recorded in
            ``evals_result_``. Under metadata routing request it with
            ``set_fit_request(eval_set=True)``.
        position : array-like of shape (n_samples,), default=None
            The rank (an integer >= 0, e.g. 1-based) at which each row was shown when its
            click label was logged: LightGBM's unbiased lambdarank (``lightgbm.Dataset(...,
            position=...)``, lightgbm >= 4.1, ``objective="lambdarank"`` only) learns one
            additive bias per distinct position, shared across queries, and scores without
            it. Carried with the rows when they are sorted; routed metadata by default.

        Returns
        -------
        self : LambdaMARTRanker
        """
        import lightgbm as lgb

        features, qid = self._query_ids(X, qid, "fit", required=False)
        features, position = self._positions(features, position)
        position = _check_position(
            lgb, position, self.objective, self.lambdarank_position_bias_regularization
        )
        train = self._training_rows(features, y, qid, sample_weight, X, position)
        kwargs = self._lgbm_kwargs(_label_gain(self.label_gain, _check_integer_labels(train[1])))
        _check_eval_at(self.eval_at)
        rounds = (
            None
            if self.early_stopping_rounds is None
            else check_positive_int(self.early_stopping_rounds, "early_stopping_rounds")
        )
        validation = None
        if eval_set is not None:
            validation = (*self._validation_set(eval_set), None)
        elif rounds is not None:
            train, validation = self._hold_out(train)
        fit_kwargs, callbacks = self._fit_options(lgb, kwargs, train, validation, rounds)
        X, y, _, w, sizes, position = train
        if position is not None:
            kwargs["lambdarank_position_bias_regularization"] = float(
                self.lambdarank_position_bias_regularization
            )
            model = _train_with_position(lgb, kwargs, fit_kwargs, callbacks, train)
            self._set_fitted(model, rounds)
            self.model_ = model.booster_
            return self
        model = lgb.LGBMRanker(**kwargs)
        model.fit(X, y, group=sizes, sample_weight=w, callbacks=callbacks, **fit_kwargs)
        self._set_fitted(model, rounds)
        return self

    def _features(self, X):
        """``X`` without its query-id and position columns."""
        features = super()._features(X)
        if self.position_column is None:
            return features
        return split_qid_column(
            features, check_qid_column(self.position_column, "position_column")
        )[0]

    def _positions(self, X, position):
        """``(features, position)``: the position column dropped, the positions to use."""
        if self.position_column is None:
            return X, position
        name = check_qid_column(self.position_column, "position_column")
        features, column = split_qid_column(X, name)
        if column is not None and position is not None:
            raise ValueError(
                f"fit got position=... and X's column {name!r}; pass the positions once."
            )
        return features, column if position is None else position

    def predict(self, X):
        """Return one score per row of ``X``, in the given row order (higher ranks first).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Features; a DataFrame with the fitted categorical columns when ``fit`` had them.

        Returns
        -------
        ndarray of shape (n_samples,)
            Scores.
        """
        check_is_fitted(self)
        X, _ = self._check_X(self._features(X), reset=False)
        if not is_dataframe(X):
            X = _for_lightgbm(X)
        scores = self.booster_.predict(X, num_iteration=self.n_iter_)
        return np.asarray(scores, dtype=np.float64)

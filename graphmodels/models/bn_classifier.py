"""A classifier that chooses its structure and its parameters by inner cross-validation.

:class:`BNClassifier` fits several of the library's classifiers -- naive
Bayes, TAN, KDB, selective KDB, AODE, ... each with its generative tables and,
where the structure allows it, with its tables refitted to the conditional
likelihood along a path of penalties -- on the same inner folds of the
training rows, and keeps the one whose held-out class probabilities are best.
The chosen model is fitted on every row and is an ordinary model of its
class (``model_``): it predicts, draws, saves and answers questions as it
would alone.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import Boolean, Interval, Options, Predicate
from ..estimators.discriminative import (
    DEFAULT_PENALTY_GRID,
    INNER_GTOL,
    RACE_Z,
    Discriminative,
    _mean_and_error,
    _stratified_folds,
    out_of_the_race,
    path_fold,
    penalty_path,
)
from ..estimators.parameters import get_estimator
from ..estimators.selection import LeaveOneOutSelection
from ..stats.counting import DEFAULT_MAX_CELLS, CountingEngine, InMemoryRowsRequired, TableTooLargeError
from . import _fitted
from .ande import AnDE
from .aode import AODE
from .augmented import FAN, TAN, ChowLiu, NaiveBayes
from .base import _LBFGS_ARRAYS, BaseClassifier, TrainingCounts, clone_model
from .hyperforest import HyperforestClassifier
from .kdb import KDB
from .queries import Queryable
from .registry import register_model
from .selective_kdb import GRID_ESTIMATOR, SelectiveKDB

if TYPE_CHECKING:
    from ..estimators.parameters import Estimator
    from ..inference import Distribution, Mixture

__all__ = ["BNClassifier", "STRUCTURES", "DEFAULT_STRUCTURES", "scored_folds"]

#: The structures a :class:`BNClassifier` may choose among: name -> (class, hyperparameters).
STRUCTURES: dict[str, tuple[type[BaseClassifier], dict[str, Any]]] = {
    "nb": (NaiveBayes, {}),
    "tan": (TAN, {}),
    "fan": (FAN, {}),
    "chow-liu": (ChowLiu, {}),
    "kdb-1": (KDB, {"k": 1}),
    "kdb-2": (KDB, {"k": 2}),
    "skdb": (SelectiveKDB, {}),
    "aode": (AODE, {}),
    "a2de": (AnDE, {"n": 2}),
    "hyperforest": (HyperforestClassifier, {}),
}

#: ``structures="auto"``. KDB(k=1) is not among them: its tree differs little from TAN's, and over the
#: 30 shared sets its held-out log-loss differs from TAN's by +0.001 nats on average, generative or
#: discriminative (benchmarks/RESULTS.md, ``bnclassifier``): a sixth of the cost, and one near-twin
#: fewer for the inner folds' noise to choose between.
DEFAULT_STRUCTURES = ("nb", "tan", "kdb-2", "skdb", "aode")

#: ``n_folds="auto"``: 5 inner folds, or 10 below this many training rows; ``n_repeats="auto"``:
#: SMALL_SAMPLE_REPEATS repetitions of the inner cross-validation below it, one from it.
SMALL_SAMPLE_ROWS = 200

#: On the seven shared sets of fewer than 200 training rows, the choice from three 10-fold
#: repetitions averaged had a mean outer log-loss 0.011 nats below that of one (0.273 against
#: 0.284; wine 0.104 -> 0.059, iris 0.177 -> 0.168, zoo 0.145 -> 0.128; glass and hepatitis the
#: same choices): on so few rows one dealing of the folds decides between near candidates by chance.
SMALL_SAMPLE_REPEATS = 3

#: The race's standard errors when the inner cross-validation is repeated (below 200 rows): a candidate
#: is raced only once a whole repetition has scored it, on every row, and one more standard error
#: behind the leader is a gap the other dealings of the folds do not close. On the seven shared sets of
#: fewer than 200 rows (5 outer folds each), 1 instead of 2.5 made the same 35 choices with 28% less CPU
#: (167 -> 120 s); with one repetition (5 folds) it saved 3% and changed a choice on breast-cancer
#: (benchmarks/RESULTS.md, ``bnclassifier-settings``).
REPEATED_RACE_Z = 1.0

#: A penalty one standard error behind its path's best penalty is dropped, and the path ends
#: (past its minimum, where the path would stop after scoring it on every fold).
PATH_RACE_Z = 1.0

#: The inner fits' L-BFGS tolerance grows as 1 / rows below this many training rows in a fold (1e-3
#: at 100 rows): the fits rank candidates whose held-out losses differ by more than their noise, which
#: grows as the rows shrink. On the 17 shared sets of fewer than 1,000 rows (5 outer folds each) it
#: made the same choices with 12% less CPU; growing it from 3,000 rows saved 25% but changed three
#: sets' choices (zoo +0.025 nats, breast-cancer +0.009; RESULTS ``bnclassifier-settings``).
INNER_GTOL_ROWS = 1000

#: Held-out rows scored at most (see :func:`scored_folds`): only the first inner folds that hold
#: this many rows are held out, each still fitted on every other row. 1,500 instead of 3,000 took 0.73x
#: the CPU on the six shared sets it changed (+0.0001 to +0.0011 nats on three). Once the folds kept the
#: structure learned on every row (:data:`STRUCTURE_KEPT_ROWS`), 1,000 instead of 1,500 took 0.71x the
#: CPU on the six sets it changes (titanic, segment, kr-vs-kp, splice, mushroom, satimage: 1,761-6,499
#: training rows; 61.2 -> 43.6 s), the same choices in 28 of their 30 outer folds: kr-vs-kp +0.0043
#: nats, titanic +0.0002 (RESULTS ``bnclassifier-settings``).
MAX_SCORED_ROWS = 1000

#: From this many training rows, the inner folds of a candidate that learns its structure (TAN, KDB,
#: selective KDB, ...) keep the structure learned on every row and fit only its tables on each fold's
#: rows. A fold then scores a structure learned with its held-out rows too: below, where a row weighs
#: on the structure, that flattered it (lenses +0.061 nats, monk2 +0.064 at 480 rows, wine +0.038,
#: voting +0.009, breast-cancer +0.009); from 1,000 rows it did not, and a structure learned on four
#: fifths of the rows no longer stands for the one the chosen model learns on all of them: on car
#: (1,382 rows), the folds' trees and KDB parents, learned again on 1,105 rows, scored TAN-D 0.07 and
#: KDB(k=2)-D 0.08-0.10 nats where the structures of every row reach 0.014 on the outer folds, and
#: BNClassifier chose 0.062 against 0.014. On the 13 shared sets from 1,000 rows it took 0.86x the CPU
#: (no structure searches nor selective KDB grids in the folds), car 0.062 -> 0.014, letter 0.390 ->
#: 0.385, the largest loss satimage +0.0014 (RESULTS ``bnclassifier-settings``).
STRUCTURE_KEPT_ROWS = 1000

#: ... and where the plug-in conditional mutual information of the two attributes of the most states,
#: given the class, is biased upward by at most this many nats: ``(r_i - 1)(r_j - 1) r_class / (2 n)``
#: (Miller, 1955), what a structure learned from the rows gains from its own rows, held-out ones too.
#: The 13 shared sets from 1,000 rows are at most 0.0375 (adult: 41 and 16 states), car 0.013; on
#: 1,200 rows of six 30-state noise columns (0.70), folds keeping the structure scored TAN at 0.82
#: nats, 0.91 on new rows (RESULTS ``structure-kept-noise``).
MAX_KEPT_STRUCTURE_BIAS = 0.05

#: The floor of a held-out probability, as in scikit-learn's log_loss.
_CLIP = 1e-15


def _check_structures(value):
    if isinstance(value, str):
        return value == "auto"
    try:
        names = list(value)
    except TypeError:
        return False
    return bool(names) and all(isinstance(n, str) and n in STRUCTURES for n in names) and len(set(names)) == len(names)


def _check_grid(value):
    if value is None:
        return True
    try:
        grid = np.atleast_1d(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError):
        return False
    return grid.ndim == 1 and len(grid) > 0 and bool(np.isfinite(grid).all() and (grid >= 0).all())


def _row_loss(scores, y):
    """Each row's ``-log P(y_i | x_i)`` from class scores (clipped at 1e-15) and whether its most probable class is wrong."""
    scores = np.asarray(scores, dtype=np.float64)
    top = scores.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        log_norm = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
        loss = log_norm - scores[np.arange(len(y)), y]
    loss = np.where(np.isfinite(loss), loss, -np.log(_CLIP))
    return np.minimum(loss, -np.log(_CLIP)), (np.argmax(scores, axis=1) != y).astype(np.float64)


@register_model("bnc")
class BNClassifier(BaseClassifier, Queryable):
    """The Bayesian-network classifier to pick first: it chooses its structure and its parameters by evidence.

    Each candidate -- a structure of `structures` with its generative tables
    (the prior `estimator`), and, for the structures whose tables can be
    refitted to the conditional likelihood (naive Bayes, TAN, FAN, Chow-Liu,
    KDB, selective KDB), the same structure with its tables refitted along the
    penalties of `penalty_grid` (:class:`~graphmodels.estimators.Discriminative`,
    ELR) -- is fitted on the training part of each of `n_folds` stratified
    inner folds and scored on its held-out part. Below 1,000 training rows
    (:data:`STRUCTURE_KEPT_ROWS`) the structure is learned again in each
    fold, so a structure that fits its own training rows is not favoured;
    from 1,000 rows, where one row hardly moves it, each fold keeps the
    structure learned on every row (the one the chosen model has) and refits
    its tables, unless the attributes have many states for the rows
    (:data:`MAX_KEPT_STRUCTURE_BIAS`). The candidates share the folds, each
    fold's counting engine (its cached tables) and each fold's generative fit
    between a structure's generative and discriminative candidates. Every structure's generative
    tables are scored first, then the discriminative paths: each walks its
    penalties from the strongest down, warm-started. A candidate clearly worse
    than the best one scored on every fold so far is dropped after a few folds
    (a race, as in :class:`~graphmodels.estimators.Discriminative`: by 2.5
    standard errors of the paired per-row difference, or by one when the
    folds are repeated), and a fold's generative fit is made only when a
    candidate still in the race reaches that fold. The
    candidate with the lowest held-out log-loss is kept (a discriminative one
    only when it beats its structure's generative tables by more than one
    standard error of the paired per-row difference, the one-standard-error
    rule of :class:`~graphmodels.estimators.Discriminative`), fitted on every
    row, and becomes ``model_``.

    Parameters
    ----------
    structures : "auto" or sequence of str, default="auto"
        Names of :data:`STRUCTURES`: ``"nb"``, ``"tan"``, ``"fan"``,
        ``"chow-liu"``, ``"kdb-1"``, ``"kdb-2"``, ``"skdb"``, ``"aode"``,
        ``"a2de"``, ``"hyperforest"``. ``"auto"`` is
        :data:`DEFAULT_STRUCTURES`.
    discriminative : bool, default=True
        Also the discriminative candidates of the structures that have them.
    penalty_grid : sequence of float, optional
        The penalties of the discriminative candidates (default
        ``(0.01, 0.1, 1, 10)``, :class:`~graphmodels.estimators.Discriminative`'s).
    n_folds : int or "auto", default="auto"
        Inner folds: ``"auto"`` is 5, or 10 below 200 training rows. Each is
        held out in turn and the candidates fitted on the other rows; from
        about 1,250 rows (with 5 folds) only the first folds that hold 1,000
        rows are held out (see
        :func:`scored_folds`), so that the choice costs about the same at any
        size and every candidate is fitted on as large a share of the rows as
        the model it chooses.
    n_repeats : int or "auto", default="auto"
        Repetitions of the inner cross-validation, each dealing the rows into
        folds with its own seed (0, 1, ...); each candidate's held-out loss of
        a row is its mean over the repetitions. ``"auto"`` is 3 below 200
        training rows, where one dealing of the folds decides between near
        candidates by chance, and 1 from 200 rows. Repetitions apply only where
        every row is held out in each (below 1,250 rows with 5 folds).
    estimator : str, dict or Estimator, default="leave-one-out"
        The generative prior of every candidate that takes it (AODE and AnDE,
        which cannot choose theirs by leave-one-out, keep their own default
        when this is a :class:`~graphmodels.estimators.LeaveOneOutSelection`).
    discretizer : {"auto", "mdl", "equal-frequency"}, None or a discretizer, default="auto"
        How numeric columns become states, once for every candidate (as
        :class:`~graphmodels.NaiveBayes`'s).
    categorical : list of column names, optional
        Columns kept as categories, never cut into intervals (as
        :class:`~graphmodels.NaiveBayes`'s).
    missing : {"value", "error"}, default="value"
    max_cells : int, default=10_000_000
        Every candidate's; a candidate whose tables (or parameter vector)
        would exceed it is left out (its row of ``selection_`` says so).

    Attributes
    ----------
    model_ : classifier
        The chosen candidate, fitted on every training row: an ordinary
        model of its class (``model_.fit(X, y)`` gives the same).
    selection_ : DataFrame
        One row per candidate: ``candidate`` (its description),
        ``structure``, ``parameterization`` (``"generative"`` or
        ``"discriminative"``), ``penalty``, the inner cross-validated
        ``log_loss`` (nats) and ``error`` (NaN for a penalty dropped from
        the race or not reached along the path, or a candidate too large),
        ``folds`` (the folds it was scored on, over every repetition), ``chosen``, and ``note``
        (why a candidate was left out, such as tables beyond `max_cells`).
    structure_ : networkx graph or Hyperforest
        ``model_.structure_``.
    classes_, encoder_, discretizer_, n_features_in_, feature_names_in_, n_rows_
        As every classifier's.

    See Also
    --------
    graphmodels.estimators.Discriminative : the discriminative tables and their penalty.
    graphmodels.estimators.LeaveOneOutSelection : the generative prior's choice.

    Notes
    -----
    Leave-one-out from the counts (:mod:`graphmodels.estimators.selection`)
    is exact for the tables of a fixed structure, and it picks each
    candidate's prior inside its fits here; it is not how the candidates are
    compared below :data:`STRUCTURE_KEPT_ROWS` rows, because the structure it
    scores was learned on the rows it leaves out: on 181 rows of soybean (19
    classes), TAN's leave-one-out log-loss is 0.14 and its 10-fold
    cross-validated one, the tree learned again in each fold, 0.52. From
    1,000 rows the folds do score the structure learned on every row, unless
    the attributes have so many states for the rows that a structure learned
    from them would gain much from its own rows
    (:data:`MAX_KEPT_STRUCTURE_BIAS`).

    References
    ----------
    .. [1] Friedman, N., Geiger, D., & Goldszmidt, M. (1997). Bayesian network
           classifiers. *Machine Learning*, 29(2-3), 131-163.
    .. [2] Zaidi, N. A., Webb, G. I., Carman, M. J., Petitjean, F., Buntine,
           W., Hynes, M., & De Sterck, H. (2017). Efficient parameter learning
           of Bayesian network classifiers. *Machine Learning*, 106(9),
           1289-1329.
    .. [3] Kohavi, R. (1995). A study of cross-validation and bootstrap for
           accuracy estimation and model selection. *IJCAI*, 1137-1145.

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> model = gm.BNClassifier(structures=["nb", "tan"]).fit(X, y)
    >>> model.selection_.columns.tolist()
    ['candidate', 'structure', 'parameterization', 'penalty', 'log_loss', 'error', 'folds', 'chosen', 'note']
    >>> type(model.model_).__name__
    'TAN'
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "structures": [Predicate(_check_structures, f"'auto' or a list of distinct names among {list(STRUCTURES)}")],
        "discriminative": [Boolean()],
        "penalty_grid": [Predicate(_check_grid, "None or a non-empty sequence of numbers >= 0")],
        "n_folds": [Options(["auto"]), Interval(numbers.Integral, 2, None)],
        "n_repeats": [Options(["auto"]), Interval(numbers.Integral, 1, None)],
    }

    _fitted_attributes: tuple[str, ...] = ("model_", "selection_", "structure_")

    # Declared for type checkers (set by fit): the chosen model is any of the candidates' classes.
    model_: Any
    selection_: pd.DataFrame

    def __init__(
        self,
        *,
        structures: str | Sequence[str] = "auto",
        discriminative: bool = True,
        penalty_grid: Sequence[float] | None = None,
        n_folds: int | str = "auto",
        n_repeats: int | str = "auto",
        estimator: str | dict[str, Any] | Estimator = "leave-one-out",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.structures = structures
        self.discriminative = discriminative
        self.penalty_grid = penalty_grid
        self.n_folds = n_folds
        self.n_repeats = n_repeats
        self.estimator = estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    # ------------------------------------------------------------------ settings
    def _structure_names(self) -> list[str]:
        return list(DEFAULT_STRUCTURES if isinstance(self.structures, str) else self.structures)

    def _grid(self) -> list[float]:
        grid = DEFAULT_PENALTY_GRID if self.penalty_grid is None else self.penalty_grid
        return sorted({float(v) for v in np.atleast_1d(np.asarray(grid, dtype=np.float64))}, reverse=True)

    def _resolve_estimator(self):
        """The prior is every candidate's, not this model's: check it only (no ``estimator_``)."""
        if isinstance(get_estimator(self.estimator), Discriminative):
            raise ValueError(
                "`estimator`: BNClassifier's estimator is the generative prior of its candidates; the "
                "discriminative ones are its own (discriminative=True). Pass a generative estimator, such as "
                "'leave-one-out'."
            )

    def candidate(self, structure: str, penalty: float | None = None) -> BaseClassifier:
        """The unfitted model of one candidate, as this classifier fits it.

        Parameters
        ----------
        structure : str
            A name of :data:`STRUCTURES`.
        penalty : float, optional
            For the discriminative candidate at this penalty; None for the
            generative one.

        Returns
        -------
        classifier
            Fitting it on the training rows gives ``model_`` when this
            candidate is the one chosen.
        """
        cls, params = STRUCTURES[structure]
        params = {
            **params,
            "discretizer": self.discretizer,
            "categorical": self.categorical,
            "missing": self.missing,
            "max_cells": self.max_cells,
        }
        prior = get_estimator(self.estimator)
        takes_prior = not isinstance(prior, LeaveOneOutSelection) or cls._selects_estimator
        if penalty is not None:
            settings: dict[str, Any] = {"penalty": float(penalty)}
            if self.estimator != "leave-one-out":
                settings["generative"] = self.estimator
            params["estimator"] = Discriminative(**settings)
        elif takes_prior:
            params["estimator"] = self.estimator
        return cls(**params)

    # ------------------------------------------------------------------ fit
    def _fit_training_counts(self, counts: TrainingCounts) -> None:
        """Choose by inner cross-validation over `counts`' rows, then fit the chosen candidate on all of them."""
        if counts.engine.distributed:
            raise InMemoryRowsRequired(
                "BNClassifier cannot be fitted from a Dask DataFrame: its inner cross-validation refits "
                "every candidate on subsets of the rows, which a Dask DataFrame keeps on its workers. Fit one "
                "model (gm.TAN(), gm.NaiveBayes()) or fit on in-memory data (X.compute())."
            )
        evidence = self._inner_cross_validation(counts)
        table = self._choose(evidence)
        chosen = table.loc[table["chosen"]].iloc[0]
        penalty = None if chosen["parameterization"] == "generative" else float(chosen["penalty"])
        # Each structure was fitted generatively on every row already, to fix its prior for the folds or
        # to give them its structure: a generative choice is that fit, a discriminative one refits its
        # tables (the same structure).
        model = evidence["on_every_row"].get(chosen["structure"])
        if model is None:
            model = self.candidate(chosen["structure"], penalty).fit_counts(counts)
        elif penalty is not None:
            model = copy.deepcopy(model)
            model.set_params(estimator=self.candidate(chosen["structure"], penalty).estimator)
            model._refit_discriminatively(counts.engine, get_estimator(model.estimator))
        self.model_ = model
        self.selection_ = table
        self.structure_ = self.model_.structure_

    def _fold_candidate(self, structure, counts, on_every_row, keep_structure):
        """The generative candidate as the inner folds fit it: its prior, when chosen by leave-one-out, fixed.

        The leave-one-out choice of the prior (among nine) is made once, on every row, and the
        folds fit that prior: it took most of a small set's inner cross-validation, and what the
        folds compare is the structure and its parameterization. Below
        :data:`STRUCTURE_KEPT_ROWS` training rows (or where the attributes have many states for
        the rows, :data:`MAX_KEPT_STRUCTURE_BIAS`) the structure is learned again in every fold (a
        selective KDB fold whose sub-model differs from the one chosen on every row then chooses its
        own prior, see :class:`_FoldFits`); from it, the folds keep the structure learned on every
        row, and only its tables are fitted on each fold's rows.
        """
        model = self.candidate(structure)
        selects_prior = isinstance(get_estimator(model.estimator), LeaveOneOutSelection)
        if selects_prior or keep_structure:
            fitted = on_every_row[structure] = self.candidate(structure).fit_counts(counts)
            if selects_prior:
                model.set_params(estimator=fitted.estimator_)
                if isinstance(model, SelectiveKDB):
                    # Its (k, attributes) grid scored as under the selection on every row.
                    model.set_params(grid_estimator=GRID_ESTIMATOR)
        return model

    def _fold_counts(self, counts, codes, weights, rows):
        """The TrainingCounts of some of the rows: a fresh engine over them, the same encoding."""
        engine = counts.engine
        fold = CountingEngine(
            codes[rows],
            engine.cardinalities,
            names=engine.names,
            sample_weight=None if np.all(weights == 1.0) else weights[rows],
            max_cells=engine.max_cells,
        )
        return TrainingCounts(
            fold,
            counts.encoder,
            counts.classes,
            counts.class_name,
            counts.feature_names_in,
            counts.missing,
            (len(rows), counts.n_features),
            counts.discretizer,
        )

    def _inner_cross_validation(self, counts: TrainingCounts) -> dict[str, Any]:
        """Every candidate's held-out loss on every scored row: ``{"rows", "weights", "options", "n_folds", "on_every_row"}``.

        Each option is a dict: ``structure``, ``parameterization``, ``penalty``,
        ``loss`` and ``error`` (arrays over all rows, NaN where not scored),
        ``folds`` (the number scored) and ``note`` (why a candidate is missing); ``on_every_row``
        holds the generative fits on every row that fixed a structure's prior or whose structure the
        folds keep, by structure.
        """
        codes, weights = counts.engine.rows()
        y = codes[:, -1].astype(np.int64)
        assert counts.classes is not None  # fit_counts refuses counts without a class
        n_classes = len(counts.classes)
        n_rows = len(y)
        n_folds = (5 if n_rows >= SMALL_SAMPLE_ROWS else 10) if self.n_folds == "auto" else int(self.n_folds)
        folds = scored_folds(y, n_classes, n_folds)
        scored = np.sort(np.concatenate([test for _, test in folds])) if folds else np.arange(n_rows)
        if not folds or (len(folds) < 2 and len(scored) == n_rows):
            # Too few rows to hold any out: every structure's generative candidate, unscored (the first is kept).
            unscored = np.full(n_rows, np.nan)
            note = "not scored: too few rows for inner folds"
            unfitted = [_option(name, None, unscored, unscored, 0, note) for name in self._structure_names()]
            return {"rows": scored, "weights": weights, "options": unfitted, "n_folds": len(folds), "on_every_row": {}}
        repeats = self._repeats(n_rows) if len(scored) == n_rows else 1
        # Each repetition's held-out losses fill their own copy of the rows ("slots": row + r * n_rows),
        # raced and pathed as one cross-validation; a row's loss is then its mean over the copies.
        slots = [test for _, test in folds]
        for r in range(1, repeats):
            more = scored_folds(y, n_classes, n_folds, seed=r)
            folds += more
            slots += [test + r * n_rows for _, test in more]
        y, weights = np.tile(y, repeats), np.tile(weights, repeats)  # by slot (a row's index: slot % n_rows)
        scored = np.concatenate([scored + r * n_rows for r in range(repeats)])
        fold_counts = [self._fold_counts(counts, codes, weights, train) for train, _ in folds]
        structure_kept = _structure_kept(n_rows, counts.engine.cardinalities)
        options: list[dict[str, Any]] = []
        on_every_row: dict[str, BaseClassifier] = {}  # fits that fixed a structure's prior or give the folds it
        race_z = RACE_Z if repeats == 1 else REPEATED_RACE_Z

        def best_complete():
            complete = [o for o in options if o["folds"] == len(folds)]
            if not complete:
                return None
            means = [float((o["loss"][scored] * weights[scored]).sum()) for o in complete]
            return complete[int(np.argmin(means))]["loss"]

        # Every structure's generative tables first, then the refits' paths (best generative structure
        # first): a path races against the best of them all, not only the structures before it.
        generative_fits: dict[str, _FoldFits] = {}
        for name in self._structure_names():
            rival = best_complete()
            try:
                keep_structure = structure_kept and _learns_structure(STRUCTURES[name][0])
                candidate = self._fold_candidate(name, counts, on_every_row, keep_structure)
                fits = _FoldFits(candidate, fold_counts, folds, slots, codes, y)
                if keep_structure:
                    fits.kept = on_every_row[name]
                elif isinstance(candidate, SelectiveKDB) and name in on_every_row:
                    fits.own_prior = (on_every_row[name], self.candidate(name).estimator)
                for k in range(len(folds)):
                    fits.model(k)
                    # The generative tables race as a penalty does; a fold a refits' path reaches
                    # later is fitted (and scored) then.
                    done = scored[np.isfinite(fits.loss[scored])]
                    if rival is not None and out_of_the_race(
                        fits.loss, rival, weights, done, len(scored), k + 1, len(folds), race_z
                    ):
                        break
            except (TableTooLargeError, MemoryError) as too_large:
                note, unscored = str(too_large).splitlines()[0], np.full(len(y), np.nan)
                options.append(_option(name, None, unscored, unscored, 0, f"left out: {note}", too_large))
                continue
            generative_fits[name] = fits
            options.append(_option(name, None, fits.loss, fits.error, fits.n_fitted))
        refit_options: dict[str, list[dict[str, Any]]] = {}

        def generative_loss(item):
            # The paths of the best generative structures first: their refits are the likeliest
            # winners, and a strong rival early races the others' penalties out after a few folds.
            fits = item[1]
            if fits.n_fitted < len(folds):
                return np.inf  # raced out
            return float((fits.loss[scored] * weights[scored]).sum())

        for name, fits in sorted(generative_fits.items(), key=generative_loss):
            if self.discriminative and STRUCTURES[name][0]._fits_discriminative:
                # The generative tables are the path's baseline where scored on every fold (not raced out).
                baseline = fits.loss if fits.n_fitted == len(folds) else None
                refit_options[name] = self._refit_options(
                    name, fits, weights, scored, baseline, best_complete(), race_z
                )
                options.extend(refit_options[name])
        # The candidates in the order of the structures, each generative one before its refits.
        ordered = []
        for option in options:
            if option["penalty"] is None:
                if option["structure"] in generative_fits:
                    made = generative_fits[option["structure"]]
                    option["folds"] = made.n_fitted  # with the folds a path fitted later
                    if made.refusal is not None:  # a later fold's structure needed tables beyond max_cells
                        option["note"] = f"left out: {str(made.refusal).splitlines()[0]}"
                        option["too_large"] = made.refusal
                    elif option["folds"] < len(folds):
                        option["note"] = "dropped from the race: clearly worse than the best so far"
                ordered += [option, *refit_options.get(option["structure"], [])]
        options = ordered
        for option in options:  # each row's mean over the repetitions
            option["loss"] = option["loss"].reshape(repeats, n_rows).mean(axis=0)
            option["error"] = option["error"].reshape(repeats, n_rows).mean(axis=0)
        return {
            "rows": scored[: len(scored) // repeats],
            "weights": weights[:n_rows],
            "options": options,
            "n_folds": len(folds),
            "on_every_row": on_every_row,
        }

    def _refit_options(self, name, fits, weights, scored, baseline, rival, race_z):
        """The discriminative candidates of one structure: its penalty path over the inner folds.

        Each fold's problem starts from that fold's generative fit, made only when the path
        first reaches the fold: a path raced out after a few folds never fits the generative
        tables of the others.
        """
        grid, y, codes = self._grid(), fits.y, fits.codes
        discriminative = Discriminative()

        def build(k):
            model = fits.model(k)
            train, test = fits.folds[k]
            tables, owners = model._family_tables()
            n_parameters = len(model.class_log_prior_) + sum(int(np.size(t)) for t in tables)
            if n_parameters * _LBFGS_ARRAYS > self.max_cells:
                raise TableTooLargeError(
                    f"left out: its parameter vector ({n_parameters:,} cells, L-BFGS holds {_LBFGS_ARRAYS} arrays "
                    f"of its size) exceeds max_cells={self.max_cells:,}"
                )
            return path_fold(
                model.class_log_prior_,
                tables,
                model._family_index(codes[train, :-1]),
                y[train],
                weights[train],
                model._family_index(codes[test, :-1]),
                fits.slots[k],
                discriminative,
                owners,
            )

        n_train = max(len(fits.folds[0][0]), 1)
        gtol = max(INNER_GTOL, discriminative.tol) * max(1.0, INNER_GTOL_ROWS / n_train)
        try:
            path = penalty_path(
                _LazyFolds(build, len(fits.folds)), grid, y, weights, scored, baseline, discriminative.max_iter, gtol,
                rival=rival, race_z=race_z, path_race_z=PATH_RACE_Z,
            )  # fmt: skip
        except (TableTooLargeError, MemoryError) as refused:
            note = str(refused).splitlines()[0]
            note = note if note.startswith("left out") else f"left out: {note}"
            return [_option(name, p, np.full(len(y), np.nan), np.full(len(y), np.nan), 0, note) for p in grid]
        return [
            _option(name, penalty, path.row_loss[g], path.row_error[g], int(path.folds[g]))
            for g, penalty in enumerate(grid)
        ]

    def _repeats(self, n_rows: int) -> int:
        if self.n_repeats == "auto":
            return SMALL_SAMPLE_REPEATS if n_rows < SMALL_SAMPLE_ROWS else 1
        return int(self.n_repeats)

    def _choose(self, evidence: dict[str, Any]) -> pd.DataFrame:
        """The table of candidates, with the chosen one marked."""
        rows, weights, n_folds = evidence["rows"], evidence["weights"], evidence["n_folds"]
        w = weights[rows]
        total = max(float(w.sum()), 1e-300)
        records = []
        for option in evidence["options"]:
            complete = option["folds"] == n_folds
            records.append(
                {
                    "candidate": _describe(option),
                    "structure": option["structure"],
                    "parameterization": "generative" if option["penalty"] is None else "discriminative",
                    "penalty": np.nan if option["penalty"] is None else option["penalty"],
                    "log_loss": float((option["loss"][rows] * w).sum() / total) if complete else np.nan,
                    "error": float((option["error"][rows] * w).sum() / total) if complete else np.nan,
                    "folds": int(option["folds"]),
                    "chosen": False,
                    "note": option["note"],
                }
            )
        table = pd.DataFrame.from_records(records)
        # Each structure's own choice: its best penalty only when it beats the generative tables by
        # more than one standard error of the paired difference.
        finalists = []
        for name in dict.fromkeys(table["structure"]):
            own = table.index[table["structure"] == name]
            generative = own[table.loc[own, "parameterization"] == "generative"][0]
            if not np.isfinite(table.loc[generative, "log_loss"]):
                # Left out (too large), not scored, or raced out: then so were its refits, whose
                # path fits the generative tables of every fold it reaches.
                continue
            pick = generative
            refits = [i for i in own if i != generative and np.isfinite(table.loc[i, "log_loss"])]
            if refits:
                best = min(refits, key=lambda i: table.loc[i, "log_loss"])
                options = evidence["options"]
                _, error = _mean_and_error(options[best]["loss"][rows] - options[generative]["loss"][rows], w)
                if table.loc[best, "log_loss"] + error < table.loc[generative, "log_loss"]:
                    pick = best
            finalists.append(pick)
        if not finalists and n_folds < 2:
            finalists = [int(table.index[0])]
        if not finalists:
            raise _smallest_refusal(evidence["options"], table)
        chosen = min(finalists, key=lambda i: (np.nan_to_num(table.loc[i, "log_loss"], nan=np.inf), finalists.index(i)))
        table.loc[chosen, "chosen"] = True
        return table

    # ------------------------------------------------------------------ prediction and questions
    def _joint_log_likelihood(self, codes):
        return self.model_._joint_log_likelihood(codes)

    def _class_log_scores(self, codes):
        return self.model_._class_log_scores(codes)

    def _build_distribution(self) -> Distribution | Mixture:
        return self.model_.distribution()

    def cpd(self, node: Hashable) -> pd.DataFrame:
        """The chosen model's conditional probability table of `node` (see its ``cpd``)."""
        self._check_fitted()
        if not hasattr(self.model_, "cpd"):
            raise TypeError(f"The chosen {type(self.model_).__name__} has no conditional probability tables.")
        return self.model_.cpd(node)

    def _validate_fitted_state(self) -> None:
        """The classifier's checks, then ``model_``: a fitted candidate over the same columns and classes."""
        super()._validate_fitted_state()
        model = _fitted.instance("model_", self.model_, BaseClassifier, "a fitted classifier")
        if isinstance(model, BNClassifier) or type(model) not in {cls for cls, _ in STRUCTURES.values()}:
            raise _fitted.FittedStateError(
                "model_", f"is a {type(model).__name__}, not one of the candidates' classes."
            )
        if not model._is_fitted():
            raise _fitted.FittedStateError("model_", "is not fitted.")
        if list(model.classes_) != list(self.classes_):
            raise _fitted.FittedStateError("model_", "has other classes than classes_.")
        if list(model.encoder_.columns_) != list(self.encoder_.columns_):
            raise _fitted.FittedStateError("model_", "has other columns than encoder_.")
        table = _fitted.instance("selection_", self.selection_, pd.DataFrame, "a DataFrame")
        expected = [
            "candidate", "structure", "parameterization", "penalty", "log_loss", "error", "folds", "chosen", "note",
        ]  # fmt: skip
        if list(table.columns) != expected:
            raise _fitted.FittedStateError("selection_", f"must have the columns {expected}.")


def scored_folds(
    y, n_classes: int, n_folds: int, max_scored: int | None = None, seed: int = 0
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The inner folds of a :class:`BNClassifier`: ``(training rows, held-out rows)`` pairs.

    Every row is dealt into `n_folds` stratified folds (with `seed`; seed 0 deals them as
    :func:`~graphmodels.estimators.discriminative.inner_folds` does);
    each fold is held out in turn and the candidates fitted on all the other
    rows. Beyond `max_scored` rows only the first folds that hold them are
    held out: the scoring costs about the same at any size, and every
    candidate is still fitted on ``(n_folds - 1) / n_folds`` of the rows. A
    fold fitted on a subsample would score a candidate on a smaller learning
    curve than the model it chooses: on letter (16,000 training rows, 3,000
    scored under the earlier limit), training each inner fold on 2,400 rows kept AODE (0.489 nats on
    the outer folds) over discriminative selective KDB (0.403).

    Parameters
    ----------
    y : ndarray of int
        Class codes.
    n_classes : int
    n_folds : int
    max_scored : int, optional
        Default :data:`MAX_SCORED_ROWS` (1,000).
    seed : int, default=0
        The shuffle of each class's rows before they are dealt (one per repetition).

    Returns
    -------
    list of (ndarray, ndarray)
        Sorted row positions; folds without training or held-out rows are left out.
    """
    y = np.asarray(y, dtype=np.int64)
    max_scored = MAX_SCORED_ROWS if max_scored is None else max_scored
    n_folds = max(2, min(int(n_folds), len(y)))
    fold_of = _stratified_folds(y, n_folds, n_classes, seed)
    rows = np.arange(len(y))
    pairs, held_out = [], 0
    for k in range(n_folds):
        train, test = rows[fold_of != k], rows[fold_of == k]
        if len(train) and len(test):
            pairs.append((train, test))
            held_out += len(test)
        if held_out >= max_scored:
            break
    return pairs


class _FoldFits:
    """One structure's generative fits on the inner folds, each made (and scored) when first asked for.

    ``kept`` is the fit on every row whose structure every fold keeps (from
    :data:`STRUCTURE_KEPT_ROWS` rows): a fold's model is a copy of it with its tables fitted on
    the fold's rows with the candidate's prior.

    ``own_prior`` is ``(fit on every row, the selection of its prior)`` for a selective KDB: the
    prior the selection chose on every row suits that fit's sub-model, and a fold whose
    ``(k, attributes)`` differ chooses its own, by leave-one-out from the fold's counts (its
    tables refitted on the fold's sub-model). The prior chosen for k = 5 on monk2's 480
    training rows (BDeu(5)) gave 1.06 nats on an inner fold whose 384 rows chose k = 4, where
    that fold's own choice gave 0.53: selective KDB's inner loss was 0.65 against 0.53 for the
    model fitted alone, and BNClassifier chose worse candidates (0.556 nats on the outer folds,
    0.389 for selective KDB alone; RESULTS ``bnclassifier-settings``).
    """

    def __init__(self, candidate, fold_counts, folds, slots, codes, y):
        self.candidate, self.fold_counts, self.folds, self.slots = candidate, fold_counts, folds, slots
        self.codes, self.y = codes, y
        self.loss, self.error = np.full(len(y), np.nan), np.full(len(y), np.nan)  # over the slots
        self.models: list[BaseClassifier | None] = [None] * len(folds)
        self.refusal: Exception | None = None  # a fold's fit refused (tables beyond max_cells)
        self.own_prior: tuple[Any, Any] | None = None  # (selective KDB on every row, its prior selection)
        self.kept: BaseClassifier | None = None  # the fit on every row whose structure the folds keep

    @property
    def n_fitted(self) -> int:
        return sum(model is not None for model in self.models)

    def model(self, k: int) -> BaseClassifier:
        model = self.models[k]
        if model is None:
            test, slot = self.folds[k][1], self.slots[k]
            try:
                if self.kept is not None:
                    model = copy.copy(self.kept)  # refitting assigns new tables: the original keeps its own
                    model._refit_tables(self.fold_counts[k].engine, self.candidate.estimator)
                else:
                    model = clone_model(self.candidate).fit_counts(self.fold_counts[k])
                    if self.own_prior is not None:
                        on_every_row, selection = self.own_prior
                        if not model._same_sub_model(on_every_row):
                            model._refit_prior(self.fold_counts[k].engine, selection)
                self.models[k] = model
            except (TableTooLargeError, MemoryError) as refused:
                self.refusal = refused
                raise
            self.loss[slot], self.error[slot] = _row_loss(model._class_log_scores(self.codes[test, :-1]), self.y[slot])
        return model


class _LazyFolds(Sequence):
    """The penalty path's folds, each built on first access (``build(k)``) and kept."""

    def __init__(self, build, n_folds):
        self._build, self._folds = build, [None] * n_folds

    def __len__(self):
        return len(self._folds)

    def __getitem__(self, k):
        k = range(len(self))[k]  # an IndexError past the end ends iteration
        if self._folds[k] is None:
            self._folds[k] = self._build(k)
        return self._folds[k]


def _structure_kept(n_rows, cardinalities):
    """Whether the inner folds keep the structure learned on every row (:data:`STRUCTURE_KEPT_ROWS`).

    `cardinalities` are the attributes' numbers of states, the class's last.
    """
    if n_rows < STRUCTURE_KEPT_ROWS:
        return False
    most, second = [*sorted((int(r) for r in cardinalities[:-1]), reverse=True), 1, 1][:2]  # 1: no pair
    return (most - 1) * (second - 1) * int(cardinalities[-1]) / (2.0 * n_rows) <= MAX_KEPT_STRUCTURE_BIAS


def _learns_structure(cls):
    """Whether a model class's structure depends on the rows (naive Bayes' and the AnDE family's do not)."""
    return not issubclass(cls, (NaiveBayes, AODE, AnDE))


def _option(structure, penalty, loss, error, folds, note="", too_large=None):
    return {
        "structure": structure,
        "penalty": penalty,
        "loss": loss,
        "error": error,
        "folds": folds,
        "note": note,
        "too_large": too_large,
    }


def _smallest_refusal(options, table):
    """No candidate fits: the refusal of the one that needs the fewest cells, so that raising max_cells to it fits."""
    refusals = [(o["too_large"], i) for i, o in enumerate(options) if o["too_large"] is not None]
    sized = [(e, i) for e, i in refusals if isinstance(e, TableTooLargeError) and e.cells is not None]
    if not sized:
        return ValueError("BNClassifier: no candidate could be fitted; see the notes of `selection_`.")
    error, i = min(sized, key=lambda pair: pair[0].cells)
    return TableTooLargeError(
        f"BNClassifier: no candidate fits within {error.parameter}={error.limit:,}; the smallest, "
        f"{table.loc[i, 'candidate']}, says: {error}",
        cells=error.cells,
        limit=error.limit,
        parameter=error.parameter,
        model="BNClassifier",
    )


def _describe(option):
    cls = STRUCTURES[option["structure"]][0]
    params = STRUCTURES[option["structure"]][1]
    name = cls.__name__ + (f"({', '.join(f'{k}={v}' for k, v in params.items())})" if params else "")
    if option["penalty"] is None:
        return name
    return f"{name}, discriminative (penalty {option['penalty']:g})"

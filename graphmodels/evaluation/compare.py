"""Cross-validated comparison of classifiers on several data sets.

Discretization is fitted on each training fold only, so no information from
the test fold leaks into the bins. ``compare`` returns a tidy table of every
fold, the per-data-set means, and the average ranks of Jakulin & Rish's
Table 1.

Each fold's log-loss clips the probability of the true class at
``1e-15`` (scikit-learn's long-standing default), so a class absent from a
training fold (a rare class) costs 34.5 nats per test row instead of making
the mean infinite and the standard deviation ``NaN``; a ``UserWarning``
names such classes and their test rows. Runs that last more than a few
seconds show their progress on stderr when it is a terminal (``verbose``).

A model that raises in ``compare`` (a memory guard, data it cannot handle)
is reported as failed, with its one-line reason, and the other models go
on: see the Notes of :func:`compare` for how it appears in the tables and
the ranks.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Hashable, Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data.discretize import DISCRETIZERS, make_discretizer
from ..data.encoding import as_frame
from ..models.base import clone_model
from .metrics import error_rate, log_loss, mean_log_likelihood
from .splits import RepeatedRandomSplit, RepeatedStratifiedKFold

__all__ = [
    "cross_validate",
    "evaluate_density",
    "compare",
    "Comparison",
    "ModelFailedWarning",
    "failure_reason",
    "clone",
    "make_discretizer",
    "DISCRETIZERS",
]

#: scikit-learn's name for :func:`graphmodels.models.clone_model` (the same function).
clone = clone_model

#: Each fold's log-loss clips the probability of the true class to at least this (scikit-learn's
#: long-standing ``eps``): a row costs at most ``-log(1e-15)`` = 34.5 nats.
_LOG_LOSS_CLIP = 1e-15

#: Seconds a run lasts before its progress appears on an interactive stderr (``verbose=None``).
_PROGRESS_DELAY = 3.0


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class _Progress:
    """Progress of a run of folds on stderr.

    ``verbose=None``: only when stderr is a terminal, and only once the run has lasted
    ``_PROGRESS_DELAY`` seconds (then the summary lines held back so far are shown too);
    ``True``: from the start, also when stderr is a file; ``False``: never. On a terminal
    the fold counter is one line rewritten in place; elsewhere only whole lines are written.
    """

    def __init__(self, verbose: bool | None, total: int | None, *, fold_lines: bool = False) -> None:
        self.stream = sys.stderr
        self.tty = _isatty(self.stream)
        self.enabled = self.tty if verbose is None else bool(verbose)
        self.delay = _PROGRESS_DELAY if verbose is None else 0.0
        self.total = total
        self.fold_lines = fold_lines  # a line per fold when stderr is not a terminal
        self.done = 0
        self.start = time.perf_counter()
        self._held: list[str] = []
        self._shown = 0  # width of the in-place line now on the terminal
        self._last = -1.0

    def _active(self) -> bool:
        if not self.enabled or time.perf_counter() - self.start < self.delay:
            return False
        if self._held:
            held, self._held = self._held, []
            for text in held:
                print(text, file=self.stream, flush=True)
        return True

    def fold(self, label: str, detail: str = "") -> None:
        """Count one finished fold; `label` says what runs, `detail` how the fold went."""
        self.done += 1
        if not self.enabled:
            return
        if not self.tty:
            if self.fold_lines:
                self.line(f"{label}: fold {self.done}{f'/{self.total}' if self.total else ''} {detail}".rstrip())
            return
        if not self._active():
            return
        now = time.perf_counter()
        if now - self._last < 0.1 and self.done != self.total:
            return  # at most ten updates a second
        self._last = now
        elapsed = now - self.start
        if self.total:
            left = elapsed / self.done * (self.total - self.done)
            text = f"{label}: {self.done}/{self.total} folds done, {elapsed:.0f} s elapsed, about {left:.0f} s left"
        else:
            text = f"{label}: {self.done} folds done, {elapsed:.0f} s elapsed"
        self.stream.write("\r" + text.ljust(self._shown))
        self.stream.flush()
        self._shown = len(text)

    def line(self, text: str) -> None:
        """Write a whole line (held back while the run is younger than the delay)."""
        if not self.enabled:
            return
        if not self._active():
            self._held.append(text)
            return
        self._clear()
        print(text, file=self.stream, flush=True)

    def close(self) -> None:
        """Remove the in-place counter from the terminal."""
        if self.enabled:
            self._clear()

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0


class _FixedSplits:
    """A splitter that yields the same stored ``(train, test)`` pairs every time."""

    def __init__(self, splits: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.splits = splits

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return len(self.splits)

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterable[tuple[np.ndarray, np.ndarray]]:
        return iter(self.splits)


def _n_splits(cv, X, y) -> int | None:
    try:
        return int(cv.get_n_splits(X, y))
    except (AttributeError, TypeError, ValueError):
        return None


def _warn_unseen(unseen: dict[Any, list[int]], n_folds: int, where: str = "") -> None:
    """One warning for the classes some training folds lack: ``{class: [folds, test rows]}``."""
    if not unseen:
        return
    parts = [
        f"{label!r} ({rows} test row{'s' if rows != 1 else ''} in {folds} fold{'s' if folds != 1 else ''})"
        for label, (folds, rows) in unseen.items()
    ]
    noun = "Class" if len(parts) == 1 else "Classes"
    verb = "is" if len(parts) == 1 else "are"
    warnings.warn(
        f"{noun} {', '.join(parts)} {verb} absent from the training rows of some of the {n_folds} folds{where}: "
        f"the model gives such test rows probability 0, scored as {_LOG_LOSS_CLIP:g} "
        f"({-np.log(_LOG_LOSS_CLIP):.1f} nats each) in the fold's log-loss. Merge or drop rare classes, "
        "or use fewer folds.",
        UserWarning,
        stacklevel=3,
    )


def _split_xy(data, class_column):
    if isinstance(data, tuple) and len(data) == 2:
        X, y = data
        return as_frame(X), pd.Series(np.asarray(y, dtype=object) if not isinstance(y, pd.Series) else y)
    if isinstance(data, pd.DataFrame):
        if class_column not in data.columns:
            raise ValueError(f"Class column {class_column!r} not found; columns are {list(data.columns)[:20]}.")
        return data.drop(columns=[class_column]), data[class_column]
    raise TypeError(f"A data set must be a DataFrame with a class column or an (X, y) pair, got {type(data).__name__}.")


def cross_validate(
    model: Any,
    X: pd.DataFrame | ArrayLike,
    y: ArrayLike,
    *,
    cv: Any = None,
    discretizer: str | Any | None = None,
    random_state: int | np.random.Generator | None = 0,
    verbose: bool | None = None,
) -> pd.DataFrame:
    """Fit and test `model` on every fold; one row of metrics per fold.

    Parameters
    ----------
    model : classifier
        Cloned for every fold (``type(model)(**model.get_params())``).
    X : DataFrame or 2-D array-like
    y : array-like
    cv : splitter, optional
        Defaults to ``RepeatedStratifiedKFold(n_splits=5, n_repeats=5,
        random_state=random_state)``, the protocol of Jakulin & Rish.
    discretizer : None, str or transformer
        Fitted on each training fold (``"mdl"`` is Fayyad-Irani with the
        training labels, ``"equal-frequency"`` the Liang & Srebro binning).
    random_state : None, int or numpy Generator, default=0
        Seed of the default splitter.
    verbose : bool or None, default=None
        Progress on stderr. None: a fold counter, rewritten in place, when
        stderr is a terminal and the run has lasted more than a few seconds;
        True: always (one line per fold when stderr is not a terminal);
        False: never.

    Returns
    -------
    DataFrame
        Columns ``split``, ``n_train``, ``n_test``, ``log_loss`` (nats per
        instance), ``error``, ``fit_time``, ``predict_time`` (seconds).

    Warns
    -----
    UserWarning
        When a class of a test fold is absent from its training fold (a
        class rarer than the number of folds, or a splitter that does not
        stratify), naming the classes and how many test rows they have.

    Notes
    -----
    Each fold's ``log_loss`` is :func:`~graphmodels.evaluation.log_loss`
    with ``eps=1e-15``: the probability of a row's true class is clipped to
    at least ``1e-15``, as scikit-learn's ``log_loss`` does, so a test row
    whose class the training fold lacks (probability 0) costs
    ``-log(1e-15)`` = 34.5 nats and the mean and standard deviation stay
    finite.

    Examples
    --------
    >>> import graphmodels as gm
    >>> frame = gm.datasets.load("lenses")
    >>> cv = gm.evaluation.RepeatedStratifiedKFold(n_splits=3, random_state=0)
    >>> folds = cross_validate(gm.NaiveBayes(), frame.drop(columns="class"), frame["class"], cv=cv)
    >>> folds[["split", "n_train", "n_test"]].values.tolist()
    [[0, 16, 8], [1, 16, 8], [2, 16, 8]]
    """
    frame, labels, cv = _check_cv_data(X, y, cv, random_state)
    progress = _Progress(verbose, _n_splits(cv, frame, labels), fold_lines=True)
    try:
        folds, unseen = _run_folds(model, frame, labels, cv, discretizer, progress, type(model).__name__)
    finally:
        progress.close()
    _warn_unseen(unseen, len(folds))
    return folds


def _check_cv_data(
    X: Any, y: Any, cv: Any, random_state: int | np.random.Generator | None
) -> tuple[pd.DataFrame, pd.Series, Any]:
    X = as_frame(X)
    y = pd.Series(np.asarray(y, dtype=object), index=X.index) if not isinstance(y, pd.Series) else y
    if len(X) != len(y):
        raise ValueError(f"`X` has {len(X)} rows but `y` has {len(y)} labels.")
    cv = cv if cv is not None else RepeatedStratifiedKFold(n_splits=5, n_repeats=5, random_state=random_state)
    return X, y, cv


def _run_folds(
    model: Any, X: pd.DataFrame, y: pd.Series, cv: Any, discretizer: Any, progress: _Progress, label: str
) -> tuple[pd.DataFrame, dict[Any, list[int]]]:
    """The folds of :func:`cross_validate` and the classes absent from training folds.

    Returns the per-fold table and ``{class: [folds, test rows]}`` of the test labels that
    their training fold lacks.
    """
    rows: list[dict[str, Any]] = []
    unseen: dict[Any, list[int]] = {}
    for row in _fold_rows(model, X, y, cv, discretizer, unseen):
        rows.append(row)
        progress.fold(label, f"log-loss {row['log_loss']:.3f}, error {row['error']:.3f}")
    return pd.DataFrame(rows), unseen


def _fold_rows(
    model: Any, X: pd.DataFrame, y: pd.Series, cv: Any, discretizer: Any, unseen: dict[Any, list[int]]
) -> Iterator[dict[str, Any]]:
    """One row of metrics per fold, as each fold ends; `unseen` collects the classes its training folds lack."""
    for k, (train, test) in enumerate(cv.split(X, y)):
        X_train, X_test = X.iloc[train], X.iloc[test]
        y_train, y_test = y.iloc[train], y.iloc[test]
        binner = make_discretizer(discretizer)
        if binner is not None:
            binner = clone(binner) if hasattr(binner, "get_params") else binner
            X_train = binner.fit(X_train, y_train).transform(X_train)
            X_test = binner.transform(X_test)
        estimator = clone(model)
        start = time.perf_counter()
        estimator.fit(X_train, y_train)
        fit_time = time.perf_counter() - start
        start = time.perf_counter()
        log_proba = estimator.predict_log_proba(X_test)
        predicted = estimator.classes_[np.argmax(log_proba, axis=1)]
        predict_time = time.perf_counter() - start
        truth = np.asarray(y_test, dtype=object)
        absent = ~np.isin(truth, np.asarray(estimator.classes_, dtype=object))
        if absent.any():
            for label, count in pd.Series(truth[absent], dtype=object).value_counts(sort=False).items():
                entry = unseen.setdefault(label, [0, 0])
                entry[0] += 1
                entry[1] += int(count)
        yield {
            "split": k,
            "n_train": len(train),
            "n_test": len(test),
            "log_loss": log_loss(y_test, log_proba, estimator.classes_, eps=_LOG_LOSS_CLIP),
            "error": error_rate(y_test, predicted),
            "fit_time": fit_time,
            "predict_time": predict_time,
        }


def evaluate_density(
    model: Any,
    X: pd.DataFrame | ArrayLike,
    *,
    cv: Any = None,
    discretizer: str | Any | None = None,
    random_state: int | np.random.Generator | None = 0,
    verbose: bool | None = None,
) -> pd.DataFrame:
    """Test log-likelihood of a density estimator on repeated splits.

    Parameters
    ----------
    model : density estimator
        Has ``fit(X)`` and ``score_samples(X)``; cloned for every split.
    X : DataFrame or 2-D array-like
    cv : splitter, optional
        Defaults to ``RepeatedRandomSplit(test_size=0.1, n_repeats=10)``,
        the 90/10 protocol of Liang & Srebro (2004).
    discretizer : None, str or transformer
        Fitted on each training split (unsupervised ones only).
    random_state : None, int or numpy Generator, default=0
        Seed of the default splitter.
    verbose : bool or None, default=None
        Progress on stderr, as in :func:`cross_validate`.

    Returns
    -------
    DataFrame
        Columns ``split``, ``n_train``, ``n_test``, ``test_log_likelihood``
        (mean nats per instance), ``fit_time``, ``predict_time``.
    """
    X = as_frame(X)
    cv = cv if cv is not None else RepeatedRandomSplit(test_size=0.1, n_repeats=10, random_state=random_state)
    progress = _Progress(verbose, _n_splits(cv, X, None), fold_lines=True)
    try:
        return _run_density_splits(model, X, cv, discretizer, progress)
    finally:
        progress.close()


def _run_density_splits(model: Any, X: pd.DataFrame, cv: Any, discretizer: Any, progress: _Progress) -> pd.DataFrame:
    rows = []
    for k, (train, test) in enumerate(cv.split(X)):
        X_train, X_test = X.iloc[train], X.iloc[test]
        binner = make_discretizer(discretizer)
        if binner is not None:
            binner = clone(binner) if hasattr(binner, "get_params") else binner
            X_train = binner.fit(X_train).transform(X_train)
            X_test = binner.transform(X_test)
        estimator = clone(model)
        start = time.perf_counter()
        estimator.fit(X_train)
        fit_time = time.perf_counter() - start
        start = time.perf_counter()
        scores = estimator.score_samples(X_test)
        rows.append(
            {
                "split": k,
                "n_train": len(train),
                "n_test": len(test),
                "test_log_likelihood": mean_log_likelihood(scores),
                "fit_time": fit_time,
                "predict_time": time.perf_counter() - start,
            }
        )
        progress.fold(type(model).__name__, f"test log-likelihood {rows[-1]['test_log_likelihood']:.3f}")
    return pd.DataFrame(rows)


class ModelFailedWarning(UserWarning):
    """A model could not be fitted or could not predict in :func:`compare`; the others went on.

    Filter it (``warnings.filterwarnings("ignore", category=ModelFailedWarning)``)
    once the ``failure`` column of :attr:`Comparison.summary` is read instead.
    """


class Comparison(NamedTuple):
    """Result of :func:`compare`.

    Attributes
    ----------
    results : DataFrame
        One row per data set, model and split (tidy). A model that failed
        on a data set has no rows for it.
    summary : DataFrame
        One row per data set and model: mean and standard deviation of the
        metrics, the rank of each model within its data set by log-loss and
        by error, ``status`` (``"ok"`` or ``"failed"``) and ``failure`` (the
        one-line reason of a failed model, else ``""``). A failed model's
        metrics and ranks are ``NaN``.
    ranks : DataFrame
        Average rank of each model over the data sets (1 is best), by
        log-loss and by error, as at the foot of Jakulin & Rish's Table 1,
        and ``failed``, the number of data sets on which the model failed
        (its average is over the others).
    """

    results: pd.DataFrame
    summary: pd.DataFrame
    ranks: pd.DataFrame

    def table(self, metric: str = "log_loss") -> pd.DataFrame:
        """Wide table: one row per data set, one column per model, of a metric's mean.

        Parameters
        ----------
        metric : str, default="log_loss"
            A column of `summary` (``"log_loss"``, ``"error"``, ``"fit_time"``, ...).
            A model that failed on a data set has ``NaN`` there.

        Returns
        -------
        DataFrame
        """
        return self.summary.pivot(index="dataset", columns="model", values=metric)

    @property
    def failures(self) -> pd.DataFrame:
        """The models that failed: columns ``dataset``, ``model`` and ``failure`` (empty when none did)."""
        failed = self.summary[self.summary["status"] == "failed"]
        return failed[["dataset", "model", "failure"]].reset_index(drop=True)


def failure_reason(error: BaseException) -> str:
    """What went wrong, in one line: the exception's type and message (``"ValueError: ..."``).

    Parameters
    ----------
    error : BaseException

    Returns
    -------
    str
    """
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _resolve_models(models: Any) -> dict[Any, Any]:
    from ..models import CLASSIFIERS

    if isinstance(models, dict):
        return dict(models)
    resolved = {}
    for item in models:
        if isinstance(item, str):
            key = item.lower()
            if key not in CLASSIFIERS:
                raise ValueError(f"Unknown model {item!r}; valid names: {sorted(CLASSIFIERS)}.")
            resolved[item] = CLASSIFIERS[key]()
        else:
            resolved[type(item).__name__] = item
    return resolved


def _resolve_datasets(datasets, class_column):
    from ..data import datasets as bundled

    if isinstance(datasets, (str, pd.DataFrame)):
        datasets = [datasets]
    if isinstance(datasets, dict):
        items = datasets.items()
    else:
        items = []
        for i, item in enumerate(datasets):
            if isinstance(item, str):
                items.append((item, bundled.load(item)))
            else:
                items.append((f"data{i}", item))
    return {name: _split_xy(data, class_column) for name, data in items}


def compare(
    models: dict[str, Any] | Iterable[Any],
    datasets: dict[str, Any] | Iterable[Any] | str | pd.DataFrame,
    *,
    cv: Any = None,
    discretizer: str | Any | None = None,
    class_column: Hashable = "class",
    random_state: int | np.random.Generator | None = 0,
    verbose: bool | None = None,
    errors: str = "report",
) -> Comparison:
    """Cross-validate every model on every data set, as Table 1 of Jakulin & Rish.

    Parameters
    ----------
    models : dict of name -> classifier, or list of names / classifiers
        Names are those of :data:`graphmodels.models.CLASSIFIERS`
        (``"nb"``, ``"tan"``, ``"fan"``, ``"chow-liu"``, ``"aode"``).
    datasets : dict of name -> data, or list of bundled names / data
        Each data set is a DataFrame with a `class_column`, or an ``(X, y)``
        pair; a single name or DataFrame is one data set.
    cv : splitter, optional
        Defaults to 5 x 5 stratified cross-validation.
    discretizer : None, str or transformer
        Fitted within each training fold.
    class_column : hashable, default="class"
    random_state : None, int or numpy Generator, default=0
        Seed of the default splitter: every model sees the same folds.
    verbose : bool or None, default=None
        Progress on stderr: a line per data set and model, and on a terminal
        a fold counter rewritten in place. None: only when stderr is a
        terminal and the run has lasted more than a few seconds; True:
        always (for logs); False: never.
    errors : {"report", "raise"}, default="report"
        What a model that raises in ``fit`` or ``predict`` on a fold does
        (a table beyond its ``max_cells``, data it cannot handle):
        ``"report"`` marks it failed on that data set, with its one-line
        reason, warns, and goes on with the other models; ``"raise"`` stops
        the comparison with that error.

    Returns
    -------
    Comparison
        ``(results, summary, ranks)``.

    Raises
    ------
    ValueError
        When every model failed on every data set (``errors="report"``),
        with each one's reason, as scikit-learn's ``cross_validate`` when
        all its fits fail.

    Warns
    -----
    UserWarning
        Once per data set whose test folds hold a class that their training
        fold lacks, naming the classes and their test rows.
    ModelFailedWarning
        Once per model that failed on a data set, with the fold and the
        reason.

    Notes
    -----
    Log-losses are those of :func:`cross_validate`: each fold's clips the
    probability of the true class at ``1e-15``, so a class absent from a
    training fold costs 34.5 nats per test row and never makes a mean
    infinite or a standard deviation ``NaN``.

    A model that fails on a data set (any exception from its ``fit`` or
    ``predict_log_proba`` on one fold) has one row in `summary` with
    ``status="failed"``, its ``failure`` reason and ``NaN`` metrics; its
    completed folds, if any, are dropped from `results` (a mean over some
    folds only would not compare with the others). The ranks on that data
    set are those of the models that completed it (1 to their number), the
    failed one's ``NaN``; its average rank is over the data sets it
    completed, and ``ranks["failed"]`` says on how many it failed, so an
    average over fewer data sets is not mistaken for one over all.

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM research report, Table 1.
    """
    if errors not in ("report", "raise"):
        raise ValueError(f"`errors` must be 'report' or 'raise', got {errors!r}.")
    models = _resolve_models(models)
    data = _resolve_datasets(datasets, class_column)
    if not models:
        raise ValueError("`models` is empty.")
    checked = {}
    for name, (X, y) in data.items():
        X, y, splitter = _check_cv_data(X, y, cv, random_state)
        # The splits are drawn once per data set, so every model sees the same folds even when
        # the splitter is seeded by a Generator or not at all.
        checked[name] = (X, y, _FixedSplits(list(splitter.split(X, y))))
    total = len(models) * sum(len(splitter.splits) for _, _, splitter in checked.values())
    progress = _Progress(verbose, total)
    frames = []
    failures: list[dict[str, Any]] = []
    n_runs = len(models) * len(data)
    step = 0
    try:
        for data_name, (X, y, splitter) in checked.items():
            unseen: dict[Any, list[int]] = {}
            n_folds = len(splitter.splits)
            for model_name, model in models.items():
                step += 1
                start = time.perf_counter()
                label = f"[{step}/{n_runs}] {data_name} {model_name}"
                rows: list[dict[str, Any]] = []
                model_unseen: dict[Any, list[int]] = {}
                try:
                    for row in _fold_rows(model, X, y, splitter, discretizer, model_unseen):
                        rows.append(row)
                        progress.fold(label, f"log-loss {row['log_loss']:.3f}, error {row['error']:.3f}")
                except Exception as error:  # noqa: BLE001 - one model's failure is reported, the others go on
                    if errors == "raise":
                        raise
                    reason = failure_reason(error)
                    failures.append({"dataset": data_name, "model": model_name, "failure": reason})
                    progress.line(f"[{step}/{n_runs}] {data_name:<20} {model_name:<10} failed: {reason}")
                    warnings.warn(
                        f"Model {model_name!r} failed on data set {data_name!r} (fold {len(rows) + 1} of {n_folds}) "
                        f"and is reported as failed: {reason}",
                        ModelFailedWarning,
                        stacklevel=2,
                    )
                    continue
                unseen = model_unseen  # the same for every model that completes: the same folds
                folds = pd.DataFrame(rows)
                folds.insert(0, "model", model_name)
                folds.insert(0, "dataset", data_name)
                frames.append(folds)
                progress.line(
                    f"[{step}/{n_runs}] {data_name:<20} {model_name:<10} "
                    f"log-loss {folds['log_loss'].mean():.3f}  error {folds['error'].mean():.3f}  "
                    f"({time.perf_counter() - start:.1f} s)"
                )
            _warn_unseen(unseen, n_folds, f" of data set {data_name!r}")
    finally:
        progress.close()
    if not frames:
        listing = "; ".join(f"{f['model']} on {f['dataset']}: {f['failure']}" for f in failures)
        raise ValueError(f"Every model failed on every data set: {listing}")
    results = pd.concat(frames, ignore_index=True)
    summary = _summarize(results, failures, list(checked), list(models))
    ranks = (
        summary.groupby("model", sort=False)[["rank_log_loss", "rank_error"]]
        .mean()
        .rename(columns={"rank_log_loss": "log_loss", "rank_error": "error"})
    )
    ranks["failed"] = (summary["status"] == "failed").groupby(summary["model"], sort=False).sum().astype(int)
    return Comparison(results, summary, ranks)


def _summarize(
    results: pd.DataFrame, failures: list[dict[str, Any]], datasets: list[Any], models: list[Any]
) -> pd.DataFrame:
    """Means, standard deviations and within-data-set ranks; a failed model a row of ``NaN`` with its reason."""
    grouped = results.groupby(["dataset", "model"], sort=False)
    summary = grouped.agg(
        log_loss=("log_loss", "mean"),
        log_loss_std=("log_loss", "std"),
        error=("error", "mean"),
        error_std=("error", "std"),
        fit_time=("fit_time", "mean"),
        predict_time=("predict_time", "mean"),
    ).reset_index()
    summary["status"] = "ok"
    summary["failure"] = ""
    if failures:
        failed = pd.DataFrame(failures).assign(status="failed")
        summary = pd.concat([summary, failed], ignore_index=True)
        # Back to the order of the runs: data set by data set, the models in the order given.
        order = {(d, m): i for i, (d, m) in enumerate((d, m) for d in datasets for m in models)}
        summary = summary.iloc[np.argsort([order[key] for key in zip(summary["dataset"], summary["model"])])]
        summary = summary.reset_index(drop=True)
    for metric in ("log_loss", "error"):
        # NaN (a failed model) is left out of the ranks and keeps a NaN rank.
        summary[f"rank_{metric}"] = summary.groupby("dataset", sort=False)[metric].rank(method="average")
    return summary

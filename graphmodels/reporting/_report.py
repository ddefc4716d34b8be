"""The numbers of a report and the function that builds it; the page itself is ``_page``.

:func:`report` summarizes a classification table (its columns, states, missing cells and
discretization), draws the pairwise and class-conditional mutual information as heatmaps,
cross-validates a set of classifiers on the same folds, draws the structure each learns from
all rows, and lists the strongest interactions that TAN, the maximum hyperforest and
Kikuchi-Bayes find, side by side.
"""

from __future__ import annotations

import html
import numbers
import os
import sys
import time
import warnings
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._files import write_text
from .._validation import Boolean, Interval, Options, Predicate, validate_params
from ..data.discretize import DISCRETIZERS, EqualFrequencyDiscretizer, IntegerColumnsCutWarning, MDLDiscretizer
from ..data.encoding import MISSING_LABEL, as_frame
from ..evaluation import RepeatedStratifiedKFold, cross_validate, failure_reason
from ..models import CLASSIFIERS, TAN, HyperforestClassifier, KikuchiBayes, clone_model, training_counts
from ..models.base import CATEGORICAL_CONSTRAINTS
from ..stats import interaction_graph, pairwise_mutual_information
from ._page import Page, class_entropy

if TYPE_CHECKING:
    from ..models import TrainingCounts

__all__ = ["report", "Report", "DEFAULT_MODELS", "KIKUCHI_MAX_ATTRIBUTES"]

#: The classifiers a report cross-validates by default: the baseline, a tree, an ensemble of
#: one-dependence estimators, a bounded tree-width Markov network and Kikuchi-Bayes.
DEFAULT_MODELS = ("nb", "tan", "aode", "hyperforest", "kikuchi-bayes")

#: The default set leaves Kikuchi-Bayes out of tables with more attributes than this: its search
#: grows fast with them (benchmarks/bench_report.py: one fit on 30 of splice's attributes about
#: 3.5 s, on all 60 about 25 s, six fits a report). Naming it in ``models`` keeps it.
KIKUCHI_MAX_ATTRIBUTES = 30

#: The heatmaps show at most this many attributes (those with the highest I(X; C)).
MAX_HEATMAP_COLUMNS = 40

#: Rows of each table of strongest interactions.
TOP_INTERACTIONS = 10

#: The "why" section explains at most this many rows (a seeded sample beyond).
MAX_EXPLAINED_ROWS = 2000

#: What ``discretizer="auto"`` means for a classifier: Fayyad & Irani's MDL cut points, as the
#: models' own ``discretizer="auto"`` (``BaseClassifier._auto_discretizer``).
_AUTO_DISCRETIZER = "mdl"

#: Failures of one model that the report shows instead of stopping: any error of its fit or predict
#: (a table beyond ``max_cells``, memory that runs out on a wide table, data the model cannot handle).
#: KeyboardInterrupt and SystemExit are not among them.
_MODEL_ERRORS = (Exception,)


class Report:
    """A readable report on a classification table and its models, as one HTML page.

    Built by :func:`report`. Its :attr:`html` is a complete, self-contained
    document (figures as inline SVG, one ``<style>``, no script, nothing
    fetched); a notebook shows it through :meth:`_repr_html_`.

    Attributes
    ----------
    html : str
        The whole page, ``<!DOCTYPE html>`` included.
    fragment : str
        The page's ``<style>`` and body alone (styles scoped to the
        ``.gm-report`` element), for embedding in another page.
    title : str
        The page title.
    columns : DataFrame
        One row per attribute: ``type``, ``states``, ``missing``,
        ``discretization``, ``cut_points`` (a tuple, empty when the column
        was not cut) and ``class_information`` (``I(X; C)`` in nats).
    mutual_information : DataFrame of shape (n_shown, n_shown)
        ``I(X_i; X_j)`` in nats between the attributes shown in the heatmap,
        the diagonal holding ``H(X_i)``.
    conditional_mutual_information : DataFrame of shape (n_shown, n_shown)
        ``I(X_i; X_j | C)`` in nats, the diagonal holding ``H(X_i | C)``.
    cv_results : DataFrame
        One row per model and fold: ``model``, ``split``, ``n_train``,
        ``n_test``, ``log_loss``, ``error``, ``fit_time``,
        ``predict_time``, as :func:`~graphmodels.evaluation.cross_validate`.
    cv_summary : DataFrame
        One row per model: the mean and standard deviation over the folds
        (``log_loss``, ``log_loss_std``, ``error``, ``error_std``,
        ``fit_time``, ``fit_time_std``, ``predict_time``), ``rank`` by mean
        log-loss, and ``failure`` (the error message of a model that could
        not be fitted, else empty).
    models : dict
        Name -> the model fitted on all rows (absent for a failed model).
    interactions : dict of str -> DataFrame
        ``"tan"``, ``"hyperforest"`` and ``"kikuchi-bayes"``: each method's
        strongest interactions, strongest first.
    interaction_graph : networkx.Graph or None
        Jakulin & Bratko's analysis of all rows, :func:`graphmodels.interaction_graph`
        (None if it failed; the page says why).
    explanation : DataFrame or None
        The best model's ``explain`` of the rows explained (at most 2,000, a seeded sample).
    seconds : dict of str -> float
        Run time of each stage and ``"total"``.
    """

    def __init__(
        self,
        *,
        fragment: str,
        title: str,
        columns: pd.DataFrame,
        mutual_information: pd.DataFrame,
        conditional_mutual_information: pd.DataFrame,
        cv_results: pd.DataFrame,
        cv_summary: pd.DataFrame,
        models: dict[str, Any],
        interactions: dict[str, pd.DataFrame],
        seconds: dict[str, float],
        interaction_graph: Any = None,
        explanation: pd.DataFrame | None = None,
    ) -> None:
        self.fragment = fragment
        self.title = title
        self.columns = columns
        self.mutual_information = mutual_information
        self.conditional_mutual_information = conditional_mutual_information
        self.cv_results = cv_results
        self.cv_summary = cv_summary
        self.models = models
        self.interactions = interactions
        self.seconds = seconds
        self.interaction_graph = interaction_graph
        self.explanation = explanation

    @property
    def html(self) -> str:
        """The whole page: a complete HTML document."""
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(self.title)}</title>\n</head>\n<body>\n{self.fragment}\n</body>\n</html>\n"
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to `path` (UTF-8, atomically) and return the path.

        Parameters
        ----------
        path : str or path-like
            The file to write, usually ending in ``.html``.

        Returns
        -------
        pathlib.Path
        """
        path = Path(path)
        write_text(path, self.html, compress=False)  # atomic: a failed write keeps the previous file
        return path

    def _repr_html_(self) -> str:
        """The page's fragment, for Jupyter (its styles apply to the report only)."""
        return self.fragment

    def __repr__(self) -> str:
        fitted = ", ".join(self.cv_summary["model"].astype(str)) if len(self.cv_summary) else "none"
        return (
            f"<Report {self.title!r}: {len(self.columns)} attributes, models {fitted}; {len(self.html):,} characters>"
        )


# ----------------------------------------------------------------------------------------------
# the entry point
# ----------------------------------------------------------------------------------------------
_CONSTRAINTS: dict[str, list[Any]] = {
    "n_splits": [Interval(numbers.Integral, 2, None)],
    "n_repeats": [Interval(numbers.Integral, 1, None)],
    "max_rows": [None, Interval(numbers.Integral, 2, None)],
    "random_state": [None, Interval(numbers.Integral, 0, None)],
    "discretizer": [None, Options(["auto", *DISCRETIZERS], ignore_case=True)],
    "categorical": CATEGORICAL_CONSTRAINTS,
    "progress": [Boolean()],
    "interaction_analysis": [Boolean()],
    "explain": [Boolean()],
    "stream": [None, Predicate(lambda value: hasattr(value, "write"), "a text stream (with a write method)")],
}


def report(
    data: pd.DataFrame | ArrayLike,
    target: Hashable | None = None,
    *,
    y: ArrayLike | None = None,
    models: Sequence[Any] | Mapping[str, Any] | None = None,
    n_splits: int = 5,
    n_repeats: int = 1,
    random_state: int | None = 0,
    max_rows: int | None = None,
    discretizer: str | None = "auto",
    categorical: Sequence[Hashable] | None = None,
    title: str | None = None,
    progress: bool = True,
    stream: TextIO | None = None,
    path: str | os.PathLike[str] | None = None,
    interaction_analysis: bool = True,
    explain: bool = True,
) -> Report:
    """Summarize a classification table and its models in one self-contained HTML page.

    The page has seven sections and notes:

    1. **Data**: rows, classes, and for each attribute its type, number of
       states, missing cells, how it was discretized (with the cut points)
       and ``I(X; C)``.
    2. **Information between the columns**: ``I(X; C)`` of each attribute as
       bars; ``I(X_i; X_j)`` and ``I(X_i; X_j | C)`` as heatmaps (in nats;
       beyond 40 attributes, the 40 with the highest ``I(X; C)``).
    3. **Cross-validated models**: each model's log-loss, error and fit
       time over stratified folds (the same folds for every model), mean and
       standard deviation, from :func:`~graphmodels.evaluation.cross_validate`.
    4. **Learned structures**: each model fitted on all rows, drawn by
       :func:`~graphmodels.plotting.draw_network`.
    5. **Strongest interactions**, side by side: TAN's augmenting arcs by
       ``I(X_i; X_j | C)`` [1]_, the maximum hyperforest's hyperedges by
       weight [2]_, and the regions Kikuchi-Bayes adds by their gain in
       log-likelihood [3]_.
    6. **Interactions with the class**: Jakulin & Bratko's analysis [4]_
       (:func:`graphmodels.interaction_graph`): the interaction graph, the
       interaction dendrogram and the strongest synergies and redundancies
       with their adjusted P-values.
    7. **Why**: the terms of the best model's predictions
       (:meth:`~graphmodels.models.BaseClassifier.explain`): the mean absolute
       contribution of each beside its structure, and one row's waterfall.

    Progress goes to `stream` (stderr) line by line.

    Parameters
    ----------
    data : DataFrame or 2-D array-like of shape (n_rows, n_columns)
        The table. With `target`, it holds the class column; with `y`, only
        the attributes.
    target : hashable, optional
        The class column of `data`. Without it and without `y`, the column
        named ``"class"``.
    y : 1-D array-like of shape (n_rows,), optional
        The class labels, when `data` holds only the attributes.
    models : sequence of str or classifiers, or dict of name -> classifier, optional
        Names of :data:`graphmodels.models.CLASSIFIERS` (built with their
        default settings and the report's `discretizer`), or classifiers
        (used with their own settings, cloned before fitting). By default
        :data:`DEFAULT_MODELS` (``"nb"``, ``"tan"``, ``"aode"``,
        ``"hyperforest"``, ``"kikuchi-bayes"``), without Kikuchi-Bayes on a
        table of more than 30 attributes, where its search takes tens of
        seconds a fit (the page says so; name it to keep it).
    n_splits : int, default=5
        Folds of the stratified cross-validation (``>= 2``).
    n_repeats : int, default=1
        Repetitions of it, each with new folds.
    random_state : int or None, default=0
        Seed of the folds, of the row subsample and of the models named in
        `models` that draw random numbers (hierarchical naive Bayes' inner
        folds); a classifier given as an object keeps its own ``random_state``.
    max_rows : int, optional
        Keep at most this many rows, a sample stratified by class (the page
        says so). None keeps every row.
    discretizer : {"auto", "mdl", "equal-frequency"} or None, default="auto"
        How numeric columns with more than 10 distinct values are cut, in
        the data summary and in the models named in `models`: ``"auto"`` is
        the models' default, Fayyad & Irani's MDL cut points. The models cut
        inside each fit, so in cross-validation on the training folds only.
        When ``"auto"`` cuts columns of whole numbers, the report warns once
        (:class:`~graphmodels.data.IntegerColumnsCutWarning`, also listed in
        the page's notes).
    categorical : list of column names, optional
        Columns kept as categories, never cut, whatever their type (integer
        codes of categories), in the data summary and in the models named in
        `models`.
    title : str, optional
        The page title; by default from the class column and the size.
    progress : bool, default=True
        Write what the report is doing to `stream`, one line per step.
    stream : text stream, optional
        Where progress goes; by default ``sys.stderr`` at the time of the call.
    path : str or path-like, optional
        Also save the page there. Its directory is checked before any work.
    interaction_analysis : bool, default=True
        Compute section 6 (False leaves a note in its place: its figures cost a few seconds).
    explain : bool, default=True
        Compute section 7, likewise.

    Returns
    -------
    Report
        ``.html`` (the page), ``.save(path)``, and the numbers behind it.

    Raises
    ------
    ValueError
        For an unknown model name, a missing class column, no attribute
        columns, or fewer than 2 rows.
    FileNotFoundError, PermissionError
        When the directory of `path` does not exist or is not writable
        (before any work).
    InvalidParameterError
        For a parameter outside its rule (``n_splits=1``).

    See Also
    --------
    graphmodels.evaluation.compare : the cross-validation table alone, on many data sets.
    graphmodels.plotting.draw_svg : a structure as inline SVG.

    Notes
    -----
    A model that fails (any error of its fit or predict: a table beyond its
    ``max_cells``, data it cannot handle) is reported as failed in the page,
    with its one-line reason, and the report goes on: its row of the models
    table says ``failed: <reason>`` and has no rank (the others are ranked
    among themselves), ``cv_summary`` has ``NaN`` metrics and the reason in
    ``failure``, and its structure is not drawn. Warnings raised while the
    report runs are shown as usual and listed in its notes.

    Each fold's log-loss clips the probability of the true class at
    ``1e-15``, as :func:`~graphmodels.evaluation.cross_validate` does. The
    information measures are plug-in estimates from the counts of all rows,
    after the report's discretization.

    References
    ----------
    .. [1] Friedman, N., Geiger, D., & Goldszmidt, M. (1997). Bayesian network
           classifiers. Machine Learning, 29(2-3), 131-163.
    .. [2] Liang, P., & Srebro, N. (2004). Methods and experiments with bounded
           tree-width Markov networks. MIT CSAIL technical report.
    .. [3] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM research report.
    .. [4] Jakulin, A., & Bratko, I. (2004). Testing the significance of attribute
           interactions. ICML 2004.

    Examples
    --------
    >>> import graphmodels as gm
    >>> frame = gm.datasets.load("lenses")
    >>> page = gm.report(frame, target="class", models=["nb", "tan"], n_splits=2, progress=False)
    >>> page.html.startswith("<!DOCTYPE html>") and "<script" not in page.html
    True
    >>> list(page.cv_summary["model"])
    ['nb', 'tan']
    """
    validate_params(
        "report",
        {
            "n_splits": n_splits,
            "n_repeats": n_repeats,
            "max_rows": max_rows,
            "random_state": random_state,
            "discretizer": discretizer,
            "categorical": categorical,
            "progress": progress,
            "stream": stream,
            "interaction_analysis": interaction_analysis,
            "explain": explain,
        },
        _CONSTRAINTS,
    )
    started = time.perf_counter()
    resolved = _resolve_discretizer(discretizer)
    named = _resolve_models(DEFAULT_MODELS if models is None else models, resolved, random_state, categorical)
    if path is not None:
        _check_writable(path)
    say = _Progress(progress, stream)
    X, labels, class_name, dropped = _split_table(data, target, y)
    n_total = len(X)
    X, labels = _subsample(X, labels, max_rows, random_state)
    if title is None:
        title = "graphmodels report"
    left_out = {}
    if models is None and X.shape[1] > KIKUCHI_MAX_ATTRIBUTES:
        del named["kikuchi-bayes"]
        left_out["kikuchi-bayes"] = (
            f"left out of the default models: the table has {X.shape[1]} attributes, more than "
            f"{KIKUCHI_MAX_ATTRIBUTES}, where its search takes tens of seconds a fit; name it in the models "
            "(--models ... kikuchi-bayes) to include it"
        )
        say(f"kikuchi-bayes {left_out['kikuchi-bayes']}")
    say(f"{len(X):,} rows, {X.shape[1]} attributes, {labels.nunique()} classes (class {class_name!r})")
    seconds: dict[str, float] = {}
    with _WarningLog() as log:
        with _timed(seconds, "data summary"):
            say("summarizing the data (discretization, mutual information)...")
            counts = training_counts(X, labels, discretizer=resolved, categorical=categorical)
            if discretizer is not None and discretizer.lower() == "auto":
                _warn_integer_columns_cut(counts.integer_columns_cut)
            columns = _column_summary(X, counts, resolved, categorical)
            shown = _shown_attributes(columns)
            mi, cmi = _information_matrices(counts, shown)
        with _timed(seconds, "cross-validation"):
            cv_results, cv_summary = _cross_validate(named, X, labels, n_splits, n_repeats, random_state, say)
        with _timed(seconds, "structures"):
            fitted, fit_errors = _fit_all_rows(named, X, labels, counts, say)
        with _timed(seconds, "interactions"):
            say("finding the strongest interactions (TAN, hyperforest, Kikuchi-Bayes)...")
            interactions, interaction_notes = _interactions(fitted, counts, resolved, categorical, left_out)
        with _timed(seconds, "interaction analysis"):
            if interaction_analysis:
                say("testing the interactions of each pair of attributes with the class (Jakulin & Bratko)...")
            analysis, analysis_note = (
                _interaction_analysis(X, labels, resolved, categorical)
                if interaction_analysis
                else (None, "Not computed (interaction_analysis=False).")
            )
        with _timed(seconds, "explanations"):
            if explain:
                say("explaining the best model's predictions...")
            best, explanation, example, why_note = (
                _explanations(fitted, cv_summary, X, random_state)
                if explain
                else (None, None, None, "Not computed (explain=False).")
            )
        with _timed(seconds, "figures"), warnings.catch_warnings():
            # Text stays text in the SVG, drawn by the browser with a font that has the glyph.
            warnings.filterwarnings("ignore", r"Glyph \d+ .* missing from font", UserWarning)
            say("drawing the figures...")
            entropy = class_entropy(counts)
            page = Page(title)
            page.header(
                n_rows=len(X), n_total=n_total, n_features=X.shape[1], n_classes=labels.nunique(), class_name=class_name
            )
            page.data_section(
                labels=labels,
                class_name=class_name,
                columns=columns,
                n_total=n_total,
                max_rows=max_rows,
                seed=random_state,
                discretizer=resolved,
                dropped=dropped,
            )
            page.information_section(columns=columns, mi=mi, cmi=cmi, class_entropy=entropy)
            page.models_section(
                summary=cv_summary,
                n_splits=n_splits,
                n_repeats=n_repeats,
                seed=random_state,
                class_entropy=entropy,
                left_out=left_out,
            )
            page.structures_section(models=named, fitted=fitted, errors=fit_errors, n_rows=len(X))
            page.interactions_section(tables=interactions, notes=interaction_notes, top=TOP_INTERACTIONS)
            page.jakulin_section(graph=analysis, note=analysis_note, top=TOP_INTERACTIONS)
            page.why_section(
                name=best, model=fitted.get(best or ""), explanation=explanation, example=example, note=why_note
            )
    seconds["total"] = time.perf_counter() - started
    settings = {
        "models": ", ".join(f"{name} = {model!r}" for name, model in named.items()),
        "cross-validation": f"RepeatedStratifiedKFold(n_splits={n_splits}, n_repeats={n_repeats}, "
        f"random_state={random_state})",
        "discretizer": f"{discretizer!r}" + (f" ({resolved})" if discretizer == "auto" else ""),
        "categorical": repr(categorical),
        "max_rows": repr(max_rows),
    }
    page.notes_section(warnings_seen=log.messages, seconds=seconds, settings=settings, version=_version())
    result = Report(
        fragment=page.render(),
        title=title,
        columns=columns,
        mutual_information=mi,
        conditional_mutual_information=cmi,
        cv_results=cv_results,
        cv_summary=cv_summary,
        models=fitted,
        interactions=interactions,
        seconds=seconds,
        interaction_graph=analysis,
        explanation=explanation,
    )
    if path is not None:
        result.save(path)
        say(f"wrote {os.fspath(path)} ({len(result.html.encode()) / 1024:,.0f} kB) in {seconds['total']:.1f} s")
    else:
        say(f"done in {seconds['total']:.1f} s")
    return result


def _check_writable(path: str | os.PathLike[str]) -> None:
    """Raise now, not after the run, when `path` cannot be written.

    Parameters
    ----------
    path : str or path-like

    Raises
    ------
    IsADirectoryError
        When `path` is a directory.
    FileNotFoundError
        When its directory does not exist.
    PermissionError
        When its directory, or the existing file, is not writable.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path!r} is a directory; give a file name")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"directory {directory!r} of {path!r} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise PermissionError(f"{path!r} is not writable")


# ----------------------------------------------------------------------------------------------
# input
# ----------------------------------------------------------------------------------------------
def _resolve_discretizer(discretizer: str | None) -> str | None:
    if discretizer is None:
        return None
    key = discretizer.lower()
    return _AUTO_DISCRETIZER if key == "auto" else key


def _resolve_models(
    models: Sequence[Any] | Mapping[str, Any],
    discretizer: str | None,
    random_state: int | None = None,
    categorical: Sequence[Hashable] | None = None,
) -> dict[str, Any]:
    """``{name: unfitted classifier}``; names are built with the report's discretizer, seed and categorical columns.

    A model named by a string that has a ``random_state`` (hierarchical naive Bayes' inner
    folds) gets `random_state`, so that one seed repeats the whole report; a model given as an
    object keeps its own.
    """
    if isinstance(models, str):
        models = [models]
    items = list(models.items()) if isinstance(models, Mapping) else [(None, m) for m in models]
    if not items:
        raise ValueError("`models` is empty; give at least one name of graphmodels.models.CLASSIFIERS.")
    resolved: dict[str, Any] = {}
    for name, model in items:
        if isinstance(model, str):
            key = model.lower()
            if key not in CLASSIFIERS:
                raise ValueError(f"Unknown model {model!r}; choose from: {', '.join(CLASSIFIERS)}.")
            model = CLASSIFIERS[key](discretizer=discretizer, categorical=categorical)
            if "random_state" in model.get_params():
                model.set_params(random_state=random_state)
            name = key if name is None else name
        elif not hasattr(model, "get_params") or not hasattr(model, "predict_log_proba"):
            raise TypeError(f"`models` must hold names or classifiers, got {type(model).__name__}.")
        label = str(name if name is not None else type(model).__name__)
        while label in resolved:  # two unnamed models of one class
            label += "'"
        resolved[label] = model
    return resolved


def _split_table(
    data: Any, target: Hashable | None, y: ArrayLike | None
) -> tuple[pd.DataFrame, pd.Series, Hashable, int]:
    """Attributes, class labels, the class name and how many rows without a class were dropped (with a warning)."""
    frame = as_frame(data)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(
            f"`data` is empty ({frame.shape[0]} rows, {frame.shape[1]} columns); a report needs a table of "
            "attributes and a class, with at least 2 rows."
        )
    if y is not None:
        if target is not None:
            raise ValueError("Give the class either as a column name (`target`) or as labels (`y`), not both.")
        labels = y.copy() if isinstance(y, pd.Series) else pd.Series(np.asarray(y, dtype=object))
        if len(labels) != len(frame):
            raise ValueError(f"`data` has {len(frame)} rows but `y` has {len(labels)} labels.")
        if labels.name is not None and labels.name in frame.columns:
            if (frame[labels.name].to_numpy(dtype=object) == labels.to_numpy(dtype=object)).all():
                raise ValueError(
                    f"Column {labels.name!r} of `data` is the class `y` itself: pass it as target={labels.name!r} "
                    f"instead of `y`, or drop it (data.drop(columns=[{labels.name!r}]))."
                )
            labels = labels.rename(None)  # named after an attribute it was made from: the class is called "class"
        labels.index = frame.index
        class_name = labels.name if labels.name is not None else "class"
    else:
        if target is None:
            if "class" not in frame.columns:
                listing = ", ".join(map(str, list(frame.columns)[:20]))
                raise ValueError(f"No column named 'class'; name the class column with `target`. Columns: {listing}.")
            target = "class"
        elif target not in frame.columns:
            raise ValueError(f"Class column {target!r} not found; columns: {', '.join(map(str, frame.columns[:20]))}.")
        labels, frame, class_name = frame[target], frame.drop(columns=[target]), target
    if frame.shape[1] == 0:
        raise ValueError("The table has no attribute columns besides the class.")
    missing = labels.isna().to_numpy()
    if missing.all():
        raise ValueError("Every row has a missing class.")
    if missing.any():
        warnings.warn(
            f"Dropped {int(missing.sum())} of {len(labels)} rows whose class is missing.", UserWarning, stacklevel=3
        )
        frame, labels = frame[~missing], labels[~missing]
    if len(frame) < 2:
        raise ValueError(f"A report needs at least 2 rows, got {len(frame)}.")
    return frame, labels, class_name, int(missing.sum())


def _warn_integer_columns_cut(columns: Sequence[Hashable]) -> None:
    """Say once, for the whole report, that ``discretizer="auto"`` cut columns of whole numbers."""
    if not columns:
        return
    names = list(columns)
    shown = ", ".join(map(repr, names[:5])) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    warnings.warn(
        f"report: discretizer='auto' cut the integer column(s) {shown} into intervals, as numbers, in the data "
        f"summary and in every model. If they are codes of categories, keep them as categories: "
        f"report(..., categorical={names!r}) (command line: --categorical), or the pandas 'category' dtype. To cut "
        f"them without this warning, pass discretizer={_AUTO_DISCRETIZER!r}.",
        IntegerColumnsCutWarning,
        stacklevel=3,
    )


def _subsample(X: pd.DataFrame, y: pd.Series, max_rows: int | None, seed: int | None) -> tuple[pd.DataFrame, pd.Series]:
    """At most `max_rows` rows, each class keeping its share (at least one row), in table order."""
    if max_rows is None or len(X) <= max_rows:
        return X, y
    rng = np.random.default_rng(seed)
    codes, _ = pd.factorize(y)
    share = max_rows / len(X)
    kept = []
    for code in np.unique(codes):
        rows = np.flatnonzero(codes == code)
        kept.append(rng.choice(rows, size=max(1, round(share * len(rows))), replace=False))
    rows = np.sort(np.concatenate(kept))
    return X.iloc[rows], y.iloc[rows]


# ----------------------------------------------------------------------------------------------
# the numbers
# ----------------------------------------------------------------------------------------------
class _Progress:
    """``report: ...`` lines on a stream (stderr by default), or nothing."""

    def __init__(self, enabled: bool, stream: TextIO | None) -> None:
        self.enabled = enabled
        self.stream = stream

    def __call__(self, text: str) -> None:
        if self.enabled:
            print(f"report: {text}", file=self.stream if self.stream is not None else sys.stderr, flush=True)


@contextmanager
def _timed(seconds: dict[str, float], stage: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        seconds[stage] = seconds.get(stage, 0.0) + time.perf_counter() - start


class _WarningLog:
    """Warnings shown as usual and also kept (once each) for the page's notes."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._context = warnings.catch_warnings()

    def __enter__(self) -> _WarningLog:
        self._context.__enter__()
        shown = warnings.showwarning

        def keep(message, category, filename, lineno, file=None, line=None):
            text = f"{category.__name__}: {message}"
            if text not in self.messages:
                self.messages.append(text)
            shown(message, category, filename, lineno, file, line)

        warnings.showwarning = keep
        return self

    def __exit__(self, *exc: Any) -> None:
        self._context.__exit__(*exc)


def _column_type(series: pd.Series) -> str:
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "boolean"
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if pd.api.types.is_integer_dtype(dtype):
        return "integer"
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    return "text"


def _cuts_text(cuts: Sequence[float]) -> str:
    return ", ".join(format(float(c), ".6g") for c in cuts)


def _column_summary(
    X: pd.DataFrame, counts: TrainingCounts, discretizer: str | None, categorical: Sequence[Hashable] | None = None
) -> pd.DataFrame:
    """One row per attribute: type, states, missing cells, discretization, cut points, I(X; C)."""
    encoder, binner = counts.encoder, counts.discretizer
    cut_points = binner.cut_points_ if binner is not None else {}
    engine = counts.engine
    names = list(engine.names)
    information = pairwise_mutual_information(engine, names)[-1, :-1]
    method: dict[type, str] = {
        MDLDiscretizer: "MDL (Fayyad & Irani)",
        EqualFrequencyDiscretizer: "equal frequency",
    }
    rows = []
    for j, column in enumerate(encoder.columns_):
        series = X[column]
        kind = _column_type(series)
        levels = [level for level in encoder.levels_[j] if level != MISSING_LABEL]
        cuts: tuple[float, ...] = ()
        if column in cut_points:
            cuts = tuple(float(c) for c in cut_points[column])
            how = f"{method[type(binner)]}: " + (
                f"{len(cuts)} cut point{'s' if len(cuts) != 1 else ''}" if cuts else "no cut point accepted (one bin)"
            )
        elif categorical is not None and column in categorical:
            how = "none: kept as categories (categorical=)"
        elif kind in ("numeric", "integer"):
            distinct = series.nunique(dropna=True)
            how = "none: every value a state" + (
                f" ({distinct} distinct values)" if discretizer is None else f" (only {distinct} distinct values)"
            )
        else:
            how = "none: categories"
        rows.append(
            {
                "column": column,
                "type": kind,
                "states": len(levels),
                "missing": int(series.isna().sum()),
                "discretization": how,
                "cut_points": cuts,
                "examples": levels[:6],
                "class_information": float(information[j]),
            }
        )
    return pd.DataFrame(rows).set_index("column")


def _shown_attributes(columns: pd.DataFrame) -> list[Hashable]:
    """The attributes of the heatmaps: all, or the MAX_HEATMAP_COLUMNS with the highest I(X; C), by it."""
    ordered = columns["class_information"].sort_values(ascending=False, kind="stable")
    return list(ordered.index[:MAX_HEATMAP_COLUMNS])


def _information_matrices(counts: TrainingCounts, shown: list[Hashable]) -> tuple[pd.DataFrame, pd.DataFrame]:
    engine = counts.engine
    mi = pairwise_mutual_information(engine, shown)
    cmi = pairwise_mutual_information(engine, shown, given=counts.class_name)
    return pd.DataFrame(mi, index=shown, columns=shown), pd.DataFrame(cmi, index=shown, columns=shown)


def _cross_validate(
    models: dict[str, Any],
    X: pd.DataFrame,
    y: pd.Series,
    n_splits: int,
    n_repeats: int,
    seed: int | None,
    say: _Progress,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every model on the same folds, with :func:`~graphmodels.evaluation.cross_validate`."""
    frames: list[pd.DataFrame] = []
    rows: list[dict[str, Any]] = []
    for step, (name, model) in enumerate(models.items(), start=1):
        say(f"cross-validating {name} ({step}/{len(models)} models, {n_repeats} x {n_splits} folds)...")
        cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=seed)
        try:
            folds = cross_validate(model, X, y, cv=cv, discretizer=None, verbose=False)
        except _MODEL_ERRORS as error:
            reason = failure_reason(error)
            say(f"{name} failed: {reason}")
            rows.append({"model": name, "failure": reason})
            continue
        folds.insert(0, "model", name)
        frames.append(folds)
        rows.append(
            {
                "model": name,
                "log_loss": folds["log_loss"].mean(),
                "log_loss_std": folds["log_loss"].std(),
                "error": folds["error"].mean(),
                "error_std": folds["error"].std(),
                "fit_time": folds["fit_time"].mean(),
                "fit_time_std": folds["fit_time"].std(),
                "predict_time": folds["predict_time"].mean(),
                "failure": "",
            }
        )
    columns = ["log_loss", "log_loss_std", "error", "error_std", "fit_time", "fit_time_std", "predict_time"]
    summary = pd.DataFrame(rows).reindex(columns=["model", *columns, "failure"])
    summary["rank"] = summary["log_loss"].rank(method="min")
    results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["model", "split"])
    return results, summary


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("graphmodels")
    except PackageNotFoundError:
        return "(not installed)"


def _fit_all_rows(
    models: dict[str, Any], X: pd.DataFrame, y: pd.Series, counts: TrainingCounts, say: _Progress
) -> tuple[dict[str, Any], dict[str, str]]:
    """Each model fitted on all rows: from the shared counts when built by name, else by its own fit."""
    fitted, errors = {}, {}
    for step, (name, model) in enumerate(models.items(), start=1):
        say(f"fitting {name} on all rows ({step}/{len(models)} models)...")
        estimator = clone_model(model)
        try:
            if name in CLASSIFIERS and type(model) is CLASSIFIERS[name]:
                fitted[name] = estimator.fit_counts(counts)  # built with the report's discretizer
            else:
                fitted[name] = estimator.fit(X, y)
        except _MODEL_ERRORS as error:
            errors[name] = failure_reason(error)
    return fitted, errors


def _fitted_or_new(
    fitted: dict[str, Any], name: str, cls: type[Any], counts: TrainingCounts, discretizer: Any, categorical: Any
) -> tuple[Any, bool]:
    """The report's model `name` if it has `cls`'s default settings, else a new one fitted from `counts`."""
    model = fitted.get(name)
    settings = {"discretizer": discretizer, "categorical": categorical}
    if isinstance(model, cls) and model.get_params() == cls(**settings).get_params():
        return model, False
    return cls(**settings).fit_counts(counts), True


def _interactions(
    fitted: dict[str, Any],
    counts: TrainingCounts,
    discretizer: str | None,
    categorical: Sequence[Hashable] | None,
    left_out: dict[str, str],
) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """The strongest interactions of TAN, the hyperforest and Kikuchi-Bayes (default settings).

    A method the report left out (`left_out`: name -> why) gets an empty table and the reason.
    """
    tables: dict[str, pd.DataFrame] = {}
    notes: dict[str, str] = {}
    methods: dict[str, tuple[type[Any], Callable[[Any, float], tuple[pd.DataFrame, str]]]] = {
        "tan": (TAN, _tan_arcs),
        "hyperforest": (HyperforestClassifier, _hyperforest_edges),
        "kikuchi-bayes": (KikuchiBayes, _kikuchi_regions),
    }
    for name, (cls, extract) in methods.items():
        if name in left_out:
            tables[name], notes[name] = pd.DataFrame(), f"Kikuchi-Bayes was {left_out[name]}."
            continue
        try:
            model, extra = _fitted_or_new(fitted, name, cls, counts, discretizer, categorical)
            tables[name], notes[name] = extract(model, float(counts.engine.total))
        except _MODEL_ERRORS as error:
            tables[name], notes[name] = pd.DataFrame(), f"could not be fitted: {failure_reason(error)}"
            continue
        if extra:
            notes[name] += " (fitted with default settings for this section; it is not among the report's models)"
    return tables, notes


def _interaction_analysis(
    X: pd.DataFrame, labels: pd.Series, discretizer: str | None, categorical: Sequence[Hashable] | None = None
) -> tuple[Any, str]:
    """Jakulin & Bratko's analysis of all rows, or None and why it failed."""
    if categorical:  # kept as categories, as the models keep them: the discretizer leaves that dtype alone
        X = X.astype({column: "category" for column in categorical})
    try:
        return interaction_graph(X, labels, discretizer=discretizer), ""
    except _MODEL_ERRORS as error:
        return None, f"The interaction analysis could not run: {failure_reason(error)}"


def _explanations(
    fitted: dict[str, Any], summary: pd.DataFrame, X: pd.DataFrame, seed: int | None
) -> tuple[str | None, pd.DataFrame | None, pd.DataFrame | None, str]:
    """The best fitted model's name, its ``explain`` of (a sample of) the rows, those rows, and a note."""
    ranked = summary.dropna(subset=["log_loss"]).sort_values("rank", kind="stable")["model"]
    best = next((name for name in ranked if name in fitted), None)
    if best is None:
        return None, None, None, "No model was fitted, so there is nothing to explain."
    rows = X
    note = ""
    if len(X) > MAX_EXPLAINED_ROWS:
        rows = X.sample(MAX_EXPLAINED_ROWS, random_state=seed).sort_index()
        note = f"A sample of {MAX_EXPLAINED_ROWS:,} of the {len(X):,} rows (seed {seed})."
    try:
        return best, fitted[best].explain(rows), rows, note
    except _MODEL_ERRORS as error:
        return best, None, None, f"{best} could not explain its predictions: {failure_reason(error)}"


def _tan_arcs(model: TAN, n_rows: float) -> tuple[pd.DataFrame, str]:
    arcs = [
        (u, v, float(d.get("weight", np.nan)))
        for u, v, d in model.structure_.edges(data=True)
        if d.get("kind") == "augmenting"
    ]
    table = pd.DataFrame(arcs, columns=["parent", "child", "information"])
    table = table.sort_values("information", ascending=False, kind="stable").reset_index(drop=True)
    note = (
        f"{len(table)} augmenting arc{'s' if len(table) != 1 else ''} of the tree between the attributes, "
        "by the conditional mutual information I(parent; child | class) in nats."
    )
    return table, note


def _hyperforest_edges(model: HyperforestClassifier, n_rows: float) -> tuple[pd.DataFrame, str]:
    weights = model.weights_
    forests = model.structures_ if isinstance(weights, list) else [model.structure_]
    weight_list = weights if isinstance(weights, list) else [weights]
    classes: list[Any] = list(model.classes_) if isinstance(weights, list) else [None]
    rows = []
    for label, forest, w in zip(classes, forests, weight_list):
        for edge in forest.hyperedges:
            if len(edge) < 2 or any(v == model.class_name_ for v in edge):
                continue
            row = {"hyperedge": tuple(sorted(edge, key=str)), "size": len(edge), "weight": w[edge]}
            if label is not None:
                row["class"] = label
            rows.append(row)
    table = pd.DataFrame(rows, columns=["hyperedge", "size", "weight", *(["class"] if classes[0] is not None else [])])
    table = table.sort_values("weight", ascending=False, kind="stable").reset_index(drop=True)
    penalty = " less the MDL penalty" if model.criterion == "mdl" else ""
    note = (
        f"hyperforest of tree-width {model.treewidth} ({model.criterion.upper()} weights, "
        f"{model.representation_} representation): its {len(table)} hyperedges of two or more attributes, "
        f"by their weight w_h in nats (for a pair, {_PAIR_WEIGHTS[model.representation_]}{penalty})."
    )
    return table, note


#: What a hyperforest classifier's weight of a pair of attributes is, by representation.
_PAIR_WEIGHTS = {
    "joint": "I(a; b) over every row, the class being a node of the hyperforest",
    "shared": "I(a; b | class)",
    "free": "I(a; b) within its class (column class), on that class's rows alone",
}


def _kikuchi_regions(model: KikuchiBayes, n_rows: float) -> tuple[pd.DataFrame, str]:
    path = model.path_
    gains = path["log_likelihood"].diff() / n_rows
    rows = []
    for step in range(1, int(model.map_step_) + 1):
        region = tuple(path.at[step, "region"])
        attributes = tuple(v for v in region if v != model.class_name_)
        rows.append({"region": attributes, "size": len(region), "step": step, "gain": float(gains.iat[step])})
    table = pd.DataFrame(rows, columns=["region", "size", "step", "gain"])
    table = table.sort_values("gain", ascending=False, kind="stable").reset_index(drop=True)
    note = (
        f"the {len(table)} regions of the maximum a posteriori model, each with the class, by the gain in "
        "training log-likelihood when the search added them, in nats per row (a first region of one "
        "attribute gains its I(X; C))."
    )
    return table, note

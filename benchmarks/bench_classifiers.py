"""graphmodels' Bayesian-network classifiers side by side with pgmpy, pyAgrum and scikit-learn.

For every data set and every implementation: fit time, predict time, test
log-loss (nats per instance, ``-mean log p(true class)`` from ``predict_proba``,
the probability clipped at 1e-15 so that a peer that outputs an exact zero gets
a finite value) and error rate (argmax of ``predict_proba``).

Run ``python benchmarks/bench_classifiers.py`` (a full run takes tens of
minutes on 2 cores), or ``--quick`` for a smoke test on small subsamples.
``--out FILE`` writes the markdown section into FILE (default for a full run:
benchmarks/RESULTS.md; a quick run only prints unless ``--out`` is given).

Every peer runs inside try/except: a failure is reported in the table and the
run goes on.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import graphmodels as gm  # noqa: E402

SECTION = "Classifiers: graphmodels vs pgmpy, pyAgrum, scikit-learn"
CLIP = 1e-15
CLASS = "class"

# Row caps for peers that would take far more than ~5 minutes on the full synthetic table
# (their predict_proba is a Python loop over rows, and their structure search loops over
# pairs in Python); graphmodels is also timed at the same training size for the ratio.
SYNTHETIC_CAPS = {
    "pgmpy": {"fit": 100_000, "predict": 2_000},
    "pyAgrum": {"fit": 200_000, "predict": 20_000},
}
# pgmpy's predict_probability runs one variable-elimination query per row.
REAL_CAPS = {"pgmpy": {"fit": None, "predict": 5_000}}


# ---------------------------------------------------------------------------- data
@dataclass
class Dataset:
    name: str
    X_train: pd.DataFrame
    y_train: pd.Series
    X_test: pd.DataFrame
    y_test: pd.Series
    note: str
    caps: dict = field(default_factory=dict)


def _split(frame, test_fraction, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(frame))
    n_test = int(round(test_fraction * len(frame)))
    return frame.iloc[order[n_test:]], frame.iloc[order[:n_test]]


def _subsample(frame, n, seed):
    if n is None or len(frame) <= n:
        return frame
    return frame.iloc[np.random.default_rng(seed).permutation(len(frame))[:n]]


def _discretized(train, test):
    """Equal-frequency bins (5) fitted on the training part only.

    The discretizer's output goes to every implementation as it is: binned columns
    are pandas Categoricals (interval labels), the others stay as they were.
    """
    X_train, X_test = train.drop(columns=CLASS), test.drop(columns=CLASS)
    disc = gm.data.EqualFrequencyDiscretizer(n_bins=5).fit(X_train)
    return disc.transform(X_train), disc.transform(X_test), disc


def load_adult(quick):
    frame = common.read_dataset("adult")
    if frame is None:
        return None
    # Missing cells become the explicit state "?" for every implementation.
    text = frame.columns[frame.dtypes.map(lambda d: not pd.api.types.is_numeric_dtype(d))]
    frame[text] = frame[text].astype(object).where(frame[text].notna(), "?")
    train, test = frame.iloc[:32561], frame.iloc[32561:]
    if quick:
        train, test = _subsample(train, 3000, 0), _subsample(test, 1000, 0)
    X_train, X_test, disc = _discretized(train, test)
    note = (
        f"rows 1-32561 train, rest test; {len(disc.binned_columns_)} numeric columns cut into <= 5 "
        "equal-frequency bins fitted on train; missing cells as the state '?'"
    )
    return Dataset("adult", X_train, train[CLASS], X_test, test[CLASS], note, REAL_CAPS)


def load_letter(quick):
    frame = common.read_dataset("letter")
    if frame is None:
        return None
    train, test = _split(frame, 0.2, seed=0)
    if quick:
        train, test = _subsample(train, 3000, 0), _subsample(test, 1000, 0)
    X_train, X_test, disc = _discretized(train, test)
    note = f"random 80/20 split (seed 0); {len(disc.binned_columns_)} numeric columns cut into <= 5 equal-frequency bins fitted on train"
    return Dataset("letter", X_train, train[CLASS], X_test, test[CLASS], note, REAL_CAPS)


def load_connect4(quick):
    frame = common.read_dataset("connect-4")
    if frame is None:
        return None
    train, test = _split(frame, 0.2, seed=0)
    if quick:
        train, test = _subsample(train, 3000, 0), _subsample(test, 1000, 0)
    note = "random 80/20 split (seed 0); integer-coded categorical cells (0/1/2), used as they are"
    return Dataset(
        "connect-4", train.drop(columns=CLASS), train[CLASS], test.drop(columns=CLASS), test[CLASS], note, REAL_CAPS
    )


def load_synthetic(quick):
    n_train, n_test = (20_000, 5_000) if quick else (1_000_000, 100_000)
    X, y = common.synthetic_tan(n_train + n_test, n_features=50, n_states=5, n_classes=2, seed=0)
    columns = [f"x{j:02d}" for j in range(X.shape[1])]
    X = pd.DataFrame(X, columns=columns)
    y = pd.Series(y, name=CLASS)
    note = (
        f"{n_train:,} train + {n_test:,} test rows x 50 attributes, 5 states, 2 classes, drawn "
        "(numpy, seed 0) from a random TAN (class + one earlier attribute as parents; each CPT is "
        "0.9 x a table shared by the classes + 0.1 x a per-class table, rows ~ Dirichlet(0.5)); int8 columns"
    )
    caps = {} if quick else SYNTHETIC_CAPS
    return Dataset(
        "synthetic 1e6x50" if not quick else "synthetic (quick)",
        X.iloc[:n_train],
        y.iloc[:n_train],
        X.iloc[n_train:].reset_index(drop=True),
        y.iloc[n_train:].reset_index(drop=True),
        note,
        caps,
    )


LOADERS = {"adult": load_adult, "letter": load_letter, "connect-4": load_connect4, "synthetic": load_synthetic}


# ---------------------------------------------------------------------------- implementations
class Method:
    """One implementation of one model family: ``fit(X, y) -> model``, ``proba(model, X)``."""

    library = "graphmodels"
    family = ""
    label = ""
    uses_codes = False  # True: gets the ordinal-encoded int arrays instead of the frame

    def fit(self, X, y, data):
        raise NotImplementedError

    def proba(self, model, X):
        """``(probabilities of shape (n, n_classes), classes in column order)``."""
        return model.predict_proba(X), model.classes_


class GraphModels(Method):
    """A graphmodels classifier; `estimator="laplace"` (pseudo-count 1 per cell) to match the peers.

    `reference` marks the rows that the peers' time ratios divide by.
    """

    def __init__(self, family, cls, *, estimator="laplace", uses_codes=False, reference=True):
        self.family, self.cls, self.estimator = family, cls, estimator
        self.uses_codes, self.reference = uses_codes, reference and not uses_codes
        extra = "int codes, " if uses_codes else ""
        est = "laplace" if estimator == "laplace" else "default estimator"
        self.label = f"graphmodels {cls.__name__} ({extra}{est})"

    def fit(self, X, y, data):
        # Chow & Liu's tree in each class, as the peers' Chow-Liu (graphmodels' default chooses
        # between per-class BDeu forests and TAN's tree).
        params = {"criterion": "ml", "representation": "free"} if self.cls is gm.ChowLiu else {}
        if self.estimator is None:
            return self.cls(**params).fit(X, y)
        return self.cls(estimator=self.estimator, **params).fit(X, y)


class SklearnCategoricalNB(Method):
    library, family, label, uses_codes = "scikit-learn", "NB", "sklearn CategoricalNB (alpha=1)", True

    def fit(self, X, y, data):
        from sklearn.naive_bayes import CategoricalNB

        return CategoricalNB(alpha=1.0, min_categories=data["min_categories"]).fit(X, y)


def _pgmpy_state_names(data):
    X = pd.concat([data["X_train"], data["X_test"]])
    names = {c: sorted(pd.unique(X[c]).tolist()) for c in X.columns}
    names[CLASS] = sorted(pd.unique(pd.concat([data["y_train"], data["y_test"]])).tolist())
    return names


class Pgmpy(Method):
    """pgmpy 1.1.2: TreeSearch structures, DiscreteBayesianEstimator(prior_type="K2") parameters.

    K2 = a pseudo-count of 1 in every cell, the same as graphmodels' default "laplace"
    estimator. State names are given for every variable (all levels of train and test),
    so that a state unseen in training does not crash inference.
    """

    library = "pgmpy"

    def __init__(self, family, nb_class=False):
        self.family, self.nb_class = family, nb_class
        self.label = {
            "NB": "pgmpy NaiveBayes class (K2 prior)"
            if nb_class
            else "pgmpy DiscreteBayesianNetwork, NB arcs (K2 prior)",
            "TAN": "pgmpy TreeSearch tan (K2 prior)",
            "ChowLiu": "pgmpy TreeSearch chow-liu (K2 prior)",
        }[family]

    def fit(self, X, y, data):
        from pgmpy.estimators import TreeSearch
        from pgmpy.models import DiscreteBayesianNetwork, NaiveBayes
        from pgmpy.parameter_estimator import DiscreteBayesianEstimator

        train = X.assign(**{CLASS: np.asarray(y)})
        estimator = DiscreteBayesianEstimator(prior_type="K2", state_names=data["state_names"])
        if self.family == "NB" and self.nb_class:
            model = NaiveBayes()
            model.fit(train, parent_node=CLASS, estimator=estimator)
            return model
        if self.family == "NB":
            dag_edges = [(CLASS, column) for column in X.columns]
        elif self.family == "TAN":
            dag_edges = (
                TreeSearch(train, root_node=X.columns[0])
                .estimate(estimator_type="tan", class_node=CLASS, show_progress=False)
                .edges()
            )
        else:
            dag_edges = (
                TreeSearch(train, root_node=CLASS).estimate(estimator_type="chow-liu", show_progress=False).edges()
            )
        model = DiscreteBayesianNetwork(dag_edges)
        model.add_nodes_from(train.columns)
        model.fit(train, estimator=estimator)
        return model

    def proba(self, model, X):
        frame = model.predict_probability(X)
        classes = np.array([c[len(CLASS) + 1 :] for c in frame.columns], dtype=object)
        return frame.to_numpy(), classes


class PyAgrum(Method):
    """pyAgrum 3.3.1 ``skbn.BNClassifier`` with prior="Smoothing", priorWeight=1 (Laplace).

    For two classes BNClassifier recalibrates ``predict_proba`` around a decision
    threshold chosen on the training data (ROC); we reset ``threshold_`` to 0.5
    before predicting so that the log-loss is that of the raw posterior. The
    threshold search is part of pyAgrum's ``fit`` and so of its fit time.
    """

    library = "pyAgrum"

    def __init__(self, family):
        self.family = family
        self.method = {"NB": "NaiveBayes", "TAN": "TAN", "ChowLiu": "Chow-Liu"}[family]
        self.label = f'pyAgrum BNClassifier("{self.method}", Smoothing 1)'

    def fit(self, X, y, data):
        import pyagrum.skbn as skbn

        model = skbn.createBNClassifier(learningMethod=self.method, prior="Smoothing", priorWeight=1.0)
        return model.fit(X, pd.Series(np.asarray(y), name=CLASS))

    def proba(self, model, X):
        model.threshold_ = 0.5
        return model.predict_proba(X), model.classes_


def methods():
    return [
        GraphModels("NB", gm.NaiveBayes),
        GraphModels("NB", gm.NaiveBayes, uses_codes=True),
        GraphModels("NB", gm.NaiveBayes, estimator=None, reference=False),
        SklearnCategoricalNB(),
        Pgmpy("NB", nb_class=True),
        Pgmpy("NB"),
        PyAgrum("NB"),
        GraphModels("TAN", gm.TAN),
        GraphModels("TAN", gm.TAN, estimator=None, reference=False),
        Pgmpy("TAN"),
        PyAgrum("TAN"),
        GraphModels("FAN", gm.FAN),
        GraphModels("ChowLiu", gm.ChowLiu),
        Pgmpy("ChowLiu"),
        PyAgrum("ChowLiu"),
    ]


# ---------------------------------------------------------------------------- running
def ordinal_codes(X_train, X_test):
    """Codes from the training levels; a test state unseen in training gets code ``n_levels``.

    Returns the two int arrays and ``min_categories`` for CategoricalNB (the number of
    training levels, plus one in a column where the test data has an unseen state).
    """
    train_codes, test_codes, min_categories = [], [], []
    for column in X_train.columns:
        levels = pd.Index(pd.unique(X_train[column]))
        train_codes.append(levels.get_indexer(X_train[column]).astype(np.int64))
        codes = levels.get_indexer(X_test[column]).astype(np.int64)
        unseen = codes < 0
        codes[unseen] = len(levels)
        test_codes.append(codes)
        min_categories.append(len(levels) + int(unseen.any()))
    return np.column_stack(train_codes), np.column_stack(test_codes), np.array(min_categories)


def log_loss_and_error(probabilities, classes, truth):
    classes = np.asarray(classes)
    truth = np.asarray(truth)
    lookup = {_key(c): i for i, c in enumerate(classes)}
    index = np.array([lookup.get(_key(t), -1) for t in truth])
    p_true = np.where(index >= 0, probabilities[np.arange(len(truth)), np.maximum(index, 0)], 0.0)
    log_loss = float(-np.mean(np.log(np.clip(p_true, CLIP, 1.0))))
    error = float(np.mean(np.argmax(probabilities, axis=1) != index))
    return log_loss, error


def _key(value):
    value = value.item() if isinstance(value, np.generic) else value
    return str(value)


def run_one(method, data, n_fit, n_predict, seed=0):
    """Fit on the first `n_fit` training rows, predict the first `n_predict` test rows."""
    X_train, y_train = data["X_train"], data["y_train"]
    X_test, y_test = data["X_test"], data["y_test"]
    if method.uses_codes:
        X_train, X_test = data["codes_train"], data["codes_test"]
    row = dict(
        model=method.family,
        implementation=method.label,
        library=method.library,
        reference=getattr(method, "reference", False),
    )
    n_fit = len(y_train) if n_fit is None else min(n_fit, len(y_train))
    n_predict = len(y_test) if n_predict is None else min(n_predict, len(y_test))
    take = lambda X, n: X[:n] if isinstance(X, np.ndarray) else X.iloc[:n]  # noqa: E731
    Xf, yf, Xp, yp = take(X_train, n_fit), take(y_train, n_fit), take(X_test, n_predict), take(y_test, n_predict)
    row.update(train_rows=n_fit, test_rows=n_predict)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit_s, model, fit_runs = common.timed(lambda: method.fit(Xf, yf, data))
            predict_s, (probabilities, classes), predict_runs = common.timed(lambda: method.proba(model, Xp))
        log_loss, error = log_loss_and_error(np.asarray(probabilities, dtype=float), classes, yp)
        row.update(
            fit_s=fit_s,
            predict_s=predict_s,
            log_loss=log_loss,
            error=error,
            runs=f"{fit_runs}/{predict_runs}",
            status="ok",
        )
    except Exception as exc:  # noqa: BLE001 - one failing peer must not stop the run
        message = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        traceback.print_exc()
        row.update(fit_s=np.nan, predict_s=np.nan, log_loss=np.nan, error=np.nan, runs="", status=f"failed ({message})")
    return row


def run_dataset(dataset, selected_libraries):
    print(f"\n=== {dataset.name}: train {dataset.X_train.shape}, test {dataset.X_test.shape}", flush=True)
    start = time.perf_counter()
    codes_train, codes_test, min_categories = ordinal_codes(dataset.X_train, dataset.X_test)
    encode_s = time.perf_counter() - start
    data = dict(
        X_train=dataset.X_train,
        y_train=dataset.y_train,
        X_test=dataset.X_test,
        y_test=dataset.y_test,
        codes_train=codes_train,
        codes_test=codes_test,
        min_categories=min_categories,
    )
    data["state_names"] = _pgmpy_state_names(data)
    rows = []
    gm_sizes = {None}
    for method in methods():
        if method.library not in selected_libraries:
            continue
        caps = dataset.caps.get(method.library, {})
        n_fit, n_predict = caps.get("fit"), caps.get("predict")
        if n_fit is not None and n_fit < len(dataset.y_train):
            gm_sizes.add(n_fit)
        row = run_one(method, data, n_fit, n_predict)
        row["dataset"] = dataset.name
        rows.append(row)
        print(_progress(row), flush=True)
    # graphmodels again at the peers' smaller training sizes, for like-for-like fit ratios.
    for n_fit in sorted(s for s in gm_sizes if s is not None):
        for method in methods():
            if getattr(method, "reference", False) and "graphmodels" in selected_libraries:
                row = run_one(method, data, n_fit, None)
                row["dataset"] = dataset.name
                rows.append(row)
                print(_progress(row), flush=True)
    return rows, encode_s


def _progress(row):
    return (
        f"  {row['implementation']:<45} fit {common.fmt_seconds(row['fit_s']):>10} on {row['train_rows']:>9,} rows | "
        f"predict {common.fmt_seconds(row['predict_s']):>10} on {row['test_rows']:>7,} rows | "
        f"log-loss {row['log_loss']:.4f} error {row['error']:.4f} {row['status'] if row['status'] != 'ok' else ''}"
    )


def add_ratios(results):
    """Peer time / graphmodels time, same model family, same data set, same training rows.

    Predict ratios compare time per test row. NB rows are compared with graphmodels
    NaiveBayes on the same input type (DataFrame, or int codes for CategoricalNB and
    graphmodels' int-code row itself).
    """
    results = results.copy()
    results["fit_ratio"] = np.nan
    results["predict_ratio"] = np.nan
    gm_rows = results[results.reference & (results.status == "ok")]
    for i, row in results.iterrows():
        if row.reference:
            continue
        reference = gm_rows[
            (gm_rows.dataset == row.dataset) & (gm_rows.model == row.model) & (gm_rows.train_rows == row.train_rows)
        ]
        if reference.empty:
            continue
        ref = reference.iloc[0]
        results.loc[i, "fit_ratio"] = row.fit_s / ref.fit_s
        results.loc[i, "predict_ratio"] = (row.predict_s / row.test_rows) / (ref.predict_s / ref.test_rows)
    return results


def targets(results):
    """The issue's targets, as (target, measured, met) rows."""
    lines = []
    ok = results[results.status == "ok"]

    def ratios(peer_library, family):
        out = []
        for dataset in results.dataset.unique():
            peers = ok[(ok.dataset == dataset) & (ok.library == peer_library) & (ok.model == family)]
            for _, peer in peers.iterrows():
                gm_rows = ok[
                    (ok.dataset == dataset) & ok.reference & (ok.model == family) & (ok.train_rows == peer.train_rows)
                ]
                if len(gm_rows):
                    out.append((dataset, peer.train_rows, peer.fit_s, gm_rows.iloc[0].fit_s))
        return out

    def describe(values, invert=False):
        parts = []
        for dataset, n, peer, ours in values:
            r = (ours / peer) if invert else (peer / ours)
            parts.append(f"{dataset} ({n:,} rows): {r:.1f}x")
        return "; ".join(parts)

    for peer, need in [("pgmpy", 30), ("pyAgrum", 10)]:
        values = ratios(peer, "TAN")
        met = bool(values) and all(p / o >= need for _, _, p, o in values)
        lines.append(
            (
                f"TAN fit >= {need}x faster than {peer}",
                describe(values) or "no data",
                "met" if met else ("not met" if values else "not measured"),
            )
        )
    for label in ["graphmodels NaiveBayes (int codes, laplace)", "graphmodels NaiveBayes (laplace)"]:
        values = []
        for dataset in results.dataset.unique():
            cnb = ok[(ok.dataset == dataset) & (ok.library == "scikit-learn")]
            ours = ok[(ok.dataset == dataset) & (ok.implementation == label)]
            if len(cnb) and len(ours):
                values.append((dataset, int(cnb.iloc[0].train_rows), cnb.iloc[0].fit_s, ours.iloc[0].fit_s))
        met = bool(values) and all(o / p <= 1.5 for _, _, p, o in values)
        input_kind = (
            "same int-code array as CategoricalNB" if "int codes" in label else "DataFrame input, encoding included"
        )
        lines.append(
            (
                f"NB fit within 1.5x of CategoricalNB ({input_kind}); graphmodels / sklearn time",
                describe(values, invert=True) or "no data",
                "met" if met else ("not met" if values else "not measured"),
            )
        )
    return pd.DataFrame(lines, columns=["target", "measured", "verdict"])


def to_markdown(results, notes, encode_times, load_before, elapsed, quick):
    table = results.copy()
    table["fit"] = table.fit_s.map(common.fmt_seconds)
    table["predict"] = table.predict_s.map(common.fmt_seconds)
    table["us/row"] = (table.predict_s / table.test_rows * 1e6).map(
        lambda v: "–" if not np.isfinite(v) else f"{v:,.1f}"
    )
    table["fit ratio"] = table.fit_ratio.map(common.fmt_ratio)
    table["predict ratio"] = table.predict_ratio.map(common.fmt_ratio)
    table["log-loss"] = table.log_loss.map(lambda v: "–" if not np.isfinite(v) else f"{v:.4f}")
    table["error"] = table.error.map(lambda v: "–" if not np.isfinite(v) else f"{v:.4f}")
    table["train rows"] = table.train_rows.map("{:,}".format)
    table["test rows"] = table.test_rows.map("{:,}".format)
    columns = [
        "model",
        "implementation",
        "train rows",
        "fit",
        "fit ratio",
        "test rows",
        "predict",
        "us/row",
        "predict ratio",
        "log-loss",
        "error",
        "runs",
        "status",
    ]
    out = []
    if quick:
        out.append("**Quick smoke-test run on small subsamples; not the benchmark figures.**\n")
    out.append(
        "Produced by `python benchmarks/bench_classifiers.py` "
        f"(total {elapsed / 60:.1f} min; load average at start {load_before}, at end {common.load_average()}).\n\n"
        "- **log-loss**: nats per test instance, `-mean log p(true class)` from each implementation's "
        f"`predict_proba`, the probability clipped at {CLIP:g} so that a peer that outputs exact zeros "
        "stays finite. **error**: argmax of `predict_proba` != true class.\n"
        "- **fit ratio** = peer fit time / graphmodels fit time for the same model family, data set and "
        "number of training rows (> 1: graphmodels is faster). **predict ratio** = the same for time per "
        "test row. The `int codes` row and CategoricalNB are compared with graphmodels NaiveBayes on a "
        "DataFrame; the NB target compares CategoricalNB with the `int codes` row (same input).\n"
        "- Times: `runs` = fit/predict repetitions; a call under 2 s is repeated 3 times and the best "
        "time kept, a slower one runs once. Wall-clock, 2 cores; pgmpy's TreeSearch uses its default "
        "`n_jobs=-1`; numpy's BLAS may use both cores.\n"
        '- Smoothing: graphmodels rows marked `laplace` use `estimator="laplace"` (pseudo-count 1 per '
        "cell, also on the class prior) to match the peers; rows marked `default estimator` use the "
        'package default (`"bdeu"`, BDeu with equivalent sample size 1, at the time of writing) and are '
        'shown for their log-loss only; pgmpy `DiscreteBayesianEstimator(prior_type="K2")` (pseudo-count 1 per cell) '
        'with the state names of train and test given; pyAgrum `prior="Smoothing", priorWeight=1`; '
        "CategoricalNB `alpha=1` with `min_categories` (its class prior is the unsmoothed frequency).\n"
        "- Models differ by library: pgmpy's `chow-liu` is one tree over the attributes *and* the class; "
        "pyAgrum's `Chow-Liu` likewise learns one Chow-Liu tree including the class and predicts from its "
        "Markov blanket; graphmodels `ChowLiu` is one tree per class (Liang & Srebro's ML-Cf-1). pyAgrum's "
        "`TAN` keeps only augmenting arcs whose (smoothed) I(Xi;Xj|C) is above the mean over pairs, so it "
        "is a forest, not a spanning tree. pyAgrum's fit writes the training data to a temporary CSV and, for "
        "two classes, searches a decision threshold on a ROC curve; we reset `threshold_` to 0.5 so that "
        "`predict_proba` is the raw posterior. pgmpy's `NaiveBayes` model class fails in "
        "`predict_probability` (its `active_trail_nodes` does not take `variables=`), so pgmpy naive Bayes is "
        "also run as a `DiscreteBayesianNetwork` with the class -> attribute arcs. pgmpy's `predict_probability` "
        "runs one variable-elimination query per row, pyAgrum's `predict_proba` loops over rows in Python.\n"
    )
    for dataset in results.dataset.unique():
        part = table[table.dataset == dataset]
        out.append(f"### {dataset}\n")
        out.append(
            f"{notes[dataset]}. Ordinal encoding for CategoricalNB (not in its fit time): "
            f"{common.fmt_seconds(encode_times[dataset])}.\n"
        )
        caps = [
            r for r in part.itertuples() if r.train_rows != part.train_rows.max() or r.test_rows != part.test_rows.max()
        ]
        if caps:
            out.append(
                "Rows with fewer train/test rows are peers run on a subsample (and graphmodels at the same "
                "size for the ratio): see *Row caps* below.\n"
            )
        out.append(common.markdown_table(part[columns]) + "\n")
    out.append("### Targets (issue 2)\n")
    out.append(common.markdown_table(targets(results)) + "\n")
    out.append(
        "### Row caps\n\n"
        f"On the synthetic table: {SYNTHETIC_CAPS}; on the real data sets: {REAL_CAPS} "
        "(`None` = all rows). The caps keep each peer's run within a few minutes; per-row predict "
        "times and log-losses on the first rows of the test part are estimates of the full-test figures.\n"
    )
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small subsamples, for a smoke test")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="markdown file whose classifier section is (re)written; default "
        "benchmarks/RESULTS.md for a full run, none for --quick",
    )
    parser.add_argument("--datasets", nargs="+", default=list(LOADERS), choices=list(LOADERS))
    parser.add_argument("--libraries", nargs="+", default=["graphmodels", "scikit-learn", "pgmpy", "pyAgrum"])
    args = parser.parse_args(argv)
    out = args.out if args.out is not None else (None if args.quick else common.RESULTS)

    load_before = common.load_average()
    start = time.perf_counter()
    all_rows, notes, encode_times = [], {}, {}
    for name in args.datasets:
        dataset = LOADERS[name](args.quick)
        if dataset is None:
            continue
        notes[dataset.name] = dataset.note
        rows, encode_times[dataset.name] = run_dataset(dataset, set(args.libraries))
        all_rows.extend(rows)
    if not all_rows:
        print("Nothing was run.")
        return 1
    results = add_ratios(pd.DataFrame(all_rows))
    markdown = to_markdown(results, notes, encode_times, load_before, time.perf_counter() - start, args.quick)
    print("\n" + markdown)
    if out is not None:
        common.write_machine_section(out)
        common.write_section("classifiers", f"## {SECTION}\n\n{markdown}", out)
        print(f"\nwrote section '{SECTION}' of {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

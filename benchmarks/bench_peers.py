"""graphmodels' default classifiers beside pgmpy, pyAgrum and scikit-learn on every shared set.

The project's one protocol for classifier quality:

* every classification set of ``../shared/datasets`` (MANIFEST.tsv; not the ``alarm`` network
  nor the multi-label ``emotions``);
* ``StratifiedKFold(5, shuffle=True, random_state=0)``; every implementation on the same folds;
* numeric columns with >= 10 distinct values cut into 5 equal-frequency bins fitted on each
  training fold (``EqualFrequencyDiscretizer(n_bins=5, min_distinct=10)``); every column then
  handed to every library as text, a missing cell as the state ``"?"``;
* log-loss in nats per row, the probability of the true class clipped at 1e-15 (a class absent
  from a training fold gets that floor), and error rate; average ranks (by mean log-loss per
  set) over the sets every implementation finished;
* every library imported before any timing.

graphmodels runs with its default settings (what a user gets from ``gm.TAN()``); the peers with
their usual settings (Laplace smoothing for pyAgrum and pgmpy, ``alpha=1`` for CategoricalNB,
scikit-learn's default ``LogisticRegression`` on one-hot columns). Sets with more than
``--max-rows`` rows (default 20,000) are subsampled (stratified, seed 0) for every
implementation alike; pgmpy, whose prediction runs one inference per row in Python, only on
sets with at most ``--pgmpy-rows`` rows (default 5,000; the run in RESULTS.md used 2,000 and two
processes side by side, ``--raw`` then ``--render``).

A second table checks the ``discretizer="auto"`` default on the sets with numeric columns: the
default model on the raw numbers against the same model on data cut by hand with Fayyad-Irani
MDL on each training fold (accuracy, same folds).

Usage::

    python benchmarks/bench_peers.py [--sets iris car ...] [--libraries graphmodels pyAgrum ...]
        [--quick] [--out benchmarks/RESULTS.md]

Reads ``../shared/datasets`` (or ``$GRAPHMODELS_DATASETS``); writes its sections of RESULTS.md
between ``<!-- peers:start -->`` / ``<!-- peers:end -->`` and ``<!-- numeric-defaults:... -->``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from bench_classifiers import Pgmpy, PyAgrum, SklearnCategoricalNB, log_loss_and_error, ordinal_codes  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.data import DISCRETIZERS, EqualFrequencyDiscretizer  # noqa: E402

SKIP = {"alarm", "emotions"}
CLASS = "class"


# ---------------------------------------------------------------------------- implementations
class Default:
    """A graphmodels classifier with its default settings (random_state=0 where it has one)."""

    library = "graphmodels"
    uses_codes = False

    def __init__(self, family, cls):
        self.family, self.cls = family, cls
        self.label = f"graphmodels {cls.__name__}()"

    def fit(self, X, y, data):
        params = {"random_state": 0} if "random_state" in self.cls().get_params() else {}
        return self.cls(**params).fit(X, y)

    def proba(self, model, X):
        return model.predict_proba(X), model.classes_


class SklearnLogisticRegression:
    """scikit-learn's default LogisticRegression (L2, C=1, lbfgs) on one-hot columns."""

    library, family, label, uses_codes = "scikit-learn", "LR", "sklearn LogisticRegression (one-hot)", False

    def fit(self, X, y, data):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder

        model = make_pipeline(OneHotEncoder(handle_unknown="ignore"), LogisticRegression(max_iter=2000))
        return model.fit(X, np.asarray(y))

    def proba(self, model, X):
        return model.predict_proba(X), model.classes_


def implementations():
    return [
        Default("NB", gm.NaiveBayes),
        Default("TAN", gm.TAN),
        Default("FAN", gm.FAN),
        Default("ChowLiu", gm.ChowLiu),
        Default("AODE", gm.AODE),
        Default("KDB", gm.KDB),
        Default("Hyperforest", gm.HyperforestClassifier),
        Default("HNB", gm.HierarchicalNaiveBayes),
        Default("KikuchiBayes", gm.KikuchiBayes),
        SklearnCategoricalNB(),
        SklearnLogisticRegression(),
        PyAgrum("NB"),
        PyAgrum("TAN"),
        Pgmpy("NB"),
        Pgmpy("TAN"),
    ]


def import_everything(libraries):
    """Import every library before any timing (their import cost is not a fit time)."""
    import sklearn.linear_model  # noqa: F401
    import sklearn.naive_bayes  # noqa: F401
    import sklearn.preprocessing  # noqa: F401

    if "pyAgrum" in libraries:
        import pyagrum.skbn  # noqa: F401
    if "pgmpy" in libraries:
        import pgmpy.estimators  # noqa: F401
        import pgmpy.models  # noqa: F401
        import pgmpy.parameter_estimator  # noqa: F401


# ---------------------------------------------------------------------------- data
def shared_sets(selected):
    folder = common.datasets_dir()
    if folder is None:
        sys.exit("The shared data sets are needed: set GRAPHMODELS_DATASETS to their folder.")
    manifest = pd.read_csv(folder / "MANIFEST.tsv", sep="\t")
    names = [n for n in manifest["name"] if n not in SKIP and (not selected or n in selected)]
    missing = [n for n in (selected or []) if n not in names]
    if missing:
        print(f"[peers] not found or skipped: {', '.join(missing)}", file=sys.stderr)
    return names


def load(name, max_rows):
    frame = common.read_dataset(name)
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1].astype(str)
    note = ""
    if max_rows and len(frame) > max_rows:
        from sklearn.model_selection import train_test_split

        keep, _ = train_test_split(np.arange(len(frame)), train_size=max_rows, stratify=y, random_state=0)
        keep = np.sort(keep)
        X, y = X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)
        note = f"{max_rows:,} of {len(frame):,} rows (stratified, seed 0)"
    return X, y.rename(CLASS), note


def as_text(X):
    """Every column as text, a missing cell as the state '?' (the same input for every library)."""
    out = X.astype(object).where(X.notna(), "?")
    return out.astype(str)


def fold_data(X, y, train, test):
    binner = EqualFrequencyDiscretizer(n_bins=5, min_distinct=10).fit(X.iloc[train])
    X_train, X_test = as_text(binner.transform(X.iloc[train])), as_text(binner.transform(X.iloc[test]))
    codes_train, codes_test, min_categories = ordinal_codes(X_train, X_test)
    data = dict(
        X_train=X_train,
        y_train=y.iloc[train],
        X_test=X_test,
        y_test=y.iloc[test],
        codes_train=codes_train,
        codes_test=codes_test,
        min_categories=min_categories,
    )
    names = {c: sorted(pd.unique(pd.concat([X_train[c], X_test[c]])).tolist()) for c in X_train.columns}
    names[CLASS] = sorted(pd.unique(y).tolist())
    data["state_names"] = names
    return data


# ---------------------------------------------------------------------------- running
def run_fold(method, data):
    X_train, X_test = (
        (data["codes_train"], data["codes_test"]) if method.uses_codes else (data["X_train"], data["X_test"])
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model = method.fit(X_train, data["y_train"], data)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        probabilities, classes = method.proba(model, X_test)
        predict_s = time.perf_counter() - start
    log_loss, error = log_loss_and_error(np.asarray(probabilities, dtype=float), classes, data["y_test"])
    return dict(fit_s=fit_s, predict_s=predict_s, log_loss=log_loss, error=error)


def run_set(name, libraries, max_rows, pgmpy_rows):
    from sklearn.model_selection import StratifiedKFold

    X, y, note = load(name, max_rows)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    rows = []
    for k, (train, test) in enumerate(folds):
        data = fold_data(X, y, train, test)
        for method in implementations():
            if method.library not in libraries:
                continue
            if method.library == "pgmpy" and len(X) > pgmpy_rows:
                continue
            row = dict(dataset=name, fold=k, family=method.family, implementation=method.label, library=method.library)
            try:
                row.update(run_fold(method, data), status="ok")
            except Exception as exc:  # noqa: BLE001 - one failing peer must not stop the run
                message = f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
                row.update(fit_s=np.nan, predict_s=np.nan, log_loss=np.nan, error=np.nan, status=message)
            rows.append(row)
        print(f"[peers] {name}: fold {k + 1}/5 done", file=sys.stderr, flush=True)
    return rows, note


def numeric_check(name, max_rows):
    """Accuracy of default TAN / NB on raw numbers against the same model on MDL cut by hand."""
    from sklearn.model_selection import StratifiedKFold

    X, y, _ = load(name, max_rows)
    rows = []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        binner = DISCRETIZERS["mdl"]().fit(X.iloc[train], y.iloc[train])
        for cls in (gm.NaiveBayes, gm.TAN, gm.KDB):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                default = cls().fit(X.iloc[train], y.iloc[train]).score(X.iloc[test], y.iloc[test])
                by_hand = (
                    cls(discretizer=None)
                    .fit(binner.transform(X.iloc[train]), y.iloc[train])
                    .score(binner.transform(X.iloc[test]), y.iloc[test])
                )
                try:
                    raw = cls(discretizer=None).fit(X.iloc[train], y.iloc[train]).score(X.iloc[test], y.iloc[test])
                except ValueError:  # every value a state: the tables can exceed max_cells (adult's fnlwgt)
                    raw = np.nan
            rows.append(dict(dataset=name, model=cls.__name__, default=default, by_hand=by_hand, raw=raw))
    return rows


# ---------------------------------------------------------------------------- reporting
def summarize(results):
    ok = results[results["status"] == "ok"]
    per_set = ok.groupby(["implementation", "dataset"])[["log_loss", "error", "fit_s", "predict_s"]].agg(
        {"log_loss": "mean", "error": "mean", "fit_s": "sum", "predict_s": "sum"}
    )
    per_set = per_set.reset_index()
    folds_done = ok.groupby(["implementation", "dataset"]).size()
    complete = folds_done[folds_done == 5].reset_index()[["implementation", "dataset"]]
    per_set = per_set.merge(complete, on=["implementation", "dataset"])
    return per_set


def ranks(per_set, implementations_):
    """Average rank by mean log-loss over the sets all `implementations_` finished."""
    table = per_set.pivot(index="dataset", columns="implementation", values="log_loss")[implementations_].dropna()
    return table.rank(axis=1).mean(), len(table)


def markdown(results, numeric, notes, elapsed, quick):
    per_set = summarize(results)
    labels = list(dict.fromkeys(results["implementation"]))
    overall = []
    everyone = [label for label in labels if label in set(per_set["implementation"])]
    no_pgmpy = [label for label in everyone if not label.startswith("pgmpy")]
    mean_rank, n_ranked = ranks(per_set, no_pgmpy)
    sets_all = per_set.pivot(index="dataset", columns="implementation", values="log_loss")[no_pgmpy].dropna().index
    for label in everyone:
        mine = per_set[per_set["implementation"] == label]
        shared = mine[mine["dataset"].isin(sets_all)]
        overall.append(
            {
                "implementation": label,
                "sets": len(mine),
                f"mean log-loss ({len(sets_all)} shared sets)": f"{shared['log_loss'].mean():.4f}"
                if len(shared) == len(sets_all)
                else "–",
                "mean error": f"{shared['error'].mean():.4f}" if len(shared) == len(sets_all) else "–",
                f"average rank ({n_ranked} sets)": f"{mean_rank[label]:.2f}" if label in mean_rank else "–",
                "total fit": common.fmt_seconds(mine["fit_s"].sum()),
                "total predict": common.fmt_seconds(mine["predict_s"].sum()),
            }
        )
    overall = pd.DataFrame(overall)
    wide = per_set.pivot(index="dataset", columns="implementation", values="log_loss")
    wide = wide[[label for label in everyone if label in wide.columns]]
    per_set_table = wide.map(lambda v: "–" if pd.isna(v) else f"{v:.3f}").reset_index()
    failures = results[results["status"] != "ok"]
    lines = [
        "## Default classifiers beside pgmpy, pyAgrum and scikit-learn (bench_peers.py)",
        "",
        f"Run {datetime.date.today().isoformat()}{' (--quick)' if quick else ''}, {elapsed / 60:.1f} min. "
        "Protocol: StratifiedKFold(5, shuffle=True, random_state=0); numeric columns with >= 10 distinct "
        "values cut into 5 equal-frequency bins fitted on each training fold; every column given to every "
        "library as text (missing = '?'); log-loss in nats with probabilities clipped at 1e-15; every "
        "library imported before timing. graphmodels with default settings; pyAgrum/pgmpy with Laplace "
        "smoothing; CategoricalNB(alpha=1); LogisticRegression() on one-hot columns. pgmpy only on the "
        "smaller sets (`--pgmpy-rows`; its prediction is one inference per row), so it is left out of the "
        "ranks and the means over the shared sets.",
        "",
        common.machine_markdown(),
        "",
        common.markdown_table(overall),
        "",
        targets_markdown(per_set),
        "",
        "Per-set mean log-loss:",
        "",
        common.markdown_table(per_set_table),
    ]
    if notes:
        lines += ["", "Subsampled: " + "; ".join(f"{k}: {v}" for k, v in notes.items() if v) + "."]
    if len(failures):
        lines += ["", "Failures:", ""]
        lines += [f"- {r.implementation} on {r.dataset} fold {r.fold}: {r.status}" for r in failures.itertuples()]
    body = "\n".join(lines)
    numeric_body = numeric_markdown(numeric) if numeric is not None and len(numeric) else ""
    return body, numeric_body


def targets_markdown(per_set):
    """Issue 14's targets, each pair compared on the sets both implementations finished."""
    tan, nb = "graphmodels TAN()", "graphmodels NaiveBayes()"
    agrum_tan = 'pyAgrum BNClassifier("TAN", Smoothing 1)'
    table = per_set.set_index(["implementation", "dataset"])
    rows = []

    def both(a, b):
        sets_a = set(per_set.loc[per_set["implementation"] == a, "dataset"])
        return sorted(sets_a & set(per_set.loc[per_set["implementation"] == b, "dataset"]))

    def compare(ours, theirs, what):
        sets = both(ours, theirs)
        for column in ("log_loss", "error"):
            a = table.loc[[(ours, d) for d in sets], column].mean()
            b = table.loc[[(theirs, d) for d in sets], column].mean()
            rows.append(
                {
                    "target": f"{what}: mean {column.replace('_', '-')} over the {len(sets)} sets both finished",
                    "graphmodels": f"{a:.4f}",
                    "peer": f"{b:.4f}",
                    "met": "yes" if a <= b else "**no**",
                }
            )

    compare(tan, agrum_tan, "default TAN() <= pyAgrum TAN")
    compare(nb, "sklearn CategoricalNB (alpha=1)", "default NaiveBayes() <= CategoricalNB")
    compare("graphmodels HyperforestClassifier()", tan, "default HyperforestClassifier() <= default TAN()")
    compare("graphmodels ChowLiu()", tan, "default ChowLiu() <= default TAN()")
    sets = both(tan, agrum_tan)
    ours = table.loc[[(tan, d) for d in sets], "fit_s"].sum()
    theirs = table.loc[[(agrum_tan, d) for d in sets], "fit_s"].sum()
    rows.append(
        {
            "target": f"total TAN fit time over the {len(sets)} sets both finished >= 10x below pyAgrum's",
            "graphmodels": common.fmt_seconds(ours),
            "peer": f"{common.fmt_seconds(theirs)} ({common.fmt_ratio(theirs / ours)})",
            "met": "yes" if theirs >= 10 * ours else "**no**",
        }
    )
    return "Targets of issue 14, measured in this run:\n\n" + common.markdown_table(pd.DataFrame(rows))


def numeric_markdown(numeric):
    table = numeric.groupby(["dataset", "model"])[["default", "by_hand", "raw"]].mean().reset_index()
    table["difference (points)"] = 100 * (table["default"] - table["by_hand"])
    worst = table["difference (points)"].abs().max()
    shown = table.assign(
        **{
            "default accuracy": table["default"].map("{:.4f}".format),
            "MDL by hand": table["by_hand"].map("{:.4f}".format),
            "discretizer=None on raw numbers": table["raw"].map(lambda v: "too large" if pd.isna(v) else f"{v:.4f}"),
            "difference (points)": table["difference (points)"].map("{:+.2f}".format),
        }
    )[["dataset", "model", "default accuracy", "MDL by hand", "difference (points)", "discretizer=None on raw numbers"]]
    return "\n".join(
        [
            "## Numeric columns with default settings (bench_peers.py)",
            "",
            f"Run {datetime.date.today().isoformat()}. Every shared set with numeric columns, raw numbers in; "
            "StratifiedKFold(5, shuffle=True, random_state=0); test accuracy of the default model "
            '(discretizer="auto") against the same model with discretizer=None on data cut by hand '
            "with Fayyad-Irani MDL (`DISCRETIZERS['mdl']`) fitted on each training fold, and against "
            "discretizer=None on the raw numbers (what every model did before issue 14). Target: "
            f"within 1 point; largest difference here {worst:.2f} points.",
            "",
            common.markdown_table(shown),
        ]
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", help="shared set names (default: every classification set)")
    parser.add_argument(
        "--libraries",
        nargs="+",
        default=["graphmodels", "scikit-learn", "pyAgrum", "pgmpy"],
        help="libraries to run (default: all four)",
    )
    parser.add_argument("--max-rows", type=int, default=20_000, help="subsample larger sets to this many rows")
    parser.add_argument("--pgmpy-rows", type=int, default=5_000, help="run pgmpy only on sets up to this size")
    parser.add_argument("--quick", action="store_true", help="smoke test: 4 small sets, 1,000 rows at most")
    parser.add_argument("--out", help="write the sections into this file (default for a full run: RESULTS.md)")
    parser.add_argument(
        "--raw", metavar="PREFIX", help="also save the per-fold rows as PREFIX.folds.csv and PREFIX.numeric.csv"
    )
    parser.add_argument(
        "--render",
        nargs="+",
        metavar="PREFIX",
        help="write the sections from runs saved with --raw (e.g. two halves of the sets run side by side)",
    )
    args = parser.parse_args(argv)
    if args.render:
        results = pd.concat([pd.read_csv(f"{prefix}.folds.csv") for prefix in args.render], ignore_index=True)
        numeric = pd.concat(
            [
                pd.read_csv(f"{prefix}.numeric.csv")
                for prefix in args.render
                if Path(f"{prefix}.numeric.csv").read_text().strip()  # empty: a set without numeric columns
            ],
            ignore_index=True,
        )
        elapsed = float(results.attrs.get("elapsed", 0.0)) or sum(
            float(Path(f"{prefix}.elapsed").read_text()) for prefix in args.render if Path(f"{prefix}.elapsed").exists()
        )
        order = [m.label for m in implementations()]
        results["order"] = results["implementation"].map({label: i for i, label in enumerate(order)})
        results = results.sort_values(["order", "dataset", "fold"], kind="stable").drop(columns="order")
        notes = {}
        for prefix in args.render:
            path = Path(f"{prefix}.notes.csv")
            if path.exists() and path.read_text().strip().count("\n"):
                saved = pd.read_csv(path).dropna()
                notes.update(dict(zip(saved["dataset"], saved["note"])))
        body, numeric_body = markdown(results, numeric, notes, elapsed, False)
        _write(body, numeric_body, args.out or common.RESULTS)
        return
    if args.quick:
        args.sets = args.sets or ["iris", "car", "breast-cancer-wisconsin", "pima"]
        args.max_rows = min(args.max_rows, 1000)
    import_everything(args.libraries)
    start = time.perf_counter()
    rows, notes, numeric = [], {}, []
    folder = common.datasets_dir()
    manifest = pd.read_csv(folder / "MANIFEST.tsv", sep="\t") if folder else None
    for name in shared_sets(args.sets):
        set_rows, note = run_set(name, args.libraries, args.max_rows, args.pgmpy_rows)
        rows += set_rows
        notes[name] = note
        numeric_columns = manifest.set_index("name").loc[name, "numeric_attributes"]
        if "graphmodels" in args.libraries and pd.notna(numeric_columns) and int(numeric_columns) > 0:
            numeric += numeric_check(name, args.max_rows)
    results = pd.DataFrame(rows)
    elapsed = time.perf_counter() - start
    if args.raw:
        results.to_csv(f"{args.raw}.folds.csv", index=False)
        pd.DataFrame(numeric).to_csv(f"{args.raw}.numeric.csv", index=False)
        pd.Series(notes, name="note").rename_axis("dataset").to_csv(f"{args.raw}.notes.csv")
        Path(f"{args.raw}.elapsed").write_text(str(elapsed))
    body, numeric_body = markdown(results, pd.DataFrame(numeric), notes, elapsed, args.quick)
    print(body)
    print(numeric_body)
    out = args.out or (None if args.quick or args.raw else common.RESULTS)
    if out:
        _write(body, numeric_body, out)


def _write(body, numeric_body, out):
    common.write_section("peers", body, out)
    if numeric_body:
        common.write_section("numeric-defaults", numeric_body, out)
    print(f"[peers] wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()

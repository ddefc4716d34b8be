"""Generative and discriminative Bayesian-network classifiers beside logistic regression (issue 15).

The protocol of ``bench_peers.py`` (StratifiedKFold(5, shuffle=True, random_state=0), 5
equal-frequency bins fitted per training fold, every column as text, log-loss in nats clipped at
1e-15, every library imported before timing), for:

* graphmodels' NB, TAN, KDB (k = 1, 2) and selective KDB, each with its default generative
  estimator and with ``estimator="discriminative"`` (the same structure, tables fitted to the
  conditional likelihood: ELR, the penalty by inner cross-validation); AODE, A2DE and
  Kikuchi-Bayes with their defaults;
* scikit-learn's ``LogisticRegression`` on one-hot columns (lbfgs, C = 1, and C chosen by an inner
  5-fold cross-validation of the log-loss, ``LogisticRegressionCV(Cs=10)``) and ``CategoricalNB``;
* pyAgrum's and pgmpy's TAN (Laplace smoothing; pgmpy only on sets of at most ``--pgmpy-rows``).

Kikuchi-Bayes runs on sets of at most ``--kikuchi-rows`` rows (its search dominates the run on
the larger ones); pgmpy and Kikuchi-Bayes are left out of the ranks and means when they skipped
a set. Targets (issue 15): graphmodels' best classifier has a better average log-loss rank and a
lower mean log-loss than the better logistic regression, and a better average error rank;
discriminative TAN's total fit time is below logistic regression's; each discriminative model's
log-loss is no worse than its generative twin's on at least 80% of the sets.

Usage::

    python benchmarks/bench_discriminative.py [--sets iris car ...] [--raw PREFIX] [--render A B]

Reads ``../shared/datasets`` (or ``$GRAPHMODELS_DATASETS``); writes its section of RESULTS.md
between ``<!-- discriminative:start -->`` and ``<!-- discriminative:end -->``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from bench_classifiers import Pgmpy, PyAgrum, SklearnCategoricalNB  # noqa: E402
from bench_peers import (  # noqa: E402
    SklearnLogisticRegression,
    fold_data,
    import_everything,
    load,
    run_fold,
    shared_sets,
    summarize,
)

import graphmodels as gm  # noqa: E402


class Configured:
    """A graphmodels classifier with the given settings."""

    library = "graphmodels"
    uses_codes = False

    def __init__(self, family, label, make, max_rows=None):
        self.family, self.label, self.make, self.max_rows = family, f"graphmodels {label}", make, max_rows

    def fit(self, X, y, data):
        return self.make().fit(X, y)

    def proba(self, model, X):
        return model.predict_proba(X), model.classes_


class SklearnLogisticRegressionCV:
    """LogisticRegressionCV on one-hot columns: C from 10 values by 5-fold CV of the log-loss."""

    library, family, label, uses_codes = "scikit-learn", "LR", "sklearn LogisticRegressionCV (one-hot)", False

    def fit(self, X, y, data):
        from sklearn.linear_model import LogisticRegressionCV
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder

        cv = LogisticRegressionCV(Cs=10, cv=5, scoring="neg_log_loss", max_iter=2000)
        return make_pipeline(OneHotEncoder(handle_unknown="ignore"), cv).fit(X, np.asarray(y))

    def proba(self, model, X):
        return model.predict_proba(X), model.classes_


#: Generative twin -> discriminative model, for the 80% target.
TWINS = {
    "graphmodels NaiveBayes()": "graphmodels NaiveBayes(estimator='discriminative')",
    "graphmodels TAN()": "graphmodels TAN(estimator='discriminative')",
    "graphmodels KDB(k=1)": "graphmodels KDB(k=1, estimator='discriminative')",
    "graphmodels KDB(k=2)": "graphmodels KDB(k=2, estimator='discriminative')",
    "graphmodels SelectiveKDB()": "graphmodels SelectiveKDB(estimator='discriminative', max_cells=10**9)",
}
LOGISTIC = ("sklearn LogisticRegression (one-hot)", "sklearn LogisticRegressionCV (one-hot)")


def implementations(kikuchi_rows=10_000):
    d = "discriminative"
    return [
        Configured("NB", "NaiveBayes()", gm.NaiveBayes),
        Configured("NB", "NaiveBayes(estimator='discriminative')", lambda: gm.NaiveBayes(estimator=d)),
        Configured("TAN", "TAN()", gm.TAN),
        Configured("TAN", "TAN(estimator='discriminative')", lambda: gm.TAN(estimator=d)),
        Configured("KDB", "KDB(k=1)", lambda: gm.KDB(k=1)),
        Configured("KDB", "KDB(k=1, estimator='discriminative')", lambda: gm.KDB(k=1, estimator=d)),
        Configured("KDB", "KDB(k=2)", lambda: gm.KDB(k=2)),
        Configured("KDB", "KDB(k=2, estimator='discriminative')", lambda: gm.KDB(k=2, estimator=d)),
        Configured("SKDB", "SelectiveKDB()", gm.SelectiveKDB),
        # Its L-BFGS keeps 25 numbers per parameter, more than the default max_cells (10M) allows on
        # letter and waveform, where the selected k gives up to 4.2M parameters.
        Configured(
            "SKDB",
            "SelectiveKDB(estimator='discriminative', max_cells=10**9)",
            lambda: gm.SelectiveKDB(estimator=d, max_cells=10**9),
        ),
        Configured("AODE", "AODE()", gm.AODE),
        # A2DE's tables exceed the default max_cells (10M) on satimage, soybean-large and splice.
        Configured("AODE", "AnDE(n=2, max_cells=10**8)", lambda: gm.AnDE(n=2, max_cells=10**8)),
        Configured("Kikuchi", "KikuchiBayes()", gm.KikuchiBayes, max_rows=kikuchi_rows),
        SklearnLogisticRegression(),
        SklearnLogisticRegressionCV(),
        SklearnCategoricalNB(),
        PyAgrum("TAN"),
        Pgmpy("TAN"),
    ]


def run_set(name, max_rows, pgmpy_rows, kikuchi_rows, only=None):
    from sklearn.model_selection import StratifiedKFold

    X, y, note = load(name, max_rows)
    rows = []
    for k, (train, test) in enumerate(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)):
        data = fold_data(X, y, train, test)
        for method in implementations(kikuchi_rows):
            if only and not any(part in method.label for part in only):
                continue
            if method.library == "pgmpy" and len(X) > pgmpy_rows:
                continue
            if getattr(method, "max_rows", None) and len(X) > method.max_rows:
                continue
            row = dict(dataset=name, fold=k, family=method.family, implementation=method.label, library=method.library)
            try:
                row.update(run_fold(method, data), status="ok")
            except Exception as exc:  # noqa: BLE001 - one failing peer must not stop the run
                message = f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
                row.update(fit_s=np.nan, predict_s=np.nan, log_loss=np.nan, error=np.nan, status=message)
            rows.append(row)
        print(f"[discriminative] {name}: fold {k + 1}/5 done", file=sys.stderr, flush=True)
    return rows, note


# ---------------------------------------------------------------------------- reporting
def _complete_labels(per_set, labels):
    """The implementations that finished every set any implementation finished."""
    n_sets = per_set["dataset"].nunique()
    counts = per_set.groupby("implementation")["dataset"].nunique()
    return [label for label in labels if counts.get(label, 0) == n_sets]


def markdown(results, notes, elapsed):
    per_set = summarize(results)
    labels = list(dict.fromkeys(results["implementation"]))
    ranked = _complete_labels(per_set, labels)
    log_loss = per_set.pivot(index="dataset", columns="implementation", values="log_loss")
    error = per_set.pivot(index="dataset", columns="implementation", values="error")
    sets = log_loss[ranked].dropna().index
    loss_rank = log_loss.loc[sets, ranked].rank(axis=1).mean()
    error_rank = error.loc[sets, ranked].rank(axis=1).mean()
    overall = []
    for label in labels:
        mine = per_set[per_set["implementation"] == label]
        full = label in ranked
        overall.append(
            {
                "implementation": label,
                "sets": len(mine),
                f"mean log-loss ({len(sets)} sets)": f"{log_loss.loc[sets, label].mean():.4f}" if full else "–",
                "mean error": f"{error.loc[sets, label].mean():.4f}" if full else "–",
                "log-loss rank": f"{loss_rank[label]:.2f}" if full else "–",
                "error rank": f"{error_rank[label]:.2f}" if full else "–",
                "total fit": common.fmt_seconds(mine["fit_s"].sum()),
                "total predict": common.fmt_seconds(mine["predict_s"].sum()),
            }
        )
    table = log_loss[[label for label in labels if label in log_loss.columns]]
    per_set_table = table.map(lambda v: "–" if pd.isna(v) else f"{v:.3f}").reset_index()
    failures = results[results["status"] != "ok"]
    lines = [
        "## Discriminative parameters beside logistic regression (bench_discriminative.py)",
        "",
        f"Run {datetime.date.today().isoformat()}, {elapsed / 60:.1f} min. The protocol of bench_peers.py "
        "(StratifiedKFold(5, shuffle=True, random_state=0); 5 equal-frequency bins per training fold; every "
        "column as text; log-loss in nats clipped at 1e-15; every library imported before timing). "
        "`estimator='discriminative'`: the model's structure, its tables refitted to the L2-penalized "
        "conditional likelihood (ELR, penalty by inner CV: 3 folds, 10 below 200 rows). Ranks and means over the sets every "
        "listed implementation finished (pgmpy and Kikuchi-Bayes skip the larger sets, so they are left out).",
        "",
        common.machine_markdown(),
        "",
        common.markdown_table(pd.DataFrame(overall)),
        "",
        targets_markdown(per_set, log_loss, error, loss_rank, error_rank, sets),
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
    return "\n".join(lines)


def targets_markdown(per_set, log_loss, error, loss_rank, error_rank, sets):
    ours = [label for label in loss_rank.index if label.startswith("graphmodels")]
    best = min(ours, key=loss_rank.__getitem__)
    logistic = [label for label in LOGISTIC if label in loss_rank.index]
    better_lr = min(logistic, key=loss_rank.__getitem__)
    rows = [
        {
            "target": f"best graphmodels model ({best}) log-loss rank < the better LR's ({better_lr})",
            "graphmodels": f"{loss_rank[best]:.2f}",
            "peer": f"{loss_rank[better_lr]:.2f}",
            "met": "yes" if loss_rank[best] < loss_rank[better_lr] else "**no**",
        },
        {
            "target": f"its mean log-loss over the {len(sets)} sets < the better LR's",
            "graphmodels": f"{log_loss.loc[sets, best].mean():.4f}",
            "peer": f"{log_loss.loc[sets, better_lr].mean():.4f}",
            "met": "yes" if log_loss.loc[sets, best].mean() < log_loss.loc[sets, better_lr].mean() else "**no**",
        },
        {
            "target": "its error rank < the better LR's",
            "graphmodels": f"{error_rank[best]:.2f}",
            "peer": f"{error_rank[better_lr]:.2f}",
            "met": "yes" if error_rank[best] < error_rank[better_lr] else "**no**",
        },
    ]
    fit = per_set.groupby("implementation")["fit_s"].sum()
    tan = "graphmodels TAN(estimator='discriminative')"
    for lr in logistic:
        rows.append(
            {
                "target": f"discriminative TAN's total fit time < {lr}'s",
                "graphmodels": common.fmt_seconds(fit[tan]),
                "peer": f"{common.fmt_seconds(fit[lr])} ({common.fmt_ratio(fit[lr] / fit[tan])})",
                "met": "yes" if fit[tan] < fit[lr] else "**no**",
            }
        )
    for generative, discriminative in TWINS.items():
        if generative not in log_loss.columns or discriminative not in log_loss.columns:
            continue
        both = log_loss[[generative, discriminative]].dropna()
        share = float((both[discriminative] <= both[generative]).mean())
        rows.append(
            {
                "target": f"{discriminative} no worse than {generative} on >= 80% of the {len(both)} sets",
                "graphmodels": f"{share:.0%}",
                "peer": "",
                "met": "yes" if share >= 0.8 else "**no**",
            }
        )
    return "Targets of issue 15, measured in this run:\n\n" + common.markdown_table(pd.DataFrame(rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", help="shared set names (default: every classification set)")
    parser.add_argument("--max-rows", type=int, default=20_000, help="subsample larger sets to this many rows")
    parser.add_argument("--pgmpy-rows", type=int, default=2_000, help="run pgmpy only on sets up to this size")
    parser.add_argument("--kikuchi-rows", type=int, default=10_000, help="run Kikuchi-Bayes on sets up to this size")
    parser.add_argument("--out", help="write the section into this file (default for a full run: RESULTS.md)")
    parser.add_argument("--raw", metavar="PREFIX", help="save the per-fold rows as PREFIX.folds.csv (no RESULTS.md)")
    parser.add_argument("--render", nargs="+", metavar="PREFIX", help="write the section from runs saved with --raw")
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="TEXT",
        help="run only the implementations whose label contains one of these (a partial rerun: --render "
        "then takes each implementation's rows from the last prefix that has them)",
    )
    args = parser.parse_args(argv)
    if args.render:
        runs = [pd.read_csv(f"{p}.folds.csv") for p in args.render]
        # A later prefix's rows replace an earlier one's for the (implementation, set) pairs it ran.
        for i, later in enumerate(runs):
            pairs = set(zip(later["implementation"], later["dataset"]))
            for j, earlier in enumerate(runs[:i]):
                rerun = [pair in pairs for pair in zip(earlier["implementation"], earlier["dataset"])]
                runs[j] = earlier[~np.array(rerun, dtype=bool)]
        results = pd.concat(runs, ignore_index=True)
        order = {m.label: i for i, m in enumerate(implementations())}
        results = results.sort_values(
            ["implementation", "dataset", "fold"], key=lambda c: c.map(order) if c.name == "implementation" else c
        )
        elapsed = sum(float(Path(f"{p}.elapsed").read_text()) for p in args.render)
        notes = {}
        for p in args.render:
            saved = pd.read_csv(f"{p}.notes.csv").dropna()
            notes.update(dict(zip(saved["dataset"], saved["note"])))
        common.write_section("discriminative", markdown(results, notes, elapsed), args.out or common.RESULTS)
        return
    import_everything(["pyAgrum", "pgmpy"])
    import sklearn.linear_model  # noqa: F401

    start = time.perf_counter()
    rows, notes = [], {}
    for name in shared_sets(args.sets):
        set_rows, notes[name] = run_set(name, args.max_rows, args.pgmpy_rows, args.kikuchi_rows, args.only)
        rows += set_rows
        if args.raw:
            pd.DataFrame(rows).to_csv(f"{args.raw}.folds.csv", index=False)
    results = pd.DataFrame(rows)
    elapsed = time.perf_counter() - start
    if args.raw:
        results.to_csv(f"{args.raw}.folds.csv", index=False)
        pd.Series(notes, name="note").rename_axis("dataset").to_csv(f"{args.raw}.notes.csv")
        Path(f"{args.raw}.elapsed").write_text(str(elapsed))
        return
    body = markdown(results, notes, elapsed)
    print(body)
    common.write_section("discriminative", body, args.out or common.RESULTS)


if __name__ == "__main__":
    main()

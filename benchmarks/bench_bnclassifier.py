"""BNClassifier, which chooses its structure and parameters by evidence, beside its candidates and peers (issue 27).

The protocol of ``bench_peers.py`` (StratifiedKFold(5, shuffle=True, random_state=0), 5
equal-frequency bins fitted per training fold, every column as text, log-loss in nats clipped at
1e-15, every library imported before timing), for:

* ``gm.BNClassifier()`` with its defaults;
* its candidates fitted alone: graphmodels' NB, TAN, KDB (k = 1, 2) and selective KDB, each with
  its default generative estimator and with ``estimator="discriminative"``, and AODE;
* scikit-learn's ``LogisticRegression`` and ``LogisticRegressionCV`` on one-hot columns and
  ``CategoricalNB``; pyAgrum's TAN (Laplace smoothing).

Targets (issue 27): BNClassifier has the lowest mean log-loss, the best average log-loss rank and
the best average error rank of the table; its total fit time is below ``LogisticRegressionCV``'s;
on no set does its log-loss exceed that of the best of its candidates fitted alone by more than
0.02 nats (the regret).

Usage::

    python benchmarks/bench_bnclassifier.py [--sets iris car ...] [--raw PREFIX] [--render A B]

Two halves of the sets can run side by side (``--raw a --sets ...`` and ``--raw b --sets ...``,
then ``--render a b``); ``--only`` and ``--skip`` run some implementations (BNClassifier and
LogisticRegressionCV again, say, in a quiet hour) and ``--render`` joins the runs. Both match
any part of a label: ``BNClassifier`` also matches pyAgrum's ``BNClassifier("TAN", ...)``, so
name ``"graphmodels BNClassifier"`` to mean graphmodels' alone. The runs behind
RESULTS.md are kept in ``benchmarks/results/bnclassifier/`` (per-fold rows gzipped), so that the
section can be rendered again with one part re-run. Reads ``../shared/datasets`` (or ``$GRAPHMODELS_DATASETS``); writes its
section of RESULTS.md between ``<!-- bnclassifier:start -->`` and ``<!-- bnclassifier:end -->``.
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
from bench_classifiers import PyAgrum, SklearnCategoricalNB  # noqa: E402
from bench_discriminative import Configured, SklearnLogisticRegressionCV, _complete_labels  # noqa: E402
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

BNC = "graphmodels BNClassifier()"
LRCV = "sklearn LogisticRegressionCV (one-hot)"
REGRET = 0.02


class Chooser(Configured):
    """BNClassifier(): remembers the candidate each fit chose."""

    def fit(self, X, y, data):
        model = self.make().fit(X, y)
        self.last_choice = model.selection_.loc[model.selection_["chosen"], "candidate"].item()
        return model


def candidates():
    """BNClassifier's default candidates, each fitted alone."""
    d = "discriminative"
    return [
        Configured("NB", "NaiveBayes()", gm.NaiveBayes),
        Configured("NB", "NaiveBayes(estimator='discriminative')", lambda: gm.NaiveBayes(estimator=d)),
        Configured("TAN", "TAN()", gm.TAN),
        Configured("TAN", "TAN(estimator='discriminative')", lambda: gm.TAN(estimator=d)),
        Configured("KDB", "KDB(k=2)", lambda: gm.KDB(k=2)),
        Configured("KDB", "KDB(k=2, estimator='discriminative')", lambda: gm.KDB(k=2, estimator=d)),
        Configured("SKDB", "SelectiveKDB()", gm.SelectiveKDB),
        Configured("SKDB", "SelectiveKDB(estimator='discriminative')", lambda: gm.SelectiveKDB(estimator=d)),
        Configured("AODE", "AODE()", gm.AODE),
    ]


def others():
    """graphmodels models that are not among BNClassifier's default candidates (KDB(k=1): TAN's near twin)."""
    d = "discriminative"
    return [
        Configured("KDB", "KDB(k=1)", lambda: gm.KDB(k=1)),
        Configured("KDB", "KDB(k=1, estimator='discriminative')", lambda: gm.KDB(k=1, estimator=d)),
    ]


def implementations():
    return [
        Chooser("BNC", "BNClassifier()", gm.BNClassifier),
        *candidates(),
        *others(),
        SklearnLogisticRegression(),
        SklearnLogisticRegressionCV(),
        SklearnCategoricalNB(),
        PyAgrum("TAN"),
    ]


def run_set(name, max_rows, only=None, skip=None):
    from sklearn.model_selection import StratifiedKFold

    X, y, note = load(name, max_rows)
    rows = []
    for k, (train, test) in enumerate(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)):
        data = fold_data(X, y, train, test)
        for method in implementations():
            if only and not any(part in method.label for part in only):
                continue
            if skip and any(part in method.label for part in skip):
                continue
            row = dict(dataset=name, fold=k, family=method.family, implementation=method.label, library=method.library)
            try:
                row.update(run_fold(method, data), status="ok", chosen=getattr(method, "last_choice", ""))
            except Exception as exc:  # noqa: BLE001 - one failing peer must not stop the run
                message = f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
                row.update(fit_s=np.nan, predict_s=np.nan, log_loss=np.nan, error=np.nan, status=message, chosen="")
            rows.append(row)
        print(f"[bnclassifier] {name}: fold {k + 1}/5 done", file=sys.stderr, flush=True)
    return rows, note


def by_size(names):
    """The smallest sets first (by rows in MANIFEST.tsv): a run stopped early keeps the most sets."""
    manifest = pd.read_csv(common.datasets_dir() / "MANIFEST.tsv", sep="\t").set_index("name")
    return sorted(names, key=lambda name: manifest.loc[name, "rows"])


# ---------------------------------------------------------------------------- reporting
def markdown(results, notes, elapsed, loads, note=""):
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
    candidate_labels = [m.label for m in candidates() if m.label in log_loss.columns]
    best_candidate = log_loss.loc[sets, candidate_labels].min(axis=1)
    regret = log_loss.loc[sets, BNC] - best_candidate
    chosen = results[results["implementation"] == BNC].groupby("dataset")["chosen"]
    per_set_table = pd.DataFrame(
        {
            "dataset": sets,
            "BNClassifier": log_loss.loc[sets, BNC].map("{:.3f}".format).to_numpy(),
            "best candidate alone": [
                f"{best_candidate[s]:.3f} ({log_loss.loc[s, candidate_labels].idxmin().removeprefix('graphmodels ')})"
                for s in sets
            ],
            "regret": regret.map("{:+.3f}".format).to_numpy(),
            "LogisticRegressionCV": log_loss.loc[sets, LRCV].map("{:.3f}".format).to_numpy(),
            "chosen in the 5 folds": ["; ".join(_tally(chosen.get_group(s))) for s in sets],
        }
    )
    failures = results[results["status"] != "ok"]
    lines = [
        "## BNClassifier: structure and parameters chosen by evidence (bench_bnclassifier.py, issue 27)",
        "",
        f"Run {datetime.date.today().isoformat()}, {elapsed / 60:.1f} min of wall time. The protocol of bench_peers.py "
        "(StratifiedKFold(5, shuffle=True, random_state=0); 5 equal-frequency bins per training fold; every "
        "column as text; log-loss in nats clipped at 1e-15; every library imported before timing). "
        "`gm.BNClassifier()` with its defaults, beside each of its candidates fitted alone and the peers. "
        "Ranks and means over the sets every listed implementation finished." + (f" {note}" if note else ""),
        "",
        _coverage(per_set),
        "",
        common.machine_markdown(),
        f"- load average (1, 5, 15 min) at the start of each process of the run: {loads}",
        "",
        common.markdown_table(pd.DataFrame(overall)),
        "",
        targets_markdown(per_set, log_loss, error, loss_rank, error_rank, sets, regret),
        "",
        "Per set: BNClassifier's mean log-loss, the best of its candidates fitted alone, the difference "
        "(the regret), LogisticRegressionCV's, and what BNClassifier chose in the 5 outer folds:",
        "",
        common.markdown_table(per_set_table),
    ]
    if notes:
        subsampled = "; ".join(f"{k}: {v}" for k, v in notes.items() if isinstance(v, str) and v)
        if subsampled:
            lines += ["", "Subsampled: " + subsampled + "."]
    if len(failures):
        lines += ["", "Failures:", ""]
        lines += [f"- {r.implementation} on {r.dataset} fold {r.fold}: {r.status}" for r in failures.itertuples()]
    return "\n".join(lines)


def _coverage(per_set):
    """Which of the shared sets this run covers, smallest first (a run stopped early keeps the smallest)."""
    done = set(per_set.loc[per_set["implementation"] == BNC, "dataset"])
    every = by_size(shared_sets(None))
    missing = [name for name in every if name not in done]
    if not missing:
        return f"All {len(every)} shared classification sets."
    return (
        f"**{len(done)} of the {len(every)} shared sets** ({', '.join(n for n in every if n in done)}); "
        f"not run (the run was stopped for time): {', '.join(missing)}."
    )


def _tally(choices):
    counts = pd.Series(list(choices)).value_counts()
    return [f"{name} x{n}" if n > 1 else str(name) for name, n in counts.items()]


def targets_markdown(per_set, log_loss, error, loss_rank, error_rank, sets, regret):
    others = [label for label in loss_rank.index if label != BNC]
    best_mean = min(others, key=lambda label: log_loss.loc[sets, label].mean())
    best_loss_rank = min(others, key=loss_rank.__getitem__)
    best_error_rank = min(others, key=error_rank.__getitem__)
    ours_mean = log_loss.loc[sets, BNC].mean()
    fit = per_set.groupby("implementation")["fit_s"].sum()
    worst = regret.idxmax()
    rows = [
        {
            "target": f"lowest mean log-loss over the {len(sets)} sets (next best: {best_mean})",
            "BNClassifier": f"{ours_mean:.4f}",
            "best other": f"{log_loss.loc[sets, best_mean].mean():.4f}",
            "met": "yes" if ours_mean < log_loss.loc[sets, best_mean].mean() else "**no**",
        },
        {
            "target": f"best average log-loss rank (next best: {best_loss_rank})",
            "BNClassifier": f"{loss_rank[BNC]:.2f}",
            "best other": f"{loss_rank[best_loss_rank]:.2f}",
            "met": "yes" if loss_rank[BNC] < loss_rank[best_loss_rank] else "**no**",
        },
        {
            "target": f"best average error rank (next best: {best_error_rank})",
            "BNClassifier": f"{error_rank[BNC]:.2f}",
            "best other": f"{error_rank[best_error_rank]:.2f}",
            "met": "yes" if error_rank[BNC] < error_rank[best_error_rank] else "**no**",
        },
        {
            "target": "total fit time below LogisticRegressionCV's",
            "BNClassifier": common.fmt_seconds(fit[BNC]),
            "best other": f"{common.fmt_seconds(fit[LRCV])} ({common.fmt_ratio(fit[LRCV] / fit[BNC])})",
            "met": "yes" if fit[BNC] < fit[LRCV] else "**no**",
        },
        {
            "target": f"log-loss at most {REGRET} nats above the best candidate fitted alone, on every set",
            "BNClassifier": f"max {regret.max():+.3f} ({worst}); {int((regret > REGRET).sum())} sets above",
            "best other": "",
            "met": "yes" if regret.max() <= REGRET else "**no**",
        },
    ]
    return "Targets of issue 27, measured in this run:\n\n" + common.markdown_table(pd.DataFrame(rows))


def _folds_file(prefix):
    """A saved run's per-fold rows: PREFIX.folds.csv, or as kept in benchmarks/results (gzipped)."""
    plain, kept = Path(f"{prefix}.folds.csv"), Path(f"{prefix}.folds.csv.gz")
    if not plain.exists() and not kept.exists():
        raise SystemExit(f"--render: no run saved as {plain} or {kept}")
    return plain if plain.exists() else kept


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", help="shared set names (default: every classification set)")
    parser.add_argument("--max-rows", type=int, default=20_000, help="subsample larger sets to this many rows")
    parser.add_argument("--out", help="write the section into this file (default for a full run: RESULTS.md)")
    parser.add_argument("--raw", metavar="PREFIX", help="save the per-fold rows as PREFIX.folds.csv (no RESULTS.md)")
    parser.add_argument("--render", nargs="+", metavar="PREFIX", help="write the section from runs saved with --raw")
    parser.add_argument("--note", default="", help="with --render: a sentence about the run (when, load, commit)")
    parser.add_argument("--only", nargs="+", metavar="TEXT", help="run only the implementations whose label has this")
    parser.add_argument(
        "--skip", nargs="+", metavar="TEXT", help="run every implementation but those whose label has this"
    )
    args = parser.parse_args(argv)
    if args.render:
        results = pd.concat([pd.read_csv(_folds_file(p), keep_default_na=False, na_values=[""]) for p in args.render])
        repeated = results.duplicated(["implementation", "dataset", "fold"])
        if repeated.any():  # summarize keeps a set's five folds only: a repeat would drop it silently
            first = results.loc[repeated].iloc[0]
            raise SystemExit(
                f"--render: {first['implementation']} on {first['dataset']} fold {first['fold']} is in more than "
                "one of the runs given; render each implementation's folds from one run."
            )
        results["chosen"] = results["chosen"].fillna("")
        order = {m.label: i for i, m in enumerate(implementations())}
        results = results.sort_values(
            ["implementation", "dataset", "fold"], key=lambda c: c.map(order) if c.name == "implementation" else c
        )
        elapsed = max(float(Path(f"{p}.elapsed").read_text()) for p in args.render)
        notes, loads = {}, []
        for p in args.render:
            saved = pd.read_csv(f"{p}.notes.csv")
            notes.update(dict(zip(saved["dataset"], saved["note"])))
            loads.append(Path(f"{p}.load").read_text().strip())
        body = markdown(results, notes, elapsed, "; ".join(loads), args.note)
        print(body)
        common.write_section("bnclassifier", body, args.out or common.RESULTS)
        return
    load_at_start = common.load_average()
    import_everything(["pyAgrum"])
    import sklearn.linear_model  # noqa: F401

    start = time.perf_counter()
    rows, notes = [], {}
    for name in by_size(shared_sets(args.sets)):
        set_rows, notes[name] = run_set(name, args.max_rows, args.only, args.skip)
        rows += set_rows
        if args.raw:  # saved after every set: a stopped run keeps what it finished
            pd.DataFrame(rows).to_csv(f"{args.raw}.folds.csv", index=False)
            pd.Series(notes, name="note").rename_axis("dataset").to_csv(f"{args.raw}.notes.csv")
            Path(f"{args.raw}.elapsed").write_text(str(time.perf_counter() - start))
            Path(f"{args.raw}.load").write_text(str(load_at_start))
    results = pd.DataFrame(rows)
    elapsed = time.perf_counter() - start
    if args.raw:
        return
    body = markdown(results, notes, elapsed, str(load_at_start))
    print(body)
    common.write_section("bnclassifier", body, args.out or common.RESULTS)


if __name__ == "__main__":
    main()

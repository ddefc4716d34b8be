"""Default parameter estimators chosen by evidence: every model x candidate prior on the shared UCI sets.

For every registered classifier (nb, tan, fan, chow-liu, aode, hnb,
hyperforest, kdb, kikuchi-bayes) and density (chow-liu-tree,
hyperforest-density), with its other settings at their defaults
(``random_state=0`` where a model has one), each candidate estimator is
cross-validated on the same folds:

* ``laplace`` (Dirichlet 1 per cell) and ``dirichlet-0.5``;
* ``bdeu-<ess>``: BDeu with equivalent sample size 1, 2, 5, 10, 20, 50;
* ``marginal-<n0>``: Friedman et al.'s smoothing toward the marginal
  (:class:`~graphmodels.estimators.MarginalSmoothing`), N0 = 1, 5, 10;
* ``bdeu-auto``: :class:`~graphmodels.estimators.EmpiricalBayesBDeu`, the
  sample size that maximises each table's BDeu marginal likelihood;
* ``hierarchical``: :class:`~graphmodels.estimators.HierarchicalDirichlet`,
  each parent configuration smoothed toward the estimate with one parent
  fewer, each level's concentration by empirical Bayes;
* ``leave-one-out``: :class:`~graphmodels.estimators.LeaveOneOutSelection`,
  the best of nine priors by exact leave-one-out log-loss inside each fit
  (only the models that support it);
* ``bdeu-auto-model``: one sample size per fitted model, the maximiser of the
  summed BDeu marginal likelihood of all its tables (the BDeu score of the
  network), found here by fitting once with a recording estimator and then
  fitting ``BDeu(ess)``; only for models whose structure does not depend on
  the estimator;
* the model's current default when it is none of the above
  (``liang-srebro`` = Dirichlet 0.001 for the hyperforests, ``bdeu-4`` for
  Kikuchi-Bayes).

MLE is left out (zero probabilities, infinite log-loss). Kikuchi-Bayes
accepts only BDeu (the consistent prior of its regions) and its structure
search depends on the sample size, so its grid is the BDeu values alone.

Protocol (the project's single protocol): every classification set of
``../shared/datasets`` (not ``alarm``, a network, nor ``emotions``,
multi-label); scikit-learn's ``StratifiedKFold(5, shuffle=True,
random_state=0)``; numeric columns with >= 10 distinct values cut into 5
equal-frequency bins fitted on each training fold; missing cells as a state of
their own; one :func:`~graphmodels.models.training_counts` per fold shared by
every model and candidate. Classifiers: log-loss in nats (probabilities
clipped at 1e-15) and error rate of the argmax; densities: held-out mean
negative log-likelihood per row of the attributes (the class dropped), states
unseen in training summed out. Per model, candidates are ranked on every data
set (1 = lowest log-loss, ties averaged) and the ranks averaged.

Usage::

    python benchmarks/bench_defaults.py                       # full run, rewrites the section (~30 min)
    python benchmarks/bench_defaults.py --quick               # 300-row subsamples, prints only
    python benchmarks/bench_defaults.py --render-only         # the section from the saved raw results
    python benchmarks/bench_defaults.py --models tan nb       # rerun some models, keep the others' saved rows
    python benchmarks/bench_defaults.py --models hnb --sets zoo   # rerun one model on some sets, keep the rest

Raw per-fold results go to ``benchmarks/results/defaults_uci.csv.gz`` (after
every data set, so an interrupted run keeps what it finished); a full run
rewrites the ``<!-- defaults:start -->`` ... ``<!-- defaults:end -->`` section
of RESULTS.md. Progress goes to stderr. Reads ``../shared/datasets`` (or
``$GRAPHMODELS_DATASETS``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from graphmodels.data.discretize import EqualFrequencyDiscretizer
from graphmodels.estimators import (
    BDeu,
    Dirichlet,
    EmpiricalBayesBDeu,
    Estimator,
    HierarchicalDirichlet,
    LeaveOneOutSelection,
    MarginalSmoothing,
    bdeu_log_marginal_likelihood,
    get_estimator,
)
from graphmodels.models import CLASSIFIERS, model_class, training_counts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESULTS, datasets_dir, machine_markdown, markdown_table, write_section  # noqa: E402

HERE = Path(__file__).resolve().parent
RAW = HERE / "results" / "defaults_uci.csv.gz"
META = HERE / "results" / "defaults_uci.json"
SECTION = "defaults"
SKIP = {"alarm", "emotions"}  # a network; multi-label
CLIP = 1e-15
QUICK_ROWS = 300
DENSITIES = ["chow-liu-tree", "hyperforest-density"]
ALL_MODELS = [*CLASSIFIERS, *DENSITIES]
#: Models whose structure search reads the estimator: no per-model empirical Bayes for them.
#: (SelectiveKDB scores its sub-models with the estimator.)
STRUCTURE_DEPENDS_ON_PRIOR = {"hnb", "kikuchi-bayes", "skdb"}
#: Models that accept only BDeu.
BDEU_ONLY = {"kikuchi-bayes"}
PER_MODEL = "bdeu-auto-model"
#: Sets a model skips, with the reason (one default fit per fold, measured on this machine).
SKIPPED = {
    "hnb": {
        "connect-4": "one fit takes ~21 s (its wrapper cross-validation over 54,000 rows x 42 attributes), "
        "~14 min for 5 folds x 8 candidates"
    },
    "kikuchi-bayes": {
        "connect-4": "one structure search takes over 4 min (42 attributes)",
        "letter": "one structure search takes ~12 s, ~7 min for 5 folds x 7 candidates",
        "splice": "one structure search takes ~12 s (60 attributes), ~7 min for 5 folds x 7 candidates",
        "satimage": "one structure search takes ~9 s (36 attributes), ~5 min for 5 folds x 7 candidates",
    },
}
#: The candidate that picks, inside each fit, the best of several by leave-one-out log-loss.
LEAVE_ONE_OUT = "leave-one-out"
#: Models run on a part of the candidate grid, with the reason.
REDUCED_GRID = {
    "hnb": (
        [
            "laplace",
            "dirichlet-0.5",
            "bdeu-1",
            "bdeu-5",
            "bdeu-20",
            "marginal-1",
            "marginal-5",
            "bdeu-auto",
            "hierarchical",
            LEAVE_ONE_OUT,
        ],
        "its structure search (a wrapper cross-validation) reruns for every candidate",
    ),
}
#: The search grid of the per-model sample size (the same as EmpiricalBayesBDeu's).
ESS_RANGE = (0.1, 1000.0)


def candidates():
    """The candidate estimators, by label, in table order (None marks the per-model search)."""
    table = {"laplace": Dirichlet(1.0), "dirichlet-0.5": Dirichlet(0.5)}
    table.update({f"bdeu-{ess:g}": BDeu(float(ess)) for ess in (1, 2, 5, 10, 20, 50)})
    table.update({f"marginal-{n0:g}": MarginalSmoothing(float(n0)) for n0 in (1, 5, 10)})
    table["bdeu-auto"] = EmpiricalBayesBDeu()
    table[PER_MODEL] = None
    table["hierarchical"] = HierarchicalDirichlet()
    table[LEAVE_ONE_OUT] = LeaveOneOutSelection()
    return table


def default_estimator(name):
    """The estimator a model uses with default settings."""
    if name == "kikuchi-bayes":
        from graphmodels.models.kikuchi import DEFAULT_ESTIMATOR

        return DEFAULT_ESTIMATOR
    return get_estimator(model_class(name)().estimator)


def label_of(estimator):
    if isinstance(estimator, LeaveOneOutSelection):
        return LEAVE_ONE_OUT
    if isinstance(estimator, HierarchicalDirichlet):
        return "hierarchical"
    if isinstance(estimator, Dirichlet) and estimator.pseudo_count_value == 0.001:
        return "liang-srebro"
    if isinstance(estimator, BDeu):
        return f"bdeu-{estimator.equivalent_sample_size:g}"
    return repr(estimator)


def model_candidates(name):
    """``{label: estimator or None}`` for one model, its default included once."""
    table = candidates()
    if name in BDEU_ONLY:
        table = {k: v for k, v in table.items() if isinstance(v, BDeu)}
    if name in STRUCTURE_DEPENDS_ON_PRIOR:
        table.pop(PER_MODEL, None)
    if not getattr(model_class(name), "_selects_estimator", False):
        table.pop(LEAVE_ONE_OUT, None)
    if name in REDUCED_GRID:
        table = {k: v for k, v in table.items() if k in REDUCED_GRID[name][0]}
    default = default_estimator(name)
    if default not in table.values():
        table[label_of(default)] = default
    return table


def default_label(name):
    default = default_estimator(name)
    return next(label for label, est in model_candidates(name).items() if est == default)


def make_model(name, estimator):
    cls = model_class(name)
    params = cls().get_params()
    kwargs = {"estimator": estimator}
    if "random_state" in params:
        kwargs["random_state"] = 0
    return cls(**kwargs)


# ---------------------------------------------------------------------------- per-model empirical Bayes
class _Recorder(Estimator):
    """Laplace's estimates, remembering every table it was asked for (kind, counts)."""

    name = "recorder"

    def __init__(self):
        self.tables = []

    def conditional(self, counts):
        self.tables.append((True, np.asarray(counts, dtype=np.float64)))
        return Dirichlet(1.0).conditional(counts)

    def joint(self, counts):
        self.tables.append((False, np.asarray(counts, dtype=np.float64)))
        return Dirichlet(1.0).joint(counts)

    def _params(self):
        return {"id": id(self)}


def model_ess(tables):
    """The sample size maximising the summed BDeu log marginal likelihood (EmpiricalBayesBDeu's search)."""
    grid = np.geomspace(*ESS_RANGE, 41)
    for _ in range(3):
        score = sum(bdeu_log_marginal_likelihood(counts, grid, conditional=kind) for kind, counts in tables)
        best = int(np.argmax(score))
        value = float(grid[best])
        grid = np.geomspace(grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)], 21)
    return value


def fit_candidate(name, estimator, counts):
    """Fit one model with one candidate; returns (model, chosen per-model ess or NaN)."""
    if estimator is not None:
        return make_model(name, estimator).fit_counts(counts), np.nan
    recorder = _Recorder()
    make_model(name, recorder).fit_counts(counts)
    ess = model_ess(recorder.tables)
    return make_model(name, BDeu(ess)).fit_counts(counts), ess


# ---------------------------------------------------------------------------- data
def load_sets(names, quick):
    folder = datasets_dir()
    if folder is None:
        sys.exit("The shared data sets are needed (set GRAPHMODELS_DATASETS).")
    manifest = pd.read_csv(folder / "MANIFEST.tsv", sep="\t")
    available = [n for n in manifest["name"] if n not in SKIP and (folder / f"{n}.csv.gz").is_file()]
    if names:
        unknown = sorted(set(names) - set(available))
        if unknown:
            sys.exit(f"Unknown or missing data sets: {unknown}; available: {available}.")
        available = [n for n in available if n in names]
    sets = {}
    for name in available:
        frame = pd.read_csv(folder / f"{name}.csv.gz", keep_default_na=False, na_values=[""])
        if quick and len(frame) > QUICK_ROWS:
            frame = frame.sample(QUICK_ROWS, random_state=0).reset_index(drop=True)
        sets[name] = (frame.drop(columns="class"), frame["class"])
    return sets


def log_loss_and_error(model, X_test, y_test, all_classes):
    proba = model.predict_proba(X_test)
    full = np.zeros((len(X_test), len(all_classes)))
    column = {c: i for i, c in enumerate(all_classes)}
    full[:, [column[c] for c in model.classes_]] = proba
    truth = np.array([column[c] for c in y_test])
    p_true = full[np.arange(len(truth)), truth]
    log_loss = float(-np.mean(np.log(np.clip(p_true, CLIP, 1.0))))
    error = float(np.mean(np.argmax(full, axis=1) != truth))
    return log_loss, error


def run_set(name, X, y, models, *, log):
    from sklearn.model_selection import StratifiedKFold

    rows = []
    all_classes = np.array(sorted(pd.unique(y), key=str), dtype=object)
    folds = StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)
    seconds = {m: 0.0 for m in models}
    for fold, (train, test) in enumerate(folds):
        disc = EqualFrequencyDiscretizer(n_bins=5, min_distinct=10).fit(X.iloc[train])
        X_train, X_test = disc.transform(X.iloc[train]), disc.transform(X.iloc[test])
        y_train, y_test = y.iloc[train], y.iloc[test].to_numpy()
        class_counts = training_counts(X_train, y_train) if any(m in CLASSIFIERS for m in models) else None
        density_counts = training_counts(X_train) if any(m in DENSITIES for m in models) else None
        for m in models:
            if name in SKIPPED.get(m, {}):
                continue
            for label, estimator in model_candidates(m).items():
                start = time.perf_counter()
                counts = density_counts if m in DENSITIES else class_counts
                model, ess = fit_candidate(m, estimator, counts)
                fit_time = time.perf_counter() - start
                start = time.perf_counter()
                if m in DENSITIES:
                    log_loss, error = float(-np.mean(model.score_samples(X_test))), np.nan
                else:
                    log_loss, error = log_loss_and_error(model, X_test, y_test, all_classes)
                predict_time = time.perf_counter() - start
                seconds[m] += fit_time + predict_time
                rows.append(
                    {
                        "dataset": name,
                        "fold": fold,
                        "model": m,
                        "candidate": label,
                        "log_loss": log_loss,
                        "error": error,
                        "ess": ess,
                        "fit_time": fit_time,
                        "predict_time": predict_time,
                    }
                )
    log(
        f"[defaults] {name} ({len(X)} rows): "
        + ", ".join(f"{m} {s:.1f} s" if name not in SKIPPED.get(m, {}) else f"{m} skipped" for m, s in seconds.items())
    )
    return rows


# ---------------------------------------------------------------------------- summaries
def per_set(raw, model, metric):
    """Data sets x candidates: the mean over folds."""
    frame = raw[raw["model"] == model]
    table = frame.pivot_table(index="dataset", columns="candidate", values=metric, aggfunc="mean")
    order = [c for c in model_candidates(model) if c in table.columns]
    return table[order]


def summary(raw, model):
    """Per candidate: mean log-loss, mean error, average rank (by log-loss), wins."""
    loss = per_set(raw, model, "log_loss")
    error = per_set(raw, model, "error")
    ranks = loss.rank(axis=1, method="average")
    table = pd.DataFrame(
        {
            "log_loss": loss.mean(),
            "error": error.reindex(columns=loss.columns).mean(),
            "rank": ranks.mean(),
            "wins": (ranks == 1).sum(),  # outright (no tie)
        },
        index=loss.columns,
    )
    table["n_sets"] = len(loss)
    return table


def winner(table):
    """Lowest average rank, ties broken by mean log-loss."""
    return table.sort_values(["rank", "log_loss"]).index[0]


def fmt(value, digits=3):
    return "–" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"


def render(raw, elapsed, quick, machine):
    models = [m for m in ALL_MODELS if m in set(raw["model"])]
    classifiers = [m for m in models if m in CLASSIFIERS]
    densities = [m for m in models if m in DENSITIES]
    n_sets = raw["dataset"].nunique()
    summaries = {m: summary(raw, m) for m in models}
    lines = [
        "## Default estimators chosen by evidence (bench_defaults.py)",
        "",
        machine,
        f"- command: `python benchmarks/bench_defaults.py{' --quick' if quick else ''}`, {elapsed / 60:.1f} min in all",
        "",
        f"Every registered classifier and density, default settings except the estimator "
        f"(`random_state=0` for HNB), on the {n_sets} classification sets of `../shared/datasets` "
        "(all but `alarm`, a network, and `emotions`, multi-label), scikit-learn's "
        "`StratifiedKFold(5, shuffle=True, random_state=0)`, numeric columns with >= 10 distinct values "
        "cut into 5 equal-frequency bins fitted on each training fold, missing cells as a state, one "
        "`training_counts` per fold shared by every model and candidate. Classifiers: log-loss in nats "
        "per test row (probabilities clipped at 1e-15) and error of the argmax; densities (the attributes "
        "alone): held-out negative log-likelihood per row, states unseen in training summed out. Values are "
        "means over the 5 folds, then over the data sets; the rank of a candidate is its place among the "
        "model's candidates on one data set by log-loss (1 = best, ties averaged), averaged over the sets. "
        "`bdeu-auto` is `EmpiricalBayesBDeu()` (each table its own sample size, the maximiser of its BDeu "
        "marginal likelihood in [0.1, 1000]); `bdeu-auto-model` one sample size per fitted model, the "
        "maximiser of the summed marginal likelihood of all its tables (not offered for HNB and "
        "Kikuchi-Bayes, whose structure search reads the estimator); `marginal-N0` is "
        "`MarginalSmoothing(N0)` (Friedman et al. 1997); `hierarchical` is `HierarchicalDirichlet()` "
        "(each parent configuration smoothed toward the estimate with one parent fewer, concentrations "
        "by empirical Bayes); `leave-one-out` is `LeaveOneOutSelection()` (the best of nine priors by "
        "exact leave-one-out log-loss inside each fit; only for the models that support it). "
        "Kikuchi-Bayes accepts only BDeu, so its "
        "candidates are the BDeu sizes (each a new structure search). HNB runs a reduced grid (below); with "
        "`leave-one-out` its wrapper search scores naive Bayes models with the candidate the selection keeps "
        "for naive Bayes over the attributes, and the final tables are selected again. No row was subsampled.",
        "",
    ]
    notes = [
        f"- {m} skips {d}: {reason}."
        for m in models
        for d, reason in SKIPPED.get(m, {}).items()
        if d in set(raw["dataset"]) or not quick
    ]
    notes += [
        f"- {m} runs {', '.join(REDUCED_GRID[m][0])} only: {REDUCED_GRID[m][1]}." for m in models if m in REDUCED_GRID
    ]
    if notes:
        lines += ["Within the time budget (the whole run on one core):", "", *notes]
    lines += [
        "",
        "### Summary: current default against the evidence",
        "",
    ]
    rows = []
    for m in models:
        table = summaries[m]
        current = default_label(m)
        best = winner(table)
        fixed = table.drop(index=[c for c in ("bdeu-auto", PER_MODEL) if c in table.index])
        best_fixed = winner(fixed)
        by_loss = table["log_loss"].idxmin()
        adaptive = [c for c in ("bdeu-auto", PER_MODEL) if c in table.index]

        def cell(c, table=table):
            row = table.loc[c]
            extra = "" if np.isnan(row["error"]) else f" / {row['error']:.3f}"
            return f"{c}: {row['log_loss']:.3f}{extra} ({row['rank']:.2f})"

        rows.append(
            {
                "model": m,
                "sets": int(table["n_sets"].iloc[0]),
                "current default": cell(current),
                "winner (best rank)": cell(best),
                "lowest mean log-loss": cell(by_loss),
                "best fixed": cell(best_fixed),
                "adaptive": "; ".join(cell(c) for c in adaptive) or "–",
            }
        )
    lines += [
        "Each cell: candidate: mean log-loss / mean error (average rank); densities: mean held-out NLL (average rank).",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
        "**Winner per model** (best average rank, ties by mean log-loss): "
        + "; ".join(f"{m} `{winner(summaries[m])}`" for m in models)
        + ".",
        "",
    ]
    paired = []
    for m in models:
        table = summaries[m]
        if "bdeu-auto" not in table.index:
            continue
        loss = per_set(raw, m, "log_loss")
        fixed = [c for c in table.index if c not in ("bdeu-auto", PER_MODEL)]
        best_fixed = winner(table.loc[fixed])
        diff = loss["bdeu-auto"] - loss[best_fixed]
        paired.append(
            {
                "model": m,
                "best fixed": best_fixed,
                "bdeu-auto lower on": f"{int((diff < 0).sum())} of {len(diff)}",
                "mean difference": f"{diff.mean():+.4f}",
                "median": f"{diff.median():+.4f}",
                "largest gain": f"{diff.min():+.3f} ({diff.idxmin()})",
                "largest loss": f"{diff.max():+.3f} ({diff.idxmax()})",
                "per-set best fixed value (oracle)": f"{loss[fixed].min(axis=1).mean():.3f}",
            }
        )
    if paired:
        lines += [
            "### Does the adaptive estimator beat the best fixed value?",
            "",
            "`bdeu-auto` minus the fixed candidate with the best average rank, per data set (log-loss or NLL; "
            "negative: `bdeu-auto` better). The oracle column picks the best fixed candidate on every set "
            "after the fact: a bound no fixed default can reach.",
            "",
            markdown_table(pd.DataFrame(paired)),
            "",
        ]
    for title, group, metric_note in (
        ("Classifiers: mean log-loss (average rank) per candidate", classifiers, "log_loss"),
        ("Densities: mean held-out NLL per row (average rank) per candidate", densities, "log_loss"),
    ):
        if not group:
            continue
        labels = []
        for m in group:
            labels += [c for c in summaries[m].index if c not in labels]
        frame = pd.DataFrame({"candidate": labels})
        for m in group:
            table = summaries[m]
            best = winner(table)
            column = []
            for c in labels:
                if c not in table.index:
                    column.append("–")
                    continue
                text = f"{table.loc[c, metric_note]:.3f} ({table.loc[c, 'rank']:.1f})"
                if c == best:
                    text = f"**{text}**"
                if c == default_label(m):
                    text += " ·d"
                column.append(text)
            frame[m] = column
        lines += [
            f"### {title}",
            "",
            "Bold: best average rank; ·d: the current default.",
            "",
            markdown_table(frame),
            "",
        ]
    if classifiers:
        labels = []
        for m in classifiers:
            labels += [c for c in summaries[m].index if c not in labels]
        frame = pd.DataFrame({"candidate": labels})
        for m in classifiers:
            table = summaries[m]
            frame[m] = [fmt(table.loc[c, "error"]) if c in table.index else "–" for c in labels]
        lines += ["### Classifiers: mean error rate per candidate", "", markdown_table(frame), ""]
    chosen = raw[raw["candidate"] == PER_MODEL].groupby("model")["ess"]
    if len(chosen):
        lines += [
            "Sample size chosen by `bdeu-auto-model` (over data sets and folds): "
            + "; ".join(
                f"{m} median {chosen.get_group(m).median():.3g} (range {chosen.get_group(m).min():.3g}-"
                f"{chosen.get_group(m).max():.3g})"
                for m in models
                if m in chosen.groups
            )
            + ".",
            "",
        ]
    if "tan" in models:
        loss = per_set(raw, "tan", "log_loss")
        frame = loss.map(fmt).reset_index()
        for i, name in enumerate(loss.index):
            best = loss.loc[name].min()
            for c in loss.columns:
                if loss.loc[name, c] == best:
                    frame.loc[i, c] = f"**{frame.loc[i, c]}**"
        frame.columns = ["data set", *[c.replace("marginal-", "marg-") for c in loss.columns]]
        lines += ["### TAN per data set: log-loss", "", markdown_table(frame), ""]
    # Compact per-set view of every model: the current default against the overall winner.
    frame = pd.DataFrame({"data set": sorted(raw["dataset"].unique())})
    for m in models:
        loss = per_set(raw, m, "log_loss")
        current, best = default_label(m), winner(summaries[m])
        frame[m] = [
            f"{fmt(loss.loc[d, current])} → {fmt(loss.loc[d, best])}" if d in loss.index else "–"
            for d in frame["data set"]
        ]
    lines += [
        "### Every model per data set: log-loss (NLL for densities) of the current default → the winner",
        "",
        markdown_table(frame),
        "",
    ]
    times = raw.groupby("model")[["fit_time", "predict_time"]].sum().sum(axis=1)
    lines += [
        "Time (fit + predict, all folds and candidates): "
        + ", ".join(f"{m} {times[m] / 60:.1f} min" for m in models)
        + ".",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=None, help="data sets to run (default: every one)")
    parser.add_argument(
        "--models", nargs="+", default=ALL_MODELS, choices=ALL_MODELS, help="short model names (default: all)"
    )
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_ROWS}-row subsamples, prints only")
    parser.add_argument("--out", default=None, help="markdown file whose section is rewritten (default: RESULTS.md)")
    parser.add_argument("--render-only", action="store_true", help="rewrite the section from the raw results")
    args = parser.parse_args(argv)

    def log(message):
        print(message, file=sys.stderr, flush=True)

    write = not args.quick or args.out is not None
    out = Path(args.out) if args.out else RESULTS
    if args.render_only:
        raw = pd.read_csv(RAW)
        meta = json.loads(META.read_text())
        text = render(raw, meta["elapsed"], False, meta["machine"])
        write_section(SECTION, text, out)
        print(text)
        return
    machine = machine_markdown()
    sets = load_sets(args.sets, args.quick)
    models = [m for m in ALL_MODELS if m in args.models]
    start = time.perf_counter()
    rows = []
    kept = pd.DataFrame()
    if (models != ALL_MODELS or args.sets) and not args.quick and RAW.is_file():
        # A run of some models or sets keeps the saved rows of the others (the section covers them all).
        kept = pd.read_csv(RAW)
        kept = kept[~(kept["model"].isin(models) & kept["dataset"].isin(list(sets)))]
    for name, (X, y) in sets.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # StratifiedKFold on classes with < 5 rows
            rows += run_set(name, X, y, models, log=log)
        if write and not args.quick:
            RAW.parent.mkdir(exist_ok=True)
            pd.concat([kept, pd.DataFrame(rows)]).to_csv(RAW, index=False, float_format="%.6g")
            META.write_text(json.dumps({"machine": machine, "elapsed": time.perf_counter() - start}, indent=1))
    elapsed = time.perf_counter() - start
    raw = pd.concat([kept, pd.DataFrame(rows)])
    text = render(raw, elapsed, args.quick, machine)
    if write:
        write_section(SECTION, text, out)
    print(text)


if __name__ == "__main__":
    main()

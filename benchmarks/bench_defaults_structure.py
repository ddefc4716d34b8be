"""Structure defaults chosen by evidence: the Chow-Liu and hyperforest classifiers' settings.

``bench_defaults.py`` chooses every model's prior. Two models also have a structure setting
whose default matters on ordinary data:

* ``--family chow-liu``: the class-conditional Chow-Liu classifier (one spanning tree per class)
  was behind TAN with every prior (a class with few rows gets a whole tree of spurious edges): its
  edge criterion, Chow & Liu's spanning tree, Liang & Srebro's MDL forest, or the forest of the
  edges' BDeu Bayes factors at several equivalent sample sizes;
* ``--family hyperforest``: the hyperforest classifier's criterion and tree-width (MDL at width 1
  dropped every edge of soybean-large, 19 classes, and fell to naive Bayes there);
* ``--family representation``: how ``representation="auto"`` (ChowLiu, HyperforestClassifier)
  scores one structure per class against one shared by the classes: leave-one-out of the tables
  on every training row (the rule before issue 26), inner cross-validation of the whole fit
  (structure included) always, or the default: cross-validation where the classes average fewer
  than ``SMALL_CLASS_ROWS`` training rows, leave-one-out elsewhere.

``--data tiny-wide`` runs a family on generated small, wide sets instead (``common.tiny_wide_set``:
20-40 rows, 30-60 attributes, 2-4 classes, five generators with and without dependencies within
a class, ``--seeds`` sets of each), where a per-class structure is chosen on ~10 rows.

The script compares, on the same protocol (every shared classification set,
``StratifiedKFold(5, shuffle=True, random_state=0)``, numeric columns with >= 10 distinct values
cut into 5 equal-frequency bins per training fold, one ``training_counts`` per fold, log-loss in
nats with probabilities clipped at 1e-15), the variants of one family beside the default
``TAN()``.

Usage: ``python benchmarks/bench_defaults_structure.py --family {chow-liu,hyperforest,representation}
[--data {shared,tiny-wide}] [--seeds 6] [--sets ...] [--out benchmarks/RESULTS.md]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from bench_defaults import log_loss_and_error  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.data import EqualFrequencyDiscretizer  # noqa: E402
from graphmodels.estimators import EmpiricalBayesBDeu  # noqa: E402
from graphmodels.models import training_counts  # noqa: E402
from graphmodels.models.base import SMALL_CLASS_ROWS  # noqa: E402

SKIP = {"alarm", "emotions"}


def _scored_by(cls, rule):
    """`cls` whose ``representation="auto"`` scores the representations by one rule regardless of class sizes."""

    class Scored(cls):
        def _scores_representations_by_cross_validation(self, engine):
            return rule == "cross-validation" and not engine.distributed

    Scored.__name__ = cls.__name__
    return Scored


FAMILIES = {
    # Each criterion with the default estimator (the leave-one-out selection of the prior).
    "chow-liu": {
        "TAN() (default)": lambda: gm.TAN(),
        'ChowLiu(criterion="ml")': lambda: gm.ChowLiu(criterion="ml", representation="free"),
        'ChowLiu(criterion="mdl")': lambda: gm.ChowLiu(criterion="mdl", representation="free"),
        **{
            f'ChowLiu(criterion="bdeu", equivalent_sample_size={ess:g})': (
                lambda ess=ess: gm.ChowLiu(criterion="bdeu", equivalent_sample_size=ess, representation="free")
            )
            for ess in (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
        },
        # Each class's BDeu forest or TAN's tree shared by the classes, whichever has the lower
        # leave-one-out log-loss on the training rows.
        'ChowLiu(representation="auto") (default)': lambda: gm.ChowLiu(),
    },
    "hyperforest": {
        "TAN() (default)": lambda: gm.TAN(),
        **{
            f'HyperforestClassifier(criterion="{c}", treewidth={k}, n_starts={n})': (
                lambda c=c, k=k, n=n: gm.HyperforestClassifier(
                    criterion=c, treewidth=k, n_starts=n, representation="shared"
                )
            )
            for c, k, n in [("mdl", 1, 100), ("mdl", 2, 100), ("mdl", 2, 10), ("ml", 1, 100), ("ml", 2, 10)]
        },
        # One hyperforest per class (Liang & Srebro's C_f) instead of one shared by the classes.
        **{
            f'HyperforestClassifier(representation="free", treewidth={k})': (
                lambda k=k: gm.HyperforestClassifier(representation="free", treewidth=k)
            )
            for k in (1, 2)
        },
        # C_f or C_s, whichever has the lower leave-one-out log-loss on the training rows.
        'HyperforestClassifier(representation="auto") (default)': lambda: gm.HyperforestClassifier(),
    },
    # How "auto" scores the per-class structures against the shared one.
    "representation": {
        "TAN() (default)": lambda: gm.TAN(),
        'ChowLiu(representation="free")': lambda: gm.ChowLiu(representation="free"),
        'ChowLiu("auto"), leave-one-out always (before)': lambda: _scored_by(gm.ChowLiu, "leave-one-out")(),
        'ChowLiu("auto"), cross-validation always': lambda: _scored_by(gm.ChowLiu, "cross-validation")(),
        "ChowLiu() (default)": lambda: gm.ChowLiu(),
        'HyperforestClassifier(representation="free")': lambda: gm.HyperforestClassifier(representation="free"),
        'HyperforestClassifier(representation="shared")': lambda: gm.HyperforestClassifier(representation="shared"),
        'HyperforestClassifier("auto"), leave-one-out always (before)': (
            lambda: _scored_by(gm.HyperforestClassifier, "leave-one-out")()
        ),
        "HyperforestClassifier() (default)": lambda: gm.HyperforestClassifier(),
    },
    # The floor of EmpiricalBayesBDeu's sample size: a table whose marginal likelihood peaks at a
    # tiny sample size gets near-empirical, overconfident probabilities.
    "bdeu-auto-floor": {
        f"{label} {name}": (lambda cls=cls, est=est: cls(estimator=est))
        for label, cls in (("TAN", gm.TAN), ("NB", gm.NaiveBayes), ("KDB", gm.KDB), ("AODE", gm.AODE))
        for name, est in (
            ("laplace", "laplace"),
            ("bdeu-auto (floor 0.1)", EmpiricalBayesBDeu(0.1)),
            ("bdeu-auto (floor 1)", EmpiricalBayesBDeu(1.0)),
            ("bdeu-auto (floor 2)", EmpiricalBayesBDeu(2.0)),
        )
    },
}
TITLES = {
    "chow-liu": "The Chow-Liu classifier's default structure criterion",
    "hyperforest": "The hyperforest classifier's default criterion and tree-width",
    "bdeu-auto-floor": "The smallest sample size of the empirical-Bayes BDeu default",
    "representation": 'How representation="auto" scores per-class against shared structures',
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=sorted(FAMILIES), default="chow-liu", help="which model's settings")
    parser.add_argument("--sets", nargs="+", help="shared set names (default: every classification set)")
    parser.add_argument("--data", choices=["shared", "tiny-wide"], default="shared", help="shared or generated sets")
    parser.add_argument("--seeds", type=int, default=6, help="generated sets per generator (--data tiny-wide)")
    parser.add_argument("--out", help="RESULTS file (default: benchmarks/RESULTS.md)")
    parser.add_argument(
        "--only", nargs="+", metavar="TEXT", help="run only the variants whose label contains one of these texts"
    )
    args = parser.parse_args(argv)
    from sklearn.model_selection import StratifiedKFold

    family = {
        label: make
        for label, make in FAMILIES[args.family].items()
        if not args.only or any(text in label for text in args.only)
    }
    rows, start = [], time.perf_counter()
    seconds = dict.fromkeys(family, 0.0)
    for name, X, y in _data_sets(args):
        classes = sorted(y.unique())
        for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
            binner = EqualFrequencyDiscretizer(n_bins=5, min_distinct=10).fit(X.iloc[train])
            X_train, X_test = binner.transform(X.iloc[train]), binner.transform(X.iloc[test])
            counts = training_counts(X_train, y.iloc[train])
            for label, make in family.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    began = time.perf_counter()
                    model = make().fit_counts(counts)
                    seconds[label] += time.perf_counter() - began
                    loss, error = log_loss_and_error(model, X_test, y.iloc[test], classes)
                rows.append(
                    {
                        "dataset": name,
                        "variant": label,
                        "log_loss": loss,
                        "error": error,
                        "scored_by": _scoring(model),
                    }
                )
        print(f"[{args.family}] {name} done", file=sys.stderr, flush=True)
    raw = pd.DataFrame(rows)
    per_set = raw.groupby(["variant", "dataset"])[["log_loss", "error"]].mean().reset_index()
    ranks = per_set.pivot(index="dataset", columns="variant", values="log_loss").rank(axis=1).mean()
    table = per_set.groupby("variant")[["log_loss", "error"]].mean()
    table["average rank"] = ranks
    table = table.loc[list(family)].reset_index()
    shown = table.assign(
        **{
            "mean log-loss": table["log_loss"].map("{:.4f}".format),
            "mean error": table["error"].map("{:.4f}".format),
            "average rank": table["average rank"].map("{:.2f}".format),
        }
    )[["variant", "mean log-loss", "mean error", "average rank"]]
    n_sets = per_set["dataset"].nunique()
    table["fit time"] = table["variant"].map(seconds)
    shown["fit time"] = table["fit time"].map("{:.1f} s".format)
    choosing = set(raw.loc[raw["scored_by"].notna(), "variant"])
    cross_validated = raw[raw["scored_by"].fillna("").str.contains("cross")].groupby("variant").size()
    shown["folds scored by cross-validation"] = [
        f"{cross_validated.get(v, 0)} of {5 * n_sets}" if v in choosing else "–" for v in table["variant"]
    ]
    by_set = per_set.pivot(index="dataset", columns="variant", values="log_loss")
    extra = []
    if "TAN() (default)" in by_set:
        shown["sets at or below TAN"] = [
            f"{int((by_set[v] <= by_set['TAN() (default)'] + 1e-12).sum())} of {n_sets}" for v in table["variant"]
        ]
    if args.data == "tiny-wide":
        generator = by_set.index.str.rsplit("-", n=1).str[0]
        per_generator = by_set.groupby(generator).mean().T.loc[list(family)]
        extra = [
            "",
            "Mean log-loss per generator (`common.tiny_wide_set`):",
            "",
            common.markdown_table(per_generator.map("{:.4f}".format).reset_index()),
        ]
    data = "" if args.data == "shared" else " --data tiny-wide"
    sets = f"{n_sets} sets" if args.data == "shared" else f"{n_sets} generated sets ({args.seeds} per generator)"
    body = "\n".join(
        [
            f"## {TITLES[args.family]} (bench_defaults_structure.py --family {args.family}{data})",
            "",
            common.machine_markdown(),
            f"- {time.perf_counter() - start:.0f} s, {sets}",
            "",
            "Protocol of bench_defaults.py (5 stratified folds, seed 0; 5 equal-frequency bins per training "
            "fold; clipped log-loss); each model with its default prior unless the variant names one. "
            'ChowLiu `criterion="ml"`: one spanning tree per class; `"mdl"`: each class\'s spanning '
            'forest of the MDL-penalized mutual information; `"bdeu"`: each class\'s spanning forest of the '
            "edges' BDeu log Bayes factors (Heckerman et al. 1995) at the equivalent sample size named; "
            'these with `representation="free"` (one forest per class), the default `"auto"` keeping each '
            "fold's per-class BDeu(4) forests or TAN's tree shared by the classes, whichever has the lower "
            "leave-one-out log-loss on its training rows. "
            'Hyperforest variants: `representation="shared"` (one hyperforest, the class in every '
            'hyperedge) unless `"free"` (one per class) or `"auto"` (whichever of the two has the lower '
            "leave-one-out log-loss) is named, `n_starts` as named. Representation variants: "
            '`"auto"` scored by leave-one-out of the tables on every training row (the rule before issue 26), '
            "or by 5-fold inner cross-validation of the whole fit (each fold's structure relearned, the "
            "tables refitted with the prior each representation kept on all rows) on every training set, or "
            "the default: cross-validation where the classes average fewer than "
            f"{SMALL_CLASS_ROWS} training rows, leave-one-out elsewhere. Fit time: all folds and sets, "
            "under the load stated.",
            "",
            common.markdown_table(shown),
            *extra,
        ]
    )
    print(body)
    key = f"defaults-{args.family}" + ("" if args.data == "shared" else "-tiny-wide")
    common.write_section(key, body, args.out or common.RESULTS)


def _data_sets(args):
    """``(name, X, y)`` of every set the run covers: the shared sets, or the generated ones."""
    if args.data == "tiny-wide":
        for generator in common.TINY_WIDE_GENERATORS:
            for seed in range(args.seeds):
                X, y = common.tiny_wide_set(generator, seed)
                yield f"{generator}-{seed}", X, y
        return
    folder = common.datasets_dir()
    if folder is None:
        sys.exit("The shared data sets are needed: set GRAPHMODELS_DATASETS to their folder.")
    names = [n for n in pd.read_csv(folder / "MANIFEST.tsv", sep="\t")["name"] if n not in SKIP]
    for name in [n for n in names if not args.sets or n in args.sets]:
        frame = common.read_dataset(name)
        yield name, frame.iloc[:, :-1], frame.iloc[:, -1].astype(str)


def _scoring(model):
    """How ``representation="auto"`` scored the representations, or None for a model without the choice."""
    selection = getattr(model, "representation_selection_", None)
    if selection is None:
        return None
    return str(selection["scored_by"].iloc[0]) if "scored_by" in selection else "leave-one-out"


if __name__ == "__main__":
    main()

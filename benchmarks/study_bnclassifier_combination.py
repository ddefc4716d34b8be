"""How should BNClassifier turn its candidates' inner held-out scores into a prediction? (issue 27)

For each shared set and each outer fold of the peers' protocol (StratifiedKFold(5, shuffle=True,
random_state=0), 5 equal-frequency bins fitted per training fold), ``gm.BNClassifier()`` runs its
inner cross-validation on the training fold; every candidate scored on every inner fold is then
fitted on the whole training fold, and its probability of each outer test row's class kept, beside
its inner held-out probabilities of the training rows' classes. From these, offline:

* ``select``: BNClassifier's own rule, the one candidate it chose;
* ``mixture``: a linear pool of every candidate, ``P(y | x) = sum_c w_c P_c(y | x)``, the weights
  maximising the inner held-out log-likelihood (EM, Dempster, Laird & Rubin 1977; the ensemble of
  Caruana et al. 2004 with continuous weights), then weights below 0.05 dropped and the rest
  renormalized;
* ``top-3``: the three candidates of lowest inner log-loss, averaged;
* ``near ties``: the candidates within one standard error (of the paired per-row difference of inner
  losses) of the best, averaged;
* ``hybrid``: the mixture only where its weights, fitted on four fifths of the scored rows and
  scored on the fifth (five times), beat the chosen candidate's inner log-loss.

"best alone" is the lowest mean outer log-loss of any one candidate scored on every fold; the regret
of a rule is its mean outer log-loss minus that. "oracle" is the regret the target's own sampling
noise gives a rule that always picks the best candidate of the whole set (:func:`oracle_regret`).

Usage::

    python benchmarks/study_bnclassifier_combination.py --collect DIR [--sets ...] [--n-folds 10]
    python benchmarks/study_bnclassifier_combination.py --analyze DIR [--label TEXT] [--results]
    python benchmarks/study_bnclassifier_combination.py --oracle --sets zoo hepatitis

``--collect`` saves one ``.npz`` per (set, outer fold) in DIR (a stopped run resumes);
``--analyze --results`` writes the section ``bnclassifier-combination`` of RESULTS.md (the
analyses of every DIR given, each labelled). Reads ``../shared/datasets``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from bench_peers import fold_data, load, shared_sets  # noqa: E402

from graphmodels.models import bn_classifier  # noqa: E402

CLIP = 1e-15
#: Sets of more than this many rows are left out by default (each candidate is refitted on every fold).
DEFAULT_MAX_ROWS = 10_000


class _KeepEvidence(bn_classifier.BNClassifier):
    """BNClassifier that keeps its inner cross-validation's evidence and its training counts."""

    def _inner_cross_validation(self, counts):
        evidence = super()._inner_cross_validation(counts)
        self.evidence_, self.counts_ = evidence, counts
        return evidence


def collect(directory, names, n_folds):
    from sklearn.model_selection import StratifiedKFold

    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        X, y, _ = load(name, None)
        for k, (train, test) in enumerate(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)):
            path = directory / f"{name}.{k}.npz"
            if path.exists():
                continue
            data = fold_data(X, y, train, test)
            start = time.process_time()
            model = _KeepEvidence(n_folds=n_folds).fit(data["X_train"], data["y_train"])
            cpu = time.process_time() - start
            evidence, rows = model.evidence_, model.evidence_["rows"]
            classes = [str(c) for c in model.classes_]
            truth = np.array([classes.index(v) if v in classes else -1 for v in np.asarray(data["y_test"]).astype(str)])
            names_, inner, outer = [], [], []
            for i, option in enumerate(evidence["options"]):
                if option["folds"] != evidence["n_folds"]:
                    continue  # raced out, or left out
                alone = model.candidate(option["structure"], option["penalty"]).fit_counts(model.counts_)
                proba = alone.predict_proba(data["X_test"])
                outer.append(np.where(truth >= 0, proba[np.arange(len(truth)), np.maximum(truth, 0)], 0.0))
                inner.append(np.exp(-option["loss"][rows]))
                names_.append(model.selection_.loc[i, "candidate"])
            chosen = model.selection_.loc[model.selection_["chosen"], "candidate"].item()
            tmp = path.with_suffix(".tmp.npz")
            np.savez(
                tmp,
                names=np.array(names_),
                inner=np.array(inner),
                outer=np.array(outer),
                weights=evidence["weights"][rows],
                chosen=chosen,
                cpu=cpu,
            )
            tmp.replace(path)
            print(f"[combination] {name} fold {k}: {cpu:.1f} s, chose {chosen}", file=sys.stderr, flush=True)


def mixture_weights(probabilities, weights, iterations=500):
    """EM for the weights of a linear pool: ``probabilities`` (rows, candidates) of each row's class."""
    k = probabilities.shape[1]
    pi = np.full(k, 1.0 / k)
    for _ in range(iterations):
        joint = probabilities * pi
        responsibility = joint / np.maximum(joint.sum(axis=1, keepdims=True), 1e-300)
        pi = (responsibility * weights[:, None]).sum(axis=0) / weights.sum()
    return pi


def _pruned(pi, floor=0.05):
    pi = np.where(pi < floor, 0.0, pi)
    return pi / pi.sum()


def _inner_losses(fold):
    p = np.clip(fold["inner"], CLIP, 1)
    return -(np.log(p) * fold["weights"]).sum(axis=1) / fold["weights"].sum()


def rule_select(fold):
    return fold["outer"][list(fold["names"]).index(str(fold["chosen"]))]


def rule_mixture(fold):
    pi = _pruned(mixture_weights(np.clip(fold["inner"].T, CLIP, 1), fold["weights"]))
    return fold["outer"].T @ pi


def rule_top3(fold):
    return fold["outer"][np.argsort(_inner_losses(fold))[:3]].mean(axis=0)


def rule_hybrid(fold, n_splits=5):
    p, w = np.clip(fold["inner"].T, CLIP, 1), fold["weights"]
    split = np.random.default_rng(0).permutation(len(w)) % n_splits
    held_out = 0.0
    for s in range(n_splits):
        pi = _pruned(mixture_weights(p[split != s], w[split != s]))
        held_out -= (np.log(p[split == s] @ pi) * w[split == s]).sum()
    chosen = list(fold["names"]).index(str(fold["chosen"]))
    return rule_mixture(fold) if held_out / w.sum() < _inner_losses(fold)[chosen] else fold["outer"][chosen]


def rule_near_ties(fold, z=1.0):
    """The candidates whose inner log-loss is within `z` standard errors (of the paired per-row difference) of the best, averaged."""
    row_loss, w = -np.log(np.clip(fold["inner"], CLIP, 1)), fold["weights"]
    means = (row_loss * w).sum(axis=1) / w.sum()
    difference = row_loss - row_loss[int(np.argmin(means))]
    mean = (difference * w).sum(axis=1) / w.sum()
    spread = np.sqrt(((difference - mean[:, None]) ** 2 * w).sum(axis=1) / w.sum() / len(w))
    return fold["outer"][mean <= z * spread].mean(axis=0)


RULES = {
    "select": rule_select,
    "mixture": rule_mixture,
    "top-3": rule_top3,
    "hybrid": rule_hybrid,
    "near ties": rule_near_ties,
}

#: Bootstrap resamples of the outer rows for the oracle's regret.
ORACLE_RESAMPLES = 500


def oracle_regret(losses, resamples=ORACLE_RESAMPLES):
    """The regret of a rule that always picks the best candidate of the whole set, from sampling noise alone.

    `losses` is (candidates, rows): every outer row's log-loss under each candidate scored on every
    fold. The rows are resampled with replacement (seed 0); in each resample the candidate best on
    all the rows is compared with the best one of that resample, as the regret target compares a
    rule with the best candidate in hindsight. Its mean is what the target's own noise costs a rule
    that knows the best candidate: where it is above 0.02 nats, a set of this size cannot show a
    regret below 0.02 on average.
    """
    best = int(np.argmin(losses.mean(axis=1)))
    rng = np.random.default_rng(0)
    regrets = []
    for _ in range(resamples):
        means = losses[:, rng.integers(0, losses.shape[1], losses.shape[1])].mean(axis=1)
        regrets.append(means[best] - means.min())
    return float(np.mean(regrets))


def oracle_of_candidates(names):
    """Per set: each default candidate fitted alone on the 5 outer folds, and :func:`oracle_regret` of them.

    The candidates are bench_bnclassifier.py's (the table its regret target reads), each fitted on
    every training fold and scored on every outer row; the row-weighted mean log-loss of each and the
    regret the target's own noise gives a rule that always picks the best of them.
    """
    from bench_bnclassifier import candidates
    from sklearn.model_selection import StratifiedKFold

    rows = []
    for name in names:
        X, y, _ = load(name, 20_000)
        models = candidates()
        losses = np.zeros((len(models), len(y)))
        for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
            data = fold_data(X, y, train, test)
            for i, method in enumerate(models):
                model = method.make().fit(data["X_train"], data["y_train"])
                proba = model.predict_proba(data["X_test"])
                position = {str(c): j for j, c in enumerate(model.classes_)}
                truth = np.array([position[str(v)] for v in data["y_test"]])
                losses[i, test] = -np.log(np.clip(proba[np.arange(len(test)), truth], CLIP, 1))
        means = losses.mean(axis=1)
        best = int(np.argmin(means))
        rows.append(
            {
                "dataset": name,
                "best candidate": models[best].label,
                "its log-loss": round(float(means[best]), 4),
                "candidates within 0.01": int((means <= means[best] + 0.01).sum()),
                "oracle": round(oracle_regret(losses), 4),
            }
        )
        print(f"[combination] oracle {name}: {rows[-1]}", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def analyze(directory):
    """Per set: best alone, each rule's mean outer log-loss and its regret."""
    rows = []
    for name in sorted({p.name.split(".")[0] for p in directory.glob("*.npz")}):
        files = sorted(directory.glob(f"{name}.[0-9].npz"))
        if len(files) < 5:
            continue
        folds = [dict(np.load(f, allow_pickle=False)) for f in files]
        everywhere = set.intersection(*(set(map(str, f["names"])) for f in folds))
        alone = {
            c: np.mean(
                [np.mean(-np.log(np.clip(f["outer"][list(map(str, f["names"])).index(c)], CLIP, 1))) for f in folds]
            )
            for c in everywhere
        }
        best = min(alone, key=alone.__getitem__)
        shared = sorted(everywhere)
        losses = np.concatenate(
            [
                -np.log(np.clip(f["outer"][[list(map(str, f["names"])).index(c) for c in shared]], CLIP, 1))
                for f in folds
            ],
            axis=1,
        )
        row = {"dataset": name, "best alone": alone[best], "best candidate": best, "oracle": oracle_regret(losses)}
        for label, rule in RULES.items():
            row[label] = float(np.mean([np.mean(-np.log(np.clip(rule(f), CLIP, 1))) for f in folds]))
        row["cpu"] = float(sum(float(f["cpu"]) for f in folds))
        rows.append(row)
    return pd.DataFrame(rows).set_index("dataset")


def markdown(analyses):
    lines = [
        "## BNClassifier: one candidate or a mixture of them? (study_bnclassifier_combination.py, issue 27)",
        "",
        "Offline, from each outer fold's inner cross-validation of `gm.BNClassifier()` and every scored "
        "candidate refitted on the training fold (the rules: the script's docstring). Mean outer log-loss "
        "(nats) over the sets, the largest regret against the best candidate alone, and the number of sets "
        "where it exceeds 0.02 nats. `oracle`: the regret a rule that always picks the best candidate of the "
        "whole set shows from sampling noise alone (the outer rows resampled 500 times; `oracle_regret`).",
        "",
        common.machine_markdown(),
    ]
    for label, frame in analyses:
        summary = pd.DataFrame(
            {
                "rule": list(RULES),
                "mean log-loss": [f"{frame[r].mean():.4f}" for r in RULES],
                "largest regret": [
                    f"{(frame[r] - frame['best alone']).max():+.3f} ({(frame[r] - frame['best alone']).idxmax()})"
                    for r in RULES
                ],
                "sets above +0.02": [int(((frame[r] - frame["best alone"]) > 0.02).sum()) for r in RULES],
            }
        )
        per_set = frame[["best alone", *RULES, "oracle"]].copy()
        per_set.insert(0, "best candidate", frame["best candidate"])
        shown = per_set.reset_index()
        for column in ["best alone", *RULES]:
            shown[column] = shown[column].map("{:.3f}".format)
        shown["oracle"] = shown["oracle"].map("{:+.3f}".format)
        lines += [
            "",
            f"### {label} ({len(frame)} sets)",
            "",
            common.markdown_table(summary),
            "",
            common.markdown_table(shown),
        ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collect", type=Path, metavar="DIR")
    parser.add_argument("--analyze", type=Path, nargs="+", metavar="DIR")
    parser.add_argument("--label", nargs="+", help="with --analyze: one label per DIR")
    parser.add_argument("--sets", nargs="+")
    parser.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS)
    parser.add_argument("--n-folds", default="auto", help="BNClassifier's n_folds")
    parser.add_argument("--results", action="store_true", help="with --analyze: write the RESULTS.md section")
    parser.add_argument(
        "--oracle", action="store_true", help="with --sets: the oracle regret of the default candidates fitted alone"
    )
    args = parser.parse_args(argv)
    if args.oracle:
        print(common.markdown_table(oracle_of_candidates(shared_sets(args.sets))))
        return
    if args.collect:
        manifest = pd.read_csv(common.datasets_dir() / "MANIFEST.tsv", sep="\t").set_index("name")
        names = [n for n in shared_sets(args.sets) if args.sets or manifest.loc[n, "rows"] <= args.max_rows]
        names.sort(key=lambda n: manifest.loc[n, "rows"])
        n_folds = args.n_folds if args.n_folds == "auto" else int(args.n_folds)
        collect(args.collect, names, n_folds)
    if args.analyze:
        labels = args.label or [str(d) for d in args.analyze]
        analyses = [(label, analyze(d)) for label, d in zip(labels, args.analyze)]
        for label, frame in analyses:
            print(label)
            print(frame.round(4).to_string())
        body = markdown(analyses)
        if args.results:
            common.write_section("bnclassifier-combination", body)
        else:
            print(body)


if __name__ == "__main__":
    main()

"""BNClassifier's folds keeping the structure of every row, on columns of many states (issue 27).

1,200 training rows of six 30-state columns independent of a binary class: a structure learned from
these rows fits their noise, and folds that keep the structure learned on every row score it on rows
it was learned from. For naive Bayes, TAN and KDB(k=2) (Laplace tables, generative), the inner
cross-validated log-loss BNClassifier sees with the folds learning their own structures (the default
here: the bias bound of ``MAX_KEPT_STRUCTURE_BIAS`` is 0.70 nats) and with them keeping it (the bound
raised to 1), beside each model's true log-loss on 20,000 new rows. Five seeds.

Usage::

    python benchmarks/study_structure_kept_noise.py [--results]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.models import bn_classifier  # noqa: E402

STRUCTURES = {"nb": "NaiveBayes", "tan": "TAN", "kdb-2": "KDB(k=2)"}


def noise(n_rows, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{j}": rng.integers(0, 30, n_rows).astype(str) for j in range(6)})
    return X, pd.Series(rng.integers(0, 2, n_rows).astype(str), name="class")


def run(seeds=range(5)):
    rows = []
    settings = dict(structures=list(STRUCTURES), discriminative=False, estimator="laplace")
    for seed in seeds:
        X, y = noise(1200, seed)
        X_new, y_new = noise(20_000, 1000 + seed)
        for label, bound in (("learned again", bn_classifier.MAX_KEPT_STRUCTURE_BIAS), ("kept", 1.0)):
            saved, bn_classifier.MAX_KEPT_STRUCTURE_BIAS = bn_classifier.MAX_KEPT_STRUCTURE_BIAS, bound
            try:
                model = gm.BNClassifier(**settings).fit(X, y)
            finally:
                bn_classifier.MAX_KEPT_STRUCTURE_BIAS = saved
            table = model.selection_.set_index("structure")
            for name in STRUCTURES:
                rows.append(dict(seed=seed, folds=label, structure=name, inner=table.loc[name, "log_loss"]))
            rows.append(dict(seed=seed, folds=label, structure="chosen", inner=table.loc[table["chosen"], "log_loss"].item(),
                             choice=table.loc[table["chosen"]].index.item()))  # fmt: skip
        for name in STRUCTURES:
            fitted = model.candidate(name).set_params(estimator="laplace").fit(X, y)
            proba = fitted.predict_proba(X_new)
            truth = np.searchsorted(np.asarray(fitted.classes_), y_new.to_numpy())
            true_loss = float(-np.log(np.clip(proba[np.arange(len(truth)), truth], 1e-15, 1)).mean())
            for row in rows[-8:]:
                if row["structure"] == name:
                    row["true"] = true_loss
    return pd.DataFrame(rows)


def _shown(value):
    return "raced out" if np.isnan(value) else f"{value:.3f}"


def markdown(frame):
    models = frame[frame["structure"] != "chosen"]
    table = models.pivot_table(index="structure", columns="folds", values=["inner", "true"], aggfunc="mean")
    shown = pd.DataFrame(
        {
            "model": [STRUCTURES[s] for s in table.index],
            "inner log-loss, folds learn their own": table[("inner", "learned again")].map(_shown).to_numpy(),
            "inner log-loss, folds keep it": table[("inner", "kept")].map(_shown).to_numpy(),
            "true log-loss (20,000 new rows)": table[("true", "kept")].map(_shown).to_numpy(),
        }
    )
    chosen = frame[frame["structure"] == "chosen"].groupby("folds")["choice"].agg(lambda c: ", ".join(c))
    return "\n".join(
        [
            "## BNClassifier's folds and a structure learned from noise (study_structure_kept_noise.py, issue 27)",
            "",
            __doc__.split("\n\n")[1].replace("\n", " "),
            "",
            common.machine_markdown(),
            "",
            "Mean over the five seeds:",
            "",
            common.markdown_table(shown),
            "",
            f"Chosen, folds learning their own structures: {chosen.get('learned again', '')}; keeping it: "
            f"{chosen.get('kept', '')}.",
        ]
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", action="store_true", help="write the RESULTS.md section")
    args = parser.parse_args(argv)
    body = markdown(run())
    print(body)
    if args.results:
        common.write_section("structure-kept-noise", body)


if __name__ == "__main__":
    main()

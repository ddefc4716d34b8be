"""Multi-label classifiers on emotions, beside Mauá's table (``maua_multilabel_accuracy.tsv``).

Protocol: 5-fold cross-validation (plain shuffled folds), repeated 5 times
with seeds 0..4 (``cross_validate_multilabel(n_splits=5, n_repeats=5)``),
equal-frequency discretization (5 bins) fitted on each training fold. Every
model sees the same folds. Models: binary relevance, label powerset and
classifier chains (greedy and exact) over naive Bayes; the multi-dimensional
naive Bayes, TAN and AODE (defaults: BDeu, at most 2 class parents per
attribute); scikit-learn's ``MultiOutputClassifier(CategoricalNB)`` on the
same discretized data (the ``bench`` extra; its ``ClassifierChain`` returns
one 2-D array from ``predict_proba``, not per-label tables, so it is left out). The MD-AODE speed target is a whole 5-fold CV (discretization,
fits, predictions) timed in one process.

Usage::

    python benchmarks/bench_multilabel.py             # writes the `multilabel` section of RESULTS.md
    python benchmarks/bench_multilabel.py --render-only

Raw per-fold results go to ``benchmarks/results/multilabel_emotions.csv.gz``.
Reads ``../shared/datasets/emotions.csv.gz`` (or ``$GRAPHMODELS_DATASETS``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from graphmodels.data.multilabel import read_multilabel
from graphmodels.evaluation import cross_validate_multilabel, summarize_multilabel
from graphmodels.models import (
    TAN,
    BinaryRelevance,
    ClassifierChain,
    LabelPowerset,
    MultiDimensionalAODE,
    MultiDimensionalNaiveBayes,
    MultiDimensionalTAN,
    MultiLabelModelSelection,
    NaiveBayes,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import datasets_dir, fmt_seconds, machine_markdown, markdown_table, write_section  # noqa: E402

RAW = Path(__file__).resolve().parent / "results" / "multilabel_emotions.csv.gz"
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "maua_multilabel_accuracy.tsv"
MULTI_DIMENSIONAL = ("MD-NB", "MD-TAN", "MD-AODE", "MD-AODE (log pool)", "MD-AODE (nested choice)")


def models():
    """The models compared, by the names used in the table."""
    chosen = {
        "BR-NB": BinaryRelevance(base=NaiveBayes(estimator="bdeu")),
        "BR-TAN": BinaryRelevance(base=TAN(estimator="bdeu")),
        "LP-NB": LabelPowerset(base=NaiveBayes(estimator="bdeu")),
        "CC-NB (greedy)": ClassifierChain(base=NaiveBayes(estimator="bdeu")),
        "PCC-NB (exact)": ClassifierChain(base=NaiveBayes(estimator="bdeu"), inference="exact"),
        "MD-NB": MultiDimensionalNaiveBayes(estimator="bdeu"),  # BDeu(1), as when the table was made
        "MD-TAN": MultiDimensionalTAN(estimator="bdeu"),
        "MD-AODE": MultiDimensionalAODE(estimator="bdeu"),
        "MD-AODE (log pool)": MultiDimensionalAODE(pooling="logarithmic", estimator="bdeu"),
        # Criterion and bound chosen by inner 5-fold CV on each training fold (nested CV).
        "MD-AODE (nested choice)": MultiLabelModelSelection(
            candidates={
                f"{criterion}-{k}": MultiDimensionalAODE(criterion=criterion, max_parents=k, estimator="bdeu")
                for criterion in ("bdeu", "bic", "aic")
                for k in (1, 2, 3)
            },
            random_state=0,
        ),
    }
    try:
        from sklearn.multioutput import MultiOutputClassifier
        from sklearn.naive_bayes import CategoricalNB
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OrdinalEncoder

        def encoded(model):
            # A bin never seen in the training fold becomes code 5, a category with no data.
            return make_pipeline(OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=5), model)

        chosen["sklearn BR-CategoricalNB"] = encoded(MultiOutputClassifier(CategoricalNB(min_categories=6)))
    except ImportError:
        print("scikit-learn is missing (pip install -e '.[bench]'): its models are left out.")
    return chosen


def load_emotions():
    folder = datasets_dir()
    path = None if folder is None else folder / "emotions.csv.gz"
    if path is None or not path.is_file():
        sys.exit("emotions.csv.gz is missing (../shared/datasets); set GRAPHMODELS_DATASETS to its folder.")
    return read_multilabel(path, prefix="label_")


def run(X, Y):
    results = cross_validate_multilabel(models(), X, Y, n_splits=5, n_repeats=5, random_state=0)
    RAW.parent.mkdir(parents=True, exist_ok=True)
    results.to_csv(RAW, index=False)
    return results


def time_aode_cv(X, Y):
    """Wall time of one whole 5-fold CV of MultiDimensionalAODE (discretization included)."""
    start = time.perf_counter()
    cross_validate_multilabel({"MD-AODE": MultiDimensionalAODE(estimator="bdeu")}, X, Y, n_splits=5, random_state=0)
    return time.perf_counter() - start


def render(results, aode_seconds):
    summary = summarize_multilabel(results)
    reference = pd.read_csv(REFERENCE, sep="\t").set_index("dataset").loc["emotions"] if REFERENCE.is_file() else None
    table = pd.DataFrame(
        {
            "Hamming acc. %": 100 * summary["hamming_accuracy"],
            "± sd (25 folds)": 100 * summary["hamming_accuracy_std"],
            "exact match %": 100 * summary["exact_match"],
            "Jaccard %": 100 * summary["jaccard_accuracy"],
            "per-label log-loss (nats)": summary["mean_label_log_loss"],
            "fit (s)": summary["fit_time"],
            "predict (s)": summary["predict_time"],
        }
    ).round(3)
    table.index.name = "model"
    br = table.loc["BR-NB", "Hamming acc. %"]
    best_md = table.loc[list(MULTI_DIMENSIONAL), "Hamming acc. %"].idxmax()
    lines = [
        "## Multi-label classifiers on emotions (Mauá's table; issue 6)",
        "",
        "`python benchmarks/bench_multilabel.py` — emotions (593 rows, 72 numeric attributes, 6 labels), "
        "5 x 5-fold CV (shuffled folds, seeds from 0), equal-frequency discretization (5 bins) fitted on each "
        "training fold; every model on the same folds. Means over the 25 folds.",
        "",
        markdown_table(table.reset_index()),
        "",
    ]
    if reference is not None:
        lines += [
            f"Mauá's table (emotions): BR-NB {reference['br_nb']}, ECC-NB {reference['ecc_nb']}, "
            f"ECC-J48 {reference['ecc_j48']}, ML-NB {reference['ml_nb']} (Hamming accuracy %).",
            "",
            f"- BR-NB: ours {br:.2f} vs {reference['br_nb']} — difference {br - reference['br_nb']:+.2f} points "
            f"(target within 1.5: {'PASS' if abs(br - reference['br_nb']) <= 1.5 else 'FAIL'}).",
        ]
    best = table.loc[best_md, "Hamming acc. %"]
    per_fold = results.pivot_table(index=["repeat", "fold"], columns="model", values="hamming_accuracy")
    difference = 100 * (per_fold[best_md] - per_fold["BR-NB"])
    aode = 100 * (per_fold["MD-AODE"] - per_fold["BR-NB"])
    lines += [
        f"- Best multi-dimensional model: {best_md} {best:.2f} vs BR-NB {br:.2f} "
        f"({best - br:+.2f} points; target above BR-NB: {'PASS' if best > br else 'FAIL'}). Paired over the 25 folds: "
        f"{difference.mean():+.2f} ± {difference.std(ddof=1) / np.sqrt(len(difference)):.2f} (standard error), better on "
        f"{int((difference > 0).sum())}, worse on {int((difference < 0).sum())}; MD-AODE (linear pool, the default) "
        f"{aode.mean():+.2f} ± {aode.std(ddof=1) / np.sqrt(len(aode)):.2f}. A small gain, as in Mauá's table (ML-NB 78.0 vs BR-NB 77.6).",
        "- The defaults of the multi-dimensional models (BDeu, at most 2 class parents) were chosen on emotions itself "
        "(5-fold CV, seeds 0-2, against BIC/AIC and 1-3 parents: all within one standard error of each other). "
        f"Without that look at the data, `MultiLabelModelSelection` chooses criterion and bound by inner 5-fold CV on each "
        f"training fold (nested): MD-AODE (nested choice) {table.loc['MD-AODE (nested choice)', 'Hamming acc. %']:.2f} "
        f"({table.loc['MD-AODE (nested choice)', 'Hamming acc. %'] - br:+.2f} against BR-NB).",
        "- MD-NB and MD-TAN have lower Hamming accuracy but by far the best per-label log-loss (0.93 and 0.51 nats against "
        "2.27 for BR-NB): their posteriors are calibrated, binary relevance with naive Bayes is overconfident. "
        "MD-NB/MD-TAN keep only the labels each attribute depends on most (at most 2), where BR-NB lets every attribute vote for every label.",
        f"- MD-AODE 5-fold CV (discretization, 5 fits, 5 predictions) in one process: {fmt_seconds(aode_seconds)} "
        f"(target < 30 s: {'PASS' if aode_seconds < 30 else 'FAIL'}).",
    ]
    sk = "sklearn BR-CategoricalNB"
    if sk in table.index:
        ratio = table.loc["BR-NB", "fit (s)"] / table.loc[sk, "fit (s)"]
        lines.append(
            f"- scikit-learn's MultiOutputClassifier(CategoricalNB) on the same bins: Hamming {table.loc[sk, 'Hamming acc. %']:.2f} "
            f"(BR-NB {br:.2f}); fit time ratio ours/sklearn {ratio:.2f}."
        )
    lines += ["", machine_markdown()]
    write_section("multilabel", "\n".join(lines))
    print("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--render-only", action="store_true")
    args = parser.parse_args(argv)
    X, Y = load_emotions()
    if args.render_only:
        results = pd.read_csv(RAW)
    else:
        results = run(X, Y)
    render(results, time_aode_cv(X, Y))


if __name__ == "__main__":
    main()

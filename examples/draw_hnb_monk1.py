"""Fit hierarchical naive Bayes on monk1 and draw its latent tree with the states of each latent.

Monk1's concept is ``a1 == a2 or a5 == 1``. On the 124 training rows of the
standard split, HNB (Langseth & Nielsen, 2006; seeded with random_state=0)
groups attr1 and attr2 under a latent L1 whose states are "equal" (state 0)
and two sets of unequal pairs, which with attr5 carries the concept: every
test row is classified right. The script prints the test accuracy of HNB and of naive Bayes on the other
rows.

Usage: ``python examples/draw_hnb_monk1.py [OUTPUT_DIR]`` (default:
``examples/figures``). Writes ``hnb_monk1.png``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import graphmodels as gm  # noqa: E402
from graphmodels.data.datasets import load, train_test_rows  # noqa: E402
from graphmodels.plotting import draw_latent_tree  # noqa: E402


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    frame = load("monk1")
    n_train = train_test_rows("monk1")
    X, y = frame.drop(columns="class"), frame["class"]
    X_train, y_train, X_test, y_test = X.iloc[:n_train], y.iloc[:n_train], X.iloc[n_train:], y.iloc[n_train:]

    hnb = gm.HierarchicalNaiveBayes(random_state=0).fit(X_train, y_train)
    nb = gm.NaiveBayes().fit(X_train, y_train)
    print(f"monk1: {n_train} training rows, {len(X_test)} test rows")
    print(f"  HNB test accuracy:         {hnb.score(X_test, y_test):.3f}")
    print(f"  naive Bayes test accuracy: {nb.score(X_test, y_test):.3f}")
    for row in hnb.latent_states_.itertuples():
        print(f"  {row.latent} = {row.state} over {', '.join(row.children)}: {row.configurations}")

    ax = draw_latent_tree(
        hnb,
        show_states=True,
        max_configurations=6,
        title=f"Hierarchical naive Bayes on monk1 ({n_train} training rows)",
    )
    path = output_dir / "hnb_monk1.png"
    ax.figure.savefig(path, dpi=150)
    print(f"Wrote {path}")
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

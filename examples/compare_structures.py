"""Naive Bayes, TAN, FAN and class-conditional Chow-Liu side by side on tic-tac-toe.

Usage: ``python examples/compare_structures.py [OUTPUT_DIR]`` (default:
``examples/figures``). Writes ``structures_tic_tac_toe.png``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_network  # noqa: E402

MODELS = {
    "Naive Bayes": gm.NaiveBayes,
    "TAN": gm.TAN,
    "FAN (MDL-pruned forest)": gm.FAN,
    "Chow-Liu per class (union of trees)": gm.ChowLiu,
}


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    frame = gm.datasets.load("tic-tac-toe")
    X, y = frame.drop(columns="class"), frame["class"]
    fig, axes = plt.subplots(2, 2, figsize=(15, 14), layout="constrained")
    for ax, (title, model_class) in zip(axes.flat, MODELS.items()):
        model = model_class().fit(X, y)
        draw_network(model, ax, title=title, legend=ax is axes[0, 1])
    fig.suptitle("Structures learned on tic-tac-toe (958 games, 9 squares)")
    path = output_dir / "structures_tic_tac_toe.png"
    fig.savefig(path, dpi=90)
    print(f"Wrote {path}")
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

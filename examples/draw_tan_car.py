"""Fit tree-augmented naive Bayes on the car data set and draw its structure.

Usage: ``python examples/draw_tan_car.py [OUTPUT_DIR]`` (default:
``examples/figures``). Writes ``tan_car.png``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_network  # noqa: E402


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    frame = gm.datasets.load("car")
    model = gm.TAN().fit(frame.drop(columns="class"), frame["class"])
    ax = draw_network(model, show_weights="augmenting", title="TAN on car (arc width: mutual information, nats)")
    path = output_dir / "tan_car.png"
    ax.figure.savefig(path, dpi=120)
    print(f"Wrote {path}")
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

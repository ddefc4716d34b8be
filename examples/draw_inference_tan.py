"""Ask TAN on car a question and draw every posterior on its structure.

Usage: ``python examples/draw_inference_tan.py [OUTPUT_DIR]`` (default:
``examples/figures``). Writes ``inference_tan_car.png``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_inference  # noqa: E402


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    X, y = gm.datasets.load("car", return_X_y=True)
    tan = gm.TAN().fit(X, y)
    ax = draw_inference(tan, evidence={"class": "vgood", "safety": "high"}, compare_to_prior=True)
    path = output_dir / "inference_tan_car.png"
    ax.figure.savefig(path, dpi=110, bbox_inches="tight")
    print(f"Wrote {path}")
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

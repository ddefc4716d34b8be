"""Animate the Kruskal search of tree-augmented naive Bayes on the car data set, as a GIF.

Usage: ``python examples/animate_tan.py [OUTPUT_DIR]`` (default: ``examples/figures``).
Writes ``tan_kruskal.gif``: one frame per step of ``TAN(trace=True).trace_`` (each candidate
edge accepted or rejected, with the cycle it would close, then the root) and a last frame with
the learned structure. The same from the shell:
``graphmodels animate car --model tan --out tan_kruskal.gif``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import animate  # noqa: E402


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.TAN(trace=True).fit(X, y)
    anim = animate(model, interval=1200, figsize=(6.4, 4.6), title="TAN on car: Kruskal's search, step by step")
    path = output_dir / "tan_kruskal.gif"
    anim.save(path, writer="pillow", dpi=70)
    print(f"Wrote {path} ({len(anim.frames)} frames, {path.stat().st_size / 1024:.0f} kB)")
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

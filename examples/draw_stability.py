"""How stable is TAN's tree on tic-tac-toe? 100 bootstrap refits, each arc by its frequency.

``edge_stability`` refits TAN on 100 bootstrap resamples of the 958 games (R bnlearn's
``boot.strength``; Friedman, Goldszmidt & Wyner 1999) and ``draw_stability`` draws the union of
the refitted structures on the board (``grid_layout``): each augmenting arc as wide and as opaque
as the share of refits that have it, the consensus (arcs in at least half of them) dark, the
rest grey and dashed, and an arrowhead only where at least 75% of the refits that have the arc
agree on its direction. Right: how the two learners disagree on the whole data
(``structure_difference`` of TAN and the class-conditional Chow-Liu trees).

Usage: ``python examples/draw_stability.py [OUTPUT_DIR]`` (default: ``examples/figures``).
Writes ``stability_tan.png``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.evaluation import edge_stability  # noqa: E402
from graphmodels.plotting import draw_stability, draw_structure_difference, grid_layout  # noqa: E402
from graphmodels.structures import structure_difference  # noqa: E402


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    stability = edge_stability(gm.TAN(), X, y, n_resamples=100, random_state=0)
    # One Chow-Liu forest per class (the default "auto" keeps TAN's tree on tic-tac-toe).
    tan, chow_liu = gm.TAN().fit(X, y), gm.ChowLiu(representation="free").fit(X, y)
    board = grid_layout(tan)  # the nine squares as on the board, the class above

    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6.2), layout="constrained")
    draw_stability(
        stability,
        left,
        layout=board,
        title=f"TAN on tic-tac-toe: {stability.n_resamples} bootstrap refits",
    )
    draw_structure_difference(
        structure_difference(tan, chow_liu),
        right,
        layout=board,
        title="TAN against Chow-Liu per class (whole data)",
    )
    fig.suptitle("Which arcs does the data support?", fontsize=13)
    path = output_dir / "stability_tan.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"Wrote {path}")
    print(stability.table[stability.table["source"] != "class"].head(12).to_string(index=False))
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

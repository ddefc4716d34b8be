"""Fit Kikuchi-Bayes on tic-tac-toe and draw its MAP model as in Figure 2 of Jakulin & Rish (2006).

Left: the interactions of the MAP model on the 3x3 board (5 green rings:
square + class; 4 blue lines: two squares + class; 6 red dashed lines: the
rows, columns and diagonals + class). Right: log prior, likelihood and
posterior along the greedy path, MAP step marked, with the model-averaging
weights. Second figure: the region graph of the MAP model with its
counting numbers.

Usage: ``python examples/draw_kikuchi_tic_tac_toe.py [OUTPUT_DIR]`` (default:
``examples/figures``). Writes ``kikuchi_tic_tac_toe.png`` and
``kikuchi_region_graph.png``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_interactions, draw_kikuchi_path, draw_region_graph, grid_layout  # noqa: E402


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    frame = gm.datasets.load("tic-tac-toe")
    X, y = frame.drop(columns="class"), frame["class"]
    model = gm.KikuchiBayes(max_region_size=4).fit(X, y)  # the default, as in the README

    fig, (board, path) = plt.subplots(1, 2, figsize=(15, 5.6), width_ratios=[1.05, 1.25], layout="constrained")
    # The columns run top-left-square, top-middle-square, ..., bottom-right-square: row by row,
    # so the squares fill a 3 x 3 grid in column order (cell centres 1 apart, top row at y = 0).
    board_pos = grid_layout(X.columns)
    for k in (0.5, 1.5):  # the game's grid
        board.plot([-0.5, 2.5], [-k, -k], color="#d9d9d9", linewidth=3, zorder=0, solid_capstyle="butt")
        board.plot([k, k], [-2.5, 0.5], color="#d9d9d9", linewidth=3, zorder=0, solid_capstyle="butt")
    draw_interactions(
        model,
        board_pos,
        ax=board,
        label_func=lambda name: "\n".join(name.split("-")[:2]),
        title=f"Interactions of the MAP model (step {model.map_step_})",
    )
    draw_kikuchi_path(model, ax=path, weights=True, title="Greedy path of the structure search")
    fig.suptitle("Kikuchi-Bayes on tic-tac-toe (Jakulin & Rish 2006, Figure 2)", fontsize=13)
    board_path = output_dir / "kikuchi_tic_tac_toe.png"
    fig.savefig(board_path, dpi=110)
    plt.close(fig)
    print(f"Wrote {board_path}")

    ax = draw_region_graph(model, title="Region graph of the MAP model (Hasse diagram, counting numbers c)")
    graph_path = output_dir / "kikuchi_region_graph.png"
    ax.figure.savefig(graph_path, dpi=110)
    plt.close(ax.figure)
    print(f"Wrote {graph_path}")
    return board_path, graph_path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

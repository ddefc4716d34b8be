"""Draw a random width-2 hypertree over 10 variables three ways.

Left: the Markov network (primal graph) with each maximal hyperedge shaded;
middle: the factor graph (variables as circles, factors as squares);
right: the junction tree, cliques joined by their separators. A hyperedge has
the same colour in all three.

Usage: ``python examples/draw_hyperforest.py [OUTPUT_DIR]`` (default:
``examples/figures``). Writes ``hyperforest_views.png``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from graphmodels.plotting import draw_hyperforest, draw_junction_tree  # noqa: E402
from graphmodels.structures import random_hypertree  # noqa: E402


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    forest = random_hypertree(10, 2, random_state=1, nodes=[f"x{i}" for i in range(10)])
    fig, axes = plt.subplots(1, 3, figsize=(15, 5.2), layout="constrained")
    draw_hyperforest(forest, ax=axes[0], title="Markov network, hyperedges shaded")
    draw_hyperforest(forest, view="factor", ax=axes[1], title="Factor graph")
    draw_junction_tree(forest, ax=axes[2], title="Junction tree (separators on the edges)")
    fig.suptitle(f"A random hypertree of width {forest.width} over {len(forest.nodes)} variables")
    path = output_dir / "hyperforest_views.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"Wrote {path}")
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

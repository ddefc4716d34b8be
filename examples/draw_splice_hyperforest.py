"""ML-J-3 on the splice data: the hypertree of Liang & Srebro (2004), end of section 6.4.

"On the splice data set, the variables form a linear sequence of DNA base pairs. It is
expected that dependencies will be spatially local, and the class variable to have
interactions mostly with the base pairs around the splice site. The hypertree
structure of ML-J-3 reflects this."

Fits ``HyperforestClassifier(treewidth=3, criterion="ml", representation="joint")`` on
all rows and draws its Markov network with the 60 positions in sequence order on an arc
and the class in the middle, each maximal hyperedge shaded; beside it, the distances
|i - j| of the edges between positions and which positions the class is joined to (the
splice site lies between positions 30 and 31).

Usage: ``python examples/draw_splice_hyperforest.py [OUTPUT_DIR]`` (default:
``examples/figures``). Writes ``splice_ml_j_3.png``. Reads ``splice.csv.gz`` from
``$GRAPHMODELS_DATASETS`` or ``../shared/datasets`` (beside the repository), else the
bundled copy if there is one; exits without a figure when none is found.
"""

import os
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import graphmodels.datasets  # noqa: E402
from graphmodels.models import HyperforestClassifier  # noqa: E402
from graphmodels.plotting import draw_hyperforest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
LOCAL = 3  # "spatially local": |i - j| <= LOCAL


def load_splice():
    """The splice table (class column last) and where it came from, or (None, None)."""
    folders = []
    if os.environ.get("GRAPHMODELS_DATASETS"):
        folders.append(Path(os.environ["GRAPHMODELS_DATASETS"]))
    folders.append(REPO.parent / "shared" / "datasets")
    for folder in folders:
        path = folder / "splice.csv.gz"
        if path.is_file():
            # Only empty cells are missing: "N" is a nucleotide code, not "not available".
            return pd.read_csv(path, keep_default_na=False, na_values=[""]), str(path)
    if "splice" in graphmodels.datasets.list_datasets():
        return graphmodels.datasets.load("splice"), "graphmodels.datasets (bundled)"
    return None, None


def positions_of(columns):
    """Sequence position (1-based) of each attribute column, from a trailing number in its name.

    ``attribute_17``, ``a17``, ``pos17`` and ``17`` all give 17. If some name has no
    number, or the numbers are not distinct, the column order is used instead.
    """
    numbers = [re.search(r"(\d+)\s*$", str(c)) for c in columns]
    if all(numbers):
        values = [int(m.group(1)) for m in numbers]
        if len(set(values)) == len(values):
            return dict(zip(columns, values))
    return {c: i + 1 for i, c in enumerate(columns)}


def arc_layout(position, class_name, span_degrees=300.0):
    """Positions in sequence order clockwise on an arc (gap at the bottom), the class at its centre."""
    ordered = sorted(position, key=position.__getitem__)
    start = np.radians(90 + span_degrees / 2)  # position 1 at the lower left
    angles = start - np.radians(span_degrees) * np.arange(len(ordered)) / max(len(ordered) - 1, 1)
    pos = {c: (float(np.cos(a)), float(np.sin(a))) for c, a in zip(ordered, angles)}
    pos[class_name] = (0.0, 0.0)
    return pos


def main(output_dir=None):
    data, source = load_splice()
    if data is None:
        print(
            "splice.csv.gz not found in $GRAPHMODELS_DATASETS or ../shared/datasets, and graphmodels "
            "bundles no splice data set: nothing to draw. Set GRAPHMODELS_DATASETS to the folder "
            "holding splice.csv.gz."
        )
        return None
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)

    X, y = data.iloc[:, :-1], data.iloc[:, -1]
    model = HyperforestClassifier(treewidth=3, criterion="ml", representation="joint").fit(X, y)
    forest = model.structure_
    class_name = next(v for v in forest.nodes if forest.node_attributes[v].get("role") == "class")
    position = positions_of(list(X.columns))

    graph = forest.primal_graph()
    distances = [abs(position[u] - position[v]) for u, v in graph.edges if class_name not in (u, v)]
    neighbours = sorted(position[v] for v in graph.neighbors(class_name))
    n_positions = len(position)
    local = np.mean(np.asarray(distances) <= LOCAL)
    span = f"{neighbours[0]}..{neighbours[-1]}" if neighbours else "none"

    fig = plt.figure(figsize=(12.5, 7), layout="constrained")
    grid = fig.add_gridspec(2, 2, width_ratios=[1.55, 1])
    ax_graph = fig.add_subplot(grid[:, 0])
    ax_hist = fig.add_subplot(grid[0, 1])
    ax_class = fig.add_subplot(grid[1, 1])

    labels = {c: str(p) for c, p in position.items()}
    labels[class_name] = "class"
    draw_hyperforest(
        forest,
        ax=ax_graph,
        pos=arc_layout(position, class_name),
        labels=labels,
        hyperedge_alpha=0.12,
        node_size=150,
        font_size=6.5,
        title=f"ML-J-3 Markov network, {len(forest.maximal_hyperedges)} maximal hyperedges shaded",
    )

    bins = np.arange(1, max(distances, default=1) + 2) - 0.5
    ax_hist.hist(distances, bins=bins, color="#4c72b0")
    ax_hist.axvline(LOCAL + 0.5, color="grey", linestyle="--", linewidth=1)
    ax_hist.set_title(f"{len(distances)} edges between positions, {local:.0%} with |i - j| <= {LOCAL}", fontsize=10)
    ax_hist.set_xlabel("|i - j| (sequence distance)")
    ax_hist.set_ylabel("edges")

    joined = np.isin(np.arange(1, n_positions + 1), neighbours)
    ax_class.bar(np.arange(1, n_positions + 1), joined.astype(int), width=0.85, color="#dd8452")
    ax_class.axvline(30.5, color="black", linestyle=":", linewidth=1.2, label="splice site (between 30 and 31)")
    ax_class.set_xlim(0.5, n_positions + 0.5)
    ax_class.set_ylim(0, 1.35)
    ax_class.set_yticks([])
    ax_class.set_xlabel("sequence position")
    ax_class.set_title(f"{len(neighbours)} positions share a hyperedge with the class ({span})", fontsize=10)
    ax_class.legend(loc="upper right", fontsize=8, frameon=False)

    fig.suptitle(
        f"splice ({len(data)} rows, {n_positions} positions): dependencies are local, the class "
        "interacts with the bases around the splice site"
    )
    path = output_dir / "splice_ml_j_3.png"
    fig.savefig(path, dpi=72, pil_kwargs={"optimize": True})
    plt.close(fig)

    print(f"Data: {source} ({len(data)} rows, {n_positions} positions, classes {sorted(y.unique())})")
    print(
        f"ML-J-3: {len(forest.maximal_hyperedges)} maximal hyperedges, {graph.number_of_edges()} edges "
        f"in the Markov network, {len(distances)} of them between positions."
    )
    print(
        f"Edges between positions with |i - j| <= {LOCAL}: {local:.1%} "
        f"(median |i - j| = {np.median(distances):.0f}, largest {max(distances)})."
    )
    print(f"The class shares a hyperedge with {len(neighbours)} positions: {neighbours}.")
    print(f"Wrote {path}")
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

"""Sample a known multi-dimensional Bayesian network classifier, learn it back and draw both.

A random MDBNC (4 labels in a class tree, 10 attributes, each with 1-2 label
parents and some with an attribute parent) generates 20,000 rows;
``MultiDimensionalTAN`` learns its class, bridge and feature subgraphs
(BDeu). The figure shows the hidden network above the learned one: class
arcs in the top row, bridge arcs dashed, feature arcs bold. The script also
prints the per-label test accuracy of binary relevance with naive Bayes and of
the three multi-dimensional models on 2,000 fresh rows.

Usage: ``python examples/draw_multidimensional.py [OUTPUT_DIR]`` (default:
``examples/figures``). Writes ``multidimensional_tan.png``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.evaluation import hamming_accuracy  # noqa: E402
from graphmodels.networks import random_multidimensional_network  # noqa: E402
from graphmodels.plotting import draw_multidimensional  # noqa: E402
from graphmodels.structures.multidimensional import bridge_subgraph, class_subgraph, feature_subgraph  # noqa: E402


def main(output_dir=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    network, truth = random_multidimensional_network(4, 10, feature_arcs=True, random_state=2)
    train, test = network.sample(20000, random_state=1), network.sample(2000, random_state=2)
    labels = [c for c in train.columns if c.startswith("C")]
    X, Y = train.drop(columns=labels), train[labels]
    X_test, Y_test = test.drop(columns=labels), test[labels]

    models = {
        "BR-NB": gm.models.BinaryRelevance(base=gm.NaiveBayes()),
        "MD-NB": gm.models.MultiDimensionalNaiveBayes(),
        "MD-TAN": gm.models.MultiDimensionalTAN(),
        "MD-AODE": gm.models.MultiDimensionalAODE(),
    }
    for name, model in models.items():
        model.fit(X, Y)
        print(f"  {name:8s} Hamming accuracy {hamming_accuracy(Y_test, model.predict(X_test)):.3f}")
    learned = models["MD-TAN"].structure_
    for part, view in (("class", class_subgraph), ("bridge", bridge_subgraph), ("feature", feature_subgraph)):
        same = set(map(frozenset, view(learned).edges)) == set(map(frozenset, view(truth).edges))
        print(f"  {part} subgraph recovered (as undirected edges): {same}")

    figure, (top, bottom) = plt.subplots(2, 1, figsize=(11, 9))
    layout = gm.plotting.multidimensional_layout(truth)
    draw_multidimensional(truth, top, layout=layout, title="Hidden MDBNC (4 labels, 10 attributes)")
    draw_multidimensional(learned, bottom, layout=layout, title="Learned by MultiDimensionalTAN from 20,000 rows")
    figure.tight_layout()
    path = output_dir / "multidimensional_tan.png"
    figure.savefig(path, dpi=130)
    print(f"Wrote {path}")
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

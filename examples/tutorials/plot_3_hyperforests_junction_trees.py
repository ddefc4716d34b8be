"""
Hyperforests and junction trees
===============================

A Chow-Liu tree lets each variable depend on one other. A *hyperforest* of width ``k`` lets
groups of up to ``k + 1`` variables interact: its hyperedges are the cliques of a
decomposable Markov network of tree-width ``k``, and they can be arranged in a *junction
tree*, where the variables two cliques share (their separator) lie on the path between them.
The maximum-likelihood hyperforest maximizes the summed weights of its hyperedges, a weight
being a hyperedge's information beyond that of its subsets. Finding it is hard for ``k >= 2``;
Liang & Srebro describe a global, Kruskal-like greedy algorithm and an incremental one
(after Malvestuto, 1991) with backtracking over start hyperedges.

This tutorial fits a width-2 hyperforest density to seven votes of the 1984 US House of
Representatives (the ``voting`` data), reads the trace of both algorithms, draws the
hyperforest and its junction tree, and checks that the model's clique marginals
(``potential``) and its density add up to 1.

References: P. Liang and N. Srebro, *Methods and Experiments With Bounded Tree-width Markov
Networks* (hyperforests, hyperedge weights, the global and incremental algorithms).
F. M. Malvestuto (1991), Approximating discrete probability distributions with decomposable
models, *IEEE Trans. Systems, Man, and Cybernetics* 21(5).
"""

# %%
# Seven votes
# -----------
# Each vote is ``y``, ``n`` or ``?`` (not recorded). Short names keep the drawings readable.
import itertools

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd

import graphmodels as gm
from graphmodels.plotting import draw_hyperforest, draw_junction_tree

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", 50)
X, _ = gm.datasets.load("voting", return_X_y=True)
short = ["infants", "water", "budget", "physician", "salvador", "religion", "satellite"]
X = X.iloc[:, :7].set_axis(short, axis=1).astype(object).fillna("?")
X.head()

# %%
# The global algorithm: Kruskal for hyperedges
# --------------------------------------------
# ``algorithm="global"`` takes the candidate hyperedges (pairs and triples) by decreasing gain
# and accepts one when it adds to the forest's weight and the forest stays acyclic, just as
# Kruskal accepts an edge that closes no cycle. Its trace has one row per candidate.
model_global = gm.HyperforestDensity(treewidth=2, algorithm="global", trace=True).fit(X)
trace = model_global.trace_
trace["item"] = trace["item"].map(lambda item: ", ".join(sorted(item)) if item is not None else item)
trace[["step", "action", "item", "score", "gain", "reason"]].head(12)

# %%
# The tally of the global search: most candidates are rejected because they would make the
# hypergraph cyclic (no longer a hyperforest); the search stops once the forest is a 2-tree,
# where no further hyperedge of three variables fits.
trace.groupby(["action", "reason"]).size()

# %%
# The incremental algorithm and its backtracking
# ----------------------------------------------
# The default, ``algorithm="incremental"``, grows the forest one node at a time (attaching the
# outside node of highest gain to a hyperedge of the forest) and restarts from each of the
# ``n_starts`` heaviest hyperedges; the trace records each run and the one that won.
model = gm.HyperforestDensity(treewidth=2, n_starts=20, trace=True).fit(X)
runs = model.trace_[model.trace_["action"].isin(["run", "best"])]
print(runs[["action", "run", "score", "reason"]].head(6).to_string(index=False))
print("...")
print(runs[["action", "run", "score", "reason"]].tail(1).to_string(index=False))
# A run's ``score`` is the weight of the forest it built, which is the log-likelihood per row
# (nats) of the model it defines; the incremental search finds at least the global one's.
weight_global = model_global.structure_.weight(model_global.weights_)
weight_incremental = model.structure_.weight(model.weights_)
print(f"log-likelihood per row: global {weight_global:.4f}, incremental {weight_incremental:.4f}")

# %%
# Three views of the learned hyperforest
# --------------------------------------
# Left: the Markov network with each maximal hyperedge shaded. Middle: the factor graph, one
# square per hyperedge. Right: the junction tree, cliques joined by their separators; every
# variable's cliques form a connected subtree (the running intersection property).
forest = model.structure_
print(forest)
fig, axes = plt.subplots(1, 3, figsize=(16, 5.4), layout="constrained")
draw_hyperforest(model, ax=axes[0], title="Markov network, hyperedges shaded")
draw_hyperforest(model, view="factor", ax=axes[1], title="Factor graph")
draw_junction_tree(model, ax=axes[2], title="Junction tree (separators on the edges)")

# %%
# The running intersection property, checked on the junction tree:
tree = forest.junction_tree()
for variable in short:
    holding = [node for node in tree.nodes if variable in node]
    assert nx.is_connected(tree.subgraph(holding)), variable
for a, b, data in tree.edges(data=True):
    print(f"{', '.join(sorted(a))}  --[{', '.join(sorted(data.get('sepset', a & b)))}]--  {', '.join(sorted(b))}")

# %%
# Clique marginals: ``potential``
# -------------------------------
# ``potential(clique)`` is the model's marginal distribution of one clique, a tidy table that
# sums to 1.
cliques = [tuple(sorted(c)) for c in forest.maximal_hyperedges]
table = model.potential(cliques[0])
print(f"clique {cliques[0]}: {len(table)} configurations, total {table['probability'].sum():.12f}")
table.sort_values("probability", ascending=False).head(8)

# %%
# The density sums to 1
# ---------------------
# A decomposable model's joint is the product of its clique marginals divided by the
# marginals of its separators, and needs no normalizing constant. Summing ``exp`` of
# ``score_samples`` (the log-density) over all ``3^7 = 2187`` configurations gives 1.
states = [sorted(X[column].unique()) for column in short]
grid = pd.DataFrame(list(itertools.product(*states)), columns=short)
total = np.exp(model.score_samples(grid)).sum()
print(f"sum over {len(grid)} configurations: {total:.12f}")
assert abs(total - 1) < 1e-9

# %%
# The marginal of a clique computed from that joint is the ``potential`` table: the junction
# tree's tables are the model's own marginals.
joint = grid.assign(probability=np.exp(model.score_samples(grid)))
brute = joint.groupby(list(cliques[0]))["probability"].sum()
assert np.allclose(brute.to_numpy(), table.set_index(list(cliques[0]))["probability"].loc[brute.index].to_numpy())
print("potential() equals the brute-force marginal of the joint")

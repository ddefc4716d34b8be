"""
Chow-Liu and Kruskal step by step
=================================

The Chow-Liu algorithm (Chow & Liu, 1968) finds the tree-shaped distribution closest to the
data: it weighs every pair of variables by their mutual information and keeps a maximum
spanning tree. Tree-augmented naive Bayes (TAN; Friedman, Geiger & Goldszmidt, 1997, as
presented in Mauá's lecture notes, *Bayesian Network Classifiers*) does the same with the
mutual information *given the class*, ``I(Xi; Xj | C)``, and then points the tree's arcs away
from a root. The spanning tree is found by Kruskal's algorithm (Kruskal, 1956): take the
candidate edges from the heaviest down, accept an edge when it joins two trees and reject it
when it would close a cycle.

With ``trace=True`` a model records every step of that search in ``trace_``. This tutorial
reads the trace of TAN on the car data set: the weights, the order of the steps, a rejected
edge and the cycle it would have closed, and drawings of the forest as it grows, as panels
and as an animation.

References: C. K. Chow and C. N. Liu (1968), Approximating discrete probability distributions
with dependence trees, *IEEE Trans. Information Theory* 14(3). N. Friedman, D. Geiger and
M. Goldszmidt (1997), Bayesian network classifiers, *Machine Learning* 29. J. B. Kruskal
(1956), On the shortest spanning subtree of a graph, *Proc. AMS* 7. D. D. Mauá, *Bayesian
Network Classifiers* (lecture notes).
"""

# %%
# The data and the fit
# --------------------
# Car has 1,728 rows, six attributes and a class with four values. ``trace=True`` is the only
# change to an ordinary fit.
import matplotlib.pyplot as plt
import networkx as nx
import pandas as pd

import graphmodels as gm
from graphmodels.learners import tan_structure
from graphmodels.plotting import animate, draw_network

pd.set_option("display.width", 120)
X, y = gm.datasets.load("car", return_X_y=True)
model = gm.TAN(trace=True).fit(X, y)
trace = model.trace_
trace[["step", "action", "item", "score", "reason"]]

# %%
# Each row is one step. ``item`` is the candidate edge, ``score`` its weight
# ``I(Xi; Xj | C)`` in nats, and the rows come in the order Kruskal took them: by decreasing
# weight. The last row, ``root``, says from which attribute the tree's arcs point away.
#
# The weights
# -----------
# Kruskal looks at every pair once, so the trace holds all 15 weights of the six attributes.
# Laid out as a matrix they show what the tree will keep: ``buying``-``maint`` and the pairs
# around ``safety`` stand out; ``doors`` hardly depends on anything given the class.
edges = trace[trace["action"].isin(["accept", "reject"])]
names = list(X.columns)
weights = pd.DataFrame(0.0, index=names, columns=names)
for (a, b), score in zip(edges["item"], edges["score"]):
    weights.loc[a, b] = weights.loc[b, a] = score

fig, ax = plt.subplots(figsize=(5.6, 4.6), layout="constrained")
image = ax.imshow(weights, cmap="Blues")
ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
ax.set_yticks(range(len(names)), names)
for i in range(len(names)):
    for j in range(len(names)):
        if i != j:
            ax.text(j, i, f"{weights.iloc[i, j]:.3f}", ha="center", va="center", fontsize=7)
fig.colorbar(image, ax=ax, label="I(Xi; Xj | class), nats")
ax.set_title("The weights Kruskal compares")

# %%
# A rejected edge and the cycle it closes
# ---------------------------------------
# After four accepted edges, the next candidate is ``maint``-``safety``. Both ends are already
# in one tree, joined by the path ``maint - buying - safety``; adding the edge would close a
# cycle of three edges, so Kruskal rejects it. The trace keeps that path in ``cycle``.
rejected = trace[trace["action"] == "reject"].iloc[0]
print(f"step {rejected['step']}: {rejected['item']} weight {rejected['score']:.4f}")
print(f"  {rejected['reason']}: {' - '.join(rejected['cycle'])}")

# %%
# The cycle's edges are all heavier than the rejected one: that is why a maximum spanning tree
# never needs it (the cycle property of spanning trees).
cycle = list(rejected["cycle"])
path_weights = [weights.loc[a, b] for a, b in zip(cycle, cycle[1:])]
print("weights along the cycle's path:", [f"{w:.4f}" for w in path_weights])
assert min(path_weights) >= rejected["score"]

# %%
# The forest, step by step
# ------------------------
# One panel per step of the search: the accepted edges so far in black (as wide as their
# weight), the candidate of the step in green when accepted, in red and dashed when rejected,
# with the path of the cycle it would close in orange.
pos = nx.circular_layout(names)
steps = edges.reset_index(drop=True)
fig, axes = plt.subplots(3, 5, figsize=(15, 9), layout="constrained")
forest = nx.Graph()
forest.add_nodes_from(names)
for ax, step in zip(axes.flat, steps.itertuples()):
    a, b = step.item
    nx.draw_networkx_nodes(forest, pos, ax=ax, node_color="#dde8f5", node_size=900)
    nx.draw_networkx_labels(forest, pos, ax=ax, font_size=7)
    widths = [1 + 40 * forest.edges[e]["weight"] for e in forest.edges]
    nx.draw_networkx_edges(forest, pos, ax=ax, width=widths)
    if step.action == "reject":
        path = list(zip(step.cycle, step.cycle[1:]))
        nx.draw_networkx_edges(forest, pos, edgelist=path, ax=ax, width=4, edge_color="orange", alpha=0.7)
    color, style = ("green", "solid") if step.action == "accept" else ("red", "dashed")
    nx.draw_networkx_edges(forest, pos, edgelist=[(a, b)], ax=ax, width=2.5, edge_color=color, style=style)
    ax.set_title(f"step {step.step}: {step.action} {a}-{b}\n{step.score:.4f} nats", fontsize=9)
    ax.margins(0.15)
    ax.axis("off")
    if step.action == "accept":
        forest.add_edge(a, b, weight=step.score)
for ax in axes.flat[len(steps) :]:
    ax.axis("off")
fig.suptitle("Kruskal's algorithm on I(Xi; Xj | class) for car")

# %%
# The same story as an animation
# ------------------------------
# :func:`~graphmodels.plotting.animate` turns a traced model into a matplotlib animation, one
# frame per step of its trace, drawn with the model's own drawing (class arcs included) and a
# caption naming the step. In a notebook, the animation shows itself; ``anim.save("tan.gif")``
# writes a file.
anim = animate(model, interval=900)

# %%
# Once five edges are accepted the six attributes form one tree, and every later candidate is
# rejected. A trace is complete: replaying its accepted steps rebuilds the learned tree.
accepted = {frozenset(item) for item in trace.loc[trace["action"] == "accept", "item"]}
learned = {frozenset(e) for e, kind in nx.get_edge_attributes(model.structure_, "kind").items() if kind != "class"}
assert accepted == learned
print(f"{len(accepted)} accepted edges = the {len(learned)} augmenting arcs of the model")

# %%
# Direction and the finished model
# --------------------------------
# The ``root`` row says that the arcs point away from ``safety``, the attribute most
# informative about the class. The model adds the class as a parent of every attribute; the
# arcs of the tree are drawn as wide as their weight.
print(trace.iloc[-1][["action", "item", "score", "reason"]].to_string())
draw_network(model, show_weights="augmenting", title="TAN on car (arc width: I(Xi; Xj | C), nats)")

# %%
# Prim's algorithm reaches the same tree
# --------------------------------------
# ``algorithm="prim"`` grows one tree from a start vertex, always adding the heaviest edge
# that leaves it. The order of the steps differs, and no edge is ever rejected, but the tree
# is the same (the weights here are distinct, so the maximum spanning tree is unique).
frame = X.assign(**{"class": y})
prim, prim_trace = tan_structure(frame, "class", algorithm="prim", trace=True)
print(prim_trace[["step", "action", "item", "score", "reason"]].to_string(index=False))
assert {frozenset(e) for e in prim.edges if "class" not in e} == learned

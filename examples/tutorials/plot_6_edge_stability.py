"""
Which edges can I trust? (stability)
====================================

A structure learner always returns *a* structure, even when the data barely prefer it to
another. The trace of a fit shows how close the calls were (an accepted edge whose weight is
hardly above a rejected one's), and the bootstrap measures it: refit the model on many
resamples of the rows and count how often each edge comes back (Friedman, Goldszmidt &
Wyner, 1999; the ``boot.strength`` of R's bnlearn). Edges found in most refits are the ones
to trust; the rest are the learner's tie-breaking.

This tutorial measures the stability of TAN's tree on tic-tac-toe with ``edge_stability``,
relates it to the weights in the trace, shows how it falls with fewer rows, and compares TAN
with the class-conditional Chow-Liu trees using ``structure_difference``.

References: N. Friedman, M. Goldszmidt and A. Wyner (1999), Data analysis with Bayesian
networks: a bootstrap approach, *UAI-99*. M. Scutari and R. Nagarajan (2013), Identifying
significant edges in graphical models of molecular networks, *Artificial Intelligence in
Medicine* 57. N. Friedman, D. Geiger and M. Goldszmidt (1997), Bayesian network classifiers,
*Machine Learning* 29; D. D. Mauá, *Bayesian Network Classifiers* (lecture notes: TAN).
"""

# %%
# 100 bootstrap refits of TAN
# ---------------------------
# ``edge_stability`` refits the model on ``n_resamples`` bootstrap resamples of the 958 games
# and returns every arc with its ``frequency`` (the share of refits that have it, either way
# round) and ``direction`` (the share of those that point it this way).
import matplotlib.pyplot as plt
import pandas as pd

import graphmodels as gm
from graphmodels.evaluation import edge_stability
from graphmodels.plotting import draw_stability, draw_structure_difference, grid_layout
from graphmodels.structures import structure_difference

pd.set_option("display.width", 120)
X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
stability = edge_stability(gm.TAN(), X, y, n_resamples=100, random_state=0)
augmenting = stability.table[stability.table["source"] != "class"]
augmenting.head(12)

# %%
# The class's arcs are in every refit (a TAN always has them). No augmenting arc is: the most
# frequent are in 76-88% of the refits, then the frequencies drop to 30% and below. The
# *consensus* is the arcs found in at
# least half of the refits (``threshold=0.5``); ``consensus(0.9)`` asks for more.
print(f"{len(augmenting)} different augmenting arcs over {stability.n_resamples} refits; a TAN has 8")
consensus = stability.consensus()
strict = stability.consensus(0.9)
print(f"consensus: {consensus.number_of_edges() - 9} augmenting arcs (+ the 9 class arcs)")
print(f"in at least 90% of the refits: {strict.number_of_edges() - 9} augmenting arcs")

# %%
# Drawn on the board
# ------------------
# ``draw_stability`` draws each arc as wide and opaque as its frequency, the consensus dark,
# the rest grey and dashed, with an arrowhead only where at least 75% of the refits agree on
# the direction. ``grid_layout`` puts the squares where they are on the board.
board = grid_layout([*X.columns, "class"], class_nodes=["class"])  # the class above the board
draw_stability(stability, layout=board, title="TAN on tic-tac-toe: 100 bootstrap refits")

# %%
# What the trace says about it
# ----------------------------
# The trace of one fit on all the rows gives each candidate edge's weight ``I(Xi; Xj | C)``.
# Heavy edges come back often, light ones rarely; and the trace explains why even the
# heaviest are not in every refit. The eight pairs of squares a knight's move apart have
# exactly the same weight (the board's symmetry), and they form a cycle: Kruskal has to drop
# one of them, chosen by tie-breaking, and a resample breaks the tie differently. Likewise
# the middle square joins the tree through one of four corners of equal weight, each in only
# 20-30% of the refits: the data are sure that the centre hangs off a corner, not off which.
tan = gm.TAN(trace=True).fit(X, y)
steps = tan.trace_[tan.trace_["action"].isin(["accept", "reject"])]
frequency = {frozenset((s, t)): f for s, t, f in augmenting[["source", "target", "frequency"]].itertuples(index=False)}
steps = steps.assign(frequency=[frequency.get(frozenset(item), 0.0) for item in steps["item"]])
fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
for action, color in [("accept", "tab:green"), ("reject", "tab:red")]:
    rows = steps[steps["action"] == action]
    ax.scatter(rows["score"], rows["frequency"], color=color, label=f"{action}ed on all rows", alpha=0.7)
ax.set_xscale("log")
ax.set_xlabel("weight I(Xi; Xj | C) on all rows (nats, log scale)")
ax.set_ylabel("bootstrap frequency")
ax.axhline(0.5, color="grey", linestyle=":", linewidth=1)
ax.legend()
ax.set_title("Heavier edges come back more often")
steps.loc[steps["action"] == "accept", ["item", "score", "frequency"]]

# %%
# Fewer rows, less trust
# ----------------------
# With 200 games instead of 958, the weights are noisier and fewer arcs reach the consensus.
small = X.sample(200, random_state=0).index
stability_small = edge_stability(gm.TAN(), X.loc[small], y.loc[small], n_resamples=100, random_state=0)
fig, axes = plt.subplots(1, 2, figsize=(14, 6), layout="constrained")
draw_stability(stability, axes[0], layout=board, title="958 games", legend=False)
draw_stability(stability_small, axes[1], layout=board, title="200 games", legend=False)
for name, result in [("958 games", stability), ("200 games", stability_small)]:
    table = result.table[result.table["source"] != "class"]
    print(f"{name}: {(table['frequency'] >= 0.5).sum()} augmenting arcs in at least half of the refits")

# %%
# Two learners, one data set: ``structure_difference``
# ----------------------------------------------------
# TAN learns one tree for all classes; ``ChowLiu(representation="free")`` learns one Chow-Liu
# forest per class (by default, ``"auto"``, ChowLiu keeps TAN's tree instead when that predicts
# better with each training row left out, as it does here) and ``structure_difference``
# compares the union of its trees' edges with TAN's arcs: shared, only in one, or reversed.
chow_liu = gm.ChowLiu(representation="free").fit(X, y)
difference = structure_difference(tan, chow_liu)
print(difference)
draw_structure_difference(difference, layout=board, title="TAN against Chow-Liu per class (all rows)")

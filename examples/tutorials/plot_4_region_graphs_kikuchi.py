"""
Region graphs and the Kikuchi approximation
===========================================

When the interactions of a model form cycles, its joint distribution no longer factorizes
into clique marginals divided by separator marginals. The Kikuchi approximation (the
cluster variation method) still writes it as a product of region marginals, each raised to a
*counting number* ``c_R``: the regions are the chosen interactions and all their
intersections, and ``c_R = 1 - (sum of the counting numbers of the regions that contain R)``.
For a junction tree this is exact (cliques count ``+1``, separators ``-1``); with cycles it is
an approximation. Kikuchi-Bayes (Jakulin & Rish) builds a classifier this way: a greedy
search adds interactions with the class while the log posterior (likelihood plus a
parsimonious prior) rises, and averages the models along its path.

This tutorial builds region graphs by Algorithm 1 of Jakulin & Rish, checks their counting
numbers, then fits Kikuchi-Bayes on tic-tac-toe and draws its interactions on the board and
its search path.

References: A. Jakulin and I. Rish (2006), *Kikuchi-Bayes: Markov Networks for
Classification* (IBM research report): Algorithm 1, the parsimonious prior, the greedy path
and Figure 2. R. Kikuchi (1951), A theory of cooperative phenomena, *Physical Review* 81.
"""

# %%
# Algorithm 1 on a chain of regions
# ---------------------------------
# Three overlapping regions ``abc``, ``bcd``, ``cde``. Their intersections ``bc`` and ``cd``
# get ``c = 1 - 2 = -1``; the intersection of those, ``c``, is contained in all five regions
# above it and gets ``1 - (1 + 1 + 1 - 1 - 1) = 0``, so it is dropped. The trace shows each
# step.
import matplotlib.pyplot as plt
import pandas as pd

import graphmodels as gm
from graphmodels.plotting import draw_interactions, draw_kikuchi_path, draw_region_graph, grid_layout
from graphmodels.structures import cluster_variation_regions, counting_numbers_are_valid

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", 60)


def show(trace):
    """The trace with its regions written as strings."""
    return trace.assign(item=trace["item"].map(lambda r: "".join(sorted(r)) if r is not None else r))


chain, chain_trace = cluster_variation_regions([tuple("abc"), tuple("bcd"), tuple("cde")], trace=True)
show(chain_trace)[["step", "action", "item", "score", "reason"]]

# %%
# The counting numbers are valid: every variable is counted once in total, summed over the
# regions that contain it. That is what makes the approximation exact on each single
# variable's marginal.
counting = dict(chain.nodes(data="counting_number"))
for variable in "abcde":
    total = sum(c for region, c in counting.items() if variable in region)
    print(f"{variable}: {' + '.join(str(c) for r, c in counting.items() if variable in r)} = {total}")
assert counting_numbers_are_valid(chain)

# %%
# A cycle: the triangle ``ab``, ``bc``, ``ca``
# --------------------------------------------
# Now every pair meets another in one variable, and each single variable gets
# ``c = 1 - 2 = -1``. The counting numbers still sum to 1 per variable, but no junction tree
# exists: this is where the Kikuchi approximation is an approximation.
triangle = cluster_variation_regions([tuple("ab"), tuple("bc"), tuple("ca")])
fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
draw_region_graph(chain, ax=axes[0], title="Chain: abc, bcd, cde", legend=False)
draw_region_graph(triangle, ax=axes[1], title="Triangle: ab, bc, ca", legend=False)
print({"".join(sorted(r)): c for r, c in triangle.nodes(data="counting_number")})
assert counting_numbers_are_valid(triangle)

# %%
# Kikuchi-Bayes on tic-tac-toe
# ----------------------------
# Tic-tac-toe's class says whether ``x`` wins from a final board of nine squares. The search
# starts from the class alone, and at each step adds the region (an interaction of the class
# with one, two or three squares) that raises the log posterior most.
X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
model = gm.KikuchiBayes(trace=True).fit(X, y)
search = model.trace_[model.trace_["part"] == "search"]
search[["step", "action", "item", "score", "size", "df", "reason"]].head(12)

# %%
# The search's phases: the ``ascent`` accepts regions while the log posterior rises, moving
# on to larger regions (``size`` counts the class) when the best region of a size does not
# help (a ``reject`` row); the model with the highest posterior is the MAP model (the ``map``
# row). With ``continue_past_map=True`` the search then goes on ``beyond MAP`` for a while, so
# that Bayesian model averaging can weigh a few more models.
search.groupby(["phase", "size", "action"], sort=False).size()

# %%
# The MAP model's region graph comes from Algorithm 1 on its regions; its counting numbers
# are valid too.
print(f"MAP step {model.map_step_}, {model.structure_.number_of_nodes()} regions")
assert counting_numbers_are_valid(model.structure_)
regions = model.trace_[model.trace_["part"] == "regions"]
regions.groupby("action").size()

# %%
# The interactions on the board, and the path
# -------------------------------------------
# ``grid_layout`` puts the nine squares where they are on the board. The MAP model's
# interactions are the rings (square and class), the lines (two squares and class) and the
# three-square lines of the game: the rows, columns and diagonals, as in Figure 2 of Jakulin
# & Rish. Right: log prior, log-likelihood and log posterior along the path, with the MAP
# step and the weights of Bayesian model averaging.
board = grid_layout(X.columns)
fig, (left, right) = plt.subplots(1, 2, figsize=(15, 5.6), width_ratios=[1.05, 1.25], layout="constrained")
draw_interactions(
    model,
    board,
    ax=left,
    label_func=lambda name: "\n".join(name.split("-")[:2]),
    title=f"Interactions of the MAP model (step {model.map_step_})",
)
draw_kikuchi_path(model, ax=right, weights=True, title="Greedy path of the structure search")

# %%
# The region graph of the MAP model (its Hasse diagram), each region with its counting
# number.
draw_region_graph(model, title="Region graph of the MAP model")

# %%
# Does it predict well?
# ---------------------
# A Kikuchi-Bayes model that found the game's lines should beat naive Bayes, which treats
# the squares as independent given the outcome. Five-fold cross-validated log-loss:
cv = gm.evaluation.RepeatedStratifiedKFold(n_splits=5, random_state=0)
comparison = gm.evaluation.compare(
    {"naive Bayes": gm.NaiveBayes(), "Kikuchi-Bayes": gm.KikuchiBayes()}, {"tic-tac-toe": (X, y)}, cv=cv
)
comparison.summary[["model", "log_loss", "error"]]

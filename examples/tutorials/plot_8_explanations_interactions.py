"""
Why this prediction, and which attributes interact
==================================================

Two questions follow a learned structure: *why did the model give this row this probability?*
and *which attributes tell about the class together, beyond what each tells alone?*

This tutorial explains the predictions of a tree-augmented naive Bayes (TAN) on adult (48,842
people of the 1994 US census; the class: does the person earn more than $50K a year?):
``model.explain`` splits each row's log-odds exactly into the model's own terms, and
:func:`graphmodels.shapley_values` gives each attribute's Shapley value, exact, by summing the
other attributes out of the model. It then runs Jakulin & Bratko's interaction analysis of
voting (the 1984 votes of the US House of Representatives), draws its interaction graph and
dendrogram, and sets the graph beside the interaction diagram of a Kikuchi-Bayes model of the
same data.

References: E. Štrumbelj and I. Kononenko (2014), Explaining prediction models and individual
predictions with feature contributions, *Knowledge and Information Systems* 41. L. S. Shapley
(1953), A value for n-person games. U. M. Fayyad and K. B. Irani (1993), Multi-interval
discretization of continuous-valued attributes for classification learning, *IJCAI*.
R. Kohavi (1996), Scaling up the accuracy of naive-Bayes classifiers: a decision-tree hybrid,
*KDD* (the adult data). A. Jakulin and I. Bratko (2003), Analyzing attribute dependencies,
*PKDD*; (2004), Testing the significance of attribute interactions, *ICML*. A. Jakulin and
I. Rish (2006), Kikuchi-Bayes: Markov networks for classification.
"""

# %%
# A TAN's predictions, term by term
# ---------------------------------
# A TAN's log-odds of ``>50K`` is a sum: the class prior's log-odds, and for each attribute the
# log-ratio of its table's entries under the two classes given its parent. ``explain`` returns
# those terms, one column each; a row's terms add up to the model's own log-odds exactly. Six
# of adult's columns are integer measurements (age, fnlwgt, education-num, capital-gain,
# capital-loss, hours-per-week): ``discretizer="mdl"`` cuts them into the intervals that tell
# about the class (Fayyad & Irani's MDL rule, fitted with the model); the default would cut
# them the same way and warn that it took integers for measurements. One fit on all 48,842
# rows, and every row explained.
import matplotlib.pyplot as plt
import numpy as np

import graphmodels as gm
from graphmodels.plotting import (
    draw_contribution_summary,
    draw_contributions,
    draw_interaction_dendrogram,
    draw_interaction_graph,
    draw_interactions,
    draw_waterfall,
    network_layout,
)

X, y = gm.datasets.load("adult", return_X_y=True)
tan = gm.TAN(discretizer="mdl").fit(X, y)
terms = tan.explain(X)
log_proba = tan.predict_log_proba(X)
assert np.allclose(terms.sum(axis=1), log_proba[:, 1] - log_proba[:, 0], atol=1e-10)
print(terms.attrs["explains"])
print("fnlwgt cut at:", tan.discretizer_.cut_points_["fnlwgt"])  # no cut: one interval
assert np.allclose(terms["fnlwgt"], 0.0)
terms.head(3).round(2)

# %%
# ``fnlwgt`` (the census's sampling weight) has a zero term in every row: MDL found no cut of it
# worth its cost, so it is one interval and tells nothing about income.
#
# One row's waterfall: its terms from the largest, starting from the prior and ending at the
# model's log-odds (the labels give the row's value of each attribute). The row: of a random
# 200 rows, the one whose probability of ``>50K`` is nearest 3/4, a case the model leans on
# but is not sure of.
sample = X.sample(200, random_state=0)
probability = np.exp(log_proba[sample.index, 1])
row = sample.index[np.argmin(np.abs(probability - 0.75))]  # X's index is 0..n-1: a label and a position
print(f"row {row}: P(>50K) = {np.exp(log_proba[row, 1]):.2f}, its class: {y[row]}")
ax = draw_waterfall(terms, row, data=X)

# %%
# The same terms on the model's structure: each attribute coloured by its term (red towards
# ``>50K``, blue away from it) and sized by its magnitude.
ax = draw_contributions(tan, terms, row)

# %%
# Over the whole data set: the mean absolute term of each attribute, beside the structure.
fig, (bars, structure) = plt.subplots(1, 2, figsize=(13, 5.5), layout="constrained")
ax = draw_contribution_summary(tan, terms, ax=bars, structure_ax=structure)

# %%
# Shapley values: each attribute's share, whatever the structure
# --------------------------------------------------------------
# The terms belong to the model's factorization: a parent's state moves its children's terms.
# Shapley values answer instead "how much does knowing this attribute move the prediction, on
# average over the orders in which the attributes could be learned?" A coalition's value is the
# model's log-odds with the other attributes unobserved (summed out exactly, as the model does
# for a state it never saw). With 14 attributes a row has 16,384 coalitions, and the values
# are exact over all of them: for a tree-shaped model such as TAN a dynamic programme over the
# tree shares the sums of a subtree between coalitions, for the 200 rows at once. The values
# satisfy efficiency (they add up to the log-odds too), and for a naive Bayes they equal its
# terms (its game is additive).
shapley = gm.shapley_values(tan, sample)
assert np.allclose(shapley.sum(axis=1), terms.loc[sample.index].sum(axis=1), atol=1e-10)
comparison = terms.loc[row].to_frame("TAN term").join(shapley.loc[row].rename("Shapley value"))
comparison.round(3)

# %%
# The two disagree where attributes say the same thing. ``education-num`` is a number code of
# ``education``, and ``education`` is its parent in the tree: its table already knows the level,
# so the term of ``education-num`` is near zero and ``education`` takes the credit; the Shapley
# values share it between the two. So it goes for ``relationship`` and its children
# ``marital-status`` and ``sex`` (a husband is a married man). Over the 200 rows:
summary = (
    terms.loc[sample.index]
    .abs()
    .mean()
    .to_frame("mean |TAN term|")
    .join(shapley.abs().mean().rename("mean |Shapley value|"))
    .drop(index="<prior>")
)
summary.sort_values("mean |Shapley value|", ascending=False).round(3)

# %%
# A naive Bayes's Shapley values are its terms; the waterfall of the row's Shapley values:
nb = gm.NaiveBayes(discretizer="mdl").fit(X, y)
assert np.allclose(gm.shapley_values(nb, X.head(50)), nb.explain(X.head(50)), atol=1e-10)
ax = draw_waterfall(shapley, row, data=sample, title="Shapley values of the same row")

# %%
# Which attributes interact with the class?
# -----------------------------------------
# The interaction information of two attributes with the class, ``I(A; B; C) = I(A; B | C) -
# I(A; B)``, is positive when the pair tells more about the class than each attribute alone
# (synergy) and negative when they tell the same thing twice (redundancy). Shown as a share of
# the class entropy ``H(C)``. Each is tested: is the 3-way table reconstructed by its three
# 2-way tables? (a likelihood-ratio test against the maximum likelihood model of the parts,
# Benjamini-Hochberg over all pairs).
votes = gm.datasets.load("voting")
V, party = votes.drop(columns="class"), votes["class"]
graph = gm.interaction_graph(V, party)
print(f"H(class) = {graph.graph['class_entropy']:.3f} {graph.graph['unit']}")
graph.graph["attributes"].head(5).round(3)

# %%
# The strongest pairs: votes on related bills are redundant about the party (they tell the
# same thing); the few synergies are small.
graph.graph["pairs"][["a", "b", "interaction", "share", "adjusted_p_value"]].head(6).round(4)

# %%
# The interaction graph and the dendrogram
# ----------------------------------------
# Attributes as discs (their area: the information about the party), the strongest synergies
# solid and the strongest redundancies dashed, each labelled with its share of ``H(C)``; the
# dendrogram clusters the attributes by Jakulin's interaction distance ``1 / |I(A; B; C)|``.
fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6), width_ratios=[1.2, 1], layout="constrained")
draw_interaction_graph(graph, top=6, ax=left, title="Interactions with the party")
draw_interaction_dendrogram(graph, ax=right, title="Interaction dendrogram")

# %%
# Beside a Kikuchi-Bayes model of the same data
# ---------------------------------------------
# Kikuchi-Bayes (Jakulin & Rish) chooses the interactions a classifier needs by its posterior:
# its regions are drawn with the attributes in the same places (one circular layout passed to
# both as ``pos``). It keeps few: the vote on the physician fee freeze alone carries three
# quarters of the class entropy, and what the other votes add is mostly redundant with it (the
# dashed edges on the left), which a classifier needs only once.
kikuchi = gm.KikuchiBayes(max_region_size=3).fit(V, party)
fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6), layout="constrained")
circle = network_layout(graph, "circular")
draw_interaction_graph(graph, circle, top=6, attributes="all", ax=left, title="Interaction graph (Jakulin & Bratko)")
draw_interactions(kikuchi, circle, ax=right, title="Kikuchi-Bayes: the MAP model's interactions")

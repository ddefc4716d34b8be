"""
Latent variables in hierarchical naive Bayes
============================================

Naive Bayes assumes the attributes independent given the class. Hierarchical naive Bayes
(HNB; Langseth & Nielsen) keeps the tree shape but lets a *latent* variable stand between the
class and a group of attributes that depend on each other: the class points to the latent,
the latent to its children. The search (Langseth & Nielsen's workshop slides) repeatedly

1. ranks the pairs of variables by the significance of their dependence given the class (a
   chi-square test of ``I(X; Y | C)``),
2. tries a latent over each of the best few pairs and keeps the one that most raises the
   cross-validated accuracy, if any does,
3. gives the new latent one state per configuration of its children seen in the data, then
   collapses pairs of states while that improves a predictive MDL score (``Delta_L > 0``).

This tutorial follows that search on monk1, whose concept is ``a1 == a2 or a5 == 1``, and then
on the voting records.

References: H. Langseth and T. D. Nielsen (2006), *Classification using Hierarchical Naive
Bayes Models* (workshop slides; *Machine Learning* 63): candidate pairs by the chi-square test,
cardinality by collapsing states with predictive MDL, the wrapper search. N. L. Zhang, T. D.
Nielsen and F. V. Jensen (2004), Latent variable discovery in classification models,
*Artificial Intelligence in Medicine* 30.
"""

# %%
# Monk1: the pairs tested
# -----------------------
# The standard split has 124 training rows. Naive Bayes cannot express ``a1 == a2``; the
# search starts from its cross-validated accuracy and tests latents over the three most
# significant pairs (``significance`` is the log p-value of the test: the smaller, the
# stronger the dependence).
import pandas as pd

import graphmodels as gm
from graphmodels.data.datasets import load, train_test_rows
from graphmodels.plotting import draw_latent_tree

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", 40)
frame = load("monk1")
n_train = train_test_rows("monk1")
X, y = frame.drop(columns="class"), frame["class"]
X_train, y_train, X_test, y_test = X.iloc[:n_train], y.iloc[:n_train], X.iloc[n_train:], y.iloc[n_train:]

hnb = gm.HierarchicalNaiveBayes(random_state=0, trace=True).fit(X_train, y_train)
trace = hnb.trace_
columns = ["step", "action", "item", "score", "significance", "latent", "reason"]
trace.loc[trace["action"].isin(["start", "test", "accept", "reject"]), columns]

# %%
# The pair ``(attr1, attr2)`` is by far the most significant, and a latent over it raises the
# cross-validated accuracy from 0.69 to 1: the search accepts ``L1``. A second round tests
# ``attr5`` with ``L1`` and two other pairs; none beats an accuracy of 1, and the search ends.
#
# The latent's states: collapses
# ------------------------------
# ``L1`` starts with one state per configuration of ``(attr1, attr2)`` seen in the rows, nine.
# Then, at each step, the two states whose merger has the largest ``Delta_L`` become one,
# until no merger has a positive ``Delta_L``. The first two collapses put the three equal
# pairs ``(0, 0)``, ``(1, 1)``, ``(2, 2)`` together: exactly the concept's ``a1 == a2``.
trace.loc[trace["action"].isin(["initial", "collapse", "stop"]), ["step", "action", "item", "score", "reason"]]

# %%
# The learned states, one row per state of each latent:
hnb.latent_states_[["latent", "state", "configurations"]]

# %%
# The latent tree
# ---------------
# The class points to ``L1`` and to the other attributes; ``L1`` points to ``attr1`` and
# ``attr2``. Each state of the latent is listed with the configurations it groups.
draw_latent_tree(hnb, show_states=True, max_configurations=6, title="HNB on monk1 (124 training rows)")

# %%
# On the held-out rows, the latent turns a weak classifier into an exact one:
nb = gm.NaiveBayes().fit(X_train, y_train)
print(
    f"test accuracy on {len(X_test)} rows: HNB {hnb.score(X_test, y_test):.3f}, naive Bayes {nb.score(X_test, y_test):.3f}"
)

# %%
# Voting: several latents
# -----------------------
# On the 435 voting records (16 votes, party as the class) the search accepts seven
# latents before no candidate improves the cross-validated
# accuracy any more. The accepted steps of the trace:
X, y = gm.datasets.load("voting", return_X_y=True)
short = {name: name.split("-")[0] if name.count("-") == 0 else "-".join(name.split("-")[:2]) for name in X.columns}
X = X.rename(columns=short)
voting = gm.HierarchicalNaiveBayes(random_state=0, trace=True).fit(X, y)
accepted = voting.trace_[voting.trace_["action"].isin(["start", "accept", "reject"])]
accepted[["step", "action", "item", "score", "latent", "cardinality"]]

# %%
# How many states each latent kept, out of the configurations of its children seen:
initial = voting.trace_[voting.trace_["action"] == "initial"].groupby("latent").size()
kept = voting.trace_[voting.trace_["action"] == "accept"].set_index("latent")["cardinality"]
pd.DataFrame({"configurations seen": initial, "states kept": kept})

# %%
draw_latent_tree(voting, title="HNB on voting")

# %%
# Cross-validated, against naive Bayes
# ------------------------------------
# The votes of one party are strongly correlated given the party, which naive Bayes counts
# twice; grouping them under latents should lower the log-loss.
cv = gm.evaluation.RepeatedStratifiedKFold(n_splits=5, random_state=0)
models = {"naive Bayes": gm.NaiveBayes(), "HNB": gm.HierarchicalNaiveBayes(random_state=0)}
gm.evaluation.compare(models, {"voting": (X, y)}, cv=cv).summary[["model", "log_loss", "error"]]

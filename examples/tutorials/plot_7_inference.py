"""
Asking a network questions: posteriors, d-separation and message passing
========================================================================

A learned (or given) graphical model is a compact joint distribution, and inference is how it
answers questions: the probability of one variable given what was observed (a posterior
marginal), the most probable explanation of the evidence, and which variables the structure
alone makes independent. Every model of graphmodels with a distribution answers them with
``query``, ``map_query`` and ``d_separated``; ``graphmodels.plotting`` draws the answers.

This tutorial asks ALARM (Beinlich et al., 1989), the 37-variable network of a patient
monitoring system, about a patient with a low blood pressure, draws every posterior on the
network, shows why two causes become dependent once a common effect is seen (d-separation
and "explaining away"), and plays the messages of the junction tree that computes a
posterior. It then asks the same of a tree-augmented naive Bayes classifier learned from car.

References: J. Pearl (1988), *Probabilistic Reasoning in Intelligent Systems*, Morgan Kaufmann.
S. L. Lauritzen and D. J. Spiegelhalter (1988), Local computations with probabilities on
graphical structures and their application to expert systems, *JRSS B* 50. G. Shafer and P. P.
Shenoy (1990), Probability propagation, *Annals of Mathematics and AI* 2. I. A. Beinlich, H. J.
Suermondt, R. M. Chavez and G. F. Cooper (1989), The ALARM monitoring system, *AIME 89*.
D. Koller and N. Friedman (2009), *Probabilistic Graphical Models*, MIT Press (chapters 3, 9-11).
"""

# %%
# A patient with low blood pressure
# ---------------------------------
# ``query`` answers with the posterior marginal of each variable asked, a pandas Series indexed
# by its states (in a notebook it shows as a table with bars). The answer is exact: a junction
# tree compiled once, its messages kept for the next question.
import matplotlib.pyplot as plt
import numpy as np

import graphmodels as gm
from graphmodels.io import load_network
from graphmodels.plotting import animate, draw_d_separation, draw_inference, draw_posterior

alarm = load_network("alarm")
evidence = {"HRBP": "HIGH", "CO": "LOW", "BP": "LOW"}
causes = ["HYPOVOLEMIA", "LVFAILURE", "ANAPHYLAXIS", "INSUFFANESTH"]
posterior = alarm.query(causes, evidence)
prior = alarm.query(causes)
for name in causes:
    print(f"{name:13s} P(TRUE) {prior[name]['TRUE']:.3f} -> {posterior[name]['TRUE']:.3f} given the evidence")

# %%
# :func:`~graphmodels.plotting.draw_posterior` draws such an answer, the prior ticked on each bar.
ax = draw_posterior(posterior, prior=prior)

# %%
# Every posterior on the network
# ------------------------------
# :func:`~graphmodels.plotting.draw_inference` draws the network with each node's posterior as
# bars (pyAgrum's ``showInference``, without Graphviz): the evidence in red cards, each bar's
# prior as a black tick, and the other cards coloured by how far their posterior moved from the
# prior (the largest change ``max |posterior - prior|`` darkest).
ax = draw_inference(alarm, evidence, compare_to_prior=True)

# %%
# The most probable explanation of the evidence is one joint state of all the other
# variables, found by max-product on the same junction tree; hypovolemia (a low blood volume)
# is in it.
best = alarm.map_query(evidence=evidence)
print({v: best.states[v] for v in causes}, f"P = {best.probability:.4f}")
assert best.states["HYPOVOLEMIA"] == "TRUE"

# %%
# Explaining away, seen on the graph
# ----------------------------------
# Hypovolemia and left-ventricular failure are two root causes, independent a priori: no trail
# between them is active. Both are parents of ``LVEDVOLUME``, whose child ``CVP`` (the central
# venous pressure) is measured; observing it opens the collider ``HYPOVOLEMIA -> LVEDVOLUME <-
# LVFAILURE`` and the two causes become dependent. :func:`~graphmodels.plotting.draw_d_separation`
# draws the active trails in red and the observed nodes grey.
fig, axes = plt.subplots(1, 2, figsize=(16, 6), layout="constrained")
draw_d_separation(alarm, "HYPOVOLEMIA", "LVFAILURE", ax=axes[0], legend=False)
draw_d_separation(alarm, "HYPOVOLEMIA", "LVFAILURE", given="CVP", ax=axes[1])
assert alarm.d_separated("HYPOVOLEMIA", "LVFAILURE") and not alarm.d_separated("HYPOVOLEMIA", "LVFAILURE", "CVP")

# %%
# The numbers tell the same story: a high central venous pressure makes hypovolemia likely, and
# learning that the left ventricle failed -- the other explanation -- brings it back to its
# prior.
for given in ({"CVP": "HIGH"}, {"CVP": "HIGH", "LVFAILURE": "TRUE"}):
    print(given, f"P(HYPOVOLEMIA = TRUE) = {alarm.query('HYPOVOLEMIA', given)['TRUE']:.3f}")

# %%
# Watching the messages
# ---------------------
# Asked with ``trace=True``, a query returns its answer with every message passed to reach it:
# one row per message of the junction tree, from clique to clique, over their separator, with
# its table. Only the messages flowing towards the clique that holds the variable asked are
# needed.
trace = alarm.query("HYPOVOLEMIA", evidence, trace=True)
answer, messages = trace
print(trace)
messages[["step", "source", "target", "separator"]].head(8)

# %%
# :func:`~graphmodels.plotting.animate` plays them on the drawing of the junction tree, one
# frame per message (its edge highlighted, its table beside the drawing), then the answer
# where it is read. In a notebook the animation shows itself; ``anim.save("messages.gif")``
# writes a file.
anim = animate(trace, figsize=(12, 7), interval=700)

# %%
# Loopy belief propagation passes messages on the factor graph instead, until they stop
# changing; on ALARM it comes close to the exact answer (``method="loopy"``, and ``"gbp"`` for
# generalized belief propagation).
approximate = alarm.query("HYPOVOLEMIA", evidence, method="loopy")
print(f"loopy BP {approximate['TRUE']:.6f}, exact {answer['TRUE']:.6f}")
assert abs(approximate["TRUE"] - answer["TRUE"]) < 1e-3

# %%
# A learned classifier answers too
# --------------------------------
# A tree-augmented naive Bayes model (TAN) learned from car is a Bayesian network whose class
# is one variable among the others: any of them can be asked about, given any others.
X, y = gm.datasets.load("car", return_X_y=True)
tan = gm.TAN().fit(X, y)
car_evidence = {"safety": "high", "persons": "4", "buying": "low"}
tan.query("class", car_evidence)

# %%
# The class posterior given some attributes is what ``predict_proba`` says of a row whose
# other attributes are missing.
row = X.iloc[:1].copy()
row.loc[:, :] = np.nan
for column, value in car_evidence.items():
    row[column] = value
assert np.allclose(tan.query("class", car_evidence).to_numpy(), tan.predict_proba(row)[0])

# %%
# Its drawing puts the class on top, as :func:`~graphmodels.plotting.draw_network` does;
# the question can go the other way, from the class to an attribute.
ax = draw_inference(tan, {"class": "vgood"}, compare_to_prior=True)

# %%
# Given the class, two attributes are independent unless an augmenting arc joins them through
# a trail of unobserved attributes: ``buying`` and ``doors`` still share the trail through
# ``safety`` and ``lug_boot``.
ax = draw_d_separation(tan, "buying", "doors", given="class")

# %%
# And its messages: TAN's junction tree has one clique per augmenting arc (with the class).
tan_trace = tan.query("class", car_evidence, trace=True)
tan_trace.messages[["step", "source", "target", "separator", "table"]]

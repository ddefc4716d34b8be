"""Drawings of explanations and of interactions (issue 30): what each draws, and one Axes returned.

Checked on the artists (gids, colours, sizes, labels), not on pixels: the waterfall's bars end
at the model's score, the nodes of the structure are coloured by the sign of their contribution
and sized by its magnitude, the interaction graph draws the chosen synergies and redundancies
with their percentages, the dendrogram one merge per join, the information graph every arc.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import graphmodels as gm
from graphmodels.plotting import (
    draw_contribution_summary,
    draw_contributions,
    draw_information,
    draw_interaction_dendrogram,
    draw_interaction_graph,
    draw_waterfall,
)
from graphmodels.plotting.explanations import NEGATIVE, POSITIVE


@pytest.fixture(scope="module")
def voting():
    X, y = gm.datasets.load("voting", return_X_y=True)
    return X, y, gm.TAN().fit(X, y)


@pytest.fixture(scope="module")
def voting_graph(voting):
    X, y, _ = voting
    return gm.interaction_graph(X, y)


def test_waterfall_bars_run_from_the_prior_to_the_score(voting):
    X, _, tan = voting
    frame = tan.explain(X.head(3))
    ax = draw_waterfall(frame, 2, data=X.head(3), max_terms=4, ax=Figure().subplots())
    bars = ax.patches
    assert [b.get_gid() for b in bars][0] == "term:<prior>" and len(bars) == 6  # prior, 4 terms, the rest
    end = bars[-1].get_x() + bars[-1].get_width()
    assert end == pytest.approx(frame.iloc[2].sum())
    for bar in bars[1:]:
        colour = POSITIVE if bar.get_width() >= 0 else NEGATIVE
        assert mpl.colors.to_hex(bar.get_facecolor()) == colour.lower()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "prior" and labels[-1] == "12 other terms" and " = " in labels[1]
    with pytest.raises(ValueError, match="row"):
        draw_waterfall(frame, 7)
    with pytest.raises(ValueError, match="<prior>"):
        draw_waterfall(X)
    with pytest.raises(TypeError, match="contributions"):
        draw_waterfall([1.0, 2.0])


def test_waterfall_of_a_class_block(random_table):
    X, y = random_table(np.random.default_rng(0), n_rows=120, cards=(2, 3))
    model = gm.NaiveBayes().fit(X, y)
    frame = model.explain(X.head(2))
    ax = draw_waterfall(frame, 0, class_="c1", ax=Figure().subplots())
    assert "'c1'" in ax.get_xlabel()
    predicted = model.predict(X.head(1))[0]
    assert repr(predicted) in draw_waterfall(frame, 0, ax=Figure().subplots()).get_xlabel()
    with pytest.raises(ValueError, match="class_"):
        draw_waterfall(frame, 0, class_="nope")


def test_contributions_colour_and_size_the_nodes(voting):
    X, _, tan = voting
    values = gm.shapley_values(tan, X.head(1))
    ax = draw_contributions(tan, values, ax=Figure().subplots())
    nodes = next(c for c in ax.collections if c.get_gid() == "nodes")
    order = list(tan.structure_.nodes)
    sizes = dict(zip(order, nodes.get_sizes()))
    faces = dict(zip(order, nodes.get_facecolors()))
    row = values.iloc[0].drop("<prior>")
    strongest, weakest = row.abs().idxmax(), row.abs().idxmin()
    assert sizes[strongest] > sizes[weakest]
    red, _, blue, _ = faces[strongest]
    assert (red > blue) == (row[strongest] > 0)
    assert "prior" in ax.get_title()


def test_contributions_of_region_terms_are_shared_by_their_attributes():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.KikuchiBayes().fit(X, y)
    ax = draw_contributions(model, model.explain(X.head(1)), ax=Figure().subplots())
    assert isinstance(ax, Axes)
    with pytest.raises(ValueError, match="names a node"):
        renamed = model.explain(X.head(1)).rename(columns=lambda c: c if c.startswith("<") else c.upper(), level="term")
        draw_contributions(gm.TAN().fit(X, y), renamed)


def test_summary_beside_the_structure(voting):
    X, _, tan = voting
    frame = tan.explain(X)
    ax = draw_contribution_summary(tan, frame, max_terms=5)
    assert len(ax.patches) == 5 and len(ax.figure.axes) >= 2
    heights = [p.get_width() for p in ax.patches]
    assert heights == sorted(heights, reverse=True)
    assert heights[0] == pytest.approx(frame.drop(columns="<prior>").abs().mean().max())
    only_bars = draw_contribution_summary(tan, frame, ax=Figure().subplots())
    assert len(only_bars.figure.axes) == 1


def test_interaction_graph_draws_the_strongest_of_each_kind(voting_graph):
    ax = draw_interaction_graph(voting_graph, top=3, ax=Figure().subplots())
    kinds = [p.get_gid() for p in ax.patches]
    assert kinds.count("synergy") == 3 and kinds.count("redundancy") == 3
    pairs = voting_graph.graph["pairs"]
    strongest = pairs.sort_values("interaction").iloc[0]
    label = f"{100 * strongest['share']:+.1f}%"
    assert any(t.get_text().startswith(label) for t in ax.texts)
    solid = next(p for p in ax.patches if p.get_gid() == "synergy")
    dashed = next(p for p in ax.patches if p.get_gid() == "redundancy")
    assert solid.get_linestyle() == "-" and dashed.get_linestyle() != "-"
    # Positions can be shared with the Kikuchi-Bayes diagram of the same attributes.
    pos = {n: (i, i % 3) for i, n in enumerate(voting_graph.nodes)}
    ax = draw_interaction_graph(voting_graph, pos, attributes="all", ax=Figure().subplots())
    nodes = next(c for c in ax.collections if c.get_gid() == "nodes")
    assert np.allclose(nodes.get_offsets()[0], pos[next(iter(voting_graph.nodes))])
    with pytest.raises(TypeError, match="interaction_graph"):
        draw_interaction_graph(gm.TAN())


def test_dendrogram_has_one_merge_per_join(voting_graph):
    ax = draw_interaction_dendrogram(voting_graph, ax=Figure().subplots())
    merges = [line for line in ax.lines if line.get_gid().startswith("merge")]
    assert len(merges) == voting_graph.number_of_nodes() - 1
    leaves = [t.get_text() for t in ax.get_yticklabels()]
    assert len(leaves) == 16 and all(label.endswith("%)") for label in leaves)
    with pytest.raises(ValueError, match="method"):
        draw_interaction_dendrogram(voting_graph, method="ward-ish")


def test_information_graph_from_data_and_from_the_model(voting):
    X, y, tan = voting
    from_model = draw_information(tan, ax=Figure().subplots())
    from_data = draw_information(tan, X.assign(**{"class": y}), ax=Figure().subplots())
    arcs = tan.structure_.number_of_edges()
    for ax in (from_model, from_data):
        assert len([p for p in ax.patches if p.get_gid() == "information"]) == arcs
        assert any(t.get_text().startswith("H=") or "\nH=" in t.get_text() for t in ax.texts)
    with pytest.raises(TypeError, match="data"):
        draw_information(tan.structure_)

"""Every drawing returns one matplotlib Axes, for every registered model on every data set (issue 26).

``draw_network`` returned an Axes for one model and a numpy array of Axes for another, and
for the same model on different data (the hyperforest classifier keeps one shared structure
on car, one per class on tic-tac-toe), so the README's ``ax = draw_network(model);
ax.figure.savefig(...)`` failed. Each model is fitted once per data set (a session fixture).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from registry_models import quick_model

import graphmodels as gm
from graphmodels.plotting import draw_network

DATASETS = ("car", "tic-tac-toe")
MODELS = sorted(gm.models.registered_models())
#: Models that draw one panel per label and refuse a single `ax`.
PER_LABEL = {"binary-relevance", "classifier-chain"}


@pytest.fixture(scope="session")
def fitted():
    """``fitted(name, data)``: the registered model `name` (tests/registry_models.py), fitted once on `data`.

    Classifiers on the data's class, densities on its attributes, multi-label models on the
    class and the first attribute as two labels (the other attributes as features).
    """
    cache: dict[tuple[str, str], object] = {}

    def fit(name: str, data: str):
        if (name, data) not in cache:
            X, y = gm.datasets.load(data, return_X_y=True)
            # The hyperforest's default search keeps one hyperforest per class on tic-tac-toe
            # (a grid of panels) and one shared on car: both drawings are what is tested.
            model = quick_model(name) if name != "hyperforest" else gm.HyperforestClassifier()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. a KDB with fewer attributes than k: not what is tested
                if name in gm.models.registered_models("classifier"):
                    model.fit(X, y)
                elif name in gm.models.registered_models("density"):
                    model.fit(X)
                else:
                    model.fit(X.iloc[:, 1:], pd.concat([y, X.iloc[:, 0]], axis=1))
            cache[name, data] = model
        return cache[name, data]

    return fit


@pytest.mark.parametrize("data", DATASETS)
@pytest.mark.parametrize("name", MODELS)
def test_draw_network_returns_one_axes_whose_figure_holds_every_panel(fitted, name, data):
    model = fitted(name, data)
    ax = draw_network(model)
    assert isinstance(ax, Axes), type(ax)
    assert ax.figure.axes[0] is ax  # the first (main) panel; the others follow it in the figure
    if name in PER_LABEL:
        labels = model.order_ if name == "classifier-chain" else model.label_names_
        assert [panel.get_title() for panel in ax.figure.axes] == [str(label) for label in labels]
        with pytest.raises(ValueError, match="one structure per label"):
            draw_network(model, Figure().subplots())
    else:
        given = Figure().subplots()
        assert draw_network(model, given) is given and given.figure.axes == [given]


def test_the_same_model_returns_an_axes_for_one_panel_and_for_several(fitted):
    # The newcomer's case: the default hyperforest classifier keeps one shared hyperforest on car
    # and one per class on tic-tac-toe, a grid of panels; both drawings are an Axes.
    one, several = fitted("hyperforest", "car"), fitted("hyperforest", "tic-tac-toe")
    assert (one.representation_, several.representation_) == ("shared", "free")
    assert len(draw_network(one).figure.axes) == 1
    ax = draw_network(several)
    assert isinstance(ax, Axes) and ax.get_title() == "class positive"  # the most probable class first
    assert [panel.get_title() for panel in ax.figure.axes] == ["class positive", "class negative"]

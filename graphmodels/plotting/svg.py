"""Drawings as inline SVG text, for notebooks and HTML pages.

Everything here renders through matplotlib's SVG backend into a string: no
Graphviz, no JavaScript, nothing fetched. The figure is closed after it is
written, so rendering in a loop (a notebook, a report) does not accumulate
open figures.
"""

from __future__ import annotations

import io
import re
from typing import Any

__all__ = ["figure_svg", "draw_svg"]

# The XML prolog and DOCTYPE matplotlib writes before <svg>: not allowed inside an HTML page.
_PROLOG = re.compile(r"^.*?(?=<svg)", re.DOTALL)

# No <metadata> block: its date would make every drawing differ from the last, and its RDF
# links (purl.org, creativecommons.org, matplotlib.org) have no place in an offline page.
_NO_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}


def figure_svg(figure: Any, *, close: bool = True) -> str:
    """A matplotlib figure as an ``<svg>`` element that can be pasted into HTML.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
    close : bool, default=True
        Close the figure afterwards (``pyplot`` keeps no reference to it).

    Returns
    -------
    str
        The ``<svg ...>...</svg>`` text, without the XML prolog and without
        a ``<metadata>`` block (no date: the same figure gives the same
        text; no link but the SVG namespaces); text is kept as ``<text>``
        (searchable, selectable), not paths. A figure with constrained
        layout (as the drawings of :mod:`graphmodels.plotting` make) is
        laid out and written at its own size in one drawing; any other is
        cropped to its tight bounding box (drawn twice, as matplotlib does).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(1, 1))
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> figure_svg(fig).startswith("<svg")
    True
    """
    import matplotlib as mpl
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    buffer = io.StringIO()
    # matplotlib draws a figure twice to save it when it has a layout engine or a tight bounding box
    # is asked for: once to measure, once to write. A figure laid out by constrained layout (every
    # drawing of graphmodels.plotting) holds its artists within its edges already: it is laid out
    # here (which measures the title, labels and legend only), then written in one drawing, without
    # its engine, which is given back afterwards.
    engine = figure.get_layout_engine()
    fitted = isinstance(engine, ConstrainedLayoutEngine)
    # No layout engine comes back from rcParams when the figure's is set aside.
    settings: dict[Any, Any] = {
        "svg.fonttype": "none",
        "svg.hashsalt": "graphmodels",
        "figure.autolayout": False,
        "figure.constrained_layout.use": False,
    }
    try:
        with mpl.rc_context(settings):
            if fitted:
                engine.execute(figure)
                figure.set_layout_engine(None)
            try:
                figure.savefig(buffer, format="svg", bbox_inches=None if fitted else "tight", metadata=_NO_METADATA)
            finally:
                if fitted:
                    figure.set_layout_engine(engine)
    finally:
        if close:
            import matplotlib.pyplot as plt

            plt.close(figure)
    return _PROLOG.sub("", buffer.getvalue(), count=1)


def draw_svg(graph_or_model: Any, **options: Any) -> str:
    """:func:`~graphmodels.plotting.draw_network` of a structure or fitted model, as inline SVG.

    Parameters
    ----------
    graph_or_model : nx.Graph, Hyperforest or fitted model
    **options
        Passed to :func:`~graphmodels.plotting.draw_network`.

    Returns
    -------
    str
        See :func:`figure_svg`.

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> svg = draw_svg(gm.TAN().fit(X, y))
    >>> svg.startswith("<svg") and "safety" in svg
    True
    """
    from .dispatch import draw_network

    return figure_svg(draw_network(graph_or_model, **options).figure)

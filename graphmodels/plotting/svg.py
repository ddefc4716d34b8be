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
        (searchable, selectable), not paths.

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

    buffer = io.StringIO()
    try:
        with mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": "graphmodels"}):
            figure.savefig(buffer, format="svg", bbox_inches="tight", metadata=_NO_METADATA)
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

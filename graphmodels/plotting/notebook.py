"""Display of any structure or model in a notebook: :func:`show`.

Fitted models and :class:`~graphmodels.structures.Hyperforest` display
themselves (``_repr_html_``). networkx graphs cannot be given methods, so a
model's ``structure_``, a junction tree, a region graph, a latent tree or an
MDBNC graph displays through ``show(graph)``, which returns a
:class:`NotebookDisplay`: the same summary and drawing as a model's
display, with the options of :func:`~graphmodels.plotting.draw_network`,
offered as HTML and as SVG (for front-ends that prefer it, such as
``nbconvert --to pdf``) from a single drawing, and savable as a file.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from .._display import MAX_DRAWN_NODES, structure_html
from .._files import write_text
from ..models.base import BaseModel
from ..models.display import model_html
from ..networks import DiscreteBayesianNetwork
from .svg import draw_svg

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["show", "NotebookDisplay"]


class NotebookDisplay:
    """A structure or model ready for a notebook: HTML and SVG from one drawing, drawn on first use.

    Made by :func:`show`; see there. IPython calls
    :meth:`_repr_mimebundle_`, which gives ``text/html`` (summary and
    drawing) and, when the structure was drawn, ``image/svg+xml`` (the same
    drawing): the front-end shows one of them.

    Attributes
    ----------
    obj : nx.Graph, Hyperforest or model
        What is shown.
    max_nodes : int
    options : dict
        Drawing options, passed to :func:`~graphmodels.plotting.draw_network`.
    """

    def __init__(self, obj: Any, max_nodes: int, options: dict[str, Any]) -> None:
        self.obj = obj
        self.max_nodes = max_nodes
        self.options = options
        self._html: str | None = None
        self._svg: str | None = None

    def _drawer(self) -> Callable[..., str]:
        def draw(obj: Any, **options: Any) -> str:
            self._svg = draw_svg(obj, **options)
            return self._svg

        return draw

    def _render(self) -> None:
        if self._html is not None:
            return
        if isinstance(self.obj, BaseModel):
            self._html = model_html(self.obj, max_nodes=self.max_nodes, draw=self._drawer(), **self.options)
        else:
            self._html = structure_html(self.obj, max_nodes=self.max_nodes, draw=self._drawer(), options=self.options)

    @property
    def html(self) -> str:
        """The HTML block (summary and drawing), as ``_repr_html_`` gives it."""
        self._render()
        assert self._html is not None
        return self._html

    @property
    def svg(self) -> str:
        """The drawing alone as ``<svg>`` text; drawn here, whatever its size, if the display did not draw it.

        Raises
        ------
        Exception
            What :func:`~graphmodels.plotting.draw_network` raises (an
            unfitted model, an unknown option), unlike the HTML display.
        """
        self._render()
        if self._svg is None:
            self._svg = draw_svg(self.obj, **self.options)
        return self._svg

    def _repr_html_(self) -> str:
        return self.html

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        self._render()
        assert self._html is not None
        bundle = {"text/html": self._html, "text/plain": repr(self)}
        if self._svg is not None:
            bundle["image/svg+xml"] = self._svg
        return bundle

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the display to a file: ``.html`` (a page holding the block) or ``.svg`` (the drawing).

        Parameters
        ----------
        path : str or path-like
            Ends in ``.html``, ``.htm`` or ``.svg``.

        Returns
        -------
        Path
            The file written.

        Raises
        ------
        ValueError
            For another extension.
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in (".html", ".htm"):
            title = html.escape(_short_repr(self.obj))
            page = (
                '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                f"<title>{title}</title>\n</head>\n<body>\n{self.html}\n</body>\n</html>\n"
            )
            write_text(path, page, compress=False)
        elif suffix == ".svg":
            write_text(path, self.svg, compress=False)
        else:
            raise ValueError(f"`path` must end in .html, .htm or .svg, got {path.name!r}.")
        return path

    def __repr__(self) -> str:
        return f"show({_short_repr(self.obj)})"


def _short_repr(obj: Any) -> str:
    if isinstance(obj, nx.Graph):
        return f"<{type(obj).__name__} with {obj.number_of_nodes()} nodes and {obj.number_of_edges()} edges>"
    text = repr(obj)
    return text if len(text) <= 200 else text[:199] + "…"


def show(graph_or_model: Any, *, max_nodes: int = MAX_DRAWN_NODES, **options: Any) -> NotebookDisplay:
    """Display a structure or a model in a notebook: a summary and its drawing as inline SVG.

    ``model.structure_`` is a networkx graph, which has no display of its
    own: ``show(model.structure_)`` gives it one, as do junction trees
    (``Hyperforest.junction_tree()``), region graphs, latent trees and
    MDBNC graphs (each drawn by :func:`~graphmodels.plotting.draw_network`'s
    drawing for its type). A fitted model or a hyperforest displays itself;
    ``show`` adds the drawing options, a size bound of your choice, SVG for
    front-ends that prefer it, and :meth:`NotebookDisplay.save`.

    Nothing is drawn until the display is asked for, and the display never
    raises: an error is shown as a message in the block.

    Parameters
    ----------
    graph_or_model : nx.Graph, Hyperforest, model or DiscreteBayesianNetwork
        A network is shown as its graph (``bn.graph``).
    max_nodes : int, default=300
        A structure with more nodes is summarized, not drawn (all members'
        nodes together for a grid of members); :attr:`NotebookDisplay.svg`
        draws it anyway.
    **options
        Drawing options of :func:`~graphmodels.plotting.draw_network`
        (``show_weights=True``, ``layout="spring"``, ...).

    Returns
    -------
    NotebookDisplay
        With ``_repr_html_``, ``_repr_mimebundle_`` (HTML and SVG from one
        drawing), :attr:`~NotebookDisplay.html`, :attr:`~NotebookDisplay.svg`
        and :meth:`~NotebookDisplay.save`.

    See Also
    --------
    draw_svg : the drawing alone.
    graphmodels.models.display.model_html : what a model's display holds.

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> model = gm.TAN().fit(X, y)
    >>> shown = show(model.structure_, show_weights=True)
    >>> "<svg" in shown._repr_html_() and "directed graph: 7 nodes" in shown.html
    True
    >>> sorted(shown._repr_mimebundle_())
    ['image/svg+xml', 'text/html', 'text/plain']
    """
    if isinstance(graph_or_model, DiscreteBayesianNetwork):
        graph_or_model = graph_or_model.graph
    return NotebookDisplay(graph_or_model, int(max_nodes), dict(options))

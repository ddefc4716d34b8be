"""The search path of Kikuchi-Bayes: log prior, likelihood and posterior of every stage, the MAP marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from ._common import (
    _check_bool,
    _fitted_kikuchi,
    region_style,
)

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes

    from ..models.kikuchi import KikuchiBayes

__all__ = ["draw_kikuchi_path", "PHASE_COLORS"]


#: Shading of the phases of the search path (``path_["phase"]``).
PHASE_COLORS = {"ascent": "#e3f1e0", "beyond MAP": "#ececec"}


_OTHER_PHASE_COLORS = ("#fdf0d5", "#e5e1f2", "#dbeef4")


_PATH_COLUMNS = ("log_prior", "log_likelihood", "log_posterior")


def _as_path(model_or_path):
    model = _fitted_kikuchi(model_or_path, "path")
    if model is not None:
        return model.path_, int(model.map_step_)
    if not isinstance(model_or_path, pd.DataFrame):
        raise TypeError(
            f"Expected a fitted KikuchiBayes model or its `path_` DataFrame, got {type(model_or_path).__name__}."
        )
    path = model_or_path
    missing = [c for c in _PATH_COLUMNS if c not in path.columns]
    if missing:
        raise ValueError(f"The path DataFrame lacks column(s) {missing}; it needs {list(_PATH_COLUMNS)}.")
    if len(path) == 0:
        raise ValueError("The path DataFrame has no rows.")
    posterior = path["log_posterior"].to_numpy(dtype=float)
    if not np.isfinite(posterior).any():
        raise ValueError("The path's `log_posterior` has no finite value.")
    return path, int(np.nanargmax(np.where(np.isfinite(posterior), posterior, np.nan)))


def _runs(values):
    """``(value, first, last)`` of each run of equal consecutive values."""
    runs, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            runs.append((values[start], start, i - 1))
            start = i
    return runs


def draw_kikuchi_path(
    model_or_path: KikuchiBayes | pd.DataFrame,
    *,
    ax: Axes | None = None,
    weights: bool = False,
    phases: bool = True,
    sizes: bool = True,
    legend: bool = True,
    title: str | None = None,
) -> Axes:
    """Draw the greedy structure search of Kikuchi-Bayes: log prior, likelihood, posterior per step.

    The search of [1]_ (section 7) adds one region per step, climbs to the
    maximum a posteriori (MAP) structure and then goes on while the
    likelihood rises; kBMA averages the stages weighted by their posterior.
    x is the step (row of ``path_``; step 0 is the class alone). The MAP
    step is marked by a vertical line and a star on the log posterior; the
    phases (``"ascent"``, ``"beyond MAP"``) are shaded.

    Parameters
    ----------
    model_or_path : KikuchiBayes or pandas.DataFrame
        A fitted :class:`~graphmodels.KikuchiBayes` or its ``path_``: one
        row per step with columns ``log_prior``, ``log_likelihood`` and
        ``log_posterior`` (nats), optionally ``phase``, ``size`` and
        ``weight``. Row order is step order.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    weights : bool, default=False
        Also draw the model-averaging weight of each step as bars on a twin
        y axis (right); from the ``weight`` column, or ``softmax(log_posterior)``
        without one.
    phases : bool, default=True
        Shade each run of steps of the same ``phase`` (if the column exists).
    sizes : bool, default=True
        Colour the posterior's markers by the size of the region added at
        that step (class included), in the colours of
        :func:`draw_interactions` (if a ``size`` column exists).
    legend : bool, default=True
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        The main axes: lines with gids ``"log_prior"``, ``"log_likelihood"``
        and ``"log_posterior"``, the MAP line (gid ``"map"``) and star (gid
        ``"map_marker"``), phase spans with gids ``"phase:<phase>"`` and
        markers with gid ``"added"``. With `weights`, the bars (gid
        ``"weights"``) are on a twin axes of the same figure.

    Raises
    ------
    TypeError
        If `model_or_path` is neither a fitted KikuchiBayes nor a DataFrame
        (an unfitted KikuchiBayes raises NotFittedError).
    ValueError
        If the DataFrame is empty or lacks a needed column (the message
        lists them).

    See Also
    --------
    draw_interactions : the regions added up to the MAP step.
    graphmodels.learners.kikuchi_bayes_path

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report, section 7.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> path = pd.DataFrame({"log_prior": [0.0, -1.0, -3.0], "log_likelihood": [-10.0, -6.0, -5.5],
    ...                      "log_posterior": [-10.0, -7.0, -8.5]})
    >>> ax = draw_kikuchi_path(path, ax=Figure().subplots())
    >>> [line.get_xdata()[0] for line in ax.lines if line.get_gid() == "map"]
    [1]
    """
    path, map_step = _as_path(model_or_path)
    for value, name in ((weights, "weights"), (phases, "phases"), (sizes, "sizes"), (legend, "legend")):
        _check_bool(value, name)
    steps = np.arange(len(path))
    if ax is None:
        import matplotlib.pyplot as plt

        width = float(np.clip(5.0 + 0.2 * len(path), 6.5, 16.0))
        _, ax = plt.subplots(figsize=(width, 4.5), layout="constrained")
    if title is not None:
        ax.set_title(title)

    handles: list[Artist] = []
    if phases and "phase" in path.columns:
        others = iter(_OTHER_PHASE_COLORS * (1 + len(path) // len(_OTHER_PHASE_COLORS)))
        colors = dict(PHASE_COLORS)
        shown = set()
        for phase, first, last in _runs(list(path["phase"])):
            if phase == "start":
                continue
            if phase not in colors:
                colors[phase] = next(others)
            # Translucent, so that the weight bars of a twin axes behind show through.
            ax.axvspan(
                first - 0.5,
                last + 0.5,
                facecolor=to_rgba(colors[phase], 0.6),
                edgecolor="none",
                zorder=0,
                gid=f"phase:{phase}",
            )
            if phase not in shown:
                shown.add(phase)
                handles.append(Patch(facecolor=colors[phase], edgecolor="#bbbbbb", label=f"phase: {phase}"))

    styles = {
        "log_prior": ("log prior", "#8d8d8d", "--"),
        "log_likelihood": ("log likelihood", "#2a6f97", "-"),
        "log_posterior": ("log posterior", "#1d1d1d", "-"),
    }
    for column, (label, color, style) in styles.items():
        (line,) = ax.plot(
            steps,
            path[column].to_numpy(dtype=float),
            color=color,
            linestyle=style,
            linewidth=2.0 if column == "log_posterior" else 1.5,
            label=label,
            gid=column,
            zorder=2,
        )
        handles.append(line)
    posterior = path["log_posterior"].to_numpy(dtype=float)

    if sizes and "size" in path.columns:
        size = path["size"].to_numpy()
        marker_colors = [region_style(int(s))[0] if int(s) >= 2 else "#ffffff" for s in size]
        ax.scatter(steps, posterior, s=30, c=marker_colors, edgecolors="#1d1d1d", linewidths=0.6, zorder=3, gid="added")
        for s in sorted({int(s) for s in size if int(s) >= 2}):
            handles.append(
                Line2D(
                    [],
                    [],
                    linestyle="",
                    marker="o",
                    markersize=6,
                    markerfacecolor=region_style(s)[0],
                    markeredgecolor="#1d1d1d",
                    markeredgewidth=0.6,
                    label=f"{s}-way region added",
                )
            )

    ax.axvline(map_step, color="#d62828", linestyle=":", linewidth=1.3, zorder=1, gid="map")
    (star,) = ax.plot(
        [map_step],
        [posterior[map_step]],
        linestyle="",
        marker="*",
        markersize=15,
        markerfacecolor="#ffd23f",
        markeredgecolor="#1d1d1d",
        zorder=4,
        gid="map_marker",
        label=f"MAP (step {map_step})",
    )
    handles.append(star)
    ax.annotate(
        f"MAP, step {map_step}",
        (map_step, posterior[map_step]),
        xytext=(6, 8),
        textcoords="offset points",
        fontsize=9,
        color="#1d1d1d",
        zorder=5,
    )

    ax.set_xlim(-0.5, len(path) - 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step (one region added per step)")
    ax.set_ylabel("nats")
    ax.grid(axis="y", color="#e0e0e0", linewidth=0.6, zorder=0)
    ax.set_axisbelow(True)

    if weights:
        w = path["weight"].to_numpy(dtype=float) if "weight" in path.columns else _softmax(posterior)
        twin = ax.twinx()
        bars = twin.bar(
            steps,
            w,
            width=0.6,
            color=to_rgba("#f4a261", 0.55),
            edgecolor="#c77d3a",
            linewidth=0.6,
            zorder=1,
            gid="weights",
            label="model-averaging weight (right)",
        )
        twin.set_ylim(0, max(float(np.nanmax(w)) * 1.15, 1e-12))
        twin.set_ylabel("model-averaging weight")
        # Lines above the bars: the main axes in front, its background hidden.
        ax.set_zorder(twin.get_zorder() + 1)
        ax.patch.set_visible(False)
        handles.append(Patch(facecolor=to_rgba("#f4a261", 0.55), edgecolor="#c77d3a", label=bars.get_label()))
    if legend:
        ax.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(1.1 if weights else 1.01, 1.0),
            frameon=False,
            fontsize=8.5,
        )
    return ax


def _softmax(values):
    finite = np.where(np.isfinite(values), values, -np.inf)
    shifted = np.exp(finite - np.max(finite))
    return shifted / shifted.sum()

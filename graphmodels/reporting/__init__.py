"""A report a person can read: one self-contained HTML page about a data set and its models.

:func:`report` summarizes a classification table (its columns, states, missing cells and
discretization), draws the pairwise and class-conditional mutual information as heatmaps,
cross-validates a set of classifiers on the same folds, draws the structure each learns from
all rows, and lists the strongest interactions that TAN, the maximum hyperforest and
Kikuchi-Bayes find, side by side. ``graphmodels report DATA --out report.html`` does the same
from the command line.

The page is one HTML document with every figure as inline SVG and every style in one
``<style>`` element: no script, nothing fetched, so it opens offline, can be mailed, and shows
in a notebook (:meth:`Report._repr_html_`, where its styles apply to the report alone).

This package sits above evaluation and plotting and below the command line; matplotlib is
imported only when a report is built. Its name is not ``report`` so that ``gm.report``, the
function, is never shadowed by the module of the same name.
"""

from ._report import DEFAULT_MODELS, KIKUCHI_MAX_ATTRIBUTES, Report, report

__all__ = ["report", "Report", "DEFAULT_MODELS", "KIKUCHI_MAX_ATTRIBUTES"]

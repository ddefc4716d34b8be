"""Sphinx configuration: the API reference of graphmodels, built from its numpydoc docstrings.

Build with warnings as errors (what ``.ci/run`` does)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

No network is used: no intersphinx, and the bundled alabaster theme.
"""

import importlib
import os
import re
import sys
from pathlib import Path

# Drawing functions are imported (and their examples may run) without a display.
os.environ["MPLBACKEND"] = "Agg"
import matplotlib  # noqa: E402

matplotlib.use("Agg")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the checkout, also when it is not installed

import graphmodels  # noqa: E402

project = "graphmodels"
author = "the graphmodels developers"
copyright = "the graphmodels developers"
version = release = graphmodels.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build"]
# `X` in a docstring is a Python name: linked when it resolves, shown as code otherwise.
default_role = "py:obj"
html_theme = "alabaster"
html_static_path = []

# The tutorial gallery: sphinx-gallery runs every script of examples/tutorials/ (each under a minute,
# no network) and writes its page, figures included, into docs/tutorials/ (generated, not committed).
sphinx_gallery_conf = {
    "examples_dirs": "../examples/tutorials",
    "gallery_dirs": "tutorials",
    "filename_pattern": r"plot_",  # execute every tutorial
    "download_all_examples": False,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": True,
    "within_subsection_order": "FileNameSortKey",
    "remove_config_comments": True,
    "show_memory": False,
    "reset_modules_order": "both",
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "first_notebook_cell": None,
    "show_signature": False,
}

# autosummary writes one stub page per public name into api/generated/ (not committed).
autosummary_generate = True
autosummary_ignore_module_all = False
autodoc_typehints = "none"  # numpydoc's Parameters section already gives the types
autodoc_member_order = "groupwise"
# Class pages (_templates/autosummary/class.rst) list the members, including those inherited
# from graphmodels' own bases (predict, score, ...) but not those of Python's built-in bases or pandas'
# (the answers of queries are Series and DataFrames).

# numpydoc renders the sections; autodoc lists the members (no second members table).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False
numpydoc_xref_param_type = False

# The layer pages of the API reference and the package each one documents.
LAYERS = {
    "data": "graphmodels.data",
    "stats": "graphmodels.stats",
    "structures": "graphmodels.structures",
    "learners": "graphmodels.learners",
    "estimators": "graphmodels.estimators",
    "networks": "graphmodels.networks",
    "models": "graphmodels.models",
    "evaluation": "graphmodels.evaluation",
    "plotting": "graphmodels.plotting",
    "io": "graphmodels.io",
    "reporting": "graphmodels.reporting",
    "cli": "graphmodels.cli",
}


def _check_layer_pages(app):
    """Warn (an error under -W) when a layer page and its package's ``__all__`` disagree.

    A name added to a package's ``__all__`` must be listed on its page, so the reference
    never silently misses part of the public API.
    """
    from sphinx.util import logging

    logger = logging.getLogger("graphmodels.docs")
    for page, package in LAYERS.items():
        path = HERE / "api" / f"{page}.rst"
        text = path.read_text(encoding="utf-8")
        listed = set(re.findall(r"^\s{3}(?:~?[\w.]+\.)?(\w+)\s*$", text, flags=re.MULTILINE))
        listed |= set(re.findall(r"^\.\. auto\w+:: (?:[\w.]+\.)?(\w+)\s*$", text, flags=re.MULTILINE))
        public = set(importlib.import_module(package).__all__)
        for name in sorted(public - listed):
            logger.warning(f"{package}.{name} is in __all__ but not listed on docs/api/{page}.rst")


def _cli_help(app):
    """Write the ``--help`` text of the command and of each subcommand for docs/api/cli.rst."""
    import contextlib
    import io

    from graphmodels import cli

    out = HERE / "api" / "generated"
    out.mkdir(parents=True, exist_ok=True)
    os.environ["COLUMNS"] = "88"  # argparse wraps the help text to the terminal width
    for command in ["", "datasets", "fit", "compare", "report", "interactions"]:
        buffer = io.StringIO()
        argv = [command, "--help"] if command else ["--help"]
        with contextlib.redirect_stdout(buffer), contextlib.suppress(SystemExit):
            cli.main(argv)
        text = buffer.getvalue()
        (out / f"cli_help{'_' + command if command else ''}.txt").write_text(text, encoding="utf-8")


def _constant_docs(app, what, name, obj, options, lines):
    """Give a re-exported constant the ``#:`` comment written beside its definition.

    autodoc looks for the comment in the package that re-exports the name (``graphmodels.data``)
    and, not finding it there, shows the docstring of the value's type (``int([x]) -> integer``);
    the comment is in one of the package's modules (``graphmodels.data.encoding``).
    """
    if what != "data" or not name.startswith("graphmodels."):
        return
    from sphinx.pycode import ModuleAnalyzer

    package, attr = name.rsplit(".", 1)
    for modname in sorted(m for m in sys.modules if m == package or m.startswith(package + ".")):
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:  # a module without source has no comments to find
            continue
        if ("", attr) in docs:
            lines[:] = list(docs["", attr])
            return


def _defined_in_pandas(obj):
    """Whether `obj` (a method, property or accessor) comes from pandas."""
    module = getattr(obj, "__module__", None) or getattr(getattr(obj, "fget", None), "__module__", None)
    return (module or type(obj).__module__ or "").startswith("pandas")


def _skip_pandas_members(app, what, name, obj, skip, options):
    """Leave out what the query answers (Series, DataFrame subclasses) inherit from pandas.

    Their docstrings cross-reference pandas' own user guide, which is not part of these pages.
    """
    if what == "class" and _defined_in_pandas(obj):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_pandas_members)
    app.connect("autodoc-process-docstring", _constant_docs)
    app.connect("builder-inited", _cli_help)
    app.connect("builder-inited", _check_layer_pages)

"""Bundled data sets: ``graphmodels.datasets.load("tic-tac-toe")``.

A short alias of :mod:`graphmodels.data.datasets`.
"""

from .data.datasets import describe, info, list_datasets, load, train_test_rows

__all__ = ["list_datasets", "load", "info", "describe", "train_test_rows"]

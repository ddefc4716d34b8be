"""Helpers shared by the structure learners of this package (not public API)."""

from __future__ import annotations

from ..stats.information import entropy_of_counts


def tie_safe(value: float) -> float:
    """A weight rounded to 1e-12, so that float noise cannot decide a tie.

    Information values that are equal in exact arithmetic can differ in the
    last bits depending on summation order, that is on column order.
    Rounded, true ties stay ties and are broken by name (see
    :func:`canonical_order`), so learned structures do not depend on
    the order of the columns.
    """
    return round(float(value), 12)


def feature_positions(engine, variables, exclude=None):
    """Engine positions of `variables` (all but `exclude` when None); the class may not be among them."""
    if variables is None:
        return tuple(p for p in range(engine.n_variables) if p != exclude)
    positions = engine.positions(variables)
    if exclude is not None and exclude in positions:
        raise ValueError(f"The class variable {engine.names[exclude]!r} cannot also be a feature.")
    return positions


def class_information(engine, positions, class_pos):
    """``I(X; C)`` in nats of each variable at `positions`, keyed by name and rounded by :func:`tie_safe`."""
    names = engine.names
    total = engine.counts([names[class_pos]])
    h_class = entropy_of_counts(total)
    values = {}
    for p in positions:
        table = engine.counts([names[p], names[class_pos]])
        values[engine.names[p]] = tie_safe(entropy_of_counts(table.sum(axis=1)) + h_class - entropy_of_counts(table))
    return values

"""The registry's models as the tests that run over every registered model build them.

Every model keeps its defaults, except the ones whose default fit repeats the same search many
times over: ``BNClassifier()`` refits five structures with their discriminative penalties on
ten inner folds of a small set (1.3 s on 150 rows, ten times a TAN fit), hierarchical naive
Bayes scores each candidate latent on five inner folds (1.4 s on car), and the hyperforest
classifier restarts its search 100 times (0.6 s on car). A test over the registry checks a
contract every model shares (names, files, drawings, errors), not the choice or the search,
so it fits BNClassifier on two structures and two folds (one repetition), HNB on two folds and the
hyperforest with five starts: the same code (inner folds, candidates, the race, the choice,
the refit; the restarts) at a third to a twentieth of the cost. The models' own test files test
their default settings and what they choose.
"""

from __future__ import annotations

from typing import Any

from graphmodels.models import registered_models

#: Registry name -> the settings the registry-wide tests fit it with.
QUICK: dict[str, dict[str, Any]] = {
    "bnc": {"structures": ["nb", "tan"], "n_folds": 2, "n_repeats": 1},
    "hnb": {"n_folds": 2},
    "hyperforest": {"n_starts": 5},
}


def quick_model(name: str, **params: Any) -> Any:
    """The registered model `name` with :data:`QUICK`'s settings (if any) and `params`."""
    return registered_models()[name](**{**QUICK.get(name, {}), **params})

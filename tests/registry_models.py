"""The registry's models as the tests that run over every registered model build them.

Every model keeps its defaults, except the ones whose default fit repeats whole fits of other
registered models: ``BNClassifier()`` refits five structures with their discriminative
penalties on ten inner folds of a small set (1.3 s on 150 rows, ten times a TAN fit). A test over
the registry checks a contract every model shares (names, files, drawings, errors), not the
choice, so it fits BNClassifier on two structures and three folds: the same code (inner folds,
generative and discriminative candidates, the race, the choice, the refit) at a tenth of the
cost. tests/test_bn_classifier.py tests the default settings and the choice itself.
"""

from __future__ import annotations

from typing import Any

from graphmodels.models import registered_models

#: Registry name -> the settings the registry-wide tests fit it with.
QUICK: dict[str, dict[str, Any]] = {"bnc": {"structures": ["nb", "tan"], "n_folds": 3}}


def quick_model(name: str, **params: Any) -> Any:
    """The registered model `name` with :data:`QUICK`'s settings (if any) and `params`."""
    return registered_models()[name](**{**QUICK.get(name, {}), **params})

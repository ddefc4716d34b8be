"""Given networks: Bayesian and Markov networks whose tables are given, not fitted.

A :class:`DiscreteBayesianNetwork` holds a DAG and one conditional table per variable; a
:class:`DiscreteMarkovNetwork` holds factors over scopes. Both answer questions through the
inference layer (``query``, ``map_query``, ``independent``, ...) and score rows; a Bayesian network
also samples. They are what the files of :mod:`graphmodels.io` hold (BIF, XMLBIF, UAI; the bundled
ALARM network is ``graphmodels.io.load_network("alarm")``), what the fitted models export
(``to_bayesian_network()``, ``to_markov_network()``), and what the synthetic generators draw:
random networks with a known structure, to sample data with a known answer.

The layer sits between the inference layer and the models: a network asks the inference layer
its questions, and the models build networks when they export themselves.
"""

from .bayesnet import DiscreteBayesianNetwork
from .markovnet import DiscreteMarkovNetwork
from .questions import NetworkQueries, StructureQuestions
from .synthetic import random_hypertree_network, random_multidimensional_network
from .tables import conditional_frame

__all__ = [
    "DiscreteBayesianNetwork",
    "DiscreteMarkovNetwork",
    "random_hypertree_network",
    "random_multidimensional_network",
    "NetworkQueries",
    "StructureQuestions",
    "conditional_frame",
]

"""Networks in and out: the BIF, XMLBIF and UAI files, the bundled networks, pgmpy and pyAgrum.

=========================================  ==========================================================
``read_bif``, ``write_bif``                the Interchange Format (bnlearn's repository, JavaBayes)
``read_xmlbif``, ``write_xmlbif``          XMLBIF 0.3 (pgmpy's and pyAgrum's XML)
``read_uai``, ``write_uai``                the UAI competitions' format: ``BAYES`` and ``MARKOV``
``load_network``, ``list_networks``        the networks bundled with graphmodels (ALARM)
``to_pgmpy``, ``from_pgmpy``               pgmpy's ``DiscreteBayesianNetwork`` (the interop extra)
``to_pyagrum``, ``from_pyagrum``           pyAgrum's ``BayesNet`` (the interop extra)
=========================================  ==========================================================

A reader returns a :class:`~graphmodels.networks.DiscreteBayesianNetwork` (a UAI ``MARKOV``
file: a :class:`~graphmodels.networks.DiscreteMarkovNetwork`); a writer takes one of those, and
``to_pgmpy`` / ``to_pyagrum`` also take a fitted model that is one Bayesian network (through its
``to_bayesian_network()``). The readers take a path, an open file, bytes or the text itself; they
stop with :class:`FileTooLargeError` once the text passes ``max_bytes``, and check every table's
declared size against ``max_cells`` before reading its numbers. The writers write a path
atomically.

The layer sits above the models, beside evaluation and plotting: the converters take fitted
models as well as networks. pgmpy and pyAgrum are imported when a converter is called, never by
``import graphmodels``.
"""

from .._files import FileTooLargeError
from .bif import list_networks, load_network, read_bif, write_bif
from .interop import from_pgmpy, from_pyagrum, to_pgmpy, to_pyagrum
from .uai import read_uai, write_uai
from .xmlbif import read_xmlbif, write_xmlbif

__all__ = [
    "read_bif",
    "write_bif",
    "read_xmlbif",
    "write_xmlbif",
    "read_uai",
    "write_uai",
    "load_network",
    "list_networks",
    "to_pgmpy",
    "from_pgmpy",
    "to_pyagrum",
    "from_pyagrum",
    "FileTooLargeError",
]

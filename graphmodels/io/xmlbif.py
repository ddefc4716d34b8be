"""Reading and writing Bayesian networks in XMLBIF 0.3.

XMLBIF [1]_ is the XML form of the Interchange Format; pgmpy's ``XMLBIFWriter`` and
pyAgrum's ``saveBN(bn, "....bifxml")`` write it::

    <BIF VERSION="0.3">
    <NETWORK>
      <NAME>rain</NAME>
      <VARIABLE TYPE="nature">
        <NAME>rain</NAME>
        <OUTCOME>no</OUTCOME>
        <OUTCOME>yes</OUTCOME>
      </VARIABLE>
      ...
      <DEFINITION>
        <FOR>wet</FOR>
        <GIVEN>rain</GIVEN>
        <TABLE>0.9 0.1 0.2 0.8</TABLE>
      </DEFINITION>
    </NETWORK>
    </BIF>

**Order of a ``TABLE``.** The numbers run over the ``GIVEN`` variables, in their order, and
then the ``FOR`` variable, in C order: the child varies fastest and the last ``GIVEN`` parent
next, so each run of ``r_child`` numbers is one conditional distribution (above,
``P(wet | rain = no) = (0.9, 0.1)``). This is the order of the XMLBIF specification, of JavaBayes,
of pgmpy and of pyAgrum, and that of :attr:`DiscreteBayesianNetwork.cpts` flattened.

The file is parsed by the standard library's :mod:`xml.etree.ElementTree`; nothing in it is
evaluated, no external resource is fetched, and entity declarations (``<!ENTITY``) are refused.
``PROPERTY`` elements and comments are ignored; ``<PROBABILITY>`` is read as ``<DEFINITION>``
(the element's name in drafts of the format).

References
----------
.. [1] Cozman, F. G. (1998). The Interchange Format for Bayesian Networks: XMLBIF version 0.3.
       https://www.cs.cmu.edu/~fgcozman/Research/InterchangeFormat/
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from typing import IO, Any

import numpy as np

from .._files import DEFAULT_MAX_BYTES
from .._memory import DEFAULT_MAX_CELLS, check_cells, describe_variables
from ..networks.bayesnet import SUM_TOLERANCE, DiscreteBayesianNetwork
from ._interchange import Source, check_cpt, decode, number, plain_numbers, read_source, write_output

__all__ = ["read_xmlbif", "write_xmlbif"]


def _looks_like_text(source: str) -> bool:
    return "<" in source


def _text(element: ET.Element | None) -> str:
    return (element.text or "").strip() if element is not None else ""


def _children(parent: ET.Element, *tags: str) -> list[ET.Element]:
    return [child for child in parent if child.tag in tags]


def _parse(text: str, label: str) -> ET.Element:
    if "<!ENTITY" in text:
        raise ValueError(f"{label}: entity declarations (<!ENTITY ...>) are not allowed.")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as error:
        raise ValueError(f"{label}: not well-formed XML ({error}).") from None
    if root.tag != "BIF":
        raise ValueError(f"{label}: the root element must be <BIF>, got <{root.tag}>.")
    networks = _children(root, "NETWORK")
    if len(networks) != 1:
        raise ValueError(f"{label}: <BIF> must hold one <NETWORK>, got {len(networks)}.")
    return networks[0]


def _read_variables(network: ET.Element, label: str) -> dict[str, list[str]]:
    states: dict[str, list[str]] = {}
    for k, element in enumerate(_children(network, "VARIABLE"), start=1):
        name = _text(element.find("NAME"))
        if not name:
            raise ValueError(f"{label}: <VARIABLE> number {k} has no <NAME>.")
        kind = element.get("TYPE", "nature").strip().lower()
        if kind != "nature":
            raise ValueError(
                f"{label}: variable {name!r} has TYPE={element.get('TYPE')!r}; only 'nature' "
                "(chance) variables are supported."
            )
        if name in states:
            raise ValueError(f"{label}: variable {name!r} is declared twice.")
        outcomes = [_text(outcome) for outcome in element.findall("OUTCOME")]
        if not outcomes:
            raise ValueError(f"{label}: variable {name!r} has no <OUTCOME>.")
        if any(not outcome for outcome in outcomes):
            raise ValueError(f"{label}: variable {name!r} has an empty <OUTCOME>.")
        if len(set(outcomes)) != len(outcomes):
            duplicate = next(s for s in outcomes if outcomes.count(s) > 1)
            raise ValueError(f"{label}: variable {name!r} lists the outcome {duplicate!r} twice.")
        states[name] = outcomes
    if not states:
        raise ValueError(f"{label}: the network declares no <VARIABLE>.")
    return states


def _read_definition(element: ET.Element, states: dict[str, list[str]], label: str, atol: float, max_cells: int):
    fors = element.findall("FOR")
    if len(fors) != 1 or not _text(fors[0]):
        raise ValueError(f"{label}: a <DEFINITION> must name one variable in <FOR>, got {len(fors)}.")
    child = _text(fors[0])
    where = f"{label}, definition of {child!r}"
    if child not in states:
        raise ValueError(f"{where}: {child!r} is not a declared <VARIABLE>.")
    parents = tuple(_text(given) for given in element.findall("GIVEN"))
    for parent in parents:
        if parent not in states:
            raise ValueError(f"{where}: unknown parent {parent!r} in <GIVEN> (no <VARIABLE> of that name).")
    if child in parents or len(set(parents)) != len(parents):
        raise ValueError(f"{where}: <FOR> and <GIVEN> repeat a variable: {(child, *parents)}.")
    tables = element.findall("TABLE")
    if len(tables) != 1:
        raise ValueError(f"{where}: expected one <TABLE>, got {len(tables)}.")
    shape = tuple(len(states[p]) for p in parents) + (len(states[child]),)
    check_cells(  # before the numbers are read
        math.prod(shape),
        max_cells,
        what=f"table of {child!r} ({shape[-1]} states) given "
        f"{describe_variables(parents, shape[:-1]) or 'nothing'} ({where})",
        fix="check the file",
    )
    text = tables[0].text or ""
    tables[0].text = None  # the tree no longer holds the text once it is read
    values = plain_numbers(text, commas=False)  # numpy; None if a token is not a plain number
    if values is None:
        values = np.empty(len(tokens := text.split()))
        for k, token in enumerate(tokens):
            try:
                values[k] = float(token)
            except ValueError:
                raise ValueError(f"{where}: <TABLE> holds {token!r}, which is not a number.") from None
    del text
    if values.size != math.prod(shape):
        configs = math.prod(shape[:-1])
        raise ValueError(
            f"{where}: <TABLE> must hold {math.prod(shape)} numbers ({shape[-1]} states x {configs} "
            f"parent configurations), got {values.size}."
        )
    table = values.reshape(shape)  # parents in GIVEN order, child fastest
    check_cpt(table, child, parents, lambda v, i: states[v][i], where, atol)
    return child, parents, table


def read_xmlbif(
    source: Source,
    *,
    atol: float = SUM_TOLERANCE,
    max_cells: int = DEFAULT_MAX_CELLS,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> DiscreteBayesianNetwork:
    """Read a Bayesian network in XMLBIF 0.3.

    Parameters
    ----------
    source : str, os.PathLike, bytes, bytearray or file object
        A path (a gzip, bzip2 or xz file is decompressed as it is read), an open file (text or
        binary), or the XML text itself (a string holding ``<`` is taken as text, any other as
        a path).
    atol : float, default=1e-6
        Tolerance of the check that every conditional distribution sums to 1; the CPTs are
        then renormalized (see :class:`DiscreteBayesianNetwork`). pyAgrum writes 6
        significant digits, so that a distribution of its files may miss 1 by a few 1e-6:
        read them with ``atol=1e-5``.
    max_cells : int, default=10_000_000
        Largest table (parent configurations x states) to read, checked before its numbers are.
    max_bytes : int, default=536_870_912 (512 MiB)
        The most bytes of text to read (after decompression): a larger file is refused with
        :class:`~graphmodels.models.FileTooLargeError` (a ValueError) as soon as its reading
        passes the limit, so that a small compressed file cannot fill the memory.

    Returns
    -------
    network : DiscreteBayesianNetwork
        Variables in the order of their ``<VARIABLE>`` elements; each variable's parents in
        the order of its ``<GIVEN>`` elements; the network's ``<NAME>`` as ``name``.

    Raises
    ------
    ValueError
        On XML that is not well formed or not XMLBIF, a variable without outcomes or of a type
        other than ``nature``, a definition for an undeclared variable or with an unknown
        parent, a variable without a definition (or with two), a ``<TABLE>`` of the wrong
        length or holding something other than numbers, a distribution not summing to 1
        within `atol`, or a cycle. The message starts with the file's path (or
        ``XMLBIF text``) and names the variable.
    TableTooLargeError
        If a table would exceed `max_cells` (a ValueError too), before its numbers are read.
    FileTooLargeError
        If the text exceeds `max_bytes` (a ValueError too).
    TypeError
        If `source` has an unsupported type.

    See Also
    --------
    write_xmlbif, read_bif, read_uai

    Notes
    -----
    See the module docstring (:mod:`graphmodels.io.xmlbif`) for the order of the numbers
    of a ``<TABLE>``: the child varies fastest, the parents in ``<GIVEN>`` order.

    References
    ----------
    .. [1] Cozman, F. G. (1998). The Interchange Format for Bayesian Networks: XMLBIF
           version 0.3. https://www.cs.cmu.edu/~fgcozman/Research/InterchangeFormat/

    Examples
    --------
    >>> text = '''<BIF VERSION="0.3"><NETWORK><NAME>rain</NAME>
    ... <VARIABLE TYPE="nature"><NAME>rain</NAME><OUTCOME>no</OUTCOME><OUTCOME>yes</OUTCOME></VARIABLE>
    ... <VARIABLE TYPE="nature"><NAME>wet</NAME><OUTCOME>no</OUTCOME><OUTCOME>yes</OUTCOME></VARIABLE>
    ... <DEFINITION><FOR>rain</FOR><TABLE>0.8 0.2</TABLE></DEFINITION>
    ... <DEFINITION><FOR>wet</FOR><GIVEN>rain</GIVEN><TABLE>0.9 0.1 0.2 0.8</TABLE></DEFINITION>
    ... </NETWORK></BIF>'''
    >>> bn = read_xmlbif(text)
    >>> bn.name, bn.variables, bn.parents["wet"]
    ('rain', ['rain', 'wet'], ('rain',))
    >>> bn.cpts["wet"].tolist()
    [[0.9, 0.1], [0.2, 0.8]]
    """
    content, label = read_source(source, "XMLBIF", _looks_like_text, max_bytes)
    text = decode(content)
    del content
    network = _parse(text, label)
    del text
    states = _read_variables(network, label)
    parents: dict[str, tuple[str, ...]] = {}
    cpts: dict[str, np.ndarray] = {}
    for element in _children(network, "DEFINITION", "PROBABILITY"):
        child, given, table = _read_definition(element, states, label, atol, max_cells)
        if child in cpts:
            raise ValueError(f"{label}: variable {child!r} has two <DEFINITION> elements.")
        parents[child], cpts[child] = given, table
    missing = [v for v in states if v not in cpts]
    if missing:
        raise ValueError(f"{label}: variable {missing[0]!r} has no <DEFINITION> (missing CPT).")
    name = _text(network.find("NAME")) or None
    try:
        return DiscreteBayesianNetwork(
            {v: parents[v] for v in states}, states, {v: cpts[v] for v in states}, name=name, atol=atol
        )
    except ValueError as error:  # a cycle
        raise ValueError(f"{label}: {error}") from None


def _check_name(name: str, what: str) -> str:
    # XML keeps no control character but tab and newline, and reads a carriage return as a newline.
    if not name or name != name.strip() or any(ord(c) < 32 and c not in "\t\n" for c in name):
        raise ValueError(
            f"{what} {name!r} cannot be written in XMLBIF (it is empty, has spaces at its ends or "
            "holds a control character other than tab and newline)."
        )
    return name


def write_xmlbif(
    network: DiscreteBayesianNetwork, path_or_file: str | os.PathLike[str] | IO[Any] | None = None
) -> str | None:
    """Write a network in XMLBIF 0.3.

    Parameters
    ----------
    network : DiscreteBayesianNetwork
    path_or_file : str, os.PathLike, file object or None, default=None
        Where to write; a path ending in ``.gz`` is gzip-compressed. A path is written
        atomically (a temporary file beside it replaces it once complete: a failed write
        leaves the previous file). With None, the text is returned.

    Returns
    -------
    text : str or None
        The XML text when `path_or_file` is None.

    Raises
    ------
    TypeError
        If `network` is not a DiscreteBayesianNetwork.
    ValueError
        If a name is empty, has spaces at its ends or holds a control character (XML cannot
        keep them).

    See Also
    --------
    read_xmlbif, write_bif, write_uai

    Notes
    -----
    Variables and definitions are written in the order of ``network.variables``; each
    ``<TABLE>`` holds one line per parent configuration (the child varies fastest).
    Probabilities are written with ``repr`` (17 significant digits), so :func:`read_xmlbif`
    gives back the same CPTs exactly. A network without a name is written as ``unknown``, as
    :func:`write_bif` does.

    Examples
    --------
    >>> bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y & z"]}, {"a": [0.25, 0.75]}, name="tiny")
    >>> print(write_xmlbif(bn))
    <?xml version="1.0" encoding="UTF-8"?>
    <BIF VERSION="0.3">
      <NETWORK>
        <NAME>tiny</NAME>
        <VARIABLE TYPE="nature">
          <NAME>a</NAME>
          <OUTCOME>x</OUTCOME>
          <OUTCOME>y &amp; z</OUTCOME>
        </VARIABLE>
        <DEFINITION>
          <FOR>a</FOR>
          <TABLE>0.25 0.75</TABLE>
        </DEFINITION>
      </NETWORK>
    </BIF>
    <BLANKLINE>
    >>> read_xmlbif(write_xmlbif(bn)).to_dict() == bn.to_dict()
    True
    """
    if not isinstance(network, DiscreteBayesianNetwork):
        raise TypeError(f"`network` must be a DiscreteBayesianNetwork, got {type(network).__name__}.")
    root = ET.Element("BIF", VERSION="0.3")
    element = ET.SubElement(root, "NETWORK")
    ET.SubElement(element, "NAME").text = _check_name(network.name, "network name") if network.name else "unknown"
    for v in network.variables:
        variable = ET.SubElement(element, "VARIABLE", TYPE="nature")
        ET.SubElement(variable, "NAME").text = _check_name(v, "variable name")
        for state in network.states[v]:
            ET.SubElement(variable, "OUTCOME").text = _check_name(state, f"state of {v!r}")
    indent = "\n" + " " * 8
    for v in network.variables:
        definition = ET.SubElement(element, "DEFINITION")
        ET.SubElement(definition, "FOR").text = v
        for parent in network.parents[v]:
            ET.SubElement(definition, "GIVEN").text = parent
        rows = network.cpts[v].reshape(-1, network.cardinalities[v])
        lines = [" ".join(map(number, row)) for row in rows]
        ET.SubElement(definition, "TABLE").text = (
            lines[0] if len(lines) == 1 else indent + indent.join(lines) + "\n" + " " * 6
        )
    ET.indent(root, space="  ")
    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
    return write_output(text, path_or_file)

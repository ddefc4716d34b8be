"""Reading and writing graphical models in the UAI format (``BAYES`` and ``MARKOV``).

The UAI format [1]_ [2]_ is the plain text of the UAI inference competitions::

    BAYES
    3
    2 2 3
    3
    1 0
    2 0 1
    2 1 2

    2
     0.436 0.564
    4
     0.128 0.872
     0.920 0.080
    6
     0.210 0.333 0.457
     0.811 0.000 0.189

First the *preamble*: the type, ``BAYES`` (a Bayesian network) or ``MARKOV`` (a Markov
network); the number of variables, which are named by position (0, 1, 2); their
cardinalities; the number of functions; and each function's scope, its size and then its
variables. In a ``BAYES`` file every variable has one function, its CPT, whose scope lists
the parents and then the variable itself (the child last). Then the *function tables*, in
the order of the scopes: each table's size and its values, the **last variable of the scope
varying fastest** (so that in a ``BAYES`` file each run of ``r_child`` numbers is one
distribution of the child). All numbers are separated by white space; line breaks mean
nothing. The example is ``P(x0) P(x1 | x0) P(x2 | x1)``, with ``P(x1 = 1 | x0 = 0) = 0.872``
and ``P(x2 = 0 | x1 = 1) = 0.811``. A table is thus the C-order flattening of an array with
one axis per scope variable, in scope order: the layout of
:attr:`DiscreteBayesianNetwork.cpts` (parents, then the child) and of the factors of
:class:`DiscreteMarkovNetwork`.

**Names.** The format keeps no names: variables are their positions and states their codes.
:func:`read_uai` names the variables ``"0"``, ``"1"``, ... and their states ``"0"``, ``"1"``, ...;
:func:`write_uai` writes the variables in the order of ``network.variables`` and the states in
code order, and drops every name.

**Comments.** Lines that begin with ``c`` (the UAI 2016 comments) and the end of a line from a
``#`` (pyAgrum writes each variable's name so, after its scope) are skipped.

**Other programs.** pyAgrum (3.3) and pgmpy (1.1) lay out the tables of ``BAYES`` files
otherwise, and the files they write are UAI files only in part:

* pyAgrum lists the child last but lets the *first* parent of the scope vary fastest after the
  child (its own table order), and reads files so: the two agree with the format, and with this
  module, for variables with at most one parent;
* pgmpy lets the child vary *slowest* (its ``TabularCPD.values`` flattened) and lists the
  parents in reverse, and reads files so. Its ``BAYES`` files read here only when every
  variable is a root; with a parent, a run of ``r_child`` numbers is not a distribution and
  :func:`read_uai` says so, naming the file and the variable. Its ``MARKOV`` files follow the
  format (each factor's values flattened in the order of its scope) and read here as written.

References
----------
.. [1] UAI 2008 evaluation: file format.
       http://graphmod.ics.uci.edu/uai08/FileFormat
.. [2] Gogate, V. (2016). UAI 2016 inference evaluation: UAI model format.
       http://www.hlt.utdallas.edu/~vgogate/uai16-evaluation/uaiformat.html
"""

from __future__ import annotations

import math
import os
import re
from typing import IO, Any

import numpy as np

from .._files import DEFAULT_MAX_BYTES
from .._memory import DEFAULT_MAX_CELLS, check_cells
from ..networks.bayesnet import SUM_TOLERANCE, DiscreteBayesianNetwork
from ..networks.markovnet import DiscreteMarkovNetwork
from ._interchange import Source, check_cpt, decode, number, plain_numbers, read_source, write_output

__all__ = ["read_uai", "write_uai"]

#: The network types of the format that this module reads.
NETWORK_TYPES = ("BAYES", "MARKOV")

_COMMENT_LINE = re.compile(r"^\s*c(\s|$)")
#: A comment line (``c`` first) of plain ASCII text, and a ``#`` comment to the end of its line.
_COMMENT_LINE_BYTES = re.compile(rb"^[ \t]*c(?:[ \t][^\n]*)?$", re.MULTILINE)
_HASH_COMMENT_BYTES = re.compile(rb"#[^\n]*")
#: The ASCII bytes of plain text: printable characters, tab, newline and carriage return.
_PRINTABLE_BYTES = bytes(range(32, 128)) + b"\t\n\r"
#: White space between the tokens of plain text.
_SPACE_BYTES = np.zeros(256, dtype=bool)
_SPACE_BYTES[list(b" \t\n")] = True
_TOKEN_BYTES = re.compile(rb"[^ \t\n]+")
#: Bytes scanned for token starts at a time (the scan's temporary arrays are a few times this).
_SCAN_BYTES = 1 << 22


def _looks_like_text(source: str) -> bool:
    """A string that is not an existing file and holds white space is UAI text."""
    return not os.path.isfile(source) and any(c.isspace() for c in source)


def _plain_text(content: bytes | str) -> bytes | None:
    """`content` as ASCII bytes without its comments (lines kept), or None if it is not plain ASCII.

    Plain: ASCII, and no control character but tab, newline and carriage return. Other text
    (Unicode white space, form feeds...) is read by the careful path, as the reader always did.
    """
    if isinstance(content, str):
        if not content.isascii():
            return None
        data = content.encode("ascii")
    else:
        data = content
    if data.translate(None, _PRINTABLE_BYTES):
        return None
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"c" in data:
        data = _COMMENT_LINE_BYTES.sub(b"", data)
    if b"#" in data:
        data = _HASH_COMMENT_BYTES.sub(b"", data)
    return data


class _Tokens:
    """The tokens (numbers) of a UAI text, read one by one; the careful path, for any text.

    The text is split into a list of (token, line) pairs first: only text that is not plain ASCII
    comes here (see :class:`_PlainTokens`).
    """

    def __init__(self, text: str, label: str) -> None:
        self.label = label
        self.items: list[tuple[str, int]] = []
        for line_number, line in enumerate(text.splitlines(), start=1):
            if _COMMENT_LINE.match(line):
                continue
            self.items.extend((token, line_number) for token in line.split("#", 1)[0].split())
        self.position = 0

    def has(self, index: int) -> bool:
        """Whether the text holds a token number `index` (from 0)."""
        return index < len(self.items)

    def token(self, index: int) -> str:
        return self.items[index][0]

    def line(self, index: int) -> int:
        return self.items[index][1]

    def count(self) -> int:
        """The number of tokens of the whole text."""
        return len(self.items)

    def error(self, message: str, index: int | None = None) -> ValueError:
        """A ValueError naming the source and the line of token `index` (default: the current one)."""
        if index is None and self.has(0):
            index = min(self.position, self.count() - 1)
        where = f"{self.label}, line {self.line(index)}" if index is not None else self.label
        return ValueError(f"{where}: {message}")

    def next(self, what: str) -> tuple[str, int]:
        """The next token and its index."""
        if not self.has(self.position):
            raise self.error(f"the text ends where {what} was expected.")
        self.position += 1
        return self.token(self.position - 1), self.position - 1

    def integer(self, what: str, low: int, high: int | None = None) -> int:
        token, index = self.next(what)
        try:
            value = int(token)
        except ValueError:
            raise self.error(f"expected {what} (an integer), got {token!r}.", index) from None
        if value < low or (high is not None and value > high):
            bound = f">= {low}" if high is None else f"in {low}..{high}"
            raise self.error(f"{what} must be {bound}, got {value}.", index)
        return value

    def values(self, count: int, what: str) -> np.ndarray:
        """The next `count` tokens as numbers."""
        if not self.has(self.position + count - 1):
            have = self.count() - self.position
            raise self.error(f"{what} must hold {count} numbers, but the text ends after {have}.")
        out = self._plain(self.position, count)
        if out is None:
            out = np.empty(count, dtype=np.float64)
            for k in range(count):
                token = self.token(self.position + k)
                try:
                    out[k] = float(token)
                except ValueError:
                    raise self.error(f"{what} holds {token!r}, which is not a number.", self.position + k) from None
        self.position += count
        return out

    def _plain(self, start: int, count: int) -> np.ndarray | None:
        return None


class _PlainTokens(_Tokens):
    """The tokens of plain ASCII text (see :func:`_plain_text`), found by numpy as they are needed.

    The start of each token is found by scanning the bytes a few MiB at a time (8 bytes a token
    held, never a Python object per token), and only as far as the tokens asked for: a file that
    holds more than its tables declare is refused after one more token. The numbers of a table
    are parsed by numpy in one call; a line number is counted only for a message.
    """

    def __init__(self, data: bytes, label: str) -> None:
        self.label = label
        self.data = data
        self.starts = np.empty(0, dtype=np.int64)
        self.scanned = 0  # bytes scanned for token starts
        self.position = 0

    def has(self, index: int) -> bool:
        data = self.data
        while index >= self.starts.size and self.scanned < len(data):
            low, high = self.scanned, min(self.scanned + _SCAN_BYTES, len(data))
            space = _SPACE_BYTES[np.frombuffer(data, dtype=np.uint8, count=high - low, offset=low)]
            before = np.empty_like(space)
            before[0] = True if low == 0 else _SPACE_BYTES[data[low - 1]]
            before[1:] = space[:-1]
            found = np.flatnonzero(before & ~space)
            self.starts = np.concatenate([self.starts, found + low])
            self.scanned = high
        return index < self.starts.size

    def token(self, index: int) -> str:
        start = int(self.starts[index])
        match = _TOKEN_BYTES.match(self.data, start)
        assert match is not None
        return match.group().decode("ascii")

    def line(self, index: int) -> int:
        return self.data.count(b"\n", 0, int(self.starts[index])) + 1

    def count(self) -> int:
        self.has(len(self.data))  # scans to the end
        return int(self.starts.size)

    def _plain(self, start: int, count: int) -> np.ndarray | None:
        end = int(self.starts[start + count]) if self.has(start + count) else len(self.data)
        values = plain_numbers(self.data[int(self.starts[start]) : end], commas=False)
        return values if values is not None and values.size == count else None


def read_uai(
    source: Source,
    *,
    atol: float = SUM_TOLERANCE,
    max_cells: int = DEFAULT_MAX_CELLS,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> DiscreteBayesianNetwork | DiscreteMarkovNetwork:
    """Read a Bayesian network (``BAYES``) or a Markov network (``MARKOV``) in the UAI format.

    Parameters
    ----------
    source : str, os.PathLike, bytes, bytearray or file object
        A path (a gzip, bzip2 or xz file is decompressed as it is read), an open file (text or
        binary), or the text itself (a string that is not an existing file and holds white
        space is taken as text).
    atol : float, default=1e-6
        ``BAYES`` only: tolerance of the check that every conditional distribution sums to 1;
        the CPTs are then renormalized (see :class:`DiscreteBayesianNetwork`).
    max_cells : int, default=10_000_000
        Largest table (the product of its scope's cardinalities) to read, checked as soon as
        the scope is read, before any number of the tables.
    max_bytes : int, default=536_870_912 (512 MiB)
        The most bytes of text to read (after decompression): a larger file is refused with
        :class:`~graphmodels.models.FileTooLargeError` (a ValueError) as soon as its reading
        passes the limit, so that a small compressed file cannot fill the memory.

    Returns
    -------
    network : DiscreteBayesianNetwork or DiscreteMarkovNetwork
        A :class:`DiscreteBayesianNetwork` for ``BAYES``, a :class:`DiscreteMarkovNetwork`
        (its factors as written, in file order) for ``MARKOV``. The variables are named
        ``"0"``, ``"1"``, ... by position, and the states of a Bayesian network's variables
        ``"0"``, ``"1"``, ... by code (the format keeps no names); a CPT's parents are the
        scope of its function without the child, in scope order.

    Raises
    ------
    ValueError
        On a type other than ``BAYES`` or ``MARKOV``, a count or index that is not an integer
        in range, a scope that repeats a variable, a table whose size is not the product of
        its scope's cardinalities or that holds something other than numbers, numbers left
        after the last table; for ``BAYES``, a variable that is the child of no function or of
        two, a distribution not summing to 1 within `atol`, or a cycle; for ``MARKOV``, a
        negative or infinite value. The message starts with the file's path (or ``UAI
        text``) and, where there is one, the line.
    TableTooLargeError
        If a table would exceed `max_cells` (a ValueError too), before it is read.
    FileTooLargeError
        If the text exceeds `max_bytes` (a ValueError too).
    TypeError
        If `source` has an unsupported type.

    See Also
    --------
    write_uai, read_bif, read_xmlbif

    Notes
    -----
    See the module docstring (:mod:`graphmodels.io.uai`) for the layout, and for the
    ``BAYES`` files of pgmpy and pyAgrum, which order their tables otherwise.

    References
    ----------
    .. [1] UAI 2008 evaluation: file format. http://graphmod.ics.uci.edu/uai08/FileFormat

    Examples
    --------
    >>> text = '''BAYES
    ... 2
    ... 2 3
    ... 2
    ... 1 0
    ... 2 0 1
    ... 2  0.25 0.75
    ... 6  0.5 0.25 0.25  0.1 0.2 0.7
    ... '''
    >>> bn = read_uai(text)
    >>> bn.variables, bn.parents["1"], bn.states["1"]
    (['0', '1'], ('0',), ['0', '1', '2'])
    >>> bn.cpts["1"][1].tolist()  # P(x1 | x0 = 1)
    [0.1, 0.2, 0.7]
    >>> mn = read_uai("MARKOV 2 2 2 1 2 0 1 4 1 2 3 4")
    >>> mn.factors[0][1].tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    content, label = read_source(source, "UAI", _looks_like_text, max_bytes)
    data = _plain_text(content)
    tokens = _Tokens(decode(content), label) if data is None else _PlainTokens(data, label)
    del content, data
    kind, index = tokens.next("the network type (BAYES or MARKOV)")
    if kind.upper() not in NETWORK_TYPES:
        raise tokens.error(f"the network type must be BAYES or MARKOV, got {kind!r}.", index)
    kind = kind.upper()
    n_variables = tokens.integer("the number of variables", 1)
    cards = [tokens.integer(f"the cardinality of variable {v}", 1) for v in range(n_variables)]
    n_functions = tokens.integer("the number of functions", 0)
    scopes: list[tuple[int, ...]] = []
    for f in range(n_functions):
        size = tokens.integer(f"the scope size of function {f}", 1 if kind == "BAYES" else 0, n_variables)
        start = tokens.position - 1
        scope = tuple(tokens.integer(f"a variable of function {f}", 0, n_variables - 1) for _ in range(size))
        if len(set(scope)) != len(scope):
            raise tokens.error(f"the scope of function {f} repeats a variable: {list(scope)}.", start)
        # The size of each table, checked now: before any number is read.
        shape = tuple(cards[v] for v in scope)
        check_cells(
            math.prod(shape),
            max_cells,
            what=f"table of function {f} over variables {list(scope)} (cardinalities {list(shape)}) ({label})",
            fix="check the file",
        )
        scopes.append(scope)
    tables: list[np.ndarray] = []
    for f, scope in enumerate(scopes):
        shape = tuple(cards[v] for v in scope)
        expected = math.prod(shape)
        at = tokens.position if tokens.has(tokens.position) else None
        size = tokens.integer(f"the table size of function {f}", 0)
        if size != expected:
            raise tokens.error(
                f"the table of function {f} over variables {list(scope)} (cardinalities {list(shape)}) must "
                f"have {expected} entries, got {size}.",
                at,
            )
        tables.append(tokens.values(size, f"the table of function {f}").reshape(shape))
    if tokens.has(tokens.position):
        raise tokens.error(
            f"numbers are left after the last table, starting with {tokens.token(tokens.position)!r}.",
            tokens.position,
        )
    names = [str(v) for v in range(n_variables)]
    if kind == "MARKOV":
        return _markov(label, names, cards, scopes, tables)
    return _bayes(label, names, cards, scopes, tables, atol)


def _markov(label, names, cards, scopes, tables) -> DiscreteMarkovNetwork:
    for f, (scope, table) in enumerate(zip(scopes, tables)):
        if not np.all(np.isfinite(table)) or np.any(table < 0):
            bad = float(table[~(np.isfinite(table) & (table >= 0))].flat[0])
            raise ValueError(
                f"{label}: the table of function {f} over variables {list(scope)} must hold finite numbers >= 0, "
                f"got {bad!r}."
            )
    return DiscreteMarkovNetwork(
        dict(zip(names, cards)), [(tuple(names[v] for v in scope), table) for scope, table in zip(scopes, tables)]
    )


def _bayes(label, names, cards, scopes, tables, atol) -> DiscreteBayesianNetwork:
    if len(scopes) != len(names):
        raise ValueError(
            f"{label}: a BAYES network has one function (a CPT) per variable: {len(names)} variables, "
            f"got {len(scopes)} functions."
        )
    owner: dict[int, int] = {}
    for f, scope in enumerate(scopes):
        child = scope[-1]
        if child in owner:
            raise ValueError(
                f"{label}: variable {child} is the child (last in the scope) of functions {owner[child]} and {f}; "
                "a BAYES network has one CPT per variable."
            )
        owner[child] = f
    states = {name: [str(s) for s in range(r)] for name, r in zip(names, cards)}
    parents: dict[str, tuple[str, ...]] = {}
    cpts: dict[str, np.ndarray] = {}
    for v, name in enumerate(names):
        if v not in owner:
            raise ValueError(f"{label}: variable {v} is the child (last in the scope) of no function (missing CPT).")
        f = owner[v]
        parents[name] = tuple(names[p] for p in scopes[f][:-1])
        check_cpt(
            tables[f],
            name,
            parents[name],
            lambda p, i: str(i),
            f"{label}, function {f} (the CPT of variable {v})",
            atol,
        )
        cpts[name] = tables[f]
    try:
        return DiscreteBayesianNetwork(parents, states, cpts, atol=atol)
    except ValueError as error:  # a cycle
        raise ValueError(f"{label}: {error}") from None


def _lines(table: np.ndarray) -> list[str]:
    """The numbers of a table in C order, one row of its last axis to a line (a constant: one line)."""
    rows = table.reshape(-1, table.shape[-1] if table.ndim else 1)
    return [" " + " ".join(map(number, row)) for row in rows]


def write_uai(
    network: DiscreteBayesianNetwork | DiscreteMarkovNetwork,
    path_or_file: str | os.PathLike[str] | IO[Any] | None = None,
) -> str | None:
    """Write a Bayesian network (as ``BAYES``) or a Markov network (as ``MARKOV``) in the UAI format.

    Parameters
    ----------
    network : DiscreteBayesianNetwork or DiscreteMarkovNetwork
        A fitted model that is one network gives it by ``model.to_bayesian_network()`` (the
        classifiers of :mod:`graphmodels.models.export`) or ``model.to_markov_network()``
        (:class:`HyperforestDensity`, :class:`HyperforestClassifier`, :class:`KikuchiBayes`);
        the models that are several networks give them by ``to_bayesian_networks()``
        (:class:`ChowLiu`) or ``member_networks()`` (:class:`AODE`, :class:`AnDE`).
    path_or_file : str, os.PathLike, file object or None, default=None
        Where to write; a path ending in ``.gz`` is gzip-compressed. A path is written
        atomically (a temporary file beside it replaces it once complete: a failed write
        leaves the previous file). With None, the text is returned.

    Returns
    -------
    text : str or None
        The text when `path_or_file` is None.

    Raises
    ------
    TypeError
        If `network` is neither a DiscreteBayesianNetwork nor a DiscreteMarkovNetwork.

    See Also
    --------
    read_uai, write_bif, write_xmlbif

    Notes
    -----
    Variables are numbered in the order of ``network.variables`` and their states by code;
    the names are not written (the format has no place for them). A Bayesian network gets one
    function per variable, in that order, its scope the parents (in ``parents[v]`` order) and
    then the variable, its table written one distribution per line. A Markov network's
    functions are its factors in order, each table one row of its last axis per line. Numbers
    are written with ``repr`` (17 significant digits), so :func:`read_uai` gives back the same
    tables exactly.

    Examples
    --------
    >>> bn = DiscreteBayesianNetwork(
    ...     {"rain": (), "wet": ("rain",)},
    ...     {"rain": ["no", "yes"], "wet": ["no", "yes"]},
    ...     {"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]},
    ... )
    >>> print(write_uai(bn))
    BAYES
    2
    2 2
    2
    1 0
    2 0 1
    <BLANKLINE>
    2
     0.8 0.2
    4
     0.9 0.1
     0.2 0.8
    <BLANKLINE>
    >>> read_uai(write_uai(bn)).cpts["1"].tolist()
    [[0.9, 0.1], [0.2, 0.8]]
    """
    if isinstance(network, DiscreteBayesianNetwork):
        kind = "BAYES"
        scopes = [(*network.parents[v], v) for v in network.variables]
        tables = [network.cpts[v] for v in network.variables]
    elif isinstance(network, DiscreteMarkovNetwork):
        kind = "MARKOV"
        scopes = [scope for scope, _ in network.factors]
        tables = [table for _, table in network.factors]
    else:
        hint = ""
        if hasattr(network, "to_bayesian_network"):
            hint = "; write model.to_bayesian_network()"
        elif hasattr(network, "to_markov_network"):
            hint = "; write model.to_markov_network()"
        elif hasattr(network, "to_bayesian_networks"):
            hint = "; write each network of model.to_bayesian_networks()"
        elif hasattr(network, "member_networks"):
            hint = "; write each network of model.member_networks()"
        raise TypeError(
            f"`network` must be a DiscreteBayesianNetwork or a DiscreteMarkovNetwork, got {type(network).__name__}"
            f"{hint}."
        )
    index = {v: j for j, v in enumerate(network.variables)}
    lines = [kind, str(len(network.variables)), " ".join(str(network.cardinalities[v]) for v in network.variables)]
    lines.append(str(len(scopes)))
    lines.extend(" ".join(map(str, [len(scope), *(index[v] for v in scope)])) for scope in scopes)
    lines.append("")
    for table in tables:
        lines.append(str(table.size))
        lines.extend(_lines(np.asarray(table)))
    return write_output("\n".join(lines) + "\n", path_or_file)

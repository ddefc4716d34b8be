"""Reading and writing Bayesian networks in the Interchange Format (BIF).

The Interchange Format [1]_ (BIF 0.15) is the text format of the Bayesian
network repositories (bnlearn's, among others)::

    network alarm { }
    variable HISTORY {
      type discrete [ 2 ] { TRUE, FALSE };
    }
    probability ( HISTORY | LVFAILURE ) {
      (TRUE) 0.9, 0.1;
      (FALSE) 0.01, 0.99;
    }
    probability ( LVFAILURE ) {
      table 0.05, 0.95;
    }

The reader accepts ``//`` and ``/* */`` comments, quoted names (which may
hold spaces), ``,`` and ``|`` as optional separators (so the JavaBayes form
``probability ( child parent1 parent2 )`` also reads), ``property`` lines
(ignored), ``default`` rows and ``table`` lists for conditional CPTs.

**Order of a ``table`` list.**  The numbers run over the variables of the
probability block in C order, the first variable (the child) varying slowest
and the last parent fastest: all values for the child's first state, then all
for its second, and so on. This is the convention of JavaBayes, which wrote
the format's reference files (its ``dog-problem.bif`` has
``probability ( light-on family-out ) { table 0.6 0.05 0.4 0.95; }`` for
``P(light-on = true | family-out = true) = 0.6`` and
``P(light-on = true | family-out = false) = 0.05``), and of pgmpy's
``BIFReader`` and ``BIFWriter``, which reshape a ``table`` to
``(r_child, prod(r_parents))``. For a root variable the order question does
not arise. :func:`write_bif` writes one row per parent configuration, never a
conditional ``table``, so its output means the same under any convention.

References
----------
.. [1] Cozman, F. G. (1998). The Interchange Format for Bayesian Networks
       (version 0.15). https://www.cs.cmu.edu/~fgcozman/Research/InterchangeFormat/
.. [2] Beinlich, I. A., Suermondt, H. J., Chavez, R. M., & Cooper, G. F.
       (1989). The ALARM monitoring system: a case study with two
       probabilistic inference techniques for belief networks. In *Proceedings
       of the 2nd European Conference on Artificial Intelligence in Medicine*,
       247-256. Springer.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import re
from array import array
from importlib import resources
from operator import itemgetter
from typing import IO, Any

import numpy as np

from .._files import DEFAULT_MAX_BYTES
from .._memory import DEFAULT_MAX_CELLS, check_cells, describe_variables
from ..networks.bayesnet import SUM_TOLERANCE, DiscreteBayesianNetwork
from ._interchange import decode, number, plain_numbers, read_source, write_output

__all__ = ["read_bif", "write_bif", "load_network", "list_networks"]

#: What separates tokens, and is dropped: white space, ``,`` and ``|``, ``//`` and ``/* */`` comments.
_SKIP = re.compile(r"(?:[\s,|]+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
#: One token: a quoted name, a punctuation mark, or a word (any other run up to a separator).
_TOKEN = re.compile(r'(?P<name>"[^"\n]*")|(?P<punct>[{}()\[\];])|(?P<word>(?:[^\s{}()\[\];,|"/]|/(?![/*]))+)')
#: Comments and quoted names, and (group ``open``) a comment or quote that is never closed.
_LEXICAL = re.compile(r'//[^\n]*|/\*.*?\*/|"[^"\n]*"|(?P<open>/\*|")', re.DOTALL)
_OPENER = re.compile(r'[/"]')

# The fast path of a probability block's body: its rows, ``default`` and ``table`` lists matched
# by regular expressions and their numbers parsed by numpy. Anything else (a comment, a
# ``property``, ``nan``, an error) is left to the careful token-by-token path.
_SEP = r"[\s,|]"
_SEPARATORS = re.compile(rf"{_SEP}*")
_PLAIN_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_LABEL = r'(?:"[^"\n]*"|[^\s{}()\[\];,|"/]+)'
_TABLE_BODY = re.compile(rf"{_SEP}*(?i:table)(?={_SEP}|;)([^;]*);{_SEP}*")
#: Characters of rows matched at a time (bounds the memory of the row texts held).
_BATCH_CHARS = 1 << 20


def _check_lexical(text):
    """Raise the error of the first quoted name or ``/*`` comment that is never closed, with its line."""
    if '"' not in text and "/*" not in text:
        return
    position = 0
    while True:
        found = _OPENER.search(text, position)
        if found is None:
            return
        match = _LEXICAL.match(text, found.start())
        if match is None:  # a '/' that opens no comment
            position = found.start() + 1
            continue
        if match.group("open") is not None:
            line = text.count("\n", 0, match.start()) + 1
            what = "/* comment" if match.group("open") == "/*" else "quoted name"
            raise ValueError(f"BIF line {line}: unterminated {what}.")
        position = match.end()


class _Token:
    __slots__ = ("text", "kind", "line")

    def __init__(self, text, kind, line):
        self.text = text
        self.kind = kind  # "word", "name" (quoted), "punct", "end"
        self.line = line

    def __repr__(self):
        return f"_Token({self.text!r}, {self.kind!r}, line {self.line})"


class _Parser:
    """Tokens of BIF text read one at a time (the text is never split into a list of tokens).

    The text has passed :func:`_check_lexical`, so that every position between tokens starts one.
    """

    def __init__(self, text):
        self.text = text
        self.pos = 0  # where the next token is looked for
        self.line = 1  # the line of `pos`
        self._peeked = None

    def _read(self):
        text = self.text
        end = _SKIP.match(text, self.pos).end()
        if end != self.pos:
            self.line += text.count("\n", self.pos, end)
            self.pos = end
        if end >= len(text):
            return _Token("end of input", "end", self.line)
        match = _TOKEN.match(text, end)
        if match is None:  # pragma: no cover (_check_lexical has refused what no token matches)
            raise ValueError(f"BIF line {self.line}: unexpected character {text[end]!r}.")
        self.pos = match.end()  # no token holds a newline
        if match.lastgroup == "name":
            return _Token(match.group()[1:-1].strip(), "name", self.line)
        return _Token(match.group(), match.lastgroup, self.line)

    def peek(self):
        if self._peeked is None:
            self._peeked = self._read()
        return self._peeked

    def next(self):
        token = self.peek()
        if token.kind != "end":
            self._peeked = None
        return token

    def seek(self, pos, line):
        """Read on from `pos`, which is on `line`."""
        self.pos, self.line, self._peeked = pos, line, None

    def error(self, message, token=None):
        token = token or self.peek()
        return ValueError(f"BIF line {token.line}: {message}")

    def expect(self, text):
        token = self.next()
        if token.kind != "punct" or token.text != text:
            raise self.error(f"expected {text!r}, got {token.text!r}.", token)
        return token

    def name(self, what):
        token = self.next()
        if token.kind not in ("word", "name") or not token.text:
            raise self.error(f"expected {what}, got {token.text!r}.", token)
        return token

    def at(self, text):
        token = self.peek()
        return token.kind == "punct" and token.text == text

    def keyword(self, text):
        token = self.peek()
        return token.kind == "word" and token.text.lower() == text

    def skip_statement(self):
        """Skip a ``property ...;`` statement (any tokens up to ``;``)."""
        start = self.next()
        while not self.at(";"):
            if self.peek().kind == "end":
                raise self.error(f"{start.text!r} statement is not closed by ';'.", start)
            self.next()
        self.next()

    def numbers(self, what):
        values = array("d")  # 8 bytes a number, not a list of Python floats
        while not self.at(";"):
            token = self.next()
            if token.kind == "end":
                raise self.error(f"{what} is not closed by ';'.", token)
            try:
                if token.kind != "word":
                    raise ValueError
                values.append(float(token.text))
            except ValueError:
                raise self.error(f"expected a probability in {what}, got {token.text!r}.", token) from None
        self.next()
        return values

    def plain_body_end(self):
        """Where the block body that starts at `pos` ends (its ``}``), if the fast path may read it.

        None when the body holds a comment or a brace, or when the first ``}`` may lie inside a
        quoted name (an odd number of quotes before it): the careful path then finds the end.
        """
        text, start = self.text, self.pos
        close = text.find("}", start)
        if close < 0 or text.find("{", start, close) >= 0 or text.find("/", start, close) >= 0:
            return None
        if text.count('"', start, close) % 2:
            return None
        return close


def _careful_block(p, child, start, keep):
    """Read a probability block's body token by token, through its ``}`` (the reader's whole grammar).

    Returns the block's rows, ``table`` and ``default`` lists (with `keep`), or checks its syntax
    only (without); every error names its line.
    """
    block = {"rows": [], "table": None, "default": None}
    while not p.at("}"):
        token = p.peek()
        if p.at("("):
            p.next()
            labels = []
            while not p.at(")"):
                labels.append(p.name(f"a parent state in the probability block of {child!r}").text)
            p.expect(")")
            values = p.numbers(f"the row of {child!r}")
            if keep:
                block["rows"].append((labels, values, token.line))
        elif p.keyword("table") or p.keyword("default"):
            which = p.next().text.lower()
            if block[which] is not None:
                raise p.error(f"second {which!r} list in the probability block of {child!r}.", token)
            values = p.numbers(f"the {which} list of {child!r}")
            block[which] = (values if keep else array("d"), token.line)
        elif p.keyword("property"):
            p.skip_statement()
        elif token.kind == "end":
            raise p.error(f"probability block of {child!r} is not closed by '}}'.", start)
        else:
            raise p.error(f"unexpected {token.text!r} in the probability block of {child!r}.")
    p.expect("}")
    return block


def _check_distribution(values, child, line, atol):
    total = float(np.sum(values))
    if np.any(~np.isfinite(values)) or np.any(np.asarray(values) < 0):
        raise ValueError(f"BIF line {line}: probabilities of {child!r} must be finite and >= 0, got {list(values)}.")
    if abs(total - 1.0) > atol:
        raise ValueError(f"BIF line {line}: probabilities of {child!r} sum to {total!r}, not 1: {list(values)}.")


def _check_rows(table, rows, child, line, atol):
    """:func:`_check_distribution` of the rows `rows` of `table` (n, r) in order, vectorized.

    The rows whose sum is not within ``atol`` of 1 by a margin, or that hold a negative or
    non-finite number, are checked one by one, exactly as a single row is.
    """
    part = table[rows]
    sums = part.sum(axis=1)
    with np.errstate(invalid="ignore"):
        suspicious = ~np.isfinite(sums) | (part < 0).any(axis=1) | (np.abs(sums - 1.0) > atol * (1 - 1e-6))
    for k in rows[np.flatnonzero(suspicious)]:
        _check_distribution(table[k], child, line, atol)


class _Family:
    """A probability block's variables, checked against the declared ones and the cell budget."""

    def __init__(self, child, parents, states, line, max_cells):
        for v in (child,) + parents:
            if v not in states:
                raise ValueError(f"BIF line {line}: probability block names {v!r}, which has no variable block.")
        if len(set(parents)) != len(parents) or child in parents:
            raise ValueError(
                f"BIF line {line}: probability block of {child!r} repeats a variable: {(child,) + parents}."
            )
        self.child, self.parents, self.line, self.states = child, parents, line, states
        self.r = len(states[child])
        self.pcards = tuple(len(states[q]) for q in parents)
        # Python integers: a product of many parents' states must not overflow before the check.
        self.n_configs = math.prod(self.pcards)
        check_cells(
            self.n_configs * self.r,
            max_cells,
            what=f"table of {child!r} ({self.r} states) given "
            f"{describe_variables(parents, self.pcards) or 'nothing'} (BIF line {line})",
            fix="check the file",
        )


def _build_cpt(family, block, atol):
    """The CPT of a block read by :func:`_careful_block`, every row checked in the file's order."""
    child, parents, states = family.child, family.parents, family.states
    r, pcards, n_configs = family.r, family.pcards, family.n_configs
    table = np.full((n_configs, r), np.nan)
    if block["table"] is not None:
        if block["rows"] or block["default"] is not None:
            raise ValueError(
                f"BIF line {block['table'][1]}: probability block of {child!r} mixes a 'table' list "
                "with rows or a 'default' list."
            )
        values, tline = block["table"]
        if len(values) != n_configs * r:
            raise ValueError(
                f"BIF line {tline}: the table of {child!r} needs {n_configs * r} numbers "
                f"({r} states x {n_configs} parent configurations), got {len(values)}."
            )
        # Child slowest, last parent fastest (JavaBayes / pgmpy convention, see module docstring).
        table = np.asarray(values, dtype=np.float64).reshape(r, n_configs).T.copy()
        _check_rows(table, np.arange(n_configs), child, tline, atol)
    index = {q: {s: i for i, s in enumerate(states[q])} for q in parents}
    for labels, values, rline in block["rows"]:
        if len(labels) != len(parents):
            raise ValueError(
                f"BIF line {rline}: a row of {child!r} must name {len(parents)} parent state(s) "
                f"({', '.join(parents) or 'none'}), got {len(labels)}: {labels}."
            )
        codes = []
        for q, label in zip(parents, labels):
            if label not in index[q]:
                raise ValueError(
                    f"BIF line {rline}: {label!r} is not a state of {q!r} (a parent of {child!r}); "
                    f"expected one of {states[q]}."
                )
            codes.append(index[q][label])
        if len(values) != r:
            raise ValueError(
                f"BIF line {rline}: the row of {child!r} needs {r} probabilities (one per state), got {len(values)}."
            )
        k = int(np.ravel_multi_index(tuple(codes), pcards)) if parents else 0
        if not np.isnan(table[k, 0]):
            raise ValueError(f"BIF line {rline}: second row for {child!r} given {tuple(labels)}.")
        _check_distribution(values, child, rline, atol)
        table[k] = values
    if block["default"] is not None:
        values, dline = block["default"]
        if len(values) != r:
            raise ValueError(
                f"BIF line {dline}: the default row of {child!r} needs {r} probabilities, got {len(values)}."
            )
        _check_distribution(values, child, dline, atol)
        table[np.isnan(table[:, 0])] = values
    unset = np.flatnonzero(np.isnan(table[:, 0]))
    if unset.size:
        config = np.unravel_index(int(unset[0]), pcards) if parents else ()
        labels = tuple(states[q][i] for q, i in zip(parents, config))
        raise ValueError(
            f"BIF line {family.line}: probability block of {child!r} has no row for parent states {labels}"
            f"{f' ({unset.size} of {n_configs} missing)' if unset.size > 1 else ''}."
        )
    return table.reshape(pcards + (r,))


@functools.lru_cache(maxsize=64)
def _row_pattern(n_parents, default):
    """A row ``(label, ...) numbers;`` (or ``default numbers;``): groups whole row, labels, default, numbers.

    Without `default` the group of the keyword is always empty (and the pattern a third faster).
    """
    labels = rf"{_SEP}+".join([f"({_LABEL})"] * n_parents)
    if not default:
        return re.compile(rf"({_SEP}*\({_SEP}*{labels}{_SEP}*\)()([^;()]*);)")
    return re.compile(rf"({_SEP}*(?:\({_SEP}*{labels}{_SEP}*\)|((?i:default))(?={_SEP}))([^;()]*);)")


#: Put between the rows' runs of numbers parsed in one numpy call: it reads as +inf, which no
#: plain probability is (a number too large to be a float, 1e999, is; its row is then read carefully).
_ROW_END = " 1e999 "


class _Refused(Exception):
    """The fast path found an error in a ``table`` list; it is raised in the file's order of checks."""

    def __init__(self, error):
        self.error = error


def _fast_table(text, start, end, line, family, atol):
    """The CPT of the block body ``text[start:end]`` (on `line`) read by regular expressions and numpy.

    Returns None when the body is not plain rows, a ``default`` row or a ``table`` list of
    plain numbers, or when something in it is wrong: the careful path then reads the block and
    names the error. Raises :class:`_Refused` with the error of a ``table`` list of the wrong
    length or holding a distribution that is not one (the careful path would only be slower).
    """
    child, r, n_configs, pcards = family.child, family.r, family.n_configs, family.pcards
    whole = _TABLE_BODY.fullmatch(text, start, end)
    if whole is not None:
        values = plain_numbers(whole.group(1))
        if values is None:
            return None
        tline = line + text.count("\n", start, whole.start(1))
        try:
            if values.size != n_configs * r:
                raise ValueError(
                    f"BIF line {tline}: the table of {child!r} needs {n_configs * r} numbers "
                    f"({r} states x {n_configs} parent configurations), got {values.size}."
                )
            # Child slowest, last parent fastest (JavaBayes / pgmpy convention, see module docstring).
            table = values.reshape(r, n_configs).T.copy()
            _check_rows(table, np.arange(n_configs), child, tline, atol)
        except ValueError as error:
            raise _Refused(error) from None
        return table.reshape(pcards + (r,))
    # Rows: matched a batch at a time by one findall (no Python loop over rows), their labels
    # coded by dictionary lookups mapped over each parent's column, their numbers parsed by
    # one numpy call with a sentinel after each row, so that every row's count is checked.
    n_parents = len(family.parents)
    # "default" in any case but the rarest ("dEfault" is then read carefully).
    pattern = _row_pattern(n_parents, text.find("efault", start, end) >= 0 or text.find("EFAULT", start, end) >= 0)
    codes = [{s: i for i, s in enumerate(family.states[q])} for q in family.parents]
    quoted = text.find('"', start, end) >= 0
    table = np.empty((n_configs, r))
    filled = np.zeros(n_configs, dtype=np.int64)
    default = None
    low = start
    while low < end:
        # A batch ends at a ';' (a row's end, unless inside a quoted name: then the rows do not
        # tile the batch, and the careful path reads the block).
        high = text.find(";", min(low + _BATCH_CHARS, end - 1), end) + 1 or end
        rows = pattern.findall(text, low, high)
        tail = _SEPARATORS.match(text, low + sum(map(len, map(itemgetter(0), rows))), high)
        if tail is None or tail.end() != high:
            return None
        low = high
        if not rows:
            continue
        defaults = list(map(itemgetter(n_parents + 1), rows))
        if defaults.count("") != len(rows):
            if len(rows) - defaults.count("") > 1 or default is not None:
                return None
            at = next(i for i, d in enumerate(defaults) if d)
            default = rows.pop(at)[n_parents + 2]
            if not rows:
                continue
        flat = np.zeros(len(rows), dtype=np.int64)
        for j, (mapping, cardinality) in enumerate(zip(codes, pcards)):
            labels = list(map(itemgetter(j + 1), rows))
            if quoted:
                labels = [label[1:-1].strip() if label[:1] == '"' else label for label in labels]
            column = list(map(mapping.get, labels))
            if None in column:
                return None
            flat *= cardinality
            flat += np.array(column, dtype=np.int64)
        values = plain_numbers(_ROW_END.join(map(itemgetter(n_parents + 2), rows)) + _ROW_END)
        if values is None or values.size != len(rows) * (r + 1):
            return None
        values = values.reshape(len(rows), r + 1)
        if not np.all(values[:, r] == np.inf) or np.isinf(values[:, :r]).any():
            return None
        table[flat] = values[:, :r]
        np.add.at(filled, flat, 1)
    if np.any(filled > 1):  # a second row for a configuration
        return None
    done = filled.astype(bool)
    written = np.flatnonzero(done)
    try:
        _check_rows(table, written, child, line, atol)
        if default is not None:
            values = plain_numbers(default)
            if values is None or values.size != r:
                return None
            _check_distribution(values, child, line, atol)
            table[~done] = values
    except ValueError:  # named with its row's line by the careful path
        return None
    if default is None and written.size != n_configs:
        return None
    return table.reshape(pcards + (r,))


def _parse(text, atol, max_cells):
    """Read BIF text: the network's name, its variables, and each variable's parents and CPT.

    The checks come in the order the reader always made them: the syntax of the whole text
    first (an unclosed quote or comment before anything), then each probability block against
    the declared variables, in the order of the variables. A plain probability block whose
    variables are declared before it (as every tool writes them) is read into its CPT at once
    by the fast path, its size checked against `max_cells` first (a :class:`TableTooLargeError`
    is raised at once); any other block is checked for syntax, kept as a place in the text and
    read by the careful path once all variables are known.
    """
    _check_lexical(text)
    p = _Parser(text)
    name = None
    variables = {}  # name -> (states, line)
    states_of = {}  # name -> states
    blocks = {}  # child -> {"parents", "line", then "cpt", "refused" (an error) or "body" (where to read it)}
    while p.peek().kind != "end":
        token = p.peek()
        if p.keyword("network"):
            p.next()
            name = p.name("a network name").text
            p.expect("{")
            while not p.at("}"):
                if p.peek().kind == "end":
                    raise p.error("network block is not closed by '}'.", token)
                p.skip_statement()
            p.expect("}")
        elif p.keyword("variable"):
            p.next()
            var = p.name("a variable name")
            if var.text in variables:
                raise p.error(f"variable {var.text!r} is declared twice.", var)
            p.expect("{")
            states = None
            while not p.at("}"):
                if p.keyword("type"):
                    start = p.next()
                    kind = p.name("a variable type")
                    if kind.text.lower() != "discrete":
                        raise p.error(
                            f"variable {var.text!r} has type {kind.text!r}; only 'discrete' is supported.", kind
                        )
                    p.expect("[")
                    size = p.next()
                    if not re.fullmatch(r"\d+", size.text):
                        raise p.error(f"expected the number of states of {var.text!r}, got {size.text!r}.", size)
                    p.expect("]")
                    p.expect("{")
                    states = []
                    while not p.at("}"):
                        states.append(p.name(f"a state of {var.text!r}").text)
                    p.expect("}")
                    p.expect(";")
                    if len(states) != int(size.text):
                        raise p.error(
                            f"variable {var.text!r} declares {size.text} states but lists {len(states)}: {states}.",
                            start,
                        )
                    if len(set(states)) != len(states):
                        raise p.error(f"variable {var.text!r} lists a state twice: {states}.", start)
                elif p.keyword("property"):
                    p.skip_statement()
                elif p.peek().kind == "end":
                    raise p.error(f"variable block of {var.text!r} is not closed by '}}'.", var)
                else:
                    raise p.error(f"unexpected {p.peek().text!r} in the variable block of {var.text!r}.")
            p.expect("}")
            if states is None:
                raise p.error(f"variable {var.text!r} has no 'type discrete [n] {{...}};' line.", var)
            variables[var.text] = (states, var.line)
            states_of[var.text] = states
        elif p.keyword("probability"):
            start = p.next()
            p.expect("(")
            names = []
            while not p.at(")"):
                names.append(p.name("a variable name in the probability header").text)
            p.expect(")")
            if not names:
                raise p.error("probability block names no variable.", start)
            child, parents = names[0], tuple(names[1:])
            if child in blocks:
                raise p.error(f"second probability block for {child!r}.", start)
            p.expect("{")
            block = blocks[child] = {"parents": parents, "line": start.line, "body": (p.pos, p.line, start)}
            family = None
            if all(v in variables for v in names) and len(set(names)) == len(names):
                family = _Family(child, parents, states_of, start.line, max_cells)  # the size, before any reading
            end = p.plain_body_end() if family is not None else None
            if end is not None:
                body, line = p.pos, p.line
                try:
                    block["cpt"] = _fast_table(text, body, end, line, family, atol)
                except _Refused as refused:
                    block["refused"] = refused.error
                if "refused" in block or block["cpt"] is not None:
                    p.seek(end, line + text.count("\n", body, end))
                    p.expect("}")
                    continue
            _careful_block(p, child, start, keep=False)  # the syntax now, the CPT in the variables' order
        else:
            raise p.error(f"expected 'network', 'variable' or 'probability', got {token.text!r}.")
    for child, block in blocks.items():
        if child not in variables:
            raise ValueError(f"BIF line {block['line']}: probability block for {child!r}, which has no variable block.")
    if not variables:
        raise ValueError(
            f"BIF line {p.line}: no variable is declared (the text is empty or its network is); a network needs "
            "at least one 'variable' block."
        )
    for v, (_, line) in variables.items():
        if v not in blocks:
            raise ValueError(f"BIF line {line}: variable {v!r} has no probability block (missing CPT).")
    cpts = {}
    for v in variables:
        block = blocks[v]
        if "refused" in block:
            raise block["refused"]
        if block.get("cpt") is None:
            family = _Family(v, block["parents"], states_of, block["line"], max_cells)
            body, line, start = block["body"]
            end = None
            if "cpt" not in block:  # the fast path has not seen it (its variables came later)
                p.seek(body, line)
                end = p.plain_body_end()
            if end is not None:
                try:
                    block["cpt"] = _fast_table(text, body, end, line, family, atol)
                except _Refused as refused:
                    raise refused.error from None
            if block.get("cpt") is None:
                p.seek(body, line)
                block["cpt"] = _build_cpt(family, _careful_block(p, v, start, keep=True), atol)
        cpts[v] = block.pop("cpt")
    return name, variables, {v: blocks[v]["parents"] for v in variables}, cpts


def _looks_like_text(source):
    return "network" in source and "{" in source


def read_bif(
    source: str | os.PathLike[str] | bytes | bytearray | IO[Any],
    *,
    atol: float = SUM_TOLERANCE,
    max_cells: int = DEFAULT_MAX_CELLS,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> DiscreteBayesianNetwork:
    """Read a Bayesian network in the Interchange Format (BIF).

    Parameters
    ----------
    source : str, os.PathLike, bytes, bytearray or file object
        A path (gzip, bzip2 and xz files, e.g. ``.bif.gz``, are decompressed
        as they are read), an open file (text or binary), or a string of BIF
        text (a string containing ``network`` and ``{`` is taken as text, any
        other as a path).
    atol : float, default=1e-6
        Tolerance of the check that every distribution sums to 1; the CPTs are
        then renormalized exactly.
    max_cells : int, default=10_000_000
        Largest conditional table (parent configurations x states) to build,
        checked as soon as the block's header is read: a ``default`` row fills
        every configuration, so a short file can describe a huge table.
    max_bytes : int, default=536_870_912 (512 MiB)
        The most bytes of text to read (after decompression): a larger file is
        refused with :class:`FileTooLargeError` (a ValueError) as soon as its
        reading passes the limit, so that a small compressed file cannot fill
        the memory. Raise it for a trusted file that is larger.

    Returns
    -------
    network : DiscreteBayesianNetwork
        Variables in the order of their ``variable`` blocks; parents in the
        order of each ``probability`` header.

    Raises
    ------
    ValueError
        On malformed text, no variable (an empty file or network), an unknown
        state or variable, a probability row of the wrong length or not
        summing to 1, a missing probability block or row, or a cycle; the
        message gives the line number where there is one.
    TableTooLargeError
        If a table would exceed `max_cells` (a ValueError too), before it is allocated.
    FileTooLargeError
        If the text exceeds `max_bytes` (a ValueError too).
    TypeError
        If `source` has an unsupported type.

    See Also
    --------
    write_bif, load_network

    Notes
    -----
    See the module docstring for the grammar and for the order of the
    numbers of a conditional ``table`` list (child slowest, last parent
    fastest, as in JavaBayes and pgmpy).

    The text is read token by token, never split into a list of tokens;
    the rows and ``table`` lists of a probability block are matched by
    regular expressions a batch at a time and their numbers parsed by
    numpy, so that memory stays near the size of the text and the tables
    (``benchmarks/bench_readers.py``). A block that holds anything else
    (comments, ``property`` lines, ``nan``) or an error is read token by
    token; the errors, and their order, are those of a reader that checks
    the syntax of the whole text before the blocks' contents.

    References
    ----------
    .. [1] Cozman, F. G. (1998). The Interchange Format for Bayesian Networks
           (version 0.15). https://www.cs.cmu.edu/~fgcozman/Research/InterchangeFormat/

    Examples
    --------
    >>> text = '''
    ... network rain { }
    ... variable rain { type discrete [ 2 ] { no, yes }; }
    ... variable wet { type discrete [ 2 ] { no, yes }; }
    ... probability ( rain ) { table 0.8, 0.2; }
    ... probability ( wet | rain ) { (no) 0.9, 0.1; (yes) 0.2, 0.8; }
    ... '''
    >>> bn = read_bif(text)
    >>> bn.variables, bn.parents["wet"]
    (['rain', 'wet'], ('rain',))
    >>> bn.cpts["wet"].tolist()
    [[0.9, 0.1], [0.2, 0.8]]
    """
    content, _ = read_source(source, "BIF", _looks_like_text, max_bytes)
    text = decode(content)
    del content
    name, variables, parents, cpts = _parse(text, atol, max_cells)
    del text
    return DiscreteBayesianNetwork(
        parents, {v: states for v, (states, _) in variables.items()}, cpts, name=name, atol=atol
    )


_PLAIN = re.compile(r"[A-Za-z0-9_.+\-]+")


def _quote(name):
    if _PLAIN.fullmatch(name):
        return name
    if '"' in name or "\n" in name or name != name.strip() or not name:
        raise ValueError(f"name {name!r} cannot be written in BIF (it holds a quote, a newline or edge spaces).")
    return f'"{name}"'


def write_bif(
    network: DiscreteBayesianNetwork, path_or_file: str | os.PathLike[str] | IO[Any] | None = None
) -> str | None:
    """Write a network in the Interchange Format (BIF).

    Parameters
    ----------
    network : DiscreteBayesianNetwork
    path_or_file : str, os.PathLike, file object or None, default=None
        Where to write; a path ending in ``.gz`` is gzip-compressed. A path
        is written atomically (a temporary file beside it replaces it once
        complete: a failed write leaves the previous file). With None, the
        text is returned.

    Returns
    -------
    text : str or None
        The BIF text when `path_or_file` is None.

    Notes
    -----
    Root variables get a ``table`` list, others one row per parent
    configuration. Probabilities are written with ``repr`` (17 significant
    digits), so :func:`read_bif` gives back the same CPTs exactly. Names that
    are not plain words are quoted.

    Examples
    --------
    >>> bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y z"]}, {"a": [0.25, 0.75]})
    >>> print(write_bif(bn))
    network unknown {
    }
    variable a {
      type discrete [ 2 ] { x, "y z" };
    }
    probability ( a ) {
      table 0.25, 0.75;
    }
    <BLANKLINE>
    >>> read_bif(write_bif(bn)).cpts["a"].tolist()
    [0.25, 0.75]
    """
    if not isinstance(network, DiscreteBayesianNetwork):
        raise TypeError(f"`network` must be a DiscreteBayesianNetwork, got {type(network).__name__}.")
    lines = [f"network {_quote(network.name) if network.name else 'unknown'} {{", "}"]
    for v in network.variables:
        states = ", ".join(_quote(s) for s in network.states[v])
        lines += [f"variable {_quote(v)} {{", f"  type discrete [ {len(network.states[v])} ] {{ {states} }};", "}"]
    for v in network.variables:
        parents = network.parents[v]
        cpt = network.cpts[v]
        if not parents:
            lines += [f"probability ( {_quote(v)} ) {{", f"  table {', '.join(map(number, cpt))};", "}"]
            continue
        lines.append(f"probability ( {_quote(v)} | {', '.join(_quote(q) for q in parents)} ) {{")
        for config in itertools.product(*(range(network.cardinalities[q]) for q in parents)):
            labels = ", ".join(_quote(network.states[q][i]) for q, i in zip(parents, config))
            lines.append(f"  ({labels}) {', '.join(map(number, cpt[config]))};")
        lines.append("}")
    return write_output("\n".join(lines) + "\n", path_or_file)


def list_networks() -> list[str]:
    """Names of the Bayesian networks bundled with graphmodels.

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> list_networks()
    ['alarm']
    """
    folder = resources.files("graphmodels.data") / "bundled" / "networks"
    return sorted(entry.name[: -len(".bif.gz")] for entry in folder.iterdir() if entry.name.endswith(".bif.gz"))


def load_network(name: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> DiscreteBayesianNetwork:
    """Load a Bayesian network bundled with graphmodels.

    Parameters
    ----------
    name : str
        Network name, case-insensitive; see :func:`list_networks`. Bundled:
        ``"alarm"``, the ALARM monitoring network [1]_ (37 variables, 46 arcs),
        as distributed by the bnlearn repository (copy from pgmpy 1.1.2).
    max_bytes : int, default=536_870_912 (512 MiB)
        The most bytes of text to read, after decompression (see :func:`read_bif`).

    Returns
    -------
    network : DiscreteBayesianNetwork

    Raises
    ------
    ValueError
        If `name` is not a bundled network; the message lists the valid names.

    References
    ----------
    .. [1] Beinlich, I. A., Suermondt, H. J., Chavez, R. M., & Cooper, G. F.
           (1989). The ALARM monitoring system: a case study with two
           probabilistic inference techniques for belief networks. In
           *Proceedings of the 2nd European Conference on Artificial
           Intelligence in Medicine*, 247-256. Springer.

    Examples
    --------
    >>> alarm = load_network("alarm")
    >>> len(alarm.variables), alarm.n_edges
    (37, 46)
    """
    if not isinstance(name, str):
        raise TypeError(f"`name` must be a string, got {type(name).__name__}.")
    available = list_networks()
    key = name.strip().lower()
    if key not in available:
        raise ValueError(f"unknown network {name!r}; expected one of {available}.")
    path = resources.files("graphmodels.data") / "bundled" / "networks" / f"{key}.bif.gz"
    with path.open("rb") as fh:
        return read_bif(fh, max_bytes=max_bytes)

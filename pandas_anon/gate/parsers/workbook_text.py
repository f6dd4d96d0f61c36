"""The text a workbook stores outside its sheets' cells, counted by a walk of its own parts.

A workbook (``.xlsx``, ``.ods``) is a zip archive of parts, and the cells its sheets show are
only some of the strings it stores: document properties, comments, links, names, the literal
text of number formats, headers and footers, data validation lists, shared strings no cell
uses, text inside formulas. :func:`pandas_anon.gate.formats.workbook_parts` sorts every part:
a sheet read, a part whose text is counted here (:data:`~pandas_anon.gate.formats.TEXT_PARTS`),
a part holding no free text, or a part left over (an embedded file, a pivot cache: it fails
the file unless a rule skips it). Each part counted is parsed here as XML, streamed (nothing
of it kept but counts), apart from pandas' reading of the cells: every text node, XML comment
and attribute value a part holds is either a value pandas reads into a cell, structure (a
number, a cell reference, a relationship's id, a keyword of the format), or text outside the
table, counted in characters by kind (:data:`REASONS`): ``book.xlsx:Sheet1:(comments)``.
A part that cannot be parsed (or declares a DTD, whose entities could hold text) is left
over by its name.

Text repeated by design is counted once: each distinct piece of the formulas of cells (a
string literal, a name), each distinct shape (digits aside) of the words an OpenDocument
shows for its cells of numbers and dates. A sheet's cells of the error type holding no
error value are values, not text: :func:`pandas_anon.gate.formats.written_cells` leaves
them over as cells. Nothing here keeps a value: counts only.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import IO

import numpy as np
import pandas as pd

from pandas_anon.gate.formats import ERRORS, Parts
from pandas_anon.gate.parsers.account import CHARACTERS, Account, Leftover

#: Where a workbook's text outside its sheets' cells goes in an account, by kind.
PROPERTIES = "(document properties)"
LINKS = "(links)"
NAMES = "(defined names)"
STYLES = "(styles)"
HEADERS = "(headers and footers)"
UNUSED = "(unused shared strings)"
COMMENTS = "(comments)"
DRAWINGS = "(drawings)"
FORMULAS = "(formulas' text)"
VALIDATION = "(data validation)"
CONDITIONS = "(conditional formats)"
HIDDEN = "(text in cells, not read)"
SHOWN = "(shown text of cells)"
SETTINGS = "(settings)"
OTHER = "(other text)"
#: What each kind of text is, as an account says why it is left over.
REASONS = {
    PROPERTIES: "the document's properties: title, author, keywords, notes, the program's name",
    LINKS: "targets of links: hyperlinks, other files",
    NAMES: "names defined in the workbook and the text of their formulas",
    STYLES: "literal text of number formats, names of custom styles",
    HEADERS: "text printed above and below the pages",
    UNUSED: "text the workbook stores that no cell shows (phonetic guides too)",
    COMMENTS: "cell comments, their authors",
    DRAWINGS: "text of drawings: text boxes, shapes, descriptions of images",
    FORMULAS: "text inside the formulas of cells (string literals, names), each piece once",
    VALIDATION: "lists, formulas and messages of data validation",
    CONDITIONS: "formulas and text of conditional formats",
    HIDDEN: "text stored in cells and not read as their values",
    SHOWN: "words shown for cells of numbers and dates, each shape (digits aside) once",
    SETTINGS: "settings of the sheets and the workbook: filters, views, tables, printing",
    OTHER: "other text in the workbook's parts",
}
#: Why a part whose text cannot be counted is left over.
UNPARSED = "cannot be parsed as XML, so the text it holds cannot be counted"
#: What such a part's count is.
PARTS = "workbook parts"

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_CONFIG = "{urn:oasis:names:tc:opendocument:xmlns:config:1.0}"
_XLINK = "{http://www.w3.org/1999/xlink}"
_VML_DATA = "{urn:schemas-microsoft-com:office:excel}ClientData"

_MARKUP = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_RUN_FORMAT = f"{_MAIN}rPr"
#: Attributes of a protection holding its password's hash, encoded: structure, not text.
_PROTECTION = frozenset({"algorithmName", "hashValue", "saltValue", "securityDescriptor"})

#: A GUID (an id, braced or not), structure wherever it is, as part of a text too.
_GUIDS = re.compile(r"\{?[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}\}?")
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_REF = r"\$?[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d+)?|\$?[A-Z]{1,3}:\$?[A-Z]{1,3}|\$?\d+:\$?\d+"
_REFS = rf"(?:{_REF})(?:\s+(?:{_REF}))*"
#: A text node holding structure, not text: a number, a boolean.
_STRUCTURAL_TEXT = re.compile(rf"{_NUMBER}|true|false")
#: An attribute value holding structure: also a relationship's id, a hexadecimal code (a
#: colour, a hash) and a keyword of the format (``portrait``, ``bottomLeft``, ``inlineStr``).
_STRUCTURAL_VALUE = re.compile(
    rf"{_NUMBER}|{_REFS}|rId\d+|[0-9A-Fa-f]{{1,8}}|(?=.{{1,24}}$)[a-z]+(?:[A-Z][a-z]*)*\d*"
)

#: The tokens of a formula (of a ``.xlsx`` cell, or an OpenDocument's ``of:=`` formula):
#: the groups named are the pieces of text it holds, the others its structure.
_FORMULA_TOKENS = re.compile(
    r'"(?P<text>(?:[^"]|"")*)"?'  # a string literal
    r"|'(?P<sheet>(?:[^']|'')*)'?"  # a quoted sheet's name
    r"|(?P<error>#[\w/]+[!?]?)"  # an error value (#N/A), text when no error's
    r"|\$?[A-Za-z]{1,3}\$?\d+(?![\w.(])"  # a cell reference
    r"|[^\W\d][\w.]*\s*\("  # a function called
    r"|(?P<name>[^\W\d][\w.\\?]*)"  # a name: a defined name, a table's, a boolean
    r"|\d+\.?\d*(?:[eE][-+]?\d+)?|\s+|."  # a number, spaces, an operator
)
#: The formula's names that are constants.
_BOOLEANS = frozenset({"TRUE", "FALSE"})
#: A ``.xlsx`` number format made of its syntax alone: placeholders of digits, separators,
#: the letters of dates and times, colours and conditions in brackets, a locale.
_FORMAT_SYNTAX = re.compile(
    r"(?:General|AM/PM|A/P|E[-+]|\[(?:[A-Za-z]+\d*|[<>=]+-?[\d.]+|\$-[0-9A-Fa-f]+|[hms]+)\]"
    r"|[0#?.,%/;:()+\- @ymdhs])*",
    re.IGNORECASE,
)
#: The codes of a ``.xlsx`` header or footer: sections, fonts, sizes, colours, fields.
_HEADER_CODES = re.compile(
    r'&(?:"[^"]*"|\d+|K(?:[0-9A-Fa-f]{6}|\d\d[-+]\d{3})|[LCRPNDTFAZGBIUESXYOH&])'
)
#: The OpenDocument mimetypes of a spreadsheet (its ``mimetype`` part holds one).
_MIMETYPES = frozenset(
    {
        "application/vnd.oasis.opendocument.spreadsheet",
        "application/vnd.oasis.opendocument.spreadsheet-template",
    }
)
#: Bytes of a part read at a time.
_CHUNK = 1 << 16


def leftovers(workbook: pd.ExcelFile, source: str | IO[bytes], parts: Parts) -> list[Leftover]:
    """The text outside the sheets' cells of the workbook ``workbook`` (open on ``source``,
    its parts sorted as ``parts``): a text leftover for each kind holding some (:data:`REASONS`),
    and a leftover for each part that cannot be parsed (:data:`UNPARSED`)."""
    found = _Found()
    if not isinstance(source, str):
        source.seek(0)
    with zipfile.ZipFile(source) as archive:
        names = frozenset(archive.namelist())
        if workbook.engine == "odf":  # type: ignore[attr-defined]  # not in the stubs
            for part in parts.text:
                _walk_part(archive, part, _ODS_WALKERS, found, names)
        else:
            strings = _SharedStrings(found)
            if "xl/sharedStrings.xml" in parts.text:
                _walk(archive, "xl/sharedStrings.xml", strings, found)
            used = np.zeros(len(strings.total), dtype=bool)
            for sheet in parts.sheets:
                _walk(archive, sheet, _Sheet(found, used), found)
            for part in parts.text:
                if part != "xl/sharedStrings.xml":
                    _walk_part(archive, part, _XLSX_WALKERS, found, names)
            found.add(UNUSED, strings.unused(used))
    return found.leftovers()


def fails(text: list[Leftover]) -> bool:
    """Whether the ``text`` a workbook stores outside its sheets' cells (:func:`leftovers`)
    fails it, with no rule skipping any: past the budget, or a part not parsed."""
    parts = {PARTS: sum(not part.text for part in text)}
    return bool(Account("", parts, {}, tuple(text)).open())


# -- counting ---------------------------------------------------------------------------------


class _Found:
    """Characters of text found, by kind; distinct pieces of the kinds counted once; parts
    that could not be parsed."""

    def __init__(self) -> None:
        self.characters: Counter[str] = Counter()
        self.distinct: defaultdict[str, set[str]] = defaultdict(set)
        self.unparsed: list[str] = []

    def add(self, kind: str, characters: int) -> None:
        """Count ``characters`` characters of ``kind``."""
        self.characters[kind] += characters

    def text(self, kind: str, text: str) -> None:
        """Count a text node (spaces around it and GUIDs aside), unless it is structure."""
        text = _GUIDS.sub("", text).strip()
        if text and not _STRUCTURAL_TEXT.fullmatch(text):
            self.characters[kind] += len(text)

    def value(self, kind: str, value: str) -> None:
        """Count an attribute's value (GUIDs aside), unless it is structure."""
        value = _GUIDS.sub("", value)
        if value and not _STRUCTURAL_VALUE.fullmatch(value):
            self.characters[kind] += len(value)

    def formula(self, kind: str, formula: str, *, once: bool = False) -> None:
        """Count the pieces of text of ``formula``; with ``once``, each distinct piece once
        over the workbook."""
        pieces = _pieces(formula)
        if once:
            self.distinct[kind].update(pieces)
        else:
            self.characters[kind] += sum(map(len, pieces))

    def leftovers(self) -> list[Leftover]:
        """What was found, as leftovers: a text one per kind, one per part not parsed."""
        counts = self.characters.copy()
        for kind, pieces in self.distinct.items():
            counts[kind] += sum(map(len, pieces))
        text = [
            Leftover(kind, CHARACTERS, counts[kind], REASONS[kind], text=True)
            for kind in REASONS
            if counts[kind]
        ]
        return text + [Leftover(part, PARTS, 1, UNPARSED) for part in self.unparsed]


def _pieces(formula: str) -> list[str]:
    """The pieces of text of ``formula``: its string literals, quoted sheet names, names
    (booleans aside), and error values that are no error."""
    pieces = []
    for token in _FORMULA_TOKENS.finditer(formula):
        text, sheet, error, name = token.group("text", "sheet", "error", "name")
        if text or sheet:
            pieces.append(text or sheet)
        elif error and error not in ERRORS:
            pieces.append(error)
        elif name and name.upper() not in _BOOLEANS:
            pieces.append(name)
    return pieces


def _local(tag: str) -> str:
    """``tag`` without its namespace."""
    return tag.rpartition("}")[2]


class _DocumentType(Exception):
    """A part declares a DTD (whose entities could hold text no walk sees)."""


# -- walking a part ---------------------------------------------------------------------------


class _Part:
    """The events of one part's XML (as :class:`xml.etree.ElementTree.XMLParser` gives them
    to a target), its text counted in :class:`_Found`.

    Each element has a kind of text (:meth:`kind_of`: by default :attr:`kind`, its part's);
    its text nodes go to :meth:`text` (:attr:`path` ending with the element holding them),
    its attributes to :meth:`attributes`, XML comments and processing instructions count in
    its kind. By default, text nodes and attribute values count unless they are structure.
    """

    kind = OTHER

    def __init__(self, found: _Found, part: str = "", names: frozenset[str] = frozenset()) -> None:
        self.found = found
        self.path: list[str] = []
        self.kinds = [self.kind]
        self.pending: list[str] = []

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        self._flush()
        self.path.append(tag)
        self.kinds.append(self.kind_of(tag))
        self.attributes(tag, attributes)

    def end(self, tag: str) -> None:
        self._flush()
        self.closed(tag)
        self.path.pop()
        self.kinds.pop()

    def data(self, text: str) -> None:
        self.pending.append(text)

    def comment(self, text: str) -> None:
        self.found.add(self.kinds[-1], len(text.strip()))

    def pi(self, target: str, text: str | None) -> None:
        self.found.add(self.kinds[-1], len(target) + len(text or ""))

    def doctype(self, name: str, pubid: str | None, system: str | None) -> None:
        raise _DocumentType

    def close(self) -> None:
        self._flush()

    def _flush(self) -> None:
        if self.pending:
            text = "".join(self.pending)
            self.pending.clear()
            self.text(text)

    def kind_of(self, tag: str) -> str:
        """The kind of text of the element ``tag`` starting (:attr:`kinds` ends with its
        parent's)."""
        return self.kinds[-1]

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        """Count the attributes of the element ``tag`` starting."""
        self.count_attributes(self.kinds[-1], attributes)

    def count_attributes(
        self, kind: str, attributes: dict[str, str], parsed: frozenset[str] = frozenset()
    ) -> None:
        """Count in ``kind`` the values of ``attributes`` but those ``parsed`` (read as the
        cell's), the markup-compatibility ones (prefixes of namespaces), the hashes of
        passwords and the formatting of rich text (fonts, sizes, colours)."""
        if _RUN_FORMAT in self.path:
            return
        for name, value in attributes.items():
            if name not in parsed and name not in _PROTECTION and not name.startswith(_MARKUP):
                self.found.value(kind, value)

    def text(self, text: str) -> None:
        """Count a text node of the element :attr:`path` ends with."""
        self.found.text(self.kinds[-1], text)

    def closed(self, tag: str) -> None:
        """The element ``tag`` (still last in :attr:`path`) ends."""


def _walk(archive: zipfile.ZipFile, part: str, target: _Part, found: _Found) -> None:
    """Stream the part ``part`` of ``archive`` through ``target``; a part that cannot be
    parsed is recorded as such."""
    parser = ET.XMLParser(target=target)
    try:
        with archive.open(part) as stream:
            for chunk in iter(lambda: stream.read(_CHUNK), b""):
                parser.feed(chunk)
            parser.close()
    except _UNREADABLE:
        found.unparsed.append(part)


#: What reading a part may raise: it is then left over as a part not parsed (XML that is not,
#: a DTD, a corrupt or encrypted member, a compression zipfile does not read).
_UNREADABLE = (
    ET.ParseError,
    _DocumentType,
    zipfile.BadZipFile,
    EOFError,
    ValueError,
    zlib.error,
    NotImplementedError,
    RuntimeError,
)


#: A walker of a kind of part: (what was found, the part, the archive's parts) -> its target.
Walker = Callable[[_Found, str, frozenset[str]], _Part]


def _walk_part(
    archive: zipfile.ZipFile,
    part: str,
    walkers: Mapping[re.Pattern[str], Walker],
    found: _Found,
    names: frozenset[str],
) -> None:
    """Walk ``part`` with the first of ``walkers`` whose pattern matches its name (any
    other part: every text and attribute; the mimetype of an OpenDocument is text, not
    XML)."""
    if part == "mimetype":
        try:
            content = archive.read(part).decode("utf-8", "replace").strip()
        except _UNREADABLE:
            found.unparsed.append(part)
            return
        found.add(OTHER, 0 if content in _MIMETYPES else len(content))
        return
    walker = next((w for pattern, w in walkers.items() if pattern.fullmatch(part)), _Part)
    _walk(archive, part, walker(found, part, names), found)


# -- .xlsx ------------------------------------------------------------------------------------


class _Properties(_Part):
    """Document properties (``docProps/*.xml``, an OpenDocument's ``meta.xml``): every text
    (numbers too), every attribute."""

    kind = PROPERTIES

    def text(self, text: str) -> None:
        self.found.add(PROPERTIES, len(_GUIDS.sub("", text).strip()))


class _Links(_Part):
    """A part's relationships (``_rels/*.rels``): each external target, and each target
    naming no part of the archive, is text."""

    kind = LINKS

    def __init__(self, found: _Found, part: str = "", names: frozenset[str] = frozenset()) -> None:
        super().__init__(found)
        self.folder = posixpath.dirname(posixpath.dirname(part))  # the related part's folder
        self.names = names

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        target = attributes.get("Target")
        if tag != f"{_RELATIONSHIPS}Relationship" or target is None:
            super().attributes(tag, attributes)
        elif attributes.get("TargetMode") == "External" or not self._names_a_part(target):
            self.found.add(LINKS, len(target))

    def _names_a_part(self, target: str) -> bool:
        if target.startswith("/"):
            return target[1:] in self.names
        return posixpath.normpath(posixpath.join(self.folder, target)) in self.names


class _Workbook(_Part):
    """``xl/workbook.xml``: the names defined (their names, formulas, notes), the user
    sharing it, the folder it was saved in; other text nodes."""

    kind = SETTINGS
    #: Attributes holding text: a name's notes, the user sharing the workbook, its folder.
    TEXT = frozenset(
        {"comment", "description", "help", "statusBar", "customMenu", "userName", "url"}
    )
    _NAME = f"{_MAIN}definedName"

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        kind = NAMES if tag == self._NAME else SETTINGS
        for name, value in attributes.items():
            if _local(name) in self.TEXT:
                self.found.add(kind, len(value))
        name = attributes.get("name", "")
        if tag == self._NAME and not name.startswith("_xlnm."):  # Excel's own: _xlnm.Print_Area
            self.found.add(NAMES, len(name))

    def text(self, text: str) -> None:
        if self.path[-1] == self._NAME:
            self.found.formula(NAMES, text)
        else:
            super().text(text)


class _Styles(_Part):
    """``xl/styles.xml``: number formats holding literal text (whole), names of custom
    cell styles; other text nodes."""

    kind = STYLES

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        code = attributes.get("formatCode")
        if tag == f"{_MAIN}numFmt" and code and not _FORMAT_SYNTAX.fullmatch(code):
            self.found.add(STYLES, len(code))
        if tag == f"{_MAIN}cellStyle" and "builtinId" not in attributes:
            self.found.add(STYLES, len(attributes.get("name", "")))


class _SharedStrings(_Part):
    """``xl/sharedStrings.xml``: the characters of each string (:attr:`total`) and of its
    text a cell shows (:attr:`shown`: runs of text, phonetic guides aside, as openpyxl
    reads it); other text nodes and attributes."""

    kind = UNUSED
    _ITEM, _RUN, _TEXT = f"{_MAIN}si", f"{_MAIN}r", f"{_MAIN}t"

    def __init__(self, found: _Found) -> None:
        super().__init__(found)
        self.total: list[int] = []
        self.shown: list[int] = []
        self.item = [0, 0]

    def text(self, text: str) -> None:
        path = self.path
        if len(path) < 3 or path[1] != self._ITEM:
            super().text(text)
            return
        self.item[0] += len(text)
        if path[-1] == self._TEXT and path[2:] in ([self._TEXT], [self._RUN, self._TEXT]):
            self.item[1] += len(text)

    def closed(self, tag: str) -> None:
        if tag == self._ITEM and len(self.path) == 2:
            self.total.append(self.item[0])
            self.shown.append(self.item[1])
            self.item = [0, 0]

    def unused(self, used: np.ndarray) -> int:
        """Characters no cell shows: of the strings no cell uses (``used``: by index), and
        the hidden text (phonetic guides) of those used."""
        total = np.asarray(self.total, dtype=np.int64)
        shown = np.asarray(self.shown, dtype=np.int64)
        return int(total[~used].sum() + (total - shown)[used].sum())


class _Sheet(_Part):
    """A sheet read (``xl/worksheets/sheet1.xml``): of its cells, the text openpyxl does not
    read as their values (phonetic guides, a value beside an inline string, attributes no
    cell has), the pieces of their formulas (each once), the shared strings they use
    (marked in ``used``); of the rest of the sheet, hyperlinks, headers and footers (their
    codes aside), data validation, conditional formats and settings, each in its kind."""

    kind = SETTINGS
    #: The kind of an element's text and attributes, by its name (any namespace); an element
    #: not named here is of its parent's kind.
    KINDS = {
        "sheetData": HIDDEN,
        "hyperlinks": LINKS,
        "headerFooter": HEADERS,
        "dataValidations": VALIDATION,
        "conditionalFormatting": CONDITIONS,
        "conditionalFormattings": CONDITIONS,
    }
    #: Elements holding a formula (or references: ``sqref``).
    FORMULAS = frozenset({"f", "formula", "formula1", "formula2", "sqref"})
    #: A cell's types (``t``); the attributes of cells and rows whose values openpyxl parses.
    TYPES = frozenset({"b", "d", "e", "inlineStr", "n", "s", "str"})
    PARSED = frozenset({"r", "s", "t"})
    ROW = frozenset({"r"})
    _CELL, _VALUE, _FORMULA = f"{_MAIN}c", f"{_MAIN}v", f"{_MAIN}f"
    _INLINE, _RUN, _TEXT, _ROW = f"{_MAIN}is", f"{_MAIN}r", f"{_MAIN}t", f"{_MAIN}row"

    def __init__(self, found: _Found, used: np.ndarray) -> None:
        super().__init__(found)
        self.used = used
        self.type = "n"

    def kind_of(self, tag: str) -> str:
        return self.KINDS.get(_local(tag), self.kinds[-1])

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        parsed: frozenset[str] = frozenset()
        if tag == self._CELL:
            self.type, parsed = attributes.get("t", "n"), self.PARSED
            if self.type not in self.TYPES:
                self.found.add(HIDDEN, len(self.type))
        elif tag == self._ROW:
            parsed = self.ROW
        self.count_attributes(self.kinds[-1], attributes, parsed)

    def text(self, text: str) -> None:
        kind = self.kinds[-1]
        if kind == HIDDEN:
            self._cell_text(text)
        elif _local(self.path[-1]) in self.FORMULAS:
            self.found.formula(kind, text)
        elif kind == HEADERS:
            self.found.add(HEADERS, len(_HEADER_CODES.sub("", text).strip()))
        else:
            self.found.text(kind, text)

    def _cell_text(self, text: str) -> None:
        """A text node in the sheet's cells."""
        path = self.path
        if path[-1] == self._FORMULA:
            self.found.formula(FORMULAS, text, once=True)
        elif path[-1] == self._VALUE and path[-2] == self._CELL:
            if self.type == "s":
                self._use(text)
            elif self.type == "inlineStr":  # openpyxl reads the inline string, not this
                self.found.add(HIDDEN, len(text))
        elif not (self.type == "inlineStr" and self._shown(path)):
            self.found.text(HIDDEN, text)

    def _shown(self, path: list[str]) -> bool:
        """Whether the text ending ``path`` is a run of an inline string openpyxl reads."""
        at = path.index(self._INLINE) if self._INLINE in path else -1
        return (
            at > 0
            and path[at - 1] == self._CELL
            and path[at + 1 :] in ([self._TEXT], [self._RUN, self._TEXT])
        )

    def _use(self, text: str) -> None:
        """Mark the shared string ``text`` numbers as used."""
        try:
            index = int(text)
        except ValueError:
            self.found.add(HIDDEN, len(text.strip()))
            return
        if 0 <= index < len(self.used):
            self.used[index] = True


class _Comments(_Part):
    """Comments (``xl/comments1.xml``, threaded comments, the people who wrote them): every
    text node, and the names and ids of people."""

    kind = COMMENTS

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        if _local(tag) == "person":
            super().attributes(tag, attributes)

    def text(self, text: str) -> None:
        self.found.add(COMMENTS, len(text.strip()))


class _Drawing(_Part):
    """A drawing (``xl/drawings/drawing1.xml``): its text (text boxes, shapes), the names,
    titles and descriptions of what it draws."""

    kind = DRAWINGS
    TEXT = frozenset({"name", "descr", "title"})

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        for name, value in attributes.items():
            if name in self.TEXT:
                self.found.value(DRAWINGS, value)


class _Vml(_Part):
    """A legacy drawing (``xl/drawings/vmlDrawing1.vml``, the boxes of comments): its text
    but the anchoring data of each shape, and the titles of shapes."""

    kind = COMMENTS
    TEXT = frozenset({"alt", "title"})

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        for name, value in attributes.items():
            if _local(name) in self.TEXT:
                self.found.value(COMMENTS, value)

    def text(self, text: str) -> None:
        if _VML_DATA not in self.path:
            super().text(text)


class _Table(_Part):
    """A table's definition (``xl/tables/table1.xml``): the formulas of its columns and
    totals, the labels of its totals."""

    kind = SETTINGS

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        self.found.add(SETTINGS, len(attributes.get("totalsRowLabel", "")))

    def text(self, text: str) -> None:
        self.found.formula(SETTINGS, text)


#: The walker of each kind of ``.xlsx`` part counted (:data:`formats.TEXT_PARTS`), by name
#: (the shared strings and the sheets are walked together, apart).
_XLSX_WALKERS: dict[re.Pattern[str], Walker] = {
    re.compile(r"(?:.*/)?_rels/[^/]*\.rels"): _Links,
    re.compile(r"docProps/.*"): _Properties,
    re.compile(r"xl/workbook\.xml"): _Workbook,
    re.compile(r"xl/styles\.xml"): _Styles,
    re.compile(r"xl/(?:comments|threadedComments/|persons/).*"): _Comments,
    re.compile(r"xl/drawings/.*\.vml"): _Vml,
    re.compile(r"xl/drawings/.*"): _Drawing,
    re.compile(r"xl/tables/.*"): _Table,
}


# -- OpenDocument -----------------------------------------------------------------------------


class _Content(_Part):
    """An OpenDocument's ``content.xml``: of its cells, the words shown for cells of
    numbers and dates (each shape once: pandas reads their values), a string value beside
    the text pandas reads, the pieces of formulas (each once); of the rest, comments
    (annotations), drawings, names, data validation, styles, links, and any other text."""

    #: The kind of an element's text, by its name; an element not named here (nor of the
    #: drawing namespace: :data:`DRAWINGS`) is of its parent's kind.
    KINDS = {
        f"{_OFFICE}annotation": COMMENTS,
        f"{_OFFICE}annotation-end": COMMENTS,
        f"{_TABLE}named-expressions": NAMES,
        f"{_TABLE}content-validations": VALIDATION,
        f"{_OFFICE}automatic-styles": STYLES,
        f"{_OFFICE}font-face-decls": STYLES,
        f"{_OFFICE}styles": STYLES,
        f"{_OFFICE}master-styles": STYLES,
        **{
            f"{_STYLE}{name}{side}": HEADERS
            for name in ("header", "footer")
            for side in ("", "-left", "-first")
        },
        f"{_TABLE}table-cell": HIDDEN,
        f"{_TABLE}covered-table-cell": HIDDEN,
    }
    #: Attributes holding a formula; elements naming a range or an expression.
    FORMULAS = frozenset({f"{_TABLE}expression", f"{_TABLE}condition"})
    NAMED = frozenset({f"{_TABLE}named-range", f"{_TABLE}named-expression"})
    _TYPE, _STRING = f"{_OFFICE}value-type", f"{_OFFICE}string-value"
    _SPACES, _COUNT = f"{_TEXT}s", f"{_TEXT}c"
    _DIGITS = re.compile(r"\d")

    def __init__(self, found: _Found, part: str = "", names: frozenset[str] = frozenset()) -> None:
        super().__init__(found)
        self.names = names
        self.type: str | None = None
        self.string: str | None = None
        self.read: list[str] = []

    def kind_of(self, tag: str) -> str:
        return self.KINDS.get(tag, DRAWINGS if tag.startswith(_DRAW) else self.kinds[-1])

    def _in_cell(self) -> bool:
        """Whether the element :attr:`path` ends with is a cell (not text in one)."""
        return self.kinds[-1] == HIDDEN and self.kinds[-2] != HIDDEN

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        kind = self.kinds[-1]
        if self._in_cell():
            self.type, self.string = attributes.get(self._TYPE), attributes.get(self._STRING)
            self.read.clear()
            self.found.formula(FORMULAS, attributes.get(f"{_TABLE}formula", ""), once=True)
        elif tag == self._SPACES and kind == HIDDEN:
            self.read.append(" " * int(attributes.get(self._COUNT, "1")))
        link = attributes.get(f"{_XLINK}href")
        if link is not None and link.removeprefix("./") not in self.names:
            self.found.add(LINKS, len(link))
        for name in self.FORMULAS.intersection(attributes):
            self.found.formula(kind, attributes[name])
        if tag in self.NAMED:
            self.found.add(NAMES, len(attributes.get(f"{_TABLE}name", "")))

    def closed(self, tag: str) -> None:
        if self._in_cell() and self.string is not None:
            if self.type != "string" or self.string != "".join(self.read):
                self.found.add(HIDDEN, len(self.string))

    def text(self, text: str) -> None:
        kind = self.kinds[-1]
        if kind != HIDDEN:
            self.found.text(kind, text)
        elif self.type == "string":  # read by pandas, as its odf reader joins it
            self.read.append(text.strip("\n"))
        elif self.type is not None:  # shown for a value pandas reads
            shapes = (self._DIGITS.sub("0", word) for word in text.split())
            self.found.distinct[SHOWN].update(shapes)


class _OdsStyles(_Part):
    """An OpenDocument's ``styles.xml``: the text of headers and footers, of number formats
    (literal text), links."""

    kind = STYLES

    def kind_of(self, tag: str) -> str:
        return _Content.KINDS.get(tag, self.kinds[-1])

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        self.found.add(LINKS, len(attributes.get(f"{_XLINK}href", "")))


class _Settings(_Part):
    """An OpenDocument's ``settings.xml``: the values of its settings (encoded binary
    printer settings aside)."""

    kind = SETTINGS

    def __init__(self, found: _Found, part: str = "", names: frozenset[str] = frozenset()) -> None:
        super().__init__(found)
        self.binary = False

    def attributes(self, tag: str, attributes: dict[str, str]) -> None:
        self.binary = attributes.get(f"{_CONFIG}type") == "base64Binary"

    def text(self, text: str) -> None:
        if not self.binary:
            super().text(text)


#: The walker of each OpenDocument part counted (:data:`formats.TEXT_PARTS`), by name.
_ODS_WALKERS: dict[re.Pattern[str], Walker] = {
    re.compile(r"content\.xml"): _Content,
    re.compile(r"styles\.xml"): _OdsStyles,
    re.compile(r"meta\.xml"): _Properties,
    re.compile(r"settings\.xml"): _Settings,
}

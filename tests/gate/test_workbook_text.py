"""Every string a workbook stores is a cell read, or text outside the table, counted.

A hostile round hid people (tax codes) in the parts of ``.xlsx`` and ``.ods`` workbooks that
are not the cells of the table read: number formats, hyperlinks, title lines, document
properties, defined names, headers, data validation lists, shared strings no cell uses,
error cells, comments; ``pandas-anon check`` passed each. The reader now walks every part of
the workbook apart from the cells pandas reads (:mod:`pandas_anon.gate.parsers.workbook_text`)
and counts the text outside the table in characters, against the file's budget: one test per
hiding place (the file fails, naming the part, never quoting what it hides), clean workbooks
written by openpyxl and pandas that still pass, and a property test: strings put in random
hiding places of a random table are all counted.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

import openpyxl
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl.comments import Comment
from openpyxl.formatting.rule import FormulaRule
from openpyxl.packaging.custom import StringProperty
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from test_coverage import CODES, ROWS, check, safe
from test_coverage import repo as repo  # noqa: F401  # the fixture

from pandas_anon.gate.parsers import read
from pandas_anon.gate.parsers.account import TEXT_BUDGET

#: All the codes, as one text.
EVERYONE = " ".join(CODES)


def book() -> openpyxl.Workbook:
    """The table of :func:`test_coverage.safe` in a workbook of openpyxl (sheet ``Sheet``)."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["anno", "sesso"])
    for row in safe().itertuples(index=False):
        sheet.append(list(row))
    return workbook


def rewrite(path: Path, edits: dict[str, Callable[[str], str]], extra: dict[str, str]) -> None:
    """Rewrite the parts of the workbook ``path`` named in ``edits`` and add those of
    ``extra``, as a tool editing its XML would."""
    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    for part, edit in edits.items():
        parts[part] = edit(parts[part].decode()).encode()
    parts.update({part: content.encode() for part, content in extra.items()})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for part, content in parts.items():
            archive.writestr(part, content)


def fails_naming(repo: Path, name: str, part: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Check ``name`` in ``repo``: it fails (exit 2) naming ``part``, and its messages quote
    no code. The error, for more."""
    assert check(repo, name) == 2
    out, err = capsys.readouterr()
    assert part in err
    assert not any(code in out + err for code in CODES)
    return err


# -- .xlsx: each hiding place -----------------------------------------------------------------


def test_number_formats_showing_codes_fail(repo, capsys):
    """Cells holding 0, each formatted to show a tax code as literal text."""
    workbook = book()
    sheet = workbook.active
    sheet.cell(1, 3, "cf")
    for row, code in enumerate(CODES, start=2):
        sheet.cell(row, 3, 0).number_format = f'"{code}"'
    workbook.save(repo / "t.xlsx")
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(styles) (", capsys)


def test_hyperlinks_carrying_codes_fail(repo, capsys):
    workbook = book()
    sheet = workbook.active
    sheet.cell(1, 3, "scheda")
    for row, code in enumerate(CODES, start=2):
        sheet.cell(row, 3, "apri").hyperlink = f"https://example.org/scheda?cf={code}"
    workbook.save(repo / "t.xlsx")
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(links) (", capsys)


def test_title_lines_are_text_counted_in_characters(repo, capsys):
    """Ten title cells above the header, forty codes each: read as title lines, they passed."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for i in range(10):
        sheet.append(["Elenco " + " ".join(CODES[i * 40 : (i + 1) * 40])])
    sheet.append([])
    sheet.append(["anno", "sesso"])
    for row in safe().itertuples(index=False):
        sheet.append(list(row))
    workbook.save(repo / "t.xlsx")
    err = fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(title lines) (", capsys)
    assert "10 title lines above the table" in err


def test_long_column_names_are_text(repo, capsys):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    names = [" ".join(CODES[i * 15 : (i + 1) * 15]) for i in range(4)]
    sheet.append(names)
    for row in safe().itertuples(index=False):
        sheet.append([*row, *row])
    workbook.save(repo / "t.xlsx")
    err = fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(long column names) (", capsys)
    assert "4 column names of more than 200 characters" in err


@pytest.mark.parametrize("where", ["description", "keywords", "custom"])
def test_document_properties_holding_codes_fail(repo, capsys, where):
    workbook = book()
    if where == "custom":
        workbook.custom_doc_props.append(StringProperty(name="note", value=EVERYONE))
    else:
        setattr(workbook.properties, where, EVERYONE)
    workbook.save(repo / "t.xlsx")
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(document properties) (", capsys)


def test_a_defined_name_holding_codes_fails(repo, capsys):
    workbook = book()
    workbook.defined_names["elenco"] = DefinedName("elenco", attr_text=f'"{EVERYONE[:4000]}"')
    workbook.save(repo / "t.xlsx")
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(defined names) (", capsys)


def test_a_header_holding_codes_fails(repo, capsys):
    workbook = book()
    workbook.active.oddHeader.center.text = " ".join(CODES[:100])
    workbook.save(repo / "t.xlsx")
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(headers and footers) (", capsys)


def test_a_data_validation_list_of_codes_fails(repo, capsys):
    workbook = book()
    validation = DataValidation(type="list", formula1=f'"{",".join(CODES[:80])}"')
    workbook.active.add_data_validation(validation)
    validation.add("C2")
    workbook.save(repo / "t.xlsx")
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(data validation) (", capsys)


def test_a_conditional_format_comparing_codes_fails(repo, capsys):
    workbook = book()
    compared = ",".join(f'B2="{code}"' for code in CODES[:80])
    workbook.active.conditional_formatting.add("B2:B401", FormulaRule(formula=[f"OR({compared})"]))
    workbook.save(repo / "t.xlsx")
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(conditional formats) (", capsys)


def test_comments_holding_codes_fail(repo, capsys):
    workbook = book()
    for row, code in enumerate(CODES[:100], start=2):
        workbook.active.cell(row, 1).comment = Comment(code, "ufficio")
    workbook.save(repo / "t.xlsx")
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(comments) (", capsys)


def shared(path: Path, strings: list[str]) -> None:
    """Give the workbook ``path`` (openpyxl writes inline strings) a shared strings table
    holding ``strings``."""
    table = "".join(f"<si><t>{escape(text)}</t></si>" for text in strings)
    rewrite(
        path,
        {
            "[Content_Types].xml": lambda xml: xml.replace(
                "</Types>",
                '<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
                'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
            ),
            "xl/_rels/workbook.xml.rels": lambda xml: xml.replace(
                "</Relationships>",
                '<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/officeDocument/'
                '2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
            ),
        },
        {
            "xl/sharedStrings.xml": '<sst xmlns="http://schemas.openxmlformats.org/'
            f'spreadsheetml/2006/main" count="{len(strings)}">{table}</sst>'
        },
    )


def test_shared_strings_no_cell_uses_fail(repo, capsys):
    book().save(repo / "t.xlsx")
    shared(repo / "t.xlsx", CODES)
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(unused shared strings) (", capsys)


def test_shared_strings_the_cells_use_are_read(tmp_path):
    """The sex of each row as a shared string: every string used, none is text."""
    book().save(tmp_path / "t.xlsx")
    shared(tmp_path / "t.xlsx", ["M", "F"])

    def indices(xml: str) -> str:
        cell = r'<c r="(B\d+)" t="inlineStr"><is><t>([MF])</t></is></c>'
        return re.sub(cell, lambda m: f'<c r="{m[1]}" t="s"><v>{"MF".index(m[2])}</v></c>', xml)

    rewrite(tmp_path / "t.xlsx", {"xl/worksheets/sheet1.xml": indices}, {})
    table, account = read(tmp_path / "t.xlsx")
    assert sorted(table["sesso"].unique()) == ["F", "M"]
    assert "(unused shared strings)" not in [part.name for part in account.unread]


def sheet_edit(path: Path, cell: Callable[[int, str], str]) -> None:
    """Rewrite each row's inline string of column B (``M``, ``F``) of ``path`` as
    ``cell(row, text)``."""
    pattern = r'<c r="B(\d+)" t="inlineStr"><is><t>([MF])</t></is></c>'
    edit = lambda xml: re.sub(pattern, lambda m: cell(int(m[1]), m[2]), xml)  # noqa: E731
    rewrite(path, {"xl/worksheets/sheet1.xml": edit}, {})


def test_phonetic_guides_of_inline_strings_fail(repo, capsys):
    """A phonetic guide (which openpyxl does not read) beside each row's sex."""
    book().save(repo / "t.xlsx")
    guide = '<rPh sb="0" eb="1"><t>{}</t></rPh>'
    sheet_edit(
        repo / "t.xlsx",
        lambda row, text: (
            f'<c r="B{row}" t="inlineStr"><is><t>{text}</t>{guide.format(CODES[row - 2])}</is></c>'
        ),
    )
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(text in cells, not read) (", capsys)


def test_text_inside_formulas_with_cached_values_fails(repo, capsys):
    """Formulas whose cached value is the sex, each holding a code as a literal."""
    book().save(repo / "t.xlsx")
    sheet_edit(
        repo / "t.xlsx",
        lambda row, text: (
            f'<c r="B{row}" t="str"><f>IF(TRUE,"{text}","{CODES[row - 2]}")</f><v>{text}</v></c>'
        ),
    )
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(formulas' text) (", capsys)


def test_cells_typed_as_errors_holding_codes_fail(repo, capsys):
    """Text typed as an error value: pandas reads errors as empty, so the codes vanished."""
    book().save(repo / "t.xlsx")
    sheet_edit(
        repo / "t.xlsx",
        lambda row, text: (
            f'<c r="B{row}" t="inlineStr"><is><t>{text}</t></is></c>'
            f'<c r="C{row}" t="e"><v>{CODES[row - 2]}</v></c>'
        ),
    )
    err = fails_naming(repo, "t.xlsx", f"t.xlsx:Sheet:C2:C{ROWS + 1} ({ROWS} cells", capsys)
    assert "read as errors though they hold no error value" in err


def test_real_error_values_are_read_as_empty(tmp_path):
    """``#N/A`` and ``#DIV/0!`` are what error cells hold: read as missing, as pandas does."""
    book().save(tmp_path / "t.xlsx")
    errors = ["#N/A", "#DIV/0!"]
    sheet_edit(
        tmp_path / "t.xlsx",
        lambda row, text: (
            f'<c r="B{row}" t="inlineStr"><is><t>{text}</t></is></c>'
            f'<c r="C{row}" t="e"><v>{errors[row % 2]}</v></c>'
        ),
    )
    _, account = read(tmp_path / "t.xlsx")
    assert account.open() == []


def test_a_sheet_of_error_cells_alone_is_not_empty(repo, capsys):
    """A sheet holding only cells typed as errors was skipped as empty."""
    workbook = openpyxl.Workbook()
    workbook.active["A1"] = "x"
    workbook.save(repo / "t.xlsx")
    errors = "".join(
        f'<row r="{i}"><c r="A{i}" t="e"><v>{c}</v></c></row>' for i, c in enumerate(CODES, 1)
    )
    edit = lambda xml: re.sub("<sheetData>.*</sheetData>", f"<sheetData>{errors}</sheetData>", xml)  # noqa: E731
    rewrite(repo / "t.xlsx", {"xl/worksheets/sheet1.xml": edit}, {})
    fails_naming(repo, "t.xlsx", f"t.xlsx:Sheet:A1:A{ROWS} ({ROWS} cells", capsys)


@pytest.mark.parametrize("description", ["Nessun dato", EVERYONE])
def test_a_workbook_of_empty_sheets_fails_only_on_its_text(repo, capsys, description):
    """No sheet holds a table (each is skipped as empty): the workbook's text outside them
    is still counted, on the first sheet's account."""
    workbook = openpyxl.Workbook()
    workbook.properties.description = description
    workbook.save(repo / "t.xlsx")
    if description == EVERYONE:
        fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(document properties) (", capsys)
    else:
        assert check(repo, "t.xlsx") == 0


def test_a_text_box_holding_codes_fails(repo, capsys):
    book().save(repo / "t.xlsx")
    drawing = (
        '<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/'
        'spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
        "<xdr:twoCellAnchor><xdr:from><xdr:col>3</xdr:col></xdr:from><xdr:sp><xdr:txBody><a:p>"
        f"<a:r><a:t>{EVERYONE}</a:t></a:r></a:p></xdr:txBody></xdr:sp></xdr:twoCellAnchor>"
        "</xdr:wsDr>"
    )
    rewrite(repo / "t.xlsx", {}, {"xl/drawings/drawing1.xml": drawing})
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(drawings) (", capsys)


def test_an_xml_comment_holding_codes_fails(repo, capsys):
    book().save(repo / "t.xlsx")
    edit = lambda xml: xml.replace("</sheetData>", f"</sheetData><!-- {EVERYONE} -->")  # noqa: E731
    rewrite(repo / "t.xlsx", {"xl/worksheets/sheet1.xml": edit}, {})
    fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(settings) (", capsys)


def test_a_part_declaring_entities_is_left_over(repo, capsys):
    """A DTD whose entity holds the codes, in a part openpyxl does not read: no walk of the
    elements sees it."""
    book().save(repo / "t.xlsx")
    drawing = f'<!DOCTYPE x [<!ENTITY e "{EVERYONE}">]><x/>'
    rewrite(repo / "t.xlsx", {}, {"xl/drawings/drawing1.xml": drawing})
    part = "t.xlsx:Sheet:xl/drawings/drawing1.xml (1 workbook parts"
    err = fails_naming(repo, "t.xlsx", part, capsys)
    assert "cannot be parsed as XML" in err


def test_a_second_part_of_the_same_name_is_left_over(repo, capsys):
    """A zip archive may hold two members of one name; readers read one of them only."""
    book().save(repo / "t.xlsx")
    with zipfile.ZipFile(repo / "t.xlsx", "a") as archive, pytest.warns(UserWarning):
        archive.writestr("docProps/core.xml", archive.read("docProps/core.xml"))
    fails_naming(repo, "t.xlsx", "t.xlsx:docProps/core.xml (1 workbook parts, parts of one", capsys)


def test_a_vba_project_is_a_part_not_read(repo, capsys):
    book().save(repo / "t.xlsx")
    rewrite(repo / "t.xlsx", {}, {"xl/vbaProject.bin": EVERYONE})
    fails_naming(repo, "t.xlsx", "t.xlsx:xl/vbaProject.bin (1 workbook parts, macros", capsys)


# -- .ods: each hiding place ------------------------------------------------------------------


def ods(path: Path, content: Callable[[str], str] = str, **parts: Callable[[str], str]) -> None:
    """The table of :func:`test_coverage.safe` written by pandas as ``path`` (sheet
    ``Sheet1``), its ``content.xml`` (and the ``parts`` named, ``meta`` for ``meta.xml``)
    edited."""
    safe().to_excel(path, index=False, engine="odf")
    edits = {f"{name}.xml": edit for name, edit in parts.items()}
    rewrite(path, {"content.xml": content, **edits}, {})


def cells_of(text: str, edit: Callable[[int, str], str]) -> Callable[[str], str]:
    """An edit of ``content.xml`` making each string cell holding ``text`` ``edit(i, cell)``
    (``i`` counting them from 0)."""
    cell = (
        f'<table:table-cell office:value-type="string" office:string-value="{text}">'
        f"<text:p>{text}</text:p></table:table-cell>"
    )
    counter = iter(range(1 << 30))
    return lambda xml: re.sub(re.escape(cell), lambda m: edit(next(counter), m[0]), xml)


def test_ods_annotations_holding_codes_fail(repo, capsys):
    annotated = cells_of(
        "M",
        lambda i, cell: cell.replace(
            "<text:p>M",
            f"<office:annotation><text:p>{CODES[i]}</text:p></office:annotation><text:p>M",
        ),
    )
    ods(repo / "t.ods", annotated)
    fails_naming(repo, "t.ods", "t.ods:Sheet1:(comments) (", capsys)


def test_ods_short_comments_are_text_within_the_budget(repo):
    """A note on a header cell and one on an empty cell beside it: comments, not cells."""
    note = "<office:annotation><text:p>Fonte: anagrafe 2024</text:p></office:annotation>"

    def annotated(xml: str) -> str:
        header = 'office:string-value="sesso">'  # pandas 2 gives it a style, pandas 3 none
        xml = xml.replace(header, f"{header}{note}", 1)
        empty = f"<table:table-cell>{note}</table:table-cell>"
        row = "</table:table-cell></table:table-row>"
        return xml.replace(row, f"</table:table-cell>{empty}</table:table-row>", 1)

    ods(repo / "t.ods", annotated)
    assert check(repo, "t.ods") == 0
    _, account = read(repo / "t.ods")
    assert [part.count for part in account.unread if part.name == "(comments)"] == [40]


def test_ods_user_defined_properties_holding_codes_fail(repo, capsys):
    field = f'<meta:user-defined meta:name="note">{EVERYONE}</meta:user-defined></office:meta>'
    ods(repo / "t.ods", meta=lambda xml: xml.replace("</office:meta>", field))
    fails_naming(repo, "t.ods", "t.ods:Sheet1:(document properties) (", capsys)


def test_ods_text_beside_a_string_value_fails(repo, capsys):
    """A string value that is not the text pandas reads (``<text:p>``)."""
    ods(repo / "t.ods", cells_of("F", lambda i, cell: cell.replace('"F"', f'"{CODES[i]}"', 1)))
    fails_naming(repo, "t.ods", "t.ods:Sheet1:(text in cells, not read) (", capsys)


def test_ods_shown_text_of_numbers_fails(repo, capsys):
    """Cells of numbers showing people's names: pandas reads the numbers. (The words shown
    count by their shape, digits aside: names differ by their letters.)"""
    names = [f"ROSSI{chr(65 + i % 26)}{chr(65 + i // 26 % 26)}" for i in range(ROWS)]
    counter = iter(names)

    def shown(xml: str) -> str:
        number = r'(<table:table-cell office:value-type="float" office:value="\d+">)<text:p>\d+'
        return re.sub(number, lambda m: f"{m[1]}<text:p>{next(counter, 'x')}", xml)

    ods(repo / "t.ods", shown)
    err = fails_naming(repo, "t.ods", "t.ods:Sheet1:(shown text of cells) (", capsys)
    assert "ROSSI" not in err


def test_ods_named_expressions_holding_codes_fail(repo, capsys):
    names = "".join(
        f'<table:named-expression table:name="n{i}" table:expression="of:=&quot;{code}&quot;"/>'
        for i, code in enumerate(CODES)
    )
    named = lambda xml: xml.replace(  # noqa: E731
        "</office:spreadsheet>",
        f"<table:named-expressions>{names}</table:named-expressions></office:spreadsheet>",
    )
    ods(repo / "t.ods", named)
    fails_naming(repo, "t.ods", "t.ods:Sheet1:(defined names) (", capsys)


def test_ods_page_headers_holding_codes_fail(repo, capsys):
    style = 'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"'
    header = (
        '<office:master-styles><style:master-page style:name="Default"><style:header>'
        f"<text:p>{EVERYONE}</text:p></style:header></style:master-page></office:master-styles>"
    )

    def headed(xml: str) -> str:
        if style not in xml:  # odfpy declares the namespaces a document uses
            xml = xml.replace("<office:document-styles ", f"<office:document-styles {style} ")
        return xml.replace("</office:document-styles>", f"{header}</office:document-styles>")

    ods(repo / "t.ods", styles=headed)
    fails_naming(repo, "t.ods", "t.ods:Sheet1:(headers and footers) (", capsys)


# -- what still passes ------------------------------------------------------------------------


def test_a_titled_workbook_with_properties_and_a_comment_passes(repo):
    """What a person writes around a table (a title, properties, a note) fits the budget,
    with what openpyxl writes of itself."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Vaccinazioni per anno di nascita e sesso, 2024"])
    sheet.append([])
    sheet.append(["anno", "sesso"])
    for row in safe().itertuples(index=False):
        sheet.append(list(row))
    sheet["A3"].comment = Comment("Anno di nascita della persona vaccinata", "Ufficio statistica")
    workbook.properties.title = "Vaccinazioni 2024"
    workbook.properties.creator = "Ufficio statistica"
    workbook.properties.description = "Dati aggregati per anno di nascita e sesso"
    workbook.save(repo / "t.xlsx")
    assert check(repo, "t.xlsx") == 0
    _, account = read(repo / "t.xlsx")
    assert 0 < account.text < TEXT_BUDGET / 2


def test_workbooks_written_by_pandas_pass(repo):
    frame = safe().assign(giorno=pd.to_datetime(["2024-01-01", "2024-06-30"] * (ROWS // 2)))
    frame.to_excel(repo / "t.xlsx", index=False)
    frame.to_excel(repo / "t.ods", index=False, engine="odf")
    title = "<dc:title>Vaccinazioni 2024</dc:title><meta:generator>"
    rewrite(
        repo / "t.ods",
        {
            "meta.xml": lambda xml: xml.replace("<meta:generator>", title).replace(
                "<office:document-meta ",
                '<office:document-meta xmlns:dc="http://purl.org/dc/elements/1.1/" ',
            )
        },
        {},
    )
    for name in ("t.xlsx", "t.ods"):
        assert check(repo, name) == 0
        _, account = read(repo / name)
        assert account.text < TEXT_BUDGET / 4


def test_a_rule_skips_text_by_its_part(repo, capsys):
    workbook = book()
    workbook.properties.description = EVERYONE
    workbook.save(repo / "t.xlsx")
    err = fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(document properties) (", capsys)
    assert 'files = ["t.xlsx:Sheet:(document properties)"] and skip = true' in err
    rule = '[[rules]]\nfiles = "t.xlsx:*:(document properties)"\nskip = true\n'
    (repo / ".pandas-anon.toml").write_text(rule)
    assert check(repo, "t.xlsx") == 0


def test_the_budget_is_for_all_the_text_together(repo, capsys):
    """Text under the budget in each place, over it together: each place is named."""
    workbook = book()
    workbook.properties.description = EVERYONE[: TEXT_BUDGET // 2]
    workbook.active.oddFooter.center.text = EVERYONE[-(TEXT_BUDGET // 2) :]
    workbook.save(repo / "t.xlsx")
    err = fails_naming(repo, "t.xlsx", "t.xlsx:Sheet:(document properties) (", capsys)
    assert "t.xlsx:Sheet:(headers and footers) (" in err


# -- property test: every string hidden is counted --------------------------------------------

#: Strings to hide: words of letters and digits, holding a letter (a number alone in a text
#: node of a format's settings is structure).
HIDDEN = (
    st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ",
        min_size=1,
        max_size=30,
    )
    .map(str.strip)
    .filter(lambda s: any(c.isalpha() for c in s))
)
#: Where a string can be hidden in a workbook openpyxl writes.
PLACES = ["title", "subject", "description", "keywords", "custom", "comment", "name"]
PLACES += ["header", "validation", "link", "format", "shared"]
#: The places holding one text (the last set).
SINGLE = frozenset({"title", "subject", "description", "keywords", "header"})


def hide(workbook: openpyxl.Workbook, place: str, text: str, i: int) -> None:
    """Hide ``text`` (the ``i``-th hidden) in ``place`` of ``workbook``."""
    sheet = workbook.active
    cell = sheet.cell(i + 2, 1)
    if place in ("title", "subject", "description", "keywords"):
        setattr(workbook.properties, place, text)
    elif place == "custom":
        workbook.custom_doc_props.append(StringProperty(name=f"p{i}", value=text))
    elif place == "comment":
        cell.comment = Comment(text, "a")
    elif place == "name":
        workbook.defined_names[f"n{i}"] = DefinedName(f"n{i}", attr_text=f'"{text}"')
    elif place == "header":
        sheet.evenFooter.left.text = text
    elif place == "validation":
        validation = DataValidation(type="list", formula1=f'"{text}"')
        sheet.add_data_validation(validation)
        validation.add(f"Z{i + 1}")
    elif place == "link":
        cell.hyperlink = f"https://example.org/{text}"
    elif place == "format":
        cell.number_format = f'"{text}"'


def stored(place: str, text: str, i: int) -> str:
    """The copy the workbook stores of ``text`` hidden in ``place`` (the ``i``-th hidden): a
    property (or the footer) keeps the last text set, a number format is stored once however
    many cells it formats, any other place each text hidden."""
    if place in SINGLE:
        return place
    return f"format {text}" if place == "format" else str(i)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    table=st.lists(
        st.tuples(st.integers(0, 9), st.sampled_from(["a", "b", "c"])), min_size=1, max_size=6
    ),
    hidden=st.lists(st.tuples(st.sampled_from(PLACES), HIDDEN), min_size=1, max_size=8),
)
def test_every_string_hidden_is_counted(tmp_path, table, hidden):
    """The text the account counts grows by at least the characters hidden."""
    workbook = openpyxl.Workbook()
    workbook.active.append(["n", "s"])
    for row in table:
        workbook.active.append(list(row))
    workbook.save(tmp_path / "plain.xlsx")
    kept: dict[str, str] = {}  # by the copy stored
    unused = []
    for i, (place, text) in enumerate(hidden):
        if place == "shared":
            unused.append(text)
        else:
            hide(workbook, place, text, i)
            kept[stored(place, text, i)] = text
    path = tmp_path / "t.xlsx"
    workbook.save(path)
    if unused:
        shared(path, unused)
    _, plain = read(tmp_path / "plain.xlsx")
    _, account = read(path)
    assert account.text - plain.text >= sum(map(len, kept.values())) + sum(map(len, unused))

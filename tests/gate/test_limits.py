"""The limits on reading a table (:mod:`pandas_anon.gate.limits`): a compressed file past its
expanded size or ratio, a document too large to parse whole, a line longer than allowed, each
refused (exit 2) with a message naming the file and the option (and configuration key) that
raises the limit; within the limits, the same files are read. Limits are lowered through the
options to keep the files small."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pandas_anon.cli.main import main
from pandas_anon.errors import InputFileError, InvalidParameterError
from pandas_anon.gate import limits
from pandas_anon.gate.io import read_columns, read_table
from pandas_anon.gate.limits import BoundedStream, InputLimits, byte_size, check_lines

from corpus import zipped as archive_of

#: Rows that repeat: every class large, so a table of them passes ``--qid a,b``.
ROWS = b"0,x\n1,y\n"
#: A delimited table of 2 MiB (it compresses about 300 to 1,000 times).
TABLE = b"a,b\n" + ROWS * (1 << 18)
QID = ("--qid", "a,b")


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """An empty repository as the current folder: no configuration is looked for above it."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *argv: str) -> tuple[int, str]:
    """Exit status and stderr of ``pandas-anon check``."""
    code = main(["check", *argv])
    return code, capsys.readouterr().err


def refused(capsys, name: str, key: str, *argv: str, table: str | None = None) -> str:
    """The one error of a check refusing ``table`` (default: the file ``name``) at the limit
    ``key``, which it names with its option and configuration key."""
    code, err = check(capsys, name, *argv)
    assert code == 2, err
    (line,) = err.splitlines()
    assert line.startswith(f"pandas-anon: error: {table or name} "), line
    option = "--" + key.replace("_", "-")
    assert f"raise the limit with {option} ({key} in the configuration)" in line, line
    return line


def zipped(content: bytes, member: str = "data.csv") -> bytes:
    """A zip archive holding ``content`` as ``member``, deflated."""
    return archive_of({member: content})


#: Each compressed form of a table, named as a file: its name and its compressor.
COMPRESSED: dict[str, Callable[[bytes], bytes]] = {
    "t.csv.gz": gzip.compress,
    "t.csv.bz2": bz2.compress,
    "t.csv.xz": lzma.compress,
    "t.zip": zipped,
}


# -- expanded size and ratio ----------------------------------------------------------------


@pytest.mark.parametrize("name", COMPRESSED)
def test_a_compressed_table_past_the_expanded_size_is_refused(repo, capsys, name):
    (repo / name).write_bytes(COMPRESSED[name](TABLE))
    assert check(capsys, name, *QID)[0] == 0  # 2 MiB: within the default 4 GiB
    member = f"{name}:data.csv" if name.endswith(".zip") else name
    line = refused(
        capsys, name, "max_expanded_size", *QID, "--max-expanded-size", "1MiB", table=member
    )
    assert "expands to more than 1 MiB when decompressed" in line


def test_the_expanded_size_is_a_configuration_key_and_a_rule(repo, capsys):
    (repo / "t.csv.gz").write_bytes(gzip.compress(TABLE))
    (repo / ".pandas-anon.toml").write_text(
        'qid = ["a", "b"]\n[[rules]]\nfiles = "*.gz"\nmax_expanded_size = "1 MiB"\n'
    )
    refused(capsys, "t.csv.gz", "max_expanded_size")
    assert check(capsys, "t.csv.gz", "--max-expanded-size", "3MB")[0] == 0  # the option wins


@pytest.mark.parametrize("name", [*COMPRESSED, "t.json.gz", "t.jsonl.xz"])
def test_a_decompression_bomb_is_refused_past_the_ratio(repo, capsys, monkeypatch, name):
    if "json" in name:
        content = b"[" + b'{"a": 0, "b": "x"}, ' * (1 << 17) + b'{"a": 0, "b": "x"}]'
        if "jsonl" in name:
            content = b'{"a": 0, "b": "x"}\n' * (1 << 17)
        compress = gzip.compress if name.endswith(".gz") else lzma.compress
    else:
        content, compress = TABLE, COMPRESSED[name]
    (repo / name).write_bytes(compress(content))
    # under RATIO_FROM (16 MiB) expanded, any ratio is read: a small file is no bomb
    assert check(capsys, name, *QID)[0] == 0
    monkeypatch.setattr(limits, "RATIO_FROM", 1 << 20)  # the same ratio past it is refused
    member = f"{name}:data.csv" if name.endswith(".zip") else name
    line = refused(capsys, name, "max_ratio", *QID, table=member)
    assert re.search(
        r"expands to more than 100 times its compressed size of [\d.]+ (bytes|KiB)", line
    )
    assert check(capsys, name, *QID, "--max-ratio", "100000")[0] == 0


def test_a_zip_member_is_refused_by_its_declared_size_before_it_is_read(repo):
    (repo / "t.zip").write_bytes(zipped(b"\x89PNG" + TABLE))
    with pytest.raises(InputFileError, match="binary content"):  # what reading it finds
        read_table(repo / "t.zip")
    with limits.applied(InputLimits(max_expanded_size=1 << 20)):
        for read in (read_table, read_columns):
            with pytest.raises(InputFileError, match="expands to more than 1 MiB"):
                read(repo / "t.zip")


def test_an_archive_of_many_small_bombs_is_refused_by_its_total(repo, capsys, monkeypatch):
    """Members each under RATIO_FROM are read whatever their ratio, but not when together they
    expand past the ratio to the archive's size (as an overlapping zip bomb's members do)."""
    monkeypatch.setattr(limits, "RATIO_FROM", 4 << 20)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for number in range(3):  # 6 MiB in all, each member 2 MiB
            archive.writestr(f"m{number}.csv", TABLE)
    (repo / "t.zip").write_bytes(buffer.getvalue())
    code, err = check(capsys, "t.zip", *QID)
    assert code == 2 and err.count("\n") == 3, err
    for number in range(3):
        assert f"error: t.zip:m{number}.csv is in an archive whose members expand to " in err
    assert "raise the limit with --max-ratio (max_ratio in the configuration)" in err
    assert check(capsys, "t.zip", *QID, "--max-ratio", "100000")[0] == 0
    monkeypatch.setattr(limits, "RATIO_FROM", 8 << 20)  # 6 MiB in all: under it, read
    assert check(capsys, "t.zip", *QID)[0] == 0


def test_every_reader_is_bounded_by_the_limits_in_force(repo):
    (repo / "t.csv.gz").write_bytes(gzip.compress(TABLE))
    assert len(read_table(repo / "t.csv.gz")) == 2 * (1 << 18)  # the defaults: read
    with limits.applied(InputLimits(max_expanded_size=1 << 20)):
        for read in (read_table, read_columns):
            with pytest.raises(InputFileError, match="expands to more than 1 MiB"):
                read(repo / "t.csv.gz")
    assert limits.current() == limits.DEFAULTS  # the block's limits end with it


# -- documents parsed whole -----------------------------------------------------------------

RECORDS = json.dumps([{"a": i % 2, "b": "xy"[i % 2]} for i in range(200)]).encode()


@pytest.mark.parametrize("name", ["t.json", "t.json.gz", "t.jsonl"])
def test_a_json_document_past_the_document_size_is_refused(repo, capsys, name):
    content = RECORDS
    if name.endswith(".jsonl"):
        content = b"".join(json.dumps(r).encode() + b"\n" for r in json.loads(RECORDS))
    (repo / name).write_bytes(gzip.compress(content) if name.endswith(".gz") else content)
    assert check(capsys, name, *QID)[0] == 0
    line = refused(capsys, name, "max_document_size", *QID, "--max-document-size", "2KiB")
    assert "holds more than 2 KiB, which the gate would parse whole in memory" in line
    assert line.endswith("or publish the table as CSV or Parquet")


def test_a_workbook_is_refused_by_its_members_declared_sizes(repo, capsys):
    sheet = b"<worksheet>" + b"<row><c><v>0</v></c></row>" * 200 + b"</worksheet>"
    (repo / "t.xlsx").write_bytes(zipped(sheet, "xl/worksheets/sheet1.xml"))
    (repo / ".pandas-anon.toml").write_text('max_document_size = "4 KiB"\n')
    refused(capsys, "t.xlsx", "max_document_size")  # before its engine is asked to open it
    (repo / "t.xlsx.gz").write_bytes(gzip.compress((repo / "t.xlsx").read_bytes()))
    refused(capsys, "t.xlsx.gz", "max_document_size")


def test_a_compressed_parquet_file_is_bounded_as_it_is_decompressed(repo, capsys):
    frame = pd.DataFrame({"a": [0, 1] * 5000, "b": ["x", "y"] * 5000})
    frame.to_parquet(repo / "t.parquet", compression=None)
    (repo / "t.parquet.gz").write_bytes(gzip.compress((repo / "t.parquet").read_bytes()))
    assert check(capsys, "t.parquet.gz", *QID)[0] == 0
    refused(capsys, "t.parquet.gz", "max_expanded_size", *QID, "--max-expanded-size", "1KiB")


# -- lines ----------------------------------------------------------------------------------


def long_line_table(before: int) -> bytes:
    """A table with one row of 2 KiB after ``before`` bytes of short rows."""
    return b"a,b\n" + ROWS * (before // len(ROWS)) + b"0," + b"x" * 2048 + b"\n" + ROWS * 100


@pytest.mark.parametrize("before", [1000, 3 << 19])  # in the sample; past its first MiB
@pytest.mark.parametrize("compressed", [False, True])
def test_a_line_past_the_longest_allowed_is_refused(repo, capsys, before, compressed):
    content = long_line_table(before)
    name = "t.csv.gz" if compressed else "t.csv"
    (repo / name).write_bytes(gzip.compress(content) if compressed else content)
    code, err = check(capsys, name, *QID)  # read: its 2 KiB value is text outside the table
    assert code == 2 and "b (long values) (2,048 characters of text" in err
    line = refused(capsys, name, "max_line_length", *QID, "--max-line-length", "1KiB")
    assert f"has a line longer than 1 KiB (from byte {4 + before // 8 * 8:,}" in line


def test_an_endless_row_never_passes(repo, capsys):
    """Today's 51 MB file with no line break after its header, in small: not one row that
    passes, but an error naming the option."""
    (repo / "t.csv").write_bytes(b"a,b\n" + b"x" * (3 << 20))
    line = refused(capsys, "t.csv", "max_line_length", "--qid", "a", "--max-singletons", "1")
    assert "has a line longer than 1 MiB (from byte 4 of its content)" in line
    (repo / "u.csv").write_bytes(b"a,b," * (1 << 19))  # no line break at all
    refused(capsys, "u.csv", "max_line_length")


def test_a_header_longer_than_the_sample_is_read_within_a_raised_limit(repo, capsys):
    header = ",".join(["a", *(f"c{i}" for i in range(160_000))])  # longer than the 1 MiB sample
    row = "0" + ",1" * 160_000
    (repo / "t.csv").write_bytes(f"{header}\n{row}\n{row}\n".encode())
    refused(capsys, "t.csv", "max_line_length", "--qid", "a")
    code, err = check(capsys, "t.csv", "--qid", "a", "--max-line-length", "2MiB")
    # read: its 160,001 names over 2 rows are text outside the table, far past its budget
    assert code == 2 and "t.csv:(column names) (1," in err


def longest_line(data: bytes) -> int:
    """The length of the longest line of ``data``, lines ending at LF, CR or CRLF."""
    return max(map(len, re.split(rb"\r\n|\r|\n", data)))


@given(
    data=st.binary(max_size=300).map(lambda b: bytes(b"ab\n\r"[x % 4] for x in b)),
    limit=st.integers(1, 40),
    pieces=st.lists(st.integers(1, 50), max_size=20),
)
def test_lines_are_checked_exactly_in_any_pieces(data, limit, pieces):
    stream = BoundedStream(io.BytesIO(data), "t.csv", None, limit)
    too_long = longest_line(data) > limit
    try:
        for size in pieces:
            stream.read(size)
        stream.read()
    except InputFileError as error:
        assert too_long and "has a line longer than" in str(error)
    else:
        assert not too_long


@given(
    data=st.binary(min_size=1, max_size=300).map(lambda b: bytes(b"ab\n\r"[x % 4] for x in b)),
    limit=st.integers(1, 40),
)
def test_a_plain_file_s_lines_are_checked_exactly(tmp_path_factory, data, limit):
    path = tmp_path_factory.mktemp("lines") / "t.csv"
    path.write_bytes(data)
    if longest_line(data) > limit:
        with pytest.raises(InputFileError, match="--max-line-length"):
            check_lines("t.csv", str(path), limit)
    else:
        check_lines("t.csv", str(path), limit)


# -- the values of the options and keys -----------------------------------------------------


@pytest.mark.parametrize(
    ("value", "size"),
    [
        (1048576, 1 << 20),
        ("1048576", 1 << 20),
        ("64 MiB", 64 << 20),
        ("4GiB", 4 << 30),
        ("500 mb", 500 * 10**6),
        ("1.5 KiB", 1536),
    ],
)
def test_sizes_are_bytes_or_text_with_a_unit(value, size):
    assert byte_size(value, "max_line_length") == size


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "", "1 XB", "MiB", "0.1 B", None])
def test_a_size_that_is_not_one_is_refused_naming_the_key(value):
    with pytest.raises(InvalidParameterError, match="^max_line_length must be"):
        byte_size(value, "max_line_length")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-ratio", "1"], "--max-ratio: max_ratio must be a finite number above 1"),
        (["--max-line-length", "1 XB"], "--max-line-length: max_line_length must be a size"),
        (["--max-document-size", "0"], "--max-document-size: max_document_size must be"),
        (["--max-expanded-size", "-5"], "--max-expanded-size: max_expanded_size must be"),
    ],
)
def test_a_bad_limit_on_the_command_line_is_refused(repo, capsys, argv, message):
    (repo / "t.csv").write_bytes(TABLE)
    code, err = check(capsys, "t.csv", *argv)
    assert code == 2 and message in err, err


def test_a_bad_limit_in_the_configuration_is_refused(repo, capsys):
    (repo / "t.csv").write_bytes(TABLE)
    (repo / ".pandas-anon.toml").write_text("max_ratio = 0.5\n")
    code, err = check(capsys, "t.csv")
    assert code == 2 and "max_ratio must be a finite number above 1" in err, err


@pytest.mark.parametrize(
    "command",
    [
        ["scan", "t.csv", "--qid", "a"],
        ["anonymize", "t.csv", "out.csv", "--k", "2", "--qid", "a"],
        ["ke-anon", "t.csv", "out.csv", "--k", "2", "--eps", "1", "--qid", "a"],
        ["compare", "t.csv", "--k", "2", "--qid", "a"],
        ["report", "t.csv", "-o", "page.html", "--qid", "a"],
        ["study", "t.csv", "--year", "a", "--place", "b", "--sex", "b"],
    ],
    ids=lambda command: command[0],
)
def test_every_command_reading_a_table_takes_the_limits_and_names_them(repo, capsys, command):
    """Not only check: a command past a limit says which of its own options raises it, and
    reads the file once it is raised."""
    (repo / "t.csv").write_bytes(b"a,b\n" + b"1,x\n" * 10 + b"2," + b"y" * 2048 + b"\n")
    assert main([*command, "--max-line-length", "1KiB"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "has a line longer than 1 KiB" in line
    assert "raise the limit with --max-line-length" in line
    assert main([*command, "--max-line-length", "nonsense"]) == 2
    assert "--max-line-length: max_line_length must be a size" in capsys.readouterr().err

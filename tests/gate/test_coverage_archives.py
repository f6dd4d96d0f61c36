"""The gate passes an archive or a Parquet file only when it has read every member and every
column chunk (issue 45).

An archive's account is its members: each is read as a table (archives inside too), is a
folder, or is named as not read (exit 2, with the rule that skips it by name); a Parquet
file's is its column chunks, the index pandas stored among them. Compression is told from
the content, not the name. One test per trick of the issue's hostile round that concerns
archives, compression and Parquet (each said, of a risky table, exit 0 or a wrong reason
before), then property tests writing random frames as Parquet and as archives of CSV
members.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import warnings
import zipfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_coverage import CODES, check, frames, safe

from pandas_anon.errors import InputFileError
from pandas_anon.gate.io import tables_in
from pandas_anon.gate.parsers import read
from pandas_anon.gate.parsers.parquet import CHUNKS

RISKY = safe().assign(codice_fiscale=CODES)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def zip_of(path: Path, members: list[tuple[str, bytes]]) -> Path:
    """A zip archive of ``members`` in that order (a name may repeat)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns of a repeated name
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                archive.writestr(name, data)
    return path


def tar_of(path: Path, members: list[tuple[str, bytes]], mode: str = "w:gz") -> Path:
    """A tar archive of ``members`` in that order (a name may repeat; one ending in ``/`` a
    folder)."""
    with tarfile.open(path, mode) as archive:  # type: ignore[call-overload]
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            if name.endswith("/"):
                info.type = tarfile.DIRTYPE
            archive.addfile(info, io.BytesIO(data))
    return path


# -- the tricks: each passed the gate, or failed it for a wrong reason, before ------------------


def test_two_members_of_one_name_fail_closed_naming_it(repo, capsys):
    """Before: exit 0, the second (safe) a.csv read, the first (risky) one never."""
    zip_of(repo / "dup.zip", [("a.csv", csv(RISKY)), ("a.csv", csv(safe()))])
    assert check(repo, "dup.zip") == 2
    err = capsys.readouterr().err
    assert "dup.zip:a.csv: 2 members of the archive have this name" in err
    assert "RSSMRA" not in err


def test_a_member_not_a_table_is_named_and_skipped_only_by_a_rule(repo, capsys):
    zip_of(repo / "pdf.zip", [("a.csv", csv(safe())), ("notes.pdf", b"%PDF-1.4\n%\xe2\xe3\n")])
    assert check(repo, "pdf.zip") == 2
    assert 'files = "pdf.zip:notes.pdf" and skip = true' in capsys.readouterr().err
    (repo / ".pandas-anon.toml").write_text(
        '[[rules]]\nfiles = "pdf.zip:notes.pdf"\nskip = true\n', encoding="utf-8"
    )
    assert check(repo, "pdf.zip") == 0


@pytest.mark.parametrize(
    ("name", "mode"), [("t.tar.gz", "w:gz"), ("t.tgz", "w:gz"), ("t.tar", "w")]
)
def test_a_tar_archive_is_read_member_by_member(repo, capsys, name, mode):
    """Before: exit 2, 'binary content' (the hooks selected it all the same)."""
    tar_of(repo / name, [("dati/", b""), ("dati/risky.csv", csv(RISKY))], mode)
    assert check(repo, name) == 1
    assert f"{name}:dati/risky.csv: 'codice_fiscale'" in capsys.readouterr().out
    tar_of(repo / name, [("dati/safe.csv", csv(safe()))], mode)
    assert check(repo, name) == 0


def test_a_tar_member_of_a_repeated_name_or_a_link_is_named(tmp_path):
    path = tar_of(tmp_path / "t.tgz", [("a.csv", csv(RISKY)), ("a.csv", csv(safe()))])
    (entry,) = tables_in(path)
    assert entry.name == f"{path}:a.csv" and "2 members of the archive" in entry.error
    with tarfile.open(path, "w:gz") as archive:
        link = tarfile.TarInfo("b.csv")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    (entry,) = tables_in(path)
    assert "is a symbolic link, not a file of the archive" in entry.error


def test_archives_inside_archives_of_either_kind(tmp_path):
    inner = tar_of(tmp_path / "in.tgz", [("r.csv", csv(RISKY))]).read_bytes()
    path = zip_of(
        tmp_path / "out.zip", [("in.tgz", inner), ("x.csv.gz", gzip.compress(b"a\n1\n2\n"))]
    )
    names = [entry.name for entry in tables_in(path)]
    assert names == [f"{path}:in.tgz:r.csv", f"{path}:x.csv.gz"]
    assert read(tables_in(path)[0].name).frame.shape == (len(RISKY), 3)


def test_compression_is_told_from_the_content(repo, capsys):
    """Before: a gzip named .csv was 'binary content: name it .gz' (exit 2), text named .gz
    'not a valid gzip file' (exit 2); both are read now."""
    (repo / "gz_named.csv").write_bytes(gzip.compress(csv(RISKY)))
    (repo / "text_named.csv.gz").write_bytes(csv(RISKY))
    assert check(repo, "gz_named.csv") == 1
    assert check(repo, "text_named.csv.gz") == 1
    (repo / "safe.csv").write_bytes(gzip.compress(csv(safe())))
    assert check(repo, "safe.csv") == 0


def test_zstandard_is_read_and_7zip_refused_naming_the_fix(repo, capsys):
    """Before: both 'binary content' (exit 2); a .csv.zst is read now (pyarrow's codec), a
    .7z refused saying how to extract it."""
    (repo / "r.csv.zst").write_bytes(pa.compress(csv(RISKY), "zstd", asbytes=True))
    assert check(repo, "r.csv.zst") == 1
    (repo / "a.7z").write_bytes(b"7z\xbc\xaf\x27\x1c\x00\x04" + b"\x00" * 40)
    assert check(repo, "a.7z") == 2
    assert "a.7z is a 7-Zip archive, which the gate cannot read; extract it" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("index_name", [None, "codice_fiscale"])
def test_a_parquet_index_holding_tax_codes_is_read(repo, capsys, index_name):
    """Before: the unnamed index (__index_level_0__) was left over, exit 2 telling to skip
    it by a rule; it is read now, as the named one was, and the file fails (exit 1)."""
    frame = safe().set_index(pd.Index(CODES, name=index_name))
    pq.write_table(pa.Table.from_pandas(frame), repo / "t.parquet", row_group_size=150)
    assert check(repo, "t.parquet") == 1
    column = index_name or "__index_level_0__"
    assert f"'{column}' (100.00 % of the rows alone on its value" in capsys.readouterr().out
    table, account = read(repo / "t.parquet")
    assert column in table.columns and account.open() == []
    assert account.units == {CHUNKS: 3 * 3}


def test_a_parquet_index_of_row_numbers_is_checked_and_left_out(tmp_path):
    frame = safe().iloc[::-1].sort_index()  # a stored index of 0, 1, ...
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=True), tmp_path / "t.parquet")
    table, account = read(tmp_path / "t.parquet")
    assert list(table.columns) == ["anno", "sesso"] and account.open() == []
    assert account.read[str(tmp_path / "t.parquet"), "(row numbers)"] == 1


def test_a_nested_parquet_column_is_left_over_by_name(tmp_path):
    table = pa.table({"a": [1, 2], "s": pa.array([{"x": 1, "y": "p"}, {"x": 2, "y": "q"}])})
    pq.write_table(table, tmp_path / "t.parquet")
    _, account = read(tmp_path / "t.parquet")
    (part,) = account.open()
    assert (part.name, part.count) == ("s", 2) and account.total == 3


# -- property tests -----------------------------------------------------------------------------


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    frame=frames(names=st.text(alphabet="abcxyz_ ", min_size=1, max_size=4)),
    index=st.sampled_from(["none", "range", "unnamed", "named"]),
    group=st.integers(1, 5),
)
def test_parquet_column_chunks_are_read_or_named(tmp_path, frame, index, group):
    """Every column chunk of every row group is read into a column, or the file is
    refused; an index stored as columns is read as one."""
    if frame.columns.duplicated().any():
        frame = frame.loc[:, ~frame.columns.duplicated()]
    frame = frame.astype(str).where(frame.notna(), None)  # one type a column: Arrow's rule
    if index == "unnamed":
        frame.index = pd.Index([f"i{n}" for n in range(len(frame))])
    elif index == "named":
        frame.index = pd.Index([f"i{n}" for n in range(len(frame))], name="idx")
    path = tmp_path / "t.parquet"
    table = pa.Table.from_pandas(
        frame, preserve_index=None if index == "range" else index != "none"
    )
    pq.write_table(table, path, row_group_size=group)
    groups = pq.ParquetFile(path).metadata.num_row_groups
    try:
        read_frame, account = read(path)
    except InputFileError:
        return  # fails closed (a column named as the index, say)
    assert account.open() == []
    assert account.total == groups * table.num_columns
    stored = [c for c in table.column_names]
    assert account.read_total == account.total
    assert set(map(str, read_frame.columns)) <= set(stored)
    if index in ("unnamed", "named"):
        assert ("__index_level_0__" if index == "unnamed" else "idx") in read_frame.columns


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    members=st.lists(
        st.tuples(st.sampled_from(["a.csv", "b.csv", "d/c.csv", "e"]), frames()),
        min_size=1,
        max_size=4,
    ),
    kind=st.sampled_from(["zip", "tar.gz", "nested"]),
)
def test_archive_members_are_each_read_or_named(tmp_path, members, kind):
    """Every member written is an entry: read as a table, or an error naming it (a name
    two members share); none is hidden, none read twice."""
    data = [(name, csv(frame)) for name, frame in members]
    if kind == "tar.gz":
        path = tar_of(tmp_path / "t.tar.gz", data)
    else:
        path = zip_of(tmp_path / "t.zip", data)
        if kind == "nested":
            path = zip_of(tmp_path / "o.zip", [("in.zip", path.read_bytes())])
    prefix = f"{path}:in.zip:" if kind == "nested" else f"{path}:"
    entries = tables_in(path)
    names = [name for name, _ in data]
    assert [e.name for e in entries] == [prefix + n for n in dict.fromkeys(names)]
    for entry in entries:
        shared = names.count(entry.name.removeprefix(prefix)) > 1
        assert bool(entry.error) == shared
        if not shared:
            try:
                read(entry.name)
            except InputFileError:
                pass  # fails closed

"""The gate passes a container only when every byte of it lies in a structure it reads.

A red team hid a table of people in the parts of archives and compressed files that the gate
never looked at: a gzip header's comment, a Zstandard skippable frame, a zip archive's
comment, bytes after a zip archive's end or a tar archive's end marker, a zip member that the
central directory does not list, a tar extended header. Each passed the gate (exit 0); each
fails it now (exit 2), naming the part without quoting it, and short free text (a comment
saying who made the archive) still passes. Clean archives and compressed files, as the
standard library and the common tools write them, pass; property tests write random archives
and check that their byte account is exact, then that appended bytes are counted to the byte.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import shutil
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_coverage import CODES, check, safe

from pandas_anon.gate.io import tables_in
from pandas_anon.gate.parsers.containers import tar_parts, zip_parts

#: The people hidden: a table with a tax code per row.
PEOPLE = safe().assign(codice_fiscale=CODES).to_csv(index=False).encode()
SAFE = safe().to_csv(index=False).encode()
SHORT = b"created by the regional office"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def fails_naming(repo: Path, name: str, part: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Check ``name`` and return the error, asserting exit 2, that it names ``part`` of
    ``name`` and quotes no tax code."""
    assert check(repo, name) == 2
    err = capsys.readouterr().err
    assert f"{name}:{part}" in err
    assert "RSSMRA" not in err and "codice_fiscale" not in err
    return err


def gzip_member(
    data: bytes, *, name: bytes = b"", comment: bytes = b"", extra: bytes = b""
) -> bytes:
    """A gzip member of ``data`` with these header fields (as mk2.py wrote it)."""
    flags = (0x04 if extra else 0) | (0x08 if name else 0) | (0x10 if comment else 0)
    header = b"\x1f\x8b\x08" + bytes([flags]) + b"\0\0\0\0\0\xff"
    if extra:
        header += struct.pack("<H", len(extra)) + extra
    header += name + b"\0" if name else b""
    header += comment + b"\0" if comment else b""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = compressor.compress(data) + compressor.flush()
    return header + body + struct.pack("<II", zlib.crc32(data), len(data))


def zip_bytes(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip archive of ``members``, written by :mod:`zipfile`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def tar_bytes(
    members: list[tuple[str, bytes]], fmt: int = tarfile.PAX_FORMAT, **headers: str
) -> bytes:
    """A tar archive of ``members`` in ``fmt``, each with the extended ``headers``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.pax_headers = len(data), dict(headers)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def with_checksum(block: bytes) -> bytes:
    """A tar header ``block`` with its checksum recomputed."""
    block = block[:148] + b" " * 8 + block[156:]
    return block[:148] + b"%06o\0 " % sum(block) + block[156:]


# -- compressed files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "part"), [("comment", "(gzip comment)"), ("name", "(gzip file name)")]
)
def test_people_in_a_gzip_header_fail_it(repo, capsys, field, part):
    """Before: exit 0, the header's comment (mk2.py's c01) never read."""
    (repo / "c.csv.gz").write_bytes(gzip_member(SAFE, **{field: PEOPLE.replace(b"\0", b"")}))
    err = fails_naming(repo, "c.csv.gz", part, capsys)
    assert "gzip -n" in err


def test_a_short_gzip_file_name_and_comment_pass(repo):
    (repo / "c.csv.gz").write_bytes(gzip_member(SAFE, name=b"data.csv", comment=SHORT))
    assert check(repo, "c.csv.gz") == 0


def test_gzip_headers_count_their_text_together(repo, capsys):
    """Each member's comment short, but together past the budget."""
    members = [gzip_member(SAFE[:0] if n else SAFE, comment=b"x" * 300) for n in range(4)]
    (repo / "c.csv.gz").write_bytes(b"".join(members))
    fails_naming(repo, "c.csv.gz", "(gzip comment)", capsys)


def test_a_gzip_extra_field_fails_but_bgzf_s(repo, capsys):
    (repo / "c.csv.gz").write_bytes(
        gzip_member(SAFE, extra=b"PP" + struct.pack("<H", 5) + b"hello")
    )
    fails_naming(repo, "c.csv.gz", "(gzip extra field)", capsys)
    (repo / "c.csv.gz").write_bytes(gzip_member(SAFE, extra=b"BC\x02\x00\x10\x00"))
    assert check(repo, "c.csv.gz") == 0


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        (".gz", gzip.compress),
        (".bz2", bz2.compress),
        (".xz", lzma.compress),
        (".zst", lambda data: pa.compress(data, "zstd", asbytes=True)),
    ],
)
def test_bytes_after_a_compressed_stream_fail_it(repo, capsys, suffix, compress):
    """Before: Python's bz2 and lzma skipped them silently."""
    name = f"c.csv{suffix}"
    (repo / name).write_bytes(compress(SAFE) + PEOPLE)
    err = fails_naming(repo, name, "(bytes after the compressed data)", capsys)
    assert f"{len(PEOPLE):,} bytes" in err
    if suffix != ".zst":  # zero bytes after a stream are padding, which gzip and xz allow
        (repo / name).write_bytes(compress(SAFE) + b"\0" * 100)
        assert check(repo, name) == 0


@pytest.mark.parametrize(
    ("suffix", "compress"), [(".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)]
)
def test_streams_one_after_another_are_all_read(repo, suffix, compress):
    """``cat a.gz b.gz``: the second stream's people are read (exit 1), as before."""
    rows = PEOPLE.index(b"\n") + 1 + 200
    (repo / f"c.csv{suffix}").write_bytes(compress(PEOPLE[:rows]) + compress(PEOPLE[rows:]))
    assert check(repo, f"c.csv{suffix}") == 1


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_zstandard_skippable_frame_fails_it(repo, capsys, where):
    """Before: exit 0, zstd (and pyarrow) pass over the frame (mk2.py's c05)."""
    frame = struct.pack("<II", 0x184D2A50 + 7, len(PEOPLE)) + PEOPLE
    data = pa.compress(SAFE, "zstd", asbytes=True)
    (repo / "c.csv.zst").write_bytes(frame + data if where == "before" else data + frame)
    err = fails_naming(repo, "c.csv.zst", "(zstd skippable frame)", capsys)
    assert f"{len(frame):,} bytes" in err


# -- zip ----------------------------------------------------------------------------------------


def test_people_in_a_zip_comment_fail_it_and_a_rule_skips_it(repo, capsys):
    """Before: exit 0 (mk2.py's z01); a rule skipping the part by name passes it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.comment = PEOPLE[:65000]
        archive.writestr("safe.csv", SAFE)
    (repo / "z.zip").write_bytes(buffer.getvalue())
    err = fails_naming(repo, "z.zip", "(zip comment)", capsys)
    assert 'files = "z.zip:(zip comment)" and skip = true' in err
    (repo / ".pandas-anon.toml").write_text(
        '[[rules]]\nfiles = "z.zip:(zip comment)"\nskip = true\n', encoding="utf-8"
    )
    assert check(repo, "z.zip") == 0


def test_a_short_zip_comment_passes(repo):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.comment = SHORT
        archive.writestr("safe.csv", SAFE)
    (repo / "z.zip").write_bytes(buffer.getvalue())
    assert check(repo, "z.zip") == 0


def test_people_in_zip_member_comments_fail_it(repo, capsys):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for n, line in enumerate(PEOPLE.splitlines()[:100]):
            info = zipfile.ZipInfo(f"s{n}.csv")
            info.comment = line
            archive.writestr(info, SAFE)
    (repo / "z.zip").write_bytes(buffer.getvalue())
    fails_naming(repo, "z.zip", "(zip member comments)", capsys)


def test_bytes_after_a_zip_archive_fail_it(repo, capsys):
    """Before: exit 0 (mk2.py's z02)."""
    (repo / "z.zip").write_bytes(zip_bytes([("safe.csv", SAFE)]) + PEOPLE[:30000])
    err = fails_naming(repo, "z.zip", "(bytes after the archive)", capsys)
    assert f"{len(PEOPLE[:30000]):,} bytes" in err


@pytest.mark.parametrize("hidden_first", [True, False])
def test_a_zip_member_the_directory_does_not_list_fails_it(repo, capsys, hidden_first):
    """Before: exit 0 (mk2.py's z03): zipfile lists only the directory's members."""
    members = [("people.csv", PEOPLE), ("safe.csv", SAFE)]
    data = zip_bytes(members if hidden_first else members[::-1])
    start = data.index(b"PK\x01\x02")
    entries = data[start : data.index(b"PK\x05\x06")]
    second = entries.index(b"PK\x01\x02", 4)
    kept = entries[second:] if hidden_first else entries[:second]
    end = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 1, 1, len(kept), start, 0)
    (repo / "z.zip").write_bytes(data[:start] + kept + end)
    part = "(bytes before the archive)" if hidden_first else "(unlisted bytes at offset"
    fails_naming(repo, "z.zip", part, capsys)


def test_an_unknown_zip_extra_field_fails_and_standard_ones_pass(repo, capsys):
    def archive(extra: bytes) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as written:
            info = zipfile.ZipInfo("safe.csv")
            info.extra = extra
            written.writestr(info, SAFE)
        return buffer.getvalue()

    hidden = PEOPLE[:4000]
    (repo / "z.zip").write_bytes(archive(struct.pack("<HH", 0x4242, len(hidden)) + hidden))
    fails_naming(repo, "z.zip", "(zip extra field 0x4242)", capsys)
    timestamp = struct.pack("<HHBI", 0x5455, 5, 1, 1700000000)
    owners = struct.pack("<HHBBIBI", 0x7875, 11, 1, 4, 1000, 4, 1000)
    (repo / "z.zip").write_bytes(archive(timestamp + owners))
    assert check(repo, "z.zip") == 0


def test_a_zip_member_name_going_on_after_a_nul_fails_it(repo, capsys):
    data = zip_bytes([("safe.csvXRSSMRA85T10A562S", SAFE)])
    (repo / "z.zip").write_bytes(data.replace(b"safe.csvX", b"safe.csv\0"))
    fails_naming(repo, "z.zip", "(member names after a NUL)", capsys)


def test_data_in_a_zip_folder_entry_fails_it(repo, capsys):
    data = zip_bytes([("dati/", PEOPLE), ("safe.csv", SAFE)])
    (repo / "z.zip").write_bytes(data)
    fails_naming(repo, "z.zip", "(folder data)", capsys)


def test_a_workbook_is_a_zip_archive_accounted_for_too(repo, capsys):
    pd.DataFrame({"anno": [1950] * 10}).to_excel(repo / "b.xlsx", index=False)
    assert [entry.error for entry in tables_in(repo / "b.xlsx")] == [""]
    (repo / "b.xlsx").write_bytes((repo / "b.xlsx").read_bytes() + PEOPLE)
    fails_naming(repo, "b.xlsx", "(bytes after the archive)", capsys)


def test_an_archive_inside_an_archive_is_accounted_for_too(repo, capsys):
    inner = zip_bytes([("safe.csv", SAFE)]) + PEOPLE
    (repo / "o.zip").write_bytes(zip_bytes([("in.zip", inner)]))
    fails_naming(repo, "o.zip", "in.zip:(bytes after the archive)", capsys)
    member = gzip_member(SAFE, comment=PEOPLE.replace(b"\0", b""))
    (repo / "o.zip").write_bytes(zip_bytes([("a.csv.gz", member)]))
    fails_naming(repo, "o.zip", "a.csv.gz:(gzip comment)", capsys)


# -- tar ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["w", "w:gz"])
def test_bytes_after_a_tar_archive_fail_it(repo, capsys, mode):
    """Before: exit 0 (mk2.py's r01 and r03)."""
    data = tar_bytes([("safe.csv", SAFE)], tarfile.GNU_FORMAT) + PEOPLE
    name = "t.tar" if mode == "w" else "t.tar.gz"
    (repo / name).write_bytes(data if mode == "w" else gzip.compress(data))
    fails_naming(repo, name, "(bytes after the archive)", capsys)


def test_a_tar_member_after_a_broken_header_fails_it(repo, capsys):
    """tarfile stops at a header whose checksum is wrong, and lists none after it."""
    hidden = tar_bytes([("people.csv", PEOPLE)], tarfile.GNU_FORMAT)
    hidden = hidden[:148] + b"0000000\0" + hidden[156:]
    data = tar_bytes([("safe.csv", SAFE)], tarfile.GNU_FORMAT)
    (repo / "t.tar").write_bytes(data[: data.index(b"\0" * 1024, 1024)] + hidden)
    fails_naming(repo, "t.tar", "(bytes after the archive)", capsys)


@pytest.mark.parametrize("where", ["member", "global"])
def test_people_in_a_pax_header_fail_it_and_a_short_value_passes(repo, capsys, where):
    """Before: exit 0 (mk2.py's r02)."""
    people = PEOPLE.decode()

    def archive(comment: str) -> bytes:
        if where == "member":
            return tar_bytes([("safe.csv", SAFE)], comment=comment)
        buffer = io.BytesIO()
        with tarfile.open(
            fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT, pax_headers={"comment": comment}
        ) as written:
            info = tarfile.TarInfo("safe.csv")
            info.size = len(SAFE)
            written.addfile(info, io.BytesIO(SAFE))
        return buffer.getvalue()

    (repo / "t.tar").write_bytes(archive(people))
    fails_naming(repo, "t.tar", "(pax comment)", capsys)
    (repo / "t.tar").write_bytes(archive(SHORT.decode()))
    assert check(repo, "t.tar") == 0


def test_pax_keys_holding_people_are_counted_and_never_quoted(repo, capsys):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for n, code in enumerate(CODES[:100]):
            info = tarfile.TarInfo(f"s{n}.csv")
            info.size, info.pax_headers = len(SAFE), {code: "1"}
            archive.addfile(info, io.BytesIO(SAFE))
    (repo / "t.tar").write_bytes(buffer.getvalue())
    fails_naming(repo, "t.tar", "(pax *)", capsys)


def test_non_zero_tar_padding_and_header_slack_fail_it(repo, capsys):
    data = bytearray(tar_bytes([("safe.csv", SAFE[:700])], tarfile.GNU_FORMAT))
    data[512 + 700 : 512 + 710] = b"RSSMRA85T1"
    (repo / "t.tar").write_bytes(bytes(data))
    fails_naming(repo, "t.tar", "(tar padding)", capsys)
    data = tar_bytes([("safe.csv", SAFE)], tarfile.GNU_FORMAT)
    block = with_checksum(data[:9] + b"\0RSSMRA85T10A562S" + data[26:512])
    (repo / "t.tar").write_bytes(block + data[512:])
    fails_naming(repo, "t.tar", "(tar header bytes)", capsys)


def test_tar_owner_names_are_text(repo, capsys):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for code in CODES[:100]:
            info = tarfile.TarInfo(f"{code}/")
            info.type, info.uname = tarfile.DIRTYPE, code
            archive.addfile(info)
        info = tarfile.TarInfo("safe.csv")
        info.size = len(SAFE)
        archive.addfile(info, io.BytesIO(SAFE))
    (repo / "t.tar").write_bytes(buffer.getvalue())
    fails_naming(repo, "t.tar", "(tar owner names)", capsys)


# -- clean containers pass ----------------------------------------------------------------------


def _clean(folder: Path) -> dict[str, bytes]:
    """Clean containers of a safe table, by name, as the standard library writes them."""
    tree = folder / "tree"
    (tree / "dati" / "sub").mkdir(parents=True)
    (tree / "dati" / "safe.csv").write_bytes(SAFE)
    (tree / "dati" / "sub" / "città_provinciali.csv").write_bytes(SAFE)
    (tree / "dati" / "sub" / f"{'lungo' * 25}.csv").write_bytes(SAFE)
    found = {
        "shutil.zip": Path(shutil.make_archive(str(folder / "made"), "zip", tree)).read_bytes(),
        "shutil.tar.gz": Path(
            shutil.make_archive(str(folder / "made"), "gztar", tree)
        ).read_bytes(),
        "c.csv.gz": gzip.compress(SAFE),
        "c.csv.bz2": bz2.compress(SAFE),
        "c.csv.xz": lzma.compress(SAFE),
        "c.csv.zst": pa.compress(SAFE, "zstd", asbytes=True),
    }
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        found[f"m{method}.zip"] = zip_bytes([("dati/", b""), ("dati/a.csv", SAFE)], method)
    for fmt, label in ((tarfile.GNU_FORMAT, "gnu"), (tarfile.PAX_FORMAT, "pax")):
        for mode in ("w", "w:gz", "w:bz2", "w:xz"):
            buffer = io.BytesIO()
            with tarfile.open(fileobj=buffer, mode=mode, format=fmt) as archive:  # type: ignore[call-overload]
                archive.add(tree / "dati", "dati")
            found[f"{label}.tar{mode[2:] and '.' + mode[2:]}"] = buffer.getvalue()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        archive.add(tree / "dati" / "safe.csv", "dati/safe.csv")
    found["ustar.tar"] = buffer.getvalue()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("big.csv", "w", force_zip64=True) as member:
            member.write(SAFE)
    found["zip64.zip"] = buffer.getvalue()
    return found


class _Unseekable(io.RawIOBase):
    """A stream zipfile cannot seek in: it writes data descriptors."""

    def __init__(self) -> None:
        super().__init__()
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.data += data
        return len(data)


def test_clean_containers_pass(repo, capsys):
    containers = _clean(repo)
    stream = _Unseekable()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.csv", SAFE)
    containers["descriptors.zip"] = bytes(stream.data)
    containers["named.csv.gz"] = gzip_member(SAFE, name=b"named.csv")
    for name, data in containers.items():
        (repo / name).write_bytes(data)
        assert [entry.error for entry in tables_in(repo / name)] == [""] * len(
            tables_in(repo / name)
        ), name
        assert check(repo, name) == 0, (name, capsys.readouterr().err)


# -- the byte account is exact ------------------------------------------------------------------

NAMES = st.text(st.characters(codec="utf-8", exclude_characters="\0/\\"), min_size=1, max_size=120)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    members=st.lists(
        st.tuples(
            NAMES,
            st.binary(max_size=3000),
            st.sampled_from(
                [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
            ),
            st.binary(max_size=40),
        ),
        max_size=5,
        unique_by=lambda member: member[0],
    ),
    comment=st.binary(max_size=100).filter(lambda comment: b"PK\x05\x06" not in comment),
    appended=st.binary(min_size=1, max_size=2000),
)
def test_a_zip_archive_s_bytes_are_all_accounted_for(members, comment, appended):
    """Whatever zipfile writes is covered exactly, comments counted as text; bytes appended
    are a gap of as many bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.comment = comment
        for name, data, method, member_comment in members:
            info = zipfile.ZipInfo(name)
            info.compress_type, info.comment = method, member_comment
            archive.writestr(info, data)
    written = buffer.getvalue()

    def parts(data: bytes) -> list:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return zip_parts(io.BytesIO(data), archive.infolist())

    found = parts(written)
    assert [part for part in found if not part.text] == []
    texts = {member_comment for *_, member_comment in members} - {b""}
    expected = {"(zip comment)": len(comment.decode("utf-8", "replace"))} if comment else {}
    if texts:
        expected["(zip member comments)"] = sum(len(t.decode("utf-8", "replace")) for t in texts)
    assert {part.name: part.count for part in found} == expected
    if b"PK\x05\x06" not in comment + appended:  # else zipfile takes it for the end record
        after = [part for part in parts(written + appended) if not part.text]
        assert [(p.name, p.count) for p in after] == [("(bytes after the archive)", len(appended))]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    members=st.lists(
        st.tuples(NAMES, st.binary(max_size=3000), st.booleans()), min_size=1, max_size=5
    ),
    fmt=st.sampled_from([tarfile.GNU_FORMAT, tarfile.PAX_FORMAT]),
    appended=st.binary(min_size=1, max_size=2000),
)
def test_a_tar_archive_s_bytes_are_all_accounted_for(members, fmt, appended):
    """Whatever tarfile writes (names long and beyond ASCII, folders) is covered exactly;
    non-zero bytes appended are counted to the byte."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
        for name, data, folder in members:
            info = tarfile.TarInfo(name)
            if folder:
                info.type = tarfile.DIRTYPE
                archive.addfile(info)
            else:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    written = buffer.getvalue()

    def parts(data: bytes) -> list:
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            return tar_parts(io.BytesIO(data), archive.getmembers())

    assert parts(written) == []
    after = parts(written + appended)
    nonzero = len(appended) - appended.count(0)
    assert [(p.name, p.count) for p in after] == (
        [("(bytes after the archive)", nonzero)] if nonzero else []
    )

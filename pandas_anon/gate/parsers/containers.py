"""The byte account of a container: every byte of an archive or a compressed file lies in a
structure the gate reads, or is a part named as not read.

A table's values are read from its members (an archive's) or its decompressed bytes (a
compressed file's), but a container holds more than that: headers, directories, comments,
padding, and whatever a tool that extracts it skips. Data hidden there (a comment holding a
table of people, bytes after a zip archive's end record, a member its directory does not list,
a skippable frame of a Zstandard file) would pass the gate unseen, so the gate follows each
container's structure with the standard library's parsers' rules, from its headers only (a
seek and a few bytes each: the data itself is streamed by the readers), and accounts for its
bytes:

* a zip archive (:func:`zip_parts`): each member the central directory lists, from its local
  header to its data (and data descriptor), the central directory, the end records, cover the
  file with no gap and no overlap; extra fields are standard ones (zip64, timestamps, Unix
  owners, NTFS times, padding), member names end at their end;
* a tar archive (:func:`tar_parts`): each member's headers (extended ones too, their records
  parsed whole) and data blocks follow one another to the end-of-archive marker, and only zero
  bytes are left: in padding, in fields after their value, after the marker;
* a gzip, bz2 or xz file (:class:`Streams`): one stream after another, each read whole by its
  decompressor, zero bytes between them, nothing after; a gzip header's extra field is a
  standard one (BGZF's);
* a Zstandard file (:class:`ZstdFrames`): one frame after another, no skippable frame (which
  zstd passes over unread) and nothing after.

What is left is a :class:`Part`, named after the container and a colon as a rule names it
(``data.zip:(zip comment)``). Free text (comments, the names of owners, extended header
values) is counted in characters, each distinct value once, and passes up to
:data:`~pandas_anon.gate.limits.TEXT_BUDGET` characters a container in all, as text
outside a table does (:mod:`pandas_anon.gate.parsers.account`); any other byte left fails the
file whatever its size. No message quotes a byte of a part.
"""

from __future__ import annotations

import bz2
import io
import lzma
import re
import struct
import tarfile
import zipfile
import zlib
from abc import abstractmethod
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from pandas_anon.errors import InputFileError
from pandas_anon.gate.limits import TEXT_BUDGET


@dataclass(frozen=True)
class Part:
    """Bytes of a container in no structure the gate reads.

    Attributes
    ----------
    name : str
        The part, as a rule names it after the container and a colon (``(zip comment)``).
    count : int
        Its bytes, or for text its characters.
    text : bool
        Free text (a comment, a name), which passes within the text budget.
    what : str
        What it is, without its content: for text, what holds it (``"the archive's
        comment"``), else what follows the count of bytes (``"after the archive's end"``).
    fix : str
        How to make a container without it.
    """

    name: str
    count: int
    text: bool
    what: str
    fix: str


def unread(parts: list[Part]) -> list[Part]:
    """The ``parts`` that fail their container: every one of bytes, and the text ones when
    their characters pass :data:`~pandas_anon.gate.limits.TEXT_BUDGET` in all."""
    text = sum(part.count for part in parts if part.text)
    return [part for part in parts if not part.text or text > TEXT_BUDGET]


def message(container: str, part: Part, parts: list[Part]) -> str:
    """The error naming ``part`` of ``container`` (one of its ``parts``): what it is, how
    much, and how to make the container without it."""
    if part.text:
        text = sum(other.count for other in parts if other.text)
        return (
            f"{container}:{part.name}: {part.count:,} characters of text in {part.what}, "
            f"which the gate does not read; with the rest of the container's ({text:,} in "
            f"all) they are more than the {TEXT_BUDGET:,} a file may carry outside its "
            f"tables: {part.fix}"
        )
    return (
        f"{container}:{part.name}: {part.count:,} bytes {part.what}; the gate does not read "
        f"them, and passes a file only when every byte of it is in a part it reads: "
        f"{part.fix}"
    )


@dataclass
class _Found:
    """What a walk of a container finds outside the structures read: bytes by part, and
    the distinct values of text by part."""

    about: dict[str, tuple[str, str]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    texts: dict[str, set[bytes]] = field(default_factory=dict)

    def left(self, name: str, count: int, what: str, fix: str) -> None:
        """``count`` bytes of the part ``name`` (nothing when 0)."""
        if count > 0:
            self.counts[name] += count
            self.about.setdefault(name, (what, fix))

    def text(self, name: str, value: bytes, what: str, fix: str) -> None:
        """A value of the text part ``name`` (nothing when empty)."""
        if value:
            self.texts.setdefault(name, set()).add(value)
            self.about.setdefault(name, (what, fix))

    def parts(self) -> list[Part]:
        """The parts found, bytes first."""
        found = [Part(name, count, False, *self.about[name]) for name, count in self.counts.items()]
        for name, values in self.texts.items():
            characters = sum(len(value.decode("utf-8", "replace")) for value in values)
            found.append(Part(name, characters, True, *self.about[name]))
        return found


def _read_at(handle: IO[bytes], offset: int, size: int) -> bytes:
    """Up to ``size`` bytes of ``handle`` from ``offset`` (fewer at its end)."""
    handle.seek(offset)
    return handle.read(size)


def _gaps(found: _Found, spans: list[tuple[int, int]], size: int, fix: str) -> None:
    """Record in ``found`` the bytes of a file of ``size`` bytes that no span of ``spans``
    (``[start, end)`` of each structure read) covers, and those two spans share."""
    cursor = 0
    for start, end in sorted(spans):
        if start > cursor:
            name = (
                "(bytes before the archive)"
                if cursor == 0
                else f"(unlisted bytes at offset {cursor})"
            )
            what = (
                "outside the parts the archive's directory lists, such as a member the "
                "directory leaves out (which a tool repairing archives extracts)"
            )
            found.left(name, start - cursor, what, fix)
        elif start < cursor:
            found.left(
                "(overlapping bytes)",
                min(end, cursor) - start,
                "shared by two parts of the archive, as the members of a zip bomb share theirs",
                fix,
            )
        cursor = max(cursor, end)
    found.left(
        "(bytes after the archive)",
        size - cursor,
        "after the archive's end, which tools extracting it skip",
        fix,
    )


# -- zip ----------------------------------------------------------------------------------------

_ZIP_FIX = (
    "re-create the archive from the files it should hold (zip -r, or Python's zipfile), "
    "which writes none"
)
_ZIP_COMMENT_FIX = (
    "remove it (zip -z ARCHIVE < /dev/null) or re-create the archive without one (Python's "
    "zipfile writes none unless ZipFile.comment is set)"
)
_MEMBER_FIX = "re-create the archive without member comments (zip adds them with -c)"
_END = b"PK\x05\x06"
_END64_LOCATOR = b"PK\x06\x07"
_END64 = b"PK\x06\x06"
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
_DESCRIPTOR = b"PK\x07\x08"
_END_SIZE, _LOCATOR_SIZE, _END64_SIZE = 22, 20, 56
_CENTRAL_SIZE, _LOCAL_SIZE = 46, 30
#: Extra fields of zip members read as numbers (times, owners, sizes) or padding, with the
#: most bytes each holds: zip64 sizes, NTFS times, PKWARE Unix, extended timestamp, Info-ZIP
#: Unix (old, 2 and 3), a JAR's marker, Android's alignment (zero bytes after 2).
_EXTRA_FIELDS = {
    0x0001: 28,
    0x000A: 32,
    0x000D: 12,
    0x5455: 13,
    0x5855: 12,
    0x7855: 4,
    0x7875: 19,
    0xCAFE: 0,
    0xD935: 2,
}
_UNICODE_PATH, _UNICODE_COMMENT = 0x7075, 0x6375
#: The most bytes a folder entry's data, compressed, is read to check that it holds nothing.
_EMPTY_MOST = 64


def zip_parts(handle: IO[bytes], infos: list[zipfile.ZipInfo]) -> list[Part]:
    """The parts of the zip archive in ``handle`` (seekable) that no structure read holds,
    given the members :mod:`zipfile` lists (``infos``, in the directory's order).

    Its end record is found as :mod:`zipfile` finds it (the last one in the final 64 KiB);
    the central directory it points to is walked entry by entry and each entry's local header
    read: those, each member's data (and data descriptor) and the end records must cover the
    file with no gap and no overlap. The archive's comment and the members' are text; extra
    fields other than :data:`_EXTRA_FIELDS` (or zero bytes), a name going on after a NUL,
    a local name other than the directory's, a folder's data are bytes left.
    """
    found = _Found()
    size = handle.seek(0, io.SEEK_END)
    end = _end_record(handle, size)
    if end is None:  # zipfile found one: the gate's walk differs from it
        found.left("(archive directory)", size, "in a directory the gate cannot walk", _ZIP_FIX)
        return found.parts()
    end_at, directory_size, comment = end
    spans = [(end_at, end_at + _END_SIZE + len(comment))]
    found.text("(zip comment)", comment, "the archive's comment", _ZIP_COMMENT_FIX)
    directory_end = end_at
    locator = _read_at(handle, end_at - _LOCATOR_SIZE, _LOCATOR_SIZE) if end_at >= 20 else b""
    if locator.startswith(_END64_LOCATOR):
        record_at = end_at - _LOCATOR_SIZE - _END64_SIZE
        record = _read_at(handle, max(record_at, 0), _END64_SIZE)
        if record_at < 0 or not record.startswith(_END64):
            found.left(
                "(archive directory)",
                size,
                "in a zip64 archive whose end record is not found",
                _ZIP_FIX,
            )
            return found.parts()
        (record_size,) = struct.unpack_from("<Q", record, 4)
        (directory_size,) = struct.unpack_from("<Q", record, 40)
        spans += [(record_at, end_at)]
        found.left(
            "(zip64 end record)",
            record_size - (_END64_SIZE - 12),
            "in the extensible data of the zip64 end record",
            _ZIP_FIX,
        )
        directory_end = record_at
    directory_at = directory_end - directory_size
    spans.append((directory_at, directory_end))
    entries = _central_entries(handle, directory_at, directory_end)
    if entries is None or len(entries) != len(infos):
        found.left(
            "(archive directory)",
            directory_size,
            "in a central directory the gate walks otherwise than Python's zipfile",
            _ZIP_FIX,
        )
        return found.parts()
    for info, (raw_name, extra, member_comment) in zip(infos, entries):
        _member(handle, info, raw_name, found, spans)
        _extra_fields(extra, raw_name, found)
        found.text(
            "(zip member comments)", member_comment, "the comments of its members", _MEMBER_FIX
        )
    _gaps(found, spans, size, _ZIP_FIX)
    return found.parts()


def _end_record(handle: IO[bytes], size: int) -> tuple[int, int, bytes] | None:
    """Where the end record of the zip archive in ``handle`` is, as :mod:`zipfile` finds it
    (the last 22 bytes, else the last signature in the final 64 KiB), the size of the
    central directory it gives and the archive's comment; None when there is none."""
    tail_at = max(size - (1 << 16) - _END_SIZE, 0)
    tail = _read_at(handle, tail_at, size - tail_at)
    if tail[-_END_SIZE:].startswith(_END) and tail[-2:] == b"\0\0":
        at = len(tail) - _END_SIZE
    else:
        at = tail.rfind(_END)
    record = tail[at : at + _END_SIZE]
    if at < 0 or len(record) < _END_SIZE:
        return None
    directory_size, _, comment_size = struct.unpack_from("<IIH", record, 12)
    comment = tail[at + _END_SIZE : at + _END_SIZE + comment_size]
    return tail_at + at, directory_size, comment


def _central_entries(
    handle: IO[bytes], start: int, end: int
) -> list[tuple[bytes, bytes, bytes]] | None:
    """The raw name, extra field and comment of each entry of the central directory at
    ``[start, end)`` of ``handle``, walked as :mod:`zipfile` walks it; None when an entry
    is not one or runs past ``end``."""
    if start < 0:
        return None
    entries = []
    handle.seek(start)
    at = start
    while at < end:
        fixed = handle.read(_CENTRAL_SIZE)
        if len(fixed) < _CENTRAL_SIZE or not fixed.startswith(_CENTRAL):
            return None
        name_size, extra_size, comment_size = struct.unpack_from("<HHH", fixed, 28)
        variable = handle.read(name_size + extra_size + comment_size)
        at += _CENTRAL_SIZE + len(variable)
        if len(variable) < name_size + extra_size + comment_size or at > end:
            return None
        entries.append(
            (
                variable[:name_size],
                variable[name_size : name_size + extra_size],
                variable[name_size + extra_size :],
            )
        )
    return entries


def _member(
    handle: IO[bytes],
    info: zipfile.ZipInfo,
    raw_name: bytes,
    found: _Found,
    spans: list[tuple[int, int]],
) -> None:
    """Add to ``spans`` the bytes of the member ``info`` (its local header, name, extra
    field, data and data descriptor), and to ``found`` what in them is not read."""
    found.left(
        "(member names after a NUL)",
        len(raw_name) - raw_name.find(b"\0") if b"\0" in raw_name else 0,
        "of member names after a NUL character, where Python's zipfile cuts them",
        _ZIP_FIX,
    )
    at = info.header_offset
    local = _read_at(handle, at, _LOCAL_SIZE)
    if len(local) < _LOCAL_SIZE or not local.startswith(_LOCAL):
        return  # its bytes are a gap: zipfile cannot read it either
    name_size, extra_size = struct.unpack_from("<HH", local, 26)
    variable = handle.read(name_size + extra_size)
    found.left(
        "(local header names)",
        name_size if variable[:name_size] != raw_name else 0,
        "of member names in local headers other than the directory's",
        _ZIP_FIX,
    )
    _extra_fields(variable[name_size:], raw_name, found)
    data_end = at + _LOCAL_SIZE + name_size + extra_size + info.compress_size
    if info.is_dir() and (
        info.file_size
        or info.compress_size > _EMPTY_MOST
        or not _empty(
            info.compress_type, _read_at(handle, data_end - info.compress_size, info.compress_size)
        )
    ):
        found.left(
            "(folder data)", info.compress_size, "of data stored in folder entries", _ZIP_FIX
        )
    if info.flag_bits & 0x08:
        data_end += _descriptor(_read_at(handle, data_end, 24), info)
    spans.append((at, data_end))


def _empty(method: int, data: bytes) -> bool:
    """Whether ``data``, compressed by the zip ``method``, is one whole stream of nothing (as
    a folder entry's data is: no bytes stored, an empty deflate, bzip2 or LZMA stream)."""
    if method == zipfile.ZIP_STORED:
        return not data
    if method == zipfile.ZIP_LZMA:  # a version, the size of the properties, the properties
        size = int.from_bytes(data[2:4], "little")
        properties, data = data[4 : 4 + size], data[4 + size :]
        if len(properties) != 5:
            return False
        lc, lp, pb = properties[0] % 9, properties[0] // 9 % 5, properties[0] // 45
        filters = [
            {
                "id": lzma.FILTER_LZMA1,
                "lc": lc,
                "lp": lp,
                "pb": pb,
                "dict_size": int.from_bytes(properties[1:], "little"),
            }
        ]
        decompressor: Any = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters)
    elif method == zipfile.ZIP_DEFLATED:
        decompressor = zlib.decompressobj(-15)
    elif method == zipfile.ZIP_BZIP2:
        decompressor = bz2.BZ2Decompressor()
    else:
        return False
    try:
        out = decompressor.decompress(data)
    except (OSError, EOFError, zlib.error, lzma.LZMAError):
        return False
    return not out and decompressor.eof and not decompressor.unused_data


def _descriptor(data: bytes, info: zipfile.ZipInfo) -> int:
    """The length of the data descriptor starting ``data`` (its signature optional, its
    sizes of 4 or 8 bytes), checked against the member's CRC and sizes; 0 when it is not
    one (its bytes are then a gap)."""
    for signed in (True, False):
        if signed and not data.startswith(_DESCRIPTOR):
            continue
        at = 4 if signed else 0
        for width, code in ((4, "<III"), (8, "<IQQ")):
            values = data[at : at + 4 + 2 * width]
            if len(values) == 4 + 2 * width and struct.unpack(code, values) == (
                info.CRC,
                info.compress_size,
                info.file_size,
            ):
                return at + 4 + 2 * width
    return 0


def _extra_fields(extra: bytes, raw_name: bytes, found: _Found) -> None:
    """Record in ``found`` the bytes of a member's ``extra`` field (local or central) that
    are not read: a field not in :data:`_EXTRA_FIELDS` or longer than it holds (zero bytes
    aside); a Unicode path other than the name is text, a Unicode comment a member's
    comment."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<HH", extra, at)
        data = extra[at + 4 : at + 4 + length]
        at += 4 + length
        if kind == _UNICODE_COMMENT:
            found.text(
                "(zip member comments)", data[5:], "the comments of its members", _MEMBER_FIX
            )
            continue
        if kind == _UNICODE_PATH:  # the name in UTF-8, where the header's is in another code
            if data[5:] != raw_name:
                found.text(
                    "(zip member names)",
                    data[5:],
                    "the UTF-8 names of its members that Python's zipfile does not read",
                    _ZIP_FIX,
                )
            continue
        rest = data[_EXTRA_FIELDS.get(kind, 0) :]
        found.left(
            f"(zip extra field 0x{kind:04x})",
            len(rest) - rest.count(0),
            "in members' extra fields of a kind the gate does not read",
            "re-create the archive with Python's zipfile, or with zip -X, which write no such "
            "field",
        )
    rest = extra[at:]
    found.left(
        "(zip extra field bytes)",
        len(rest) - rest.count(0),
        "in members' extra fields after their last field",
        _ZIP_FIX,
    )


# -- tar ----------------------------------------------------------------------------------------

_BLOCK = tarfile.BLOCKSIZE
_TAR_FIX = "re-create the archive from the files it should hold (tar -cf, or Python's tarfile)"
_OWNERS_FIX = "re-create the archive without them (tar --owner=0 --group=0 --numeric-owner)"
_SLACK = "in tar headers outside the values tar reads from them (after a name's end, in padding)"
_NAMES = "names in tar headers that the gate does not read (replaced by an extended header)"
_OWNERS = "the names of members' owners and groups"
#: Fields of a tar header block holding text up to a NUL, and numbers (octal digits, or
#: base-256 binary); the magic and version of POSIX and GNU headers.
_TEXT_FIELDS = ((0, 100), (157, 257), (265, 297), (297, 329), (345, 500))
_NUMBER_FIELDS = (
    (100, 108),
    (108, 116),
    (116, 124),
    (124, 136),
    (136, 148),
    (148, 156),
    (329, 337),
    (337, 345),
)
_MAGICS = (b"ustar\x0000", b"ustar  \x00")
_OCTAL = frozenset(b"01234567 ")
#: Types of the header blocks that extend the next one: extended headers, long names.
_EXTENDING = (b"x", b"X", b"L", b"K")
#: Extended header keys tarfile reads into a member, and those of them that are numbers.
_PAX_READ = frozenset(
    {"path", "linkpath", "size", "mtime", "atime", "ctime", "uid", "gid", "uname", "gname"}
)
_PAX_NUMBERS = frozenset({"size", "mtime", "atime", "ctime", "uid", "gid"})
#: Extended header keys, and families of keys, named in a part's name (any other is ``*``).
_PAX_NAMED = frozenset({"comment", "charset", "hdrcharset"})
_PAX_FAMILIES = frozenset({"SCHILY", "LIBARCHIVE", "GNU"})
_PAX_RECORD = re.compile(rb"(\d+) ([^=]+)=")
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")
#: The names Python's tarfile gives the blocks extending a header, and those GNU tar and
#: bsdtar give them (``d/PaxHeaders/a.csv`` for ``d/a.csv``; a global one in ``$TMPDIR``).
_OWN_NAMES = (b"././@PaxHeader", b"././@LongLink")
_PAX_DIRECTORY = re.compile(rb"PaxHeaders?(?:\.\d+)?/")
_GLOBAL_NAME = re.compile(rb"(?:.*/)?GlobalHead\.\d+\.\d+")


def tar_parts(handle: IO[bytes], infos: list[tarfile.TarInfo]) -> list[Part]:
    """The parts of the tar archive in ``handle`` (seekable, its decompressed bytes) that no
    structure read holds, given the members :mod:`tarfile` lists (``infos``).

    Each member's header blocks (extended headers and long names first, their records parsed
    whole) and data blocks, and the global headers between members, must follow one another
    from the first byte; past them only zero bytes may be left (the end-of-archive marker and
    its padding). In a header block, only zero bytes may follow a field's value, and only
    digits be a number; a name an extended header replaces, and the name of the extended
    header itself, must be (the start of) the member's. Owners' names and the values of
    extended header keys tarfile does not read are text; a sparse member's layout is not
    accounted for, so its bytes are left.
    """
    found = _Found()
    size = handle.seek(0, io.SEEK_END)
    at = 0
    for info in infos:
        while at < info.offset:  # global headers: tarfile reads nothing else between members
            start, at = at, _global_header(handle, at, found)
            if at == start:
                found.left(
                    f"(unlisted bytes at offset {start})",
                    info.offset - start,
                    "between the archive's members that are no tar header",
                    _TAR_FIX,
                )
                at = info.offset
        if at > info.offset:
            found.left("(overlapping bytes)", at - info.offset, "shared by two members", _TAR_FIX)
        at = _tar_member(handle, info, found)
    found.left(
        "(bytes after the archive)",
        _nonzero(handle, at, size),
        "after the archive's last member that are not zero, which tar skips",
        _TAR_FIX,
    )
    return found.parts()


def _tar_member(handle: IO[bytes], info: tarfile.TarInfo, found: _Found) -> int:
    """Account for the member ``info``'s header blocks, data and padding; where the next
    member starts."""
    if info.issparse():
        found.left(
            "(sparse members)",
            info.offset_data - info.offset + info.size,
            "of members stored as sparse files, whose layout the gate does not account for",
            "archive the files without --sparse",
        )
        return info.offset_data + _rounded(info.size)
    records: list[tuple[str, bytes]] = []
    names, long_name, at = [], b"", info.offset
    while at < info.offset_data - _BLOCK:
        block = _read_at(handle, at, _BLOCK)
        kind, length = block[156:157], _octal(block[124:136])
        if kind not in _EXTENDING:
            break
        data = _read_at(handle, at + _BLOCK, length)
        _tar_header(block, found)
        names.append(_text(block[:100]))
        if kind in (b"x", b"X"):
            records += _pax_records(data, found)
        else:
            name, _, rest = data.partition(b"\0")
            long_name = name if kind == b"L" else long_name
            found.left("(tar header bytes)", len(rest) - rest.count(0), _SLACK, _TAR_FIX)
        _padding(handle, at + _BLOCK + length, found)
        at += _BLOCK + _rounded(length)
    # a block before the member's header that extends none (tarfile reads no such block)
    found.left("(tar header bytes)", info.offset_data - _BLOCK - at, _SLACK, _TAR_FIX)
    block = _read_at(handle, info.offset_data - _BLOCK, _BLOCK)
    _tar_header(block, found)
    path = _pax_read(records, found) or long_name
    own = _text(block[:100])
    if path:
        prefix = _text(block[345:500])
        ascii_path = path.decode("utf-8", "replace").encode("ascii", "replace")
        if prefix or not (path.startswith(own) or ascii_path.startswith(own)):
            found.text("(tar header names)", prefix + own, _NAMES, _TAR_FIX)
    else:
        path = own
    for name in names:
        if name not in _OWN_NAMES and not path.startswith(
            _PAX_DIRECTORY.sub(b"", name, count=1).removeprefix(b"./")
        ):
            found.text("(tar header names)", name, _NAMES, _TAR_FIX)
    if info.isfile():
        found.text("(tar header names)", _text(block[157:257]), _NAMES, _TAR_FIX)
    stored = 0 if info.isdir() or info.issym() or info.islnk() or info.isdev() else info.size
    _padding(handle, info.offset_data + stored, found)
    return info.offset_data + _rounded(stored)


def _text(field: bytes) -> bytes:
    """A header field's text: up to its first NUL."""
    return field.partition(b"\0")[0]


def _global_header(handle: IO[bytes], at: int, found: _Found) -> int:
    """Account for the global extended header at ``at``, if one is there: where what
    follows it starts (``at`` itself when there is none)."""
    block = _read_at(handle, at, _BLOCK)
    if block[156:157] != b"g":
        return at
    length = _octal(block[124:136])
    _tar_header(block, found)
    name = _text(block[:100])
    if name not in _OWN_NAMES and not _GLOBAL_NAME.fullmatch(name):
        found.text("(tar header names)", name, _NAMES, _TAR_FIX)
    _pax_read(_pax_records(_read_at(handle, at + _BLOCK, length), found), found)
    _padding(handle, at + _BLOCK + length, found)
    return at + _BLOCK + _rounded(length)


def _rounded(length: int) -> int:
    """``length`` rounded up to whole blocks."""
    return -(-length // _BLOCK) * _BLOCK


def _octal(field: bytes) -> int:
    """A tar header's number (octal digits up to a NUL, or base-256), 0 when unreadable."""
    if field[:1] in (b"\x80", b"\xff"):
        value = int.from_bytes(field[1:], "big")
        return value - 256 ** (len(field) - 1) if field[:1] == b"\xff" else value
    digits = _text(field).strip()
    return int(digits, 8) if digits and set(digits) <= _OCTAL else 0


def _tar_header(block: bytes, found: _Found) -> None:
    """Record in ``found`` the bytes of the header ``block`` outside its values (after a
    text field's NUL; in a number but digits, and a NUL and spaces after them; in its
    padding; a magic other than POSIX's and GNU's), and its owners' names as text."""
    slack = 0
    for start, end in _TEXT_FIELDS:
        rest = block[start:end].partition(b"\0")[2]
        slack += len(rest) - rest.count(0)
    for start, end in _NUMBER_FIELDS:
        value = block[start:end]
        if value[:1] not in (b"\x80", b"\xff"):
            digits, _, rest = value.partition(b"\0")
            slack += sum(byte not in _OCTAL for byte in digits) + len(rest.strip(b"\0 "))
    magic = block[257:265]
    if magic not in _MAGICS:
        slack += len(magic) - magic.count(0)
    slack += len(block[500:]) - block[500:].count(0)
    found.left("(tar header bytes)", slack, _SLACK, _TAR_FIX)
    for start, end in ((265, 297), (297, 329)):
        found.text("(tar owner names)", _text(block[start:end]), _OWNERS, _OWNERS_FIX)


def _pax_records(data: bytes, found: _Found) -> list[tuple[str, bytes]]:
    """The records ``length key=value\\n`` of an extended header's ``data``, as tarfile
    reads them; the bytes left after them, zeros aside, are recorded in ``found``."""
    records, at = [], 0
    while (match := _PAX_RECORD.match(data, at)) is not None:
        end = at + int(match[1])
        if end > len(data) or end <= match.end() or data[end - 1 : end] != b"\n":
            break
        records.append((match[2].decode("utf-8", "replace"), data[match.end() : end - 1]))
        at = end
    rest = data[at:]
    found.left(
        "(pax header bytes)",
        len(rest) - rest.count(0),
        "in extended headers outside their records",
        _TAR_FIX,
    )
    return records


def _pax_read(records: list[tuple[str, bytes]], found: _Found) -> bytes:
    """Record in ``found`` the values of extended header ``records`` that tarfile does not
    read (a key outside :data:`_PAX_READ`, a key given again, a number that is not one) as
    text, and the owners' names; the path they give, or empty."""
    seen: set[str] = set()
    path = b""
    for key, value in reversed(records):  # the last of a key is the one read
        if key in _PAX_READ and key not in seen:
            if key not in _PAX_NUMBERS or _NUMBER.fullmatch(value):
                seen.add(key)
                if key in ("uname", "gname"):
                    found.text("(tar owner names)", value, _OWNERS, _OWNERS_FIX)
                path = value if key == "path" else path
                continue
        keys = _pax_keys(key)
        found.text(
            f"(pax {keys})",
            key.encode() + b"=" + value,
            f"the archive's extended header records of {keys} keys",
            f"re-create the archive without them (tar --pax-option=delete={keys}; bsdtar "
            "--no-xattrs for extended attributes)",
        )
    return path


def _pax_keys(key: str) -> str:
    """The keys named with ``key`` in a part's name, never quoting a key that may be data:
    itself (``comment``, ``charset``, ``hdrcharset``), its family (``SCHILY.*``,
    ``LIBARCHIVE.*``, ``GNU.*``), else ``*``."""
    family = key.partition(".")[0]
    if key in _PAX_NAMED:
        return key
    return f"{family}.*" if family in _PAX_FAMILIES and "." in key else "*"


def _padding(handle: IO[bytes], at: int, found: _Found) -> None:
    """Record the non-zero bytes from ``at`` to the end of its block."""
    pad = _read_at(handle, at, -at % _BLOCK) if at % _BLOCK else b""
    found.left(
        "(tar padding)",
        len(pad) - pad.count(0),
        "that are not zero in the padding after members' data and headers",
        _TAR_FIX,
    )


def _nonzero(handle: IO[bytes], start: int, end: int) -> int:
    """The non-zero bytes of ``handle`` in ``[start, end)``, read a MiB at a time."""
    count = 0
    handle.seek(start)
    while start < end and (chunk := handle.read(min(1 << 20, end - start))):
        count += len(chunk) - chunk.count(0)
        start += len(chunk)
    return count


# -- compressed streams -------------------------------------------------------------------------

#: Raw bytes read at a time.
_CHUNK = 1 << 16
#: Leading bytes of a stream, what compresses it, and how to re-compress.
_STREAMS: dict[str, tuple[bytes, str, str]] = {
    "gzip": (b"\x1f\x8b", "gzip", "gunzip it, then gzip -n"),
    "bz2": (b"BZh", "bzip2", "bunzip2 it, then bzip2"),
    "xz": (b"\xfd7zXZ\x00", "xz", "unxz it, then xz"),
    "zstd": (b"\x28\xb5\x2f\xfd", "Zstandard", "zstd -d it, then zstd"),
}
_DECOMPRESSORS: dict[str, Callable[[], Any]] = {
    "gzip": lambda: zlib.decompressobj(wbits=31),
    "bz2": bz2.BZ2Decompressor,
    "xz": lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ),
}
#: A gzip header's extra subfields read: BGZF's block size (bgzip).
_GZIP_EXTRA = {b"BC": 2}
#: The longest gzip header with less text than the budget: fixed fields, the largest extra
#: field, file name and comment, header CRC.
_GZIP_HEADER_MOST = 10 + 2 + 0xFFFF + TEXT_BUDGET + 2 + 2


def _trailing(name: str, compression: str, count: int) -> InputFileError:
    """The error for ``count`` bytes after the last stream of ``name``."""
    _, label, fix = _STREAMS[compression]
    return InputFileError(
        f"{name}:(bytes after the compressed data): {count:,} bytes after the end of its "
        f"{label} data, which a tool decompressing it skips or refuses and the gate does not "
        f"read: it passes a file only when every byte of it is in a part it reads; "
        f"re-compress the table alone ({fix})"
    )


def _rest(raw: IO[bytes]) -> int:
    """The bytes left in ``raw``, read a chunk at a time."""
    count = 0
    while chunk := raw.read(_CHUNK):
        count += len(chunk)
    return count


class _Reader(io.RawIOBase):
    """A readable raw stream whose subclass gives :meth:`read`."""

    def readable(self) -> bool:
        return True

    @abstractmethod
    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all, when negative)."""

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class Streams(_Reader):
    """The decompressed bytes of a gzip, bz2 or xz file: its streams one after another
    (``cat a.gz b.gz``), each decompressed whole and checked by its decompressor, zero bytes
    between and after them (padding) skipped; anything else fails it, as an
    :class:`InputFileError` naming the part: bytes after the last stream (which Python's
    ``bz2`` and ``lzma`` skip), gzip headers carrying more than
    :data:`~pandas_anon.gate.limits.TEXT_BUDGET` characters of file names and
    comments in all, or an extra field other than BGZF's.

    Parameters
    ----------
    raw : binary file
        The compressed bytes (left open when this is closed).
    name : str
        The file's name, for messages.
    compression : str
        ``"gzip"``, ``"bz2"`` or ``"xz"``.
    """

    def __init__(self, raw: IO[bytes], name: str, compression: str) -> None:
        super().__init__()
        self._raw, self._name, self._compression = raw, name, compression
        self._magic = _STREAMS[compression][0]
        self._stream: Any = None  # the current stream's decompressor, None between streams
        self._pending = b""  # raw bytes read but not yet given to a decompressor
        self._header: bytearray | None = None  # a gzip header's bytes until it is whole
        self._text = 0  # characters of gzip file names and comments so far
        self._ended = False  # the file has no more bytes

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` decompressed bytes (all, when negative); fewer only at the end."""
        size = -1 if size is None else size
        pieces, got = [], 0
        while size < 0 or got < size:
            if self._stream is None and not self._start():
                break
            piece = self._inflate(_CHUNK * 16 if size < 0 else size - got)
            pieces.append(piece)
            got += len(piece)
        return b"".join(pieces)

    def _start(self) -> bool:
        """Start the next stream; False at the end of the file (zero bytes aside)."""
        data = self._pending.lstrip(b"\0")
        while not data:
            chunk = self._raw.read(_CHUNK)
            if not chunk:
                return False
            data = chunk.lstrip(b"\0")
        while len(data) < len(self._magic) and (chunk := self._raw.read(_CHUNK)):
            data += chunk
        if not data.startswith(self._magic):
            raise _trailing(self._name, self._compression, len(data) + _rest(self._raw))
        self._pending = data
        self._stream = _DECOMPRESSORS[self._compression]()
        self._header = bytearray() if self._compression == "gzip" else None
        return True

    def _inflate(self, size: int) -> bytes:
        """Up to ``size`` bytes of the current stream, which ends it when they are its
        last."""
        stream = self._stream
        if self._compression == "gzip":
            data = stream.unconsumed_tail or self._next()
        else:
            data = self._next() if stream.needs_input else b""
        out: bytes = stream.decompress(data, size)
        if stream.eof:
            self._pending, self._stream = stream.unused_data, None
        elif not out and self._ended:
            raise EOFError("compressed file ended before the end-of-stream marker")
        return out

    def _next(self) -> bytes:
        """The next raw bytes of the current stream (a gzip header's accounted for); empty
        at the end of the file."""
        data, self._pending = self._pending or self._raw.read(_CHUNK), b""
        self._ended = not data
        if self._header is not None:
            self._header += data
            self._gzip_header()
        return data

    def _gzip_header(self) -> None:
        """Account for the gzip header read so far, once it is whole: the characters of its
        file name and comment (failing past the budget), its extra field."""
        header = self._header
        assert header is not None
        parsed = _gzip_header(header)
        if parsed is None:
            if len(header) > _GZIP_HEADER_MOST:
                raise self._text_error("(gzip comment)", len(header))
            return
        self._header = None
        extra, name, comment = parsed
        self._text += name + comment
        if extra:
            raise InputFileError(
                f"{self._name}:(gzip extra field): {extra:,} bytes in the extra field of a "
                "gzip header, which the gate does not read: it passes a file only when every "
                f"byte of it is in a part it reads; re-compress it ({_STREAMS['gzip'][2]})"
            )
        if self._text > TEXT_BUDGET:
            raise self._text_error("(gzip comment)" if comment else "(gzip file name)", self._text)

    def _text_error(self, part: str, count: int) -> InputFileError:
        """The error for gzip headers holding ``count`` characters of text (or more)."""
        return InputFileError(
            f"{self._name}:{part}: {count:,} characters of text in gzip headers (the file "
            f"name and comment), which the gate does not read: more than the {TEXT_BUDGET:,} "
            f"a file may carry outside its tables; re-compress it without them "
            f"({_STREAMS['gzip'][2]}, which writes neither)"
        )


def _gzip_header(header: bytes | bytearray) -> tuple[int, int, int] | None:
    """The bytes of a gzip member ``header``'s extra field not read (:func:`_gzip_extra`),
    and the characters of its file name and of its comment; None while ``header`` holds
    only part of them."""
    if len(header) < 10:
        return None
    flags, at, unread = header[3], 10, 0
    if flags & 0x04:
        length = int.from_bytes(header[at : at + 2], "little")
        extra = bytes(header[at + 2 : at + 2 + length])
        if len(header) < at + 2 or len(extra) < length:
            return None
        at += 2 + length
        unread = _gzip_extra(extra)
    texts = [0, 0]
    for slot, flag in enumerate((0x08, 0x10)):
        if flags & flag:
            end = header.find(b"\0", at)
            if end < 0:
                return None
            texts[slot], at = end - at, end + 1
    return unread, texts[0], texts[1]


def _gzip_extra(extra: bytes) -> int:
    """The non-zero bytes of a gzip header's ``extra`` field outside the subfields of
    :data:`_GZIP_EXTRA`."""
    unread, at = 0, 0
    while at + 4 <= len(extra):
        kind, length = extra[at : at + 2], int.from_bytes(extra[at + 2 : at + 4], "little")
        subfield = extra[at : at + 4 + length]
        if _GZIP_EXTRA.get(kind) != length:
            unread += len(subfield) - subfield.count(0)
        at += 4 + length
    rest = extra[at:]
    return unread + len(rest) - rest.count(0)


#: Leading bytes of a Zstandard frame, and of its skippable frames (the last 4 bits any).
_ZSTD_MAGIC = 0xFD2FB528
_SKIPPABLE = 0x184D2A50


class ZstdFrames(_Reader):
    """A Zstandard file's bytes, read through (to the decompressor) as they are, its frames
    followed: each frame's header and blocks, one frame after another. A skippable frame
    (which zstd passes over unread) or bytes that are no frame fail it, as an
    :class:`InputFileError` naming the part.

    Parameters
    ----------
    raw : binary file
        The compressed bytes (left open when this is closed).
    name : str
        The file's name, for messages.
    """

    def __init__(self, raw: IO[bytes], name: str) -> None:
        super().__init__()
        self._raw, self._name = raw, name
        self._header = bytearray()  # the bytes of a frame or block header not yet whole
        self._skip = 0  # bytes still to pass of the current block (and checksum)
        self._in_frame = False  # a block header is next, else a frame
        self._checksum = False  # the current frame ends with a checksum

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all, when negative), followed."""
        data = self._raw.read(-1 if size is None else size)
        self._follow(data)
        if not data and (self._in_frame or self._header or self._skip):
            raise EOFError("Zstandard file ended inside a frame")
        return data

    def _follow(self, data: bytes) -> None:
        """Follow the frames through ``data``, the next bytes of the file."""
        at = 0
        while at < len(data):
            if self._skip:
                step = min(self._skip, len(data) - at)
                self._skip, at = self._skip - step, at + step
                continue
            need = self._need()
            take = data[at : at + need - len(self._header)]
            self._header += take
            at += len(take)
            if len(self._header) == self._need():
                self._parse(len(data) - at)

    def _need(self) -> int:
        """The bytes of the header being read, as far as those read so far tell."""
        header = self._header
        if self._in_frame:
            return 3
        if len(header) < 4:
            return 4
        magic = int.from_bytes(header[:4], "little")
        if magic & ~0xF == _SKIPPABLE:
            return 8
        if magic != _ZSTD_MAGIC or len(header) < 5:
            return 5 if magic == _ZSTD_MAGIC else 4
        descriptor = header[4]
        single = descriptor >> 5 & 1
        dictionary = (0, 1, 2, 4)[descriptor & 3]
        content = (single, 2, 4, 8)[descriptor >> 6]
        return 5 + (1 - single) + dictionary + content

    def _parse(self, left: int) -> None:
        """Take the whole header read: a frame's (blocks next), a block's (its content
        next), else fail (``left`` bytes of the file read after it)."""
        header = bytes(self._header)
        self._header = bytearray()
        if self._in_frame:
            value = int.from_bytes(header, "little")
            kind, length = value >> 1 & 3, value >> 3
            last = value & 1
            self._skip = (1 if kind == 1 else length) + (4 * self._checksum if last else 0)
            self._in_frame = not last
            return
        magic = int.from_bytes(header[:4], "little")
        if magic & ~0xF == _SKIPPABLE:
            length = int.from_bytes(header[4:8], "little")
            raise InputFileError(
                f"{self._name}:(zstd skippable frame): {8 + length:,} bytes in a skippable "
                "frame, which zstd passes over and the gate does not read: it passes a file "
                "only when every byte of it is in a part it reads; re-compress the table "
                f"alone ({_STREAMS['zstd'][2]})"
            )
        if magic != _ZSTD_MAGIC:
            raise _trailing(self._name, "zstd", len(header) + left + _rest(self._raw))
        self._checksum = bool(header[4] & 0x04)
        self._in_frame = True

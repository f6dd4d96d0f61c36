"""Regenerate ``pandas_anon/datasets/data/`` from the source files (dev script, not shipped).

Usage: ``python tools/pack_datasets.py [SOURCE_DIR]``; SOURCE_DIR defaults to ``shared/data``
beside the repository and must hold ``driver-licenses/driverLicense_ValleAosta.zip`` and ``adult/``.
The bytes are never modified: the two large CSVs are xz-compressed (preset 9 | extreme, which is
deterministic, so rerunning gives identical files), the small hierarchy CSVs are copied as they are.
Prints the size and SHA-256 of every raw file, as recorded in ``pandas_anon/datasets/NOTICE.md``.
"""

from __future__ import annotations

import hashlib
import lzma
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEST = REPO / "pandas_anon" / "datasets" / "data"
HIERARCHY_ATTRIBUTES = (
    "age",
    "education",
    "marital-status",
    "native-country",
    "occupation",
    "race",
    "salary-class",
    "sex",
    "workclass",
)


def _write(name: str, raw: bytes, *, compress: bool) -> None:
    data = lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME) if compress else raw
    (DEST / name).write_bytes(data)
    digest = hashlib.sha256(raw).hexdigest()
    print(f"{name}: {len(raw):,} raw bytes -> {len(data):,} stored, sha256(raw) {digest}")


def main(source: Path) -> None:
    DEST.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source / "driver-licenses" / "driverLicense_ValleAosta.zip") as archive:
        (member,) = archive.namelist()  # the archive holds exactly one CSV
        _write("driver_licenses_valle_daosta.csv.xz", archive.read(member), compress=True)
    _write("adult.csv.xz", (source / "adult" / "adult.csv").read_bytes(), compress=True)
    for attribute in HIERARCHY_ATTRIBUTES:
        name = f"adult_hierarchy_{attribute}.csv"
        _write(name, (source / "adult" / name).read_bytes(), compress=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "data")

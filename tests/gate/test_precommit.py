"""The pre-commit hooks of ``.pre-commit-hooks.yaml`` and the CI configurations in ``hooks/``:
the manifest validated and driven as pre-commit drives it, ``pandas-anon check`` on every file
kind the hooks pass, a file named like an option read as a file (never as an option), and, for
real (slow: pre-commit installs the hook's environment from PyPI), ``pre-commit try-repo`` in a
temporary git repository staging every kind and the documented ``.pre-commit-config.yaml`` run
as written."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pandas as pd
import pytest
import yaml
from pre_commit.clientlib import load_manifest
from pre_commit.commands.run import Classifier
from pre_commit.hook import Hook
from pre_commit.prefix import Prefix

from pandas_anon.cli import check as check_command
from pandas_anon.cli.main import main
from pandas_anon.datasets import load_driver_licenses
from pandas_anon.gate.io import PROSE as PROSE_REASON
from pandas_anon.gate.io import REQUIREMENTS
from pandas_anon.hierarchy import Hierarchy

from conftest import SEED_QID
from gate_tables import RISKY, SAFE, TOWNS
from verify import naive_counts

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
HOOKS = {hook["id"]: hook for hook in load_manifest(str(MANIFEST))}
#: The hooks' entry: ``pandas-anon check`` taking the file names after ``--`` only.
ENTRY = "python -m pandas_anon.cli.check"
#: A file name that parses as an option of ``pandas-anon check``.
OPTION_NAMED = "--allow-identifier=dati.csv"
#: The documented configuration (the same as docs/check.md's, tests/gate/test_hooks_documented.py).
DOCUMENTED_CONFIG = ROOT / "hooks" / "pre-commit-config.yaml"
CONFIG = f'[tool.pandas_anon]\nqid = {SEED_QID!r}\nmax_singletons = "1%"\n'.replace("'", '"')
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def tool(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run a command line; pre-commit and pandas-anon from this interpreter's environment."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV, "PATH": path, **(env or {})},
    )


def pre_commit(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return tool(sys.executable, "-m", "pre_commit", *argv, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> Path:
    """An open-data folder: the Valle d'Aosta table gzipped (1,800 singletons, 2.05 %, missing
    counted as a value), the same after M_loc (120 singletons), the risky table again as .txt,
    and the configuration. Its record numbers are dropped: a column outside the QID that
    identifies people on its own fails every file."""
    folder = tmp_path_factory.mktemp("open-data")
    frame = load_driver_licenses(parse_dates=False).drop(columns="id")
    with gzip.open(folder / "patenti.csv.gz", "wt", encoding="utf-8") as handle:
        frame.to_csv(handle, index=False)
    frame.to_csv(folder / "notes.txt", index=False)
    places = Hierarchy.from_columns(frame, ["comune_residenza", "provincia_residenza"])
    frame.anon.generalize(
        {"comune_residenza": (places, 1)}, rows="singletons", qid=SEED_QID
    ).to_csv(folder / "patenti_m_loc.tsv", sep="\t", index=False)
    (folder / "pyproject.toml").write_text(CONFIG)
    return folder


#: A README: no delimiter splits its first line (later lines hold , and ;).
PROSE = "Patenti della Valle d'Aosta\nFonte: Regione, 2024; licenza CC-BY 4.0.\n"
#: One file of each kind the hooks pass; a .zip holds its table as dati/PATENTI.CSV, a
#: workbook as its sheet "Patenti" beside an empty sheet "Note".
KINDS = [
    "PATENTI.CSV",
    "patenti.TSV",
    "patenti.txt",
    "patenti.csv.gz",
    "patenti.csv.bz2",
    "patenti.csv.xz",
    "PATENTI.TSV.GZ",
    "patenti.txt.xz",
    "Patenti.ZIP",
    "patenti.json",
    "patenti.ndjson.gz",
    "patenti.parquet",
    "PATENTI.XLSX",
    "patenti.ods",
    "patenti.dat",
    "PATENTI.TAB",
]
#: Files the hooks pass that the gate does not read as tables today (or reads by content,
#: their names lying): each must fail the hook, as a table over its limits or as a file that
#: cannot be checked, never pass or be skipped. Each holds the risky table.
UNREAD = [
    "patenti.xls",  # an OLE workbook's signature, then the table
    "export.XLS",  # CSV text named .xls
    "patenti.xlsm",  # a workbook
    "patenti.geojson",  # the rows as the properties of features
    "patenti.csv.zst",  # a zstd frame
    "patenti.tar.gz",  # a tar archive holding patenti.csv
    "patenti.csv.gz.bak",  # a gzip file under a backup suffix
]
#: The suffixes of workbooks, whose sheets are tables of their own.
BOOKS = (".xlsx", ".ods")
#: What a kind's .zip holds besides its table, skipped, and why.
ZIP_SKIPS = {
    "dati/": "a folder",
    "dati/LEGGIMI.txt": PROSE_REASON,
}
#: What a workbook of a kind holds besides its table, skipped, and why.
SHEET_SKIPS = {"Note": "an empty sheet"}
COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


def write_kind(path: Path, frame: pd.DataFrame) -> None:
    """Write ``frame`` as its name says: TAB for .tsv, ';' for .txt, else ','; JSON records
    (one per line for .ndjson), Parquet, or a workbook's sheet "Patenti" beside an empty
    sheet "Note"; compressed by the last suffix; a .zip holds it as dati/PATENTI.CSV beside a
    folder, an image and a README."""
    path.parent.mkdir(parents=True, exist_ok=True)
    suffixes = [suffix.lower() for suffix in path.suffixes]
    if suffixes[0] in BOOKS:
        with pd.ExcelWriter(path, engine="odf" if suffixes[0] == ".ods" else "openpyxl") as book:
            frame.to_excel(book, sheet_name="Patenti", index=False)
            pd.DataFrame().to_excel(book, sheet_name="Note", index=False)
        return
    if suffixes[0] == ".parquet":
        frame.to_parquet(path, index=False)
        return
    sep = {".tsv": "\t", ".tab": "\t", ".txt": ";"}.get(suffixes[0], ",")
    data = {
        ".json": lambda: frame.to_json(orient="records"),
        ".ndjson": lambda: frame.to_json(orient="records", lines=True),
    }.get(suffixes[0], lambda: frame.to_csv(sep=sep, index=False))().encode()
    if suffixes[-1] == ".zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("dati/", b"")
            archive.writestr("dati/PATENTI.CSV", data)
            archive.writestr("dati/LEGGIMI.txt", PROSE)
    else:
        path.write_bytes(COMPRESS.get(suffixes[-1], bytes)(data))


def zstd_frame(data: bytes) -> bytes:
    """``data`` as a Zstandard frame of one raw block (RFC 8878; ``zstd -d`` reads it)."""
    assert 256 <= len(data) < 256 + (1 << 16)
    header = b"\x28\xb5\x2f\xfd\x60" + (len(data) - 256).to_bytes(2, "little")
    return header + (1 | len(data) << 3).to_bytes(3, "little") + data


def write_unread(path: Path, frame: pd.DataFrame) -> None:
    """Write ``frame`` as one of :data:`UNREAD` says."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = frame.to_csv(index=False).encode()
    name = path.name.lower()
    if name.endswith(".xlsm"):
        with pd.ExcelWriter(path, engine="openpyxl") as book:
            frame.to_excel(book, index=False)
    elif name.endswith(".geojson"):
        features = [
            {"type": "Feature", "geometry": None, "properties": record}
            for record in frame.to_dict(orient="records")
        ]
        path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    elif name.endswith(".tar.gz"):
        with tarfile.open(path, "w:gz") as archive:
            member = tarfile.TarInfo("patenti.csv")
            member.size = len(text)
            archive.addfile(member, io.BytesIO(text))
    else:
        data = {
            "patenti.xls": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + text,
            "patenti.csv.zst": zstd_frame(text),
            "patenti.csv.gz.bak": gzip.compress(text),
        }.get(name, text)
        path.write_bytes(data)


def expected_verdicts(name: str, status: str) -> dict[str, str]:
    """The status of each result a file of ``name``'s kind gives when its table's is
    ``status``."""
    if name.lower().endswith(BOOKS):
        return {f"{name}:Patenti": status} | {f"{name}:{s}": "skipped" for s in SHEET_SKIPS}
    if not name.lower().endswith(".zip"):
        return {name: status}
    return {f"{name}:dati/PATENTI.CSV": status} | {f"{name}:{m}": "skipped" for m in ZIP_SKIPS}


def test_manifest_is_valid():
    done = pre_commit("validate-manifest", str(MANIFEST), cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("hook_id", ["pandas-anon-singletons", "pandas-anon-k"])
def test_hooks_are_modelled_on_check_added_large_files(hook_id):
    hook = HOOKS[hook_id]
    assert (hook["language"], hook["entry"], hook["pass_filenames"]) == ("python", ENTRY, True)
    # the file names pre-commit appends follow a --
    assert hook["args"][-1:] == ["--"] and hook["args"].count("--") == 1
    assert hook["stages"] == ["pre-commit", "pre-push", "manual"]
    # identify tags no .xz file (and a .txt as plain-text): only `files` selects
    assert (hook["types"], hook["types_or"]) == (["file"], [])


TABLE_NAMES = [
    "a.csv",
    "i.json",
    "j.xlsx",
    "k.JSONL",
    "l.ndjson.xz",
    "m.parquet",
    "n.ODS",
    "o.Json.Gz",
    "b.tsv",
    "c.csv.gz",
    "d.tsv.gz",
    "data/e.CSV",
    "f.txt",
    "G.TXT.BZ2",
    "h.Csv.Xz",
    "i.zip",
    "J.ZIP",
    "k.txt.gz",
    "l.TSV",
    # the names the hooks once left out (issue 45), and their kin
    "m.xls",
    "n.xlsm",
    "o.XLSB",
    "p.fods",
    "q.dat",
    "r.tab",
    "s.psv",
    "t.geojson",
    "u.csv.zst",
    "v.tar.gz",
    "w.tgz",
    "x.tar",
    "y.7z",
    "z.feather",
    "a.arrow",
    "b.orc",
    "c.avro",
    "d.sav",
    "e.dta",
    "f.sas7bdat",
    "g.xpt",
    "h.rds",
    "i.RData",
    "j.dbf",
    "data/2024.11.csv",
    # a data suffix under another one: the name lies, the content is read
    "h.csv.bak",
    "i.csv.gz.bak",
    "k.gz",
    "m.zip.part",
    "dati.json.1",
    "persone.csv~",  # an editor's backup, and other names after a data suffix
    "persone.csv-old",
    "persone.csv_2024",
    # pip's package lists: the gate skips them by name and content, never the hooks by name
    "requirements.txt",
    "dev-requirements.TXT",
    "deps/constraints.txt",
    "requirements_persone.txt",
    # a name that parses as an option is a file like any other
    OPTION_NAMED,
    "--max-singletons=100%.csv",
]
#: Names no hook receives: no data suffix among their suffixes (the code, prose and settings of
#: a repository).
OTHER_NAMES = [
    "i.json5",
    "csv",
    "n.csvx",
    "README.md",
    "analisi.py",
    "LICENSE",
    "Makefile",
    "figure.png",
    "docs/report.pdf",
    "pyproject.toml",
    ".pre-commit-config.yaml",
    "persone.csvx",
]


def test_hooks_receive_tables_only(tmp_path, monkeypatch):
    names = TABLE_NAMES + OTHER_NAMES
    for name in names:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"a,b\n1,2\n")
    monkeypatch.chdir(tmp_path)
    for dct in HOOKS.values():
        hook = Hook.create(str(MANIFEST), Prefix(str(ROOT)), dct)
        assert sorted(Classifier(names).filenames_for_hook(hook)) == sorted(TABLE_NAMES)


@pytest.mark.parametrize("name", ["github-actions.yml", "gitlab-ci.yml"])
def test_ci_jobs_select_the_hooks_files(tmp_path, name):
    script, _ = ci_script(name)
    (pattern,) = re.findall(r"grep -ziE '([^']+)'", script)
    assert "grep -zivE" not in script  # nothing left out by name
    for hook in HOOKS.values():  # grep -i for the hooks' (?i)
        assert hook["files"] == f"(?i){pattern}"
        assert hook["exclude"] == "^$"  # pre-commit's default: nothing
    # and grep's extended expressions select what pre-commit's Python ones do
    (tmp_path / "changed-files").write_bytes(
        b"".join(name.encode() + b"\0" for name in TABLE_NAMES + OTHER_NAMES)
    )
    selection = f"grep -ziE '{pattern}' changed-files"
    done = tool("sh", "-ec", selection, cwd=tmp_path)
    assert sorted(filter(None, done.stdout.split("\0"))) == sorted(TABLE_NAMES)


@pytest.mark.parametrize("name", ["github-actions.yml", "gitlab-ci.yml"])
def test_ci_jobs_pass_the_file_names_after_a_double_dash(name):
    script, _ = ci_script(name)
    commands = re.findall(r"xargs -0 pandas-anon check[^<\n]*<", script)
    assert len(commands) == 2
    assert all(command.endswith(" -- <") for command in commands), commands


@pytest.mark.parametrize("name", KINDS)
@pytest.mark.parametrize(
    ("frame", "status", "singletons"),
    [(RISKY, "fail", 37), (SAFE, "pass", 0)],
    ids=["risky", "safe"],
)
def test_check_reads_every_kind_without_configuration(
    tmp_path, monkeypatch, capsys, name, frame, status, singletons
):
    (tmp_path / ".git").mkdir()  # no configuration is looked for above the repository
    write_kind(tmp_path / name, frame)
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--format", "json", name])
    out, err = capsys.readouterr()
    assert (code, err) == ({"fail": 1, "pass": 0}[status], "")
    files = json.loads(out)["files"]
    assert {f["file"]: f["status"] for f in files} == expected_verdicts(name, status)
    assert {f["file"].split(":")[-1]: f["reason"] for f in files if "reason" in f} == (
        ZIP_SKIPS if name.endswith("ZIP") else SHEET_SKIPS if name.lower().endswith(BOOKS) else {}
    )
    (table,) = (f for f in files if f["status"] != "skipped")
    assert table["qid_elected"] and table["rows"] == 40
    truth = naive_counts(frame, table["qid"])
    assert (table["examined"], table["singletons"], table["distinct"]) == (
        truth["examined"],
        truth["singletons"],
        truth["distinct"],
    )
    assert table["singletons"] == singletons
    assert not any(town in out for town in TOWNS)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("README.txt", PROSE),
        ("LEGGIMI.TXT.GZ", PROSE),
        ("requirements.txt", "numpy\npandas>=2,<4\n"),
        ("vuoto.txt", ""),
        ("nota.txt", "Fonte: Regione, 2024\n"),
    ],
)
def test_check_skips_a_txt_that_is_not_a_table(tmp_path, monkeypatch, capsys, name, content):
    (tmp_path / ".git").mkdir()
    data = content.encode()
    (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".GZ") else data)
    monkeypatch.chdir(tmp_path)
    reason = {
        "": "empty",
        "Fonte: Regione, 2024\n": "not a table: a single line",
        "numpy\npandas>=2,<4\n": REQUIREMENTS,
    }.get(content, PROSE_REASON)
    assert main(["check", name]) == 0
    assert capsys.readouterr() == ("", "")  # silent, as a pass
    assert main(["check", "-v", name]) == 0
    out = capsys.readouterr().out
    assert "1 file checked, none exceeds the limits" in out
    assert f"{name}: skipped, {reason}" in out
    assert main(["check", "--format", "json", name]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == [
        {"file": name, "status": "skipped", "reason": reason}
    ]


def test_check_reads_each_table_of_a_zip(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    with zipfile.ZipFile(tmp_path / "open-data.zip", "w") as archive:
        archive.writestr("a/patenti.csv", RISKY.to_csv(index=False))
        archive.writestr("b/patenti.tsv", SAFE.to_csv(sep="\t", index=False))
        archive.writestr("__MACOSX/a/patenti.csv", RISKY.to_csv(index=False))
        archive.writestr("c/Patenti.TXT", RISKY.to_csv(sep="|", index=False))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--format", "json", "open-data.zip"]) == 1
    files = json.loads(capsys.readouterr().out)["files"]
    assert [(f["file"], f["status"], f.get("singletons", f.get("reason"))) for f in files] == [
        ("open-data.zip:a/patenti.csv", "fail", 37),
        ("open-data.zip:b/patenti.tsv", "pass", 0),
        ("open-data.zip:__MACOSX/a/patenti.csv", "fail", 37),  # read, as any other member
        ("open-data.zip:c/Patenti.TXT", "fail", 37),
    ]


def test_check_skips_a_zip_without_a_table_and_fails_a_corrupt_one(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    with zipfile.ZipFile(tmp_path / "docs.zip", "w") as archive:
        archive.writestr("docs/", b"")
        archive.writestr("docs/README.txt", PROSE)
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04" + RISKY.to_csv().encode())
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--format", "json", "docs.zip"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == [
        {
            "file": "docs.zip",
            "status": "skipped",
            "reason": "holds no table among its 1 file",
        }
    ]
    assert main(["check", "docs.zip", "broken.zip", "PATENTI.CSV"]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "pandas-anon: error: broken.zip is not a valid zip file (corrupt or truncated); "
        "re-download or re-compress it",
        "pandas-anon: error: PATENTI.CSV: no such file; check the path",
    ]
    assert out == "" and not any(town in err for town in TOWNS)


@pytest.mark.parametrize(
    ("hook_id", "extra", "risky", "generalized"),
    [
        ("pandas-anon-singletons", [], "1,800 singletons (2.05 %", "PASS"),
        ("pandas-anon-k", ["--qid", "provincia_residenza,sesso"], "", ""),
    ],
)
def test_hooks_driven_from_the_manifest(
    capsys, tables, monkeypatch, hook_id, extra, risky, generalized
):
    """What pre-commit runs: the entry, the args (a configuration's own, ending with the
    hook's), the staged files (here via the entry's function)."""
    hook = HOOKS[hook_id]
    assert shlex.split(hook["entry"]) == ["python", "-m", check_command.__name__]
    monkeypatch.chdir(tables)
    args = ["-v", *extra, *hook["args"]]
    k_data = load_driver_licenses()  # a missing value is a value, as the gate counts it
    k = int(k_data.groupby(["provincia_residenza", "sesso"], dropna=False).size().min())
    for name, expected_code in (("patenti.csv.gz", 1), ("patenti_m_loc.tsv", 0)):
        if hook_id == "pandas-anon-k":
            expected_code = int(k < 5)
        code = check_command.hook([*args, name])
        out, _ = capsys.readouterr()
        assert code == expected_code
        assert (risky if expected_code else generalized) in out


def hook_command(hook_id: str, args: list[str] | None = None) -> list[str]:
    """The command pre-commit runs for ``hook_id`` before the file names: its entry (``python``
    being this interpreter, as in the hook's environment), then ``args`` (a configuration's),
    else the hook's own."""
    entry = shlex.split(HOOKS[hook_id]["entry"])
    assert entry[0] == "python"
    return [sys.executable, *entry[1:], *(HOOKS[hook_id]["args"] if args is None else args)]


@pytest.fixture
def option_named(tmp_path) -> Path:
    """A repository's root holding a risky table named like an option, a safe table, and a
    configuration allowing 1 % of singletons is allowed."""
    (tmp_path / ".git").mkdir()
    RISKY.to_csv(tmp_path / OPTION_NAMED, index=False)
    SAFE.to_csv(tmp_path / "safe.csv", index=False)
    (tmp_path / "pyproject.toml").write_text('[tool.pandas_anon]\nmax_singletons = "1%"\n')
    return tmp_path


@pytest.mark.parametrize("hook_id", sorted(HOOKS))
@pytest.mark.parametrize("args", [None, ["--verbose", "--"]], ids=["hook's args", "own args"])
def test_a_file_named_like_an_option_is_checked_as_a_file(option_named, hook_id, args):
    """The command line pre-commit builds, for real: the risky table named
    --allow-identifier=dati.csv fails, reported under its name; read as an option, as the
    earlier hooks (entry: pandas-anon check, no --) read it, it let the commit pass."""
    names = [OPTION_NAMED, "safe.csv"]  # as git lists them
    done = tool(*hook_command(hook_id, args), *names, cwd=option_named)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{OPTION_NAMED}: 37 singletons (92.50 % of 40 rows examined)" in done.stdout
    assert done.stderr == ""
    if args:
        assert report_rows(done.stdout) == {OPTION_NAMED: "FAIL", "safe.csv": "PASS"}
    earlier = tool(sys.executable, "-m", "pandas_anon.cli", "check", *names, cwd=option_named)
    assert (earlier.returncode, earlier.stdout, earlier.stderr) == (0, "", "")  # the hole
    assert not any(town in done.stdout for town in TOWNS)


@pytest.mark.parametrize(
    "args",
    [
        ["--max-singletons", "1%"],  # no --: the file names would follow the options
        ["--k", "5"],
        [],
    ],
)
def test_hook_args_without_a_double_dash_fail(option_named, monkeypatch, capsys, args):
    monkeypatch.chdir(option_named)
    assert check_command.hook([*args, OPTION_NAMED, "safe.csv"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("pandas-anon: error: the hook's args must end with -- (args: [")


def test_a_file_named_double_dash_fails_the_hook(option_named, monkeypatch, capsys):
    """Staged, a file named -- would stand in for the -- a configuration left out."""
    monkeypatch.chdir(option_named)
    (option_named / "--").write_text(SAFE.to_csv(index=False))
    assert check_command.hook(["--max-singletons", "1%", "--", OPTION_NAMED]) == 2
    assert capsys.readouterr().err.startswith("pandas-anon: error: a file named -- is in")


def test_check_reads_every_word_after_a_double_dash_as_a_file(option_named, monkeypatch, capsys):
    monkeypatch.chdir(option_named)
    code = main(["check", "--format", "json", "--", OPTION_NAMED, "safe.csv"])
    files = json.loads(capsys.readouterr().out)["files"]
    assert (code, [(f["file"], f["status"]) for f in files]) == (
        1,
        [(OPTION_NAMED, "fail"), ("safe.csv", "pass")],
    )


def test_example_pre_commit_config_uses_the_manifest():
    example = ROOT / "hooks" / "pre-commit-config.yaml"
    assert pre_commit("validate-config", str(example), cwd=ROOT).returncode == 0
    used = {
        hook["id"]
        for repo in yaml.safe_load(example.read_text())["repos"]
        for hook in repo["hooks"]
    }
    assert used == set(HOOKS)


def ci_script(name: str) -> tuple[str, dict]:
    """The shell script and environment of the ready-to-copy CI job ``name``."""
    config = yaml.safe_load((ROOT / "hooks" / name).read_text())
    if "jobs" in config:  # GitHub Actions
        steps = config["jobs"]["check"]["steps"]
        upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
        assert upload["with"]["path"] == "pandas-anon-report.json" and upload["if"] == "always()"
        step = next(s for s in steps if "pandas-anon check" in s.get("run", ""))
        return step["run"], {"BASE": "{base}"}
    job = config["pandas-anon"]
    assert job["artifacts"]["paths"] == ["pandas-anon-report.json", "pandas-anon-report.xml"]
    assert job["artifacts"]["reports"] == {"junit": "pandas-anon-report.xml"}
    assert job["artifacts"]["when"] == "always"  # failing jobs publish their reports too
    return "\n".join(job["script"]), {"CI_COMMIT_BEFORE_SHA": "{base}"}


def junit_verdicts(path: Path) -> dict[str, str]:
    """The status of each test case of a JUnit report: its file's, as the JSON report says."""
    suite = ElementTree.parse(path).getroot().find("testsuite")
    assert suite is not None
    status_of = {"failure": "fail", "error": "error", "skipped": "skipped"}
    verdicts = {
        case.get("name"): next((status_of[c.tag] for c in case if c.tag in status_of), "pass")
        for case in suite.iter("testcase")
    }
    assert int(suite.get("tests", -1)) == len(verdicts)
    assert int(suite.get("failures", -1)) == list(verdicts.values()).count("fail")
    return verdicts


@pytest.mark.parametrize("name", ["github-actions.yml", "gitlab-ci.yml"])
def test_ci_jobs_check_the_changed_tables(tmp_path, tables, name):
    script, env = ci_script(name)
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(tables / "pyproject.toml", repo)
    shutil.copy(tables / "patenti_m_loc.tsv", repo)
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "safe"]):
        assert tool(*argv, cwd=repo).returncode == 0
    base = tool("git", "rev-parse", "HEAD", cwd=repo).stdout.strip()
    (repo / "data").mkdir()
    shutil.copy(tables / "patenti.csv.gz", repo / "data")
    shutil.copy(tables / "notes.txt", repo / "data")  # the risky table as .txt
    shutil.copy(tables / "patenti_m_loc.tsv", repo / "data" / "COPIA.TSV")
    (repo / "data" / "notes.md").write_text(PROSE)  # not a table: not checked
    # a file, never an option: a risky table with the configuration's QID
    RISKY.rename(columns={"comune": "comune_residenza"}).to_csv(repo / OPTION_NAMED, index=False)
    for argv in (["git", "add", "."], ["git", "commit", "-qm", "risky"]):
        assert tool(*argv, cwd=repo).returncode == 0

    def job(base_sha: str) -> tuple[int, dict]:
        variables = {k: v.format(base=base_sha) for k, v in env.items()}
        done = tool("sh", "-ec", script, cwd=repo, env=variables)
        if done.returncode == 125:  # xargs: the command was killed by a signal. Seen twice in
            # full local CI runs on a loaded machine (no OOM kill logged), never alone: run the
            # job once more, so that a crash of pandas-anon itself, which repeats, still fails
            done = tool("sh", "-ec", script, cwd=repo, env=variables)
        report = yaml.safe_load((repo / "pandas-anon-report.json").read_text())
        verdicts = {f["file"]: f["status"] for f in report["files"]}
        if name == "gitlab-ci.yml":  # the JUnit report for GitLab; the JSON one in the log
            assert junit_verdicts(repo / "pandas-anon-report.xml") == verdicts
            assert yaml.safe_load(done.stdout) == report
        else:  # an annotation on each failing file, then the summary
            lines = done.stdout.splitlines()
            annotated = {re.match("::error file=([^,]+),", line)[1] for line in lines[:-1]}
            assert annotated == {file for file, status in verdicts.items() if status == "fail"}
            assert lines[-1].startswith("pandas-anon check: ") if verdicts else lines == []
        return done.returncode, verdicts

    changed = {
        OPTION_NAMED: "fail",
        "data/COPIA.TSV": "pass",
        "data/notes.txt": "fail",
        "data/patenti.csv.gz": "fail",
    }
    assert job(base) == (123, changed)  # xargs' status for exit 1
    assert job("0" * 40) == (123, changed | {"patenti_m_loc.tsv": "pass"})
    assert job(tool("git", "rev-parse", "HEAD", cwd=repo).stdout.strip()) == (0, {})


def commit_all(folder: Path, message: str) -> str:
    """Stage and commit every file of the git repository ``folder``; return the commit."""
    for argv in (["git", "add", "-A"], ["git", "commit", "-qm", message]):
        assert tool(*argv, cwd=folder).returncode == 0
    return tool("git", "rev-parse", "HEAD", cwd=folder).stdout.strip()


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> tuple[Path, str]:
    """This checkout as it is on disk (tracked and untracked, ignored files left out),
    committed in a throwaway repository, so that pre-commit installs the code under test.
    A second commit, its HEAD (what try-repo runs), gives each hook ``--verbose`` before its
    ``--``, so that the report has a row per file. Returns the repository and its first
    commit, the checkout as it is."""
    listed = tool("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    folder = tmp_path_factory.mktemp("snapshot") / "pandas-anon"
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    assert tool("git", "init", "-q", cwd=folder).returncode == 0
    commit = commit_all(folder, "snapshot")
    manifest = folder / MANIFEST.name
    hooks = yaml.safe_load(manifest.read_text())
    for hook in hooks:
        hook["args"] = ["--verbose", *hook["args"]]
    manifest.write_text(yaml.safe_dump(hooks, sort_keys=False))
    commit_all(folder, "verbose hooks")
    return folder, commit


def report_rows(output: str) -> dict[str, str]:
    """File and status of each row of the report table in ``output``."""
    rows = [
        [cell.strip() for cell in line.strip().strip("│").split("│")]
        for line in output.splitlines()
        if line.startswith("│")
    ]
    return {row[0]: row[-1] for row in rows if row[0] != "file"}


def error_named(output: str, name: str) -> bool:
    """Whether ``output`` holds the error line of the file ``name`` (``pandas-anon: error:
    NAME ...``)."""
    return re.search(f"^pandas-anon: error: {re.escape(name)}[ :]", output, re.M) is not None


#: Files of the try-repo repository that no hook receives.
NOT_TABLES = ["notes.md", "analisi.py", "LICENSE"]


@pytest.fixture(scope="module")
def try_repo(
    tmp_path_factory, tables, snapshot
) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """One ``pre-commit try-repo`` of the singletons hook (of the snapshot's HEAD, whose hooks
    have ``--verbose``) in a temporary git repository where every file is staged, as for a
    commit: every kind of table, risky and safe, the files the gate does not read as tables,
    a risky table named like an option, a README.txt, files the hook must not receive, and
    (under a rule with the seed's QID and 1 %) the Valle d'Aosta table and its M_loc
    recoding. Returns the run and the report's rows."""
    folder = tmp_path_factory.mktemp("try-repo")
    repo, _ = snapshot
    data = folder / "open-data"
    for kind in KINDS:
        write_kind(data / "risky" / kind, RISKY)
        write_kind(data / "safe" / kind, SAFE)
    for name in UNREAD:
        write_unread(data / "unread" / name, RISKY)
    RISKY.to_csv(data / OPTION_NAMED, index=False)
    (data / "seed").mkdir()
    for name in ("patenti.csv.gz", "patenti_m_loc.tsv"):
        shutil.copy(tables / name, data / "seed")
    (data / "README.txt").write_text(PROSE)
    for name in NOT_TABLES:
        (data / name).write_text(RISKY.to_csv(index=False))  # a table, under another name
    (data / "pyproject.toml").write_text(
        CONFIG.replace(
            "[tool.pandas_anon]",
            '[tool.pandas_anon]\n\n[[tool.pandas_anon.rules]]\nfiles = "seed/*"',
        )
    )
    for argv in (["git", "init", "-q"], ["git", "add", "-A"]):
        assert tool(*argv, cwd=data).returncode == 0
    done = pre_commit(  # no --files: the staged files
        "try-repo",
        str(repo),
        "pandas-anon-singletons",
        cwd=data,
        env={"PRE_COMMIT_HOME": str(folder / "pre-commit-home")},
    )
    return done, report_rows(done.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("name", KINDS)
def test_try_repo_fails_each_risky_kind_and_passes_each_safe_one(try_repo, name):
    done, rows = try_repo
    for folder, status in (("risky", "FAIL"), ("safe", "PASS")):
        path = f"{folder}/{name}"
        expected = {
            file: verdict.upper() for file, verdict in expected_verdicts(path, status).items()
        }
        assert {file: rows[file] for file in rows if file.split(":")[0] == path} == expected, (
            done.stdout + done.stderr
        )
    (table,) = (
        file
        for file, status in expected_verdicts(f"risky/{name}", "fail").items()
        if status == "fail"
    )
    assert f"{table}: 37 singletons (92.50 % of 40 rows examined)" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("name", UNREAD)
def test_try_repo_fails_each_file_the_gate_does_not_read_as_a_table(try_repo, name):
    """A table over its limits, or a file that cannot be checked (exit 2): never passed,
    never skipped."""
    done, rows = try_repo
    path = f"unread/{name}"
    verdicts = {file: rows[file] for file in rows if file.split(":")[0] == path}
    assert set(verdicts.values()) <= {"FAIL"}, done.stdout
    assert bool(verdicts) != error_named(done.stdout, path), done.stdout


@pytest.mark.slow
def test_try_repo_checks_a_file_named_like_an_option(try_repo):
    done, rows = try_repo
    assert rows[OPTION_NAMED] == "FAIL", done.stdout + done.stderr
    assert f"{OPTION_NAMED}: 37 singletons (92.50 % of 40 rows examined)" in done.stdout


@pytest.mark.slow
def test_try_repo_runs_the_hook_once_on_the_tables_only(try_repo):
    done, rows = try_repo
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pandas-anon singletons" in done.stdout and "Failed" in done.stdout
    tables = {f"{folder}/{name}" for folder in ("risky", "safe") for name in KINDS}
    unread = {f"unread/{name}" for name in UNREAD}
    assert {file.split(":")[0] for file in rows} - unread == tables | {
        OPTION_NAMED,
        "README.txt",
        "seed/patenti.csv.gz",
        "seed/patenti_m_loc.tsv",
    }
    assert not any(name in done.stdout for name in NOT_TABLES)  # no .md, .py, LICENSE
    # one process (require_serial), one report: a risky table of each kind, the one named
    # like an option, the seed's and the unread files that were read fail
    assert done.stdout.count("pandas-anon check:") == 1
    failing = list(rows.values()).count("FAIL")
    assert failing >= len(KINDS) + 2
    assert f"pandas-anon check: {failing} of " in done.stdout
    assert rows["README.txt"] == "SKIPPED"
    assert (f"README.txt: skipped, {PROSE_REASON}") in done.stdout
    assert (rows["seed/patenti.csv.gz"], rows["seed/patenti_m_loc.tsv"]) == ("FAIL", "PASS")
    assert "1,800 singletons (2.05 % of 87,642 rows examined)" in done.stdout
    assert not any(value in done.stdout + done.stderr for value in ("GIGNOD", "RHEMES", *TOWNS))


@pytest.mark.slow
def test_the_documented_configuration_works_as_written(tmp_path, snapshot):
    """hooks/pre-commit-config.yaml (docs/check.md's), as written but for the repository's
    address and COMMIT_SHA (the snapshot and its commit, the checkout as it is), run by
    ``pre-commit run`` on the files staged for a commit: a risky table named
    --allow-identifier=dati.csv fails it, under its name; the k hook, run on demand, too."""
    repo, commit = snapshot
    written = DOCUMENTED_CONFIG.read_text()
    assert "repo: https://github.com/OWNER/pandas-anon " in written
    assert "rev: COMMIT_SHA " in written
    data = tmp_path / "open-data"
    data.mkdir()
    (data / ".pre-commit-config.yaml").write_text(
        written.replace("https://github.com/OWNER/pandas-anon", str(repo)).replace(
            "COMMIT_SHA", commit
        )
    )
    RISKY.to_csv(data / OPTION_NAMED, index=False)
    SAFE.to_csv(data / "safe.csv", index=False)
    (data / "README.md").write_text(PROSE)
    for argv in (["git", "init", "-q"], ["git", "add", "-A"]):
        assert tool(*argv, cwd=data).returncode == 0
    env = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    done = pre_commit("run", cwd=data, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pandas-anon singletons" in done.stdout and "Failed" in done.stdout
    assert "pandas-anon k-anonymity" not in done.stdout  # stages: [manual]
    problem = f"{OPTION_NAMED}: 37 singletons (92.50 % of 40 rows examined)"
    assert problem in done.stdout and "more than the 1 % allowed" in done.stdout
    assert "pandas-anon check: 1 of 2 files exceeds the limits" in done.stdout
    done = pre_commit("run", "pandas-anon-k", "--hook-stage", "manual", cwd=data, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "k = 1 on " in done.stdout and OPTION_NAMED in done.stdout
    assert not any(town in done.stdout for town in TOWNS)

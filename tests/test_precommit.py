"""The pre-commit hooks of ``.pre-commit-hooks.yaml`` and the CI configurations in ``hooks/``:
the manifest validated and driven as pre-commit drives it, and a real ``pre-commit try-repo``
in a temporary git repository (slow: it installs the hook's environment from PyPI)."""

from __future__ import annotations

import gzip
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pre_commit.clientlib import load_manifest
from pre_commit.commands.run import Classifier
from pre_commit.hook import Hook
from pre_commit.prefix import Prefix

from conftest import SEED_QID
from pandas_anon.cli import main
from pandas_anon.datasets import load_driver_licenses
from pandas_anon.hierarchy import Hierarchy

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
HOOKS = {hook["id"]: hook for hook in load_manifest(str(MANIFEST))}
CONFIG = f'[tool.pandas_anon]\nqid = {SEED_QID!r}\nmax_singletons = "1%"\n'.replace("'", '"')
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}


def tool(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run a command line; pre-commit and pandas-anon from this interpreter's environment."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV, "PATH": path, **(env or {})})


def pre_commit(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return tool(sys.executable, "-m", "pre_commit", *argv, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> Path:
    """An open-data folder: the Valle d'Aosta table gzipped (1,684 singletons, 1.93 %), the
    same after M_loc (4 singletons), the risky table again as .txt, and the configuration."""
    folder = tmp_path_factory.mktemp("open-data")
    frame = load_driver_licenses(parse_dates=False)
    with gzip.open(folder / "patenti.csv.gz", "wt", encoding="utf-8") as handle:
        frame.to_csv(handle, index=False)
    frame.to_csv(folder / "notes.txt", index=False)
    places = Hierarchy.from_columns(frame, ["comune_residenza", "provincia_residenza"])
    frame.anon.generalize({"comune_residenza": (places, 1)}, rows="singletons",
                          qid=SEED_QID).to_csv(folder / "patenti_m_loc.tsv", sep="\t", index=False)
    (folder / "pyproject.toml").write_text(CONFIG)
    return folder


def test_manifest_is_valid():
    done = pre_commit("validate-manifest", str(MANIFEST), cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("hook_id", ["pandas-anon-singletons", "pandas-anon-k"])
def test_hooks_are_modelled_on_check_added_large_files(hook_id):
    hook = HOOKS[hook_id]
    assert (hook["language"], hook["entry"], hook["pass_filenames"]) == (
        "python", "pandas-anon check", True)
    assert hook["stages"] == ["pre-commit", "pre-push", "manual"]
    assert tuple(map(int, hook["minimum_pre_commit_version"].split("."))) >= (3, 2, 0)
    assert set(hook["types_or"]) == {"csv", "tsv", "gzip"}


def test_hooks_receive_tables_only(tmp_path, monkeypatch):
    names = ["a.csv", "b.tsv", "c.csv.gz", "d.tsv.gz", "data/e.CSV", "f.txt", "g.tar.gz",
             "h.csv.bak", "i.json"]
    for name in names:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"a,b\n1,2\n")
    monkeypatch.chdir(tmp_path)
    for dct in HOOKS.values():
        hook = Hook.create(str(MANIFEST), Prefix(str(ROOT)), dct)
        assert sorted(Classifier(names).filenames_for_hook(hook)) == [
            "a.csv", "b.tsv", "c.csv.gz", "d.tsv.gz"]


@pytest.mark.parametrize(("hook_id", "extra", "risky", "generalized"), [
    ("pandas-anon-singletons", [], "1,684 singletons (1.93 %", "PASS"),
    ("pandas-anon-k", ["--qid", "provincia_residenza,sesso"], "", ""),
])
def test_hooks_driven_from_the_manifest(capsys, tables, monkeypatch, hook_id, extra, risky,
                                        generalized):
    """What pre-commit runs: the entry, the hook's args, the staged files (here via main)."""
    hook = HOOKS[hook_id]
    command, *entry_args = shlex.split(hook["entry"])
    assert command == "pandas-anon"
    monkeypatch.chdir(tables)
    argv = [*entry_args, *hook["args"], *extra]
    k_data = load_driver_licenses().dropna(subset=["provincia_residenza", "sesso"])
    k = int(k_data.groupby(["provincia_residenza", "sesso"]).size().min())
    for name, expected_code in (("patenti.csv.gz", 1), ("patenti_m_loc.tsv", 0)):
        if hook_id == "pandas-anon-k":
            expected_code = int(k < 5)
        code = main([*argv, "-v", name])
        out, _ = capsys.readouterr()
        assert code == expected_code
        assert (risky if expected_code else generalized) in out


def test_example_pre_commit_config_uses_the_manifest():
    example = ROOT / "hooks" / "pre-commit-config.yaml"
    assert pre_commit("validate-config", str(example), cwd=ROOT).returncode == 0
    used = {hook["id"] for repo in yaml.safe_load(example.read_text())["repos"]
            for hook in repo["hooks"]}
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
    assert job["artifacts"]["paths"] == ["pandas-anon-report.json"]
    return "\n".join(job["script"]), {"CI_COMMIT_BEFORE_SHA": "{base}"}


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
    shutil.copy(tables / "notes.txt", repo / "data")
    for argv in (["git", "add", "."], ["git", "commit", "-qm", "risky"]):
        assert tool(*argv, cwd=repo).returncode == 0

    def job(base_sha: str) -> tuple[int, dict]:
        done = tool("sh", "-ec", script, cwd=repo,
                    env={k: v.format(base=base_sha) for k, v in env.items()})
        report = yaml.safe_load((repo / "pandas-anon-report.json").read_text())
        assert yaml.safe_load(done.stdout) == report  # printed in the log too
        return done.returncode, {f["file"]: f["status"] for f in report["files"]}

    assert job(base) == (123, {"data/patenti.csv.gz": "fail"})  # xargs' status for exit 1
    assert job("0" * 40) == (123, {"data/patenti.csv.gz": "fail", "patenti_m_loc.tsv": "pass"})
    assert job(tool("git", "rev-parse", "HEAD", cwd=repo).stdout.strip()) == (0, {})


def snapshot_of_this_checkout(folder: Path) -> Path:
    """This checkout as it is on disk (tracked and untracked, ignored files left out),
    committed in a throwaway repository, so try-repo tests the code under test."""
    listed = tool("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                  cwd=ROOT)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "snap"]):
        assert tool(*argv, cwd=folder).returncode == 0
    return folder


@pytest.mark.slow
def test_try_repo_fails_risky_tables_and_passes_generalized_ones(tmp_path, tables):
    repo = snapshot_of_this_checkout(tmp_path / "pandas-anon")
    data = tmp_path / "open-data"
    shutil.copytree(tables, data)
    assert tool("git", "init", "-q", cwd=data).returncode == 0
    env = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    def try_repo(*names: str) -> subprocess.CompletedProcess:
        return pre_commit("try-repo", str(repo), "pandas-anon-singletons", "--files", *names,
                          cwd=data, env=env)

    risky = try_repo("patenti.csv.gz")
    assert risky.returncode == 1, risky.stdout + risky.stderr
    assert "pandas-anon singletons" in risky.stdout and "Failed" in risky.stdout
    assert "1,684 singletons (1.93 % of 87,464 rows examined)" in risky.stdout
    safe = try_repo("patenti_m_loc.tsv", "notes.txt")  # notes.txt is not a table: not passed
    assert safe.returncode == 0, safe.stdout + safe.stderr
    assert "Passed" in safe.stdout
    assert not any(value in risky.stdout + safe.stdout for value in ("GIGNOD", "RHEMES"))

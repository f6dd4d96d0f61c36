"""Every hook of the plugin API has a docstring, a section in docs/plugins.md, and a test; and
every pre-commit configuration the documentation shows uses the manifest's hooks, ends its
``args`` with ``--`` and pins a ``rev:`` the repository has (COMMIT_SHA, the placeholder for a
commit, until a release is tagged)."""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
from pathlib import Path

import pluggy
import pytest
import yaml
from pre_commit.clientlib import load_config, load_manifest

from pandas_anon.plugins import hookspecs

ROOT = Path(__file__).resolve().parents[2]
_SPECS = pluggy.PluginManager("pandas_anon")
HOOKS = sorted(name for name in dir(hookspecs) if _SPECS.parse_hookspec_opts(hookspecs, name))


def test_the_hookspecs_are_found():
    assert "register_hierarchies" in HOOKS
    _SPECS.add_hookspecs(hookspecs)
    assert sorted(name for name, caller in vars(_SPECS.hook).items() if caller.has_spec()) == HOOKS


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_a_docstring(hook):
    assert len(inspect.getdoc(getattr(hookspecs, hook)) or "") > 100


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_documented(hook):
    assert f"`{hook}`" in (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_tested(hook):
    others = [p for p in (ROOT / "tests").rglob("test_*.py") if p.name != Path(__file__).name]
    assert any(hook in p.read_text(encoding="utf-8") for p in others)


# -- pre-commit: the documented configurations ------------------------------------------------

MANIFEST = {hook["id"]: hook for hook in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
#: Where pandas-anon is published, as the documentation writes it.
PUBLISHED = "https://github.com/OWNER/pandas-anon"
#: The documented rev until a release is tagged: a placeholder for a commit.
PLACEHOLDER = "COMMIT_SHA"
#: The pages that may show a configuration.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def documented_configs() -> dict[str, str]:
    """Every .pre-commit-config.yaml the documentation shows, by where it is: the template in
    hooks/, the examples' and each ```yaml block of a page holding ``repos:``."""
    configs = {"hooks/pre-commit-config.yaml": (ROOT / "hooks" / "pre-commit-config.yaml")}
    configs |= {
        str(path.relative_to(ROOT)): path
        for path in sorted((ROOT / "docs" / "examples").rglob(".pre-commit-config.yaml"))
    }
    texts = {name: path.read_text(encoding="utf-8") for name, path in configs.items()}
    for page in PAGES:
        blocks = re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        for number, block in enumerate(b for b in blocks if "repos:" in b):
            texts[f"{page.relative_to(ROOT)}#{number}"] = block
    return texts


CONFIGS = documented_configs()


def test_the_documentation_shows_configurations():
    assert {"hooks/pre-commit-config.yaml", "docs/check.md#0"} <= set(CONFIGS)
    assert any(name.startswith("docs/examples/") for name in CONFIGS)


def test_the_page_shows_the_template():
    """docs/check.md's configuration is hooks/pre-commit-config.yaml, comments aside."""
    assert yaml.safe_load(CONFIGS["docs/check.md#0"]) == yaml.safe_load(
        CONFIGS["hooks/pre-commit-config.yaml"]
    )


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_documented_config_is_valid_and_uses_the_manifest(tmp_path, name):
    path = tmp_path / ".pre-commit-config.yaml"
    path.write_text(CONFIGS[name])
    config = load_config(str(path))  # pre-commit's own validation; raises when invalid
    (repo,) = config["repos"]
    assert repo["repo"] == PUBLISHED
    for hook in repo["hooks"]:
        assert hook["id"] in MANIFEST
        # args of one's own replace the hook's: they must end with the -- before the file names
        if "args" in hook:
            assert hook["args"][-1:] == ["--"], (name, hook)


def git(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True)


def rev_exists(rev: str) -> bool:
    """Whether ``rev`` is the placeholder, or a tag or commit of this repository (a tag it
    does not have is neither)."""
    if rev == PLACEHOLDER:
        return True
    if not re.fullmatch(r"[0-9a-f]{7,40}", rev):  # a tag, or a branch
        return rev in git("tag", "--list").stdout.split()
    return git("cat-file", "-e", f"{rev}^{{commit}}").returncode == 0


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_documented_rev_exists(name):
    (repo,) = yaml.safe_load(CONFIGS[name])["repos"]
    assert rev_exists(str(repo["rev"])), f"{name}: rev {repo['rev']} is no tag or commit here"


def pinned_revs() -> dict[str, list[str]]:
    """Every rev the documentation and templates pin pandas-anon at: ``rev:`` lines and pip's
    ``git+https://github.com/OWNER/pandas-anon@REV``, by file."""
    files = [*PAGES, *sorted((ROOT / "hooks").iterdir()), *(ROOT / "docs" / "examples").rglob("*")]
    revs = {}
    for path in files:
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        found = re.findall(r"^\s*rev:\s*([^\s#]+)", text, re.M)
        found += re.findall(re.escape(PUBLISHED) + r"@([^\s#\"']+?)(?=[\s#\"']|$)", text, re.M)
        if found:
            revs[str(path.relative_to(ROOT))] = found
    return revs


def test_every_pinned_rev_exists():
    revs = pinned_revs()
    assert {"hooks/github-actions.yml", "hooks/gitlab-ci.yml", "docs/check.md"} <= set(revs)
    missing = {name: [rev for rev in found if not rev_exists(rev)] for name, found in revs.items()}
    assert not any(missing.values()), f"revs that are no tag or commit here: {missing}"


@pytest.mark.parametrize("hook_id", sorted(MANIFEST))
def test_documented_hook_table_matches_the_manifest(hook_id):
    """docs/check.md's table of hooks says what each runs: the options of its args, then --."""
    args = shlex.join(MANIFEST[hook_id]["args"])
    row = f"| `{hook_id}` | `pandas-anon check {args} FILES...`"
    assert row.replace("check  ", "check ") in (ROOT / "docs" / "check.md").read_text(
        encoding="utf-8"
    )

"""The plugin kit (:mod:`pandas_anon.testing`): a sound plugin passes, and each kind of broken
plugin is caught by its check, with a message that names the fix and never a sample's value."""

from __future__ import annotations

import importlib.metadata as metadata
import json
import sys
import time
import types

import numpy as np
import pandas as pd
import pytest

import pandas_anon
from pandas_anon.cli.main import main
from pandas_anon.errors import AnonError, InvalidParameterError, UnknownNameError
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.plugins import manager as plugins
from pandas_anon.plugins.hookspecs import hookimpl
from pandas_anon.testing import (
    CHECKS,
    MAX_SECONDS,
    PluginCheck,
    PluginCheckError,
    ambiguous_labels,
    assert_plugin,
    check_plugin,
    level_problems,
)

SECRET = "Rossi Mario"  # a value that must never appear in a report


def decades(data: pd.Series | None) -> Hierarchy:
    ages = pd.Series(range(100) if data is None else data.dropna().unique())
    return Hierarchy(ages, [(ages // 10 * 10).astype(str) + "s"])


def plugin(hook) -> object:
    """A plugin object whose ``register_hierarchies`` is ``hook(register)``."""
    return type("Plugin", (), {"register_hierarchies": staticmethod(hookimpl(hook))})()


def registering(*calls: tuple[tuple, dict]) -> object:
    """A plugin whose hook makes these ``register(*args, **kwargs)`` calls."""

    def hook(register):
        for args, kwargs in calls:
            register(*args, **kwargs)

    return plugin(hook)


def sound() -> object:
    return registering(
        (("t.age", decades), {"columns": ["age_t"], "description": "decades"}),
        (("t.sex", Hierarchy(["M", "F"])), {"columns": ["sex_t"]}),
    )


@pytest.fixture(autouse=True)
def no_installed_plugins(monkeypatch):
    """Only the built-in plugin is installed, unless a test registers more."""
    monkeypatch.setenv(plugins.ALLOWLIST, "")
    plugins.reset()
    yield
    plugins.reset()


def only(check: PluginCheck, kind: str) -> list[str]:
    """The messages of ``check``, all from the check ``kind``."""
    assert check.problems, "the kit found nothing"
    assert {p.check for p in check.problems} == {kind}, check.problems
    return [p.message for p in check.problems]


# -- a sound plugin ------------------------------------------------------------------------


def test_a_sound_plugin_passes_with_its_table():
    check = assert_plugin(sound(), name="t", samples={"t.age": pd.Series([34, 51, None])})
    assert check.ok and check.problems == ()
    table = check.hierarchies.set_index("name")
    assert table.loc["t.age", "levels"] == "100 -> 10 -> 1"
    assert (table.loc["t.age", "coverage"], table.loc["t.age", "unplaced"]) == (1.0, 0)
    assert table.loc["t.sex", "kind"] == "hierarchy" and pd.isna(table.loc["t.sex", "coverage"])
    assert table.loc["t.sex", "claims"] == ("sex_t",)
    assert 0 <= table.loc["t.age", "seconds"] < MAX_SECONDS
    assert json.loads(json.dumps(check.to_dict()))["ok"] is True
    assert "Plugin check: t" in repr(check) and "ok" in repr(check)


def test_the_table_writes_the_unplaced_count_as_a_whole_number():
    """On every pandas: 2.2 maps the Int64 column as floats, and "2.0" was printed 2.0000."""
    check = check_plugin(sound(), name="t", samples={"t.age": pd.Series([34, 51, None])})
    row = next(line for line in repr(check).splitlines() if "t.age" in line)
    assert row.split("│")[-2].strip() == "0"


def test_the_kit_is_reachable_from_the_package():
    assert pandas_anon.testing.check_plugin is check_plugin
    assert issubclass(PluginCheckError, AssertionError) and issubclass(PluginCheckError, AnonError)


# -- each kind of broken plugin --------------------------------------------------------------


def test_non_monotone_levels_in_a_factory_are_caught():
    def split(data):  # level 1 label "a" under two labels of level 2: not a tree
        return Hierarchy([1, 2, 3], [["a", "a", "b"], ["x", "y", "y"]])

    (message,) = only(check_plugin(registering((("t.split", split), {})), name="t"), "canonical")
    assert "fall under several labels of level 2" in message


class Tangled(Hierarchy):
    """A hierarchy whose public codes break the tree (as a subclass could)."""

    def codes(self, level: int) -> np.ndarray:
        codes = super().codes(level)
        return np.array([0, 1, 1]) if level == 1 else codes

    def labels(self, level: int) -> pd.Index:
        return pd.Index(["a", "b"]) if level == 1 else super().labels(level)


def test_levels_read_through_the_public_api_are_checked():
    tangled = Tangled([1, 2, 3], [["a", "a", "b"], ["x", "x", "y"]])
    problems = level_problems(tangled)
    assert any("level 1 label(s) 'b' fall under several labels of level 2" in p for p in problems)
    check = check_plugin(registering((("t.tangled", tangled), {})), name="t")
    assert {p.check for p in check.problems} == {"levels"}


def test_a_level_with_more_labels_than_the_one_below_is_caught():
    class Growing(Hierarchy):
        def labels(self, level: int) -> pd.Index:
            return pd.Index(["a", "b", "c", "d"]) if level == 1 else super().labels(level)

    problems = level_problems(Growing([1, 2, 3], [["a", "a", "b"]]))
    assert any("level 1 has 4 labels, more than level 0 (3)" in p for p in problems)


def test_ambiguous_labels_are_caught():
    namesakes = Hierarchy(["Torino", "Moncalieri"], [["Torino", "Torino"]], name="places")
    (message,) = only(check_plugin(registering((("t.place", namesakes), {})), name="t"), "labels")
    assert "'Torino' is a label of levels 0 and 1" in message
    assert ambiguous_labels(Hierarchy([1, "1"], [["x", "x"]])) == [
        "level 0 has several labels printed '1' (of different types); make them one label, "
        "or different texts"
    ]
    same_set = Hierarchy(["a", "b"], [["a", "b"], ["ab", "ab"]])  # "a" means {a} at 0 and 1
    assert ambiguous_labels(same_set) == []


def test_a_claim_colliding_with_an_installed_plugin_is_caught():
    installed = registering((("other.age", decades), {"columns": ["Age T"]}))
    plugins.get_plugin_manager().register(installed, name="other")
    (message,) = only(check_plugin(sound(), name="t"), "claims")
    assert message.startswith("column 'age_t' is also claimed by other.age of plugin other")
    assert check_plugin(sound(), name="t", installed=False).ok


def test_two_claims_of_one_plugin_collide_too():
    twice = registering(
        (("t.a", decades), {"columns": ["age"]}), (("t.b", decades), {"columns": ["AGE"]})
    )
    (message,) = only(check_plugin(twice, name="t"), "claims")
    assert "column 'AGE' is also claimed by t.a of the same plugin" in message


def test_a_name_or_namespace_of_an_installed_plugin_is_caught():
    other = registering((("t.age", decades), {}), (("t.other", decades), {}))
    plugins.get_plugin_manager().register(other, name="other")
    check = check_plugin(registering((("t.age", decades), {}), (("t.new", decades), {})), name="t")
    messages = only(check, "name")
    assert messages[0].startswith("also registered by plugin other")
    assert messages[1].startswith("namespace 't' is used by plugin other")


def test_bad_coverage_counts_values_and_never_shows_them():
    sample = pd.Series([34, 51, SECRET, SECRET, None], name="age_t", dtype=object)
    sex = registering((("t.sex", Hierarchy(["M", "F"])), {}))
    check = check_plugin(sex, name="t", samples={"t.sex": sample})
    (message,) = only(check, "coverage")
    assert message.startswith("3 of 3 distinct values of the sample (4 rows) not placed")
    assert (
        SECRET not in message and SECRET not in repr(check) and SECRET not in str(check.to_dict())
    )
    half = pd.Series(["M", "F", "X", "Y"])
    assert check_plugin(sex, name="t", samples={"t.sex": half}, min_coverage=0.5).ok
    assert not check_plugin(sex, name="t", samples={"t.sex": half}, min_coverage=0.51).ok


def test_a_factory_reporting_unmatched_values_is_counted():
    def strict(data):
        if data is None:
            return Hierarchy(["a", "b"])
        raise pandas_anon.HierarchyError(f"cannot place {SECRET!r}", unmatched=2)

    check = check_plugin(
        registering((("t.s", strict), {})), name="t", samples={"t.s": ["a", "x", "y"]}
    )
    (message,) = only(check, "coverage")
    assert (
        message.startswith("2 of 3 distinct values of the sample not placed")
        and SECRET not in message
    )


def test_a_slow_factory_is_caught_and_the_limit_can_be_raised():
    def slow(data):
        time.sleep(0.05)
        return decades(data)

    slow_plugin = registering((("t.slow", slow), {}))
    (message,) = only(check_plugin(slow_plugin, name="t", max_seconds=0.01), "time")
    assert "took 0.0" in message and "over the 0.01 s limit" in message
    assert check_plugin(slow_plugin, name="t", max_seconds=5).ok


def test_a_canonical_hierarchy_that_fails_is_caught():
    def only_data(data):
        if data is None:
            raise ValueError("give me data")
        return decades(data)

    check = check_plugin(
        registering((("t.a", only_data), {}), (("t.b", lambda data: "not one"), {})), name="t"
    )
    first, second = only(check, "canonical")
    assert "the factory called with None raised ValueError: give me data" in first
    assert second.startswith("the factory returned str, not a Hierarchy")
    assert check_plugin(registering((("t.a", only_data), {})), name="t", skip=["canonical"]).ok


def test_a_factory_changing_its_column_is_caught():
    def mutating(data):
        if data is not None:
            data.iloc[0] = 99
        return decades(data)

    check = check_plugin(registering((("t.m", mutating), {})), name="t", samples={"t.m": [1, 2]})
    assert [p.check for p in check.problems] == ["factory"]


def test_every_bad_register_call_is_listed_not_only_the_first():
    bad = registering(
        (("Age", decades), {}),
        (("builtin.age", decades), {}),
        (("t.age", 42), {}),
        (("t.ok", decades), {"columns": "age"}),
        (("t.twice", decades), {}),
        (("t.twice", decades), {}),
    )
    messages = only(check_plugin(bad, name="t"), "register")
    assert len(messages) == 5
    assert "name 'Age' is not a namespaced name" in messages[0]
    assert "the builtin. namespace is reserved to pandas-anon" in messages[1]
    assert "expected a Hierarchy or a factory function, got int" in messages[2]
    assert "columns must be a list of non-empty column names" in messages[3]
    assert "'t.twice' registered twice by the same plugin" in messages[4]


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (plugin(lambda register: 1 / 0), "register_hierarchies raised ZeroDivisionError"),
        (registering(), "registers no usable hierarchy"),
        (plugin(lambda register, extra: None), "pluggy refuses the plugin"),
        (types.SimpleNamespace(), "no register_hierarchies hook"),
        (
            type("Typo", (), {"register_hierarchy": staticmethod(hookimpl(lambda register: 0))})(),
            "unknown hook(s) register_hierarchy",
        ),
    ],
    ids=["raises", "empty", "signature", "no hook", "typo"],
)
def test_a_broken_hook_is_caught(broken, message):
    check = check_plugin(broken, name="t")
    assert any(message in p.message for p in check.problems), check.problems
    assert {p.check for p in check.problems} == {"register"}


def test_skip_leaves_checks_out_and_rejects_unknown_names():
    namesakes = registering((("t.place", Hierarchy(["A", "B"], [["A", "A"]])), {}))
    assert not check_plugin(namesakes, name="t").ok
    assert check_plugin(namesakes, name="t", skip=["labels"]).skipped == ("labels",)
    assert check_plugin(namesakes, name="t", skip=["labels"]).ok
    with pytest.raises(InvalidParameterError, match="unknown check"):
        check_plugin(namesakes, skip=["label"])
    with pytest.raises(InvalidParameterError, match="unknown check"):
        check_plugin(namesakes, skip="labels")
    assert set(CHECKS) >= {"coverage", "levels", "labels", "claims", "time", "canonical"}


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"samples": {"t.nope": [1]}}, r"samples: \['t.nope'\] not registered by plugin t"),
        ({"min_coverage": 1.5}, "min_coverage must be a share between 0 and 1"),
        ({"max_seconds": 0}, "max_seconds must be positive"),
    ],
)
def test_bad_options_raise(options, match):
    with pytest.raises(InvalidParameterError, match=match):
        check_plugin(sound(), name="t", **options)


def test_an_unknown_installed_plugin_name_raises():
    with pytest.raises(UnknownNameError, match="unknown installed plugin 'nope'"):
        check_plugin("nope")


def test_assert_plugin_lists_every_problem_for_pytest():
    bad = registering(
        (("Bad", decades), {}), (("t.place", Hierarchy(["A", "B"], [["A", "A"]])), {})
    )
    with pytest.raises(AssertionError) as caught:
        assert_plugin(bad, name="t")
    error = caught.value
    assert isinstance(error, PluginCheckError) and len(error.check.problems) == 2
    lines = str(error).splitlines()
    assert lines[0] == "plugin t has 2 problems:"
    assert lines[1].startswith("- [register] register: name 'Bad'")
    assert lines[2].startswith("- [labels] t.place: the registered hierarchy: 'A' is a label")


# -- through an entry point, and the command line ---------------------------------------------


@pytest.fixture
def entry_points(monkeypatch):
    """``add(name, plugin_module)``: an installed entry point of group pandas_anon."""
    found: list[metadata.EntryPoint] = []
    monkeypatch.setattr(
        metadata, "entry_points", lambda group: [ep for ep in found if ep.group == group]
    )
    monkeypatch.delenv(plugins.ALLOWLIST)
    plugins.reset()

    def add(name: str, hook) -> None:
        module = types.ModuleType(f"kit_{name}")
        module.register_hierarchies = hookimpl(hook)
        monkeypatch.setitem(sys.modules, module.__name__, module)
        found.append(metadata.EntryPoint(name, module.__name__, plugins.GROUP))

    return add


def test_an_installed_plugin_is_checked_by_name(entry_points):
    entry_points("good", lambda register: register("good.age", decades, columns=["age"]))
    entry_points("rival", lambda register: register("rival.age", decades, columns=["AGE"]))
    check = check_plugin("good")
    assert check.plugin == "good"
    (message,) = only(check, "claims")
    assert "column 'age' is also claimed by rival.age of plugin rival" in message


def test_the_plugins_command_checks_and_exits_1_on_a_problem(entry_points, capsys):
    entry_points("good", lambda register: register("good.age", decades))
    entry_points(
        "slow", lambda register: register("slow.x", lambda d: time.sleep(0.05) or decades(d))
    )
    assert main(["plugins", "--check", "good"]) == 0
    out = capsys.readouterr().out
    assert "Plugin check: good" in out and "│ result     │ ok" in out
    assert main(["plugins", "--check", "--max-seconds", "0.01"]) == 1
    out = capsys.readouterr().out
    assert "Plugin check: good" in out and "- [time] slow.x: the factory called with None" in out
    assert main(["plugins", "--check", "slow", "--max-seconds", "0.01", "--skip", "time"]) == 0
    capsys.readouterr()
    assert main(["plugins", "--check", "good", "--format", "json"]) == 0
    (reported,) = json.loads(capsys.readouterr().out)
    assert reported["ok"] is True and reported["hierarchies"][0]["name"] == "good.age"


def test_the_plugins_command_errors_name_the_fix(entry_points, capsys):
    assert main(["plugins", "--check"]) == 2
    assert "--check: no plugin is installed" in capsys.readouterr().err
    assert main(["plugins", "--check", "nope"]) == 2
    assert "unknown installed plugin 'nope'" in capsys.readouterr().err

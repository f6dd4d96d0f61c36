"""Plugins: loading (lazy, allowlist, broken ones), the hierarchy registry, the command."""

from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import subprocess
import sys
import textwrap
import types

import pandas as pd
import pytest

from pandas_anon.cli.main import main
from pandas_anon.errors import AnonWarning, HierarchyError, InvalidParameterError, UnknownNameError
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.plugins import manager as plugins
from pandas_anon.plugins.hookspecs import hookimpl
from pandas_anon.plugins.registry import (
    claimed_hierarchy,
    columns_read,
    get_hierarchy,
    hierarchies,
    normalize,
    plugin_status,
)

BUILTINS = ["builtin.auto", "builtin.dates", "builtin.mask", "builtin.suppress"]


def decades() -> Hierarchy:
    return Hierarchy([34, 38, 51], [["30-39", "30-39", "50-59"]])


class Ages:
    """A plugin registering a ready hierarchy and a factory, with claims."""

    def __init__(self) -> None:
        self.calls: list[object] = []
        self.decades = decades()

    @hookimpl
    def register_hierarchies(self, register):
        register("test.age", self.decades, description="ages in decades", columns=["Age", "eta"])
        register("test.initial", self.initial, columns=["first name"])

    def initial(self, data: pd.Series | None) -> Hierarchy:
        self.calls.append(data)
        values = pd.Series(["anna", "bruno"]) if data is None else data.dropna().unique()
        return Hierarchy(values, [[str(v)[0] for v in values]])


def plugin(hook) -> object:
    """A plugin object whose ``register_hierarchies`` is ``hook(register)``."""
    return type("Plugin", (), {"register_hierarchies": staticmethod(hookimpl(hook))})()


@pytest.fixture(autouse=True)
def installed(monkeypatch):
    """The installed entry points, replaced by this list (empty unless a test fills it); the
    plugins are loaded afresh in each test."""
    found: list[metadata.EntryPoint] = []
    monkeypatch.setattr(
        metadata, "entry_points", lambda group: [ep for ep in found if ep.group == group]
    )
    monkeypatch.delenv(plugins.ALLOWLIST, raising=False)
    plugins.reset()
    yield found
    plugins.reset()


@pytest.fixture
def pm():
    return plugins.get_plugin_manager()


def entry_point(monkeypatch, name: str, hook=None, *, module: str | None = None):
    """An entry point of group pandas_anon; with ``hook``, its module is a fake importable one
    implementing ``register_hierarchies``, otherwise ``module`` (which may not exist)."""
    module = module or f"fake_anon_plugin_{name}"
    if hook is not None:
        fake = types.ModuleType(module)
        fake.register_hierarchies = hookimpl(hook)
        monkeypatch.setitem(sys.modules, module, fake)
    return metadata.EntryPoint(name=name, value=module, group="pandas_anon")


def status(name: str) -> dict:
    table = plugin_status()
    return table[table["name"] == name].iloc[0].to_dict()


# -- built-in and run-time plugins -----------------------------------------------------------


def test_the_builtin_hierarchies_come_through_the_hook(pm):
    assert pm.get_plugin("builtin") is not None
    table = hierarchies()
    assert list(table["name"]) == BUILTINS
    assert set(table["kind"]) == {"factory"} and set(table["source"]) == {"built-in"}
    assert set(table["plugin"]) == {"builtin"}


@pytest.mark.parametrize(
    "name, data, frame",
    [
        (
            "builtin.suppress",
            pd.Series(["b", "a", None, "b"]),
            {"value": ["a", "b"], "*": ["*", "*"]},
        ),
        (
            "builtin.mask",
            pd.Series(["11058", "11020"], name="cap"),
            {"cap": ["11020", "11058"], "mask 1": ["1102*", "1105*"], "mask 2": ["110**", "110**"]},
        ),
        (
            "builtin.dates",
            pd.Series(pd.to_datetime(["2019-05-17", "2021-01-02"]), name="day"),
            {
                "day": pd.to_datetime(["2019-05-17", "2021-01-02"]).tolist(),
                "month": ["2019-05", "2021-01"],
                "year": ["2019", "2021"],
                "decade": ["2010/2019", "2020/2029"],
            },
        ),
        ("builtin.auto", pd.Series(["x", "y"], name="sex"), {"sex": ["x", "y"], "*": ["*", "*"]}),
    ],
)
def test_the_builtin_factories_use_the_builders(pm, name, data, frame):
    built = get_hierarchy(name, data)
    table = built.to_frame()
    assert table.iloc[:, : len(frame)].to_dict("list") == frame
    with pytest.raises(
        HierarchyError,
        match=rf"'{name}' of plugin builtin \(built-in\) could "
        rf"not be built: HierarchyError: {name} is built "
        rf"from a column's values",
    ):
        get_hierarchy(name)


def test_a_plugin_lists_its_hierarchies_and_claims(pm):
    pm.register(Ages(), name="ages")
    table = hierarchies()
    assert list(table.columns) == ["name", "kind", "plugin", "source", "description", "claims"]
    assert list(table["name"]) == [*BUILTINS, "test.age", "test.initial"]
    age = table.set_index("name").loc["test.age"]
    assert (age["kind"], age["plugin"], age["source"]) == ("hierarchy", "ages", plugins.RUNTIME)
    assert (age["description"], age["claims"]) == ("ages in decades", ("Age", "eta"))
    assert status("ages") == {
        "name": "ages",
        "source": plugins.RUNTIME,
        "status": "ok",
        "problem": "",
    }


def test_a_registered_hierarchy_is_returned_named_and_ignores_data(pm):
    ages = Ages()
    pm.register(ages, name="ages")
    assert ages.decades.name is None
    assert get_hierarchy("test.age") is ages.decades
    assert get_hierarchy("test.age", pd.Series([1, 2])) is ages.decades
    assert ages.decades.name == "test.age"


def test_a_factory_is_called_lazily_with_the_data(pm):
    ages = Ages()
    pm.register(ages, name="ages")
    hierarchies()
    assert ages.calls == []
    column = pd.Series(["carla", "dario", None])
    built = get_hierarchy("test.initial", column)
    assert ages.calls == [column] and ages.calls[0] is column
    assert list(built.values) == ["carla", "dario"] and list(built.labels(1)) == ["c", "d"]
    assert built.name == "test.initial"
    assert list(get_hierarchy("test.initial").values) == ["anna", "bruno"]
    assert ages.calls[1] is None


@pytest.mark.parametrize(
    "factory, message",
    [
        (lambda data: 1 / 0, "could not be built: ZeroDivisionError: division by zero"),
        (lambda data: "not a hierarchy", "the factory returned str, not a Hierarchy"),
    ],
)
def test_factory_failures_name_the_plugin(pm, factory, message):
    pm.register(plugin(lambda register: register("test.bad", factory)), name="bad")
    with pytest.raises(HierarchyError, match=rf"'test.bad' of plugin bad \({plugins.RUNTIME}\)"):
        get_hierarchy("test.bad")
    with pytest.raises(HierarchyError, match=message):
        get_hierarchy("test.bad")


def test_an_unknown_name_lists_the_available_ones(pm):
    pm.register(Ages(), name="ages")
    with pytest.raises(UnknownNameError) as caught:
        get_hierarchy("it.comune")
    assert str(caught.value) == (
        "unknown hierarchy name 'it.comune'; valid hierarchy names: 'builtin.auto', "
        "'builtin.dates', 'builtin.mask', 'builtin.suppress', 'test.age', 'test.initial'"
    )
    assert isinstance(caught.value, KeyError)


def test_claims_ignore_case_spaces_and_separators(pm):
    pm.register(Ages(), name="ages")
    assert claimed_hierarchy("age") == claimed_hierarchy(" AGE ") == "test.age"
    assert claimed_hierarchy("Eta") == "test.age"
    assert claimed_hierarchy("First_Name") == claimed_hierarchy("first-name") == "test.initial"
    assert claimed_hierarchy("comune") is None and claimed_hierarchy(3) is None
    assert normalize(" Comune  Residenza-") == "comune_residenza_"


def test_the_registry_follows_plugins_registered_and_removed(pm):
    assert "test.age" not in set(hierarchies()["name"])
    pm.register(Ages(), name="ages")
    assert "test.age" in set(hierarchies()["name"])
    pm.unregister(name="ages")
    assert "test.age" not in set(hierarchies()["name"])
    assert claimed_hierarchy("age") is None


# -- collisions -----------------------------------------------------------------------------


def test_a_name_registered_twice_names_both_plugins_and_is_not_used(pm):
    pm.register(Ages(), name="ages")
    pm.register(plugin(lambda register: register("test.age", decades())), name="other")
    with pytest.warns(
        AnonWarning,
        match=r"'test.age' is registered by plugin ages .* and "
        r"plugin other .*; uninstall one of them",
    ):
        table = hierarchies()
    assert "test.age" not in set(table["name"]) and "test.initial" in set(table["name"])
    with pytest.raises(HierarchyError, match="registered by plugin ages.* and plugin other"):
        get_hierarchy("test.age")
    for name in ("ages", "other"):
        assert status(name)["status"] == "ok"
        assert "hierarchy name 'test.age' is registered by" in status(name)["problem"]
    assert status("builtin")["problem"] == ""
    assert get_hierarchy("builtin.suppress", pd.Series([1])).n_levels == 2


def test_a_column_claimed_twice_has_no_default(pm):
    pm.register(Ages(), name="ages")
    pm.register(
        plugin(lambda register: register("other.age", decades(), columns=["AGE"])), name="other"
    )
    with pytest.warns(AnonWarning, match="column 'age' is claimed by test.age and other.age"):
        with pytest.raises(
            HierarchyError,
            match="column 'Age' is claimed by hierarchies "
            "test.age and other.age: give the hierarchy",
        ):
            claimed_hierarchy("Age")
    assert claimed_hierarchy("eta") == "test.age"
    assert get_hierarchy("other.age").to_frame().equals(decades().to_frame())
    assert "column 'age' is claimed by" in status("other")["problem"]


# -- broken plugins ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda r: r("Test.Age", decades()), "'Test.Age' is not a namespaced name"),
        (lambda r: r("age", decades()), "'age' is not a namespaced name"),
        (lambda r: r(None, decades()), "None is not a namespaced name"),
        (lambda r: r("builtin.age", decades()), "the builtin. namespace is reserved"),
        (lambda r: (r("test.age", decades()), r("test.age", decades())), "registered twice"),
        (lambda r: r("test.age", [1, 2]), "expected a Hierarchy or a factory function, got list"),
        (lambda r: r("test.age", decades(), columns="age"), "columns must be a list"),
        (lambda r: r("test.age", decades(), columns=[""]), "columns must be a list"),
    ],
)
def test_a_bad_register_call_breaks_only_its_plugin(pm, call, message):
    def hook(register):
        register("test.first", decades())
        call(register)

    pm.register(plugin(hook), name="bad")
    pm.register(Ages(), name="ages")
    with pytest.warns(AnonWarning, match=r"plugin 'bad' .* is skipped: InvalidParameterError"):
        table = hierarchies()
    assert "test.first" not in set(table["name"])  # all or nothing
    assert {"builtin.suppress", "test.age"} <= set(table["name"])
    assert status("bad")["status"] == "broken" and message in status("bad")["problem"]
    assert status("ages")["status"] == "ok"


def test_register_raises_a_clear_error_to_the_plugin(pm):
    def hook(register):
        with pytest.raises(InvalidParameterError, match="reserved to pandas-anon"):
            register("builtin.mine", decades())

    pm.register(plugin(hook), name="careful")
    assert status("careful")["status"] == "ok"


def test_a_hook_that_raises_is_reported_by_name(pm):
    def hook(register):
        raise RuntimeError("no data file\nsecond line")

    pm.register(plugin(hook), name="crashing")
    with pytest.warns(
        AnonWarning, match="plugin 'crashing' .* skipped: RuntimeError: no data file$"
    ):
        assert list(hierarchies()["name"]) == BUILTINS
    assert status("crashing") == {
        "name": "crashing",
        "source": plugins.RUNTIME,
        "status": "broken",
        "problem": "RuntimeError: no data file",
    }


def test_an_entry_point_that_fails_to_import_is_reported_by_name(monkeypatch, installed):
    installed.append(entry_point(monkeypatch, "broken", module="pandas_anon_no_such_module"))
    installed.append(
        entry_point(
            monkeypatch, "good", lambda register: register("good.age", decades(), columns=["age"])
        )
    )
    with pytest.warns(
        AnonWarning,
        match="plugin 'broken' .entry point pandas_anon_no_such_module."
        " failed to load and is skipped: ModuleNotFoundError",
    ):
        table = hierarchies()
    assert list(table["name"]) == [*BUILTINS, "good.age"]
    assert table["source"].iloc[-1] == "entry point fake_anon_plugin_good"
    assert plugin_status().to_dict("list") == {
        "name": ["builtin", "broken", "good"],
        "source": [
            "built-in",
            "entry point pandas_anon_no_such_module",
            "entry point fake_anon_plugin_good",
        ],
        "status": ["ok", "broken", "ok"],
        "problem": ["", "ModuleNotFoundError: No module named 'pandas_anon_no_such_module'", ""],
    }
    assert claimed_hierarchy("age") == "good.age"
    assert get_hierarchy("builtin.suppress", pd.Series(["x"])).n_levels == 2


def test_an_entry_point_implementing_an_unknown_hook_is_broken(monkeypatch, installed):
    typo = types.ModuleType("fake_anon_typo")
    typo.register_hierarchy = hookimpl(lambda register: None)
    optional = types.ModuleType("fake_anon_optional")
    optional.future_hook = hookimpl(optionalhook=True)(lambda: None)
    monkeypatch.setitem(sys.modules, "fake_anon_typo", typo)
    monkeypatch.setitem(sys.modules, "fake_anon_optional", optional)
    installed.append(metadata.EntryPoint("typo", "fake_anon_typo", "pandas_anon"))
    installed.append(metadata.EntryPoint("optional", "fake_anon_optional", "pandas_anon"))
    with pytest.warns(AnonWarning, match="plugin 'typo'"):
        pm = plugins.get_plugin_manager()
    assert not pm.has_plugin("typo") and pm.has_plugin("optional")
    assert status("typo")["problem"] == (
        "ValueError: unknown hook(s) register_hierarchy; pandas-anon hooks: "
        "register_algorithms, register_hierarchies"
    )
    assert status("optional")["status"] == "ok"


def test_an_entry_point_with_a_wrong_signature_leaves_nothing_behind(monkeypatch, installed):
    installed.append(entry_point(monkeypatch, "wrong", lambda register, extra: None))
    with pytest.warns(AnonWarning, match="plugin 'wrong' .* PluginValidationError"):
        pm = plugins.get_plugin_manager()
    assert not pm.has_plugin("wrong")
    assert [i.plugin_name for i in pm.hook.register_hierarchies.get_hookimpls()] == ["builtin"]


def test_two_entry_points_with_one_name(monkeypatch, installed):
    installed.append(entry_point(monkeypatch, "twin", lambda register: None))
    installed.append(metadata.EntryPoint("twin", "fake_anon_plugin_twin", "pandas_anon"))
    with pytest.warns(AnonWarning, match="another plugin is already named 'twin'"):
        assert list(plugin_status()["status"]) == ["ok", "ok", "broken"]


# -- the allowlist ----------------------------------------------------------------------------


@pytest.fixture
def three(monkeypatch, installed):
    for name in ("alpha", "beta"):
        installed.append(
            entry_point(monkeypatch, name, lambda register, n=name: register(f"{n}.h", decades()))
        )
    installed.append(entry_point(monkeypatch, "broken", module="pandas_anon_no_such_module"))


@pytest.mark.parametrize(
    "allowed, loaded",
    [
        ("alpha", ["alpha.h"]),
        (" beta , alpha,", ["alpha.h", "beta.h"]),
        ("", []),
        ("builtin", []),
    ],
)
def test_the_allowlist_loads_only_the_plugins_it_names(monkeypatch, three, allowed, loaded):
    monkeypatch.setenv(plugins.ALLOWLIST, allowed)
    assert list(hierarchies()["name"]) == sorted(BUILTINS + loaded)
    table = plugin_status().set_index("name")
    assert table.loc["broken", "status"] == "disabled"  # never imported
    assert table.loc["broken", "problem"] == "not in PANDAS_ANON_PLUGINS"
    assert table.loc["builtin", "status"] == "ok"


def test_a_disabled_name_can_be_registered_at_run_time(monkeypatch, three):
    monkeypatch.setenv(plugins.ALLOWLIST, "")
    plugins.get_plugin_manager().register(Ages(), name="alpha")
    table = plugin_status()
    assert table[table["name"] == "alpha"][["source", "status"]].values.tolist() == [
        ["entry point fake_anon_plugin_alpha", "disabled"],
        [plugins.RUNTIME, "ok"],
    ]
    assert "test.age" in set(hierarchies()["name"])


def test_an_allowlisted_name_not_installed_is_reported(monkeypatch, three):
    monkeypatch.setenv(plugins.ALLOWLIST, "alpha,italy")
    with pytest.warns(
        AnonWarning,
        match="plugin 'italy' named in PANDAS_ANON_PLUGINS but no installed package provides it",
    ):
        table = plugin_status().set_index("name")
    assert table.loc["italy", "status"] == "not installed"
    assert list(hierarchies()["name"]) == ["alpha.h", *BUILTINS]


def test_the_allowlist_is_read_when_plugins_load(monkeypatch, three):
    monkeypatch.setenv(plugins.ALLOWLIST, "")
    assert list(hierarchies()["name"]) == BUILTINS
    monkeypatch.setenv(plugins.ALLOWLIST, "beta")
    assert list(hierarchies()["name"]) == BUILTINS
    plugins.reset()
    assert list(hierarchies()["name"]) == ["beta.h", *BUILTINS]


# -- lazy loading, with a real installed distribution ----------------------------------------


def test_plugins_load_on_first_use_not_at_import(tmp_path):
    (tmp_path / "fake_lazy_plugin.py").write_text(
        textwrap.dedent("""
        import pandas_anon.plugins.hookspecs
        from pandas_anon.hierarchy import Hierarchy

        @pandas_anon.plugins.hookspecs.hookimpl
        def register_hierarchies(register):
            register("lazy.h", Hierarchy(["a"]), description="lazy", columns=["Lazy"])
        """)
    )
    info = tmp_path / "fake_lazy_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-lazy-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pandas_anon]\nlazy = fake_lazy_plugin\n")
    script = textwrap.dedent("""
        import sys
        import pandas_anon, pandas_anon.plugins.manager, pandas_anon.plugins.registry as registry
        print("fake_lazy_plugin" in sys.modules)
        row = registry.hierarchies().set_index("name").loc["lazy.h"]
        print("fake_lazy_plugin" in sys.modules, row["plugin"], row["source"], row["claims"])
        print(registry.claimed_hierarchy("LAZY"))
        """)
    env = {k: v for k, v in os.environ.items() if k != plugins.ALLOWLIST}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.splitlines() == [
        "False",
        "True lazy fake-lazy-plugin 1.0 ('Lazy',)",
        "lazy.h",
    ]


# -- pandas-anon plugins ----------------------------------------------------------------------


def run_command(capsys, *argv: str) -> tuple[int, str]:
    code = main(["plugins", *argv])
    return code, capsys.readouterr().out


def test_plugins_command_lists_broken_plugins_and_exits_0(monkeypatch, installed, capsys):
    installed.append(entry_point(monkeypatch, "broken", module="pandas_anon_no_such_module"))
    with pytest.warns(AnonWarning, match="plugin 'broken'"):
        plugins.get_plugin_manager().register(Ages(), name="ages")
    code, out = run_command(capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Plugins" and "Hierarchies" in lines
    cells = [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines]
    assert [
        "broken",
        "entry point pandas_anon_no_such_module",
        "broken",
        "ModuleNotFoundError: No module named",
    ] in cells
    assert ["", "", "", "'pandas_anon_no_such_module'"] in cells  # wrapped
    assert ["test.age", "hierarchy", "ages", "ages in decades", "Age, eta"] in cells


def test_plugins_command_json(capsys, pm):
    pm.register(Ages(), name="ages")
    code, out = run_command(capsys, "--format", "json")
    payload = json.loads(out)
    assert code == 0
    assert payload["plugins"][0] == {
        "name": "builtin",
        "source": "built-in",
        "status": "ok",
        "problem": "",
    }
    assert payload["hierarchies"][len(BUILTINS)] == {
        "name": "test.age",
        "kind": "hierarchy",
        "plugin": "ages",
        "source": plugins.RUNTIME,
        "description": "ages in decades",
        "claims": ["Age", "eta"],
    }


def test_a_factory_names_the_columns_it_reads_beside_its_own(pm):
    """A factory taking ``frame=`` names what else it reads (``reads``): those columns of the
    frame, never the column itself nor one the frame lacks; a factory without ``frame=``,
    a hierarchy object or a builder reads none; a failing ``reads`` names the plugin."""

    def by_region(data, *, frame=None):
        return Hierarchy(data.drop_duplicates(), [["*"] * data.nunique()])

    by_region.reads = lambda columns, column: ["region", column, "absent"]

    def failing(data, *, frame=None):
        return by_region(data)

    failing.reads = lambda columns, column: 1 / 0

    def register(register):
        register("test.region", by_region)
        register("test.failing", failing)
        register("test.plain", lambda data: by_region(data))

    pm.register(plugin(register), name="regions")
    columns = ["town", "region", "sex"]
    assert columns_read("test.region", "town", columns) == ("region",)
    assert columns_read("test.plain", "town", columns) == ()
    assert columns_read(by_region, "town", columns) == ()
    with pytest.raises(
        HierarchyError, match=r"'test.failing' of plugin regions .*reads\(\) failed"
    ):
        columns_read("test.failing", "town", columns)

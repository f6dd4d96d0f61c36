"""The pandas-anon-italy plugin: ISTAT data, name matching, the
it.comune hierarchy on the Valle d'Aosta file, and discovery through its entry point.

CI (``CI=true``) installs every plugin under plugins/ before running the suite, so there a
missing plugin fails these tests; elsewhere (the README's bare ``pytest``) they are skipped
until ``pip install -e plugins/pandas-anon-italy``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import os
import re
from importlib.resources import files

import numpy as np
import pandas as pd
import pytest

import pandas_anon

if os.environ.get("CI"):
    import pandas_anon_italy as italy
else:
    italy = pytest.importorskip(
        "pandas_anon_italy", reason="pip install -e plugins/pandas-anon-italy"
    )
from pandas_anon.errors import HierarchyError, InvalidParameterError
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.plugins import manager as plugins
from pandas_anon.plugins.registry import claimed_hierarchy, get_hierarchy, hierarchies

COMUNE = "comune_residenza"
#: The quasi-identifier of Pastore et al. (2020), "Detecting and Generalizing
#: Quasi-Identifiers by Affecting Singletons", section 3.1.
SEED_QID = ["anno_nascita", COMUNE, "sesso"]
STUDY = dict(year="anno_nascita", sex="sesso", place=COMUNE)
# strategies that recode the place of every row (no local recoding)
GLOBAL_PLACE = ["M", "S, M", "M, Y_ran", "M, Y_avg", "S,M,Y_ran", "S,M,Y_avg"]


@pytest.fixture(scope="module")
def comuni() -> pd.DataFrame:
    return italy.load_comuni()


@pytest.fixture(scope="module")
def column(valle_daosta: pd.DataFrame) -> pd.Series:
    return valle_daosta[COMUNE].copy()


@pytest.fixture
def fresh_plugins(monkeypatch):
    """Plugins loaded afresh from the real installed entry points, no allowlist."""
    monkeypatch.delenv(plugins.ALLOWLIST, raising=False)
    plugins.reset()
    yield
    plugins.reset()


def one(spelling: str, **kwargs) -> pd.Series:
    return italy.resolve([spelling], **kwargs).iloc[0]


# -- the shipped ISTAT list -------------------------------------------------------------------


def test_istat_list_is_complete_and_consistent(comuni):
    assert list(comuni.columns) == [
        "codice_istat",
        "comune",
        "comune_italiano",
        "comune_altra_lingua",
        "provincia",
        "sigla",
        "regione",
        "ripartizione",
    ]
    assert len(comuni) == 7_896
    assert comuni["codice_istat"].str.fullmatch(r"\d{6}").all()
    assert comuni["codice_istat"].is_unique
    assert comuni.notna().all().all()
    assert (comuni.drop(columns="comune_altra_lingua") != "").all().all()
    assert (
        comuni["provincia"].nunique(),
        comuni["regione"].nunique(),
        comuni["ripartizione"].nunique(),
    ) == (107, 20, 5)
    # every level nests in the next: one sigla, region and area per province
    assert comuni.groupby("provincia")[["sigla", "regione"]].nunique().eq(1).all().all()
    assert comuni.groupby("regione")["ripartizione"].nunique().eq(1).all()
    assert "?" not in "".join(comuni["comune"])  # characters lost by the source encoding


def test_napoli_code_na_is_text(comuni):
    napoli = comuni[comuni["provincia"] == "Napoli"]
    assert len(napoli) > 0 and (napoli["sigla"] == "NA").all()
    assert comuni["sigla"].map(type).eq(str).all()
    assert one("NAPOLI")["sigla"] == "NA"


def test_shipped_file_matches_its_notice(comuni):
    package = files("pandas_anon_italy")
    raw = (package / "data" / "comuni.csv").read_bytes()
    notice = (package / "NOTICE.md").read_text(encoding="utf-8")
    assert hashlib.sha256(raw).hexdigest() in notice
    assert f"{len(raw):,} bytes" in notice
    assert f"{len(comuni):,}" in notice and "CC BY 4.0" in notice
    raw.decode("utf-8")  # valid UTF-8
    assert "Števerjan" in raw.decode("utf-8") and "Nabrežina" in raw.decode("utf-8")


def test_alias_table_points_at_real_comuni_and_shadows_none(comuni):
    aliases = italy.load_aliases()
    assert list(aliases.columns) == ["alias", "comuni", "sigla", "kind", "note"]
    assert (aliases["note"].str.len() > 20).all()
    official = {
        italy.key(n)
        for c in ("comune", "comune_italiano", "comune_altra_lingua")
        for name in comuni[c]
        for n in [name, *name.split("/")]
        if n
    }
    for alias, targets, sigla in aliases[["alias", "comuni", "sigla"]].itertuples(index=False):
        assert italy.key(alias) not in official, alias  # an alias must not hide a real name
        for target in targets.split("|"):
            assert ((comuni["comune"] == target) & (comuni["sigla"] == sigla)).sum() == 1


# -- normalization and matching ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "normalized"),
    [
        ("Saint-Rhémy-en-Bosses", "SAINT RHEMY EN BOSSES"),
        ("SAINT-RHEMY-EN-BOSSES", "SAINT RHEMY EN BOSSES"),
        ("saint rhemy  en bosses ", "SAINT RHEMY EN BOSSES"),
        ("ANTEY-SAINT-ANDRE'", "ANTEY SAINT ANDRE"),  # E' is È
        ("PRE' SAINT DIDIER", "PRE SAINT DIDIER"),
        ("VALLE-D'AOSTA", "VALLE D AOSTA"),  # an elision apostrophe separates
        ("Valle d’Aosta/Vallée d'Aoste", "VALLE D AOSTA VALLEE D AOSTE"),
        ("Jovençan", "JOVENCAN"),
        ("Eppan an der Weinstraße", "EPPAN AN DER WEINSTRASSE"),
        ("S.GIULIANO DEL SANNIO", "S GIULIANO DEL SANNIO"),
    ],
)
def test_normalize(written, normalized):
    assert italy.normalize(written) == normalized
    assert italy.key(written) == normalized.replace(" ", "")


@pytest.mark.parametrize(
    ("written", "comune", "how"),
    [
        ("Aosta", "Aosta", "exact"),
        ("aosta", "Aosta", "normalized"),
        ("SAINT-RHEMY-EN-BOSSES", "Saint-Rhémy-en-Bosses", "normalized"),
        ("saint rhemy en bosses", "Saint-Rhémy-en-Bosses", "normalized"),
        ("GRESSONEY-LA-TRINITE'", "Gressoney-La-Trinité", "normalized"),
        ("Cortina d’Ampezzo", "Cortina d'Ampezzo", "normalized"),
        ("CHAMP DE PRAZ", "Champdepraz", "normalized"),  # spaces do not count
        # bilingual names: the whole name or either part
        ("Bolzano/Bozen", "Bolzano/Bozen", "exact"),
        ("Bolzano", "Bolzano/Bozen", "exact"),
        ("BOZEN", "Bolzano/Bozen", "normalized"),
        (
            "EPPAN AN DER WEINSTRASSE",
            "Appiano sulla strada del vino/Eppan an der Weinstraße",
            "normalized",
        ),
        ("Sèn Jan", "San Giovanni di Fassa-Sèn Jan", "exact"),
        ("SOVODNJE OB SOCI", "Savogna d'Isonzo-Sovodnje ob Soči", "normalized"),
        ("DUINO AURISINA", "Duino Aurisina-Devin Nabrežina", "normalized"),
        # abbreviations
        ("SS. COSMA E DAMIANO", "Santi Cosma e Damiano", "abbreviation"),
        ("ST. VINCENT", "Saint-Vincent", "abbreviation"),
        ("M.S.ANGELO", "Monte Sant'Angelo", "abbreviation"),
        ("S GIULIANO DEL SANNIO", "San Giuliano del Sannio", "abbreviation"),
    ],
)
def test_spellings_resolve(written, comune, how):
    row = one(written)
    assert (row["comune"], row["how"]) == (comune, how)


@pytest.mark.parametrize(
    ("written", "expected", "sigla", "how"),
    [
        ("VALTOURNENCE", ["Valtournenche"], "AO", "alias"),
        ("VALGRISENCE", ["Valgrisenche"], "AO", "alias"),
        ("RHEMES", ["Rhêmes-Notre-Dame", "Rhêmes-Saint-Georges"], "AO", "ambiguous-same-province"),
        (
            "GRESSONEY",
            ["Gressoney-La-Trinité", "Gressoney-Saint-Jean"],
            "AO",
            "ambiguous-same-province",
        ),
        ("GRESSONAY SAN YEAN", ["Gressoney-Saint-Jean"], "AO", "alias"),
        ("S.GIULIANO DEL SANNIO", ["San Giuliano del Sannio"], "CB", "abbreviation"),
        ("S.GIACOMO D.SCHIAVONI", ["San Giacomo degli Schiavoni"], "CB", "abbreviation"),
        ("MONTENERO V.COCCHIARA", ["Montenero Val Cocchiara"], "IS", "abbreviation"),
        ("BOIANO", ["Bojano"], "CB", "alias"),
    ],
)
def test_the_issues_spellings_resolve(comuni, written, expected, sigla, how):
    row = one(written)
    assert row["comune"].split(" | ") == expected
    assert (row["sigla"], row["how"]) == (sigla, how)
    codes = comuni.set_index("comune").loc[expected, "codice_istat"]
    assert row["codice_istat"].split(" | ") == list(codes)
    province = comuni.loc[comuni["sigla"] == sigla, ["provincia", "regione", "ripartizione"]]
    assert tuple(row[["provincia", "regione", "ripartizione"]]) == tuple(province.iloc[0])


def test_abbreviations_are_tried_only_as_whole_names():
    assert italy.expansions("AOSTA") == []
    readings = italy.expansions("S.GIACOMO D.SCHIAVONI")
    assert "SANGIACOMODEGLISCHIAVONI" in readings
    s_readings, d_readings = len(italy.ABBREVIATIONS["S"]) + 1, len(italy.ABBREVIATIONS["D"]) + 1
    assert len(readings) == s_readings * d_readings  # each also tried as written
    assert one("S. ANGELO")["how"] == "unmatched"  # no comune is called just Sant'Angelo


def test_main_names_win_over_other_language_parts():
    # Corvara (Pescara) against "Corvara", the Ladin part of Corvara in Badia/Corvara (BZ)
    assert tuple(one("CORVARA")[["comune", "sigla"]]) == ("Corvara", "PE")
    assert tuple(one("Corvara in Badia")[["comune", "sigla"]]) == ("Corvara in Badia/Corvara", "BZ")


def test_a_name_of_several_provinces_is_ambiguous_and_within_settles_it(comuni):
    row = one("CASTRO")
    assert row["how"] == "ambiguous" and pd.isna(row["provincia"])
    assert row["comune"] == "Castro (BG) | Castro (LE)"
    assert one("CASTRO", within="LE")["provincia"] == "Lecce"
    assert one("CASTRO", within="Puglia")["provincia"] == "Lecce"
    assert one("Paternò")["how"] == "exact"
    assert one("PATERNO'")["how"] == "ambiguous"  # Paterno (PZ) and Paternò (CT)
    assert one("PATERNO'", within="Sicilia")["comune"] == "Paternò"
    with pytest.raises(InvalidParameterError, match="'Atlantide'"):
        italy.resolve(["CASTRO"], within=["LE", "Atlantide"])


def test_caller_aliases_by_name_or_code():
    table = italy.resolve(
        ["AOSTA CITTA", "BORGO"], aliases={"Aosta citta": "Aosta", "borgo": ["075096"]}
    )
    assert list(table["comune"]) == ["Aosta", "Castro"]
    assert list(table["how"]) == ["alias", "alias"]
    with pytest.raises(InvalidParameterError, match="give its ISTAT code"):
        italy.resolve(["X"], aliases={"X": "Castro"})
    with pytest.raises(InvalidParameterError, match="not an ISTAT comune"):
        italy.resolve(["X"], aliases={"X": "Atlantide"})


# -- the Valle d'Aosta driving-licence file ----------------------------------------------------


def test_all_79_valle_daosta_spellings_resolve_to_one_province(column, comuni):
    table = italy.resolve(column)
    assert len(table) == column.nunique() == 79
    assert table.attrs["unmatched"] == []
    assert table["how"].isin(italy.RESOLVED).all()
    assert (table["sigla"] == "AO").all() and table["provincia"].nunique() == 1
    assert table["rows"].sum() == column.notna().sum()
    # and together they name every comune of the region
    found = {code for codes in table["codice_istat"] for code in codes.split(" | ")}
    assert found == set(comuni.loc[comuni["sigla"] == "AO", "codice_istat"])


def test_hierarchy_from_the_column_generalizes_it(column, comuni):
    hierarchy = italy.comune_hierarchy(column)
    assert hierarchy.name == "it.comune"
    assert hierarchy.level_names == ("comune", "provincia", "regione", "ripartizione", "*")
    assert set(hierarchy.values) == set(column.unique())
    valle = comuni[comuni["sigla"] == "AO"].iloc[0]
    expected = {1: valle["provincia"], 2: valle["regione"], 3: valle["ripartizione"], 4: "*"}
    for level, label in expected.items():
        generalized = hierarchy.generalize(column, level)
        assert generalized.index.equals(column.index) and generalized.name == column.name
        assert (generalized == label).all()
    assert hierarchy.generalize(column, 0).tolist() == column.tolist()


def test_study_gives_the_figures_of_the_datas_own_hierarchy(fresh_plugins, licences, column):
    own = Hierarchy.from_columns(licences, [COMUNE, "provincia_residenza"])
    with_own = pandas_anon.study(licences, SEED_QID, hierarchy=own, **STUDY).table
    with_istat = pandas_anon.study(licences, SEED_QID, hierarchy="it.comune", **STUDY).table
    assert with_istat["singletons"].equals(with_own["singletons"])
    assert with_istat.loc[GLOBAL_PLACE, "distinct"].equals(with_own.loc[GLOBAL_PLACE, "distinct"])
    # The same partition: ISTAT's provinces and the data's correspond one to one, and with
    # ISTAT's labels renamed to the data's the study gives the data's table exactly. (As they
    # are, ISTAT's province label is not spelled like the city of Aosta, so local recoding,
    # M_loc, no longer merges generalized rows with the city's: its distinct and modified
    # counts differ from the data's, its singletons do not.)
    hierarchy = italy.comune_hierarchy(column)
    pairs = pd.DataFrame(
        {"istat": hierarchy.generalize(column, 1), "own": licences["provincia_residenza"]}
    ).drop_duplicates()
    assert pairs["istat"].is_unique and pairs["own"].is_unique
    table = hierarchy.to_frame()
    table["provincia"] = table["provincia"].map(dict(zip(pairs["istat"], pairs["own"])))
    relabelled = Hierarchy.from_frame(table)
    same = pandas_anon.study(licences, SEED_QID, hierarchy=relabelled, **STUDY).table
    pd.testing.assert_frame_equal(same, with_own)


def test_unmatched_values_are_reported_by_name_and_count(column):
    typo = column.replace({"VALTOURNENCHE": "ATLANTIDE", "BARD": "CASTRO"})
    counts = typo.value_counts()
    table = italy.resolve(typo)
    assert table.attrs["unmatched"] == ["ATLANTIDE", "CASTRO"]  # most rows first
    assert table.loc["ATLANTIDE", "how"] == "unmatched"
    assert table.loc["CASTRO", "how"] == "ambiguous"
    assert table["rows"].sum() == len(typo)  # nothing dropped
    with pytest.raises(HierarchyError) as error:
        italy.comune_hierarchy(typo)
    message = str(error.value)
    assert f"'ATLANTIDE' ({counts['ATLANTIDE']:,} rows; closest ISTAT names: " in message
    assert f"'CASTRO' ({counts['CASTRO']:,} rows; fits comuni of several provinces" in message
    assert f"2 value(s) of column {COMUNE!r}" in message
    assert "aliases=" in message and "within=" in message
    fixed = italy.comune_hierarchy(typo, aliases={"ATLANTIDE": "Valtournenche", "CASTRO": "Bard"})
    assert fixed.generalize(typo, 1).nunique() == 1
    not_there = r"'CASTRO' \([\d,]+ rows; closest ISTAT names: Aosta \(AO\) \| .*\(AO\)\)\. Fix"
    with pytest.raises(HierarchyError, match=not_there):  # suggested within the province
        italy.comune_hierarchy(typo, aliases={"ATLANTIDE": "Valtournenche"}, within="AO")


def test_missing_values_stay_missing_and_repeats_are_counted_once(column):
    holes = column.where(column != "ARNAD")  # the real column with one comune blanked
    table = italy.resolve(holes)
    assert "ARNAD" not in table.index and len(table) == 78
    hierarchy = italy.comune_hierarchy(holes)
    generalized = hierarchy.generalize(holes, 1)
    assert generalized.isna().sum() == (column == "ARNAD").sum()
    categorical = italy.comune_hierarchy(column.astype("category"))
    assert categorical.generalize(column, 1).nunique() == 1
    with pytest.raises(HierarchyError, match="no value"):
        italy.comune_hierarchy(pd.Series([np.nan, None], name=COMUNE, dtype=object))


def test_canonical_hierarchy_over_istat_names(comuni):
    hierarchy = italy.comune_hierarchy()
    assert [len(hierarchy.labels(level)) for level in range(hierarchy.n_levels)] == [
        7_896,
        107,
        20,
        5,
        1,
    ]
    assert {"Castro (BG)", "Castro (LE)", "Bolzano/Bozen"} <= set(hierarchy.values)
    names = pd.Series(["Bolzano/Bozen", "Napoli", "Castro (LE)"])
    assert hierarchy.generalize(names, 1).tolist() == ["Bolzano/Bozen", "Napoli", "Lecce"]
    assert hierarchy.generalize(names, 3).tolist() == ["Nord-est", "Sud", "Sud"]


# -- discovery through the entry point ---------------------------------------------------------


def test_the_plugin_is_installed_with_its_entry_point():
    found = {ep.name: ep for ep in metadata.entry_points(group="pandas_anon")}
    assert "italy" in found
    assert found["italy"].value == "pandas_anon_italy"
    assert found["italy"].load() is italy
    assert re.fullmatch(r"pandas-anon-italy", found["italy"].dist.name)


def test_pandas_anon_discovers_it_comune(fresh_plugins, column):
    status = plugins.records()
    assert [(r.name, r.status) for r in status if r.name == "italy"] == [("italy", "ok")]
    listed = hierarchies().set_index("name")
    assert listed.loc["it.comune", "plugin"] == "italy"
    assert listed.loc["it.comune", "kind"] == "factory"
    assert claimed_hierarchy("comune_residenza") == "it.comune"
    assert claimed_hierarchy("Comune") == "it.comune"
    built = get_hierarchy("it.comune", column)
    assert built == italy.comune_hierarchy(column)
    assert built.generalize(column, 1).nunique() == 1
    canonical = get_hierarchy("it.comune")
    assert len(canonical.values) == 7_896


def test_registry_reports_unmatched_spellings(fresh_plugins, column):
    typo = column.replace({"VALTOURNENCHE": "ATLANTIDE"})
    rows = (typo == "ATLANTIDE").sum()
    with pytest.raises(HierarchyError, match=rf"it\.comune.*'ATLANTIDE' \({rows:,} rows; closest"):
        get_hierarchy("it.comune", typo)


@pytest.mark.parametrize("rewrite", ["upper case", "abbreviated"])
def test_every_istat_name_rewritten_finds_its_comune(comuni, rewrite):
    """Each of the 7,896 names, upper-cased (and abbreviated: San/Santa/Santo -> S., the
    articulated di -> D., Val/Valle -> V.), resolves to a set of comuni holding it."""
    written = comuni["comune"].str.upper()
    if rewrite == "abbreviated":
        written = (
            written.str.replace(r"\bSAN(TA|TO)? ", "S.", regex=True)
            .str.replace(r"\b(DEL|DELLA|DELLE|DELLO|DEGLI|DEI) ", "D.", regex=True)
            .str.replace(r"\bVAL(LE)? ", "V.", regex=True)
        )
        assert (written != comuni["comune"].str.upper()).sum() > 700
    table = italy.resolve(written)
    for spelling, code in zip(written, comuni["codice_istat"]):
        assert code in table.loc[spelling, "codice_istat"].split(" | "), spelling
    # the only names that do not resolve are those shared by comuni of several provinces
    ambiguous = table[table["how"] == "ambiguous"]
    assert (table["how"] != "unmatched").all()
    assert ambiguous["comune"].str.count(r"\(").ge(2).all()

"""The matching stages beyond exact names (loose, former, fuzzy), the province column, the
``on_unmatched`` policies, and the shipped former-names table."""

from __future__ import annotations

import hashlib
import os
import warnings
from functools import partial
from importlib.resources import files

import pandas as pd
import pytest

if os.environ.get("CI"):
    import pandas_anon_italy as italy
else:
    italy = pytest.importorskip(
        "pandas_anon_italy", reason="pip install -e plugins/pandas-anon-italy"
    )
from pandas_anon.errors import AnonWarning, HierarchyError, InvalidParameterError

COMUNE = "comune_residenza"


def one(spelling: str, **kwargs) -> pd.Series:
    return italy.resolve([spelling], **kwargs).iloc[0]


def test_stages_are_reported_in_order():
    """The README's order of the stages, and a spelling that a later stage would match too
    reported by the first that does (exact names before abbreviations, loose forms and
    fuzzy scores)."""
    assert italy.RESOLVED == (
        "exact",
        "normalized",
        "alias",
        "abbreviation",
        "loose",
        "former",
        "fuzzy",
        "ambiguous-same-province",
    )
    assert set(italy.HOWS) - set(italy.RESOLVED) == {"ambiguous", "unmatched"}
    table = italy.resolve(["Valtournenche", "VALTOURNENCHE", "S. VINCENT", "VALTURNENCHE"])
    assert table["how"].tolist() == ["exact", "normalized", "abbreviation", "fuzzy"]


@pytest.mark.parametrize(
    ("written", "comune", "sigla", "how"),
    [
        # particles dropped or changed, S.TA, letter variants
        ("CASSANO ADDA", "Cassano d'Adda", "MI", "loose"),
        ("CASSANO DI ADDA", "Cassano d'Adda", "MI", "loose"),
        ("S.TA MARIA DI LICODIA", "Santa Maria di Licodia", "CT", "abbreviation"),
        ("S.TA MARIA LICODIA", "Santa Maria di Licodia", "CT", "loose"),
        ("SANTA MARIA LICODIA", "Santa Maria di Licodia", "CT", "loose"),
        ("S. VINCENT", "Saint-Vincent", "AO", "abbreviation"),
        ("JERZU", "Jerzu", "NU", "normalized"),
        ("GESI", "Jesi", "AN", "loose"),
        ("GERZU", "Jerzu", "NU", "loose"),
        # former names (ANPR): renamed, merged since 1990
        ("SPACCAFORNO", "Ispica", "RG", "former"),
        ("Valvasone", "Valvasone Arzene", "PN", "former"),
        # typos: one letter off in a long name
        ("VALTURNENCHE", "Valtournenche", "AO", "fuzzy"),
        ("SAN BENEDETTTO VAL DI SAMBRO", "San Benedetto Val di Sambro", "BO", "fuzzy"),
    ],
)
def test_later_stages_resolve(written, comune, sigla, how):
    row = one(written)
    assert (row["comune"], row["sigla"], row["how"]) == (comune, sigla, how)
    assert (row["how"] == "fuzzy") == (row["score"] >= italy.FUZZY_THRESHOLD)


def test_fuzzy_needs_its_length_its_threshold_and_its_margin():
    short = one("BARDD")  # too short to guess
    assert short["how"] == "unmatched" and short["suggestions"].startswith("Bard (AO) | Bardi (PR)")
    assert one("DONNASS")["how"] == "unmatched"  # Donnas: 92, but 7 letters
    assert one("VALTURNENCHE")["score"] >= italy.FUZZY_THRESHOLD
    assert one("VALTURNNENCCHEE")["how"] == "unmatched"  # three letters off: under threshold
    ahead = one("CASTELNUOVO DEL FRIULLI")  # two letters off, well ahead of the next
    assert ahead["how"] == "fuzzy" and ahead["comune"] == "Castelnovo del Friuli"
    twins = one("SAN TEODOROO")  # close to both comuni named San Teodoro: no margin
    assert twins["how"] == "unmatched"
    assert set(twins["suggestions"].split(" | ")[:2]) == {"San Teodoro (ME)", "San Teodoro (SS)"}
    assert one("SAN TEODOROO", within="ME")["comune"] == "San Teodoro"  # one candidate left


def test_unmatched_values_get_istat_suggestions_only():
    table = italy.resolve(["ATLANTIDE", "AOSTA"])
    assert table.loc["AOSTA", "suggestions"] != table.loc["AOSTA", "suggestions"]  # NaN
    suggested = table.loc["ATLANTIDE", "suggestions"].split(" | ")
    assert len(suggested) == italy.SUGGESTIONS
    labels = set(italy.load_comuni().pipe(lambda c: c["comune"] + " (" + c["sigla"] + ")"))
    assert set(suggested) <= labels


def test_province_column_narrows_each_row():
    table = italy.resolve(
        ["CASTRO", "PATERNO", "VILLACIDRO", "AOSTA", "BARDD"],
        province=["LECCE", "CT", "CAGLIARI", "AOSTA", None],
    )
    assert list(table["comune"].iloc[:4]) == ["Castro", "Paternò", "Villacidro", "Aosta"]
    assert list(table["by_province"]) == [True, True, False, True, False]
    # a province that predates a reorganization does not stop a national match
    assert table.loc["VILLACIDRO", "sigla"] == "SU"
    assert table.loc["BARDD", "how"] == "unmatched"


def test_with_a_province_the_fuzzy_stage_stays_in_it():
    # a typo of Valtournenche (AO) in a row of province Torino: not guessed elsewhere
    row = one("VALTURNENCHE", province=["TO"])
    assert row["how"] == "unmatched"
    assert row["suggestions"].endswith("(TO)")  # suggested from the row's province
    assert one("VALTURNENCHE", province=["AO"])[["how", "by_province"]].tolist() == [
        "fuzzy",
        True,
    ]


def test_a_spelling_seen_in_two_provinces_is_ambiguous():
    row = italy.resolve(["CASTRO", "CASTRO"], province=["LE", "BG"]).iloc[0]
    assert row["how"] == "ambiguous" and row["rows"] == 2


def test_province_must_align_with_the_values():
    with pytest.raises(InvalidParameterError, match="one per row"):
        italy.resolve(["AOSTA", "AOSTA"], province=["AO"])


def test_province_column_of_the_valle_daosta_file(valle_daosta):
    table = italy.resolve(valle_daosta[COMUNE], province=valle_daosta["provincia_residenza"])
    assert table["how"].isin(italy.RESOLVED).all() and table["by_province"].all()
    without = italy.resolve(valle_daosta[COMUNE])
    assert (table["sigla"] == "AO").all()
    assert table["comune"].equals(without["comune"])  # the province confirms every match


@pytest.fixture
def typo_column(valle_daosta) -> pd.Series:
    return valle_daosta[COMUNE].replace({"BARD": "ATLANTIDE", "ARNAD": "CASTRO"})


def test_on_unmatched_generalize_sends_them_to_the_top(typo_column):
    bad = typo_column.isin(["ATLANTIDE", "CASTRO"])
    counted = f"2 values, {int(bad.sum()):,} rows, matching no single ISTAT comune"
    with pytest.warns(AnonWarning, match=f"of column 'comune_residenza': {counted}"):
        hierarchy = italy.comune_hierarchy(typo_column, on_unmatched="generalize")
    provinces = hierarchy.generalize(typo_column, 1)
    assert (provinces[bad] == "*").all()
    # the count goes into every report of a release using the hierarchy, never the values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonWarning)
        out = typo_column.to_frame().anon.generalize({COMUNE: (hierarchy, 1)})
    described = out.anon.report().columns[COMUNE]["hierarchy"]
    assert described == f"it.comune ({counted}: generalized to * (on_unmatched='generalize'))"
    assert "ATLANTIDE" not in str(out.anon.report())
    assert provinces[~bad].nunique() == 1


def test_on_unmatched_keep_keeps_each_value(typo_column):
    with pytest.warns(AnonWarning, match="kept as its own label"):
        hierarchy = italy.comune_hierarchy(typo_column, on_unmatched="keep")
    for level in (1, 2, 3):
        generalized = hierarchy.generalize(typo_column, level)
        assert (generalized[typo_column == "ATLANTIDE"] == "ATLANTIDE").all()
    assert (hierarchy.generalize(typo_column, 4) == "*").all()


def test_a_kept_value_named_as_a_province_or_region_stays_apart_from_it():
    """An unmatched value bearing the name of a province or region of the matched ones
    (LOMBARDIA where a comune was expected) keeps its own class at every level, marked, and
    never merges with the real one."""
    column = pd.Series(["Milano", "LOMBARDIA", "Lombardia", "Nord-ovest", "ATLANTIDE", "Como"])
    with pytest.warns(AnonWarning, match="kept as its own label"):
        hierarchy = italy.comune_hierarchy(column, on_unmatched="keep")
    regions = hierarchy.generalize(column, 2).tolist()
    assert regions == [
        "Lombardia",
        "LOMBARDIA",
        f"Lombardia{italy.KEPT_SUFFIX}",
        f"Nord-ovest{italy.KEPT_SUFFIX}",
        "ATLANTIDE",
        "Lombardia",
    ]
    assert hierarchy.generalize(column, 3).tolist()[:4] == [
        "Nord-ovest",
        "LOMBARDIA",
        f"Lombardia{italy.KEPT_SUFFIX}",
        f"Nord-ovest{italy.KEPT_SUFFIX}",
    ]


def test_on_unmatched_error_is_the_default_and_checked(typo_column):
    with pytest.raises(HierarchyError, match="on_unmatched="):
        italy.comune_hierarchy(typo_column)
    with pytest.raises(InvalidParameterError, match="on_unmatched"):
        italy.comune_hierarchy(typo_column, on_unmatched="drop")


def test_options_reach_a_spec_through_a_builder(valle_daosta):
    frame = valle_daosta[[COMUNE, "provincia_residenza"]].copy()
    frame[COMUNE] = frame[COMUNE].replace({"BARD": "ATLANTIDE"})
    with pytest.raises(HierarchyError):
        frame.anon.generalize({COMUNE: ("it.comune", 1)})
    build = partial(
        italy.comune_hierarchy, province=frame["provincia_residenza"], on_unmatched="generalize"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonWarning)
        out = frame.anon.generalize({COMUNE: (build, 1)})
    assert set(out[COMUNE].unique()) == {"Valle d'Aosta/Vallée d'Aoste", "*"}


# -- the former-names table ---------------------------------------------------------------------


def test_former_names_point_at_current_comuni_and_shadow_none():
    former = italy.load_former_names()
    comuni = italy.load_comuni()
    assert list(former.columns) == ["name", "codice_istat", "sigla_then", "from", "to", "kind"]
    assert former["codice_istat"].isin(comuni["codice_istat"]).all()
    assert set(former["kind"]) == {"renamed", "merged"}
    assert (former["to"] >= "1990-01-01").where(former["kind"] == "merged", True).all()
    current = {
        italy.key(part)
        for name in comuni["comune"]
        for part in [name, *name.replace("-", "/").split("/")]
    }
    assert not set(former["name"].map(italy.key)) & current


def test_former_names_file_matches_its_notice():
    package = files("pandas_anon_italy")
    raw = (package / "data" / "former_names.csv").read_bytes()
    notice = (package / "NOTICE.md").read_text(encoding="utf-8")
    former = italy.load_former_names()
    assert hashlib.sha256(raw).hexdigest() in notice
    assert f"{len(raw):,} bytes" in notice and f"{len(former):,} former names" in notice


def test_the_frames_province_column_is_used_without_configuration():
    """A spelling that names comuni of several provinces (CASTRO: Lecce and Bergamo) is
    refused alone, and resolved when the frame has its rows' province, which the registered
    it.comune reads by itself (kanon, generalize) and names in the report."""
    frame = pd.DataFrame(
        {
            "comune_residenza": ["CASTRO", "CASTRO", "AOSTA", "AOSTA"],
            "provincia_residenza": ["LECCE", "LECCE", "AOSTA", "AOSTA"],
            "provincia_nascita": ["ROMA", "MILANO", "TORINO", "AOSTA"],
        }
    )
    assert italy.province_column(frame, "comune_residenza") == "provincia_residenza"
    assert italy.province_column(frame[["comune_residenza"]], "comune_residenza") is None
    with pytest.raises(HierarchyError, match="fits comuni of several provinces"):
        frame[["comune_residenza"]].anon.generalize({COMUNE: ("it.comune", 1)})
    out = frame.anon.generalize({COMUNE: ("it.comune", 1)})
    aosta = "Valle d'Aosta/Vallée d'Aoste"  # ISTAT's name of the province
    assert out[COMUNE].tolist() == ["Lecce", "Lecce", aosta, aosta]
    assert out.anon.report().columns[COMUNE]["hierarchy"] == (
        "it.comune (matched within the provinces of column 'provincia_residenza')"
    )


@pytest.mark.parametrize("method", ["generalize", "kanon"])
def test_on_a_dask_frame_the_province_column_is_read_too(method):
    """The factory names the province column it reads (``reads``), so a Dask frame's digest
    holds it: CASTRO in Lecce rows resolves as on pandas, the report naming the column, and
    the output equals pandas's."""
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame(
        {
            "comune_residenza": ["CASTRO", "CASTRO", "AOSTA", "AOSTA"] * 3,
            "provincia_residenza": ["LECCE", "LECCE", "AOSTA", "AOSTA"] * 3,
            "anno": [1950, 1960, 1970, 1980] * 3,
        }
    )
    assert italy.frame_hierarchy.reads(list(frame.columns), COMUNE) == ["provincia_residenza"]
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)

    def run(data):
        if method == "generalize":
            return data.anon.generalize({COMUNE: ("it.comune", 1)})
        return data.anon.kanon(3, qid=[COMUNE, "anno"], hierarchies={COMUNE: "it.comune"})

    expected, out = run(ddf.compute()), run(ddf)
    pd.testing.assert_frame_equal(out.compute(), expected)
    described = "it.comune (matched within the provinces of column 'provincia_residenza')"
    report = out.anon.report()
    assert described in str(report.to_dict()) and described in str(expected.anon.report().to_dict())

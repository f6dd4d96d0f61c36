"""Two real datasets shipped with pandas-anon, for examples, tests and benchmarks.

**Italian driving licences, Valle d'Aosta** (:func:`load_driver_licenses`): 87,642 licence
holders resident in Valle d'Aosta, published as open data by the Italian Ministry of
Infrastructure and Transport (downloaded October 2019, before the ministry cut the published
columns in January 2020) and mirrored in the public repository
``isislab-unisa/driver-license-datasets``. It is the Valle d'Aosta column of Table 1 of Pastore,
Pellegrino, Scarano, "Detecting and Generalizing Quasi-Identifiers by Affecting Singletons"
(CeDEM/EGOV 2020, CEUR-WS Vol-2797 paper32): the
quasi-identifier (``anno_nascita``, ``comune_residenza``, ``sesso``) has 9,174 distinct
combinations over the 87,464 rows complete in those columns, 1,684 of them singletons (1.93%).
This is an "already anonymised" public release in which about 2% of people are unique.

**UCI Adult** (:func:`load_adult`, :func:`load_adult_hierarchy`): the 30,162-row, 9-attribute
version of the 1994 US census extract (Becker & Kohavi, 1996) distributed with the ARX
anonymization tool, with ARX's generalization hierarchy for every attribute; the standard
benchmark of the k-anonymity literature.

The files are stored byte for byte as published, only compressed; provenance, licences and
checksums are in ``NOTICE.md`` next to this module and in ``docs/datasets.md``.
"""

from __future__ import annotations

import sys
from importlib.resources import files
from typing import TYPE_CHECKING

import pandas as pd

from pandas_anon.errors import UnknownNameError

if TYPE_CHECKING:  # only the annotation needs it; importlib.resources.abc is Python >= 3.11
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

__all__ = [
    "ADULT_HIERARCHY_ATTRIBUTES",
    "load_adult",
    "load_adult_hierarchies",
    "load_adult_hierarchy",
    "load_driver_licenses",
]

#: Adult attributes that have a hierarchy: all nine columns, in the file's column order.
ADULT_HIERARCHY_ATTRIBUTES: tuple[str, ...] = (
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
)

_DRIVER_DATE_COLUMNS = ["data_rilascio", "data_abilitazione_a", "data_scadenza"]
_DRIVER_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"  # every date in the file; the time is always 00:00:00


def _data(name: str) -> Traversable:
    """Locate a packaged data file (works from a source tree, a wheel or a zip import)."""
    return files(__name__) / "data" / name


def load_driver_licenses(*, parse_dates: bool = True) -> pd.DataFrame:
    """Load the Valle d'Aosta driving-licence table: 87,642 rows, 14 columns in file order.

    ``id`` and ``punti_patente`` are int64, ``anno_nascita`` is nullable ``Int64`` (one row has no
    year), the other columns are text in pandas' default string dtype, with empty cells missing
    (``stato_estero_nascita`` and ``stato_estero_primo_rilascio`` are empty for people born and
    first licensed in Italy; ``sesso`` is empty in 177 rows). With ``parse_dates`` (the default)
    ``data_rilascio``, ``data_abilitazione_a`` and ``data_scadenza`` are datetime64 (three
    ``data_rilascio`` are NaT); without it they stay ``"YYYY-MM-DD HH:MM:SS"`` strings.
    """
    with _data("driver_licenses_valle_daosta.csv.xz").open("rb") as fh:
        return pd.read_csv(
            fh,
            compression="xz",
            dtype={"id": "int64", "anno_nascita": "Int64", "punti_patente": "int64"},
            parse_dates=_DRIVER_DATE_COLUMNS if parse_dates else None,
            date_format=_DRIVER_DATE_FORMAT if parse_dates else None,
        )


def load_adult() -> pd.DataFrame:
    """Load ARX's UCI Adult table: 30,162 rows, no missing values.

    Columns in file order (:data:`ADULT_HIERARCHY_ATTRIBUTES`); ``age`` is int64, the rest text.
    """
    with _data("adult.csv.xz").open("rb") as fh:
        return pd.read_csv(fh, compression="xz", sep=";", dtype={"age": "int64"})


def load_adult_hierarchy(attribute: str) -> pd.DataFrame:
    """Load ARX's generalization hierarchy for one Adult attribute.

    One row per original value, columns ``level_0`` (the value itself) to ``level_<n>`` (always
    ``"*"``), every cell a string. ``age`` too: its ``level_0`` holds ``"1"`` ... ``"100"``, so
    match it against ``load_adult()["age"].astype(str)`` or convert it before joining. Cells are
    read literally (no value is turned into NaN). An ``attribute`` without a hierarchy raises
    :class:`~pandas_anon.errors.UnknownNameError` (a ``KeyError``) naming the valid ones.
    """
    if attribute not in ADULT_HIERARCHY_ATTRIBUTES:
        raise UnknownNameError(attribute, ADULT_HIERARCHY_ATTRIBUTES, kind="Adult attribute")
    with _data(f"adult_hierarchy_{attribute}.csv").open("rb") as fh:
        table = pd.read_csv(fh, sep=";", header=None, dtype=str, keep_default_na=False)
    table.columns = [f"level_{i}" for i in range(table.shape[1])]
    return table


def load_adult_hierarchies() -> dict[str, pd.DataFrame]:
    """Load all nine Adult hierarchies, in :data:`ADULT_HIERARCHY_ATTRIBUTES` order."""
    return {attribute: load_adult_hierarchy(attribute) for attribute in ADULT_HIERARCHY_ATTRIBUTES}

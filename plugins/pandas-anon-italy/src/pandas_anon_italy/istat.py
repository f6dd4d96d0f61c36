"""The shipped ISTAT list of comuni and the alias table, read once per process."""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

import pandas as pd

__all__ = ["COLUMNS", "load_aliases", "load_comuni"]

#: Columns of ``data/comuni.csv``, in file order.
COLUMNS = (
    "codice_istat",
    "comune",
    "comune_italiano",
    "comune_altra_lingua",
    "provincia",
    "sigla",
    "regione",
    "ripartizione",
)


def _read(name: str) -> pd.DataFrame:
    # every column is text, read literally: Napoli's province code "NA" must stay "NA"
    with (files(__package__) / "data" / name).open("rb") as fh:
        return pd.read_csv(fh, dtype=str, keep_default_na=False, encoding="utf-8")


@lru_cache(maxsize=1)
def _comuni() -> pd.DataFrame:
    return _read("comuni.csv")


@lru_cache(maxsize=1)
def _aliases() -> pd.DataFrame:
    return _read("aliases.csv")


def load_comuni() -> pd.DataFrame:
    """ISTAT's list of Italian comuni: one row per comune, all columns text.

    ``codice_istat`` (6 digits), ``comune`` (the official name, both languages where there are
    two: ``Bolzano/Bozen``, ``Duino Aurisina-Devin Nabrežina``), ``comune_italiano``,
    ``comune_altra_lingua`` (empty when there is one name), ``provincia`` (the statistical
    province: province, metropolitan city, free consortium or, in Friuli-Venezia Giulia, former
    province), ``sigla`` (its two-letter code; ``"NA"`` is Napoli), ``regione``,
    ``ripartizione`` (geographic area: Nord-ovest, Nord-est, Centro, Sud, Isole).
    Provenance and licence: the package's ``NOTICE.md``.
    """
    return _comuni().copy()


def load_aliases() -> pd.DataFrame:
    """The alias table: ``alias`` (a spelling as found in real files), ``comuni`` (the ISTAT
    name(s) it stands for, ``|``-separated), ``sigla`` (their province), ``kind`` and ``note``
    (why the alias holds, with its source)."""
    return _aliases().copy()

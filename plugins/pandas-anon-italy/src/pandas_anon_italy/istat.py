"""The shipped ISTAT list of comuni, the alias table and the former names, read once per
process."""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

import pandas as pd

__all__ = ["COLUMNS", "load_aliases", "load_comuni", "load_former_names"]

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


@lru_cache(maxsize=1)
def _former_names() -> pd.DataFrame:
    return _read("former_names.csv")


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


def load_former_names() -> pd.DataFrame:
    """Former names of today's comuni (ANPR's historical archive, ``data/former_names.csv``):
    ``name`` (as ANPR writes it), ``codice_istat`` (the ISTAT comune it is part of today),
    ``sigla_then`` (its province then), ``from`` and ``to`` (the period the name was in force,
    ``YYYY-MM-DD``), ``kind`` (``renamed``: the same comune under another name, or one that
    absorbed others and kept its code; ``merged``: merged into the comune since 1990).
    How it was built: ``tools/build_former_names.py``; provenance and licence: ``NOTICE.md``."""
    return _former_names().copy()

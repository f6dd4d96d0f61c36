"""Configuration of ``pandas-anon check``: defaults plus per-glob rules, in TOML.

In ``pyproject.toml`` under ``[tool.pandas_anon]``, or at the top level of a
``.pandas-anon.toml``::

    [tool.pandas_anon]
    qid = ["anno_nascita", "comune_residenza", "sesso"]
    max_singletons = "1%"          # or a count: 10
    keep_missing = true            # false: rows missing a QID value are dropped, not counted
    allow_identifiers = ["id"]     # columns unique on every row that may be published

    [[tool.pandas_anon.rules]]
    files = ["aggregati/*.csv"]
    counts = ["m", "f"]            # count tables: one count column per category (or count = "n")
    dimension = "sesso"            # what those columns spell (a dimension a QID may name)
    min_count = 5                  # every published count is 0 or at least 5

    [[tool.pandas_anon.rules]]
    files = ["patenti/*.csv", "*.tsv"]
    delimiter = ";"
    encoding = "latin-1"
    k = 5

    [[tool.pandas_anon.rules]]
    files = ["codici/*.txt"]
    header = false                 # the first line is a row (default: detected)

    [[tool.pandas_anon.rules]]
    files = "aggregates/*"
    skip = true

Settings of a file: built-in defaults < the table's own keys < every rule whose ``files``
match, in order < the command line. ``files`` patterns are shell globs matched against the
path relative to the configuration's folder (``*`` also crosses ``/``); a table inside a file
(``data.zip:__MACOSX/._a.csv``, ``book.xlsx:Foglio1``) is matched by its own name and by the
names of the files holding it, so a rule can skip one member of an archive. Unknown keys and
values of the wrong kind are :class:`~pandas_anon.errors.ConfigError`\\ s naming the file.
Without ``--config``, the first ``.pandas-anon.toml`` or ``pyproject.toml`` holding
``[tool.pandas_anon]`` found from the current folder up to the repository root is used.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from pandas_anon.detect.exposure import MAX_SIZE
from pandas_anon.detect.subsets import MAX_SUBSETS
from pandas_anon.errors import ConfigError
from pandas_anon.gate import limits as reading
from pandas_anon.gate.counts import CountTable
from pandas_anon.gate.pandera_checks import Limits
from pandas_anon.params import fraction, from_text, whole

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover  (Python 3.10)
    import tomli as tomllib

#: Configuration files looked for in each folder, in this order.
NAMES = (".pandas-anon.toml", "pyproject.toml")


@dataclass(frozen=True)
class Settings:
    """What ``check`` does with one file."""

    qid: tuple[str, ...] | None = None
    max_count: int | None = None
    max_fraction: float | None = None
    k: int | None = None
    #: a sample of a population of this size, or this share of it (judged by its estimated
    #: population uniques: pandas_anon.gate.pandera_checks.Limits)
    population: int | None = None
    sampling_fraction: float | None = None
    max_size: int = MAX_SIZE
    #: the most column subsets the election examines (no QID configured) before failing
    max_subsets: int = MAX_SUBSETS
    delimiter: str | None = None
    encoding: str | None = None
    #: whether delimited text has a header row (None: detected, pandas_anon.gate.io)
    header: bool | None = None
    keep_missing: bool = True
    allow_identifiers: tuple[str, ...] = ()
    skip: bool = False
    count: str | None = None
    counts: tuple[str, ...] | None = None
    dimension: str | None = None
    min_count: int | None = None
    engine: str = "pandas"  # "dask": a folder of Parquet files or a glob of CSVs, on Dask
    # what reading the file may cost (pandas_anon.gate.limits.InputLimits)
    max_expanded_size: int = reading.DEFAULTS.max_expanded_size
    max_ratio: float = reading.DEFAULTS.max_ratio
    max_document_size: int = reading.DEFAULTS.max_document_size
    max_line_length: int = reading.DEFAULTS.max_line_length
    max_cells: int = reading.DEFAULTS.max_cells
    max_sheet_cells: int = reading.DEFAULTS.max_sheet_cells

    def limits(self) -> Limits:
        return Limits(
            self.max_count, self.max_fraction, self.k, self.population, self.sampling_fraction
        )

    def input_limits(self) -> reading.InputLimits:
        """The limits on reading the file (:mod:`pandas_anon.gate.limits`)."""
        return reading.InputLimits(
            self.max_expanded_size,
            self.max_ratio,
            self.max_document_size,
            self.max_line_length,
            self.max_cells,
            self.max_sheet_cells,
        )

    def count_table(self) -> CountTable | None:
        """How the file counts people, when it is an aggregated table (None: one row per
        person); a :class:`~pandas_anon.errors.ConfigError` for count settings that do not
        fit together."""
        if (self.count, self.counts, self.dimension, self.min_count) == (None,) * 4:
            return None
        return CountTable(self.count, self.counts, self.dimension, self.min_count)


# -- one key: a raw TOML or command-line value -> Settings fields (ValueError says why not) -----


def _names(key: str) -> Callable[[object], dict]:
    """A list of column names, or their comma-separated text."""

    def parse(value: object) -> dict:
        names = value.split(",") if isinstance(value, str) else value
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(
                'expected column names, e.g. ["year", "town", "sex"] or "year,town,sex"'
            )
        names = [n.strip() for n in names if n.strip()]
        if not names or len(set(names)) != len(names):
            raise ValueError("expected at least one column name, each named once")
        return {key: tuple(names)}

    return parse


#: What ``engine`` may name: where a file is read and counted.
ENGINES = ("pandas", "dask")


def _engine(value: object) -> dict:
    """``pandas`` (one file at a time, in this process) or ``dask`` (a folder of Parquet
    files or a glob of delimited files, counted where Dask's partitions are)."""
    if value not in ENGINES:
        raise ValueError(f"expected one of {', '.join(ENGINES)}, got {value!r}")
    return {"engine": value}


def _max_singletons(value: object) -> dict:
    """``"0.5%"`` (of the rows examined, as :func:`~pandas_anon.params.fraction` reads it) or a
    count (``10`` or ``"10"``). A bare ``0.5`` is refused: a share or a count?"""
    try:
        if isinstance(value, str) and value.strip().endswith("%"):
            return {"max_count": None, "max_fraction": fraction(value, "max_singletons")}
        return {"max_count": whole(from_text(value), "max_singletons", low=0), "max_fraction": None}
    except ValueError:
        raise ValueError(
            f'max_singletons must be a percentage of the rows examined such as "0.5%", or a '
            f"count of singletons such as 10, got {value!r}"
        ) from None


def _population(value: object) -> dict:
    """The size of the population the table was drawn from (a whole number); it replaces a
    ``sampling_fraction`` given elsewhere (the configuration, or the command line)."""
    return {"population": whole(value, "population", example=1_000_000), "sampling_fraction": None}


def _sampling_fraction(value: object) -> dict:
    """The table's share of its population, in (0, 1] (``0.1`` or ``"10%"``); it replaces a
    ``population`` given elsewhere."""
    return {"sampling_fraction": fraction(value, "sampling_fraction"), "population": None}


def _whole(name: str, example: int) -> Callable[[object], dict]:
    """A whole number of at least 1, as the API takes it (a TOML integer, not text; the
    command line reads its text first)."""

    def parse(value: object) -> dict:
        return {name: whole(value, name, example=example)}

    return parse


def _limit(name: str, parse: Callable[[object, str], float]) -> Callable[[object], dict]:
    """A limit on reading (:mod:`pandas_anon.gate.limits`): a size in bytes, a ratio or a
    number of cells."""

    def parse_key(value: object) -> dict:
        return {name: parse(value, name)}

    return parse_key


def _count(value: object) -> dict:
    """One count column: a table of cells, each counting the people it holds."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f'expected the name of the count column, e.g. "n", got {value!r}')
    return {"count": value.strip(), "counts": None}  # the one form replaces the other


def _counts(value: object) -> dict:
    """Several count columns, one per category (``m``, ``f``)."""
    names = _names("counts")(value)["counts"]
    return {"counts": names, "count": None}


def _name(key: str, example: str) -> Callable[[object], dict]:
    def parse(value: object) -> dict:
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f'expected a column name, e.g. "{example}", got {value!r}')
        return {key: value.strip()}

    return parse


def _delimiter(value: object) -> dict:
    if not isinstance(value, str) or len(value.encode("utf-8")) != 1:
        raise ValueError(f"expected one ASCII character such as ',' ';' or a tab, got {value!r}")
    return {"delimiter": value}


def _encoding(value: object) -> dict:
    try:
        codecs.lookup(value if isinstance(value, str) else "")
    except LookupError:
        raise ValueError(
            f'expected a Python codec name such as "utf-8" or "latin-1", got {value!r}'
        ) from None
    return {"encoding": value}


def _flag(name: str) -> Callable[[object], dict]:
    def parse(value: object) -> dict:
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {value!r}")
        return {name: value}

    return parse


KEYS: dict[str, Callable[[object], dict]] = {
    "qid": _names("qid"),
    "max_singletons": _max_singletons,
    "k": _whole("k", 5),
    "population": _population,
    "sampling_fraction": _sampling_fraction,
    "max_size": _whole("max_size", MAX_SIZE),
    "max_subsets": _whole("max_subsets", MAX_SUBSETS),
    "delimiter": _delimiter,
    "encoding": _encoding,
    "header": _flag("header"),
    "keep_missing": _flag("keep_missing"),
    "allow_identifiers": _names("allow_identifiers"),
    "count": _count,
    "counts": _counts,
    "dimension": _name("dimension", "sex"),
    "min_count": _whole("min_count", 5),
    "engine": _engine,
    "max_expanded_size": _limit("max_expanded_size", reading.byte_size),
    "max_ratio": _limit("max_ratio", reading.ratio),
    "max_document_size": _limit("max_document_size", reading.byte_size),
    "max_line_length": _limit("max_line_length", reading.byte_size),
    "max_cells": _limit("max_cells", reading.cell_count),
    "max_sheet_cells": _limit("max_sheet_cells", reading.cell_count),
}
RULE_KEYS: dict[str, Callable[[object], dict]] = {**KEYS, "skip": _flag("skip")}


def parse_values(
    raw: Mapping[str, object],
    keys: Mapping[str, Callable[[object], dict]],
    where: str,
    *,
    also: tuple[str, ...] = (),
) -> dict:
    """Settings fields from the raw values of a table; a ConfigError naming ``where`` for an
    unknown key (``also``: other keys the table may hold) or a bad value."""
    values: dict = {}
    for key, value in raw.items():
        if key not in keys:
            valid = ", ".join(sorted([*keys, *also]))
            raise ConfigError(f"{where}: unknown key {key!r}; valid keys: {valid}")
        try:
            values.update(keys[key](value))
        except ValueError as problem:  # "k must be ..." names the key already
            named = str(problem).startswith(f"{key} ")
            raise ConfigError(
                f"{where}: {problem}" if named else f"{where}: {key}: {problem}"
            ) from None
    return values


# -- files --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """Settings for the files matching any of ``patterns``."""

    patterns: tuple[str, ...]
    values: dict

    def matches(self, relative: str) -> bool:
        return any(fnmatchcase(relative, pattern) for pattern in self.patterns)


@dataclass(frozen=True)
class Config:
    """A loaded configuration (empty when no file was found)."""

    path: Path | None = None
    defaults: dict = field(default_factory=dict)
    rules: tuple[Rule, ...] = ()

    def settings(
        self, file: str, command_line: Mapping[str, object], *, within: Sequence[str] = ()
    ) -> Settings:
        """The settings of ``file``: defaults, matching rules, then ``command_line`` fields.

        ``within``: the files holding ``file`` when it is a table inside one
        (``data.zip`` for ``data.zip:a.csv``, also ``data.zip:inner.zip`` for
        ``data.zip:inner.zip:a.csv``): a rule matching any of them or ``file`` itself applies,
        so that ``files = "data.zip:__MACOSX/*"`` with ``skip = true`` skips those members.
        """
        merged = dict(self.defaults)
        names = [self._relative(name) for name in (*within, file)]
        for rule in self.rules:
            if any(rule.matches(name) for name in names):
                merged.update(rule.values)
        merged.update(command_line)
        return Settings(**merged)

    def _relative(self, file: str) -> str:
        if self.path is None:
            return Path(file).as_posix()
        try:
            return Path(file).resolve().relative_to(self.path.parent.resolve()).as_posix()
        except ValueError:  # outside the configuration's folder: match the path as given
            return Path(file).as_posix()


def load_config(path: str | None = None, start: Path | None = None) -> Config:
    """The configuration at ``path``, else the one found from ``start`` (default: the current
    folder) up to the repository root, else an empty one."""
    found = Path(path) if path is not None else find_config(start or Path.cwd())
    if found is None:
        return Config()
    document = _read_toml(found)
    if found.name == "pyproject.toml":
        if "pandas_anon" not in document.get("tool", {}):
            raise ConfigError(f"{found} has no [tool.pandas_anon] table")
        table, section = document["tool"]["pandas_anon"], "[tool.pandas_anon]"
    else:
        table, section = document, "top level"
    if not isinstance(table, dict):
        raise ConfigError(f"{found}: {section} must be a table of settings")
    return _parse(found, table, section)


def find_config(start: Path) -> Path | None:
    """The first configuration file from ``start`` upward, stopping at a git repository root."""
    for folder in (start, *start.parents):
        for name in NAMES:
            candidate = folder / name
            if candidate.is_file() and (name != "pyproject.toml" or _configures_us(candidate)):
                return candidate
        if (folder / ".git").exists():
            return None
    return None


def _configures_us(pyproject: Path) -> bool:
    return "pandas_anon" in _read_toml(pyproject).get("tool", {})


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path} cannot be read: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None


def _parse(path: Path, table: dict, section: str) -> Config:
    own = {key: value for key, value in table.items() if key != "rules"}
    defaults = parse_values(own, KEYS, f"{path}: {section}", also=("rules",))
    raw_rules = table.get("rules", [])
    rules_section = "[[tool.pandas_anon.rules]]" if section != "top level" else "[[rules]]"
    if not isinstance(raw_rules, list) or not all(isinstance(r, dict) for r in raw_rules):
        raise ConfigError(f"{path}: rules must be an array of tables, {rules_section}")
    return Config(
        path,
        defaults,
        tuple(
            _rule(raw, f"{path}: {rules_section} #{number}")
            for number, raw in enumerate(raw_rules, 1)
        ),
    )


def _rule(raw: dict, where: str) -> Rule:
    patterns = raw.get("files")
    if isinstance(patterns, str):
        patterns = [patterns]
    if (
        not patterns
        or not isinstance(patterns, list)
        or not all(isinstance(p, str) and p for p in patterns)
    ):
        raise ConfigError(f'{where}: files: expected a glob or a list of globs, e.g. "data/*.csv"')
    values = parse_values(
        {k: v for k, v in raw.items() if k != "files"}, RULE_KEYS, where, also=("files",)
    )
    return Rule(tuple(patterns), values)

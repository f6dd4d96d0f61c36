"""Result objects of the detection functions: figures as attributes, a readable repr, a dict.

Results print as tables and convert with ``to_dict()`` (JSON-able: counts, fractions, column
names). Row-level data (``.mask``, ``.rows``) is available on request but never printed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from pandas_anon import formatting as report
from pandas_anon.engine.encoding import EncodedFrame, Grouping
from pandas_anon.errors import AnonError


@dataclass(frozen=True, repr=False)
class Singletons:
    """Rows that are alone in their combination of quasi-identifier values."""

    qid: tuple[Hashable, ...]
    count: int
    distinct: int
    examined: int
    dropped: int
    _frame: pd.DataFrame = field(compare=False)
    _encoded: EncodedFrame = field(compare=False)
    _grouping: Grouping = field(compare=False)

    @property
    def fraction(self) -> float:
        """Singletons over rows examined."""
        return self.count / self.examined

    @property
    def class_sizes(self) -> np.ndarray:
        """Rows in each equivalence class (classes in no particular order)."""
        return self._grouping.class_sizes

    @cached_property
    def mask(self) -> pd.Series:
        """Boolean Series aligned to the input: True on singleton rows (False on dropped rows)."""
        examined = self._grouping.row_class_sizes() == 1
        values = self._encoded.frame_mask(examined)
        return pd.Series(values, index=self._frame.index, name="singleton")

    @property
    def rows(self) -> pd.DataFrame:
        """The singleton rows (every column) as a new DataFrame."""
        return self._frame.loc[self.mask.to_numpy()]

    def to_dict(self) -> dict:
        return {
            "qid": list(self.qid),
            "rows": self.examined + self.dropped,
            "dropped": self.dropped,
            "examined": self.examined,
            "singletons": self.count,
            "fraction": self.fraction,
            "distinct": self.distinct,
        }

    def __repr__(self) -> str:
        return report.render(
            f"Singletons on {report.columns(self.qid)}",
            [
                ("rows", report.count(self.examined + self.dropped)),
                ("dropped (incomplete)", report.count(self.dropped)),
                ("examined", report.count(self.examined)),
                ("singletons", report.count(self.count)),
                ("singletons %", report.percent(self.fraction)),
                ("distinct combinations", report.count(self.distinct)),
            ],
        )


@dataclass(frozen=True, repr=False)
class BestQID:
    """The seed paper's best quasi-identifier: most singletons, then fewest columns (with
    ``k`` above 2: most rows in classes of fewer than ``k`` rows, ``at_risk``)."""

    columns: tuple[Hashable, ...]
    singletons: int
    distinct: int
    examined: int
    dropped: int
    ties: tuple[tuple[Hashable, ...], ...]
    identifiers: tuple[tuple[Hashable, ...], ...]
    candidates: tuple[Hashable, ...]
    table: pd.DataFrame = field(compare=False)
    max_size: int = 0
    upper_bound: int = 0
    k: int = 2
    at_risk: int = 0  # rows in classes below k (k=2: the singletons)

    @property
    def fraction(self) -> float:
        """Singletons over rows examined."""
        return self.singletons / self.examined

    def to_dict(self) -> dict:
        return {
            "columns": list(self.columns),
            "singletons": self.singletons,
            "fraction": self.fraction,
            "distinct": self.distinct,
            "examined": self.examined,
            "dropped": self.dropped,
            "ties": [list(t) for t in self.ties],
            "identifiers": [list(i) for i in self.identifiers],
            "candidates": list(self.candidates),
            "max_size": self.max_size,
            **({"k": self.k, "at_risk": self.at_risk} if self.k != 2 else {}),
            "evaluated": int((self.table["status"] != "derived").sum()),
            "derived": int((self.table["status"] == "derived").sum()),
        }

    def __repr__(self) -> str:
        top = self.table.head(10).copy()
        top["columns"] = top["columns"].map(report.columns)
        fields = [
            ("best QID", report.columns(self.columns)),
            ("singletons", report.count(self.singletons)),
            ("singletons %", report.percent(self.fraction)),
            *(
                [(f"rows in classes below k={self.k}", report.count(self.at_risk))]
                if self.k != 2
                else []
            ),
            ("distinct combinations", report.count(self.distinct)),
            ("examined / dropped", f"{report.count(self.examined)} / {report.count(self.dropped)}"),
            ("ties", report.column_sets(self.ties)),
            ("identifiers", report.column_sets(self.identifiers)),
            ("subsets in table", report.count(len(self.table))),
        ]
        return report.render("Best quasi-identifier", fields, ("Top subsets", top))


@dataclass(frozen=True, repr=False)
class Risk:
    """Re-identification risk of a quasi-identifier, measured on its equivalence classes.

    ``uniques`` is the :class:`Singletons` result of the same QID (its ``.mask`` locates the
    sample uniques). Without a population model the sample is taken as the population: prosecutor risk of a
    row is 1 / (size of its class); the average prosecutor risk and the marketer risk (the
    expected share of rows an attacker linking everyone re-identifies) are both
    classes / rows.
    """

    uniques: Singletons
    smallest_class: int
    highest_risk_records: int
    class_sizes: pd.DataFrame = field(compare=False)
    contributions: pd.DataFrame = field(compare=False)

    @property
    def qid(self) -> tuple[Hashable, ...]:
        return self.uniques.qid

    @property
    def examined(self) -> int:
        return self.uniques.examined

    @property
    def dropped(self) -> int:
        return self.uniques.dropped

    @property
    def classes(self) -> int:
        return self.uniques.distinct

    @property
    def sample_uniques(self) -> int:
        return self.uniques.count

    @property
    def sample_uniques_fraction(self) -> float:
        return self.sample_uniques / self.examined

    @property
    def prosecutor_max(self) -> float:
        return 1.0 / self.smallest_class

    @property
    def prosecutor_avg(self) -> float:
        return self.classes / self.examined

    @property
    def marketer(self) -> float:
        """Expected share of rows re-identified by matching every row: the same figure as
        the average prosecutor risk on the sample itself."""
        return self.prosecutor_avg

    @property
    def highest_risk_fraction(self) -> float:
        return self.highest_risk_records / self.examined

    def to_dict(self) -> dict:
        return {
            "qid": list(self.qid),
            "examined": self.examined,
            "dropped": self.dropped,
            "classes": self.classes,
            "sample_uniques": self.sample_uniques,
            "sample_uniques_fraction": self.sample_uniques_fraction,
            "prosecutor_max": self.prosecutor_max,
            "prosecutor_avg": self.prosecutor_avg,
            "marketer": self.marketer,
            "highest_risk_records": self.highest_risk_records,
            "highest_risk_fraction": self.highest_risk_fraction,
            "class_sizes": self.class_sizes.to_dict(orient="records"),
            "contributions": self.contributions.to_dict(orient="records"),
        }

    def __repr__(self) -> str:
        fields = [
            ("examined / dropped", f"{report.count(self.examined)} / {report.count(self.dropped)}"),
            ("equivalence classes", report.count(self.classes)),
            (
                "sample uniques",
                f"{report.count(self.sample_uniques)} "
                f"({report.percent(self.sample_uniques_fraction)})",
            ),
            ("prosecutor risk max", f"{self.prosecutor_max:.4f}"),
            ("prosecutor risk avg", f"{self.prosecutor_avg:.4f}"),
            ("marketer risk", f"{self.marketer:.4f}"),
            (
                "records at highest risk",
                f"{report.count(self.highest_risk_records)} "
                f"({report.percent(self.highest_risk_fraction)})",
            ),
        ]
        return report.render(
            f"Risk of {report.columns(self.qid)}",
            fields,
            ("Class sizes", self.class_sizes),
            ("Singletons removed by dropping one column", self.contributions),
        )


def class_size_table(sizes: np.ndarray) -> pd.DataFrame:
    """Classes and rows by class size bucket (1, 2, 3-4, 5-9, 10-99, 100+)."""
    edges = [(1, 1), (2, 2), (3, 4), (5, 9), (10, 99), (100, np.inf)]
    rows = []
    for low, high in edges:
        inside = (sizes >= low) & (sizes <= high)
        label = str(low) if low == high else (f"{low}+" if high == np.inf else f"{low}-{high}")
        rows.append(
            {"class size": label, "classes": int(inside.sum()), "rows": int(sizes[inside].sum())}
        )
    return pd.DataFrame(rows)


#: Key of the report a transformed frame carries in ``DataFrame.attrs``.
REPORT_KEY = "pandas_anon"


def column_keys(columns: Sequence[Hashable]) -> dict[Hashable, str]:
    """The name of each column in a report: ``str(label)``, or ``repr(label)`` for labels
    sharing their ``str`` with another column (``0`` and ``"0"`` become ``"0"`` and
    ``"'0'"``), so each column keeps its own key in the report's dicts and in JSON."""
    texts = [str(c) for c in columns]
    keys = [text if texts.count(text) == 1 else repr(c) for c, text in zip(columns, texts)]
    if len(set(keys)) < len(keys):  # a repr equal to another label's str: "'0'" beside 0, "0"
        keys = [repr(c) for c in columns]
    return dict(zip(columns, keys))


@dataclass(frozen=True, repr=False)
class Generalization:
    """What a generalization changed: rows selected (touched), rows whose value changed in a
    generalized column (modified), rows removed, and each column's hierarchy and level."""

    rows: int
    selection: str
    qid: list[str] | None
    touched: int
    modified: int
    removed: int
    columns: dict[str, dict]

    kind = "generalize"

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "rows": self.rows,
            "selection": self.selection,
            "qid": self.qid,
            "touched": self.touched,
            "modified": self.modified,
            "removed": self.removed,
            "columns": self.columns,
        }

    @classmethod
    def from_dict(cls, payload: dict) -> Generalization:
        return cls(**{k: v for k, v in payload.items() if k != "kind"})

    def __repr__(self) -> str:
        table = pd.DataFrame([{"column": c, **detail} for c, detail in self.columns.items()])
        on_qid = self.qid and self.selection == "singletons"
        selection = self.selection + (f" on {report.columns(self.qid)}" if on_qid else "")
        return report.render(
            "Generalization",
            [
                ("rows", report.count(self.rows)),
                ("rows selected", f"{selection}: {report.count(self.touched)}"),
                ("rows modified", report.count(self.modified)),
                ("rows removed", report.count(self.removed)),
            ],
            ("Columns", table),
        )


@dataclass(frozen=True, repr=False)
class Anonymization:
    """What a k-anonymization chose and what it cost: the node (a level per column), rows
    suppressed and modified, the privacy reached, information loss and search statistics."""

    algorithm: str
    qid: list[str]
    levels: dict[str, int]
    hierarchies: dict[str, str]
    models: list[str]
    rows: int
    suppressed: int
    max_suppression: float
    classes: int
    k_reached: int
    metrics: dict[str, float]
    risk: dict[str, float]
    search: dict[str, float]
    choices: dict[str, str]
    modified: int | None = None
    privacy: dict[str, float] = field(default_factory=dict)  # level reached, per model
    #: direct identifier columns found outside the QID and what became of each
    #: ("dropped", "hashed" or "kept"), never their values
    identifiers: dict[str, str] = field(default_factory=dict)
    #: the gate's rule measured on the released columns (zero configuration only):
    #: the most exposed column set, its rows in classes below k, and whether it passes
    exposure: dict | None = None

    kind = "kanon"

    def to_dict(self) -> dict:
        return {"kind": self.kind, **{f: getattr(self, f) for f in self.__dataclass_fields__}}

    @classmethod
    def from_dict(cls, payload: dict) -> Anonymization:
        return cls(**{k: v for k, v in payload.items() if k != "kind"})

    def __repr__(self) -> str:
        levels = pd.DataFrame(
            {
                "column": list(self.levels),
                "level": list(self.levels.values()),
                "hierarchy": [self.hierarchies[c] for c in self.levels],
            }
        )
        fields = [
            ("algorithm", self.algorithm),
            ("privacy models", ", ".join(self.models)),
            ("rows", report.count(self.rows)),
            (
                "rows suppressed",
                f"{report.count(self.suppressed)} "
                f"(limit {report.percent(self.max_suppression, 2)})",
            ),
            ("rows modified", "-" if self.modified is None else report.count(self.modified)),
            ("equivalence classes", report.count(self.classes)),
            ("smallest class (k reached)", report.count(self.k_reached)),
            *[
                (f"{what} reached", f"{level:.4g}")
                for what, level in self.privacy.items()
                if what != "k"
            ],
            ("precision", f"{self.metrics['precision']:.4f}"),
            ("discernibility (DM)", report.count(int(self.metrics["dm"]))),
            ("C_avg", f"{self.metrics['c_avg']:.4f}"),
            (
                "prosecutor risk max / avg",
                f"{_risk(self.risk['prosecutor_max'])} / {_risk(self.risk['prosecutor_avg'])}",
            ),
            (
                "nodes evaluated / lattice",
                f"{self.search['evaluated']:,} / {self.search['lattice_size']:,}",
            ),
            ("seconds", f"{self.search['seconds']:.3f}"),
            *[(f"identifier {column}", what) for column, what in self.identifiers.items()],
            *(
                [("exposure of the released columns", _exposure_line(self.exposure))]
                if self.exposure is not None
                else []
            ),
        ] + [(what, how) for what, how in self.choices.items()]
        return report.render("k-anonymization", fields, ("Levels", levels))


def _risk(value: float) -> str:
    """A risk to 4 decimals; a tiny non-zero one is never printed as 0.0000."""
    return "< 0.0001" if 0 < value < 0.0001 else f"{value:.4f}"


def _exposure_line(exposure: dict) -> str:
    """``"passes: (a, b, c) has 0 rows in classes below k=5"``."""
    verdict = "passes" if exposure["passes"] else "FAILS"
    return (
        f"{verdict}: {report.columns(exposure['columns'])} has "
        f"{report.count(exposure['rows_below_k'])} rows in classes below k={exposure['k']} "
        f"(subsets of up to {exposure['max_size']} columns)"
    )


_REPORTS = {Generalization.kind: Generalization, Anonymization.kind: Anonymization}


def attach(frame: pd.DataFrame, result: Generalization | Anonymization) -> pd.DataFrame:
    """Let ``result`` travel with ``frame`` (a new attrs dict: the input's is not touched)."""
    frame.attrs = {**frame.attrs, REPORT_KEY: result.to_dict()}
    return frame


def report_of(frame: pd.DataFrame) -> Generalization | Anonymization:
    """The report a frame produced by pandas-anon carries."""
    payload = frame.attrs.get(REPORT_KEY)
    if not isinstance(payload, dict) or payload.get("kind") not in _REPORTS:
        raise AnonError(
            "this frame carries no pandas-anon report: it did not come from generalize() or "
            "kanon(), or an operation since (merge, concat) dropped DataFrame.attrs"
        )
    return _REPORTS[payload["kind"]].from_dict(payload)

"""A risk report a data steward can hand on: one self-contained HTML page about a table.

:func:`risk_report` applies the gate's rule to the table (the direct identifier columns, then
the most exposed column set: :func:`pandas_anon.detect.exposure.scan`), measures the elected
quasi-identifier (:func:`pandas_anon.risk`), and compares what each method costs to fix the
table (:func:`pandas_anon.compare`: the optimal full-domain search, Mondrian, local
recoding); :meth:`RiskReport.to_html` writes it all as one page: a summary, the identifier
columns, the election, the class sizes, the fixes and their cost, and the suggested next
step, with figures embedded as images (when matplotlib is installed) and no request to the
network. The page holds counts and column names only, never a value of the table; its
figures are written as the rest of the product writes them (:mod:`pandas_anon.formatting`).

The report is about a check: ``pandas-anon check --k K`` (the gate's rule: every set of up to
three columns), or ``pandas-anon check --qid ... --k K`` when the quasi-identifier is given.
Its fixes are the calls whose release passes that check: with the quasi-identifier elected,
each method runs in zero configuration, as ``df.anon.kanon(K, algo=...)`` runs it (every
released column k-anonymous together, which passes the gate's rule; its report confirms
it); with ``qid``
given, each method k-anonymizes that QID. The next step names the cheapest of those calls,
as it is to be typed.
"""

from __future__ import annotations

import base64
import html
import io
import os
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pandas as pd

from pandas_anon import formatting as fmt
from pandas_anon.anonymization.kanon import kanon
from pandas_anon.anonymization.task_utility import FOLDS, scikit_learn
from pandas_anon.detect.exposure import MAX_SIZE, DirectIdentifier, scan
from pandas_anon.detect.figures import risk
from pandas_anon.detect.population import check_population
from pandas_anon.detect.results import BestQID, Risk
from pandas_anon.engine.columns import require_data, resolve_columns
from pandas_anon.errors import (
    AnonWarning,
    InvalidParameterError,
    InvalidQIDError,
    MissingDependencyError,
)
from pandas_anon.params import output_file, whole, writing
from pandas_anon.studies.attacks import Attacks
from pandas_anon.studies.attacks import attacks as attacks_on
from pandas_anon.studies.compare import DEFAULT_METHODS, Comparison, compare

#: The share of the rows a fix may suppress and still be suggested.
SUGGESTED_SUPPRESSION = 0.05


@dataclass(frozen=True)
class RiskReport:
    """What :func:`risk_report` found about a table.

    Attributes
    ----------
    title : str
        What the page is about (a file name, by default "the table").
    rows, columns : int
        The table's size.
    identifiers : tuple of DirectIdentifier
        The columns on which (nearly) every row is alone.
    election : BestQID or None
        The most exposed column set among the others (None: no column left).
    risk : Risk or None
        The risk figures of the quasi-identifier (``qid``).
    qid : tuple
        The quasi-identifier measured: the one given, or the elected one.
    comparison : Comparison or None
        What k-anonymizing ``qid`` costs with each method (None: nothing to fix).
    k : int
        The k of the comparison.
    notes : tuple of str
        What the methods warned about while fixing (a release of one class, a hierarchy
        falling back), in counts and column names.
    qid_given : bool
        Whether ``qid`` was given: the fixes then k-anonymize it, and the check the report is
        about is ``check --qid``; else each fix is a zero-configuration call, about ``check``
        on every set of up to three columns.
    target : hashable or None
        The column a classifier predicts to measure each fix's task utility (released as
        read, as a sensitive column is), or None.
    attacked : dict or None
        With ``attacks=True``: the attacks' figures on the table as it is (``"table"``) and
        on each fix's release (by method), each made from the table less a control sample
        held back (:data:`ATTACK_CONTROL`).
    """

    title: str
    rows: int
    columns: int
    identifiers: tuple[DirectIdentifier, ...]
    election: BestQID | None
    risk: Risk | None
    qid: tuple[Hashable, ...]
    comparison: Comparison | None
    k: int
    notes: tuple[str, ...] = ()  # what the fixes warned about (counts and columns only)
    qid_given: bool = False
    target: Hashable | None = None
    #: with ``attacks=True``: WP29's three risks of the table and of each fix's release
    #: (:func:`pandas_anon.attacks`), by release
    attacked: dict[str, Attacks] | None = None

    @property
    def check(self) -> str:
        """The command of the check the report is about (its file left out)."""
        if self.qid_given:
            return f"pandas-anon check --qid {','.join(map(str, self.qid))} --k {self.k}"
        return f"pandas-anon check --k {self.k}"

    def passes(self) -> pd.Series:
        """Per method compared, whether its release passes :attr:`check` (with ``qid``
        given, every release is k-anonymous on it; else its report's ``exposure`` says)."""
        assert self.comparison is not None
        reports = self.comparison.reports
        return pd.Series(
            [
                self.qid_given or bool((reports[m].exposure or {}).get("passes"))
                for m in self.comparison.table.index
            ],
            index=self.comparison.table.index,
            dtype=bool,
        )

    def recommended(self) -> str | None:
        """The method the next step names: among those whose release passes :attr:`check`
        suppressing at most :data:`SUGGESTED_SUPPRESSION` of the rows, the one modifying
        the fewest cells (leaving the most unchanged, as zero-configuration ``kanon``
        chooses), then the fewest rows; None when none does (or nothing is fixed)."""
        if self.comparison is None:
            return None
        table = self.comparison.table
        allowed = table[(table["suppressed"] <= SUGGESTED_SUPPRESSION * self.rows) & self.passes()]
        if not len(allowed):
            return None
        ranked = allowed.sort_values(["modified cells", "modified rows"], kind="stable")
        return str(ranked.index[0])

    def call(self, method: str) -> str:
        """The call of ``method`` as the next step writes it, ready to run on ``df``."""
        target = "" if self.target is None else f", sensitive={self.target!r}"
        if self.qid_given:
            qid = list(map(str, self.qid))
            return f"df.anon.kanon({self.k}, qid={qid!r}{target}, algo={method!r})"
        return f"df.anon.kanon({self.k}{target}, algo={method!r})"

    def suggestion(self) -> str:
        """The suggested next step, in one paragraph (counts and column names only)."""
        steps = []
        if self.identifiers:
            names = ", ".join(repr(f.column) for f in self.identifiers)
            steps.append(
                f"Drop or hash the direct identifier column(s) {names}: each singles people "
                f"out on its own (pandas-anon anonymize --identifiers hash)."
            )
        if (
            self.risk is not None
            and self.risk.uniques.count == 0
            and self.risk.smallest_class >= self.k
        ):
            steps.append(f"The quasi-identifier is already {self.k}-anonymous: nothing to fix.")
        elif self.comparison is not None:
            best = self.recommended()
            if best is None:
                steps.append(
                    f"No method compared releases a table that passes {self.check} with at "
                    f"most {fmt.percent(SUGGESTED_SUPPRESSION, 0)} of the rows suppressed: "
                    f"allow more suppression (max_suppression=), lower k, or choose the "
                    f"quasi-identifier (qid=)."
                )
            else:
                row = self.comparison.table.loc[best]
                report = self.comparison.reports[best]
                what = (
                    f"k-anonymize {fmt.columns(self.qid)} with k={self.k} by {best}"
                    if self.qid_given
                    else f"k-anonymize with k={self.k} by {best} in zero configuration (every "
                    f"released column, {fmt.plural(len(report.qid), 'column')}, k-anonymous "
                    f"together: {fmt.columns(report.qid)})"
                )
                steps.append(
                    f"{what}: its release passes {self.check}; it modifies "
                    f"{fmt.count(int(row['modified cells']))} cells, the fewest of the methods "
                    f"compared whose release passes, in "
                    f"{fmt.count(int(row['modified rows']))} rows "
                    f"({fmt.percent(row['modified rows'] / self.rows, 2)}), and suppresses "
                    f"{fmt.count(int(row['suppressed']))}: {self.call(best)}."
                )
        return (
            " ".join(steps) or "Nothing to fix: no identifier column and no column set to measure."
        )

    def to_html(self) -> str:
        """The report as one self-contained HTML page (figures embedded; no network)."""
        sections = [
            _section("Summary", _table(self._summary())),
            _section("Direct identifiers", self._identifiers_html()),
        ]
        if self.election is not None:
            shown = self.election.table.head(10)[["columns", "size", "singletons", "distinct"]]
            shown = shown.assign(columns=[", ".join(map(str, c)) for c in shown["columns"]])
            sections.append(
                _section(
                    "The most exposed columns",
                    f"<p>Elected by the gate's rule: {_text(fmt.columns(self.election.columns))}.</p>"
                    + _figure(lambda: self.election.plot(top=10))
                    + _table(shown),
                )
            )
        if self.risk is not None:
            sections.append(
                _section(
                    f"Class sizes on {fmt.columns(self.qid)}",
                    _figure(self.risk.uniques.plot)
                    + _table(self.risk.class_sizes)
                    + "<p>Singletons removed by dropping one column:</p>"
                    + _table(self.risk.contributions),
                )
            )
        if self.comparison is not None:
            notes = "".join(f"<li>{_text(note)}</li>" for note in self.notes)
            sections.append(
                _section(
                    f"What k={self.k} costs, by method",
                    f"<p>{_text(self._fixes_said())}</p>"
                    + _table(self._costs())
                    + (f"<ul>{notes}</ul>" if notes else ""),
                )
            )
        if self.attacked is not None:
            sections.append(
                _section(
                    "Against an attacker: WP29's three risks",
                    f"<p>{_text(self._attacks_said())}</p>" + _table(self.attack_table()),
                )
            )
        sections.append(_section("Next step", f"<p>{_text(self.suggestion())}</p>"))
        return _PAGE.format(title=_text(self.title), body="\n".join(sections))

    def _fixes_said(self) -> str:
        """What the cost table compares."""
        if self.qid_given:
            said = (
                f"Each method k-anonymizes {fmt.columns(self.qid)}, so that its release passes "
                f"{self.check}."
            )
        else:
            but = "" if self.target is None else f" but {self.target!r}"
            said = (
                f"Each method runs as df.anon.kanon({self.k}, algo=...) runs it in zero "
                f"configuration: every released column{but} (QID columns) is "
                f"{self.k}-anonymous together, so that its release passes the gate's rule, "
                f"the rule of {self.check}."
            )
        return said + self._task_said()

    def _task_said(self) -> str:
        """What the accuracy columns measure (nothing without a target)."""
        if self.target is None:
            return ""
        assert self.comparison is not None
        task = next(iter(self.comparison.reports.values())).task or {}
        return (
            f" Accuracy: a logistic regression's {FOLDS}-fold cross-validated accuracy "
            f"predicting {self.target!r} from the other released columns of each release, "
            f"one-hot encoded (on the original table {task['original']:.4f}; always "
            f"answering the majority class {task['majority']:.4f}); margin kept: the share of "
            f"the original's margin over the majority class the release keeps."
        )

    def attack_table(self) -> pd.DataFrame:
        """With ``attacks=True``: one row per release (the table as it is, then each fix),
        each attack's risk and its confidence interval."""
        assert self.attacked is not None
        rows = {}
        for release, found in self.attacked.items():
            rows["the table as it is" if release == "table" else release] = {
                r.attack: f"{r.risk:.3f} [{r.ci[0]:.3f}, {r.ci[1]:.3f}]" for r in found.risks
            }
        return pd.DataFrame.from_dict(rows, orient="index")

    def _attacks_said(self) -> str:
        """What the attack table measures."""
        assert self.attacked is not None
        first = next(iter(self.attacked.values()))
        share, most, seed = ATTACK_CONTROL
        inference = (
            f", and inference of {self.target!r} from the other columns"
            if self.target is not None
            else " (name a target to measure inference too)"
        )
        return (
            f"Each release is attacked as Giomi et al. (2023) define WP29's risks: singling "
            f"out, linkability{inference}, {first.n_attacks} attacks each. "
            f"{fmt.percent(share, 0)} of the rows (at most {fmt.count(most)}, seed {seed}) "
            f"were held back as the control and each method ran on the others; a risk is the "
            f"attack's success beyond its success on the control, with its "
            f"{fmt.percent(first.confidence_level, 0)} interval. These attackers read the "
            f"labels as written; other attackers may do better."
        )

    def _costs(self) -> pd.DataFrame:
        """The cost table as the page shows it: whether each release passes the check, then
        (zero configuration) the columns of its QID, then its figures."""
        assert self.comparison is not None
        # a person reads the share of cells unchanged and the query error; DM and C_avg,
        # for those who tune searches, stay in compare's table (the page fits 1280 px)
        # (the original's and the majority's accuracy, the same in every row, are said above)
        shown = self.comparison.table.drop(
            columns=["seconds", "DM", "C_avg", "accuracy original", "accuracy majority"],
            errors="ignore",
        )
        if not self.qid_given:
            reports = self.comparison.reports
            shown.insert(0, "QID columns", [len(reports[m].qid) for m in shown.index])
        shown.insert(0, "passes the check", ["yes" if p else "no" for p in self.passes()])
        return shown

    def _summary(self) -> pd.DataFrame:
        facts = [
            ("rows", fmt.count(self.rows)),
            ("columns", fmt.count(self.columns)),
            ("direct identifier columns", fmt.count(len(self.identifiers))),
            ("quasi-identifier measured", fmt.columns(self.qid) if self.qid else "none"),
        ]
        if self.risk is not None:
            facts += [
                (
                    "singletons",
                    f"{self.risk.uniques.count:,} ({fmt.percent(self.risk.uniques.fraction, 2)})",
                ),
                ("smallest class", fmt.count(self.risk.smallest_class)),
                (
                    "prosecutor risk max / avg",
                    f"{self.risk.prosecutor_max:.4f} / {self.risk.prosecutor_avg:.4f}",
                ),
            ]
            if self.risk.population_estimate is not None:  # a sample: the population's
                facts += self.risk.population_estimate.fields()
        return pd.DataFrame(facts, columns=["figure", "value"])

    def _identifiers_html(self) -> str:
        if not self.identifiers:
            return "<p>None: no column singles out (nearly) every row on its own.</p>"
        return (
            "<ul>" + "".join(f"<li>{_text(f.describe())}</li>" for f in self.identifiers) + "</ul>"
        )


def risk_report(
    frame: pd.DataFrame,
    *,
    qid: Sequence[Hashable] | None = None,
    k: int = 5,
    max_size: int = MAX_SIZE,
    title: str = "the table",
    target: Hashable | None = None,
    population: int | None = None,
    sampling_fraction: float | None = None,
    attacks: bool = False,
) -> RiskReport:
    """Measure a table's re-identification risk for a report to hand on.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (never modified).
    qid : sequence of hashable, optional
        The quasi-identifier to measure and fix. Default None: the gate's rule elects it
        among the columns that are not direct identifiers (up to ``max_size`` of them).
    k : int, default 5
        The k of the fixes compared.
    max_size : int, default 3
        The largest column set the election considers.
    title : str, default "the table"
        What the page is about (the CLI gives the file's name).
    target : hashable, optional
        A column to predict: each fix is then measured by its task utility too (a
        classifier's cross-validated accuracy on its release, beside the original's and the
        majority class's, as :func:`pandas_anon.compare` measures it), with the target
        released as read (``sensitive=target``) and left out of the election. Needs
        scikit-learn (the ``ml`` extra).
    population : int, optional
        The table is a sample of a population of this size: the summary adds the estimated
        population uniques beside the sample's figures (:func:`pandas_anon.risk` with
        ``population=``). Not with ``sampling_fraction``.
    sampling_fraction : float, optional
        The table's share of its population, in (0, 1]; as ``population``.
    attacks : bool, default False
        Also measure WP29's three risks by attack (:func:`pandas_anon.attacks`: singling
        out, linkability and, with a ``target``, inference of it), on the table as it is and
        on each fix's release: a control sample of the rows (:data:`ATTACK_CONTROL`, seeded)
        is held back, each method runs again on the other rows as it runs for the fixes,
        and each release is attacked. It costs those runs again.

    Returns
    -------
    RiskReport
        The findings; ``.to_html()`` writes the page (:func:`report_html` saves it).

    Raises
    ------
    EmptyDataError
        The frame has no rows or no columns.
    ColumnNotFoundError, InvalidQIDError
        ``qid`` or ``target`` names a column the frame lacks, or ``qid`` is empty.
    InvalidParameterError
        ``target`` is in ``qid``; ``population`` and ``sampling_fraction`` both given, or
        either out of its range.
    MissingDependencyError
        ``target`` is given and scikit-learn is not installed.

    See Also
    --------
    pandas_anon.best_qid, pandas_anon.risk, pandas_anon.compare

    Examples
    --------
    >>> import pandas as pd
    >>> from pandas_anon.studies.handover import risk_report
    >>> df = pd.DataFrame({"year": [1980, 1980, 1991, 1991, 1975, 1975],
    ...                    "sex": ["f", "f", "m", "m", "f", "m"]})
    >>> found = risk_report(df, qid=["year", "sex"], k=2)
    >>> found.risk.uniques.count, "<html" in found.to_html()
    (2, True)
    """
    require_data(frame)
    k = whole(k, "k", example=5)
    check_population(population, sampling_fraction)  # refused before the work
    chosen = tuple(resolve_columns(frame, qid)) if qid is not None else ()
    if qid is not None and not chosen:
        raise InvalidQIDError("qid is empty: name the quasi-identifier columns, or leave qid out")
    others: list[Hashable] = list(frame.columns)
    if target is not None:
        (target,) = resolve_columns(frame, [target])
        if target in chosen:
            raise InvalidParameterError(
                f"target={target!r} is in qid: the task predicts it from the other released "
                f"columns; give a qid without it, or another target"
            )
        scikit_learn()  # said before the work
        others.remove(target)
    found = scan(frame, others, k=max(k, 2), max_size=max_size)  # the election check --k makes
    chosen = chosen or found.qid
    measured = (
        risk(
            frame,
            list(chosen),
            dropna=False,
            population=population,
            sampling_fraction=sampling_fraction,
        )
        if chosen
        else None
    )
    comparison, notes = None, []
    if chosen and measured is not None and (measured.uniques.count or measured.smallest_class < k):
        released = frame.drop(columns=[f.column for f in found.identifiers])
        with warnings.catch_warnings(record=True) as caught:  # told on the page instead
            warnings.simplefilter("always", AnonWarning)
            comparison = _fixes(
                released, min(k, len(frame)), list(chosen) if qid is not None else None, target
            )
        notes = [str(w.message) for w in caught if issubclass(w.category, AnonWarning)]
    attacked = None
    if attacks and comparison is not None:
        attacked = _attacked(
            released, min(k, len(frame)), list(chosen) if qid is not None else None, target
        )
    return RiskReport(
        title=title,
        rows=len(frame),
        columns=frame.shape[1],
        identifiers=found.identifiers,
        election=found.election,
        risk=measured,
        qid=chosen,
        comparison=comparison,
        k=k,
        notes=tuple(notes),
        qid_given=qid is not None,
        target=target,
        attacked=attacked,
    )


def _fixes(
    released: pd.DataFrame, k: int, qid: list[Hashable] | None, target: Hashable | None
) -> Comparison:
    """What each method costs: on ``qid`` when given; else each in zero configuration (every
    released column but the target k-anonymous together), one call each, since each method's
    QID is its own. With a target, each release's task utility too."""
    task: dict[str, Any] = {} if target is None else {"target": target, "sensitive": target}
    if qid is not None:
        return compare(released, k, qid=qid, identifiers="keep", **task)
    each = [compare(released, k, methods=[m], identifiers="keep", **task) for m in DEFAULT_METHODS]
    return Comparison(
        table=pd.concat([c.table for c in each]),
        k=k,
        qid=(),
        reports={m: r for c in each for m, r in c.reports.items()},
    )


#: The rows held back as the attacks' control: a share of the table, at most a number of rows
#: (anonymeter's examples hold back about a thousand), with a fixed seed.
ATTACK_CONTROL = (0.2, 1000, 0)


def _attacked(
    released: pd.DataFrame, k: int, qid: list[Hashable] | None, target: Hashable | None
) -> dict[str, Attacks]:
    """WP29's three risks of the table and of each fix's release, each made from the table
    less a control sample held back (see :func:`risk_report`)."""
    share, most, seed = ATTACK_CONTROL
    control = released.sample(n=min(most, max(1, int(share * len(released)))), random_state=seed)
    rest = released.drop(index=control.index)
    options: dict[str, Any] = {"identifiers": "keep", "qid": qid}
    if target is not None:
        options["sensitive"] = target
    found = {"table": attacks_on(rest, rest, control=control, secret=target)}
    for method in DEFAULT_METHODS:  # each as its fix runs (compare's call)
        with warnings.catch_warnings():  # the fixes warned once already, on the page
            warnings.simplefilter("ignore", AnonWarning)
            out = kanon(rest, min(k, len(rest)), algo=method, **options)
        found[method] = attacks_on(rest, out, control=control, secret=target)
    return found


def report_html(
    frame: pd.DataFrame,
    path: str | Path | None = None,
    *,
    qid: Sequence[Hashable] | None = None,
    k: int = 5,
    max_size: int = MAX_SIZE,
    title: str = "the table",
    target: Hashable | None = None,
    population: int | None = None,
    sampling_fraction: float | None = None,
    attacks: bool = False,
) -> str:
    """The risk report of ``frame`` as one self-contained HTML page, written to ``path``
    when given.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (never modified).
    path : str or Path, optional
        Where to write the page (UTF-8). Default None: only returned.
    qid, k, max_size, title, target, population, sampling_fraction, attacks
        As :func:`risk_report` takes them.

    Returns
    -------
    str
        The page: a summary, the direct identifiers, the election of the quasi-identifier,
        its class sizes, what k-anonymizing it costs by method, the suggested next step;
        figures embedded (with matplotlib), no request to the network, no value of the
        table.

    Raises
    ------
    OutputFileError
        When ``path`` is a directory, in a folder that does not exist, or cannot be written
        (checked before the report is computed, but for the last).
    InvalidParameterError
        When ``path`` is not a path; and whatever :func:`risk_report` raises.

    See Also
    --------
    risk_report : The findings the page shows.

    Examples
    --------
    >>> import pandas as pd
    >>> from pandas_anon.studies.handover import report_html
    >>> df = pd.DataFrame({"year": [1980, 1980, 1991, 1975], "sex": ["f", "f", "m", "f"]})
    >>> page = report_html(df, qid=["year", "sex"], k=2)
    >>> page.startswith("<!DOCTYPE html>"), "Next step" in page
    (True, True)
    """
    written = None if path is None else output_file(path, "path")  # refused before the work
    found = risk_report(
        frame,
        qid=qid,
        k=k,
        max_size=max_size,
        title=title,
        target=target,
        population=population,
        sampling_fraction=sampling_fraction,
        attacks=attacks,
    )
    page = found.to_html()
    if written is not None:
        with writing(os.fspath(cast(str, path))):
            Path(written).write_text(page, encoding="utf-8")
    return page


def _text(value: object) -> str:
    return html.escape(str(value))


def _table(frame: pd.DataFrame) -> str:
    """``frame`` as an HTML table, every figure written by :func:`pandas_anon.formatting.number`
    (thousands separated, 4 decimals, ``-`` for none), in a box that scrolls rather than
    cuts a table wider than the page."""
    shown = frame.map(fmt.number)
    html_table = shown.to_html(
        index=not isinstance(frame.index, pd.RangeIndex), border=0, escape=True
    )
    return f'<div class="table">{html_table}</div>'


def _section(title: str, body: str) -> str:
    return f"<section><h2>{_text(title)}</h2>\n{body}\n</section>"


def _figure(draw: Any) -> str:
    """A figure drawn by ``draw()`` (returning its axes) as an embedded PNG; a note when
    matplotlib is not installed."""
    try:
        axes = draw()
    except MissingDependencyError:
        return '<p class="note">Figures need matplotlib: pip install "pandas-anon[plot]".</p>'
    buffer = io.BytesIO()
    axes.figure.savefig(buffer, format="png", dpi=100)
    axes.figure.clf()
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="figure" src="data:image/png;base64,{encoded}">'


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Re-identification risk of {title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
  color: #222; }}
h1 {{ font-size: 1.6rem; }} h2 {{ font-size: 1.2rem; border-bottom: 1px solid #ccc; }}
.table {{ overflow-x: auto; max-width: 100%; }}
table {{ border-collapse: collapse; margin: 0.5rem 0; font-size: 0.9rem; }}
td, th {{ padding: 0.2rem 0.5rem; border-bottom: 1px solid #eee; text-align: right; }}
td {{ white-space: nowrap; }} th {{ vertical-align: bottom; }}
img {{ max-width: 100%; }} .note {{ color: #777; }}
</style>
</head>
<body>
<h1>Re-identification risk of {title}</h1>
<p class="note">Made by pandas-anon: counts and column names only, no value of the table.</p>
{body}
</body>
</html>
"""

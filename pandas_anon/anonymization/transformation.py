"""The transformation contract: what every anonymizing method decides, and the one writer.

A method reads a frequency set and decides, for each of its combinations, how each
quasi-identifier is written (a :class:`ColumnRecoding`: the code of an output label, or
:data:`~pandas_anon.anonymization.recoding.KEEP` to keep the value as read) and whether the
combination's rows are suppressed. That decision is a :class:`Transformation`; nothing has
touched the rows yet. :meth:`Transformation.apply` is the one step that maps rows to
combinations and writes them, whatever the method (full-domain search, Mondrian's
partitions, local recoding); :mod:`pandas_anon.anonymization.utility` measures every
transformation the same way.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from pandas_anon.anonymization.pseudonyms import keyed_hash, salt_key
from pandas_anon.anonymization.recoding import (
    KEEP,
    Recoded,
    as_column,
    labels_as_text,
    merged_codes,
    narrow_codes,
    output_copy,
    positions_among,
    relabel,
    whole_as_read,
    whole_floats,
)
from pandas_anon.anonymization.reports import Report, attach, column_keys
from pandas_anon.detect.exposure import SUPPRESSED
from pandas_anon.engine.backends import dask_backend, is_dask
from pandas_anon.engine.backends.pandas import Tabulation
from pandas_anon.engine.columns import column_array, resolve_columns
from pandas_anon.engine.encoding import factorize, inferred
from pandas_anon.engine.grouping import compress, group_codes
from pandas_anon.engine.memory import with_pooled_memory
from pandas_anon.errors import InvalidParameterError
from pandas_anon.hierarchy import Hierarchy
from pandas_anon.params import one_of
from pandas_anon.privacy.groups import GroupJudge

if TYPE_CHECKING:
    from pandas_anon.anonymization.fulldomain.base import Explored


@dataclass(frozen=True)
class ColumnRecoding:
    """How a transformation writes one quasi-identifier column.

    ``codes``: for each combination of the frequency set, the position of its output value in
    ``labels``, or :data:`~pandas_anon.anonymization.recoding.KEEP`. When the labels come
    from a hierarchy, ``hierarchy`` is it and ``levels`` the level of each combination's
    label (what precision reads); a method writing its own labels (ranges) leaves both None.
    ``by_value``: when every combination holding a value writes it alike (a full-domain
    recoding), each value's code (``codes`` spread to the combinations), else None.
    """

    codes: np.ndarray
    labels: pd.Index
    hierarchy: Hierarchy | None = None
    levels: np.ndarray | None = None
    by_value: np.ndarray | None = None

    @classmethod
    def at_level(
        cls,
        hierarchy: Hierarchy,
        positions: np.ndarray,
        level: int | np.ndarray,
        *,
        selected: np.ndarray | None = None,
        missing_at_top: bool = True,
        of: np.ndarray | None = None,
    ) -> ColumnRecoding:
        """Each combination's label at ``level`` (one level, or one per combination) of
        ``hierarchy``, given its value's hierarchy ``positions`` (-1: missing); the
        combinations not ``selected`` (default: all are) keep their values. A missing value
        stays missing below the top; at the top it becomes the top's label when
        ``missing_at_top`` (as in the lattice, where it is a value of its own below the top).
        ``of``: the positions are those of distinct values, and ``of`` gives each
        combination's value (one level only): each value's label is found once, then
        spread to the combinations in one pass."""
        if of is not None:
            per_value = cls.at_level(hierarchy, positions, level, missing_at_top=missing_at_top)
            return cls(
                per_value.codes[of],
                per_value.labels,
                hierarchy,
                np.broadcast_to(np.asarray(level, dtype=np.int64), of.shape),
                by_value=per_value.codes,
            )
        levels = np.broadcast_to(np.asarray(level, dtype=np.int64), positions.shape)
        present = positions >= 0
        known = np.where(present, positions, 0)
        if np.ndim(level) == 0:  # one level: its codes and labels as the hierarchy has them
            codes = np.where(present, hierarchy.codes(int(level))[known], KEEP)
            if missing_at_top and int(level) == hierarchy.height:
                codes = np.where(present, codes, 0)
            if selected is not None:
                codes = np.where(selected, codes, KEEP)
                levels = np.where(selected, levels, 0)
            return cls(codes, hierarchy.labels(int(level)), hierarchy, levels)
        used = np.unique(level)  # only their labels: an unused level's must not widen the dtype
        offset = np.zeros(hierarchy.n_levels, dtype=np.int64)
        table = np.zeros((hierarchy.n_levels, max(len(hierarchy.values), 1)), dtype=np.int64)
        parts, size = [], 0
        for at in used:
            offset[at] = size
            table[at, : len(hierarchy.values)] = hierarchy.codes(at) + size
            parts.append(hierarchy.labels(at))
            size += len(parts[-1])
        codes = np.where(present, table[levels, known], KEEP)
        if missing_at_top:
            at_top = levels == hierarchy.height
            codes = np.where(~present & at_top, offset[hierarchy.height], codes)
        if selected is not None:
            codes = np.where(selected, codes, KEEP)
            levels = np.where(selected, levels, 0)
        labels = parts[0].append(parts[1:]) if len(parts) > 1 else parts[0]
        return cls(codes, labels, hierarchy, levels)


@dataclass(frozen=True)
class Written:
    """A transformation written to a frame: the output, and which rows changed."""

    frame: pd.DataFrame
    modified: np.ndarray  # rows with a value changed (suppressed rows included)
    suppressed: np.ndarray  # rows suppressed
    changed: dict[Hashable, int]  # rows whose value changed, per quasi-identifier


#: Per quasi-identifier, each combination's written value as a code (-1: missing) into an
#: index of the values written.
WrittenCodes = dict[Hashable, tuple[np.ndarray, pd.Index]]


@dataclass(frozen=True)
class Transformation:
    """What an anonymizing method decided on a frequency set, before any row is written.

    ``tabulation``: the frame read once (its frequency set, and each row's combination);
    ``recodings``: how each quasi-identifier is written, per combination; ``suppressed``:
    the combinations whose rows are suppressed (every quasi-identifier written
    :data:`~pandas_anon.detect.exposure.SUPPRESSED`); ``privacy``: the level each privacy
    model reaches on the rows kept; ``search``: what the method reports about its own work
    (nodes evaluated, partitions, seconds).
    """

    method: str
    tabulation: Tabulation
    qid: tuple[Hashable, ...]
    recodings: Mapping[Hashable, ColumnRecoding]
    suppressed: np.ndarray
    privacy: Mapping[str, float] = field(default_factory=dict)
    search: Mapping[str, float] = field(default_factory=dict)
    #: what the call that asked for it reports (``modified`` filled in by :meth:`apply`)
    report: Report | None = None
    #: direct identifier columns outside the quasi-identifier, and what :meth:`apply` does
    #: with them: ``"drop"``, ``"hash"`` (a keyed hash) or ``"keep"``
    identifiers: tuple[Hashable, ...] = ()
    treatment: str = "drop"
    #: how a column's classes are described where that differs from how they are written:
    #: the range a summary value (a class's mean) stands for
    described: Mapping[Hashable, ColumnRecoding] = field(default_factory=dict)
    #: the :class:`~pandas_anon.engine.backends.dask.Digest` of the Dask frame this was
    #: decided on (None: a pandas frame), whose rows :meth:`apply` writes as their
    #: combinations are written
    digest: Any = None
    #: the lattice as the optimal full-domain search left it (:meth:`plot_lattice`); None
    #: for the other methods
    lattice: Explored | None = None
    #: :meth:`written_codes` and :meth:`output_classes` once computed, with what they were
    #: computed from (the recodings, and the suppressed combinations): shared by the copies
    #: ``dataclasses.replace`` makes, and valid for those keeping the same objects
    _memo: dict[str, tuple[Any, Any]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_rows(self) -> int:
        return self.tabulation.frequencies.n_rows

    def plot_lattice(self, axes: Any = None) -> Any:
        """The generalization lattice the optimal search explored: every node at the height
        of its levels' sum, coloured by what the search knows of it (feasible, infeasible,
        or left unknown because no better node could be there), the nodes it evaluated
        outlined, the optimum marked; needs matplotlib (``pip install 'pandas-anon[plot]'``).
        Draws on ``axes`` (default: new ones) and returns them.

        Raises
        ------
        InvalidParameterError
            When the transformation was not decided by the optimal search (``algo="ola"``).

        Examples
        --------
        >>> decision = pandas_anon.anonymize(df, 5, qid=qid, hierarchies=h)  # doctest: +SKIP
        >>> decision.plot_lattice()  # doctest: +SKIP
        """
        if self.lattice is None:
            raise InvalidParameterError(
                f"plot_lattice draws the lattice the optimal search explored; this "
                f"transformation was decided by {self.method!r}: decide it with algo='ola'"
            )
        from pandas_anon import plotting

        return plotting.plot_lattice(self.lattice, axes)

    def written_codes(self) -> WrittenCodes:
        """Each quasi-identifier's written values as codes: a label equal to a value kept as
        read is the same code, as it is the same value to a reader."""
        memo = self._memo.get("written")
        if memo is not None and memo[0] is self.recodings:
            return memo[1]
        frequencies = self.tabulation.frequencies
        found: WrittenCodes = {}
        for column in self.qid:
            recoding = self.recodings[column]
            if (
                recoding.by_value is not None
                and recoding.by_value.min(initial=0) >= 0
                and recoding.labels.is_unique
            ):  # a label for every value (a full-domain recoding): the labels are the values
                found[column] = recoding.codes, recoding.labels
                continue
            original = frequencies.codes[:, frequencies.position(column)]
            kept_as_read = recoding.codes == KEEP
            if recoding.labels.is_unique and not (original[kept_as_read] >= 0).any():
                # every value is written as a label (or is missing): the labels are the values
                found[column] = np.where(kept_as_read, -1, recoding.codes), recoding.labels
                continue
            codes, _, values = merged_codes(
                frequencies.values[column], recoding.labels, original, recoding.codes
            )
            found[column] = codes, values
        self._memo["written"] = (self.recodings, found)
        return found

    def output_classes(self, written: WrittenCodes | None = None) -> tuple[np.ndarray, int]:
        """The output class of each combination of the frequency set, and how many classes:
        combinations written alike in every quasi-identifier (a label equal to a value kept
        as read is that value), kept ones (suppressed combinations are in no class; their
        number here is meaningless). ``written``: :meth:`written_codes`, when computed."""
        memo = self._memo.get("classes")
        if memo is not None and memo[0][0] is self.recodings and memo[0][1] is self.suppressed:
            return memo[1]
        written = self.written_codes() if written is None else written
        kept = ~self.suppressed
        some_suppressed = not kept.all()
        codes = []
        for column_codes, v in written.values():
            if column_codes.min(initial=0) < 0:  # missing: a code of its own
                column_codes = np.where(column_codes < 0, len(v), column_codes)
            codes.append(np.where(kept, column_codes, 0) if some_suppressed else column_codes)
        cardinalities = [len(v) + 1 for _, v in written.values()]  # missing: one more code
        found = compress(group_codes(codes, cardinalities, n_rows=len(self.suppressed)))
        self._memo["classes"] = ((self.recodings, self.suppressed), found)
        return found

    def judged(
        self, judge: GroupJudge, qi_of: np.ndarray, kept: np.ndarray | None = None
    ) -> Transformation:
        """This transformation with the level each of ``judge``'s models reaches on its
        output classes (for a method that groups the combinations of the quasi-identifier
        itself: ``qi_of`` maps each combination of the frequency set to its combination of
        the quasi-identifier, which are written alike; ``kept``: those not suppressed)."""
        output_class, _ = self.output_classes()
        of_qi = np.zeros(judge.n_qi, dtype=np.int64)
        of_qi[qi_of] = output_class
        return replace(self, privacy=judge.reached(of_qi, kept))

    def boxes(self) -> pd.DataFrame:
        """What each output class stands for: one row per box, each quasi-identifier's
        description (the label the class is written with: a range, a set, a hierarchy's
        label, the value itself when every row of the class holds it; for a column written
        as a summary value, the range it summarizes) and the box's ``rows``, largest first.

        Suppressed rows are in no box. A box of a single row (possible only with k = 1) is
        left out: its description would be that row's values.
        """
        described = replace(self, recodings={**self.recodings, **self.described})
        written = described.written_codes()
        box, n = described.output_classes(written)
        kept = np.flatnonzero(~self.suppressed)
        counts = self.tabulation.frequencies.counts
        rows = np.bincount(box[kept], weights=counts[kept], minlength=n).astype(np.int64)
        first = np.full(n, -1, dtype=np.int64)
        first[box[kept[::-1]]] = kept[::-1]  # the first combination of each box
        shown = np.flatnonzero(rows >= 2)
        shown = shown[np.argsort(-rows[shown], kind="stable")]
        keys = column_keys(self.qid)
        data = {}
        for column, (codes, values) in written.items():
            at = codes[first[shown]]
            values = whole_as_read(values, self.tabulation.frequencies.values[column])
            data[keys[column]] = pd.Series(values, dtype=object).reindex(at).to_numpy()
        out = pd.DataFrame(data)
        out["rows"] = rows[shown]
        return out

    @with_pooled_memory
    def apply(self, frame: Any, *, suppress: str = "mask", salt: bytes | str | None = None) -> Any:
        """The output: a copy of ``frame`` with the transformation written
        (:meth:`write`), the direct identifiers dropped, hashed or kept, the suppressed rows
        masked (``suppress="mask"``) or left out (``"drop"``), and the report attached with
        the rows modified. ``salt``: the key of ``"hash"``, a secret of at least 16 bytes
        (default, or empty: a random one, never stored; :func:`~.pseudonyms.salt_key`). A
        transformation decided on a Dask frame writes that frame lazily, each partition's
        rows as their combinations are written (:meth:`_apply_distributed`).

        ``frame`` must be the frame decided on: as many rows, in the same order, each
        holding the values it held in every column the decision read (the
        quasi-identifier, and the sensitive column when given); its index and its other
        columns may differ. Every method decides per combination of those rows, and what
        it decided (classes of at least k rows, the rows suppressed, the report's figures)
        holds for them only: even a full-domain recoding, whose labels are a function of
        each value, leaves classes below k on other rows, and its report would describe
        rows that are not there. Any other frame (rows shuffled, other values, more or
        fewer rows) raises :class:`~pandas_anon.errors.InvalidParameterError`: decide on
        it instead, or select and reorder the output of the frame decided on. A Dask frame
        is not read again to check it (its rows are written lazily, each joined with its
        combination by value): a row whose combination the decision never saw raises the
        same error when the output is computed.
        """
        one_of(suppress, "suppress", ("mask", "drop"))
        key = salt_key(salt)  # checked even when no column is hashed
        if self.digest is not None or is_dask(frame):
            return self._apply_distributed(frame, suppress, key)
        written = self.write(frame)
        out = _treat_identifiers(written.frame, self.identifiers, self.treatment, key)
        if suppress == "drop":
            out = out.loc[~written.suppressed]
        if self.report is None:
            return out
        return attach(out, self.report.after_writing(int(written.modified.sum()), written.changed))

    def _apply_distributed(self, frame: Any, suppress: str, key: bytes) -> Any:
        """:meth:`apply` on the Dask frame this was decided on: its digest written as
        :meth:`write` writes rows (each combination weighing its rows in the report), then
        each partition's rows joined with the written combinations, lazily."""
        if self.digest is None or not is_dask(frame):
            decided, given = (
                ("a pandas", "a Dask") if self.digest is None else ("a Dask", "a pandas")
            )
            raise InvalidParameterError(
                f"this transformation was decided on {decided} frame and cannot write "
                f"{given} frame: apply it to the frame it was decided on"
            )
        counts = self.digest.counts
        written = self.write(self.digest.frame, weights=counts)
        keys = list(self.tabulation.frequencies.columns)
        replaced = [  # and a column of whole numbers read as floats, written as integers
            c
            for c in self.qid
            if written.changed[c] or written.frame[c].dtype != self.digest.frame[c].dtype
        ]
        table = self.digest.frame[keys].copy()
        for j, column in enumerate(replaced):
            table[_written_name(j)] = written.frame[column]  # the same index, and dtype
        table[_SUPPRESSED_NAME] = written.suppressed
        if len(self.digest.frame.columns) > len(keys):  # a digest of more columns than these
            table = dask_backend().distinct(table, keys)  # as written
        out = dask_backend().rewrite(
            frame,
            keys,
            table,
            {column: _written_name(j) for j, column in enumerate(replaced)},
            flag=_SUPPRESSED_NAME,
            drop_flagged=suppress == "drop",
            then=partial(
                _treat_identifiers,
                columns=self.identifiers,
                treatment=self.treatment,
                key=key,
            ),
        )
        if self.report is None:
            return out
        modified = int(counts[written.modified].sum())
        return attach(out, self.report.after_writing(modified, written.changed))

    def write(self, frame: pd.DataFrame, *, weights: np.ndarray | None = None) -> Written:
        """Write the quasi-identifiers to a copy of ``frame``, the frame the transformation
        was decided on (its rows in the same order, each holding the values read in every
        column the decision read; other columns and the index may differ): any other frame
        is refused (:meth:`apply`). ``frame`` is unchanged. ``weights``: the rows each row of
        ``frame`` stands for (a Dask frame's digest, the very rows tabulated), which the
        counts of rows changed add up.

        A column holding the very data the transformation was decided on is written per
        combination, then spread to the rows in one pass (:meth:`Tabulation.combination_codes`);
        any other column is read again, checked row by row against the values decided on,
        and written row by row.

        A column of whole numbers read as floats (a year column with a missing value,
        :func:`~pandas_anon.anonymization.recoding.whole_floats`) is written as the integers
        it holds, as the nullable integer column it stands for would be: ``Int64`` when every
        value is kept as read, else each whole number an integer beside the labels
        (:func:`~pandas_anon.anonymization.recoding.as_whole_numbers`), so that no cell is
        written ``1986.0``. Each value keeps a spelling of its own: the classes written are
        those counted, and no row is counted as changed."""
        tabulation = self.tabulation
        if weights is None:
            self._refuse_other_rows(frame)
        suppressed_rows = tabulation.rows_where(self.suppressed)
        modified_rows = suppressed_rows.copy()
        modified_combinations = self.suppressed.copy()
        changed: dict[Hashable, int] = {}
        out = output_copy(frame)
        for column in self.qid:
            recoding = self.recodings[column]
            read = (
                tabulation.combination_codes(column_array(frame, column), column)
                if weights is None and tabulation.weights is None  # the counts are rows
                else None
            )
            labelled = (
                None
                if read is None
                else labels_as_text(
                    *read,
                    recoding.labels,
                    recoding.codes,
                    self.suppressed,
                    SUPPRESSED,
                    by_value=recoding.by_value,
                )
            )
            if labelled is not None:  # every combination labelled: copied from the labels
                modified_combinations |= labelled.changed
                changed[column] = int(tabulation.frequencies.counts[labelled.changed].sum())
                if changed[column] or suppressed_rows.any():  # by position: no Series
                    out.isetitem(
                        cast(int, out.columns.get_loc(column)),  # one: column_array checked it
                        labelled.as_array(
                            rows=tabulation.row_combination, counts=tabulation.frequencies.counts
                        ),
                    )
                continue
            if read is not None:
                written, flags = self._written(column, *read, recoding.codes, self.suppressed)
                modified_combinations |= flags
                changed[column] = int(tabulation.frequencies.counts[flags].sum())
                codes = written.codes[tabulation.row_combination]
                values = read[1]
            else:
                held = self._held(column_array(frame, column), column, check=weights is None)
                written, flags = self._written(
                    column, *held, self._row_labels(column), suppressed_rows
                )
                modified_rows |= flags
                changed[column] = int(flags.sum() if weights is None else weights[flags].sum())
                codes = written.codes
                values = held[1]
            if changed[column] or suppressed_rows.any():
                shown = whole_as_read(written.values, values)
                out[column] = as_column(codes, shown, frame.index, column)
            elif whole_floats(values):  # every value as read: whole numbers, as integers
                out[column] = out[column].astype("Int64")
            # else the column is the copy's own
        modified = modified_rows | tabulation.rows_where(modified_combinations)
        return Written(out, modified, suppressed_rows, changed)

    def _written(
        self,
        column: Hashable,
        value_codes: np.ndarray,
        values: pd.Index,
        label_codes: np.ndarray,
        suppressed: np.ndarray,
    ) -> tuple[Recoded, np.ndarray]:
        """A column written on some entries (rows, or combinations): each entry's value
        (``value_codes`` into ``values``) replaced by its label (``label_codes`` into the
        recoding's labels, or KEEP), the ``suppressed`` entries marked; and the entries
        changed (suppressed cells included)."""
        recoded = relabel(value_codes, pd.Index(values), self.recodings[column].labels, label_codes)
        if not suppressed.any():
            return recoded, recoded.changed
        written, starred = recoded.marked(suppressed, SUPPRESSED)
        return written, recoded.changed | starred

    def _refuse_other_rows(self, frame: pd.DataFrame) -> None:
        """Refuse a frame that is not the one decided on: another number of rows, or other
        values in a column the decision read beside the quasi-identifier (the sensitive
        column; the quasi-identifier's columns are checked as they are written)."""
        resolve_columns(frame, list(self.qid))  # a frame holding the quasi-identifier
        tabulation = self.tabulation
        if len(frame) != tabulation.n_rows:
            raise not_decided(
                f"this transformation was decided on a frame of {tabulation.n_rows:,} rows "
                f"and this one holds {len(frame):,}"
            )
        for column in tabulation.frequencies.columns:
            if column not in self.qid and column in frame.columns:
                self._held(column_array(frame, column), column, check=True)

    def _held(self, values: Any, column: Hashable, *, check: bool) -> tuple[np.ndarray, pd.Index]:
        """A column of the frame read row by row: each row's value code (-1: missing) and
        the values. ``check``: refuse the column unless each row examined holds the value
        its combination was decided with (equal as the engine compares values)."""
        row_codes, uniques = factorize(values, where=f"column {column!r}")
        uniques = inferred(uniques, pd.Index)
        if not check:
            return row_codes, uniques
        tabulation, frequencies = self.tabulation, self.tabulation.frequencies
        decided_values = frequencies.values[column]
        missing = np.flatnonzero(np.asarray(decided_values.isna()))
        position = np.append(  # a missing value last: where the decided values hold one
            positions_among(uniques, decided_values), missing[0] if len(missing) else -2
        )
        held = position[row_codes]
        if tabulation.positions is not None:
            held = held[tabulation.positions]
        decided = frequencies.codes[:, frequencies.position(column)][tabulation.row_combination]
        if not np.array_equal(held, decided):
            raise not_decided(
                f"column {column!r} of this frame does not hold, row for row, the values the "
                f"transformation was decided on (other values, or rows in another order)"
            )
        return row_codes, uniques

    def _row_labels(self, column: Hashable) -> np.ndarray:
        """Each row's label code in ``column`` (KEEP on the rows not examined), from its
        combination: the rows are those decided on (:meth:`_held` checked them)."""
        recoding = self.recodings[column]
        examined = self.tabulation.positions
        per_row = recoding.codes.astype(narrow_codes(len(recoding.labels)), copy=False)[
            self.tabulation.row_combination
        ]
        if examined is None:
            return per_row
        row_labels = np.full(self.tabulation.n_rows, KEEP, dtype=per_row.dtype)
        row_labels[examined] = per_row
        return row_labels


def not_decided(problem: str) -> InvalidParameterError:
    """The error of :meth:`Transformation.apply` given a frame other than the one decided
    on: the ``problem``, and the fixes."""
    return InvalidParameterError(
        f"frame: {problem}. A transformation writes the frame it was decided on, row for "
        f"row, since its classes, suppression and report are those of these rows: decide on "
        f"this frame (pandas_anon.anonymize(frame, ...)), or apply the decision to the frame "
        f"it was decided on and then select or reorder the output (.loc[...])"
    )


def _treat_identifiers(
    out: pd.DataFrame, columns: Sequence[Hashable], treatment: str, key: bytes
) -> pd.DataFrame:
    """Drop or hash (keyed by ``key``) the direct identifier ``columns`` of ``out`` (or
    keep them)."""
    if not columns or treatment == "keep":
        return out
    if treatment == "drop":
        return out.drop(columns=list(columns))
    for column in columns:
        out[column] = keyed_hash(out[column], key)
    return out


def _written_name(j: int) -> str:
    """The column of the ``j``-th rewritten quasi-identifier in a table of written
    combinations (:meth:`Transformation._apply_distributed`)."""
    return f"__pandas_anon_written_{j}__"


#: The column flagging the suppressed combinations in that table.
_SUPPRESSED_NAME = "__pandas_anon_suppressed__"

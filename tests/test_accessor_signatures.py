"""The ``df.anon`` accessor hides no parameter: each method spells out the parameters of the
function it forwards to (with ``**options`` expanded into the parameters of the function they
reach), with the same names, kinds, defaults and types, and passes each on; no method takes
``**kwargs``; every method carries a numpydoc docstring.

A new parameter of a function, or a new option of the function its ``**options`` reach, fails
here until the accessor method lists it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pytest

from pandas_anon import KAnonymity
from pandas_anon.accessor import AnonAccessor, DaskAnonAccessor
from pandas_anon.anonymization import generalize, intervals, kanon, reports
from pandas_anon.anonymization.noise import ke, planning
from pandas_anon.anonymization.reinforcement import reinforce
from pandas_anon.detect import best_qid, figures, individual, suda
from pandas_anon.studies import attacks, compare, handover, strategy

VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


@dataclass(frozen=True)
class Forward:
    """What an accessor method forwards to: ``function``, then the functions its
    ``**options`` reach in turn (``options``), less the parameters a function of the chain
    sets itself (``fixed``: ``compare`` gives ``anonymize`` its ``algo=``)."""

    function: Any
    options: tuple[Any, ...] = ()
    fixed: tuple[str, ...] = field(default=())


FORWARDS = {
    "singletons": Forward(figures.singletons),
    "identifiers": Forward(figures.identifiers),
    "best_qid": Forward(best_qid.best_qid),
    "risk": Forward(figures.risk),
    "individual_risk": Forward(individual.individual_risk),
    "suda": Forward(suda.suda),
    "generalize": Forward(generalize.generalize),
    "report": Forward(reports.report_of),
    "kanon": Forward(kanon.kanon, options=(kanon.anonymize,)),
    "ke_anon": Forward(ke.ke_anon, options=(ke.ke_decide,)),
    # ke_plan gives ke_decide progress=False: its own progress is ke_plan's
    "ke_plan": Forward(planning.ke_plan, options=(ke.ke_decide,)),
    "compare": Forward(compare.compare, options=(kanon.anonymize,), fixed=("algo",)),
    "study": Forward(strategy.study),
    "attacks": Forward(attacks.attacks),
    "report_html": Forward(handover.report_html),
    "intervals": Forward(intervals.intervals),
    "reinforce": Forward(
        reinforce.reinforce, options=(kanon.kanon, kanon.anonymize), fixed=("algo", "l", "t")
    ),
}

ACCESSORS = [AnonAccessor, DaskAnonAccessor]


def public_methods(cls: type) -> dict[str, Any]:
    return {
        name: method
        for name, method in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_")
    }


METHODS = [(cls, name) for cls in ACCESSORS for name in sorted(public_methods(cls))]
IDS = [f"{cls.__name__}.{name}" for cls, name in METHODS]


def method_parameters(method: Any) -> dict[str, inspect.Parameter]:
    """The parameters of an accessor method, after ``self``."""
    return dict(list(inspect.signature(method).parameters.items())[1:])


def expected_parameters(forward: Forward) -> dict[str, inspect.Parameter]:
    """The parameters of the forwarded function after the frame, its ``**options`` expanded
    into the keyword-only parameters of each function they reach (a name already taken, or
    fixed by the chain, is not added again)."""
    chain = [forward.function, *forward.options]
    for outer, inner in zip(chain, chain[1:]):
        kinds = [p.kind for p in inspect.signature(outer).parameters.values()]
        assert inspect.Parameter.VAR_KEYWORD in kinds, (
            f"{outer.__qualname__} takes no **options: {inner.__qualname__} is not reached"
        )
    last = inspect.signature(chain[-1]).parameters.values()
    assert not [p for p in last if p.kind in VARIADIC], (
        f"{chain[-1].__qualname__} takes **options: add the function they reach to FORWARDS"
    )
    found = {
        p.name: p
        for p in list(inspect.signature(forward.function).parameters.values())[1:]
        if p.kind not in VARIADIC
    }
    for inner in forward.options:
        for p in inspect.signature(inner).parameters.values():
            if p.kind is inspect.Parameter.KEYWORD_ONLY:
                if p.name not in found and p.name not in forward.fixed:
                    found[p.name] = p
    return found


def test_every_public_method_is_examined():
    assert set(public_methods(AnonAccessor)) == set(FORWARDS)
    assert set(public_methods(DaskAnonAccessor)) <= set(FORWARDS)


#: How to call a function with fixed parameters, up to the function its options reach.
FIXING_CALLS = {
    "compare": lambda function, frame: function(frame, 2),
    "reinforce": lambda function, frame: function(frame, KAnonymity(2), sensitive="a"),
}


class Reached(Exception):
    """Raised by the stand-in of the function the options reach, once it has its call."""


def test_every_function_with_fixed_parameters_is_called():
    assert {n for n in FORWARDS if FORWARDS[n].fixed} == set(FIXING_CALLS)


@pytest.mark.parametrize("name", sorted(FIXING_CALLS))
def test_the_fixed_parameters_are_set_by_the_function(monkeypatch, name):
    """A parameter left out of the expansion is one the forwarding function passes itself
    (``algo=method``), so that the accessor could not pass it twice."""
    forward = FORWARDS[name]
    received: dict[str, Any] = {}

    def reached(*args: Any, **kwargs: Any) -> None:
        received.update(kwargs)
        raise Reached

    module = inspect.getmodule(forward.function)
    monkeypatch.setattr(module, forward.options[0].__name__, reached)
    with pytest.raises(Reached):
        FIXING_CALLS[name](forward.function, pd.DataFrame({"a": [1]}))
    assert set(forward.fixed) <= received.keys(), f"{name} passes {sorted(received)}"


@pytest.mark.parametrize(("cls", "name"), METHODS, ids=IDS)
def test_no_method_hides_parameters(cls, name):
    hidden = [p.name for p in method_parameters(getattr(cls, name)).values() if p.kind in VARIADIC]
    assert not hidden, f"{cls.__name__}.{name} takes *args or **kwargs: {hidden}"


@pytest.mark.parametrize(("cls", "name"), METHODS, ids=IDS)
def test_method_takes_every_parameter_of_its_function(cls, name):
    """Same names, kinds, defaults and type hints (as written: the modules use postponed
    annotations), and none more."""
    method = method_parameters(getattr(cls, name))
    expected = expected_parameters(FORWARDS[name])
    missing = [p for p in expected if p not in method]
    assert not missing, f"{cls.__name__}.{name} lacks the parameters {missing}"
    extra = [p for p in method if p not in expected]
    assert not extra, f"{cls.__name__}.{name} takes parameters its function does not: {extra}"
    for parameter in expected.values():
        got = method[parameter.name]
        where = f"{cls.__name__}.{name}({parameter.name})"
        assert got.default == parameter.default, f"{where}: default {got.default!r}"
        assert got.kind == parameter.kind, f"{where}: {got.kind.description}"
        assert got.annotation == parameter.annotation, f"{where}: type {got.annotation!r}"


@pytest.mark.parametrize(("cls", "name"), METHODS, ids=IDS)
def test_method_passes_each_parameter_on(monkeypatch, cls, name):
    """Each parameter given to the method reaches the function under its own name (and the
    frame comes first)."""
    forward = FORWARDS[name]
    calls: list[tuple[tuple, dict]] = []

    def fake(*args: Any, **kwargs: Any) -> None:
        calls.append((args, kwargs))

    module = inspect.getmodule(forward.function)
    monkeypatch.setattr(module, forward.function.__name__, fake)
    frame = pd.DataFrame({"a": [1]})
    given = {p: object() for p in method_parameters(getattr(cls, name))}
    getattr(cls(frame), name)(**given)
    [(args, kwargs)] = calls
    bound = inspect.signature(forward.function).bind(*args, **kwargs).arguments
    assert next(iter(bound.values())) is frame
    received = {k: v for k, v in list(bound.items())[1:] if k != "options"}
    received |= bound.get("options", {})
    assert received.keys() == given.keys()
    assert all(received[p] is given[p] for p in given), f"{name}: a parameter passed wrong"


def sections(doc: str) -> dict[str, str]:
    """The numpydoc sections of a docstring, each title (a line underlined with dashes)
    with its text."""
    found: dict[str, str] = {}
    title = None
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and line.strip() and set(lines[i + 1].strip()) == {"-"}:
            title = line.strip()
            found[title] = ""
        elif title is not None and set(line.strip()) != {"-"}:
            found[title] += line + "\n"
    return found


def documented(parameters: str) -> set[str]:
    """The names a Parameters section describes: its unindented lines, before `` : ``."""
    return {
        n.strip().lstrip("*")
        for line in parameters.splitlines()
        if line and not line[0].isspace()
        for n in line.split(" : ")[0].split(",")
    }


@pytest.mark.parametrize(("cls", "name"), METHODS, ids=IDS)
def test_method_has_a_numpydoc_docstring(cls, name):
    method = getattr(cls, name)
    doc = inspect.getdoc(method) or ""
    assert doc.startswith(f"``DataFrame.anon.{name}``"), f"{name}: the summary names no method"
    found = sections(doc)
    for section in ("Returns", "See Also", "Examples"):
        assert section in found, f"{name}: no {section} section"
    takes = method_parameters(method)
    if takes:
        assert "Parameters" in found, f"{name}: no Parameters section"
        missing = [p for p in takes if p not in documented(found["Parameters"])]
        assert not missing, f"{name}: parameters not described: {missing}"
    assert FORWARDS[name].function.__name__ in found["See Also"]
    assert ">>> import pandas_anon" in found["Examples"]

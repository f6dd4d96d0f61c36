"""``pandas-anon plugins``: the installed plugins (broken ones with their problem) and the named
hierarchies they provide; with ``--check``, each installed plugin checked by
:func:`pandas_anon.testing.check_plugin`."""

from __future__ import annotations

import argparse
import json
import textwrap

HELP = "list the installed plugins and the hierarchies they provide"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``plugins``."""
    command.add_argument("--format", choices=("table", "json"), default="table")
    command.add_argument(
        "--check",
        nargs="*",
        metavar="NAME",
        help="check the hierarchies of the installed plugins (or of those named) with "
        "pandas_anon.testing.check_plugin: valid registrations, no name or claim colliding "
        "with another plugin, canonical hierarchies that build, trees, unambiguous labels, "
        "factories within --max-seconds; exit 1 when a plugin has a problem",
    )
    command.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        metavar="S",
        help="with --check: limit on the hook and on each factory call (default 2)",
    )
    command.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="CHECK",
        help="with --check: a check not to run (repeatable): register, name, claims, "
        "canonical, factory, coverage, levels, labels, time",
    )


def run(args: argparse.Namespace) -> int:
    """Print plugins and hierarchies; exit 0 even when a plugin is broken (it is listed).
    With ``--check``: print each plugin's check, exit 1 when one has a problem."""
    if args.check is not None:
        return _check(args)
    from pandas_anon import formatting as report
    from pandas_anon.plugins.registry import hierarchies, plugin_status

    status, named = plugin_status(), hierarchies()
    if args.format == "json":
        named["claims"] = named["claims"].map(list)
        print(
            json.dumps(
                {"plugins": status.to_dict("records"), "hierarchies": named.to_dict("records")},
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    status["problem"] = status["problem"].map(lambda text: _wrap(text, 60))
    named = named.drop(columns="source")  # the plugins table says where each plugin is from
    named["description"] = named["description"].map(lambda text: _wrap(text, 44))
    named["claims"] = named["claims"].map(lambda claims: _wrap(", ".join(claims), 26))
    print(report.render("Plugins", [], ("", status)))
    print()
    print(report.render("Hierarchies", [], ("", named)))
    return 0


def _check(args: argparse.Namespace) -> int:
    from pandas_anon.errors import InvalidParameterError
    from pandas_anon.plugins import manager
    from pandas_anon.testing import MAX_SECONDS, check_plugin

    installed = [
        r.name
        for r in manager.records()
        if r.status in ("ok", "broken") and r.source not in ("built-in", manager.RUNTIME)
    ]
    names = args.check or installed
    if not names:
        raise InvalidParameterError(
            "--check: no plugin is installed (or PANDAS_ANON_PLUGINS leaves them all out); "
            "pip install one, or name it: --check NAME"
        )
    limit = MAX_SECONDS if args.max_seconds is None else args.max_seconds
    checks = [check_plugin(name, max_seconds=limit, skip=args.skip) for name in names]
    if args.format == "json":
        print(json.dumps([c.to_dict() for c in checks], indent=2, ensure_ascii=False))
    else:
        print("\n\n".join(repr(c) for c in checks))
    return 0 if all(c.ok for c in checks) else 1


def _wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters, words kept whole."""
    return textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False)

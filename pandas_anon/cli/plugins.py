"""``pandas-anon plugins``: the installed plugins (broken ones with their problem) and the named
hierarchies they provide."""

from __future__ import annotations

import argparse
import json
import textwrap

HELP = "list the installed plugins and the hierarchies they provide"


def add_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of ``plugins``."""
    command.add_argument("--format", choices=("table", "json"), default="table")


def run(args: argparse.Namespace) -> int:
    """Print plugins and hierarchies; exit 0 even when a plugin is broken (it is listed)."""
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


def _wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters, words kept whole."""
    return textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False)

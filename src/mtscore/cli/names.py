"""``--names``: the system names shown in tables, JSON, score files and reports (default: the file names without
the folders and the extension they all share, :func:`mtscore.io.names.short_names`)."""
from __future__ import annotations

import argparse
import dataclasses

from ..io.names import system_names


def add_names_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--names", nargs="+", metavar="NAME", default=None,
                   help="system names, one per -i file in order (default: the file names without the folders and the "
                        "extension all of them share: ONLINE-A.txt is ONLINE-A); used in tables, JSON, --baseline "
                        "and reports")


def display_names(args, paths) -> list[str]:
    return system_names(list(paths), getattr(args, "names", None))


def relabel(args, names, results):
    """(display names, results keyed by display name, {display name: path})."""
    shown = display_names(args, names)
    mapping = dict(zip(names, shown))
    out = {}
    for (sysname, label), r in results.items():
        new = mapping.get(sysname, sysname)
        out[(new, label)] = dataclasses.replace(r, system=new) if dataclasses.is_dataclass(r) else r
    return shown, out, dict(zip(shown, names))


def resolve_baseline(value, paths, shown):
    """``--baseline`` given as a file of -i, a shown name or an extra file: the path to use."""
    if value is None or value in paths:
        return value
    if value in shown:
        return paths[shown.index(value)]
    import os
    if not os.path.exists(value):  # neither a system nor a file: name the systems there are
        from ..errors import InvalidParameterError, did_you_mean
        raise InvalidParameterError(f"--baseline: must be one of the systems ({', '.join(shown)}) or a file, got "
                                    f"{value!r}" + did_you_mean(value, list(shown) + list(paths)))
    return value

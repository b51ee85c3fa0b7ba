"""``mtscore cache``: where the neural score cache is, how many segment scores (and LLM judge answers) it holds and
its size on disk; ``--clear`` empties it (docs/neural-metrics.md, "The score cache"; docs/llm-judges.md)."""
from __future__ import annotations

import argparse

from ..errors import InputError
from ..report import render_table
from ..report.cache import cache_table
from .main import write_stdout
from .options import add_format_option


def add_parser(sub) -> None:
    p = sub.add_parser("cache", help="show (or --clear) the neural metrics' score cache",
                       description="Show the neural score cache: its file ($MTSCORE_CACHE_DIR/neural.sqlite, default "
                                   "$XDG_CACHE_HOME/mtscore or ~/.cache/mtscore), the segment scores it holds and its "
                                   "size in bytes. --clear empties it.")
    p.add_argument("--clear", action="store_true", help="remove every stored score (and model digest) and every LLM "
                   "judge answer first")
    add_format_option(p, width=0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """An unusable cache (MTSCORE_CACHE_DIR naming a file, neural.sqlite a folder or another file, a cache
    another process keeps locked) is a one-line error, never shown as empty."""
    from ..llm.cache import AnswerStore
    from ..neural.cache import ScoreCache
    cache = ScoreCache()
    answers = AnswerStore(cache.path)
    notes = []
    try:
        if args.clear:
            try:
                before = cache.stats()
            except InputError:  # a file of another schema: --clear makes its tables anew
                before = {"entries": "?", "bytes": cache.path.stat().st_size}
            cache.clear()
            notes.append(f"cleared: {before['entries']} entries, {before['bytes']} bytes before")
            if cache.path.is_file():
                notes.append(f"cleared: {answers.clear()} LLM judge answers")
        st = cache.stats()
        if cache.path.is_file():
            llm = answers.stats()
            notes.append(f"LLM judge answers (gemba-esa, gemba-mqm, gemba-da): {llm['entries']} from "
                         f"{llm['models']} models, in the same file")
    finally:
        cache.close()
        answers.close()
    notes.append("MTSCORE_NO_CACHE=1, --no-cache or cache=false: neural metrics neither read nor write it")
    write_stdout(render_table(cache_table(st, notes), args.format))
    return 0

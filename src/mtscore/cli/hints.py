"""Warnings about the tokenizer (one line each on stderr; the scores are computed as asked):

* ``-l SRC-TGT`` with TGT zh, ja or ko and another ``--tokenize``: sacreBLEU's "Consider using the ... tokenizer";
* ``-t`` with ``--tokenize none``: sacreBLEU's "You are turning off BLEU's internal tokenizer ...";
* the references are mostly Han, Kana or Hangul but are scored with 13a, which the user did not choose
  (no ``--tokenize``, no ``-l``): the warning names the tokenizer that suits them;
* a hypothesis file has 100 or more lines ending in a tokenized period (``" ."``): sacreBLEU's warning that the
  output looks tokenized. ``--force`` silences it, as in sacreBLEU.
"""
from __future__ import annotations

import dataclasses
import re
import sys
from itertools import repeat

from ..tokenize import looks_tokenized, script_hint
from ..tokenize.languages import TOKENIZED_PERIOD_LINES, TOKENIZED_WARNING
from .options import option_dest, parse_metric_spec

SAMPLE_CHARS = 1 << 18  # characters of the first reference stream the script check looks at
_TOK_PERIOD = re.compile(r" \.[ \t\r\x0b\x0c]*\Z")  # a line ending in a tokenized period (trailing blanks allowed)
_EXAMPLE_TGT = {"zh": "zh", "ja-mecab": "ja", "ko-mecab": "ko"}
_LANG_NAMES = {"zh": ("zh", "Chinese"), "ja": ("ja-mecab", "Japanese"), "ko": ("ko-mecab", "Korean")}


def _default_13a(args, metrics) -> bool:
    """Some metric tokenizes with 13a without the user having chosen a tokenizer."""
    if getattr(args, option_dest("tokenize"), None) is not None or getattr(args, "langpair", None):
        return False
    inline = {parse_metric_spec(s)[0] for s in getattr(args, "metrics", []) if "tokenize=" in s}
    for m in metrics:
        fields = {f.name for f in dataclasses.fields(m.config)} if dataclasses.is_dataclass(m.config) else set()
        if "tokenize" in fields and getattr(m.config, "tokenize", None) == "13a" and m.name not in inline:
            return True
    return False


def option_warnings(args) -> list[str]:
    """The warnings that follow from the options alone (printed before any input is read)."""
    out = []
    lp = getattr(args, "langpair", None)
    chosen = getattr(args, option_dest("tokenize"), None)
    if lp and chosen is not None and "-" in lp:
        tgt = lp.split("-", 1)[1].lower()
        if tgt in _LANG_NAMES and chosen != _LANG_NAMES[tgt][0]:  # sacreBLEU's warning, same words
            out.append(f"mtscore: warning: Consider using the '{_LANG_NAMES[tgt][0]}' or 'spm' tokenizer for "
                       f"{_LANG_NAMES[tgt][1]}.")
    if getattr(args, "testset", None) and chosen == "none":  # sacreBLEU's words
        out.append("mtscore: warning: You are turning off BLEU's internal tokenizer presumably to supply your own "
                   "tokenized files. Published numbers will not be comparable to other papers.")
    return out


class InputHints:
    """The warnings that depend on the text, gathered from the text *as the command reads it* (``observe`` is
    called with each partition of hypothesis columns and sentence-major references): no input is opened a
    second time, so streaming stays streaming and a FIFO or standard input is read once.

    * the first ``SAMPLE_CHARS`` characters of the first reference stream -> the CJK-with-13a hint;
    * per hypothesis column, the lines ending in a tokenized period -> sacreBLEU's tokenized-output warning.

    Inputs the main process never sees (sharded files read by Dask workers) give no data warnings."""

    def __init__(self, args, metrics, ref_paths):
        refs = list(ref_paths or [])
        self.ref_label = refs[0] if refs else None
        self.want_script = bool(refs) and _default_13a(args, metrics)
        self.want_periods = not getattr(args, "force", False) and any(hasattr(m.config, "tokenize") for m in metrics)
        self.sample: list[str] = []
        self.sample_chars = 0
        self.periods: list[int] = []

    def observe(self, hyp_cols, refs) -> None:
        if self.want_periods:
            if len(self.periods) < len(hyp_cols):
                self.periods += [0] * (len(hyp_cols) - len(self.periods))
            for i, col in enumerate(hyp_cols):
                if self.periods[i] < TOKENIZED_PERIOD_LINES:
                    self.periods[i] += tokenized_periods(col)
        if self.want_script and self.sample_chars < SAMPLE_CHARS:
            for seg in refs:
                if not seg:
                    continue
                self.sample.append(seg[0])
                self.sample_chars += len(seg[0]) + 1
                if self.sample_chars >= SAMPLE_CHARS:
                    break

    def warnings(self, names) -> list[str]:
        """The warning lines; ``names[i]`` names hypothesis column ``i`` (its file)."""
        out = []
        if self.want_script and self.sample:
            text = "\n".join(self.sample)[:SAMPLE_CHARS]
            better = script_hint([text])
            if better is not None:
                out.append(f"mtscore: warning: most characters of the references ({self.ref_label}) are Han, Kana or "
                           f"Hangul, which 13a leaves unsplit; score them with --tokenize {better} "
                           f"(or -l SRC-{_EXAMPLE_TGT[better]})")
        for name, n in zip(names, self.periods):
            if n >= TOKENIZED_PERIOD_LINES:
                out.append(f"mtscore: warning: {name}: {TOKENIZED_WARNING} (--force silences this)")
        return out


def tokenized_periods(lines) -> int:
    """How many of ``lines`` end in a tokenized period (``_TOK_PERIOD``: " ." then only blanks): a line does
    exactly when, with its trailing blanks stripped, it ends in " ." (the period is no blank). Two C-level
    map calls per line, no joined copy of the text (the regular expression over the joined lines cost about
    three times as much: ~0.35 s per million lines, on the reading path of streamed corpora)."""
    return sum(map(str.endswith, map(str.rstrip, lines, repeat(_BLANKS)), repeat(" .")))


_BLANKS = " \t\r\x0b\x0c"  # the blanks _TOK_PERIOD allows after the period


def say(lines) -> None:
    for line in lines:
        sys.stderr.write(line + "\n")


__all__ = ["option_warnings", "InputHints", "say", "looks_tokenized"]


# commands whose references are given with -r (sacreBLEU's habit: the reference as the first positional)
_REF_COMMANDS = ("score", "compare", "report", "analyse", "audit", "meta")


def usage_hint(chain, argv, message: str, commands) -> str:
    """What to type instead, for argparse's "unrecognized arguments" / "invalid choice" messages: the closest
    option or command name (difflib), and for a positional file where a command takes ``-r REF``, the ``-r``
    option and ``mtscore sacrebleu`` (sacreBLEU's ``sacrebleu REF -i HYP``)."""
    import difflib

    if message.startswith("argument COMMAND"):
        bad = next((a for a in argv if not a.startswith("-")), "")
        close = difflib.get_close_matches(bad, list(commands), n=1, cutoff=0.6)
        return f"; did you mean '{close[0]}'?" if close else ""
    defined = sorted(set().union(*(set(getattr(p, "_option_string_actions", {})) for p in chain)))
    cmd = chain[-1].prog.split()[-1] if len(chain) > 1 else ""
    extras = message.split(":", 1)[1].split()
    hints = []
    for tok in extras:
        if tok.startswith("--") or (tok.startswith("-") and len(tok) > 2):
            flag = tok.split("=", 1)[0]
            close = difflib.get_close_matches(flag, defined, n=1, cutoff=0.6)
            if close:
                hints.append(f"did you mean {close[0]} for {flag}?")
        elif (not tok.startswith("-") and cmd in _REF_COMMANDS and "-r" in defined and tok in argv
              and not any(a in ("-r", "--refs", "--ref") for a in argv)):
            hints.append(f"references are given with -r ({cmd} -r REF -i HYP ...); for sacreBLEU's command line "
                         "with the reference first, use 'mtscore sacrebleu REF -i HYP'")
    return ("; " + "; ".join(dict.fromkeys(hints))) if hints else ""

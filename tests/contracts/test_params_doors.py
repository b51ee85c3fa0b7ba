"""One parameter rule: a word is a value where the parameter accepts it; "not given" is only the
absence of the option. Registry-driven: every parameter with declared choices of every registered metric,
every choice, through the three doors -- the Python API (``Metric(field=value)``), the metric option
(``--smooth none``) and the inline parameter (``-m bleu:smooth=none``) -- reaches the metric's Config and
its signature unchanged (same Config, same signature, or the same kind of error in all three).

Before the fix the text doors read ``none``/``null``/``default`` as "not given" for every nullable
parameter: ``--smooth none`` computed exp smoothing and signed ``smooth:exp``; ``-m rose:tokenize=none``
used 13a.
"""
from __future__ import annotations

import dataclasses

import pytest

from mtscore import params as P
from mtscore.cli.main import build_parser
from mtscore.cli.options import _applies, all_metric_options, make_metric
from mtscore.errors import MtscoreError
from mtscore.metrics.registry import get_metric_class, metric_names


def _cases():
    out = []
    for name in metric_names():
        cls = get_metric_class(name)
        fields = {f.name for f in dataclasses.fields(cls.Config)}
        for field, p in P.config_params(cls.Config).items():
            if field not in fields or p.choices is None:
                continue
            for choice in p.valid_choices():
                out.append((name, field, choice))
    return out


CASES = _cases()


def _outcome(build):
    try:
        m = build()
        return ("value", m.config, m.signature())
    except MtscoreError as exc:
        return ("error", type(exc).__name__)


def _flag_for(name, field):
    fields = {f.name for f in dataclasses.fields(get_metric_class(name).Config)}
    for opt in all_metric_options():
        if _applies(opt, name, fields) and opt.field == field:
            return opt.flag
    return None


def _via_flag(name, flag, choice):
    argv = ["score", "-r", "r.txt", "-i", "h.txt", "-m", name, flag, choice]
    args = build_parser(argv).parse_args(argv)  # a parser built for its command line (cli.main does the same)
    return make_metric(name, args)


def test_registry_has_the_cases_of_the_issue():
    assert ("bleu", "smooth", "none") in CASES
    assert ("rose", "tokenize", "none") in CASES
    assert len(CASES) > 100


@pytest.mark.parametrize("name,field,choice", CASES, ids=[f"{n}-{f}-{c}" for n, f, c in CASES])
def test_three_doors_agree(name, field, choice):
    cls = get_metric_class(name)
    api = _outcome(lambda: cls(**{field: choice}))
    inline = _outcome(lambda: make_metric(f"{name}:{field}={choice}"))
    assert inline[0] == api[0] and inline[1:] == api[1:], (inline, api)
    flag = _flag_for(name, field)
    if flag is not None:
        via_flag = _outcome(lambda: _via_flag(name, flag, choice))
        assert via_flag == api, (via_flag, api)
    if api[0] == "value":
        assert getattr(api[1], field) == choice  # the value itself, never "not given"


@pytest.mark.parametrize("word", ["none", "null", "default", "None"])
def test_words_are_not_the_default_on_the_command_line(word):
    """A nullable option that does not accept the word: an error naming it, not the default."""
    with pytest.raises(P.InvalidParameterError, match=f"--jobs: must be an integer in 1..1024, got '{word}'"):
        P.OPTIONS["jobs"].parse(word, "--jobs")


def test_smooth_none_signs_what_it_computes():
    m = make_metric("bleu:smooth=none")
    assert "smooth:none" in m.signature()
    args = build_parser(["score"]).parse_args(["score", "-r", "r", "-i", "h", "--smooth", "none"])
    assert "smooth:none" in make_metric("bleu", args).signature()
    assert "tok:none" in make_metric("rose:tokenize=none").signature()


def test_repeated_m_keeps_every_metric():
    """``-m bleu -m chrf`` scores both (argparse's default kept only the last one)."""
    args = build_parser(["score"]).parse_args(["score", "-r", "r", "-i", "h", "-m", "bleu", "-m", "chrf", "ter"])
    assert args.metrics == ["bleu", "chrf", "ter"]
    args = build_parser(["score"]).parse_args(["score", "-r", "r", "-i", "h"])
    assert args.metrics == ["bleu"]


def test_smooth_none_agrees_with_sacrebleu(tmp_path):
    """``--smooth none`` (corpus and sentence level, flag and inline) gives sacreBLEU's smooth_method='none'
    numbers: 0.0 where an order has no match (exp smoothing gave a positive score)."""
    import io
    import contextlib
    import json

    from sacrebleu.metrics import BLEU as SB

    from mtscore.cli.main import main

    refs = ["the cat is on the mat", "hello world , how are you today", "a dog ran far away from home",
            "it is raining", "one two three four five six"]
    hyps = ["the cat sat on the mat", "hello world", "a dog ran away from the house", "it rains",
            "one two three four five six"]
    (tmp_path / "r.txt").write_text("".join(x + "\n" for x in refs), encoding="utf-8")
    (tmp_path / "h.txt").write_text("".join(x + "\n" for x in hyps), encoding="utf-8")
    sb = SB(smooth_method="none")
    sb_eff = SB(smooth_method="none", effective_order=True)
    want_corpus = sb.corpus_score(hyps[:2] + hyps[3:4], [refs[:2] + refs[3:4]]).score
    want_sent = [sb_eff.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    assert want_corpus == 0.0 and any(0 < w < 100 for w in want_sent) and 0.0 in want_sent
    for how in (["--smooth", "none"], ["-m", "bleu:smooth=none"]):
        for level in ([], ["--sentence-level"]):
            buf = io.StringIO()
            r, h = str(tmp_path / "r.txt"), str(tmp_path / "h.txt")
            if not level:  # a corpus where one order has no match at all
                (tmp_path / "r3.txt").write_text("".join(x + "\n" for x in refs[:2] + refs[3:4]), encoding="utf-8")
                (tmp_path / "h3.txt").write_text("".join(x + "\n" for x in hyps[:2] + hyps[3:4]), encoding="utf-8")
                r, h = str(tmp_path / "r3.txt"), str(tmp_path / "h3.txt")
            with contextlib.redirect_stdout(buf):
                assert main(["score", "-r", r, "-i", h, *how, *level, "-f", "json", "-w", "17"]) == 0
            got = json.loads(buf.getvalue())
            text = json.dumps(got)
            assert "smooth:none" in text and "smooth:exp" not in text
            col = [c for c in got["columns"] if c.startswith("BLEU")][0]
            nums = [row[col] for row in got["rows"]]
            if level:
                assert nums == pytest.approx(want_sent, abs=1e-9), (nums, want_sent)
            else:
                assert nums == [want_corpus], nums

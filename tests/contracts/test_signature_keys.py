"""Signatures are built from the parameters' declarations: each ``Param`` declares its signature entry (``sig``:
the key; ``sig_fmt``: how the value is written; ``sig_when``: when it appears) and
``Metric.declared_signature`` writes them in the metric's order with the items that are not parameters
(docs/contributing-a-metric.md). The signatures themselves must not change. For every registered metric (those
that need a model file or a server aside: tests/neural/test_neural_metricx.py checks theirs), every choice of every
choice and boolean parameter and a few numbers, one parameter at a time and every pair of parameters, with 1, 2
and a varying number of references, the signature equals

* sacreBLEU 2.6's (the installed peer, a test-only dependency) for BLEU, chrF and TER wherever sacreBLEU has the
  parameters, byte for byte but the version; and
* the rules mtscore's signatures follow, written out below in plain Python from the parameters as given (the
  compatibility modes' defaults resolved here, not by the code under test), for every metric and setting."""
from __future__ import annotations

import dataclasses
import itertools
import math
from pathlib import Path
from typing import ClassVar

import pytest
from sacrebleu.metrics import BLEU as SBLEU, CHRF as SCHRF, TER as STER

from mtscore import __version__
from mtscore import params as P
from mtscore.errors import MtscoreError
from mtscore.metrics.base import Metric
from mtscore.metrics.registry import get_metric_class, registered_names
from mtscore.tokenize import tokenizer_signature

NEEDS_A_MODEL_OR_SERVER = {"comet", "cometkiwi", "xcomet", "metricx", "gemba-esa", "gemba-mqm", "gemba-da"}
NAMES = [n for n in registered_names(among=None) if n not in NEEDS_A_MODEL_OR_SERVER]
NREFS = (1, 2, "var")

# values beyond the declared choices and bounds: the built-in ROSE models and word lists, BLEU's weights
EXTRA = {"rose_model": ["reg", "rank", "regpos", "rankpos"], "function_words": ["en", "de", "zh", "cs", "he", "sk"],
         "weights": [None, (0.25, 0.25, 0.25, 0.25), (0.1, 0.2, 0.3, 0.4), (1.0, 0.0, 0.0, 0.0), (0.5, 0.5)]}
# files, names and free text: fixed by the test (scores) or not varied
NOT_VARIED = {"checkpoints", "name", "file", "range", "key"}


def _values(p: P.Param) -> list:
    if p.name in EXTRA:
        return list(EXTRA[p.name])
    if p.name in NOT_VARIED:
        return []
    out: list = []
    if p.kind == "bool":
        out = [False, True]
    elif p.kind == "choice" or (p.kind == "str" and p.choices is not None):
        out = list(p.valid_choices())
    elif p.kind in ("int", "float"):
        cand = [p.default, p.lo, p.hi]
        cand += [p.lo + 1, (p.lo + p.hi) // 2] if p.kind == "int" else \
            [p.lo + (p.hi - p.lo) * 0.37, 0.1, 1.2, 0.05, 5.0, 1.0, 0.0]
        for x in cand:
            if x is None:
                continue
            try:
                x = p.check(float(x) if p.kind == "float" else x)
            except MtscoreError:
                continue
            if x not in out:
                out.append(x)
    if p.nullable and None not in out:
        out.append(None)
    return out


def _combos(cls) -> list[dict]:
    vals = {k: v for k, v in ((k, _values(p)) for k, p in P.config_params(cls.Config).items()) if v}
    out: list[dict] = [{}]
    out += [{k: v} for k, vs in vals.items() for v in vs]
    if "nltk_alpha" in vals:  # entries written from several parameters: smooth[value], alpha-k
        for sm, comp in itertools.product(vals["smooth"], vals["compat"]):
            out += [{"compat": comp, "smooth": sm, "smooth_value": sv} for sv in vals["smooth_value"]]
            out += [{"compat": comp, "smooth": sm, "nltk_alpha": a, "nltk_k": k}
                    for a in vals["nltk_alpha"] for k in vals["nltk_k"][:4]]
    for (a, va), (b, vb) in itertools.combinations(vals.items(), 2):
        out += [{a: x, b: y} for x in va for y in vb]
    return out


# ---------------------------------------------------------------------------------------------------
# the rules, in plain Python: items from the parameters as given (``cfg``: the Config's field defaults updated
# with them); ``m`` is consulted only for what a metric reads from files (ROSE's model, a score file's digest)
# ---------------------------------------------------------------------------------------------------
def _case(lc):
    return "lc" if lc else "mixed"


def _bleu_rules(name, cfg, nrefs):
    compat, sbp = cfg["compat"], name == "bleu-sbp"
    if compat == "nltk":
        smooth = cfg["smooth"] or "method0"
        lc, eff = bool(cfg["lowercase"]), bool(cfg["effective_order"])
        tok = "none" if cfg["tokenize"] == "13a" else cfg["tokenize"]
        sv = 0.1 if cfg["smooth_value"] is None else cfg["smooth_value"]
        ref_length = cfg["ref_length"] or "closest"
    else:
        smooth = cfg["smooth"] or ("none" if compat == "mteval-v11b" else "exp")
        ref_length = cfg["ref_length"] or ("shortest" if compat == "mteval-v11b" or sbp else "closest")
        lc = cfg["lowercase"] if cfg["lowercase"] is not None else compat != "sacrebleu"
        eff, tok = bool(cfg["effective_order"]), cfg["tokenize"]
        sv = cfg["smooth_value"] if cfg["smooth_value"] is not None else {"floor": 0.1, "add-k": 1.0}.get(smooth)
    if smooth in ("floor", "add-k") or (smooth == "method1" and sv != 0.1):
        smooth = f"{smooth}[{sv:.2f}]"
    items = [("nrefs", nrefs), ("case", _case(lc)), ("eff", eff), ("tok", tokenizer_signature(tok)),
             ("smooth", smooth)]
    if ref_length != "closest":
        items.append(("bp", ref_length))
    if sbp:
        items.append(("brevity", "strict"))
    if cfg["max_order"] != 4:
        items.append(("order", cfg["max_order"]))
    if cfg["weights"] is not None:
        items.append(("weights", ",".join(f"{w:g}" for w in cfg["weights"])))
    if compat != "sacrebleu":
        items.append(("compat", compat))
    alpha_k = (cfg["nltk_alpha"], cfg["nltk_k"])
    if compat == "nltk" and smooth in ("method4", "method6", "method7") and alpha_k != (5, 5):
        items.append(("alpha-k", f"{cfg['nltk_alpha']:g},{cfg['nltk_k']:g}"))
    if name == "tbleu":
        e = cfg["epsilon"]
        items.append(("eps", f"{e:g}" if float(f"{e:g}") == e else repr(e)))
        if cfg["multi_ref"] != "position":
            items.append(("mref", cfg["multi_ref"]))
    return items


def _rose_rules(m, cfg, nrefs):
    mc = m.model.config  # what the model file says (its defaults)
    model = cfg["rose_model"]
    model = model if "/" not in model and not model.endswith(".json") else Path(model).stem
    lc = cfg["lowercase"] if cfg["lowercase"] is not None else bool(mc.get("lowercase", False))
    pos = (cfg["pos_tagger"] or mc.get("pos_tagger") or "textblob") if m.model.uses_pos else None
    tok = "none" if pos == "pretagged" else tokenizer_signature(cfg["tokenize"] or mc.get("tokenize", "13a"))
    fw = Path(cfg["function_words"] or mc.get("function_words", "en")).stem
    return [("nrefs", nrefs), ("model", model), ("case", _case(lc)), ("tok", tok), ("fw", fw), ("pos", pos)]


def _rules(name, m, cfg, nrefs):
    if name in ("bleu", "bleu-sbp", "tbleu"):
        return _bleu_rules(name, cfg, nrefs)
    if name.startswith("rose"):
        return _rose_rules(m, cfg, nrefs)
    tok = ("tok", tokenizer_signature(cfg["tokenize"])) if "tokenize" in cfg else None
    head = [("nrefs", nrefs), ("case", _case(cfg.get("lowercase")))]
    if name in ("chrf", "chrf++"):
        return head + [("eff", not cfg["eps_smoothing"]), ("nc", cfg["char_order"]), ("nw", cfg["word_order"]),
                       ("space", cfg["whitespace"])]
    if name == "ter":
        return [("nrefs", nrefs), ("case", "mixed" if cfg["case_sensitive"] else "lc"), ("tok", "tercom"),
                ("norm", cfg["normalized"]), ("punct", not cfg["no_punct"]), ("asian", cfg["asian_support"])]
    if name == "gtm":
        return head + [tok, ("e", f"{cfg['exponent']:g}"), ("measure", cfg["measure"]), ("match", "greedy"),
                       ("mref", "best-f"), ("agg", cfg["aggregate"] if cfg["exponent"] != 1.0 else None)]
    if name == "lcm":
        return head + [tok, ("cp", f"lite-{cfg['lang']}")]
    if name == "nist":
        return head + [tok, ("order", cfg["max_order"])]
    if name in ("wer", "mwer", "wrr", "per", "mper"):
        return head + [tok, ("norm", "avg" if cfg["ref_length"] == "average" else "best")]
    if name in ("mer", "wil", "wip", "cer", "wer-jiwer"):
        return head + [("tok", "jiwer-chars" if name == "cer" else "jiwer-words"), ("empty", cfg["empty_ref"]),
                       ("spaces", ("yes" if cfg["cer_spaces"] else "no") if name == "cer" else None)]
    if name == "gleu-google":
        return head + [tok, ("ngram", f"{cfg['min_len']}-{cfg['max_len']}"), ("variant", "google-sentence")]
    if name == "ribes":
        return head + [tok, ("alpha", f"{cfg['precision_exponent']:g}"), ("beta", f"{cfg['bp_exponent']:g}"),
                       ("impl", "nltk")]
    if name in ("4-grr", "k-grr"):
        return head + [tok, ("k", cfg.get("k", 4)), ("alpha", f"{cfg['insertion_penalty']:g}"),
                       ("beta", f"{cfg['deletion_penalty']:g}"),
                       ("agg", cfg["multi_ref"] if cfg["multi_ref"] != "weighted_mean" else None)]
    if name == "scores":
        from mtscore.metrics.scores import _fmt_range
        r = m.range
        return [("name", cfg["name"]), ("file", m.digest()), ("agg", cfg["agg"]),
                ("dir", "higher" if m.higher_is_better else "lower"),
                ("range", None if r == (-math.inf, math.inf) else _fmt_range(r)),
                ("missing", "skip" if cfg["missing"] == "skip" else None)]
    raise AssertionError(f"no rules written here for {name}: add them (its signature is not checked)")


def _text(items) -> str:
    parts = [f"{k}:{('yes' if v else 'no') if isinstance(v, bool) else v}" for k, v in items if v is not None]
    return "|".join(parts + [f"version:mtscore-{__version__}"])


def _outcome(make) -> str:
    """The signature, or the error that stops it (a SentencePiece tokenizer without its model file)."""
    try:
        return make()
    except MtscoreError as exc:
        return f"error: {exc}"


@pytest.fixture(scope="module")
def score_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("scores") / "sys.seg.txt"
    path.write_text("0.5\n0.25\n")
    return str(path)


@pytest.mark.parametrize("name", NAMES)
def test_every_setting_signs_by_the_rules(name, score_file):
    cls = get_metric_class(name)
    base = {"name": "COMET", "file": score_file} if name == "scores" else {}
    defaults = {f.name: f.default for f in dataclasses.fields(cls.Config)}
    if name.startswith("rose"):  # rose-reg, rose-regpos ...: the model their name says
        defaults["rose_model"] = cls._default_model
    checked = 0
    for kw in _combos(cls):
        try:
            m = cls(**base, **kw)
        except MtscoreError:  # a combination the metric refuses (its message is tested elsewhere)
            continue
        cfg = {**defaults, **base, **kw}
        for n in NREFS:
            ours = _outcome(lambda: m.signature(n))
            assert ours == _outcome(lambda: _text(_rules(name, m, cfg, n))), (name, kw, n)
        checked += not ours.startswith("error: ")
    assert checked >= 3, f"{name}: only {checked} settings could be built"


def test_lcm_signs_a_user_checkpoint_file_by_its_digest(tmp_path):
    import hashlib
    lines = ["# segment category level words", "1\tnoun\tword\tanswer", "2\tvo\tphrase\tsat * mat"]
    f = tmp_path / "cp.tsv"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:8]
    cls = get_metric_class("lcm")
    for lc, lang in itertools.product((False, True), ("en", "de")):
        m = cls(checkpoints=str(f), lowercase=lc, lang=lang)
        for n in NREFS:
            want = [("nrefs", n), ("case", _case(lc)), ("tok", "13a"), ("cp", f"user[{digest}]")]
            assert m.signature(n) == _text(want)


def _strip(sig: str) -> str:
    head, _, version = sig.rpartition("|version:")
    assert version in (f"mtscore-{__version__}", "2.6.0"), sig
    return head


def _sacrebleu_sig(metric, nrefs) -> str:
    metric.num_refs = -1 if nrefs == "var" else nrefs  # what corpus_score would record
    return _strip(str(metric.get_signature()))


BLEU_CASES = [dict(tokenize="13a", lowercase=lc, smooth=sm, smooth_value=sv, effective_order=eff)
              for lc in (False, True) for sm in ("none", "floor", "add-k", "exp") for sv in (None, 0.05, 0.1, 1.0, 2.5)
              for eff in (False, True)]
BLEU_CASES += [dict(tokenize=t, lowercase=lc) for t in ("intl", "zh", "char", "none", "ja-mecab", "ko-mecab")
               for lc in (False, True)]


@pytest.mark.parametrize("kw", BLEU_CASES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_bleu_signs_as_sacrebleu(kw):
    ours = get_metric_class("bleu")(**kw)
    theirs = SBLEU(tokenize=kw["tokenize"], lowercase=kw["lowercase"], smooth_method=kw.get("smooth", "exp"),
                   smooth_value=kw.get("smooth_value"), effective_order=kw.get("effective_order", False))
    for n in NREFS:
        assert _strip(ours.signature(n)) == _sacrebleu_sig(theirs, n)


CHRF_CASES = [dict(char_order=c, word_order=w, beta=b, lowercase=lc, whitespace=ws, eps_smoothing=eps)
              for c in (0, 1, 6, 30) for w in (0, 1, 2) for b in (1, 2, 3) for lc in (False, True)
              for ws in (False, True) for eps in (False, True) if c + w > 0]


@pytest.mark.parametrize("name", ["chrf", "chrf++"])
def test_chrf_signs_as_sacrebleu(name):
    cls = get_metric_class(name)
    for kw in CHRF_CASES:
        ours = cls(**{**kw, "beta": float(kw["beta"])})
        theirs = SCHRF(**kw)
        for n in NREFS:
            assert _strip(ours.signature(n)) == _sacrebleu_sig(theirs, n), kw


def test_ter_signs_as_sacrebleu():
    cls = get_metric_class("ter")
    for flags in itertools.product((False, True), repeat=4):
        kw = dict(zip(("normalized", "no_punct", "asian_support", "case_sensitive"), flags))
        ours, theirs = cls(**kw), STER(**kw)
        for n in NREFS:
            assert _strip(ours.signature(n)) == _sacrebleu_sig(theirs, n), kw


# ---------------------------------------------------------------------------------------------------
# the mechanism on a metric of its own
# ---------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _Cfg:
    PARAMS: ClassVar = (
        P.Param("width", "int", 3, lo=1, hi=9, sig="w", sig_when="not_default"),
        P.LOWERCASE,
        P.Param("mode", "choice", "a", choices=("a", "b"), sig="m", sig_uses=("width",),
                sig_fmt=lambda mode, width: f"{mode}{width}", sig_when=lambda mode, width: mode == "b"),
        P.Param("engine", "choice", "x", choices=("x", "y")),
    )
    width: int = 3
    lowercase: bool = False
    mode: str = "a"
    engine: str = "x"


class _Toy(Metric):
    name = "toy-signature"
    display_name = "Toy"
    Config = _Cfg


def test_declared_entries_follow_the_template_in_declaration_order():
    v = f"version:mtscore-{__version__}"
    assert _Toy().signature(1) == f"nrefs:1|case:mixed|{v}"  # w at its default, m not used, engine undeclared
    assert _Toy(width=5, lowercase=True, mode="b", engine="y").signature(2) == f"nrefs:2|w:5|case:lc|m:b5|{v}"
    toy = _Toy(width=4, mode="b")
    assert toy.declared_signature("m", ("fixed", "z"), "case") == [("m", "b4"), ("fixed", "z"), ("case", "mixed"),
                                                                  ("w", 4)]
    with pytest.raises(ValueError, match="no parameter declares the signature key 'nope'"):
        toy.declared_signature("nope")

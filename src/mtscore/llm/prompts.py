"""The chat messages of the GEMBA judges, exactly as the reference implementations send them.

Two variants (docs/llm-judges.md):

* ``gemba``: the ``gemba`` package 0.1.3 (GEMBA-DA with and without reference, GEMBA-MQM, GEMBA-ESA's two
  prompts). Its single-string prompts (DA) go out as one user message, as its client does.
* ``wmt25``: the WMT25 automatic evaluation's GEMBA-ESA scorer: the same error-span prompt, a score prompt that
  asks for the score as the last item, and its own table of language names for WMT25 codes (``cs_CZ``, ...).

Pure functions of their inputs: no I/O, no randomness. Placeholders are filled in one pass, so braces, backticks
or quotes inside a segment are copied as they are (the references' ``str.format`` behaves the same way). Tested
byte for byte against the messages the references build (tests/fixtures/llm/prompts.jsonl.gz).
"""
from __future__ import annotations

import hashlib
import json
import re

from ..errors import InvalidParameterError

Message = tuple[str, str]  # (role, content)

_PLACEHOLDER = re.compile(r"\{(source_lang|target_lang|source_seg|target_seg|reference_seg|error_spans)\}")


def _fill(template: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


# --- the annotation prompt shared by GEMBA-MQM and GEMBA-ESA's first request -------------------------------------
_SEGMENTS = "{source_lang} source:\n```{source_seg}```\n{target_lang} translation:\n```{target_seg}```\n\n"
_CATEGORIES = (
    "Based on the source segment and machine translation surrounded with triple backticks, identify error types in "
    "the translation and classify them. The categories of errors are: accuracy (addition, mistranslation, omission, "
    "untranslated text), fluency (character encoding, grammar, inconsistency, punctuation, register, spelling), "
    "style (awkward), terminology (inappropriate for context, inconsistent use), non-translation, other, or "
    "no-error.\n")
_SEVERITIES_MQM = (
    "Each error is classified as one of three categories: critical, major, and minor. Critical errors inhibit "
    "comprehension of the text. Major errors disrupt the flow, but what the text is trying to say is still "
    "understandable. Minor errors are technically errors, but do not disrupt the flow or hinder comprehension.")
_SEVERITIES_ESA = (
    "Each error is classified as one of two categories: major or minor. Major errors disrupt the flow and make the "
    "understandability of text difficult or impossible. Minor errors are errors that do not disrupt the flow "
    "significantly and what the text is trying to say is still understandable.")
_SYSTEM_MQM = ("You are an annotator for the quality of machine translation. Your task is to identify errors and "
               "assess the quality of the translation.")
_SYSTEM_ESA = "Your task is to identify machine translation errors and assess the quality of the translation."

# the three worked examples (English-German, English-Czech, Chinese-English) both few-shot prompts show
_SHOTS = (
    ("English", "German",
     "I do apologise about this, we must gain permission from the account holder to discuss an order with another "
     "person, I apologise if this was done previously, however, I would not be able to discuss this with yourself "
     "without the account holders permission.",
     "Ich entschuldige mich dafür, wir müssen die Erlaubnis einholen, um eine Bestellung mit einer anderen Person zu "
     "besprechen. Ich entschuldige mich, falls dies zuvor geschehen wäre, aber ohne die Erlaubnis des "
     "Kontoinhabers wäre ich nicht in der Lage, dies mit dir involvement.",
     {"critical": [], "major": [("accuracy/mistranslation", "involvement"),
                                ("accuracy/omission", "the account holder")],
      "minor": [("fluency/grammar", "wäre"), ("fluency/register", "dir")]}),
    ("English", "Czech",
     "Talks have resumed in Vienna to try to revive the nuclear pact, with both sides trying to gauge the prospects "
     "of success after the latest exchanges in the stop-start negotiations.",
     "Ve Vídni se ve Vídni obnovily rozhovory o oživení jaderného paktu, přičemž obě partaje se snaží posoudit "
     "vyhlídky na úspěch po posledních výměnách v jednáních.",
     {"critical": [], "major": [("accuracy/addition", "ve Vídni"), ("accuracy/omission", "the stop-start")],
      "minor": [("terminology/inappropriate for context", "partaje")]}),
    ("Chinese", "English",
     "大众点评乌鲁木齐家居卖场频道为您提供高铁居然之家地址，电话，营业时间等最新商户信息，找装修公司，就上大众点评",
     "Urumqi Home Furnishing Store Channel provides you with the latest business information such as the address, "
     "telephone number, business hours, etc., of high-speed rail, and find a decoration company, and go to the "
     "reviews.",
     # GEMBA-MQM files "of high-speed rail" as critical; GEMBA-ESA (two severities) as major
     {"critical": [("accuracy/addition", "of high-speed rail")],
      "major": [("accuracy/mistranslation", "go to the reviews")], "minor": [("style/awkward", "etc.,")]}),
)


def _shot_answer(errors: dict, levels: tuple[str, ...]) -> str:
    lines = []
    for level in levels:
        found = list(errors[level])
        if len(levels) == 2 and level == "major":  # ESA folds critical into major
            found = list(errors["critical"]) + found
        lines.append(level.capitalize() + ":")
        lines += [f'{category} - "{text}"' for category, text in found] or ["no-error"]
    return "\n".join(lines) + "\n"


def _few_shot(system: str, user: str, levels: tuple[str, ...]) -> tuple[Message, ...]:
    turns: list[Message] = [("system", system)]
    for src_lang, tgt_lang, src, tgt, errors in _SHOTS:
        turns.append(("user", _fill(user, {"source_lang": src_lang, "target_lang": tgt_lang,
                                             "source_seg": src, "target_seg": tgt})))
        turns.append(("assistant", _shot_answer(errors, levels)))
    turns.append(("user", user))
    return tuple(turns)


_ESA_SPANS = _few_shot(_SYSTEM_ESA, _SEGMENTS + _CATEGORIES + _SEVERITIES_ESA, ("major", "minor"))
_MQM = _few_shot(_SYSTEM_MQM, _SEGMENTS + _CATEGORIES + _SEVERITIES_MQM, ("critical", "major", "minor"))

_SCALE_POINTS = ('0="No meaning preserved", 33="Some meaning preserved", 66="Most meaning preserved and few grammar '
                 'mistakes", up to 100="Perfect meaning and grammar".')
_SCORE_TAIL = ("\n\nScore the following translation from {source_lang} source:\n```{source_seg}```\n{target_lang} "
               "translation:\n```{target_seg}```\nAnnotated error spans:\n```{error_spans}```\nScore (0-100): ")
_ESA_SCORE = {
    "gemba": ("Given the translation from {source_lang} to {target_lang} and the annotated error spans, assign a score "
              "on a continuous scale from 0 to 100. The scale has following reference points: " + _SCALE_POINTS
              + _SCORE_TAIL),
    "wmt25": ("Given the translation from {source_lang} to {target_lang} and the annotated error spans, assign a score "
              "on a continuous scale from 0 to 100. The scale has the following reference points: " + _SCALE_POINTS
              + " The continuous score from 0 to 100 must be the last item in your output. Do not generate anything "
                "after the score. " + _SCORE_TAIL),
}
_DA_HEAD = "Score the following translation from {source_lang} to {target_lang} "
_DA_MEANING = 'score of zero means "no meaning preserved" and score of one hundred means "perfect meaning and grammar".'
_DA = {
    False: (_DA_HEAD + "on a continuous scale from 0 to 100, where a " + _DA_MEANING
            + '\n\n{source_lang} source: "{source_seg}"\n{target_lang} translation: "{target_seg}"\nScore: '),
    # GEMBA-DA_ref puts the reference without quotes (as the gemba package does)
    True: (_DA_HEAD + "with respect to human reference on a continuous scale 0 to 100 where " + _DA_MEANING
           + '\n\n{source_lang} source: "{source_seg}"\n{target_lang} human reference: {reference_seg}\n'
             '{target_lang} machine translation: "{target_seg}"\nScore: '),
}

KINDS = ("esa-spans", "esa-score", "mqm", "da", "da-ref")
VARIANTS = ("gemba", "wmt25")
# which prompt kinds each variant defines (WMT25's scorer only ran GEMBA-ESA)
VARIANT_KINDS = {"gemba": frozenset(KINDS), "wmt25": frozenset({"esa-spans", "esa-score"})}


def template(kind: str, variant: str = "gemba") -> tuple[Message, ...]:
    """The unfilled chat template of one prompt kind (what the signature's template digest covers)."""
    if variant not in VARIANTS:
        raise InvalidParameterError(f"variant: expected one of {', '.join(VARIANTS)}, got {variant!r}")
    if kind not in VARIANT_KINDS[variant]:
        raise InvalidParameterError(f"variant={variant} has no {kind!r} prompt (it defines "
                                    f"{', '.join(sorted(VARIANT_KINDS[variant]))})")
    if kind == "esa-spans":
        return _ESA_SPANS
    if kind == "esa-score":
        return (("user", _ESA_SCORE[variant]),)
    if kind == "mqm":
        return _MQM
    return (("user", _DA[kind == "da-ref"]),)


def template_digest(kinds, variant: str) -> str:
    """sha256 (first 12 hex digits) of the templates of ``kinds`` in ``variant``: the signature's ``tpl:``."""
    blob = json.dumps([template(k, variant) for k in kinds], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def build(kind: str, variant: str, *, source: str, hypothesis: str, source_lang: str, target_lang: str,
          reference: str = "", error_spans: str = "") -> tuple[Message, ...]:
    """The chat messages of one request: the template of ``kind`` with every placeholder filled.

    As in the references, every turn is filled (the worked examples have no placeholders left, so only the last
    user turn changes)."""
    values = {"source_lang": source_lang, "target_lang": target_lang, "source_seg": source,
              "target_seg": hypothesis, "reference_seg": reference, "error_spans": error_spans}
    return tuple((role, _fill(content, values)) for role, content in template(kind, variant))


def as_json(messages: tuple[Message, ...]) -> list[dict]:
    """The messages as the Chat Completions API takes them."""
    return [{"role": role, "content": content} for role, content in messages]

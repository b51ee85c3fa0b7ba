"""The neural metrics' tokenizers, built explicitly so that token ids (and XCOMET's character offsets) are the
reference implementations' whatever transformers version is installed (docs/neural.md, "Tokenization").

* :class:`XlmrTokenizer`: COMET's encoders (XLM-R, XLM-R XL). unbabel-comet 2.2.7 on transformers 4.x loads
  ``XLMRobertaTokenizerFast`` from the encoder folder: with a ``tokenizer.json`` (as the hub repositories ship
  it) that file's pipeline as it is; the pad id is the vocabulary's ``<pad>`` (no ``tokenizer_config.json``
  needed). Here the ``tokenizers`` library runs that same file; a folder with only ``sentencepiece.bpe.model``
  gets the pipeline transformers 4.x's XLM-R converter builds from it.
* :class:`Mt5Tokenizer`: MetricX's mT5 tokenizer as google-research/metricx runs it (transformers 4.30:
  ``T5TokenizerFast`` converted from ``spiece.model``): SentencePiece's precompiled normalizer, runs of spaces
  folded, ``Metaspace`` that prefixes every piece between special tokens with ``▁`` and keeps a lone ``▁``
  for trailing whitespace (so ``"a "`` is ``▁a ▁`` and ``"a </s>"`` is ``▁a ▁ </s>``), ``</s>`` appended;
  ``<pad>``, ``</s>``, ``<unk>`` typed literally are those special tokens. transformers 5 builds it otherwise.

The SentencePiece model file is read with a small protobuf reader (no protobuf package needed).
"""
from __future__ import annotations

import struct
import threading
from pathlib import Path

from ..errors import InputError, plural


# -- SentencePiece model files (protobuf wire format) --------------------------------------------------------

def _varint(buf: bytes, i: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _fields(buf: bytes):
    """(field number, wire type, value) of one protobuf message (value: int, or bytes for length-delimited)."""
    i = 0
    while i < len(buf):
        tag, i = _varint(buf, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            val, i = _varint(buf, i)
        elif wt == 1:
            val, i = buf[i:i + 8], i + 8
        elif wt == 2:
            n, i = _varint(buf, i)
            if i + n > len(buf):
                raise ValueError("truncated field")
            val, i = buf[i:i + n], i + n
        elif wt == 5:
            val, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield num, wt, val


def read_spm(path: Path) -> dict:
    """pieces ``[(piece, score, type)]``, ``unk_id``, ``precompiled_charsmap`` (bytes) and ``byte_fallback``
    of a SentencePiece ``ModelProto`` file."""
    buf = path.read_bytes()
    pieces, unk_id, charsmap, byte_fallback = [], 0, b"", False
    for num, wt, val in _fields(buf):
        if num == 1 and wt == 2:  # SentencePiece
            piece, score, typ = "", 0.0, 1
            for n2, w2, v2 in _fields(val):
                if n2 == 1 and w2 == 2:
                    piece = v2.decode("utf-8")
                elif n2 == 2 and w2 == 5:
                    score = struct.unpack("<f", v2)[0]
                elif n2 == 3 and w2 == 0:
                    typ = v2
            pieces.append((piece, score, typ))
        elif num == 2 and wt == 2:  # TrainerSpec
            for n2, w2, v2 in _fields(val):
                if n2 == 40 and w2 == 0:
                    unk_id = v2
                elif n2 == 35 and w2 == 0:
                    byte_fallback = bool(v2)
        elif num == 3 and wt == 2:  # NormalizerSpec
            for n2, w2, v2 in _fields(val):
                if n2 == 2 and w2 == 2:
                    charsmap = bytes(v2)
    if not pieces:
        raise ValueError("no pieces")
    return {"pieces": pieces, "unk_id": unk_id, "precompiled_charsmap": charsmap, "byte_fallback": byte_fallback}


def _spm_normalizer(charsmap: bytes, v4_57: bool = False):
    """SentencePiece's precompiled normalizer, then runs of spaces folded: to one space (transformers 4.30's
    converter), or right-stripped and folded to one ``▁`` (4.57's)."""
    from tokenizers import Regex, normalizers
    rules = [normalizers.Strip(left=False, right=True), normalizers.Replace(Regex(" {2,}"), "▁")] if v4_57 \
        else [normalizers.Replace(Regex(" {2,}"), " ")]
    if charsmap:
        rules.insert(0, normalizers.Precompiled(charsmap))
    return normalizers.Sequence(rules)


def _metaspace():
    from tokenizers import decoders, pre_tokenizers
    try:  # tokenizers >= 0.19
        return (pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True),
                decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True))
    except TypeError:  # tokenizers 0.15 - 0.18
        return (pre_tokenizers.Metaspace(replacement="▁", add_prefix_space=True),
                decoders.Metaspace(replacement="▁", add_prefix_space=True))


# tokenizers 0.19 (not 0.23) raises "Already borrowed" when a thread changes a tokenizer's truncation while another
# encodes with it (the replicas of gpus=N share one tokenizer)
_ENCODE_LOCK = threading.Lock()


class _Base:
    """A ``tokenizers.Tokenizer`` with the few transformers-tokenizer attributes the models read."""

    def __init__(self, tok, folder: Path, metric: str):
        self._tok = tok
        self.folder = folder
        self.metric = metric

    def __len__(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    def token_to_id(self, t: str):
        return self._tok.token_to_id(t)

    def encode(self, texts: list[str], max_length: int, offsets: bool = False):
        """Token ids (special tokens added) of each text, truncated to ``max_length`` tokens (special tokens
        counted), and with ``offsets`` their character spans."""
        with _ENCODE_LOCK:  # the settings are the Rust tokenizer's state: one caller at a time (gpus=N threads)
            self._tok.no_padding()
            self._tok.enable_truncation(max_length)
            enc = self._tok.encode_batch(list(texts), add_special_tokens=True)
        ids = [list(e.ids) for e in enc]
        if offsets:
            return ids, [[tuple(o) for o in e.offsets] for e in enc]
        return ids

    def decode(self, ids) -> str:
        return self._tok.decode([int(i) for i in ids], skip_special_tokens=False)


class XlmrTokenizer(_Base):
    RULE = "an XLM-R tokenizer has <s>=0 <pad>=1 </s>=2 and <unk>"

    def __init__(self, folder: Path, metric: str):
        from tokenizers import Tokenizer
        tj, spm = folder / "tokenizer.json", folder / "sentencepiece.bpe.model"
        try:
            if tj.is_file():
                tok = Tokenizer.from_file(str(tj))
            elif spm.is_file():
                tok = self._from_spm(spm)
            else:
                raise InputError(f"{metric}: the encoder folder has no tokenizer (tokenizer.json or sentencepiece.bpe.model; "
                                 "XLM-R's hub repositories ship both)", str(folder))
        except InputError as exc:
            if str(exc).startswith(str(spm) + ": not an"):
                raise InputError(f"{metric}: {str(exc)[len(str(spm)) + 2:]}", str(folder)) from None
            raise
        except Exception as exc:
            bad = tj if tj.is_file() else spm
            raise InputError(f"{metric}: cannot read the encoder's tokenizer ({type(exc).__name__}: "
                             f"{' '.join(str(exc).split())[:160]})", str(bad)) from None
        super().__init__(tok, folder, metric)
        got = {t: tok.token_to_id(t) for t in ("<s>", "<pad>", "</s>", "<unk>")}
        if {k: got[k] for k in ("<s>", "<pad>", "</s>")} != {"<s>": 0, "<pad>": 1, "</s>": 2} or got["<unk>"] is None:
            raise InputError(f"{metric}: not an XLM-R tokenizer: {self.RULE}, this one has "
                             + ", ".join(f"{k}={v}" for k, v in got.items()), str(folder))
        if len(self) <= 8:
            raise InputError(f"{metric}: the tokenizer has only {plural(len(self), 'token')} (no vocabulary beyond its "
                             "special tokens): a missing or broken tokenizer file", str(folder))
        self.cls_token_id, self.pad_token_id, self.sep_token_id = 0, 1, 2
        # the template COMET's tokenizer call adds: <s> A </s>
        ids = tok.encode("", add_special_tokens=True).ids
        if ids != [0, 2]:
            raise InputError(f"{metric}: the tokenizer does not wrap a text in <s> ... </s> (an empty text gives "
                             f"{ids}): not XLM-R's tokenizer.json", str(folder))

    @staticmethod
    def _from_spm(path: Path):
        """transformers 4.57's XLMRobertaConverter (unbabel-comet's transformers): fairseq ids (<s> <pad> </s> <unk>, pieces from the model's
        4th on, <mask> last), SentencePiece's normalizer, Metaspace, ``<s> $A </s>``."""
        from tokenizers import AddedToken, Tokenizer, models, processors
        spm = read_spm(path)
        head = [p for p, _, _ in spm["pieces"][:3]]
        if head != ["<unk>", "<s>", "</s>"]:
            raise InputError(f"not an XLM-R tokenizer: {XlmrTokenizer.RULE} (its SentencePiece model: <unk> <s> </s> "
                             f"first), this one starts {' '.join(head)}", str(path))
        vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
        vocab += [(p, s) for p, s, _ in spm["pieces"][3:]] + [("<mask>", 0.0)]
        tok = Tokenizer(models.Unigram(vocab, 3, False))
        tok.normalizer = _spm_normalizer(spm["precompiled_charsmap"], v4_57=True)
        tok.pre_tokenizer, tok.decoder = _metaspace()
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
        tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in ("<s>", "<pad>", "</s>", "<unk>")]
                               + [AddedToken("<mask>", special=True, normalized=False, lstrip=True)])
        return tok


class Mt5Tokenizer(_Base):
    RULE = "an mT5 tokenizer folder holds spiece.model with <pad>=0 </s>=1 <unk>=2"

    def __init__(self, folder: Path, metric: str):
        from tokenizers import AddedToken, Tokenizer, models, processors
        path = folder / "spiece.model"
        if not path.is_file():
            raise InputError(f"{metric}: no mT5 tokenizer here: {self.RULE} (as google/mt5-* on the hub)", str(folder))
        try:
            spm = read_spm(path)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise InputError(f"{metric}: spiece.model is not a SentencePiece model ({type(exc).__name__}: {exc})",
                             str(path)) from None
        pieces = [p for p, _, _ in spm["pieces"]]
        head = {t: (pieces.index(t) if t in pieces else None) for t in ("<pad>", "</s>", "<unk>")}
        if head != {"<pad>": 0, "</s>": 1, "<unk>": 2} or spm["unk_id"] != 2:
            raise InputError(f"{metric}: not an mT5 tokenizer: {self.RULE}, this one has "
                             + ", ".join(f"{k}={v}" for k, v in head.items()), str(path))
        tok = Tokenizer(models.Unigram([(p, s) for p, s, _ in spm["pieces"]], spm["unk_id"], False))
        tok.normalizer = _spm_normalizer(spm["precompiled_charsmap"])
        tok.pre_tokenizer, tok.decoder = _metaspace()
        tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                           special_tokens=[("</s>", 1)])
        tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in ("<pad>", "</s>", "<unk>")])
        super().__init__(tok, folder, metric)
        self.pad_token_id, self.eos_token_id, self.unk_token_id = 0, 1, 2
        if len(self) <= 8:
            raise InputError(f"{metric}: spiece.model has only {len(self)} pieces: a broken tokenizer", str(path))


"""sacreBLEU's ``sacrebleu.metrics.lib_ter``: ``translation_edit_rate`` (TER edits of one tokenized pair) on
mtscore's compiled TER kernel (:mod:`mtscore.metrics._ter_kernel`, the same numbers as sacreBLEU's Python),
``trace_to_alignment`` and the search constants."""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np

from ...errors import MtscoreError

_COST_INS = 1
_COST_DEL = 1
_COST_SUB = 1
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_BEAM_WIDTH = 25
_MAX_CACHE_SIZE = 10000
_MAX_SHIFT_CANDIDATES = 1000
_INT_INFINITY = int(1e16)
_OP_INS = "i"
_OP_DEL = "d"
_OP_NOP = " "
_OP_SUB = "s"
_OP_UNDEF = "x"

__all__ = ["translation_edit_rate", "trace_to_alignment"]


def translation_edit_rate(words_hyp: Sequence[str], words_ref: Sequence[str]) -> Tuple[int, int]:
    """``(number of edits, reference length)`` of a tokenized hypothesis against one tokenized reference:
    Tercom's greedy shifts plus the beam-limited edit distance, exactly as sacreBLEU computes them."""
    from ...metrics._ter_kernel import ter_edits
    n_ref = len(words_ref)
    if n_ref == 0:
        return len(words_hyp), 0
    ids: Dict[str, int] = {}
    hyp = np.fromiter((ids.setdefault(w, len(ids)) for w in words_hyp), dtype=np.int64, count=len(words_hyp))
    ref = np.fromiter((ids.setdefault(w, len(ids)) for w in words_ref), dtype=np.int64, count=n_ref)
    edits = int(ter_edits(hyp, ref))
    if edits < 0:
        raise MtscoreError("TER: undefined edit trace (beam too narrow; sacreBLEU raises here as well)")
    return edits, n_ref


def trace_to_alignment(trace: str) -> Tuple[Dict[int, int], List[int], List[int]]:
    """An edit trace (``' '`` keep, ``s`` substitute, ``i`` insert, ``d`` delete, rewriting the hypothesis into
    the reference) as ``(reference position -> hypothesis position, reference error flags, hypothesis error
    flags)``."""
    h = r = -1
    align: Dict[int, int] = {}
    hyp_err: List[int] = []
    ref_err: List[int] = []
    for op in trace:
        if op in (_OP_NOP, _OP_SUB):
            h += 1
            r += 1
            align[r] = h
            flag = int(op == _OP_SUB)
            hyp_err.append(flag)
            ref_err.append(flag)
        elif op == _OP_INS:
            h += 1
            hyp_err.append(1)
        elif op == _OP_DEL:
            r += 1
            align[r] = h
            ref_err.append(1)
        else:
            raise ValueError(f"unknown operation {op!r}")
    return align, ref_err, hyp_err

"""A vectorized NumPy formulation of BLEU from summed statistics, kept in the tests as an independent
reference for the package's one formula (:func:`mtscore.metrics.bleu.bleu_row`, and its compiled copy
``_ckernel.bleu_scores``): the same rules (sacreBLEU's ``compute_bleu``, the mteval-v13a / v11b modes), written
over arrays with masks and cumulative sums instead of a loop over the orders of one row. It was the package's
own array path until the formula became one; ``math.exp`` / ``math.log`` elementwise, so the two
agree to the last bit."""
from __future__ import annotations

import math

import numpy as np

MY_LOG_ZERO = -9999999999.0  # sacreBLEU's my_log(0)


def _elementwise(fn, x):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        return np.float64(fn(float(x)))
    return np.fromiter(map(fn, x.ravel().tolist()), dtype=np.float64, count=x.size).reshape(x.shape)


def bp(sys_len, ref_len):
    sys_len = np.asarray(sys_len, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(sys_len < ref_len, _elementwise(math.exp, 1.0 - ref_len / np.where(sys_len > 0, sys_len, 1.0)), 1.0)
    return np.where((sys_len <= 0) & (sys_len < ref_len), 0.0, out)


def strict_bp(clip_len, ref_len):
    clip_len = np.asarray(clip_len, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = _elementwise(math.exp, 1.0 - ref_len / np.where(clip_len > 0, clip_len, 1.0))
    return np.where(ref_len <= 0, 1.0, np.where(clip_len <= 0, 0.0, np.minimum(val, 1.0)))


def precisions(correct, total, smooth, smooth_value, compat):
    correct = np.array(correct, dtype=np.float64)
    total = np.array(total, dtype=np.float64)
    if smooth == "add-k" and correct.shape[-1] > 1:
        correct[..., 1:] += smooth_value
        total[..., 1:] += smooth_value
    has = total > 0
    active = np.cumprod(has, axis=-1).astype(bool) if compat == "sacrebleu" else has
    zero = correct == 0
    safe_t = np.where(has, total, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = 100.0 * correct / safe_t
        if smooth == "exp":
            k = np.cumsum(zero & active, axis=-1)
            prec = np.where(zero, 100.0 / (np.power(2.0, k) * safe_t), prec)
        elif smooth == "floor":
            prec = np.where(zero, 100.0 * smooth_value / safe_t, prec)
    if compat == "sacrebleu":
        return np.where(active, prec, 0.0)
    return np.where(has, prec, 100.0)  # mteval: an order without candidate n-grams counts as precision 1


def bleu(summed, n, smooth, smooth_value, effective_order, weights, compat="sacrebleu", strict=False):
    """BLEU in percent of ``summed`` ``[..., 2 + 2n (+1)]`` over leading axes."""
    summed = np.asarray(summed, dtype=np.float64)
    sys_len, ref_len = summed[..., 0], summed[..., 1]
    correct, total = summed[..., 2:2 + n], summed[..., 2 + n:2 + 2 * n]
    b = strict_bp(summed[..., 2 + 2 * n], ref_len) if strict else bp(sys_len, ref_len)
    prec = precisions(correct, total, smooth, smooth_value, compat)
    with np.errstate(divide="ignore"):
        logp = np.where(prec > 0, _elementwise(math.log, np.where(prec > 0, prec, 1.0)), MY_LOG_ZERO)
    if compat == "sacrebleu":
        counted = np.array(total)
        if smooth == "add-k" and n > 1:  # sacreBLEU adds k before its "total == 0: stop" test (docs/definitions.md §1.5)
            counted[..., 1:] += smooth_value
        active = np.cumprod(counted > 0, axis=-1).astype(bool)
        eff = active.sum(axis=-1) if effective_order else np.full(sys_len.shape, n)
        eff_safe = np.maximum(eff, 1)
        if weights is None:
            csum = np.cumsum(logp, axis=-1)
            mean_log = np.take_along_axis(csum, (eff_safe - 1)[..., None], axis=-1)[..., 0] / eff_safe
        else:
            w = np.asarray(weights, dtype=np.float64)
            ww = np.where(np.arange(n) < eff_safe[..., None], w, 0.0)
            mean_log = np.cumsum(ww * logp, axis=-1)[..., -1] / np.cumsum(ww, axis=-1)[..., -1]
        score = b * _elementwise(math.exp, mean_log)
        score = np.where(correct.sum(axis=-1) == 0, 0.0, score)  # "early stop if there are no matches"
        score = np.where(eff == 0, 0.0, score)
    else:
        if weights is None:
            mean_log = np.cumsum(logp, axis=-1)[..., -1] / n
        else:
            w = np.asarray(weights, dtype=np.float64)
            mean_log = np.cumsum(w * logp, axis=-1)[..., -1] / np.cumsum(w)[-1]
        score = b * _elementwise(math.exp, mean_log)
        if compat == "mteval-v11b":  # no smoothing: any order with zero matches or no candidate n-grams gives 0
            score = np.where(((correct == 0) | (total == 0)).any(axis=-1), 0.0, score)
        score = np.where(sys_len <= 0, 0.0, score)
    return score

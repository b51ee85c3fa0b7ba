"""mtscore's own inference for neural MT metrics (optional extra ``mtscore[neural]``: torch, transformers,
sentencepiece, safetensors; no unbabel-comet, no pytorch-lightning).

* :mod:`.locate`: finds a model on disk (a checkpoint folder, or a name in the Hugging Face cache, offline);
* :mod:`.comet_model`: COMET checkpoints (``regression_metric``: wmt20/wmt22-comet-da; ``unified_metric``:
  CometKiwi) rebuilt from ``hparams.yaml`` and weights read with ``torch.load(weights_only=True)``;
* :mod:`.runner`: deduplication of identical inputs, length-sorted batches, out-of-memory halve-and-retry;
* :mod:`.cache`: the per-segment score cache (XDG cache folder).

Nothing here downloads anything, and nothing imports torch until a model is used.
"""

import os as _os
import threading as _threading

_LOADED: dict = {}
_LOCK = _threading.Lock()
loads = 0  # models loaded by this process (tests: a Dask worker loads its model once, whatever its task count)


def kept(folder, key: tuple, loader):
    """The model loaded once per process and kept (a Dask worker or a ``--jobs`` process that runs several tasks
    with the same metric loads it once): keyed by the folder, the size and mtime of every file directly in it and
    in ``checkpoints/``, and ``key`` (precision, device, tokenizer ...)."""
    stamp = []
    for d in (folder, _os.path.join(folder, "checkpoints")):
        if _os.path.isdir(d):
            for name in sorted(_os.listdir(d)):
                p = _os.path.join(d, name)
                if _os.path.isfile(p):
                    st = _os.stat(p)
                    stamp.append((name, st.st_size, st.st_mtime_ns))
    k = (_os.path.realpath(folder), tuple(stamp), key)
    global loads
    with _LOCK:
        if k not in _LOADED:
            _LOADED[k] = loader()
            loads += 1
        return _LOADED[k]

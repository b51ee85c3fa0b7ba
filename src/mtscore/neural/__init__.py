"""mtscore's own inference for neural MT metrics (optional extra ``mtscore[neural]``: torch, transformers,
sentencepiece, safetensors; no unbabel-comet, no pytorch-lightning).

* :mod:`.locate`: finds a model on disk (a checkpoint folder, or a name in the Hugging Face cache, offline);
* :mod:`.comet_model`: COMET checkpoints (``regression_metric``: wmt20/wmt22-comet-da; ``unified_metric``:
  CometKiwi) rebuilt from ``hparams.yaml`` and weights read with ``torch.load(weights_only=True)``;
* :mod:`.runner`: deduplication of identical inputs, length-sorted batches, out-of-memory halve-and-retry;
* :mod:`.cache`: the per-segment score cache (XDG cache folder).

Nothing here downloads anything, and nothing imports torch until a model is used.
"""

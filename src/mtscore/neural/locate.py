"""Where a model is on disk: a folder given by the user, or a model name resolved offline in the Hugging Face
cache (``Org/Name`` -> ``<hub>/models--Org--Name/snapshots/<revision>/``). Never downloads."""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import InvalidParameterError


def hub_dirs() -> list[Path]:
    """The Hugging Face hub cache folders looked in, in order (HF_HUB_CACHE, HF_HOME/hub,
    XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub)."""
    out = []
    env = os.environ
    if env.get("HF_HUB_CACHE"):
        out.append(Path(env["HF_HUB_CACHE"]))
    if env.get("HUGGINGFACE_HUB_CACHE"):
        out.append(Path(env["HUGGINGFACE_HUB_CACHE"]))
    if env.get("HF_HOME"):
        out.append(Path(env["HF_HOME"]) / "hub")
    if env.get("XDG_CACHE_HOME"):
        out.append(Path(env["XDG_CACHE_HOME"]) / "huggingface" / "hub")
    out.append(Path.home() / ".cache" / "huggingface" / "hub")
    seen, uniq = set(), []
    for p in out:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    return uniq


def _snapshot(repo_dir: Path) -> Path | None:
    snaps = repo_dir / "snapshots"
    ref = repo_dir / "refs" / "main"
    if ref.is_file():
        cand = snaps / ref.read_text().strip()
        if cand.is_dir():
            return cand
    if snaps.is_dir():
        found = sorted((p for p in snaps.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
        if found:
            return found[-1]
    return None


def in_hub_cache(name: str, aliases: tuple[str, ...] = ()) -> tuple[Path | None, list[str]]:
    """(snapshot folder or None, the folders looked in) for a model name like ``Unbabel/wmt22-comet-da``."""
    looked = []
    for n in (name, *aliases):
        if not n or n.startswith(("/", ".")) or n.count("/") > 1:
            continue
        for hub in hub_dirs():
            repo = hub / ("models--" + n.replace("/", "--"))
            looked.append(str(repo))
            snap = _snapshot(repo)
            if snap is not None:
                return snap, looked
    return None, looked


# Names that COMET checkpoints give their encoder, and the hub names the same model has today.
ENCODER_ALIASES = {
    "xlm-roberta-large": ("FacebookAI/xlm-roberta-large",),
    "xlm-roberta-base": ("FacebookAI/xlm-roberta-base",),
    "facebook/xlm-roberta-xl": (),
    "facebook/xlm-roberta-xxl": (),
    "microsoft/infoxlm-large": (),
}


def model_folder(model: str, metric: str, hint: str, marker: str) -> Path:
    """The folder of ``model`` (a path, or a hub name found offline). ``marker`` is a file the folder must
    hold (relative), for the error message and the check."""
    if not model:
        raise InvalidParameterError(f"{metric}: no model given; {hint}")
    p = Path(model).expanduser()
    if p.is_dir():
        if not (p / marker).exists():
            raise InvalidParameterError(f"{metric}: model={model!r} has no {marker}; {hint}")
        return p
    if p.is_file():
        raise InvalidParameterError(f"{metric}: model={model!r} is a file; give the model folder (it holds {marker}); {hint}")
    snap, looked = in_hub_cache(model)
    if snap is not None:
        if not (snap / marker).exists():
            raise InvalidParameterError(f"{metric}: model={model!r} in the Hugging Face cache ({snap}) has no {marker} "
                                        f"(an incomplete download?); {hint}")
        return snap
    where = ", ".join(looked) if looked else "(not a folder, not a hub name)"
    raise InvalidParameterError(f"{metric}: model={model!r} not found: no such folder, and not in the Hugging Face "
                                f"cache (looked in {where}); {hint}")


def encoder_folder(name: str, base: Path, metric: str) -> Path:
    """The encoder a COMET checkpoint names (``pretrained_model``): a folder (absolute, or relative to the
    checkpoint folder), or a hub name in the cache. Only its config and tokenizer are read."""
    p = Path(name).expanduser()
    for cand in ((p,) if p.is_absolute() else (base / p,)):
        if cand.is_dir() and (cand / "config.json").is_file():
            return cand
    snap, looked = in_hub_cache(name, ENCODER_ALIASES.get(name, ()))
    if snap is not None and (snap / "config.json").is_file():
        return snap
    where = ", ".join([str(base / p)] + looked)
    raise InvalidParameterError(
        f"{metric}: the checkpoint's encoder {name!r} (hparams.yaml pretrained_model; its config.json and tokenizer "
        f"are needed, not its weights) was not found offline (looked in {where}); put it in the Hugging Face cache "
        f"(e.g. huggingface-cli download {ENCODER_ALIASES.get(name, (name,))[0] if ENCODER_ALIASES.get(name) else name} "
        f"config.json tokenizer.json sentencepiece.bpe.model tokenizer_config.json) or set pretrained_model to a folder")

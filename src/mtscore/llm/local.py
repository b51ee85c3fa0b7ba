"""The in-process backend: a causal LM loaded with transformers from a folder or the offline Hugging Face cache,
answering the same :class:`~mtscore.llm.requests.Request` objects as an HTTP server (``backend=local``).

It has the scheduler's surface (``concurrency``, ``usage``, ``send``, ``stop``), so :func:`mtscore.llm.client.drive`,
the GEMBA protocol and the answer cache are the same code for both backends. Requests that arrive together are
generated as one batch (left padding, up to ``batch_size``), grouped by their sampling parameters:

* the prompt is the model's chat template over the request's messages (``add_generation_prompt``);
* temperature 0: greedy decoding; above 0: sampling at that temperature (``top_p`` 1), seeded from the batch's
  request digests (an answer then depends on which requests shared its batch; the cache keeps it);
* ``max_tokens`` bounds the new tokens; a request without one gets ``DEFAULT_MAX_NEW_TOKENS``;
* ``finish_reason`` is ``stop`` when the model produced its end-of-sequence token, else ``length``; usage counts
  the prompt's tokens and the answer's.

The model id in each request (and so in the cache key and the signature) is the folder's name and the first 12
hex digits of the weights' sha256: another checkpoint under the same name never hits the cache. Weights are read
with safetensors when present and no code from the model folder is run (``trust_remote_code`` stays off).
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from pathlib import Path

from ..errors import InputError
from .client import Usage
from .requests import Answer, Request

DEFAULT_MAX_NEW_TOKENS = 512
GATHER_S = 0.02  # how long the generator waits for more requests to fill a batch


def weights_digest(folder: Path) -> str:
    from ..neural.cache import ScoreCache, disabled, file_digest
    files = sorted(folder.glob("*.safetensors")) or sorted(folder.glob("pytorch_model*.bin"))
    if not files:
        raise InputError("no model weights (*.safetensors or pytorch_model*.bin) in the folder", str(folder))
    import hashlib
    sc = None if disabled() else ScoreCache()
    try:
        h = hashlib.sha256()
        for f in files:
            h.update(file_digest(f, sc).encode())
    finally:
        if sc is not None:
            sc.close()
    return h.hexdigest()


class LocalModel:
    """A loaded causal LM that answers requests in batches (one generator thread)."""

    def __init__(self, folder: Path, device: str = "cpu", batch_size: int = 8):
        self.folder = Path(folder)
        self.device = device
        self.concurrency = int(batch_size)
        self.usage = Usage()
        self.model = None  # loaded by the first request that the cache does not answer
        self._load_lock = threading.Lock()
        self._queue: list[tuple[Request, Future]] = []
        self._cv = threading.Condition()
        self._stop = False
        self._thread = None

    def _ensure(self) -> None:
        with self._load_lock:
            if self.model is not None:
                return
            from ..neural import _deps
            torch = _deps.torch()
            transformers = _deps.transformers()
            folder = self.folder
            tok = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)
            if not getattr(tok, "chat_template", None):
                raise InputError("the tokenizer has no chat template (tokenizer_config.json or chat_template.jinja); "
                                 "a chat model is needed", str(folder))
            tok.padding_side = "left"
            if tok.pad_token_id is None:
                tok.pad_token = tok.eos_token
            dtype = {"dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype": torch.float32}
            model = transformers.AutoModelForCausalLM.from_pretrained(
                str(folder), local_files_only=True, trust_remote_code=False, **dtype).to(self.device).eval()
            self.tokenizer, self._torch = tok, torch
            self.model = model
            self._thread = threading.Thread(target=self._loop, name="mtscore-llm-local", daemon=True)
            self._thread.start()

    # -- the scheduler's surface ---------------------------------------------------------------------------
    def send(self, request: Request) -> Answer:
        try:
            self._ensure()
        except Exception as exc:  # noqa: BLE001 - reported once per request, as one line
            if isinstance(exc, InputError):
                raise
            return Answer(None, "error", error=f"cannot load the model ({type(exc).__name__}: {exc})")
        fut: Future = Future()
        with self._cv:
            if self._stop:
                return Answer(None, "error", error="interrupted")
            self._queue.append((request, fut))
            self._cv.notify()
        return fut.result()

    def stop(self) -> None:
        with self._cv:
            self._stop = True
            pending, self._queue = self._queue, []
            self._cv.notify()
        for _req, fut in pending:
            fut.set_result(Answer(None, "error", error="interrupted"))

    close = stop

    # -- batching ------------------------------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._queue and not self._stop:
                    self._cv.wait()
                if self._stop:
                    return
            time.sleep(GATHER_S)  # let the requests sent together arrive together
            with self._cv:
                batch, self._queue = self._queue[:self.concurrency], self._queue[self.concurrency:]
            groups: dict = {}
            for req, fut in batch:
                groups.setdefault((req.temperature, req.max_tokens), []).append((req, fut))
            for (temp, max_tokens), items in groups.items():
                try:
                    answers = self.generate([r for r, _ in items], temp, max_tokens)
                except Exception as exc:  # noqa: BLE001 - one failed batch fails its requests, not the process
                    answers = [Answer(None, "error", error=f"generation failed ({type(exc).__name__}: {exc})")] * len(items)
                for (_, fut), ans in zip(items, answers):
                    fut.set_result(ans)

    def generate(self, requests: list[Request], temperature: float, max_tokens: int | None) -> list[Answer]:
        torch = self._torch
        tok = self.tokenizer
        texts = [tok.apply_chat_template([{"role": r, "content": c} for r, c in req.messages], tokenize=False,
                                         add_generation_prompt=True) for req in requests]
        enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        new = int(max_tokens or DEFAULT_MAX_NEW_TOKENS)
        kw = {"max_new_tokens": new, "pad_token_id": tok.pad_token_id, "eos_token_id": tok.eos_token_id,
              "top_p": 1.0, "top_k": 0}
        if temperature > 0:
            seed = int(requests[0].digest[:8], 16)
            for r in requests[1:]:
                seed ^= int(r.digest[:8], 16)
            torch.manual_seed(seed)
            kw.update(do_sample=True, temperature=float(temperature))
        else:
            kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with torch.inference_mode():
            out = self.model.generate(**enc, **kw)
        width = enc["input_ids"].shape[1]
        prompt_lens = enc["attention_mask"].sum(dim=1).tolist()
        answers = []
        for i in range(len(requests)):
            gen = out[i, width:].tolist()
            finish = "length"
            if tok.eos_token_id in gen:
                gen = gen[:gen.index(tok.eos_token_id)]
                finish = "stop"
            while gen and gen[-1] == tok.pad_token_id and tok.pad_token_id != tok.eos_token_id:
                gen.pop()
            text = tok.decode(gen, skip_special_tokens=True)
            ans = Answer(text, finish, int(prompt_lens[i]), len(gen))
            answers.append(ans)
            with self.usage._lock:
                self.usage.requests += 1
                self.usage.answers += 1
                self.usage.prompt_tokens += ans.prompt_tokens
                self.usage.completion_tokens += ans.completion_tokens
        return answers

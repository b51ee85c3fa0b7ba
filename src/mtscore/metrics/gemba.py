"""``gemba-esa``, ``gemba-mqm``, ``gemba-da``: LLM judges through any OpenAI-compatible Chat Completions server.

    export OPENAI_API_KEY=...        # or api_key_env=NAME; never on the command line
    mtscore score -s src.en -r ref.de -i sys.de -l en-de -m gemba-esa:model=gpt-4.1,sources=src.en
    mtscore score ... -m gemba-esa:endpoint=http://127.0.0.1:8000/v1,model=Qwen/Qwen2.5-7B-Instruct,concurrency=32

Each segment's statistics are ``(score, 1, 1)`` when the judge gave a score and ``(0, 0, 1)`` when it did not
(refused, unparseable after GEMBA's escalation, truncated past the cap, or the request failed after its retries):
the segment score is NaN, never 0, and the corpus score is the mean over the scored segments; the third column
counts segments, so every command can say how many have no score. Prompts, parsers and the escalation are GEMBA's
(``variant=gemba``: the gemba package 0.1.3) or the WMT25 automatic evaluation's (``variant=wmt25``, GEMBA-ESA
only); see docs/llm-judges.md. Raw answers are kept in the score cache, so a rerun sends no request.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import InputError, InvalidParameterError, MtscoreWarning, plural
from ..params import Param as P
from .base import Metric, format_signature

_PARAMS = (
    P("model", "str", "", empty_ok=True, help="the model id the server knows (sent as 'model'; in the cache key)"),
    P("endpoint", "str", "", empty_ok=True, help="OpenAI-compatible base URL (default $OPENAI_BASE_URL, else "
      "https://api.openai.com/v1); requests go to ENDPOINT/chat/completions"),
    P("api_key_env", "str", "", empty_ok=True, help="name of the environment variable holding the key (default "
      "OPENAI_API_KEY; none needed by most local servers)"),
    P("variant", "choice", "gemba", choices=("gemba", "wmt25"), help="prompts and parser: the gemba package's, or "
      "the WMT25 automatic evaluation's (gemba-esa only)", sig="variant"),
    P("sources", "path", "", empty_ok=True, help="source segments, one per line"),
    P("source_lang", "str", "", empty_ok=True, help="source language name in the prompt (default: from -l)"),
    P("target_lang", "str", "", empty_ok=True, help="target language name in the prompt (default: from -l)"),
    P("concurrency", "int", 8, lo=1, hi=1024, help="requests in flight"),
    P("timeout", "float", 120.0, lo=0.0, lo_open=True, hi=3600.0, help="seconds a request may wait for its answer"),
    P("attempts", "int", 6, lo=1, hi=100, help="tries per request (429/5xx/timeouts/dropped connections)"),
    P("backoff", "float", 1.0, lo=0.0, hi=600.0, help="first retry delay in seconds (doubled each try, jittered)"),
    P("backend", "choice", "http", choices=("http", "local"), help="http: an OpenAI-compatible server; local: the "
      "causal LM in folder model=DIR (or the offline Hugging Face cache), run in this process (the neural extra)",
      sig="backend", sig_when=lambda v: v == "local"),
    P("batch_size", "int", 8, lo=1, hi=1024, help="backend=local: requests generated together"),
    P("gpus", "int", 0, lo=0, hi=1, help="backend=local: 0 runs on the CPU, 1 on the first GPU"),
    P("dry_run", "bool", False, help="count the requests a run would send (after the cache) and estimate tokens; "
      "send nothing, score nothing (score --dry-run sets it for every judge)"),
    P("cache", "bool", True, help="keep raw answers in the score cache (MTSCORE_NO_CACHE=1 turns it off)"),
)


@dataclass(frozen=True)
class GembaConfig:
    PARAMS: ClassVar = _PARAMS
    model: str = ""
    endpoint: str = ""
    api_key_env: str = ""
    variant: str = "gemba"
    sources: str = ""
    source_lang: str = ""
    target_lang: str = ""
    concurrency: int = 8
    timeout: float = 120.0
    attempts: int = 6
    backoff: float = 1.0
    backend: str = "http"
    batch_size: int = 8
    gpus: int = 0
    dry_run: bool = False
    cache: bool = True


@dataclass(frozen=True)
class GembaDAConfig(GembaConfig):
    PARAMS: ClassVar = _PARAMS + (
        P("ref", "bool", True, help="GEMBA-DA with the (first) reference (GEMBA-DA_ref) or source-only (GEMBA-DA)"),)
    ref: bool = True


class _MemoryStore:
    """cache=false: answers live only for this process (a request is still never sent twice)."""

    def __init__(self):
        self._d = {}

    def get(self, digest):
        return self._d.get(digest)

    def put(self, request, answer):
        if not answer.failed:
            self._d[request.digest] = answer

    def flush(self):
        pass


class GembaESA(Metric):
    name = "gemba-esa"
    display_name = "GEMBA-ESA"
    Config = GembaConfig
    columns = ("score", "count", "segments")
    decomposable = True
    higher_is_better = True
    range = (0.0, 100.0)
    partitionable = False
    carries_sources = True
    names_itself = True
    predicts_spans = True  # GEMBA-ESA's and GEMBA-MQM's error lists (--spans-out, sentence-level JSON, the report)
    _judge = "gemba-esa"
    _kinds: ClassVar[tuple] = ("esa-spans", "esa-score")
    _uses_refs = False

    def _validate(self) -> None:
        from ..llm import prompts
        from ..llm.client import Endpoint
        c = self.config
        if not c.model:
            raise InvalidParameterError(f"{self.name}: pass model=NAME (the model id the server serves)")
        if not c.sources:
            raise InvalidParameterError(f"{self.name}: GEMBA judges a translation against its source; pass "
                                        "sources=FILE (one source segment per line)")
        for k in self._kinds:
            prompts.template(k, c.variant)  # variant=wmt25 defines GEMBA-ESA only
        if c.backend == "local":
            from ..neural.locate import model_folder
            if c.endpoint or c.api_key_env:
                raise InvalidParameterError(f"{self.name}: endpoint= and api_key_env= are for backend=http; "
                                            "backend=local runs model=DIR in this process")
            self._folder = model_folder(c.model, self.name, "pass model=DIR with a causal LM folder (config.json, "
                                        "weights, a tokenizer with a chat template); never downloaded", "config.json")
            self._endpoint = None
        else:
            self._endpoint = Endpoint(c.endpoint or None, c.api_key_env, c.timeout)  # validates URL and key variable
        self._model_id_cache = None
        self._local = None
        self._langpair = None
        self._src_lines = None
        self.span_log: list = []
        self.status_log: list = []
        self.usage = {"requests": 0, "answers": 0, "cached": 0, "retries": 0, "failed": 0,
                      "prompt_tokens": 0, "completion_tokens": 0}
        self.dry = bool(c.dry_run)  # score --dry-run sets it too
        self.dry_counts = {"requests": 0, "cached": 0, "prompt_chars": 0, "segments": 0}

    def __reduce_ex__(self, protocol):
        fn, args, state = super().__reduce_ex__(protocol)
        return fn, args, {**state, "span_log": [], "status_log": [], "_local": None}

    def _model_id(self) -> str:
        """The model id in every request (and so in the cache key): the server's model name, or for backend=local
        the folder's name and the weights' sha256 (12 hex digits)."""
        if self._model_id_cache is None:
            if self.config.backend == "local":
                from ..llm.local import weights_digest
                self._model_id_cache = f"{self._folder.name}@{weights_digest(self._folder)[:12]}"
            else:
                self._model_id_cache = self.config.model
        return self._model_id_cache

    def _sender(self):
        c = self.config
        if c.backend == "local":
            if self._local is None:
                from ..llm.local import LocalModel
                self._local = LocalModel(self._folder, "cuda:0" if c.gpus else "cpu", c.batch_size)
            return self._local
        from ..llm.client import Scheduler
        return Scheduler(self._endpoint, c.concurrency, c.attempts, c.backoff)

    @property
    def _where(self) -> str:
        return str(self._folder) if self.config.backend == "local" else self._endpoint.url

    # -- sources and languages (as the neural metrics) --------------------------------------------------------
    @property
    def sources_path(self) -> str | None:
        return self.config.sources or None

    def with_sources(self, lines) -> "GembaESA":
        c = object.__new__(type(self))
        c.__dict__.update(self.__dict__)
        c._src_lines = list(lines)
        return c

    def sources_of_rows(self, seg, n_segments: int, what: str = "n-best list") -> list[str]:
        """The source segment of every row of a candidate pool (``seg``: the segment of each row), from the
        ``sources=`` file, which has one line per segment of the ``what`` (n-best reranking by a judge)."""
        src = self.__dict__.get("_src_lines")
        if src is None:
            from ..io import read_lines
            src = read_lines(self.config.sources)
        if len(src) != n_segments:
            raise InputError(f"{self.name}: {plural(len(src), 'source segment')} for the "
                             f"{plural(n_segments, 'segment')} of the {what}", self.config.sources)
        return [src[int(s)] for s in seg]

    def check_languages(self, langpair: str | None) -> list[str]:
        self._langpair = langpair
        return []

    def _sources(self, n: int) -> list[str]:
        src = self.__dict__.get("_src_lines")
        if src is None:
            from ..io import read_lines
            src = read_lines(self.config.sources)
        if len(src) != n:
            raise InputError(f"{self.name}: {plural(len(src), 'source segment')} for "
                             f"{plural(n, 'hypothesis', 'hypotheses')}", self.config.sources)
        return src

    def _languages(self) -> tuple[str, str]:
        from ..llm.languages import name
        c = self.config
        pair = self._langpair
        if (not c.source_lang or not c.target_lang) and not pair:
            raise InvalidParameterError(f"{self.name}: the prompt names the languages: pass -l SRC-TGT (e.g. en-de) or "
                                        "source_lang=NAME,target_lang=NAME")
        s, t = (pair.split("-", 1) if pair else ("", ""))
        return (c.source_lang or name(s, c.variant, parameter="-l"), c.target_lang or name(t, c.variant, parameter="-l"))

    # -- the statistics: one protocol per segment -------------------------------------------------------------
    def _protocols(self, src, hyps, refs, langs):
        from ..llm import protocol
        judge = protocol.JUDGES[self._judge]
        for i, (s, h, r) in enumerate(zip(src, hyps, refs)):
            ref = (r[0] if r else "") if self._uses_refs else None
            yield i, judge(self._model_id(), self.config.variant, source=s, hypothesis=h,
                           source_lang=langs[0], target_lang=langs[1], reference=ref)

    def _store(self):
        from ..neural import cache as _cache
        if self.config.cache and not _cache.disabled():
            from ..llm.cache import AnswerStore
            return AnswerStore()
        return _MemoryStore()

    def _stats(self, hyps, refs) -> np.ndarray:
        from ..llm.client import drive
        from ..progress import progress
        c = self.config
        src = self._sources(len(hyps))
        langs = self._languages()
        if self._uses_refs and any(not r for r in refs):
            raise InputError(f"{self.name}: ref=true needs a reference for every segment (or use ref=false)")
        store = self._store()
        try:
            if self.dry:
                self._dry_run(src, hyps, refs, langs, store)
                return np.column_stack([np.zeros(len(hyps)), np.zeros(len(hyps)), np.ones(len(hyps))])
            sched = self._sender()
            with progress(self.display_name, total=len(hyps), unit="segments") as bar:
                u = sched.usage
                bar.postfix = lambda el: (f"{u.requests / el if el > 0 else 0.0:.1f} req/s, "
                                          f"{u.prompt_tokens + u.completion_tokens} tokens, {u.cached} cached"
                                          + (f", {u.retries} retries" if u.retries else ""))
                results = drive(self._protocols(src, hyps, refs, langs), sched, store, bar)
        finally:
            if hasattr(store, "close"):
                store.close()
        for k, v in sched.usage.as_dict().items():
            if k in self.usage:
                self.usage[k] += v
        if c.backend == "local":  # the loaded model's usage counts on: keep only this call's share
            sched.usage = type(sched.usage)()
        outcomes = [results[i] for i in range(len(hyps))]
        scored = np.array([o.scored for o in outcomes])
        vals = np.array([o.score if o.scored else 0.0 for o in outcomes], dtype=np.float64)
        if self.predicts_spans:
            self.span_log.append([list(o.spans) for o in outcomes])
        self.status_log.append([o.status for o in outcomes])
        missing = int((~scored).sum())
        if missing:
            from collections import Counter
            why = Counter(o.status for o in outcomes if not o.scored)
            warnings.warn(MtscoreWarning(
                f"{self.name}: {missing} of {plural(len(hyps), 'segment')} have no score ("
                + ", ".join(f"{n} {k}" for k, n in sorted(why.items()))
                + "); their segment scores are NaN and the corpus score is the mean of the others"), stacklevel=2)
        return np.column_stack([vals, scored.astype(np.float64), np.ones(len(hyps))])

    def _dry_run(self, src, hyps, refs, langs, store) -> None:
        """Walk every segment's protocol without a connection: a request whose answer is in the cache takes it;
        any other is counted and answered with a stand-in well-formed answer, so GEMBA-ESA reaches its second
        request (whose prompt then holds the stand-in span list: its size is an estimate)."""
        from ..llm.requests import Answer
        sent = cached = chars = 0
        for _key, gen in self._protocols(src, hyps, refs, langs):
            ans = None
            while True:
                try:
                    req = gen.send(ans)
                except StopIteration:
                    break
                hit = store.get(req.digest)
                if hit is not None:
                    cached += 1
                    ans = hit
                    continue
                sent += 1
                chars += req.prompt_chars()
                ans = Answer("100" if "Annotated error spans" in req.messages[-1][1] or self._kinds != (
                    "esa-spans", "esa-score") else "Major:\nno-error\nMinor:\nno-error", "stop")
        d = self.dry_counts
        d["requests"] += sent
        d["cached"] += cached
        d["prompt_chars"] += chars
        d["segments"] += len(hyps)

    def dry_run_line(self) -> str:
        """What a run would send, counted by the dry run (one line)."""
        d = self.dry_counts
        return (f"{self.name}: {d['requests']} requests to send to {self._where} for {d['segments']} segments "
                f"({d['cached']} answered by the cache), about {d['prompt_chars'] // 4} prompt tokens (characters / 4) "
                "plus the answers; nothing was sent")

    # -- scores ---------------------------------------------------------------------------------------------
    def score(self, summed) -> np.ndarray:
        s = np.asarray(summed, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[..., 0] / s[..., 1]

    def _result(self, summed, signature, sentence=False):
        from .base import MetricResult
        s = np.asarray(summed, dtype=np.float64)
        comps = {"segments": int(s[2]), "scored": int(s[1]), "unscored": int(s[2] - s[1])}
        if not sentence:
            comps.update({f"llm_{k}": v for k, v in self.usage.items()})
        return MetricResult(self.name, self.display_name, float(self.score(s)), signature, comps)

    def signature_items(self, nrefs):
        from ..llm import protocol, prompts
        c = self.config
        first = protocol.FIRST_MAX_TOKENS[(c.variant, self._kinds[-1])]
        # the declared entries (PARAMS: backend, variant) with what is not a parameter: the model, the prompts'
        # digest, whether a reference is in the prompt, the protocol's temperatures and token limits
        return self.declared_signature(
            ("model", self._model_id()), "backend", "variant",
            ("tpl", prompts.template_digest(self._kinds, c.variant)),
            ("ref", ("yes" if nrefs else "none") if self._uses_refs else "none"),
            ("temp", f"0-{protocol.MAX_TEMPERATURE_STEP / 10:g}"),
            ("maxtok", "none" if first is None else
             (f"{first}-{protocol.MAX_TOKENS_CAP}" if c.variant == "gemba" else str(first))),
            ("agg", "mean-of-scored"), ("dir", "higher"))

    def signature(self, nrefs=1) -> str:
        return format_signature(self.signature_items(nrefs))


class GembaMQM(GembaESA):
    name = "gemba-mqm"
    display_name = "GEMBA-MQM"
    range = (-25.0, 0.0)
    _judge = "gemba-mqm"
    _kinds = ("mqm",)


class GembaDA(GembaESA):
    name = "gemba-da"
    display_name = "GEMBA-DA"
    Config = GembaDAConfig
    predicts_spans = False  # a number only
    _judge = "gemba-da"
    _kinds = ("da-ref",)

    def _validate(self) -> None:
        self._uses_refs = bool(self.config.ref)
        self._kinds = ("da-ref",) if self._uses_refs else ("da",)
        super()._validate()


"""The parameter layer: one declaration per parameter; one function checks a value; one message.

A metric's parameters are declared beside its Config, in the metric's module (``PARAMS``); this module holds
the rules (:class:`Param`), what several metrics share, and the command options.

Every value a user can give reaches mtscore through one of three doors, and all three use this module:

* the **Python API**: a metric ``Config`` (``BLEU(smooth_value=...)``) validates each field in
  ``__post_init__`` with :func:`validate_config` (values must have their Python type: ``beta=2.0``,
  ``lowercase=True``; a string is only accepted where the parameter is a string);
* the **command line**: options are declared with :func:`add_option` / :func:`add_metric_options` and
  parsed by :meth:`Param.parse` (text rules: numbers in Python syntax, booleans exactly
  ``true/false/1/0/yes/no/on/off`` in any case); inline metric parameters ``-m name:key=value`` are
  parsed with the same rule by :func:`parse_inline`;
* **model files** (ROSE model JSON ``config``): :func:`convert_mapping` (JSON values, or text).

Whatever the door, an invalid value raises :class:`~mtscore.errors.InvalidParameterError` with the one
message template :func:`message`: ``<parameter>: must be <rule>, got <value>``.

Every numeric parameter has a lower and an upper bound (inclusive or exclusive) in its declaration; the
bounds are listed by ``mtscore metrics`` and in docs/parameters.md (generated from the declarations by
``scripts/gen_parameters_doc.py``). Renamed parameters keep their old names as aliases (a one-line
deprecation note on stderr).
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import InvalidParameterError, message, show_value as _show  # noqa: F401 (the one template)
from .errors import did_you_mean

TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")
KINDS = ("int", "float", "bool", "choice", "str", "path", "floats", "ints")
SEED_MAX = 2 ** 32 - 1  # numpy's legacy RandomState (sacreBLEU's) accepts 0..2**32-1
DEFAULT_SEED = 12345  # sacreBLEU's; every command that resamples or draws uses it
MAX_RESAMPLES = 10 ** 7


def _fmt_bound(x) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e16:
        x = int(x)
    if isinstance(x, int) and x < 0:
        return "-" + _fmt_bound(-x)
    if isinstance(x, int) and abs(x) >= 10 ** 6 and x == 10 ** round(math.log10(x)):
        return f"10^{round(math.log10(x))}"
    if x == 2 ** 32 - 1:
        return "2^32-1"
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter: its kind, bounds, choices and documentation.

    ``lo``/``hi`` are the bounds, inclusive unless ``lo_open``/``hi_open``; floats are always finite.
    ``choices`` may be a callable (choices computed on use, e.g. the installed tokenizers).
    ``nullable``: ``None`` is a valid value (meaning "the default of another setting"); only the Python and
    JSON doors can give it (``None``/``null``): as text, ``none``/``null``/``default`` are words like any other,
    a value where the parameter accepts them, else an error (an option not given keeps the default).
    ``aliases``: old names still accepted (deprecated). ``flags``: command-line spelling(s); for a metric
    parameter, the option of every metric that declares it (``common``, ``flag_value``, ``deprecated_flags``,
    ``option_for`` shape that option).
    """

    name: str
    kind: str
    default: Any = None
    lo: float | int | None = None
    hi: float | int | None = None
    lo_open: bool = False
    hi_open: bool = False
    choices: Sequence[str] | Callable[[], Sequence[str]] | None = None
    nullable: bool = False
    help: str = ""
    aliases: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    metavar: str | None = None
    min_len: int = 1  # floats/ints lists
    empty_ok: bool = False  # str/path: "" allowed (meaning "not given")
    checker: Callable[[str], bool] | None = None  # str: extra rule (e.g. a tokenizer spec NAME[:MODEL])
    concept: str = ""  # command options: what the option means, when its entry's name does not say it (one
    # meaning, one command-line name in every command: mtscore.cli.options.concept_of)
    # a metric parameter with ``flags`` is also a command-line option of the metrics that declare it:
    common: bool = False  # shown in every command's help (sacreBLEU's everyday options)
    flag_value: Any = True  # boolean options: the value the flag sets (--cer-no-spaces sets False)
    deprecated_flags: tuple[str, ...] = ()  # old option spellings (a one-line note)
    option_for: tuple[str, ...] | None = None  # the option reaches only these metrics (None: every one declaring it;
    # a parameter narrowed so is also in the signature of those metrics only)
    # its entry in the metric's signature (``key:value``; docs/contributing-a-metric.md), read by
    # Metric.declared_signature: ``sig`` the key (None: not in the signature); ``sig_fmt`` how the value is written,
    # called with the value and the values of ``sig_uses`` (default: the value itself, booleans as yes/no; None:
    # the entry is left out); ``sig_when`` when it appears: "always", "not_default" (only when the value is not
    # ``default``) or a predicate called as ``sig_fmt`` is
    sig: str | None = None
    sig_fmt: Callable[..., Any] | None = None
    sig_when: str | Callable[..., bool] = "always"
    sig_uses: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Param {self.name}: unknown kind {self.kind!r}")
        if self.kind in ("int", "float", "floats", "ints") and (self.lo is None or self.hi is None):
            raise ValueError(f"Param {self.name}: numeric parameters need both bounds")
        if not (self.sig_when in ("always", "not_default") or callable(self.sig_when)):
            raise ValueError(f"Param {self.name}: sig_when must be 'always', 'not_default' or a function")

    # -- its signature entry --------------------------------------------------------------------
    def sig_value(self, values: Mapping[str, Any]):
        """What this parameter writes in its metric's signature after ``sig:`` (None: no entry), from the
        metric's parameter values ``{name: value}`` (its own and those of ``sig_uses``)."""
        if self.sig is None:
            return None
        args = (values[self.name], *(values[u] for u in self.sig_uses))
        if self.sig_when == "not_default":
            if args[0] == self.default:
                return None
        elif callable(self.sig_when) and not self.sig_when(*args):
            return None
        return self.sig_fmt(*args) if self.sig_fmt is not None else args[0]

    # -- description --------------------------------------------------------------------------
    def valid_choices(self) -> tuple[str, ...]:
        c = self.choices() if callable(self.choices) else self.choices
        return tuple(c or ())

    def bounds_text(self) -> str:
        """``0 < x <= 1000`` style (empty for non-numeric kinds)."""
        if self.kind not in ("int", "float", "floats", "ints"):
            return ""
        lo = ("<" if self.lo_open else "<=")
        hi = ("<" if self.hi_open else "<=")
        return f"{_fmt_bound(self.lo)} {lo} x {hi} {_fmt_bound(self.hi)}"

    def rule(self) -> str:
        k = self.kind
        if k == "bool":
            return "a boolean (true/false, 1/0, yes/no, on/off)"
        if k == "choice":
            return "one of: " + ", ".join(self.valid_choices())
        if k == "str" and self.choices is not None:
            return "one of: " + ", ".join(self.valid_choices()) + " (SentencePiece ones also as NAME:MODEL_FILE)"
        if k in ("str", "path"):
            return "a non-empty string" if k == "str" else "a file path"
        if k in ("int", "ints"):
            what = "an integer" if k == "int" else "integers, each"
            if self.lo_open or self.hi_open:
                return f"{what} with {self.bounds_text()}"
            return f"{what} in {_fmt_bound(self.lo)}..{_fmt_bound(self.hi)}"
        what = "a finite number" if k == "float" else "finite numbers, each"
        if not self.lo_open and not self.hi_open:
            return f"{what} in [{_fmt_bound(self.lo)}, {_fmt_bound(self.hi)}]"
        return f"{what} with {self.bounds_text()}"

    def type_name(self) -> str:
        if self.checker is not None:
            return "tokenizer" if self.name == "tokenize" else self.kind
        return {"floats": "list of float", "ints": "list of int", "choice": "choice"}.get(self.kind, self.kind)

    # -- checking -----------------------------------------------------------------------------
    def fail(self, label: str | None, value, rule: str | None = None) -> InvalidParameterError:
        hint = ""
        if rule is None and (self.kind == "choice" or self.checker is not None):
            hint = did_you_mean(value, self.valid_choices())
        return InvalidParameterError(message(label or self.name, rule or self.rule(), value) + hint)

    def check(self, value, label: str | None = None):
        """A Python value (API, JSON): its type must fit; returns the normalised value."""
        label = label or self.name
        if value is None:
            if self.nullable:
                return None
            raise self.fail(label, value)
        k = self.kind
        if k == "bool":
            if _is_bool(value):
                return bool(value)
            raise self.fail(label, value)
        if k == "int":
            if _is_bool(value) or not _is_int(value):
                raise self.fail(label, value)
            return self._in_range(int(value), label, value)
        if k == "float":
            if _is_bool(value) or not (_is_int(value) or _is_float(value)):
                raise self.fail(label, value)
            try:
                x = float(value)
            except OverflowError:
                raise self.fail(label, value) from None
            return self._in_range(x, label, value)
        if k in ("floats", "ints"):
            if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                raise self.fail(label, value)
            items = list(value)
            if len(items) < self.min_len:
                raise self.fail(label, value)
            one = dataclasses.replace(self, kind="float" if k == "floats" else "int")
            out = []
            for v in items:
                try:
                    out.append(one.check(v, label))
                except InvalidParameterError:
                    raise self.fail(label, value) from None
            return tuple(out)
        if k == "choice":
            if isinstance(value, str) and value in self.valid_choices():
                return value
            raise self.fail(label, value)
        if k == "str":
            if isinstance(value, str) and (value or self.empty_ok) and (self.checker is None or self.checker(value)):
                return value
            raise self.fail(label, value)
        if k == "path":
            if isinstance(value, os.PathLike):
                value = os.fspath(value)
            if isinstance(value, str) and (value or self.empty_ok) and "\0" not in value:
                return value
            raise self.fail(label, value)
        raise AssertionError(k)

    def parse(self, text: str, label: str | None = None):
        """A value given as text (command line, inline ``-m`` parameter, a string in a model file)."""
        label = label or self.name
        if not isinstance(text, str):
            return self.check(text, label)
        k = self.kind
        s = text.strip()
        # One rule: a word is a value where the parameter accepts it (``none`` is a smoothing and a
        # tokenizer); "not given" is only the absence of the option, so none/null/default never mean the default.
        if k == "bool":
            low = s.lower()
            if low in TRUE_WORDS:
                return True
            if low in FALSE_WORDS:
                return False
            raise self.fail(label, text)
        if k == "int":
            try:
                v = int(s, 10)
            except ValueError:
                raise self.fail(label, text) from None
            if "_" in s:
                raise self.fail(label, text)
            return self._in_range(v, label, text)
        if k == "float":
            try:
                v = float(s)
            except ValueError:
                raise self.fail(label, text) from None
            if "_" in s:
                raise self.fail(label, text)
            return self._in_range(v, label, text)
        if k in ("floats", "ints"):
            parts = [p for p in s.replace("/", " ").replace(";", " ").split() if p]
            if len(parts) < self.min_len:
                raise self.fail(label, text)
            one = dataclasses.replace(self, kind="float" if k == "floats" else "int")
            try:
                return tuple(one.parse(p, label) for p in parts)
            except InvalidParameterError:
                raise self.fail(label, text) from None
        if k == "path" and "\0" in text:
            raise self.fail(label, text)
        return self.check(text if k in ("str", "path") else s, label)

    def _in_range(self, x, label, shown):
        if isinstance(x, float) and not math.isfinite(x):
            raise self.fail(label, shown)
        lo_ok = x > self.lo if self.lo_open else x >= self.lo
        hi_ok = x < self.hi if self.hi_open else x <= self.hi
        if not (lo_ok and hi_ok):
            raise self.fail(label, shown)
        return x


def _is_bool(v) -> bool:
    return isinstance(v, bool) or type(v).__name__ == "bool_"


def _is_int(v) -> bool:
    if isinstance(v, int):
        return True
    np = sys.modules.get("numpy")  # not loaded: no value is a NumPy one (and a small BLEU run never loads it)
    return np is not None and isinstance(v, np.integer)


def _is_float(v) -> bool:
    if isinstance(v, float):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(v, np.floating)


# ---------------------------------------------------------------------------------------------------
# dynamic choices: provided by the later stages that own them (the parameter layer imports none of them)
# ---------------------------------------------------------------------------------------------------
_PROVIDERS: dict[str, Any] = {}


def provide(key: str, provider) -> None:
    """A later stage offers the parameter layer something it owns: a choice list (a sequence, or a function
    that computes it) or a checker or formatter (a function). Called when that stage's package is imported:
    the tokenizer names, spec rule and signatures (``tokenize``), the LCM languages (``metrics``), the
    stored-score formats (``io``), the output formats (``report``)."""
    _PROVIDERS[key] = provider


def provided(key: str, *args):
    """What stage ``key``'s provider gives (a function provider is called with ``args``)."""
    try:
        prov = _PROVIDERS[key]
    except KeyError:
        raise LookupError(f"mtscore.params: {key!r} is provided by a stage that has not been imported "
                          f"(providers: {', '.join(sorted(_PROVIDERS)) or 'none'})") from None
    return prov(*args) if callable(prov) else prov


@dataclasses.dataclass(frozen=True)
class Provided:
    """A choice list or checker that a later stage provides (:func:`provide`), looked up on use."""

    key: str

    def __call__(self, *args):
        return provided(self.key, *args)


# ---------------------------------------------------------------------------------------------------
# the glossary: one name, one meaning. Shared parameters are defined once and reused.
# ---------------------------------------------------------------------------------------------------
def case_sig(lowercase) -> str:
    """``case:`` of signatures (sacreBLEU's): ``lc`` or ``mixed``."""
    return "lc" if lowercase else "mixed"


TOKENIZE = Param("tokenize", "str", "13a", choices=Provided("tokenizers"), checker=Provided("tokenizer_spec"),
                 help="tokenizer", sig="tok", sig_fmt=Provided("tokenizer_signature"))  # sacreBLEU's names
LOWERCASE = Param("lowercase", "bool", False, help="lowercase before scoring", sig="case", sig_fmt=case_sig)
MULTI_REF_POS = ("position", "sentence")

P = Param  # short alias

# A metric's parameters are declared beside its Config, in the metric's own module, as the class attribute
# ``PARAMS: ClassVar = (Param(...), ...)`` (docs/contributing-a-metric.md); a metric added outside mtscore does
# the same. This module keeps what several metrics share (TOKENIZE, LOWERCASE above) and the rules.

# The "config" object of a ROSE model file (mtscore rose train writes it).
ROSE_MODEL_CONFIG = {
    "tokenize": TOKENIZE,
    "lowercase": LOWERCASE,
    "function_words": P("function_words", "str", "en"),
    "pos_tagger": P("pos_tagger", "choice", None, choices=("textblob", "pretagged"), nullable=True),
}
# Kernel parameters of ROSE models (files and `rose train`, whose options below use them): bounded so that
# K(x, y) stays finite for standardized features.
ROSE_KERNEL = {
    "degree": P("degree", "int", 3, lo=1, hi=10, help="polynomial kernel degree"),
    "gamma": P("gamma", "float", None, lo=0.0, hi=100.0, lo_open=True, nullable=True,
               help="poly/RBF gamma (default 1/n_features)"),
    "coef0": P("coef0", "float", 1.0, lo=-1.0e3, hi=1.0e3, help="polynomial kernel offset"),
}


def config_params(cls_or_obj) -> dict[str, Param]:
    """``{field name: Param}`` of a metric Config class (or instance)."""
    cls = cls_or_obj if isinstance(cls_or_obj, type) else type(cls_or_obj)
    for k in cls.__mro__:  # its own declarations, else those of the Config it extends
        declared = k.__dict__.get("PARAMS")
        if declared is not None:
            return {p.name: p for p in declared}
    return {}


def validate_config(cfg) -> None:
    """Check (and normalise) every declared field of a frozen Config dataclass in place."""
    decl = config_params(cfg)
    for f in dataclasses.fields(cfg):
        p = decl.get(f.name)
        if p is None:
            continue
        v = getattr(cfg, f.name)
        nv = p.check(v, f.name)
        if nv is not v:
            object.__setattr__(cfg, f.name, nv)


_NOTED: set = set()


def deprecated(old: str, new: str, where: str = "parameter") -> None:
    """One line on stderr, once per process and name."""
    if (where, old) in _NOTED:
        return
    _NOTED.add((where, old))
    sys.stderr.write(f"mtscore: note: {where} {old!r} is deprecated; use {new!r}\n")


def resolve_aliases(cls, params: Mapping[str, Any]) -> dict:
    """Map old (aliased) names to the current ones, with a deprecation note."""
    decl = config_params(cls)
    alias = {a: p.name for p in decl.values() for a in p.aliases}
    out = {}
    for k, v in params.items():
        if k in alias and k not in decl:
            deprecated(k, alias[k])
            if alias[k] in params:
                raise InvalidParameterError(f"{k}: given together with its new name {alias[k]}; give one")
            k = alias[k]
        out[k] = v
    return out


def make_config(cls, params: Mapping[str, Any], metric: str):
    """``cls(**params)`` with renamed parameters' old names accepted (deprecation note) and an error
    naming unknown parameters; a value error names the parameter as the caller spelled it."""
    names = [f.name for f in dataclasses.fields(cls)]
    decl = config_params(cls)
    alias = {a: p.name for p in decl.values() for a in p.aliases}
    unknown = sorted(k for k in params if k not in names and k not in alias)
    if unknown:
        raise InvalidParameterError(
            f"{metric}: unknown parameter(s) {', '.join(unknown)}; valid: {', '.join(sorted(names))}")
    resolved = resolve_aliases(cls, params)
    try:
        cfg = cls(**resolved)
        validate_config(cfg)  # also for a Config without __post_init__ (a metric added outside mtscore)
        return cfg
    except InvalidParameterError as exc:
        msg = str(exc)
        for old, new in alias.items():
            if old in params and msg.startswith(f"{new}:"):
                raise InvalidParameterError(f"{old}:{msg[len(new) + 1:]}") from None
        raise


def _inferred_params(cls) -> dict[str, Param]:
    """Text rules for the fields of a Config that declares no table (a metric added outside mtscore),
    from their annotations: bool (the boolean words), int, float (finite), str. Others stay text."""
    out = {}
    for f in dataclasses.fields(cls):
        t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
        if t == "bool":
            out[f.name] = Param(f.name, "bool")
        elif t == "int":
            out[f.name] = Param(f.name, "int", lo=-(2 ** 63), hi=2 ** 63 - 1)
        elif t == "float":
            out[f.name] = Param(f.name, "float", lo=-1.0e308, hi=1.0e308)
        elif t == "str":
            out[f.name] = Param(f.name, "str", empty_ok=True)
    return out


def parse_inline(cls, metric: str, params: Mapping[str, str], free: bool = False) -> dict:
    """Inline ``-m metric:key=value`` parameters (text) -> typed values, by the Config's table.
    ``free``: the metric takes keys of its own (e.g. ``scores:COMET=FILE``); they pass as text."""
    params = resolve_aliases(cls, params)
    decl = {**_inferred_params(cls), **config_params(cls)}
    names = [f.name for f in dataclasses.fields(cls)]
    out = {}
    for k, v in params.items():
        if k not in names and free:
            out[k] = v
            continue
        if k not in names:
            raise InvalidParameterError(
                f"-m {metric}: unknown parameter {k!r}; valid: {', '.join(names)} (see: mtscore metrics {metric})")
        p = decl.get(k)
        out[k] = p.parse(v, f"{metric}:{k}") if p is not None else v
    return out


def convert_mapping(table: Mapping[str, Param], values: Mapping[str, Any], where: str) -> dict:
    """Values of a model file's object: JSON types checked, strings parsed by the text rule."""
    out = {}
    for k, v in values.items():
        p = table.get(k)
        if p is None:
            out[k] = v
            continue
        out[k] = p.parse(v, f"{where}{k}") if isinstance(v, str) else p.check(v, f"{where}{k}")
    return out


# ---------------------------------------------------------------------------------------------------
# command-line metric options: each belongs to the metrics that have it (never to another metric)
# ---------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class MetricOption:
    flags: tuple[str, ...]  # first = the name used in messages
    field: str
    metrics: tuple[str, ...] | None  # registry names it applies to; None: every metric with the field
    common: bool = False  # shown in every command's help (sacreBLEU's everyday options)
    flag_value: Any = True  # boolean options: the value the flag sets (--cer-no-spaces sets False)
    deprecated_flags: tuple[str, ...] = ()
    param: Param | None = None  # the declaration behind it

    @property
    def dest(self) -> str:
        return "mopt_" + self.flags[0].lstrip("-").replace("-", "_")

    @property
    def flag(self) -> str:
        return self.flags[0]


# the options every metric with the field takes; the others come from the metrics' own declarations
SHARED_METRIC_OPTIONS: tuple[MetricOption, ...] = (
    MetricOption(("--tokenize", "--tok"), "tokenize", None, common=True, param=TOKENIZE),
    MetricOption(("--lowercase", "--lc"), "lowercase", None, common=True, param=LOWERCASE),
)

# The metrics named on the command line being parsed (registry names), so that building a parser imports only
# their modules; None: every registered metric (help, `mtscore metrics`, an option no named metric declares).
METRICS_NAMED: frozenset | None = None
METRIC_CLASSES_IN_USE: dict = {}  # {name: class} whose options the parsers built for one command line define


def metric_options(classes: Mapping[str, Any]) -> tuple[MetricOption, ...]:
    """The command-line metric options of the metrics ``{registry name: metric class}``: the shared ones,
    then every declared parameter with ``flags``, in the order of ``classes`` and of each Config's
    declarations; an option reaches the metrics whose Config declares it (narrowed by ``option_for``).
    One flag declared by several metrics (``--max-order``) is one option with the first declaration's rule."""
    found: dict[str, tuple[Param, list[str]]] = {}
    for name, cls in classes.items():
        for p in config_params(cls.Config).values():
            if not p.flags or (p.option_for is not None and name not in p.option_for):
                continue
            found.setdefault(p.flags[0], (p, []))[1].append(name)
    return SHARED_METRIC_OPTIONS + tuple(
        MetricOption(p.flags, p.name, tuple(names), common=p.common, flag_value=p.flag_value,
                     deprecated_flags=p.deprecated_flags, param=p) for p, names in found.values())


# ---------------------------------------------------------------------------------------------------
# command options (everything that is not a metric parameter)
# ---------------------------------------------------------------------------------------------------
_LEVEL = dict(lo=0.0, hi=1.0, lo_open=True, hi_open=True)
OPTIONS: dict[str, Param] = {p.name: p for p in (
    P("width", "int", 2, lo=0, hi=17, flags=("-w", "--width"), metavar="DIGITS",
      help="digits after the decimal point in text output"),
    P("format", "choice", "text", choices=Provided("formats"), flags=("-f", "--format"), help="output format"),
    P("seed", "int", DEFAULT_SEED, lo=0, hi=SEED_MAX, flags=("--seed",), help="random seed (0 is a seed)"),
    P("jobs", "int", None, lo=1, hi=1024, nullable=True, flags=("--jobs", "-j"),
      help="worker processes for the local backend (default: 1 process; the compiled kernels use threads)"),
    P("threads", "int", None, lo=1, hi=1024, nullable=True, flags=("--threads",),
      help="threads of the compiled kernels (default: $MTSCORE_THREADS if set, else one per CPU this process may "
           "use, at most 8, fewer for small inputs; the numbers do not depend on it)"),
    P("kernels", "choice", None, choices=("auto", "c", "reference"), nullable=True, flags=("--kernels",),
      help="kernel implementation: c (compiled), reference (plain Python/NumPy, slow, same numbers) or auto "
           "(c when built) (default: $MTSCORE_KERNELS if set, else auto)"),
    P("runs", "int", None, lo=1, hi=10 ** 4, nullable=True, flags=("--runs",),
      help="optimizer runs per system (MultEval)"),
    P("chunk_size", "int", None, lo=1, hi=10 ** 9, nullable=True, flags=("--chunk-size",),
      help="lines per partition"),
    P("dask_workers", "int", 2, lo=1, hi=256, flags=("--dask-workers",), help="workers of the LocalCluster"),
    # compare
    P("n", "int", None, lo=2, hi=MAX_RESAMPLES, nullable=True, flags=("--resamples",), concept="resamples",
      help="resamples (bootstrap, default 1000) or trials (ar, default 10000)"),
    P("n_ci", "int", None, lo=2, hi=MAX_RESAMPLES, nullable=True, flags=("--n-ci",),
      help="ar: bootstrap resamples for intervals"),
    P("blocks", "int", 20, lo=2, hi=10 ** 6, flags=("--blocks",), help="block-t: number of blocks"),
    P("block_size", "int", None, lo=1, hi=10 ** 9, nullable=True, flags=("--block-size",),
      help="block-t: segments per block (default N // blocks)"),
    P("alpha", "float", 0.05, **_LEVEL, flags=("--alpha",), help="significance level"),
    P("level", "float", 0.95, **_LEVEL, flags=("--ci-level",), concept="ci_level",
      help="confidence level of the intervals"),
    # report / meta
    P("resamples", "int", 1000, lo=2, hi=MAX_RESAMPLES, flags=("--resamples",), concept="resamples",
      help="paired bootstrap resamples"),
    P("ci_level", "float", 0.95, **_LEVEL, flags=("--ci-level",), help="confidence level"),
    P("examples", "int", 10, lo=0, hi=10 ** 6, flags=("--examples",), help="best and worst segments shown per system"),
    P("thresh", "float", 25.0, lo=0.0, hi=1.0e12, lo_open=True, flags=("--thresh",),
      help="meta: DARR threshold on abs(delta human) (pairs with abs(delta) >= thresh; > 0, so human ties never count)"),
    P("ci", "int", 0, lo=0, hi=MAX_RESAMPLES, flags=("--resamples",), metavar="N", concept="resamples",
      help="bootstrap resamples for confidence intervals (0: none)"),
    P("perm_samples", "int", 1000, lo=0, hi=MAX_RESAMPLES, flags=("--perm-samples",),
      help="meta: permutations for --compare perm (at least 2) or the task-set clusters (0: none)"),
    P("max_pairs", "int", 5_000_000, lo=1, hi=10 ** 9, flags=("--max-pairs",),
      help="meta: largest number of pairs a pairwise statistic enumerates"),
    P("sample_size", "int", None, lo=0, hi=10 ** 9, nullable=True, flags=("--sample-size",), metavar="N",
      help="meta: segment level on N segments drawn without replacement (0 or more than there are: all)"),
    P("esa_offset", "int", None, lo=0, hi=10 ** 6, nullable=True, flags=("--esa-offset",), metavar="N",
      help="meta esa-csv: test-set line (0-based) = segment_id + N (default: decided from the data)"),
    P("perm_block_size", "int", 100, lo=1, hi=10 ** 6, flags=("--perm-block-size",),
      help="meta task sets: permutation early stopping, check p after every N draws"),
    P("early_min", "float", 0.02, **_LEVEL, flags=("--early-min",), help="meta task sets: stop early when p < this"),
    P("early_max", "float", 0.5, **_LEVEL, flags=("--early-max",), help="meta task sets: stop early when p > this"),
    P("pval", "float", 0.05, **_LEVEL, flags=("--pval",), help="meta task sets: significance level of the clusters"),
    P("sample_rate", "float", None, lo=0.0, hi=1.0, lo_open=True, nullable=True, flags=("--sample-rate",),
      metavar="R", help="meta: tie calibration on a random sample of the pairs, each kept with probability R"),
    # analyse
    P("analyse_resamples", "int", 1000, lo=0, hi=MAX_RESAMPLES, flags=("--resamples",), concept="resamples",
      help="analyse: bootstrap resamples for confidence intervals (0: none)"),
    P("ratio_alpha", "float", 1.0, lo=0.0, hi=1.0e6, lo_open=True, flags=("--ratio-smoothing",),
      help="analyse ngrams: smoothing of the ratio"),
    P("min_n", "int", 1, lo=1, hi=9, flags=("--min-n",), help="analyse ngrams: smallest n"),
    P("max_n", "int", 4, lo=1, hi=9, flags=("--max-n",), help="analyse ngrams: largest n"),
    P("top", "int", 50, lo=1, hi=10 ** 6, flags=("--top",), help="analyse ngrams: n-grams listed per direction"),
    # audit
    P("use_ref", "int", 1, lo=1, hi=10 ** 4, flags=("--use-ref",),
      help="1-based number of the reference used as the hypothesis"),
    P("rates", "floats", (0.02, 0.05, 0.1, 0.2), lo=0.0, hi=1.0, hi_open=True, flags=("--rates",),
      help="deletion rates"),
    P("label_field", "int", 1, lo=1, hi=10 ** 6, flags=("--label-field",),
      help="1-based TAB-separated field of the label file to use"),
    P("buckets", "ints", (10, 20, 30, 40, 60), lo=1, hi=10 ** 6, flags=("--buckets",),
      help="reference-length bucket edges"),
    # explain
    P("segment", "int", None, lo=1, hi=10 ** 12, nullable=True, flags=("--segment",), metavar="N",
      help="1-based segment number when reading files"),
    # nbest
    P("temperature", "float", 1.0, lo=0.0, hi=1.0e6, lo_open=True, flags=("--temperature",),
      help="softmax temperature for --posterior model"),
    P("tune_fraction", "float", 0.5, **_LEVEL, flags=("--tune-fraction",), help="share of segments used for tuning"),
    # lattice
    P("lam", "float", 0.0, lo=-1.0e6, hi=1.0e6, flags=("--lambda",),
      help="objective = metric score + lambda * path model score (0: pure oracle)"),
    # rose train
    P("C", "float", None, lo=0.0, hi=1.0e6, lo_open=True, nullable=True, flags=("-C",),
      help="rose train: SVM C (default 1/mean K(x,x), SVM-light's)"),
    P("svr_epsilon", "float", 0.1, lo=0.0, hi=1.0e3, flags=("--epsilon",), help="rose train: SVR epsilon-tube width"),
    dataclasses.replace(ROSE_KERNEL["degree"], flags=("--degree",)),
    dataclasses.replace(ROSE_KERNEL["gamma"], flags=("--gamma",)),
    P("max_examples", "int", 5000, lo=1, hi=10 ** 7, flags=("--max-examples",),
      help="rose train: non-linear regression, sample size"),
    P("train_max_pairs", "int", 3000, lo=1, hi=10 ** 7, flags=("--max-pairs",), concept="max_pairs",
      help="rose train: non-linear ranking, sampled pairs"),
)}


# ---------------------------------------------------------------------------------------------------
# the drop-in ``mtscore sacrebleu`` (mtscore.sacrebleu.sacrebleu): sacreBLEU 2.6's numeric options with its
# names, flags and defaults; mtscore's bounds (the message is this module's one template)
# ---------------------------------------------------------------------------------------------------
SACREBLEU_OPTIONS: dict[str, Param] = {p.name: p for p in (
    P("width", "int", 1, lo=0, hi=1000, flags=("-w", "--width"), help="digits after the decimal point"),
    P("num_refs", "int", 1, lo=1, hi=10 ** 4, flags=("-nr", "--num-refs"),
      help="TAB-separated references per line"),
    P("confidence_n", "int", 1000, lo=1, hi=MAX_RESAMPLES, flags=("-cin", "--confidence-n"),
      help="bootstrap resamples for -ci (1: the score without an interval, as sacreBLEU)"),
    P("paired_bs_n", "int", 1000, lo=1, hi=MAX_RESAMPLES, flags=("-pbsn", "--paired-bs-n"),
      help="bootstrap resamples of --paired-bs"),
    P("paired_ar_n", "int", 10000, lo=1, hi=MAX_RESAMPLES, flags=("-parn", "--paired-ar-n"),
      help="trials of --paired-ar"),
    P("paired_jobs", "int", 1, lo=0, hi=1024, flags=("-j", "--paired-jobs"),
      help="accepted for compatibility: the output never depends on it (one process is used)"),
    P("chrf_char_order", "int", 6, lo=0, hi=30, flags=("-cc", "--chrf-char-order"), help="character n-gram order"),
    P("chrf_word_order", "int", 0, lo=0, hi=10, flags=("-cw", "--chrf-word-order"),
      help="word n-gram order (2 = chrF++)"),
    P("chrf_beta", "int", 2, lo=1, hi=1000, flags=("--chrf-beta",), help="recall weight"),
    P("bleu_smooth_value", "float", None, lo=0.0, hi=1.0e6, nullable=True, flags=("-sv", "--smooth-value"),
      help="value for floor (0.1) and add-k (1) smoothing"),
)}

# ... and the arguments of its Python API (mtscore.sacrebleu: BLEU/CHRF/TER, corpus_score, PairedTest), named as
# sacreBLEU names them; where sacreBLEU gives a value a meaning (n_bootstrap <= 1: no bootstrap; n_samples <= 0:
# the default) the bounds keep it valid
SACREBLEU_API: dict[str, Param] = {p.name: p for p in (
    *(P(n, "bool", False) for n in ("lowercase", "force", "effective_order", "whitespace", "eps_smoothing",
                                    "normalized", "no_punct", "asian_support", "case_sensitive")),
    P("max_ngram_order", "int", 4, lo=1, hi=9, help="BLEU: largest n-gram order"),
    P("smooth_value", "float", None, lo=0.0, hi=1.0e6, nullable=True, help="BLEU: floor / add-k value"),
    P("char_order", "int", 6, lo=0, hi=30, help="chrF: character n-gram order"),
    P("word_order", "int", 0, lo=0, hi=10, help="chrF: word n-gram order"),
    P("beta", "float", 2, lo=0.0, hi=1.0e3, lo_open=True, help="chrF: recall weight"),
    P("n_bootstrap", "int", 1, lo=-(2 ** 63), hi=MAX_RESAMPLES, help="bootstrap resamples (<= 1: none)"),
    P("n_samples", "int", 0, lo=-(2 ** 63), hi=MAX_RESAMPLES, help="PairedTest: resamples or trials (<= 0: default)"),
    P("n_ar_confidence", "int", -1, lo=-1, hi=MAX_RESAMPLES,
      help="PairedTest: bootstrap resamples for intervals in the AR test (-1: none, 0: 1000)"),
    P("n_jobs", "int", 1, lo=0, hi=1024, help="PairedTest: accepted; the results never depend on it"),
)}


# ---------------------------------------------------------------------------------------------------
# the significance engine (mtscore.significance): choice lists and the Python API's arguments
# ---------------------------------------------------------------------------------------------------
TESTS = ("bootstrap", "ar", "sign", "block-t")
CORRECTIONS = ("holm", "bonferroni", "none")
TIES = ("sacrebleu", "strict", "inclusive")
BOOTSTRAP_METHODS = ("sacrebleu", "koehn", "moses")
SIGN_METHODS = ("auto", "segment", "composite")
OPTIONS.update({p.name: p for p in (
    P("correction", "choice", "holm", choices=CORRECTIONS, flags=("--correction",),
      help="multiple-comparison correction"),
    P("ties", "choice", "sacrebleu", choices=TIES, flags=("--ties",), help="p-value tie convention"),
)})

# API argument -> its entry (the command option's where the meaning is the same; the message names the
# argument as the caller wrote it). ``seed`` may be None in the API (fresh entropy, never the default).
SIGNIFICANCE: dict[str, Param] = {
    "n": dataclasses.replace(OPTIONS["n"], nullable=False),
    "n_ci": OPTIONS["n_ci"],
    "seed": dataclasses.replace(OPTIONS["seed"], nullable=True),
    "alpha": OPTIONS["alpha"],
    "level": OPTIONS["level"],
    "blocks": OPTIONS["blocks"],
    "block_size": dataclasses.replace(OPTIONS["block_size"], nullable=False),
    "correction": OPTIONS["correction"],
    "ties": OPTIONS["ties"],
    "test": P("test", "choice", "bootstrap", choices=TESTS, help="significance test"),
    "bootstrap_method": P("method", "choice", "sacrebleu", choices=BOOTSTRAP_METHODS,
                          help="bootstrap: p-value rule (sacreBLEU's, Koehn 2004's, Moses')"),
    "sign_method": P("method", "choice", "auto", choices=SIGN_METHODS,
                     help="sign test: segment scores, composite (leave-one-out) or auto (by decomposability)"),
    "batch": P("batch", "int", None, lo=1, hi=10 ** 9, help="resamples per chunk"),
    "factor": P("factor", "int", 1, lo=1, hi=10 ** 6, help="multiple-comparison factor of an interval"),
}


def check(table: Mapping[str, Param], name: str, value, label: str | None = None):
    """``table[name].check(value)``: a Python API argument checked by its entry (message names ``label``)."""
    return table[name].check(value, label or table[name].name)


class OptionValueError(Exception):
    """Raised from an argparse ``type`` (argparse lets it through): the CLI prints it as one line."""


def cli_type(p: Param, flag: str):
    def conv(text: str):
        try:
            return p.parse(text, flag)
        except InvalidParameterError as exc:
            raise OptionValueError(str(exc)) from None
    conv.__name__ = p.name
    return conv


def _default_text(p: Param) -> str:
    d = p.default
    if d is None:
        return ""
    if isinstance(d, bool):
        return "yes" if d else "no"
    if isinstance(d, tuple):
        return " ".join(map(str, d))
    return str(d)


def option_help(p: Param, extra: str = "", default=None) -> str:
    parts = [extra or p.help]
    if p.kind in ("int", "float", "floats", "ints"):
        parts.append(p.bounds_text())
    d = _default_text(p) if default is None else str(default)
    if d:
        parts.append(f"default {d}")
    return "; ".join(x for x in parts if x).replace("%", "%%")


# Help text that costs imports (the choices of a choice option in its metavar, e.g. the LCM languages; the
# registered metric names, with the entry points of every installed distribution) is built only for parsers
# that may print help: cli.main.build_parser clears this for a command line without -h/--help (start-up time).
FULL_HELP = True


def choices_metavar(p: Param) -> str:
    """``{a,b,c}`` for a parser that may print help, else the parameter's name (nothing computed)."""
    return "{" + ",".join(p.valid_choices()) + "}" if FULL_HELP else p.name.upper().replace("_", "-")


def add_option(parser, name: str, *flags: str, default=Any, help: str | None = None, dest: str | None = None,
               choices=None, old: tuple[str, ...] = (), **kw):
    """Add command option ``name`` of :data:`OPTIONS` (its flags, type, bounds, default, help);
    ``choices`` narrows a choice option for one command; ``old``: this command's former spellings, still
    accepted with a deprecation note and not shown in help (docs/parameters.md, "Deprecated spellings")."""
    p = OPTIONS[name]
    if choices is not None:
        p = dataclasses.replace(p, choices=tuple(choices))
    flags = flags or p.flags
    dflt = p.default if default is Any else default
    kw.setdefault("metavar", p.metavar or (
        choices_metavar(p) if p.kind == "choice" else
        {"int": "N", "float": "X", "ints": "N", "floats": "X"}.get(p.kind, p.name.upper().replace("_", "-"))))
    if p.kind in ("floats", "ints"):
        one = dataclasses.replace(p, kind="float" if p.kind == "floats" else "int")
        kw.setdefault("nargs", "+")
        typ = cli_type(one, flags[-1] if flags[0].startswith("-") and not flags[0].startswith("--") else flags[0])
        dflt = list(dflt) if dflt is not None else None
    else:
        typ = cli_type(p, _long(flags))
    action = parser.add_argument(*flags, dest=dest or name, type=typ, default=dflt,
                                 help=option_help(p, help or "", None if default is Any else default), **kw)
    action.concept = p.concept or p.name
    for flag in old:  # a bad value is named as it was typed
        add_deprecated(parser, flag, action, cli_type(p, flag) if p.kind not in ("floats", "ints") else None)
    return action


class DeprecatedOption(argparse.Action):
    """A former spelling of a command option: it sets the same value, with a one-line note on stderr, and is not
    shown in help (its current spelling is)."""

    def __init__(self, option_strings, dest, current=None, **kw):
        self.current = current
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        deprecated(option_string, _long(self.current.option_strings), "option")
        self.current(parser, namespace, values, _long(self.current.option_strings))


def add_deprecated(parser, flag: str, current: argparse.Action, type=None) -> argparse.Action:
    """``flag``: a hidden former spelling of the option ``current`` (already added to ``parser``)."""
    kw = dict(nargs=current.nargs, type=type or current.type, choices=current.choices, metavar=current.metavar)
    return parser.add_argument(flag, dest=current.dest, action=DeprecatedOption, current=current,
                               default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kw)


def _long(flags) -> str:
    for f in flags:
        if f.startswith("--"):
            return f
    return flags[0]

"""``mtscore metrics``: every registered metric with its parameters (from their declarations),
direction, range and decomposability."""
from __future__ import annotations

import argparse
import math

from .. import params as P
from ..errors import InvalidParameterError
from ..metrics.registry import get_metric_class, metric_names
from .main import write_stdout

FORMATS = ("text", "json", "markdown")


def add_parser(sub) -> None:
    p = sub.add_parser("metrics", help="list the metrics and their parameters",
                       description="Every registered metric with its parameters (type, default, bounds or "
                                   "choices, command-line option), direction, range and decomposability. "
                                   "Give a parameter on the command line with its option or inline as "
                                   "-m NAME:KEY=VALUE[,KEY=VALUE].")
    p.add_argument("names", nargs="*", metavar="METRIC", help="only these metrics (default: all)")
    P.add_option(p, "format", choices=FORMATS)
    p.set_defaults(func=run)


def _num(x) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
    return f"{x:g}"


def _api_scale(m: dict) -> str:
    """``, shown x100 (Python API: score / 100)`` for a metric every command shows x100."""
    return f", shown x{m['scale']:g} (Python API: score / {m['scale']:g})" if m["scale"] != 1.0 else ""


def _default(p: P.Param, cfg_default) -> str:
    d = cfg_default
    if isinstance(d, Text):
        return str(d)
    if d is None:
        return "none"
    if isinstance(d, bool):
        return "true" if d else "false"
    if isinstance(d, tuple):
        return "/".join(map(str, d))
    return str(d)


def _resolved(inst, field: str):
    """The value a parameter left unset takes in a metric built without parameters (``mtscore metrics`` shows
    real defaults, not "see help")."""
    cfg = inst.config
    v = getattr(cfg, field, None)
    if v is None and not callable(getattr(inst, field, None)):
        v = getattr(inst, field, None)  # resolved on the metric (ROSE's tokenizer, ...)
    if isinstance(v, (set, frozenset)) and field == "function_words":
        return Text(f"{getattr(inst, 'fw_name', None) or 'the list'} (the model's)")
    if v is not None:
        return v if isinstance(v, (str, int, float, bool, tuple)) else None
    if field == "weights" and getattr(cfg, "max_order", None):
        n = cfg.max_order
        return Text("/".join([f"{1 / n:g}"] * n) + " (uniform)")
    if field == "effective_order":
        return Text("no for corpus scores, yes for sentence scores")
    if field == "smooth_value":
        sm = getattr(cfg, "smooth", None)
        return Text(f"unused with smooth {sm}; floor 0.1, add-k 1")
    return None


class Text(str):
    """A default described in words (shown as is)."""


def _options_for(name: str, field: str) -> list[str]:
    out = []
    from .options import all_metric_options
    for opt in all_metric_options():
        if opt.field == field and (opt.metrics is None or name in opt.metrics):
            out.append(opt.flag)
    return out


def _signature_key(name: str, p, decl: dict) -> dict:
    """The parameter's entry in the metric's signature (``Param.sig``): its key and when it is written; a
    parameter written in another one's entry (smooth_value in smooth's) names that entry (``when``: "part")."""
    if p.sig is not None:
        if p.option_for is not None and name not in p.option_for:
            return {}
        return {"signature": p.sig, "signature_when": p.sig_when if isinstance(p.sig_when, str) else "conditional"}
    for q in decl.values():
        if q.sig is not None and p.name in q.sig_uses:
            return {"signature": q.sig, "signature_when": "part"}
    return {}


_SIG_WHEN = {"always": "", "not_default": " (if not default)", "conditional": " (conditional)"}


def _sig_text(p: dict, code=lambda k: k) -> str:
    if not p.get("signature"):
        return ""
    if p["signature_when"] == "part":
        return f"part of {code(p['signature'])}"
    return code(p["signature"]) + _SIG_WHEN[p["signature_when"]]


def describe(name: str) -> dict:
    import dataclasses
    cls = get_metric_class(name)
    decl = P.config_params(cls.Config)
    params = []
    try:  # the defaults as a metric built without parameters resolves them
        inst = cls()
    except Exception:  # noqa: BLE001 - a metric that needs a file or a package: the declared defaults
        inst = None
    for f in dataclasses.fields(cls.Config):
        p = decl.get(f.name)
        dflt = f.default if f.default is not dataclasses.MISSING else None
        if dflt is None and inst is not None:
            dflt = _resolved(inst, f.name)
        if p is None:  # a metric added outside mtscore without declarations
            params.append({"name": f.name, "type": str(f.type), "default": repr(dflt), "rule": "", "help": ""})
            continue
        entry = {"name": f.name, "type": p.type_name(), "default": _default(p, dflt), "rule": p.rule(),
                 "help": p.help, "options": _options_for(name, f.name), **_signature_key(name, p, decl)}
        if p.kind in ("int", "float", "floats", "ints"):
            entry.update(lo=p.lo, hi=p.hi, lo_inclusive=not p.lo_open, hi_inclusive=not p.hi_open)
        if p.kind == "choice":
            entry["choices"] = list(p.valid_choices())
        if p.nullable:
            entry["nullable"] = True
        if p.aliases:
            entry["aliases"] = list(p.aliases)
        params.append(entry)
    decomposable = cls.decomposable
    try:  # the instance knows (e.g. WER with ref_length=best is not decomposable)
        decomposable = cls().decomposable
    except Exception:  # noqa: BLE001 - a metric that needs a file or a package: the class flag stands
        pass
    # the range as every command shows the scores (the one output model's scale: 4-GRR, GTM, LCM ... x100);
    # "scale" is the factor from the Python API's score to the shown one
    scale = float(getattr(cls, "table_scale", 1.0) or 1.0)
    lo, hi = (x * scale for x in cls.range)
    return {"name": name, "display_name": cls.display_name, "higher_is_better": bool(cls.higher_is_better),
            "range": [_num(lo), _num(hi)], "scale": scale, "decomposable": bool(decomposable), "parameters": params,
            "doc": (cls.__doc__ or "").strip().split("\n")[0]}


def render(infos: list[dict], fmt: str) -> str:
    if fmt == "json":
        from ..report.model import dumps
        return dumps(infos, indent=1)
    out = []
    if fmt == "markdown":
        for m in infos:
            out.append(f"### `{m['name']}` ({m['display_name']})\n")
            out.append(f"{'Higher' if m['higher_is_better'] else 'Lower'} is better; range "
                       f"[{m['range'][0]}, {m['range'][1]}]{_api_scale(m)}; decomposable: {'yes' if m['decomposable'] else 'no'} "
                       f"(with the default parameters).\n")
            out.append("| parameter | type | default | valid values | option | signature key | description |")
            out.append("|---|---|---|---|---|---|---|")
            for p in m["parameters"]:
                name = p["name"] + (f" (old: {', '.join(p['aliases'])})" if p.get("aliases") else "")
                opts = ", ".join(f"`{o}`" for o in p.get("options", []))
                sig = _sig_text(p, lambda k: f"`{k}`")
                out.append(f"| `{name}` | {p['type']} | {p['default']} | {p['rule'].replace('|', '/')} | {opts} "
                           f"| {sig} | {p['help'].replace('|', '/')} |")
            out.append("")
        return "\n".join(out)
    for m in infos:
        out.append(f"{m['name']}  ({m['display_name']}; {'higher' if m['higher_is_better'] else 'lower'} is better; "
                   f"range [{m['range'][0]}, {m['range'][1]}]{_api_scale(m)}; "
                   f"{'decomposable' if m['decomposable'] else 'not decomposable'})")
        for p in m["parameters"]:
            line = f"  {p['name']}: {p['type']}, default {p['default']}; {p['rule']}"
            if p.get("options"):
                line += f"; option {', '.join(p['options'])}"
            if p.get("signature"):
                line += f"; signature {_sig_text(p)}"
            if p.get("aliases"):
                line += f"; old name {', '.join(p['aliases'])}"
            out.append(line)
            if p.get("help"):
                out.append(f"      {p['help']}")
        out.append("")
    out.append("Inline: -m NAME:KEY=VALUE[,KEY=VALUE], e.g. -m chrf:beta=3 bleu:smooth=floor,smooth_value=0.2")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    names = args.names or metric_names()
    for n in names:
        get_metric_class(n)
    if len(set(names)) != len(names):
        raise InvalidParameterError("metrics: a metric is named twice")
    write_stdout(render([describe(n.lower()) for n in names], args.format))
    return 0

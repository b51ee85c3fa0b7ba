"""The shape of the package (docs/architecture.md): data flows read -> tokenize -> encode -> metrics ->
significance / meta / analysis / search -> report -> cli, and imports only point down that flow.

Every module of src/mtscore is parsed (``ast``), every import collected — module level and inside
functions alike — and resolved to a module of the package. Two rules are checked: no import circle
between modules, and no arrow from an earlier stage to a later one. A new top-level package or module
must be given its stage here (the test fails until it is)."""
import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "mtscore"

# stage -> top-level names (packages or modules) of src/mtscore; a module may import its own stage
# (no circle) and every earlier one.
STAGES = [
    ("base", {"errors", "_version", "params", "progress", "_testhooks", "_kernels", "_ckernel", "_cmetrics", "_cmeta"}),
    ("read", {"io"}),
    ("tokenize", {"tokenize"}),
    ("encode", {"text", "ckernels", "_threadparam", "neural", "llm"}),  # _threadparam: threads=; neural: models; llm: judges' requests
    ("metrics", {"metrics"}),
    ("significance / backends", {"significance", "backends"}),
    ("meta / analysis / search", {"meta", "analysis", "search", "rose", "rank"}),
    ("library API", {"api", "runner", "sacrebleu", ""}),  # "" = the package root mtscore/__init__.py
    ("report", {"report"}),
    ("cli", {"cli", "__main__"}),
]
STAGE = {name: i for i, (_, names) in enumerate(STAGES) for name in names}

# Known exceptions (arrows against the flow), each with its reason and the way out. None today: the parameter
# layer (params.py, base stage) imports nothing later; the stages that own a choice list (tokenizer names, LCM
# languages, stored-score formats, output formats) provide it to params when they are imported
# (``params.provide``), and parsing ``-m NAME:KEY=VALUE`` lives with the metric registry.
EXEMPT: dict = {}


def _modules():
    mods = {}
    for p in SRC.rglob("*.py"):
        parts = list(p.relative_to(SRC.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        name = ".".join(parts)
        mods[name] = (p, name if is_pkg else ".".join(parts[:-1]))
    for p in list(SRC.glob("*.c")):  # compiled extensions: leaves
        mods[f"mtscore.{p.stem}"] = (None, "mtscore")
    return mods


def _edges(mods):
    edges = {}
    for name, (path, pkg) in mods.items():
        out = set()
        if path is not None:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name.startswith("mtscore"):
                            out.add(_longest(a.name, mods))
                elif isinstance(node, ast.ImportFrom):
                    if node.level:
                        base = pkg.split(".")[:len(pkg.split(".")) - node.level + 1]
                        target = ".".join(base + ([node.module] if node.module else []))
                    else:
                        target = node.module or ""
                    if not target.startswith("mtscore"):
                        continue
                    for a in node.names:  # `from pkg import submodule` is an arrow to the submodule
                        sub = f"{target}.{a.name}"
                        out.add(sub if sub in mods else _longest(target, mods))
        out.discard(name)
        out.discard(None)
        edges[name] = {t for t in out if (name, t) not in EXEMPT}
    return edges


def _longest(dotted, mods):
    parts = dotted.split(".")
    while parts:
        if ".".join(parts) in mods:
            return ".".join(parts)
        parts.pop()
    return None


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.fixture(scope="module")
def graph():
    mods = _modules()
    return mods, _edges(mods)


def test_every_top_level_name_has_a_stage(graph):
    mods, _ = graph
    missing = sorted({_top(m) for m in mods} - set(STAGE))
    assert not missing, f"give these top-level modules/packages a stage in STAGES: {missing}"


def test_arrows_only_point_down_the_flow(graph):
    _, edges = graph
    bad = []
    for a, targets in edges.items():
        for b in targets:
            sa, sb = STAGE[_top(a)], STAGE[_top(b)]
            if sb > sa:
                bad.append(f"{a} ({STAGES[sa][0]}) imports {b} ({STAGES[sb][0]})")
    assert not bad, "imports against the flow:\n" + "\n".join(sorted(bad))


def test_no_import_circle(graph):
    _, edges = graph
    # Tarjan's strongly connected components; any component with more than one module is a circle
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    import sys
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert not comps, "import circles:\n" + "\n".join(" <-> ".join(c) for c in comps)


def test_no_exemptions():
    assert EXEMPT == {}


def test_the_parameter_layer_imports_only_the_base_stage(graph):
    """params.py (base stage) and errors.py: every arrow out of them stays in the base stage."""
    _, edges = graph
    for mod in ("mtscore.params", "mtscore.errors"):
        later = sorted(t for t in edges[mod] if STAGE[_top(t)] > STAGE["params"])
        assert not later, f"{mod} imports later stages: {later}"


def test_every_provided_choice_list_is_provided_after_import():
    """Each ``Provided`` key the parameter table uses has a provider once the stages are imported (the
    package root, the report stage), and its choices are the owning stage's own list."""
    import dataclasses

    from mtscore import params as P
    import mtscore.report  # noqa: F401
    from mtscore.io.scores import SCORE_FORMATS
    from mtscore.metrics.lcm import languages
    from mtscore.report import FORMATS
    from mtscore.tokenize import TOKENIZERS

    from mtscore.metrics.registry import get_metric_class, metric_names
    params = [p for n in metric_names() for p in P.config_params(get_metric_class(n).Config).values()] + \
        list(P.OPTIONS.values())
    keys = {f.key for p in params for f in (p.choices, p.checker) if isinstance(f, P.Provided)}
    assert keys == {"tokenizers", "tokenizer_spec", "lcm_languages", "score_formats", "formats"}
    assert keys <= set(P._PROVIDERS)
    assert P.TOKENIZE.valid_choices() == tuple(TOKENIZERS)
    assert P.OPTIONS["format"].valid_choices() == tuple(FORMATS)
    from mtscore.metrics.lcm import LCMConfig
    from mtscore.metrics.scores import ScoresConfig
    assert P.config_params(LCMConfig)["lang"].valid_choices() == tuple(languages())
    assert P.config_params(ScoresConfig)["format"].valid_choices() == tuple(SCORE_FORMATS)
    assert P.TOKENIZE.check("13a") == "13a"
    with pytest.raises(P.InvalidParameterError, match="tokenize: must be one of: 13a"):
        P.TOKENIZE.check("13b")
    with pytest.raises(LookupError, match="not been imported"):
        dataclasses.replace(P.TOKENIZE, choices=P.Provided("nothing-provides-this")).valid_choices()


def test_the_walker_sees_function_level_imports_and_submodules():
    """Positive control on a made-up package: the rules fire."""
    mods = {"mtscore.metrics.x": (None, "mtscore.metrics")}
    tree = ast.parse("def f():\n    from ..report import tables\n")
    found = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert found and found[0].level == 2 and found[0].module == "report"
    assert _top("mtscore.report.tables") == "report" and STAGE["report"] > STAGE["metrics"]
    assert _longest("mtscore.metrics.x.y", mods) == "mtscore.metrics.x"


def test_each_metric_module_alone_provides_what_its_config_needs():
    """In a fresh interpreter, importing only a metric's own module is enough to validate its Config: every
    choice list its parameters take from a later stage has been provided (the package root imports nothing)."""
    import subprocess
    import sys

    from mtscore import params as P
    from mtscore.metrics.registry import _REGISTRY

    mods = sorted({t.split(":")[0] for t in _REGISTRY.values() if t.startswith("mtscore.")} - {"mtscore.metrics.comet"})
    code = (
        "import dataclasses, importlib, sys\n"
        "from mtscore import params as P\n"
        "mod = importlib.import_module(sys.argv[1])\n"
        "n = 0\n"
        "for obj in list(vars(mod).values()):\n"
        "    if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__name__.endswith('Config'):\n"
        "        for p in P.config_params(obj).values():\n"
        "            for f in (p.choices, p.checker):\n"
        "                if isinstance(f, P.Provided):\n"
        "                    f() if f is p.choices else f('13a')\n"
        "                    n += 1\n"
        "        obj()\n"
        "print(n)\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(SRC.parent)}
    total = 0
    for m in mods:
        r = subprocess.run([sys.executable, "-c", code, m], capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode == 0, f"{m}: {r.stderr.strip().splitlines()[-1:]}"
        total += int(r.stdout)
    assert total >= 10  # the tokenize parameters of most metrics, LCM's languages, the score formats


def test_report_renders_and_cli_builds_no_table(graph):
    """report/ turns result objects into text: it imports no stage that computes (tokenizers, encoders,
    metrics, readers, backends, the resampling draws); cli/ builds no table (report/ does)."""
    _, edges = graph
    computing = {"tokenize", "text", "ckernels", "metrics", "io", "backends"}
    bad = sorted(f"{a} imports {b}" for a, targets in edges.items() if _top(a) == "report" for b in targets
                 if _top(b) in computing or b == "mtscore.significance._resample")
    assert not bad, bad
    built = []
    for p in sorted((SRC / "cli").glob("*.py")):
        if p.name == "sacrebleu_cmd.py":  # sacreBLEU's own output format (the drop-in command)
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Table":
                built.append(f"{p.name}:{node.lineno}")
    assert not built, f"tables built in cli/: {built}"

"""The shape of the package (DESIGN §2, issue 16): data flows read -> tokenize -> encode -> metrics ->
significance / meta / analysis / search -> report -> cli, and imports only point down that flow.

Every module of src/mtscore is parsed (``ast``), every import collected — module level and inside
functions alike — and resolved to a module of the package. Two rules are checked: no import circle
between modules, and no arrow from an earlier stage to a later one. A new top-level package or module
must be given its stage here (the test fails until it is)."""
import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "mtscore"

# stage -> top-level names (packages or modules) of src/mtscore; a module may import its own stage
# (no circle) and every earlier one.
STAGES = [
    ("base", {"errors", "_version", "params", "progress", "_jit", "_testhooks", "_ckernel", "_cmetrics", "_cmeta"}),
    ("read", {"io"}),
    ("tokenize", {"tokenize"}),
    ("encode", {"text", "ckernels"}),
    ("metrics", {"metrics"}),
    ("significance / backends", {"significance", "backends"}),
    ("meta / analysis / search", {"meta", "analysis", "search", "rose"}),
    ("library API", {"api", "runner", "sacrebleu", ""}),  # "" = the package root mtscore/__init__.py
    ("report", {"report"}),
    ("cli", {"cli", "compat", "__main__"}),
]
STAGE = {name: i for i, (_, names) in enumerate(STAGES) for name in names}

# Known exceptions, each with its reason and the way out. The parameter layer (params.py, base stage: every
# stage validates its parameters with it, errors.py takes its message template) looks up a few choice lists
# and the metric registry at call time, from later stages. The way out: those stages register their choices
# with params when they are imported, instead of params importing them (owner: params; issue 16).
EXEMPT = {
    ("mtscore.params", "mtscore.tokenize"): "dynamic choices: tokenizer names",
    ("mtscore.params", "mtscore.metrics.lcm"): "dynamic choices: LCM languages",
    ("mtscore.params", "mtscore.metrics.registry"): "metric names and classes for inline -m parameters",
    ("mtscore.params", "mtscore.io.scores"): "dynamic choices: stored-score formats",
    ("mtscore.params", "mtscore.report"): "dynamic choices: output formats",
}


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


def test_exemptions_are_few_and_from_the_parameter_layer_only():
    assert len(EXEMPT) <= 5 and all(a == "mtscore.params" for a, _ in EXEMPT)


def test_the_walker_sees_function_level_imports_and_submodules():
    """Positive control on a made-up package: the rules fire."""
    mods = {"mtscore.metrics.x": (None, "mtscore.metrics")}
    tree = ast.parse("def f():\n    from ..report import tables\n")
    found = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert found and found[0].level == 2 and found[0].module == "report"
    assert _top("mtscore.report.tables") == "report" and STAGE["report"] > STAGE["metrics"]
    assert _longest("mtscore.metrics.x.y", mods) == "mtscore.metrics.x"

"""Column-wise rendering of sentence-level tables (report/columns.py, ColumnTable) against plain Python:
every cell is ``format(x, f".{d}f")`` / ``str(i)`` and every TSV / CSV / text table is the row-wise renderer's,
byte for byte, on both paths (the compiled ``_ckernel.format_rows`` and the NumPy one). Takes ~5 s."""
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mtscore.report import columns as C
from mtscore.report.scores import sentence_table
from mtscore.report.tables import ColumnTable, Table, render_table
import contextlib

BACKENDS = ["reference"] + (["c"] if C._ckernel is not None else [])


@contextlib.contextmanager
def kernel_choice(backend):
    """The compiled rows (``c``, where built) or the NumPy / Python paths (``reference``)."""
    saved = C._ckernel
    C._ckernel = saved if backend == "c" else None
    try:
        yield
    finally:
        C._ckernel = saved

_TIES = [0.005, 0.015, 0.025, 0.125, 2.675, 1.005, 99.995, 9.995, 123456.785, 0.5, 1.5, 2.5, -0.5, -2.5]
_SPECIAL = [0.0, -0.0, -0.001, 1e300, -1e300, math.nan, -math.nan, math.inf, -math.inf, 2.0 ** 52, 2.0 ** 53 + 2,
            1e-300, 5e-324, 100.0, 1e15, 4503599627370495.5, 0.045, 1e16 / 3]
_FLOAT = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(_TIES + _SPECIAL),
                   st.floats(0, 100), st.floats(-1e6, 1e6), st.integers(0, 10 ** 6).map(lambda k: k / 1000))


def _lines(cells, sep=","):
    return C.join_rows([cells], sep).split("\n")[:-1]


@settings(max_examples=300, deadline=None)
@given(st.lists(_FLOAT, max_size=60), st.integers(0, 17))
def test_float_cells_are_pythons_format(values, digits):
    x = np.array(values, dtype=np.float64)
    assert _lines(C.float_cells(x, digits)) == [format(v, f".{digits}f") for v in values]
    if C._ckernel is not None:
        with kernel_choice("c"):
            rows = C.compiled_rows(np.arange(len(x)) - 3, [x, -x], [digits, 0], "\t")
        assert rows == "".join(f"{i - 3}\t{v:.{digits}f}\t{-v:.0f}\n" for i, v in enumerate(values))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(-2 ** 63, 2 ** 63 - 1), st.integers(-10 ** 6, 10 ** 6),
                          st.sampled_from([0, 2 ** 32 - 1, 2 ** 32, 2 ** 52 - 1, -(2 ** 52) + 1, 10 ** 9, 10 ** 15])),
                max_size=60))
def test_int_cells_are_str(values):
    assert _lines(C.int_cells(np.array(values, dtype=np.int64))) == [str(v) for v in values]


def test_float_cells_many_values_one_column():
    """100k scores as a BLEU column holds them (0..100, many exact zeros): identical, few Python fallbacks."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, 10 ** 7, 100_000) / 10.0 ** rng.integers(1, 6, 100_000)  # short decimals: near-ties
    x[::9] = 0.0
    before = C.cells_fallback
    got = C.join_rows([C.int_cells(np.arange(1, len(x) + 1)), C.float_cells(x, 2)], "\t")
    want = "".join(f"{i}\t{v:.2f}\n" for i, v in enumerate(x.tolist(), 1))
    assert got == want
    assert C.cells_fallback - before < len(x) // 10  # the vectorised path did the work
    if C._ckernel is not None:
        with kernel_choice("c"):
            assert C.compiled_rows(np.arange(1, len(x) + 1), [x], [2], "\t") == want


_SCORE = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just(-0.0), st.floats(0, 100),
                   st.sampled_from(_TIES))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30), st.integers(1, 3), st.integers(1, 2), st.sampled_from([1.0, 100.0]), st.integers(0, 5),
       st.sampled_from(BACKENDS), st.data())
def test_column_table_renders_as_the_row_table(n, n_sys, n_met, scale, digits, backend, data):
    """TSV, CSV and text of a ColumnTable (sentence_table) equal the row-wise renderer's on the same rows
    (a plain Table), labels with tabs, commas, quotes and non-ASCII included; JSON / Markdown / LaTeX use the
    rows themselves."""
    class M:
        def __init__(self, label, up):
            self.display_name, self.higher_is_better, self.table_scale = label, up, scale

    metrics = [M("BLEU", True), M('T,E"R{0}', False)][:n_met]
    names = [f"s\t{i}" if i % 2 else f"sys-é,{i}" for i in range(n_sys)]
    per = {s: [data.draw(st.lists(_SCORE, min_size=n, max_size=n)) for _ in metrics] for s in names}
    t = sentence_table(names, metrics, per, ["sig"], digits)
    assert isinstance(t, ColumnTable)
    plain = Table(list(t.columns), [list(r) for r in t.rows], notes=list(t.notes), digits=digits, marks=dict(t.marks),
                  legend=list(t.legend), col_digits=dict(t.col_digits), meta=dict(t.meta))
    for fmt in ("tsv", "csv", "text", "json", "markdown", "latex"):
        fresh = sentence_table(names, metrics, per, ["sig"], digits)  # rows not built yet: the column-wise path
        with kernel_choice(backend):
            assert render_table(fresh, fmt) == render_table(plain, fmt), fmt


def test_column_table_rows_are_python_numbers_and_empty_tables():
    t = ColumnTable(["segment", "x"], [[1, 2], [0.5, -0.0]], digits=2)
    assert t.rows == [[1, 0.5], [2, -0.0]] and type(t.rows[0][0]) is int and type(t.rows[0][1]) is float
    empty = ColumnTable(["segment", "x"], [[], []], digits=2)
    assert render_table(empty, "tsv") == render_table(Table(["segment", "x"], [], digits=2), "tsv") == "segment\tx"
    assert render_table(empty, "text") == render_table(Table(["segment", "x"], [], digits=2), "text")

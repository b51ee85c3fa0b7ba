"""A small SVG plotting module: strings in, inline ``<svg>`` strings out (no matplotlib).

Charts: :func:`bar_chart` (grouped bars with error bars), :func:`histogram` (overlaid histograms
with a Gaussian-kernel density line and reference lines, e.g. 0 and a CI), :func:`scatter` (labelled
points, optional least-squares line) and :func:`line_chart` (series over x with optional error bars).

Every mark carries a ``<title>`` (hover text with the exact value); every chart has ``role="img"``
and an ``aria-label``.

Sizes: a chart is drawn at an intrinsic width of about :data:`WIDTH` px and scaled by the page to the space it gets
(a grid cell at least 320 px wide, or the full width of a phone screen); every text is at least :data:`FS` px at the
intrinsic width, so it stays at least 11 px on screen down to a scale of 0.85 (docs/report.md, "Plots"). Bar charts
follow one axis rule: the value axis always includes 0 (bars are lengths), and the plot says so. Output is deterministic (same input, same bytes) and uses no external
resources, fonts or scripts, so it can be inlined into a self-contained HTML page.
"""
from __future__ import annotations

import math
import unicodedata
from html import escape
from typing import Mapping, Sequence

import numpy as np

# Okabe-Ito colour-blind-safe palette
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
FONT = "font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif"
FS = 13  # every text of a chart, in px at its intrinsic width (titles: FS + 1)
WIDTH = 360  # the default intrinsic width: scaled to at least 0.85 on a 360 px screen, FS * 0.85 >= 11
AXIS_RULE = "axis from 0"  # stated on every bar chart

__all__ = ["bar_chart", "histogram", "scatter", "line_chart", "nice_ticks", "PALETTE"]


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _e(s) -> str:
    return escape(str(s), quote=True)


def _n(x: float) -> str:
    """Compact coordinate."""
    return f"{x:.1f}".rstrip("0").rstrip(".") if math.isfinite(x) else "0"


def fmt(v: float, digits: int = 2) -> str:
    if v is None or not math.isfinite(v):
        return "n/a"
    return f"{v:.{digits}f}"


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round tick values covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0, 1.0]
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        d = abs(lo) * 0.1 or 1.0
        lo, hi = lo - d, hi + d
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    k = math.floor(lo / step)
    if (k + 1) * step <= lo:  # lo / step rounded down past a whole multiple
        k += 1
    start = k * step  # the largest multiple of step that is <= lo
    ticks = []
    t = start
    while t <= hi + step * 1e-9 + step:
        ticks.append(round(t, 12))
        if t >= hi - step * 1e-9:
            break
        t += step
    return ticks


def _tick_label(v: float, ticks: Sequence[float]) -> str:
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    d = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    d = min(d + (1 if step * 10 ** d % 1 else 0), 6)
    s = f"{v:.{d}f}"
    return "0" if s.strip("-0.") == "" else s


class _Frame:
    """Plot area and linear scales."""

    def __init__(self, width, height, xlim, ylim, margin=(36, 16, 46, 58)):
        self.w, self.h = width, height
        self.top, self.right, self.bottom, self.left = margin
        self.x0, self.x1 = xlim
        self.y0, self.y1 = ylim
        if self.x1 == self.x0:
            self.x1 = self.x0 + 1
        if self.y1 == self.y0:
            self.y1 = self.y0 + 1

    @property
    def pw(self):
        return self.w - self.left - self.right

    @property
    def ph(self):
        return self.h - self.top - self.bottom

    def X(self, x):
        return self.left + (x - self.x0) / (self.x1 - self.x0) * self.pw

    def Y(self, y):
        return self.top + (1 - (y - self.y0) / (self.y1 - self.y0)) * self.ph


def _open(width, height, title, desc) -> list[str]:
    label = title or desc or "chart"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="{_e(label)}" style="{FONT};font-size:{FS}px">',
           f"<title>{_e(label)}</title>"]
    if desc:
        out.append(f"<desc>{_e(desc)}</desc>")
    out.append(f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>')
    if title:
        shown = fit(title, width - 16, FS + 1, bold=True)
        tip = f"<title>{_e(title)}</title>" if shown != title else ""
        out.append(f'<text x="{width / 2:.1f}" y="20" text-anchor="middle" font-size="{FS + 1}" font-weight="600">'
                   f"{_e(shown)}{tip}</text>")
    return out


def _y_axis(f: _Frame, ticks, ylabel) -> list[str]:
    out = []
    for t in ticks:
        y = f.Y(t)
        out.append(f'<line x1="{_n(f.left)}" x2="{_n(f.left + f.pw)}" y1="{_n(y)}" y2="{_n(y)}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{_n(f.left - 5)}" y="{_n(y + FS * 0.35)}" text-anchor="end" fill="#444">'
                   f"{_e(_tick_label(t, ticks))}</text>")
    out.append(f'<line x1="{_n(f.left)}" x2="{_n(f.left)}" y1="{_n(f.top)}" y2="{_n(f.top + f.ph)}" stroke="#888"/>')
    if ylabel:
        cy = f.top + f.ph / 2
        out.append(f'<text x="{FS}" y="{_n(cy)}" text-anchor="middle" transform="rotate(-90 {FS} {_n(cy)})" '
                   f'fill="#222">{_e(fit(ylabel, f.ph + f.top - 4))}</text>')
    return out


def _left(ticks, ylabel: str = "x") -> int:
    """Left margin: the y label's line and the widest tick label."""
    widest = max((text_width(_tick_label(t, ticks)) for t in ticks), default=0.0)
    return int(math.ceil((FS + 8 if ylabel else 4) + widest + 6))


def _x_axis(f: _Frame, ticks, xlabel, labels: Sequence[str] | None = None) -> list[str]:
    out = [f'<line x1="{_n(f.left)}" x2="{_n(f.left + f.pw)}" y1="{_n(f.top + f.ph)}" y2="{_n(f.top + f.ph)}" '
           f'stroke="#888"/>']
    yb = f.top + f.ph
    room = f.pw / max(1, len(ticks)) - 4
    for k, t in enumerate(ticks):
        x = f.X(t)
        out.append(f'<line x1="{_n(x)}" x2="{_n(x)}" y1="{_n(yb)}" y2="{_n(yb + 4)}" stroke="#888"/>')
        lab = labels[k] if labels is not None else _tick_label(t, ticks)
        shown = fit(lab, max(room, text_width(lab[:1] + "…")))
        # the first and last labels keep inside the chart
        half = text_width(shown) / 2
        x = min(max(x, half + 2), f.w - half - 2)
        tip = f"<title>{_e(lab)}</title>" if shown != lab else ""
        out.append(f'<text x="{_n(x)}" y="{_n(yb + FS + 6)}" text-anchor="middle" fill="#444">{_e(shown)}{tip}</text>')
    if xlabel:
        cx = f.w / 2
        out.append(f'<text x="{_n(cx)}" y="{_n(f.h - 7)}" text-anchor="middle" fill="#222">'
                   f"{_e(fit(xlabel, f.w - 8))}</text>")
    return out


LEGEND_ROW = FS + 4


def _legend_columns(width: float) -> int:
    return 2 if width < 520 else 3 if width < 820 else 4


def _legend(f: _Frame, names: Sequence[str], kind: str = "rect") -> list[str]:
    """Names in a grid of equal columns in the top margin (sized by :func:`_margin`), each shortened to its
    cell; rows go down from under the title."""
    if len(names) <= 1:
        return []
    cols = _legend_columns(f.w)
    cell = (f.w - 16) / cols
    out = []
    for i, name in enumerate(names):
        x = 8 + (i % cols) * cell
        y = 30 + (i // cols) * LEGEND_ROW
        if kind == "rect":
            out.append(f'<rect x="{_n(x)}" y="{_n(y + 2)}" width="10" height="10" fill="{color(i)}"/>')
        else:
            out.append(f'<line x1="{_n(x)}" x2="{_n(x + 12)}" y1="{_n(y + 7)}" y2="{_n(y + 7)}" '
                       f'stroke="{color(i)}" stroke-width="2.5"/>')
        shown = fit(name, cell - 20)
        tip = f"<title>{_e(name)}</title>" if shown != str(name) else ""
        out.append(f'<text x="{_n(x + 16)}" y="{_n(y + FS - 1)}" fill="#222">{_e(shown)}{tip}</text>')
    return out


def _margin(n_series: int, width: float = WIDTH, left: int = 58) -> tuple[int, int, int, int]:
    """Top margin: the title, and the legend's rows when there are several series."""
    if n_series <= 1:
        return (36, 16, 2 * FS + 20, left)
    rows = -(-n_series // _legend_columns(width))
    return (38 + LEGEND_ROW * rows, 16, 2 * FS + 20, left)


def _taller(height: float, n_series: int, width: float = WIDTH) -> float:
    """The height of a plot whose legend has more than two rows: each further row adds to the height, so that the
    legend of many series (15 systems) never squeezes the plot area and its axis labels into each other."""
    rows = -(-n_series // _legend_columns(width)) if n_series > 1 else 0
    return height + max(0, rows - 2) * LEGEND_ROW


def _finite(vals) -> np.ndarray:
    a = np.asarray([v for v in vals if v is not None], dtype=np.float64).ravel()
    return a[np.isfinite(a)]


def _no_data(width, height, title) -> str:
    out = _open(width, height, title, "no data")
    out.append(f'<text x="{width / 2:.1f}" y="{height / 2:.1f}" text-anchor="middle" fill="#888">no data</text>')
    return "\n".join(out + ["</svg>"])


# ------------------------------------------------------------------------------------------------
BAR = 11  # a bar's thickness in a horizontal bar chart
MAX_VERTICAL_BARS = 12


def bar_chart(categories: Sequence[str], series: Mapping[str, Sequence[float]],
              errors: Mapping[str, Sequence[tuple[float, float] | None]] | None = None, *, title: str = "",
              ylabel: str = "", width: int = WIDTH, height: int = 260, digits: int = 2,
              horizontal: bool | None = None, desc: str = "") -> str:
    """Grouped bars: one group per category, one bar per series; ``errors[series][k] = (low, high)``.

    The value axis always includes 0 (bars are lengths; a bar from 0.93 would turn a 2% difference into a
    doubling) and the axis title says so (:data:`AXIS_RULE`). ``horizontal`` (default: chosen) draws the
    categories as rows, one under the other, so that any number of them (or long names) stays readable at the
    chart's width: it is chosen when there are more than :data:`MAX_VERTICAL_BARS` bars or a category's name does
    not fit under its bars; the chart then grows in height."""
    names = list(series)
    allv = [v for s in names for v in series[s]]
    if errors:
        allv += [x for s in names for e in (errors.get(s) or []) if e is not None for x in e]
    fv = _finite(allv)
    if not len(fv) or not categories:
        return _no_data(width, height, title)
    lo, hi = min(float(fv.min()), 0.0), max(float(fv.max()), 0.0)
    ticks = nice_ticks(lo, hi, 4 if width < 480 else 5)
    label = f"{ylabel} · {AXIS_RULE}" if ylabel else AXIS_RULE
    cats = [str(c) for c in categories]
    if horizontal is None:
        group = (width - _left(ticks) - 16) / len(cats)
        horizontal = len(cats) * len(names) > MAX_VERTICAL_BARS or any(text_width(c) > group - 4 for c in cats)
    top = _margin(len(names), width)[0]
    if horizontal:
        widest = max(text_width(c) for c in cats)
        left = int(min(widest + 10, width * 0.42))
        band = len(names) * BAR + 8
        height = top + band * len(cats) + 2 * FS + 24
        f = _Frame(width, height, (min(ticks[0], lo), max(ticks[-1], hi)), (0, len(cats)),
                   (top, 24, 2 * FS + 24, left))
        out = _open(width, height, title, desc)
        for t in ticks:  # value grid lines and ticks along the bottom
            x = f.X(t)
            out.append(f'<line x1="{_n(x)}" x2="{_n(x)}" y1="{_n(f.top)}" y2="{_n(f.top + f.ph)}" stroke="#e5e5e5"/>')
        out += _x_axis(f, ticks, label)
        base = f.X(0.0)
        for k, cat in enumerate(cats):
            gy = f.top + k * band + 4
            for i, s in enumerate(names):
                v = series[s][k]
                y = gy + i * BAR
                err = errors.get(s)[k] if errors and errors.get(s) is not None else None
                tip = f"{cat} — {s}: {fmt(v, digits)}" + (f" ({fmt(err[0], digits)}, {fmt(err[1], digits)})"
                                                           if err else "")
                if v is None or not math.isfinite(v):
                    continue
                x = f.X(v)
                out.append(f'<rect x="{_n(min(x, base))}" y="{_n(y + 1)}" width="{_n(abs(x - base))}" '
                           f'height="{_n(BAR - 2)}" fill="{color(i)}" fill-opacity="0.85"><title>{_e(tip)}</title></rect>')
                if err and all(e is not None and math.isfinite(e) for e in err):
                    cy = y + BAR / 2
                    x1, x2 = f.X(err[0]), f.X(err[1])
                    out.append(f'<path d="M{_n(x1)} {_n(cy)}H{_n(x2)}M{_n(x1)} {_n(cy - 4)}v8M{_n(x2)} {_n(cy - 4)}v8" '
                               f'stroke="#222" stroke-width="1.2" fill="none"><title>{_e(tip)}</title></path>')
            shown = fit(cat, left - 8)
            tip = f"<title>{_e(cat)}</title>" if shown != cat else ""
            out.append(f'<text x="{_n(left - 6)}" y="{_n(gy + band / 2 - 4 + FS * 0.35)}" text-anchor="end" '
                       f'fill="#444">{_e(shown)}{tip}</text>')
        out.append(f'<line x1="{_n(base)}" x2="{_n(base)}" y1="{_n(f.top)}" y2="{_n(f.top + f.ph)}" stroke="#888"/>')
        out += _legend(f, names)
        return "\n".join(out + ["</svg>"])
    height = _taller(height, len(names), width)
    f = _Frame(width, height, (0, len(cats)), (min(ticks[0], lo), max(ticks[-1], hi)),
               _margin(len(names), width, _left(ticks)))
    out = _open(width, height, title, desc)
    out += _y_axis(f, ticks, label)
    base = f.Y(0.0)
    group_w = f.pw / len(cats)
    bar_w = group_w * 0.8 / max(1, len(names))
    for k, cat in enumerate(cats):
        gx = f.left + k * group_w + group_w * 0.1
        for i, s in enumerate(names):
            v = series[s][k]
            x = gx + i * bar_w
            err = errors.get(s)[k] if errors and errors.get(s) is not None else None
            tip = f"{cat} — {s}: {fmt(v, digits)}" + (f" ({fmt(err[0], digits)}, {fmt(err[1], digits)})" if err else "")
            if v is None or not math.isfinite(v):
                continue
            y = f.Y(v)
            top_, h = min(y, base), abs(base - y)
            out.append(f'<rect x="{_n(x + 1)}" y="{_n(top_)}" width="{_n(max(bar_w - 2, 1))}" height="{_n(h)}" '
                       f'fill="{color(i)}" fill-opacity="0.85"><title>{_e(tip)}</title></rect>')
            if err and all(e is not None and math.isfinite(e) for e in err):
                cx = x + bar_w / 2
                y1, y2 = f.Y(err[0]), f.Y(err[1])
                out.append(f'<path d="M{_n(cx)} {_n(y1)}V{_n(y2)}M{_n(cx - 4)} {_n(y1)}h8M{_n(cx - 4)} {_n(y2)}h8" '
                           f'stroke="#222" stroke-width="1.2" fill="none"><title>{_e(tip)}</title></path>')
        shown = fit(cat, group_w - 4)
        tip = f"<title>{_e(cat)}</title>" if shown != cat else ""
        out.append(f'<text x="{_n(f.left + (k + 0.5) * group_w)}" y="{_n(f.top + f.ph + FS + 6)}" '
                   f'text-anchor="middle" fill="#444">{_e(shown)}{tip}</text>')
    out.append(f'<line x1="{_n(f.left)}" x2="{_n(f.left + f.pw)}" y1="{_n(base)}" y2="{_n(base)}" stroke="#888"/>')
    out += _legend(f, names)
    return "\n".join(out + ["</svg>"])


def text_width(s: str, size: float = FS, bold: bool = False) -> float:
    """A safe estimate of a string's width in px in the sans-serif font: wide (CJK) characters take one em,
    others at most 0.62 em (0.66 bold)."""
    narrow = 0.66 if bold else 0.62
    return sum(size if unicodedata.east_asian_width(ch) in "WF" else size * narrow for ch in str(s))


def fit(s: str, max_px: float, size: float = FS, bold: bool = False) -> str:
    """``s`` shortened with an ellipsis so that it fits ``max_px`` (the full text stays in a ``<title>``)."""
    s = str(s)
    if text_width(s, size, bold) <= max_px:
        return s
    while s and text_width(s + "…", size, bold) > max_px:
        s = s[:-1]
    return s + "…"


_fit_text = fit  # for scatter(), whose ``fit`` argument hides the function


def _kde(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density with Silverman's bandwidth (vectorized; x subsampled to 2000 points)."""
    if len(x) > 2000:
        x = x[np.linspace(0, len(x) - 1, 2000).astype(int)]
    sd = x.std(ddof=1) if len(x) > 1 else 0.0
    iqr = np.subtract(*np.percentile(x, [75, 25]))
    spread = min(sd, iqr / 1.34) if iqr > 0 else sd
    h = 0.9 * spread * len(x) ** -0.2 if spread > 0 else 1.0
    z = (grid[:, None] - x[None, :]) / h
    return np.exp(-0.5 * z * z).sum(axis=1) / (len(x) * h * math.sqrt(2 * math.pi))


def histogram(samples: Mapping[str, Sequence[float]], *, bins: int = 40, title: str = "", xlabel: str = "",
              vlines: Sequence[tuple[float, str]] = (), shade: tuple[float, float] | None = None,
              density: bool = True, width: int = WIDTH, height: int = 250, digits: int = 2, desc: str = "") -> str:
    """Overlaid histograms (as densities) of one or more sample sets, a density line per set,
    vertical reference lines ``(x, label)`` (e.g. 0, the observed difference) and an optional shaded
    interval (e.g. the 95% CI)."""
    names = list(samples)
    data = [_finite(samples[s]) for s in names]
    allx = np.concatenate([d for d in data] + [_finite([v for v, _ in vlines])] +
                          ([_finite(shade)] if shade else []))
    if not len(allx) or not any(len(d) for d in data):
        return _no_data(width, height, title)
    lo, hi = float(allx.min()), float(allx.max())
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.03
    edges = np.linspace(lo - pad, hi + pad, bins + 1)
    hists = [np.histogram(d, bins=edges, density=density)[0] if len(d) else np.zeros(bins) for d in data]
    grid = np.linspace(edges[0], edges[-1], 160)
    kdes = [_kde(d, grid) if len(d) > 1 and density else None for d in data]
    ymax = max([float(h.max()) for h in hists] + [float(k.max()) for k in kdes if k is not None] + [1e-12])
    xt = nice_ticks(edges[0], edges[-1], 4 if width < 480 else 6)
    xt = [t for t in xt if edges[0] <= t <= edges[-1]] or [lo, hi]
    yt = nice_ticks(0, ymax * 1.1, 4)
    height = _taller(height, len(names), width)
    f = _Frame(width, height, (edges[0], edges[-1]), (0, max(yt[-1], ymax * 1.1)),
               _margin(len(names), width, _left(yt)))
    out = _open(width, height, title, desc)
    out += _y_axis(f, yt, "density" if density else "count")
    if shade and all(math.isfinite(v) for v in shade):
        x1, x2 = f.X(shade[0]), f.X(shade[1])
        out.append(f'<rect x="{_n(x1)}" y="{_n(f.top)}" width="{_n(max(x2 - x1, 1))}" height="{_n(f.ph)}" '
                   f'fill="#999" fill-opacity="0.15"><title>{_e(f"interval ({fmt(shade[0], digits)}, {fmt(shade[1], digits)})")}'
                   f"</title></rect>")
    for i, (name, hst) in enumerate(zip(names, hists)):
        for b in range(bins):
            if hst[b] <= 0:
                continue
            x, x2 = f.X(edges[b]), f.X(edges[b + 1])
            y = f.Y(hst[b])
            tip = f"{name}: [{fmt(edges[b], digits)}, {fmt(edges[b + 1], digits)}) {hst[b]:.4g}"
            out.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(max(x2 - x, 0.5))}" height="{_n(f.top + f.ph - y)}" '
                       f'fill="{color(i)}" fill-opacity="{0.55 if len(names) == 1 else 0.35}"><title>{_e(tip)}</title></rect>')
        k = kdes[i]
        if k is not None:
            pts = " ".join(f"{_n(f.X(gx))},{_n(f.Y(gy))}" for gx, gy in zip(grid, k))
            out.append(f'<polyline points="{pts}" fill="none" stroke="{color(i)}" stroke-width="2"/>')
    for j, (v, lab) in enumerate(vlines):
        if v is None or not math.isfinite(v):
            continue
        x = f.X(v)
        out.append(f'<line x1="{_n(x)}" x2="{_n(x)}" y1="{_n(f.top)}" y2="{_n(f.top + f.ph)}" stroke="#222" '
                   f'stroke-dasharray="{"4 3" if j else "none"}" stroke-width="1.3"><title>{_e(lab)} = {fmt(v, digits)}'
                   f"</title></line>")
        # the label on the side of the line where it fits (the right, else the left, else shortened)
        right, left = f.w - x - 6, x - 6
        anchor = "start" if text_width(lab) <= right or right >= left else "end"
        dx = 3 if anchor == "start" else -3
        lab = fit(lab, max(right, left))
        out.append(f'<text x="{_n(x + dx)}" y="{_n(f.top + FS + (FS + 2) * j)}" text-anchor="{anchor}" fill="#222">'
                   f"{_e(lab)}</text>")
    out += _x_axis(f, xt, xlabel)
    out += _legend(f, names)
    return "\n".join(out + ["</svg>"])


def scatter(points: Mapping[str, Sequence[tuple[float, float, str]]], *, title: str = "", xlabel: str = "",
            ylabel: str = "", fit: bool = True, label_points: bool = True, width: int = WIDTH, height: int = 320,
            digits: int = 3, desc: str = "") -> str:
    """Scatter plot; ``points[series] = [(x, y, label), ...]``; a least-squares line per series. Points are labelled
    where the label covers no other label (crowded points keep their name in their tooltip)."""
    names = list(points)
    xs = _finite([p[0] for s in names for p in points[s]])
    ys = _finite([p[1] for s in names for p in points[s]])
    if not len(xs) or not len(ys):
        return _no_data(width, height, title)
    xt = nice_ticks(float(xs.min()), float(xs.max()), 4)
    yt = nice_ticks(float(ys.min()), float(ys.max()), 5)
    height = _taller(height, len(names), width)
    f = _Frame(width, height, (xt[0], xt[-1]), (yt[0], yt[-1]),
               margin=(_margin(len(names), width)[0], 20, 2 * FS + 20, _left(yt, ylabel)))
    out = _open(width, height, title, desc)
    out += _y_axis(f, yt, ylabel)
    out += _x_axis(f, xt, xlabel)
    placed: list[tuple[float, float, float, float]] = []  # point labels drawn: (left, right, top, bottom)
    for i, s in enumerate(names):
        pts = [(x, y, lab) for x, y, lab in points[s] if x is not None and y is not None
               and math.isfinite(x) and math.isfinite(y)]
        if fit and len(pts) >= 2:
            px = np.array([p[0] for p in pts])
            py = np.array([p[1] for p in pts])
            if px.std() > 0:
                a, b = np.polyfit(px, py, 1)
                xa, xb = f.x0, f.x1
                ya, yb = a * xa + b, a * xb + b
                out.append(f'<line x1="{_n(f.X(xa))}" y1="{_n(f.Y(ya))}" x2="{_n(f.X(xb))}" y2="{_n(f.Y(yb))}" '
                           f'stroke="{color(i)}" stroke-opacity="0.5" stroke-dasharray="5 4" '
                           f'clip-path="none"><title>{_e(f"{s}: least squares y = {a:.4g} x + {b:.4g}")}</title></line>')
        for x, y, lab in pts:
            cx, cy = f.X(x), f.Y(y)
            tip = f"{lab}: ({fmt(x, digits)}, {fmt(y, digits)})" if lab else f"({fmt(x, digits)}, {fmt(y, digits)})"
            out.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="4" fill="{color(i)}" stroke="#fff">'
                       f"<title>{_e(tip)}</title></circle>")
            if label_points and lab:
                anchor = "end" if cx > f.left + f.pw * 0.6 else "start"
                dx = -6 if anchor == "end" else 6
                shown = _fit_text(lab, (cx - 8) if anchor == "end" else (f.w - cx - 8))
                tw = text_width(shown)
                x0 = cx + dx - (tw if anchor == "end" else 0)
                box = (x0, x0 + tw, cy - 5 - FS, cy - 5 + 3)
                # a label that would cover another is left out (the point's tooltip names it)
                if any(box[0] < b[1] and b[0] < box[1] and box[2] < b[3] and b[2] < box[3] for b in placed):
                    continue
                placed.append(box)
                out.append(f'<text x="{_n(cx + dx)}" y="{_n(cy - 5)}" text-anchor="{anchor}" '
                           f'fill="#333">{_e(shown)}</text>')
    out += _legend(f, names, "line")
    return "\n".join(out + ["</svg>"])


def line_chart(x: Sequence[float], series: Mapping[str, Sequence[float]], *,
               errors: Mapping[str, Sequence[tuple[float, float] | None]] | None = None,
               xlabels: Sequence[str] | None = None, title: str = "", xlabel: str = "", ylabel: str = "",
               width: int = WIDTH, height: int = 260, digits: int = 2, desc: str = "", zero: bool = False) -> str:
    """Lines with markers; ``xlabels`` names the x positions (categorical axis) when given."""
    names = list(series)
    xv = np.asarray(x, dtype=np.float64)
    allv = [v for s in names for v in series[s]]
    if errors:
        allv += [e for s in names for p in (errors.get(s) or []) if p is not None for e in p]
    fv = _finite(allv)
    if not len(fv) or not len(xv):
        return _no_data(width, height, title)
    lo, hi = float(fv.min()), float(fv.max())
    if zero:
        lo = min(lo, 0.0)
    yt = nice_ticks(lo, hi, 5)
    if xlabels is not None:
        xlim = (float(xv.min()) - 0.5, float(xv.max()) + 0.5)
        xt = list(xv)
    else:
        xt = nice_ticks(float(xv.min()), float(xv.max()), 4 if width < 480 else 6)
        xlim = (xt[0], xt[-1])
    height = _taller(height, len(names), width)
    f = _Frame(width, height, xlim, (yt[0], yt[-1]), _margin(len(names), width, _left(yt, ylabel)))
    out = _open(width, height, title, desc)
    out += _y_axis(f, yt, ylabel)
    out += _x_axis(f, xt, xlabel, [str(s) for s in xlabels] if xlabels is not None else None)
    for i, s in enumerate(names):
        ys = series[s]
        pts = [(f.X(a), f.Y(b)) for a, b in zip(xv, ys) if b is not None and math.isfinite(b)]
        if len(pts) > 1:
            out.append(f'<polyline points="{" ".join(f"{_n(a)},{_n(b)}" for a, b in pts)}" fill="none" '
                       f'stroke="{color(i)}" stroke-width="2"/>')
        for k, (a, b) in enumerate(zip(xv, ys)):
            if b is None or not math.isfinite(b):
                continue
            err = errors.get(s)[k] if errors and errors.get(s) is not None else None
            lab = xlabels[k] if xlabels is not None else fmt(a, digits)
            tip = f"{s} @ {lab}: {fmt(b, digits)}" + (f" ({fmt(err[0], digits)}, {fmt(err[1], digits)})" if err else "")
            if err and all(e is not None and math.isfinite(e) for e in err):
                cx = f.X(a) + (i - (len(names) - 1) / 2) * 3
                out.append(f'<path d="M{_n(cx)} {_n(f.Y(err[0]))}V{_n(f.Y(err[1]))}" stroke="{color(i)}" '
                           f'stroke-width="1.2"/>')
            out.append(f'<circle cx="{_n(f.X(a))}" cy="{_n(f.Y(b))}" r="3.5" fill="{color(i)}">'
                       f"<title>{_e(tip)}</title></circle>")
    out += _legend(f, names, "line")
    return "\n".join(out + ["</svg>"])

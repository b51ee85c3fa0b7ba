"""The interactive report at the size users need: 20 systems x 3,004 segments of WMT17 en-de (the 16 real
systems of ../shared/data/wmt17-en-de plus 4 more made by reversing the segment order of four of them, so that
their segment scores differ), scored with BLEU and chrF. Measures, in Debian's Chromium driven by Playwright
(whole page, medians of --runs fresh page loads): the time from navigation until the explorer is ready, the time
to filter (typing a word into the search box until the table and plot are redrawn), to sort (a column header
click) and to select a segment (a row click); and the size of the HTML file. Also `mtscore report` itself.

    PYTHONPATH=src python benchmarks/bench_report_page.py [--runs 5] [--out /tmp/report20.html]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

D = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt17-en-de"
CHROMIUM = "/usr/bin/chromium"

TIMED = """async (action) => {
  const t0 = performance.now();
  if (action === 'filter') { const q = document.getElementById('mx-q'); q.value = 'the'; q.dispatchEvent(new Event('input')); }
  else if (action === 'unfilter') { const q = document.getElementById('mx-q'); q.value = ''; q.dispatchEvent(new Event('input')); }
  else if (action === 'sort') { document.querySelector('#mx-head th[data-key=diff]').click(); }
  else if (action === 'select') { document.querySelector('#mx-body tr:nth-child(5)').click(); }
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));  // until the frame is drawn
  return performance.now() - t0;
}"""


def build(out: Path) -> float:
    systems = sorted((D / "systems").glob("*"))
    tmp = Path(tempfile.mkdtemp(prefix="mtscore-bench-"))
    files = [str(p) for p in systems]
    for p in systems[:4]:
        lines = p.read_text(encoding="utf-8").split("\n")[:-1]
        q = tmp / f"{p.name}.reversed"
        q.write_text("".join(x + "\n" for x in reversed(lines)), encoding="utf-8")
        files.append(str(q))
    assert len(files) == 20, len(files)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mtscore", "-q", "report", "-r", str(D / "newstest2017.en-de.ref0.de"),
                    "-i", *files, "-m", "bleu", "chrf", "--resamples", "200", "-o", str(out), "--strip-bom"],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "mtscore-report20.html"))
    a = ap.parse_args()
    out = Path(a.out)
    gen = build(out)
    from playwright.sync_api import sync_playwright
    load, acts = [], {"filter": [], "unfilter": [], "sort": [], "select": []}
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(a.runs):
            pg = b.new_page(viewport={"width": 1280, "height": 900})
            t = time.perf_counter()
            pg.goto(out.as_uri())
            pg.wait_for_selector("body[data-explorer=ready]", timeout=120_000)
            load.append(time.perf_counter() - t)
            for k in acts:
                acts[k].append(pg.evaluate(TIMED, k) / 1000)
            pg.close()
        b.close()
    size = out.stat().st_size
    print(f"mtscore report (20 systems x 3004 segments, BLEU + chrF, 200 resamples): {gen:.1f} s")
    print(f"HTML size: {size / 2**20:.2f} MiB")
    print(f"page load until the explorer is ready: median {statistics.median(load):.3f} s over {a.runs} loads "
          f"(min {min(load):.3f}, max {max(load):.3f})")
    for k, v in acts.items():
        print(f"{k}: median {statistics.median(v) * 1000:.0f} ms (max {max(v) * 1000:.0f} ms)")
    print(f"load: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

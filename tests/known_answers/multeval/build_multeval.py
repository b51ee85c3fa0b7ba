#!/usr/bin/env python3
"""Build MultEval (jhclark/multeval) offline, without METEOR, and run it on its own example data.

Usage: python3 build_multeval.py MULTEVAL_CHECKOUT OUTPUT_PREFIX [SHUFFLES] [BOOT_SAMPLES]

Writes OUTPUT_PREFIX.table.txt (MultEval's stdout: its ASCII table), OUTPUT_PREFIX.results.txt (the RESULT lines
MultEval prints on stderr: per-system AVG/STDDEV/... and P_VALUE) and OUTPUT_PREFIX.command.txt (the command).
The checkout used for the committed files: jhclark/multeval @ bd93ed16197af93dce6ff3273efa04b9cc9d13ce (fetched
with the project's `fetch` tool; `git show` of each file into a directory), javac/java 17.0.15.

Why a patch: MultEval's build (build.xml) needs lib/meteor-1.4/meteor-1.4.jar, which get_deps.sh downloads
from cs.cmu.edu; the repository does not contain it and this machine has no network. METEOR is not needed for
the numbers we check (BLEU and Length), so this script removes METEOR from a *scratch copy* of the sources
before compiling (nothing of MultEval is committed to mtscore):
  * deletes src/multeval/metrics/METEOR.java and METEORStats.java,
  * MultEval.java: drops the ``.put("meteor", ...)`` metric entry; NbestModule.java: drops METEOR.class from
    its option classes,
  * MultEvalModule.java: drops the METEORStats import, METEOR.class from the option classes, and the body of
    runOOVAnalysis (which only reports METEOR's unmatched words on stderr).
Everything else (jBLEU, the bootstrap, the stratified approximate randomization, the table) is MultEval's own
code, compiled with javac 17 against the jars in lib/ (guava-11.0, jannopts, tercom-0.8.0).
"""
import os
import re
import shutil
import subprocess
import sys

src_root, out = sys.argv[1], sys.argv[2]
shuffles = sys.argv[3] if len(sys.argv) > 3 else "10000"
boots = sys.argv[4] if len(sys.argv) > 4 else "10000"
import tempfile
work = os.path.join(tempfile.mkdtemp(prefix="multeval-build-"), "multeval")
shutil.copytree(src_root, work, ignore=shutil.ignore_patterns(".git"))
S = os.path.join(work, "src", "multeval")
for f in ("metrics/METEOR.java", "metrics/METEORStats.java"):
    os.remove(os.path.join(S, f))


def edit(path, fn):
    p = os.path.join(S, path)
    with open(p, encoding="utf-8") as fh:
        text = fh.read()
    new = fn(text)
    assert new != text, path
    with open(p, "w", encoding="utf-8") as fh:
        fh.write(new)


edit("MultEval.java", lambda t: re.sub(r'\n\s*\.put\("meteor", new multeval\.metrics\.METEOR\(\)\)', "", t))
edit("NbestModule.java", lambda t: t.replace("multeval.metrics.METEOR.class, ", ""))
edit("MultEvalModule.java", lambda t: re.sub(
    r"(private void runOOVAnalysis\([^)]*\)\s*\{).*?(\n\tprivate void runBootstrapResampling)", r"\1\n\t}\n\2",
    t.replace("import multeval.metrics.METEORStats;\n", "").replace("multeval.metrics.METEOR.class, ", ""),
    flags=re.S))
lib = os.path.join(work, "lib")
cp = ":".join(os.path.join(lib, j) for j in ("guava-11.0.jar", "jannopts.jar", "tercom-0.8.0.jar"))
bin_ = os.path.join(work, "bin")
os.makedirs(bin_)
javas = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(work, "src")) for f in fs if f.endswith(".java")]
subprocess.run(["javac", "-nowarn", "-encoding", "utf8", "-cp", cp, "-d", bin_] + javas, check=True)
ex = os.path.join(work, "example")
hyps = lambda s: [os.path.join(ex, f"hyps.lc.tok.en.{s}.opt{k}") for k in range(3)]
cmd = (["java", "-cp", f"{bin_}:{cp}", "multeval.MultEval", "eval", "--metrics", "bleu", "length",
        "--refs", os.path.join(ex, "refs.test2010.lc.tok.en.0"), "--hyps-baseline"] + hyps("baseline")
       + ["--hyps-sys1"] + hyps("sys1") + ["--hyps-sys2"] + hyps("sys2")
       + ["--ar-shuffles", shuffles, "--boot-samples", boots, "--threads", "1"])
res = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
if res.returncode:
    sys.exit(f"MultEval failed ({res.returncode}):\n{res.stderr[-3000:]}")
with open(out + ".table.txt", "w", encoding="utf-8") as fh:
    fh.write(res.stdout)
with open(out + ".results.txt", "w", encoding="utf-8") as fh:
    fh.write("".join(ln + "\n" for ln in res.stderr.split("\n") if ln.startswith("RESULT: ")))
shown = " ".join(":".join(os.path.relpath(x, work) if x.startswith(work) else x for x in c.split(":")) for c in cmd)
with open(out + ".command.txt", "w", encoding="utf-8") as fh:
    fh.write(f"# in the patched scratch copy of jhclark/multeval (see build_multeval.py), javac -nowarn -encoding utf8\n"
             f"{shown}\n")
print(shown)
shutil.rmtree(os.path.dirname(work), ignore_errors=True)

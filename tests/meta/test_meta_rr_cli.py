"""``mtscore meta --human-format rr``: WMT10-style relative-ranking Kendall, end to end, against sacreBLEU's segment
scores and a plain-Python count of concordant and discordant pairs (metric ties count as discordant, WMT10-14's rule)."""
import json

import sacrebleu  # test dependency (pinned in the test extra)

from mtscore.cli.main import main


def test_meta_rr_matches_plain_count(tmp_path, capsys):
    refs = ["the cat sat on the mat", "a dog barks loudly", "it rains today", "we go home now"]
    hyps = {"A": ["the cat sat on a mat", "a dog barks", "it rains today", "we go home"],
            "B": ["cat the mat", "dog loud", "it is raining today", "we go now home"],
            "C": ["the cat sat on the mat", "a dog barks loudly", "rain", "home"]}
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n")
    files = []
    for s, lines in hyps.items():
        f = tmp_path / f"{s}.txt"
        f.write_text("\n".join(lines) + "\n")
        files.append(str(f))
    # judgments: segmentId, 3 systems ranked (1 = best)
    judg = [(1, "A", 1, "B", 3, "C", 2), (2, "B", 1, "A", 2, "C", 2), (3, "A", 1, "B", 1, "C", 3),
            (4, "C", 1, "A", 2, "B", 3)]
    rr = tmp_path / "rr.csv"
    rr.write_text("segmentId,system1Id,system1rank,system2Id,system2rank,system3Id,system3rank\n"
                  + "".join(",".join(map(str, j)) + "\n" for j in judg))
    rc = main(["meta", "-r", str(tmp_path / "ref.txt"), "-i", *files, "--human-file", str(rr),
               "--human-format", "rr", "-m", "chrf", "bleu", "-f", "json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    got = {r["metric"]: r for r in json.loads(out)["rows"]}

    pairs = []
    for seg, *rest in judg:
        ranked = [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)]
        for a in range(len(ranked)):
            for b in range(a + 1, len(ranked)):
                (sa, ra), (sb, rb) = ranked[a], ranked[b]
                if ra != rb:
                    pairs.append((seg - 1, sa, sb) if ra < rb else (seg - 1, sb, sa))
    for label, fn in (("chrF2", sacrebleu.sentence_chrf), ("BLEU", sacrebleu.sentence_bleu)):
        seg = {s: [fn(h, [r]).score for h, r in zip(hyps[s], refs)] for s in hyps}  # segment scores: sacreBLEU's
        conc = sum(seg[b][i] > seg[w][i] for i, b, w in pairs)
        disc = len(pairs) - conc
        assert got[label]["WMT10 tau (RR)"] == (conc - disc) / (conc + disc)
        assert got[label]["pairs"] == len(pairs)
    assert len({r["WMT10 tau (RR)"] for r in got.values()} | {1.0, -1.0}) > 2  # not a degenerate case

"""Document-level scores: segments grouped by document id (one id per segment line, or mt-metrics-eval
``documents/*.docs`` files with ``DOMAIN<TAB>DOCID``), each document's segments joined with a space into one
segment, scored as a corpus of documents (document-level BLEU/chrF as sacreBLEU computes it on the joined
documents), plus each document's own score and a paired test per document between two systems."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from ..errors import InputError, InvalidParameterError, plural
from ..io.labels import read_doc_ids  # noqa: F401  (the one label-file reader; re-exported)


def group(doc_ids: Sequence[str]) -> list[tuple[str, list[int]]]:
    """Documents in order of first appearance with their segment indices (segments of one document need not
    be contiguous)."""
    order: dict[str, list[int]] = {}
    for i, d in enumerate(doc_ids):
        order.setdefault(d, []).append(i)
    return list(order.items())


def join_documents(lines: Sequence[str], docs: list[tuple[str, list[int]]]) -> list[str]:
    return [" ".join(lines[i] for i in idx) for _, idx in docs]


@dataclass(frozen=True)
class DocumentScore:
    doc: str
    n_segments: int
    scores: tuple[float, ...]  # per system: the document as one segment
    p_value: float | None  # paired bootstrap over the document's segments, system 2 vs system 1 (None: 1 system)


@dataclass(frozen=True)
class DocumentReport:
    systems: tuple[str, ...]
    metric: str
    corpus: tuple[float, ...]  # per system: corpus score over joined documents
    documents: tuple[DocumentScore, ...]
    signature: str
    n_resamples: int
    seed: int | None


def document_scores(systems: Mapping[str, Sequence[str]], refs: Sequence[Sequence[str]], doc_ids: Sequence[str],
                    metric, *, n_resamples: int = 1000, seed: int | None = 12345) -> DocumentReport:
    """Corpus score over joined documents, each document's score (as one segment, the metric's sentence
    score), and, with two or more systems, the paired-bootstrap p-value of system 2 vs system 1 within each
    document (over its segments, the same engine as ``mtscore compare``)."""
    from ..significance import paired_bootstrap, untested
    names = tuple(systems)
    n = len(refs)
    if len(doc_ids) != n:
        raise InputError(f"{plural(len(doc_ids), 'document id')} for {plural(n, 'segment')} (one id per segment)")
    if not names:
        raise InvalidParameterError("systems: at least one system is needed")
    docs = group(doc_ids)
    nrefs = {len(r) for r in refs}
    if len(nrefs) != 1:
        raise InputError("document-level scores need the same number of references for every segment")
    k = nrefs.pop()
    doc_refs = [[" ".join(refs[i][j] for i in idx) for j in range(k)] for _, idx in docs]
    corpus, per_doc = [], []
    seg_stats = {}
    doc_metric = metric
    if getattr(metric, "carries_sources", False) and metric.sources_path:  # a neural metric: joined sources too
        doc_metric = metric.with_sources(join_documents(metric.sources_of_rows(range(n), n, "input"), docs))
    for s in names:
        joined = join_documents(systems[s], docs)
        st = doc_metric.stats(joined, doc_refs)
        corpus.append(float(metric.score(st.values.sum(0))))
        per_doc.append([float(x) for x in metric.sentence_scores(st)])
        if len(names) > 1:
            seg_stats[s] = metric.stats(list(systems[s]), [list(r) for r in refs])
    out = []
    for d, (doc, idx) in enumerate(docs):
        p = None
        if len(names) > 1 and n_resamples and untested(len(idx)) is None:  # too few segments: no test (None)
            a, b = seg_stats[names[0]].take(idx), seg_stats[names[1]].take(idx)
            p = float(paired_bootstrap(metric, a, b, n=n_resamples, seed=seed).p_value)
        out.append(DocumentScore(doc, len(idx), tuple(per_doc[k][d] for k in range(len(names))), p))
    # per-document scores are the metric's segment scores of the joined documents: signed as such (eff:yes)
    return DocumentReport(names, metric.display_name, tuple(corpus), tuple(out), metric.sentence_signature(st),
                          n_resamples, seed)

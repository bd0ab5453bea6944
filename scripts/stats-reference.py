"""Reference answers for the comparison statistics (src/lib/stats/wilcoxon.ts, paired-bootstrap.ts).

Run once with Debian's python3-scipy (1.10.1) and numpy:

    /usr/bin/python3 scripts/stats-reference.py > tests/fixtures/stats/paired-comparison.json

The examples are recorded from SummEval's dev.jsonl (12 systems x 50 articles): two systems'
mean expert coherence per article (many ties and zero differences: the normal approximation
with the tie correction) and the length of their summaries relative to the article's (no ties:
the exact distribution on 14 articles, and the approximation on all 50). The unit test reads the
stored numbers, so it needs neither scipy nor the data.

The bootstrap is recomputed here independently of the TypeScript: mulberry32 in Python, the same
draws (floor(u * n)), the same summation order, and numpy.percentile's linear method.
"""
import json
import sys

import numpy as np
import scipy
from scipy.stats import wilcoxon

DATA = "/work/shared/data/summeval/dev.jsonl"
RESAMPLES = 2000
SEED = 2024
MASK = 0xFFFFFFFF


def imul(a, b):
    return (a * b) & MASK


def mulberry32(seed):
    state = seed & MASK

    def rand():
        nonlocal state
        state = (state + 0x6D2B79F5) & MASK
        t = state
        t = imul(t ^ (t >> 15), t | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & MASK
        return ((t ^ (t >> 14)) & MASK) / 4294967296

    return rand


def bootstrap(d, resamples=RESAMPLES, seed=SEED):
    rand = mulberry32(seed)
    n = len(d)
    means = []
    for _ in range(resamples):
        total = 0.0
        for _ in range(n):
            total += d[int(rand() * n)]
        means.append(total / n)
    low, high = np.percentile(np.array(means), [2.5, 97.5])
    return {
        "seed": seed,
        "resamples": resamples,
        "mean": float(np.mean(d)),
        "low": float(low),
        "high": float(high),
    }


def load():
    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")]
    by = {}
    for r in rows:
        coherence = [a["coherence"] for a in r["expert_annotations"]]
        by[(r["model_id"], r["id"])] = {
            "coherence": sum(coherence) / len(coherence),
            "length": len(r["decoded"].split()) / len(r["text"].split()),
        }
    return by


def example(name, note, by, sys_a, sys_b, field, articles, method):
    a = [by[(sys_a, art)][field] for art in articles]
    b = [by[(sys_b, art)][field] for art in articles]
    d = [y - x for x, y in zip(a, b)]
    res = wilcoxon(b, a, zero_method="wilcox", correction=False, method=method)
    out = {
        "name": name,
        "note": note,
        "baseline": sys_a,
        "candidate": sys_b,
        "a": a,
        "b": b,
        "wilcoxon": {
            "method": method,
            "statistic": float(res.statistic),
            "pvalue": float(res.pvalue),
        },
        "bootstrap": bootstrap(d),
    }
    if method == "approx":
        out["wilcoxon"]["zstatistic"] = float(res.zstatistic)
    return out


def main():
    by = load()
    articles = sorted({art for (_, art) in by})
    examples = [
        example(
            "expert-coherence-M11-vs-M13",
            "mean expert coherence per article, 50 articles: zeros and ties, normal approximation",
            by, "M11", "M13", "coherence", articles, "approx",
        ),
        example(
            "length-ratio-M8-vs-M9-14",
            "summary words / article words, first 14 articles: no ties, exact distribution",
            by, "M8", "M9", "length", articles[:14], "exact",
        ),
        example(
            "length-ratio-M8-vs-M9-50",
            "summary words / article words, 50 articles: no ties, normal approximation",
            by, "M8", "M9", "length", articles, "approx",
        ),
    ]
    json.dump(
        {
            "generator": "scripts/stats-reference.py",
            "scipy": scipy.__version__,
            "numpy": np.__version__,
            "call": "scipy.stats.wilcoxon(b, a, zero_method='wilcox', correction=False, method=…)",
            "examples": examples,
        },
        sys.stdout,
        indent=1,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

"""The Python side of `npm run bench -- --vs-python`: Google's rouge_score (and sacrebleu where it
is installed) on the same pairs SumLens scores, timed the same way.

    python3 bench/python/rouge_pairs.py PAIRS.jsonl [--passes N] [--stemmer|--no-stemmer] [--rows]

PAIRS.jsonl holds one {"reference": ..., "summary": ...} per line. Without --rows it prints one
JSON object: the import time, each pass's milliseconds (the first pass is the one a user pays for
in a fresh process) and every pair's F-measures, so the bench can check both tools agree. With
--rows it behaves like a scoring program (one JSON line of scores per pair, nothing else), which
is what the whole-process comparison times.
"""

import argparse
import json
import sys
import time

started = time.perf_counter()
try:
    from rouge_score import rouge_scorer
except ImportError:
    print(json.dumps({"missing": "rouge_score"}))
    sys.exit(3)
try:
    import sacrebleu
except ImportError:
    sacrebleu = None
import_ms = (time.perf_counter() - started) * 1000

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs")
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--no-stemmer", action="store_true")
    parser.add_argument("--rows", action="store_true")
    args = parser.parse_args()

    with open(args.pairs, encoding="utf-8") as f:
        pairs = [json.loads(line) for line in f if line.strip()]
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=not args.no_stemmer)

    if args.rows:
        out = sys.stdout
        for p in pairs:
            s = scorer.score(p["reference"], p["summary"])
            out.write(json.dumps({t: s[t].fmeasure for t in TYPES}) + "\n")
        return

    passes_ms = []
    scores = []
    for _ in range(args.passes):
        t = time.perf_counter()
        scores = [scorer.score(p["reference"], p["summary"]) for p in pairs]
        passes_ms.append((time.perf_counter() - t) * 1000)

    result = {
        "python": sys.version.split()[0],
        "import_ms": import_ms,
        "passes_ms": passes_ms,
        "fmeasures": [[s[t].fmeasure for t in TYPES] for s in scores],
    }
    if sacrebleu is not None:
        bleu_ms = []
        bleu = []
        for _ in range(args.passes):
            t = time.perf_counter()
            bleu = [sacrebleu.sentence_bleu(p["summary"], [p["reference"]]).score for p in pairs]
            bleu_ms.append((time.perf_counter() - t) * 1000)
        result["sacrebleu"] = sacrebleu.__version__
        result["bleu_ms"] = bleu_ms
        result["bleu"] = bleu
    print(json.dumps(result))


main()

"""Generates the benchmark model: random weights in all-MiniLM-L6-v2's exact shape.

    /usr/bin/python3 bench/models/make_bench_model.py --out .cache/bench-models

`npm run bench:models` runs this when the files are missing. Writes, in transformers.js' local
layout, `<out>/sumlens-bench/minilm-shape/` with onnx/model.onnx (fp32, ~90 MB),
onnx/model_quantized.onnx (q8, ~23 MB) and onnx/model_fp16.onnx (for real GPUs), plus a
30522-entry WordPiece tokenizer. Random weights cost exactly what trained ones do (same graph, same
tensor sizes), and generating them keeps a 90 MB file out of the repository and off the network.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'scripts', 'models'))

try:
    import numpy as np
    import onnx  # noqa: F401
except ImportError:
    print(
        'make_bench_model.py needs ONNX and numpy for /usr/bin/python3: '
        'apt-get install python3-onnx python3-numpy',
        file=sys.stderr,
    )
    sys.exit(1)

import bert_onnx  # noqa: E402
import bert_q8  # noqa: E402
import make_test_models as tiny  # noqa: E402
import tiny_vocab  # noqa: E402

MODEL_ID = 'sumlens-bench/minilm-shape'
# sentence-transformers/all-MiniLM-L6-v2 (BertModel): 6 layers, hidden 384, 12 heads, FFN 1536.
SHAPE = bert_onnx.BertShape(vocab_size=30522, hidden=384, layers=6, heads=12, ffn=1536)
SEED = 6


def bench_vocab(size: int) -> list[str]:
    """The tiny models' vocabulary (so the benchmark sentences tokenize into whole words) padded
    with two- and three-letter pieces, the way a real WordPiece vocabulary ends in short pieces
    that spell out rare words."""
    vocab, _, _ = tiny_vocab.build_vocab()
    seen = set(vocab)
    letters = 'abcdefghijklmnopqrstuvwxyz'
    extra: list[str] = []
    for n in (2, 3):
        for combo in itertools.product(letters, repeat=n):
            extra.append(''.join(combo))
    for combo in itertools.product(letters, repeat=2):
        extra.append('##' + ''.join(combo))
    three = ['##' + ''.join(c) for c in itertools.product(letters, repeat=3)]
    order = np.random.RandomState(SEED).permutation(len(three))
    extra.extend(three[i] for i in order)
    for tok in extra:
        if len(vocab) == size:
            break
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)
    assert len(vocab) == size, len(vocab)
    return vocab


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--out', default='.cache/bench-models')
    args = parser.parse_args()

    started = time.time()
    vocab = bench_vocab(SHAPE.vocab_size)
    weights = bert_onnx.random_weights(SHAPE, SEED)
    fp32 = bert_onnx.build_bert(weights, name='minilm_shape')
    files = {
        'config.json': tiny.json_bytes(tiny.bert_config(SHAPE)),
        'tokenizer.json': tiny.json_bytes(tiny_vocab.tokenizer_json(vocab)),
        'tokenizer_config.json': tiny.json_bytes(tiny_vocab.TOKENIZER_CONFIG),
        'onnx/model.onnx': bert_onnx.model_bytes(fp32),
        'onnx/model_quantized.onnx': bert_onnx.model_bytes(bert_q8.quantize_dynamic(fp32)),
        'onnx/model_fp16.onnx': bert_onnx.model_bytes(
            bert_onnx.build_bert(weights, fp16=True, name='minilm_shape_fp16')
        ),
    }
    for rel, data in files.items():
        path = os.path.join(args.out, MODEL_ID, rel)
        written = bert_onnx.write_if_changed(path, data)
        print(f'  {os.path.join(MODEL_ID, rel):<48} {len(data) / 1e6:8.2f} MB  '
              f'{"written" if written else "unchanged"}')
    print(f'  generated in {time.time() - started:.1f} s')


if __name__ == '__main__':
    main()

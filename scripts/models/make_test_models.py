"""Writes the tiny test models that the unit and end-to-end tests load through transformers.js.

    /usr/bin/python3 scripts/models/make_test_models.py --out tests/fixtures/models

(`npm run models:test`; `pretest` runs it.) Two models in transformers.js' local layout, sharing
one lowercase WordPiece tokenizer and a 2-layer BERT encoder (hidden 32, 4 heads, FFN 64):

  sumlens-test/tiny-embedding  feature extraction (last_hidden_state), fp32 + q8
  sumlens-test/tiny-ner        token classification, CoNLL-03 labels (as dslim/bert-base-NER)

The weights are designed rather than trained, so that tests can assert meaning, not just shapes:

- Every token carries a constant "background" component on the last two hidden dimensions. It
  gives LayerNorm something to divide by, so near-zero tokens (function words, punctuation,
  single-letter pieces) stay near zero after normalisation instead of being blown up to the
  magnitude of content words.
- Embedding model: a content word is its topic's direction (weather, finance, ...) plus a smaller
  word-specific part, a name or place is a word-specific vector, and the last LayerNorm zeroes the
  background dimensions. Attention and FFN weights are small, so the residual stream carries the
  token meaning through both layers; mean-pooled, normalised sentence vectors then cluster by topic.
- NER model: a token's embedding points along its entity label's direction and the classifier
  reads the directions back, so tags are context-free: first names B-PER, surnames I-PER,
  organisation names B-ORG, organisation suffix words (corporation, institute, ...) I-ORG, places
  B-LOC, nationalities B-MISC, everything else O. I-LOC and I-MISC have no words. Subword pieces
  are O, except name-ending pieces (##son, ##sen, ##ova, ##ski, ##ez) which are I-PER, so that a
  name split by WordPiece stays one person ("johnson" = john B-PER + ##son I-PER); no piece is
  tagged by context (a tiny model has no way to know that "##s" follows a name).

Deterministic: fixed seeds, byte-identical output on re-runs; unchanged files are not rewritten,
so their mtimes stay put. Needs only Debian's python3-onnx and python3-numpy.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

try:
    import numpy as np
    import onnx  # noqa: F401  (imported here only to fail early with a clear message)
except ImportError:
    print(
        'make_test_models.py needs ONNX and numpy for /usr/bin/python3: '
        'apt-get install python3-onnx python3-numpy',
        file=sys.stderr,
    )
    sys.exit(1)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bert_onnx  # noqa: E402
import bert_q8  # noqa: E402
from bert_onnx import BertShape, BertWeights, LayerWeights  # noqa: E402
from tiny_vocab import TOKENIZER_CONFIG, TOPICS, batch, build_vocab, tokenizer_json  # noqa: E402

NAMESPACE = 'sumlens-test'
SEED = 20261130
SHAPE_HIDDEN, SHAPE_LAYERS, SHAPE_HEADS, SHAPE_FFN, MAX_POSITIONS = 32, 2, 4, 64, 512

# The CoNLL-03 label set in dslim/bert-base-NER's order (Xenova/bert-base-NER is its export).
NER_LABELS = ['O', 'B-MISC', 'I-MISC', 'B-PER', 'I-PER', 'B-ORG', 'I-ORG', 'B-LOC', 'I-LOC']

# --------------------------------------------------------------------------------------------
# weights


def pair_direction(index: int, hidden: int) -> np.ndarray:
    """Unit vector +1/-1 on dimensions 2i, 2i+1: zero-mean (LayerNorm leaves it alone) and
    orthogonal to every other pair, with no linear algebra whose rounding could vary by BLAS."""
    d = np.zeros(hidden)
    d[2 * index], d[2 * index + 1] = 1.0, -1.0
    return d / np.sqrt(2.0)


CONTENT_DIMS = SHAPE_HIDDEN - 2  # the last two dimensions hold the background


def background(hidden: int, magnitude: float) -> np.ndarray:
    b = np.zeros(hidden)
    b[hidden - 2], b[hidden - 1] = magnitude, -magnitude
    return b


def content_noise(rng: np.random.RandomState, hidden: int, norm: float) -> np.ndarray:
    """A random zero-mean vector of about the given norm on the content dimensions."""
    v = np.zeros(hidden)
    raw = rng.standard_normal(CONTENT_DIMS)
    v[:CONTENT_DIMS] = (raw - raw.mean()) * (norm / np.sqrt(CONTENT_DIMS))
    return v


def small_encoder(rng: np.random.RandomState, shape: BertShape, std: float) -> list[LayerWeights]:
    h, f = shape.hidden, shape.ffn

    def normal(*dims: int) -> np.ndarray:
        return (rng.standard_normal(dims) * std).astype(np.float32)

    def const(n: int, value: float) -> np.ndarray:
        return np.full(n, value, dtype=np.float32)

    return [
        LayerWeights(
            q_w=normal(h, h), q_b=const(h, 0), k_w=normal(h, h), k_b=const(h, 0),
            v_w=normal(h, h), v_b=const(h, 0), o_w=normal(h, h), o_b=const(h, 0),
            ln1_g=const(h, 1), ln1_b=const(h, 0),
            ffn_in_w=normal(h, f), ffn_in_b=const(f, 0), ffn_out_w=normal(f, h), ffn_out_b=const(h, 0),
            ln2_g=const(h, 1), ln2_b=const(h, 0),
        )
        for _ in range(shape.layers)
    ]


def embedding_weights(vocab: list[str], groups: dict[str, str], shape: BertShape) -> BertWeights:
    rng = np.random.RandomState(SEED)
    h = shape.hidden
    topic_index = {t: i for i, t in enumerate(TOPICS)}
    # Norms relative to the background (1.5 per dimension): a topic word is mostly its topic, a
    # general word is a faint individual vector, "quiet" tokens almost nothing.
    word = np.zeros((len(vocab), h))
    for i, tok in enumerate(vocab):
        group = groups[tok]
        if group.startswith('topic:'):
            v = 3.0 * pair_direction(topic_index[group[6:]], h) + content_noise(rng, h, 1.5)
        elif group == 'entity':
            v = content_noise(rng, h, 2.0)
        elif group == 'general':
            v = content_noise(rng, h, 0.5)
        else:
            v = content_noise(rng, h, 0.08)
        word[i] = v + background(h, 1.5)
    layers = small_encoder(rng, shape, 0.02)
    # The background is scaffolding for LayerNorm, not meaning: drop it from the output so that it
    # does not add a constant to every sentence vector (which would pull all cosines towards 1).
    layers[-1].ln2_g[CONTENT_DIMS:] = 0.0
    return BertWeights(
        shape=shape,
        word=word.astype(np.float32),
        position=(rng.standard_normal((shape.max_positions, h)) * 0.02).astype(np.float32),
        token_type=np.zeros((shape.type_vocab, h), dtype=np.float32),
        emb_ln_g=np.ones(h, dtype=np.float32),
        emb_ln_b=np.zeros(h, dtype=np.float32),
        layers=layers,
    )


def ner_weights(vocab: list[str], labels: dict[str, str], shape: BertShape) -> BertWeights:
    rng = np.random.RandomState(SEED + 1)
    h = shape.hidden
    word = np.zeros((len(vocab), h))
    for i, tok in enumerate(vocab):
        d = pair_direction(NER_LABELS.index(labels[tok]), h)
        word[i] = 3.0 * d + content_noise(rng, h, 0.5) + background(h, 1.5)
    classifier_w = np.zeros((h, len(NER_LABELS)))
    for j in range(len(NER_LABELS)):
        classifier_w[:, j] = 2.5 * pair_direction(j, h)
    return BertWeights(
        shape=shape,
        word=word.astype(np.float32),
        position=(rng.standard_normal((shape.max_positions, h)) * 0.02).astype(np.float32),
        token_type=np.zeros((shape.type_vocab, h), dtype=np.float32),
        emb_ln_g=np.ones(h, dtype=np.float32),
        emb_ln_b=np.zeros(h, dtype=np.float32),
        layers=small_encoder(rng, shape, 0.02),
        classifier_w=classifier_w.astype(np.float32),
        classifier_b=np.zeros(len(NER_LABELS), dtype=np.float32),
    )


# --------------------------------------------------------------------------------------------
# tokenizer files


def bert_config(shape: BertShape, **extra: object) -> dict:
    return {
        'architectures': ['BertModel'],
        'attention_probs_dropout_prob': 0.1,
        'hidden_act': 'gelu',
        'hidden_dropout_prob': 0.1,
        'hidden_size': shape.hidden,
        'initializer_range': 0.02,
        'intermediate_size': shape.ffn,
        'layer_norm_eps': bert_onnx.LAYER_NORM_EPS,
        'max_position_embeddings': shape.max_positions,
        'model_type': 'bert',
        'num_attention_heads': shape.heads,
        'num_hidden_layers': shape.layers,
        'pad_token_id': 0,
        'position_embedding_type': 'absolute',
        'type_vocab_size': shape.type_vocab,
        'vocab_size': shape.vocab_size,
        **extra,
    }


def json_bytes(obj: object) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + '\n').encode('utf-8')


# The same sentences as tests/unit/models/test-models.test.ts.
WEATHER_A = 'Heavy rain and strong winds caused flooding across the region.'
WEATHER_B = 'The forecast warns of a storm with thunder and more rain tomorrow.'
FINANCE = 'The bank reported record profits as shares rose on the stock market.'


def check_embedding(w: BertWeights, ids: dict[str, int]) -> dict[str, float]:
    input_ids, mask = batch([WEATHER_A, WEATHER_B, FINANCE], ids)
    hidden = bert_onnx.reference_forward(w, input_ids, mask)
    m = mask[..., None].astype(np.float64)
    pooled = (hidden * m).sum(1) / m.sum(1)
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    same, cross = float(pooled[0] @ pooled[1]), float(pooled[0] @ pooled[2])
    if same - cross < 0.3:
        raise SystemExit(f'embedding design check failed: same-topic {same:.3f}, cross {cross:.3f}')
    return {'same_topic_cos': same, 'cross_topic_cos': cross}


def check_ner(w: BertWeights, vocab: list[str], labels: dict[str, str]) -> float:
    """Every token alone in a sentence ([CLS] token [SEP]) gets its designed label, confidently."""
    input_ids = np.array([[2, i, 3] for i in range(len(vocab))], dtype=np.int64)
    assert vocab[2] == '[CLS]' and vocab[3] == '[SEP]'
    logits = bert_onnx.reference_forward(w, input_ids, np.ones_like(input_ids))[:, 1]
    probs = np.exp(logits - logits.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    worst = 1.0
    for i, tok in enumerate(vocab):
        want = NER_LABELS.index(labels[tok])
        if int(probs[i].argmax()) != want or probs[i, want] < 0.9:
            raise SystemExit(f'NER design check failed on {tok!r}: {probs[i].round(3)}')
        worst = min(worst, float(probs[i, want]))
    return worst


# --------------------------------------------------------------------------------------------


def write_model_dir(root: str, model_id: str, files: dict[str, bytes]) -> list[tuple[str, int, str, bool]]:
    rows = []
    for rel, data in files.items():
        path = os.path.join(root, model_id, rel)
        written = bert_onnx.write_if_changed(path, data)
        rows.append((os.path.join(model_id, rel), len(data), bert_onnx.sha256_hex(data)[:12], written))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--out', default='tests/fixtures/models', help='local model root')
    args = parser.parse_args()

    vocab, groups, labels = build_vocab()
    ids = {t: i for i, t in enumerate(vocab)}
    shape = BertShape(vocab_size=len(vocab), hidden=SHAPE_HIDDEN, layers=SHAPE_LAYERS,
                      heads=SHAPE_HEADS, ffn=SHAPE_FFN, max_positions=MAX_POSITIONS)
    emb = embedding_weights(vocab, groups, shape)
    ner = ner_weights(vocab, labels, shape)
    sims = check_embedding(emb, ids)
    worst_ner = check_ner(ner, vocab, labels)

    tokenizer_files = {
        'tokenizer.json': json_bytes(tokenizer_json(vocab)),
        'tokenizer_config.json': json_bytes(TOKENIZER_CONFIG),
    }
    emb_model = bert_onnx.build_bert(emb, name='tiny_embedding')
    ner_model = bert_onnx.build_bert(ner, name='tiny_ner')
    rows = write_model_dir(args.out, f'{NAMESPACE}/tiny-embedding', {
        'config.json': json_bytes(bert_config(shape)),
        **tokenizer_files,
        'onnx/model.onnx': bert_onnx.model_bytes(emb_model),
        'onnx/model_quantized.onnx': bert_onnx.model_bytes(bert_q8.quantize_dynamic(emb_model)),
    })
    rows += write_model_dir(args.out, f'{NAMESPACE}/tiny-ner', {
        'config.json': json_bytes(bert_config(
            shape,
            architectures=['BertForTokenClassification'],
            id2label={str(i): label for i, label in enumerate(NER_LABELS)},
            label2id={label: i for i, label in enumerate(NER_LABELS)},
        )),
        **tokenizer_files,
        'onnx/model.onnx': bert_onnx.model_bytes(ner_model),
        'onnx/model_quantized.onnx': bert_onnx.model_bytes(bert_q8.quantize_dynamic(ner_model)),
    })

    print(f'Tiny test models in {args.out} (vocab {len(vocab)}, hidden {shape.hidden}, '
          f'{shape.layers} layers, {shape.heads} heads, FFN {shape.ffn}):')
    for rel, size, digest, written in rows:
        print(f'  {rel:<48} {size:>8} B  sha256 {digest}  {"written" if written else "unchanged"}')
    print(f'  design check: weather/weather cos {sims["same_topic_cos"]:.3f}, '
          f'weather/finance cos {sims["cross_topic_cos"]:.3f}; '
          f'NER lowest designed-label probability {worst_ner:.4f}')


if __name__ == '__main__':
    main()

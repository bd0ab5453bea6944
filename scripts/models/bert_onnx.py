"""BERT encoder graphs written directly with onnx.helper (bert_q8.py derives their q8 copies).

Used by make_test_models.py (tiny designed models for tests) and by the model benchmark
(bench/models/, random weights with all-MiniLM-L6-v2's shape). Depends only on Debian's
python3-onnx (1.12: opset <= 17, so GELU is built from Erf) and python3-numpy.

The graph follows what `optimum`/torch exports for BertModel, so ONNX Runtime's graph optimiser
sees the usual patterns (Erf-GELU, softmax attention with an additive mask) and the benchmark
measures the same work as the published model:

    embeddings = LayerNorm(word[input_ids] + position[0..S) + token_type[token_type_ids])
    per layer:  x = LayerNorm(x + SelfAttention(x, mask));  x = LayerNorm(x + FFN(x))
    outputs:    last_hidden_state, or logits = x @ W + b for token classification

Determinism: weights come from numpy's legacy RandomState (its stream is frozen across numpy
versions) and the protobuf is serialised from the same messages in the same order, so the bytes
only change when the design does.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8
LAYER_NORM_EPS = 1e-12
# BERT's own additive mask value: large enough to zero a softmax term, small enough for fp16.
MASK_NEGATIVE = -10000.0


@dataclass
class BertShape:
    vocab_size: int
    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int = 512
    type_vocab: int = 2

    @property
    def head_dim(self) -> int:
        assert self.hidden % self.heads == 0, 'hidden must divide into heads'
        return self.hidden // self.heads


@dataclass
class LayerWeights:
    q_w: np.ndarray
    q_b: np.ndarray
    k_w: np.ndarray
    k_b: np.ndarray
    v_w: np.ndarray
    v_b: np.ndarray
    o_w: np.ndarray
    o_b: np.ndarray
    ln1_g: np.ndarray
    ln1_b: np.ndarray
    ffn_in_w: np.ndarray
    ffn_in_b: np.ndarray
    ffn_out_w: np.ndarray
    ffn_out_b: np.ndarray
    ln2_g: np.ndarray
    ln2_b: np.ndarray


@dataclass
class BertWeights:
    """All float32; matrices are [in, out] (the layout MatMul wants, unlike torch's Linear)."""

    shape: BertShape
    word: np.ndarray
    position: np.ndarray
    token_type: np.ndarray
    emb_ln_g: np.ndarray
    emb_ln_b: np.ndarray
    layers: list[LayerWeights] = field(default_factory=list)
    classifier_w: np.ndarray | None = None
    classifier_b: np.ndarray | None = None


def random_weights(
    shape: BertShape, seed: int, *, std: float = 0.02, num_labels: int | None = None
) -> BertWeights:
    """BERT's own initialisation (normal, std 0.02; LayerNorm 1/0): costs what trained weights do."""
    rng = np.random.RandomState(seed)
    h, f = shape.hidden, shape.ffn

    def normal(*dims: int) -> np.ndarray:
        return (rng.standard_normal(dims) * std).astype(np.float32)

    def zeros(n: int) -> np.ndarray:
        return np.zeros(n, dtype=np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    layers = [
        LayerWeights(
            q_w=normal(h, h), q_b=zeros(h),
            k_w=normal(h, h), k_b=zeros(h),
            v_w=normal(h, h), v_b=zeros(h),
            o_w=normal(h, h), o_b=zeros(h),
            ln1_g=ones(h), ln1_b=zeros(h),
            ffn_in_w=normal(h, f), ffn_in_b=zeros(f),
            ffn_out_w=normal(f, h), ffn_out_b=zeros(h),
            ln2_g=ones(h), ln2_b=zeros(h),
        )
        for _ in range(shape.layers)
    ]
    weights = BertWeights(
        shape=shape,
        word=normal(shape.vocab_size, h),
        position=normal(shape.max_positions, h),
        token_type=normal(shape.type_vocab, h),
        emb_ln_g=ones(h),
        emb_ln_b=zeros(h),
        layers=layers,
    )
    if num_labels is not None:
        weights.classifier_w = normal(h, num_labels)
        weights.classifier_b = zeros(num_labels)
    return weights


# --------------------------------------------------------------------------------------------
# Graph construction


class _Graph:
    def __init__(self, float_type: int) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.float_type = float_type
        self.np_float = np.float16 if float_type == TensorProto.FLOAT16 else np.float32
        self._names: set[str] = set()

    def init(self, name: str, array: np.ndarray, *, as_float: bool = True) -> str:
        assert name not in self._names, name
        self._names.add(name)
        if as_float:
            array = np.asarray(array, dtype=self.np_float)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op: str, inputs: list[str], name: str, **attrs: object) -> str:
        """One node whose single output is named `name`."""
        self.nodes.append(helper.make_node(op, inputs, [name], name=f'{name}_node', **attrs))
        return name

    def linear(self, x: str, w: np.ndarray, b: np.ndarray, name: str) -> str:
        mm = self.node('MatMul', [x, self.init(f'{name}.weight', w)], f'{name}/MatMul')
        return self.node('Add', [mm, self.init(f'{name}.bias', b)], f'{name}/Add')

    def layer_norm(self, x: str, g: np.ndarray, b: np.ndarray, name: str) -> str:
        return self.node(
            'LayerNormalization',
            [x, self.init(f'{name}.weight', g), self.init(f'{name}.bias', b)],
            f'{name}/LayerNorm',
            axis=-1,
            epsilon=LAYER_NORM_EPS,
        )


def build_bert(weights: BertWeights, *, fp16: bool = False, name: str = 'bert') -> onnx.ModelProto:
    """The fp32 (or fp16 compute, fp32 output) graph; `bert_q8.quantize_dynamic` derives the q8 one."""
    s = weights.shape
    g = _Graph(TensorProto.FLOAT16 if fp16 else TensorProto.FLOAT)
    i64 = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731

    # --- embeddings
    word = g.node('Gather', [g.init('embeddings.word_embeddings.weight', weights.word), 'input_ids'],
                  'embeddings/word')
    seq_len_1d = g.node('Shape', ['input_ids'], 'embeddings/seq_len_1d', start=1, end=2)
    seq_len = g.node('Squeeze', [seq_len_1d, g.init('const_axes_0', i64([0]), as_float=False)],
                     'embeddings/seq_len')
    zero = g.init('const_zero_i64', i64(0), as_float=False)
    one = g.init('const_one_i64', i64(1), as_float=False)
    positions = g.node('Range', [zero, seq_len, one], 'embeddings/position_ids')
    position = g.node('Gather', [g.init('embeddings.position_embeddings.weight', weights.position),
                                 positions], 'embeddings/position')
    token_type = g.node('Gather', [g.init('embeddings.token_type_embeddings.weight',
                                          weights.token_type), 'token_type_ids'],
                        'embeddings/token_type')
    summed = g.node('Add', [word, token_type], 'embeddings/add_type')
    summed = g.node('Add', [summed, position], 'embeddings/add_position')
    x = g.layer_norm(summed, weights.emb_ln_g, weights.emb_ln_b, 'embeddings.LayerNorm')

    # --- additive attention mask [batch, 1, 1, seq]: 0 where attended, MASK_NEGATIVE on padding
    mask = g.node('Unsqueeze', ['attention_mask', g.init('const_axes_1_2', i64([1, 2]),
                                                         as_float=False)], 'mask/unsqueeze')
    mask = g.node('Cast', [mask], 'mask/cast', to=g.float_type)
    mask = g.node('Sub', [g.init('const_one_f', np.array(1.0)), mask], 'mask/invert')
    mask = g.node('Mul', [mask, g.init('const_mask_negative', np.array(MASK_NEGATIVE))], 'mask/scale')

    split_heads = g.init('const_split_heads', i64([0, 0, s.heads, s.head_dim]), as_float=False)
    merge_heads = g.init('const_merge_heads', i64([0, 0, s.hidden]), as_float=False)
    sqrt_d = g.init('const_attention_scale', np.array(math.sqrt(s.head_dim)))
    sqrt2 = g.init('const_sqrt2', np.array(math.sqrt(2.0)))
    half = g.init('const_half', np.array(0.5))
    one_f = 'const_one_f'

    for i, lw in enumerate(weights.layers):
        p = f'encoder.layer.{i}'
        q = g.linear(x, lw.q_w, lw.q_b, f'{p}.attention.self.query')
        k = g.linear(x, lw.k_w, lw.k_b, f'{p}.attention.self.key')
        v = g.linear(x, lw.v_w, lw.v_b, f'{p}.attention.self.value')
        q = g.node('Transpose', [g.node('Reshape', [q, split_heads], f'{p}/q_split')],
                   f'{p}/q_heads', perm=[0, 2, 1, 3])
        k = g.node('Transpose', [g.node('Reshape', [k, split_heads], f'{p}/k_split')],
                   f'{p}/k_heads', perm=[0, 2, 3, 1])
        v = g.node('Transpose', [g.node('Reshape', [v, split_heads], f'{p}/v_split')],
                   f'{p}/v_heads', perm=[0, 2, 1, 3])
        scores = g.node('MatMul', [q, k], f'{p}/scores')
        scores = g.node('Div', [scores, sqrt_d], f'{p}/scores_scaled')
        scores = g.node('Add', [scores, mask], f'{p}/scores_masked')
        probs = g.node('Softmax', [scores], f'{p}/probs', axis=-1)
        ctx = g.node('MatMul', [probs, v], f'{p}/context')
        ctx = g.node('Transpose', [ctx], f'{p}/context_t', perm=[0, 2, 1, 3])
        ctx = g.node('Reshape', [ctx, merge_heads], f'{p}/context_merged')
        attn = g.linear(ctx, lw.o_w, lw.o_b, f'{p}.attention.output.dense')
        attn = g.node('Add', [attn, x], f'{p}/attention_residual')
        x = g.layer_norm(attn, lw.ln1_g, lw.ln1_b, f'{p}.attention.output.LayerNorm')

        h = g.linear(x, lw.ffn_in_w, lw.ffn_in_b, f'{p}.intermediate.dense')
        # GELU exactly as torch exports it (x * 0.5 * (1 + erf(x / sqrt 2))): ORT fuses this pattern.
        e = g.node('Erf', [g.node('Div', [h, sqrt2], f'{p}/gelu_div')], f'{p}/gelu_erf')
        e = g.node('Add', [e, one_f], f'{p}/gelu_add')
        h = g.node('Mul', [g.node('Mul', [h, e], f'{p}/gelu_mul'), half], f'{p}/gelu')
        out = g.linear(h, lw.ffn_out_w, lw.ffn_out_b, f'{p}.output.dense')
        out = g.node('Add', [out, x], f'{p}/output_residual')
        x = g.layer_norm(out, lw.ln2_g, lw.ln2_b, f'{p}.output.LayerNorm')

    if weights.classifier_w is not None:
        assert weights.classifier_b is not None
        x = g.linear(x, weights.classifier_w, weights.classifier_b, 'classifier')
        out_name, out_dim = 'logits', weights.classifier_w.shape[1]
    else:
        out_name, out_dim = 'last_hidden_state', s.hidden
    # fp16 models keep fp32 outputs (like onnxconverter's keep_io_types) so callers see one dtype.
    if fp16:
        g.node('Cast', [x], out_name, to=TensorProto.FLOAT)
    else:
        g.nodes[-1].output[0] = out_name

    dims = ['batch_size', 'sequence_length']
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ('input_ids', 'attention_mask', 'token_type_ids')]
    outputs = [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, [*dims, out_dim])]
    graph = helper.make_graph(g.nodes, name, inputs, outputs, g.initializers)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid('', OPSET)],
        producer_name='sumlens-bert-onnx',
        producer_version='1',
    )
    model.ir_version = IR_VERSION
    return model


# --------------------------------------------------------------------------------------------
# numpy reference (float64) of the same graph, for checking a design before writing it


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + LAYER_NORM_EPS) * g + b


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(x)


def reference_forward(w: BertWeights, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Hidden states (or logits with a classifier) for int arrays [batch, seq]; token types 0."""
    s = w.shape
    f64 = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
    batch, seq = input_ids.shape
    x = f64(w.word)[input_ids] + f64(w.position)[:seq][None] + f64(w.token_type)[0]
    x = _layer_norm(x, f64(w.emb_ln_g), f64(w.emb_ln_b))
    mask = (1.0 - attention_mask[:, None, None, :].astype(np.float64)) * MASK_NEGATIVE
    for lw in w.layers:
        def heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(batch, seq, s.heads, s.head_dim).transpose(0, 2, 1, 3)

        q = heads(x @ f64(lw.q_w) + f64(lw.q_b))
        k = heads(x @ f64(lw.k_w) + f64(lw.k_b))
        v = heads(x @ f64(lw.v_w) + f64(lw.v_b))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(s.head_dim) + mask
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        probs = scores / scores.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, s.hidden)
        x = _layer_norm(ctx @ f64(lw.o_w) + f64(lw.o_b) + x, f64(lw.ln1_g), f64(lw.ln1_b))
        h = x @ f64(lw.ffn_in_w) + f64(lw.ffn_in_b)
        h = h * 0.5 * (1.0 + _erf(h / math.sqrt(2.0)))
        x = _layer_norm(h @ f64(lw.ffn_out_w) + f64(lw.ffn_out_b) + x, f64(lw.ln2_g), f64(lw.ln2_b))
    if w.classifier_w is not None:
        assert w.classifier_b is not None
        x = x @ f64(w.classifier_w) + f64(w.classifier_b)
    return x


# --------------------------------------------------------------------------------------------
# files


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_if_changed(path: str, data: bytes) -> bool:
    """Atomic write that leaves an identical file (and its mtime) alone; True when written."""
    if os.path.exists(path) and os.path.getsize(path) == len(data):
        with open(path, 'rb') as f:
            if f.read() == data:
                return False
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    tmp = f'{path}.tmp-{os.getpid()}'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.replace(tmp, path)
    return True


def model_bytes(model: onnx.ModelProto, *, check: bool = True) -> bytes:
    if check:
        onnx.checker.check_model(model)
    return model.SerializeToString()

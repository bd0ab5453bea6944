"""Int8 weights for the converted USE-lite graph (used by convert_use_onnx.py).

Each MatMul whose right-hand side is a weight matrix becomes an integer MatMul: the weight is
stored as int8 with one scale per output column (symmetric, zero point 0), and the activation is
quantised *per row* (per token) at run time, symmetric, to 127 steps of its own largest magnitude.
Per row, not per tensor (ONNX's DynamicQuantizeLinear): a token's vector then depends on that token
alone, never on which other sentences share the batch, so a sentence gets the same vector in any
batch, on any shard, and the sentence cache stays exact. ONNX Runtime's MatMulInteger takes one
scalar zero point for the activation, so the int8 row is shifted by 128 into uint8 with the shared
zero point 128, which is the same integer product.

The word-piece embedding table (8,002 x 256, a third of the weights) is stored as int8 with one
scale per row; a lookup gathers the int8 rows and their scales.

Rounding is numpy's `rint` (half to even) on float64 quotients of the float32 weights by float32
scales; `scripts/models/int8-weights.ts` makes the same bytes for the app from the TF.js shards.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, external_data_helper, helper, numpy_helper

# Below this a weight is not worth a quantised path (and the graph's small tables stay exact).
MIN_QUANTISED_ELEMENTS = 65536
STEPS = 127.0
# Weight matrices are stored as uint8, q + 128, with zero point 128: the same integer products,
# but ONNX Runtime's native x86 kernel for uint8 x int8 adds pairs of products in int16 (AVX2's
# vpmaddubsw) and saturates when both are large (255 x 127 x 2 > 32767): its vectors moved by up
# to 4e-3 from the WASM kernel's. uint8 x uint8 takes a kernel without that shortcut on every CPU.
WEIGHT_SHIFT = 128


def quantise_axis(weight: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 over `axis` (the reduced axis): one scale per remaining index."""
    largest = np.abs(weight).max(axis=axis).astype(np.float64)
    # An all-zero column keeps scale 1 so the division is defined; its values are 0 anyway.
    scale = np.where(largest > 0, largest / STEPS, 1.0).astype(np.float32)
    expanded = np.expand_dims(scale.astype(np.float64), axis)
    quantised = np.clip(np.rint(weight.astype(np.float64) / expanded), -STEPS, STEPS).astype(np.int8)
    return quantised, scale


class Int8Pass:
    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self.initializers = {t.name: t for t in self.graph.initializer}
        self.new_initializers: list = []
        self.counter = 0
        # source initializer -> (int8 tensor, scales, axis reduced, shift), in the order made
        self.quantised: dict[str, tuple[str, str, int]] = {}
        self.consts: dict[str, str] = {}

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f'{base}__q{self.counter}'

    def add_const(self, base: str, value: np.ndarray) -> str:
        name = self.fresh(base)
        self.new_initializers.append(numpy_helper.from_array(value, name))
        return name

    def weight(self, name: str) -> np.ndarray | None:
        tensor = self.initializers.get(name)
        if tensor is None or tensor.data_type != TensorProto.FLOAT:
            return None
        value = numpy_helper.to_array(tensor)
        if value.ndim != 2 or value.size < MIN_QUANTISED_ELEMENTS:
            return None
        return value

    def quantised_pair(
        self, source: str, weight: np.ndarray, axis: int, shift: int = 0
    ) -> tuple[str, str]:
        """`shift` 128 stores q + 128 as uint8 (zero point 128): see WEIGHT_SHIFT."""
        if source not in self.quantised:
            quantised, scale = quantise_axis(weight, axis)
            stored = (quantised.astype(np.int16) + shift).astype(np.uint8) if shift else quantised
            self.quantised[source] = (
                self.add_const(source + '/int8', stored),
                self.add_const(source + '/scale', scale),
                axis,
                shift,
            )
        q_name, s_name, _, _ = self.quantised[source]
        return q_name, s_name

    def matmul(self, node) -> list:
        a, b = node.input
        weight = self.weight(b)
        if weight is None:
            return [node]
        q_name, s_name = self.quantised_pair(b, weight, axis=0, shift=WEIGHT_SHIFT)
        k, n = weight.shape
        consts = self.shared_consts(k)
        out = node.output[0]
        t = {key: self.fresh(out + '/' + key) for key in (
            'rows', 'abs', 'max', 'nz', 'scale', 'zp', 'u8', 'mmi', 'f', 'col', 'rowscaled',
            'scaled', 'lead', 'shape', 'a_shape')}
        return [
            # Every row (token) of A on its own: flatten to [tokens, K] and back at the end.
            helper.make_node('Reshape', [a, consts['flat']], [t['rows']]),
            helper.make_node('Abs', [t['rows']], [t['abs']]),
            helper.make_node('ReduceMax', [t['abs']], [t['max']], axes=[1], keepdims=0),
            # max(largest, tiny) / 127: a zero row gets a tiny scale and quantises to zeros
            helper.make_node('Max', [t['max'], consts['tiny']], [t['nz']]),
            helper.make_node('Mul', [t['nz'], consts['inv127']], [t['scale']]),
            # QuantizeLinear's per-axis zero point has the scale's shape: 128 for every row
            helper.make_node('Mul', [t['scale'], consts['zero']], [t['zp'] + '/f']),
            helper.make_node('Add', [t['zp'] + '/f', consts['shift']], [t['zp'] + '/s']),
            helper.make_node('Cast', [t['zp'] + '/s'], [t['zp']], to=TensorProto.UINT8),
            helper.make_node('QuantizeLinear', [t['rows'], t['scale'], t['zp']], [t['u8']], axis=0),
            helper.make_node(
                'MatMulInteger', [t['u8'], q_name, consts['zero_point'], consts['zero_point']], [t['mmi']]
            ),
            helper.make_node('Cast', [t['mmi']], [t['f']], to=TensorProto.FLOAT),
            helper.make_node('Unsqueeze', [t['scale'], consts['last_axis']], [t['col']]),
            helper.make_node('Mul', [t['f'], t['col']], [t['rowscaled']]),
            helper.make_node('Mul', [t['rowscaled'], s_name], [t['scaled']]),
            helper.make_node('Shape', [a], [t['a_shape']]),
            helper.make_node('Slice', [t['a_shape'], consts['zero_i64'], consts['minus_one']], [t['lead']]),
            helper.make_node('Concat', [t['lead'], self.columns(n)], [t['shape']], axis=0),
            helper.make_node('Reshape', [t['scaled'], t['shape']], [out], name=node.name),
        ]

    def columns(self, n: int) -> str:
        key = f'columns{n}'
        if key not in self.consts:
            self.consts[key] = self.add_const(key, np.array([n], dtype=np.int64))
        return self.consts[key]

    def shared_consts(self, k: int) -> dict[str, str]:
        if not self.consts:
            for key, value in {
                'inv127': np.array(1.0 / STEPS, dtype=np.float32),
                'tiny': np.array(1e-30, dtype=np.float32),
                'zero': np.array(0.0, dtype=np.float32),
                'shift': np.array(128.0, dtype=np.float32),
                'zero_point': np.array(128, dtype=np.uint8),
                'last_axis': np.array([-1], dtype=np.int64),
                'zero_i64': np.array([0], dtype=np.int64),
                'minus_one': np.array([-1], dtype=np.int64),
            }.items():
                self.consts[key] = self.add_const(key, value)
        flat = f'flat{k}'
        if flat not in self.consts:
            self.consts[flat] = self.add_const(flat, np.array([-1, k], dtype=np.int64))
        return {**self.consts, 'flat': self.consts[flat]}

    def gather(self, node) -> list:
        table_name, ids = node.input
        table = self.weight(table_name)
        if table is None or dict((a.name, a.i) for a in node.attribute).get('axis', 0) != 0:
            return [node]
        q_name, s_name = self.quantised_pair(table_name, table, axis=1)
        last_axis = self.add_const('last_axis', np.array([-1], dtype=np.int64))
        out = node.output[0]
        t = {k: self.fresh(out + '/' + k) for k in ('rows', 'f', 'scales', 'col')}
        return [
            helper.make_node('Gather', [q_name, ids], [t['rows']], axis=0),
            helper.make_node('Cast', [t['rows']], [t['f']], to=TensorProto.FLOAT),
            helper.make_node('Gather', [s_name, ids], [t['scales']], axis=0),
            helper.make_node('Unsqueeze', [t['scales'], last_axis], [t['col']]),
            helper.make_node('Mul', [t['f'], t['col']], [out], name=node.name),
        ]

    def run(self):
        nodes = []
        for node in self.graph.node:
            if node.op_type == 'MatMul':
                nodes.extend(self.matmul(node))
            elif node.op_type == 'Gather':
                nodes.extend(self.gather(node))
            else:
                nodes.append(node)
        used = {i for n in nodes for i in n.input}
        kept = [t for t in self.graph.initializer if t.name in used]
        del self.graph.node[:]
        self.graph.node.extend(nodes)
        del self.graph.initializer[:]
        self.graph.initializer.extend(kept + self.new_initializers)
        return self.model


ALIGN = 16


def quantise_model(model, shard_offsets: dict[str, int], location: str):
    """The model with int8 weights (changed in place), each int8 tensor and its scales pointing
    (ONNX external data) into one weights file named `location`; the layout that file has, by which
    `scripts/models/int8-weights.ts` rebuilds it from the TF.js shards; and the file's bytes."""
    int8 = Int8Pass(model)
    int8.run()
    tensors = {t.name: t for t in model.graph.initializer}
    layout = []
    blob = bytearray()

    def place(tensor) -> dict:
        data = tensor.raw_data
        offset = len(blob)
        blob.extend(data)
        blob.extend(b'\0' * (-len(blob) % ALIGN))
        external_data_helper.set_external_data(tensor, location, offset=offset, length=len(data))
        tensor.data_location = TensorProto.EXTERNAL
        tensor.ClearField('raw_data')
        return {'offset': offset, 'length': len(data)}

    for source, (q_name, s_name, axis, shift) in int8.quantised.items():
        if source not in shard_offsets:
            raise SystemExit(f'{source} is not a tensor of the weight shards: cannot lay it out')
        entry = {
            'source': source,
            'shardOffset': shard_offsets[source],
            'shape': list(tensors[q_name].dims),
            # the axis the scale's maximum runs over: 0 = one scale per column, 1 = per row
            'reducedAxis': axis,
            # stored byte = q + shift (uint8 when 128)
            'shift': shift,
        }
        entry['int8'] = place(tensors[q_name])
        entry['scale'] = place(tensors[s_name])
        layout.append(entry)
    return model, {'location': location, 'bytes': len(blob), 'steps': STEPS, 'tensors': layout}, bytes(blob)

"""The ONNX graph convert_use_onnx.py writes, as it grows: fresh names, constants, emitted nodes
with their dtypes, int64 copies where ONNX needs them, and ranks from ONNX shape inference
(use_tf_ops.py adds the TF ops on top).
"""

from __future__ import annotations

import base64

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min

# tensorflow DataType enum -> (numpy, ONNX)
TF_DTYPES = {
    1: (np.float32, TensorProto.FLOAT),
    3: (np.int32, TensorProto.INT32),
    9: (np.int64, TensorProto.INT64),
    10: (np.bool_, TensorProto.BOOL),
}
NP_TO_ONNX = {np.dtype(np_type): onnx_type for np_type, onnx_type in TF_DTYPES.values()}


def attr(node: dict, key: str, default=None):
    value = node.get('attr', {}).get(key)
    if value is None:
        return default
    if 'list' in value:
        return [int(i) for i in value['list'].get('i', [])]
    if 'i' in value:
        return int(value['i'])
    if 'b' in value:
        return bool(value['b'])
    if 'type' in value:
        return value['type']
    if 's' in value:
        # this exporter writes bytes as a list of numbers; protobuf's JSON form is base64
        return bytes(value['s']) if isinstance(value['s'], list) else base64.b64decode(value['s'])
    if 'f' in value:
        return float(value['f'])
    # a flag left at its default is stored as an empty attribute
    return default


def tf_dtype_code(value) -> int:
    if isinstance(value, str):
        return {'DT_FLOAT': 1, 'DT_INT32': 3, 'DT_INT64': 9, 'DT_BOOL': 10}[value]
    return int(value)


class OnnxGraph:
    def __init__(self, weights: dict[str, np.ndarray]):
        self.weights = weights
        self.onnx_nodes: list = []
        self.initializers: dict[str, np.ndarray] = {}
        self.dtype: dict[str, np.dtype] = {}
        self.constants: dict[str, np.ndarray] = {}
        self.cast_cache: dict[tuple[str, int], str] = {}
        self.counter = 0
        self.declared: dict[str, onnx.ValueInfoProto] = {}
        # A constant made by reshaping another keeps its bytes: it can point at the same offset.
        self.same_bytes_as: dict[str, str] = {}

    # -- helpers -----------------------------------------------------------------------------

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f'{base}__{self.counter}'

    def const(self, base: str, value: np.ndarray) -> str:
        name = self.fresh(base)
        self.initializers[name] = value
        self.dtype[name] = value.dtype
        self.constants[name] = value
        return name

    def emit(self, op: str, inputs: list[str], outputs: list[str], dtype, **attrs) -> None:
        self.onnx_nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0], **attrs))
        for output in outputs:
            self.dtype[output] = np.dtype(dtype)

    def tmp(self, op: str, inputs: list[str], base: str, dtype, **attrs) -> str:
        out = self.fresh(base)
        self.emit(op, inputs, [out], dtype, **attrs)
        return out

    def const_value(self, name: str) -> np.ndarray:
        if name not in self.constants:
            raise SystemExit(f'{name} must be a constant for this conversion')
        return self.constants[name]

    def as_int64(self, name: str) -> str:
        if self.dtype[name] == np.int64:
            return name
        if name in self.constants:
            return self.const(name + '/i64', self.constants[name].astype(np.int64))
        key = (name, TensorProto.INT64)
        if key not in self.cast_cache:
            self.cast_cache[key] = self.tmp('Cast', [name], name + '/i64', np.int64, to=TensorProto.INT64)
        return self.cast_cache[key]

    def axes(self, base: str, values) -> str:
        return self.const(base + '/axes', np.array(values, dtype=np.int64).reshape(-1))

    @staticmethod
    def ref(tf_input: str) -> str:
        # "name:0" and "name" are the same tensor; control inputs ("^name") carry no data.
        if tf_input.endswith(':0'):
            return tf_input[:-2]
        return tf_input

    def _rank(self, tensor):
        """A tensor's rank from ONNX shape inference over the graph so far: TF.js drops TF's
        `_output_shapes`, and only a few ops need a rank, so the graph is not tracked by hand."""
        if tensor in self.constants:
            return self.constants[tensor].ndim
        shape = self._inferred_shape(tensor)
        if shape is None:
            raise SystemExit(f'rank of {tensor} unknown')
        return len(shape)

    def _inferred_shape(self, tensor):
        small = {k: v for k, v in self.initializers.items() if v.size <= 64}
        graph = helper.make_graph(
            self.onnx_nodes,
            'partial',
            inputs=[
                helper.make_tensor_value_info('indices', TensorProto.INT32, ['pieces', 2]),
                helper.make_tensor_value_info('values', TensorProto.INT32, ['pieces']),
            ]
            + [
                helper.make_tensor_value_info(k, NP_TO_ONNX[v.dtype], list(v.shape))
                for k, v in self.initializers.items()
                if k not in small
            ],
            outputs=[],
            initializer=[numpy_helper.from_array(v, k) for k, v in small.items()],
            value_info=list(self.declared.values()),
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', OPSET)])
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        for info in list(inferred.graph.value_info) + list(inferred.graph.input):
            if info.name == tensor and info.type.tensor_type.HasField('shape'):
                return [d.dim_value if d.HasField('dim_value') else None for d in info.type.tensor_type.shape.dim]
        return None

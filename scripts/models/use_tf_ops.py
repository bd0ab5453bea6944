"""Each TF op of USE-lite's graph as ONNX ops with TF's semantics (see convert_use_onnx.py for
where the two differ and how each difference is bridged).
"""

from __future__ import annotations

import numpy as np
from onnx import helper, numpy_helper

from use_onnx_graph import INT64_MAX, INT64_MIN, NP_TO_ONNX, TF_DTYPES, OnnxGraph, attr, tf_dtype_code


class Converter(OnnxGraph):
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

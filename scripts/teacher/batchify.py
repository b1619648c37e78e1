"""Makes the Maia3-5M ONNX graph accept a batch of positions.

The exported graph fixes the batch size to 1: its inputs and outputs have a leading dimension 1
and its Reshape nodes carry constant target shapes that start with 1. This rewrites those
leading 1s to -1 (Reshape infers it), names the batch dimension `N` and drops the recorded
intermediate shapes (onnxruntime would otherwise fuse nodes for batch 1); the weights
(`maia3-5m.onnx.data`) are untouched and shared with the original file.

usage: python batchify.py IN.onnx OUT.onnx   (OUT in the same folder as IN: it points at IN's .data)
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    src, dst = sys.argv[1], sys.argv[2]
    m = onnx.load(src, load_external_data=False)
    init = {i.name: i for i in m.graph.initializer}
    shapes = {n.input[1] for n in m.graph.node if n.op_type == "Reshape"}
    for name in sorted(shapes):
        a = numpy_helper.to_array(init[name])
        assert a[0] == 1, (name, a)
        b = a.copy()
        b[0] = -1
        init[name].CopyFrom(numpy_helper.from_array(b.astype(np.int64), name))
    for v in list(m.graph.input) + list(m.graph.output):
        dims = v.type.tensor_type.shape.dim
        if len(dims) > 0 and dims[0].dim_value == 1:
            dims[0].Clear()
            dims[0].dim_param = "N"
    del m.graph.value_info[:]  # intermediate shapes recorded for batch 1 would mislead the optimiser
    onnx.save(m, dst)
    print(f"{len(shapes)} reshape shapes made batch-generic; wrote {dst}")


if __name__ == "__main__":
    main()

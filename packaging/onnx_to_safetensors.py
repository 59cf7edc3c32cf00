#!/usr/bin/python3
"""Converts the weights (initializers) of an ONNX model into a safetensors file.

Usage: onnx_to_safetensors.py MODEL.onnx OUT.safetensors [KEY=VALUE ...]

Every initializer becomes one tensor under its ONNX name; KEY=VALUE pairs go into the file's
__metadata__. The output is written to a temporary file and renamed into place, so an
interrupted run leaves nothing half-written. Runs with Debian's python3-onnx and python3-numpy.
"""
import json
import os
import struct
import sys

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:  # pragma: no cover - explained to the user
    sys.exit(f"onnx_to_safetensors: {e}; install python3-onnx and python3-numpy "
             "(packaging/install-deps.sh does)")

DTYPES = {
    np.dtype("float64"): "F64", np.dtype("float32"): "F32", np.dtype("float16"): "F16",
    np.dtype("int64"): "I64", np.dtype("int32"): "I32", np.dtype("int16"): "I16",
    np.dtype("int8"): "I8", np.dtype("uint8"): "U8", np.dtype("bool"): "BOOL",
}


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    src, dst = argv[1], argv[2]
    metadata = dict(kv.split("=", 1) for kv in argv[3:])
    try:
        model = onnx.load(src)
    except Exception as e:  # onnx raises several types for a bad file
        sys.exit(f"onnx_to_safetensors: {src}: not a readable ONNX model ({e})")

    header, blobs, offset = {}, [], 0
    for init in model.graph.initializer:
        array = np.ascontiguousarray(numpy_helper.to_array(init))
        if array.dtype not in DTYPES:
            sys.exit(f"onnx_to_safetensors: {src}: initializer '{init.name}' has dtype "
                     f"{array.dtype}, which safetensors cannot hold")
        data = array.tobytes()
        header[init.name] = {"dtype": DTYPES[array.dtype], "shape": list(array.shape),
                             "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if not header:
        sys.exit(f"onnx_to_safetensors: {src}: the model has no initializers")
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)

    tmp = f"{dst}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as out:
            out.write(struct.pack("<Q", len(text)))
            out.write(text)
            for blob in blobs:
                out.write(blob)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, dst)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        sys.exit(f"onnx_to_safetensors: {dst}: cannot write ({e.strerror})")
    print(f"onnx_to_safetensors: {len(blobs)} tensors, {offset} bytes -> {dst}")


if __name__ == "__main__":
    main(sys.argv)

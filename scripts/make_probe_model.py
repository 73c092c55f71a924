#!/usr/bin/python3
"""Prints, as a C++ byte list, the probe model embedded in src/ort/probe_model.cpp: y = a + b, float[1,4].

The provider probe creates a session from it to prove an EP can really run here."""
import onnx
from onnx import TensorProto, helper

inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 4]) for name in ("a", "b")]
output = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "probe", inputs, [output])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="modelkit")
model.ir_version = 8
onnx.checker.check_model(model)
data = model.SerializeToString()
for start in range(0, len(data), 16):
    print("    " + ", ".join(f"0x{b:02x}" for b in data[start:start + 16]) + ",")

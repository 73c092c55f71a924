// A tiny built-in ONNX model used to prove that an execution provider really works here.
#pragma once

#include <cstddef>
#include <span>

namespace modelkit::ort {

// Serialized ONNX model (IR 8, opset 17): y = a + b, all float[1,4]. Made by scripts/make_probe_model.py.
std::span<const std::byte> ProbeModelBytes();

}  // namespace modelkit::ort

// modelkit's public C++ API, all of it (docs/library.md). Link `modelkit::modelkit` from
// `find_package(modelkit CONFIG REQUIRED)`. Errors are modelkit::Error (modelkit/base/error.h), each with the exit
// code the command line would give.
#pragma once

#include "modelkit/api/genai_session.h"
#include "modelkit/api/machine.h"
#include "modelkit/api/onnx_benchmark.h"
#include "modelkit/base/error.h"
#include "modelkit/tokenizer/tokenizer.h"
#include "modelkit/version.h"

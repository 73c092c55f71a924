// The genai_config.json keys onnxruntime-genai accepts, for the parts of the file modelkit reads.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelkit::generate {

// The keys of `document` that onnxruntime-genai (0.15 and later) would reject as unknown, as dotted paths from the
// root ("model.decoder.foo", "model.decoder.pipeline.ctx.foo"), in document order. Checked: the root, model,
// model.decoder with its inputs, outputs, sliding_window, session_options and pipeline stages (each with its
// session_options), and search. Sections modelkit does not read (model.vision, model.encoder, provider options,
// run_options, speculative, engine, ...) are not looked into. A string-valued key in session_options is an ORT
// session config entry, so only non-string unknown keys count there.
std::vector<std::string> UnknownGenaiConfigKeys(const nlohmann::ordered_json& document);

}  // namespace modelkit::generate

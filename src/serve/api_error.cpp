#include "modelkit/serve/api_error.h"

namespace modelkit::serve {

nlohmann::ordered_json ApiError::Body() const {
  const auto optional = [](const std::string& text) -> nlohmann::ordered_json {
    return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
  };
  return {{"error", {{"message", what()}, {"type", type_}, {"param", optional(param_)}, {"code", optional(code_)}}}};
}

}  // namespace modelkit::serve

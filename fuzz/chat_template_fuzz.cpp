// libFuzzer target: arbitrary bytes as a chat template. Parsing and rendering a small conversation either succeed or
// throw modelkit::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "modelkit/base/error.h"
#include "modelkit/tokenizer/chat_template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto messages = nlohmann::ordered_json::parse(
      R"([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}])");
  const std::string source(reinterpret_cast<const char*>(data), size);
  try {
    modelkit::tokenizer::ChatTemplate chat(source, "<s>", "</s>", "fuzz.jinja");
    chat.Render(messages, true);
  } catch (const modelkit::Error&) {
  }
  return 0;
}

// Wrapping a prompt in a bundle's chat template, as `generate` and `perf` both do: one user message with the
// generation prompt appended. The template is parsed once; each Render is a fresh rendering.
#pragma once

#include <optional>
#include <string>

#include "modelkit/generate/model.h"
#include "modelkit/tokenizer/chat_template.h"

namespace modelkit::session {

enum class TemplateMode {
  kAuto,   // apply the bundle's template when it has one, else use the text as it is
  kApply,  // apply it; a bundle without one is a usage error
  kNever,  // use the text as it is
};

class PromptTemplate {
 public:
  // Throws UsageError for kApply on a bundle without a chat template, Error(kInvalidModel) for a template that
  // does not parse. `model` must have a tokenizer.
  PromptTemplate(const generate::Model& model, TemplateMode mode);

  bool applies() const { return chat_.has_value(); }
  // The text to tokenize for `prompt`.
  std::string Render(const std::string& prompt) const;
  // The text to tokenize for a conversation ([{"role", "content"}...]) with the generation prompt appended. Requires
  // applies(); errors as tokenizer::ChatTemplate::Render.
  std::string RenderMessages(const nlohmann::ordered_json& messages) const;

 private:
  std::optional<tokenizer::ChatTemplate> chat_;
};

}  // namespace modelkit::session

#include "modelkit/session/prompt_template.h"

#include "modelkit/base/error.h"

namespace modelkit::session {

PromptTemplate::PromptTemplate(const generate::Model& model, TemplateMode mode) {
  if (mode == TemplateMode::kNever) return;
  const std::filesystem::path& dir = model.config().tokenizer_dir;
  const bool has_template = std::filesystem::exists(dir / "chat_template.jinja") ||
                            (model.tokenizer() != nullptr && model.tokenizer()->config().chat_template.has_value());
  if (!has_template) {
    if (mode == TemplateMode::kApply) {
      throw UsageError("--apply-template: the bundle's tokenizer has no chat template; use --no-apply-template");
    }
    return;
  }
  chat_.emplace(tokenizer::ChatTemplate::Load(dir));
}

std::string PromptTemplate::Render(const std::string& prompt) const {
  if (!chat_) return prompt;
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  messages.push_back({{"role", "user"}, {"content", prompt}});
  return chat_->Render(messages, /*add_generation_prompt=*/true);
}

std::string PromptTemplate::RenderMessages(const nlohmann::ordered_json& messages) const {
  return chat_->Render(messages, /*add_generation_prompt=*/true);
}

}  // namespace modelkit::session

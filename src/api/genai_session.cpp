#include "modelkit/api/genai_session.h"

#include "machine_impl.h"
#include "modelkit/base/error.h"
#include "modelkit/device/device_request.h"
#include "modelkit/device/plugin_flags.h"
#include "modelkit/generate/generator.h"
#include "modelkit/session/genai_session.h"
#include "modelkit/session/prompt_template.h"

namespace modelkit {

namespace fs = std::filesystem;

struct GenaiSession::Impl {
  Impl(session::GenaiSessionOptions options, Machine& machine) : session(std::move(options), machine.impl().access) {}
  session::GenaiSession session;
};

namespace {

// How the session compiles stages: in a child process of the modelkit executable installed with the library
// (bin/modelkit beside lib/modelkit/), given the same plugin libraries.
compile::CompilerCommand CompilerOf(const MachineOptions& machine) {
  compile::CompilerCommand compiler;
  if (const std::optional<fs::path> directory = LibraryDirectory()) {
    compiler.program = directory->parent_path().parent_path() / "bin" / "modelkit";
  }
  compiler.extra_args = device::PluginLibraryFlags(machine.ep_libraries, machine.ep_catalog.string());
  return compiler;
}

generate::GenerateOptions OptionsOf(const GenerationRequest& request) {
  generate::GenerateOptions options;
  options.max_new_tokens = request.max_new_tokens;
  options.do_sample = request.do_sample;
  options.temperature = request.temperature;
  options.top_k = request.top_k;
  options.top_p = request.top_p;
  options.seed = request.seed;
  return options;
}

}  // namespace

GenaiSession::GenaiSession(const GenaiSessionOptions& options, Machine& machine) {
  session::GenaiSessionOptions session_options;
  session_options.bundle_dir = options.bundle;
  session_options.ep = options.ep;
  session_options.device = device::DeviceRequest::Parse(options.device);
  session_options.compile = options.compile;
  session_options.compiler = CompilerOf(machine.impl().options);
  session_options.tokenizer_optional = true;  // a bundle without a tokenizer runs on prompt_ids
  impl_ = std::make_unique<Impl>(std::move(session_options), machine);
}

GenaiSession::~GenaiSession() = default;
GenaiSession::GenaiSession(GenaiSession&&) noexcept = default;
GenaiSession& GenaiSession::operator=(GenaiSession&&) noexcept = default;

void GenaiSession::Load() { impl_->session.Load(); }

Generation GenaiSession::Generate(const GenerationRequest& request,
                                  const std::function<bool(std::string_view text)>& on_text) {
  Load();
  const generate::Model& model = impl_->session.model();
  std::vector<int32_t> prompt = request.prompt_ids;
  if (prompt.empty()) {
    if (model.tokenizer() == nullptr) {
      throw UsageError("the bundle " + impl_->session.options().bundle_dir.string() +
                       " has no tokenizer: give the prompt as prompt_ids");
    }
    const session::TemplateMode mode =
        request.apply_chat_template ? session::TemplateMode::kAuto : session::TemplateMode::kNever;
    prompt = model.tokenizer()->Encode(session::PromptTemplate(model, mode).Render(request.prompt));
  }

  bool cancelled = false;
  std::function<void(std::string_view)> text_sink;
  if (on_text) {
    text_sink = [&](std::string_view piece) {
      if (!cancelled && !on_text(piece)) cancelled = true;
    };
  }
  generate::GenerationResult result =
      generate::Generate(model, prompt, OptionsOf(request), text_sink, [&] { return cancelled; });

  Generation generation;
  generation.prompt_ids = std::move(result.prompt_ids);
  generation.generated_ids = std::move(result.generated_ids);
  generation.text = std::move(result.text);
  generation.stop_reason =
      result.stop_reason == generate::StopReason::kNone ? "cancelled" : generate::StopReasonName(result.stop_reason);
  generation.time_to_first_token_ns = result.timings.first_token_ns;
  generation.decode_step_ns = std::move(result.timings.decode_step_ns);
  return generation;
}

std::string GenaiSession::effective_ep() const { return impl_->session.effective_ep().ReportName(); }
std::string GenaiSession::effective_device() const { return impl_->session.effective_device(); }
std::vector<std::string> GenaiSession::warnings() const { return impl_->session.warnings(); }

}  // namespace modelkit

// A program on modelkit's public API: lists the machine's EPs, benchmarks an ONNX model, tokenizes, and generates from
// a bundle with an EP override, streaming the text. It prints what it got as key=value lines for the test to compare.
// Usage: consumer MODEL.onnx BUNDLE_DIR EP_CATALOG EP PROMPT_IDS(comma-separated) MAX_NEW_TOKENS
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "modelkit/modelkit.h"

namespace {

std::string Joined(const std::vector<int32_t>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(ids[i]);
  }
  return text;
}

std::vector<int32_t> Ids(const std::string& text) {
  std::vector<int32_t> ids;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) ids.push_back(std::stoi(item));
  return ids;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::cerr << "usage: consumer MODEL.onnx BUNDLE_DIR EP_CATALOG EP PROMPT_IDS MAX_NEW_TOKENS\n";
    return 2;
  }
  try {
    std::cout << "version=" << modelkit::kVersion << "\n";
    modelkit::MachineOptions machine_options;
    machine_options.ep_catalog = argv[3];
    modelkit::Machine machine(machine_options);
    std::cout << "ort=" << modelkit::Machine::OrtVersion() << "\n";
    for (const modelkit::ExecutionProviderInfo& ep : machine.ExecutionProviders()) {
      std::cout << "ep=" << ep.alias << " usable=" << ep.usable << "\n";
    }
    std::cout << "cpu_ep=" << machine.ResolveEp("cpu") << "\n";

    modelkit::OnnxBenchmarkOptions options;
    options.model = argv[1];
    options.ep = "cpu";
    options.iterations = 5;
    options.warmup = 1;
    const modelkit::OnnxBenchmarkResult benchmark = modelkit::RunOnnxBenchmark(options, machine);
    std::cout << "onnx_ep=" << benchmark.ep << " samples=" << benchmark.samples_ns.size()
              << " report_has_latency=" << (benchmark.report_json.find("\"latency_ms\"") != std::string::npos) << "\n";

    modelkit::GenaiSessionOptions session_options;
    session_options.bundle = argv[2];
    session_options.ep = argv[4];
    modelkit::GenaiSession session(session_options, machine);
    session.Load();
    std::cout << "effective_ep=" << session.effective_ep() << "\n";
    modelkit::GenerationRequest request;
    request.prompt_ids = Ids(argv[5]);
    request.max_new_tokens = std::atoi(argv[6]);
    request.do_sample = false;
    std::string streamed;
    const modelkit::Generation generation = session.Generate(request, [&](std::string_view text) {
      streamed += text;
      return true;
    });
    std::cout << "generated_ids=" << Joined(generation.generated_ids) << "\n";
    std::cout << "stop_reason=" << generation.stop_reason << "\n";
    std::cout << "streamed_equals_text=" << (streamed == generation.text) << "\n";

    const modelkit::tokenizer::Tokenizer tokenizer = modelkit::tokenizer::Tokenizer::Load(argv[2]);
    modelkit::tokenizer::DecodeOptions decode;
    decode.skip_special_tokens = true;
    std::cout << "decoded_equals_text=" << (tokenizer.Decode(generation.generated_ids, decode) == generation.text)
              << "\n";

    // A stream the caller stops: one piece, then cancelled.
    int pieces = 0;
    const modelkit::Generation stopped = session.Generate(request, [&](std::string_view) { return ++pieces < 1; });
    std::cout << "cancelled_stop_reason=" << stopped.stop_reason << "\n";

    // Errors are modelkit::Error with the command line's exit code.
    try {
      modelkit::GenaiSessionOptions missing_options;
      missing_options.bundle = "/nonexistent/bundle";
      modelkit::GenaiSession missing(missing_options, machine);
      missing.Load();
      std::cout << "missing_bundle=no error\n";
    } catch (const modelkit::Error& error) {
      std::cout << "missing_bundle_exit=" << static_cast<int>(error.code()) << "\n";
    }
  } catch (const modelkit::Error& error) {
    std::cerr << "error: " << error.what() << "\n";
    return static_cast<int>(error.code());
  }
  return 0;
}

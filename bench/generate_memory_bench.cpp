// Memory and bandwidth figures of the generation runtime on the 0.6B-shaped int4 bundle (generate_bench_bundle.h):
//
//   1. Peak RSS while generating against what the model itself needs; the target is
//      peak(modelkit generating) <= 1.15 x (bare + KV), where `bare` is the peak of plain ORT creating the bundle's
//      session and running one prefill (weights + arena) and KV = layers x 2 x kv_heads x head_size x max_length x
//      element size (the shared buffer modelkit allocates for the whole max length).
//   2. Decode against its memory-bandwidth bound: bytes read per token / measured read bandwidth gives the fastest
//      possible decode; the measured decode tokens/s is printed as a fraction of it.
//
// Each peak is measured in a fresh child process (this program run with --child), so VmHWM belongs to that measurement
// alone. Children reset VmHWM after the sessions exist (/proc/self/clear_refs "5"), so each reports the peak while
// loading and the peak while running separately. The KV buffer is resident only where written, so the peak is also
// compared with bare + the KV of the positions actually used. Prints figures and ratios; asserts nothing.
//
// Usage: modelkit_generate_memory_bench [new_tokens=64] [prompt_tokens=32] [threads=2] [context_length=P+N+1]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bandwidth.h"
#include "generate_bench_bundle.h"
#include "modelkit/generate/config.h"
#include "modelkit/generate/generator.h"
#include "modelkit/generate/model.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/perf/process_memory.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr double kMiB = 1024.0 * 1024.0;

// Resets VmHWM to the current RSS, so the next peak read covers only what runs after this call.
bool ResetPeakRss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
  clear_refs.flush();
  return static_cast<bool>(clear_refs);
}

// A "Key:   1234 kB" line of /proc/self/status in MiB (0 when absent).
double StatusMb(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::atof(line.c_str() + key.size() + 1) / 1024.0;
  }
  return 0;
}

// The peak so far, and the resident set now split into anonymous memory (heap: prepacked weights, arena, KV) and
// file pages (mapped model data, libraries).
void PrintMemory(const char* phase) {
  std::printf("%s_peak_mb=%.1f\n%s_rss_mb=%.1f\n%s_anon_mb=%.1f\n%s_file_mb=%.1f\n", phase,
              modelkit::perf::PeakRssMb().value_or(0), phase, modelkit::perf::CurrentRssMb().value_or(0), phase,
              StatusMb("RssAnon"), phase, StatusMb("RssFile"));
}

std::vector<int32_t> Prompt(int length, int64_t vocab) {
  std::vector<int32_t> prompt;
  for (int i = 0; i < length; ++i) prompt.push_back(static_cast<int32_t>((i * 131 + 7) % vocab));
  return prompt;
}

// Child "bare": the bundle's decoder with plain ORT (the thread count as in the bundle, every other option at ORT's
// default), then one prefill of the prompt with an empty past, so no KV buffer beyond the prompt's presents exists.
int RunBare(const fs::path& bundle, int prompt_tokens, int threads) {
  const modelkit::generate::GenaiConfig config = modelkit::generate::LoadGenaiConfig(bundle);
  modelkit::ort::EnsureApi();
  Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "bare");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(threads);
  Ort::Session session(env, (bundle / config.decoder.filename).c_str(), options);
  PrintMemory("load");
  const bool reset = ResetPeakRss();

  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<int64_t> ids;
  for (const int32_t id : Prompt(prompt_tokens, config.vocab_size)) ids.push_back(id);
  std::vector<int64_t> mask(ids.size(), 1);
  const int64_t token_shape[] = {1, static_cast<int64_t>(ids.size())};
  const int64_t past_shape[] = {1, config.decoder.num_key_value_heads, 0, config.decoder.head_size};
  float no_past = 0;
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> input_names, output_names;
  std::vector<Ort::Value> inputs;
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    const std::string name = session.GetInputNameAllocated(i, allocator).get();
    input_names.push_back(name);
    if (name == config.decoder.names.input_ids) {
      inputs.push_back(Ort::Value::CreateTensor<int64_t>(memory, ids.data(), ids.size(), token_shape, 2));
    } else if (name == config.decoder.names.attention_mask) {
      inputs.push_back(Ort::Value::CreateTensor<int64_t>(memory, mask.data(), mask.size(), token_shape, 2));
    } else {  // past_key_values.*: the builder's models take no other inputs
      inputs.push_back(Ort::Value::CreateTensor<float>(memory, &no_past, 0, past_shape, 4));
    }
  }
  for (size_t i = 0; i < session.GetOutputCount(); ++i) {
    output_names.push_back(session.GetOutputNameAllocated(i, allocator).get());
  }
  std::vector<const char*> in_ptrs, out_ptrs;
  for (const auto& name : input_names) in_ptrs.push_back(name.c_str());
  for (const auto& name : output_names) out_ptrs.push_back(name.c_str());
  const std::vector<Ort::Value> outputs = session.Run(Ort::RunOptions{nullptr}, in_ptrs.data(), inputs.data(),
                                                      inputs.size(), out_ptrs.data(), out_ptrs.size());
  PrintMemory("run");
  std::printf("peak_reset=%d\n", reset ? 1 : 0);
  return 0;
}

// Child "generate": Model::Load and Generate as the runtime runs them; the first generation's peak is the figure,
// the second (warm) one gives the decode speed.
int RunGenerate(const fs::path& bundle, int prompt_tokens, int new_tokens) {
  modelkit::generate::LoadOptions load;
  load.load_tokenizer = false;
  const auto model = modelkit::generate::Model::Load(bundle, load);
  PrintMemory("load");
  const bool reset = ResetPeakRss();
  const std::vector<int32_t> prompt = Prompt(prompt_tokens, model->config().vocab_size);
  modelkit::generate::GenerateOptions options;
  options.max_new_tokens = new_tokens;
  options.ignore_eos = true;
  modelkit::generate::Generate(*model, prompt, options);
  PrintMemory("run");
  std::printf("peak_reset=%d\n", reset ? 1 : 0);
  const auto result = modelkit::generate::Generate(*model, prompt, options);
  const auto& steps = result.timings.decode_step_ns;
  const double decode_ns = static_cast<double>(std::accumulate(steps.begin(), steps.end(), int64_t{0}));
  std::printf("decode_steps=%zu\ndecode_tokens_per_s=%.3f\nprefill_ms=%.3f\n", steps.size(),
              static_cast<double>(steps.size()) * 1e9 / decode_ns, result.timings.prefill_ns / 1e6);
  PrintMemory("second_run");
  return 0;
}

// Runs this program with `args` and parses its key=value lines.
std::map<std::string, double> RunChild(const std::string& args) {
  const std::string command = fs::read_symlink("/proc/self/exe").string() + " --child " + args;
  FILE* pipe = popen(command.c_str(), "r");
  std::map<std::string, double> values;
  if (pipe == nullptr) return values;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    const char* equals = std::strchr(line, '=');
    if (equals != nullptr) values[std::string(static_cast<const char*>(line), equals)] = std::atof(equals + 1);
  }
  const int status = pclose(pipe);
  if (status != 0) std::fprintf(stderr, "child '%s' failed (status %d)\n", args.c_str(), status);
  return values;
}

// Best of `passes` memcpy bandwidth in bytes/s, counting the bytes read and the bytes written.
double CopyBandwidth(size_t bytes, int passes) {
  std::vector<char> from(bytes / 2, 1), to(bytes / 2, 0);
  double best = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const Clock::time_point start = Clock::now();
    std::memcpy(to.data(), from.data(), from.size());
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::max(best, 2.0 * static_cast<double>(from.size()) / seconds);
  }
  volatile char sink = to[bytes / 4];
  (void)sink;
  return best;
}

uint64_t WeightFileBytes(const fs::path& bundle) {
  uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(bundle)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".onnx") || name.ends_with(".onnx.data")) total += entry.file_size();
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--child") {
    const std::string mode = argc > 2 ? argv[2] : "";
    if (mode == "bare" && argc == 6) return RunBare(argv[3], std::atoi(argv[4]), std::atoi(argv[5]));
    if (mode == "generate" && argc == 6) return RunGenerate(argv[3], std::atoi(argv[4]), std::atoi(argv[5]));
    std::fprintf(stderr, "usage: --child bare BUNDLE PROMPT THREADS | --child generate BUNDLE PROMPT NEW\n");
    return 2;
  }
  const int new_tokens = argc > 1 ? std::atoi(argv[1]) : 64;
  const int prompt_tokens = argc > 2 ? std::atoi(argv[2]) : 32;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int64_t context = argc > 4 ? std::atoll(argv[4]) : prompt_tokens + new_tokens + 1;
  const fs::path dir = fs::temp_directory_path() / ("modelkit-generate-memory-bench-" + std::to_string(getpid()));
  const modelkit::builder::BuildOptions build = modelkit::bench::GenerateBenchBundle("0.6b", dir / "bundle", context);
  modelkit::bench::BuildGenerateBenchBundle(build, threads);
  const fs::path bundle = build.output_dir;
  const modelkit::builder::ModelSpec& spec = build.random_spec;

  // Both bandwidths before the children run, with nothing else of ours resident.
  constexpr size_t kBufferBytes = size_t{1} << 30;
  const double read_bandwidth = modelkit::bench::ReadBandwidth(kBufferBytes, threads, 10);
  const double copy_bandwidth = CopyBandwidth(kBufferBytes, 10);

  const std::string common = bundle.string() + " " + std::to_string(prompt_tokens) + " ";
  auto bare = RunChild("bare " + common + std::to_string(threads));
  auto gen = RunChild("generate " + common + std::to_string(new_tokens));
  const double weight_files = static_cast<double>(WeightFileBytes(bundle));
  fs::remove_all(dir);
  if (bare.empty() || gen.empty()) return 1;

  // fp32 KV: the int4 bundle keeps fp32 activations. modelkit's shared buffer spans the whole max length, which is
  // the context length here (the builder writes search.max_length = context_length).
  constexpr double kKvElement = 4;
  const double kv_per_position =
      static_cast<double>(spec.num_layers * 2 * spec.num_kv_heads * spec.head_dim) * kKvElement;
  const double kv_mb = kv_per_position * static_cast<double>(context) / kMiB;

  std::printf(
      "bundle: Qwen3-0.6B-shaped int4 (accuracy_level 4), context %lld, %d prompt + %d new tokens, %d threads\n",
      static_cast<long long>(context), prompt_tokens, new_tokens, threads);
  std::printf("\n[peak RSS, VmHWM of each child process]\n");
  const auto print_child = [](const char* name, std::map<std::string, double>& values) {
    std::printf(
        "%s: load peak %.1f MiB (after load: RSS %.1f = anon %.1f + file %.1f), run peak %.1f MiB (after: "
        "RSS %.1f = anon %.1f + file %.1f)\n",
        name, values["load_peak_mb"], values["load_rss_mb"], values["load_anon_mb"], values["load_file_mb"],
        values["run_peak_mb"], values["run_rss_mb"], values["run_anon_mb"], values["run_file_mb"]);
  };
  print_child("bare ORT session + prefill", bare);
  print_child("modelkit Load + Generate  ", gen);
  std::printf("KV cache (%lld layers x 2 x %lld kv heads x %lld x %lld positions x 4 B): %.1f MiB\n",
              static_cast<long long>(spec.num_layers), static_cast<long long>(spec.num_kv_heads),
              static_cast<long long>(spec.head_dim), static_cast<long long>(context), kv_mb);
  if (bare["peak_reset"] == 0 || gen["peak_reset"] == 0) {
    std::printf("(VmHWM could not be reset: run peaks include loading)\n");
  }
  const double bare_peak = std::max(bare["load_peak_mb"], bare["run_peak_mb"]);
  const double gen_peak = std::max(gen["load_peak_mb"], gen["run_peak_mb"]);
  const double whole = gen_peak / (bare_peak + kv_mb);
  const double running = gen["run_peak_mb"] / (bare["run_peak_mb"] + kv_mb);
  std::printf("whole process: peak %.1f / (bare %.1f + KV %.1f) = %.3f -> %s (target <= 1.15)\n", gen_peak, bare_peak,
              kv_mb, whole, whole <= 1.15 ? "meets" : "MISSES");
  std::printf("while running (after load): peak %.1f / (bare %.1f + KV %.1f) = %.3f -> %s (target <= 1.15)\n",
              gen["run_peak_mb"], bare["run_peak_mb"], kv_mb, running, running <= 1.15 ? "meets" : "MISSES");
  // The KV buffer is resident only where written (ZeroedBuffer), so the stricter comparison counts the positions used.
  const double kv_used_mb = kv_per_position * (prompt_tokens + new_tokens) / kMiB;
  const double used = gen["run_peak_mb"] / (bare["run_peak_mb"] + kv_used_mb);
  std::printf("against the KV of the %d positions used: peak %.1f / (bare %.1f + KV %.1f) = %.3f -> %s\n",
              prompt_tokens + new_tokens, gen["run_peak_mb"], bare["run_peak_mb"], kv_used_mb, used,
              used <= 1.15 ? "meets" : "MISSES");

  // Bytes one decode step reads: every weight except the fp32 embedding table, of which one row is gathered, plus the
  // KV of the positions so far (mean over the decode steps).
  const double embeddings = static_cast<double>(spec.vocab_size * spec.hidden_size) * 4;
  const double row = static_cast<double>(spec.hidden_size) * 4;
  const double mean_positions = prompt_tokens + (new_tokens + 1) / 2.0;
  const double per_token = weight_files - embeddings + row + kv_per_position * mean_positions;
  const double measured = gen["decode_tokens_per_s"];
  const double bound = read_bandwidth / per_token;
  const double bound_all_files = read_bandwidth / weight_files;
  std::printf("\n[decode against the memory-bandwidth bound]\n");
  std::printf("read bandwidth (%d threads, 1 GiB, best of 10): %.2f GB/s; memcpy (read + write): %.2f GB/s\n", threads,
              read_bandwidth / 1e9, copy_bandwidth / 1e9);
  std::printf("weight files %.1f MiB, of which fp32 embedding table %.1f MiB (one row read per token)\n",
              weight_files / kMiB, embeddings / kMiB);
  std::printf("bytes read per token: %.1f MiB (weights without the embedding table %.1f + mean KV %.1f)\n",
              per_token / kMiB, (weight_files - embeddings + row) / kMiB, kv_per_position * mean_positions / kMiB);
  std::printf("bound: %.1f tokens/s; measured decode %.1f tokens/s (%zu steps) = %.1f%% of the bound\n", bound,
              measured, static_cast<size_t>(gen["decode_steps"]), 100.0 * measured / bound);
  std::printf("(counting every weight file byte: bound %.1f tokens/s, measured = %.1f%% of it)\n", bound_all_files,
              100.0 * measured / bound_all_files);
  // ORT prepacks MatMulNBits weights into its own layout (with per-block extras), so the kernels may read more than
  // the packed file bytes; the anonymous memory after loading (prepacked weights + runtime heap) bounds that from
  // above.
  const double resident = gen["load_anon_mb"] * kMiB + kv_per_position * mean_positions;
  std::printf(
      "(counting the anonymous RSS after load, %.1f MiB, as read per token: bound %.1f tokens/s, measured = "
      "%.1f%% of it)\n",
      gen["load_anon_mb"], read_bandwidth / resident, 100.0 * measured * resident / read_bandwidth);
  return 0;
}

// Builds a random Qwen3-0.6B-sized bundle (hidden 1024, 28 layers, 16/8 heads, head dim 128, intermediate 3072,
// vocab 151936) with the real `modelkit build` binary and prints its wall time and peak RSS (from wait4), the
// bundle size, and whether ORT can create a session on it (--load). Run by hand on an optimised build:
//   modelkit_build_bench [--precision int4|fp32] [--load] [--keep DIR]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "modelkit/ort/runtime.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::string precision = "int4";
  bool load = false;
  fs::path out = fs::temp_directory_path() / ("modelkit_build_bench_" + std::to_string(::getpid()));
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--precision" && i + 1 < argc) {
      precision = argv[++i];
    } else if (arg == "--load") {
      load = true;
    } else if (arg == "--keep" && i + 1 < argc) {
      out = argv[++i];
      keep = true;
    } else {
      std::fprintf(stderr, "usage: %s [--precision int4|fp32] [--load] [--keep DIR]\n", argv[0]);
      return 2;
    }
  }
  std::vector<std::string> args = {MODELKIT_BINARY,
                                   "build",
                                   "-o",
                                   out.string(),
                                   "--overwrite",
                                   "--random",
                                   "--arch",
                                   "qwen3",
                                   "--hidden-size",
                                   "1024",
                                   "--layers",
                                   "28",
                                   "--heads",
                                   "16",
                                   "--kv-heads",
                                   "8",
                                   "--head-dim",
                                   "128",
                                   "--intermediate-size",
                                   "3072",
                                   "--vocab-size",
                                   "151936",
                                   "--precision",
                                   precision,
                                   "--seed",
                                   "0"};
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(c_args[0], c_args.data());
    std::perror("execv");
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "modelkit build failed (status %d)\n", status);
    return 1;
  }
  uint64_t bytes = 0;
  for (const auto& entry : fs::directory_iterator(out)) bytes += entry.is_regular_file() ? entry.file_size() : 0;
  std::printf("qwen3-0.6B-sized %s build: %.1f s wall, %.1f s user, %.1f s sys, peak RSS %.0f MiB, bundle %.0f MiB\n",
              precision.c_str(), seconds, usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6,
              usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6, usage.ru_maxrss / 1024.0, bytes / 1048576.0);
  if (load) {
    const auto load_start = std::chrono::steady_clock::now();
    Ort::Env& env = modelkit::ort::SharedEnv();  // initialises the C++ API before any other Ort object
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(1);
    Ort::Session session(env, (out / "model.onnx").c_str(), options);
    std::printf("ORT CPU session created in %.1f s (%zu inputs, %zu outputs)\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count(),
                session.GetInputCount(), session.GetOutputCount());
  }
  if (!keep) fs::remove_all(out);
  return 0;
}

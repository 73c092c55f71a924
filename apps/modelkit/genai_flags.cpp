#include "genai_flags.h"

#include "flag_checks.h"
#include "terminal_status.h"

#include <cmath>
#include <iostream>

namespace modelkit::app {

void GenaiCompileFlags::Bind(CLI::App& command) {
  command.add_flag("--compile,!--no-compile", compile,
                   "Compile NPU stages into EPContext models, cached in <bundle>/_compiled/ (genai bundles)");
  command.add_option("--compile-timeout", compile_timeout_s, "Seconds each stage's compile may take")
      ->check(FiniteNumber(0, kMaxCompileTimeoutSeconds, /*min_exclusive=*/true))
      ->capture_default_str();
}

session::GenaiSessionOptions MakeGenaiSessionOptions(const std::string& bundle, const std::string& ep,
                                                     device::DeviceRequest device, const GenaiCompileFlags& compile,
                                                     const EpLibraryFlags& ep_flags) {
  session::GenaiSessionOptions options;
  options.bundle_dir = bundle;
  options.ep = ep;
  options.device = device;
  options.compile = compile.compile;
  std::error_code ec;
  options.compiler.program = std::filesystem::read_symlink("/proc/self/exe", ec);
  options.compiler.extra_args = ep_flags.ForwardedArgs();
  options.compiler.timeout =
      std::chrono::milliseconds(static_cast<int64_t>(std::llround(compile.compile_timeout_s * 1000.0)));
  options.on_warning = [](const std::string& warning) {
    ClearStatusLine();
    std::cerr << "warning: " << warning << "\n" << std::flush;
  };
  return options;
}

}  // namespace modelkit::app

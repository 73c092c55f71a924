// The bad-input catalogue: every case in bad_input_catalogue.json runs the real modelkit binary on a broken or
// hostile input and must end with the documented exit code, exactly one stderr line starting `error: ` that matches
// the case's pattern, nothing on stdout, no file created, changed or removed anywhere in the case's scratch folder
// (its inputs included) or among the shared broken inputs, and within a time limit (a hang is a failure).
//
// A case is {"id", "args", "exit", "error"} plus optional "bundle" (a copy of a tiny built bundle to break:
// {"layout": "flat" | "pipeline" | "windowed", "patch": RFC 6902 operations on genai_config.json, "files": {name: text,
// or null to remove it}}), "files" (written into the scratch folder first), "env" and "memory_bound" (the case relies
// on the memory limit of an isolated child, which sanitizer builds do not set: skipped there) and "error_under_asan"
// (the pattern under ASan, which handles a stack overflow itself: the child ends without a signal to name). In "args",
// {bad} is the folder of broken inputs (tests/fixtures/bad_inputs/make_bad_inputs.py), {models} the test models,
// {bundle} the case's bundle, {scratch} its scratch folder (also the working directory and HOME) and {out} a path in it
// that does not exist. No error line may show ONNX Runtime's or the C++ library's internals (source paths, namespaces).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "modelkit/base/files.h"
#include "support/cli.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const fs::path kCatalogue = MODELKIT_BAD_INPUT_CATALOGUE;
const fs::path kBadInputs = MODELKIT_BAD_INPUTS_DIR;
const fs::path kModels = MODELKIT_TEST_MODELS_DIR;
constexpr auto kCaseTimeout = std::chrono::seconds(60);

struct CatalogueCase {
  std::string id;
  Json spec;
};

std::vector<CatalogueCase> LoadCatalogue() {
  std::ifstream in(kCatalogue);
  const Json catalogue = Json::parse(in);
  std::vector<CatalogueCase> cases;
  for (const Json& spec : catalogue.at("cases")) cases.push_back({spec.at("id").get<std::string>(), spec});
  return cases;
}

// What a folder holds: every entry's path with its type, size, modification time and inode, so that a created,
// removed, rewritten or replaced file shows as a difference. Symbolic links are listed, not followed. ONNX
// Runtime's own per-user state (~/.cache/Microsoft: a device id it keeps for itself) is not modelkit's output and
// is left out.
std::map<std::string, std::string> Snapshot(const fs::path& root) {
  std::map<std::string, std::string> entries;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path() == root / ".cache" / "Microsoft") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path() == root / ".cache") continue;  // the folder itself; what is written in it is listed
    struct stat info {};
    lstat(it->path().c_str(), &info);
    entries[fs::relative(it->path(), root).string()] =
        std::to_string(info.st_mode) + ":" + std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) +
        "." + std::to_string(info.st_mtim.tv_nsec) + ":" + std::to_string(info.st_ino);
  }
  return entries;
}

std::string Differences(const std::map<std::string, std::string>& before,
                        const std::map<std::string, std::string>& after) {
  std::string text;
  for (const auto& [path, state] : after) {
    const auto found = before.find(path);
    if (found == before.end())
      text += " created " + path + ";";
    else if (found->second != state)
      text += " changed " + path + ";";
  }
  for (const auto& [path, state] : before) {
    if (!after.count(path)) text += " removed " + path + ";";
  }
  return text;
}

// A copy of the built bundle of `layout` at `target`: files are hard links (cheap, and any write to them shows in
// the snapshot), genai_config.json is a real copy with the case's patch applied.
void PrepareBundle(const Json& spec, const fs::path& target) {
  const std::string layout = spec.value("layout", "flat");
  const fs::path master = kBadInputs / ("bundle_" + layout);
  fs::create_directories(target);
  for (const fs::directory_entry& entry : fs::directory_iterator(master)) {
    if (entry.path().filename() != "genai_config.json")
      fs::create_hard_link(entry.path(), target / entry.path().filename());
  }
  // Ordered: the order of a pipeline's stages is their run order.
  nlohmann::ordered_json config =
      nlohmann::ordered_json::parse(ReadTextFile(master / "genai_config.json", "genai_config.json"));
  if (spec.contains("patch")) config = config.patch(nlohmann::ordered_json::parse(spec.at("patch").dump()));
  std::ofstream(target / "genai_config.json") << config.dump(2);
  if (!spec.contains("files")) return;
  for (const auto& [name, content] : spec.at("files").items()) {
    fs::remove(target / name);
    if (!content.is_null()) std::ofstream(target / name) << content.get<std::string>();
  }
}

std::string Expand(std::string arg, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    for (size_t at = arg.find(key); at != std::string::npos; at = arg.find(key, at + value.size())) {
      arg.replace(at, key.size(), value);
    }
  }
  return arg;
}

class BadInputCatalogue : public ::testing::TestWithParam<CatalogueCase> {};

TEST_P(BadInputCatalogue, OneErrorLineTheDocumentedExitCodeAndNothingWritten) {
  const Json& spec = GetParam().spec;
#if defined(__SANITIZE_ADDRESS__)
  if (spec.value("memory_bound", false)) GTEST_SKIP() << "needs the child's memory limit, which ASan builds do not set";
#endif
  TempDir scratch;
  const fs::path bundle = scratch.path() / "bundle";
  if (spec.contains("bundle")) PrepareBundle(spec.at("bundle"), bundle);
  if (spec.contains("files")) {
    for (const auto& [name, content] : spec.at("files").items()) scratch.Write(name, content.get<std::string>());
  }
  const std::map<std::string, std::string> values = {{"{bad}", kBadInputs.string()},
                                                     {"{models}", kModels.string()},
                                                     {"{bundle}", bundle.string()},
                                                     {"{scratch}", scratch.path().string()},
                                                     {"{out}", (scratch.path() / "out" / "result").string()}};
  // Run in the scratch folder, so that anything written to the working directory is seen too.
  std::vector<std::string> argv = {"/usr/bin/env", "-C", scratch.path().string(), MODELKIT_BINARY};
  for (const Json& arg : spec.at("args")) argv.push_back(Expand(arg.get<std::string>(), values));
  // HOME too: a default report path (~/.cache/modelkit/...) lands in the scratch folder, where it is seen.
  std::map<std::string, std::string> env = {
      {"MODELKIT_EP_LIBRARIES", ""}, {"MODELKIT_EP_CATALOG", "none"}, {"HOME", scratch.path().string()}};
  if (spec.contains("env")) {
    for (const auto& [key, value] : spec.at("env").items()) env[key] = value.get<std::string>();
  }

  const auto scratch_before = Snapshot(scratch.path());
  const auto shared_before = Snapshot(kBadInputs);
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult result = ChildProcess(argv, env).Finish(kCaseTimeout);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  ASSERT_FALSE(result.timed_out) << "hung: killed after " << kCaseTimeout.count() << " s";
  EXPECT_EQ(result.signal, 0) << "crashed with signal " << result.signal << ": " << result.stderr_text;
  EXPECT_EQ(result.exit_code, spec.at("exit").get<int>()) << result.stderr_text;
  EXPECT_EQ(result.stdout_text, "");
  EXPECT_EQ(result.stderr_text.rfind("error: ", 0), 0u) << result.stderr_text;
  EXPECT_EQ(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n'), 1) << result.stderr_text;
#if defined(__SANITIZE_ADDRESS__)
  const std::string pattern = spec.value("error_under_asan", spec.at("error").get<std::string>());
#else
  const std::string pattern = spec.at("error").get<std::string>();
#endif
  EXPECT_TRUE(std::regex_search(result.stderr_text, std::regex(pattern)))
      << "the error line does not match /" << pattern << "/: " << result.stderr_text;
  EXPECT_FALSE(std::regex_search(result.stderr_text, std::regex("onnxruntime_src|onnxruntime::|SafeInt|std::|_M_")))
      << "ONNX Runtime's or the library's internals leak into the message: " << result.stderr_text;
  EXPECT_EQ(Differences(scratch_before, Snapshot(scratch.path())), "") << "files changed in the scratch folder";
  EXPECT_EQ(Differences(shared_before, Snapshot(kBadInputs)), "") << "files changed among the shared inputs";
  RecordProperty("seconds", std::to_string(seconds));
}

std::string CaseName(const ::testing::TestParamInfo<CatalogueCase>& info) {
  std::string name = info.param.id;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInputCatalogue, ::testing::ValuesIn(LoadCatalogue()), CaseName);

// The catalogue itself: enough cases, unique ids, every category of the contract present.
TEST(BadInputCatalogueTable, CoversTheContract) {
  const std::vector<CatalogueCase> cases = LoadCatalogue();
  EXPECT_GE(cases.size(), 150u);
  std::set<std::string> ids;
  std::map<std::string, int> categories;
  for (const CatalogueCase& c : cases) {
    EXPECT_TRUE(ids.insert(CaseName({c, 0})).second) << "duplicate id " << c.id;
    ++categories[c.id.substr(0, c.id.find('.'))];
  }
  for (const char* category : {"flags", "onnx", "npz", "bundle", "tokenizer", "template", "paths"}) {
    EXPECT_GT(categories[category], 0) << category;
  }
}

}  // namespace
}  // namespace modelkit::test

#include "modelkit/device/plugin_libraries.h"

#include <stdlib.h>

#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "support/temp_dir.h"

namespace modelkit::device {
namespace {

namespace fs = std::filesystem;

std::string UsageMessage(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    return error.what();
  }
  ADD_FAILURE() << "expected a usage error";
  return {};
}

// Sets an environment variable for the lifetime of the object, restoring the previous state after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class PluginLibraries : public ::testing::Test {
 protected:
  test::TempDir dir_;
  fs::path library_ = dir_.Write("lib/libsim_npu.so", "not really a library; parsing only checks it exists");
  ScopedEnv no_catalog_{"MODELKIT_EP_CATALOG", nullptr};
  ScopedEnv no_libraries_{"MODELKIT_EP_LIBRARIES", nullptr};
};

TEST_F(PluginLibraries, ParsesNameEqualsPath) {
  const PluginLibrary plugin = ParsePluginSpec(" SimNpu = " + library_.string(), "--ep-library");
  EXPECT_EQ(plugin.registration_name, "SimNpu");
  EXPECT_EQ(plugin.library, library_);
  EXPECT_FALSE(plugin.manifest_row.has_value());
  EXPECT_NE(plugin.origin.find("--ep-library"), std::string::npos);
}

TEST_F(PluginLibraries, RelativePathBecomesAbsolute) {
  const fs::path old_cwd = fs::current_path();
  fs::current_path(dir_.path());
  const PluginLibrary plugin = ParsePluginSpec("SimNpu=lib/libsim_npu.so", "--ep-library");
  fs::current_path(old_cwd);
  EXPECT_TRUE(plugin.library.is_absolute());
  EXPECT_EQ(plugin.library, library_);
}

TEST_F(PluginLibraries, RejectsMalformedSpecs) {
  for (const std::string spec : {"SimNpu", "=x.so", "SimNpu=", "  =  "}) {
    const std::string message = UsageMessage([&] { ParsePluginSpec(spec, "--ep-library"); });
    EXPECT_NE(message.find("expected NAME=PATH"), std::string::npos) << spec << ": " << message;
    EXPECT_NE(message.find("--ep-library"), std::string::npos) << message;
  }
  const std::string message = UsageMessage([&] { ParsePluginSpec("SimNpu=/no/such/lib.so", "--ep-library"); });
  EXPECT_NE(message.find("/no/such/lib.so"), std::string::npos) << message;
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
}

TEST_F(PluginLibraries, ManifestBesideTheLibraryGivesTheRow) {
  dir_.Write("lib/libsim_npu.manifest.json", R"({"ep_name": "SimNpuExecutionProvider", "aliases": ["SimNpu"],
      "devices": ["npu"], "ep_context": true, "device_type_option": true, "provider_option_keys": ["device_type"]})");
  const PluginLibrary plugin = ParsePluginSpec("SimNpu=" + library_.string(), "--ep-library");
  ASSERT_TRUE(plugin.manifest_row.has_value());
  const EpRow& row = *plugin.manifest_row;
  EXPECT_EQ(row.name, "SimNpuExecutionProvider");
  EXPECT_EQ(row.aliases, std::vector<std::string>{"SimNpu"});
  EXPECT_EQ(row.devices, std::vector<DeviceKind>{DeviceKind::kNpu});
  EXPECT_TRUE(row.ep_context);
  EXPECT_TRUE(row.device_type_option);
  EXPECT_EQ(row.provider_option_keys, std::vector<std::string>{"device_type"});
  EXPECT_EQ(row.plugin_library, library_);
  EXPECT_EQ(row.registration_name, "SimNpu");
}

TEST_F(PluginLibraries, ManifestErrorsNameFileAndPath) {
  const auto manifest = dir_.Write("lib/libsim_npu.manifest.json", R"({"devices": ["npu", "tpu"]})");
  const std::string message = UsageMessage([&] { ParsePluginSpec("SimNpu=" + library_.string(), "--ep-library"); });
  EXPECT_NE(message.find(manifest.string()), std::string::npos) << message;
  EXPECT_NE(message.find("$.devices[1]"), std::string::npos) << message;
  EXPECT_NE(message.find("'tpu'"), std::string::npos) << message;
}

TEST_F(PluginLibraries, ManifestNameDefaultsToRegistrationName) {
  const EpRow row = RowFromManifest(nlohmann::json::parse(R"({"devices": ["npu"]})"), "SimNpu2", "m");
  EXPECT_EQ(row.name, "SimNpu2");
  EXPECT_NE(UsageMessage([] {
              RowFromManifest(nlohmann::json::parse(R"({"ep_context": 1})"), "x", "m");
            }).find("$.ep_context"),
            std::string::npos);
}

TEST_F(PluginLibraries, VariableHoldsColonSeparatedSpecs) {
  const fs::path second = dir_.Write("lib/libother.so", "x");
  const auto plugins =
      ParsePluginListVariable("A=" + library_.string() + "::B=" + second.string() + ":", "MODELKIT_EP_LIBRARIES");
  ASSERT_EQ(plugins.size(), 2u);
  EXPECT_EQ(plugins[0].registration_name, "A");
  EXPECT_EQ(plugins[1].library, second);
  EXPECT_NE(UsageMessage([] { ParsePluginListVariable("A", "MODELKIT_EP_LIBRARIES"); }).find("MODELKIT_EP_LIBRARIES"),
            std::string::npos);
}

TEST_F(PluginLibraries, CatalogFileResolvesPathsAgainstItsFolderAndOverridesTheManifest) {
  dir_.Write("manifests/sim.json", R"({"ep_name": "SimNpuExecutionProvider", "aliases": ["simnpu"],
      "devices": ["npu"], "ep_context": true})");
  const auto catalog = dir_.Write("catalog.json", R"({"plugins": [
      {"name": "SimNpu", "library": "lib/libsim_npu.so", "manifest": "manifests/sim.json"},
      {"name": "SimNpu2", "library": "lib/libsim_npu.so", "manifest": "manifests/sim.json",
       "row": {"ep_name": "SimNpu2", "aliases": ["simnpu2"]}},
      {"name": "Bare", "library": "lib/libsim_npu.so"}]})");
  const auto plugins = LoadPluginCatalogFile(catalog);
  ASSERT_EQ(plugins.size(), 3u);
  EXPECT_EQ(plugins[0].library, library_);
  ASSERT_TRUE(plugins[0].manifest_row);
  EXPECT_EQ(plugins[0].manifest_row->name, "SimNpuExecutionProvider");
  ASSERT_TRUE(plugins[1].manifest_row);
  EXPECT_EQ(plugins[1].manifest_row->name, "SimNpu2");
  EXPECT_EQ(plugins[1].manifest_row->aliases, std::vector<std::string>{"simnpu2"});
  EXPECT_TRUE(plugins[1].manifest_row->ep_context) << "fields the row does not override come from the manifest";
  EXPECT_FALSE(plugins[2].manifest_row.has_value());
}

TEST_F(PluginLibraries, CatalogFileErrorsNameTheJsonPath) {
  const auto no_list = dir_.Write("a.json", R"({"plugin": []})");
  EXPECT_NE(UsageMessage([&] { LoadPluginCatalogFile(no_list); }).find("$.plugins"), std::string::npos);
  const auto no_name = dir_.Write("b.json", R"({"plugins": [{"library": "lib/libsim_npu.so"}]})");
  EXPECT_NE(UsageMessage([&] { LoadPluginCatalogFile(no_name); }).find("$.plugins[0].name: missing"),
            std::string::npos);
  const auto bad_lib = dir_.Write("c.json", R"({"plugins": [{"name": "X", "library": "lib/absent.so"}]})");
  EXPECT_NE(UsageMessage([&] { LoadPluginCatalogFile(bad_lib); }).find("lib/absent.so"), std::string::npos);
  const auto not_json = dir_.Write("d.json", "{");
  EXPECT_NE(UsageMessage([&] { LoadPluginCatalogFile(not_json); }).find("not valid JSON"), std::string::npos);
}

TEST_F(PluginLibraries, CollectsCatalogThenVariableThenFlags) {
  const fs::path other = dir_.Write("lib/libother.so", "x");
  const auto catalog =
      dir_.Write("catalog.json", R"({"plugins": [{"name": "FromFile", "library": "lib/libsim_npu.so"}]})");
  ScopedEnv catalog_env("MODELKIT_EP_CATALOG", catalog.c_str());
  const std::string variable = "FromEnv=" + other.string();
  ScopedEnv libraries_env("MODELKIT_EP_LIBRARIES", variable.c_str());
  const auto plugins = CollectPluginLibraries({"FromFlag=" + library_.string()}, std::nullopt);
  ASSERT_EQ(plugins.size(), 3u);
  EXPECT_EQ(plugins[0].registration_name, "FromFile");
  EXPECT_EQ(plugins[1].registration_name, "FromEnv");
  EXPECT_EQ(plugins[2].registration_name, "FromFlag");
}

TEST_F(PluginLibraries, DefaultCatalogIsUsedUnlessDisabledOrReplaced) {
  const auto default_catalog =
      dir_.Write("default.json", R"({"plugins": [{"name": "Shipped", "library": "lib/libsim_npu.so"}]})");
  const auto other = dir_.Write("other.json", R"({"plugins": [{"name": "Other", "library": "lib/libsim_npu.so"}]})");
  auto names = [](const std::vector<PluginLibrary>& plugins) {
    std::vector<std::string> out;
    for (const PluginLibrary& plugin : plugins) out.push_back(plugin.registration_name);
    return out;
  };
  EXPECT_EQ(names(CollectPluginLibraries({}, std::nullopt, default_catalog)), std::vector<std::string>{"Shipped"});
  EXPECT_EQ(names(CollectPluginLibraries({}, std::nullopt, dir_.path() / "absent.json")), std::vector<std::string>{})
      << "a missing default catalog is no error";
  EXPECT_EQ(names(CollectPluginLibraries({}, other, default_catalog)), std::vector<std::string>{"Other"})
      << "--ep-catalog replaces the default";
  EXPECT_EQ(names(CollectPluginLibraries({"shipped=" + library_.string()}, std::nullopt, default_catalog)),
            std::vector<std::string>{"shipped"})
      << "an explicit registration of the same name replaces the default entry";
  {
    ScopedEnv disabled("MODELKIT_EP_CATALOG", "none");
    EXPECT_EQ(names(CollectPluginLibraries({}, std::nullopt, default_catalog)), std::vector<std::string>{});
  }
  {
    ScopedEnv from_env("MODELKIT_EP_CATALOG", other.c_str());
    EXPECT_EQ(names(CollectPluginLibraries({}, std::nullopt, default_catalog)), std::vector<std::string>{"Other"});
  }
}

TEST_F(PluginLibraries, RejectsTheSameNameTwice) {
  const std::string message = UsageMessage([&] {
    CollectPluginLibraries({"Sim=" + library_.string(), "sim=" + library_.string()}, std::nullopt);
  });
  EXPECT_NE(message.find("registered twice"), std::string::npos) << message;
}

}  // namespace
}  // namespace modelkit::device

// `modelkit perf` on bad input: one `error:` line, the documented exit code, and no report or partial file.
#include <gtest/gtest.h>

#include <fstream>

#include "support/cli.h"
#include "support/model_case.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;
using test::ProcessResult;

const fs::path kOcrDir = MODELKIT_OCR_MODELS_DIR;

class PerfBadInput : public ::testing::Test {
 protected:
  // Runs perf with `args` writing to a report in the temp dir; checks the error contract and that the directory
  // holds nothing new (no report, no temporary file).
  void ExpectFailure(std::vector<std::string> args, int exit_code, const std::string& fragment) {
    const std::vector<fs::path> before = Listing();
    args.insert(args.begin(), "perf");
    args.insert(args.end(),
                {"-o", (dir_.path() / "out" / "report.json").string(), "--iterations", "2", "--warmup", "0"});
    test::ExpectErrorLine(test::RunModelkit(args), exit_code, fragment);
    EXPECT_EQ(Listing(), before) << "files were left behind";
  }

  std::vector<fs::path> Listing() const {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir_.path())) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
  }

  std::string Model(const std::string& name) const { return (kOcrDir / name).string(); }

  test::TempDir dir_;
};

TEST_F(PerfBadInput, MissingOrUnreadableModel) {
  ExpectFailure({"-m", (dir_.path() / "absent.onnx").string()}, 2, "ONNX file not found");
  ExpectFailure({"-m", dir_.path().string()}, 2, "directory");
  ExpectFailure({}, 2, "--model");
}

TEST_F(PerfBadInput, NotAnOnnxFileIsAnInvalidModel) {
  const auto text = dir_.Write("notes.onnx", "this is not a protobuf");
  ExpectFailure({"-m", text.string()}, 3, "notes.onnx");
}

TEST_F(PerfBadInput, TruncatedOnnxFileIsAnInvalidModel) {
  std::ifstream in(kOcrDir / "cls.onnx", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto truncated = dir_.Write("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  ExpectFailure({"-m", truncated.string()}, 3, "truncated.onnx");
}

TEST_F(PerfBadInput, DeviceConfigIsOnlyForGenai) {
  ExpectFailure({"-m", Model("cls.onnx"), "--device", "config"}, 2,
                "--device config is only valid with --runtime genai");
}

TEST_F(PerfBadInput, BadCounts) {
  ExpectFailure({"-m", Model("cls.onnx"), "--iterations", "0"}, 2, "--iterations");
  ExpectFailure({"-m", Model("cls.onnx"), "--warmup", "-1"}, 2, "--warmup");
  ExpectFailure({"-m", Model("cls.onnx"), "--duration", "0"}, 2, "--duration");
  ExpectFailure({"-m", Model("cls.onnx"), "--batch-size", "0"}, 2, "--batch-size");
  // Values outside a sane range, NaN, infinity and empty names are refused, not run (or run for ever).
  ExpectFailure({"-m", Model("cls.onnx"), "--duration", "1e10"}, 2, "'1e10' is outside (0, 604800]");
  ExpectFailure({"-m", Model("cls.onnx"), "--duration", "nan"}, 2, "'nan' is not a finite number");
  ExpectFailure({"-m", Model("cls.onnx"), "--duration", "inf"}, 2, "'inf' is not a finite number");
  ExpectFailure({"-m", Model("cls.onnx"), "--warmup", "100000000"}, 2, "--warmup");
  ExpectFailure({"-m", Model("cls.onnx"), "--iterations", "100000000"}, 2, "--iterations");
  ExpectFailure({"-m", Model("cls.onnx"), "--intra-op-threads", "4096"}, 2, "--intra-op-threads");
  ExpectFailure({"-m", Model("cls.onnx"), "--ep", ""}, 2, "--ep: must not be empty");
  ExpectFailure({"-m", Model("cls.onnx"), "--compile-timeout", "nan"}, 2, "'nan' is not a finite number");
}

// A report path that is a device or a directory is refused before the run; the node is never replaced.
TEST_F(PerfBadInput, OutputThatIsNotARegularFileIsRefused) {
  for (const std::string& output : {std::string("/dev/null"), dir_.path().string()}) {
    test::ExpectErrorLine(
        test::RunModelkit({"perf", "-m", Model("cls.onnx"), "--iterations", "1", "--overwrite", "-o", output}), 2,
        "exists and is not a regular file");
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(PerfBadInput, BadDeviceOrEp) {
  ExpectFailure({"-m", Model("cls.onnx"), "--device", "tpu"}, 2, "unknown device 'tpu'");
  ExpectFailure({"-m", Model("cls.onnx"), "--ep", "nope"}, 2, "unknown execution provider 'nope'");
  ExpectFailure({"-m", Model("cls.onnx"), "--ep", "cuda"}, 2, "not available on this machine");
  ExpectFailure({"-m", Model("cls.onnx"), "--device", "npu"}, 2, "no compatible EP");
  ExpectFailure({"-m", Model("cls.onnx"), "--ep", "qnn", "--device", "cpu"}, 2, "does not support device 'cpu'");
  ExpectFailure({"-m", Model("cls.onnx"), "--ep-options", "novalue"}, 2, "expected KEY=VALUE");
  ExpectFailure({"-m", Model("cls.onnx"), "--ep-options", "=x"}, 2, "expected KEY=VALUE");
}

TEST_F(PerfBadInput, BadShapeConfig) {
  ExpectFailure({"-m", Model("cls.onnx"), "--shape-config", (dir_.path() / "none.json").string()}, 2, "does not exist");
  const auto list = dir_.Write("list.json", "[1, 2]");
  ExpectFailure({"-m", Model("cls.onnx"), "--shape-config", list.string()}, 2, "expected a JSON object");
  const auto fractional = dir_.Write("frac.json", R"({"x": [1, 3, 48.5, 192]})");
  ExpectFailure({"-m", Model("cls.onnx"), "--shape-config", fractional.string()}, 2, "$.x[2]");
  const auto broken = dir_.Write("broken.json", "{\"x\": ");
  ExpectFailure({"-m", Model("cls.onnx"), "--shape-config", broken.string()}, 2, "not valid JSON");
}

TEST_F(PerfBadInput, BadInputData) {
  const fs::path real = test::TestModelsDir() / "ocr_rec_input.npz";
  ExpectFailure({"-m", Model("cls.onnx"), "--input-data", (dir_.path() / "x.npy").string()}, 2,
                "save the inputs as an .npz");
  const auto corrupt = dir_.Write("corrupt.npz", "PK\x03\x04 not really a zip");
  ExpectFailure({"-m", Model("cls.onnx"), "--input-data", corrupt.string()}, 2, "corrupt.npz");
  // The rendered line is [1, 3, 48, W]: the classifier takes it (dynamic H, W) but the matmul model has no 'x'.
  ExpectFailure({"-m", (test::TestModelsDir() / "matmul_add.onnx").string(), "--input-data", real.string()}, 2,
                "missing: a; unexpected: x");
}

TEST_F(PerfBadInput, ExistingOutputNeedsOverwrite) {
  const auto existing = dir_.Write("out/report.json", "keep me");
  const std::vector<fs::path> before = Listing();
  test::ExpectErrorLine(test::RunModelkit({"perf", "-m", Model("cls.onnx"), "-o", existing.string()}), 2,
                        "--overwrite");
  std::ifstream in(existing);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), "keep me");
  EXPECT_EQ(Listing(), before);
}

}  // namespace
}  // namespace modelkit

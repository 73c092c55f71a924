#include "perf/npz.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit::perf {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using Shape = std::vector<int64_t>;

// Writes the .npz files the tests read, with the real numpy (argv[1]: output folder).
constexpr const char* kMakeFiles = R"PY(
import io, os, sys, zipfile
import numpy as np
out = sys.argv[1]
p = lambda name: os.path.join(out, name)
arrays = dict(
    f32=np.array([[1.5, -2.25, 3.0], [0.1, 1e-8, 65504.0]], dtype=np.float32),
    i64=np.array([-3, 0, 2**40], dtype=np.int64),
    flags=np.array([True, False, True, True]),
    half=np.array([1.0, 0.5, -2.0, 65504.0, 0.1], dtype=np.float16),
    u8=np.arange(250, 256, dtype=np.uint8),
    f64=np.array([0.1, -1e300], dtype=np.float64),
    i32=np.array([[-7], [2**31 - 1]], dtype=np.int32),
    i8=np.array([-128, 127], dtype=np.int8),
    i16=np.array([-300], dtype=np.int16),
    u16=np.array([65535], dtype=np.uint16),
    u32=np.array([4000000000], dtype=np.uint32),
    u64=np.array([2**63 + 5], dtype=np.uint64),
    scalar=np.float32(2.5),
    empty=np.zeros((0, 3), dtype=np.float32),
)
arrays['input:0'] = np.array([9, 8], dtype=np.int64)
np.savez(p('plain.npz'), **arrays)
np.savez_compressed(p('compressed.npz'), **arrays)
np.savez(p('inputs.npz'), pixels=np.array([[0.5, 0.25, -1.0]], dtype=np.float64),
         input_ids=np.array([[101, 7592, 102, 0]], dtype=np.int64),
         attention_mask=np.array([[1, 1, 1, 0]], dtype=np.int64))
np.savez(p('fortran.npz'), x=np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
np.savez(p('bigendian.npz'), x=np.array([1.0, 2.0], dtype='>f4'))
np.savez(p('strings.npz'), x=np.array(['ab', 'c']))
np.save(p('single.npy'), np.zeros(3, dtype=np.float32))
buf = io.BytesIO()
np.lib.format.write_array(buf, np.array([[1, 2], [3, 4]], dtype=np.int16), version=(2, 0))
with zipfile.ZipFile(p('v2.npz'), 'w') as z:
    z.writestr('x.npy', buf.getvalue())
with zipfile.ZipFile(p('notnpy.npz'), 'w') as z:
    z.writestr('x.npy', b'hello, not an array')
buf = io.BytesIO()
np.save(buf, np.arange(4, dtype=np.float32))
with zipfile.ZipFile(p('short.npz'), 'w') as z:
    z.writestr('x.npy', buf.getvalue()[:-3])
def raw_npy(header, data=b''):
    header = repr(header).encode() + b' '
    header += b' ' * (-(len(header) + 11) % 64) + b'\n'
    return b'\x93NUMPY\x01\x00' + len(header).to_bytes(2, 'little') + header + data
with zipfile.ZipFile(p('overflow.npz'), 'w') as z:
    z.writestr('x.npy', raw_npy({'descr': '<f4', 'fortran_order': False, 'shape': (2**62, 2**62)}))
with zipfile.ZipFile(p('liar.npz'), 'w') as z:
    z.writestr('x.npy', raw_npy({'descr': '<f4', 'fortran_order': False, 'shape': (2**30,)}, b'\0' * 16))
with zipfile.ZipFile(p('negative.npz'), 'w') as z:
    z.writestr('x.npy', raw_npy({'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}))
with zipfile.ZipFile(p('zeros.npz'), 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('x.npy', raw_npy({'descr': '<f4', 'fortran_order': False, 'shape': (2**21,)}, b'\0' * 2**23))
data = open(p('plain.npz'), 'rb').read()
open(p('truncated.npz'), 'wb').write(data[:len(data) // 2])
open(p('garbage.npz'), 'wb').write(b'this is not a zip archive at all')
)PY";

class NpzTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<test::TempDir>();
    const fs::path script = dir_->Write("make_npz.py", kMakeFiles);
    const test::ProcessResult made = test::RunProcess({"/usr/bin/python3", script.string(), dir_->path().string()});
    ASSERT_EQ(made.exit_code, 0) << made.stderr_text;
  }
  static void TearDownTestSuite() { dir_.reset(); }

  static fs::path File(const std::string& name) { return dir_->path() / name; }

  static inline std::unique_ptr<test::TempDir> dir_;
};

template <typename T>
std::vector<T> Values(const HostTensor& tensor) {
  std::vector<T> out(tensor.data.size() / sizeof(T));
  std::memcpy(out.data(), tensor.data.data(), out.size() * sizeof(T));
  return out;
}

const HostTensor& Find(const std::vector<HostTensor>& tensors, const std::string& name) {
  for (const HostTensor& tensor : tensors) {
    if (tensor.name == name) return tensor;
  }
  static const HostTensor none;
  ADD_FAILURE() << "no array " << name;
  return none;
}

// The message of the modelkit::Error `call` throws; it must be a usage error.
std::string UsageMessage(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage) << error.what();
    return error.what();
  } catch (const std::exception& other) {
    ADD_FAILURE() << "not a modelkit::Error: " << other.what();
    return "";
  }
  ADD_FAILURE() << "nothing thrown";
  return "";
}

Dim D(int64_t value) { return Dim{value, ""}; }
Dim Dyn(std::string param) { return Dim{std::nullopt, std::move(param)}; }

TensorSpec Spec(std::string name, ElementType type, std::vector<Dim> dims) {
  return TensorSpec{std::move(name), type, std::move(dims), true};
}

void ExpectAllArrays(const std::vector<HostTensor>& tensors) {
  ASSERT_EQ(tensors.size(), 15u);
  const HostTensor& f32 = Find(tensors, "f32");
  EXPECT_EQ(f32.type, ElementType::kFloat);
  EXPECT_EQ(f32.shape, (Shape{2, 3}));
  EXPECT_EQ(Values<float>(f32), (std::vector<float>{1.5f, -2.25f, 3.0f, 0.1f, 1e-8f, 65504.0f}));
  const HostTensor& i64 = Find(tensors, "i64");
  EXPECT_EQ(i64.type, ElementType::kInt64);
  EXPECT_EQ(Values<int64_t>(i64), (std::vector<int64_t>{-3, 0, int64_t{1} << 40}));
  const HostTensor& flags = Find(tensors, "flags");
  EXPECT_EQ(flags.type, ElementType::kBool);
  EXPECT_EQ(Values<uint8_t>(flags), (std::vector<uint8_t>{1, 0, 1, 1}));
  const HostTensor& half = Find(tensors, "half");
  EXPECT_EQ(half.type, ElementType::kFloat16);
  EXPECT_EQ(Values<uint16_t>(half), (std::vector<uint16_t>{0x3C00, 0x3800, 0xC000, 0x7BFF, 0x2E66}));
  const HostTensor& u8 = Find(tensors, "u8");
  EXPECT_EQ(u8.type, ElementType::kUint8);
  EXPECT_EQ(Values<uint8_t>(u8), (std::vector<uint8_t>{250, 251, 252, 253, 254, 255}));
  EXPECT_EQ(Values<double>(Find(tensors, "f64")), (std::vector<double>{0.1, -1e300}));
  EXPECT_EQ(Find(tensors, "i32").shape, (Shape{2, 1}));
  EXPECT_EQ(Values<int32_t>(Find(tensors, "i32")), (std::vector<int32_t>{-7, 2147483647}));
  EXPECT_EQ(Values<int8_t>(Find(tensors, "i8")), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Values<int16_t>(Find(tensors, "i16")), (std::vector<int16_t>{-300}));
  EXPECT_EQ(Values<uint16_t>(Find(tensors, "u16")), (std::vector<uint16_t>{65535}));
  EXPECT_EQ(Values<uint32_t>(Find(tensors, "u32")), (std::vector<uint32_t>{4000000000u}));
  EXPECT_EQ(Values<uint64_t>(Find(tensors, "u64")), (std::vector<uint64_t>{(uint64_t{1} << 63) + 5}));
  const HostTensor& scalar = Find(tensors, "scalar");
  EXPECT_EQ(scalar.shape, Shape{});
  EXPECT_EQ(Values<float>(scalar), (std::vector<float>{2.5f}));
  const HostTensor& empty = Find(tensors, "empty");
  EXPECT_EQ(empty.shape, (Shape{0, 3}));
  EXPECT_TRUE(empty.data.empty());
  EXPECT_EQ(Values<int64_t>(Find(tensors, "input:0")), (std::vector<int64_t>{9, 8}));
}

TEST_F(NpzTest, ReadsSavez) { ExpectAllArrays(ReadNpz(File("plain.npz"))); }

TEST_F(NpzTest, ReadsSavezCompressed) { ExpectAllArrays(ReadNpz(File("compressed.npz"))); }

TEST_F(NpzTest, ReadsNpyFormatVersion2) {
  const std::vector<HostTensor> tensors = ReadNpz(File("v2.npz"));
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].name, "x");
  EXPECT_EQ(tensors[0].type, ElementType::kInt16);
  EXPECT_EQ(tensors[0].shape, (Shape{2, 2}));
  EXPECT_EQ(Values<int16_t>(tensors[0]), (std::vector<int16_t>{1, 2, 3, 4}));
}

TEST_F(NpzTest, FortranOrderRejected) {
  const std::string message = UsageMessage([] { ReadNpz(File("fortran.npz")); });
  EXPECT_THAT(message, AllOf(HasSubstr("fortran.npz"), HasSubstr("'x'"), HasSubstr("Fortran")));
}

TEST_F(NpzTest, BigEndianRejected) {
  const std::string message = UsageMessage([] { ReadNpz(File("bigendian.npz")); });
  EXPECT_THAT(message, AllOf(HasSubstr("bigendian.npz"), HasSubstr("'x'"), HasSubstr(">f4")));
}

TEST_F(NpzTest, StringArrayRejected) {
  const std::string message = UsageMessage([] { ReadNpz(File("strings.npz")); });
  EXPECT_THAT(message, AllOf(HasSubstr("strings.npz"), HasSubstr("'x'"), HasSubstr("<U2")));
}

TEST_F(NpzTest, MalformedMembersRejected) {
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("notnpy.npz")); }),
              AllOf(HasSubstr("notnpy.npz"), HasSubstr("'x'"), HasSubstr("not a .npy")));
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("short.npz")); }),
              AllOf(HasSubstr("short.npz"), HasSubstr("'x'"), HasSubstr("13 data bytes"), HasSubstr("16")));
}

// Sizes are checked from the header, with overflow checks, before any data is inflated.
TEST_F(NpzTest, ImpossibleSizesRejectedBeforeInflating) {
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("overflow.npz")); }),
              AllOf(HasSubstr("'x'"), HasSubstr("too large to hold in memory")));
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("liar.npz")); }),
              AllOf(HasSubstr("'x'"), HasSubstr("holds 16 data bytes, its shape needs 4294967296")));
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("negative.npz")); }), HasSubstr("negative dimension"));
  // A compressed member whose real size is more than the memory allowed (here 4 MiB allowed for an 8 MiB array).
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("zeros.npz"), size_t{4} << 20); }),
              AllOf(HasSubstr("'x' needs 8 MiB"), HasSubstr("more than this machine's memory")));
  EXPECT_EQ(ReadNpz(File("zeros.npz"), size_t{8} << 20).front().data.size(), size_t{8} << 20);
}

// The header check sees the array's name, dtype and shape with no data inflated yet, and its refusal stops the read.
TEST_F(NpzTest, HeadersAreCheckedBeforeTheDataIsInflated) {
  std::vector<std::string> seen;
  const auto check = [&](const HostTensor& header) {
    seen.push_back(header.name + ":" + std::to_string(header.shape.at(0)) + ":" + std::to_string(header.data.size()));
    throw UsageError("refused " + header.name);
  };
  EXPECT_EQ(UsageMessage([&] { ReadNpz(File("zeros.npz"), 0, check); }), "refused x");
  EXPECT_EQ(seen, std::vector<std::string>{"x:2097152:0"});
}

TEST_F(NpzTest, CorruptArchivesRejected) {
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("truncated.npz")); }), HasSubstr(File("truncated.npz").string()));
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("garbage.npz")); }),
              AllOf(HasSubstr(File("garbage.npz").string()), HasSubstr("not a valid .npz")));
}

TEST_F(NpzTest, NpyPathRejectedWithAdvice) {
  const std::string message = UsageMessage([] { ReadNpz(File("single.npy")); });
  EXPECT_THAT(message, AllOf(HasSubstr("single.npy"), HasSubstr(".npz"), HasSubstr("numpy.savez")));
  // Rejected for its name, even when the file does not exist.
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("absent.npy")); }), HasSubstr(".npz"));
}

TEST_F(NpzTest, MissingFileAndFolderRejected) {
  EXPECT_THAT(UsageMessage([] { ReadNpz(File("absent.npz")); }),
              AllOf(HasSubstr(File("absent.npz").string()), HasSubstr("does not exist")));
  EXPECT_THAT(UsageMessage([] { ReadNpz(dir_->path()); }), HasSubstr(dir_->path().string()));
}

TEST_F(NpzTest, LoadInputsInModelOrderWithCast) {
  const std::vector<TensorSpec> inputs = {
      Spec("input_ids", ElementType::kInt64, {Dyn("batch"), Dyn("sequence")}),
      Spec("attention_mask", ElementType::kInt64, {Dyn("batch"), D(4)}),
      Spec("pixels", ElementType::kFloat, {D(1), D(3)}),
  };
  std::vector<std::string> warnings;
  const std::vector<HostTensor> tensors = LoadNpzInputs(File("inputs.npz"), inputs, warnings);
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors[0].name, "input_ids");
  EXPECT_EQ(tensors[1].name, "attention_mask");
  EXPECT_EQ(tensors[2].name, "pixels");
  EXPECT_EQ(tensors[0].type, ElementType::kInt64);
  EXPECT_EQ(tensors[0].shape, (Shape{1, 4}));
  EXPECT_EQ(Values<int64_t>(tensors[0]), (std::vector<int64_t>{101, 7592, 102, 0}));
  EXPECT_EQ(Values<int64_t>(tensors[1]), (std::vector<int64_t>{1, 1, 1, 0}));
  EXPECT_EQ(tensors[2].type, ElementType::kFloat);
  EXPECT_EQ(tensors[2].shape, (Shape{1, 3}));
  EXPECT_EQ(Values<float>(tensors[2]), (std::vector<float>{0.5f, 0.25f, -1.0f}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], AllOf(HasSubstr("'pixels'"), HasSubstr("float64"), HasSubstr("float32")));
}

TEST_F(NpzTest, LoadInputsCastsIntegersToFloat16AndBool) {
  const std::vector<TensorSpec> inputs = {
      Spec("input_ids", ElementType::kFloat16, {D(1), D(4)}),
      Spec("attention_mask", ElementType::kBool, {D(1), D(4)}),
      Spec("pixels", ElementType::kFloat, {D(1), D(3)}),
  };
  std::vector<std::string> warnings;
  const std::vector<HostTensor> tensors = LoadNpzInputs(File("inputs.npz"), inputs, warnings);
  ASSERT_EQ(tensors.size(), 3u);
  // 101 and 102 are exact in binary16; 7592 rounds to 7592 (spacing 4 in [4096, 8192)).
  EXPECT_EQ(Values<uint16_t>(tensors[0]), (std::vector<uint16_t>{0x5650, 0x6F6A, 0x5660, 0x0000}));
  EXPECT_EQ(Values<uint8_t>(tensors[1]), (std::vector<uint8_t>{1, 1, 1, 0}));
  EXPECT_EQ(warnings.size(), 3u);
}

TEST_F(NpzTest, UnknownShapeAndDynamicDimsAcceptAnySize) {
  TensorSpec ids = Spec("input_ids", ElementType::kInt64, {});
  ids.shape_known = false;
  const std::vector<TensorSpec> inputs = {ids, Spec("attention_mask", ElementType::kInt64, {Dyn(""), Dyn("")}),
                                          Spec("pixels", ElementType::kDouble, {D(-1), D(3)})};
  std::vector<std::string> warnings;
  const std::vector<HostTensor> tensors = LoadNpzInputs(File("inputs.npz"), inputs, warnings);
  EXPECT_EQ(tensors.size(), 3u);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(Values<double>(tensors[2]), (std::vector<double>{0.5, 0.25, -1.0}));
}

// ORT reports no dimensions for an input whose shape the model leaves out (as for a scalar): any array goes.
TEST_F(NpzTest, NoDeclaredDimensionsAcceptAnyArray) {
  const std::vector<TensorSpec> inputs = {Spec("input_ids", ElementType::kInt64, {}),
                                          Spec("attention_mask", ElementType::kInt64, {}),
                                          Spec("pixels", ElementType::kDouble, {})};
  std::vector<std::string> warnings;
  const std::vector<HostTensor> tensors = LoadNpzInputs(File("inputs.npz"), inputs, warnings);
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors[1].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_TRUE(warnings.empty());
}

TEST_F(NpzTest, MissingAndUnexpectedKeysListed) {
  std::vector<std::string> warnings;
  const std::vector<TensorSpec> missing = {
      Spec("input_ids", ElementType::kInt64, {}), Spec("attention_mask", ElementType::kInt64, {}),
      Spec("pixels", ElementType::kDouble, {}), Spec("token_type_ids", ElementType::kInt64, {})};
  const std::string missing_message = UsageMessage([&] { LoadNpzInputs(File("inputs.npz"), missing, warnings); });
  EXPECT_THAT(missing_message, AllOf(HasSubstr(File("inputs.npz").string()), HasSubstr("missing: token_type_ids"),
                                     Not(HasSubstr("unexpected"))));

  const std::vector<TensorSpec> extra = {Spec("input_ids", ElementType::kInt64, {}),
                                         Spec("attention_mask", ElementType::kInt64, {})};
  const std::string extra_message = UsageMessage([&] { LoadNpzInputs(File("inputs.npz"), extra, warnings); });
  EXPECT_THAT(extra_message, AllOf(HasSubstr(File("inputs.npz").string()), HasSubstr("unexpected: pixels"),
                                   Not(HasSubstr("missing"))));

  const std::vector<TensorSpec> renamed = {Spec("Input_IDs", ElementType::kInt64, {}),
                                           Spec("attention_mask", ElementType::kInt64, {}),
                                           Spec("pixel_values", ElementType::kDouble, {})};
  const std::string both = UsageMessage([&] { LoadNpzInputs(File("inputs.npz"), renamed, warnings); });
  EXPECT_THAT(both, AllOf(HasSubstr("missing: Input_IDs, pixel_values"), HasSubstr("unexpected: pixels, input_ids")));
  EXPECT_TRUE(warnings.empty());
}

TEST_F(NpzTest, MisshapedArrayRejected) {
  std::vector<std::string> warnings;
  const std::vector<TensorSpec> wrong_dim = {Spec("input_ids", ElementType::kInt64, {Dyn("batch"), D(8)}),
                                             Spec("attention_mask", ElementType::kInt64, {D(1), D(4)}),
                                             Spec("pixels", ElementType::kDouble, {D(1), D(3)})};
  EXPECT_THAT(UsageMessage([&] { LoadNpzInputs(File("inputs.npz"), wrong_dim, warnings); }),
              AllOf(HasSubstr(File("inputs.npz").string()), HasSubstr("'input_ids'"), HasSubstr("[1, 4]"),
                    HasSubstr("[batch, 8]")));
  const std::vector<TensorSpec> wrong_rank = {Spec("input_ids", ElementType::kInt64, {Dyn("batch")}),
                                              Spec("attention_mask", ElementType::kInt64, {D(1), D(4)}),
                                              Spec("pixels", ElementType::kDouble, {D(1), D(3)})};
  EXPECT_THAT(UsageMessage([&] { LoadNpzInputs(File("inputs.npz"), wrong_rank, warnings); }),
              AllOf(HasSubstr("'input_ids'"), HasSubstr("[1, 4]"), HasSubstr("[batch]")));
}

TEST_F(NpzTest, ReadErrorsPassThroughLoadInputs) {
  std::vector<std::string> warnings;
  const std::vector<TensorSpec> inputs = {Spec("x", ElementType::kFloat, {D(2), D(3)})};
  EXPECT_THAT(UsageMessage([&] { LoadNpzInputs(File("fortran.npz"), inputs, warnings); }), HasSubstr("Fortran"));
  EXPECT_THAT(UsageMessage([&] { LoadNpzInputs(File("absent.npz"), inputs, warnings); }), HasSubstr("absent.npz"));
}

HostTensor Tensor(ElementType type, Shape shape, const void* bytes, size_t size) {
  HostTensor tensor;
  tensor.name = "t";
  tensor.type = type;
  tensor.shape = std::move(shape);
  tensor.data.resize(size);
  std::memcpy(tensor.data.data(), bytes, size);
  return tensor;
}

TEST(NpzCast, FloatToIntegersTruncatesAndBoolIsNonZero) {
  const float values[] = {2.75f, -2.75f, 0.0f, 0.25f};
  const HostTensor source = Tensor(ElementType::kFloat, {2, 2}, values, sizeof values);
  const HostTensor ints = CastTensor(source, ElementType::kInt64);
  EXPECT_EQ(ints.name, "t");
  EXPECT_EQ(ints.type, ElementType::kInt64);
  EXPECT_EQ(ints.shape, (Shape{2, 2}));
  EXPECT_EQ(Values<int64_t>(ints), (std::vector<int64_t>{2, -2, 0, 0}));
  EXPECT_EQ(Values<int32_t>(CastTensor(source, ElementType::kInt32)), (std::vector<int32_t>{2, -2, 0, 0}));
  EXPECT_EQ(Values<uint8_t>(CastTensor(source, ElementType::kBool)), (std::vector<uint8_t>{1, 1, 0, 1}));
  EXPECT_EQ(Values<double>(CastTensor(source, ElementType::kDouble)), (std::vector<double>{2.75, -2.75, 0, 0.25}));
  EXPECT_EQ(Values<uint16_t>(CastTensor(source, ElementType::kFloat16)),
            (std::vector<uint16_t>{0x4180, 0xC180, 0x0000, 0x3400}));
  EXPECT_EQ(Values<uint16_t>(CastTensor(source, ElementType::kBFloat16)),
            (std::vector<uint16_t>{0x4030, 0xC030, 0x0000, 0x3E80}));
}

TEST(NpzCast, HalfAndIntegersToFloat) {
  const uint16_t half[] = {0x3C00, 0xC000, 0x7BFF, 0x0001};
  EXPECT_EQ(Values<float>(CastTensor(Tensor(ElementType::kFloat16, {4}, half, sizeof half), ElementType::kFloat)),
            (std::vector<float>{1.0f, -2.0f, 65504.0f, 5.9604644775390625e-8f}));
  const uint16_t bf16[] = {0x3F80, 0x4049};
  EXPECT_EQ(Values<float>(CastTensor(Tensor(ElementType::kBFloat16, {2}, bf16, sizeof bf16), ElementType::kFloat)),
            (std::vector<float>{1.0f, 3.140625f}));
  const int64_t ints[] = {-5, 0, 16777217};
  EXPECT_EQ(Values<float>(CastTensor(Tensor(ElementType::kInt64, {3}, ints, sizeof ints), ElementType::kFloat)),
            (std::vector<float>{-5.0f, 0.0f, 16777216.0f}));
  const uint8_t bytes[] = {0, 1, 255};
  EXPECT_EQ(Values<int64_t>(CastTensor(Tensor(ElementType::kUint8, {3}, bytes, sizeof bytes), ElementType::kInt64)),
            (std::vector<int64_t>{0, 1, 255}));
  const uint8_t flags[] = {1, 0};
  EXPECT_EQ(Values<float>(CastTensor(Tensor(ElementType::kBool, {2}, flags, sizeof flags), ElementType::kFloat)),
            (std::vector<float>{1.0f, 0.0f}));
}

}  // namespace
}  // namespace modelkit::perf

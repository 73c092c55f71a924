#include "modelkit/report/tensor_spec.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/tensor_specs.h"

namespace modelkit::report {
namespace {

using test::Dynamic;
using test::Fixed;
using test::Spec;

TEST(TensorSpecDescribe, Shapes) {
  EXPECT_EQ(DescribeShape(Spec("x", {Dynamic("batch"), Fixed(3), Fixed(224), Dynamic()})), "[batch, 3, 224, ?]");
  EXPECT_EQ(DescribeShape(Spec("x", {Dim{-1, ""}, Dim{-1, "seq"}})), "[?, seq]");
  EXPECT_EQ(DescribeShape(Spec("x", {})), "[]");
  TensorSpec unknown = Spec("x", {});
  unknown.shape_known = false;
  EXPECT_EQ(DescribeShape(unknown), "?");
}

TEST(TensorSpecTypes, NamesAndSizes) {
  struct Row {
    ElementType type;
    const char* name;
    size_t size;
  };
  const Row rows[] = {
      {ElementType::kFloat, "float32", 4},     {ElementType::kUint8, "uint8", 1},
      {ElementType::kInt8, "int8", 1},         {ElementType::kUint16, "uint16", 2},
      {ElementType::kInt16, "int16", 2},       {ElementType::kInt32, "int32", 4},
      {ElementType::kInt64, "int64", 8},       {ElementType::kString, "string", 0},
      {ElementType::kBool, "bool", 1},         {ElementType::kFloat16, "float16", 2},
      {ElementType::kDouble, "float64", 8},    {ElementType::kUint32, "uint32", 4},
      {ElementType::kUint64, "uint64", 8},     {ElementType::kBFloat16, "bfloat16", 2},
      {ElementType::kUndefined, "unknown", 0},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(ElementTypeName(row.type), row.name) << static_cast<int>(row.type);
    EXPECT_EQ(ElementSize(row.type), row.size) << static_cast<int>(row.type);
  }
  EXPECT_EQ(ElementTypeName(static_cast<ElementType>(14)), "unknown");  // complex128: not supported
  EXPECT_EQ(ElementSize(static_cast<ElementType>(14)), 0u);
}

TEST(TensorSpecTypes, IntegerTypes) {
  for (ElementType type : {ElementType::kInt8, ElementType::kUint8, ElementType::kInt16, ElementType::kUint16,
                           ElementType::kInt32, ElementType::kUint32, ElementType::kInt64, ElementType::kUint64}) {
    EXPECT_TRUE(IsIntegerType(type)) << ElementTypeName(type);
  }
  for (ElementType type : {ElementType::kFloat, ElementType::kFloat16, ElementType::kBFloat16, ElementType::kDouble,
                           ElementType::kBool, ElementType::kString, ElementType::kUndefined}) {
    EXPECT_FALSE(IsIntegerType(type)) << ElementTypeName(type);
  }
}

TEST(TensorSpecTypes, EnumValuesMatchOnnx) {
  EXPECT_EQ(static_cast<int>(ElementType::kFloat), 1);
  EXPECT_EQ(static_cast<int>(ElementType::kInt64), 7);
  EXPECT_EQ(static_cast<int>(ElementType::kBool), 9);
  EXPECT_EQ(static_cast<int>(ElementType::kFloat16), 10);
  EXPECT_EQ(static_cast<int>(ElementType::kBFloat16), 16);
}

}  // namespace
}  // namespace modelkit::report

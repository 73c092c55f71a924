// Validators for flag values, so that every command refuses the same bad values with the same words: numbers that
// are NaN, infinite or outside a sane range, empty names and paths, negative "unsigned" integers (which CLI11 would
// otherwise wrap around).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

namespace modelkit::app {

// The sane ranges of numeric flags (docs/cli.md): each bound is far beyond any real use and keeps a typo from
// becoming a run that never ends or a bad_alloc.
inline constexpr int64_t kMaxNewTokens = int64_t{1} << 20;      // tokens; no model holds more context
inline constexpr int64_t kMaxContextLength = int64_t{1} << 20;  // positions (build)
inline constexpr int64_t kMaxBatchSize = int64_t{1} << 30;      // perf --batch-size
inline constexpr double kMaxTemperature = 100;
inline constexpr double kMaxRepetitionPenalty = 100;
inline constexpr int kMaxIterations = 1000000;
inline constexpr int kMaxWarmup = 100000;
inline constexpr double kMaxDurationSeconds = 7 * 24 * 3600;  // a week
inline constexpr int kMaxIntraOpThreads = 1024;
inline constexpr double kMaxCompileTimeoutSeconds = 24 * 3600;
inline constexpr double kMaxRopeTheta = 1e12;  // real models use 1e4..1e7

// A finite number in [min, max] (or (min, max] when `min_exclusive`).
CLI::Validator FiniteNumber(double min, double max, bool min_exclusive = false);

// A non-empty value (a name or a path).
CLI::Validator NonEmpty();

// A non-negative integer written in decimal digits, at most `max`.
CLI::Validator UnsignedInteger(uint64_t max = UINT64_MAX);

}  // namespace modelkit::app

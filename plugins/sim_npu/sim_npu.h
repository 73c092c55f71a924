// The C interface of libsim_npu.so beyond ORT's plugin entry points (CreateEpFactories / ReleaseEpFactory):
// counters that let tests prove what the simulated NPU did in this process. Look them up with
// dlopen(path, RTLD_NOLOAD) + dlsym on the library ORT already loaded; the typedefs give their signatures.
//
// ep_name is the EP name ("SimNpuExecutionProvider"); an EP that never did anything reads 0.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Partition executions (one per fused partition per session run).
int64_t SimNpuGetRunCount(const char* ep_name);
// Partitions compiled from source nodes (by sessions and by the compile API).
int64_t SimNpuGetCompiledPartitionCount(const char* ep_name);
// Partitions restored from EPContext nodes without compiling.
int64_t SimNpuGetLoadedContextCount(const char* ep_name);
// Nodes claimed in GetCapability.
int64_t SimNpuGetClaimedNodeCount(const char* ep_name);
// Writes "<partition name> <runs>\n" for every partition of the EP (partitions are named by their fused node; a model
// compiled again reuses the names) into `buffer` (NUL-terminated, truncated to buffer_size - 1 bytes). Returns the
// full length of the text, so a call with a NULL buffer sizes it.
size_t SimNpuDescribePartitionRuns(const char* ep_name, char* buffer, size_t buffer_size);
// Zeroes every counter of every EP name.
void SimNpuResetCounters(void);

typedef int64_t (*SimNpuCounterFn)(const char* ep_name);
typedef size_t (*SimNpuDescribePartitionRunsFn)(const char* ep_name, char* buffer, size_t buffer_size);
typedef void (*SimNpuResetCountersFn)(void);

#ifdef __cplusplus
}
#endif

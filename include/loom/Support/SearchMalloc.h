//===- SearchMalloc.h - glibc's malloc set for a search ---------*- C++ -*-===//
//
// A search lowers and simulates programs of millions of tasks, one after
// another: most of its memory is freed and allocated again, and glibc's
// malloc, as it is, hands the freed memory back to the kernel (blocks over
// its mmap threshold are unmapped, the heap's top trimmed) and takes new
// pages for the next program, each 4 KB page zeroed on a fault. On the
// 2-core reference machine those faults were a fifth to a third of a DiT
// search's time. glibc reads its malloc settings (GLIBC_TUNABLES) only as
// the program starts, so loom-plan runs itself again before a search with
// kSearchMallocTunables: transparent huge pages asked for (where the
// kernel gives them only to memory that asks, its mode "madvise"), the
// heap kept rather than trimmed, and blocks up to glibc's largest mmap
// threshold (32 MB) taken from it, so what one program frees the next one
// reuses. The allocations and the run are the same, only the pages differ
// (docs/planning.md, "Exact shortcuts").
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SUPPORT_SEARCHMALLOC_H
#define LOOM_SUPPORT_SEARCHMALLOC_H

#include <optional>
#include <string>

namespace loom {

/// The settings, as GLIBC_TUNABLES takes them.
inline constexpr const char *kSearchMallocTunables =
    "glibc.malloc.hugetlb=1:glibc.malloc.trim_threshold=4294967296:"
    "glibc.malloc.mmap_threshold=33554432";

/// GLIBC_TUNABLES for a search, given its value now (`tunables`, null when
/// unset) and LD_PRELOAD's (`preload`): the value with
/// kSearchMallocTunables after it; none when the program should run as it
/// is: the value sets a glibc.malloc tunable already (the user's own
/// choice, or the program run again), or valgrind's preloads are loaded
/// (its tool would not follow the program into the new run).
std::optional<std::string> searchMallocTunables(const char *tunables,
                                                const char *preload);

/// Runs this program again (/proc/self/exe, the same `argv`) with
/// searchMallocTunables()'s GLIBC_TUNABLES when it gives one; returns when
/// it does not, or when the exec fails (the environment as it was). Linux
/// with glibc only: elsewhere it returns.
void rerunWithSearchMalloc(char **argv);

} // namespace loom

#endif // LOOM_SUPPORT_SEARCHMALLOC_H

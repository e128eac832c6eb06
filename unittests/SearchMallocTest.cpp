//===- SearchMallocTest.cpp - when loom-plan sets glibc's malloc ----------===//
//
// loom::searchMallocTunables: the settings after the user's other
// tunables, never over a malloc setting of the user's (nor again once
// set), never under valgrind.
//
//===----------------------------------------------------------------------===//

#include "loom/Support/SearchMalloc.h"

#include <gtest/gtest.h>

using loom::kSearchMallocTunables;
using loom::searchMallocTunables;

namespace {

TEST(SearchMalloc, SetsTheTunables) {
  EXPECT_EQ(searchMallocTunables(nullptr, nullptr), kSearchMallocTunables);
  EXPECT_EQ(searchMallocTunables("", ""), kSearchMallocTunables);
  EXPECT_EQ(searchMallocTunables(nullptr, "libfoo.so"), kSearchMallocTunables);
}

TEST(SearchMalloc, KeepsTheOtherTunables) {
  EXPECT_EQ(searchMallocTunables("glibc.rtld.nns=2", nullptr),
            std::string("glibc.rtld.nns=2:") + kSearchMallocTunables);
}

TEST(SearchMalloc, NotOverAMallocSettingOrUnderValgrind) {
  // The user's choice (hugetlb=0 keeps 4 KB pages), or the program run
  // again: no second run.
  EXPECT_FALSE(searchMallocTunables("glibc.malloc.hugetlb=0", nullptr));
  EXPECT_FALSE(searchMallocTunables("glibc.malloc.arena_max=2", nullptr));
  EXPECT_FALSE(searchMallocTunables(
      searchMallocTunables(nullptr, nullptr)->c_str(), nullptr));
  EXPECT_FALSE(searchMallocTunables(
      nullptr, "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so:"
               "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so"));
}

} // namespace

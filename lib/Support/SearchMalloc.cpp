//===- SearchMalloc.cpp - glibc's malloc set for a search -----------------===//

#include "loom/Support/SearchMalloc.h"

#include "llvm/ADT/StringRef.h"

#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

using namespace loom;

std::optional<std::string> loom::searchMallocTunables(const char *tunables,
                                                      const char *preload) {
  if (preload && llvm::StringRef(preload).contains("vgpreload"))
    return std::nullopt;
  llvm::StringRef now = tunables ? tunables : "";
  if (now.contains("glibc.malloc."))
    return std::nullopt;
  return (now.empty() ? "" : now.str() + ":") + kSearchMallocTunables;
}

void loom::rerunWithSearchMalloc(char **argv) {
#if defined(__linux__) && defined(__GLIBC__)
  const char *before = std::getenv("GLIBC_TUNABLES");
  std::optional<std::string> tunables =
      searchMallocTunables(before, std::getenv("LD_PRELOAD"));
  if (!tunables)
    return;
  std::optional<std::string> saved;
  if (before)
    saved = before;
  if (setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0)
    return;
  execv("/proc/self/exe", argv);
  // Not run again: as it was.
  if (saved)
    setenv("GLIBC_TUNABLES", saved->c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
#else
  (void)argv;
#endif
}

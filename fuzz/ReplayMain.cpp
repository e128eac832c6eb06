//===- ReplayMain.cpp - runs a fuzz target on files -----------------------===//
//
// Linked into each fuzz target when it is not built as a libFuzzer fuzzer
// (LOOM_FUZZ off, e.g. the normal gcc build), so that ctest replays the
// seed corpus and every input that ever failed (fuzz/regressions) without
// clang. Each argument is a file or a folder of files; a folder that does
// not exist holds none, but the arguments together must hold at least one.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path path(argv[i]);
    std::error_code error;
    if (fs::is_directory(path, error)) {
      for (const fs::directory_entry &entry : fs::directory_iterator(path))
        // Dot files (.gitkeep) and notes are not inputs.
        if (entry.is_regular_file() &&
            entry.path().filename().string()[0] != '.' &&
            entry.path().extension() != ".md")
          files.push_back(entry.path());
    } else if (fs::exists(path, error)) {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "%s: no inputs in the given files and folders\n",
                 argv[0]);
    return 1;
  }
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], file.c_str());
      return 1;
    }
    // Print the input first, so that a crash names it.
    std::fprintf(stderr, "replaying %s\n", file.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("%s: %zu inputs replayed, no failure\n", argv[0], files.size());
  return 0;
}

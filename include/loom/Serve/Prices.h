//===- Prices.h - what accelerators cost, as dated data ---------*- C++ -*-===//
//
// A serving configuration's cost is its chips times a price per chip-hour.
// Prices change and differ by region and by kind of capacity (on demand,
// spot, committed use), so they are data: a price file lists them with the
// date they were read and the page each came from (format in
// docs/serving.md). The bundled files are data/prices/*.json, compiled in.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SERVE_PRICES_H
#define LOOM_SERVE_PRICES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace loom::serve {

struct Price {
  /// The chip ("v5e"), the cloud region ("us-central1") and the kind of
  /// capacity ("on-demand", "spot", "1y-commit", ...).
  std::string chip, region, kind;
  /// US dollars per chip-hour.
  double usdPerChipHour = 0;
  /// Where the figure was read.
  std::string source;
};

struct PriceTable {
  /// The file's name (a bundled table's stem).
  std::string name;
  /// The day the prices were read (YYYY-MM-DD).
  std::string retrieved;
  std::vector<Price> prices;

  /// The price of `chip` in `region` for `kind`; the error lists what the
  /// table has.
  llvm::Expected<Price> find(llvm::StringRef chip, llvm::StringRef region,
                             llvm::StringRef kind) const;
};

/// Parses a price file; errors name the file and the JSON path
/// (`prices.json: $.prices[2].usd_per_chip_hour: must be positive`).
llvm::Expected<PriceTable> parsePrices(llvm::StringRef text,
                                       llvm::StringRef name);

/// A bundled table by name ("tpu-v5e"), or else the file at `pathOrName`.
llvm::Expected<PriceTable> loadPrices(llvm::StringRef pathOrName);

/// The bundled tables' names, comma-separated.
std::string listBundledPrices();

} // namespace loom::serve

#endif // LOOM_SERVE_PRICES_H

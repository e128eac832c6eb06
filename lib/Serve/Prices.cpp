//===- Prices.cpp - what accelerators cost, as dated data -----------------===//

#include "loom/Serve/Prices.h"

#include "loom/Support/JsonReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace loom;
using namespace loom::serve;

namespace {
struct BundledPrices {
  llvm::StringRef name, text;
};
const BundledPrices bundledPrices[] = {
#include "BundledPrices.inc"
};
} // namespace

static llvm::Error error(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), what);
}

llvm::Expected<Price> PriceTable::find(llvm::StringRef chip,
                                       llvm::StringRef region,
                                       llvm::StringRef kind) const {
  for (const Price &price : prices)
    if (price.chip == chip && price.region == region && price.kind == kind)
      return price;
  std::string have;
  for (const Price &price : prices)
    if (price.chip == chip)
      have += (have.empty() ? "" : ", ") + price.region + " " + price.kind;
  return error("the price table '" + name + "' has no " + kind + " price of " +
               chip + " in " + region +
               (have.empty() ? " (it has no " + chip + " at all)"
                             : " (it has: " + have + ")"));
}

/// A calendar date as YYYY-MM-DD.
static bool isDate(llvm::StringRef text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-')
    return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!llvm::isDigit(text[i]))
      return false;
  int month = std::stoi(text.substr(5, 2).str());
  int day = std::stoi(text.substr(8, 2).str());
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

llvm::Expected<PriceTable> loom::serve::parsePrices(llvm::StringRef text,
                                                    llvm::StringRef name) {
  llvm::Expected<llvm::json::Value> document = parseJson(text);
  if (!document)
    return jsonSyntaxError(document.takeError(), name);
  JsonReader reader(name);
  PriceTable table;
  table.name = name.str();
  JsonPath root("$");
  const llvm::json::Object *top = reader.object(&*document, root);
  if (!top)
    return reader.takeError();
  reader.keys(*top, root, {"format", "retrieved", "currency", "unit", "notes",
                           "prices"},
              {"format", "retrieved", "currency", "unit", "prices"});
  auto require = [&](llvm::StringRef key, llvm::StringRef want) {
    if (reader.failed())
      return;
    std::string value = reader.string(*top, key, root);
    if (!reader.failed() && value != want)
      reader.fail(JsonReader::at(root, key),
                  "must be \"" + want + "\", not \"" + value + "\"");
  };
  require("format", "loom-prices");
  require("currency", "USD");
  require("unit", "chip-hour");
  if (!reader.failed()) {
    table.retrieved =
        reader.string(*top, "retrieved", root);
    if (!reader.failed() && !isDate(table.retrieved))
      reader.fail(JsonReader::at(root, "retrieved"),
                  "must be a date, YYYY-MM-DD");
  }
  if (reader.failed())
    return reader.takeError();
  JsonPath pricesPath(root, "prices");
  const llvm::json::Array *prices =
      reader.array(top->get("prices"), pricesPath);
  if (prices && prices->empty())
    reader.fail(pricesPath, "must list at least one price");
  for (size_t i = 0; prices && i < prices->size() && !reader.failed(); ++i) {
    JsonPath at(pricesPath, i);
    const llvm::json::Object *entry = reader.object(&(*prices)[i], at);
    if (!entry)
      break;
    reader.keys(*entry, at,
                {"chip", "region", "kind", "usd_per_chip_hour", "source"},
                {"chip", "region", "kind", "usd_per_chip_hour", "source"});
    Price price;
    price.chip = reader.string(*entry, "chip", at);
    price.region =
        reader.string(*entry, "region", at);
    price.kind = reader.string(*entry, "kind", at);
    price.usdPerChipHour = reader.positive(*entry, "usd_per_chip_hour", at);
    price.source =
        reader.string(*entry, "source", at);
    for (auto [key, value] :
         {std::pair<llvm::StringRef, const std::string *>{"chip", &price.chip},
          {"region", &price.region},
          {"kind", &price.kind},
          {"source", &price.source}})
      if (!reader.failed() && value->empty())
        reader.fail(JsonReader::at(at, key), "must not be empty");
    if (reader.failed())
      break;
    for (const Price &earlier : table.prices)
      if (earlier.chip == price.chip && earlier.region == price.region &&
          earlier.kind == price.kind)
        reader.fail(at, "repeats the " + price.kind + " price of " +
                            price.chip + " in " + price.region);
    table.prices.push_back(std::move(price));
  }
  if (reader.failed())
    return reader.takeError();
  return table;
}

llvm::Expected<PriceTable> loom::serve::loadPrices(llvm::StringRef pathOrName) {
  for (const BundledPrices &bundled : bundledPrices)
    if (bundled.name == pathOrName)
      return parsePrices(bundled.text, bundled.name);
  auto buffer = llvm::MemoryBuffer::getFile(pathOrName, /*IsText=*/true);
  if (!buffer)
    return error("cannot read the price file '" + pathOrName +
                 "': " + buffer.getError().message() +
                 " (bundled: " + listBundledPrices() + ")");
  return parsePrices((*buffer)->getBuffer(), pathOrName);
}

std::string loom::serve::listBundledPrices() {
  std::string names;
  for (const BundledPrices &bundled : bundledPrices)
    names += (names.empty() ? "" : ", ") + bundled.name.str();
  return names;
}

//===- ConfigReader.cpp - typed, located access to a config.json ----------===//

#include "ConfigReader.h"
#include "loom/Import/ModelImporter.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace loom;

Location ConfigReader::fileLoc() const {
  return FileLineColLoc::get(context, fileName, 1, 1);
}

Location ConfigReader::workloadLoc(Location file) {
  return NameLoc::get(StringAttr::get(file.getContext(), kWorkloadOptionsLocName),
                      file);
}

// llvm::json keeps no positions, so find the key's first occurrence in the
// text; config.json files are flat enough for that to be the right one.
Location ConfigReader::keyLoc(StringRef key) const {
  std::string quoted = ("\"" + key + "\"").str();
  size_t offset = text.find(quoted, searchFrom);
  if (offset == StringRef::npos)
    return fileLoc();
  StringRef before = text.take_front(offset);
  unsigned line = 1 + before.count('\n');
  size_t lineStart = before.rfind('\n');
  unsigned column =
      1 + (lineStart == StringRef::npos ? offset : offset - lineStart - 1);
  return FileLineColLoc::get(context, fileName, line, column);
}

const llvm::json::Value *ConfigReader::present(StringRef key) const {
  const llvm::json::Value *value = object.get(key);
  if (!value || value->kind() == llvm::json::Value::Null)
    return nullptr;
  return value;
}

bool ConfigReader::has(StringRef key) const { return present(key); }

bool ConfigReader::hasItems(StringRef key) const {
  const llvm::json::Value *value = present(key);
  return value && value->getAsArray() && !value->getAsArray()->empty();
}

/// `diag`, silenced when a field error came first.
static InFlightDiagnostic unlessAfter(bool fieldFailed, InFlightDiagnostic diag) {
  if (fieldFailed)
    diag.abandon();
  return diag;
}

InFlightDiagnostic ConfigReader::error(StringRef key) {
  flags->failed = true;
  return unlessAfter(flags->fieldFailed, mlir::emitError(keyLoc(key)));
}

InFlightDiagnostic ConfigReader::error() {
  flags->failed = true;
  return unlessAfter(flags->fieldFailed,
                     mlir::emitError(workloadLoc(fileLoc())));
}

InFlightDiagnostic ConfigReader::fieldError(StringRef key) {
  flags->failed = flags->fieldFailed = true;
  return mlir::emitError(keyLoc(key));
}

InFlightDiagnostic ConfigReader::wrongType(StringRef key, StringRef want,
                                           const llvm::json::Value &got) {
  std::string shown;
  llvm::raw_string_ostream os(shown);
  os << got;
  return fieldError(key) << "field '" << key << "' must be " << want << ", got "
                    << shown;
}

int64_t ConfigReader::positive(StringRef key) {
  const llvm::json::Value *value = present(key);
  if (!value) {
    fieldError(key) << "missing required field '" << key << "'";
    return 1;
  }
  std::optional<int64_t> number = value->getAsInteger();
  if (!number || *number <= 0) {
    wrongType(key, "a positive integer", *value);
    return 1;
  }
  if (*number > kMaxDimension) {
    fieldError(key) << "'" << key << "' = " << *number
                    << " is larger than Loom models (" << kMaxDimension << ")";
    return 1;
  }
  return *number;
}

int64_t ConfigReader::layerCount(StringRef key) {
  int64_t layers = positive(key);
  if (layers > kMaxLayers) {
    fieldError(key) << "'" << key << "' = " << layers
                    << " layers is more than Loom models (" << kMaxLayers
                    << ")";
    return 1;
  }
  return layers;
}

int64_t ConfigReader::positive(StringRef key, int64_t fallback) {
  return has(key) ? positive(key) : fallback;
}

double ConfigReader::number(StringRef key, double fallback) {
  const llvm::json::Value *value = present(key);
  if (!value)
    return fallback;
  if (std::optional<double> number = value->getAsNumber())
    return *number;
  wrongType(key, "a number", *value);
  return fallback;
}

SmallVector<int64_t> ConfigReader::positiveArray(StringRef key) {
  const llvm::json::Value *value = present(key);
  if (!value)
    return {};
  SmallVector<int64_t> result;
  const llvm::json::Array *array = value->getAsArray();
  if (array)
    for (const llvm::json::Value &element : *array)
      if (std::optional<int64_t> n = element.getAsInteger(); n && *n > 0)
        result.push_back(*n);
  if (!array || array->empty() || result.size() != array->size()) {
    wrongType(key, "a non-empty array of positive integers", *value);
    return {};
  }
  return result;
}

SmallVector<int64_t> ConfigReader::indexArray(StringRef key, int64_t bound) {
  const llvm::json::Value *value = present(key);
  if (!value)
    return {};
  SmallVector<int64_t> result;
  const llvm::json::Array *array = value->getAsArray();
  if (array)
    for (const llvm::json::Value &element : *array)
      if (std::optional<int64_t> n = element.getAsInteger();
          n && *n >= 0 && *n < bound)
        result.push_back(*n);
  if (!array || result.size() != array->size()) {
    wrongType(key,
              ("an array of indices from 0 to " + llvm::Twine(bound - 1)).str(),
              *value);
    return {};
  }
  return result;
}

bool ConfigReader::boolean(StringRef key, bool fallback) {
  const llvm::json::Value *value = present(key);
  if (!value)
    return fallback;
  if (std::optional<bool> flag = value->getAsBoolean())
    return *flag;
  wrongType(key, "true or false", *value);
  return fallback;
}

std::string ConfigReader::string(StringRef key) {
  const llvm::json::Value *value = present(key);
  if (!value)
    return "";
  if (std::optional<StringRef> text = value->getAsString())
    return text->str();
  wrongType(key, "a string", *value);
  return "";
}

SmallVector<std::string> ConfigReader::stringArray(StringRef key) {
  const llvm::json::Value *value = present(key);
  if (!value)
    return {};
  SmallVector<std::string> result;
  const llvm::json::Array *array = value->getAsArray();
  if (array)
    for (const llvm::json::Value &element : *array)
      if (std::optional<StringRef> s = element.getAsString())
        result.push_back(s->str());
  if (!array || result.size() != array->size()) {
    wrongType(key, "an array of strings", *value);
    return {};
  }
  return result;
}

void ConfigReader::requireObject(StringRef key) {
  const llvm::json::Value *value = present(key);
  if (value && !value->getAsObject())
    wrongType(key, "an object", *value);
}

std::unique_ptr<ConfigReader> ConfigReader::nested(StringRef key) {
  const llvm::json::Value *value = present(key);
  if (!value) {
    fieldError(key) << "missing required field '" << key << "'";
    return nullptr;
  }
  const llvm::json::Object *inner = value->getAsObject();
  if (!inner) {
    wrongType(key, "an object", *value);
    return nullptr;
  }
  auto reader =
      std::make_unique<ConfigReader>(*inner, text, fileName, context);
  reader->flags = flags;
  std::string quoted = ("\"" + key + "\"").str();
  size_t at = text.find(quoted, searchFrom);
  reader->searchFrom = at == StringRef::npos ? searchFrom : at + quoted.size();
  return reader;
}

int64_t ConfigReader::nonNegative(StringRef key, int64_t fallback) {
  const llvm::json::Value *value = present(key);
  if (!value)
    return fallback;
  std::optional<int64_t> number = value->getAsInteger();
  if (!number || *number < 0) {
    wrongType(key, "a non-negative integer", *value);
    return fallback;
  }
  if (*number > kMaxDimension) {
    fieldError(key) << "'" << key << "' = " << *number
                    << " is larger than Loom models (" << kMaxDimension << ")";
    return fallback;
  }
  return *number;
}

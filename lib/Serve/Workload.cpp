//===- Workload.cpp - requests for the serving simulator ------------------===//

#include "loom/Serve/Workload.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdio>

using namespace loom::serve;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Rng
//===----------------------------------------------------------------------===//

uint64_t Rng::next() {
  // splitmix64: Vigna's reference constants (see the header).
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return (next() >> 11) * 0x1.0p-53; }

double Rng::uniformOpen() { return ((next() >> 11) + 0.5) * 0x1.0p-53; }

int64_t Rng::uniformInt(int64_t lo, int64_t hi) {
  uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  // Lemire's multiply-shift: the high 64 bits of a 64 x 64 product.
  unsigned __int128 product =
      static_cast<unsigned __int128>(next()) * static_cast<unsigned __int128>(range);
  return lo + static_cast<int64_t>(product >> 64);
}

double Rng::exponential(double rate) { return -std::log(uniformOpen()) / rate; }

double Rng::normal() {
  // Box-Muller: sqrt(-2 ln U1) cos(2 pi U2).
  double radius = std::sqrt(-2.0 * std::log(uniformOpen()));
  return radius * std::cos(2.0 * M_PI * uniform());
}

double Rng::gamma(double shape) {
  if (shape < 1) {
    // Marsaglia and Tsang, section 6: gamma(a) = gamma(a + 1) * U^(1/a).
    double u = uniformOpen();
    return gamma(shape + 1) * std::pow(u, 1.0 / shape);
  }
  // Marsaglia and Tsang, section 4: d = a - 1/3, c = 1 / sqrt(9 d); accept
  // d v with v = (1 + c x)^3 when ln U < x^2 / 2 + d - d v + d ln v.
  double d = shape - 1.0 / 3.0;
  double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x, v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    double u = uniformOpen();
    if (u < 1.0 - 0.0331 * x * x * x * x)
      return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
      return d * v;
  }
}

//===----------------------------------------------------------------------===//
// LengthDistribution
//===----------------------------------------------------------------------===//

LengthDistribution LengthDistribution::fixed(int64_t length) {
  LengthDistribution d;
  d.kind = Kind::Fixed;
  d.lo = d.hi = length;
  return d;
}

LengthDistribution LengthDistribution::uniform(int64_t lo, int64_t hi) {
  LengthDistribution d;
  d.kind = Kind::Uniform;
  d.lo = lo;
  d.hi = hi;
  return d;
}

/// `value` with six significant digits (printf's %g).
static std::string formatNumber(double value) {
  char text[32];
  snprintf(text, sizeof(text), "%g", value);
  return text;
}

static llvm::Error fieldError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error LengthDistribution::check(StringRef field) const {
  switch (kind) {
  case Kind::Fixed:
    if (lo < 1)
      return fieldError(field + ": the fixed length must be at least 1, not " +
                        llvm::Twine(lo));
    return llvm::Error::success();
  case Kind::Uniform:
    if (lo < 1)
      return fieldError(field + ": the uniform lower bound must be at least "
                                "1, not " + llvm::Twine(lo));
    if (hi < lo)
      return fieldError(field + ": the uniform upper bound " + llvm::Twine(hi) +
                        " is below the lower bound " + llvm::Twine(lo));
    return llvm::Error::success();
  case Kind::Histogram: {
    if (bins.empty())
      return fieldError(field + ": the histogram has no bins");
    double total = 0;
    for (auto [i, bin] : llvm::enumerate(bins)) {
      if (bin.lo < 1 || bin.hi <= bin.lo)
        return fieldError(field + ": histogram bin " + llvm::Twine(i) +
                          " must have 1 <= lo < hi");
      if (!(bin.count >= 0) || !std::isfinite(bin.count))
        return fieldError(field + ": histogram bin " + llvm::Twine(i) +
                          " has a negative or non-finite count");
      if (i > 0 && bin.lo < bins[i - 1].hi)
        return fieldError(field + ": histogram bin " + llvm::Twine(i) +
                          " overlaps or precedes the bin before it");
      total += bin.count;
    }
    if (!(total > 0))
      return fieldError(field + ": the histogram's counts sum to 0");
    return llvm::Error::success();
  }
  }
  return llvm::Error::success();
}

int64_t LengthDistribution::sample(Rng &rng) const {
  switch (kind) {
  case Kind::Fixed:
    return lo;
  case Kind::Uniform:
    return rng.uniformInt(lo, hi);
  case Kind::Histogram: {
    double total = 0;
    for (const LengthBin &bin : bins)
      total += bin.count;
    // Inverse CDF over the bins, then uniform inside the chosen one.
    double target = rng.uniform() * total;
    const LengthBin *chosen = &bins.back();
    double cumulative = 0;
    for (const LengthBin &bin : bins) {
      cumulative += bin.count;
      if (target < cumulative && bin.count > 0) {
        chosen = &bin;
        break;
      }
    }
    return rng.uniformInt(chosen->lo, chosen->hi - 1);
  }
  }
  return lo;
}

double LengthDistribution::mean() const {
  switch (kind) {
  case Kind::Fixed:
    return lo;
  case Kind::Uniform:
    return 0.5 * (lo + hi);
  case Kind::Histogram: {
    double total = 0, sum = 0;
    for (const LengthBin &bin : bins) {
      total += bin.count;
      sum += bin.count * 0.5 * (bin.lo + bin.hi - 1);
    }
    return total > 0 ? sum / total : 0;
  }
  }
  return lo;
}

//===----------------------------------------------------------------------===//
// Reading CSV
//===----------------------------------------------------------------------===//

/// `text` without a trailing `#` comment and surrounding blanks.
static StringRef stripComment(StringRef line) {
  return line.split('#').first.trim();
}

static llvm::Error lineError(StringRef name, size_t line,
                             const llvm::Twine &message) {
  return fieldError(name + ":" + llvm::Twine(line) + ": " + message);
}

/// Parses a non-negative finite number, or reports the column by name.
static llvm::Expected<double> parseNumber(StringRef name, size_t line,
                                          StringRef column, StringRef cell) {
  double value;
  if (cell.empty())
    return lineError(name, line, "missing value for '" + column + "'");
  if (cell.getAsDouble(value) || !std::isfinite(value))
    return lineError(name, line,
                     "'" + column + "' is not a number: '" + cell + "'");
  return value;
}

/// Parses an integer >= 1, or reports the column by name.
static llvm::Expected<int64_t> parseLength(StringRef name, size_t line,
                                           StringRef column, StringRef cell) {
  int64_t value;
  if (cell.empty())
    return lineError(name, line, "missing value for '" + column + "'");
  if (cell.getAsInteger(10, value))
    return lineError(name, line,
                     "'" + column + "' is not an integer: '" + cell + "'");
  if (value < 1)
    return lineError(name, line,
                     "'" + column + "' must be at least 1, not " + cell);
  return value;
}

llvm::Expected<LengthDistribution>
loom::serve::parseHistogram(StringRef text, StringRef name) {
  LengthDistribution d;
  d.kind = LengthDistribution::Kind::Histogram;
  llvm::SmallVector<StringRef> lines;
  text.split(lines, '\n');
  bool sawHeader = false;
  for (auto [index, raw] : llvm::enumerate(lines)) {
    size_t line = index + 1;
    StringRef content = stripComment(raw);
    if (content.empty())
      continue;
    llvm::SmallVector<StringRef, 4> cells;
    content.split(cells, ',');
    for (StringRef &cell : cells)
      cell = cell.trim();
    if (!sawHeader && d.bins.empty() && cells.size() == 3 &&
        cells[0] == "lo" && cells[1] == "hi" && cells[2] == "count") {
      sawHeader = true;
      continue;
    }
    static constexpr const char *columns[] = {"lo", "hi", "count"};
    if (cells.size() < 3)
      return lineError(name, line, llvm::Twine("missing value for '") +
                                       columns[cells.size()] + "'");
    if (cells.size() > 3)
      return lineError(name, line, "expected 3 values (lo,hi,count), got " +
                                       llvm::Twine(cells.size()));
    LengthBin bin;
    llvm::Expected<int64_t> lo = parseLength(name, line, "lo", cells[0]);
    if (!lo)
      return lo.takeError();
    llvm::Expected<int64_t> hi = parseLength(name, line, "hi", cells[1]);
    if (!hi)
      return hi.takeError();
    llvm::Expected<double> count = parseNumber(name, line, "count", cells[2]);
    if (!count)
      return count.takeError();
    if (*hi <= *lo)
      return lineError(name, line, "'hi' (" + cells[1] +
                                       ") must exceed 'lo' (" + cells[0] + ")");
    if (*count < 0)
      return lineError(name, line, "'count' must not be negative: " + cells[2]);
    if (!d.bins.empty() && *lo < d.bins.back().hi)
      return lineError(name, line, "'lo' (" + cells[0] +
                                       ") overlaps the bin before it");
    bin.lo = *lo;
    bin.hi = *hi;
    bin.count = *count;
    d.bins.push_back(bin);
  }
  if (llvm::Error err = d.check(name))
    return std::move(err);
  return d;
}

/// The contents of `path`, or an error naming it.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fieldError(path + ": " + buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<LengthDistribution>
loom::serve::readHistogram(StringRef path) {
  auto buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  return parseHistogram((*buffer)->getBuffer(), path);
}

llvm::Expected<std::vector<Request>> loom::serve::parseTrace(StringRef text,
                                                             StringRef name) {
  llvm::SmallVector<StringRef> lines;
  text.split(lines, '\n');
  // Column positions of the three fields, found in the header.
  int arrivalAt = -1, inputAt = -1, outputAt = -1;
  size_t width = 0;
  std::vector<Request> requests;
  for (auto [index, raw] : llvm::enumerate(lines)) {
    size_t line = index + 1;
    StringRef content = stripComment(raw);
    if (content.empty())
      continue;
    llvm::SmallVector<StringRef, 8> cells;
    content.split(cells, ',');
    for (StringRef &cell : cells)
      cell = cell.trim();
    if (width == 0) {
      for (auto [i, cell] : llvm::enumerate(cells)) {
        if (cell == "arrival_s" || cell == "arrived_at")
          arrivalAt = i;
        else if (cell == "input_tokens" || cell == "num_prefill_tokens")
          inputAt = i;
        else if (cell == "output_tokens" || cell == "num_decode_tokens")
          outputAt = i;
      }
      const char *missing = arrivalAt < 0  ? "arrival_s"
                            : inputAt < 0  ? "input_tokens"
                            : outputAt < 0 ? "output_tokens"
                                           : nullptr;
      if (missing)
        return lineError(name, line,
                         llvm::Twine("the header has no '") + missing +
                             "' column");
      width = cells.size();
      continue;
    }
    auto cell = [&](int at) { return at < (int)cells.size() ? cells[at] : ""; };
    llvm::Expected<double> arrival =
        parseNumber(name, line, "arrival_s", cell(arrivalAt));
    if (!arrival)
      return arrival.takeError();
    if (*arrival < 0)
      return lineError(name, line, "'arrival_s' must not be negative: " +
                                       cell(arrivalAt));
    if (!requests.empty() && *arrival < requests.back().arrival)
      return lineError(name, line,
                       "'arrival_s' goes back in time: " + cell(arrivalAt) +
                           " after " + llvm::Twine(formatNumber(requests.back().arrival)));
    llvm::Expected<int64_t> input =
        parseLength(name, line, "input_tokens", cell(inputAt));
    if (!input)
      return input.takeError();
    llvm::Expected<int64_t> output =
        parseLength(name, line, "output_tokens", cell(outputAt));
    if (!output)
      return output.takeError();
    Request request;
    request.id = requests.size();
    request.arrival = *arrival;
    request.inputTokens = *input;
    request.outputTokens = *output;
    requests.push_back(request);
  }
  if (width == 0)
    return fieldError(name + ": the trace has no header line");
  if (requests.empty())
    return fieldError(name + ": the trace has no requests");
  return requests;
}

llvm::Expected<std::vector<Request>> loom::serve::readTrace(StringRef path) {
  auto buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  return parseTrace((*buffer)->getBuffer(), path);
}

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<Request>>
loom::serve::generateWorkload(const WorkloadSpec &spec) {
  const ArrivalProcess &arrivals = spec.arrivals;
  if (!(arrivals.rate > 0) || !std::isfinite(arrivals.rate))
    return fieldError("arrivals.rate: must be a positive number of requests "
                      "per second, not " + llvm::Twine(formatNumber(arrivals.rate)));
  if (arrivals.kind == ArrivalProcess::Kind::Gamma &&
      (!(arrivals.cv > 0) || !std::isfinite(arrivals.cv)))
    return fieldError("arrivals.cv: the gamma arrivals' coefficient of "
                      "variation must be positive, not " +
                      llvm::Twine(formatNumber(arrivals.cv)));
  if (llvm::Error err = spec.input.check("input"))
    return std::move(err);
  if (llvm::Error err = spec.output.check("output"))
    return std::move(err);
  if (spec.count < 0 || spec.count > kMaxRequests)
    return fieldError("count: must be between 0 and " +
                      llvm::Twine(kMaxRequests) + ", not " +
                      llvm::Twine(spec.count));
  if (spec.count == 0 && (!(spec.duration > 0) || !std::isfinite(spec.duration)))
    return fieldError("duration: with no count, must be a positive number of "
                      "seconds, not " + llvm::Twine(formatNumber(spec.duration)));

  // (Expecting far more requests than the most: refused before drawing.)
  if (spec.count == 0 && arrivals.rate * spec.duration > 2.0 * kMaxRequests)
    return fieldError("duration: " + llvm::Twine(formatNumber(spec.duration)) +
                      " s of arrivals hold more than " +
                      llvm::Twine(kMaxRequests) + " requests");
  Rng rng(spec.seed);
  // Gamma gaps of mean 1 / rate and CV cv: shape k = 1 / cv^2, scale
  // 1 / (rate k), since a gamma's mean is k theta and its CV 1 / sqrt(k).
  double shape = 1.0 / (arrivals.cv * arrivals.cv);
  double scale = 1.0 / (arrivals.rate * shape);
  std::vector<Request> requests;
  if (spec.count > 0)
    requests.reserve(spec.count);
  double time = 0;
  while (true) {
    if (spec.count > 0 && (int64_t)requests.size() == spec.count)
      break;
    double gap = arrivals.kind == ArrivalProcess::Kind::Poisson
                     ? rng.exponential(arrivals.rate)
                     : rng.gamma(shape) * scale;
    time += gap;
    if (spec.count == 0 && time >= spec.duration)
      break;
    if ((int64_t)requests.size() == kMaxRequests)
      return fieldError("duration: " + llvm::Twine(formatNumber(spec.duration)) +
                        " s of arrivals hold more than " +
                        llvm::Twine(kMaxRequests) + " requests");
    Request request;
    request.id = requests.size();
    request.arrival = time;
    request.inputTokens = spec.input.sample(rng);
    request.outputTokens = spec.output.sample(rng);
    requests.push_back(request);
  }
  return requests;
}

//===- Workload.h - requests for the serving simulator ----------*- C++ -*-===//
//
// The requests a serving simulation replays: each has an arrival time, a
// prompt (input) length and an output length in tokens. They come from a
// trace file or are generated from an arrival process (Poisson, or gamma
// for bursts) and two length distributions (fixed, uniform, or a histogram
// read from a data file). Generation is deterministic across platforms and
// library versions: it uses Loom's own generator (splitmix64) and its own
// samplers, never the std:: distributions, whose output the C++ standard
// leaves to each library.
//
// Every reader returns llvm::Error on bad input, naming the field and the
// line; nothing here asserts on input.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SERVE_WORKLOAD_H
#define LOOM_SERVE_WORKLOAD_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace loom::serve {

/// One request: when it arrives and how many tokens it reads and writes.
struct Request {
  /// Its index in arrival order (0, 1, ...).
  int64_t id = 0;
  /// Seconds from the start of the run.
  double arrival = 0;
  /// Prompt tokens (at least 1).
  int64_t inputTokens = 1;
  /// Generated tokens, the first included (at least 1).
  int64_t outputTokens = 1;
};

/// A deterministic pseudo-random generator: splitmix64 (Steele, Lea and
/// Flood, "Fast Splittable Pseudorandom Number Generators", OOPSLA 2014;
/// the constants of Vigna's public-domain splitmix64.c). The same seed gives
/// the same stream on every platform.
class Rng {
public:
  /// A generator whose stream is fixed by `seed`.
  explicit Rng(uint64_t seed) : state(seed) {}

  /// The next 64 random bits.
  uint64_t next();

  /// A double uniform in [0, 1), from the top 53 bits of next().
  double uniform();

  /// A double uniform in (0, 1): never 0, so that log() of it is finite.
  double uniformOpen();

  /// An integer uniform in [lo, hi] (lo <= hi), by Lemire's multiply-shift
  /// ("Fast Random Integer Generation in an Interval", ACM TOMACS 2019)
  /// without the rejection step: the bias is below 2^-32 for any range a
  /// serving workload uses.
  int64_t uniformInt(int64_t lo, int64_t hi);

  /// An exponential variate of rate `rate` (> 0), by inverting its CDF:
  /// -ln(U) / rate.
  double exponential(double rate);

  /// A standard normal variate (Box and Muller, "A Note on the Generation of
  /// Random Normal Deviates", Ann. Math. Stat. 1958), one of each pair.
  double normal();

  /// A gamma variate of shape `shape` (> 0) and scale 1, by Marsaglia and
  /// Tsang ("A Simple Method for Generating Gamma Variables", ACM TOMS
  /// 2000); for shape < 1, their boost gamma(shape + 1) * U^(1 / shape).
  double gamma(double shape);

private:
  uint64_t state;
};

/// One bin of a length histogram: lengths in [lo, hi) seen `count` times.
struct LengthBin {
  int64_t lo = 1;
  int64_t hi = 2;
  double count = 0;
};

/// A distribution of token lengths.
struct LengthDistribution {
  enum class Kind { Fixed, Uniform, Histogram };
  Kind kind = Kind::Fixed;
  /// Fixed: the length. Uniform: the inclusive bounds [lo, hi].
  int64_t lo = 1, hi = 1;
  /// Histogram: the bins, in increasing order, none overlapping. A sample
  /// picks a bin with probability count / total (inverse CDF over the
  /// bins), then a length uniform in [lo, hi).
  llvm::SmallVector<LengthBin, 0> bins;

  /// Always `length` tokens.
  static LengthDistribution fixed(int64_t length);
  /// Uniform over the integers [lo, hi].
  static LengthDistribution uniform(int64_t lo, int64_t hi);

  /// Checks the parameters (lengths >= 1, lo <= hi, bins ordered and with a
  /// positive total); the error names `field`.
  llvm::Error check(llvm::StringRef field) const;

  /// A length drawn from the distribution (which must pass check()).
  int64_t sample(Rng &rng) const;

  /// The distribution's mean length.
  double mean() const;
};

/// Reads a histogram (format in docs/serving.md): lines `lo,hi,count` after
/// an optional header line `lo,hi,count`; `#` starts a comment; blank lines
/// are skipped. `name` prefixes error messages (a file name).
llvm::Expected<LengthDistribution> parseHistogram(llvm::StringRef text,
                                                  llvm::StringRef name);

/// parseHistogram() of the file at `path`.
llvm::Expected<LengthDistribution> readHistogram(llvm::StringRef path);

/// How requests arrive.
struct ArrivalProcess {
  enum class Kind {
    /// Exponential gaps of mean 1 / rate.
    Poisson,
    /// Gamma gaps of mean 1 / rate and coefficient of variation `cv`
    /// (shape 1 / cv^2, scale cv^2 / rate); cv > 1 gives bursts, cv = 1 is
    /// Poisson. The bursty arrivals of vidur's GammaRequestIntervalGenerator
    /// and of DistServe's evaluation (Zhong et al., OSDI 2024, section 6).
    Gamma,
  };
  Kind kind = Kind::Poisson;
  /// Requests per second (> 0).
  double rate = 1;
  /// Gamma only: the gaps' standard deviation over their mean (> 0).
  double cv = 1;
};

/// The most requests a workload generates (about 32 bytes each; a run of
/// this many simulates in about a minute): a count or a duration past it
/// is refused rather than exhausting memory.
constexpr int64_t kMaxRequests = 10'000'000;

/// What to generate: arrivals, two length distributions, and how many
/// requests (a count, or every arrival before a duration).
struct WorkloadSpec {
  ArrivalProcess arrivals;
  LengthDistribution input = LengthDistribution::fixed(128);
  LengthDistribution output = LengthDistribution::fixed(128);
  /// Requests to generate; 0 to stop at `duration` instead.
  int64_t count = 0;
  /// Seconds of arrivals when `count` is 0.
  double duration = 0;
  uint64_t seed = 1;
};

/// The requests of `spec`, in arrival order, the first arriving after one
/// gap from time 0. Errors name the bad field.
llvm::Expected<std::vector<Request>> generateWorkload(const WorkloadSpec &spec);

/// Reads a trace (format in docs/serving.md): CSV with a header naming the
/// columns `arrival_s`, `input_tokens` and `output_tokens` in any order
/// (vidur's `arrived_at`, `num_prefill_tokens` and `num_decode_tokens` are
/// accepted for the same columns; other columns are ignored), one request a
/// line, arrivals non-decreasing and non-negative, lengths integers >= 1.
/// Errors name the file (`name`), the line and the column.
llvm::Expected<std::vector<Request>> parseTrace(llvm::StringRef text,
                                                llvm::StringRef name);

/// parseTrace() of the file at `path`.
llvm::Expected<std::vector<Request>> readTrace(llvm::StringRef path);

} // namespace loom::serve

#endif // LOOM_SERVE_WORKLOAD_H

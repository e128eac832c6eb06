//===- Simulator.cpp - the discrete-event TPU pod simulator ---------------===//

#include "loom/Sim/Simulator.h"
#include "loom/Sim/EventHeap.h"

#include "Replicas.h"

#include "loom/Hardware/CostModel.h"
#include "loom/Schedule/Check.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

using namespace loom;
using namespace loom::sim;
using schedule::TaskKind;

namespace {

constexpr int32_t kNone = -1;

/// 16 bytes: a generated program holds one per task (tens of millions).
/// Its index within its chip is Engine::localOf, its schedule task
/// Engine::specOf.
struct Task {
  int32_t spec; ///< index into Engine::specs
  int32_t chip; ///< index into chips
  union {
    int32_t partner;    ///< a send's or receive's: recv <-> send
    int32_t collective; ///< a collective start's: its instance
  };
  /// Unfinished dependencies: at most schedule::kMaxTaskDeps, and a
  /// free's allocation (a done's start, a host load's store).
  uint32_t waiting : 25;
  uint32_t kind : 4; ///< its schedule::TaskKind
  uint32_t ready : 1, done : 1;
  /// A receive counts as communication only while its data is in flight,
  /// not while it waits for the sender (a pipeline bubble, not a transfer).
  uint32_t inFlight : 1;
  TaskKind taskKind() const { return TaskKind(kind); }
  bool isMessage() const {
    return taskKind() == TaskKind::Send || taskKind() == TaskKind::Recv;
  }
  bool isCollective() const { return taskKind() == TaskKind::Collective; }
};
static_assert(sizeof(Task) == 16, "a task's state is kept small");

struct Flow {
  llvm::SmallVector<int32_t, 4> links;
  double remaining, rate = 0, updated = 0, latency;
  /// Fraction of each link's bandwidth the flow can use (calibration).
  double efficiency = 1;
  uint32_t version = 0;
  bool active = true;
  enum class Owner { Message, Step } owner;
  int32_t id; ///< send task, or collective instance
  /// A collective's flow: its step, the member index that sends it and
  /// which way round (+1: to the next member, -1: to the previous one).
  int32_t step = 0, sender = 0;
  int8_t dir = 0;
};

struct Link {
  int64_t id; ///< see Engine::linkId and Engine::nicLinkId
  /// A host's NIC on the data-center network, at the DCN's bandwidth (not
  /// the ICI's, nor its calibrated efficiency).
  bool dcn = false;
  llvm::SmallVector<int32_t, 4> flows;
  double bytes = 0, busy = 0, since = 0;
  bool dirty = false; ///< its flows' shares are due to be recomputed
  /// The circuit holding it, whose bundles' flows are on it (-1: none).
  int32_t circuit = -1;
};

/// The links that a ring or line step over neighbours takes, each by one
/// of its flows (Engine::patternOf). While a circuit holds its links no
/// flow is on them: its bundles stand for their flows, one on each link,
/// so every link of it carries the same flows and each flow of a bundle
/// has the same share.
struct Circuit {
  llvm::SmallVector<int32_t, 0> links;
  /// Its bundles whose flows are sending, in the order they started.
  llvm::SmallVector<int32_t, 2> bundles;
  bool held = false;
  bool dirty = false; ///< its bundles' shares are due to be recomputed
};

/// The flows of one step of a collective on a circuit, alike in bytes,
/// rate and latency, as one: the state each of them would have.
struct Bundle {
  int32_t instance = 0, step = 0, pattern = 0;
  double remaining = 0, rate = 0, updated = 0, latency = 0, efficiency = 1;
  /// When its flows have left (the time of its last BundleSent).
  double sentAt = 0;
  /// Counted up on every change, as a flow's: stale events never match.
  uint32_t version = 0;
  bool sending = true;
};

/// Each flow of a step over a group: the member that sends it, which way
/// round and the one link it takes, in Engine::startStep's order.
struct StepPattern {
  struct Sender {
    int32_t member;
    int8_t dir;
    int32_t link;
  };
  llvm::SmallVector<Sender, 0> flows;
  int32_t circuit = -1;
};

struct Instance {
  llvm::SmallVector<int32_t, 8> members; ///< tasks, in group order
  llvm::ArrayRef<int64_t> group;         ///< chip ids (the schedule's)
  CollectiveKind kind;
  /// Its step pattern (Engine::patternOf; -1: none, -2: not yet known).
  /// (Beside `kind`, in what would be padding.)
  int32_t pattern = -2;
  double bytes;
  /// Members whose start has been issued; steps; flows still to arrive of
  /// the step under way (step by step) or of the last step (chained).
  int32_t arrived = 0, steps = 0, pending = 0;
  bool ring = false;
  /// A ring whose members are not all neighbours: its members pass chunks
  /// on as they come (Engine::sendNextStep) rather than step by step.
  bool chained = false;
  /// Per member and direction (Engine::stepSlot): steps it has started
  /// sending, its sends that have left, and chunks arrived from the member
  /// behind it.
  /// (One vector of 3 x 2n, a chained ring's alone: a generated program
  /// holds millions of instances.)
  llvm::SmallVector<int32_t, 0> chain;
  int32_t &started(int32_t slot) { return chain[slot]; }
  int32_t &sent(int32_t slot) { return chain[chain.size() / 3 + slot]; }
  int32_t &received(int32_t slot) {
    return chain[2 * (chain.size() / 3) + slot];
  }
};

struct ChipState {
  int64_t id;
  llvm::SmallVector<int32_t> computes; ///< compute tasks in program order
  size_t next = 0;
  bool busy = false;
  int32_t activeComm = 0;
  double touched = 0;
  /// Bytes allocated, in integers so that frees return exactly what their
  /// allocations took.
  int64_t hbm = 0;
  /// The host DMA engines, to the host (0: host stores) and from it (1:
  /// host loads): their tasks that became ready, in that order, the first
  /// under way.
  std::array<std::deque<int32_t>, 2> hostQueues;
  /// Bytes stored in the host's memory and not loaded back yet.
  int64_t host = 0;
  ChipStats stats;
  /// The last task of the chip whose state changed, and the first not
  /// done (the repetition proof's window).
  int32_t maxTouched = -1, firstNotDone = 0;
};

class Engine {
public:
  Engine(const TargetDesc &target, TopologyDesc topology,
         const schedule::Schedule &schedule, bool recordTrace,
         int64_t programSteps, SimOptions options)
      : target(target), model(target), topology(std::move(topology)),
        sliceChips(this->topology.sliceChips()),
        dcn(schedule::getDcnFigures(schedule, target)), schedule(schedule),
        recordTrace(recordTrace), programSteps(programSteps),
        options(options) {}

  /// Runs only the first of `found`'s replicas and copies its figures to
  /// the others (before load): false, changing nothing, unless every route
  /// the first replica's flows can take has in each other replica a route
  /// of as many links, link for link, and no link is taken by two.
  bool runReplicasOnce(Replicas found);
  /// Builds the run's state from a schedule that passed checkSchedule.
  void load();
  static Task makeTask(int32_t spec, TaskKind kind, size_t chip,
                       uint32_t waiting) {
    Task task;
    task.spec = spec;
    task.chip = chip;
    task.partner = kNone;
    task.waiting = waiting;
    task.kind = uint32_t(kind);
    task.ready = task.done = task.inFlight = false;
    return task;
  }
  const schedule::Task &specOf(const Task &task) const {
    return *specs[task.spec];
  }
  /// Builds the run's state for the whole program of `length` steps that
  /// `schedule`'s first steps stand for (simulateProgram); false, with the
  /// state of load(), when its steps are not alike. With `prove`, the run
  /// is simulate's of those `length` steps lowered, with the repetition
  /// proof for `programSteps` (simulateByRepetition).
  bool loadProgram(int64_t length, bool prove = false);
  SimResult run();
  const std::string &brokenAccounting() const { return accounting; }

private:
  /// The tasks of the schedule's chip `c` the run holds: none on a chip
  /// whose replica copies the first's (runReplicasOnce).
  llvm::ArrayRef<schedule::Task> programOf(size_t c) const {
    if (replicas && !replicas->runs(c))
      return {};
    return schedule.chips[c].tasks;
  }
  /// The schedule's step starts (stepStarts), all 0 on a chip that holds no
  /// tasks (programOf).
  const std::vector<std::vector<int64_t>> &scheduleStarts() const {
    return replicas ? replicaStarts : schedule.stepStarts;
  }
  /// Groups that are not a cycle of neighbours, by their chips: whether
  /// they fill a block a ring closes over (many collectives share a group).
  using BlockRings = std::map<llvm::SmallVector<int64_t, 8>, bool>;
  /// Whether a collective over `group` runs as a ring, and whether as a
  /// chained one (a ring whose members are not all neighbours).
  std::pair<bool, bool> ringOf(llvm::ArrayRef<int64_t> group,
                               BlockRings &blockRings) const;
  // Topology: chips numbered slice-major, each slice's in row-major order.
  int64_t numChips() const { return topology.numChips(); }
  int64_t sliceOf(int64_t id) const { return id / sliceChips; }
  /// A chip's coordinates within its slice.
  llvm::SmallVector<int64_t, 3> coords(int64_t id) const {
    id %= sliceChips;
    llvm::SmallVector<int64_t, 3> c(topology.shape.size());
    for (int64_t axis = topology.shape.size() - 1; axis >= 0; --axis) {
      c[axis] = id % topology.shape[axis];
      id /= topology.shape[axis];
    }
    return c;
  }
  int64_t idOf(llvm::ArrayRef<int64_t> c) const {
    int64_t id = 0;
    for (size_t axis = 0; axis < c.size(); ++axis)
      id = id * topology.shape[axis] + c[axis];
    return id;
  }
  /// A link and direction: leaving `chip` along `axis`, up or down.
  int64_t linkId(int64_t chip, size_t axis, int dir) const {
    return chip * 2 * int64_t(topology.shape.size()) + 2 * axis +
           (dir < 0 ? 1 : 0);
  }
  /// The chips of a host, sharing its NICs: consecutive in a slice's
  /// order, all of a slice smaller than a host (checkSchedule ensures one
  /// divides the other).
  int64_t chipsPerHost() const {
    return std::min(dcn.chipsPerHost, sliceChips);
  }
  /// A host's NICs on the DCN, out of the host (egress) or into it
  /// (ingress): ids past every ICI link's.
  int64_t nicLinkId(int64_t chip, bool ingress) const {
    return numChips() * 2 * int64_t(topology.shape.size()) +
           2 * (chip / chipsPerHost()) + (ingress ? 1 : 0);
  }
  bool isNicLink(int64_t id) const {
    return id >= numChips() * 2 * int64_t(topology.shape.size());
  }
  /// The state of link `id`, made when a flow first uses it: memory grows
  /// with the links a schedule uses, not with the topology's size.
  int32_t linkSlot(int64_t id) {
    auto [it, fresh] = linkIndex.try_emplace(id, links.size());
    if (fresh)
      links.push_back({id, isNicLink(id), {}});
    return it->second;
  }
  void route(int64_t from, int64_t to, llvm::SmallVectorImpl<int64_t> &path) const;

  void push(double time, Event::Kind kind, int32_t a, uint32_t b = 0) {
    queue.push(Event(time, seq++, kind, a, b));
  }
  void touch(ChipState &chip) {
    if (chip.activeComm > 0 && !chip.busy)
      chip.stats.exposedComm += now - chip.touched;
    chip.touched = now;
  }
  void commBegin(int32_t chip) {
    touch(chips[chip]);
    ++chips[chip].activeComm;
  }
  void commEnd(int32_t chip) {
    touch(chips[chip]);
    --chips[chip].activeComm;
  }

  void onReady(int32_t t);
  void finish(int32_t t, uint8_t engine);
  /// Starts host task `t` on its direction's engine, which is free.
  void startHost(int32_t t);
  /// Host task `t` is done: the host's memory changes, and its engine
  /// takes the next task in its queue.
  void hostDone(int32_t t);
  void advance(int32_t chip);
  void startFlow(int64_t from, int64_t to, double bytes, Flow::Owner owner,
                 int32_t id, bool ring, int32_t step = 0, int32_t sender = 0,
                 int8_t dir = 0);
  /// The link slots of the route from `from` to `to`.
  const llvm::SmallVector<int32_t, 4> &routeSlots(int64_t from, int64_t to);
  /// Puts `flow` in a free slot, or a new one.
  int32_t addFlow(Flow flow);
  void rerate(int32_t link);
  /// Flows that start or end change their links' shares; the shares are
  /// recomputed once per link when the clock is about to move on, so that
  /// many flows starting or ending at one instant (an all-to-all) cost one
  /// pass per link rather than one per flow.
  void markDirty(int32_t link) {
    if (!links[link].dirty) {
      links[link].dirty = true;
      dirtyLinks.push_back(link);
    }
  }
  /// (A circuit's place in the list is -1 - its index.)
  void rerateDirty() {
    for (int32_t l : dirtyLinks) {
      if (l < 0) {
        Circuit &circuit = circuits[-1 - l];
        if (circuit.dirty) {
          circuit.dirty = false;
          rerateCircuit(-1 - l);
        }
        continue;
      }
      links[l].dirty = false;
      rerate(l);
    }
    dirtyLinks.clear();
  }
  void markCircuitDirty(int32_t c) {
    if (!circuits[c].dirty) {
      circuits[c].dirty = true;
      dirtyLinks.push_back(-1 - c);
    }
  }
  void endFlow(int32_t f);
  void arrive(const Flow &flow);
  /// Starts a collective once every member has issued it: its first step's
  /// flows (all of an all-to-all's).
  void startCollective(int32_t instance);
  /// A ring or line step's flow has left its sender (its bytes are on the
  /// wire; they arrive a latency later).
  void stepSent(const Flow &flow);
  /// Starts every flow of `step` (the first, or the next of a collective run
  /// step by step).
  void startStep(int32_t instance, int32_t step);
  /// Starts `member`'s next step one way round once it may (see there).
  void sendNextStep(int32_t instance, int32_t member, int8_t dir);
  static int32_t stepSlot(int32_t member, int8_t dir) {
    return 2 * member + (dir > 0 ? 1 : 0);
  }
  /// Sends member `sender`'s chunk of `step` one member along `dir`.
  void startStepFlow(int32_t instance, int32_t step, int32_t sender,
                     int8_t dir);
  /// The members of `instance` done once its last step is in.
  void finishCollective(int32_t instance);

  // Ring and line steps run as bundles (SimOptions::everyFlow).
  /// Steps run as bundles: not in the repetition proof's window, whose
  /// snapshots see every flow.
  bool bundling() const { return !options.everyFlow && !proving; }
  /// The step pattern of `instance`'s group, made at its first step: -1
  /// unless each flow of a step takes one link, no two the same one.
  int32_t patternOf(int32_t instance);
  int32_t makePattern(const Instance &instance);
  /// Holds circuit `c`'s links for its bundles if nothing else is on them;
  /// an idle circuit holding some of them lets them go.
  bool holdCircuit(int32_t c);
  /// Turns circuit `c`'s sending bundles back into their flows, as they
  /// stand, and lets its links go: something else is to use one.
  void releaseCircuit(int32_t c);
  void startBundle(int32_t instance, int32_t step, int32_t pattern);
  void rerateCircuit(int32_t c);
  void bundleSent(int32_t b);
  void bundleArrived(int32_t b);
  void freeBundle(int32_t b) {
    ++bundles[b].version;
    freeBundles.push_back(b);
  }
  std::string describe(int32_t t) const;

  // The repetition proof (simulate's programSteps).
  /// The state of the run at a step's start, relative to it.
  struct Snapshot {
    int64_t step = 0;
    double now = 0;
    /// The first and last step of the tasks it names (-1: before the
    /// first step), and whether two of its flows could not be told apart.
    int64_t minStep = std::numeric_limits<int64_t>::max(), maxStep = -1;
    bool ambiguous = false;
    std::vector<int64_t> ints;
    /// Times relative to `now` and bytes, each with its tolerance.
    std::vector<std::pair<double, double>> reals;
    std::vector<ChipStats> stats;
    std::vector<std::pair<double, double>> linkStats; ///< bytes, busy
    uint64_t events = 0;
  };
  /// Sets `alike`: the first step from which every step up to the
  /// lowered last but one is its predecessor's task for task, with at
  /// least `compared` such steps after it; -1 if none.
  /// `programSteps` the program's steps (0: this run's own).
  void findAlikeSteps(int64_t compared = 3, int64_t programSteps = 0);
  bool stepsAlike(int64_t t) const;
  Snapshot snapshot(int64_t step);
  bool sameState(const Snapshot &a, const Snapshot &b) const;
  void atInstantEnd();
  void extrapolate(SimResult &result) const;
  void extrapolateLinks();
  void touchTask(int32_t t) {
    ChipState &chip = chips[tasks[t].chip];
    chip.maxTouched = std::max(chip.maxTouched, localOf(t));
  }
  int32_t localOf(int32_t t) const { return t - chipBase[tasks[t].chip]; }

  const TargetDesc &target;
  CostModel model;
  TopologyDesc topology;
  int64_t sliceChips; ///< topology.sliceChips(), asked for every flow
  schedule::DcnFigures dcn;
  const schedule::Schedule &schedule;
  bool recordTrace;
  int64_t programSteps;
  SimOptions options;
  /// The repetition proof is looking for a step that repeats.
  bool proving = false;
  /// Replicas run once (runReplicasOnce), and their step starts.
  std::optional<Replicas> replicas;
  std::vector<std::vector<int64_t>> replicaStarts;
  /// Per replica but the first: the link each of the first's stands for.
  std::vector<llvm::DenseMap<int64_t, int64_t>> replicaLinks;
  /// Steps the schedule holds, the first of the alike ones (-1: none).
  int64_t lowered = 0, alike = -1;
  std::vector<int32_t> chipBase;
  /// The snapshots so far (a period may be up to kMaxPeriod steps: two
  /// stages whose events come within rounding of each other alternate).
  std::vector<Snapshot> history;
  static constexpr int64_t kMaxPeriod = 3;
  int64_t periodSteps = 0;
  /// The two snapshots that proved the program periodic.
  std::optional<Snapshot> proofFrom, proofTo;
  /// The tasks ready from the start are being made ready.
  bool starting = false;
  /// The run is of the whole program loadProgram generated.
  bool generated = false;
  /// A generated run that proves, as simulate's would of that program
  /// lowered: the steps of the schedule it was generated from, and each
  /// chip's step starts in the generated program (`stepStarts`' in the
  /// lowered one).
  int64_t templateSteps = 0;
  std::vector<std::vector<int64_t>> generatedStarts;
  /// The step starts the proof reads: the schedule's, or the generated
  /// program's.
  const std::vector<std::vector<int64_t>> &stepStarts() const {
    return templateSteps > 0 ? generatedStarts : scheduleStarts();
  }
  /// Tasks of chip `c` in the run.
  int64_t chipSize(size_t c) const {
    return (c + 1 < chipBase.size() ? chipBase[c + 1] : int64_t(tasks.size())) -
           chipBase[c];
  }
  /// The run proves its program periodic (simulate's programSteps).
  bool proves() const {
    return programSteps > 0 && (!generated || templateSteps > 0);
  }
  /// The schedule has host transfers: the repetition proof does not
  /// capture the host engines, so no run of it is extrapolated.
  bool hasHost = false;

  std::vector<Task> tasks;
  /// The schedule's tasks, in chip order (a generated program's tasks name
  /// their template's).
  std::vector<const schedule::Task *> specs;
  /// A generated program's: each compute task's seconds and FLOPs, by its
  /// schedule task (the copies read the copied step's over and over, from
  /// a table a sixteenth of its tasks' size).
  std::vector<std::pair<double, double>> computeCosts;
  /// A generated program's: the bytes each allocation takes and each free
  /// gives back (its allocation's), by schedule task, for the same reason.
  std::vector<int64_t> hbmBytes;
  std::vector<int32_t> dependentsStart, dependents; // CSR
  std::vector<ChipState> chips;
  std::vector<Flow> flows;
  /// Slots of flows that have arrived, for new flows to reuse: a run holds
  /// the flows in flight, not every flow it ever started (millions in a
  /// large DiT plan, most of a search's memory). A reused slot keeps
  /// counting its version, so a stale FlowDone never matches the new flow.
  std::vector<int32_t> freeFlows;
  std::vector<Link> links;
  llvm::DenseMap<int64_t, int32_t> linkIndex;
  /// The link slots of each (from, to) route taken so far.
  llvm::DenseMap<std::pair<int64_t, int64_t>, llvm::SmallVector<int32_t, 4>>
      routes;
  std::vector<int32_t> dirtyLinks;
  std::vector<Circuit> circuits;
  /// Circuits by their sorted links; step patterns by their group.
  std::map<llvm::SmallVector<int32_t, 8>, int32_t> circuitOf;
  std::vector<StepPattern> patterns;
  llvm::DenseMap<std::pair<const int64_t *, size_t>, int32_t> patternIndex;
  std::vector<Bundle> bundles;
  std::vector<int32_t> freeBundles;
  std::vector<Instance> instances;
  /// Each send by (sender, receiver, tag), to pair it with its receive;
  /// hashed (only looked up), its chips checked (checkSchedule) before, so
  /// no key is DenseMap's empty or tombstone one.
  llvm::DenseMap<std::tuple<int64_t, int64_t, int64_t>, int32_t> sends;
  /// The event queue, open to the repetition proof's snapshots.
  EventHeap queue;
  uint64_t seq = 0, events = 0;
  double now = 0;
  /// When the last task finished: the makespan. (A flow re-rated leaves
  /// its earlier end in the queue, stale; popping it moves `now` on.)
  double lastFinish = 0;
  std::string failure;
  /// A broken invariant of the run itself: the result is refused.
  std::string accounting;
  std::vector<TraceEvent> trace;
  /// Per task, when it started (traces only).
  std::vector<double> startTimes;
  size_t finished = 0;

  // The whole program generated from its first steps (loadProgram).
  /// The copied step's first task and the end of it, per chip; the first
  /// task of the first alike step; the step's length.
  std::vector<int64_t> copyBegin, copyEnd, alikeBegin, stepLength;
  /// Steps added after the copied one (0: the schedule as it is).
  int64_t added = 0;
  /// Where a task of the generated program stands (mapTask).
  struct Origin {
    int64_t local; ///< its task in the schedule (the template)
    int64_t level; ///< the copies of the step before it
    bool after;    ///< past the copies: the last step and the end
  };
  Origin mapTask(int32_t chip, int64_t v) const;
  /// mapTask(chip, v + 1), `origin` being mapTask(chip, v): without
  /// mapTask's division, for the loops over every task.
  Origin nextOrigin(int32_t chip, int64_t v, Origin origin) const {
    if (origin.after)
      return {origin.local + 1, origin.level, true};
    if (origin.local + 1 < copyEnd[chip])
      return {origin.local + 1, origin.level, false};
    if (origin.level < added && stepLength[chip] > 0)
      return {copyBegin[chip], origin.level + 1, false};
    return {v + 1 - added * stepLength[chip], added, true};
  }
  /// The task of chip `to` that `schedule` index `index` names, seen from a
  /// task at `from` (see loadProgram).
  int64_t refer(const Origin &from, int32_t to, int64_t index) const;
};

void Engine::route(int64_t from, int64_t to,
                   llvm::SmallVectorImpl<int64_t> &path) const {
  // Between slices: out through the sender's host NIC, into the
  // receiver's; no ICI link is used.
  if (sliceOf(from) != sliceOf(to)) {
    path.push_back(nicLinkId(from, /*ingress=*/false));
    path.push_back(nicLinkId(to, /*ingress=*/true));
    return;
  }
  int64_t base = sliceOf(from) * sliceChips;
  model.route(topology.shape, coords(from), coords(to),
              [&](llvm::ArrayRef<int64_t> at, unsigned axis, int dir) {
                path.push_back(linkId(base + idOf(at), axis, dir));
              });
}

void Engine::load() {
  size_t total = 0;
  for (size_t c = 0; c < schedule.chips.size(); ++c)
    total += programOf(c).size();
  tasks.reserve(total);
  specs.reserve(total);
  // Dependents per task, counted, then laid out as compressed rows.
  std::vector<int32_t> counts(total, 0);
  std::unordered_map<int64_t, int32_t> instanceOf; // by tag, any number
  for (auto [c, chip] : llvm::enumerate(schedule.chips)) {
    ChipState state;
    state.id = chip.id;
    state.stats.id = chip.id;
    int32_t base = tasks.size();
    chipBase.push_back(base);
    for (auto [i, spec] : llvm::enumerate(programOf(c))) {
      // (More dependencies than 2^26 would not fit in memory.)
      Task task =
          makeTask(specs.size(), spec.kind, chips.size(), spec.deps.size());
      specs.push_back(&spec);
      int32_t self = tasks.size();
      for (int64_t dep : spec.deps)
        ++counts[base + dep];
      switch (spec.kind) {
      case TaskKind::Compute:
        state.computes.push_back(self);
        break;
      case TaskKind::Send:
        sends.try_emplace(std::make_tuple(chip.id, spec.peer, spec.tag), self);
        break;
      case TaskKind::Collective: {
        auto [it, fresh] = instanceOf.try_emplace(spec.tag, instances.size());
        if (fresh) {
          Instance instance;
          instance.group = spec.group;
          instance.kind = spec.collective;
          instance.bytes = spec.bytes;
          instances.push_back(std::move(instance));
        }
        instances[it->second].members.push_back(self);
        task.collective = it->second;
        break;
      }
      case TaskKind::Free:
        // A free runs after its allocation, listed in `deps` or not
        // (docs/schedule-format.md).
        ++task.waiting;
        ++counts[base + spec.alloc];
        break;
      case TaskKind::CollectiveDone:
        // Likewise a collective's done after its start.
        ++task.waiting;
        ++counts[base + spec.start];
        break;
      case TaskKind::HostLoad:
        // And a host load after its store.
        ++task.waiting;
        ++counts[base + spec.store];
        hasHost = true;
        break;
      case TaskKind::HostStore:
        hasHost = true;
        break;
      case TaskKind::Recv:
      case TaskKind::Alloc:
        break;
      }
      tasks.push_back(task);
    }
    chips.push_back(std::move(state));
  }
  for (auto [t, task] : llvm::enumerate(tasks))
    if (task.taskKind() == TaskKind::Recv) {
      int32_t send = sends.at(std::make_tuple(specOf(task).peer,
                                              chips[task.chip].id,
                                              specOf(task).tag));
      task.partner = send;
      tasks[send].partner = t;
    }
  BlockRings blockRings;
  for (Instance &instance : instances) {
    int64_t n = instance.group.size();
    instance.steps = instance.kind == CollectiveKind::AllToAll ? 1
                     : instance.kind == CollectiveKind::AllReduce ? 2 * (n - 1)
                                                                  : n - 1;
    std::tie(instance.ring, instance.chained) =
        ringOf(instance.group, blockRings);
  }
  dependentsStart.assign(total + 1, 0);
  for (size_t t = 0; t < total; ++t)
    dependentsStart[t + 1] = dependentsStart[t] + counts[t];
  dependents.assign(dependentsStart.back(), 0);
  std::vector<int32_t> fill(dependentsStart.begin(), dependentsStart.end() - 1);
  int32_t base = 0;
  for (size_t c = 0; c < schedule.chips.size(); ++c) {
    llvm::ArrayRef<schedule::Task> program = programOf(c);
    for (auto [i, spec] : llvm::enumerate(program)) {
      for (int64_t dep : spec.deps)
        dependents[fill[base + dep]++] = base + i;
      if (spec.kind == TaskKind::Free)
        dependents[fill[base + spec.alloc]++] = base + i;
      if (spec.kind == TaskKind::CollectiveDone)
        dependents[fill[base + spec.start]++] = base + i;
      if (spec.kind == TaskKind::HostLoad)
        dependents[fill[base + spec.store]++] = base + i;
    }
    base += program.size();
  }
  if (recordTrace)
    startTimes.assign(total, -1);
}

std::pair<bool, bool> Engine::ringOf(llvm::ArrayRef<int64_t> group,
                                     BlockRings &blockRings) const {
  int64_t n = group.size();
  // A group across slices (one chip of each, checkSchedule) meets in the
  // DCN's switches: any order closes a ring, every step one message.
  if (n > 1 && sliceOf(group[0]) != sliceOf(group[1]))
    return {n > 2, false};
  bool neighbours = n > 2;
  for (int64_t i = 0; i < n && neighbours; ++i)
    neighbours = model.hops(topology.shape, coords(group[i]),
                            coords(group[(i + 1) % n])) == 1;
  bool ring = neighbours;
  if (n > 2 && !neighbours) {
    auto [known, fresh] =
        blockRings.try_emplace(llvm::SmallVector<int64_t, 8>(group), false);
    if (fresh) {
      llvm::SmallVector<llvm::SmallVector<int64_t, 3>> members;
      for (int64_t chip : group)
        members.push_back(coords(chip));
      known->second = model.runsAsRing(topology.shape, members);
    }
    ring = known->second;
  }
  return {ring, ring && !neighbours};
}

//===----------------------------------------------------------------------===//
// Replicas run once
//===----------------------------------------------------------------------===//

bool Engine::runReplicasOnce(Replicas found) {
  // Every pair of chips the first replica's flows may go between: its
  // messages' and, per group of its collectives, each member's neighbours
  // in the group's order (every pair of an all-to-all's).
  llvm::DenseMap<int64_t, int64_t> position;
  for (auto [k, id] : llvm::enumerate(found.ids[0]))
    position[id] = k;
  std::set<std::pair<int64_t, int64_t>> pairs;
  std::set<std::pair<llvm::SmallVector<int64_t, 8>, bool>> groups;
  for (size_t c = 0; c < schedule.chips.size(); ++c) {
    if (!found.runs(c))
      continue;
    int64_t id = schedule.chips[c].id;
    for (const schedule::Task &task : schedule.chips[c].tasks) {
      if (task.kind == TaskKind::Send)
        pairs.insert({id, task.peer});
      if (task.kind == TaskKind::Collective)
        groups.insert({llvm::SmallVector<int64_t, 8>(task.group.begin(),
                                                     task.group.end()),
                       task.collective == CollectiveKind::AllToAll});
    }
  }
  replicas = std::move(found);
  auto moved = [&](int64_t id, size_t g) {
    return replicas->ids[g][position.at(id)];
  };
  auto refuse = [&] {
    replicas.reset();
    replicaLinks.clear();
    return false;
  };
  BlockRings blockRings;
  for (const auto &[group, allToAll] : groups) {
    int64_t n = group.size();
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = 0; b < n; ++b)
        if (a != b && (allToAll || b == (a + 1) % n || a == (b + 1) % n))
          pairs.insert({group[a], group[b]});
    // Each replica's copy of the group runs as this one does.
    std::pair<bool, bool> ring = ringOf(group, blockRings);
    for (size_t g = 1; g < size_t(replicas->copies); ++g) {
      llvm::SmallVector<int64_t, 8> copy;
      for (int64_t id : group)
        copy.push_back(moved(id, g));
      if (ringOf(copy, blockRings) != ring)
        return refuse();
    }
  }
  // Each pair's route and its twin's in every other replica: as many
  // links, each link of the first replica's standing for one of each other
  // replica's, no link taken by two replicas.
  llvm::DenseSet<int64_t> taken;
  replicaLinks.clear();
  replicaLinks.resize(replicas->copies);
  llvm::SmallVector<int64_t, 8> path, copy;
  for (const auto &[from, to] : pairs) {
    path.clear();
    route(from, to, path);
    taken.insert(path.begin(), path.end());
    for (size_t g = 1; g < size_t(replicas->copies); ++g) {
      copy.clear();
      route(moved(from, g), moved(to, g), copy);
      if (copy.size() != path.size())
        return refuse();
      for (size_t l = 0; l < path.size(); ++l)
        if (replicaLinks[g].try_emplace(path[l], copy[l]).first->second !=
            copy[l])
          return refuse();
    }
  }
  llvm::DenseSet<int64_t> all(taken.begin(), taken.end());
  for (size_t g = 1; g < size_t(replicas->copies); ++g)
    for (const auto &[first, link] : replicaLinks[g])
      if (!all.insert(link).second)
        return refuse();
  // A chip holding no tasks starts every step at its first task.
  if (!schedule.stepStarts.empty()) {
    replicaStarts = schedule.stepStarts;
    for (size_t c = 0; c < replicaStarts.size(); ++c)
      if (!replicas->runs(c))
        std::fill(replicaStarts[c].begin(), replicaStarts[c].end(), 0);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The whole program generated from its first steps
//===----------------------------------------------------------------------===//

Engine::Origin Engine::mapTask(int32_t c, int64_t v) const {
  if (v < copyEnd[c])
    return {v, 0, false};
  int64_t length = stepLength[c], gap = added * length;
  if (v < copyEnd[c] + gap) {
    int64_t q = v - copyEnd[c];
    return {copyBegin[c] + q % length, q / length + 1, false};
  }
  return {v - gap, added, true};
}

int64_t Engine::refer(const Origin &from, int32_t to, int64_t index) const {
  // A copy `level` steps on names the tasks its step names, `level` steps
  // on (the steps are alike, so is what they name); a task before the
  // copies names the tasks the schedule has. The last step and the end
  // name the alike steps' tasks and later `added` steps on, and the ones
  // before the alike steps (the whole run's allocations, the warm-up) where
  // they are.
  if (from.after)
    return index >= alikeBegin[to] ? index + added * stepLength[to] : index;
  return index + from.level * stepLength[to];
}

bool Engine::loadProgram(int64_t length, bool prove) {
  // The schedule as it is first: its steps compared, its messages paired
  // and its collectives found, to be copied.
  load();
  // The copied step alike its predecessor (the proof compares more).
  findAlikeSteps(/*compared=*/2, length);
  if (alike < 0)
    return false;
  dependents = {};
  dependentsStart = {};
  sends.clear();
  // Steps [alike, lowered - 2] are each the one before shifted; the last
  // of them is copied `added` times, the last step and the end follow.
  int64_t copied = lowered - 2;
  added = length - lowered;
  const auto &steps = scheduleStarts();
  size_t numChips = chips.size();
  std::vector<int32_t> shortBase = chipBase;
  size_t total = 0;
  chipBase.clear();
  for (size_t c = 0; c < numChips; ++c) {
    copyBegin.push_back(steps[c][copied]);
    copyEnd.push_back(steps[c][copied + 1]);
    alikeBegin.push_back(steps[c][alike]);
    stepLength.push_back(copyEnd[c] - copyBegin[c]);
    chipBase.push_back(total);
    total += programOf(c).size() + added * stepLength[c];
  }
  if (total >= size_t(std::numeric_limits<int32_t>::max()))
    return false;
  std::vector<Task> pattern = std::move(tasks);
  std::vector<Instance> patternInstances = std::move(instances);
  tasks = {};
  instances = {};
  // Reserved exactly (a vector that grows holds twice as much a while):
  // a task of the copied step is there added + 1 times.
  size_t firstMembers = 0;
  for (size_t c = 0; c < numChips; ++c) {
    size_t computes = 0;
    for (int64_t i = 0, e = programOf(c).size(); i < e; ++i) {
      const Task &task = pattern[shortBase[c] + i];
      size_t times = i >= copyBegin[c] && i < copyEnd[c] ? added + 1 : 1;
      if (task.taskKind() == TaskKind::Compute)
        computes += times;
      if (task.isCollective() &&
          patternInstances[task.collective].members.front() ==
              int32_t(shortBase[c] + i))
        firstMembers += times;
    }
    chips[c].computes = {};
    chips[c].computes.reserve(computes);
  }
  instances.reserve(firstMembers);
  // Each task as its template in the schedule, what it names placed by
  // refer(); its dependents counted, then laid out as compressed rows.
  tasks.reserve(total);
  dependentsStart.assign(total + 1, 0);
  // Each instance by its key, its first member's task: found through that
  // task, which comes first (a lower chip, or itself) and was keyed so
  // when the lowering made them; any other key in a map. (The map held
  // every instance: the probes of millions of keys were a quarter of
  // loading a large program, each a cache miss.)
  std::vector<int32_t> instanceKey;
  instanceKey.reserve(firstMembers);
  llvm::DenseMap<int32_t, int32_t> instanceOf; // keys not found that way
  auto named = [&](const Origin &from, int32_t c, int64_t index,
                   int64_t self) -> std::optional<int32_t> {
    int64_t v = refer(from, c, index);
    int64_t size = (c + 1 < int64_t(numChips) ? chipBase[c + 1] : total) -
                   chipBase[c];
    if (v < 0 || v >= size || (self >= 0 && v >= self))
      return std::nullopt;
    return chipBase[c] + v;
  };
  for (size_t c = 0; c < numChips; ++c) {
    int64_t size = programOf(c).size() + added * stepLength[c];
    Origin origin = mapTask(c, 0);
    for (int64_t v = 0; v < size; origin = nextOrigin(c, v++, origin)) {
      const Task &from = pattern[shortBase[c] + origin.local];
      const schedule::Task &spec = specOf(from);
      Task task = makeTask(from.spec, spec.kind, c, from.waiting);
      int32_t self = tasks.size();
      auto depend = [&](int64_t index) {
        std::optional<int32_t> t = named(origin, c, index, v);
        if (t)
          ++dependentsStart[*t + 1];
        return bool(t);
      };
      for (int64_t dep : spec.deps)
        if (!depend(dep))
          return false;
      if ((spec.kind == TaskKind::Free && !depend(spec.alloc)) ||
          (spec.kind == TaskKind::CollectiveDone && !depend(spec.start)))
        return false;
      if (from.isMessage()) {
        const Task &peer = pattern[from.partner];
        std::optional<int32_t> t = named(
            origin, peer.chip, from.partner - shortBase[peer.chip], -1);
        if (!t)
          return false;
        task.partner = *t;
      }
      if (from.isCollective()) {
        const Instance &pat = patternInstances[from.collective];
        const Task &first = pattern[pat.members.front()];
        std::optional<int32_t> key = named(
            origin, first.chip, pat.members.front() - shortBase[first.chip],
            -1);
        if (!key)
          return false;
        int32_t id = -1;
        if (*key < self && tasks[*key].isCollective() &&
            instanceKey[tasks[*key].collective] == *key)
          id = tasks[*key].collective;
        else if (auto it = instanceOf.find(*key); it != instanceOf.end())
          id = it->second;
        if (id < 0) {
          id = instances.size();
          instanceKey.push_back(*key);
          if (*key != self)
            instanceOf[*key] = id;
          Instance instance;
          instance.group = pat.group;
          instance.kind = pat.kind;
          instance.bytes = pat.bytes;
          instance.ring = pat.ring;
          instance.chained = pat.chained;
          instance.steps = pat.steps;
          instances.push_back(std::move(instance));
        }
        instances[id].members.push_back(self);
        task.collective = id;
      }
      if (spec.kind == TaskKind::Compute)
        chips[c].computes.push_back(self);
      tasks.push_back(task);
    }
  }
  // Every message paired both ways, every collective whole: else the steps
  // were not what refer() takes them for.
  for (size_t t = 0; t < total; ++t)
    if (tasks[t].isMessage() && tasks[tasks[t].partner].partner != int32_t(t))
      return false;
  for (const Instance &instance : instances)
    if (instance.members.size() != instance.group.size())
      return false;
  instanceOf.shrink_and_clear();
  instanceKey = {};
  for (size_t t = 0; t < total; ++t)
    dependentsStart[t + 1] += dependentsStart[t];
  dependents.assign(dependentsStart.back(), 0);
  // Filled in the order load() fills them (the order dependents are made
  // ready in): each task's start advances to its end, then moves back.
  for (size_t c = 0; c < numChips; ++c) {
    int64_t size = programOf(c).size() + added * stepLength[c];
    Origin origin = mapTask(c, 0);
    for (int64_t v = 0; v < size; origin = nextOrigin(c, v++, origin)) {
      const schedule::Task &spec = specOf(pattern[shortBase[c] + origin.local]);
      int32_t self = chipBase[c] + v;
      auto depend = [&](int64_t index) {
        int32_t t = chipBase[c] + refer(origin, c, index);
        dependents[dependentsStart[t]++] = self;
      };
      for (int64_t dep : spec.deps)
        depend(dep);
      if (spec.kind == TaskKind::Free)
        depend(spec.alloc);
      if (spec.kind == TaskKind::CollectiveDone)
        depend(spec.start);
    }
  }
  for (size_t t = total; t > 0; --t)
    dependentsStart[t] = dependentsStart[t - 1];
  dependentsStart[0] = 0;
  computeCosts.assign(specs.size(), {0.0, 0.0});
  hbmBytes.assign(specs.size(), 0);
  for (auto [i, spec] : llvm::enumerate(specs)) {
    if (spec->kind == TaskKind::Compute)
      computeCosts[i] = {model.taskTime(spec->flops, spec->bytes, spec->bits,
                                        spec->vectorOps, spec->steps),
                         double(spec->flops)};
    if (spec->kind == TaskKind::Alloc)
      hbmBytes[i] = spec->bytes;
    if (spec->kind == TaskKind::Free)
      hbmBytes[i] = schedule.chips[pattern[i].chip].tasks[spec->alloc].bytes;
  }
  generated = true;
  if (!prove) {
    alike = -1;
    return true;
  }
  // The proof's view of the generated program: its steps' starts, each
  // copy one step length after the one before, the last step `added`
  // steps' lengths on. Its alike steps are the schedule's and every copy
  // (the chain findAlikeSteps walks back from the last but one: the
  // copies, each its copied step, then the schedule's own steps).
  templateSteps = lowered;
  generatedStarts.assign(numChips, {});
  for (size_t c = 0; c < numChips; ++c)
    for (int64_t k = 0; k < length; ++k)
      generatedStarts[c].push_back(
          k <= copied           ? scheduleStarts()[c][k]
          : k <= copied + added ? copyBegin[c] + (k - copied) * stepLength[c]
                                : scheduleStarts()[c][k - added] + added * stepLength[c]);
  lowered = length;
  return true;
}

const llvm::SmallVector<int32_t, 4> &Engine::routeSlots(int64_t from,
                                                      int64_t to) {
  // A run sends between the same pairs of chips over and over: each pair's
  // route is worked out once, its links' slots taken in the same order.
  auto [known, fresh] = routes.try_emplace({from, to});
  if (fresh) {
    llvm::SmallVector<int64_t, 8> path;
    route(from, to, path);
    for (int64_t id : path)
      known->second.push_back(linkSlot(id));
  }
  return known->second;
}

int32_t Engine::addFlow(Flow flow) {
  int32_t f;
  if (freeFlows.empty()) {
    f = flows.size();
    flows.push_back(std::move(flow));
  } else {
    f = freeFlows.back();
    freeFlows.pop_back();
    flow.version = flows[f].version + 1;
    flows[f] = std::move(flow);
  }
  return f;
}

void Engine::startFlow(int64_t from, int64_t to, double bytes,
                       Flow::Owner owner, int32_t id, bool ring, int32_t step,
                       int32_t sender, int8_t dir) {
  Flow flow;
  flow.links = routeSlots(from, to);
  // A flow beside a circuit's bundles shares their links: they become
  // flows first.
  for (int32_t l : flow.links)
    if (links[l].circuit >= 0)
      releaseCircuit(links[l].circuit);
  flow.remaining = bytes;
  flow.updated = now;
  flow.latency = sliceOf(from) != sliceOf(to)
                     ? dcn.latency
                     : flow.links.size() * target.hopLatency;
  // A collective's first step also carries its start/done synchronisation
  // (calibration), once; a chained ring pays it before it starts, so that
  // no later step's chunk overtakes the first's.
  if (owner == Flow::Owner::Step && step == 0 && !instances[id].chained)
    flow.latency += target.calibration.collectiveSync;
  flow.efficiency = model.linkEfficiency(ring);
  flow.owner = owner;
  flow.step = step;
  flow.sender = sender;
  flow.dir = dir;
  flow.id = id;
  int32_t f = addFlow(std::move(flow));
  if (flows[f].links.empty() || bytes <= 0) {
    flows[f].active = false;
    push(now + flows[f].latency, Event::Kind::Arrive, f);
    if (owner == Flow::Owner::Step)
      stepSent(flows[f]);
    return;
  }
  for (int32_t l : flows[f].links) {
    Link &link = links[l];
    if (link.flows.empty())
      link.since = now;
    link.flows.push_back(f);
    link.bytes += bytes;
  }
  for (int32_t l : flows[f].links)
    markDirty(l);
}

// Every flow on the link gets its fair share of the link, limited by its
// most crowded link; progress so far is banked before the rate changes.
void Engine::rerate(int32_t l) {
  for (int32_t f : links[l].flows) {
    Flow &flow = flows[f];
    double rate = std::numeric_limits<double>::infinity();
    for (int32_t other : flow.links)
      rate = std::min(rate, (links[other].dcn
                                 ? dcn.bandwidth
                                 : flow.efficiency * target.linkBandwidth) /
                                links[other].flows.size());
    if (rate == flow.rate)
      continue;
    flow.remaining -= flow.rate * (now - flow.updated);
    flow.updated = now;
    flow.rate = rate;
    ++flow.version;
    push(now + std::max(flow.remaining, 0.0) / rate, Event::Kind::FlowDone, f,
         flow.version);
  }
}

void Engine::endFlow(int32_t f) {
  Flow &flow = flows[f];
  flow.active = false;
  for (int32_t l : flow.links) {
    Link &link = links[l];
    auto it = llvm::find(link.flows, f);
    link.flows.erase(it);
    if (link.flows.empty())
      link.busy += now - link.since;
  }
  for (int32_t l : flow.links)
    markDirty(l);
  push(now + flow.latency, Event::Kind::Arrive, f);
  if (flow.owner == Flow::Owner::Step)
    stepSent(flows[f]);
}

void Engine::arrive(const Flow &flow) {
  if (flow.owner == Flow::Owner::Message) {
    int32_t send = flow.id;
    commEnd(tasks[send].chip);
    finish(send, 1);
    int32_t recv = tasks[send].partner;
    if (tasks[recv].ready && !tasks[recv].done) {
      if (tasks[recv].inFlight)
        commEnd(tasks[recv].chip);
      finish(recv, 2);
    }
    return;
  }
  int32_t id = flow.id, step = flow.step, sender = flow.sender;
  int8_t dir = flow.dir;
  Instance &instance = instances[id];
  if (step + 1 == instance.steps) {
    if (--instance.pending == 0)
      finishCollective(id);
    return;
  }
  if (!instance.chained) {
    // Step by step: the next step starts when all of this one is in.
    if (--instance.pending == 0)
      startStep(id, step + 1);
    return;
  }
  int32_t n = instance.group.size(), receiver = (sender + dir + n) % n;
  ++instance.received(stepSlot(receiver, dir));
  sendNextStep(id, receiver, dir);
}

void Engine::finishCollective(int32_t i) {
  for (int32_t member : instances[i].members) {
    commEnd(tasks[member].chip);
    finish(member, 1);
  }
}

void Engine::stepSent(const Flow &flow) {
  Instance &instance = instances[flow.id];
  if (!instance.chained || flow.step + 1 == instance.steps)
    return;
  int32_t id = flow.id, sender = flow.sender;
  int8_t dir = flow.dir;
  ++instance.sent(stepSlot(sender, dir));
  sendNextStep(id, sender, dir);
}

// On a chained ring a member sends its next step's chunk one way once its
// last one that way has left (its link is free) and the chunk it passes on
// has come in from the member behind it: XLA's collectives pass chunks chip
// to chip with no barrier between steps, so on a ring whose hops differ (a
// placement `by columns`) the messages' latencies add up along the chain a
// chunk travels, not as the slowest hop every step. (On a ring of equal
// hops the two are the same; the rings of neighbours and the lines stay
// step by step, as their closed forms have it.)
void Engine::sendNextStep(int32_t i, int32_t member, int8_t dir) {
  Instance &instance = instances[i];
  int32_t slot = stepSlot(member, dir), k = instance.started(slot);
  if (k < instance.steps && instance.sent(slot) >= k &&
      instance.received(slot) >= k) {
    ++instance.started(slot);
    startStepFlow(i, k, member, dir);
  }
}

void Engine::startStepFlow(int32_t i, int32_t step, int32_t sender,
                           int8_t dir) {
  Instance &instance = instances[i];
  int32_t n = instance.group.size();
  double bytes =
      instance.ring ? instance.bytes / (2.0 * n) : instance.bytes / n;
  startFlow(instance.group[sender], instance.group[(sender + dir + n) % n],
            bytes, Flow::Owner::Step, i, instance.ring, step, sender, dir);
}

void Engine::startCollective(int32_t i) {
  Instance &instance = instances[i];
  int32_t n = instance.group.size();
  if (instance.kind == CollectiveKind::AllToAll) {
    instance.pending = n * (n - 1);
    for (int32_t a = 0; a < n; ++a)
      for (int32_t b = 0; b < n; ++b)
        if (a != b)
          startFlow(instance.group[a], instance.group[b], instance.bytes / n,
                    Flow::Owner::Step, i, instance.ring);
    return;
  }
  if (instance.chained) {
    instance.chain.assign(6 * n, 0);
    std::fill_n(instance.chain.begin(), 2 * n, 1);
  }
  startStep(i, 0);
}

void Engine::startStep(int32_t i, int32_t step) {
  // Every member sends both ways round a ring; a line's members send to
  // both neighbours they have. A chained ring's count is of its last step.
  Instance &instance = instances[i];
  int32_t n = instance.group.size();
  if (bundling() && !instance.chained && instance.bytes > 0) {
    int32_t p = patternOf(i);
    if (p >= 0 && holdCircuit(patterns[p].circuit)) {
      startBundle(i, step, p);
      return;
    }
  }
  instance.pending = instance.ring ? 2 * n : 2 * (n - 1);
  for (int32_t a = 0; a < n; ++a)
    for (int8_t dir : {int8_t(1), int8_t(-1)})
      if (instance.ring || (dir > 0 ? a <= n - 2 : a >= 1))
        startStepFlow(i, step, a, dir);
}

//===----------------------------------------------------------------------===//
// Ring and line steps as bundles
//===----------------------------------------------------------------------===//

int32_t Engine::patternOf(int32_t i) {
  Instance &instance = instances[i];
  if (instance.pattern == -2) {
    // (Instances of one schedule task share its group.)
    std::pair<const int64_t *, size_t> key(instance.group.data(),
                                           instance.group.size());
    auto known = patternIndex.find(key);
    instance.pattern = known != patternIndex.end() ? known->second
                                                   : makePattern(instance);
    patternIndex[key] = instance.pattern;
  }
  return instance.pattern;
}

int32_t Engine::makePattern(const Instance &instance) {
  // Routed in startStep's order, as its flows would be: the same link
  // slots, taken in the same order.
  int32_t n = instance.group.size();
  StepPattern pattern;
  llvm::SmallVector<int32_t, 8> sorted;
  for (int32_t a = 0; a < n; ++a)
    for (int8_t dir : {int8_t(1), int8_t(-1)})
      if (instance.ring || (dir > 0 ? a <= n - 2 : a >= 1)) {
        const auto &slots =
            routeSlots(instance.group[a], instance.group[(a + dir + n) % n]);
        if (slots.size() != 1)
          return -1;
        pattern.flows.push_back({a, dir, slots.front()});
        sorted.push_back(slots.front());
      }
  llvm::sort(sorted);
  if (sorted.empty() ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return -1;
  auto [it, fresh] = circuitOf.try_emplace(sorted, circuits.size());
  if (fresh) {
    Circuit circuit;
    circuit.links.assign(sorted.begin(), sorted.end());
    circuits.push_back(std::move(circuit));
  }
  pattern.circuit = it->second;
  patterns.push_back(std::move(pattern));
  return patterns.size() - 1;
}

bool Engine::holdCircuit(int32_t c) {
  if (circuits[c].held)
    return true;
  for (int32_t l : circuits[c].links) {
    int32_t other = links[l].circuit;
    if (!links[l].flows.empty() ||
        (other >= 0 && !circuits[other].bundles.empty()))
      return false;
  }
  for (int32_t l : circuits[c].links)
    if (links[l].circuit >= 0)
      releaseCircuit(links[l].circuit);
  for (int32_t l : circuits[c].links)
    links[l].circuit = c;
  circuits[c].held = true;
  return true;
}

void Engine::releaseCircuit(int32_t c) {
  Circuit &circuit = circuits[c];
  // Each flow as startStep would have made it and rerate left it, on its
  // link in the order the bundles started; its FlowDone where the bundle's
  // is (a share due to be recomputed is, as the links are marked).
  for (int32_t b : circuit.bundles) {
    const Bundle &bundle = bundles[b];
    for (const StepPattern::Sender &sender : patterns[bundle.pattern].flows) {
      Flow flow;
      flow.links = {sender.link};
      flow.remaining = bundle.remaining;
      flow.rate = bundle.rate;
      flow.updated = bundle.updated;
      flow.latency = bundle.latency;
      flow.efficiency = bundle.efficiency;
      flow.owner = Flow::Owner::Step;
      flow.id = bundle.instance;
      flow.step = bundle.step;
      flow.sender = sender.member;
      flow.dir = sender.dir;
      int32_t f = addFlow(std::move(flow));
      links[sender.link].flows.push_back(f);
      if (bundle.rate > 0)
        push(bundle.sentAt, Event::Kind::FlowDone, f, ++flows[f].version);
    }
    freeBundle(b);
  }
  circuit.bundles.clear();
  if (circuit.dirty) {
    circuit.dirty = false;
    for (int32_t l : circuit.links)
      markDirty(l);
  }
  for (int32_t l : circuit.links)
    links[l].circuit = -1;
  circuit.held = false;
}

void Engine::startBundle(int32_t i, int32_t step, int32_t p) {
  // The state startStep's flows would each have (startFlow, startStepFlow).
  Instance &instance = instances[i];
  const StepPattern &pattern = patterns[p];
  int32_t n = instance.group.size();
  Bundle bundle;
  bundle.instance = i;
  bundle.step = step;
  bundle.pattern = p;
  bundle.remaining =
      instance.ring ? instance.bytes / (2.0 * n) : instance.bytes / n;
  bundle.updated = now;
  bundle.latency = size_t(1) * target.hopLatency;
  if (step == 0)
    bundle.latency += target.calibration.collectiveSync;
  bundle.efficiency = model.linkEfficiency(instance.ring);
  int32_t b;
  if (freeBundles.empty()) {
    b = bundles.size();
    bundles.push_back(bundle);
  } else {
    b = freeBundles.back();
    freeBundles.pop_back();
    bundle.version = bundles[b].version + 1;
    bundles[b] = bundle;
  }
  instance.pending = pattern.flows.size();
  Circuit &circuit = circuits[pattern.circuit];
  for (int32_t l : circuit.links) {
    Link &link = links[l];
    if (circuit.bundles.empty())
      link.since = now;
    link.bytes += bundle.remaining;
  }
  circuit.bundles.push_back(b);
  markCircuitDirty(pattern.circuit);
}

// rerate's shares: on each link of the circuit one flow of each bundle.
void Engine::rerateCircuit(int32_t c) {
  Circuit &circuit = circuits[c];
  for (int32_t b : circuit.bundles) {
    Bundle &bundle = bundles[b];
    double rate = std::min(std::numeric_limits<double>::infinity(),
                           bundle.efficiency * target.linkBandwidth /
                               circuit.bundles.size());
    if (rate == bundle.rate)
      continue;
    bundle.remaining -= bundle.rate * (now - bundle.updated);
    bundle.updated = now;
    bundle.rate = rate;
    ++bundle.version;
    bundle.sentAt = now + std::max(bundle.remaining, 0.0) / rate;
    push(bundle.sentAt, Event::Kind::BundleSent, b, bundle.version);
  }
}

// endFlow of each of its flows.
void Engine::bundleSent(int32_t b) {
  Bundle &bundle = bundles[b];
  bundle.sending = false;
  int32_t c = patterns[bundle.pattern].circuit;
  Circuit &circuit = circuits[c];
  circuit.bundles.erase(llvm::find(circuit.bundles, b));
  if (circuit.bundles.empty())
    for (int32_t l : circuit.links)
      links[l].busy += now - links[l].since;
  markCircuitDirty(c);
  push(now + bundle.latency, Event::Kind::BundleArrive, b, bundle.version);
}

// arrive() of each of its flows: the step is in.
void Engine::bundleArrived(int32_t b) {
  int32_t i = bundles[b].instance, step = bundles[b].step;
  Instance &instance = instances[i];
  instance.pending -= patterns[bundles[b].pattern].flows.size();
  freeBundle(b);
  if (instance.pending > 0)
    return;
  if (step + 1 == instance.steps)
    finishCollective(i);
  else
    startStep(i, step + 1);
}

void Engine::onReady(int32_t t) {
  Task &task = tasks[t];
  task.ready = true;
  // Ready from the start (a receive, say) is every step's first state.
  if (!starting)
    touchTask(t);
  if (recordTrace)
    startTimes[t] = now;
  ChipState &chip = chips[task.chip];
  // (By the task's own kind: its schedule task is read only where needed,
  // a generated program's compute tasks, allocations and frees not at all.)
  switch (task.taskKind()) {
  case TaskKind::Compute:
    advance(task.chip);
    return;
  case TaskKind::Send: {
    commBegin(task.chip);
    int32_t recv = task.partner;
    if (tasks[recv].ready && !tasks[recv].done) {
      tasks[recv].inFlight = true;
      touchTask(recv);
      commBegin(tasks[recv].chip);
    }
    const schedule::Task &spec = specOf(task);
    startFlow(chip.id, spec.peer, spec.bytes, Flow::Owner::Message, t,
              /*ring=*/false);
    return;
  }
  case TaskKind::Recv:
    // Done now if the message is already here; in flight if it is coming.
    if (tasks[task.partner].done) {
      finish(t, 2);
    } else if (tasks[task.partner].ready) {
      task.inFlight = true;
      commBegin(task.chip);
    }
    return;
  case TaskKind::Collective: {
    commBegin(task.chip);
    Instance &instance = instances[task.collective];
    if (++instance.arrived == int32_t(instance.group.size())) {
      if (instance.group.size() == 1) {
        commEnd(task.chip);
        finish(t, 1);
      } else {
        if (instance.chained)
          push(now + target.calibration.collectiveSync,
               Event::Kind::StartCollective, task.collective);
        else
          startCollective(task.collective);
      }
    }
    return;
  }
  case TaskKind::Alloc: {
    int64_t bytes =
        hbmBytes.empty() ? specOf(task).bytes : hbmBytes[task.spec];
    // Past 2^63 bytes the chip has long overflowed; saturate, not wrap.
    if (llvm::AddOverflow(chip.hbm, bytes, chip.hbm))
      chip.hbm = std::numeric_limits<int64_t>::max();
    chip.stats.peakHbm = std::max(chip.stats.peakHbm, double(chip.hbm));
    if (double(chip.hbm) > target.hbmBytes && failure.empty()) {
      const schedule::Task &spec = specOf(task);
      failure = llvm::formatv(
          "HBM overflow on chip {0} at task {1} (alloc {2} \"{3}\", {4} "
          "bytes) at t = {5:f3} ms: {6} bytes in use, capacity {7:f0}",
          chip.id, localOf(t), schedule::name(spec.what), spec.name,
          spec.bytes, now * 1e3, chip.hbm, target.hbmBytes);
    }
    finish(t, 0);
    return;
  }
  case TaskKind::CollectiveDone:
    // Takes no time and no engine: the point where the collective's result
    // is there for the tasks that use it.
    finish(t, 0);
    return;
  case TaskKind::Free: {
    // (Its allocation's, alike in a generated step: Engine::loadProgram.)
    chip.hbm -= hbmBytes.empty()
                    ? schedule.chips[task.chip].tasks[specOf(task).alloc].bytes
                    : hbmBytes[task.spec];
    // The checker lets each allocation be freed once, after it is made; a
    // negative balance would make every figure after it wrong.
    if (chip.hbm < 0 && accounting.empty())
      accounting = llvm::formatv("chip {0} task {1}: HBM in use went "
                                 "negative ({2} bytes)",
                                 chip.id, localOf(t), chip.hbm);
    finish(t, 0);
    return;
  }
  case TaskKind::HostStore:
  case TaskKind::HostLoad: {
    std::deque<int32_t> &queue =
        chip.hostQueues[task.taskKind() == TaskKind::HostLoad];
    queue.push_back(t);
    if (queue.size() == 1)
      startHost(t);
    return;
  }
  }
}

// A chip's PCIe link to its host is full duplex: one DMA engine each way,
// each running its transfers one at a time in the order they were issued
// (became ready), as a DMA queue does, each at the link's whole bandwidth.
// (A source-free model: no measurement of v5e's host DMA is bundled. The
// copies' HBM traffic is not charged to the compute tasks.)
void Engine::startHost(int32_t t) {
  commBegin(tasks[t].chip);
  if (recordTrace)
    startTimes[t] = now;
  push(now + double(specOf(tasks[t]).bytes) / target.hostBandwidth,
       Event::Kind::HostDone, t);
}

void Engine::hostDone(int32_t t) {
  Task &task = tasks[t];
  ChipState &chip = chips[task.chip];
  const schedule::Task &spec = specOf(task);
  bool load = task.taskKind() == TaskKind::HostLoad;
  commEnd(task.chip);
  if (load) {
    chip.host -= schedule.chips[task.chip].tasks[spec.store].bytes;
    if (chip.host < 0 && accounting.empty())
      accounting = llvm::formatv("chip {0} task {1}: host memory in use went "
                                 "negative ({2} bytes)",
                                 chip.id, localOf(t), chip.host);
  } else {
    if (llvm::AddOverflow(chip.host, spec.bytes, chip.host))
      chip.host = std::numeric_limits<int64_t>::max();
    chip.stats.peakHost = std::max(chip.stats.peakHost, double(chip.host));
    if (double(chip.host) > target.hostBytes && failure.empty())
      failure = llvm::formatv(
          "host memory overflow on chip {0} at task {1} (host_store \"{2}\", "
          "{3} bytes) at t = {4:f3} ms: {5} bytes in use, capacity {6:f0}",
          chip.id, localOf(t), spec.name, spec.bytes, now * 1e3, chip.host,
          target.hostBytes);
  }
  // The next transfer starts before this one's dependents are ready, so
  // that a transfer they issue queues behind the ones already waiting.
  std::deque<int32_t> &queue = chip.hostQueues[load];
  queue.pop_front();
  if (!queue.empty())
    startHost(queue.front());
  finish(t, 3);
}

void Engine::advance(int32_t c) {
  ChipState &chip = chips[c];
  if (chip.busy || chip.next >= chip.computes.size())
    return;
  int32_t t = chip.computes[chip.next];
  if (!tasks[t].ready)
    return;
  touch(chip);
  chip.busy = true;
  ++chip.next;
  if (recordTrace)
    startTimes[t] = now;
  double seconds, flops;
  if (!computeCosts.empty()) {
    std::tie(seconds, flops) = computeCosts[tasks[t].spec];
  } else {
    const schedule::Task &spec = specOf(tasks[t]);
    seconds = model.taskTime(spec.flops, spec.bytes, spec.bits,
                             spec.vectorOps, spec.steps);
    flops = spec.flops;
  }
  chip.stats.computeBusy += seconds;
  chip.stats.flops += flops;
  push(now + seconds, Event::Kind::ComputeDone, t);
  // What the chip's next compute tasks will read, fetched while this one
  // runs: a generated program's tasks and costs are hundreds of MB, each
  // chip reading its own part in order, too many streams for the hardware
  // to foresee (the reads were a third of advance's time).
  if (chip.next + 1 < chip.computes.size())
    __builtin_prefetch(&tasks[chip.computes[chip.next + 1]]);
  if (!computeCosts.empty() && chip.next < chip.computes.size())
    __builtin_prefetch(&computeCosts[tasks[chip.computes[chip.next]].spec]);
}

void Engine::finish(int32_t t, uint8_t engine) {
  Task &task = tasks[t];
  task.done = true;
  touchTask(t);
  ++finished;
  lastFinish = now;
  ++chips[task.chip].stats.tasks;
  if (recordTrace && task.taskKind() != TaskKind::Alloc &&
      task.taskKind() != TaskKind::Free &&
      task.taskKind() != TaskKind::CollectiveDone)
    trace.push_back({int32_t(chips[task.chip].id), localOf(t), engine,
                     startTimes[t], now});
  for (int32_t i = dependentsStart[t]; i < dependentsStart[t + 1]; ++i) {
    touchTask(dependents[i]);
    if (--tasks[dependents[i]].waiting == 0)
      onReady(dependents[i]);
  }
}

std::string Engine::describe(int32_t t) const {
  const Task &task = tasks[t];
  int64_t local = generated ? mapTask(task.chip, localOf(t)).local : localOf(t);
  std::string text = schedule::describeTask(schedule, task.chip, local);
  if (task.taskKind() == TaskKind::Recv)
    text += ": its send never runs";
  if (task.taskKind() == TaskKind::Collective)
    text += llvm::formatv(": {0} of {1} chips arrived",
                          instances[task.collective].arrived,
                          instances[task.collective].group.size())
                .str();
  if (task.waiting > 0)
    text += llvm::formatv(", waiting on {0} dependencies",
                          uint32_t(task.waiting))
                .str();
  return text;
}

SimResult Engine::run() {
  // The host launches the program on every chip before any of it runs.
  now = model.programDispatch();
  // (Until findAlikeSteps says whether there is a proof to look for.)
  proving = proves();
  starting = true;
  for (size_t t = 0; t < tasks.size(); ++t)
    if (tasks[t].waiting == 0 && !tasks[t].ready)
      onReady(t);
  starting = false;
  if (programSteps > 0 && !generated)
    findAlikeSteps();
  proving = alike >= 0;
  while ((!queue.empty() || !dirtyLinks.empty()) && failure.empty()) {
    if (!dirtyLinks.empty() && (queue.empty() || queue.top().time > now)) {
      rerateDirty();
      continue;
    }
    if (alike >= 0 && !proofTo && (queue.empty() || queue.top().time > now))
      atInstantEnd();
    Event event = queue.top();
    queue.pop();
    ++events;
    now = event.time;
    switch (event.kind()) {
    case Event::Kind::ComputeDone: {
      Task &task = tasks[event.a];
      ChipState &chip = chips[task.chip];
      touch(chip);
      chip.busy = false;
      finish(event.a, 0);
      advance(task.chip);
      break;
    }
    case Event::Kind::FlowDone:
      if (flows[event.a].active && flows[event.a].version == event.b)
        endFlow(event.a);
      break;
    case Event::Kind::Arrive:
      arrive(flows[event.a]);
      freeFlows.push_back(event.a);
      break;
    case Event::Kind::StartCollective:
      startCollective(event.a);
      break;
    case Event::Kind::BundleSent:
      if (bundles[event.a].version == event.b && bundles[event.a].sending)
        bundleSent(event.a);
      break;
    case Event::Kind::BundleArrive:
      if (bundles[event.a].version == event.b)
        bundleArrived(event.a);
      break;
    case Event::Kind::HostDone:
      hostDone(event.a);
      break;
    }
  }
  SimResult result;
  result.makespan = std::max(lastFinish, model.programDispatch());
  result.dispatch = model.programDispatch();
  result.calibration = target.calibration;
  result.events = events;
  result.peakFlops = target.peakFlopsBf16;
  if (failure.empty() && finished < tasks.size()) {
    size_t stuck = tasks.size() - finished;
    failure = llvm::formatv("deadlock at t = {0:f3} ms: {1} tasks can never "
                            "run; blocked:",
                            now * 1e3, stuck);
    int listed = 0;
    for (size_t t = 0; t < tasks.size() && listed < 5; ++t)
      if (!tasks[t].done && (tasks[t].ready || tasks[t].waiting == 0)) {
        failure += (listed ? "; " : " ") + describe(t);
        ++listed;
      }
  }
  result.failure = failure;
  for (ChipState &chip : chips) {
    touch(chip);
    result.chips.push_back(chip.stats);
  }
  if (proves())
    extrapolateLinks();
  if (replicas) {
    // The other replicas' links: the first's, moved.
    size_t first = links.size();
    links.reserve(first * replicas->copies);
    for (size_t g = 1; g < size_t(replicas->copies); ++g)
      for (size_t l = 0; l < first; ++l) {
        Link link;
        link.id = replicaLinks[g].at(links[l].id);
        link.bytes = links[l].bytes;
        link.busy = links[l].busy;
        links.push_back(std::move(link));
      }
  }
  // In link order, so that links equally busy keep one order.
  llvm::sort(links, [](const Link &a, const Link &b) { return a.id < b.id; });
  for (const Link &link : links) {
    if (link.bytes <= 0)
      continue;
    int64_t l = link.id, dims = topology.shape.size();
    if (link.dcn) {
      // A NIC: from its host's first chip out, or in to it.
      int64_t nic = l - numChips() * 2 * dims,
              first = nic / 2 * chipsPerHost();
      bool ingress = nic % 2;
      result.links.push_back({ingress ? -1 : first, ingress ? first : -1,
                              link.bytes, link.busy, /*dcn=*/true});
      continue;
    }
    int64_t chip = l / (2 * dims);
    size_t axis = (l % (2 * dims)) / 2;
    int dir = l % 2 ? -1 : 1;
    llvm::SmallVector<int64_t, 3> c = coords(chip);
    c[axis] = ((c[axis] + dir) % topology.shape[axis] + topology.shape[axis]) %
              topology.shape[axis];
    result.links.push_back({chip,
                            sliceOf(chip) * sliceChips + idOf(c),
                            link.bytes, link.busy});
  }
  llvm::stable_sort(result.links, [](const LinkStats &a, const LinkStats &b) {
    return a.busy > b.busy;
  });
  result.trace = std::move(trace);
  if (proves())
    extrapolate(result);
  if (replicas) {
    // The other replicas' chips: their twins' figures.
    for (size_t c = 0; c < result.chips.size(); ++c)
      if (!replicas->runs(c)) {
        int64_t id = result.chips[c].id;
        result.chips[c] = result.chips[replicas->twin[c]];
        result.chips[c].id = id;
      }
    result.events *= uint64_t(replicas->copies);
    result.replicas = replicas->copies;
  }
  if (generated && templateSteps == 0) {
    result.programSteps = programSteps;
    result.generatedFrom = lowered;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// The repetition proof
//===----------------------------------------------------------------------===//

bool Engine::stepsAlike(int64_t t) const {
  // Step t + 1 against step t on every chip: the same tasks, their
  // dependencies, allocations, partners and collectives one step on.
  const auto &starts = scheduleStarts();
  for (size_t c = 0; c < chips.size(); ++c) {
    int64_t p = starts[c][t + 1] - starts[c][t];
    if (starts[c][t + 2] - starts[c][t + 1] != p)
      return false;
    for (int64_t i = starts[c][t + 1]; i < starts[c][t + 2]; ++i) {
      const Task &x = tasks[chipBase[c] + i], &y = tasks[chipBase[c] + i - p];
      const schedule::Task &a = specOf(x), &b = specOf(y);
      if (a.kind != b.kind || a.bytes != b.bytes || a.flops != b.flops ||
          a.bits != b.bits || a.vectorOps != b.vectorOps ||
          a.steps != b.steps || a.peer != b.peer || a.what != b.what ||
          a.collective != b.collective || a.group != b.group ||
          a.deps.size() != b.deps.size() || x.waiting != y.waiting)
        return false;
      for (size_t k = 0; k < a.deps.size(); ++k)
        if (a.deps[k] - p != b.deps[k])
          return false;
      if ((a.kind == TaskKind::Free && a.alloc - p != b.alloc) ||
          (a.kind == TaskKind::CollectiveDone && a.start - p != b.start))
        return false;
      // One step on: `shift` tasks later on the same chip.
      auto oneOn = [&](int32_t later, int32_t earlier) {
        int32_t lc = tasks[later].chip;
        return lc == tasks[earlier].chip &&
               later - earlier == starts[lc][t + 1] - starts[lc][t];
      };
      if (x.isMessage() && !oneOn(x.partner, y.partner))
        return false;
      if (x.isCollective()) {
        const Instance &u = instances[x.collective],
                       &v = instances[y.collective];
        if (u.members.front() == int32_t(chipBase[c] + i)) {
          if (u.members.size() != v.members.size())
            return false;
          for (size_t m = 0; m < u.members.size(); ++m)
            if (!oneOn(u.members[m], v.members[m]))
              return false;
        }
      }
    }
  }
  return true;
}

void Engine::findAlikeSteps(int64_t compared, int64_t programSteps) {
  if (programSteps == 0)
    programSteps = this->programSteps;
  const auto &starts = scheduleStarts();
  if (starts.size() != chips.size() || starts.empty() || hasHost)
    return;
  lowered = starts.front().size();
  for (const auto &chip : starts)
    if (int64_t(chip.size()) != lowered)
      return;
  if (lowered >= programSteps || lowered < compared + 1)
    return;
  // Steps [alike, lowered - 2] are each the one before shifted.
  int64_t t = lowered - 3;
  while (t >= 0 && stepsAlike(t))
    --t;
  if (t + 1 <= lowered - 1 - compared)
    alike = t + 1;
}

void Engine::atInstantEnd() {
  // A step begins when chip 0's first task of it is done.
  int64_t next = history.empty() ? 1 : history.back().step + 1;
  if (next >= lowered - 1)
    return;
  if (!tasks[chipBase[0] + stepStarts()[0][next]].done)
    return;
  Snapshot now = snapshot(next);
  // The state m steps back, all tasks named in alike steps on both sides;
  // the steps not run must be whole periods.
  for (int64_t m = 1; m <= kMaxPeriod && m <= int64_t(history.size()); ++m) {
    const Snapshot &before = history[history.size() - m];
    if ((programSteps - lowered) % m != 0 || before.ambiguous ||
        now.ambiguous || before.minStep < alike ||
        now.minStep < alike + m || before.maxStep > lowered - 2 - m ||
        now.maxStep > lowered - 2 || !sameState(before, now))
      continue;
    periodSteps = m;
    proofFrom = before;
    proofTo = std::move(now);
    proving = false;
    history.clear();
    return;
  }
  history.push_back(std::move(now));
}

Engine::Snapshot Engine::snapshot(int64_t step) {
  Snapshot snap;
  snap.step = step;
  snap.now = now;
  snap.events = events;
  const auto &starts = stepStarts();
  // Tolerances: a time relative to the clock, and bytes on the wire.
  double timeTol = 1e-12 * now;
  double byteTol = timeTol * target.linkBandwidth;
  auto real = [&](double x, double tol) { snap.reals.push_back({x, tol}); };
  // A task as its chip and its index relative to the step's start.
  auto taskRef = [&](int32_t t) {
    int32_t c = tasks[t].chip;
    int64_t i = localOf(t);
    int64_t in = std::upper_bound(starts[c].begin(), starts[c].end(), i) -
                 starts[c].begin() - 1;
    snap.minStep = std::min(snap.minStep, in);
    snap.maxStep = std::max(snap.maxStep, in);
    snap.ints.push_back(c);
    snap.ints.push_back(i - starts[c][step]);
  };
  std::vector<int32_t> used; // instances, by their first member
  for (size_t c = 0; c < chips.size(); ++c) {
    ChipState &chip = chips[c];
    int32_t size = chipSize(c);
    while (chip.firstNotDone < size &&
           tasks[chipBase[c] + chip.firstNotDone].done)
      ++chip.firstNotDone;
    int32_t from = chip.firstNotDone,
            to = std::max(chip.maxTouched, from - 1);
    if (size == 0) {
      // A chip without tasks (a copied replica's: runReplicasOnce).
      snap.ints.push_back(-3);
    } else if (from >= size || from > to) {
      // Nothing under way on the chip: where it stands.
      snap.ints.push_back(-1);
      taskRef(chipBase[c] + std::min(from, size - 1));
    } else {
      taskRef(chipBase[c] + from);
      taskRef(chipBase[c] + to);
    }
    for (int32_t i = from; i <= to && i < size; ++i) {
      const Task &task = tasks[chipBase[c] + i];
      snap.ints.push_back(task.waiting * 8 + task.ready * 4 + task.done * 2 +
                          task.inFlight);
      if (task.isCollective() && !task.done)
        used.push_back(task.collective);
    }
    if (chip.next < chip.computes.size())
      taskRef(chip.computes[chip.next]);
    else
      snap.ints.push_back(-2);
    snap.ints.push_back(chip.busy);
    snap.ints.push_back(chip.activeComm);
    snap.ints.push_back(chip.hbm);
    // (chip.touched only dates the exposed communication accrued below.)
    ChipStats stats = chip.stats;
    if (chip.activeComm > 0 && !chip.busy)
      stats.exposedComm += now - chip.touched;
    snap.stats.push_back(stats);
  }
  // The flows in flight, in an order of their own.
  std::vector<bool> free(flows.size(), false);
  for (int32_t f : freeFlows)
    free[f] = true;
  struct Live {
    std::vector<int64_t> key;
    int32_t slot;
  };
  std::vector<Live> live;
  auto instanceKey = [&](int32_t i, std::vector<int64_t> &key) {
    int32_t first = instances[i].members.front();
    key.push_back(tasks[first].chip);
    key.push_back(localOf(first) - starts[tasks[first].chip][step]);
  };
  for (size_t f = 0; f < flows.size(); ++f) {
    if (free[f])
      continue;
    const Flow &flow = flows[f];
    Live l{{int64_t(flow.owner)}, int32_t(f)};
    if (flow.owner == Flow::Owner::Message) {
      int32_t t = flow.id;
      l.key.push_back(tasks[t].chip);
      l.key.push_back(localOf(t) - starts[tasks[t].chip][step]);
      taskRef(t);
      snap.ints.pop_back();
      snap.ints.pop_back();
    } else {
      instanceKey(flow.id, l.key);
      used.push_back(flow.id);
    }
    l.key.insert(l.key.end(), {flow.step, flow.sender, flow.dir, flow.active});
    l.key.insert(l.key.end(), flow.links.begin(), flow.links.end());
    live.push_back(std::move(l));
  }
  llvm::sort(live, [](const Live &a, const Live &b) { return a.key < b.key; });
  std::vector<int32_t> canonical(flows.size(), -1);
  for (size_t k = 0; k < live.size(); ++k) {
    // Two flows alike in every respect: no order of their own.
    if (k > 0 && live[k].key == live[k - 1].key)
      snap.ambiguous = true;
    canonical[live[k].slot] = k;
    const Flow &flow = flows[live[k].slot];
    snap.ints.push_back(live[k].key.size());
    snap.ints.insert(snap.ints.end(), live[k].key.begin(), live[k].key.end());
    double remaining = flow.remaining - flow.rate * (now - flow.updated);
    real(flow.active ? remaining : 0, byteTol + 1e-9 * flow.remaining);
    real(flow.rate, 1e-9 * flow.rate);
    real(flow.latency, timeTol);
  }
  // The collectives under way.
  llvm::sort(used);
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::vector<std::pair<std::vector<int64_t>, int32_t>> keyed;
  for (int32_t i : used) {
    std::vector<int64_t> key;
    instanceKey(i, key);
    taskRef(instances[i].members.front());
    snap.ints.pop_back();
    snap.ints.pop_back();
    keyed.push_back({std::move(key), i});
  }
  llvm::sort(keyed);
  for (auto &[key, i] : keyed) {
    const Instance &instance = instances[i];
    snap.ints.insert(snap.ints.end(), key.begin(), key.end());
    snap.ints.insert(snap.ints.end(),
                     {instance.arrived, instance.pending,
                      int64_t(instance.chain.size() / 3)});
    int32_t n = instance.chain.size() / 3;
    for (int32_t k = 0; k < n; ++k)
      snap.ints.insert(snap.ints.end(),
                       {instance.chain[k], instance.chain[n + k],
                        instance.chain[2 * n + k]});
  }
  // The links carrying flows, and every link's figures so far.
  for (size_t l = 0; l < links.size(); ++l) {
    const Link &link = links[l];
    snap.linkStats.push_back(
        {link.bytes, link.busy + (link.flows.empty() ? 0 : now - link.since)});
    if (link.flows.empty())
      continue;
    snap.ints.insert(snap.ints.end(), {int64_t(l), int64_t(link.flows.size())});
    // (link.since only dates the busy time accrued in linkStats.)
    for (int32_t f : link.flows)
      snap.ints.push_back(canonical[f]);
  }
  // The pending events in the order they will be taken.
  std::vector<Event> pending = queue.events();
  llvm::sort(pending,
             [](const Event &a, const Event &b) { return a.before(b); });
  for (const Event &event : pending) {
    snap.ints.push_back(int64_t(event.kind()));
    real(event.time - now, timeTol);
    switch (event.kind()) {
    case Event::Kind::ComputeDone:
      taskRef(event.a);
      break;
    case Event::Kind::FlowDone: {
      bool current =
          flows[event.a].active && flows[event.a].version == event.b;
      snap.ints.push_back(current ? canonical[event.a] : -1);
      break;
    }
    case Event::Kind::Arrive:
      snap.ints.push_back(canonical[event.a]);
      break;
    case Event::Kind::StartCollective: {
      std::vector<int64_t> key;
      instanceKey(event.a, key);
      snap.ints.insert(snap.ints.end(), key.begin(), key.end());
      break;
    }
    case Event::Kind::BundleSent:
    case Event::Kind::BundleArrive:
      // (None while the proof looks: bundling() waits for it.)
    case Event::Kind::HostDone:
      // (No snapshot of a schedule with host transfers: findAlikeSteps.)
      break;
    }
  }
  return snap;
}

bool Engine::sameState(const Snapshot &a, const Snapshot &b) const {
  if (a.ints != b.ints || a.reals.size() != b.reals.size())
    return false;
  for (size_t k = 0; k < a.reals.size(); ++k) {
    double tol = std::max(a.reals[k].second, b.reals[k].second);
    if (std::abs(a.reals[k].first - b.reals[k].first) > tol)
      return false;
  }
  return true;
}

void Engine::extrapolate(SimResult &result) const {
  result.programSteps = programSteps;
  if (!proofTo || !failure.empty()) {
    result.unproven = true;
    return;
  }
  const Snapshot &a = *proofFrom, &b = *proofTo;
  // The periods not run, each periodSteps steps.
  double extra = double((programSteps - lowered) / periodSteps);
  result.stepsRun = lowered;
  result.repeatedFrom = b.step;
  result.periodSteps = periodSteps;
  result.period = b.now - a.now;
  result.makespan += extra * result.period;
  result.events += uint64_t(extra) * (b.events - a.events);
  for (size_t c = 0; c < result.chips.size(); ++c) {
    ChipStats &chip = result.chips[c];
    const ChipStats &x = a.stats[c], &y = b.stats[c];
    chip.computeBusy += extra * (y.computeBusy - x.computeBusy);
    chip.flops += extra * (y.flops - x.flops);
    chip.exposedComm += extra * (y.exposedComm - x.exposedComm);
    chip.tasks += int64_t(extra) * (y.tasks - x.tasks);
  }
}

void Engine::extrapolateLinks() {
  if (!proofTo || !failure.empty())
    return;
  // Before run() sorts the links: the snapshots' figures are by slot.
  const Snapshot &a = *proofFrom, &b = *proofTo;
  double extra = double((programSteps - lowered) / periodSteps);
  for (size_t l = 0; l < b.linkStats.size(); ++l) {
    std::pair<double, double> before =
        l < a.linkStats.size() ? a.linkStats[l] : std::pair<double, double>();
    links[l].bytes += extra * (b.linkStats[l].first - before.first);
    links[l].busy += extra * (b.linkStats[l].second - before.second);
  }
}

} // namespace

/// The machine a schedule runs on: `slices` of its shape's topology.
static llvm::Expected<TopologyDesc>
scheduleTopology(const TargetDesc &target, const schedule::Schedule &schedule) {
  const TopologyDesc *slice = target.findTopology(schedule.shape);
  if (!slice)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "$.target.shape: " + target.name + " has no such topology; valid: " +
            target.listTopologies());
  TopologyDesc topology = *slice;
  topology.slices = schedule.slices;
  if (schedule.slices > 1)
    topology.name = std::to_string(schedule.slices) + "x" + slice->name;
  return topology;
}

llvm::Expected<schedule::Machine>
sim::checkSchedule(const TargetDesc &target, const schedule::Schedule &schedule) {
  llvm::Expected<TopologyDesc> topology = scheduleTopology(target, schedule);
  if (!topology)
    return topology.takeError();
  schedule::Machine machine{topology->name, topology->numChips(),
                            target.hostBandwidth, target.hostBytes,
                            topology->slices,
                            schedule::getDcnFigures(schedule, target)};
  if (llvm::Error error = schedule::checkSchedule(schedule, machine))
    return std::move(error);
  return machine;
}

/// The first figure of `result` that is not a finite number, or "".
static std::string nonFinite(const SimResult &result) {
  auto bad = [](double x) { return !std::isfinite(x); };
  if (bad(result.makespan))
    return "the makespan";
  for (const ChipStats &chip : result.chips)
    if (bad(chip.computeBusy) || bad(chip.flops) || bad(chip.exposedComm) ||
        bad(chip.peakHbm) || bad(chip.peakHost))
      return "chip " + std::to_string(chip.id) + "'s statistics";
  for (const LinkStats &link : result.links)
    if (bad(link.bytes) || bad(link.busy))
      return "the link " + std::to_string(link.from) + " -> " +
             std::to_string(link.to);
  for (const TraceEvent &event : result.trace)
    if (bad(event.start) || bad(event.end))
      return "the trace of chip " + std::to_string(event.chip);
  return "";
}

/// A result to trust, or the error saying why not.
static llvm::Expected<SimResult> trusted(const Engine &engine,
                                         SimResult result) {
  auto refuse = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "refusing the result: " + why);
  };
  if (!engine.brokenAccounting().empty())
    return refuse(engine.brokenAccounting());
  if (std::string what = nonFinite(result); !what.empty())
    return refuse(what + " is not a finite number; the target's figures or "
                         "the schedule's sizes are out of range");
  return std::move(result);
}

/// A run of `schedule` whose state `load` builds (false: it cannot, and
/// nothing runs). Replicas alike and apart (Replicas.h) run once unless
/// the options or a trace ask for every chip; a run of them that fails (an
/// HBM overflow) is made again of every chip, whose figures at the failure
/// are the ones to report.
static llvm::Expected<std::optional<SimResult>>
run(const TargetDesc &target, const schedule::Schedule &schedule,
    bool recordTrace, int64_t programSteps, SimOptions options,
    llvm::function_ref<bool(Engine &)> load) {
  if (!options.checked)
    if (llvm::Error error = checkSchedule(target, schedule).takeError())
      return std::move(error);
  TopologyDesc topology = llvm::cantFail(scheduleTopology(target, schedule));
  std::optional<Replicas> found;
  if (!recordTrace && !options.everyReplica)
    found = findReplicas(schedule);
  for (bool once : {true, false}) {
    if (once && !found)
      continue;
    Engine engine(target, topology, schedule, recordTrace, programSteps,
                  options);
    if (once && !engine.runReplicasOnce(std::move(*found)))
      continue;
    if (!load(engine))
      return std::nullopt;
    llvm::Expected<SimResult> result = trusted(engine, engine.run());
    if (!result)
      return result.takeError();
    if (once && !result->failure.empty())
      continue;
    return std::optional<SimResult>(std::move(*result));
  }
  llvm_unreachable("the second run is of every chip");
}

llvm::Expected<SimResult> sim::simulateProgram(
    const TargetDesc &target, const schedule::Schedule &schedule,
    int64_t programSteps, SimOptions options) {
  llvm::Expected<std::optional<SimResult>> result =
      run(target, schedule, /*recordTrace=*/false, programSteps, options,
          [&](Engine &engine) { return engine.loadProgram(programSteps); });
  if (!result)
    return result.takeError();
  if (*result)
    return std::move(**result);
  SimResult unproven;
  unproven.programSteps = programSteps;
  unproven.unproven = true;
  return unproven;
}

llvm::Expected<std::optional<SimResult>>
sim::simulateByRepetition(const TargetDesc &target,
                          const schedule::Schedule &schedule, int64_t steps,
                          int64_t programSteps, SimOptions options) {
  return run(target, schedule, /*recordTrace=*/false, programSteps, options,
             [&](Engine &engine) {
               return programSteps > steps &&
                      engine.loadProgram(steps, /*prove=*/true);
             });
}

llvm::Expected<SimResult> sim::simulate(const TargetDesc &target,
                                        const schedule::Schedule &schedule,
                                        bool recordTrace,
                                        int64_t programSteps,
                                        SimOptions options) {
  llvm::Expected<std::optional<SimResult>> result =
      run(target, schedule, recordTrace, programSteps, options,
          [](Engine &engine) {
            engine.load();
            return true;
          });
  if (!result)
    return result.takeError();
  return std::move(**result);
}

//===- DeviceMesh.cpp - logical groups on the chips of a topology ------------===//

#include "loom/Hardware/DeviceMesh.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace loom;

namespace {

/// A rows x cols block of a group of rows * cols chips, and how it rates
/// under the default rule: a ring, then a ring through a wraparound link,
/// then the squarest (fewest links on its boundary).
struct BlockChoice {
  int64_t rows, cols;
  bool ring;
  bool usesWrap;

  bool betterThan(const BlockChoice &other) const {
    if (ring != other.ring)
      return ring;
    if (usesWrap != other.usesWrap)
      return usesWrap;
    return rows + cols < other.rows + other.cols;
  }
};

BlockChoice rateBlock(const TargetDesc &target, llvm::ArrayRef<int64_t> topo,
                      int64_t rows, int64_t cols) {
  int64_t n = rows * cols;
  bool wrapRow = cols == topo[1] && target.axisWraps(topo, 1) && rows == 1;
  bool wrapCol = rows == topo[0] && target.axisWraps(topo, 0) && cols == 1;
  bool block2d = rows >= 2 && cols >= 2 && n % 2 == 0;
  return {rows, cols, wrapRow || wrapCol || block2d || n <= 2,
          wrapRow || wrapCol};
}

/// The default rule's block of `n` chips inside an `outer` area (the
/// topology, or a stage's block): it must tile the area (and have `rows`
/// rows when that is not 0).
std::optional<BlockChoice> bestBlock(const TargetDesc &target,
                                     llvm::ArrayRef<int64_t> topo,
                                     ChipCoord outer, int64_t n,
                                     int64_t onlyRows = 0) {
  std::optional<BlockChoice> best;
  for (int64_t rows = 1; rows <= n; ++rows) {
    if (n % rows != 0 || outer[0] % rows != 0 || outer[1] % (n / rows) != 0)
      continue;
    if (onlyRows > 0 && rows != onlyRows)
      continue;
    BlockChoice choice = rateBlock(target, topo, rows, n / rows);
    if (!best || choice.betterThan(*best))
      best = choice;
  }
  return best;
}

std::string shapeText(ChipCoord shape) {
  return llvm::formatv("{0}x{1}", shape[0], shape[1]).str();
}

/// The blocks of `n` chips that tile `outer`, as "1x4, 2x2".
std::string tilingBlocks(ChipCoord outer, int64_t n) {
  std::string text;
  for (int64_t rows = 1; rows <= n; ++rows)
    if (n % rows == 0 && outer[0] % rows == 0 && outer[1] % (n / rows) == 0)
      text += (text.empty() ? "" : ", ") + shapeText({rows, n / rows});
  return text.empty() ? "none" : text;
}

} // namespace

/// Offsets of an r x c block in an order where consecutive offsets are
/// neighbours, closing a cycle when possible: down column 0, then snake
/// through the remaining columns row by row back up to row 0.
llvm::SmallVector<ChipCoord> DeviceMesh::ringWalk(int64_t rows, int64_t cols) {
  llvm::SmallVector<ChipCoord> order;
  if (rows == 1 || cols == 1) {
    for (int64_t i = 0; i < rows * cols; ++i)
      order.push_back(rows == 1 ? ChipCoord{0, i} : ChipCoord{i, 0});
    return order;
  }
  // With an even row count this is a Hamiltonian cycle: it ends on row 0,
  // next to the start. With an odd row count but even columns, walk the
  // transpose.
  bool transpose = rows % 2 != 0 && cols % 2 == 0;
  int64_t r = transpose ? cols : rows, c = transpose ? rows : cols;
  auto emit = [&](int64_t i, int64_t j) {
    order.push_back(transpose ? ChipCoord{j, i} : ChipCoord{i, j});
  };
  for (int64_t i = 0; i < r; ++i)
    emit(i, 0);
  for (int64_t i = r - 1; i >= 0; --i) {
    bool rightward = (r - 1 - i) % 2 == 0;
    for (int64_t k = 1; k < c; ++k)
      emit(i, rightward ? k : c - k);
  }
  return order;
}

std::string Placement::str() const {
  const char *beside = expertGroup ? "ep" : "sp";
  return llvm::formatv("{0}, {1} {2}{3} inside {4}, {5}", shapeText(block),
                       sequenceInner ? beside : "tp", shapeText(inner),
                       byColumns ? " by columns" : "",
                       sequenceInner ? "tp" : beside,
                       stagesRing      ? "stages in ring"
                       : replicasInner ? "replicas inside stages"
                                       : "stages inside replicas")
      .str();
}

llvm::Expected<Placement> loom::parsePlacement(llvm::StringRef text) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "placement '" + text + "': " + why +
            "; expected 'RxC, tp AxB inside sp[, stages inside replicas]' "
            "(or 'sp AxB inside tp', ep for sp, 'replicas inside stages', "
            "'stages in ring')");
  };
  auto parseShape = [](llvm::StringRef s, ChipCoord &shape) {
    auto [r, c] = s.trim().split('x');
    return !r.getAsInteger(10, shape[0]) && !c.getAsInteger(10, shape[1]) &&
           shape[0] > 0 && shape[1] > 0;
  };
  llvm::SmallVector<llvm::StringRef, 3> parts;
  text.split(parts, ',');
  if (parts.size() < 2 || parts.size() > 3)
    return fail("not 2 or 3 comma-separated parts");
  Placement placement;
  if (!parseShape(parts[0], placement.block))
    return fail("'" + parts[0].trim() + "' is no block RxC of positive sizes");
  llvm::SmallVector<llvm::StringRef, 6> words;
  llvm::SplitString(parts[1], words);
  auto beside = [](llvm::StringRef word) {
    return word == "sp" || word == "ep";
  };
  if (words.size() == 6 && words[2] == "by" && words[3] == "columns") {
    placement.byColumns = true;
    words.erase(words.begin() + 2, words.begin() + 4);
  }
  if (words.size() != 4 || words[2] != "inside" ||
      !((words[0] == "tp" && beside(words[3])) ||
        (beside(words[0]) && words[3] == "tp")))
    return fail("'" + parts[1].trim() +
                "' is neither 'tp AxB [by columns] inside sp' nor 'sp AxB "
                "inside tp' (ep for sp)");
  placement.sequenceInner = words[0] != "tp";
  placement.expertGroup = words[0] == "ep" || words[3] == "ep";
  if (!parseShape(words[1], placement.inner))
    return fail("'" + words[1] + "' is no sub-block AxB of positive sizes");
  if (parts.size() == 3) {
    llvm::StringRef order = parts[2].trim();
    if (order == "replicas inside stages")
      placement.replicasInner = true;
    else if (order == "stages in ring")
      placement.stagesRing = true;
    else if (order != "stages inside replicas")
      return fail("'" + order +
                  "' is none of 'stages inside replicas', 'replicas "
                  "inside stages' and 'stages in ring'");
  }
  return placement;
}

namespace {

/// Chip hops round the cycle a ringWalk of a `grid` of `block`s makes
/// (from each block's origin to the next one's, the last back to the
/// first); an axis of blocks spanning a wrapping topology axis may close
/// through its wraparound link.
int64_t ringWalkHops(ChipCoord grid, ChipCoord block,
                     std::array<bool, 2> wraps) {
  llvm::SmallVector<ChipCoord> order = DeviceMesh::ringWalk(grid[0], grid[1]);
  int64_t hops = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const ChipCoord &a = order[i], &b = order[(i + 1) % order.size()];
    for (unsigned axis = 0; axis < 2; ++axis) {
      int64_t d = std::llabs(a[axis] - b[axis]);
      if (wraps[axis])
        d = std::min(d, grid[axis] - d);
      hops += d * block[axis];
    }
  }
  return hops;
}

} // namespace

std::optional<ChipCoord> DeviceMesh::stageRingGrid(const TargetDesc &target,
                                                   const TopologyDesc &topology,
                                                   ChipCoord block,
                                                   int64_t stages) {
  if (topology.shape.size() != 2 || block[0] < 1 || block[1] < 1 ||
      stages < 1 || topology.shape[0] % block[0] != 0 ||
      topology.shape[1] % block[1] != 0)
    return std::nullopt;
  ChipCoord blocks = {topology.shape[0] / block[0],
                      topology.shape[1] / block[1]};
  std::optional<ChipCoord> best;
  int64_t bestHops = 0;
  for (int64_t rows = 1; rows <= stages; ++rows) {
    int64_t cols = stages / rows;
    if (stages % rows != 0 || blocks[0] % rows != 0 || blocks[1] % cols != 0)
      continue;
    // A line of blocks closes through a wraparound link only when it spans
    // the whole wrapping axis.
    std::array<bool, 2> wraps = {
        rows == blocks[0] && target.axisWraps(topology.shape, 0),
        cols == blocks[1] && target.axisWraps(topology.shape, 1)};
    bool closes = stages <= 2 ||
                  (rows >= 2 && cols >= 2 && stages % 2 == 0) ||
                  (rows == 1 && wraps[1]) || (cols == 1 && wraps[0]);
    if (!closes)
      continue;
    int64_t hops = ringWalkHops({rows, cols}, block, wraps);
    if (!best || hops < bestHops) {
      best = ChipCoord{rows, cols};
      bestHops = hops;
    }
  }
  return best;
}

std::vector<Placement> DeviceMesh::placements(const TopologyDesc &topology,
                                              MeshShape shape) {
  std::vector<Placement> all;
  if (topology.shape.size() != 2)
    return all;
  ChipCoord topo = {topology.shape[0], topology.shape[1]};
  int64_t tp = shape.tensorParallel, sp = shape.sequenceParallel, n = tp * sp;
  for (int64_t rows = 1; rows <= n; ++rows) {
    int64_t cols = n / rows;
    if (n % rows != 0 || topo[0] % rows != 0 || topo[1] % cols != 0)
      continue;
    // With one group above 1, it is the inner one and fills the block.
    for (bool sequenceInner : {false, true}) {
      if ((tp == 1 || sp == 1) && sequenceInner != (tp == 1 && sp > 1))
        continue;
      int64_t degree = sequenceInner ? sp : tp;
      for (int64_t a = 1; a <= degree; ++a) {
        int64_t b = degree / a;
        if (degree % a != 0 || rows % a != 0 || cols % b != 0)
          continue;
        if ((tp == 1 || sp == 1) && (a != rows || b != cols))
          continue;
        Placement p;
        p.block = {rows, cols};
        p.sequenceInner = sequenceInner;
        p.inner = {a, b};
        p.expertGroup = shape.expertGroup;
        all.push_back(p);
      }
    }
  }
  return all;
}

llvm::Expected<DeviceMesh> DeviceMesh::build(const TargetDesc &target,
                                             const TopologyDesc &topology,
                                             MeshShape shape,
                                             const Placement &requested) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (topology.shape.size() != 2)
    return fail("device meshes are built on 2-D topologies; " + topology.name +
                " has " + llvm::Twine(topology.shape.size()) + " axes");
  if (shape.dataParallel < 1 || shape.stages < 1 || shape.tensorParallel < 1 ||
      shape.sequenceParallel < 1)
    return fail("parallel degrees must be positive");
  if (topology.slices > 1)
    return buildSlices(target, topology, shape, requested);
  int64_t X = topology.shape[0], Y = topology.shape[1];
  int64_t tp = shape.tensorParallel, sp = shape.sequenceParallel;
  int64_t ranks = shape.ranksPerStage();
  int64_t used = shape.dataParallel * shape.stages * ranks;
  // The group beside tp: Ulysses' sp, or the expert-parallel group.
  const char *beside =
      shape.expertGroup || requested.expertGroup ? "ep" : "sp";
  if (used != X * Y) {
    std::string group =
        sp > 1 ? llvm::formatv("tensor-parallel {0} x {1} {2}", tp,
                               beside[0] == 'e' ? "expert-parallel"
                                                : "sequence-parallel",
                               sp)
                     .str()
               : llvm::formatv("tensor-parallel {0}", tp).str();
    return fail(llvm::formatv("data-parallel {0} x stages {1} x {2} = {3} "
                              "chips, but topology {4} ({5}x{6}) has {7}",
                              shape.dataParallel, shape.stages, group, used,
                              topology.name, X, Y, X * Y));
  }

  // (The group's name is the module's to check: #loom.placement's
  // verifier against #loom.parallel.)
  Placement placement = requested;
  placement.expertGroup = requested.expertGroup || shape.expertGroup;
  if (placement.isDefault()) {
    // The stage block by the default rule (for one group, its ring).
    // (A 2-D tensor-parallel group alone fixes its block's rows.)
    int64_t onlyRows = sp == 1 ? shape.tensorRows : 0;
    std::optional<BlockChoice> block =
        bestBlock(target, topology.shape, {X, Y}, ranks, onlyRows);
    if (!block && onlyRows > 0)
      return fail(llvm::formatv("a {0} x {1} tensor-parallel block does not "
                                "tile topology {2} ({3}x{4})",
                                onlyRows, tp / onlyRows, topology.name, X, Y));
    if (!block)
      return fail(llvm::formatv("tensor-parallel degree {0} does not tile "
                                "topology {1} ({2}x{3}) with rectangular "
                                "blocks",
                                ranks, topology.name, X, Y));
    placement.block = {block->rows, block->cols};
    placement.sequenceInner = tp == 1 && sp > 1;
    placement.inner = placement.block;
    if (tp > 1 && sp > 1) {
      // Both groups: an inner sub-block whose outer group is unstrided (tp
      // along one side of the block, sp along the other) when one exists,
      // then the inner group a ring, then tp inside; first in the order of
      // DeviceMesh::placements.
      std::optional<Placement> best;
      std::array<bool, 3> bestRank = {};
      for (const Placement &p : placements(topology, shape)) {
        if (p.block != placement.block)
          continue;
        ChipCoord grid = {p.block[0] / p.inner[0], p.block[1] / p.inner[1]};
        bool unstrided = (grid[0] == 1 || p.inner[0] == 1) &&
                         (grid[1] == 1 || p.inner[1] == 1);
        bool ring =
            rateBlock(target, topology.shape, p.inner[0], p.inner[1]).ring;
        std::array<bool, 3> rank = {unstrided, ring, !p.sequenceInner};
        if (!best || rank > bestRank) {
          best = p;
          bestRank = rank;
        }
      }
      placement = *best;
    }
  }

  // The placement must tile: name what would.
  ChipCoord block = placement.block, inner = placement.inner;
  int64_t innerDegree = placement.sequenceInner ? sp : tp;
  // The sides divide X and Y before their product is formed, so that it
  // cannot overflow (likewise the sub-block's below).
  if (X % block[0] != 0 || Y % block[1] != 0 || block[0] * block[1] != ranks)
    return fail(llvm::formatv(
        "placement block {0} does not hold a stage's {1} chips (tp {2} x {8} "
        "{3}) tiling topology {4} ({5}x{6}); blocks that do: {7}",
        shapeText(block), ranks, tp, sp, topology.name, X, Y,
        tilingBlocks({X, Y}, ranks), beside));
  if (block[0] % inner[0] != 0 || block[1] % inner[1] != 0 ||
      inner[0] * inner[1] != innerDegree)
    return fail(llvm::formatv(
        "placement sub-block {0} does not hold the {1} group's {2} chips "
        "tiling the {3} block; sub-blocks that do: {4}",
        shapeText(inner), placement.sequenceInner ? beside : "tp", innerDegree,
        shapeText(block), tilingBlocks(block, innerDegree)));

  // A ring of each replica's stage blocks: name the blocks that close one.
  std::optional<ChipCoord> ringGrid;
  if (placement.stagesRing) {
    if (placement.replicasInner)
      return fail("placement 'stages in ring' keeps a replica's stages "
                  "together, so it does not take 'replicas inside stages'");
    ringGrid = stageRingGrid(target, topology, block, shape.stages);
    if (!ringGrid) {
      std::string closing;
      for (int64_t rows = 1; rows <= ranks; ++rows) {
        ChipCoord b = {rows, ranks / rows};
        if (ranks % rows == 0 && X % b[0] == 0 && Y % b[1] == 0 &&
            stageRingGrid(target, topology, b, shape.stages))
          closing += (closing.empty() ? "" : ", ") + shapeText(b);
      }
      return fail(llvm::formatv(
          "placement 'stages in ring': the {0} stages of a replica, as {1} "
          "blocks in the {2} grid of blocks of topology {3} ({4}x{5}), "
          "close no ring of neighbouring blocks (a ring needs an even "
          "count of 4 or more on a grid with two rows and columns, or a "
          "line round a wrapping axis); blocks whose stages do: {6}",
          shape.stages, shapeText(block),
          shapeText({X / block[0], Y / block[1]}), topology.name, X, Y,
          closing.empty() ? "none" : closing));
    }
  }

  if (shape.tensorRows > 0 && !placement.sequenceInner &&
      inner[0] != shape.tensorRows)
    return fail(llvm::formatv("placement sub-block {0} does not have the 2-D "
                              "tensor-parallel group's {1} rows",
                              shapeText(inner), shape.tensorRows));

  if (placement.byColumns && placement.sequenceInner)
    return fail(llvm::formatv(
        "placement 'by columns' numbers the tensor-parallel ranks, but the "
        "{0} group is the inner one here ('{0} {1} inside tp'); write 'tp "
        "AxB by columns inside {0}'",
        beside, shapeText(inner)));
  if (placement.byColumns && shape.tensorRows > 0)
    return fail("placement 'by columns' does not apply to a 2-D "
                "tensor-parallel group: its sub-rings run along the rows and "
                "columns of its block whatever the ranks' numbering");

  DeviceMesh mesh;
  mesh.shape = shape;
  mesh.sliceShape = shape;
  mesh.placement = placement;
  mesh.topologyShape.assign(topology.shape.begin(), topology.shape.end());
  if (placement.byColumns) {
    for (int64_t c = 0; c < inner[1]; ++c)
      for (int64_t r = 0; r < inner[0]; ++r)
        mesh.innerOrder.push_back({r, c});
  } else {
    mesh.innerOrder = ringWalk(inner[0], inner[1]);
  }
  ChipCoord grid = {block[0] / inner[0], block[1] / inner[1]};
  mesh.outerOrder = ringWalk(grid[0], grid[1]);
  auto wraps = [&](unsigned axis, int64_t span) {
    return span == topology.shape[axis] &&
           target.axisWraps(topology.shape, axis);
  };
  llvm::SmallVector<GroupAxis, 2> innerAxes, outerAxes;
  for (unsigned axis = 0; axis < 2; ++axis) {
    if (inner[axis] > 1)
      innerAxes.push_back({inner[axis], wraps(axis, inner[axis])});
    if (grid[axis] > 1)
      outerAxes.push_back(
          {grid[axis], wraps(axis, block[axis]), inner[axis]});
  }
  mesh.tensorAxes = placement.sequenceInner ? outerAxes : innerAxes;
  mesh.sequenceAxes = placement.sequenceInner ? innerAxes : outerAxes;

  // Blocks in a snake over the block grid: adjacent in the list means
  // adjacent on the torus.
  // Under `stages in ring` the snake runs over the replicas' sub-grids,
  // and each replica's stages walk theirs as a cycle.
  ChipCoord unit = ringGrid ? *ringGrid : ChipCoord{1, 1};
  llvm::SmallVector<ChipCoord> walk = ringWalk(unit[0], unit[1]);
  int64_t unitRows = X / (block[0] * unit[0]),
          unitCols = Y / (block[1] * unit[1]);
  for (int64_t i = 0; i < unitRows; ++i)
    for (int64_t k = 0; k < unitCols; ++k) {
      int64_t j = i % 2 == 0 ? k : unitCols - 1 - k;
      for (const ChipCoord &step : walk)
        mesh.blockOrigins.push_back({(i * unit[0] + step[0]) * block[0],
                                     (j * unit[1] + step[1]) * block[1]});
    }
  mesh.axisWraps = {target.axisWraps(topology.shape, 0),
                    target.axisWraps(topology.shape, 1)};

  // Whether the tensor-parallel ranks close a ring of neighbours (two
  // ranks always do), as loom-sim decides it.
  auto hops = [&](ChipCoord a, ChipCoord b) {
    int64_t total = 0;
    for (unsigned axis = 0; axis < 2; ++axis) {
      int64_t d = std::llabs(a[axis] - b[axis]);
      if (target.axisWraps(topology.shape, axis))
        d = std::min(d, topology.shape[axis] - d);
      total += d;
    }
    return total;
  };
  mesh.tensorRing = true;
  for (int64_t t = 0; t < tp && tp > 2; ++t)
    mesh.tensorRing &= hops(mesh.chip(0, 0, t), mesh.chip(0, 0, (t + 1) % tp)) == 1;

  // Ranks numbered out of walk order: how a collective step over them
  // loads the links, as loom-sim routes it (the same in every block).
  if (placement.byColumns) {
    llvm::SmallVector<llvm::SmallVector<int64_t, 3>> members;
    for (int64_t t = 0; t < tp; ++t) {
      ChipCoord c = mesh.chip(0, 0, t);
      members.push_back({c[0], c[1]});
    }
    auto routes = std::make_shared<const GroupRoutes>(
        CostModel(target).groupRoutes(topology.shape, members));
    for (GroupAxis &axis : mesh.tensorAxes)
      axis.routes = routes;
  }
  return mesh;
}

llvm::Expected<DeviceMesh>
DeviceMesh::buildSlices(const TargetDesc &target, const TopologyDesc &topology,
                        MeshShape shape, const Placement &requested) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  int64_t slices = topology.slices, sliceChips = topology.sliceChips();
  int64_t perReplica = shape.stages * shape.ranksPerStage();
  if (shape.dataParallel * perReplica != topology.numChips())
    return fail(llvm::formatv(
        "data-parallel {0} x stages {1} x {2} chips a stage = {3} chips, but "
        "topology {4} ({5} slices of {6}) has {7}",
        shape.dataParallel, shape.stages, shape.ranksPerStage(),
        shape.dataParallel * perReplica, topology.name, slices, sliceChips,
        topology.numChips()));
  // A replica within a slice (data parallelism over the DCN), or spanning
  // whole slices, a run of its stages on each (stages over the DCN). (The
  // replicas fill the slices, so the slices a replica spans divide them.)
  MeshShape local = shape;
  if (perReplica <= sliceChips) {
    if (sliceChips % perReplica != 0)
      return fail(llvm::formatv("a replica of stages {0} x {1} chips a stage "
                                "= {2} chips does not tile a slice of {3}",
                                shape.stages, shape.ranksPerStage(),
                                perReplica, sliceChips));
    local.dataParallel = sliceChips / perReplica;
  } else {
    int64_t spanned = perReplica / sliceChips;
    if (perReplica % sliceChips != 0 || shape.stages % spanned != 0)
      return fail(llvm::formatv(
          "a replica of stages {0} x {1} chips a stage = {2} chips spans "
          "slices of {3}: its stages must fill whole slices, an equal run "
          "of stages on each",
          shape.stages, shape.ranksPerStage(), perReplica, sliceChips));
    local.dataParallel = 1;
    local.stages = shape.stages / spanned;
  }
  TopologyDesc one = topology;
  one.slices = 1;
  llvm::Expected<DeviceMesh> built = build(target, one, local, requested);
  if (!built)
    return built.takeError();
  DeviceMesh mesh = std::move(*built);
  mesh.sliceShape = local;
  mesh.shape = shape;
  mesh.slices = slices;
  return mesh;
}

int64_t DeviceMesh::sliceOf(int64_t replica, int64_t stage) const {
  if (slices == 1)
    return 0;
  if (sliceShape.stages < shape.stages)
    return replica * (shape.stages / sliceShape.stages) +
           stage / sliceShape.stages;
  return replica / sliceShape.dataParallel;
}

int64_t DeviceMesh::stageHops(int64_t stage) const {
  ChipCoord a = inSlice(chip(0, stage, 0)),
            b = inSlice(chip(0, (stage + 1) % shape.stages, 0));
  int64_t hops = 0;
  for (unsigned axis = 0; axis < 2; ++axis) {
    int64_t d = std::llabs(a[axis] - b[axis]);
    if (axisWraps[axis])
      d = std::min(d, topologyShape[axis] - d);
    hops += d;
  }
  return hops;
}

ChipCoord DeviceMesh::chip(int64_t replica, int64_t stage, int64_t rank) const {
  // Several slices: the slice's chips stacked below the ones before it.
  int64_t slice = sliceOf(replica, stage);
  if (slices > 1) {
    replica %= sliceShape.dataParallel;
    stage %= sliceShape.stages;
  }
  int64_t blockIndex = placement.replicasInner
                           ? stage * sliceShape.dataParallel + replica
                           : replica * sliceShape.stages + stage;
  const ChipCoord &origin = blockOrigins[blockIndex];
  int64_t tp = shape.tensorParallel;
  int64_t t = rank % tp, u = rank / tp;
  int64_t innerRank = placement.sequenceInner ? u : t;
  int64_t outerRank = placement.sequenceInner ? t : u;
  const ChipCoord &sub = outerOrder[outerRank];
  const ChipCoord &offset = innerOrder[innerRank];
  return {slice * topologyShape[0] + origin[0] + sub[0] * placement.inner[0] +
              offset[0],
          origin[1] + sub[1] * placement.inner[1] + offset[1]};
}

std::array<int64_t, 2> DeviceMesh::tensorParallelBlock() const {
  if (!placement.sequenceInner)
    return placement.inner;
  return {placement.block[0] / placement.inner[0],
          placement.block[1] / placement.inner[1]};
}

llvm::SmallVector<int64_t>
DeviceMesh::tensorParallelSubGroup(int64_t rank, unsigned axis) const {
  int64_t tp = shape.tensorParallel, t = rank % tp, u = rank / tp;
  const llvm::SmallVector<ChipCoord> &order =
      placement.sequenceInner ? outerOrder : innerOrder;
  const ChipCoord &at = order[t];
  llvm::SmallVector<int64_t> ranks(tensorParallelBlock()[axis], -1);
  for (auto [r, offset] : llvm::enumerate(order))
    if (offset[1 - axis] == at[1 - axis])
      ranks[offset[axis]] = u * tp + int64_t(r);
  return ranks;
}

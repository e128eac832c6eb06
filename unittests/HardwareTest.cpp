//===- HardwareTest.cpp - target files, cost model and device mesh --------===//
//
// Every expected time below is worked out by hand from the TPU v5e figures
// the cost model uses (targets/tpu-v5e.json):
//   peak bf16 197e12 FLOP/s x MXU fraction 0.8 = 157.6e12 FLOP/s
//   HBM 819.2e9 B/s x fraction 0.9            = 737.28e9 B/s
//   link 4.5e10 B/s one way (measured), hop latency 1e-6 s,
//   MXU edge 128, wraparound only on axes of 16 chips.
//
//===----------------------------------------------------------------------===//

#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/DeviceMesh.h"
#include "loom/Hardware/TargetDesc.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>

using namespace loom;

namespace {

const TargetDesc &v5e() {
  const TargetDesc *target = lookupTarget("tpu-v5e");
  EXPECT_TRUE(target);
  return *target;
}

/// v5e's figures without its calibration and at the flat 0.8 MXU fraction
/// the file also records: the formulas' structure on round numbers.
const TargetDesc &nominalV5e() {
  static const TargetDesc nominal = [] {
    TargetDesc t = v5e();
    t.calibration = Calibration();
    t.flopEfficiency = 0.8;
    return t;
  }();
  return nominal;
}

std::string readSourceFile(const char *relative) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(LOOM_SOURCE_DIR) + "/" +
                                            relative);
  EXPECT_TRUE(bool(buffer)) << relative;
  return buffer ? (*buffer)->getBuffer().str() : "";
}

/// The v5e file with `edit` applied, parsed; returns the error text or "".
std::string parseEdited(const std::function<void(llvm::json::Object &)> &edit) {
  llvm::Expected<llvm::json::Value> doc =
      llvm::json::parse(readSourceFile("targets/tpu-v5e.json"));
  EXPECT_TRUE(bool(doc));
  if (!doc)
    return "unparsable";
  edit(*doc->getAsObject());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *doc;
  llvm::Expected<TargetDesc> target = parseTargetDesc(text, "edited.json");
  if (target)
    return "";
  return llvm::toString(target.takeError());
}

llvm::json::Object &section(llvm::json::Object &root, const char *key) {
  return *root.getObject(key);
}

//===----------------------------------------------------------------------===//
// Target files
//===----------------------------------------------------------------------===//

TEST(TargetDesc, BundledV5eFigures) {
  const TargetDesc &t = v5e();
  EXPECT_EQ(t.peakFlopsBf16, 197e12);
  EXPECT_EQ(t.peakOpsInt8, 394e12);
  EXPECT_EQ(t.hbmBytes, 16e9);
  EXPECT_EQ(t.hbmBandwidth, 819.2e9);
  EXPECT_EQ(t.linkBandwidth, 4.5e10); // "use": "measured"
  EXPECT_EQ(t.hopLatency, 1e-6);
  EXPECT_EQ(t.mxuTile, 128);
  EXPECT_EQ(t.maxChips, 256);
  ASSERT_EQ(t.topologies.size(), 8u);
  const TopologyDesc *topology = t.findTopology("v5e-16");
  ASSERT_TRUE(topology);
  EXPECT_EQ(llvm::ArrayRef<int64_t>(topology->shape), llvm::ArrayRef<int64_t>({4, 4}));
  EXPECT_EQ(t.findTopology(llvm::ArrayRef<int64_t>{8, 16})->name, "v5e-128");
  EXPECT_FALSE(t.findTopology("v5e-2"));
  EXPECT_EQ(t.listTopologies().substr(0, 26), "v5e-1 (1x1), v5e-4 (2x2), ");
}

TEST(TargetDesc, V5eWrapsOnlySixteenChipAxes) {
  const TargetDesc &t = v5e();
  EXPECT_TRUE(t.axisWraps({16, 16}, 0));
  EXPECT_FALSE(t.axisWraps({8, 16}, 0));
  EXPECT_TRUE(t.axisWraps({8, 16}, 1));
  EXPECT_FALSE(t.axisWraps({4, 4}, 1));
}

TEST(TargetDesc, SecondTargetIsThreeDimensional) {
  const TargetDesc *v5p = lookupTarget("tpu-v5p");
  ASSERT_TRUE(v5p);
  EXPECT_EQ(v5p->peakFlopsBf16, 459e12);
  // Whole 4x4x4 cubes have wraparound on every axis; smaller slices none.
  EXPECT_TRUE(v5p->axisWraps({4, 4, 4}, 2));
  EXPECT_TRUE(v5p->axisWraps({4, 4, 8}, 0));
  EXPECT_FALSE(v5p->axisWraps({2, 4, 4}, 1));
  EXPECT_EQ(listTargets(), "tpu-v5e, tpu-v5p");
}

TEST(TargetDesc, ErrorsNameTheJsonPath) {
  EXPECT_EQ(parseEdited([](llvm::json::Object &) {}), "");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              section(root, "chip")["peak_bf17"] = 1;
            }).substr(0, 41),
            "edited.json: $.chip.peak_bf17: unknown ke");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              section(root, "interconnect").erase("hop_latency");
            }),
            "edited.json: $.interconnect.hop_latency: missing required key");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              (*section(root, "chip").getObject("hbm_bandwidth"))["value"] = 0;
            }),
            "edited.json: $.chip.hbm_bandwidth.value: must be positive, got 0");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              auto &link = *section(root, "interconnect").getObject("link_bandwidth");
              (*link.getObject("measured"))["value"] = -4.5e10;
            }),
            "edited.json: $.interconnect.link_bandwidth.measured.value: must "
            "be positive, got -45000000000");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              auto &link = *section(root, "interconnect").getObject("link_bandwidth");
              link["use"] = "assumed";
            }),
            "edited.json: $.interconnect.link_bandwidth.use: names 'assumed', "
            "which is not one of this figure's variants");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              (*section(root, "chip").getObject("peak_int8")).erase("source");
            }),
            "edited.json: $.chip.peak_int8.source: missing required key");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              (*root.getArray("topologies"))[2].getAsObject()->operator[]("shape") =
                  llvm::json::Array{2, 0};
            }),
            "edited.json: $.topologies[2].shape[1]: must be a positive integer");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              (*section(root, "chip").getObject("hbm_bandwidth"))["unit"] =
                  "GB/s";
            }),
            "edited.json: $.chip.hbm_bandwidth.unit: must be \"bytes/s\", "
            "got \"GB/s\"");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              auto &topology = *section(root, "interconnect").getObject("topology");
              (*topology.getObject("wraparound"))["rule"] = "sometimes";
            }),
            "edited.json: $.interconnect.topology.wraparound.rule: must be "
            "\"always\", \"never\", \"axis-size-at-least\" or "
            "\"all-axes-when-whole-cubes\", got \"sometimes\"");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              (*root.getArray("topologies"))[2].getAsObject()->operator[]("shape") =
                  llvm::json::Array{32, 32};
            }).substr(0, 56),
            "edited.json: $.topologies[2].shape: does not fit the pod");
  // Figures that would make derived times infinite or counts fractional.
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              (*section(root, "chip").getObject("peak_bf16"))["value"] = 1e-300;
            }),
            "edited.json: $.chip.peak_bf16.value: must be at least 1 FLOP/s, "
            "got 1e-300");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              (*section(root, "chip").getObject("hbm_capacity"))["value"] = 0.5;
            }),
            "edited.json: $.chip.hbm_capacity.value: must be a whole number "
            "of bytes in [1, 2^53], got 0.5");
  // A count past 2^53 would no longer be exact, and past 2^63 would wrap
  // when read as an integer.
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              (*section(root, "chip").getObject("hbm_capacity"))["value"] = 1e19;
            }),
            "edited.json: $.chip.hbm_capacity.value: must be a whole number "
            "of bytes in [1, 2^53], got 1e+19");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              auto &hop = *section(root, "interconnect").getObject("hop_latency");
              (*hop.getObject("measured"))["value"] = 5;
            }),
            "edited.json: $.interconnect.hop_latency.measured.value: must be "
            "in (0, 1] s, got 5");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) {
              auto &mxu = *section(root, "efficiency").getObject("mxu_fraction");
              (*mxu.getObject("measured"))["value"] = 1e-300;
            }),
            "edited.json: $.efficiency.mxu_fraction.measured.value: must be a "
            "fraction in [0.01, 1], got 1e-300");
  EXPECT_EQ(parseEdited([](llvm::json::Object &root) { root["format"] = "v2"; }),
            "edited.json: $.format: must be \"loom-target/1\", got \"v2\"");
}

TEST(TargetDesc, PodsAndSlicesAreBoundedTori) {
  auto setMaxChips = [](llvm::json::Object &root, double chips) {
    (*section(root, "pod").getObject("max_chips"))["value"] = chips;
  };
  auto setLargest = [](llvm::json::Object &root, llvm::json::Array shape) {
    (*section(root, "pod").getObject("max_topology_shape"))["shape"] =
        std::move(shape);
  };
  auto setTopology = [](llvm::json::Object &root, llvm::json::Array shape) {
    (*root.getArray("topologies"))[7].getAsObject()->operator[]("shape") =
        std::move(shape);
  };
  // A chip count past 2^53 is refused before it is read as an integer (a
  // cast of 1e300 to int64_t would be undefined; the fuzzer found one).
  EXPECT_EQ(parseEdited([&](llvm::json::Object &root) {
              setMaxChips(root, 1e300);
            }),
            "edited.json: $.pod.max_chips.value: must be a whole number of "
            "chips in [1, 2^53], got 1e+300");
  EXPECT_EQ(parseEdited([&](llvm::json::Object &root) {
              (*section(root, "chip").getObject("mxu_columns"))["value"] = 1e300;
            }),
            "edited.json: $.chip.mxu_columns.value: must be a whole number of "
            "elements in [1, 2^53], got 1e+300");
  // A number past the double range reads as infinity: refused (found by the
  // target fuzzer).
  std::string text = readSourceFile("targets/tpu-v5e.json");
  llvm::StringRef peak = "\"value\": 197e12";
  size_t at = text.find(peak.str());
  ASSERT_NE(at, std::string::npos);
  text.replace(at, peak.size(), "\"value\": 2e5679");
  llvm::Expected<TargetDesc> infinite = parseTargetDesc(text, "edited.json");
  ASSERT_FALSE(bool(infinite));
  EXPECT_EQ(llvm::toString(infinite.takeError()),
            "edited.json: $.chip.peak_bf16.value: must be a finite number");
  // A pod of at most 2^16 chips.
  EXPECT_EQ(parseEdited([&](llvm::json::Object &root) {
              setMaxChips(root, 65537);
            }),
            "edited.json: $.pod.max_chips.value: must be at most 65536 chips "
            "(the largest TPU pod Loom models), got 65537");
  // The largest topology holds no more chips than the pod, even where the
  // product of its axes wraps around 64 bits.
  for (int64_t side : {int64_t(17), int64_t(1) << 32})
    EXPECT_EQ(parseEdited([&](llvm::json::Object &root) {
                setLargest(root, llvm::json::Array{side, side});
              }),
              "edited.json: $.pod.max_topology_shape.shape: holds more than the "
              "pod's 256 chips ($.pod.max_chips)")
        << side;
  // A topology within the largest shape's axes but over the pod's chips.
  EXPECT_EQ(parseEdited([&](llvm::json::Object &root) {
              setMaxChips(root, 128);
            }),
            "edited.json: $.pod.max_topology_shape.shape: holds more than the "
            "pod's 128 chips ($.pod.max_chips)");
  EXPECT_EQ(parseEdited([&](llvm::json::Object &root) {
              setMaxChips(root, 128);
              setLargest(root, llvm::json::Array{8, 16});
            }),
            "edited.json: $.topologies[7].shape: does not fit the pod "
            "($.pod.max_topology_shape, $.pod.max_chips = 128)");
  // The largest pod allowed loads, with topologies up to its size.
  EXPECT_EQ(parseEdited([&](llvm::json::Object &root) {
              setMaxChips(root, 65536);
              setLargest(root, llvm::json::Array{256, 256});
              setTopology(root, llvm::json::Array{256, 256});
            }),
            "");
  // A shape built elsewhere saturates rather than wraps.
  TopologyDesc wide{"wide", {int64_t(1) << 32, int64_t(1) << 32}};
  EXPECT_EQ(wide.numChips(), std::numeric_limits<int64_t>::max());
}

TEST(TargetDesc, BundledTargetsAreFoundByName) {
  ASSERT_TRUE(lookupTarget("tpu-v5e"));
  EXPECT_EQ(lookupTarget("tpu-v5e")->hopLatency, 1e-6);
  EXPECT_FALSE(lookupTarget("tpu-v9"));
  auto [target, topology] = lookupTopology("v5p-64");
  ASSERT_TRUE(target && topology);
  EXPECT_EQ(target->name, "tpu-v5p");
  // v5p names count TensorCores, two per chip: v5p-64 is 2x4x4 chips.
  EXPECT_EQ(topology->numChips(), 32);
}

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

TEST(CostModel, RooflineTakesTheSlowerOfComputeAndMemory) {
  CostModel model(nominalV5e());
  // 1.576e12 FLOPs / 157.6e12 FLOP/s = 10 ms; 1 MB of traffic is far less.
  EXPECT_DOUBLE_EQ(model.computeTime(1.576e12, 1e6), 0.01);
  // 737.28e6 bytes / 737.28e9 B/s = 1 ms; 1 MFLOP is far less.
  EXPECT_DOUBLE_EQ(model.computeTime(1e6, 737.28e6), 1e-3);
  // int8 runs at twice the bf16 peak: 394e12 x 0.8 = 315.2e12.
  EXPECT_DOUBLE_EQ(model.computeTime(3.152e12, 0, 8), 0.01);
}

TEST(CostModel, MatmulDimensionsPadToTheMXU) {
  CostModel model(nominalV5e());
  EXPECT_EQ(model.padToMXU(100), 128);
  EXPECT_EQ(model.padToMXU(128), 128);
  EXPECT_EQ(model.padToMXU(129), 256);
  // 8192 x 1000 x 1000 pads to 8192 x 1024 x 1024: 2 * 8192 * 1024^2 =
  // 1.7179869184e10 FLOPs / 157.6e12 = 1.0901e-4 s; its bytes, 2 * (8192e3
  // + 1e6 + 8192e3) = 3.4768e7 / 737.28e9 = 4.7e-5 s, are hidden.
  EXPECT_DOUBLE_EQ(model.matmulTime(8192, 1000, 1000),
                   2.0 * 8192 * 1024 * 1024 / 157.6e12);
  // A multiple of 128 wastes nothing.
  EXPECT_DOUBLE_EQ(model.matmulTime(8192, 1024, 1024),
                   2.0 * 8192 * 1024 * 1024 / 157.6e12);
}

TEST(CostModel, HopsFollowDimensionOrderAndTheWrapRule) {
  CostModel model(nominalV5e());
  // 16x16 wraps: row 0 to row 15 is one hop through the wraparound link.
  EXPECT_EQ(model.hops({16, 16}, {0, 0}, {15, 0}), 1);
  // 4x4 does not wrap: three hops along the line.
  EXPECT_EQ(model.hops({4, 4}, {0, 0}, {3, 0}), 3);
  // 8x16: 7 hops on the 8-axis (no wrap) + 1 on the 16-axis (wrap).
  EXPECT_EQ(model.hops({8, 16}, {0, 0}, {7, 15}), 8);
  EXPECT_EQ(model.hops({4, 4}, {2, 1}, {2, 1}), 0);
}

TEST(CostModel, PointToPoint) {
  CostModel model(nominalV5e());
  // 4x4 corner to corner: 6 hops x 1 us + 4.5 MB / 4.5e10 B/s = 106 us.
  EXPECT_DOUBLE_EQ(model.pointToPointTime({4, 4}, {0, 0}, {3, 3}, 4.5e6),
                   106e-6);
  // Through the wraparound of a 16x16: 1 hop.
  EXPECT_DOUBLE_EQ(model.pointToPointTime({16, 16}, {0, 0}, {0, 15}, 4.5e6),
                   101e-6);
  EXPECT_EQ(model.pointToPointTime({4, 4}, {1, 1}, {1, 1}, 4.5e6), 0);
}

TEST(CostModel, CollectivesOnARingWithWraparound) {
  CostModel model(nominalV5e());
  GroupAxis ring16{16, true};
  // AllGather of 90 MB over a 16-chip ring: 15 steps of 1 us, and 15/16 of
  // the data enters each chip over two links (9e10 B/s):
  // 15/16 * 9e7 / 9e10 = 937.5 us; 952.5 us in all.
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllGather, {ring16}, 9e7),
                   952.5e-6);
  EXPECT_DOUBLE_EQ(
      model.collectiveTime(CollectiveKind::ReduceScatter, {ring16}, 9e7),
      952.5e-6);
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllReduce, {ring16}, 9e7),
                   2 * 952.5e-6);
  // AllToAll of 9 MB per chip: 9e6 * 16 / (8 * 4.5e10) = 400 us, plus the
  // farthest chunk's 8 hops.
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllToAll, {ring16}, 9e6),
                   408e-6);
}

TEST(CostModel, CollectivesOnALineWithoutWraparound) {
  CostModel model(nominalV5e());
  GroupAxis line8{8, false};
  // The end chips take in over one link: 7/8 * 4.5e7 / 4.5e10 = 875 us,
  // 7 steps.
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllGather, {line8}, 4.5e7),
                   882e-6);
  // AllToAll across the middle link: 4.5e6 * 4 / (4 * 4.5e10) = 100 us on 4,
  // the farthest chunk 3 hops.
  EXPECT_DOUBLE_EQ(
      model.collectiveTime(CollectiveKind::AllToAll, {{4, false}}, 4.5e6),
      103e-6);
}

TEST(CostModel, BlocksRunAsRingsOverTheirHamiltonianCycle) {
  CostModel model(nominalV5e());
  // A 4x4 block (16 chips, no wraparound) has a cycle of neighbours: a ring
  // of 16, 15 steps, 9e10 B/s in: 937.5 + 15 us.
  EXPECT_TRUE(CostModel::isRing({{4, false}, {4, false}}));
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllGather,
                                        {{4, false}, {4, false}}, 9e7),
                   952.5e-6);
  // A lone 4-axis without wraparound is a line; so is a 3x3 block (odd).
  EXPECT_FALSE(CostModel::isRing({{4, false}}));
  EXPECT_FALSE(CostModel::isRing({{3, false}, {3, false}}));
}

TEST(CostModel, AllToAllOverABlockLoadsEachAxisAsItsOwnRing) {
  CostModel model(nominalV5e());
  // 32 chips as a wrapped 16-ring by 2 (DeepSeek-V3's tp 32 on v5e-256):
  // dimension-order routing sends each chunk along the 16-axis, then the
  // 2-axis. Each 16-ring carries twice a 16-chip all-to-all's chunks of
  // 9e6 / 32: 9e6 * 16 / 8 / 4.5e10 = 400 us (not the 800 us of a 32-ring);
  // the 2-axis carries less (9e6 * 2 / 4 / 4.5e10). Farthest: 8 + 1 hops.
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllToAll,
                                        {{16, true}, {2, false}}, 9e6),
                   409e-6);
  // A 4x4 block without wraparound: each axis a line of 4,
  // 4.5e6 * 4 / 4 / 4.5e10 = 100 us, 3 + 3 hops.
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllToAll,
                                        {{4, false}, {4, false}}, 4.5e6),
                   106e-6);
}

TEST(CostModel, SmallCollectivesAreLatencyBound) {
  CostModel model(nominalV5e());
  // 1 kB over a 16-ring: the 15 steps' latency is 99% of the time.
  double t = model.collectiveTime(CollectiveKind::AllGather, {{16, true}}, 1e3);
  EXPECT_GT(15e-6 / t, 0.99);
  EXPECT_EQ(model.collectiveTime(CollectiveKind::AllReduce, {{1, false}}, 1e9), 0);
}

TEST(CostModel, CalibrationAddsFixedCostsAndLinkEfficiencies) {
  // The bundled v5e carries bench/calibrate.py's fit (targets/tpu-v5e.json).
  const TargetDesc &t = v5e();
  const Calibration &c = t.calibration;
  EXPECT_EQ(c.file, "targets/tpu-v5e.json");
  EXPECT_EQ(c.name, "tpu-v5e-published");
  EXPECT_EQ(c.version, 1);
  EXPECT_FALSE(c.isNominal());
  EXPECT_GT(c.programDispatch, 5e-5);
  EXPECT_LT(c.lineEfficiency, c.ringEfficiency);
  CostModel model(t);
  // A task is its kernel step plus the roofline.
  EXPECT_DOUBLE_EQ(model.taskTime(1.97e12, 0),
                   c.kernelStep + 1.97e12 / (197e12 * t.flopEfficiency));
  // A matmul's rows pad to the 8 sublanes: 3 rows cost as 8 (on the MXU).
  EXPECT_DOUBLE_EQ(model.matmulTime(3, 4096, 4096, 2) - c.kernelStep,
                   std::max(2.0 * 8 * 4096 * 4096 / (197e12 * t.flopEfficiency),
                            2.0 * (3 * 4096 + 4096 * 4096 + 3 * 4096) /
                                (819.2e9 * t.hbmEfficiency)));
  // A collective pays its synchronisation once, its links at the ring's or
  // the line's efficiency; an all-reduce is one collective.
  double ring = c.collectiveSync + 15e-6 + 15.0 / 16 * 9e7 / (2 * c.ringEfficiency * 4.5e10);
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllGather, {{16, true}}, 9e7), ring);
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllReduce, {{16, true}}, 9e7),
                   2 * ring - c.collectiveSync);
  double line = c.collectiveSync + 3e-6 + 3.0 / 4 * 4.5e7 / (c.lineEfficiency * 4.5e10);
  EXPECT_DOUBLE_EQ(model.collectiveTime(CollectiveKind::AllGather, {{4, false}}, 4.5e7), line);
  // A message runs at the line's efficiency.
  EXPECT_DOUBLE_EQ(model.pointToPointTime({4, 4}, {0, 0}, {0, 1}, 4.5e6),
                   1e-6 + 4.5e6 / (c.lineEfficiency * 4.5e10));
  // v5p has no published measurements: nominal.
  EXPECT_TRUE(lookupTarget("tpu-v5p")->calibration.isNominal());
}

//===----------------------------------------------------------------------===//
// Device mesh
//===----------------------------------------------------------------------===//

DeviceMesh buildMesh(const char *topology, MeshShape shape) {
  llvm::Expected<DeviceMesh> mesh =
      DeviceMesh::build(v5e(), *v5e().findTopology(topology), shape);
  if (!mesh) {
    ADD_FAILURE() << llvm::toString(mesh.takeError());
    std::abort();
  }
  return std::move(*mesh);
}

bool neighbours(ChipCoord a, ChipCoord b) {
  return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) == 1;
}

TEST(DeviceMesh, TwoByFourTwoStagesOfTwoByTwoRings) {
  DeviceMesh mesh = buildMesh("v5e-8", {1, 2, 4});
  // tp=4 as a 1x4 row would be a line (a 4-axis does not wrap); a 2x2 block
  // is a ring.
  EXPECT_TRUE(mesh.tensorParallelIsRing());
  std::vector<ChipCoord> stage0, stage1;
  for (int64_t r = 0; r < 4; ++r) {
    stage0.push_back(mesh.chip(0, 0, r));
    stage1.push_back(mesh.chip(0, 1, r));
  }
  EXPECT_EQ(stage0, (std::vector<ChipCoord>{{0, 0}, {1, 0}, {1, 1}, {0, 1}}));
  EXPECT_EQ(stage1, (std::vector<ChipCoord>{{0, 2}, {1, 2}, {1, 3}, {0, 3}}));
  EXPECT_EQ(mesh.tensorParallelAxes().size(), 2u);
}

TEST(DeviceMesh, FourByFourStagesAreAdjacent) {
  DeviceMesh mesh = buildMesh("v5e-16", {1, 4, 4});
  std::set<int64_t> used;
  for (int64_t s = 0; s < 4; ++s) {
    for (int64_t r = 0; r < 4; ++r) {
      used.insert(mesh.chipId(mesh.chip(0, s, r)));
      // Ranks form a ring of neighbours.
      EXPECT_TRUE(neighbours(mesh.chip(0, s, r), mesh.chip(0, s, (r + 1) % 4)));
    }
    if (s + 1 < 4) {
      bool adjacent = false;
      for (int64_t a = 0; a < 4; ++a)
        for (int64_t b = 0; b < 4; ++b)
          adjacent |= neighbours(mesh.chip(0, s, a), mesh.chip(0, s + 1, b));
      EXPECT_TRUE(adjacent) << "stage " << s;
    }
  }
  EXPECT_EQ(used.size(), 16u); // every chip once
}

TEST(DeviceMesh, SixteenBySixteenPrefersTheWrappingAxis) {
  DeviceMesh mesh = buildMesh("v5e-256", {1, 16, 16});
  // tp=16 takes a whole 16-chip axis, closed by its wraparound link.
  ASSERT_EQ(mesh.tensorParallelAxes().size(), 1u);
  EXPECT_EQ(mesh.tensorParallelAxes()[0].size, 16);
  EXPECT_TRUE(mesh.tensorParallelAxes()[0].wraps);
  EXPECT_EQ(mesh.chip(0, 3, 0), (ChipCoord{3, 0}));
  EXPECT_EQ(mesh.chip(0, 3, 15), (ChipCoord{3, 15}));

  DeviceMesh dp = buildMesh("v5e-256", {4, 8, 8});
  std::set<int64_t> used;
  for (int64_t d = 0; d < 4; ++d)
    for (int64_t s = 0; s < 8; ++s)
      for (int64_t r = 0; r < 8; ++r)
        used.insert(dp.chipId(dp.chip(d, s, r)));
  EXPECT_EQ(used.size(), 256u);
  EXPECT_TRUE(dp.tensorParallelIsRing());
}

TEST(DeviceMesh, MismatchedFactorisationIsAnError) {
  llvm::Expected<DeviceMesh> mesh =
      DeviceMesh::build(v5e(), *v5e().findTopology("v5e-16"), {2, 2, 2});
  ASSERT_FALSE(bool(mesh));
  EXPECT_EQ(llvm::toString(mesh.takeError()),
            "data-parallel 2 x stages 2 x tensor-parallel 2 = 8 chips, but "
            "topology v5e-16 (4x4) has 16");
  const TargetDesc *v5p = lookupTarget("tpu-v5p");
  llvm::Expected<DeviceMesh> cube =
      DeviceMesh::build(*v5p, v5p->topologies.front(), {1, 1, 4});
  ASSERT_FALSE(bool(cube));
  EXPECT_NE(llvm::toString(cube.takeError()).find("2-D topologies"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Placement: coordinates worked by hand
//===----------------------------------------------------------------------===//

DeviceMesh placeMesh(const char *topology, MeshShape shape, const char *text) {
  llvm::Expected<Placement> placement = parsePlacement(text);
  if (!placement) {
    ADD_FAILURE() << llvm::toString(placement.takeError());
    std::abort();
  }
  llvm::Expected<DeviceMesh> mesh = DeviceMesh::build(
      v5e(), *v5e().findTopology(topology), shape, *placement);
  if (!mesh) {
    ADD_FAILURE() << llvm::toString(mesh.takeError());
    std::abort();
  }
  return std::move(*mesh);
}

// tp 2 x sp 4 on v5e-8 (2x4): the rule puts each tp pair in a column (2x1)
// and each sp group along a row; rank r = u * 2 + t sits at (t, u).
TEST(Placement, DefaultRuleTpColumnsSpRows) {
  DeviceMesh mesh = buildMesh("v5e-8", {1, 1, 2, 4});
  EXPECT_EQ(mesh.getPlacement().str(),
            "2x4, tp 2x1 inside sp, stages inside replicas");
  std::vector<ChipCoord> chips;
  for (int64_t r = 0; r < 8; ++r)
    chips.push_back(mesh.chip(0, 0, r));
  EXPECT_EQ(chips, (std::vector<ChipCoord>{{0, 0}, {1, 0}, {0, 1}, {1, 1},
                                           {0, 2}, {1, 2}, {0, 3}, {1, 3}}));
  ASSERT_EQ(mesh.tensorParallelAxes().size(), 1u);
  EXPECT_EQ(mesh.tensorParallelAxes()[0].size, 2);
  EXPECT_EQ(mesh.tensorParallelAxes()[0].stride, 1);
  ASSERT_EQ(mesh.sequenceParallelAxes().size(), 1u);
  EXPECT_EQ(mesh.sequenceParallelAxes()[0].size, 4);
  EXPECT_FALSE(mesh.sequenceParallelAxes()[0].wraps); // 4 < 16 chips
  EXPECT_EQ(mesh.sequenceParallelAxes()[0].stride, 1);
}

// "2x4, sp 2x2 inside tp": each sp group a 2x2 ring ((0,0) (1,0) (1,1)
// (0,1) from its corner), the tp pair the same offset in the two 2x2
// sub-blocks, 2 chips apart: a strided axis.
TEST(Placement, SequenceInnerRingTpStrided) {
  DeviceMesh mesh =
      placeMesh("v5e-8", {1, 1, 2, 4}, "2x4, sp 2x2 inside tp");
  // r = u * 2 + t: t picks the sub-block, u the ring position in it.
  EXPECT_EQ(mesh.chip(0, 0, 0), (ChipCoord{0, 0}));
  EXPECT_EQ(mesh.chip(0, 0, 1), (ChipCoord{0, 2}));
  EXPECT_EQ(mesh.chip(0, 0, 2), (ChipCoord{1, 0}));
  EXPECT_EQ(mesh.chip(0, 0, 4), (ChipCoord{1, 1}));
  EXPECT_EQ(mesh.chip(0, 0, 6), (ChipCoord{0, 1}));
  EXPECT_EQ(mesh.chip(0, 0, 7), (ChipCoord{0, 3}));
  ASSERT_EQ(mesh.tensorParallelAxes().size(), 1u);
  EXPECT_EQ(mesh.tensorParallelAxes()[0].size, 2);
  EXPECT_EQ(mesh.tensorParallelAxes()[0].stride, 2);
  EXPECT_EQ(mesh.sequenceParallelAxes().size(), 2u);
  EXPECT_TRUE(CostModel::isRing(mesh.sequenceParallelAxes()));
  EXPECT_FALSE(CostModel::isRing(mesh.tensorParallelAxes()));
}

// tp 4 on v5e-16 with 2 stages x 2 replicas in 2x2 blocks; the blocks snake
// (0,0) (0,2) (2,2) (2,0). Stages inside replicas: replica 0's stages take
// the first two blocks; replicas inside stages: stage 0's replicas do.
TEST(Placement, BlockOrder) {
  DeviceMesh stagesInner = placeMesh("v5e-16", {2, 2, 4, 1},
                                     "2x2, tp 2x2 inside sp");
  EXPECT_EQ(stagesInner.chip(0, 1, 0), (ChipCoord{0, 2}));
  EXPECT_EQ(stagesInner.chip(1, 0, 0), (ChipCoord{2, 2}));
  DeviceMesh replicasInner =
      placeMesh("v5e-16", {2, 2, 4, 1},
                "2x2, tp 2x2 inside sp, replicas inside stages");
  EXPECT_EQ(replicasInner.chip(1, 0, 0), (ChipCoord{0, 2}));
  EXPECT_EQ(replicasInner.chip(0, 1, 0), (ChipCoord{2, 2}));
  EXPECT_TRUE(replicasInner.tensorParallelIsRing());
}

TEST(Placement, TextRoundTripsAndErrorsNameTheValidChoices) {
  for (const Placement &p : DeviceMesh::placements(
           *v5e().findTopology("v5e-16"), {1, 1, 4, 4})) {
    llvm::Expected<Placement> back = parsePlacement(p.str());
    ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
    EXPECT_TRUE(*back == p) << p.str();
  }
  // 4x4 only (1x16 and 2x8 do not fit 4x4); tp and sp each 1x4, 2x2, 4x1.
  EXPECT_EQ(DeviceMesh::placements(*v5e().findTopology("v5e-16"),
                                   {1, 1, 4, 4})
                .size(),
            6u);
  llvm::Expected<Placement> bad = parsePlacement("4x4, tp 2x2 near sp");
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("neither 'tp AxB [by columns] inside sp'"),
            std::string::npos);
  llvm::Expected<DeviceMesh> wide =
      DeviceMesh::build(v5e(), *v5e().findTopology("v5e-16"), {1, 1, 4, 4},
                        *parsePlacement("2x8, tp 1x4 inside sp"));
  ASSERT_FALSE(bool(wide));
  EXPECT_EQ(llvm::toString(wide.takeError()),
            "placement block 2x8 does not hold a stage's 16 chips (tp 4 x sp "
            "4) tiling topology v5e-16 (4x4); blocks that do: 4x4");
  llvm::Expected<DeviceMesh> sub =
      DeviceMesh::build(v5e(), *v5e().findTopology("v5e-16"), {1, 1, 4, 4},
                        *parsePlacement("4x4, tp 1x8 inside sp"));
  ASSERT_FALSE(bool(sub));
  EXPECT_EQ(llvm::toString(sub.takeError()),
            "placement sub-block 1x8 does not hold the tp group's 4 chips "
            "tiling the 4x4 block; sub-blocks that do: 1x4, 2x2, 4x1");
}

// `stages in ring`: tp 8 x 8 stages on v5e-64 (8x8,
// no wraparound) in 2x4 blocks, a 4x2 grid of blocks. The snake visits
// (0,0) (0,4) (2,4) (2,0) (4,0) (4,4) (6,4) (6,0): stage 7 is 6 rows below
// stage 0. The ring walks down the first column of blocks and back up the
// second: every handover one block apart, 2 hops down or 4 across.
TEST(Placement, StagesInRingCloseTheCycle) {
  DeviceMesh snake =
      placeMesh("v5e-64", {1, 8, 8, 1}, "2x4, tp 2x4 inside sp");
  DeviceMesh ring = placeMesh("v5e-64", {1, 8, 8, 1},
                              "2x4, tp 2x4 inside sp, stages in ring");
  std::vector<ChipCoord> snakeOrigins, ringOrigins;
  std::vector<int64_t> snakeHops, ringHops;
  for (int64_t s = 0; s < 8; ++s) {
    snakeOrigins.push_back(snake.chip(0, s, 0));
    ringOrigins.push_back(ring.chip(0, s, 0));
    snakeHops.push_back(snake.stageHops(s));
    ringHops.push_back(ring.stageHops(s));
  }
  EXPECT_EQ(snakeOrigins, (std::vector<ChipCoord>{{0, 0}, {0, 4}, {2, 4},
                                                  {2, 0}, {4, 0}, {4, 4},
                                                  {6, 4}, {6, 0}}));
  EXPECT_EQ(ringOrigins, (std::vector<ChipCoord>{{0, 0}, {2, 0}, {4, 0},
                                                 {6, 0}, {6, 4}, {4, 4},
                                                 {2, 4}, {0, 4}}));
  EXPECT_EQ(snakeHops, (std::vector<int64_t>{4, 2, 4, 2, 4, 2, 4, 6}));
  EXPECT_EQ(ringHops, (std::vector<int64_t>{2, 2, 2, 4, 2, 2, 2, 4}));
  // Inside each block the tp ring is unchanged.
  EXPECT_EQ(ring.chip(0, 4, 5), (ChipCoord{6 + 0, 4 + 3}));
  EXPECT_EQ(ring.chip(0, 4, 5), snake.chip(0, 6, 5));
  EXPECT_TRUE(ring.tensorParallelIsRing());
  EXPECT_EQ(ring.getPlacement().str(),
            "2x4, tp 2x4 inside sp, stages in ring");
  EXPECT_EQ(*DeviceMesh::stageRingGrid(v5e(), *v5e().findTopology("v5e-64"),
                                       {2, 4}, 8),
            (ChipCoord{4, 2}));
}

// Two replicas of 4 stages in 2x4 blocks on v5e-64: each replica's ring is
// a 2x2 grid of blocks (12 hops round; a 4x1 column would not close), the
// replicas' grids one above the other.
TEST(Placement, StagesInRingPerReplica) {
  DeviceMesh ring = placeMesh("v5e-64", {2, 4, 8, 1},
                              "2x4, tp 2x4 inside sp, stages in ring");
  std::vector<ChipCoord> origins;
  for (int64_t d = 0; d < 2; ++d)
    for (int64_t s = 0; s < 4; ++s)
      origins.push_back(ring.chip(d, s, 0));
  EXPECT_EQ(origins, (std::vector<ChipCoord>{{0, 0}, {2, 0}, {2, 4}, {0, 4},
                                             {4, 0}, {6, 0}, {6, 4}, {4, 4}}));
  for (int64_t s = 0; s < 4; ++s)
    EXPECT_EQ(ring.stageHops(s), s % 2 == 0 ? 2 : 4);
  // A line of blocks round a wrapping axis closes too: 16 stages of 1x16
  // rows on v5e-256 (16x16, both axes wrap), one hop each, the last
  // through the wraparound link.
  DeviceMesh rows = placeMesh("v5e-256", {1, 16, 16, 1},
                              "1x16, tp 1x16 inside sp, stages in ring");
  for (int64_t s = 0; s < 16; ++s)
    EXPECT_EQ(rows.stageHops(s), 1);
}

TEST(Placement, StagesInRingRefusalsNameTheValidChoices) {
  // 1x8 rows make an 8x1 column of blocks, a line that does not wrap.
  llvm::Expected<DeviceMesh> line = DeviceMesh::build(
      v5e(), *v5e().findTopology("v5e-64"), {1, 8, 8, 1},
      *parsePlacement("1x8, tp 1x8 inside sp, stages in ring"));
  ASSERT_FALSE(bool(line));
  EXPECT_EQ(llvm::toString(line.takeError()),
            "placement 'stages in ring': the 8 stages of a replica, as 1x8 "
            "blocks in the 8x1 grid of blocks of topology v5e-64 (8x8), close "
            "no ring of neighbouring blocks (a ring needs an even count of 4 "
            "or more on a grid with two rows and columns, or a line round a "
            "wrapping axis); blocks whose stages do: 2x4, 4x2");
  // Two stages always close (each is the other's neighbour).
  EXPECT_EQ(*DeviceMesh::stageRingGrid(v5e(), *v5e().findTopology("v5e-64"),
                                       {4, 8}, 2),
            (ChipCoord{2, 1}));
  llvm::Expected<Placement> typo =
      parsePlacement("2x4, tp 2x4 inside sp, stages in rign");
  ASSERT_FALSE(bool(typo));
  EXPECT_NE(llvm::toString(typo.takeError())
                .find("is none of 'stages inside replicas', 'replicas inside "
                      "stages' and 'stages in ring'"),
            std::string::npos);
  llvm::Expected<Placement> parsed =
      parsePlacement("2x4, tp 2x4 inside sp, stages in ring");
  ASSERT_TRUE(bool(parsed));
  EXPECT_TRUE(parsed->stagesRing);
  EXPECT_FALSE(parsed->replicasInner);
}

// A strided group's collectives cross `stride` hops per step at 1/stride of
// the link: the bandwidth term doubles at stride 2.
TEST(Placement, StridedAxisCostsStrideTimesTheLink) {
  CostModel model(v5e());
  double bytes = 64e6;
  double line = model.collectiveTime(CollectiveKind::AllGather, {{4, false}},
                                     bytes);
  double strided = model.collectiveTime(CollectiveKind::AllGather,
                                        {{4, false, 2}}, bytes);
  double sync = v5e().calibration.collectiveSync, alpha = v5e().hopLatency;
  EXPECT_NEAR((strided - sync - 6 * alpha) / (line - sync - 3 * alpha), 2.0,
              1e-9);
}

} // namespace

namespace {

// `tp AxB by columns` (JAX's create_device_mesh order where it has no ring
// order, e.g. v5e-8 before JAX 0.4.32): tp 8 on v5e-8 (2x4, no
// wraparound), ranks down each column: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2)
// (0,3) (1,3). The group fills the 2x4 block, so its collectives run as a
// ring in that order (CostModel::runsAsRing). Its messages, routed rows
// first: rank 1 -> 2 goes up column 0 and right one link; rank 7 -> 0 up
// column 3 and left three links (reach 4); the link up column 0 carries
// rank 1 -> 2 and rank 1 -> 0 (share 2).
TEST(Placement, ColumnNumberedRanksRunARingOverSharedLinks) {
  DeviceMesh mesh =
      placeMesh("v5e-8", {1, 1, 8, 1}, "2x4, tp 2x4 by columns inside sp");
  EXPECT_EQ(mesh.getPlacement().str(),
            "2x4, tp 2x4 by columns inside sp, stages inside replicas");
  llvm::SmallVector<int64_t> ids;
  llvm::SmallVector<llvm::SmallVector<int64_t, 3>> members;
  for (int64_t t = 0; t < 8; ++t) {
    ChipCoord c = mesh.chip(0, 0, t);
    ids.push_back(mesh.chipId(c));
    members.push_back({c[0], c[1]});
  }
  EXPECT_EQ(ids, (llvm::SmallVector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_FALSE(mesh.tensorParallelIsRing());
  CostModel model(v5e());
  EXPECT_TRUE(model.runsAsRing({2, 4}, members));
  GroupRoutes routes = model.groupRoutes({2, 4}, members);
  EXPECT_EQ(routes.maxShare(), 2);
  EXPECT_EQ(routes.maxReach(), 4);
  for (const GroupAxis &axis : mesh.tensorParallelAxes())
    EXPECT_TRUE(axis.routes && axis.routes->key() == routes.key());

  // The closed form (CostModel::routedCollectiveTime): a large all-gather
  // is bandwidth-bound and each chip's two half-chunks share a link, so
  // it moves 7/8 V at e W, twice the ring walk's time; its latency chains
  // lie between the walk's 7 hops and the slowest hop's 4 every step.
  double V = 64e6, s = v5e().calibration.collectiveSync,
         a = v5e().hopLatency, e = v5e().calibration.ringEfficiency,
         W = v5e().linkBandwidth;
  double columns = model.collectiveTime(CollectiveKind::AllGather,
                                        mesh.tensorParallelAxes(), V);
  EXPECT_GT(columns, s + 7 * a + 7.0 / 8 * V / (e * W));
  EXPECT_LT(columns, s + 28 * a + 7.0 / 8 * V / (e * W));
  DeviceMesh ring = placeMesh("v5e-8", {1, 1, 8, 1}, "2x4, tp 2x4 inside sp");
  EXPECT_TRUE(ring.tensorParallelIsRing());
  EXPECT_NEAR(model.collectiveTime(CollectiveKind::AllGather,
                                   ring.tensorParallelAxes(), V),
              s + 7 * a + 7.0 / 8 * V / (2 * e * W), 1e-12);
  // An all-to-all sends every pair whatever the numbering: no change.
  EXPECT_EQ(model.collectiveTime(CollectiveKind::AllToAll,
                                 mesh.tensorParallelAxes(), V),
            model.collectiveTime(CollectiveKind::AllToAll,
                                 ring.tensorParallelAxes(), V));

  // Loom's own walks keep share and reach 1; a line of neighbours and a
  // strided pair run as lines.
  llvm::SmallVector<llvm::SmallVector<int64_t, 3>> walk;
  for (int64_t t = 0; t < 8; ++t) {
    ChipCoord c = ring.chip(0, 0, t);
    walk.push_back({c[0], c[1]});
  }
  GroupRoutes own = model.groupRoutes({2, 4}, walk);
  EXPECT_EQ(own.maxShare(), 1);
  EXPECT_EQ(own.maxReach(), 1);
  EXPECT_FALSE(model.runsAsRing({4, 4}, {{0, 0}, {0, 1}, {0, 2}, {0, 3}}));
  EXPECT_FALSE(model.runsAsRing({4, 4}, {{0, 0}, {0, 2}, {0, 1}, {0, 3}}));
  EXPECT_TRUE(model.runsAsRing({16, 16}, [] {
    llvm::SmallVector<llvm::SmallVector<int64_t, 3>> row;
    for (int64_t i = 0; i < 16; ++i)
      row.push_back({0, (i * 5) % 16});
    return row;
  }()));
}

TEST(Placement, ByColumnsRefusalsSayWhy) {
  const TopologyDesc &v5e8 = *v5e().findTopology("v5e-8");
  llvm::Expected<Placement> text =
      parsePlacement("2x4, tp 2x4 by columns inside sp");
  ASSERT_TRUE(bool(text));
  EXPECT_TRUE(text->byColumns);
  EXPECT_EQ(parsePlacement(text->str()).get(), *text);
  llvm::Expected<Placement> typo =
      parsePlacement("2x4, tp 2x4 by cols inside sp");
  ASSERT_FALSE(bool(typo));
  EXPECT_NE(llvm::toString(typo.takeError()).find("'tp AxB [by columns]"),
            std::string::npos);
  llvm::Expected<DeviceMesh> spInner = DeviceMesh::build(
      v5e(), v5e8, {1, 1, 1, 8}, *parsePlacement("2x4, sp 2x4 by columns inside tp"));
  ASSERT_FALSE(bool(spInner));
  EXPECT_EQ(llvm::toString(spInner.takeError()),
            "placement 'by columns' numbers the tensor-parallel ranks, but "
            "the sp group is the inner one here ('sp 2x4 inside tp'); write "
            "'tp AxB by columns inside sp'");
  MeshShape twoD{1, 1, 8, 1};
  twoD.tensorRows = 2;
  llvm::Expected<DeviceMesh> grid = DeviceMesh::build(
      v5e(), v5e8, twoD, *parsePlacement("2x4, tp 2x4 by columns inside sp"));
  ASSERT_FALSE(bool(grid));
  EXPECT_NE(llvm::toString(grid.takeError()).find("2-D tensor-parallel"),
            std::string::npos);
}

} // namespace

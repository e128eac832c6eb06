// #loom.placement: which chips each group occupies. It
// round-trips, and the verifier refuses what cannot tile, at the attribute
// or on the module against loom.parallel and the target, naming the valid
// blocks and sub-blocks.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: loom-opt %s -split-input-file -verify-diagnostics | loom-opt -split-input-file -verify-diagnostics | FileCheck %s

// The default block order is not printed.
// CHECK: loom.placement = #loom.placement<2x4, tp 2x1 inside sp>
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x4, tp 2x1 inside sp, stages inside replicas>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

// -----

// CHECK: loom.placement = #loom.placement<2x4, sp 2x2 inside tp, replicas inside stages>
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x4, sp 2x2 inside tp, replicas inside stages>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

// -----

// Each replica's stage blocks walk a closed cycle.
// CHECK: loom.placement = #loom.placement<2x4, tp 2x4 inside sp, stages in ring>
module attributes {loom.parallel = #loom.parallel<tp = 8>, loom.placement = #loom.placement<2x4, tp 2x4 inside sp, stages in ring>, loom.target = #loom.target<"tpu-v5e", shape = [8, 8]>} {
  func.func @f() attributes {loom.pipeline = #loom.pipeline<stages = 8, slices = [2048]>} {
    return
  }
}

// -----

// Eight stages in 1x8 rows make a column of blocks, a line that does not
// wrap: refused against the function's pipeline, naming the blocks that
// close a ring.
// expected-error @+1 {{'loom.placement' placement 'stages in ring': the 8 stages of a replica, as 1x8 blocks in the 8x1 grid of blocks of topology v5e-64 (8x8), close no ring of neighbouring blocks (a ring needs an even count of 4 or more on a grid with two rows and columns, or a line round a wrapping axis); blocks whose stages do: 2x4, 4x2}}
module attributes {loom.parallel = #loom.parallel<tp = 8>, loom.placement = #loom.placement<1x8, tp 1x8 inside sp, stages in ring>, loom.target = #loom.target<"tpu-v5e", shape = [8, 8]>} {
  func.func @f() attributes {loom.pipeline = #loom.pipeline<stages = 8, slices = [2048]>} {
    return
  }
}

// -----

// expected-error @+1 {{expected 'stages inside replicas', 'replicas inside stages' or 'stages in ring'}}
module attributes {loom.placement = #loom.placement<2x4, tp 2x1 inside sp, stages in rign>} {
}

// -----

// expected-error @+1 {{the tp sub-block 3x1 does not tile the 2x4 block}}
module attributes {loom.placement = #loom.placement<2x4, tp 3x1 inside sp>} {
}

// -----

// expected-error @+1 {{expected 'tp AxB inside sp' or 'sp AxB inside tp' (ep for sp), got 'tp ... inside tp'}}
module attributes {loom.placement = #loom.placement<2x4, tp 2x1 inside tp>} {
}

// -----

// expected-error @+1 {{expected 'stages inside replicas', 'replicas inside stages' or 'stages in ring'}}
module attributes {loom.placement = #loom.placement<2x4, tp 2x1 inside sp, stages inside stages>} {
}

// -----

// expected-error @+1 {{'loom.placement' placement block 2x2 does not hold a stage's 8 chips (tp 2 x sp 4) tiling topology v5e-8 (2x4); blocks that do: 2x4}}
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x2, tp 2x1 inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

// -----

// expected-error @+1 {{'loom.placement' placement sub-block 1x4 does not hold the tp group's 2 chips tiling the 2x4 block; sub-blocks that do: 1x2, 2x1}}
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x4, tp 1x4 inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

// -----

module {
  // expected-error @+1 {{'loom.placement' belongs on the module}}
  func.func @f() attributes {loom.placement = #loom.placement<1x1, tp 1x1 inside sp>} {
    return
  }
}

// -----

// An expert-parallel group of its own (#loom.parallel's ep_data) takes the
// place beside tp that sp would, named "ep".
// CHECK: loom.placement = #loom.placement<4x4, tp 2x2 inside ep>
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, ep_data = true>, loom.placement = #loom.placement<4x4, tp 2x2 inside ep>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
}

// -----

// CHECK: loom.placement = #loom.placement<4x4, ep 1x4 inside tp, replicas inside stages>
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, ep_data = true>, loom.placement = #loom.placement<4x4, ep 1x4 inside tp, replicas inside stages>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
}

// -----

// expected-error @+1 {{'loom.placement' names the group beside tp 'sp', but loom.parallel's is 'ep' (#loom.parallel<tp = 4, ep = 4, ep_data = true>)}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, ep_data = true>, loom.placement = #loom.placement<4x4, tp 2x2 inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
}

// -----

// expected-error @+1 {{'loom.placement' names the group beside tp 'ep', but loom.parallel's is 'sp' (#loom.parallel<tp = 2, sp = 4>)}}
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x4, tp 2x1 inside ep>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

// -----

// expected-error @+1 {{'loom.placement' placement block 2x4 does not hold a stage's 16 chips (tp 4 x ep 4) tiling topology v5e-16 (4x4); blocks that do: 4x4}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, ep_data = true>, loom.placement = #loom.placement<2x4, tp 2x2 inside ep>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
}

// -----

// expected-error @+1 {{the ep sub-block 3x1 does not tile the 4x4 block}}
module attributes {loom.placement = #loom.placement<4x4, ep 3x1 inside tp>} {
}

// -----

// The tensor-parallel ranks numbered down each column (JAX's
// create_device_mesh order for a v5e slice it has no ring order for).
// CHECK: loom.placement = #loom.placement<2x4, tp 2x4 by columns inside sp>
module attributes {loom.parallel = #loom.parallel<tp = 8>, loom.placement = #loom.placement<2x4, tp 2x4 by columns inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

// -----

// expected-error @+1 {{'by columns' numbers the tensor-parallel ranks, so it follows 'tp AxB', not 'sp AxB'}}
module attributes {loom.placement = #loom.placement<2x4, sp 2x4 by columns inside tp>} {
}

// -----

// expected-error @+1 {{expected 'columns'}}
module attributes {loom.placement = #loom.placement<2x4, tp 2x4 by rows inside sp>} {
}

// -----

// A 2-D tensor-parallel group's sub-rings run along its block's rows and
// columns whatever the numbering.
// expected-error @+1 {{'loom.placement' placement 'by columns' does not apply to a 2-D tensor-parallel group}}
module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 2>, loom.placement = #loom.placement<2x4, tp 2x4 by columns inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

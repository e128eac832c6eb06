

// Eight stages in 1x8 rows make a column of blocks, a line that does not
// wrap: refused against the function's pipeline, naming the blocks that
// close a ring.
// expected-error @+1 {{'loom.placement' placement 'stages in ring': the 8 stages of a replica, as 1x8 blocks in the 8x1 grid of blocks of topology v5e-64 (8x8), close no ring of neighbouring blocks (a ring needs an even count of 4 or more on a grid with two rows and columns, or a line round a wrapping axis); blocks whose stages do: 2x4, 4x2}}
module attributes {loom.parallel = #loom.parallel<tp = 8>, loom.placement = #loom.placement<1x8, tp 1x8 inside sp, stages in ring>, loom.target = #loom.target<"tpu-v5e", shape = [8, 8]>} {
  func.func @f() attributes {loom.pipeline = #loom.pipeline<stages = 8, slices = [2048]>} {
    return
  }
}


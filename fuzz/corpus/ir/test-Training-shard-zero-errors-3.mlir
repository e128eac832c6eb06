

module attributes {loom.parallel = #loom.parallel<dp = 4>} {
  func.func @step() {
    loom.optimizer_update {grad_type = bf16, layer = 0 : i64, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 64 : i64, state_elements = 128 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
    return
  }
}


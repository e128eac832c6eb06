

func.func @state_type() {
  // expected-error @+1 {{state_type must be a float type, got 'i32'}}
  loom.optimizer_update {optimizer = #loom<optimizer adamw>, parameters = 8 : i64, state_elements = 16 : i64, state_type = i32, weight_type = bf16, grad_type = bf16, vector_ops_per_parameter = 16 : i64}
  return
}

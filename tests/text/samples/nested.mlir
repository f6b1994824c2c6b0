entry @nested(%arg0: tile<i32>, %arg1: tile<i1>) optimization_hints=<default = {}> {
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %for = for %loopIdx in (%cst_0_i32 to %arg0, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
    %0 = addi %iterArg0, %loopIdx : tile<i32>
    %1 = if %arg1 -> (tile<i32>) {
      %cst_2_i32 = constant <i32: 2> : tile<i32>
      yield %cst_2_i32 : tile<i32>
    } else {
      yield %0 : tile<i32>
    }
    continue %1 : tile<i32>
  }
  return
}

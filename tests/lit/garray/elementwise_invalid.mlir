// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// One negative case per labelled constraint of the elementwise family
// (GArrayElementwiseOps.td); each expected error carries the label and names
// the operand at fault. Mismatched shapes and mismatched element types are
// both `_c1`; an element type the op does not compute on is `_c2`.

// -----

func.func @abs_c1(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{abs_c1: the result has type 'tensor<8xf32>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.abs %x : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @abs_c2(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{abs_c2: the operand has element type 'i1', but 'garray.abs' needs a float or an integer wider than i1}}
  %0 = garray.abs %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @ceil_c1(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{ceil_c1: the result has type 'tensor<4xf64>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.ceil %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @ceil_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{ceil_c2: the operand has element type 'i32', but 'garray.ceil' needs a float element type}}
  %0 = garray.ceil %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @cos_c1(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cos_c1: the result has type 'tensor<8xf32>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.cos %x : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @cos_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{cos_c2: the operand has element type 'i32', but 'garray.cos' needs a float element type}}
  %0 = garray.cos %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @exp_c1(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{exp_c1: the result has type 'tensor<4xf64>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.exp %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @exp_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{exp_c2: the operand has element type 'i32', but 'garray.exp' needs a float element type}}
  %0 = garray.exp %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @floor_c1(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{floor_c1: the result has type 'tensor<8xf32>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.floor %x : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @floor_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{floor_c2: the operand has element type 'i32', but 'garray.floor' needs a float element type}}
  %0 = garray.floor %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @log_c1(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{log_c1: the result has type 'tensor<4xf64>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.log %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @log_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{log_c2: the operand has element type 'i32', but 'garray.log' needs a float element type}}
  %0 = garray.log %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @logistic_c1(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{logistic_c1: the result has type 'tensor<8xf32>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.logistic %x : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @logistic_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{logistic_c2: the operand has element type 'i32', but 'garray.logistic' needs a float element type}}
  %0 = garray.logistic %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @neg_c1(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{neg_c1: the result has type 'tensor<4xf64>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.neg %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @neg_c2(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{neg_c2: the operand has element type 'i1', but 'garray.neg' needs a float or an integer wider than i1}}
  %0 = garray.neg %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @not_c1(%x: tensor<4xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{not_c1: the result has type 'tensor<8xi32>' but the operand has type 'tensor<4xi32>'}}
  %0 = garray.not %x : (tensor<4xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @not_c2(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{not_c2: the operand has element type 'f32', but 'garray.not' needs an integer element type}}
  %0 = garray.not %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rsqrt_c1(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{rsqrt_c1: the result has type 'tensor<4xf64>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.rsqrt %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @rsqrt_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{rsqrt_c2: the operand has element type 'i32', but 'garray.rsqrt' needs a float element type}}
  %0 = garray.rsqrt %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @sign_c1(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sign_c1: the result has type 'tensor<8xf32>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.sign %x : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sign_c2(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{sign_c2: the operand has element type 'i1', but 'garray.sign' needs a float or an integer wider than i1}}
  %0 = garray.sign %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @sin_c1(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{sin_c1: the result has type 'tensor<4xf64>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.sin %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @sin_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{sin_c2: the operand has element type 'i32', but 'garray.sin' needs a float element type}}
  %0 = garray.sin %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @sqrt_c1(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sqrt_c1: the result has type 'tensor<8xf32>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.sqrt %x : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sqrt_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{sqrt_c2: the operand has element type 'i32', but 'garray.sqrt' needs a float element type}}
  %0 = garray.sqrt %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @tanh_c1(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{tanh_c1: the result has type 'tensor<4xf64>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.tanh %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @tanh_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{tanh_c2: the operand has element type 'i32', but 'garray.tanh' needs a float element type}}
  %0 = garray.tanh %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @add_c1_shape(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{add_c1: rhs has type 'tensor<8xf32>' but lhs has type 'tensor<4xf32>'; operands must have one type (use broadcast_in_dim or convert first)}}
  %0 = garray.add %a, %b : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @add_c2(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{add_c2: the operands have element type 'i1', but 'garray.add' needs a float or an integer wider than i1}}
  %0 = garray.add %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @and_c1_dtype(%a: tensor<4xi32>, %b: tensor<4xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{and_c1: rhs has type 'tensor<4xi64>' but lhs has type 'tensor<4xi32>'}}
  %0 = garray.and %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @and_c2(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{and_c2: the operands have element type 'f32', but 'garray.and' needs an integer element type}}
  %0 = garray.and %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @div_c1_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{div_c1: the result has type 'tensor<4xi1>' but the operands have type 'tensor<4xf32>'}}
  %0 = garray.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @div_c2(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{div_c2: the operands have element type 'i1', but 'garray.div' needs a float or an integer wider than i1}}
  %0 = garray.div %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @max_c1_shape(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{max_c1: rhs has type 'tensor<8xf32>' but lhs has type 'tensor<4xf32>'; operands must have one type (use broadcast_in_dim or convert first)}}
  %0 = garray.max %a, %b : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @min_c1_dtype(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{min_c1: rhs has type 'tensor<4xf64>' but lhs has type 'tensor<4xf32>'}}
  %0 = garray.min %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mul_c1_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{mul_c1: the result has type 'tensor<4xi1>' but the operands have type 'tensor<4xf32>'}}
  %0 = garray.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @mul_c2(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{mul_c2: the operands have element type 'i1', but 'garray.mul' needs a float or an integer wider than i1}}
  %0 = garray.mul %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @or_c1_shape(%a: tensor<4xi32>, %b: tensor<8xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{or_c1: rhs has type 'tensor<8xi32>' but lhs has type 'tensor<4xi32>'; operands must have one type (use broadcast_in_dim or convert first)}}
  %0 = garray.or %a, %b : (tensor<4xi32>, tensor<8xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @or_c2(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{or_c2: the operands have element type 'f32', but 'garray.or' needs an integer element type}}
  %0 = garray.or %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pow_c1_dtype(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{pow_c1: rhs has type 'tensor<4xf64>' but lhs has type 'tensor<4xf32>'}}
  %0 = garray.pow %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pow_c2(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{pow_c2: the operands have element type 'i32', but 'garray.pow' needs a float element type}}
  %0 = garray.pow %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @rem_c1_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{rem_c1: the result has type 'tensor<4xi1>' but the operands have type 'tensor<4xf32>'}}
  %0 = garray.rem %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @rem_c2(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{rem_c2: the operands have element type 'i1', but 'garray.rem' needs a float or an integer wider than i1}}
  %0 = garray.rem %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @sub_c1_shape(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{sub_c1: rhs has type 'tensor<8xf32>' but lhs has type 'tensor<4xf32>'; operands must have one type (use broadcast_in_dim or convert first)}}
  %0 = garray.sub %a, %b : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sub_c2(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{sub_c2: the operands have element type 'i1', but 'garray.sub' needs a float or an integer wider than i1}}
  %0 = garray.sub %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @xor_c1_dtype(%a: tensor<4xi32>, %b: tensor<4xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{xor_c1: rhs has type 'tensor<4xi64>' but lhs has type 'tensor<4xi32>'}}
  %0 = garray.xor %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @xor_c2(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{xor_c2: the operands have element type 'f32', but 'garray.xor' needs an integer element type}}
  %0 = garray.xor %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The function-type form must list one type per operand.
func.func @arity(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected a function type with 2 operand type(s) and one result type, got '(tensor<4xf32>) -> tensor<4xf32>'}}
  %0 = garray.add %a, %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_c1(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{compare_c1: rhs has type 'tensor<4xi32>' but lhs has type 'tensor<4xf32>'}}
  %0 = garray.compare <lt> %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_c2(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<8xi1> {
  // expected-error @+1 {{compare_c2: the result has type 'tensor<8xi1>' but the operands have shape [4]}}
  %0 = garray.compare <eq> %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

func.func @compare_c3(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{compare_c3: the result's element type must be i1, not 'f32'}}
  %0 = garray.compare <ge> %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_direction(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+2 {{expected ::mlir::garray::ComparisonDirection to be one of: eq, ne, lt, le, gt, ge}}
  // expected-error @+1 {{failed to parse GArray_ComparisonDirectionAttr parameter 'value'}}
  %0 = garray.compare <less> %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @select_c1(%p: tensor<4xi32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{select_c1: pred must have element type i1, not 'i32' (make one with garray.compare)}}
  %0 = garray.select %p, %a, %a : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_c2(%p: tensor<1xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{select_c2: pred has type 'tensor<1xi1>' but the result has shape [4] (use broadcast_in_dim first)}}
  %0 = garray.select %p, %a, %a : (tensor<1xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_c3_on_true(%p: tensor<4xi1>, %a: tensor<4xf16>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{select_c3: on_true has type 'tensor<4xf16>' but the result has type 'tensor<4xf32>'}}
  %0 = garray.select %p, %a, %b : (tensor<4xi1>, tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_c3_on_false(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<2x2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{select_c3: on_false has type 'tensor<2x2xf32>' but the result has type 'tensor<4xf32>'}}
  %0 = garray.select %p, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<2x2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @convert_c1(%x: tensor<4xf32>) -> tensor<2x2xf64> {
  // expected-error @+1 {{convert_c1: the operand has type 'tensor<4xf32>' but the result has type 'tensor<2x2xf64>'; convert keeps the shape}}
  %0 = garray.convert %x : (tensor<4xf32>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}

// -----

func.func @convert_c2_f32_to_f16(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{convert_c2: converting the operand from 'f32' to 'f16' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @convert_c2_f32_to_bf16(%x: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @+1 {{convert_c2: converting the operand from 'f32' to 'bf16' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xf32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @convert_c2_f64_to_f32(%x: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{convert_c2: converting the operand from 'f64' to 'f32' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @convert_c2_f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{convert_c2: converting the operand from 'f16' to 'bf16' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @convert_c2_bf16_to_f16(%x: tensor<4xbf16>) -> tensor<4xf16> {
  // expected-error @+1 {{convert_c2: converting the operand from 'bf16' to 'f16' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xbf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @convert_c2_f32_to_i32(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{convert_c2: converting the operand from 'f32' to 'i32' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @convert_c2_f16_to_i64(%x: tensor<4xf16>) -> tensor<4xi64> {
  // expected-error @+1 {{convert_c2: converting the operand from 'f16' to 'i64' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xf16>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @convert_c2_f32_to_i1(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{convert_c2: converting the operand from 'f32' to 'i1' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @convert_c2_i32_to_f32(%x: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{convert_c2: converting the operand from 'i32' to 'f32' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @convert_c2_i64_to_f64(%x: tensor<4xi64>) -> tensor<4xf64> {
  // expected-error @+1 {{convert_c2: converting the operand from 'i64' to 'f64' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xi64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @convert_c2_i16_to_f16(%x: tensor<4xi16>) -> tensor<4xf16> {
  // expected-error @+1 {{convert_c2: converting the operand from 'i16' to 'f16' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xi16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @convert_c2_i16_to_bf16(%x: tensor<4xi16>) -> tensor<4xbf16> {
  // expected-error @+1 {{convert_c2: converting the operand from 'i16' to 'bf16' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xi16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @convert_c2_i64_to_i32(%x: tensor<4xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{convert_c2: converting the operand from 'i64' to 'i32' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @convert_c2_i32_to_i1(%x: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{convert_c2: converting the operand from 'i32' to 'i1' can lose information; write `garray.convert %x lossy : ...` if that is intended}}
  %0 = garray.convert %x : (tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @log1p_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{log1p_c2: the operand has element type 'i32', but 'garray.log1p' needs a float element type}}
  %0 = garray.log1p %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @expm1_c2(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{expm1_c2: the operand has element type 'i32', but 'garray.expm1' needs a float element type}}
  %0 = garray.expm1 %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @round_c1(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{round_c1: the result has type 'tensor<4xf64>' but the operand has type 'tensor<4xf32>'}}
  %0 = garray.round %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @clamp_c1(%lo: tensor<4xf32>, %x: tensor<4xf32>, %hi: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{clamp_c1:}}
  %0 = garray.clamp %lo, %x, %hi : (tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_c2(%lo: tensor<4xi1>, %x: tensor<4xi1>, %hi: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{clamp_c2:}}
  %0 = garray.clamp %lo, %x, %hi : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Operands of unary and binary ops are checked only to be ranked tensors;
// their type must be the result's, which must be a static tensor of
// numbers (GArray_SameAsResultTensor): a dynamic operand is still refused,
// on the result when all share its type, by _c1 when only it differs.
func.func @add_dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'garray.add' op result #0 must be statically shaped tensor of floating-point or signless integer values, but got 'tensor<?xf32>'}}
  %0 = garray.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @add_dynamic_operand(%a: tensor<?xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{add_c1: rhs has type 'tensor<4xf32>' but lhs has type 'tensor<?xf32>'}}
  %0 = garray.add %a, %b : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An operand is checked through the result's type (GArray_SameAsResultTensor):
// an unranked one fails `_c1` (types are compared before either is read as
// a tensor), in either slot.
func.func @neg_unranked(%a: tensor<*xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{neg_c1: the result has type 'tensor<4xf32>' but the operand has type 'tensor<*xf32>'}}
  %0 = garray.neg %a : (tensor<*xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @add_unranked_rhs(%a: tensor<*xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{add_c1: rhs has type 'tensor<*xf32>' but lhs has type 'tensor<4xf32>'}}
  %0 = garray.add %b, %a : (tensor<4xf32>, tensor<*xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// property_storage only gives the op MLIR property storage (GArrayOps.td):
// a program that writes it is told so.
func.func @add_property_storage(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'garray.add' op attribute 'property_storage' failed to satisfy constraint: unit attribute never set: it only gives the op property storage (GArrayOps.td)}}
  %0 = garray.add %a, %a {property_storage} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shift_left_c2(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{shift_left_c2}}
  %0 = garray.shift_left %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bitcast_convert_c1(%x: tensor<4xi32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{bitcast_convert_c1: the operand has type 'tensor<4xi32>' but the result has type 'tensor<2x2xf32>'; bitcast_convert keeps the shape}}
  %0 = garray.bitcast_convert %x : (tensor<4xi32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @bitcast_convert_c2(%x: tensor<4xi32>) -> tensor<4xf64> {
  // expected-error @+1 {{bitcast_convert_c2: 'i32' (32 bits) and 'f64' (64 bits) are not element types of one width; use `convert` to change a value's type}}
  %0 = garray.bitcast_convert %x : (tensor<4xi32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

//===- GArrayTrainingOps.td - autodiff and optimizer ops -*- tablegen -*-===//
//
// Included from GArrayOps.td; shares its GArray_Op / GArray_Tensor classes.
//
// These ops exist only at the top of the pipeline: `garray-autodiff` expands
// `value_and_grad` and `garray-expand-optimizers` expands the updates into
// plain garray ops before any sharding is derived, so propagation,
// partitioning and lowering never see them (they have no factor rule).
//
//===----------------------------------------------------------------------===//
#ifndef GARRAYTRAININGOPS_TD
#define GARRAYTRAININGOPS_TD

def GArray_ValueAndGradOp : GArray_Op<"value_and_grad",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A loss function's value and its gradient, by reverse mode";
  let description = [{
    Calls `callee` (a `func.func` returning one scalar float, the loss) on
    `args` and returns the loss, then one gradient per index in `wrt` (the
    derivative of the loss with respect to that argument, with its type).

    ```mlir
    %loss, %g = garray.value_and_grad @loss_fn(%X, %y, %w) wrt [2]
        : (tensor<8x2xf32>, tensor<8xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
    ```
    `garray-autodiff` replaces it by the callee's body (the forward pass) and
    the adjoint of every op on the path from the `wrt` arguments to the loss,
    read from each op's VjpOpInterface, in reverse order. The result is a
    plain global program: the gradient of a replicated weight over a sharded
    batch is a pending sum that partitioning reduces once.

    **Constraints:**
    - `value_and_grad_c1`: `callee` is a `func.func` in the module with a
      body, taking `args`' types and returning exactly one rank-0 float;
    - `value_and_grad_c2`: `wrt` is non-empty, each index names a float
      argument, listed once;
    - `value_and_grad_c3`: the results are the loss, then one value of each
      `wrt` argument's type, in `wrt` order.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<GArray_Tensor>:$args,
                       DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<GArray_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` `wrt` $wrt attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizer updates. Each result has its operand's type; hyper-parameters are
// f64 attributes. All are elementwise in the parameter, so a parameter and
// its state may be sharded any way (ZeRO-style moments included).
//===----------------------------------------------------------------------===//

def GArray_SgdUpdateOp : GArray_Op<"sgd_update",
    [Pure, AllTypesMatch<["param", "grad", "result"]>]> {
  let summary = "Plain SGD: `param - lr * grad`";
  let description = [{
    ```mlir
    %w1 = garray.sgd_update %w, %g {lr = 0.1 : f64} : tensor<2xf32>
    ```
    **Constraints:**
    - `sgd_update_c1`: `param`, `grad` and the result have one float type.
  }];
  let arguments = (ins GArray_Tensor:$param, GArray_Tensor:$grad, F64Attr:$lr);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$param `,` $grad attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def GArray_MomentumUpdateOp : GArray_Op<"momentum_update",
    [Pure, AllTypesMatch<["param", "grad", "velocity", "new_param", "new_velocity"]>]> {
  let summary = "SGD with (heavy-ball) momentum";
  let description = [{
    `velocity' = momentum * velocity + grad`, `param' = param - lr * velocity'`
    (optax.sgd(lr, momentum) / torch.optim.SGD without dampening).

    ```mlir
    %w1, %m1 = garray.momentum_update %w, %g, %m {lr = 0.1 : f64, momentum = 0.9 : f64}
        : tensor<2xf32>
    ```
    **Constraints:**
    - `momentum_update_c1`: every operand and result has one float type.
  }];
  let arguments = (ins GArray_Tensor:$param, GArray_Tensor:$grad, GArray_Tensor:$velocity,
                       F64Attr:$lr, F64Attr:$momentum);
  let results = (outs GArray_Tensor:$new_param, GArray_Tensor:$new_velocity);
  let assemblyFormat = "$param `,` $grad `,` $velocity attr-dict `:` type($new_param)";
  let hasVerifier = 1;
}

def GArray_AdamUpdateOp : GArray_Op<"adam_update",
    [Pure, AllTypesMatch<["param", "grad", "mu", "nu", "new_param", "new_mu", "new_nu"]>]> {
  let summary = "Adam / AdamW with bias correction and decoupled weight decay";
  let description = [{
    With `t` the 1-based step count (a rank-0 float: the caller feeds
    `t + 1` back):

    ```
    mu'    = beta1 * mu + (1 - beta1) * grad
    nu'    = beta2 * nu + (1 - beta2) * grad^2
    mu_hat = mu' / (1 - beta1^t),   nu_hat = nu' / (1 - beta2^t)
    param' = param - lr * (mu_hat / (sqrt(nu_hat) + eps) + weight_decay * param)
    ```
    `weight_decay = 0` is Adam; otherwise AdamW (optax.adamw: the decay is
    not scaled by the moments).

    ```mlir
    %w1, %mu1, %nu1 = garray.adam_update %w, %g, %mu, %nu, %t
        {lr = 1.0e-3 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64,
         weight_decay = 0.0 : f64} : tensor<16x32xf32>, tensor<f32>
    ```
    **Constraints:**
    - `adam_update_c1`: `param`, `grad`, `mu`, `nu` and the first three
      results have one float type;
    - `adam_update_c2`: `t` is a rank-0 tensor of that element type.
  }];
  let arguments = (ins GArray_Tensor:$param, GArray_Tensor:$grad, GArray_Tensor:$mu,
                       GArray_Tensor:$nu, GArray_Tensor:$t, F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs GArray_Tensor:$new_param, GArray_Tensor:$new_mu, GArray_Tensor:$new_nu);
  let assemblyFormat = [{
    $param `,` $grad `,` $mu `,` $nu `,` $t attr-dict `:` type($new_param) `,` type($t)
  }];
  let hasVerifier = 1;
}

def GArray_ClipByGlobalNormOp : GArray_Op<"clip_by_global_norm", [Pure]> {
  let summary = "Scale gradients so that their joint L2 norm is at most max_norm";
  let description = [{
    `norm = sqrt(sum over every operand of sum(g^2))`, the norm of all
    parameters' gradients together over their *global* shapes (a sharded
    gradient contributes a pending partial sum, reduced once); every result is
    `g * max_norm / max(norm, max_norm)` (unchanged when `norm <= max_norm`,
    as optax.clip_by_global_norm).

    ```mlir
    %c1, %c2 = garray.clip_by_global_norm %g1, %g2 {max_norm = 1.0 : f64}
        : tensor<16x32xf32>, tensor<32xf32> -> tensor<16x32xf32>, tensor<32xf32>
    ```
    **Constraints:**
    - `clip_by_global_norm_c1`: at least one operand; all have one float
      element type, and result `i` has operand `i`'s type;
    - `clip_by_global_norm_c2`: `max_norm` is positive.
  }];
  let arguments = (ins Variadic<GArray_Tensor>:$grads, F64Attr:$max_norm);
  let results = (outs Variadic<GArray_Tensor>:$clipped);
  let assemblyFormat = "$grads attr-dict `:` type($grads) `->` type($clipped)";
  let hasVerifier = 1;
}

#endif

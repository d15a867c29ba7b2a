"""The standalone-executable cases: (name, sample, mesh). Their inputs and
step counts are in cases.txt, which the test scripts read."""

EXE_CASES = [
    ("linear_regression_step", "linear_regression_step", "data=4"),
    ("masked_regression", "masked_regression", "data=2"),
    ("mlp", "mlp", "data=2,model=2"),
    ("mlp_1rank", "mlp", "data=1,model=1"),
    ("mlp_uneven", "mlp", "data=3,model=1"),
    ("mlp_train", "mlp_train", "data=2,model=2"),
    ("attention", "attention", "data=2,model=2"),
    ("layer_norm", "layer_norm", "data=2,model=2"),
    ("heat_stencil", "heat_stencil", "data=4"),
    ("ring_allreduce", "ring_allreduce", "data=4"),
]

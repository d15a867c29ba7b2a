// RUN: shardc-opt %s --garray-set-mesh="sizes=data=8,model=2" | FileCheck %s
// RUN: shardc-opt %s --garray-set-mesh="sizes=model=3" | FileCheck %s --check-prefix=ONE
// RUN: shardc-opt %s --garray-set-mesh | FileCheck %s --check-prefix=NONE
// RUN: not shardc-opt %s --garray-set-mesh="sizes=pipe=2" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not shardc-opt %s --garray-set-mesh="sizes=data=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not shardc-opt %s --garray-set-mesh="sizes=data" 2>&1 | FileCheck %s --check-prefix=NOSIZE
//
// garray-set-mesh (the driver's --mesh): sizes given on the command line
// override those written in the file, `?` included, on every mesh that has
// the axis; an unknown axis or a size < 1 is an error.

// CHECK: garray.mesh @mesh ["data" = 8, "model" = 2]
// CHECK: garray.mesh @other ["model" = 2]
// ONE: garray.mesh @mesh ["data" = 4, "model" = 3]
// ONE: garray.mesh @other ["model" = 3]
// NONE: garray.mesh @mesh ["data" = 4, "model" = ?]
// NONE: garray.mesh @other ["model" = 1]
garray.mesh @mesh ["data" = 4, "model" = ?]
garray.mesh @other ["model" = 1]

// UNKNOWN: error: --mesh: no garray.mesh has an axis named "pipe"
// UNKNOWN: note: mesh @mesh has axes ["data", "model"]
// UNKNOWN: note: mesh @other has axes ["model"]
// ZERO: error: --mesh: 'data=0' is not AXIS=SIZE with a positive size
// NOSIZE: error: --mesh: 'data' is not AXIS=SIZE with a positive size

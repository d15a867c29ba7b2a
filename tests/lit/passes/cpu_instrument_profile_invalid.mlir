// RUN: shardc-opt %s --cpu-instrument-profile -verify-diagnostics
//
// A program that already defines the site table's symbol is refused, not
// given a second one.

// expected-error @+1 {{already defines @shardc_profile_sites}}
module {
  memref.global "private" @shardc_profile_sites : memref<1xi8> = dense<0>
}

#include "llmcalc/scenario.h"

namespace llmcalc {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::int8: return "int8";
    case Precision::int4: return "int4";
    case Precision::fp4: return "fp4";
  }
  return "?";
}

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32: return 4;  // tf32 is stored as fp32
    case Precision::fp16:
    case Precision::bf16: return 2;
    case Precision::fp8:
    case Precision::int8: return 1;
    case Precision::int4:
    case Precision::fp4: return 0.5;  // packed two per byte
  }
  return 2;
}

}  // namespace llmcalc

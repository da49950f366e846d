"""Turns the raw output of h200_kernels.py into a kernel validation case
(tests/validation/device/h200-kernels.json) read by `llmcalc validate`.
Run: python3 scripts/device/to_validation.py RAW.json OUT.json
PyTorch's own FlashAttention-2 kernels check the model's "fa2" kernel
generation (training.attention_kernel), the cuDNN ones its best (FlashAttention-3
class) kernel. Kept out of the case, with the reason: the `add` rows (the
second operand was not rotated, so part of it came from L2).
"""
import json, sys

raw = json.load(open(sys.argv[1]))
kernels, excluded = [], []
for g in raw["gemm"]:
    skinny = g["m"] <= 512
    kernels.append({"id": f"gemm {g['dtype']} {g['tag']}", "op": "gemm", "precision": g["dtype"],
                    "m": g["m"], "n": g["n"], "k": g["k"],
                    "metric": f"kernel.gemm.{g['dtype']}" + (".skinny" if skinny else ""),
                    "measured_s": g["time_us"] * 1e-6})
for a in raw["attention"]:
    if "error" in a:
        continue
    row = {"id": f"attention {a['backend']} {a['pass']} b{a['b']} h{a['h']}/{a['h_kv']} s{a['s']} d{a['d']}"
                 + (" causal" if a["causal"] else ""),
           "op": "attention", "pass": a["pass"], "batch": a["b"], "heads": a["h"], "kv_heads": a["h_kv"],
           "seq": a["s"], "head_dim": a["d"], "causal": a["causal"],
           "metric": f"kernel.attention.{a['pass']}", "measured_s": a["time_us"] * 1e-6}
    if a["backend"] == "flash":  # PyTorch's FlashAttention-2
        row.update(kernel="fa2", metric=f"kernel.attention.fa2.{a['pass']}")
    kernels.append(row)
for e in raw["elementwise"]:
    row = {"id": f"elementwise {e['op']} {e['rows']}x{e['cols']}", "op": "elementwise", "name": e["op"],
           "elements": e["rows"] * e["cols"], "bytes": e["bytes"], "metric": "kernel.elementwise",
           "measured_s": e["time_us"] * 1e-6}
    if e["op"] == "add":
        excluded.append(dict(row, reason="second operand not rotated: partly served from L2"))
    else:
        kernels.append(row)
case = {
    "id": "h200-kernels",
    "source": "H200 kernels measured on one H200 SXM (scripts/device/h200_kernels.py)",
    "system": "dgx-h200",
    "method": ("One NVIDIA H200 SXM (132 SMs, driver 580.159.04, clocks as found: SM 1980 MHz under load), "
               "PyTorch 2.11.0+cu130 (cuBLAS GEMMs via torch.matmul, FP8 via torch._scaled_mm, attention via "
               "scaled_dot_product_attention with the cuDNN and the FlashAttention-2 backends, norms and GELU as PyTorch eager kernels). "
               "Inputs from a normal distribution; operand sets rotated to exceed 2x the L2; CUDA events; "
               "median of 5 batches of >= 10 launches after warm-up; 2026-11-30."),
    "environment": raw["environment"],
    "copy_GBps_read_plus_write": raw["copy"][0]["GBps_read_plus_write"],
    "kernels": kernels,
    "excluded": excluded,
}
json.dump(case, open(sys.argv[2], "w"), indent=1)
print(len(kernels), "kernels,", len(excluded), "excluded")

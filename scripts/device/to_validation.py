"""Turns the raw output of h200_kernels.py (and of h100_mechanisms.py) into a
kernel validation case (tests/validation/device/*.json) read by `llmcalc validate`.
Run: python3 scripts/device/to_validation.py RAW.json OUT.json SYSTEM DATE [MECHANISMS_RAW.json]
  e.g. ... raw/h200_kernels.json h200-kernels.json dgx-h200 2026-11-30
       ... raw/h100_kernels.json h100-kernels.json dgx-h100 2026-12-05 raw/h100_mechanisms.json
PyTorch's own FlashAttention-2 kernels check the model's "fa2" kernel
generation (training.attention_kernel), the cuDNN ones its best (FlashAttention-3
class) kernel. From the mechanisms file: the grouped expert GEMMs
(torch._grouped_mm, one launch over the local experts: "batch"), and
tinygemm's int4 weight-only GEMV (gpt-fast's int4 kernel) beside the bf16
GEMV of the same matrix. Kept out of the case, with the reason: the `add`
rows (the second operand was not rotated, so part of it came from L2), the
per-expert matmul loops (Python-bound), torch's fp8 grouped kernel and
aten's int8 weight-only kernel (neither is the kernel the frameworks run).
"""
import json, sys

raw = json.load(open(sys.argv[1]))
system, date = sys.argv[3], sys.argv[4]
mech = json.load(open(sys.argv[5])) if len(sys.argv) > 5 else None
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

for g in (mech or {}).get("grouped", []):
    base = {"op": "gemm", "precision": "bf16", "m": g["m"], "n": g["n"], "k": g["k"], "batch": g["experts"]}
    name = f"{g['model']} {g['proj']} {g['experts']} experts x {g['m']} rows"
    if "grouped_us" in g:
        kernels.append(dict(base, id=f"grouped gemm bf16 {name}", metric="kernel.gemm.grouped.bf16",
                            measured_s=g["grouped_us"] * 1e-6))
    if "loop_us" in g:
        excluded.append(dict(base, id=f"matmul loop bf16 {name}", measured_s=g["loop_us"] * 1e-6,
                             reason="one torch.matmul per expert from a Python loop: host-bound (about 19 us per expert)"))
    if "fp8_rowwise_grouped_us" in g:
        excluded.append(dict(base, id=f"grouped gemm fp8 rowwise {name}", precision="fp8",
                             measured_s=g["fp8_rowwise_grouped_us"] * 1e-6,
                             reason="torch._scaled_grouped_mm: slower than its own bf16 kernel at 256-1024 rows per "
                                    "expert; not the grouped GEMM Transformer Engine runs"))
for w in (mech or {}).get("int4", []):
    shape = {"m": w["m"], "n": w["n"], "k": w["k"]}
    tag = f"{w['tag']} m{w['m']}"
    if "int4_us" in w:
        kernels.append(dict(shape, id=f"gemv int4 g{w['group']} {tag}", op="gemm", precision="bf16",
                            weight_precision="int4", group=w["group"],
                            metric="kernel.gemm.int4" + (f".m{w['m']}" if w["m"] > 1 else ""),
                            measured_s=w["int4_us"] * 1e-6))
    if "int8_us" in w:
        excluded.append(dict(shape, id=f"gemv int8 {tag}", op="gemm", precision="bf16", weight_precision="int8",
                             measured_s=w["int8_us"] * 1e-6,
                             reason="aten _weight_int8pack_mm's CUDA kernel (100-200 GB/s), not the torch.compile'd "
                                    "kernel gpt-fast runs"))
    kernels.append(dict(shape, id=f"gemv bf16 {tag}", op="gemm", precision="bf16",
                        metric="kernel.gemm.bf16.skinny", measured_s=w["bf16_us"] * 1e-6))

env = raw["environment"]
after = env.get("smi_after", "").split(", ")
clock = after[2] if len(after) > 2 else "?"
driver = after[1] if len(after) > 1 else "?"
chip = system.replace("dgx-", "").upper()
script = "h100_mechanisms.py" if mech else "h200_kernels.py"
case = {
    "id": f"{chip.lower()}-kernels",
    "source": f"{chip} kernels measured on one {chip} SXM (scripts/device/{script})",
    "system": system,
    "method": (f"One NVIDIA {chip} SXM ({env['sm_count']} SMs, driver {driver}, clocks as found: SM {clock} under load), "
               f"PyTorch {env['torch']} (cuBLAS GEMMs via torch.matmul, FP8 via torch._scaled_mm, attention via "
               "scaled_dot_product_attention with the cuDNN and the FlashAttention-2 backends, norms and GELU as PyTorch eager kernels"
               + ("; grouped expert GEMMs via torch._grouped_mm; int4 weight-only GEMV via tinygemm's _weight_int4pack_mm, group 32"
                  if mech else "")
               + "). Inputs from a normal distribution; operand sets rotated to exceed 2x the L2; CUDA events; "
               + ("median of 3 (grouped, GEMV) or 5 (the rest) batches" if mech else "median of 5 batches")
               + f" of >= 10 launches after warm-up; {date}."),
    "environment": env,
    "copy_GBps_read_plus_write": raw["copy"][0]["GBps_read_plus_write"],
    "kernels": kernels,
    "excluded": excluded,
}
json.dump(case, open(sys.argv[2], "w"), indent=1)
print(len(kernels), "kernels,", len(excluded), "excluded")

"""Mechanism timings on a lent H100: the data behind issue 12's device checks.

Measures, on one GPU, what the analytical model prices from assumptions:
  launch   host cost of an eager PyTorch op and a CUDA-graph kernel's cost;
  overlap  the slowdown of a GEMM, attention and a norm while a copy kernel
           holding N SMs streams memory beside it (what NCCL's kernels do
           during an overlapped FSDP gather: one CTA per channel);
  grouped  MoE expert GEMMs at small tokens-per-expert: torch._grouped_mm
           (one grouped kernel) against a loop of torch.matmul per expert;
  int4     weight-only GEMV: tinygemm's _weight_int4pack_mm (gpt-fast's
           int4 kernel, group 32) against the bf16 GEMV of the same matrix;
  fp8      the eager amax, scaled cast and transpose of an fp8 recipe.
Method as scripts/device/h200_kernels.py: clocks as found, normal random
inputs, operand sets rotated to exceed 2x the L2, CUDA events, median of
batches after warm-up. Each section is wrapped: one failure is recorded and
the rest still run; the JSON is rewritten after every section.
Run: python3 scripts/device/h100_mechanisms.py OUT.json [KERNELS_OUT.json]
"""
import json, math, os, sys, time
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h200_kernels as hk  # noqa: E402  (its timing helpers and, last, its kernel set)

dev = torch.device("cuda")
L2 = torch.cuda.get_device_properties(0).L2_cache_size if hasattr(torch.cuda.get_device_properties(0), "L2_cache_size") else 50e6
hk.L2 = L2  # operand sets rotate past this GPU's L2
SMS = torch.cuda.get_device_properties(0).multi_processor_count
T0 = time.time()
R = {"launch": {}, "overlap": [], "copy_ctas": [], "grouped": [], "int4": [], "fp8": [], "errors": []}
smi, nsets = hk.smi, hk.nsets


def time_fn(fn, sets, target_ms=60, batches=3):
    return hk.time_fn(fn, sets, target_ms=target_ms, batches=batches, max_reps=3000)


def section(name, fn, budget_s, out):
    if time.time() - T0 > budget_s:
        R["errors"].append(f"{name}: skipped, time budget ({budget_s} s) spent")
        print("skip", name, flush=True)
        return
    t = time.time()
    try:
        fn()
    except Exception as e:  # noqa
        R["errors"].append(f"{name}: {type(e).__name__}: {str(e)[:300]}")
        print("FAILED", name, e, flush=True)
    print(f"-- {name} done in {time.time() - t:.1f} s (total {time.time() - T0:.1f} s)", flush=True)
    R["environment"]["elapsed_s"] = time.time() - T0
    json.dump(R, open(out, "w"), indent=1)


# ---------------------------------------------------------------- launch
def launch():
    x = torch.zeros(1024, device=dev)
    for n in (200, 5000):  # warm, then timed
        torch.cuda.synchronize(); t = time.perf_counter()
        for _ in range(n):
            x.add_(1.0)
        torch.cuda.synchronize(); per_inplace = (time.perf_counter() - t) / n
    t = time.perf_counter()
    for _ in range(5000):
        y = x + 1.0
    torch.cuda.synchronize(); per_alloc = (time.perf_counter() - t) / 5000
    w = torch.ones(1024, device=dev)
    t = time.perf_counter()
    for _ in range(2000):
        y = F.rms_norm(x.view(1, 1024), (1024,), w)
    torch.cuda.synchronize(); per_rms = (time.perf_counter() - t) / 2000
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            x.add_(1.0)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        for _ in range(500):
            x.add_(1.0)
    g.replay(); torch.cuda.synchronize()
    e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(20):
        g.replay()
    e1.record(); torch.cuda.synchronize()
    per_graph = e0.elapsed_time(e1) * 1e-3 / (20 * 500)
    R["launch"] = {"eager_inplace_add_us": per_inplace * 1e6, "eager_add_alloc_us": per_alloc * 1e6,
                   "eager_rms_norm_call_us": per_rms * 1e6, "graph_kernel_us": per_graph * 1e6,
                   "note": "wall time per op of a Python loop of tiny ops (host-bound), synchronised at the end; "
                           "graph: 500 tiny in-place adds captured in one CUDA graph, GPU time per kernel"}
    print("launch", R["launch"], flush=True)


# ---------------------------------------------------------------- overlap
def make_copy_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def persistent_copy(src, dst, per_prog, iters, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        base = pid.to(tl.int64) * per_prog
        for _ in range(iters):
            for off in range(0, per_prog, BLOCK):
                idx = base + off + tl.arange(0, BLOCK)
                tl.store(dst + idx, tl.load(src + idx))

    return persistent_copy


PER_PROG = 8 << 20  # bf16 elements per CTA (16 MB), so even 4 CTAs' buffers exceed the L2
BLOCK = 4096


def overlap():
    kern = make_copy_kernel()
    src = torch.randn(64 * PER_PROG, device=dev, dtype=torch.bfloat16)
    dst = torch.empty_like(src)

    def launch_copy(n, iters):
        kern[(n,)](src, dst, PER_PROG, iters, BLOCK=BLOCK, num_warps=16)

    rate = {}
    for n in (4, 8, 10, 16, 32, 64):  # the copy alone: bytes moved per second by n CTAs
        launch_copy(n, 1); torch.cuda.synchronize()
        e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
        e0.record(); launch_copy(n, 3); e1.record(); torch.cuda.synchronize()
        t = e0.elapsed_time(e1) * 1e-3
        rate[n] = 3 * n * PER_PROG * 2 * 2 / t  # read + write bytes per second
        R["copy_ctas"].append({"ctas": n, "GBps_read_plus_write": rate[n] / 1e9})
        print(f"copy {n:3d} CTAs alone: {rate[n]/1e9:7.0f} GB/s (r+w)", flush=True)

    def gemm_sets(m, n, k):
        return [(torch.randn(m, k, device=dev, dtype=torch.bfloat16), torch.randn(n, k, device=dev, dtype=torch.bfloat16))
                for _ in range(nsets((m * k + k * n) * 2))]

    from torch.nn.attention import sdpa_kernel, SDPBackend
    qkv = [(torch.randn(4, 32, 4096, 128, device=dev, dtype=torch.bfloat16),
            torch.randn(4, 8, 4096, 128, device=dev, dtype=torch.bfloat16),
            torch.randn(4, 8, 4096, 128, device=dev, dtype=torch.bfloat16)) for _ in range(2)]
    nx = [torch.randn(8192, 4096, device=dev, dtype=torch.bfloat16) for _ in range(nsets(8192 * 4096 * 2))]
    wn = torch.ones(4096, device=dev, dtype=torch.bfloat16)

    def attn(st):
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(*st, is_causal=True, enable_gqa=True)

    cases = [("gemm 8192x28672x4096", lambda s: torch.matmul(s[0], s[1].t()), gemm_sets(8192, 28672, 4096), 2 * 8192 * 28672 * 4096),
             ("gemm 8192x6144x4096", lambda s: torch.matmul(s[0], s[1].t()), gemm_sets(8192, 6144, 4096), 2 * 8192 * 6144 * 4096),
             ("gemm 2048x4096x4096", lambda s: torch.matmul(s[0], s[1].t()), gemm_sets(2048, 4096, 4096), 2 * 2048 * 4096 * 4096),
             ("attention cudnn fwd b4 h32/8 s4096 d128 causal", attn, qkv, 0),
             ("rms_norm 8192x4096", lambda x: F.rms_norm(x, (4096,), wn), nx, 0)]
    with torch.no_grad():
        for name, fn, sets, flops in cases:
            alone, reps = time_fn(fn, sets)
            R["overlap"].append({"kernel": name, "ctas": 0, "time_us": alone * 1e6})
            print(f"overlap {name:48s} alone {alone*1e6:9.1f} us", flush=True)
            for n in (4, 8, 10, 16, 32):
                window = (3 + 3 * reps) * alone * 2.5 + 0.05  # seconds the copy must outlast
                iters = max(1, int(math.ceil(window * rate[n] / (n * PER_PROG * 4))))
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                c1 = torch.cuda.Event(enable_timing=True)
                with torch.cuda.stream(side):
                    launch_copy(n, iters)
                    c1.record()
                for i in range(3):
                    fn(sets[i % len(sets)])
                ts, last = [], None
                for _ in range(3):
                    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
                    s.record()
                    for r in range(reps):
                        fn(sets[r % len(sets)])
                    e.record(); ts.append((s, e)); last = e
                torch.cuda.synchronize()
                times = sorted(s.elapsed_time(e) / reps * 1e-3 for s, e in ts)
                covered = last.elapsed_time(c1) > 0  # the copy ended after the last timed batch
                t = times[1]
                R["overlap"].append({"kernel": name, "ctas": n, "time_us": t * 1e6, "slowdown": t / alone - 1,
                                     "copy_covered_window": bool(covered), "copy_alone_GBps": rate[n] / 1e9})
                print(f"overlap {name:48s} {n:3d} CTAs {t*1e6:9.1f} us  slowdown {100*(t/alone-1):6.1f}%  covered={covered}", flush=True)


# ---------------------------------------------------------------- grouped
def grouped():
    shapes = {"qwen3-30b-a3b": (2048, 768), "gpt-oss-120b": (2880, 2880), "mixtral-8x7b": (4096, 14336)}
    locals_ = {"qwen3-30b-a3b": (16, 128), "gpt-oss-120b": (32,), "mixtral-8x7b": (4, 8)}
    for model, (h, f) in shapes.items():
        for E in locals_[model]:
            for proj, (n, k) in (("up", (2 * f, h)), ("down", (h, f))):
                wbytes = E * n * k * 2
                ws = [torch.randn(E, n, k, device=dev, dtype=torch.bfloat16) for _ in range(nsets(wbytes))]
                for m in (16, 64, 256, 1024, 4096):
                    if E * m * max(n, k) * 2 > 2.5e9:
                        continue
                    a = torch.randn(E * m, k, device=dev, dtype=torch.bfloat16)
                    offs = torch.arange(m, E * m + 1, m, device=dev, dtype=torch.int32)
                    row = {"model": model, "proj": proj, "experts": E, "m": m, "n": n, "k": k, "flops": 2 * E * m * n * k}
                    try:
                        t, _ = time_fn(lambda w: torch._grouped_mm(a, w.transpose(-2, -1), offs=offs), ws)
                        row["grouped_us"] = t * 1e6
                    except Exception as e:  # noqa
                        row["grouped_error"] = str(e)[:200]
                    if E <= 32:
                        def loop(w):
                            for i in range(E):
                                torch.matmul(a[i * m:(i + 1) * m], w[i].t())
                        t, _ = time_fn(loop, ws, target_ms=40)
                        row["loop_us"] = t * 1e6
                    try:
                        a8 = a.to(torch.float8_e4m3fn)
                        w8 = [w.to(torch.float8_e4m3fn) for w in ws[:2]]
                        sa = torch.ones(E * m, device=dev, dtype=torch.float32)
                        sb = torch.ones(E, n, device=dev, dtype=torch.float32)
                        t, _ = time_fn(lambda w: torch._scaled_grouped_mm(a8, w.transpose(-2, -1), sa, sb, offs=offs,
                                                                          out_dtype=torch.bfloat16), w8)
                        row["fp8_rowwise_grouped_us"] = t * 1e6
                    except Exception as e:  # noqa
                        row["fp8_error"] = str(e)[:200]
                    R["grouped"].append(row)
                    print("grouped", {k_: (round(v, 1) if isinstance(v, float) else v) for k_, v in row.items() if "error" not in k_},
                          [v[:80] for k_, v in row.items() if "error" in k_], flush=True)
                del ws


# ---------------------------------------------------------------- int4
def int4():
    shapes = {"llama2-7b wqkv": (12288, 4096), "llama2-7b wo": (4096, 4096), "llama2-7b w1": (11008, 4096),
              "llama2-7b w2": (4096, 11008), "llama2-70b wqkv": (10240, 8192), "llama2-70b wo": (8192, 8192),
              "llama2-70b w1": (28672, 8192), "llama2-70b w2": (8192, 28672)}
    G = 32
    for tag, (n, k) in shapes.items():
        for m in (1, 16):
            row = {"tag": tag, "m": m, "n": n, "k": k, "group": G}
            x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            try:
                packs = []
                for _ in range(nsets(n * k // 2)):
                    q = torch.randint(0, 256, (n, k // 2), device=dev, dtype=torch.uint8)
                    packs.append((torch.ops.aten._convert_weight_to_int4pack(q, 8),
                                  torch.randn(k // G, n, 2, device=dev, dtype=torch.bfloat16)))
                t, _ = time_fn(lambda p: torch.ops.aten._weight_int4pack_mm(x, p[0], G, p[1]), packs)
                row["int4_us"] = t * 1e6
                row["int4_weight_GBps"] = (n * k / 2 + n * k / G * 4) / t / 1e9
                del packs
            except Exception as e:  # noqa
                row["int4_error"] = str(e)[:200]
            try:
                w8 = [(torch.randint(-128, 127, (n, k), device=dev, dtype=torch.int8),
                       torch.randn(n, device=dev, dtype=torch.bfloat16)) for _ in range(nsets(n * k))]
                t, _ = time_fn(lambda p: torch.ops.aten._weight_int8pack_mm(x, p[0], p[1]), w8)
                row["int8_us"] = t * 1e6
                row["int8_weight_GBps"] = n * k / t / 1e9
                del w8
            except Exception as e:  # noqa
                row["int8_error"] = str(e)[:200]
            wb = [torch.randn(n, k, device=dev, dtype=torch.bfloat16) for _ in range(nsets(n * k * 2))]
            t, _ = time_fn(lambda w: torch.matmul(x, w.t()), wb)
            row["bf16_us"] = t * 1e6
            row["bf16_weight_GBps"] = n * k * 2 / t / 1e9
            del wb
            R["int4"].append(row)
            print("int4", {k_: (round(v, 1) if isinstance(v, float) else v) for k_, v in row.items() if "error" not in k_},
                  [v[:80] for k_, v in row.items() if "error" in k_], flush=True)


# ---------------------------------------------------------------- fp8
def fp8():
    for rows, cols in ((8192, 4096), (8192, 14336)):
        xs = [torch.randn(rows, cols, device=dev, dtype=torch.bfloat16) for _ in range(nsets(rows * cols * 2))]
        sc = torch.tensor(0.5, device=dev)
        ops = {"amax": (lambda x: x.abs().amax(), 2 * 2),  # abs writes a copy, amax reads it
               "scaled_cast": (lambda x: (x * sc).to(torch.float8_e4m3fn), 2 + 2 + 2 + 1),
               "transpose_copy": (lambda x: x.t().contiguous(), 4),
               "cast_only": (lambda x: x.to(torch.float8_e4m3fn), 3)}
        for name, (fn, bpe) in ops.items():
            t, _ = time_fn(fn, xs)
            R["fp8"].append({"op": name, "rows": rows, "cols": cols, "time_us": t * 1e6, "eager_bytes_per_elem": bpe,
                             "GBps": rows * cols * bpe / t / 1e9})
            print(f"fp8 {name:15s} {rows}x{cols} {t*1e6:8.1f} us", flush=True)


def main(out, kernels_out=None):
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    p = torch.cuda.get_device_properties(0)
    R["environment"] = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(),
                        "sm_count": SMS, "l2_bytes": L2, "total_memory": p.total_memory, "smi_before": smi()}
    src = torch.empty(1 << 29, device=dev, dtype=torch.bfloat16).normal_(); dst = torch.empty_like(src)
    t, _ = time_fn(lambda s: dst.copy_(src), [0])
    R["environment"]["copy_GBps_read_plus_write"] = 2 * src.numel() * 2 / t / 1e9
    del src, dst
    print("environment", R["environment"], flush=True)
    section("launch", launch, 400, out)
    section("overlap", overlap, 400, out)
    section("grouped", grouped, 400, out)
    section("int4", int4, 400, out)
    section("fp8", fp8, 400, out)
    R["environment"]["smi_after"] = smi()
    json.dump(R, open(out, "w"), indent=1)
    if kernels_out and time.time() - T0 < 330:
        hk.main(kernels_out)
    print(f"all done in {time.time() - T0:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)

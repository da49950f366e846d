"""Kernel timings on the lent H200, the calibration data behind tests/validation/device/.

Method (see tests/validation/device/README.md): PyTorch on the GPU as found
(clocks untouched); inputs drawn from a normal distribution (never zeros);
each kernel timed with CUDA events over `reps` launches after warm-up,
median of 5 such batches; operand sets are rotated so that their total size
exceeds 2x the 60 MB L2, so that weights are read from HBM as in a real
step. FLOPs are counted 2*M*N*K for GEMMs; attention FLOPs are counted as
FlashAttention does (4*b*h*s*s*d forward, halved when causal; backward 2.5x).
Run: python3 scripts/device/h200_kernels.py OUT.json
"""
import json, math, subprocess, sys, time
import torch
import torch.nn.functional as F

dev = torch.device("cuda")
L2 = 60e6
results = {"gemm": [], "attention": [], "elementwise": [], "copy": []}


def smi():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu",
                               "--format=csv,noheader"], capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa
        return str(e)


def time_fn(fn, sets, reps=None, target_ms=200, batches=5, max_reps=2000):
    # warm-up, then size reps to ~target_ms per batch; the median batch
    for i in range(3):
        fn(sets[i % len(sets)])
    torch.cuda.synchronize()
    t0 = time.perf_counter(); fn(sets[0]); torch.cuda.synchronize(); one = time.perf_counter() - t0
    if reps is None:
        reps = int(max(10, min(max_reps, target_ms / 1e3 / max(one, 1e-6))))
    meds = []
    for _ in range(batches):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record()
        for r in range(reps):
            fn(sets[r % len(sets)])
        e.record(); torch.cuda.synchronize()
        meds.append(s.elapsed_time(e) / reps * 1e-3)
    meds.sort()
    return meds[len(meds) // 2], reps


def nsets(bytes_per_set):
    return int(min(64, max(1, math.ceil(2 * L2 / bytes_per_set))))


def gemm(m, n, k, tag, dtype="bf16"):
    bps = (m * k + k * n) * (1 if dtype == "fp8" else 2)
    sets = []
    for _ in range(nsets(bps)):
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        if dtype == "fp8":
            a = a.to(torch.float8_e4m3fn); b = b.to(torch.float8_e4m3fn)
        sets.append((a, b))
    one = torch.ones((), device=dev, dtype=torch.float32)
    if dtype == "fp8":
        fn = lambda s: torch._scaled_mm(s[0], s[1].t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    else:
        fn = lambda s: torch.matmul(s[0], s[1].t())
    t, reps = time_fn(fn, sets)
    tf = 2 * m * n * k / t / 1e12
    results["gemm"].append({"tag": tag, "dtype": dtype, "m": m, "n": n, "k": k, "time_us": t * 1e6, "tflops": tf, "reps": reps})
    print(f"gemm {dtype} {tag:28s} m={m:6d} n={n:6d} k={k:6d} {t*1e6:10.1f} us {tf:7.1f} TF/s", flush=True)


def attention(b, h, s, d, causal, backend, bwd, hkv=None):
    from torch.nn.attention import sdpa_kernel, SDPBackend
    be = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    hkv = hkv or h
    sets = []
    for _ in range(2):
        q = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=bwd)
        k = torch.randn(b, hkv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=bwd)
        v = torch.randn(b, hkv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=bwd)
        sets.append((q, k, v))
    flops = 4 * b * h * s * s * d * (0.5 if causal else 1.0)
    try:
        with sdpa_kernel(be):
            if bwd:
                outs = [F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=hkv != h) for q, k, v in sets]
                gos = [torch.randn_like(o) for o in outs]
                def fn(i_set):
                    q, k, v = i_set
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=hkv != h)
                    torch.autograd.grad(o, (q, k, v), gos[0])
                t, reps = time_fn(fn, sets)
                tf_fwd_t, _ = time_fn(lambda st: F.scaled_dot_product_attention(*st, is_causal=causal, enable_gqa=hkv != h), sets)
                t_b = t - tf_fwd_t
                fl = 2.5 * flops
                results["attention"].append({"backend": backend, "pass": "bwd", "b": b, "h": h, "h_kv": hkv, "s": s, "d": d, "causal": causal,
                                             "time_us": t_b * 1e6, "tflops": fl / t_b / 1e12, "fwd_plus_bwd_us": t * 1e6})
                print(f"attn {backend:5s} bwd b={b} h={h} s={s} d={d} causal={causal} {t_b*1e6:9.1f} us {fl/t_b/1e12:6.1f} TF/s", flush=True)
            else:
                with torch.no_grad():
                    t, reps = time_fn(lambda st: F.scaled_dot_product_attention(*st, is_causal=causal, enable_gqa=hkv != h), sets)
                results["attention"].append({"backend": backend, "pass": "fwd", "b": b, "h": h, "h_kv": hkv, "s": s, "d": d, "causal": causal,
                                             "time_us": t * 1e6, "tflops": flops / t / 1e12})
                print(f"attn {backend:5s} fwd b={b} h={h} s={s} d={d} causal={causal} {t*1e6:9.1f} us {flops/t/1e12:6.1f} TF/s", flush=True)
    except Exception as e:  # noqa
        print(f"attn {backend} failed: {e}", flush=True)
        results["attention"].append({"backend": backend, "pass": "bwd" if bwd else "fwd", "b": b, "h": h, "s": s, "d": d, "error": str(e)[:200]})


def elementwise(name, rows, cols):
    sets = [torch.randn(rows, cols, device=dev, dtype=torch.bfloat16) for _ in range(nsets(rows * cols * 2))]
    w = torch.ones(cols, device=dev, dtype=torch.bfloat16)
    if name == "layer_norm":
        fn = lambda x: F.layer_norm(x, (cols,), w, w)
    elif name == "rms_norm":
        fn = lambda x: F.rms_norm(x, (cols,), w)
    elif name == "gelu":
        fn = lambda x: F.gelu(x, approximate="tanh")
    elif name == "add":
        fn = lambda x: x + sets[0]
    t, reps = time_fn(fn, sets)
    moved = rows * cols * 2 * (3 if name == "add" else 2)
    results["elementwise"].append({"op": name, "rows": rows, "cols": cols, "time_us": t * 1e6, "bytes": moved, "GBps": moved / t / 1e9})
    print(f"elem {name:10s} {rows}x{cols} {t*1e6:9.1f} us {moved/t/1e9:7.0f} GB/s", flush=True)


def copy(nbytes):
    src = torch.empty(nbytes // 2, device=dev, dtype=torch.bfloat16).normal_()
    dst = torch.empty_like(src)
    t, reps = time_fn(lambda s: dst.copy_(src), [0])
    results["copy"].append({"bytes": nbytes, "time_us": t * 1e6, "GBps_read_plus_write": 2 * nbytes / t / 1e9})
    print(f"copy {nbytes/1e9:.2f} GB {t*1e6:9.1f} us {2*nbytes/t/1e9:7.0f} GB/s (r+w)", flush=True)


def main(out):
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    results["environment"] = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(),
                              "sm_count": torch.cuda.get_device_properties(0).multi_processor_count, "smi_before": smi()}
    copy(4 << 30)
    for n in (1024, 2048, 4096, 8192, 16384):
        gemm(n, n, n, f"square {n}")
    for n in (4096, 8192, 16384):
        gemm(n, n, n, f"square {n}", "fp8")
    # Llama-3 8B, tp=1, 8192 tokens (mb 1 x seq 8192): fwd, dgrad, wgrad shapes
    T, H, QKV, F2, FF = 8192, 4096, 6144, 28672, 14336
    for tag, (m, n, k) in {"l8b qkv fwd": (T, QKV, H), "l8b qkv dgrad": (T, H, QKV), "l8b qkv wgrad": (QKV, H, T),
                           "l8b proj fwd": (T, H, H), "l8b proj wgrad": (H, H, T),
                           "l8b fc1 fwd": (T, F2, H), "l8b fc1 dgrad": (T, H, F2), "l8b fc1 wgrad": (F2, H, T),
                           "l8b fc2 fwd": (T, H, FF), "l8b fc2 dgrad": (T, FF, H), "l8b fc2 wgrad": (H, FF, T),
                           "l8b logits fwd": (T, 128256, H)}.items():
        gemm(m, n, k, tag)
    for tag, (m, n, k) in {"l8b qkv fwd": (T, QKV, H), "l8b fc1 fwd": (T, F2, H), "l8b fc2 fwd": (T, H, FF)}.items():
        gemm(m, n, k, tag, "fp8")
    # GPT-3 175B, tp=8, 2048 tokens (Korthikanti Table 5 shapes)
    T, H = 2048, 12288
    for tag, (m, n, k) in {"gpt3 qkv fwd": (T, 3 * H // 8, H), "gpt3 proj fwd": (T, H, H // 8),
                           "gpt3 fc1 fwd": (T, 4 * H // 8, H), "gpt3 fc2 fwd": (T, H, 4 * H // 8),
                           "gpt3 fc1 wgrad": (4 * H // 8, H, T)}.items():
        gemm(m, n, k, tag)
    # Decode GEMMs (skinny M) for Llama-3 8B and 70B tp=8
    for m in (1, 8, 32, 128, 512):
        gemm(m, 6144, 4096, f"l8b qkv decode b{m}")
        gemm(m, 28672, 4096, f"l8b fc1 decode b{m}")
        gemm(m, 4096, 14336, f"l8b fc2 decode b{m}")
    for m in (1, 32):
        gemm(m, 3584, 8192, f"l70b tp8 fc1half decode b{m}")
        gemm(m, 8192, 3584, f"l70b tp8 fc2 decode b{m}")
    # Attention, bf16, head dim 128
    for be in ("cudnn", "flash"):
        for s in (2048, 4096, 8192):
            b = max(1, 16384 // s)
            attention(b, 32, s, 128, True, be, False, hkv=8)
            attention(b, 32, s, 128, True, be, True, hkv=8)
        attention(4, 32, 4096, 128, False, be, False)
    for name in ("layer_norm", "rms_norm", "gelu", "add"):
        elementwise(name, 8192, 4096)
        elementwise(name, 8192, 14336)
    results["environment"]["smi_after"] = smi()
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
    print("environment", results["environment"])


if __name__ == "__main__":
    main(sys.argv[1])

# SPDX-License-Identifier: MIT
"""CuPy under the recorder: allocates, computes and frees through CuPy's default memory
pool (cudaMalloc underneath) and reports the pool's own peak as one JSON line."""
import json
import cupy as cp

def main():
    pool = cp.get_default_memory_pool()
    peak = 0
    arrays = []
    for i in range(8):
        a = cp.random.standard_normal((2048, 2048 + 256 * i), dtype=cp.float32)
        b = a @ a.T
        arrays.append(b)
        peak = max(peak, pool.total_bytes())
    del arrays
    s = cp.zeros((64 << 20,), dtype=cp.uint8)  # 64 MiB
    peak = max(peak, pool.total_bytes())
    cp.cuda.Device().synchronize()
    out = {"framework": "cupy", "pool_peak_total_bytes": int(peak),
           "pool_total_bytes_end": int(pool.total_bytes()), "pool_used_bytes_end": int(pool.used_bytes())}
    del s
    print(json.dumps(out), flush=True)

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""GPU checks of the bundled workloads (docs/workloads.md, "Checking on a GPU").

    python3 workloads/gpu_checks.py BUILD_DIR [VRAMTRACE [WORK_DIR [RESULTS_TSV]]]

Without the profiler:
  - vt-bert matches HF BertForSequenceClassification (tests/gpu/check_bert_hf.py);
  - the loss falls in the default run, for each precision, optimizer and with --recompute;
  - two runs give bit-identical losses, and --recompute gives the same losses as without;
  - a real run's own bookkeeping equals its --plan (peak, at_peak, at_end, counts);
  - each small workload exits 0 and prints its JSON line.
With VRAMTRACE (`vramtrace run` / `report --json`): each workload is traced and the trace's
peak_bytes is put next to the workload's own figure (rows in RESULTS_TSV).
Prints one line per check and exits 1 if any failed.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "")
VT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(B, "bin", "vramtrace")
W = sys.argv[3] if len(sys.argv) > 3 else "/tmp/vt-workloads"
RES = sys.argv[4] if len(sys.argv) > 4 else os.path.join(W, "results.tsv")
BIN = os.path.join(B, "bin")
os.makedirs(W, exist_ok=True)
failed = []


def row(what, case, traced, ref, note):
    line = "\t".join(str(x) for x in (what, case, traced, ref, note))
    print(line, flush=True)
    with open(RES, "a") as f:
        f.write(line + "\n")


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}", flush=True)
    if not ok:
        failed.append(name)
    row("workload-check", name, "pass" if ok else "FAIL", "", detail)


def run(cmd, timeout=600, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise ValueError("no JSON line in the output")


def bert(*args, timeout=600):
    rc, out, err = run([os.path.join(BIN, "vt-bert"), "--quiet", *args], timeout=timeout)
    if rc != 0:
        raise RuntimeError(f"vt-bert {' '.join(args)} exited {rc}: {err.strip()[-500:]}")
    return last_json(out)


def falls(loss):
    """The last five steps average below 60% of the first loss."""
    tail = loss[-5:]
    return sum(tail) / len(tail) < 0.6 * loss[0]


def guarded(name, fn):
    try:
        fn()
    except Exception as e:  # one broken check must not hide the others
        check(name, False, f"{type(e).__name__}: {e}")


# ---------------------------------------------------------------------------------
def hf_match():
    d = os.path.join(W, "bert-dump")
    bert("--model", "tiny", "--steps", "1", "--dump-init", d)
    rc, out, err = run([sys.executable, os.path.join(ROOT, "tests", "gpu", "check_bert_hf.py"), d, "--json"])
    print(out.rstrip())
    s = last_json(out) if rc in (0, 1) else {}
    check("bert matches HF (tiny fp32, loss + grad norms, rtol 1e-4)", rc == 0,
          f"loss rel {s.get('loss_rel', '?'):.1e} worst grad rel {s.get('worst_grad_rel', '?'):.1e}"
          if s else err.strip()[-300:])


def loss_falls():
    for args in (["--precision", "fp32"], ["--precision", "fp16"], ["--precision", "bf16"],
                 ["--recompute"], ["--optimizer", "sgd"], ["--optimizer", "momentum"],
                 ["--model", "base"], ["--model", "base", "--precision", "fp16"],
                 ["--model", "large", "--precision", "bf16"]):
        j = bert("--model", "tiny", *args)  # a later --model wins
        loss = j["loss"]
        check(f"loss falls: {j['config']['model']} {' '.join(args)}", falls(loss),
              f"{loss[0]:.4f} -> {loss[-1]:.4f}, skipped {j['skipped_steps']}")


def determinism():
    a = bert("--model", "tiny", "--steps", "10")
    b = bert("--model", "tiny", "--steps", "10")
    check("deterministic: two runs, same losses", a["loss"] == b["loss"], f"{a['loss'][-1]} vs {b['loss'][-1]}")
    c = bert("--model", "tiny", "--steps", "10", "--recompute")
    check("recompute gives the same losses", a["loss"] == c["loss"], f"{a['loss'][-1]} vs {c['loss'][-1]}")


def plan_equals_run():
    for args in (["--model", "tiny", "--steps", "3"],
                 ["--model", "base", "--steps", "3", "--precision", "fp16", "--recompute"],
                 ["--model", "distil", "--steps", "3", "--precision", "bf16", "--optimizer", "momentum"]):
        r = bert(*args)
        p = bert("--plan", *args)
        keys = ("parameters", "peak_bytes", "peak", "at_peak", "at_end", "category_max",
                "allocations", "frees", "events")
        diff = [k for k in keys if r.get(k) != p.get(k)]
        check(f"run bookkeeping == plan: {' '.join(args)}", not diff, f"differs: {diff}" if diff else
              f"peak {r['peak_bytes']} at step {r['peak']['step']} {r['peak']['region']}")
        mi = r["mem_get_info"]
        used = mi["start"]["free"] - mi["end"]["free"]
        row("workload", "vt-bert " + " ".join(args), used, r["end_bytes"],
            "cudaMemGetInfo drop start->end vs own end_bytes (context, cuBLAS, rounding differ)")


SMALL = [("vt-leak", []), ("vt-frag", []), ("vt-oom", []), ("vt-threads", []),
         ("vt-vmm", []), ("vt-vmm", ["--via", "entry-point"]), ("vt-async", []), ("vt-pinned", [])]


def small_workloads():
    for name, args in SMALL:
        rc, out, err = run([os.path.join(BIN, name), *args], timeout=300)
        ok = rc == 0
        detail = err.strip()[-300:]
        if ok:
            try:
                j = last_json(out)
                detail = f"peak {j.get('peak_bytes')} end {j.get('end_bytes')}"
            except ValueError as e:
                ok, detail = False, str(e)
        check(f"{name} {' '.join(args)} runs", ok, detail)


def traced():
    if not (os.path.isfile(VT) and os.access(VT, os.X_OK)):
        print(f"(no vramtrace at {VT}: traced comparisons skipped)")
        return
    cases = [(n, a) for n, a in SMALL] + [
        ("vt-bert", ["--model", "tiny", "--steps", "3"]),
        ("vt-bert", ["--model", "base", "--steps", "3", "--precision", "bf16"]),
        ("vt-bert", ["--model", "base", "--steps", "3", "--recompute"]),
    ]
    for i, (name, args) in enumerate(cases):
        tr = os.path.join(W, f"wl-{i}-{name}.vtrace")
        cmd = [VT, "run", "--no-summary", "-o", tr, "--", os.path.join(BIN, name), *args]
        if name == "vt-bert":
            cmd.append("--quiet")
        rc, out, err = run(cmd, timeout=600)
        try:
            ref = last_json(out).get("peak_bytes", -1)
        except ValueError:
            ref = -1
        rc2, rep, err2 = run([VT, "report", "--json", tr])
        try:
            got = json.loads(rep).get("peak_bytes", -1)
        except ValueError:
            got = -1
        note = "workload's own peak (requested bytes)"
        if name == "vt-bert":
            note += "; the trace also holds cuBLAS's own allocations"
        if name == "vt-pinned":
            note += "; pinned HOST memory, no device bytes"
        if name == "vt-vmm":
            note += "; physical bytes (cuMemCreate)"
        row("workload", f"{name} {' '.join(args)} (rc {rc})", got, ref, note)


for name, fn in (("hf", hf_match), ("loss", loss_falls), ("determinism", determinism),
                 ("plan", plan_equals_run), ("small", small_workloads), ("traced", traced)):
    guarded(name, fn)
print(f"\n{len(failed)} workload check(s) failed" + (": " + ", ".join(failed) if failed else ""))
sys.exit(1 if failed else 0)

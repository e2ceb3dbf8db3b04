#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""wheel.py --build BUILD --version V --out DIR: makes the wheel vramtrace-V-py3-none-
manylinux_2_N_ARCH.whl from a build tree, with the standard library alone (no PyPI).

The package (packaging/python/vramtrace) gets the CLI in vramtrace/bin and the recorder,
its Python hook and every shared library they need but glibc's and the C++ runtime's in
vramtrace/lib, as auditwheel does for manylinux wheels: each copied library is renamed
with a hash of its content (libzstd-1a2b3c4d.so.1), the files that need it point to the
new name, and RPATH is $ORIGIN (libraries) or $ORIGIN/../lib (the CLI), so the recorder,
preloaded into a program that has its own libzstd or libunwind, loads its copies and not
the program's. N is the newest glibc symbol version any of them needs."""
import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
# What manylinux lets a wheel take from the system (PEP 600: glibc and the GCC runtime).
SYSTEM = re.compile(r"^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libcrypt|libstdc\+\+|libgcc_s"
                    r"|ld-linux-x86-64|ld-linux-aarch64|linux-vdso)\.so")


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def deps(path):
    """soname -> path of every library `path` loads, transitively (ldd)."""
    out = {}
    for line in run("ldd", path).splitlines():
        m = re.match(r"\s*(\S+) => (/\S+) \(", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def glibc_needed(path):
    versions = re.findall(r"GLIBC_2\.(\d+)", run("objdump", "-T", path))
    return max(map(int, versions), default=17)


def vendor(root, elves):
    """Copies the libraries `elves` need into root/vramtrace/lib, renamed; rewrites
    DT_NEEDED and RPATH. Returns the list of files written."""
    lib = os.path.join(root, "vramtrace", "lib")
    need = {}
    for e in elves:
        need.update({s: p for s, p in deps(e).items() if not SYSTEM.match(s)})
    renamed = {}
    for soname, src in sorted(need.items()):
        h = hashlib.sha256(open(src, "rb").read()).hexdigest()[:8]
        stem, ext = soname.split(".so", 1)
        renamed[soname] = "%s-%s.so%s" % (stem, h, ext)
        dst = os.path.join(lib, renamed[soname])
        shutil.copy(src, dst)
        os.chmod(dst, 0o755)
        run("patchelf", "--set-soname", renamed[soname], dst)
    copies = [os.path.join(lib, n) for n in renamed.values()]
    for f in elves + copies:
        args = []
        for old, new in renamed.items():
            if old in run("patchelf", "--print-needed", f).split():
                args += ["--replace-needed", old, new]
        if args:
            run("patchelf", *args, f)
        origin = "$ORIGIN/../lib" if f.endswith("/bin/vramtrace") else "$ORIGIN"
        run("patchelf", "--set-rpath", origin, f)
    return copies


def record_line(root, path):
    data = open(os.path.join(root, path), "rb").read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the CMake build folder (bin/vramtrace, lib/libvramtrace.so)")
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True, help="folder to write the .whl into")
    a = ap.parse_args()
    arch = os.uname().machine
    with tempfile.TemporaryDirectory() as root:
        pkg = os.path.join(root, "vramtrace")
        shutil.copytree(os.path.join(HERE, "python", "vramtrace"), pkg,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        os.makedirs(os.path.join(pkg, "bin"))
        os.makedirs(os.path.join(pkg, "lib", "vramtrace_py"))
        cli = os.path.join(pkg, "bin", "vramtrace")
        rec = os.path.join(pkg, "lib", "libvramtrace.so")
        shutil.copy(os.path.join(a.build, "bin", "vramtrace"), cli)
        shutil.copy(os.path.join(a.build, "lib", "libvramtrace.so"), rec)
        shutil.copy(os.path.join(a.build, "lib", "vramtrace_py", "sitecustomize.py"),
                    os.path.join(pkg, "lib", "vramtrace_py", "sitecustomize.py"))
        for f in (cli, rec):
            # Debug sections are a build's business; the symbol table stays.
            run("strip", "--strip-debug", f)
        copies = vendor(root, [cli, rec])
        glibc = max(glibc_needed(f) for f in [cli, rec] + copies)
        with open(os.path.join(pkg, "__init__.py")) as f:
            init = f.read()
        with open(os.path.join(pkg, "__init__.py"), "w") as f:
            f.write(re.sub(r'__version__ = "[^"]*"', '__version__ = "%s"' % a.version, init))

        tag = "py3-none-manylinux_2_%d_%s" % (glibc, arch)
        dist = "vramtrace-%s.dist-info" % a.version
        os.makedirs(os.path.join(root, dist))
        meta = {
            "METADATA": "Metadata-Version: 2.1\nName: vramtrace\nVersion: %s\n"
                        "Summary: GPU memory profiler: CUDA device memory with call stacks\n"
                        "License: MIT\nRequires-Python: >=3.8\n\n"
                        "`vramtrace run -- python train.py`, then `vramtrace report TRACE`.\n" % a.version,
            "WHEEL": "Wheel-Version: 1.0\nGenerator: vramtrace packaging/wheel.py\nRoot-Is-Purelib: false\n"
                     "Tag: %s\n" % tag,
            "entry_points.txt": "[console_scripts]\nvramtrace = vramtrace._cli:main\n",
            "top_level.txt": "vramtrace\n",
        }
        for name, text in meta.items():
            with open(os.path.join(root, dist, name), "w") as f:
                f.write(text)
        files = sorted(os.path.relpath(os.path.join(d, n), root) for d, _, ns in os.walk(root) for n in ns)
        record = [record_line(root, p) for p in files] + ["%s/RECORD,," % dist]
        with open(os.path.join(root, dist, "RECORD"), "w") as f:
            f.write("\n".join(record) + "\n")
        files.append("%s/RECORD" % dist)

        os.makedirs(a.out, exist_ok=True)
        whl = os.path.join(a.out, "vramtrace-%s-%s.whl" % (a.version, tag))
        with zipfile.ZipFile(whl, "w", zipfile.ZIP_DEFLATED) as z:
            for p in files:
                full = os.path.join(root, p)
                zi = zipfile.ZipInfo(p, date_time=(2020, 1, 1, 0, 0, 0))
                # Executable bits survive pip's install only when the entry has them.
                zi.external_attr = ((0o755 if os.access(full, os.X_OK) else 0o644) | 0o100000) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                with open(full, "rb") as f:
                    z.writestr(zi, f.read())
    print(whl)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs the rust-analyzer probe (crates/analyze/ra-probe) over a reach corpus and compares it
with the corpus's audited truth and with the syn walker's times (scripts/ra-probe.sh).

Usage: run.py PROBE WORK CORPUS_DIR SYN_TABLE [PROBE_ARG ...]
  PROBE       the built probe
  WORK        work directory (crate copies under WORK/crates, raw probe output under WORK/out)
  CORPUS_DIR  a reach corpus (its corpus.toml and expected.toml)
  SYN_TABLE   the syn walker's `cargo welltempered reach` output for the same corpus
Prints one row per crate and the totals. A constructor site matches an audited one in the same
file within two lines (the walker reports a call's line, the probe the expression's first).
"""
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import tomllib

probe, work, corpus_dir, syn_table, *probe_args = sys.argv[1:]
crates = tomllib.load(open(os.path.join(corpus_dir, "corpus.toml"), "rb"))["crate"]
expected = {}
for ch in tomllib.load(open(os.path.join(corpus_dir, "expected.toml"), "rb"))["channel"]:
    expected.setdefault(ch["crate"], []).append((ch["file"], ch["line"]))
syn = {}
# The syn walker's claims that a struct is Sync (its public-API rule, proved from the declared
# types of the struct's fields), per crate: checked below against the trait solver's answer.
sync_claims = {}
section = None
for line in open(syn_table):
    f = line.split()
    if len(f) == 8 and re.fullmatch(r"[\d.]+", f[7]) and f[0] != "total":
        syn[f[0]] = float(f[7])
    if line.startswith("# "):
        section = line[2:].strip()
    m = re.search(r"stored in (\w+)(?:, held by (\w+)\.\w+)?, which other crates get and "
                  r"(?:is Sync|may share \(it is Sync)", line)
    if m and section:
        sync_claims.setdefault(section, set()).add(m.group(2) or m.group(1))
cargo_home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
os.makedirs(os.path.join(work, "out"), exist_ok=True)

rows = []
for krate in crates:
    nv = f"{krate['name']}-{krate['version']}"
    src = next(iter(glob.glob(os.path.join(cargo_home, "registry/src/*", nv))), None)
    if src is None:
        sys.exit(f"{nv} is not in {cargo_home}/registry/src: run `cargo welltempered reach` first")
    copy = os.path.join(work, "crates", nv)
    if not os.path.isdir(copy):
        # `cargo metadata` (run by the probe) writes a Cargo.lock: not in the registry's copy.
        shutil.copytree(src, copy)
        manifest = os.path.join(copy, "Cargo.toml")
        text = open(manifest).read()
        if not re.search(r"^\[workspace\]", text, re.M):
            # A workspace of its own, not a stray member of the one WORK is in.
            open(manifest, "a").write("\n[workspace]\n")
        # The probe reads sources; a toolchain the crate pins (jpeg-decoder: 1.61.0) need not
        # be installed for that.
        for pin in ("rust-toolchain", "rust-toolchain.toml"):
            if os.path.exists(os.path.join(copy, pin)):
                os.remove(os.path.join(copy, pin))
    started = time.monotonic()
    out_path = os.path.join(work, "out", nv + ".txt")
    with open(out_path, "w") as sink:
        p = subprocess.Popen([probe, copy, *probe_args], stdout=sink, stderr=subprocess.STDOUT)
        # wait4, for this child's own peak resident set.
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - started
    out = open(out_path).read()
    result = dict(kv.split("=", 1) for kv in next((l for l in out.splitlines() if l.startswith("RESULT")), "RESULT").split("\t")[1:])
    sites = []
    holders = {}
    for l in out.splitlines():
        if l.startswith("HOLDER\t"):
            _, name, verdict = l.split("\t")
            holders.setdefault(name, set()).add(verdict == "sync")
        if l.startswith("SITE\t"):
            where = l.split("\t")[1]
            f, n = where.rsplit(":", 1)
            sites.append((f, int(n)))
    audited = expected.get(nv, [])
    matched = [a for a in audited if any(f == a[0] and abs(n - a[1]) <= 2 for f, n in sites)]
    missed = [a for a in audited if a not in matched]
    extra = [s for s in sites if not any(s[0] == a[0] and abs(s[1] - a[1]) <= 2 for a in audited)]
    rows.append(dict(crate=nv, ok=p.returncode == 0, rss_mb=usage.ru_maxrss / 1024, result=result, audited=len(audited),
                     matched=len(matched), missed=missed, extra=len(extra), wall=wall,
                     syn=syn.get(nv), holders=holders, sync_claims=sync_claims.get(nv, set())))

def num(r, k, default=0.0):
    try:
        return float(r["result"][k])
    except (KeyError, ValueError):
        return default

print(f"{'crate':30} {'lines':>7} {'audited':>7} {'found':>5} {'extra':>5} {'syn s':>7} "
      f"{'ra load':>7} {'ra anal':>7} {'ra/syn':>7} {'ra MiB':>7} {'methods':>8}")
for r in rows:
    ra = num(r, "load_s") + num(r, "analysis_s")
    m = r["result"].get("methods", "0/0").split("/")
    resolved = f"{100 * int(m[0]) / max(1, int(m[1])):.0f}%"
    ratio = f"{ra / r['syn']:.0f}x" if r["syn"] else "-"
    syn_s = f"{r['syn']:.4f}" if r["syn"] is not None else "-"
    print(f"{r['crate']:30} {int(num(r, 'lines')):>7} {r['audited']:>7} {r['matched']:>5} {r['extra']:>5} "
          f"{syn_s:>7} {num(r, 'load_s'):>7.2f} {num(r, 'analysis_s'):>7.2f} {ratio:>7} {r['rss_mb']:>7.0f} {resolved:>8}"
          + ("" if r["ok"] else "  PROBE FAILED (see " + os.path.join(work, "out", r["crate"] + ".txt") + ")"))
lines = sum(num(r, "lines") for r in rows)
audited = sum(r["audited"] for r in rows)
matched = sum(r["matched"] for r in rows)
ra_total = sum(num(r, "load_s") + num(r, "analysis_s") for r in rows)
syn_total = sum(r["syn"] or 0 for r in rows)
mr = [tuple(map(int, r["result"].get("methods", "0/0").split("/"))) for r in rows]
print(f"{len(rows)} crates, {int(lines)} lines read by the probe; channels audited {audited}, found "
      f"{matched} ({100 * matched / max(1, audited):.0f}%), {sum(r['extra'] for r in rows)} more sites "
      f"(in macro expansions); method calls resolved {100 * sum(a for a, _ in mr) / max(1, sum(b for _, b in mr)):.1f}%")
print(f"time: syn walker {syn_total:.2f} s in all, rust-analyzer {ra_total:.1f} s "
      f"(median per crate {statistics.median(num(r, 'load_s') + num(r, 'analysis_s') for r in rows):.2f} s; "
      f"{1e4 * ra_total / max(1, lines):.2f} s per 10,000 lines; median ratio ra/syn per crate "
      f"{statistics.median((num(r, 'load_s') + num(r, 'analysis_s')) / r['syn'] for r in rows if r['syn']):.0f}x)")
print(f"peak resident memory of the probe: median {statistics.median(r['rss_mb'] for r in rows):.0f} MiB, "
      f"largest {max(r['rss_mb'] for r in rows):.0f} MiB ({max(rows, key=lambda r: r['rss_mb'])['crate']})")
for r in rows:
    if r["missed"]:
        print(f"  not found in {r['crate']}: " + ", ".join(f"{f}:{n}" for f, n in r["missed"]))
# Every struct the syn walker proved Sync (by a whitelist of field types) and the trait solver
# also judged (it judges the structs holding a handle field): a claim the solver contradicts
# would be a wrong `many`.
agree, contradicted, unseen = 0, [], 0
for r in rows:
    for name in sorted(r["sync_claims"]):
        verdicts = r["holders"].get(name)
        if verdicts is None:
            unseen += 1
        elif verdicts == {True}:
            agree += 1
        else:
            contradicted.append(f"{r['crate']}: {name}")
claims = agree + len(contradicted) + unseen
print(f"Sync proved by the syn walker's public-API rule: {claims} structs; the trait solver agrees on "
      f"{agree}, contradicts {len(contradicted)}, does not judge {unseen} (no handle field of its own)")
for c in contradicted:
    print(f"  contradicted: {c}")

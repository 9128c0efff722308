"""The Performance section's subsection on what the privacy accountants cost a run, from the
JSON of build/tools/bench_accountants --json (tools/bench/accountants.cpp)."""
import json
import os

from .common import bench_circumstances


def accountants_section(path, w):
    """Run wall times with each accountant, each accountant alone on the run's releases, and
    the tight / moments ratio of a run pricing one way only; a one-line note on how to make it
    when `path` does not exist."""
    w("### Privacy accountants: what they cost a run")
    w("")
    if not os.path.exists(path):
        w(f"No accountants benchmark at `{path}`: run `tools/reproduce --bench` (or "
          f"`build/tools/bench_accountants --json {path}`, then `tools/reproduce`).")
        w("")
        return
    d = json.load(open(path))
    bench_circumstances(d, "tools/bench/accountants.cpp", w)
    w(f"`{d['scenario']}` (N = {d['agents']}, T = {d['iterations']}; {d['releases']} private "
      f"releases of q = {d['q']:g}, z = {d['z']:g}, δ = {d['delta']:.3g}) as actors with one "
      "scheduler thread, outputs written; medians of "
      f"{d['repeats']} repeats, the modes alternating. Every private run prices its releases "
      "both ways (`epsilon_rdp`, `epsilon_pld`), so the whole run costs the same whichever "
      "`privacy.accountant` it names; each accountant alone is timed on the run's own releases, "
      "asked after every release as the run's accountant is, and a run pricing one way only is "
      "the run's wall time less both accountants' time plus that one's (the server waits for each "
      "charge: the accountant is on the run's critical path).")
    w("")
    w("| what | seconds |")
    w("|---|---|")
    w(f"| the run, `privacy.accountant = \"moments\"` | {d['run_moments_s']:.3f} |")
    w(f"| the run, `privacy.accountant = \"tight\"` | {d['run_tight_s']:.3f} |")
    w(f"| the moments accountant alone, after each release | {d['moments_alone_s']:.4f} |")
    w(f"| the tight accountant alone, after each release | {d['tight_alone_s']:.4f} |")
    w(f"| both (what every private run does) | {d['ledger_s']:.4f} |")
    w(f"| a run pricing with moments only | {d['moments_only_run_s']:.3f} |")
    w(f"| a run pricing with tight only | {d['tight_only_run_s']:.3f} |")
    w("")
    verdict = "within" if d["ratio"] <= 1.2 else "**above**"
    w(f"Tight / moments: **{d['ratio']:.3f}**, {verdict} the target of 1.2.")
    w("")

"""DP-FTS-DE (Dai, Low, Jaillet 2021) on the results page: figure 2a-d, the published privacy
losses, and appendix figures 4, 5, 6, 7 and 12a, each with two local samplers (fedsim's default and
the authors'), and a table of every verdict per sampler."""
import json
import os
from collections import namedtuple

from .common import (combine, compare, equivalent, exact_verdict, interval, judged, metric_table,
                     mean_se, num, pick, pm, read_csv, stat, word)

# One run of the figures: the suffix of its sweeps (tools/reproduce's dp_fts_de_figures), the
# sampler's scenario name, the heading's tail, and what the sampler is.
Variant = namedtuple("Variant", "sfx sampler title about")
VARIANTS = [
    Variant("", "rff", "", "fedsim's default: local TS samples the shared features' posterior "
            "with the known hyperparameters (length scale 0.03, signal variance 1, λ = 0.01)"),
    Variant("-authors", "refit-rff", " (the authors' local sampler)",
            "the DP-FTS-DE authors' code: local TS refits an isotropic GP (GPy's start: length "
            "scale 1, variance 0.1, noise 1e-6; optimize_restarts(10), unbounded) every 5 "
            "observations and samples fresh random features (M = 100) every iteration "
            "(`--set algorithm.local_sampler=refit-rff`, engine/fbo/refit_rff.hpp)"),
]

# One claim as a section judged it: its text, its verdict, and what it rests on (the interval
# of each comparison, or the exact numbers) for the table of every verdict.
Found = namedtuple("Found", "claim verdict basis")


def found_one(claim, r):
    return Found(claim, r["verdict"], interval(r))


def found_chain(claim, steps):
    """A claim made of several comparisons: [(step label, compare result), ...]."""
    return Found(claim, combine(r["verdict"] for _, r in steps),
                 "; ".join(f"{label}: {r['verdict']}, {interval(r)}" for label, r in steps))


def chain_text(steps):
    """Each step of a chain with its verdict and interval."""
    return "; ".join(f"{label}: {judged(r)}" for label, r in steps)


def exact_epsilons(path, key):
    """{grid value: ε} of a runs table whose ε is the same on every seed of a grid point (it is a
    function of q, z, T and N alone); a grid point whose seeds differ stops the page."""
    eps = {}
    for r in read_csv(path):
        eps.setdefault(r[key], set()).add(r["epsilon"])
    for value, e in eps.items():
        if len(e) != 1:
            raise SystemExit(f"results_page: {path}: ε differs between the seeds of {key}={value} "
                             f"({sorted(e)}); the page compares it as an exact number")
    return {value: float(next(iter(e))) for value, e in eps.items()}


def dp_fts_de_sections(R, w, cmds, img):
    """Every DP-FTS-DE section, in the page's order: the figures with each sampler whose runs
    are there, the privacy losses, and the verdicts per sampler."""
    priv = [json.loads(l) for l in open(os.path.join(R, "privacy.jsonl")) if l.strip()]
    verdicts = {}
    for v in VARIANTS:
        if not os.path.exists(os.path.join(R, f"dp-fts-de-fig2a{v.sfx}.csv")):
            continue
        found = []
        found += fig2a_section(R, w, cmds, img, v)
        found += fig2b_section(R, w, cmds, img, v)
        found += fig2cd_sections(R, priv, w, cmds, img, v)
        if v.sfx == "":
            privacy_section(priv, w, cmds)
        found += fig4_section(R, w, cmds, img, v)
        found += fig5_section(R, w, cmds, img, v)
        found += fig6_section(R, w, cmds, img, v)
        found += fig7_section(R, w, cmds, img, v)
        found += fig12_section(R, w, cmds, img, v)
        verdicts[v] = found
    sampler_verdicts_section(verdicts, w)


def sampler_verdicts_section(verdicts, w):
    """One row per claim, one column per local sampler."""
    if len(verdicts) < 2:
        return
    w("## DP-FTS-DE: every verdict, per local sampler")
    w("")
    w("The claims of figures 2a-d and appendix figures 4, 5, 7 and 12a, as the sections above "
      "judge them, with each local sampler:")
    w("")
    for v in verdicts:
        w(f"- `{v.sampler}`: {v.about}.")
    w("")
    w("Each cell is the verdict and what it rests on: a − b with its 95 % interval and n paired "
      "seeds (each step of a claim made of several comparisons), or the exact numbers of a "
      "privacy loss.")
    w("")
    vs = list(verdicts)
    w("| claim | " + " | ".join(f"`{v.sampler}`" for v in vs) + " |")
    w("|---|" + "---|" * len(vs))
    claims = [f.claim for f in verdicts[vs[0]]]
    table = {v: {f.claim: f for f in verdicts[v]} for v in vs}

    def cell(v, c):
        if c not in table[v]:
            return "–"
        f = table[v][c]
        return f"{word(f.verdict)}: {f.basis}"

    for c in claims:
        w(f"| {c} | " + " | ".join(cell(v, c) for v in vs) + " |")
    w("")
    counts = {v: {k: sum(f.verdict == k for f in verdicts[v])
                  for k in ("reproduced", "contradicted", "undecided")} for v in vs}
    w("Counts: " + "; ".join(f"`{v.sampler}` " + ", ".join(f"{n} {k}" for k, n in counts[v].items())
                             for v in vs) + f" (of {len(claims)} claims).")
    w("")
    differ = [c for c in claims if len({table[v][c].verdict for v in vs if c in table[v]}) > 1]
    opposite = [c for c in differ
                if {"reproduced", "contradicted"} <= {table[v][c].verdict for v in vs if c in table[v]}]
    w(("The samplers' verdicts differ on: " + "; ".join(differ) + ". "
       + ("They are opposite (one reproduced, the other contradicted) on: " + "; ".join(opposite)
          + ": a verdict that changes with the local sampler is a property of that choice as much "
          "as of the algorithm. " if opposite else
          "Nowhere is one reproduced and the other contradicted: where they differ, one of them is "
          "undecided at these seeds. "))
      if differ else "Both samplers give the same verdict on every claim.")
    w("")


def fig2a_section(R, w, cmds, img, v):
    """Figure 2a: TS, FTS and FTS-DE with P = 2 and 3."""
    w(f"## DP-FTS-DE figure 2a: benefit of DE{v.title}")
    w("")
    if v.sfx:
        w(f"This section and the ones down to figure 12a repeat the runs above with {v.about}. "
          "Everything else is the same: scenario, seeds, the messages the agents send (drawn from "
          "the shared model, as the authors' code does). Their local TS differs from fedsim's "
          "default in three ways at once: hyperparameters fitted by maximum likelihood instead "
          "of known, new random features every iteration instead of the shared ones, and λ = "
          "max(1e-5, fitted noise) instead of 0.01. The last table of the DP-FTS-DE part sets "
          "the verdicts of both samplers side by side.")
        w("")
    cmds("fig2a" + v.sfx)
    name = f"dp-fts-de-fig2a{v.sfx}"
    a_rows = {r["algorithm.name"]: r for r in read_csv(os.path.join(R, f"{name}.csv"))}
    p3 = read_csv(os.path.join(R, f"dp-fts-de-fig2a-p3{v.sfx}.csv"))[0]
    entries = [("TS", a_rows["ts"]), ("FTS", a_rows["fts"]), ("FTS-DE, P = 2", a_rows["fts-de"]),
               ("FTS-DE, P = 3", p3)]
    w("| algorithm | runs | regret area | final simple regret |")
    w("|---|---|---|---|")
    for label, r in entries:
        w(f"| {label} | {r['runs']} | {pm(*stat(r))} | {pm(*stat(r, 'mean_final_simple_regret'))} |")
    w("")
    runs = os.path.join(R, f"{name}_runs.csv")
    p3_runs = os.path.join(R, f"dp-fts-de-fig2a-p3{v.sfx}_runs.csv")
    alg = "algorithm.name"
    steps = [("FTS below TS", compare(runs, {alg: "fts"}, runs, {alg: "ts"}, "less")),
             ("FTS-DE P = 2 below FTS", compare(runs, {alg: "fts-de"}, runs, {alg: "fts"}, "less")),
             ("FTS-DE P = 3 below P = 2", compare(p3_runs, {}, runs, {alg: "fts-de"}, "less"))]
    whole = combine(r["verdict"] for _, r in steps)
    w("Paper: FTS beats TS, FTS-DE beats FTS considerably, and P = 3 beats P = 2. Here, in "
      "regret area, the ordering P = 3 < P = 2 < FTS < TS step by step (a the first named, b the "
      f"second): {chain_text(steps)} — the whole ordering: {word(whole)}.")
    w("")
    final = compare(runs, {alg: "fts-de"}, runs, {alg: "fts"}, "less", "mean_final_simple_regret")
    w(f"At the last iteration alone (final simple regret), FTS-DE P = 2 below FTS: {judged(final)}"
      + (": DE's advantage here is early convergence, not the final simple regret."
         if final["verdict"] != "reproduced" else "."))
    w("")
    img(f"dp-fts-de-fig2a{v.sfx}/regret.png", "figure 2a: simple regret of TS, FTS, FTS-DE")
    return [found_one("2a: FTS below TS", steps[0][1]),
            found_one("2a: FTS-DE (P = 2) below FTS", steps[1][1]),
            found_one("2a: FTS-DE P = 3 below P = 2", steps[2][1]),
            Found("2a: the whole ordering P = 3 < P = 2 < FTS < TS", whole,
                  "the three rows above"),
            found_one("2a: FTS-DE (P = 2) below FTS in final simple regret", final)]


def fig2b_section(R, w, cmds, img, v):
    """Figure 2b: the clipping threshold S."""
    w(f"## DP-FTS-DE figure 2b: clipping threshold S{v.title}")
    w("")
    cmds("fig2b" + v.sfx)
    name = f"dp-fts-de-fig2b{v.sfx}"
    b = read_csv(os.path.join(R, f"{name}.csv"))
    w("| S | runs | regret area | final simple regret | ε |")
    w("|---|---|---|---|---|")
    for r in b:
        w(f"| {r['algorithm.clip']} | {r['runs']} | {pm(*stat(r))} | "
          f"{pm(*stat(r, 'mean_final_simple_regret'))} | {num(r['epsilon_mean']):.2f} |")
    w("")
    runs = os.path.join(R, f"{name}_runs.csv")
    clips = [r["algorithm.clip"] for r in b]
    small, large = clips[0], clips[-1]
    key = "algorithm.clip"
    steps = [(f"S = {small} above S = 11", compare(runs, {key: small}, runs, {key: "11"}, "greater")),
             (f"S = {large} above S = 11", compare(runs, {key: large}, runs, {key: "11"}, "greater"))]
    u = combine(r["verdict"] for _, r in steps)
    eps = exact_epsilons(runs, key)
    same_eps = len(set(eps.values())) == 1
    w(f"Paper: an overly small and an excessively large S both hurt; S = 11 is best. Read as: "
      f"the smallest and the largest S of the sweep ({small} and {large}) each have a larger "
      f"regret area than the paper's S = 11 (a U shape around 11): {chain_text(steps)} — the U "
      f"shape: {word(u)}. ε does not depend on S: "
      + (f"{next(iter(eps.values())):.2f} at every S and seed (exact), as in the paper."
         if same_eps else "it **differs** between S (" + ", ".join(f"{k}: {e:.2f}" for k, e in eps.items()) + ")."))
    w("")
    img(f"dp-fts-de-fig2b{v.sfx}/regret.png", "figure 2b: simple regret for each S")
    return [found_chain("2b: too small and too large S both hurt (U shape around S = 11)", steps),
            Found("2b: ε does not depend on S", exact_verdict(same_eps),
                  (f"exact: ε = {next(iter(eps.values())):.2f} at every S and seed" if same_eps
                   else "exact: " + ", ".join(f"S = {k}: {e:.2f}" for k, e in eps.items())))]


def fig2cd_sections(R, priv, w, cmds, img, v):
    """Figures 2c (q) and 2d (z), with the ε `fedsim privacy --paper` computes beside each run's."""
    eps_of = {(p["q"], p["z"]): p["epsilon"] for p in priv}

    def qz_panel(key, title, col, vary, label):
        w(f"## DP-FTS-DE figure {key[-2:]}: {title}{v.title}")
        w("")
        cmds(key + v.sfx)
        rows = read_csv(os.path.join(R, f"dp-fts-de-{key}{v.sfx}.csv"))
        w(f"| {label} | runs | regret area | final simple regret | ε of the runs | ε by `fedsim privacy --paper` |")
        w("|---|---|---|---|---|---|")
        for r in rows:
            x = float(r[col])
            qz = (x, 1.0) if vary == "q" else (0.25, x)
            w(f"| {r[col]} | {r['runs']} | {pm(*stat(r))} | "
              f"{pm(*stat(r, 'mean_final_simple_regret'))} | "
              f"{num(r['epsilon_mean']):.2f} | {eps_of.get(qz, float('nan')):.2f} |")
        w("")
        return rows, os.path.join(R, f"dp-fts-de-{key}{v.sfx}_runs.csv")

    def judge(rows, runs, col, better, paper, symbol):
        """The privacy claim (exact) and the utility chain of a panel; `better` is the claim
        that a grid value's regret area is below ("less") or above ("greater") the next one's."""
        values = [r[col] for r in rows]
        eps = exact_epsilons(runs, col)
        e = [eps[x] for x in values]
        ok_e = all(x < y for x, y in zip(e, e[1:])) if symbol == "<" else \
            all(x > y for x, y in zip(e, e[1:]))
        steps = [(f"{col.split('.')[-1]} = {x} {'below' if better == 'less' else 'above'} "
                  f"{col.split('.')[-1]} = {y}", compare(runs, {col: x}, runs, {col: y}, better))
                 for x, y in zip(values, values[1:])]
        u = combine(r["verdict"] for _, r in steps)
        w(f"Paper: {paper}. Privacy loss (exact: the same on every seed): ε = "
          + f" {symbol} ".join(f"{x:.2f}" for x in e) + f" for {col.split('.')[-1]} = "
          + ", ".join(values) + f" — {word(exact_verdict(ok_e))}. Utility (regret area), step by "
          f"step: {chain_text(steps)} — {word(u)}.")
        w("")
        return ok_e, steps, " < ".join(f"{x:.2f}" for x in e) if symbol == "<" else \
            " > ".join(f"{x:.2f}" for x in e)

    c, c_runs = qz_panel("fig2c", "subsampling probability q", "algorithm.q", "q", "q")
    ok_e, steps, e_text = judge(c, c_runs, "algorithm.q", "greater",
                                "a larger q gives better utility at a greater privacy loss", "<")
    found = [Found("2c: a larger q, a greater privacy loss", exact_verdict(ok_e), f"exact: ε = {e_text}"),
             found_chain("2c: a larger q, better utility", steps)]
    img(f"dp-fts-de-fig2c{v.sfx}/regret.png", "figure 2c: simple regret for each q")
    img(f"dp-fts-de-fig2c{v.sfx}/privacy_utility.png", "figure 2c: privacy against utility")

    d, d_runs = qz_panel("fig2d", "noise multiplier z", "algorithm.z", "z", "z")
    ok_e, steps, e_text = judge(d, d_runs, "algorithm.z", "less",
                                "a smaller z gives better utility at a greater privacy loss", ">")
    img(f"dp-fts-de-fig2d{v.sfx}/regret.png", "figure 2d: simple regret for each z")
    img(f"dp-fts-de-fig2d{v.sfx}/privacy_utility.png", "figure 2d: privacy against utility")
    return found + [Found("2d: a smaller z, a greater privacy loss", exact_verdict(ok_e), f"exact: ε = {e_text}"),
                    found_chain("2d: a smaller z, better utility", steps)]


def privacy_section(priv, w, cmds):
    """The five privacy losses published in figure 2's caption against `fedsim privacy --paper`."""
    published = {(0.15, 1.0): 5.93, (0.25, 1.0): 9.91, (0.5, 1.0): 20.12, (0.25, 1.2): 7.39,
                 (0.25, 1.5): 5.22}
    w("## DP-FTS-DE's published privacy losses")
    w("")
    cmds("privacy")
    w("| q | z | ε computed (`fedsim privacy --paper`, T = 40, δ = 200^-1.1) | δ | published (figure 2 caption) | match to 2 decimals |")
    w("|---|---|---|---|---|---|")
    allok = True
    for p in priv:
        pub = published.get((p["q"], p["z"]))
        match = pub is not None and round(p["epsilon"], 2) == pub
        allok &= match
        w(f"| {p['q']} | {p['z']} | {p['epsilon']:.3f} | {p['delta']:.2e} | {pub} | {'yes' if match else 'NO'} |")
    w("")
    w(f"All five published losses {'are' if allok else 'are NOT all'} reproduced (exact numbers: "
      "no seeds enter the accountant) by the moments "
      "accountant in the paper's convention (orders 2..33, classic conversion; `docs/privacy.md`). "
      "The runs of figures 2c-d, whose scenario sets `privacy.accountant = \"moments-paper\"`, "
      "report the same ε.")
    w("")


# ---------------------------------------------------------------- appendix figures

def metric_by_point(path, keys, column):
    """(mean, se) over seeds of a column of a --run-metrics CSV, per tuple of the keys' values."""
    groups = {}
    for r in read_csv(path):
        groups.setdefault(tuple(r[k] for k in keys), []).append(num(r[column]))
    return {k: mean_se(v) for k, v in groups.items()}


def run_metrics_table(R, name, metrics):
    """The per-run metrics CSV of a sweep (results_page.py --run-metrics: NAME_metrics.csv) in
    the runs table's layout, for fedsim compare; returns (its path, its rows)."""
    rows = read_csv(os.path.join(R, f"{name}_metrics.csv"))
    header = list(rows[0])
    grid = header[: header.index("seed")]
    return metric_table(name, rows, grid, metrics), rows


def cells(row, digits=4):
    """The regret area and final simple regret cells of a sweep.csv row."""
    return f"{pm(*stat(row), digits)} | {pm(*stat(row, 'mean_final_simple_regret'), digits)}"


def fig4_section(R, w, cmds, img, v):
    name = f"dp-fts-de-fig4{v.sfx}"
    rows = read_csv(os.path.join(R, f"{name}.csv"))
    keys = ["algorithm.name", "algorithm.clip"]
    clip = metric_by_point(os.path.join(R, f"{name}_metrics.csv"), keys, "clipped_percent")
    names = {"dp-fts": "DP-FTS (P = 1)", "dp-fts-de": "DP-FTS-DE (P = 2)"}
    paper = {("dp-fts", "8"), ("dp-fts-de", "11")}
    w(f"## DP-FTS-DE appendix figure 4: DP-FTS against DP-FTS-DE{v.title}")
    w("")
    cmds("fig4" + v.sfx)
    w("Paper (appendix B.1.2): after DP is integrated, DP-FTS-DE still yields a significantly better "
      "utility than DP-FTS (without DE) for the same privacy loss; S = 8 for DP-FTS and S = 11 for "
      "DP-FTS-DE (z = 1 for both) so that a similarly small percentage of the vectors is clipped "
      "(0.31% for DP-FTS, 0.80% for DP-FTS-DE). The sweep also runs each algorithm at the other's S. "
      "**Clipped** is the percentage of the selected vectors whose norm exceeded the bound "
      "S / √P (`clipped` / `selected` of `rounds.csv`, summed over the rounds of a run; "
      f"`{name}_metrics.csv`), mean ± standard error over seeds.")
    w("")
    w("| algorithm | S | runs | clipped (%) | regret area | final simple regret | ε |")
    w("|---|---|---|---|---|---|---|")
    for r in rows:
        k = (r["algorithm.name"], r["algorithm.clip"])
        w(f"| {names[k[0]]}{' (paper)' if k in paper else ''} | {k[1]} | {r['runs']} | "
          f"{pm(*clip[k], 2)} | {cells(r)} | {num(r['epsilon_mean']):.2f} |")
    w("")
    runs = os.path.join(R, f"{name}_runs.csv")
    de11, fts8 = {"algorithm.name": "dp-fts-de", "algorithm.clip": "11"}, \
        {"algorithm.name": "dp-fts", "algorithm.clip": "8"}
    main = compare(runs, de11, runs, fts8, "less")
    eps = {}
    for r in read_csv(runs):
        eps.setdefault(r["epsilon"], 0)
    same_eps = len(eps) == 1
    clip_runs, _ = run_metrics_table(R, name, ["clipped_percent"])
    clipped = compare(clip_runs, de11, clip_runs, fts8, "greater", "clipped_percent")
    same_s = [(f"S = {s}", compare(runs, {"algorithm.name": "dp-fts-de", "algorithm.clip": s}, runs,
                                   {"algorithm.name": "dp-fts", "algorithm.clip": s}, "less"))
              for s in sorted({r["algorithm.clip"] for r in rows}, key=float)]
    w("Here every run of the sweep spends "
      + (f"the same ε = {float(next(iter(eps))):.2f} (exact)" if same_eps else
         "**different** ε: " + ", ".join(f"{float(e):.2f}" for e in eps))
      + ". The paper's pair, a = DP-FTS-DE at S = 11, b = DP-FTS at S = 8: regret area, a below "
      f"b: {judged(main)}. Clipped percentage (paper: 0.80% against 0.31%), a above b: "
      f"{judged(clipped, 2)}. At equal S, a = DP-FTS-DE, b = DP-FTS, a below b: "
      f"{chain_text(same_s)} — at every S: {word(combine(r['verdict'] for _, r in same_s))}.")
    w("")
    img(f"dp-fts-de-fig4{v.sfx}/regret.png", "figure 4: simple regret of DP-FTS and DP-FTS-DE")
    return [found_one("4: DP-FTS-DE (S = 11) below DP-FTS (S = 8)", main),
            found_one("4: DP-FTS-DE (S = 11) clips a larger share than DP-FTS (S = 8)", clipped),
            found_chain("4: DP-FTS-DE below DP-FTS at each equal S", same_s)]


def fig5_section(R, w, cmds, img, v):
    name = f"dp-fts-de-fig5{v.sfx}"
    rows = read_csv(os.path.join(R, f"{name}.csv"))
    full = pick(rows, {"algorithm.temperature": "synthetic"})
    everywhere = read_csv(os.path.join(R, f"dp-fts-de-fig5-everywhere{v.sfx}.csv"))[0]
    # The settings shown are the sweeps' grid columns, or the base file's (the other sweep's
    # constant) where a sweep does not vary them.
    variants = [("FTS-DE (red curve)", full["algorithm.temperature"], "true", full),
                ("equal weights (orange curve)", "uniform", "true",
                 pick(rows, {"algorithm.temperature": "uniform"})),
                ("whole-domain initialisation (purple curve)", full["algorithm.temperature"],
                 everywhere["algorithm.explore_own_region"], everywhere)]
    w(f"## DP-FTS-DE appendix figure 5: the two components of DE{v.title}")
    w("")
    cmds("fig5" + v.sfx)
    w("Paper (appendix B.1.2): removing either component of DE — (b) the larger weights for the "
      "agents exploring a sub-region (orange: equal weights for every agent in every sub-region) "
      "or (a) exploring a local sub-region (purple: every agent's initial points from the entire "
      "domain) — makes FTS-DE significantly worse (red curve), so both are needed. In fedsim, "
      "`algorithm.temperature = \"uniform\"` gives equal weights (temperature +∞ in every round) "
      "and `algorithm.explore_own_region = false` draws the initial points from the whole domain.")
    w("")
    w("| variant | temperature | explore_own_region | runs | regret area | final simple regret |")
    w("|---|---|---|---|---|---|")
    for title, temp, own, r in variants:
        w(f"| {title} | {temp} | {own} | {r['runs']} | {cells(r)} |")
    w("")
    runs = os.path.join(R, f"{name}_runs.csv")
    ev_runs = os.path.join(R, f"dp-fts-de-fig5-everywhere{v.sfx}_runs.csv")
    ref = {"algorithm.temperature": "synthetic"}
    steps = [("equal weights above FTS-DE",
              compare(runs, {"algorithm.temperature": "uniform"}, runs, ref, "greater")),
             ("whole-domain initialisation above FTS-DE", compare(ev_runs, {}, runs, ref, "greater"))]
    w(f"Here, in regret area, a = the ablation, b = FTS-DE, a above b: {chain_text(steps)} — "
      f"both ablations worse: {word(combine(r['verdict'] for _, r in steps))}.")
    w("")
    img(f"dp-fts-de-fig5{v.sfx}/regret.png",
        "figure 5: simple regret of FTS-DE without each component of DE")
    return [found_chain("5: both ablations of DE worse than FTS-DE", steps)]


def fig6_section(R, w, cmds, img, v):
    """Figure 6: the trade-off in P; left out for results made before it was run."""
    name = f"dp-fts-de-fig6{v.sfx}"
    if not os.path.exists(os.path.join(R, f"{name}.csv")):
        return []
    rows = read_csv(os.path.join(R, f"{name}.csv"))
    key = "algorithm.subregions"
    clip = metric_by_point(os.path.join(R, f"{name}_metrics.csv"), [key], "clipped_percent")
    w(f"## DP-FTS-DE appendix figure 6: the trade-off in P{v.title}")
    w("")
    cmds("fig6" + v.sfx)
    w("Paper (appendix B.1.2): at q = 0.25, z = 1, S = 11, a smaller P (larger sub-regions, "
      "harder for an agent's GP to model) may make DP-FTS-DE worse, and a larger P may too, since "
      "more vectors are clipped (the bound on each sub-region's vector is S / √P). The paper "
      "does not give its values of P; fedsim runs P = 1 (no DE: DP-FTS) to 4 around figure 2's "
      "P = 2. **Clipped**: the percentage of the selected vectors clipped (as in figure 4).")
    w("")
    w("| P | runs | clipped (%) | regret area | final simple regret |")
    w("|---|---|---|---|---|")
    for r in rows:
        w(f"| {r[key]} | {r['runs']} | {pm(*clip[(r[key],)], 2)} | {cells(r)} |")
    w("")
    runs = os.path.join(R, f"{name}_runs.csv")
    ps = sorted({r[key] for r in rows}, key=int)
    ref = {key: "2"}
    smaller = compare(runs, {key: ps[0]}, runs, ref, "greater")
    larger = compare(runs, {key: ps[-1]}, runs, ref, "greater")
    clip_runs, _ = run_metrics_table(R, name, ["clipped_percent"])
    clipping = [(f"P = {b} above P = {a}", compare(clip_runs, {key: b}, clip_runs, {key: a},
                                                   "greater", "clipped_percent"))
                for a, b in zip(ps, ps[1:])]
    w(f"In regret area, b = P = 2: a = P = {ps[0]} above b: {judged(smaller)}; a = P = {ps[-1]} "
      f"above b: {judged(larger)} — the trade-off (both worse than P = 2): "
      f"{word(combine([smaller['verdict'], larger['verdict']]))}. The clipped percentage grows "
      f"with P, each step: {chain_text(clipping)} — "
      f"{word(combine(r['verdict'] for _, r in clipping))}.")
    w("")
    img(f"dp-fts-de-fig6{v.sfx}/regret.png", "figure 6: simple regret of DP-FTS-DE for each P")
    return [found_chain("6: P = 2 below both the smallest and the largest P",
                        [(f"P = {ps[0]} above P = 2", smaller), (f"P = {ps[-1]} above P = 2", larger)]),
            found_chain("6: a larger P clips more", clipping)]


def fig7_section(R, w, cmds, img, v):
    a = read_csv(os.path.join(R, f"dp-fts-de-fig7a{v.sfx}.csv"))
    b = read_csv(os.path.join(R, f"dp-fts-de-fig7b{v.sfx}.csv"))
    fast = read_csv(os.path.join(R, f"dp-fts-de-fig7b-fast{v.sfx}.csv"))
    w(f"## DP-FTS-DE appendix figure 7: heterogeneous agents{v.title}")
    w("")
    cmds("fig7" + v.sfx)
    w("Paper (appendix B.1.2): with agent i's objective α f^i + (1 − α) f_base (N = 50 agents, "
      "f^i independent GP samples), (a) at α = 0.7 FTS-DE still outperforms standard TS, though "
      "by much less than in figure 2; (b) at α = 1.0 (independent objectives) FTS-DE with "
      "1 − p_t = 1/√t performs worse than TS, and a 1 − p_t that decreases faster makes it "
      "comparable with TS (the main text: letting 1 − p_t decrease faster \"can improve the "
      "performance of FTS-DE in this scenario\"). The paper does not say which faster schedule; "
      "both of fedsim's, 1/t and 1/t², are run. Scenario: `scenarios/papers/dp-fts-de-fig7.toml`. "
      "**Comparable** is the page's equivalence claim (within ±10 % of TS's mean).")
    w("")
    w("| panel | α | algorithm | 1 − p_t | runs | regret area | final simple regret |")
    w("|---|---|---|---|---|---|---|")
    table = [("7a", "0.7", "TS", "–", pick(a, {"algorithm.name": "ts"})),
             ("7a", "0.7", "FTS-DE", "1/√t", pick(a, {"algorithm.name": "fts-de"})),
             ("7b", "1.0", "TS", "–", pick(b, {"algorithm.name": "ts"})),
             ("7b", "1.0", "FTS-DE", "1/√t", pick(b, {"algorithm.name": "fts-de"}))]
    table += [("7b", "1.0", "FTS-DE", r["algorithm.p_schedule"], r) for r in fast]
    for panel, alpha, alg, p, r in table:
        w(f"| {panel} | {alpha} | {alg} | {p} | {r['runs']} | {cells(r)} |")
    w("")
    runs_a = os.path.join(R, f"dp-fts-de-fig7a{v.sfx}_runs.csv")
    runs_b = os.path.join(R, f"dp-fts-de-fig7b{v.sfx}_runs.csv")
    runs_fast = os.path.join(R, f"dp-fts-de-fig7b-fast{v.sfx}_runs.csv")
    runs_2a = os.path.join(R, f"dp-fts-de-fig2a{v.sfx}_runs.csv")
    ts, de = {"algorithm.name": "ts"}, {"algorithm.name": "fts-de"}
    ra = compare(runs_a, de, runs_a, ts, "less")
    r2 = compare(runs_2a, de, runs_2a, ts, "less")

    def rel(r):  # the paired mean difference as a share of b's paired mean
        d = 100.0 * r["mean_difference"] / r["b"]["mean"]
        return f"{abs(d):.0f}% {'below' if d < 0 else 'above'}"

    w(f"(a) α = 0.7, regret area, a = FTS-DE, b = TS, a below b: {judged(ra)}. FTS-DE's paired "
      f"mean is {rel(ra)} TS's here, and {rel(r2)} it in figure 2a (N = 200, perturbed "
      "objectives; descriptive, no verdict).")
    w("")
    rb = compare(runs_b, de, runs_b, ts, "greater")
    found = [found_one("7a: α = 0.7, FTS-DE below TS", ra),
             found_one("7b: α = 1.0, FTS-DE (1/√t) worse than TS", rb)]
    parts = []
    for r in fast:
        sched = r["algorithm.p_schedule"]
        point = {"algorithm.p_schedule": sched}
        lower = compare(runs_fast, point, runs_b, de, "less")
        comparable = equivalent(runs_fast, point, runs_b, ts)
        parts.append(f"with 1 − p_t = {sched}, below FTS-DE with 1/√t: {judged(lower)}; comparable "
                     f"with TS: {judged(comparable)}")
        found += [found_one(f"7b: 1 − p_t = {sched} below 1/√t", lower),
                  found_one(f"7b: 1 − p_t = {sched} comparable with TS", comparable)]
    w(f"(b) α = 1.0, regret area, a = FTS-DE with 1/√t, b = TS, a above b: {judged(rb)}. A faster "
      "1 − p_t (a = FTS-DE with it): " + "; ".join(parts) + ".")
    w("")
    img(f"dp-fts-de-fig7a{v.sfx}/regret.png", "figure 7a: alpha = 0.7, TS and FTS-DE")
    img(f"dp-fts-de-fig7b{v.sfx}/regret.png",
        "figure 7b: alpha = 1.0, TS and FTS-DE with three p_t schedules")
    return found


def fig12_section(R, w, cmds, img, v):
    name, ts_name = f"dp-fts-de-fig12{v.sfx}", f"dp-fts-de-fig12-ts{v.sfx}"
    rows = read_csv(os.path.join(R, f"{name}.csv"))
    ts = read_csv(os.path.join(R, f"{ts_name}.csv"))[0]
    late = metric_by_point(os.path.join(R, f"{name}_metrics.csv"), ["algorithm.temperature"], "late_regret")
    late_ts = metric_by_point(os.path.join(R, f"{ts_name}_metrics.csv"), ["algorithm.name"],
                              "late_regret")[("ts",)]
    metrics = read_csv(os.path.join(R, f"{name}_metrics.csv"))
    k = int(metrics[0]["from_iteration"])
    T = max(int(float(r["x"])) for r in read_csv(os.path.join(R, name, "plot_data.csv"))
            if r["plot"] == "regret")
    w(f"## DP-FTS-DE appendix figure 12a: adaptive against fixed weights{v.title}")
    w("")
    cmds("fig12" + v.sfx)
    w("Paper (appendix B.2.5, synthetic panel): DP-FTS-DE with non-adaptive weights (temperature "
      "fixed at 1, `algorithm.temperature = \"fixed\"`) performs similarly to adaptive weights "
      "(the synthetic schedule) in the initial stage, but as t becomes large the adaptive weights "
      "do better; the non-adaptive weights still consistently outperform standard TS. The "
      "synthetic schedule's weights are uniform from round 10 on (a_t = 1), which the agents use "
      f"from iteration 11. Per run, the **late regret** is the mean of its mean simple regret over "
      f"iterations {k}..{T} (`{name}_metrics.csv`), and the **early regret** the mean over "
      f"iterations 0..{k - 1}, ({T + 1} · regret area − {T + 1 - k} · late regret) / {k}; the "
      "table shows their means ± standard error over seeds.")
    w("")

    def early_rows(metric_rows, runs_path, grid):
        area = {(r[grid], r["seed"]): float(r["regret_area"]) for r in read_csv(runs_path)}
        return [{grid: r[grid], "seed": r["seed"], "late_regret": float(r["late_regret"]),
                 "early_regret": ((T + 1) * area[(r[grid], r["seed"])]
                                  - (T + 1 - k) * float(r["late_regret"])) / k}
                for r in metric_rows]

    runs = os.path.join(R, f"{name}_runs.csv")
    ts_runs = os.path.join(R, f"{ts_name}_runs.csv")
    temp = "algorithm.temperature"
    per_run = early_rows(metrics, runs, temp)
    per_run_ts = early_rows(read_csv(os.path.join(R, f"{ts_name}_metrics.csv")), ts_runs,
                            "algorithm.name")
    table = metric_table(name + "-early-late", per_run, [temp], ["early_regret", "late_regret"])
    table_ts = metric_table(ts_name + "-early-late", per_run_ts, ["algorithm.name"],
                            ["early_regret", "late_regret"])
    early = {t: mean_se([r["early_regret"] for r in per_run if r[temp] == t])
             for t in ("synthetic", "fixed")}
    early_ts = mean_se([r["early_regret"] for r in per_run_ts])
    w(f"| weights | runs | regret area | early regret (0..{k - 1}) | late regret ({k}..{T}) | final simple regret | ε |")
    w("|---|---|---|---|---|---|---|")
    titles = {"synthetic": "adaptive (synthetic schedule)", "fixed": "non-adaptive (temperature 1)"}
    for r in rows:
        t = r[temp]
        w(f"| {titles[t]} | {r['runs']} | {pm(*stat(r))} | {pm(*early[t])} | {pm(*late[(t,)])} | "
          f"{pm(*stat(r, 'mean_final_simple_regret'))} | {num(r['epsilon_mean']):.2f} |")
    w(f"| standard TS | {ts['runs']} | {pm(*stat(ts))} | {pm(*early_ts)} | {pm(*late_ts)} | "
      f"{pm(*stat(ts, 'mean_final_simple_regret'))} | – |")
    w("")
    adaptive, fixed = {temp: "synthetic"}, {temp: "fixed"}
    # The synthetic schedule's temperature is 1, the fixed one's, in rounds 0..6 (a_t = a + 1,
    # engine/fbo/schedules.cpp), so iterations 0..7 coincide by construction.
    similar = equivalent(table, fixed, table, adaptive, "early_regret")
    lower_late = compare(table, adaptive, table, fixed, "less", "late_regret")
    below_ts = [("regret area", compare(runs, fixed, ts_runs, {}, "less")),
                ("late regret", compare(table, fixed, table_ts, {}, "less", "late_regret"))]
    w("The two schedules give the same temperature in rounds 0..6, so their runs coincide by "
      f"construction over iterations 0..7. Similar early (a = fixed, b = adaptive, early regret, "
      f"equivalent within ±10 % of the adaptive mean): {judged(similar)}. Adaptive lower late "
      f"(a = adaptive, b = fixed, late regret, a below b): {judged(lower_late)}. Fixed weights "
      f"below TS (a = fixed, b = TS, a below b; the paper's \"consistently\" read as over the "
      f"whole run and over its late part, since the runs' per-iteration curves are not kept): "
      f"{chain_text(below_ts)} — both: {word(combine(r['verdict'] for _, r in below_ts))}.")
    w("")
    img(f"dp-fts-de-fig12{v.sfx}/regret.png",
        "figure 12a: DP-FTS-DE with adaptive and fixed weights, and TS")
    return [found_one("12a: adaptive and fixed weights similar early", similar),
            found_one("12a: adaptive weights lower late", lower_late),
            found_chain("12a: fixed weights below TS (whole run and late)", below_ts)]

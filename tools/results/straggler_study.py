"""The straggler study on the results page (beyond the papers): DP-FTS-DE under the four round
policies and Fed-PNE under sync and deadline, with stragglers, crashes and message loss."""
import math
import os

from .common import compare, equivalent, interval, mean_se, metric_table, num, pm, read_csv, word

STUDY_CONDITIONS = [
    ("study-slow10", "Persistent stragglers: 10% of the agents slow",
     "`world.network.groups[0].fraction = 0.1`"),
    ("study-slow30", "Persistent stragglers: 30% of the agents slow",
     "`world.network.groups[0].fraction = 0.3` (the base file)"),
    ("study-slow50", "Persistent stragglers: 50% of the agents slow",
     "`world.network.groups[0].fraction = 0.5`"),
    ("study-crash10", "Crashes: 10% of the agents crash-stop at t = 20 s",
     "`world.network.crashes = [{fraction = 0.1, time = 20.0, recover = inf}]`, 30% slow"),
    ("study-crash30", "Crashes: 30% of the agents crash-stop at t = 20 s",
     "`world.network.crashes = [{fraction = 0.3, time = 20.0, recover = inf}]`, 30% slow"),
    ("study-drop5", "Message loss: 5% of the messages dropped",
     "`world.network.drop = 0.05`, 30% slow"),
]
POLICIES = ["sync", "deadline", "quorum", "async"]


def tally(results, of=""):
    """'a reproduced, b contradicted, c undecided (of n OF)' of compare results."""
    n = {v: sum(r["verdict"] == v for r in results) for v in ("reproduced", "contradicted", "undecided")}
    return (f"{n['reproduced']} reproduced, {n['contradicted']} contradicted, {n['undecided']} "
            f"undecided (of {len(results)}{' ' + of if of else ''})")


def cell(r, digits=3):
    """A table cell: the verdict, then a − b, its interval and n."""
    return f"{word(r['verdict'])}: {interval(r, digits)}"


FED_PNE_CONDITIONS = [
    ("slow10", "10% slow"), ("slow30", "30% slow"), ("slow50", "50% slow"),
    ("crash10", "10% crash at 60 s"), ("crash30", "30% crash at 60 s"), ("drop5", "5% loss"),
]


def study_section(R, meta, w, cmds, img):
    """The straggler study: DP-FTS-DE per condition, then the Fed-PNE part. Returns False, having
    written nothing, when no DP-FTS-DE condition was run."""
    present = [c for c in STUDY_CONDITIONS
               if os.path.exists(os.path.join(R, f"{c[0]}_metrics.csv"))]
    if not present:
        return False
    w("## Stragglers, crashes and message loss (beyond the papers)")
    w("")
    w("The papers run on a perfect network; DP-FTS-DE section 7 leaves unequal network "
      "capabilities to future work. This study runs DP-FTS-DE on "
      "`scenarios/stragglers/study/base.toml` — N = 100 agents, T = 30 iterations, the paper's "
      "M = 50, P = 2, q = 0.25, z = 1, S = 11; lognormal compute per step (median 0.22 s) and "
      "lognormal links (median 0.05 s), a group of persistent stragglers whose compute is 4x "
      "slower — under the four round policies: **sync** (wait for every live agent, 10 s round "
      "timeout, an agent missing 3 rounds in a row is presumed dead), **deadline** (aggregate "
      "what arrived within 1 s; late vectors dropped), **quorum** (the first 70% of the agents, "
      "3 s fallback) and **async** (aggregate every 25 arrivals, weight 1/(1 + s), at most 5 "
      "rounds stale). Each condition is one `fedsim sweep` over the policies with "
      f"{meta.get('study_seeds', '?')} seeds; its commands are under its heading."
      + (" Fed-PNE under its two policies, sync and deadline, follows at the end of the section."
         if os.path.exists(os.path.join(R, "study-fed-pne_metrics.csv")) else ""))
    w("")
    judged_pairs = {}
    thr = None
    for name, _, _ in present:
        for r in read_csv(os.path.join(R, f"{name}_metrics.csv")):
            thr = float(r["threshold"])
            break
    w("Columns: **final regret** is the agents' mean simple regret after iteration T "
      "(`mean_final_simple_regret` of `summary.json`). **Time to threshold** is the first virtual "
      f"time t (seconds) at which (1/N) Σ_n r_n(t) < {thr}, where r_n(t) is the `simple_regret` "
      "of agent n's latest row of `observations.csv` with `time` ≤ t (a crashed agent keeps its "
      "last value, so crashes count against every policy alike), N being the agents that have any "
      "row in `observations.csv`; the mean is defined once each of these has an observation "
      "(**silent agents** counts agents that never observed anything — an agent whose kickoff "
      "is lost starts on the first broadcast it receives, so this should stay 0 — and "
      "`summary.json`'s final regret excludes them too). It is averaged over the seeds that reached the threshold; "
      "'never' if none did, and '(k of n)' when only some did. **ε** is the privacy loss "
      "actually spent (`epsilon` of `summary.json`, moments accountant, δ = N^-1.1: every "
      "release charged to every agent); **per-agent ε** is each agent's own, charged only for "
      "the releases its report took part in (`epsilon_per_agent` of `summary.json`: the mean "
      "over seeds of the smallest, the median and the largest; `docs/privacy.md`, \"Per-agent "
      "privacy\", says when this is valid), and "
      "**releases** the number of private aggregates the server released (`private_releases`): "
      "sync releases one per iteration, but under deadline, quorum and async the server's rounds "
      "are driven by time or arrivals, not by the agents' iterations, so it releases more rounds "
      "than iterations and spends more ε. **Dropped** counts the network's dropped messages "
      "(lost ones, and those sent to or from crashed agents). **Virtual time** is when the run "
      "ended.")
    w("")
    summary = {}
    for name, title, setting in present:
        w(f"### {title}")
        w("")
        w(f"Condition: {setting}.")
        w("")
        cmds(name)
        rows = read_csv(os.path.join(R, f"{name}_metrics.csv"))
        w("| policy | runs | final regret | time to threshold (s) | ε | per-agent ε (min / median / max) | releases | dropped | silent agents | virtual time (s) |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        res = {}
        for pol in POLICIES:
            rr = [r for r in rows if r["policy"] == pol]
            if not rr:
                continue
            fr = mean_se([num(r["mean_final_simple_regret"]) for r in rr])
            tt = [num(r["time_to_threshold"]) for r in rr]
            reached = [x for x in tt if not math.isnan(x)]
            t = mean_se(reached)
            eps = mean_se([num(r["epsilon"]) for r in rr])
            releases = mean_se([num(r["private_releases"]) for r in rr])
            dr = mean_se([num(r["messages_dropped"]) for r in rr])
            vt = mean_se([num(r["virtual_time"]) for r in rr])
            silent = mean_se([num(r["agents"]) - num(r["agents_observing"]) for r in rr])
            if not reached:
                tcell = "never"
            else:
                tcell = pm(*t, 1) + ("" if len(reached) == len(rr) else f" ({len(reached)} of {len(rr)})")
            res[pol] = dict(fr=fr, t=t, reached=len(reached), n=len(rr), eps=eps, rel=releases,
                            iters=int(num(rr[0]["iterations"])), vt=vt, dr=dr, silent=silent[0])
            agent_eps = [mean_se([num(r.get(f"epsilon_agent_{k}", "")) for r in rr])[0]
                         for k in ("min", "median", "max")]
            agent_cell = " / ".join("–" if math.isnan(x) else f"{x:.2f}" for x in agent_eps)
            w(f"| {pol} | {len(rr)} | {pm(*fr)} | {tcell} | {pm(*eps, 2)} | {agent_cell} | {releases[0]:.1f} | "
              f"{dr[0]:.0f} | {silent[0]:.1f} | {pm(*vt, 1)} |")
        w("")
        summary[name] = res
        # Each policy paired against sync, seed by seed (a = the policy, b = sync): sooner to
        # the threshold (time_to_threshold, of the metrics CSV), a final regret comparable
        # with sync's, and more ε (both of the runs table).
        runs = os.path.join(R, f"{name}_runs.csv")
        times = metric_table(f"{name}-times", rows, ["policy"], ["time_to_threshold"])
        paired = {}
        for pol in [p for p in res if p != "sync"]:
            if "sync" not in res:
                break
            paired[pol] = dict(
                time=compare(times, {"policy": pol}, times, {"policy": "sync"}, "less",
                             "time_to_threshold"),
                regret=equivalent(runs, {"policy.kind": pol}, runs, {"policy.kind": "sync"},
                                  "mean_final_simple_regret"),
                eps=compare(runs, {"policy.kind": pol}, runs, {"policy.kind": "sync"}, "greater",
                            "epsilon"))
        judged_pairs[name] = paired
        if paired:
            w(f"Each policy against sync, paired by seed (a = the policy, b = sync): sooner to "
              f"regret < {thr} (time to threshold, a below b; a seed on which either never "
              "reached it is left out, so n may be smaller), a final regret comparable with "
              "sync's (within ±10 % of sync's mean), and more ε (a above b).")
            w("")
            w("| policy | sooner to the threshold | final regret comparable | more ε |")
            w("|---|---|---|---|")
            for pol, x in paired.items():
                w(f"| {pol} | {cell(x['time'], 3)} | {cell(x['regret'])} | {cell(x['eps'])} |")
            w("")
        txt = ""
        never = [p for p in res if res[p]["reached"] < res[p]["n"]]
        if never:
            txt += "Not reached in every seed: " + ", ".join(
                f"{p} ({res[p]['reached']} of {res[p]['n']})" for p in never) + ". "
        if any(res[p]["silent"] > 0 for p in res):
            txt += ("Some agents never observed anything (silent agents, a mean over seeds): "
                    "the final regret and the time to threshold are over the agents that did. ")
        if "sync" in res and res["sync"]["rel"][0] > res["sync"]["iters"]:
            txt += (f"Sync released {res['sync']['rel'][0]:.1f} rounds for "
                    f"{res['sync']['iters']} iterations here (a lost report holds a sync round until "
                    "its 10 s timeout, which closes it without that agent; the agent then reports "
                    "for a round that is already over, so rounds and iterations drift apart), so "
                    "even sync spends extra ε and virtual time. ")
        if txt:
            w(txt.strip())
            w("")
        img(f"{name}/regret.png", f"{title}: simple regret by iteration per policy")
        img(f"{name}/regret_time.png", f"{title}: simple regret against virtual time per policy")
        img(f"{name}/stragglers.png", f"{title}: late and dropped reports per round (sync, "
            "deadline, quorum)")
        img(f"{name}/too_stale.png", f"{title}: async, vectors dropped as too stale per aggregation")
        img(f"{name}/alive.png", f"{title}: agents alive against virtual time per policy")
    # Overall reading, computed from the tables.
    w("### Reading (DP-FTS-DE)")
    w("")
    k = len(summary)
    every = [x for paired in judged_pairs.values() for x in paired.values()]
    lines = []
    lines.append(f"- **Regret.** A final regret comparable with sync's (within ±10 %), over the "
                 f"(policy, condition) pairs of the {k} conditions: "
                 f"{tally([x['regret'] for x in every], 'pairs')}. Under crashes the slower policies look "
                 "worse: the crash time is in virtual time, so a crashed agent is frozen after "
                 "fewer iterations under sync (about 3 s an iteration) than under the others "
                 "(about 1.5 s), and its frozen regret stays in the mean (`summary.json` averages "
                 "every agent that observed).")
    lines.append(f"- **Time.** Sooner than sync to the threshold: {tally([x['time'] for x in every], 'pairs')}. "
                 "Sync's rounds last as long as its slowest live agent (and, with message loss or "
                 "crashes, until the round timeout), so its virtual time grows with the stragglers; "
                 "the others do not wait for them.")
    e = {p: mean_se([summary[n][p]["eps"][0] for n in summary if p in summary[n]])[0] for p in POLICIES}
    rl = {p: mean_se([summary[n][p]["rel"][0] for n in summary if p in summary[n]])[0] for p in POLICIES}
    lines.append(f"- **Privacy.** More ε than sync: {tally([x['eps'] for x in every], 'pairs')}. "
        "ε averaged over the conditions: " + ", ".join(
        f"{p} {e[p]:.2f} ({rl[p]:.0f} releases)" for p in POLICIES if not math.isnan(e[p]))
        + f", for T = {next(iter(summary.values()))['sync']['iters']} iterations. Every release "
        "is one more subsampled Gaussian step for the accountant, so the policies that do not "
        "wait pay for their speed in ε; sync's ε is that of T releases except where messages "
        "are lost (see the message-loss table).")
    slow = {}
    for n in ("study-slow10", "study-slow30", "study-slow50"):
        if n in summary:
            slow[n] = {r["seed"]: r["mean_final_simple_regret"]
                       for r in read_csv(os.path.join(R, f"{n}_runs.csv")) if r["policy.kind"] == "sync"}
    if len(slow) > 1 and all(v == next(iter(slow.values())) for v in slow.values()):
        lines.append("- **Sync is timing-invariant** (exact): its final regret is the same, seed by "
                     "seed and to the last digit, with 10%, 30% and 50% stragglers: it waits for "
                     "every agent, so the stragglers change only when things happen, not what is "
                     "computed. The other policies trade that for time.")
    for l in lines:
        w(l)
    w("")
    fed_pne_study_section(R, meta, w, cmds)
    return True


def fed_pne_study_section(R, meta, w, cmds):
    """The Fed-PNE part of the straggler study, from study-fed-pne_metrics.csv."""
    path = os.path.join(R, "study-fed-pne_metrics.csv")
    if not os.path.exists(path):
        return
    rows = read_csv(path)
    T = int(rows[0]["budget"])
    M = int(rows[0]["clients"])
    w("### Fed-PNE under sync and deadline")
    w("")
    w("Fed-PNE's server closes a phase under **sync** (wait for every client not presumed dead, "
      "at most 0.25 s per pull of the phase; a client missing 3 phases in a row is presumed dead "
      "until it reports again) or **deadline** (close 0.025 s per pull of the phase after the "
      "broadcast with the clients that reported; the others are left out of that phase's means); "
      "quorum and async would bias its elimination and are refused. The base file "
      "`scenarios/stragglers/study/fed-pne.toml` is the paper's Garland setting "
      f"(M = {M} clients, T = {T} pulls per client, appendix E.1.5 defaults) on the network of "
      "`scenarios/xarmed/stragglers-garland.toml`: lognormal compute (median 0.01 s a pull) and "
      "links (median 7 ms), a slow group 4x slower (30% unless the condition says otherwise). "
      "The deadline lies between the fast clients' 0.011 s a pull and the slow ones' 0.045 s. "
      "The conditions are those of the DP-FTS-DE study above but for the crash time, 60 s"
      + (" (before any client has made its T pulls: see the mean finish column)"
         if min(num(r["finish_mean"]) for r in rows if r["finish_mean"]) > 60 else "")
      + ". Each condition runs as "
      "Fed-PNE and as DP-Fed-PNE (ε = 1, δ = 1/M), "
      f"{meta.get('xarmed_seeds', '?')} seeds each:")
    w("")
    cmds("study-fed-pne")
    w(f"Columns (means ± standard error over seeds): **finished** is the clients that made all "
      f"T = {T} pulls; **regret** the cumulative regret per client over those clients (a crashed "
      "client's regret covers only its pulls before the crash; `summary.json`'s average over "
      "every client is the last column); **phases** the phases the server closed (`phases.csv`; "
      "the last phase is cut by the budget and never closed); **excluded** the clients left out "
      "of a closed phase (expected but not reported), summed over phases, and **late** the "
      "reports that arrived after their phase closed; **mean finish** the mean virtual time at "
      "which a finishing client made its last pull, and **end** the last pull of the run "
      "(`virtual_time` of `summary.json`); **dropped** the network's dropped messages.")
    w("")
    res = {}
    for algo, title in (("fed-pne", "Fed-PNE"), ("dp-fed-pne", "DP-Fed-PNE (ε = 1)")):
        sel = [r for r in rows if r["algorithm"] == algo]
        if not sel:
            continue
        w(f"**{title}**")
        w("")
        w("| condition | policy | runs | finished | regret | phases | excluded | late | mean finish (s) | end (s) | dropped | average over all clients |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for cond, label in FED_PNE_CONDITIONS:
            for pol in ("sync", "deadline"):
                rr = [r for r in sel if r["condition"] == cond and r["policy"] == pol]
                if not rr:
                    continue
                g = lambda k: mean_se([num(r[k]) for r in rr])
                x = dict(fin=g("clients_finished"), reg=g("regret_finished"),
                         ph=g("phases_closed"), ex=g("excluded"), late=g("late"),
                         fm=g("finish_mean"), vt=g("virtual_time"), dr=g("messages_dropped"),
                         avg=g("average_cumulative_regret"), pulls=g("pulls_mean"),
                         regs=[num(r["regret_finished"]) for r in rr],
                         eps=[num(r["epsilon"]) for r in rr], n=len(rr))
                res[(algo, cond, pol)] = x
                w(f"| {label} | {pol} | {len(rr)} | {x['fin'][0]:.1f} | {pm(*x['reg'], 1)} | "
                  f"{x['ph'][0]:.1f} | {x['ex'][0]:.1f} | {x['late'][0]:.1f} | {pm(*x['fm'], 1)} | "
                  f"{pm(*x['vt'], 1)} | {x['dr'][0]:.1f} | {pm(*x['avg'], 1)} |")
        w("")

    # Deadline against sync, paired by seed (a = deadline, b = sync), per algorithm and condition.
    table = metric_table("study-fed-pne", rows, ["condition", "algorithm", "policy"],
                         ["regret_finished", "finish_mean", "virtual_time", "pulls_mean"])

    def point(algo, cond, pol):
        return {"condition": cond, "algorithm": algo, "policy": pol}

    def both(algo):
        return [c for c, _ in FED_PNE_CONDITIONS
                if (algo, c, "sync") in res and (algo, c, "deadline") in res]

    paired = {}
    for algo, title in (("fed-pne", "Fed-PNE"), ("dp-fed-pne", "DP-Fed-PNE (ε = 1)")):
        conds = both(algo)
        if not conds:
            continue
        for c in conds:
            a, b = point(algo, c, "deadline"), point(algo, c, "sync")
            paired[(algo, c)] = dict(
                reg=equivalent(table, a, table, b, "regret_finished"),
                fm=compare(table, a, table, b, "less", "finish_mean"),
                vt=compare(table, a, table, b, "less", "virtual_time"))
        w(f"**{title}: deadline against sync**, paired by seed (a = deadline, b = sync): a regret "
          "per finishing client comparable with sync's (within ±10 % of sync's mean), the "
          "finishing clients done sooner (mean finish, a below b), and the run ending sooner "
          "(end, a below b).")
        w("")
        w("| condition | regret comparable | mean finish sooner | end sooner |")
        w("|---|---|---|---|")
        labels = dict(FED_PNE_CONDITIONS)
        for c in conds:
            x = paired[(algo, c)]
            w(f"| {labels[c]} | {cell(x['reg'])} | {cell(x['fm'])} | {cell(x['vt'])} |")
        w("")

    def ratio_range(algo, key):
        v = [(res[(algo, c, "deadline")][key][0] / res[(algo, c, "sync")][key][0], c)
             for c in both(algo)]
        return min(v), max(v)

    lines = []
    conds = both("fed-pne")
    if conds:
        x = [paired[("fed-pne", c)] for c in conds]
        lines.append(
            f"- **Regret (Fed-PNE).** Deadline's regret per finishing client comparable with "
            f"sync's: {tally([r['reg'] for r in x], 'conditions')}"
            + (" — " + ", ".join(f"{c} {r['reg']['verdict']}" for c, r in zip(conds, x)) + ".")
            + (" Leaving the slow clients out of a phase's means puts fewer pulls behind each "
               "elimination, while the slow clients themselves jump to the newest phase when "
               "they are done with an old one."
               if any(r["reg"]["verdict"] == "contradicted" for r in x) else ""))
        (flo, fc), (fhi, fc2) = ratio_range("fed-pne", "fm")
        (elo, ec), (ehi, ec2) = ratio_range("fed-pne", "vt")
        lines.append(
            f"- **Time (Fed-PNE).** The finishing clients done sooner under deadline: "
            f"{tally([r['fm'] for r in x])}; the run ending sooner: {tally([r['vt'] for r in x])}. "
            f"Descriptively, deadline's mean finish is {flo:.2f}x ({fc}) to {fhi:.2f}x ({fc2}) "
            f"sync's, and its end {elo:.2f}x ({ec}) to {ehi:.2f}x ({ec2}) sync's."
            + (" Every client owes T pulls whatever the policy, so a slow client's own compute "
               "bounds the end of the run; what deadline saves is the fast clients' waiting for "
               "the slow ones at every phase, and, with crashes and losses, sync's timeouts."
               if fhi <= 1.0 else ""))
        lines.append(
            "- **Excluded clients (Fed-PNE).** Client-phases left out per run, deadline against "
            "sync: " + ", ".join(f"{c} {res[('fed-pne', c, 'deadline')]['ex'][0]:.1f} against "
                                 f"{res[('fed-pne', c, 'sync')]['ex'][0]:.1f}" for c in conds)
            + ". Sync leaves out only clients it does not hear from within its timeout (crashed, "
            "or a lost broadcast or report); deadline also the slow ones.")
    crash = [c for c in conds if c.startswith("crash")]
    if crash:
        parts = []
        for c in crash:
            cells = []
            for pol in ("sync", "deadline"):
                x = res[("fed-pne", c, pol)]
                crashed = M - x["fin"][0]
                pulls = (M * x["pulls"][0] - x["fin"][0] * T) / crashed if crashed > 0 else float("nan")
                cells.append(f"{pulls:.0f} ({pol})")
            further = compare(table, point("fed-pne", c, "deadline"), table,
                              point("fed-pne", c, "sync"), "greater", "pulls_mean")
            parts.append(f"{c}: " + " and ".join(cells) + "; the mean pulls per client higher "
                         f"under deadline (a = deadline, b = sync): {word(further['verdict'])} "
                         f"({interval(further)})")
        lines.append(
            "- **Crashes.** Pulls a crashed client had made when it crashed at 60 s, Fed-PNE "
            "(means over seeds): " + "; ".join(parts) + f", of T = {T}. The phases go faster "
            "under deadline, so a client may get further before it crashes.")
    if ("fed-pne", "drop5", "sync") in res:
        fins = [int(r["clients_finished"]) for r in rows if r["condition"] == "drop5"]
        short = sum(f < M for f in fins)
        lines.append(
            "- **Message loss.** A client whose copy of a phase is lost waits for the next phase, "
            "and the server sends the current phase again to the clients it still expects when "
            "the phase's timer fires with nothing to close (the last phase, never reported, has "
            "no next one). With 5% of the messages lost "
            + (f"all {M} clients made all their pulls in every run."
               if short == 0 else
               f"{short} of {len(fins)} runs ended with a client short of its budget "
               f"({min(fins)} of {M} finishing at worst)."))
    dconds = both("dp-fed-pne")
    if dconds:
        spread = [max(x["regs"]) / min(x["regs"]) for (a, _, _), x in res.items()
                  if a == "dp-fed-pne" and len(x["regs"]) > 1 and min(x["regs"]) > 0]
        txt = "- **DP-Fed-PNE.** "
        if spread:
            txt += (f"Its regret varies up to {max(spread):.1f}-fold between seeds of one "
                    "condition and policy (every reward carries Gaussian noise calibrated to the "
                    "run's ε, against Garland's values in [0, 1]), and ")
        txt += ("deadline's regret per finishing client comparable with sync's: "
                f"{tally([paired[('dp-fed-pne', c)]['reg'] for c in dconds], 'conditions')}.")
        eps = sorted({round(e, 6) for (a, _, _), x in res.items() if a == "dp-fed-pne"
                      for e in x["eps"] if not math.isnan(e)})
        if eps:
            txt += (" ε over every run: " + ", ".join(f"{e:g}" for e in eps)
                    + (" — the same whatever the policy and condition: the guarantee is per "
                       "reward (Gaussian noise on every reward, each node's mean released once, "
                       "Remark D.1), so stragglers, exclusions and losses do not spend more."
                       if len(eps) == 1 else "."))
        lines.append(txt)
    if lines:
        w("Readings:")
        w("")
        for l in lines:
            w(l)
        w("")

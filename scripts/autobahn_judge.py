"""Reads kosoku's Autobahn reports (each folder's index.json) and judges them for scripts/autobahn.

    python autobahn_judge.py FOLDER...            counts per agent; exit 1 on any FAILED or UNIMPLEMENTED case, or a
                                                  NON-STRICT case not listed below with its reason
    python autobahn_judge.py --speed FOLDER...    group 9's times (the server's own, per case) per sub-group and
                                                  agent: median of the rounds, spread, and Konex's ratio
"""
import collections
import json
import statistics
import sys
from pathlib import Path

# Where Konex is NON-STRICT, and why RFC 6455 allows it. Anything else NON-STRICT fails the run.
FAILS_AT_THE_FRAME = (
    "the bad frame comes in the same read as the message before it; Konex fails the connection as it reads the bad "
    "frame (RFC 6455 §5.2 and §7.1.7: an endpoint receiving it MUST fail the connection), which is before the app has "
    "echoed the earlier message. The app still receives that message; only the echo the case hopes for is not sent"
)
WHOLE_FRAMES = (
    "the invalid UTF-8 arrives in chops of a single frame; SwiftNIO's frame decoder hands over whole frames, so the "
    "text is refused when its frame is complete rather than at the byte (RFC 6455 §8.1 requires the failure, not "
    "its timing; fragments are checked as each arrives, so 6.4.1 and 6.4.2 are strict)"
)
NON_STRICT_ALLOWED = {
    "3.2": FAILS_AT_THE_FRAME, "3.3": FAILS_AT_THE_FRAME, "3.4": FAILS_AT_THE_FRAME,
    "4.1.3": FAILS_AT_THE_FRAME, "4.1.4": FAILS_AT_THE_FRAME, "4.1.5": FAILS_AT_THE_FRAME,
    "4.2.3": FAILS_AT_THE_FRAME, "4.2.4": FAILS_AT_THE_FRAME, "4.2.5": FAILS_AT_THE_FRAME,
    "5.15": FAILS_AT_THE_FRAME,
    "6.4.3": WHOLE_FRAMES, "6.4.4": WHOLE_FRAMES,
}


def key(case):
    return [int(part) for part in case.split(".")]


def load(folder):
    index = Path(folder) / "index.json"
    if not index.exists():
        sys.exit(f"autobahn: no reports in {folder} (the client or the server stopped early; see {folder}.server.log)")
    return json.loads(index.read_text())


def judge(folders):
    bad = []
    for folder in folders:
        for agent, cases in load(folder).items():
            counts = collections.Counter()
            for case, result in sorted(cases.items(), key=lambda item: key(item[0])):
                behavior, close = result["behavior"], result["behaviorClose"]
                counts[behavior] += 1
                if behavior in ("FAILED", "UNIMPLEMENTED") or close in ("FAILED", "UNIMPLEMENTED"):
                    bad.append(f"{agent} {case}: behavior {behavior}, close {close}")
                elif behavior == "NON-STRICT" and case not in NON_STRICT_ALLOWED:
                    bad.append(f"{agent} {case}: NON-STRICT, and no reason is written down for it")
            listed = ", ".join(f"{name} {counts[name]}" for name in ("OK", "NON-STRICT", "INFORMATIONAL", "FAILED",
                                                                      "UNIMPLEMENTED"))
            print(f"autobahn {agent}: {sum(counts.values())} cases: {listed}")
    for line in bad:
        print(f"autobahn: {line}", file=sys.stderr)
    if bad:
        sys.exit(1)


def speed(folders):
    # times[agent][sub-group] = [total ms per round]
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    for folder in folders:
        for agent, cases in load(folder).items():
            totals = collections.Counter()
            for case, result in cases.items():
                totals[".".join(case.split(".")[:2])] += result["duration"]
            totals["all"] = sum(totals.values())
            for group, total in totals.items():
                times[agent][group].append(total)
    agents = [agent for agent in ("Konex", "Konex-on-loop", "python-websockets") if agent in times]
    peer = "python-websockets"
    rounds = len(times[agents[0]]["all"])
    print(f"| group 9, ms (median of {rounds}, min–max) | " + " | ".join(agents)
          + "".join(f" | {agent} ÷ python" for agent in agents if agent != peer) + " |")
    print("|" + " --- |" * (1 + 2 * len(agents) - 1))
    for group in sorted(times[agents[0]], key=lambda g: (g == "all", g)):
        cells = [f"{statistics.median(times[a][group]):.0f} ({min(times[a][group])}–{max(times[a][group])})"
                 for a in agents]
        python = statistics.median(times[peer][group]) if peer in times else None
        ratios = [f"{statistics.median(times[a][group]) / max(1, python):.2f}×" for a in agents
                  if a != peer and python is not None]
        print(f"| {group} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    if sys.argv[1] == "--speed":
        speed(sys.argv[2:])
    else:
        judge(sys.argv[1:])

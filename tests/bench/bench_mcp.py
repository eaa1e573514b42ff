"""Tool-call overhead through MCP: one tool call in-process, over stdio (the bundled server) and over
streamable HTTP (the same tools, an SDK server on 127.0.0.1 in a child process), side by side in
one run; and a server's start-up time (connect + handshake + tools/list).

    python tests/bench/bench_mcp.py [--calls 300] [--rounds 5] [--starts 5]

Each round times `--calls` calls of `weather(city="Beijing")` through `ToolRegistry.run` — the path
a pattern takes — on each of the three, the three taking turns so drift hits all alike. Figures are
per call: the median over rounds of each round's median, and the spread (p10-p90 over all calls).
Target: stdio adds at most 5 ms over in-process at p50.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench._util import REPO, machine, met, table

HTTP_SERVER = """
import sys, uvicorn
from agent_core.mcp.bundled_server import build_server
uvicorn.run(build_server("en").streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="error")
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _times(run, calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        obs = run("weather", {"city": "Beijing"})
        out.append(time.perf_counter() - t0)
        assert not obs.is_error, obs.output
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()

    from agent_core import mock_tools
    from agent_core.mcp import client as mc
    from agent_core.mcp import servers

    inproc = mock_tools.registry(["weather"])
    port = _port()
    http_proc = subprocess.Popen([sys.executable, "-c", HTTP_SERVER, str(port)], cwd=REPO)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), 0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        stdio = mc.Connection(servers.bundled("en", ("weather",))).start()
        http = mc.Connection(mc.parse_server(url)).start()
        regs = {
            "in-process": inproc,
            "stdio (bundled server)": mc.registry([stdio])[0],
            "streamable HTTP (127.0.0.1)": mc.registry([http])[0],
        }
        for reg in regs.values():
            _times(reg.run, 30)  # warm-up
        per_round: dict[str, list[float]] = {k: [] for k in regs}
        every: dict[str, list[float]] = {k: [] for k in regs}
        for _ in range(args.rounds):
            for name, reg in regs.items():
                ts = _times(reg.run, args.calls)
                per_round[name].append(statistics.median(ts))
                every[name] += ts
        stdio.close()
        http.close()
        starts = []
        for _ in range(args.starts):
            c = mc.Connection(servers.bundled("en"))
            c.start()
            starts.append(c.started_s)
            c.close()
        time_starts = []
        for _ in range(max(1, args.starts // 2)):
            c = mc.Connection(mc.parse_server(f"{sys.executable} -m mcp_server_time --local-timezone UTC"))
            c.start()
            time_starts.append(c.started_s)
            c.close()
        http_starts = []
        for _ in range(args.starts):
            c = mc.Connection(mc.parse_server(url))
            c.start()
            http_starts.append(c.started_s)
            c.close()
    finally:
        http_proc.terminate()
        http_proc.wait(10)

    base = statistics.median(per_round["in-process"])
    rows = []
    for name in regs:
        q = statistics.quantiles(every[name], n=10)
        p50 = statistics.median(per_round[name])
        rows.append([name, f"{p50 * 1e3:.3f}", f"{q[0] * 1e3:.3f}-{q[-1] * 1e3:.3f}", f"{(p50 - base) * 1e3:+.3f}"])
    print(machine())
    print(f"{args.rounds} rounds x {args.calls} calls of weather(city='Beijing') through ToolRegistry.run\n")
    print(table(["path", "p50 ms/call", "p10-p90 ms", "added vs in-process ms"], rows))
    added = statistics.median(per_round["stdio (bundled server)"]) - base
    print(f"\nstdio adds {added * 1e3:.2f} ms at p50 (target <= 5 ms): {met(added <= 0.005)}\n")
    print(
        table(
            ["server start (connect + handshake + tools/list)", "median ms", "min-max ms"],
            [
                [
                    "bundled server, stdio",
                    f"{statistics.median(starts) * 1e3:.0f}",
                    f"{min(starts) * 1e3:.0f}-{max(starts) * 1e3:.0f}",
                ],
                [
                    "mcp-server-time, stdio",
                    f"{statistics.median(time_starts) * 1e3:.0f}",
                    f"{min(time_starts) * 1e3:.0f}-{max(time_starts) * 1e3:.0f}",
                ],
                [
                    "bundled tools, HTTP session (server already up)",
                    f"{statistics.median(http_starts) * 1e3:.0f}",
                    f"{min(http_starts) * 1e3:.0f}-{max(http_starts) * 1e3:.0f}",
                ],
            ],
        )
    )


if __name__ == "__main__":
    main()

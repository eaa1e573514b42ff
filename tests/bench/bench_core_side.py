"""ReAct's µs per step over the bare loop's, for one source tree: the side-by-side check of the core's cost.

Run it for two trees in turns (say a `git worktree` of the base commit and this checkout), several
times each, and compare the ratios: both contenders are timed in the same process, in turns, so the
machine's load hits them alike.

    python tests/bench/bench_core_side.py TREE   # prints {N: [ours µs, bare µs, ratio]} as JSON

µs per step is run(N) / N, as bench_core.py's first table; the min of 7 timed batches per size. Where
the tree's bench has the inlined floor (`ideal`, same events and call record), each size also gets
[floor µs, floor / bare], timed in the same turns.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys

tree = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path.insert(0, tree)
spec = importlib.util.spec_from_file_location("bench_core_of_tree", f"{tree}/tests/bench/bench_core.py")
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench
spec.loader.exec_module(bench)
from tests.bench._util import per_call  # noqa: E402  (the tree's own, after its path is first)

ours, bare = bench.ours(), bench.bare()
ideal = bench.ideal() if hasattr(bench, "ideal") else None
for contender in (ours, bare, ideal):  # warm-up
    if contender is not None:
        contender.run(50)
out = {}
for n in (10, 50, 200):
    mine, floor, inlined = [], [], []
    for _ in range(7):
        mine.append(per_call(functools.partial(ours.run, n)) * 1e6 / n)
        floor.append(per_call(functools.partial(bare.run, n)) * 1e6 / n)
        if ideal is not None:
            inlined.append(per_call(functools.partial(ideal.run, n)) * 1e6 / n)
    out[n] = [round(min(mine), 2), round(min(floor), 2), round(min(mine) / min(floor), 2)]
    if inlined:
        out[n] += [round(min(inlined), 2), round(min(inlined) / min(floor), 2)]
print(json.dumps(out))

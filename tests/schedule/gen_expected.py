#!/usr/bin/env python3
"""Writes tests/schedule/actions.expected: for each (skip_first, wait, warmup,
active, repeat) combination, the action torch.profiler.schedule returns at
steps 0..39 (0 NONE, 1 WARMUP, 2 RECORD, 3 RECORD_AND_SAVE).

Run with Debian's python3-torch:  /usr/bin/python3 tests/schedule/gen_expected.py
The suite itself reads only the checked-in file."""
import os
import warnings

import torch.profiler as tp

warnings.simplefilter("ignore")  # warmup=0 warns
CODES = {
    tp.ProfilerAction.NONE: 0,
    tp.ProfilerAction.WARMUP: 1,
    tp.ProfilerAction.RECORD: 2,
    tp.ProfilerAction.RECORD_AND_SAVE: 3,
}
COMBOS = [
    # skip_first, wait, warmup, active, repeat
    (0, 0, 0, 1, 0), (0, 1, 1, 2, 1), (0, 1, 1, 2, 0), (0, 2, 1, 3, 2),
    (1, 1, 1, 2, 1), (3, 0, 2, 1, 3), (0, 0, 1, 1, 0), (2, 3, 0, 2, 2),
    (5, 1, 2, 4, 0), (0, 4, 4, 4, 1), (1, 0, 0, 3, 0), (7, 2, 2, 2, 3),
]
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "actions.expected")
with open(out, "w") as f:
    f.write("# skip_first wait warmup active repeat : actions at steps 0..39\n")
    for c in COMBOS:
        fn = tp.schedule(skip_first=c[0], wait=c[1], warmup=c[2], active=c[3], repeat=c[4])
        f.write("%d %d %d %d %d : %s\n" % (c + ("".join(str(CODES[fn(s)]) for s in range(40)),)))
print("wrote", out)

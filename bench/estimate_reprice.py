"""Re-price recorded estimate_error rows with the current constants (the runs do not depend on them)."""
import json, sys
from bench.estimate_error import window_config, range_ratio
from tcprof.profiler.run.estimate import Prices, estimate
for path in sys.argv[1:]:
    rows = json.load(open(path))
    for r in rows:
        if r["history"]:
            continue
        config = window_config(r["example"]).to_dict()
        est = estimate(config, Prices().with_probe(r["probe"]))
        print(f"{path.split('/')[-1]:24} {r['example']:12} pace x{Prices().with_probe(r['probe']).pace():.2f} estimate {est.seconds:5.1f}-{est.most_seconds:5.1f} actual {r['actual_s']:5.1f} range/actual {range_ratio(est, r['actual_s'])}")

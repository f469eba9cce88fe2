#!/usr/bin/python3
"""Reads Prometheus text metrics from a URL or a file, parses them with the
prometheus_client package's parser (an implementation independent of the one
that wrote them), checks every histogram's buckets are cumulative, and prints
one line per sample: NAME{label="value",...} VALUE, labels sorted by name.
Exit status: 0 parsed and consistent, 1 a check failed, 2 unreadable.
Used by tests/integration/metrics_test.cc."""
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def main():
    source = sys.argv[1]
    try:
        if source.startswith("http://"):
            text = urllib.request.urlopen(source, timeout=10).read().decode()
        else:
            with open(source) as f:
                text = f.read()
    except OSError as e:
        print(f"cannot read {source}: {e}", file=sys.stderr)
        return 2
    ok = True
    for family in text_string_to_metric_families(text):
        buckets = {}
        for s in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            print(f"{s.name}{{{labels}}} {s.value:.17g}")
            if s.name.endswith("_bucket"):
                key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
                buckets.setdefault(key, []).append((float(s.labels["le"]), s.value))
        for key, series in buckets.items():
            counts = [count for _, count in sorted(series)]
            if counts != sorted(counts):
                print(f"{family.name}{dict(key)}: buckets not cumulative: {counts}",
                      file=sys.stderr)
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

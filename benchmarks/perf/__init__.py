"""Speed and memory benchmarks, printing figures measured side by side in one run."""
